"""How fast a person's move reaches the engine (issue 33: within 250 ms). Prints figures,
asserts nothing.

A throw-away SQLite database (``BAO_VAR_DIR`` in a temporary directory) with the bundled
engines; ``--games`` games of a person against the bundled ``random`` (in its sandbox, as
``BAO_SANDBOX_MODE`` says; ``--engine`` another bundled one) at 300+3. The people slot is
``people.runner.play`` on a thread, as in a worker's people pool; the person posts a random
legal move through the API
(``POST /api/play/{id}/move/``, the Django test client) as soon as ``GET /api/play/{id}/``
says it is their turn. Printed, in ms, min / p50 / p95 / max over every move:

* ``relay``: from the API accepting the move (``pending_at``, set by the conditional UPDATE)
  to the referee writing ``position ...`` to the engine (``person_move_relay_seconds``): the
  slot's poll (``people.runner.POLL_S``, 20 ms) and one read.
* ``post``: the whole ``POST .../move/`` request in-process (validation by the rules engine,
  the UPDATE, the answer with the next state).
* ``think``: the engine's time per move as the referee measured it (``time_ms``); people's
  games cap it for an engine taking ``MaxMoveTime`` (``BAO_PEOPLE_ENGINE_MOVE_MS``, docs/play.md).

and the host's load average and cores at the end, since the figures depend on them.

Usage::

    python benchmarks/bench_people.py [--games 3] [--variant bao-la-kete] [--seed 1]
        [--engine random|greedy|search]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup(var: str) -> None:
    os.environ.update(
        BAO_VAR_DIR=var,
        DJANGO_SETTINGS_MODULE="arena.settings",
        DATABASE_URL=f"sqlite:///{var}/bench.sqlite3",
        CELERY_BROKER_URL="memory://",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _figures(name: str, values_ms: list[float]) -> str:
    values = sorted(values_ms)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (
        f"{name:6s} n={len(values):4d}  min {values[0]:7.1f}  p50 {statistics.median(values):7.1f}"
        f"  p95 {p95:7.1f}  max {values[-1]:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--variant", default="bao-la-kete")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="random", choices=["random", "greedy", "search"])
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bao-bench-people-")
    try:
        _setup(var)
        run(args.games, args.variant, args.seed, args.engine)
    finally:
        shutil.rmtree(var, ignore_errors=True)


def run(games: int, variant: str, seed: int, engine: str) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from arena.matches.runner import default_referee_config
    from engines.services import register_bundled_engines
    from engines.validation import validate_version_now
    from people import runner, services

    call_command("migrate", verbosity=0)
    for version in register_bundled_engines(validate=False):
        if version.engine.name == engine:
            validate_version_now(version.pk)
    person = get_user_model().objects.create_user("bench-person", "", "a long passphrase 7")
    client = Client()
    client.force_login(person)
    relays: list[float] = []
    posts: list[float] = []
    thought: list[float] = []
    config = replace(
        default_referee_config(),
        on_metric=lambda name, s: (
            relays.append(s * 1000) if name == "person_move_relay_seconds" else None
        ),
    )
    rng = random.Random(seed)
    services._send = lambda game_id: None  # type: ignore[assignment]  # the thread plays it
    for _ in range(games):
        r = client.post(
            "/api/play/",
            {"engine": engine, "variant": variant, "time_control": "300+3", "side": "south"},
            content_type="application/json",
        )
        game_id = r.json()["id"]
        thread = threading.Thread(target=runner.play, args=(game_id,), kwargs={"config": config})
        thread.start()
        while True:
            body = client.get(f"/api/play/{game_id}/").json()
            if body["status"] in ("finished", "aborted"):
                break
            if body["your_turn"]:
                began = time.perf_counter()
                client.post(
                    f"/api/play/{game_id}/move/",
                    {"move": rng.choice(body["legal_moves"]), "ply": body["plies"] + 1},
                    content_type="application/json",
                )
                posts.append((time.perf_counter() - began) * 1000)
            time.sleep(0.005)
        thread.join()
        thinking = [m["time_ms"] for m in body["moves"] if m["side"] == "N"]
        thought += thinking
        print(
            f"game {game_id}: {body['result']} by {body['termination']} in {body['plies']} "
            f"plies; {engine} thought {statistics.median(thinking or [0]):.0f} ms a move (p50)"
        )
    print(_figures("relay", relays))
    print(_figures("post", posts))
    print(_figures("think", thought))
    load1, load5, _ = os.getloadavg()
    print(f"host: load average {load1:.2f} / {load5:.2f} (1 / 5 min), {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
