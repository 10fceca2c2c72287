"""Writes of the matches app: creating matches, queueing them, recording results exactly once,
aborting and cancelling them, and users' challenges, one module per concept:

| module | what |
| --- | --- |
| ``creation`` | ``match_create``, ``matches_create`` (a batch in one insert), their checks |
| ``queueing`` | the per-user cap, the ``run_match`` wake-ups, a worker handing matches back |
| ``recording`` | ``match_record_result``: the referee's ``MatchRecord`` written exactly once |
| ``aborting`` | ``match_abort``, ``matches_abort``, ``match_cancel``, ``match_cancel_by`` |
| ``challenges`` | ``match_challenge``: a user's engine against another, by names |

Import them from here (``from arena.matches.services import match_create``): this package's
path is the one other apps use. Every service that ends a match publishes
``events.MatchEnded`` in its transaction: the app's consumers (tournament progress, ratings)
subscribe there, so this package knows none of them. Tasks are sent by name through the
project's Celery app (``arena.celery.app``): the tasks module imports this package, never the
reverse.
"""

from __future__ import annotations

from arena.matches.services.aborting import (
    match_abort,
    match_cancel,
    match_cancel_by,
    matches_abort,
)
from arena.matches.services.challenges import match_challenge
from arena.matches.services.creation import (
    SEED_BOUND,
    MatchSpec,
    match_create,
    matches_create,
    normalize_start_suite,
    normalize_time_control,
)
from arena.matches.services.queueing import (
    RUN_MATCH_TASK,
    match_enqueue,
    match_wake_next,
    matches_enqueue,
    matches_enqueue_ids,
    matches_hand_back,
    queue_admit,
    queued_count,
    wake_ups_for,
)
from arena.matches.services.recording import match_record_result

__all__ = [
    "RUN_MATCH_TASK",
    "SEED_BOUND",
    "MatchSpec",
    "match_abort",
    "match_cancel",
    "match_cancel_by",
    "match_challenge",
    "match_create",
    "match_enqueue",
    "match_record_result",
    "match_wake_next",
    "matches_abort",
    "matches_create",
    "matches_enqueue",
    "matches_enqueue_ids",
    "matches_hand_back",
    "normalize_start_suite",
    "normalize_time_control",
    "queue_admit",
    "queued_count",
    "wake_ups_for",
]
