"""The people pool of a real worker (``celery -A arena.worker worker``): a game asked through
the API is routed to the people queue and played there, not on a match slot; a person who
leaves loses on time and the slot takes the next game."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.test import override_settings

from people.models import PersonGame

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@override_settings(BAO_PEOPLE_MIN_BASE_S=1, BAO_PEOPLE_GAMES_PER_USER=2)
def test_the_people_pool_plays_a_game_and_frees_its_slot(live_worker, alice_client) -> None:
    from engines.services import register_bundled_engines
    from engines.validation import validate_version_now

    (random_version,) = [
        v for v in register_bundled_engines(validate=False) if v.engine.name == "random"
    ]
    assert validate_version_now(random_version.pk) == "active"
    # One people slot; the match pool has one slot too, which this never uses.
    worker = live_worker(BAO_PEOPLE_SLOTS="1", BAO_PEOPLE_MIN_BASE_S="1")
    games = []
    for _ in range(2):  # the second waits for the one slot, then is played on it
        r = alice_client.post(
            "/api/play/",
            {"engine": "random", "variant": "bao-kingulu", "time_control": "3+0",
             "side": "south"},
            format="json",
        )  # fmt: skip
        assert r.status_code == 201, r.json()
        games.append(r.json()["id"])
    wait_for(
        lambda: PersonGame.objects.filter(pk__in=games, status="finished").count() == 2,
        90,
        "both games to end on the person's clock",
    )
    for game in PersonGame.objects.filter(pk__in=games):
        assert (game.result, game.termination, game.plies) == ("0-1", "time_forfeit", 0)
        assert game.worker.startswith("people@")
    first, second = PersonGame.objects.filter(pk__in=games).order_by("pk")
    # One slot: the second began only once the first had ended.
    assert second.started_at >= first.finished_at
    assert "people pool started" in worker.log_text()
