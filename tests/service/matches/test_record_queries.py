"""Recording a result costs a fixed, small number of queries (issue 19): the games in one
insert, the status in one conditional UPDATE (the lease check), the head-to-head counts in one
upsert and the rating refit request in one or two UPDATEs (issue 32), the tournament's
progress without a query per entry or match, and after commit no query: only the refit task
sent, by the request that found none queued, and the ladder's fill.

Inside a test the recording transaction is a savepoint of the test's: each count below includes
its SAVEPOINT and RELEASE statements (two that production does not send).
"""

from __future__ import annotations

from typing import Any

import pytest

from arena import terminations as T
from arena.matches.leases import Claim, match_claim
from arena.matches.models import Game, Match
from arena.matches.services import match_create, match_record_result
from arena.referee import GameRecord, MatchRecord, MoveRecord
from ratings.models import HeadToHead, RatingPool

pytestmark = pytest.mark.django_db

PLIES = 56


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch: Any) -> list[tuple[str, Any]]:
    """Tasks sent are noted, not sent (run_match, the refit, the ladder's top-up)."""
    from arena.matches import tasks as match_tasks
    from ladder import tasks as ladder_tasks
    from ratings import tasks as rating_tasks

    sent: list[tuple[str, Any]] = []
    for task in (match_tasks.run_match, rating_tasks.refit_ratings,
                 ladder_tasks.ladder_fill_all):  # fmt: skip
        monkeypatch.setattr(
            task, "apply_async",
            lambda name=task.name, **kw: sent.append((name, kw.get("args", ()))),
        )  # fmt: skip
    return sent


def _record(match: Match) -> MatchRecord:
    """A referee record of three 56-ply games: A wins game 1, B game 2, game 3 drawn."""
    a, b = str(match.engine_a), str(match.engine_b)
    moves = [
        MoveRecord(ply=n, side="S" if n % 2 else "N", move="f2-", time_ms=40, clock_ms=9_000,
                   position="p" * 70, info=["depth 6 score 12"])
        for n in range(1, PLIES + 1)
    ]  # fmt: skip
    games = [
        GameRecord(index=i, south=s, north=n, winner=s if r == "1-0" else None, result=r,
                   termination=T.BAO_HAMNA, plies=PLIES, moves=moves, start_position="s",
                   final_position="f", started_at="2026-01-01T00:00:00+00:00", duration_ms=9000)
        for i, (s, n, r) in enumerate(((a, b, "1-0"), (b, a, "1-0"), (a, b, "1/2-1/2")), 1)
    ]  # fmt: skip
    return MatchRecord(
        variant=match.variant,
        seed=match.seed,
        time_control=match.time_control,
        engines=[a, b],
        games=games,
    )


def _claimed(match: Match) -> tuple[Match, Claim]:
    claim = match_claim(match.pk, lease_seconds=900)
    assert claim is not None
    # What the runner holds when it records (arena.matches.runner.play_claimed).
    loaded = Match.objects.select_related("engine_a__engine", "engine_b__engine").get(pk=match.pk)
    return loaded, claim


def _assert_recorded(match: Match) -> None:
    match.refresh_from_db()
    assert (match.status, match.score_a, match.score_b, match.winner_id) == (
        "finished",
        1.5,
        1.5,
        None,
    )
    games = list(Game.objects.filter(match=match).order_by("index"))
    assert [(g.index, g.south_id, g.north_id, g.winner_id, g.result, g.rated) for g in games] == [
        (1, match.engine_a_id, match.engine_b_id, match.engine_a_id, "1-0", True),
        (2, match.engine_b_id, match.engine_a_id, match.engine_b_id, "1-0", True),
        (3, match.engine_a_id, match.engine_b_id, None, "1/2-1/2", True),
    ]
    assert all(len(g.moves) == PLIES for g in games)


