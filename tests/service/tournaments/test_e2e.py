"""End to end: a real Celery worker process and broker play a round robin of the bundled
engines (random, greedy, search) in Bao la Kete; the search engine ends on top. A Swiss on the
same worker: started at once by its task, each round paired when the worker records the last."""

from __future__ import annotations

import time
from typing import Any

import pytest

from arena.matches.models import Game, Match
from engines.services import register_bundled_engines
from ratings import selectors as rating_selectors
from ratings.models import Rating, RatingPoint
from tournaments import selectors, services
from tournaments.models import Tournament

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def _wait_started(tournament: Tournament, timeout: float) -> None:
    """A tournament created without a start time is started by the task sent at its creation
    (the worker runs it), not by beat."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.SCHEDULED:
            return
        time.sleep(0.2)
    raise AssertionError(f"tournament not started after {timeout} s")


def _wait_finished(tournament: Tournament, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            return
        time.sleep(0.5)
    states = list(tournament.matches.values_list("id", "status", "error"))
    raise AssertionError(f"tournament not finished after {timeout} s: {states}")


def _wait_for_board(games: int, timeout: float, worker: Any) -> list[Rating]:
    """The leaderboard once the worker's refit counts ``games`` (both sides of each game)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        board = list(rating_selectors.leaderboard(variant="bao-la-kete"))
        if sum(r.games for r in board) == games:
            return board
        time.sleep(0.5)
    raise AssertionError(
        f"no refit of {games} game sides after {timeout} s: {board}\n"
        f"--- worker:\n{worker.log_text()[-4000:]}"
    )


def test_a_round_robin_on_a_real_worker_puts_search_on_top(
    fresh_var_dir: Any, live_worker: Any
) -> None:
    versions = register_bundled_engines()
    assert [(str(v), v.status) for v in versions] == [
        ("random v1", "active"),
        ("greedy v1", "active"),
        ("search v1", "active"),
    ]
    worker = live_worker()
    tournament = services.tournament_create(
        name="e2e",
        variant="bao-la-kete",
        engines=["random", "greedy", "search"],
        time_control="2+0.05",
    )
    _wait_started(tournament, timeout=30)
    assert services.start_due_tournaments() == []  # already started: beat has nothing to do
    _wait_finished(tournament, timeout=240)

    matches = list(Match.objects.filter(tournament=tournament))
    assert len(matches) == 3
    assert all(m.status == "finished" for m in matches), [
        (m.pk, m.status, m.error) for m in matches
    ]
    rated_games = Game.objects.filter(match__tournament=tournament, rated=True).count()
    assert rated_games >= 6
    # The worker refits after the matches (debounced): every rated game counted once per side,
    # and each match has one history point per side.
    board = _wait_for_board(2 * rated_games, timeout=60, worker=worker)
    assert RatingPoint.objects.filter(match__tournament=tournament).count() == 2 * 3
    assert board[0].engine_version.engine.name == "search"
    assert board[0].rank == 1
    assert sum(r.games for r in board) == 2 * rated_games
    table = selectors.tournament_table(tournament)
    top = table.standings[0]
    assert table.entries[top.player].engine_version.engine.name == "search"
    assert (top.points, top.match_wins) == (2.0, 2)
    assert Rating.objects.get(engine_version__engine__name="search").rating > 1500
    # The worker and every engine it started are still only the worker's own processes.
    assert worker.popen.poll() is None


def test_a_swiss_on_a_real_worker_pairs_each_round_as_the_last_is_recorded(
    fresh_var_dir: Any, live_worker: Any
) -> None:
    register_bundled_engines()
    live_worker()
    tournament = services.tournament_create(
        name="swiss e2e",
        variant="bao-kingulu",
        engines=["random", "greedy", "search"],
        time_control="2+0.05",
        format="swiss",
        rounds=2,
    )
    _wait_finished(tournament, timeout=240)
    assert (tournament.current_round, tournament.end_reason) == (2, "")
    rounds = selectors.tournament_table(tournament).rounds
    assert [len(r.matches) for r in rounds] == [1, 1]
    assert all(m.status == "finished" for r in rounds for m in r.matches)
    byes = [r.byes[0] for r in rounds]
    assert len(set(byes)) == 2  # two different engines had the bye
    pairs = [{r.matches[0].engine_a_id, r.matches[0].engine_b_id} for r in rounds]
    assert pairs[0] != pairs[1]  # no repeat
