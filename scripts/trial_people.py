"""The done-when trial of issue 33, as a Bao player would do it, run by hand (not a CI test):
prints what it saw, with figures.

It starts ``./demo.sh --serve`` in a throw-away ``BAO_VAR_DIR`` (its own SQLite database and
embedded broker: the real worker with its people pool, beat, the ASGI server uvicorn) and
drives a headless Chromium (Selenium; Debian's ``chromium`` and ``chromedriver``):

1. The TV: a person signs up, starts a small round robin of the bundled engines (Bao la Kete,
   ``--tournament-tc``) through the API, and watches ``/tv/`` until the tournament is over,
   sampling the page every ``--sample-s``: the games it showed, how often it moved on, whether
   the side to move's clock ticked between two samples of the same position, the stream or
   polling.
2. A game against ``search`` at ``--tc`` (default 300+3, "5+3" to players) from its engine
   page, played to the end by clicking a random one of the pits the page offers, its
   direction and nyumba choice: each turn the choosable pits are checked against the server's
   legal moves, the person's clock is checked to tick, and the time from the last click to
   the engine's answer on the board is measured. Then the replay is opened.

Printed, in ms: the engine's think time per move (its ``time_ms`` as the referee measured it),
the person's move -> the engine's move shown on the board (the browser's view of the whole
loop: POST, the worker's poll, the engine, the publish, the stream, the page; the page is
looked at every 20 ms), of which the move's POST and the state reads the stream's events
cause (the page's Resource Timing), and the host's load. Every process it started is stopped
at the end (the demo's process group).

    .venv/bin/python scripts/trial_people.py [--port 8790] [--tc 300+3] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 30


def figures(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    v = sorted(values)
    p95 = v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]
    return (
        f"{name:34s} n={len(v):3d}  min {v[0]:7.0f}  p50 {statistics.median(v):7.0f}  "
        f"p95 {p95:7.0f}  max {v[-1]:7.0f} ms"
    )


def api(base: str, method: str, path: str, body: Any = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise RuntimeError(f"{method} {path}: {exc.code} {exc.read()[:500]!r}") from None


def start_demo(var: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(BAO_VAR_DIR=var, BAO_SANDBOX_MODE=env.get("BAO_SANDBOX_MODE", "auto"))
    handle = open(log, "wb")  # noqa: SIM115 (held for the demo's life)
    return subprocess.Popen(
        [
            str(ROOT / "demo.sh"),
            "--serve",
            "--port",
            str(port),
            "--workers",
            "1",
            "--time-control",
            "2+0.05",
        ],
        cwd=ROOT,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_served(base: str, demo: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if demo.poll() is not None:
            raise RuntimeError(f"the demo stopped:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/engines/", timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(2)
    raise RuntimeError(f"the demo did not serve within {timeout_s:.0f} s")


def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000"):  # fmt: skip
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def load(driver: Any, element: Any) -> None:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element("tag name", "html")
    element.click()

    def gone(_: Any) -> bool:
        try:
            page.is_enabled()
        except WebDriverException:
            return True
        return False

    WebDriverWait(driver, WAIT_S).until(gone)


def fill(driver: Any, values: dict[str, str]) -> None:
    for name, value in values.items():
        field = driver.find_element("id", f"f-{name}")
        field.clear()
        field.send_keys(value)


def submit(driver: Any) -> None:
    load(driver, driver.find_element("css selector", "form.form button[type=submit]"))


def sign_up(driver: Any, base: str, username: str, password: str) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{base}/accounts/signup/")
    fill(driver, {"username": username, "password": password})
    submit(driver)
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements("id", "my-games"))
    token = api(base, "POST", "/api/auth/token/", {"username": username, "password": password})
    return str(token["token"])


def tv_sample(driver: Any) -> tuple[str, str, str, str, str, str] | None:
    """What the TV shows: (live game id, title, plies, both clocks, transport, status), None
    while idle or reloading."""
    try:
        if driver.find_elements("id", "tv-idle"):
            return None
        link = driver.find_element("css selector", "a[href^='/api/live/']").get_attribute("href")
        return (
            link.rstrip("/").rsplit("/", 1)[1],
            driver.find_element("id", "live-title").text,
            driver.find_element("id", "ply-count").text,
            driver.find_element("id", "clock-time-S").text
            + " / "
            + driver.find_element("id", "clock-time-N").text,
            driver.find_element("id", "live-transport").text or "?",
            driver.find_element("id", "live-status").text
            + (" ticking" if driver.find_elements("css selector", ".clock.ticking") else ""),
        )
    except Exception:  # the page is moving on (a reload): sample again
        return None


def watch_tv(driver: Any, base: str, token: str, tc: str, sample_s: float) -> None:
    body = {"name": "TV trial", "variant": "bao-la-kete", "rated": False, "time_control": tc,
            "engines": ["random", "greedy", "search"]}  # fmt: skip
    tid = api(base, "POST", "/api/tournaments/", body, token)["id"]
    print(f"\nTV: tournament #{tid}, a round robin of the bundled engines at {tc}", flush=True)
    driver.get(f"{base}/tv/")
    shown: list[tuple[str, str]] = []
    idle = ticks = still = over = running = marked = 0
    transports: dict[str, int] = {}
    began = time.monotonic()
    while time.monotonic() - began < 1800:
        status = api(base, "GET", f"/api/tournaments/{tid}/", token=token)["status"]
        if status in ("finished", "cancelled"):
            break
        time.sleep(sample_s)
        first = tv_sample(driver)
        if first is None:
            idle += 1
            continue
        time.sleep(0.15)
        second = tv_sample(driver)
        transports[first[4]] = transports.get(first[4], 0) + 1
        if first[5].startswith("running"):
            running += 1
            marked += first[5].endswith(" ticking")
        if not shown or shown[-1][0] != first[0]:
            shown.append((first[0], first[1]))
        if second is not None and second[:3] == first[:3]:
            # No move within 0.15 s: the side to move's clock must run (it shows tenths).
            if second[3] != first[3]:
                ticks += 1
            elif first[5].startswith("running"):
                still += 1
            else:
                over += 1
    detail = api(base, "GET", f"/api/tournaments/{tid}/", token=token)
    print(
        f"TV: tournament {detail['status']} after {time.monotonic() - began:.0f} s, "
        f"progress {detail['progress']}"
    )
    print(f"TV: {len(shown)} live games shown in turn ({len({g for g, _ in shown})} distinct), "
          f"{idle} idle samples")  # fmt: skip
    for live, title in shown[:20]:
        print(f"    live #{live}: {title}")
    print(
        f"TV: no move between two reads 0.15 s apart {ticks + still + over} times: the clock "
        f"ticked in {ticks}, stood in {still} while running and {over} once over; "
        f"transport {transports}"
    )
    print(f"TV: {marked} of {running} samples of a running game had a clock ticking (.ticking)")


def legal_pits(state: dict[str, Any]) -> set[str]:
    return {m["pit"] for m in state["legal"]}


#: The page's resource timings (name, duration ms) since the last call, which clears them.
RESOURCES = """
var out = performance.getEntriesByType("resource").map(function (e) {
  return [e.name, e.duration]; });
