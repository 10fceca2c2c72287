"""Fixtures of the web page tests: stored games and live games with real moves (a seeded
random playout of the rules engine, with clocks and engine info lines), and a headless
Chromium driven by Selenium for the browser tests (Debian's ``chromium`` and
``chromium-driver``, installed by ``scripts/install-browser.sh``)."""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.rules import get_variant


def playout(variant: str, plies: int, seed: int = 3) -> tuple[str, list[dict[str, Any]]]:
    """``(start position, moves)`` of a seeded random game, in the shape of ``Game.moves``."""
    v = get_variant(variant)
    rng = random.Random(seed)
    game = v.new_game()
    clocks = {"S": 60_000, "N": 60_000}
    moves = []
    while not game.is_over and len(moves) < plies:
        side = game.position.side
        move = rng.choice(game.legal_moves())
        after = game.play(move)
        spent = rng.randrange(50, 900)
        clocks[side] = clocks[side] - spent + 100
        moves.append(
            {
                "ply": len(moves) + 1,
                "side": side,
                "move": str(move),
                "time_ms": spent,
                "clock_ms": clocks[side],
                "position": after.to_text(),
                "info": [
                    f"depth {rng.randrange(2, 9)} score {rng.randrange(-40, 40)} nodes "
                    f"{rng.randrange(1000, 90000)}"
                ],
            }
        )
    return game.start.to_text(), moves


@pytest.fixture
def versions(db: Any) -> tuple[Any, Any]:
    from django.contrib.auth import get_user_model

    from engines.models import Engine, EngineVersion

    owner = get_user_model().objects.create_user("web-owner", "", None)
    made = []
    for name in ("search", "greedy"):
        engine = Engine.objects.create(owner=owner, name=name)
        made.append(
            EngineVersion.objects.create(
                engine=engine,
                number=1,
                status="active",
                original_filename=name,
                sha256="0" * 64,
                size_bytes=1,
                storage_path=f"{name}/1",
                variants=["bao-la-kete", "bao-kingulu"],
            )
        )
    return made[0], made[1]


@pytest.fixture
def make_game(versions: tuple[Any, Any]) -> Callable[..., Any]:
    """``make_game(variant, plies)``: a finished match whose game 1 is a stored replay."""
    from arena.matches.models import Game, Match

    def make(variant: str = "bao-la-kete", plies: int = 40) -> Any:
        start, moves = playout(variant, plies)
        now = dt.datetime.now(dt.UTC)
        match = Match.objects.create(
            variant=variant,
            time_control="60+0.1",
            engine_a=versions[0],
            engine_b=versions[1],
            seed=1,
            status="finished",
            finished_at=now,
        )
        return Game.objects.create(
            match=match,
            index=1,
            south=versions[0],
            north=versions[1],
            winner=versions[0],
            result="1-0",
            termination="time_forfeit",
            rated=False,
            plies=len(moves),
            start_position=start,
            final_position=moves[-1]["position"],
            moves=moves,
            finished_at=now,
            detail="North (greedy v1): no bestmove in 60100 ms",
        )

    return make


