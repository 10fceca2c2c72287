"""The web pages of people's games: the start form, the game page (the board to play on for
its person while it runs, the replay for anyone once it ended), the person's page and the
engine page's list."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from arena.referee import GameRecord, MoveRecord
from arena.rules import get_variant
from arena.terminations import Termination
from people.models import PersonGame
from people.services import person_game_claim, person_game_finish

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def played(alice: Any, opponent: Any, sent: list[int]) -> PersonGame:
    """A game of alice's, started through the form and claimed by a slot."""
    client = logged_in(alice)
    r = client.post(
        "/play/new/",
        {"engine": "tembo", "variant": "bao-la-kete", "time_control": "300+3", "side": "north",
         "start_suite": "standard"},
    )  # fmt: skip
    assert r.status_code == 302, r.content.decode()[:2000]
    game = PersonGame.objects.get(pk=sent[-1])
    assert r["Location"] == f"/play/{game.pk}/"
    assert person_game_claim(game.pk, "test") is not None
    return game


def test_the_form_refuses_a_time_control_by_its_field(alice, opponent, sent):
    r = logged_in(alice).post(
        "/play/new/",
        {"engine": "tembo", "variant": "bao-la-kete", "time_control": "10+0.1", "side": "south",
         "start_suite": "standard"},
    )  # fmt: skip
    assert r.status_code == 400
    errors = re.search(r'id="f-time_control-errors"><li>([^<]*)</li>', r.content.decode())
    assert errors is not None and errors[1].startswith("people play")
    assert sent == []


def test_its_person_gets_the_board_to_play_on_and_others_nothing(alice, bob, opponent, sent):
    game = played(alice, opponent, sent)
    page = logged_in(alice).get(f"/play/{game.pk}/").content.decode()
    data = json.loads(re.search(r'<script id="play-data"[^>]*>(.*?)</script>', page, re.S)[1])
    assert data == {"url": f"/api/play/{game.pk}/", "events": f"/api/play/{game.pk}/events",
                    "poll_ms": 250, "your_side": "N", "kind": "bao"}  # fmt: skip
    assert 'id="pit-e2"' in page and "web/play.js" in page and 'id="resign"' in page
    assert logged_in(bob).get(f"/play/{game.pk}/").status_code == 404
    assert Client().get(f"/play/{game.pk}/").status_code == 404


def test_an_ended_game_is_a_replay_listed_on_the_person_and_engine_pages(alice, opponent, sent):
    game = played(alice, opponent, sent)
    v = get_variant("bao-la-kete")
    token = str(v.legal_moves(v.initial_position())[0])
    after = v.apply(v.initial_position(), token).to_text()
    move = MoveRecord(ply=1, side="S", move=token, time_ms=3, clock_ms=300_000, position=after)
    person_game_finish(
        game.pk,
        GameRecord(index=1, south="tembo v1", north="person", start_position=game.position,
                   result="1-0", winner="tembo v1", termination=Termination.RESIGNATION,
                   final_position=after, plies=1, moves=[move], detail="the person resigned"),
    )  # fmt: skip
    page = Client().get(f"/play/{game.pk}/").content.decode()
    assert "web/viewer.js" in page and "play.js" not in page
    assert "<b>1-0</b> by resignation in 1 plies" in page
    assert 'id="ply-count">1<' in page
    person = Client().get("/people/alice/").content.decode()
    assert f'href="/play/{game.pk}/"' in person and "1-0 (resignation)" in person
    engine = Client().get("/engines/tembo/").content.decode()
    assert f'href="/play/{game.pk}/"' in engine and 'href="/people/alice/"' in engine


def test_the_engine_page_offers_play_only_where_people_may_play(alice, bob, opponent):
    from .conftest import make_engine

    make_engine("shy", owner=bob, people=False)
    client = logged_in(alice)
    assert 'id="play-engine"' in client.get("/engines/tembo/").content.decode()
    assert 'id="play-engine"' not in client.get("/engines/shy/").content.decode()


def test_a_person_page_of_nobody_is_not_found(db):
    assert Client().get("/people/nobody-here/").status_code == 404
