"""The site in a real browser (headless Chromium through Selenium): a new author signs up,
logs in, uploads an engine through the form and sees its validation outcome on its engine
page; form errors appear next to their field; a visitor and another user never see the
owner's logs or controls; a tournament page opens. ``BAO_SCREENSHOT_DIR=docs`` saves the
pictures of the engine and tournament pages the README shows."""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.service.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WAIT_S = 10
VALIDATION_WAIT_S = 90

# A protocol-correct engine through the SDK the sandbox provides: the first legal move.
FIRST_MOVE_ENGINE = """#!/usr/bin/env python3
import sys
from engines.sdk import run


def choose(position, legal_moves, clock, variant):
    return legal_moves[0]


if __name__ == "__main__":
    sys.exit(run(choose, name="first-move", author="carol"))
"""


@pytest.fixture
def engines_dir(settings: Any) -> Iterator[Path]:
    """A fresh engines directory the sandboxed engine (another uid) can read."""
    root = Path(tempfile.mkdtemp(prefix="bao-web-browser-engines-"))
    os.chmod(root, 0o755)
    settings.BAO_ENGINES_DIR = root
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def eager_validation() -> Iterator[None]:
    """Validation runs in the web process as the upload commits (no worker to start): the
    engine page the upload redirects to already has the outcome."""
    from arena.celery import app

    saved, app.conf.task_always_eager = app.conf.task_always_eager, True
    yield
    app.conf.task_always_eager = saved


def fill(driver: Any, values: dict[str, str]) -> None:
    for name, value in values.items():
        field = driver.find_element(By.ID, f"f-{name}")
        field.clear()
        field.send_keys(value)


def submit(driver: Any, wait_s: float = WAIT_S) -> None:
    """Submit the page's form and wait for the next page to load."""
    click_to_load(
        driver, driver.find_element(By.CSS_SELECTOR, "form.form button[type=submit]"), wait_s
    )


def click_to_load(driver: Any, element: Any, wait_s: float = WAIT_S) -> None:
    """Click ``element`` and wait until the page it leads to has replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, wait_s).until(lambda d: gone(page))


def gone(element: Any) -> bool:
    """Whether ``element``'s document was replaced. Chromium answers for an element of a
    replaced document either "stale element" or, at times, "node ... does not belong to the
    document": both mean gone."""
    try:
        element.is_enabled()
    except WebDriverException:  # StaleElementReferenceException is one
        return True
    return False


def errors_of(driver: Any, name: str) -> str:
    """The error text shown next to input ``name``, after checking the input is marked
    invalid and points at it for screen readers."""
    field = driver.find_element(By.ID, f"f-{name}")
    assert field.get_attribute("aria-invalid") == "true"
    assert f"f-{name}-errors" in (field.get_attribute("aria-describedby") or "")
    return str(driver.find_element(By.ID, f"f-{name}-errors").text)


def log_in(driver: Any, url: str, username: str, password: str) -> None:
    driver.get(f"{url}/accounts/login/")
    fill(driver, {"username": username, "password": password})
    submit(driver)
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements(By.ID, "logout"))


def full_page_screenshot(driver: Any, name: str) -> None:
    """The whole page (up to 2600 px high) at 1280 px wide."""
    height, chrome = driver.execute_script(
        "return [document.documentElement.scrollHeight, window.outerHeight - window.innerHeight]"
    )
    driver.set_window_size(1280, min(int(height) + int(chrome), 2600))
    screenshot(driver, name)
    driver.set_window_size(1280, 1000)


def test_an_author_signs_up_logs_in_uploads_and_sees_the_validation(
    live_server: Any, browser: Any, engines_dir: Path, eager_validation: None, tmp_path: Path
) -> None:
    url = live_server.url
    browser.get(f"{url}/")
    browser.find_element(By.ID, "signup-link").click()
    fill(browser, {"username": "carol", "password": "short"})
    submit(browser)
    assert "too short" in errors_of(browser, "password")
    fill(browser, {"password": "a long passphrase 7"})
    submit(browser)
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_elements(By.ID, "my-engines"))
    assert browser.find_element(By.ID, "my-engines").text == "carol"

    click_to_load(browser, browser.find_element(By.ID, "logout"))
    assert browser.find_elements(By.ID, "login-link")
    browser.get(f"{url}/accounts/login/")
    fill(browser, {"username": "carol", "password": "wrong password"})
    submit(browser)
    assert "Unable to log in" in browser.find_element(By.ID, "form-errors").text
    log_in(browser, url, "carol", "a long passphrase 7")

    browser.get(f"{url}/engines/upload/")
    fill(browser, {"name": "carolbot"})
    submit(browser)  # no file chosen
    assert errors_of(browser, "file") == "No file was submitted."
    engine = tmp_path / "carolbot.py"
    engine.write_text(FIRST_MOVE_ENGINE)
    browser.find_element(By.ID, "f-file").send_keys(str(engine))
    submit(browser, VALIDATION_WAIT_S)  # validated before the answer comes (eager)
    assert browser.current_url == f"{url}/engines/carolbot/#version-1"
    row = browser.find_element(By.ID, "version-1")
    assert row.find_element(By.CSS_SELECTOR, ".badge").text == "active", row.text
    assert "handshake: first-move by carol" in row.text
    assert browser.find_element(By.ID, "owner-controls").is_displayed()


