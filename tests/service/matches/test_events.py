"""``arena.matches.events``: the services publish ``MatchEnded``; an in-transaction subscriber
commits or rolls back with the result, an after-commit subscriber's failure is logged and the
result stands."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from arena import terminations as T
from arena.matches import events
from arena.matches.events import MatchEnded, Phase, RatedResult
from arena.matches.leases import Claim, match_claim
from arena.matches.models import Game, Match
from arena.matches.services import match_abort, match_create, match_record_result
from arena.referee import GameRecord, MatchRecord, MoveRecord

pytestmark = pytest.mark.django_db


@pytest.fixture
def subscribers(monkeypatch: Any) -> Iterator[dict[Phase, list[Any]]]:
    """A private subscriber list per phase (the apps' own subscribers are set aside)."""
    fresh: dict[Phase, list[Any]] = {phase: [] for phase in Phase}
    monkeypatch.setattr(events, "_subscribers", fresh)
    yield fresh


@pytest.fixture
def running(greedy: Any, randomer: Any, monkeypatch: Any) -> tuple[Match, Claim]:
    from arena.matches import tasks

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)
    match = match_create(engine_a=greedy, engine_b=randomer, variant="kete", time_control="2+0.1")
    claim = match_claim(match.pk, lease_seconds=900)
    assert claim is not None
    return match, claim


def _record(match: Match) -> MatchRecord:
    names = [str(match.engine_a), str(match.engine_b)]
    moves = [
        MoveRecord(ply=ply, side=side, move=move, time_ms=5, clock_ms=9_000, position="p")
        for ply, side, move in ((1, "S", "f2-"), (2, "N", "a1+"), (3, "S", "b2+"))
    ]
    game = GameRecord(
        index=1,
        south=names[0],
        north=names[1],
        start_position="s",
        winner=names[0],
        result="1-0",
        termination=T.BAO_HAMNA,
        plies=3,
        moves=moves,
    )
    return MatchRecord(
        variant=match.variant,
        seed=match.seed,
        time_control=match.time_control,
        engines=names,
        games=[game],
    )


def test_both_phases_hear_a_recorded_match_in_order(
    subscribers: Any, running: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match, claim = running
    heard: list[tuple[str, MatchEnded]] = []
    events.subscribe_match_ended(lambda e: heard.append(("after", e)), phase=Phase.AFTER_COMMIT)
    inside = lambda e: heard.append(("inside", e))  # noqa: E731
    events.subscribe_match_ended(inside, phase=Phase.IN_TRANSACTION)
    events.subscribe_match_ended(inside, phase=Phase.IN_TRANSACTION)  # twice: once

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert match_record_result(match.pk, claim.token, _record(match))
    ended = MatchEnded(
        match_id=match.pk, status="finished", variant="bao-la-kete", tournament_id=None,
        rated=True, rated_results=(RatedResult(match.engine_a_id, match.engine_b_id, "1-0"),),
    )  # fmt: skip
    assert heard == [("inside", ended)]  # the after-commit one waits for the commit
    for callback in callbacks:
        callback()
    assert heard == [("inside", ended), ("after", ended)]


def test_an_in_transaction_failure_rolls_the_result_back(subscribers: Any, running: Any) -> None:
    match, claim = running

    def refuse(event: MatchEnded) -> None:
        raise RuntimeError("tournament state disagrees")

    events.subscribe_match_ended(refuse, phase=Phase.IN_TRANSACTION)
    with pytest.raises(RuntimeError):
        match_record_result(match.pk, claim.token, _record(match))
    assert Match.objects.get(pk=match.pk).status == "running"
    assert not Game.objects.filter(match=match).exists()


def test_an_after_commit_failure_is_logged_and_the_result_stands(
    subscribers: Any, running: Any, django_capture_on_commit_callbacks: Any, caplog: Any
) -> None:
    match, claim = running

    def broken_rating(event: MatchEnded) -> None:
        raise ZeroDivisionError("no games")

    events.subscribe_match_ended(broken_rating, phase=Phase.AFTER_COMMIT)
    with (
        caplog.at_level(logging.ERROR, logger="arena.matches.events"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert match_abort(match.pk, "lost", claim=claim)
    assert Match.objects.get(pk=match.pk).status == "aborted"
    [entry] = caplog.records
    assert f"match {match.pk} ended (aborted)" in entry.getMessage()
    assert "broken_rating" in entry.getMessage()
    assert entry.exc_info is not None and entry.exc_info[0] is ZeroDivisionError


def test_the_tournament_finishes_and_the_refit_is_counted_in_the_transaction_sent_after(
    greedy: Any, randomer: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.matches import tasks
    from ratings.models import RatingPool
    from ratings.tasks import refit_ratings
    from tournaments.services import tournament_create, tournament_start

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)
    refits: list[list[str]] = []
    monkeypatch.setattr(refit_ratings, "apply_async", lambda args, countdown: refits.append(args))
    cup = tournament_create(
        name="Cup", variant="kete", engines=["greedy", "random"], time_control="2+0.1"
    )
    assert tournament_start(cup.pk)
    [match] = cup.matches.all()
    claim = match_claim(match.pk, lease_seconds=900)
    assert claim is not None
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert match_record_result(match.pk, claim.token, _record(match))
    cup.refresh_from_db()
    assert cup.status == "finished"
    # Counted with the result (a rolled-back one counts nothing); the task waits for the commit.
    pool = RatingPool.objects.get(variant="bao-la-kete")
    assert refits == [] and (pool.requested, pool.refit_queued) == (1, True)
    for callback in callbacks:
        callback()
    assert refits == [["bao-la-kete"]]
    assert RatingPool.objects.get(variant="bao-la-kete").requested == 1
