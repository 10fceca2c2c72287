"""The matches app's one outgoing hook: "a match ended", for the apps that act on it.

The matches app knows none of its consumers (tournaments, ratings, live pages); they subscribe
here from their app's ``AppConfig.ready()``, and the match services publish. Two phases, by
what a subscriber must agree with:

* ``Phase.IN_TRANSACTION``: runs inside the transaction that records the result, so what it
  writes commits or rolls back with the games (tournament progress). An exception it raises
  rolls the result back: the match stays ``running`` and is played again.
* ``Phase.AFTER_COMMIT``: runs once the result is committed (rating updates and refits,
  automatic pairing, publishing to a live page). An exception it raises is logged with the
  match id and the subscriber's name and goes no further: the result stands.

Subscribers run in the order they subscribed; subscribing the same function twice to a phase is
a no-op (``ready()`` may run more than once in tests).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import NamedTuple

from django.db import transaction

log = logging.getLogger(__name__)


class Phase(StrEnum):
    """When a subscriber runs relative to the transaction that ends the match."""

    IN_TRANSACTION = "in_transaction"
    AFTER_COMMIT = "after_commit"


class RatedResult(NamedTuple):
    """One rated game of an ended match: South's and North's engine version ids and the result
    from South's side (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``)."""

    south_id: int
    north_id: int
    result: str


@dataclass(frozen=True)
class MatchEnded:
    """A match became ``finished`` or ``aborted`` (ids, not rows: an after-commit subscriber
    reads the committed state itself).

    ``status`` is the match's new status (``Match.Status.FINISHED`` or ``ABORTED``);
    ``variant`` its variant id; ``tournament_id`` None for a match outside a tournament (a
    challenge); ``priority`` its dispatch class (``Match.Priority``; a subscriber may skip the
    classes its matches are never created in without a query). ``rated_results`` are its rated
    games' results in game order (empty for an unrated or aborted match), so that an
    in-transaction subscriber counts them without reading the games back (the ratings'
    head-to-head counts).
    """

    match_id: int
    status: str
    variant: str
    tournament_id: int | None
    rated: bool
    priority: int = 0
    rated_results: tuple[RatedResult, ...] = ()


MatchEndedSubscriber = Callable[[MatchEnded], None]

_subscribers: dict[Phase, list[MatchEndedSubscriber]] = {phase: [] for phase in Phase}


def subscribe_match_ended(subscriber: MatchEndedSubscriber, *, phase: Phase) -> None:
    """Call ``subscriber(event)`` for every match that ends, in ``phase`` (module docstring)."""
    if subscriber not in _subscribers[phase]:
        _subscribers[phase].append(subscriber)


def publish_match_ended(event: MatchEnded) -> None:
    """Run the in-transaction subscribers now (their exceptions propagate) and schedule the
    after-commit ones (``transaction.on_commit``; run at once outside a transaction).

    Called by the match services inside the transaction that ends the match.
    """
    for subscriber in list(_subscribers[Phase.IN_TRANSACTION]):
        subscriber(event)
    for subscriber in list(_subscribers[Phase.AFTER_COMMIT]):
        transaction.on_commit(partial(_run_logged, subscriber, event))


def _run_logged(subscriber: MatchEndedSubscriber, event: MatchEnded) -> None:
    try:
        subscriber(event)
    except Exception:  # the result is committed: a consumer's fault must not reach the worker
        log.exception(
            "match %s ended (%s): subscriber %s failed",
            event.match_id,
            event.status,
            getattr(subscriber, "__qualname__", repr(subscriber)),
        )