performance.clearResourceTimings();
return out;
"""


def turn_or_over(driver: Any) -> str | bool:
    """``"over"`` once the result is shown, ``"turn"`` once pits can be chosen, else False."""
    if driver.find_elements("id", "replay-link"):
        return "over"
    if driver.find_elements("css selector", "#board .pit.choosable"):
        return "turn"
    return False


def play_search(driver: Any, base: str, token: str, tc: str, seed: int) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    rng = random.Random(seed)
    driver.get(f"{base}/engines/search/")
    load(driver, driver.find_element("id", "play-engine"))
    Select(driver.find_element("id", "f-variant")).select_by_value("bao-la-kete")
    fill(driver, {"time_control": tc})
    Select(driver.find_element("id", "f-side")).select_by_value("south")
    submit(driver)
    game_id = int(driver.current_url.rstrip("/").rsplit("/", 1)[1])
    print(f"\nPlay: game #{game_id} against search at {tc}, the person South", flush=True)
    answer_ms: list[float] = []
    mismatched = clicks = ticked = not_ticked = 0
    first_turn_s = 0.0
    began = time.monotonic()
    clicked_at = 0.0
    post_ms: list[float] = []
    get_ms: list[float] = []
    driver.execute_script("performance.clearResourceTimings()")
    while True:
        state_now = str(WebDriverWait(driver, 120, poll_frequency=0.02).until(turn_or_over))
        if clicks:
            answer_ms.append((time.monotonic() - clicked_at) * 1000)
            # The page's own requests since the click (Resource Timing): the POST of the move
            # and the state reads the stream's events caused.
            for name, duration in driver.execute_script(RESOURCES):
                if name.endswith("/move/"):
                    post_ms.append(duration)
                elif name.rstrip("/").endswith(f"/api/play/{game_id}"):
                    get_ms.append(duration)
        if state_now == "over":
            break
        if not first_turn_s:
            first_turn_s = time.monotonic() - began
        state = api(base, "GET", f"/api/play/{game_id}/", token=token)
        pits = driver.find_elements("css selector", "#board .pit.choosable")
        shown = {p.get_attribute("data-square") for p in pits}
        if shown != legal_pits(state):
            mismatched += 1
        if clicks % 10 == 0:  # the person's clock runs while they think
            before = driver.find_element("id", "clock-time-S").text
            time.sleep(1.2)
            if driver.find_element("id", "clock-time-S").text != before:
                ticked += 1
            else:
                not_ticked += 1
        pits = driver.find_elements("css selector", "#board .pit.choosable")
        rng.choice(pits).click()
        buttons = [b for b in driver.find_elements("css selector", "#pick-direction button")
                   if b.is_enabled()]  # fmt: skip
        rng.choice(buttons).click()
        if driver.find_element("id", "pick-choice").is_displayed():
            choices = [b for b in driver.find_elements("css selector", "#pick-choice button")
                       if b.is_enabled()]  # fmt: skip
            rng.choice(choices).click()
        clicked_at = time.monotonic()
        clicks += 1
        # Wait until the page has taken the move (no pit choosable) before looking for the answer.
        WebDriverWait(driver, WAIT_S, poll_frequency=0.02).until(
            lambda d: (
                not d.find_elements("css selector", "#board .pit.choosable")
                or d.find_elements("id", "replay-link")
            )
        )
    state = api(base, "GET", f"/api/play/{game_id}/", token=token)
    think = [float(m["time_ms"]) for m in state["moves"] if m["side"] == "N"]
    result = driver.find_element("id", "play-result").text
    print(
        f"Play: {result.strip()} after {state['plies']} plies ({clicks} clicked moves) in "
        f"{time.monotonic() - began:.0f} s; first turn {first_turn_s:.1f} s after the start"
    )
    print(f"Play: choosable pits differed from the server's legal moves on {mismatched} turns")
    print(
        f"Play: the person's clock ticked in {ticked} of {ticked + not_ticked} 1.2 s checks; "
        f"final clocks S {state['clocks']['south_ms']} ms, N {state['clocks']['north_ms']} ms"
    )
    print(figures("engine think (referee time_ms)", think))
    print(figures("person click -> engine move shown", answer_ms))
    print(figures("  of which the move's POST", post_ms))
    print(figures("  a state read (GET) after an event", get_ms))
    link = driver.find_element("id", "replay-link")
    load(driver, link)
    plies = driver.find_element("id", "ply-count").text
    print(
        f"Replay: {driver.current_url} shows {plies} plies (the game had {state['plies']}); "
        f"status {driver.find_element('id', 'play-status').text!r}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--tc", default="300+3")
    parser.add_argument("--tournament-tc", default="20+0.5")
    parser.add_argument("--sample-s", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--skip-tv", action="store_true")
    parser.add_argument("--games", type=int, default=3, help="games against search")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bao-trial-people-")
    log = Path(var) / "demo.log"
    base = f"http://127.0.0.1:{args.port}"
    demo = start_demo(var, args.port, log)
    driver = None
    try:
        started = time.monotonic()
        wait_served(base, demo, log, 900)
        print(f"demo serving at {base} after {time.monotonic() - started:.0f} s (log {log})")
        driver = browser()
        token = sign_up(driver, base, "mchezaji", "a long passphrase 7")
        if not args.skip_tv:
            watch_tv(driver, base, token, args.tournament_tc, args.sample_s)
        for n in range(args.games):
            play_search(driver, base, token, args.tc, args.seed + n)
        load1 = os.getloadavg()[0]
        print(f"\nhost: load1 {load1:.2f} on {os.cpu_count()} cores")
    finally:
        if driver is not None:
            driver.quit()
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGTERM)
            try:
                demo.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(demo.pid, signal.SIGKILL)
        shutil.rmtree(var, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
