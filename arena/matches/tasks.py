"""Celery tasks of the matches app: thin, take ids, idempotent.

``run_match`` is sent with per-match ``soft_time_limit``/``time_limit`` (``limits.match_limits``,
derived from the time control); its decorator limits are the ceiling for a message sent without
them. ``acks_late`` + ``reject_on_worker_lost``: a message is acknowledged only after the task
returns, so a worker killed mid-match leaves it to be delivered again, and the lease decides
whether the new delivery plays (exactly-once is the database's job, not the broker's).
"""

from __future__ import annotations

from celery import shared_task

from arena.matches.limits import max_task_seconds
from arena.matches.recovery import matches_requeue_stale
from arena.matches.runner import execute_match

# The ceiling of any match task: a message must never outlive the broker's visibility timeout
# while its task may still run (else a second worker would get it while the first plays).
TASK_HARD_LIMIT_S = max_task_seconds()
TASK_SOFT_LIMIT_S = TASK_HARD_LIMIT_S - 30
assert TASK_SOFT_LIMIT_S > 0, "CELERY_BROKER_VISIBILITY_TIMEOUT is too short for any match"


@shared_task(
    name="arena.matches.tasks.run_match",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=TASK_HARD_LIMIT_S,
    soft_time_limit=TASK_SOFT_LIMIT_S,
    ignore_result=True,
)
def run_match(match_id: int) -> str:
    """Play and record match ``match_id`` if it is claimable; returns the runner's outcome
    (``recorded``, ``skipped``, ``lost_lease``, ``retry``, ``aborted``)."""
    return execute_match(match_id)


@shared_task(name="arena.matches.tasks.requeue_expired_leases", ignore_result=True)
def requeue_expired_leases() -> dict[str, list[int]]:
    """Beat job (every minute): queue again matches whose worker died or whose message was
    lost; abort the ones out of attempts. Returns ``{"requeued": [...], "aborted": [...]}``."""
    report = matches_requeue_stale()
    return {"requeued": report.requeued, "aborted": report.aborted}
