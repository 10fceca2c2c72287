"""A live page on the ASGI server in a real browser (headless Chromium through Selenium): it
gets the game's events pushed, ticks the clock of the side to move, and follows the match to
its next game in place."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WAIT_S = 15


@pytest.fixture
def asgi_url(transactional_db: Any) -> Iterator[str]:
    """The site on uvicorn (``arena.asgi``) in a thread of this process, on a free port."""
    import uvicorn

    from arena.asgi import application

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(application, port=port, lifespan="off", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = True  # the page's stream would hold a graceful stop
        thread.join(10)


def _text(driver: Any, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def test_a_viewer_watches_a_live_game_follow_its_match_to_the_next_game(
    asgi_url: str, browser: Any, make_live: Any, versions: Any
) -> None:
    from arena.matches.live import live_game_end, live_game_moves, live_game_start

    live, moves = make_live("bao-la-kete", plies=3)
    browser.get(f"{asgi_url}/live/{live.pk}/")
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: _text(d, "live-transport") == "(pushed)")
    assert _text(browser, "ply-number") == "3"

    live_game_moves(live.pk, moves[:4])  # what the worker's publisher appends after a move
    wait.until(lambda d: _text(d, "ply-number") == "4")
    assert _text(browser, "move-4") == moves[3]["move"]
    # The clock of the side to move ticks down between moves.
    side = moves[3]["position"].split()[1]
    first = _text(browser, f"clock-time-{side}")
    wait.until(lambda d: _text(d, f"clock-time-{side}") != first)
    assert "ticking" in browser.find_element(By.ID, f"clock-{side}").get_attribute("class")

    live_game_end(live.pk, "1-0", "score", "")
    wait.until(lambda d: _text(d, "live-status") == "finished 1-0 by score")
    assert _text(browser, "live-notice") == "This game is over: 1-0 by score."

    two = live_game_start(live.match_id, 2, versions[1].pk, versions[0].pk, live.start_position)
    live_game_moves(two.pk, moves[:2])
    wait.until(lambda d: _text(d, "live-index") == "2")
    wait.until(lambda d: _text(d, "ply-count") == "2")
    assert _text(browser, "live-notice") == (
        "Game 1 is over (1-0 by score). Now game 2 of the match."
    )
    assert browser.current_url == f"{asgi_url}/live/{two.pk}/#ply-2"
    assert _text(browser, "live-south") == str(versions[1])
    assert _text(browser, "live-status") == "running"
    assert _text(browser, "move-1") == moves[0]["move"]
