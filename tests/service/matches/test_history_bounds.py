"""Reads that stay bounded as history grows (issue 32): an engine's latest games from its two
side indexes, lists counted exactly only up to a bound, replays traced once per game."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.core.cache import cache
from django.db.models import Q

from arena.api.pagination import BoundedPaginator
from arena.matches import selectors
from arena.matches.models import Game, Match
from arena.rules import get_variant
from tests.service.rated_play import make_finished_match, make_version  # noqa: F401

pytestmark = pytest.mark.django_db


def test_an_engines_latest_games_are_the_newest_of_both_sides_each_once(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b, c = make_version("alpha"), make_version("beta"), make_version("gamma")
    a2 = make_version("alpha")  # a second version: games between the two come from both sides
    t0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    for n, (x, y) in enumerate([(a, b), (b, c), (c, a), (a2, a), (b, c)]):
        make_finished_match(x, y, ["1-0", "0-1"], start=t0 + dt.timedelta(hours=n))
    everyone = Game.objects.filter(match__engine_a__engine=a.engine) | Game.objects.filter(
        match__engine_b__engine=a.engine
    )
    expected = list(everyone.order_by("-finished_at", "-id").values_list("id", flat=True))
    assert len(expected) == 6  # three matches of two games, the a2-a match counted once

    got = list(selectors.engine_games(a.engine_id, limit=4).values_list("id", flat=True))
    assert got == expected[:4]
    assert list(selectors.engine_games(a.engine_id).values_list("id", flat=True)) == expected


def test_the_export_of_one_engine_pages_both_sides_in_id_order(
    anon_client: Any, make_version: Any, make_finished_match: Any
) -> None:
    a, b, c = make_version("alpha"), make_version("beta"), make_version("gamma")
    for x, y in [(a, b), (b, c), (c, a), (b, a)]:
        make_finished_match(x, y, ["1-0", "1-0"])
    mine = Game.objects.filter(Q(south__engine=a.engine) | Q(north__engine=a.engine))
    ids = list(mine.order_by("id").values_list("id", flat=True))
    assert len(ids) == 6
    page, more = selectors.games_export_ids(selectors.ExportQuery(engine="ALPHA", limit=4))
    assert (page, more) == (ids[:4], True)
    rest, more = selectors.games_export_ids(
        selectors.ExportQuery(engine="alpha", since=page[-1], limit=4)
    )
    assert (rest, more) == (ids[4:], False)


class _Estimated(BoundedPaginator):
    """A paginator that counts exactly up to 3 rows only."""

    count_bound = 3


def test_a_list_past_the_bound_is_estimated_and_pages_on_its_own_rows(
    make_version: Any, make_finished_match: Any, monkeypatch: Any
) -> None:
    from arena.api import pagination

    a, b = make_version("alpha"), make_version("beta")
    for _ in range(7):
        make_finished_match(a, b, ["1-0", "0-1"])
    rows = Match.objects.order_by("id")
    ids = list(rows.values_list("id", flat=True))

    small = BoundedPaginator(rows, 2)
    assert (small.count, small.count_exact) == (7, True)

    # The planner's estimate, as PostgreSQL would give it for a large table.
    monkeypatch.setattr(pagination, "planner_rows", lambda qs: 1000)
    estimated = _Estimated(rows, 2)
    assert (estimated.count, estimated.count_exact) == (1000, False)
    page = estimated.page(4)
    assert [m.pk for m in page.object_list] == ids[6:]
    assert page.has_next() is False
    assert estimated.page(2).has_next() is True
    # A page past the end counts exactly, then is refused as with any list.
    with pytest.raises(pagination.EmptyPage):
        _Estimated(rows, 2).page(5)

    # Without an estimate (SQLite), the count is exact past the bound too.
    monkeypatch.setattr(pagination, "planner_rows", lambda qs: None)
    exact = _Estimated(rows, 2)
    assert (exact.count, exact.count_exact) == (7, True)


def test_the_api_says_count_exact_false_only_for_an_estimated_count(
    anon_client: Any, make_version: Any, make_finished_match: Any, monkeypatch: Any
) -> None:
    from arena.api import pagination

    a, b = make_version("alpha"), make_version("beta")
    for _ in range(5):
        make_finished_match(a, b, ["1-0"])
    small = anon_client.get("/api/matches/?page_size=2").json()
    assert small["count"] == 5 and "count_exact" not in small

    monkeypatch.setattr(pagination.BoundedPaginator, "count_bound", 3)
    monkeypatch.setattr(pagination, "planner_rows", lambda qs: 40)
    big = anon_client.get("/api/matches/?page_size=2").json()
    assert (big["count"], big["count_exact"]) == (40, False)
    assert big["next"] is not None and len(big["results"]) == 2
    last = anon_client.get("/api/matches/?page_size=2&page=last").json()
    assert last["count"] == 5 and "count_exact" not in last and len(last["results"]) == 1
    past = anon_client.get("/api/matches/?page_size=2&page=4")
    assert past.status_code == 404
    assert past.json()["error"]["details"] == {"page": 4, "pages": 3}


def test_a_replay_is_traced_once_and_answers_the_same_from_the_cache(
    anon_client: Any, make_version: Any, make_finished_match: Any, monkeypatch: Any
) -> None:
    from arena.matches import serializers

    a, b = make_version("alpha"), make_version("beta")
    match = make_finished_match(a, b, ["1-0"])
    game = match.games.get()
    v = get_variant("bao-la-kete")
    p, moves = v.initial_position(), []
    for ply in range(1, 7):
        move = v.legal_moves(p)[0]
        side, p = p.side, v.apply(p, move)
        moves.append({"ply": ply, "side": side, "move": str(move), "time_ms": 5,
                      "clock_ms": 9_000, "position": p.to_text()})  # fmt: skip
    Game.objects.filter(pk=game.pk).update(
        moves=moves, plies=6, start_position=v.initial_position().to_text()
    )
    game.refresh_from_db()
    calls: list[int] = []
    traced = serializers.moves_with_traces

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return traced(*args, **kwargs)

    monkeypatch.setattr(serializers, "moves_with_traces", counting)
    first = anon_client.get(f"/api/games/{game.pk}/")
    second = anon_client.get(f"/api/games/{game.pk}/")
    assert first.status_code == second.status_code == 200
    assert len(calls) == 1
    body = json.loads(second.content)
    assert body == json.loads(first.content)
    assert [m["ply"] for m in body["moves"]] == list(range(1, game.plies + 1))
    assert all(m["trace"] is not None for m in body["moves"])
    # The serializer alone (no renderer) gives the same moves.
    data = serializers.GameReplayOutput(selectors.game_queryset().get(pk=game.pk)).data
    assert data["moves"] == body["moves"]
    cache.clear()
    anon_client.get(f"/api/games/{game.pk}/")
    assert len(calls) == 2


def test_postgresqls_planner_estimates_the_rows_of_a_list(
    make_version: Any, make_finished_match: Any
) -> None:
    from django.db import connection

    from arena.api.pagination import planner_rows

    if connection.vendor != "postgresql":
        assert planner_rows(Match.objects.all()) is None
        return
    a, b = make_version("alpha"), make_version("beta")
    for _ in range(3):
        make_finished_match(a, b, ["1-0"])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Match._meta.db_table}")
    assert planner_rows(Match.objects.all()) == 3
    assert planner_rows(Match.objects.filter(engine_a=a).order_by("-created_at")) == 3
