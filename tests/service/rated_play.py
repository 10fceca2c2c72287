"""Fixtures of the tests of rated play (tournaments, ratings, the ladder): engine versions made
directly in the database (no files, no validation: these tests never start an engine), finished
matches with chosen results. The conftest of each of those test packages imports them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

T0 = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def make_version(db: Any) -> Callable[..., Any]:
    """A factory of engine versions.

    ``make_version("alpha", variants=[...], status="active", enabled=True)`` -> EngineVersion 1.
    Each engine has an owner of its own (``owner-<name>``): games between two engines of one
    owner are never rated (``engines.consent.rated_between``).
    """
    from django.contrib.auth import get_user_model

    from engines.models import Engine, EngineVersion

    def make(
        name: str,
        *,
        variants: list[str] | None = None,
        status: str = EngineVersion.Status.ACTIVE,
        enabled: bool = True,
    ) -> EngineVersion:
        owner, _ = get_user_model().objects.get_or_create(username=f"owner-{name}")
        engine, _ = Engine.objects.get_or_create(
            owner=owner, name=name, defaults={"is_enabled": enabled}
        )
        number = engine.versions.count() + 1
        return EngineVersion.objects.create(
            engine=engine,
            number=number,
            status=status,
            original_filename=name,
            sha256="0" * 64,
            size_bytes=1,
            storage_path=f"{name}/{number}",
            variants=(
                ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"] if variants is None else variants
            ),
        )

    return make


@pytest.fixture
def make_finished_match(db: Any) -> Callable[..., Any]:
    """``make_finished_match(a, b, ["1-0", "0-1", ...])``: a finished match with its games stored.

    Game i has A South when i is odd (B South when even), as the referee plays them; results
    are from South's side; game i finished at ``start + i minutes`` (``start`` one hour later
    for each match made). ``terminations`` default
    to ``bao_hamna`` (``aborted`` games get result ``*``).
    """
    from arena.matches.events import RatedResult
    from arena.matches.models import Game, Match
    from arena.terminations import RATED_TERMINATIONS
    from ratings.services import head_to_head_add

    made: list[None] = []

    def make(
        a: Any,
        b: Any,
        results: list[str],
        *,
        variant: str = "bao-la-kete",
        terminations: list[str] | None = None,
        start: dt.datetime | None = None,
        tournament: Any = None,
        round: int | None = None,
        rated: bool = True,
        finish_order: list[int] | None = None,
    ) -> Match:
        made.append(None)
        start = start or T0 + dt.timedelta(hours=len(made))  # later matches finish later
        score_a = score_b = 0.0
        terms = terminations or ["bao_hamna"] * len(results)
        match = Match.objects.create(
            variant=variant,
            time_control="10+0.1",
            engine_a=a,
            engine_b=b,
            seed=7,
            rated=rated,
            tournament=tournament,
            round=round,
            status=Match.Status.FINISHED,
            finished_at=start,
        )
        order = finish_order or list(range(1, len(results) + 1))
        for i, (result, term) in enumerate(zip(results, terms, strict=True), start=1):
            south, north = (a, b) if i % 2 == 1 else (b, a)
            south_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
            if south_points is not None:
                a_points = south_points if south is a else 1.0 - south_points
                score_a += a_points
                score_b += 1.0 - a_points
            winner = {"1-0": south, "0-1": north}.get(result)
            Game.objects.create(
                match=match,
                index=i,
                south=south,
                north=north,
                winner=winner,
                result=result,
                termination=term,
                rated=rated and term != "aborted",
                plies=10,
                start_position="start",
                final_position="end",
                finished_at=start + dt.timedelta(minutes=order[i - 1]),
            )
        match.score_a, match.score_b = score_a, score_b
        match.winner = a if score_a > score_b else b if score_b > score_a else None
        match.save(update_fields=["score_a", "score_b", "winner"])
        # What recording adds in its transaction (ratings.services.ratings_match_recording).
        head_to_head_add(
            variant,
            [
                RatedResult(g.south_id, g.north_id, g.result)
                for g in match.games.filter(
                    rated=True, termination__in=RATED_TERMINATIONS
                ).order_by("index")
            ],
        )
        return match

    return make


@pytest.fixture
def fresh_var_dir(settings: Any) -> Any:
    """A fresh ``VAR_DIR`` (and engines directory) for tests that store real engines: stored
    versions are numbered from 1 in each test database, so old files must not be in the way.
    World-readable, since sandboxed engines run under other uids; worker subprocesses get it
    as ``BAO_VAR_DIR`` (``arena.celery_processes.worker_environment``)."""
    import shutil
    import tempfile
    from pathlib import Path

    var = Path(tempfile.mkdtemp(prefix="bao-tournaments-test-"))
    var.chmod(0o755)
    (var / "engines").mkdir(mode=0o755)
    settings.VAR_DIR = var
    settings.BAO_ENGINES_DIR = var / "engines"
    yield var
    shutil.rmtree(var, ignore_errors=True)