def test_a_visitor_and_another_user_never_see_the_owner_logs_or_controls(
    live_server: Any, browser: Any, showcase: dict[str, Any]
) -> None:
    url = live_server.url
    for who in (None, ("bob", "battery staple 2")):
        if who:
            log_in(browser, url, *who)
        browser.get(f"{url}/engines/alpha/")
        assert "SECRET" not in browser.page_source
        with pytest.raises(NoSuchElementException):
            browser.find_element(By.ID, "owner-controls")
        assert not browser.find_elements(By.CSS_SELECTOR, "details.log")
    click_to_load(browser, browser.find_element(By.ID, "logout"))
    log_in(browser, url, "alice", "correct horse 1")
    browser.get(f"{url}/engines/alpha/")
    assert browser.find_element(By.ID, "owner-controls").is_displayed()
    assert browser.find_elements(By.CSS_SELECTOR, "details.log")
    title = browser.find_element(By.CSS_SELECTOR, "svg.rating-chart title")
    assert title.get_attribute("textContent") == "Rating history of alpha in bao-la-kete"
    full_page_screenshot(browser, "engine")


def test_a_tournament_page_opens_with_standings_pairings_and_crosstable(
    live_server: Any, browser: Any, showcase: dict[str, Any]
) -> None:
    t = showcase["tournament"]
    browser.get(f"{live_server.url}/")
    browser.find_element(By.LINK_TEXT, t.name).click()
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_elements(By.ID, "standings-h"))
    assert browser.find_element(By.TAG_NAME, "h1").text == t.name
    rows = browser.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=standings-h] tbody tr")
    assert len(rows) == 4
    assert browser.find_element(By.ID, "current-pairings").text
    assert browser.find_element(By.ID, "live-games").text
    full_page_screenshot(browser, "tournament")