@pytest.fixture
def make_live(versions: tuple[Any, Any]) -> Callable[..., Any]:
    """``make_live(variant, plies)``: a running match with a running live game 1; returns
    ``(live game, all moves of the playout)`` with the first ``plies`` moves published."""
    from arena.matches.live import live_game_moves, live_game_start
    from arena.matches.models import Match

    def make(variant: str = "bao-la-kete", plies: int = 6, total: int = 30) -> Any:
        start, moves = playout(variant, total, seed=5)
        match = Match.objects.create(
            variant=variant,
            time_control="60+0.1",
            engine_a=versions[0],
            engine_b=versions[1],
            seed=1,
            status="running",
        )
        live = live_game_start(match.pk, 1, versions[0].pk, versions[1].pk, start)
        live_game_moves(live.pk, moves[:plies])
        live.refresh_from_db()
        return live, moves

    return make


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium (Selenium 4) with a 1280 x 1000 window."""
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("chromium / chromium-driver are not installed (scripts/install-browser.sh)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver: Any, name: str) -> None:
    """Save a PNG of the page to ``$BAO_SCREENSHOT_DIR/<name>.png`` when that is set (how the
    pictures in docs/ are made: ``BAO_SCREENSHOT_DIR=docs ./test.sh tests/service/web``)."""
    target = os.environ.get("BAO_SCREENSHOT_DIR")
    if target:
        driver.save_screenshot(os.path.join(target, f"{name}.png"))


@pytest.fixture
def world(db: Any, alice: Any, bob: Any) -> Callable[..., dict[str, Any]]:
    """``world(matches=3)``: alice's engine ``alpha`` (v1 rejected with a stderr log, v2
    active), bob's ``beta`` (v1 active), ``matches`` finished rated best-of-three matches
    alpha v2 - beta v1 in a round robin (alpha wins each 2-0; each game's stderr tails
    stored), the ratings refitted (so a rating history), one running match with a live game."""
    from arena.matches.live import live_game_start
    from arena.matches.models import Game, Match
    from engines.models import Engine, EngineVersion
    from ratings.services import head_to_head_rebuild, rating_refit
    from tournaments import services

    def version(engine: Any, number: int, status: str, **extra: Any) -> Any:
        return EngineVersion.objects.create(
            engine=engine,
            number=number,
            status=status,
            original_filename="engine.py",
            sha256=f"{number:064d}",
            size_bytes=1234,
            storage_path=f"{engine.name}/{number}",
            variants=["bao-la-kete", "bao-kingulu"] if status == "active" else [],
            **extra,
        )

    def make(matches: int = 3) -> dict[str, Any]:
        alpha = Engine.objects.create(owner=alice, name="alpha", description="Alice's engine")
        beta = Engine.objects.create(owner=bob, name="beta")
        version(
            alpha,
            1,
            "rejected",
            rejection_code="crash",
            rejection_reason="crash: exited with status 3 when asked for a move",
            rejection_log="Traceback: SECRET-ALPHA-STDERR",
        )
        a2, b1 = version(alpha, 2, "active"), version(beta, 1, "active")
        t = services.tournament_create(
            name="Spring cup",
            variant="bao-la-kete",
            engines=["alpha", "beta"],
            time_control="10+0.1",
        )
        t0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
        for i in range(matches):
            end = t0 + dt.timedelta(hours=i)
            m = Match.objects.create(
                variant="bao-la-kete",
                time_control="10+0.1",
                engine_a=a2,
                engine_b=b1,
                seed=i,
                status="finished",
                tournament=t,
                round=1,
                score_a=2.0,
                score_b=0.0,
                winner=a2,
                finished_at=end,
            )
            for index, (south, north, result) in enumerate(
                ((a2, b1, "1-0"), (b1, a2, "0-1")), start=1
            ):
                Game.objects.create(
                    match=m,
                    index=index,
                    south=south,
                    north=north,
                    winner=a2,
                    result=result,
                    termination="bao_hamna",
                    rated=True,
                    plies=10,
                    start_position="",
                    finished_at=end + dt.timedelta(minutes=index),
                    engine_errors={
                        "south": f"stderr of {south.engine.name}: SECRET-GAME",
                        "north": f"stderr of {north.engine.name}: SECRET-GAME",
                    },
                )
        t.status = "running"
        t.save()
        # The games were stored directly, not recorded: count their head-to-head results.
        head_to_head_rebuild("bao-la-kete")
        rating_refit("bao-la-kete")
        running = Match.objects.create(
            variant="bao-la-kete",
            time_control="10+0.1",
            engine_a=b1,
            engine_b=a2,
            seed=99,
            status="running",
            tournament=t,
            round=2,
        )
        Match.objects.create(
            variant="bao-la-kete",
            time_control="10+0.1",
            engine_a=a2,
            engine_b=b1,
            seed=98,
            status="pending",
            tournament=t,
            round=3,
        )
        live = live_game_start(running.pk, 1, b1.pk, a2.pk, "")
        return {
            "alpha": alpha,
            "beta": beta,
            "a2": a2,
            "b1": b1,
            "tournament": t,
            "running": running,
            "live": live,
        }

    return make
