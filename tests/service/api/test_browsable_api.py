"""No 500 from any API route (issue 30): every route the URL resolver has under ``/api/`` is
asked for with ``Accept: text/html`` (what a browser sends: DRF's browsable renderer) and with
``OPTIONS``, anonymously and with a token, on a world where each has something to show."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

pytestmark = pytest.mark.django_db

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_PARAM = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")


def api_routes() -> list[str]:
    """Every route under ``api/`` as a pattern (``api/engines/<slug:name>/``), from the
    resolver, so a route added later is covered; the catch-all ``re_path`` is left out."""

    def walk(patterns: list[Any], prefix: str) -> list[str]:
        out: list[str] = []
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                out += walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and route.startswith("api/") and "^" not in route:
                out.append(route)
        return out

    return walk(get_resolver().url_patterns, "")


@pytest.fixture
def world(alice1: Any, bob1: Any) -> dict[str, Any]:
    """One of each thing a route shows: engines with versions, a match with a game and a live
    game, a tournament, a version test; ``{param: value}`` by the route's first segment."""
    from arena.matches.models import Game, LiveGame, Match
    from tournaments.models import Tournament, TournamentEntry
    from versiontests.models import VersionTest

    from .conftest import active_version

    now = timezone.now()
    tournament = Tournament.objects.create(
        name="t", variant="bao-la-kete", time_control="10+0.1", start_at=now
    )
    for seed_no, version in enumerate((alice1, bob1), start=1):
        TournamentEntry.objects.create(
            tournament=tournament, engine_version=version, seed_no=seed_no
        )
    match = Match.objects.create(
        variant="bao-la-kete", time_control="10+0.1", engine_a=alice1, engine_b=bob1, seed=1
    )
    start = "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"
    game = Game.objects.create(
        match=match, index=1, south=alice1, north=bob1, result="1/2-1/2",
        termination="aborted", rated=False, start_position=start, finished_at=now,
    )  # fmt: skip
    live = LiveGame.objects.create(
        match=match, index=1, south=alice1, north=bob1, start_position=start
    )
    newer = active_version(alice1.engine.owner, "alice1", number=2)
    test = VersionTest.objects.create(
        created_by=alice1.engine.owner, new_version=newer, base_version=alice1,
        variant="bao-la-kete", time_control="10+0.1", elo_model="normalized", elo0=0,
        elo1=5, max_pairs=10,
    )  # fmt: skip
    ids = {
        "matches": match.pk,
        "games": game.pk,
        "live": live.pk,
        "tests": test.pk,
        "tournaments": tournament.pk,
        "play": 1,
    }  # fmt: skip  (play: no such game, a 404)
    return {"ids": ids, "name": "alice1", "number": 1, "prefix": "abcdefgh"}


def _url(route: str, world: dict[str, Any]) -> str:
    segment = route.split("/")[1]

    def value(m: re.Match[str]) -> str:
        name = m["name"]
        return str(world["ids"][segment] if name in ("pk", "tournament_id", "test_id", "game_id")
                   else world[name])  # fmt: skip

    return "/" + _PARAM.sub(value, route)


def test_the_routes_are_found() -> None:
    routes = api_routes()
    assert "api/engines/<slug:name>/ratings/" in routes
    assert "api/leaderboard/" in routes and "api/tournaments/" in routes
    assert len(routes) >= 30


@pytest.mark.parametrize("who", ["anonymous", "token"])
def test_no_api_route_answers_a_browser_with_a_5xx(
    who: str, world: dict[str, Any], anon_client: Any, alice_client: Any
) -> None:
    client = alice_client if who == "token" else anon_client
    client.raise_request_exception = False  # a 500 is counted, not raised
    failed = {}
    for route in api_routes():
        url = _url(route, world)
        response = client.get(url, HTTP_ACCEPT=BROWSER)
        if response.status_code >= 500 and not _stream_on_wsgi(response):
            failed[url] = response.status_code
    assert failed == {}


def _stream_on_wsgi(response: Any) -> bool:
    """The event streams' documented answer under a WSGI server (docs/live.md): 503
    ``live_stream_unavailable``, the page's cue to poll."""
    return bool(
        response.status_code == 503
        and response["Content-Type"].startswith("application/json")
        and response.json()["error"]["code"] == "live_stream_unavailable"
    )


@pytest.mark.parametrize("who", ["anonymous", "token"])
def test_options_is_answered_on_every_api_route(
    who: str, world: dict[str, Any], anon_client: Any, alice_client: Any
) -> None:
    client = alice_client if who == "token" else anon_client
    client.raise_request_exception = False  # a 500 is counted, not raised
    failed = {}
    for route in api_routes():
        url = _url(route, world)
        for accept in ("application/json", BROWSER):
            response = client.options(url, HTTP_ACCEPT=accept)
            if response.status_code >= 500:
                failed[url, accept] = response.status_code
    assert failed == {}


def test_a_browser_gets_json_from_the_lists_that_were_500s(
    world: dict[str, Any], anon_client: Any, alice_client: Any
) -> None:
    for client in (anon_client, alice_client):
        for url in (
            "/api/engines/alice1/ratings/",
            "/api/leaderboard/?variant=bao-la-kete",
            "/api/tournaments/",
        ):
            response = client.get(url, HTTP_ACCEPT=BROWSER)
            assert response.status_code == 200, url
            assert response["Content-Type"] == "application/json", url
    assert alice_client.get("/api/tournaments/", HTTP_ACCEPT=BROWSER).json()["count"] == 1


def test_only_html_accepted_is_a_406_not_acceptable(anon_client: Any) -> None:
    response = anon_client.get("/api/leaderboard/", HTTP_ACCEPT="text/html")
    assert response.status_code == 406
    assert response.json()["error"]["code"] == "not_acceptable"


def test_options_with_a_token_describes_the_route(alice_client: Any) -> None:
    response = alice_client.options("/api/tournaments/")
    assert response.status_code == 200
    assert response.json() == {
        "name": "Tournament List Create Api",
        "description": response.json()["description"],
        "methods": ["GET", "POST", "HEAD", "OPTIONS"],
        "renders": ["application/json"],
        "parses": ["application/json", "application/x-www-form-urlencoded",
                   "multipart/form-data"],
        "schema": "/api/schema/",
    }  # fmt: skip
    assert "POST" in response["Allow"]
