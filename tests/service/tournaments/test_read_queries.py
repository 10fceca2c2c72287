"""The read endpoints of issue 19 make a fixed number of queries, whatever the data (no N+1),
and never read the games' move lists except for a replay.

Each endpoint is fetched on a small world and again after it has grown (more matches, games,
rating history, a bigger tournament): the count pinned by ``django_assert_max_num_queries``
holds for both. The speed itself is printed by ``benchmarks/bench_service.py``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.matches.models import Game, Match
from tournaments import pairing
from tournaments.models import Tournament
from tournaments.rating_services import rating_refit

#: Endpoint -> the most queries one request may make.
BUDGET = {
    "/api/matches/?page=1": 2,
    "/api/matches/?engine=E0": 3,
    "/api/engines/e0/ratings/": 4,
    "/api/leaderboard/?variant=bao-la-kete": 4,
    # The home page: 3 leaderboards, their trends, running matches, live games, tournaments,
    # recent results and their games (arena.web.pages.home).
    "/": 9,
    "/api/tournaments/{t}/": 11,
    # The tournament page also lists its live games (arena.web.pages.tournament_page).
    "/tournaments/{t}/": 14,
    "/api/games/{g}/": 1,
    "/api/matches/{m}/": 2,
}
MOVES = [{"ply": 1, "side": "S", "move": "f2-", "time_ms": 5, "clock_ms": 9995, "position": "x"}]


@pytest.fixture
def world(make_version: Any, make_finished_match: Any) -> Callable[[int], dict[str, Any]]:
    """``grow(n)``: a finished round robin of ``n`` engines (e0..), a challenge match between
    every pair too, the variant refitted; every game has a move list. Returns the ids the
    URLs need."""
    made: dict[str, Any] = {"versions": []}

    def grow(n: int) -> dict[str, Any]:
        versions = made["versions"]
        while len(versions) < n:
            versions.append(make_version(f"e{len(versions)}"))
        t = Tournament.objects.create(
            name=f"rr{n}", variant="bao-la-kete", time_control="10+0.1", status="finished",
            start_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), current_round=n - 1,
        )  # fmt: skip
        for seed_no, v in enumerate(versions[:n], start=1):
            t.entries.create(engine_version=v, seed_no=seed_no)
        for round_no, pairs in enumerate(pairing.round_robin(n), start=1):
            for p in pairs:
                a, b = versions[p.a], versions[p.b]
                make_finished_match(a, b, ["1-0", "0-1", "1/2-1/2"], tournament=t, round=round_no)
                make_finished_match(b, a, ["1-0", "1-0"])
        Game.objects.update(moves=MOVES)
        rating_refit("bao-la-kete")
        return {"t": t.pk, "g": Game.objects.order_by("id").first().pk,
                "m": Match.objects.order_by("id").first().pk}  # fmt: skip

    return grow


@pytest.mark.parametrize("path", list(BUDGET))
def test_each_read_endpoint_makes_a_fixed_number_of_queries(
    anon_client: Any, world: Any, django_assert_max_num_queries: Any, path: str
) -> None:
    for n in (4, 8):  # the second world holds about five times the matches of the first
        url = path.format(**world(n))
        with django_assert_max_num_queries(BUDGET[path]):
            response = anon_client.get(url)
        assert response.status_code == 200, (url, response.content[:300])


@pytest.mark.parametrize("path", [p for p in BUDGET if "games" not in p])
def test_lists_and_standings_never_read_the_move_lists(
    anon_client: Any, world: Any, path: str
) -> None:
    url = path.format(**world(6))
    with CaptureQueriesContext(connection) as queries:
        assert anon_client.get(url).status_code == 200
    reading_moves = [q["sql"] for q in queries if '"moves"' in q["sql"]]
    assert reading_moves == []
