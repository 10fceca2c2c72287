"""Pages never skip or repeat a row (every ordering ends with the primary key); a bad
``ordering`` or an unknown query parameter is 400 ``invalid``; ``GET /api/leaderboard/`` needs
its variant (issue 10)."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

pytestmark = pytest.mark.django_db


def error_of(response) -> tuple[int, str, dict]:  # type: ignore[no-untyped-def]
    body = json.loads(response.content)
    return response.status_code, body["error"]["code"], body["error"]["details"]


@pytest.fixture
def many_matches(alice1, bob1):  # type: ignore[no-untyped-def]
    """60 unfinished matches created in the same instant: equal on every sort key but id."""
    from arena.matches.models import Match

    Match.objects.bulk_create(
        Match(variant="bao-la-kete", time_control="10+0.1", engine_a=alice1, engine_b=bob1,
              seed=i, rated=False)
        for i in range(60)
    )  # fmt: skip
    Match.objects.update(created_at=timezone.now())
    return sorted(Match.objects.values_list("pk", flat=True))


@pytest.mark.parametrize("ordering", ["finished_at", "-finished_at", "created_at", "status"])
def test_paging_through_rows_equal_on_the_ordering_shows_each_row_once(
    anon_client, many_matches, ordering
):
    if ordering == "status":  # not an ordering field of matches
        assert anon_client.get("/api/matches/?ordering=status").status_code == 400
        return
    seen: list[int] = []
    for page in range(1, 10):
        response = anon_client.get(f"/api/matches/?ordering={ordering}&page_size=7&page={page}")
        assert response.status_code == 200
        seen += [row["id"] for row in response.json()["results"]]
    assert sorted(seen) == many_matches  # none skipped, none twice


@pytest.fixture
def one_of_each(many_matches, alice1):  # type: ignore[no-untyped-def]
    """A row in every list: a tournament, a rating, a live game (and the matches)."""
    from arena.matches.models import LiveGame, Match
    from ratings.models import Rating
    from tournaments.models import Tournament

    Tournament.objects.create(name="t", variant="bao-la-kete", time_control="10+0.1",
                              start_at=timezone.now())  # fmt: skip
    Rating.objects.create(
        engine_version=alice1, variant="bao-la-kete", games=1, wins=1, rating=1500.0
    )
    match = Match.objects.first()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    LiveGame.objects.create(match=match, index=1, south=alice1, north=alice1, start_position="-")


@pytest.mark.parametrize(
    ("url", "table"),
    [
        ("/api/matches/?ordering=finished_at", "matches_match"),
        ("/api/matches/?ordering=-created_at", "matches_match"),
        ("/api/matches/", "matches_match"),
        ("/api/engines/?ordering=created_at", "engines_engine"),
        ("/api/tournaments/", "tournaments_tournament"),
        ("/api/leaderboard/?variant=kete", "tournaments_rating"),
        ("/api/live/?ordering=status", "matches_livegame"),
    ],
)
def test_every_paginated_list_orders_by_its_primary_key_last(anon_client, one_of_each, url, table):
    with CaptureQueriesContext(connection) as ctx:
        response = anon_client.get(url)
    assert response.status_code == 200, response.content
    assert response.json()["count"] >= 1
    pages = [q["sql"] for q in ctx.captured_queries
             if "LIMIT" in q["sql"] and f'FROM "{table}"' in q["sql"]]  # fmt: skip
    order_by = re.search(r"ORDER BY (.*?) LIMIT", pages[0]).group(1)  # type: ignore[union-attr]
    last = order_by.split(",")[-1].strip()
    assert re.fullmatch(rf'"{table}"\."id" (ASC|DESC)', last), order_by


@pytest.mark.parametrize(
    "ordering", ["bogus", "-bogus", "finished_at,bogus", "error", ",", "finished_at,"]
)
def test_an_ordering_the_list_cannot_honour_is_invalid(anon_client, ordering):
    status, code, details = error_of(anon_client.get(f"/api/matches/?ordering={ordering}"))
    assert (status, code, list(details)) == (400, "invalid", ["ordering"])
    assert "finished_at" in details["ordering"][0]  # names what is accepted


@pytest.mark.parametrize(
    "url",
    [
        "/api/matches/?varient=kete",
        "/api/engines/?page=1&ownr=alice",
        "/api/tournaments/?limit=5",
        "/api/leaderboard/?variant=kete&provisionl=true",
        "/api/engines/alice1/?expand=versions",
        "/api/live/?since=3",
    ],
)
def test_an_unknown_query_parameter_is_invalid_and_names_the_accepted_ones(
    anon_client, alice1, url
):
    status, code, details = error_of(anon_client.get(url))
    assert (status, code) == (400, "invalid")
    [(name, [message])] = details.items()
    assert name in url and message.startswith("Unknown query parameter")


@pytest.mark.parametrize(
    "url",
    [
        "/api/matches/?page=1&page_size=5&format=json&variant=kete&rated=true&engine=alice1"
        "&tournament=1&status=pending&ordering=-finished_at",
        "/api/engines/?format=json&owner=alice&variant=kete&enabled=true&bundled=false"
        "&search=ali&ordering=-created_at,name&page=last",
        "/api/tournaments/?status=running&variant=kete&page_size=3",
        "/api/leaderboard/?variant=kete&provisional=false&page=1",
        "/api/engines/alice1/ratings/?variant=kete&page_size=1",
        "/api/live/?ordering=-started_at&page_size=2",
        "/api/engines/alice1/?format=json",
        "/api/schema/?format=json",
    ],
)
def test_paging_format_and_documented_filters_stay_accepted(anon_client, alice1, url):
    assert anon_client.get(url).status_code == 200


def test_the_leaderboard_without_a_variant_is_invalid_and_names_the_variants(anon_client):
    for url in ("/api/leaderboard/", "/api/leaderboard/?variant="):
        status, code, details = error_of(anon_client.get(url))
        assert (status, code, list(details)) == (400, "invalid", ["variant"])
        assert details["variant"] == [
            "Name the variant: one of bao-la-kete, bao-la-kiswahili, bao-kingulu (or an alias)."
        ]
