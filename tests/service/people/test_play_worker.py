"""A person's game on the worker's side, with the real bundled ``random`` engine in its
sandbox: the person's moves go through the API while ``people.runner.play`` runs on another
thread as a people slot would, and every engine process is gone at the end."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from django.test import override_settings

from arena.matches.runner import default_referee_config
from arena.referee import RefereeConfig
from people import runner
from people.models import PersonGame

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


class Started:
    """The engine processes a referee config started (its ``starter``, wrapping the
    sandbox's), and the relay times it reported (``person_move_relay_seconds``)."""

    def __init__(self) -> None:
        self.processes: list[Any] = []
        self.relays: list[float] = []

    def config(self) -> RefereeConfig:
        from engines.sandbox import start_engine

        def starter(package: Any, sandbox: Any = None) -> Any:
            process = start_engine(package) if sandbox is None else start_engine(package, sandbox)
            self.processes.append(process)
            return process

        def metric(name: str, seconds: float) -> None:
            if name == "person_move_relay_seconds":
                self.relays.append(seconds)

        return replace(default_referee_config(), starter=starter, on_metric=metric)


@pytest.fixture
def bundled_random(transactional_db: None) -> Any:
    from engines.services import register_bundled_engines
    from engines.validation import validate_version_now

    (version,) = [v for v in register_bundled_engines(validate=False) if v.engine.name == "random"]
    validate_version_now(version.pk)
    version.refresh_from_db()
    assert version.status == "active", version.rejection_reason
    return version


def play_on_a_thread(game_id: int, started: Started) -> tuple[threading.Thread, list[str]]:
    outcome: list[str] = []
    thread = threading.Thread(
        target=lambda: outcome.append(runner.play(game_id, config=started.config())), daemon=True
    )
    thread.start()
    return thread, outcome


def until(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_person_plays_a_whole_game_against_random_through_the_api(
    alice_client, bundled_random, sent
):
    r = alice_client.post(
        "/api/play/",
        {"engine": "random", "variant": "bao-la-kete", "time_control": "300+3", "side": "south"},
        format="json",
    )
    assert r.status_code == 201, r.json()
    game_id = r.json()["id"]
    started = Started()
    thread, outcome = play_on_a_thread(game_id, started)
    rng = random.Random(7)
    mine = 0
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        body = alice_client.get(f"/api/play/{game_id}/").json()
        if body["status"] in ("finished", "aborted"):
            break
        if body["your_turn"]:
            move = rng.choice(body["legal_moves"])
            r = alice_client.post(f"/api/play/{game_id}/move/", {"move": move}, format="json")
            assert r.status_code == 200, r.json()
            mine += 1
        time.sleep(0.01)
    thread.join(30)
    assert outcome == ["finished"]
    game = PersonGame.objects.get(pk=game_id)
    assert game.termination in ("bao_hamna", "no_legal_move", "repetition", "ply_cap"), game.detail
    assert game.result in ("1-0", "0-1", "1/2-1/2")
    assert len(game.moves) == game.plies >= 2 * mine - 1
    assert [m["side"] for m in game.moves[:2]] == ["S", "N"]
    # Its stream: one move event per move the slot applied (the person's and the engine's),
    # each with its clock, between the start's and the end's events, numbered without gaps.
    events = list(game.events.order_by("seq").values_list("seq", "kind", "payload"))
    assert [s for s, _, _ in events] == list(range(1, len(events) + 1))
    moves = [p["move"] for _, k, p in events if k == "move"]
    assert moves == [m["move"] for m in game.moves]
    kinds = [k for _, k, _ in events]
    assert kinds == ["game", "clock", *["move", "clock"] * game.plies, "clock", "end"]
    assert events[-1][2]["result"] == game.result
    # Each of the person's moves but a last one that ended the game reached the engine
    # (how fast: benchmarks/bench_people.py prints the figures).
    assert mine >= 1 and len(started.relays) >= mine - 1
    assert started.processes and all(p.poll() is not None for p in started.processes)


@override_settings(BAO_PEOPLE_MIN_BASE_S=1)
def test_a_person_who_leaves_loses_on_time_and_the_engine_is_gone(
    alice_client, bundled_random, sent
):
    r = alice_client.post(
        "/api/play/",
        {"engine": "random", "variant": "bao-kingulu", "time_control": "2+0", "side": "south"},
        format="json",
    )
    game_id = r.json()["id"]
    started = Started()
    began = time.monotonic()
    thread, outcome = play_on_a_thread(game_id, started)
    thread.join(30)
    assert outcome == ["finished"]
    assert 2.0 <= time.monotonic() - began < 15
    game = PersonGame.objects.get(pk=game_id)
    assert (game.status, game.result, game.termination, game.plies) == (
        "finished", "0-1", "time_forfeit", 0,
    )  # fmt: skip
    assert all(p.poll() is not None for p in started.processes)
    # The slot is free: the person can start another game at once.
    assert alice_client.get(f"/api/play/{game_id}/").json()["clocks"]["running"] is None


def test_a_resignation_during_the_engines_turn_ends_the_game(alice_client, bundled_random, sent):
    r = alice_client.post(
        "/api/play/",
        {"engine": "random", "variant": "bao-la-kete", "time_control": "300+3", "side": "north"},
        format="json",
    )
    game_id = r.json()["id"]
    started = Started()
    thread, outcome = play_on_a_thread(game_id, started)
    until(lambda: PersonGame.objects.get(pk=game_id).plies >= 1, 30)
    r = alice_client.post(f"/api/play/{game_id}/resign/")
    assert r.status_code == 200
    thread.join(30)
    assert outcome == ["finished"]
    game = PersonGame.objects.get(pk=game_id)
    assert (game.result, game.termination) == ("1-0", "resignation")
    assert all(p.poll() is not None for p in started.processes)