def test_a_rated_result_takes_six_queries_and_none_after_commit(
    greedy: Any, randomer: Any, django_assert_max_num_queries: Any,
    django_capture_on_commit_callbacks: Any, _no_broker: Any,
) -> None:  # fmt: skip
    RatingPool.objects.create(variant="bao-la-kete")
    match, claim = _claimed(match_create(
        engine_a=greedy, engine_b=randomer, variant="kete", time_control="10+0.1"
    ))  # fmt: skip
    _no_broker.clear()
    record = _record(match)
    # SAVEPOINT, the status UPDATE, the games' INSERT, the head-to-head upsert, the refit
    # request (it marks the refit queued), RELEASE; then the tasks sent.
    with (
        django_capture_on_commit_callbacks(execute=False) as after_commit,
        django_assert_max_num_queries(6),
    ):
        assert match_record_result(match.pk, claim.token, record, match=match)
    with django_assert_max_num_queries(0):
        for callback in after_commit:
            callback()
    _assert_recorded(match)
    # A won game 1 (South), B game 2 (South), game 3 drawn.
    low, high = sorted((match.engine_a_id, match.engine_b_id))
    assert list(
        HeadToHead.objects.values_list("variant", "version_a", "version_b", "wins_a", "draws",
                                       "wins_b")
    ) == [("bao-la-kete", low, high, 1, 1, 1)]  # fmt: skip
    assert RatingPool.objects.get(variant="bao-la-kete").requested == 1
    assert sorted(name for name, _ in _no_broker) == [
        "tournaments.tasks.ladder_fill_all",
        "tournaments.tasks.refit_ratings",
    ]
    # Exactly once: the same result again writes nothing, with the row or without.
    match = Match.objects.select_related("engine_a__engine", "engine_b__engine").get(pk=match.pk)
    with django_assert_max_num_queries(6):  # UPDATE, SELECT: nothing is ours any more
        assert not match_record_result(match.pk, claim.token, record, match=match)
        assert not match_record_result(match.pk, claim.token, record)
    assert Game.objects.filter(match=match).count() == 3
    assert HeadToHead.objects.get().games == 3  # counted once


def test_while_a_refit_is_queued_a_result_sends_no_refit(
    greedy: Any, randomer: Any, django_assert_max_num_queries: Any,
    django_capture_on_commit_callbacks: Any, _no_broker: Any,
) -> None:  # fmt: skip
    RatingPool.objects.create(variant="bao-la-kete", requested=4, refit_queued=True)
    match, claim = _claimed(match_create(
        engine_a=greedy, engine_b=randomer, variant="kete", time_control="10+0.1"
    ))  # fmt: skip
    _no_broker.clear()
    # The refit request is two UPDATEs (the first finds the refit queued): seven in all.
    with (
        django_capture_on_commit_callbacks(execute=True),
        django_assert_max_num_queries(7),
    ):
        assert match_record_result(match.pk, claim.token, _record(match), match=match)
    assert RatingPool.objects.get(variant="bao-la-kete").requested == 5
    assert [name for name, _ in _no_broker] == ["tournaments.tasks.ladder_fill_all"]


def test_without_the_row_one_query_reads_it(
    greedy: Any, randomer: Any, django_assert_max_num_queries: Any
) -> None:
    RatingPool.objects.create(variant="bao-la-kete")
    match, claim = _claimed(match_create(
        engine_a=greedy, engine_b=randomer, variant="kete", time_control="10+0.1"
    ))  # fmt: skip
    with django_assert_max_num_queries(7):
        assert match_record_result(match.pk, claim.token, _record(match))
    _assert_recorded(match)


def test_a_round_robin_result_adds_three_queries_for_its_tournament(
    greedy: Any, randomer: Any, searcher: Any, alice: Any,
    django_assert_max_num_queries: Any, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    from tournaments.services import tournament_create, tournament_start

    alice.is_staff = True
    alice.save()
    RatingPool.objects.create(variant="bao-la-kete")
    cup = tournament_create(
        name="Cup", variant="kete", engines=["greedy", "random", "search"],
        time_control="10+0.1", created_by=alice,
    )  # fmt: skip
    assert tournament_start(cup.pk)
    first, *rest = cup.matches.order_by("id")
    match, claim = _claimed(first)
    # As a rated match, and the tournament row locked with its creator, its entries read
    # once (withdrawals), one EXISTS for an unfinished match: no query per entry or match.
    with django_capture_on_commit_callbacks(execute=True), django_assert_max_num_queries(10):
        assert match_record_result(match.pk, claim.token, _record(match), match=match)
    _assert_recorded(match)
    cup.refresh_from_db()
    assert cup.status == "running" and len(rest) == 2
