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
    }
