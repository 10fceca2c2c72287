"""The replay and live pages as HTML (the browser tests drive the script): the SVG board, the
embedded game data with traces, the live list, and the styled 404 page."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client


def _data(html: str) -> dict[str, Any]:
    start = html.index('<script id="game-data" type="application/json">') + 47
    return json.loads(html[start : html.index("</script>", start)])


@pytest.mark.django_db
def test_the_replay_embeds_every_move_with_its_trace(make_game: Any) -> None:
    game = make_game("bao-la-kete", plies=12)
    html = Client().get(f"/games/{game.pk}/?ply=3").content.decode()
    data = _data(html)
    assert [m["move"] for m in data["moves"]] == [m["move"] for m in game.moves]
    assert all(m["trace"]["move"] == m["move"] for m in data["moves"])
    assert data["base_ms"] == 60_000 and data["live"] is None
    assert html.count('class="pit ') == 32 and 'id="pit-d3"' in html
    assert f'value="{game.moves[2]["position"]}"' in html  # the copyable position of ply 3
    assert f'href="/api/games/{game.pk}/record.txt"' in html
    assert '<script src="/static/web/viewer.js" defer></script>' in html


@pytest.mark.django_db
def test_a_kingulu_replay_draws_two_ranks_of_six_with_banks(make_game: Any) -> None:
    game = make_game("bao-kingulu", plies=30)
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert html.count('class="pit ') == 12 and 'id="pit-f2"' in html and "nyumba" not in html
    reserved = [m for m in game.moves if "s" in m["position"].split()[0]]
    if reserved:  # the playout reserved a hole for South somewhere: drawn by owner
        ply = reserved[0]["ply"]
        assert "reserved-s" in Client().get(f"/games/{game.pk}/?ply={ply}").content.decode()
    assert ">bank</text>" in html


@pytest.mark.django_db
def test_the_static_files_are_served_by_the_project() -> None:
    for path in ("/static/web/viewer.js", "/static/web/arena.css"):
        response = Client().get(path)
        assert response.status_code == 200, path
        body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
        assert b"http://" not in body and b"https://" not in body  # nothing from a CDN


@pytest.mark.django_db
def test_a_missing_game_is_a_styled_404_page() -> None:
    for url in ("/games/999999/", "/live/999999/", "/tournaments/999999/"):
        response = Client().get(url)
        assert response.status_code == 404
        html = response.content.decode()
        assert '<link rel="stylesheet" href="/static/web/arena.css">' in html
        assert "<h1>Not found</h1>" in html and "999999" in html


@pytest.mark.django_db
def test_the_live_list_shows_only_running_games(make_live: Any) -> None:
    live, _ = make_live(plies=4)
    html = Client().get("/live/").content.decode()
    assert f'href="/live/{live.pk}/"' in html
    live.match.status = "finished"
    live.match.save()
    assert f'href="/live/{live.pk}/"' not in Client().get("/live/").content.decode()


@pytest.mark.django_db
def test_the_live_page_embeds_the_moves_so_far_and_its_poll_url(make_live: Any) -> None:
    live, moves = make_live(plies=4)
    html = Client().get(f"/live/{live.pk}/").content.decode()
    data = _data(html)
    assert [m["move"] for m in data["moves"]] == [m["move"] for m in moves[:4]]
    assert data["live"] == {
        "url": f"/api/live/{live.pk}/",
        "match": live.match_id,
        "status": "running",
        "game": None,
        "poll_ms": 1000,
        "id": live.pk,
        "index": 1,
        "events": f"/api/live/{live.pk}/events",
        "match_running": True,
        "tv": False,
    }


@pytest.mark.django_db
def test_an_ended_live_game_goes_on_to_the_next_game_of_its_match_and_says_so(
    make_live: Any, versions: Any
) -> None:
    from arena.matches.live import live_game_end, live_game_start

    live, _ = make_live(plies=4)
    live_game_end(live.pk, "1-0", "score", "")
    # Between two games: the page says the game is over and the next one comes.
    html = Client().get(f"/live/{live.pk}/").content.decode()
    assert "This game is over: 1-0 by score. The next game of the match starts shortly." in html
    two = live_game_start(live.match_id, 2, versions[1].pk, versions[0].pk, live.start_position)
    response = Client().get(f"/live/{live.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/live/{two.pk}/?from={live.pk}"
    html = Client().get(response["Location"]).content.decode()
    assert f"Game 1 of match #{live.match_id} is over: 1-0 by score. Now its game 2." in html
    assert _data(html)["live"]["index"] == 2


@pytest.mark.django_db
def test_a_tournament_viewer_goes_on_to_its_next_running_match(
    make_live: Any, versions: Any
) -> None:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from arena.matches.live import live_game_end
    from arena.matches.models import Match
    from tournaments.models import Tournament

    owner = get_user_model().objects.create_user("organiser", "", None)
    tournament = Tournament.objects.create(
        name="cup",
        variant="bao-la-kete",
        time_control="60+0.1",
        created_by=owner,
        start_at=timezone.now(),
    )
    first, _ = make_live(plies=2)
    later, _ = make_live(plies=2)
    Match.objects.filter(pk__in=[first.match_id, later.match_id]).update(tournament=tournament)
    live_game_end(first.pk, "0-1", "score", "")
    Match.objects.filter(pk=first.match_id).update(status="finished")
    response = Client().get(f"/live/{first.pk}/")
    assert response["Location"] == f"/live/{later.pk}/?from={first.pk}"
    html = Client().get(response["Location"]).content.decode()
    assert "is over: 0-1 by score. Now another game of the tournament." in html
    # Nothing left to follow: the page of the last game says it is over.
    live_game_end(later.pk, "1-0", "score", "")
    Match.objects.filter(pk=later.match_id).update(status="finished")
    html = Client().get(f"/live/{later.pk}/").content.decode()
    assert "This game is over: 1-0 by score." in html and "starts shortly" not in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "wait", "then"),
    [("", 1000, 2000), ("?idle=2000", 2000, 4000), ("?idle=8000", 8000, 10000),
     ("?idle=10000", 10000, 10000), ("?idle=99999999", 1000, 2000), ("?idle=-5", 1000, 2000),
     ("?idle=\u0661", 1000, 2000)],
)  # fmt: skip
def test_an_idle_tv_looks_again_soon_then_less_often(query: str, wait: int, then: int) -> None:
    """The next game of a match starts a second or two after the last: the TV that went back
    to /tv/ at a game's end must not sit out most of it (it used to wait 10 s)."""
    html = Client().get(f"/tv/{query}").content.decode()
    assert "No game is being played right now" in html
    assert f'location.replace("/tv/?idle={then}"); }}, {wait});' in html


