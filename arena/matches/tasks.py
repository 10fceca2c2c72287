"""Celery tasks of the matches app: thin, take ids, idempotent.

``run_match`` says "a slot may be free, work is waiting": the slot that receives it claims the
match the dispatcher picks (``arena.matches.dispatch``; the id in the message, if any, is a
hint), wakes the next slot while more is claimable and plays it (``runner.execute_next``); a
batch of matches is queued with one message per worker slot, not per match. It runs under the
task's decorator limits (the ceiling of any match; each match's own limit is enforced by its
lease keeper). ``acks_late`` +
``reject_on_worker_lost``: a message is acknowledged only after the task returns, so a worker
killed mid-match leaves it to be delivered again, and the lease decides what the new delivery
plays (exactly-once is the database's job, not the broker's). A database outage before the
claim is waited out in the task; past ``runner.CLAIM_RETRY_S`` the message goes back to the
broker (``Reject(requeue=True)``), never consumed for nothing.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.exceptions import Reject
from django.conf import settings

from arena.matches.limits import max_task_seconds
from arena.matches.live import live_games_delete_ended
from arena.matches.recovery import matches_requeue_stale
from arena.matches.runner import ClaimUnavailable, execute_next

# The ceiling of any match task: a message must never outlive the broker's visibility timeout
# while its task may still run (else a second worker would get it while the first plays).
TASK_HARD_LIMIT_S = max_task_seconds()
TASK_SOFT_LIMIT_S = TASK_HARD_LIMIT_S - 30
assert TASK_SOFT_LIMIT_S > 0, "CELERY_BROKER_VISIBILITY_TIMEOUT is too short for any match"


@shared_task(
    bind=True,
    name="arena.matches.tasks.run_match",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=TASK_HARD_LIMIT_S,
    soft_time_limit=TASK_SOFT_LIMIT_S,
    ignore_result=True,
)
def run_match(self: Any, match_id: int | None = None) -> str:
    """A slot's turn: play the dispatcher's pick (``match_id``: the match that prompted the
    message); returns the runner's outcome (``recorded``, ``skipped``, ``lost_lease``,
    ``retry``, ``aborted``)."""
    try:
        return execute_next(match_id, worker=self.request.hostname or "")
    except ClaimUnavailable as exc:
        raise Reject(f"database unavailable: {exc}", requeue=True) from exc


@shared_task(name="arena.matches.tasks.requeue_expired_leases", ignore_result=True)
def requeue_expired_leases() -> dict[str, list[int]]:
    """Beat job (every ``settings.BAO_REQUEUE_SCAN_SECONDS``): queue again matches whose worker
    died or whose message was lost; abort the ones out of attempts; re-send validations that
    never reached a worker. Returns ``{"requeued": [...], "aborted": [...]}``."""
    report = matches_requeue_stale()
    return {"requeued": report.requeued, "aborted": report.aborted}


@shared_task(name="arena.matches.tasks.delete_ended_live_games", ignore_result=True)
def delete_ended_live_games() -> int:
    """Beat job (every minute): delete the live rows of matches that ended more than
    ``settings.BAO_LIVE_KEEP_SECONDS`` ago (``live.live_games_delete_ended``); returns the
    number of rows deleted."""
    return live_games_delete_ended(settings.BAO_LIVE_KEEP_SECONDS)
