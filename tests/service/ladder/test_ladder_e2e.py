"""End to end: a real worker plays the ladder by itself. A freshly uploaded engine is placed
(placement matches nobody asked for) and appears on the leaderboard with an interval; a
tournament created meanwhile waits at most for the ladder matches already running; an engine its
owner takes off the ladder gets no new ladder match."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Q
from django.utils import timezone

from arena.matches.models import Match
from engines.models import EngineVersion
from engines.services import register_bundled_engines
from ladder.models import LadderMatch
from ratings.models import Rating
from tournaments import services

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

GREEDY = Path(__file__).resolve().parents[3] / "engines" / "bundled" / "greedy"


def _wait(what: str, condition: Any, timeout: float, worker: Any) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what}: not after {timeout} s\n--- worker:\n{worker.log_text()[-3000:]}")


def test_an_uploaded_engine_is_placed_rated_and_can_leave_the_ladder(
    fresh_var_dir: Any, live_worker: Any, alice_client: Any, settings: Any
) -> None:
    settings.BAO_LADDER_TIME_CONTROL = "1+0.01"
    register_bundled_engines()
    worker = live_worker(BAO_LADDER_TIME_CONTROL="1+0.01", BAO_LADDER_ENABLED="1")
    upload = alice_client.post(
        "/api/engines/",
        {"name": "mygreedy", "file": SimpleUploadedFile("mygreedy", GREEDY.read_bytes())},
        format="multipart",
    )
    assert upload.status_code == 201, upload.json()
    mine = EngineVersion.objects.get(engine__name="mygreedy")

    # Validation makes it active, and that alone starts its placement: no one asks for it.
    def placed() -> list[LadderMatch]:
        mine_in = Q(match__engine_a=mine) | Q(match__engine_b=mine)
        return list(LadderMatch.objects.filter(mine_in, placement=True))

    _wait("a placement match for the new engine", placed, 120, worker)

    def rated() -> Rating | None:
        return Rating.objects.filter(
            engine_version=mine, variant="bao-la-kete", rating__isnull=False
        ).first()

    rating = _wait("the new engine on the leaderboard", rated, 180, worker)
    board = alice_client.get("/api/leaderboard/?variant=kete").json()
    row = next(r for r in board["results"] if r["engine"] == "mygreedy")
    # An interval, or (won or lost every placement game) a bound with its one finite end.
    if row["bound"] is None:
        assert rating.low < rating.rating < rating.high
        assert row["low"] < row["rating"] < row["high"]
    elif row["bound"] == ">":
        assert row["high"] is None and row["low"] < row["rating"]
    else:
        assert row["low"] is None and row["high"] > row["rating"]
    if row["bound"] is not None:
        assert row["provisional"] and row["provisional_reason"].startswith("rating is only")

    # A tournament created now goes before every ladder match still waiting.
    tournament = services.tournament_create(
        name="meanwhile",
        variant="bao-la-kete",
        engines=["random", "greedy"],
        time_control="1+0.01",
    )
    created = timezone.now()

    def tournament_started() -> bool:
        matches = Match.objects.filter(tournament=tournament)
        return matches.exists() and not matches.filter(started_at__isnull=True).exists()

    _wait("the tournament's match to start", tournament_started, 120, worker)
    first_start = Match.objects.filter(tournament=tournament).order_by("started_at")[0].started_at
    jumped = LadderMatch.objects.filter(
        match__started_at__gt=created, match__started_at__lt=first_start
    )
    assert not jumped.exists(), list(jumped.values_list("match_id", "match__started_at"))

    # Taken off the ladder by its owner: no new ladder match for it.
    off = alice_client.patch(
        "/api/engines/mygreedy/", {"consent": {"ladder": False}}, format="json"
    )
    assert off.status_code == 200, off.json()
    since = timezone.now()
    others = LadderMatch.objects.filter(created_at__gt=since)
    _wait("ladder play going on without it", lambda: others.count() >= 2, 120, worker)
    assert not others.filter(match__engine_a=mine).exists()
    assert not others.filter(match__engine_b=mine).exists()
