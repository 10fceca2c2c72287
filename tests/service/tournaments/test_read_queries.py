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
from ratings.services import rating_refit
from tournaments import pairing, selectors
from tournaments.models import Tournament

#: Endpoint -> the most queries one request may make. A list of matches reads the engine
#: versions of its rows in a query of their own (``arena.matches.selectors.attach_versions``).
BUDGET = {
    "/api/matches/?page=1": 3,
    "/api/matches/?engine=E0": 4,
    "/api/engines/e0/ratings/": 4,
    "/api/leaderboard/?variant=bao-la-kete": 4,
    # The home page: 3 leaderboards, their trends, running matches, live games, tournaments,
    # recent results and their games (arena.web.pages.home).
    "/": 10,
    # The tournament, its match counts, entries, matches, games (results only) and byes and
    # forfeits (tournaments.selectors.tournament_table).
    "/api/tournaments/{t}/": 6,
    # The tournament page also lists its live games (arena.web.pages.tournament_page).
    "/tournaments/{t}/": 7,
    "/api/games/{g}/": 1,
    "/games/{g}/": 1,
    "/api/matches/{m}/": 3,
}
#: What a request of an ended tournament's pages makes once its answer is cached
#: (``tournaments.selectors.tournament_ended_cached``): the tournament and its match counts;
#: the web page also its live games (none).
CACHED_BUDGET = {"/api/tournaments/{t}/": 2, "/tournaments/{t}/": 3}
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


@pytest.mark.parametrize("path", list(CACHED_BUDGET))
def test_an_ended_tournament_is_answered_from_the_cache_with_the_same_body(
    anon_client: Any, world: Any, django_assert_max_num_queries: Any, monkeypatch: Any,
    path: str,
) -> None:  # fmt: skip
    url = path.format(**world(6))  # finished: 15 matches, every one ended
    built = anon_client.get(url)
    monkeypatch.setattr(selectors, "ENDED_CACHE_MIN_MATCHES", 1)
    first = anon_client.get(url)  # builds and keeps it
    with django_assert_max_num_queries(CACHED_BUDGET[path]):
        cached = anon_client.get(url)
    assert built.status_code == first.status_code == cached.status_code == 200
    assert built.content == first.content == cached.content
    assert b"Crosstable" in cached.content or b'"crosstable"' in cached.content


def test_a_tournament_is_cached_only_once_nothing_of_it_can_change(
    world: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(selectors, "ENDED_CACHE_MIN_MATCHES", 1)
    t = Tournament.objects.get(pk=world(4)["t"])
    counts = selectors.tournament_match_counts(t)
    assert counts == (6, 6, 0)
    key = selectors.tournament_ended_key(t, counts)
    assert key is not None and key.startswith(f"tournament-ended:{t.pk}:finished:")
    assert selectors.tournament_ended_key(t, (7, 6, 0)) is None  # a match not ended
    assert selectors.tournament_ended_key(t, (6, 5, 1)) is None
    t.finished_at = dt.datetime(2026, 2, 1, tzinfo=dt.UTC)
    assert selectors.tournament_ended_key(t, counts) not in (None, key)  # its last change
    t.status = Tournament.Status.RUNNING
    assert selectors.tournament_ended_key(t, counts) is None
    t.status = Tournament.Status.CANCELLED
    assert selectors.tournament_ended_key(t, counts) is not None
    monkeypatch.setattr(selectors, "ENDED_CACHE_MIN_MATCHES", 7)
    assert selectors.tournament_ended_key(t, counts) is None  # too small to be worth it


def test_a_result_recorded_after_the_end_is_not_hidden_by_the_cache(
    anon_client: Any, world: Any, monkeypatch: Any, make_finished_match: Any
) -> None:
    monkeypatch.setattr(selectors, "ENDED_CACHE_MIN_MATCHES", 1)
    t = Tournament.objects.get(pk=world(4)["t"])
    before = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    entries = list(t.entries.select_related("engine_version").order_by("seed_no"))
    a, b = entries[0].engine_version, entries[1].engine_version
    make_finished_match(a, b, ["1-0", "1-0"], tournament=t, round=1)
    after = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    assert after["progress"]["matches_total"] == before["progress"]["matches_total"] + 1
    assert after["progress"]["games_played"] == before["progress"]["games_played"] + 2
    assert after["crosstable"] != before["crosstable"]
