"""A person plays the bundled ``random`` engine in a real browser (headless Chromium through
Selenium): signs up, starts a game from the engine's page, plays it to its end by clicking
pits, directions and nyumba choices (only the legal moves the server lists can be chosen),
sees the result and the replay; then resigns a second game. The people slot is
``people.runner.play`` on a thread, as the worker's people pool would run it."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from people import runner
from tests.service.people.test_play_worker import Started
from tests.service.web.test_browser_live import asgi_url  # noqa: F401 (uvicorn fixture)
from tests.service.web.test_browser_site import click_to_load, fill, submit

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WAIT_S = 15
MAX_MOVES = 200


@pytest.fixture
def people_slot(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """Each game ``POST /play/new/`` queues is played at once on a thread of its own."""
    from people import services

    threads: list[threading.Thread] = []

    def send(game_id: int) -> None:
        thread = threading.Thread(
            target=runner.play, args=(game_id,), kwargs={"config": Started().config()}
        )
        thread.start()
        threads.append(thread)

    monkeypatch.setattr(services, "_send", send)
    yield threads
    for thread in threads:
        thread.join(30)


@pytest.fixture
def bundled(transactional_db: None) -> None:
    from engines.services import register_bundled_engines
    from engines.validation import validate_version_now

    for version in register_bundled_engines(validate=False):
        if version.engine.name == "random":
            assert validate_version_now(version.pk) == "active"


def start_game(driver: Any, url: str, variant: str) -> None:
    driver.get(f"{url}/engines/random/")
    click_to_load(driver, driver.find_element(By.ID, "play-engine"))
    Select(driver.find_element(By.ID, "f-variant")).select_by_value(variant)
    fill(driver, {"time_control": "600+5"})
    Select(driver.find_element(By.ID, "f-side")).select_by_value("south")
    submit(driver)
    assert "/play/" in driver.current_url


def my_turn_or_over(driver: Any) -> str:
    """``"turn"`` once pits can be chosen, ``"over"`` once the result is shown."""

    def ready(d: Any) -> str | bool:
        if d.find_elements(By.ID, "replay-link"):
            return "over"
        if d.find_elements(By.CSS_SELECTOR, "#board .pit.choosable"):
            return "turn"
        return False

    return str(WebDriverWait(driver, WAIT_S).until(ready))


def click_a_move(driver: Any, rng: random.Random) -> None:
    pits = driver.find_elements(By.CSS_SELECTOR, "#board .pit.choosable")
    rng.choice(pits).click()
    directions = [
        b for b in driver.find_elements(By.CSS_SELECTOR, "#pick-direction button") if b.is_enabled()
    ]
    assert directions and driver.find_element(By.ID, "pick-direction").is_displayed()
    rng.choice(directions).click()
    if driver.find_element(By.ID, "pick-choice").is_displayed():
        choices = [
            b
            for b in driver.find_elements(By.CSS_SELECTOR, "#pick-choice button")
            if b.is_enabled()
        ]
        assert choices, driver.find_element(By.ID, "play").get_attribute("outerHTML")[-3000:]
        rng.choice(choices).click()


def taken(game_id: int, plies: int) -> bool:
    """Whether the person's move after ``plies`` plies reached the game's row."""
    from people.models import PersonGame

    game = PersonGame.objects.get(pk=game_id)
    return bool(game.plies > plies or game.pending_move or game.status != "running")


def board_transport(driver: Any) -> str:
    return str(driver.find_element(By.ID, "board").get_attribute("data-transport"))


def test_on_the_asgi_server_the_page_hears_the_engines_moves_from_the_stream(
    asgi_url: str,  # noqa: F811 (the fixture imported above)
    browser: Any,
    bundled: None,
    people_slot: list[threading.Thread],
) -> None:
    from people.models import PersonGame

    browser.get(f"{asgi_url}/accounts/signup/")
    fill(browser, {"username": "baraka", "password": "a long passphrase 7"})
    submit(browser)
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_elements(By.ID, "my-games"))
    start_game(browser, asgi_url, "bao-la-kete")
    game_id = int(browser.current_url.rstrip("/").rsplit("/", 1)[1])
    rng = random.Random(5)
    for _ in range(2):  # two moves of the person, each answered by the engine
        assert my_turn_or_over(browser) == "turn"
        assert board_transport(browser) == "stream"
        before = PersonGame.objects.get(pk=game_id).plies
        click_a_move(browser, rng)
        WebDriverWait(browser, WAIT_S).until(lambda d, before=before: taken(game_id, before))
    assert my_turn_or_over(browser) in ("turn", "over")
    assert board_transport(browser) == "stream"  # never fell back to polling
    assert PersonGame.objects.get(pk=game_id).events.filter(kind="move").count() >= 4


def test_a_person_signs_up_plays_random_to_the_end_and_resigns_another(
    live_server: Any,
    browser: Any,
    bundled: None,
    people_slot: list[threading.Thread],
) -> None:
    from people.models import PersonGame

    url = live_server.url
    browser.get(f"{url}/accounts/signup/")
    fill(browser, {"username": "zuhura", "password": "a long passphrase 7"})
    submit(browser)
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_elements(By.ID, "my-games"))

    start_game(browser, url, "bao-la-kete")
    game_id = int(browser.current_url.rstrip("/").rsplit("/", 1)[1])
    rng = random.Random(11)
    clicked = 0
    while my_turn_or_over(browser) == "turn":
        before = PersonGame.objects.get(pk=game_id).plies
        click_a_move(browser, rng)
        clicked += 1
        assert clicked <= MAX_MOVES
        # The move was taken: the worker has it or has played it already.
        WebDriverWait(browser, WAIT_S).until(lambda d, before=before: taken(game_id, before))
    game = PersonGame.objects.get(pk=game_id)
    assert game.status == "finished"
    assert game.termination in ("bao_hamna", "no_legal_move", "repetition", "ply_cap"), game.detail
    person_moves = [m for m in game.moves if m["side"] == "S"]
    assert len(person_moves) == clicked >= 1
    result = browser.find_element(By.ID, "play-result").text
    assert result.startswith(f"{game.result} by {game.termination}")
    south, north = (
        browser.find_element(By.ID, "clock-time-S").text,
        browser.find_element(By.ID, "clock-time-N").text,
    )
    assert ":" in south and ":" in north
    click_to_load(browser, browser.find_element(By.ID, "replay-link"))
    assert browser.find_element(By.ID, "ply-count").text == str(game.plies)
    assert game.result in browser.find_element(By.ID, "play-status").text

    start_game(browser, url, "bao-kingulu")
    second = int(browser.current_url.rstrip("/").rsplit("/", 1)[1])
    assert my_turn_or_over(browser) == "turn"
    # Keyboard play: a Kingulu move is its pit, chosen with Tab... here focus, then Enter.
    pit = browser.find_elements(By.CSS_SELECTOR, "#board .pit.choosable")[0]
    square = pit.get_attribute("data-square")
    browser.execute_script("arguments[0].focus()", pit)
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    WebDriverWait(browser, WAIT_S).until(lambda d: taken(second, 0))
    wait_for_plies = WebDriverWait(browser, WAIT_S)
    wait_for_plies.until(lambda d: PersonGame.objects.get(pk=second).plies >= 2)
    assert PersonGame.objects.get(pk=second).moves[0]["move"] == square
    assert my_turn_or_over(browser) == "turn"
    # The clock of the side to move ticks between two answers of the server.
    first = browser.find_element(By.ID, "clock-time-S").text
    WebDriverWait(browser, WAIT_S).until(
        lambda d: d.find_element(By.ID, "clock-time-S").text != first
    )
    browser.find_element(By.ID, "resign").click()
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_elements(By.ID, "replay-link"))
    game = PersonGame.objects.get(pk=second)
    assert (game.result, game.termination) == ("0-1", "resignation")
    assert browser.find_element(By.ID, "play-result").text.startswith("0-1 by resignation")

    # Served by WSGI (live_server): the stream's 503 made the page poll.
    assert board_transport(browser) == "poll"

    browser.get(f"{url}/people/zuhura/")
    rows = browser.find_elements(By.CSS_SELECTOR, "table.person-games tbody tr")
    assert len(rows) == 2 and "resignation" in rows[0].text
    browser.get(f"{url}/engines/random/")
    assert "zuhura" in browser.find_element(By.CSS_SELECTOR, "table.person-games").text