@pytest.fixture
def showcase(alice: Any, bob: Any) -> dict[str, Any]:
    """A small arena to look at: alice's ``alpha`` (v1 rejected with its stderr, v2 and v3
    active), bob's ``beta``, ``gamma`` and ``delta``; a round robin of four played out over
    a few days with seeded random results (the ratings refitted after each match, so the
    histories move), its last round being played (one match running with a live game, one
    pending)."""
    from arena.matches.live import live_game_moves, live_game_start
    from arena.matches.models import Game, Match
    from engines.models import Engine, EngineVersion
    from ratings.services import head_to_head_rebuild, rating_refit
    from tests.service.web.conftest import playout
    from tournaments import pairing, services

    rng = random.Random(21)

    def version(engine: Any, number: int, status: str = "active", **extra: Any) -> Any:
        return EngineVersion.objects.create(
            engine=engine,
            number=number,
            status=status,
            original_filename=f"{engine.name}.py",
            sha256=f"{engine.pk}{number:063d}"[:64],
            size_bytes=2000 + 37 * number,
            storage_path=f"{engine.name}/{number}",
            reported_name=engine.name,
            reported_author=engine.owner.username,
            variants=[] if status == "rejected" else ["bao-la-kete", "bao-kingulu"],
            **extra,
        )

    alpha = Engine.objects.create(
        owner=alice,
        name="alpha",
        description="Alpha-beta search to depth 5 with a seed-count evaluation.",
    )
    version(
        alpha,
        1,
        "rejected",
        rejection_code="crash",
        rejection_reason="South (alpha v1): exited with status 1 after 'go'",
        rejection_log='Traceback (most recent call last):\n  File "main.py", line 40\n'
        "IndexError: list index out of range  # SECRET stderr",
    )
    a2, a3 = version(alpha, 2), version(alpha, 3)
    others = [
        version(Engine.objects.create(owner=bob, name=n), 1) for n in ("beta", "gamma", "delta")
    ]
    strength = {a2.pk: 0.55, a3.pk: 0.7, others[0].pk: 0.5, others[1].pk: 0.4, others[2].pk: 0.3}
    start = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
    clock = [start]

    def play(a: Any, b: Any, tournament: Any = None, round_no: int | None = None) -> None:
        clock[0] += dt.timedelta(hours=rng.randint(2, 9))
        m = Match.objects.create(
            variant="bao-la-kete",
            time_control="10+0.1",
            engine_a=a,
            engine_b=b,
            seed=rng.randrange(1000),
            status="finished",
            tournament=tournament,
            round=round_no,
            finished_at=clock[0],
        )
        score = 0.0
        p_a = strength[a.pk] / (strength[a.pk] + strength[b.pk])
        for index in (1, 2, 3):
            south, north = (a, b) if index % 2 else (b, a)
            a_wins = rng.random() < p_a
            result = "1-0" if (south is a) == a_wins else "0-1"
            score += 1.0 if a_wins else 0.0
            Game.objects.create(
                match=m,
                index=index,
                south=south,
                north=north,
                winner=a if a_wins else b,
                result=result,
                termination="bao_hamna",
                rated=True,
                plies=rng.randint(30, 90),
                start_position="",
                finished_at=clock[0] + dt.timedelta(minutes=index),
                engine_errors={"south": f"{south.engine.name}: SECRET stderr"},
            )
        m.score_a, m.score_b = score, 3.0 - score
        m.winner = a if score > 1.5 else b
        m.save()
        # The games were stored directly, not recorded: count their head-to-head results.
        head_to_head_rebuild("bao-la-kete")
        rating_refit("bao-la-kete")

    for _ in range(3):  # alpha v2's earlier matches
        for other in others:
            play(a2, other)
    t = services.tournament_create(
        name="Kete spring cup",
        variant="bao-la-kete",
        engines=["alpha", "beta", "gamma", "delta"],
        time_control="10+0.1",
    )
    entries = [a3, *others]
    rounds = pairing.round_robin(4)
    for number, rnd in enumerate(rounds[:-1], start=1):
        for p in rnd:
            play(entries[p.a], entries[p.b], t, number)
    last = rounds[-1]
    running = Match.objects.create(
        variant="bao-la-kete",
        time_control="10+0.1",
        engine_a=entries[last[0].a],
        engine_b=entries[last[0].b],
        seed=5,
        status="running",
        tournament=t,
        round=len(rounds),
    )
    Match.objects.create(
        variant="bao-la-kete",
        time_control="10+0.1",
        engine_a=entries[last[1].a],
        engine_b=entries[last[1].b],
        seed=6,
        status="pending",
        tournament=t,
        round=len(rounds),
    )
    first, moves = playout("bao-la-kete", 14, seed=8)
    live = live_game_start(running.pk, 1, running.engine_a_id, running.engine_b_id, first)
    live_game_moves(live.pk, moves)
    t.status, t.start_at, t.started_at = "running", start, start
    t.save()
    return {"tournament": t, "alpha": alpha}


def test_the_engine_page_shows_a_validation_outcome_when_it_comes(
    live_server: Any, browser: Any, world: Any
) -> None:
    from engines.models import EngineVersion

    w = world(0)
    pending = EngineVersion.objects.create(
        engine=w["alpha"],
        number=3,
        status="pending",
        original_filename="e.py",
        sha256="3" * 64,
        size_bytes=10,
        storage_path="alpha/3",
    )
    browser.get(f"{live_server.url}/engines/alpha/")
    assert "Validation is running for v3" in browser.find_element(By.ID, "validation-note").text
    page = browser.find_element(By.TAG_NAME, "html")
    pending.status, pending.variants = "active", ["bao-la-kete"]
    pending.save()  # what the worker's validation writes
    WebDriverWait(browser, WAIT_S).until(lambda d: gone(page))  # reloaded
    badge = browser.find_element(By.CSS_SELECTOR, "#version-3 .badge")
    assert badge.text == "active" and not browser.find_elements(By.ID, "validation-note")


def test_the_first_tab_reaches_the_skip_link(live_server: Any, browser: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{live_server.url}/")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.text == "Skip to the content" and focused.is_displayed()
    focused.send_keys(Keys.ENTER)
    assert browser.current_url.endswith("#main")