@pytest.mark.django_db
def test_the_tv_shows_the_top_rated_game_with_the_closest_clocks(
    make_live: Any, versions: Any
) -> None:
    from arena.matches.live import live_game_moves
    from arena.web.live_pages import tv_score
    from ratings.models import Rating

    assert "No game is being played right now" in Client().get("/tv/").content.decode()
    close, moves = make_live(plies=2)
    apart, _ = make_live(plies=0)
    # South spent 50 s of its 60 more than North: 200 x 50/60 Elo points of interest less.
    lopsided = [dict(m) for m in moves[:2]]
    lopsided[0]["clock_ms"] = 10_000
    live_game_moves(apart.pk, lopsided)
    assert tv_score((1600.0, 1400.0), {"S": 10_000, "N": 60_000}, 60_000) == pytest.approx(
        1500 - 200 * 50 / 60
    )
    assert tv_score((None, None), None, 60_000) == 1500
    html = Client().get("/tv/").content.decode()
    assert _data(html)["live"]["id"] == close.pk and _data(html)["live"]["tv"] is True
    assert "Bao Arena TV" in html and 'href="/tv/"' in html
    # Rated engines outweigh a small clock lead: but both games are the same pair here, so
    # rate the pair higher in another variant's game instead.
    for version, elo in ((versions[0], 1900.0), (versions[1], 1700.0)):
        Rating.objects.create(engine_version=version, variant="bao-kingulu", rating=elo)
    kingulu, _ = make_live("bao-kingulu", plies=0)
    assert _data(Client().get("/tv/").content.decode())["live"]["id"] == kingulu.pk
