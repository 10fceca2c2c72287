"""The replay and live pages in a real browser (headless Chromium through Selenium): stepping
with the keyboard moves the highlighted pits as the traces say, play/pause animates the
sowing, and a live page receives a move published while it is open."""

from __future__ import annotations

import time
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from arena.matches.replay import move_traces
from tests.service.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WAIT_S = 10


def _ply(driver: Any) -> int:
    return int(driver.find_element(By.ID, "ply-number").text)


def _marked(driver: Any, css: str) -> list[str]:
    return [e.get_attribute("data-square") for e in driver.find_elements(By.CSS_SELECTOR, css)]


def _key(driver: Any, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def test_a_replay_steps_with_the_keys_and_highlights_each_traced_move(
    live_server: Any, browser: Any, make_game: Any
) -> None:
    game = make_game("bao-la-kete", plies=30)
    traces = move_traces("bao-la-kete", game.start_position, game.moves)
    browser.get(f"{live_server.url}/games/{game.pk}/?ply=0")
    assert _ply(browser) == 0 and _marked(browser, ".pit.sown") == []
    seen = []
    for ply in (1, 2, 3):
        _key(browser, Keys.ARROW_RIGHT)
        WebDriverWait(browser, WAIT_S).until(lambda d, p=ply: _ply(d) == p)
        trace = traces[ply - 1]
        assert trace is not None
        sown = {s["square"] for s in trace["steps"] if s["op"] == "sow"}
        assert set(_marked(browser, ".pit.sown")) == sown
        assert _marked(browser, ".pit.ended") == [trace["steps"][-1]["square"]]
        assert browser.current_url.endswith(f"#ply-{ply}")
        position = game.moves[ply - 1]["position"]
        assert browser.find_element(By.ID, "position-text").get_attribute("value") == position
        seen.append(tuple(sorted(sown)))
    assert len(set(seen)) > 1  # the highlight changed with the move
    _key(browser, Keys.ARROW_LEFT)
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) == 2)
    _key(browser, Keys.END)
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) == len(game.moves))
    screenshot(browser, "replay")
    _key(browser, Keys.HOME)
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) == 0)
    browser.get(f"{live_server.url}/games/{game.pk}/#ply-7")  # a link to a ply
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) == 7)


def test_play_animates_the_sowing_and_pause_stops_it(
    live_server: Any, browser: Any, make_game: Any
) -> None:
    game = make_game("bao-kingulu", plies=30)
    browser.get(f"{live_server.url}/games/{game.pk}/?ply=0")
    browser.find_element(By.ID, "btn-play").click()
    # Seed by seed: one pit at a time is the active one while a move is sown.
    WebDriverWait(browser, WAIT_S).until(lambda d: len(_marked(d, ".pit.active")) == 1)
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) >= 2)
    browser.find_element(By.ID, "btn-play").click()  # pause
    paused_at = _ply(browser)
    assert "playing" not in (browser.find_element(By.ID, "btn-play").get_attribute("class") or "")
    assert _marked(browser, ".pit.active") == []
    time.sleep(1.5)  # longer than a ply of sowing: a running animation would have moved on
    assert _ply(browser) == paused_at


def test_a_live_page_receives_a_move_published_while_it_is_open(
    live_server: Any, browser: Any, make_live: Any
) -> None:
    from arena.matches.live import live_game_moves

    live, moves = make_live("bao-la-kete", plies=5)
    browser.get(f"{live_server.url}/live/{live.pk}/")
    assert _ply(browser) == 5
    screenshot(browser, "live")
    live_game_moves(live.pk, moves[:6])  # what the worker's publisher writes after a move
    WebDriverWait(browser, WAIT_S).until(lambda d: _ply(d) == 6)  # it follows the game
    assert browser.find_element(By.ID, "move-6").text == moves[5]["move"]
    assert browser.find_element(By.ID, "ply-count").text == "6"
    assert browser.find_element(By.ID, "live-status").text == "running"
