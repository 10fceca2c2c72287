"""What every Celery worker does at start and at a warm shutdown (connected in ``arena.celery``).

* start (``celeryd_after_setup``): the pool's size is checked against the host's cores
  (``arena.capacity.check_slots``); a worker asked for too many slots logs why and exits.
* warm shutdown (``worker_shutting_down``, in the main process): the matches this worker plays
  are handed back at once (``arena.matches.services.matches_hand_back``): pending again,
  the claim not counted, a message each for another worker; the pool's slots see their leases
  gone, kill their engines and return within about a second, so the shutdown is quick.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def check_pool_size(sender: Any = None, instance: Any = None, **kwargs: Any) -> None:
    from django.conf import settings

    from arena.capacity import TooManySlots, check_slots

    concurrency = int(getattr(instance, "concurrency", 0) or 0)
    if concurrency <= 0:
        return
    try:
        check_slots(concurrency, force=settings.BAO_WORKER_SLOTS_FORCE)
    except TooManySlots as exc:
        log.error("worker %s refused: %s", sender, exc)
        raise SystemExit(f"worker refused: {exc}") from None


def hand_back_matches(sender: Any = None, **kwargs: Any) -> None:
    from arena.matches.services import matches_hand_back

    try:
        matches_hand_back(str(sender or ""))
    except Exception:  # the database may be down: the leases then expire on their own
        log.exception("worker %s: handing back its matches failed", sender)
