"""How many matches one host plays at once: its match slots (issue 12).

A match at a short clock loses games on time when more engines think at once than the host has
cores (16 concurrent matches at 1+0.01 on 2 cores forfeited up to 32 of 37 games; 8 lost none).
So a worker offers ``settings.BAO_WORKER_SLOTS`` slots, by default the host's cores, and a
count above twice the cores is refused unless ``settings.BAO_WORKER_SLOTS_FORCE`` is set (the
reason goes to the log either way). The demo's ``--workers`` follows the same rule.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

#: More slots than this many per core are refused unless forced.
MAX_SLOTS_PER_CORE = 2


class TooManySlots(ValueError):
    """A slot count above ``MAX_SLOTS_PER_CORE`` x the cores, not forced."""


def host_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_slots(slots: int, *, force: bool = False, cores: int | None = None) -> int:
    """``slots`` if this host may offer them; raises ``TooManySlots`` (its message says why and
    how to force) above ``MAX_SLOTS_PER_CORE`` x ``cores`` unless ``force``, in which case the
    overload is logged as a warning. ``cores`` None means ``host_cores()``."""
    cores = cores or host_cores()
    limit = MAX_SLOTS_PER_CORE * cores
    if slots > limit:
        reason = (
            f"{slots} match slots on {cores} cores: engines would share cores and lose games "
            f"on time (at most {limit}, {MAX_SLOTS_PER_CORE} per core)"
        )
        if not force:
            raise TooManySlots(f"{reason}; set BAO_WORKER_SLOTS_FORCE=1 to run anyway")
        log.warning("%s; forced by BAO_WORKER_SLOTS_FORCE", reason)
    return slots
