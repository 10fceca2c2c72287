"""What every Celery worker does at start and at a warm shutdown (connected in ``arena.worker``).

* start (``celeryd_after_setup``): the pool's size is checked against the host's cores
  (``arena.capacity.check_slots``); a worker asked for too many slots logs why and exits.
* ready (``worker_ready``): processes left under engine uids whose referee died (a worker
  stopped mid-game) are killed (``engines.sandbox.sweep_orphaned_uids``); the worker announces
  its slots (``WorkerNode``) and refreshes that row every ``PRESENCE_S`` seconds from a thread
  of its main process (the queue view's "slots"); that thread first probes the runtimes its
  sandbox offers engines, each started as an engine (``engines.sandbox.runtimes``), and records
  them (``engines.services.worker_runtimes_record``: ``GET /api/runtimes/``, the upload page,
  the ``runtime_missing`` check), refreshed with the presence; and, when beat has not run the
  recovery scan for two of its periods (beat down, its ticks dropped in a broker outage), one
  worker runs it (``arena.matches.recovery.matches_recover_if_beat_is_late``);
* warm shutdown (``worker_shutting_down``, in the main process): its rows are removed and the
  matches this worker plays are handed back at once
  (``arena.matches.services.matches_hand_back``): pending again, the claim not counted, a
  message each for another worker; the pool's slots see their leases gone, kill their engines
  and return within about a second, so the shutdown is quick.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

#: Seconds between two presence updates of a worker.
PRESENCE_S = 10
_presence_stop = threading.Event()


def _announce(name: str, slots: int) -> None:
    from django.db import close_old_connections, connection
    from django.utils import timezone

    from arena.capacity import host_cores
    from arena.matches.models import WorkerNode

    started = timezone.now()
    probed = False
    try:
        while True:
            try:
                WorkerNode.objects.update_or_create(
                    name=name,
                    defaults={"slots": slots, "cores": host_cores(), "last_seen": timezone.now()},
                    create_defaults={
                        "slots": slots,
                        "cores": host_cores(),
                        "last_seen": timezone.now(),
                        "started_at": started,
                    },
                )
            except Exception as exc:  # the database may be down for a while
                log.warning("worker %s: presence not recorded (%s)", name, exc)
                close_old_connections()
            probed = _runtimes(name, probed)
            _recover_if_beat_is_late(name)
            if _presence_stop.wait(PRESENCE_S):
                return
    finally:
        connection.close()


def _recover_if_beat_is_late(name: str) -> None:
    """The recovery scan, run here when beat has not run it for two periods
    (``arena.matches.recovery.matches_recover_if_beat_is_late``: one worker at a time)."""
    from django.db import close_old_connections

    from arena.matches.recovery import matches_recover_if_beat_is_late

    try:
        matches_recover_if_beat_is_late()
    except Exception as exc:  # the database or the broker may be down: next period
        log.warning("worker %s: the recovery scan failed (%s)", name, exc)
        close_old_connections()


def _runtimes(name: str, probed: bool) -> bool:
    """Probe and record this worker's runtimes once (``probed`` False), then keep the record
    current; True once recorded. A sandbox that cannot start engines records none."""
    from django.db import close_old_connections

    from engines import services
    from engines.sandbox import SandboxError
    from engines.sandbox.runtimes import probe_runtimes
    from engines.validation import sandbox_config

    try:
        if probed:
            return services.worker_runtimes_seen(name) or _runtimes(name, False)
        try:
            found = probe_runtimes(sandbox_config())
        except SandboxError as exc:
            log.error("worker %s: the sandbox cannot start engines (%s)", name, exc)
            found = []
        services.worker_runtimes_record(name, found)
        log.info(
            "worker %s offers engines: %s",
            name,
            ", ".join(f"{r.name} {r.version}" for r in found) or "nothing",
        )
        return True
    except Exception as exc:  # the database may be down: try again next period
        log.warning("worker %s: runtimes not recorded (%s)", name, exc)
        close_old_connections()
        return False


def announce_presence(sender: Any = None, **kwargs: Any) -> None:
    from arena.beat_pool import is_beat_pool

    if is_beat_pool() or sender is None:
        return
    worker = getattr(sender, "controller", None) or sender  # the signal sends the consumer
    name = str(getattr(sender, "hostname", "") or "")
    slots = int(getattr(worker, "concurrency", 0) or 0)
    threading.Thread(
        target=_announce, args=(name, slots), name="worker-presence", daemon=True
    ).start()


def sweep_sandbox_orphans(sender: Any = None, **kwargs: Any) -> None:
    from engines.sandbox import sweep_orphaned_uids

    swept = sweep_orphaned_uids()
    if swept:
        log.warning("worker %s: killed processes left under engine uids %s", sender, swept)


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
    from arena.beat_pool import is_beat_pool
    from arena.matches.models import WorkerNode
    from arena.matches.services import matches_hand_back
    from engines.services import worker_runtimes_forget

    if is_beat_pool():
        return
    _presence_stop.set()
    try:
        WorkerNode.objects.filter(name=str(sender or "")).delete()
        worker_runtimes_forget(str(sender or ""))
        matches_hand_back(str(sender or ""))
    except Exception:  # the database may be down: the leases then expire on their own
        log.exception("worker %s: handing back its matches failed", sender)
