"""The web page: home with leaderboards, matches and tournaments; tournament page; replay
page drawing the board of each ply with previous/next links; board parsing of BPN and KPN."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.web.board import board_from_text
from ratings.services import rating_refit
from tournaments import services
from tournaments.models import Tournament
from tournaments.services import match_finished

START_BPN = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0"
AFTER_F2 = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,0,3,1/0,0,0,0,0,0,0,0 N 21:22 n HH - 1"
AFTER_D3 = "0,0,0,0,0,0,0,0/0,2,3,0,1,1,1,0/0,0,0,0,6,0,3,1/0,0,0,0,0,0,0,0 S 21:21 n HH - 2"


def test_a_bpn_text_is_drawn_as_four_ranks_of_eight() -> None:
    board = board_from_text(START_BPN)
    assert board is not None
    assert board.files == ("a", "b", "c", "d", "e", "f", "g", "h")
    assert [(r.rank, r.south) for r in board.rows] == [(4, False), (3, False), (2, True), (1, True)]
    assert board.rows[1].cells == ("0", "2", "2", "6", "0", "0", "0", "0")
    assert board.rest == "S 22:22 n HH - 0"


def test_a_kpn_text_is_drawn_as_two_ranks_of_six_with_reserved_marks() -> None:
    board = board_from_text("4,4,5s,4,4,4/4,4,4,4,4n,4 N 1:2 7")
    assert board is not None
    assert board.files == ("a", "b", "c", "d", "e", "f")
    assert [(r.rank, r.south, r.cells[2], r.cells[4]) for r in board.rows] == [
        (2, False, "5s", "4"),
        (1, True, "4", "4n"),
    ]


@pytest.mark.parametrize(
    "text", ["", "garbage", "1,2/3 S", "1,2,3,4,5,6,7,8,9/1,2,3,4,5,6,7,8,9 S"]
)
def test_a_text_that_is_not_a_board_draws_nothing(text: str) -> None:
    assert board_from_text(text) is None


@pytest.fixture
def played(make_version: Any, make_finished_match: Any) -> dict[str, Any]:
    from arena.matches.models import Game

    a, b = make_version("alpha"), make_version("beta")
    t = services.tournament_create(
        name="Web cup", variant="bao-la-kete", engines=["alpha", "beta"], time_control="10+0.1"
    )
    match = make_finished_match(a, b, ["1-0", "0-1"], tournament=t, round=1)
    match_finished(match)
    rating_refit("bao-la-kete")
    game = Game.objects.get(match=match, index=1)
    game.start_position = START_BPN
    game.moves = [
        {
            "ply": 1,
            "side": "S",
            "move": "f2-",
            "time_ms": 12,
            "clock_ms": 9988,
            "position": AFTER_F2,
        },
        {
            "ply": 2,
            "side": "N",
            "move": "d3-",
            "time_ms": 20,
            "clock_ms": 9980,
            "position": AFTER_D3,
        },
    ]
    game.save()
    return {"game": game, "tournament": t}


@pytest.mark.django_db
def test_the_home_page_lists_leaderboard_tournaments_and_replays(played: dict[str, Any]) -> None:
    html = Client().get("/").content.decode()
    assert "Leaderboard: bao-la-kete" in html
    assert (
        '<a class="ev" href="/engines/alpha/">alpha</a>&nbsp;<span class="ev-v">v1</span>' in html
    )
    assert "2/0/0" in html and "0/0/2" in html
    assert f"/tournaments/{played['tournament'].pk}/" in html
    assert f"/games/{played['game'].pk}/" in html
    assert "No rated games yet." in html  # the other two variants


def _pit(html: str, square: str) -> str:
    """The count drawn in the SVG pit ``square`` of a page."""
    chunk = html[html.index(f'id="pit-{square}"') :]
    chunk = chunk[chunk.index('class="count"') :]
    return chunk[chunk.index(">") + 1 : chunk.index("<")]


@pytest.mark.django_db
def test_the_replay_page_draws_the_board_of_the_requested_ply(played: dict[str, Any]) -> None:
    url = f"/games/{played['game'].pk}/"
    start = Client().get(url + "?ply=0").content.decode()
    assert "Start position" in start and 'href="?ply=1" rel="next"' in start
    assert [_pit(start, sq) for sq in ("e2", "f2", "g2", "h2")] == ["6", "2", "2", "0"]
    assert 'class="pit south nyumba owned"' in start  # South's nyumba e2, owned (HH)
    first = Client().get(url + "?ply=1").content.decode()
    assert "S played <b>f2-</b>" in first
    assert 'href="?ply=0" rel="prev"' in first and 'href="?ply=2" rel="next"' in first
    assert [_pit(first, sq) for sq in ("e2", "f2", "g2", "h2")] == ["6", "0", "3", "1"]
    assert 'id="hand-count-S" x="55" y="' in first and ">21</text>" in first  # reserve 21
    last = Client().get(url).content.decode()  # no ply: the final position
    assert '<b id="ply-number">2</b> / <span id="ply-count">2</span>' in last
    assert Client().get(url + "?ply=banana").status_code == 200


@pytest.mark.django_db
def test_the_tournament_page_shows_standings_and_crosstable(played: dict[str, Any]) -> None:
    html = Client().get(f"/tournaments/{played['tournament'].pk}/").content.decode()
    assert "Matches 1 of 1 done, 0 running, 2 games played." in html
    assert "<td>2&ndash;0</td>" in html and "<td>0&ndash;2</td>" in html  # the crosstable


@pytest.mark.django_db
def test_unknown_games_and_tournaments_are_404(db: Any) -> None:
    assert Client().get("/games/999/").status_code == 404
    assert Client().get("/tournaments/999/").status_code == 404


@pytest.mark.django_db
def test_the_replay_page_numbers_moves_in_pairs_as_the_text_record_does(
    played: dict[str, Any],
) -> None:
    from arena.matches.gamerecord import game_record_text

    game = played["game"]
    game.moves = [
        *game.moves,
        {
            "ply": 3,
            "side": "S",
            "move": "g2+",
            "time_ms": 5,
            "clock_ms": 9983,
            "position": AFTER_D3,
        },
    ]
    game.save()
    html = Client().get(f"/games/{game.pk}/?ply=2").content.decode()
    moves = html[html.index('id="move-list"') :]
    assert (
        '<li><span class="num">1.</span> <a id="move-1" href="#ply-1">f2-</a></li>'
        '<li><a id="move-2" href="#ply-2" class="current">d3-</a></li>'
        '<li><span class="num">2.</span> <a id="move-3" href="#ply-3">g2+</a></li>'
    ) in moves
    assert "1. f2- d3- 2. g2+" in game_record_text(game)


@pytest.mark.django_db
def test_the_replay_header_names_a_rules_ending_once(played: dict[str, Any]) -> None:
    game = played["game"]
    game.detail = "bao_hamna"  # the referee's detail of a rules ending is its code
    game.save()
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert html.count("bao_hamna") == 1
    assert f"by bao_hamna in {game.plies} plies.</p>" in html
    game.termination, game.detail = "time_forfeit", "North (beta v1): no bestmove in 10050 ms"
    game.save()
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert "plies. North (beta v1): no bestmove in 10050 ms</p>" in html


@pytest.mark.django_db
def test_the_pages_name_the_suite_a_start_position_came_from(played: dict[str, Any]) -> None:
    t, game = played["tournament"], played["game"]
    html = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert "suite" not in html  # the standard start goes without saying
    Tournament.objects.filter(pk=t.pk).update(start_suite="balanced")
    game.match.start_suite = "balanced"
    game.match.save(update_fields=["start_suite"])
    html = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert "start positions from the balanced suite" in html
    replay = Client().get(f"/games/{game.pk}/?ply=0").content.decode()
    assert "Start position from the balanced suite." in replay
