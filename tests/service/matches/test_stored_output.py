"""Stored output capped (issue 30): an engine printing 12 MB of info in a game leaves a stored
game, a replay and a replay page of bounded size, each saying how much was cut."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.matches import runner
from arena.matches.models import Game, Match
from arena.referee.output_cap import OUTPUT_KEEP_BYTES, line_bytes

from .conftest import make_version

FLOOD = Path(__file__).resolve().parents[2] / "referee" / "engines" / "info_flood.py"
LINE = "string " + "<&é>" * 240
CUT = re.compile(r"^\[… ([\d,]+) bytes of (info|stderr) cut\]$")

# A real match of about 10 s (the engine writes 12 MB; greedy searches).
pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_an_engine_printing_12_mb_of_info_gets_64_kib_stored_and_a_small_replay_page(
    arena_user, greedy, fast_referee, client
) -> None:
    flood = make_version(arena_user, "info-flood", str(FLOOD))
    match = Match.objects.create(
        engine_a=flood, engine_b=greedy, variant="bao-la-kete", time_control="5+0.1", seed=7
    )
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    game = Game.objects.get(match=match, index=1)
    side, mover = ("south", "S") if game.south_id == flood.pk else ("north", "N")
    info = [line for m in game.moves if m["side"] == mover for line in m["info"]]
    kept, markers = info[:-1], [CUT.match(info[-1])]
    assert all(x == LINE for x in kept)
    assert markers[0] is not None and markers[0][2] == "info"
    # The four floods of 2475 lines, as the record counts them (no "info ", a newline).
    printed = 4 * (3_000_000 // 1212) * 1208
    cut = int(markers[0][1].replace(",", ""))
    assert OUTPUT_KEEP_BYTES - 1213 < sum(line_bytes(x) for x in kept) <= OUTPUT_KEEP_BYTES
    assert cut == printed - sum(line_bytes(x) for x in kept)
    assert len(json.dumps(game.moves).encode()) < 200_000

    marker, tail = game.engine_errors[side].split("\n", 1)
    stderr_cut = CUT.match(marker)
    assert stderr_cut is not None and stderr_cut[2] == "stderr"
    assert int(stderr_cut[1].replace(",", "")) == 4 * 225_000 - OUTPUT_KEEP_BYTES
    assert len(tail.encode()) == OUTPUT_KEEP_BYTES

    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert len(page.content) < 1_000_000, len(page.content)
    replay = client.get(f"/api/games/{game.pk}/")
    assert replay.status_code == 200
    assert len(replay.content) < 500_000, len(replay.content)
    assert replay.json()["moves"] == [
        {k: v for k, v in m.items() if k != "ignored"} for m in replay.json()["moves"]
    ]
    print(f"page {len(page.content)} bytes, replay {len(replay.content)} bytes")
