"""Stored output capped: an engine's info, ignored lines and stderr kept to 64 KiB a game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.referee import EngineSlot, TimeControl, play_game
from arena.referee.output_cap import (
    OUTPUT_KEEP_BYTES,
    LineBudget,
    cap_stored_moves,
    cut_marker,
    line_bytes,
)

from .fakes import TOY, Bot, FakeProcess, Launcher, Pkg, TakeVariant, fake_config

TC = TimeControl.parse("10+0.1")
LINE = "string " + "x" * 992  # an info line of 1000 bytes with its newline ("info " cut)


@dataclass
class Shouter(Bot):
    """A bot that prints ``lines`` info lines of 1000 bytes, and ``noise`` unknown lines,
    before each bestmove."""

    lines: int = 0
    noise: int = 0

    def __call__(self, line: str) -> list[Any]:
        out = super().__call__(line)
        if line.split()[:1] == ["go"]:
            delay, text = out[0]
            extra = f"info {LINE}\n" * self.lines + f"chatter {'y' * 192}\n" * self.noise
            return [(delay, extra + text)]
        return out


def _play(south: Bot, north: Bot, variant: TakeVariant = TOY) -> Any:
    launcher = Launcher({"S": lambda: FakeProcess(south), "N": lambda: FakeProcess(north)})
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    try:
        return play_game(variant, slots[0], slots[1], TC, config)
    finally:
        for slot in slots:
            slot.close()


def test_the_marker_says_how_many_bytes_were_cut() -> None:
    assert cut_marker(12_345_678, "info") == "[… 12,345,678 bytes of info cut]"


def test_a_budget_keeps_a_prefix_of_whole_lines_and_counts_the_rest() -> None:
    budget = LineBudget(10)
    assert budget.keep_lines(["abcd", "éé", "abcdef", "a"]) == ["abcd", "éé"]
    assert (budget.used, budget.cut) == (10, 9)  # "a" fits but comes after the cut
    assert line_bytes("é") == 3


def test_an_engine_flooding_info_keeps_64_kib_a_game_and_one_marker() -> None:
    # 100 lines of 1000 bytes per move, 4 moves for South: 400 kB printed, 64 KiB kept.
    record = _play(Shouter(lines=100), Bot())
    south = [m for m in record.moves if m.side == "S"]
    kept = [line for m in south for line in m.info if not line.startswith("[…")]
    markers = [line for m in south for line in m.info if line.startswith("[…")]
    assert len(kept) == OUTPUT_KEEP_BYTES // 1000 == 65
    printed = sum(line_bytes(x) for m in south for x in _printed(m))
    assert printed > 4 * 100 * 1000
    assert markers == [cut_marker(printed - sum(line_bytes(x) for x in kept), "info")]
    # The marker sits on the move where the cut began (the first move holds 101 lines).
    assert south[0].info[-1] == markers[0] and not south[1].info
    assert all(m.info for m in record.moves if m.side == "N")  # the other engine is untouched


def _printed(move: Any) -> list[str]:
    return [LINE] * 100 + [f"depth 1 score 0 nodes {7 - move.ply + 1}"]


def test_ignored_lines_are_capped_by_game_too() -> None:
    # 20 kept per move at most (IGNORED_KEEP) with a "(N more lines)" entry: the game's cap
    # holds them too when a long game would pile them up.
    # 50 moves of 20 lines of 200 bytes and a "(N more lines)": 200 kB without the cap.
    record = _play(Shouter(noise=30, info=False), Bot(info=False), TakeVariant(pile=100))
    south = [m for m in record.moves if m.side == "S"]
    assert len(south) == 50 and south[0].ignored[-1] == "(10 more lines)"
    total = sum(line_bytes(x) for m in south for x in m.ignored)
    assert OUTPUT_KEEP_BYTES - 300 < total <= OUTPUT_KEEP_BYTES + 100
    assert not south[-1].ignored
    markers = [x for m in south for x in m.ignored if x.startswith("[…")]
    assert len(markers) == 1 and markers[0].endswith(" bytes of ignored lines cut]")


def test_the_stored_form_of_an_uncapped_record_is_capped_on_read() -> None:
    moves = [
        {"ply": i + 1, "side": "SN"[i % 2], "move": "t1", "info": [LINE] * 30} for i in range(6)
    ]
    capped = cap_stored_moves(moves)
    south = [m for m in capped if m["side"] == "S"]
    assert sum(len(m["info"]) for m in south) == 65 + 1
    assert south[2]["info"][-1] == cut_marker((90 - 65) * 1000, "info")
    assert cap_stored_moves(capped) == capped  # a capped record passes unchanged
    small = moves[:1]
    assert cap_stored_moves(small)[0] is small[0]


class StderrProcess(FakeProcess):
    """A fake process whose engine writes ``per_go`` bytes of stderr at each ``go``, kept
    whole (``stderr_since`` as ``EngineProcess`` has it, with a tail as long as all)."""

    def __init__(self, bot: Bot, per_go: list[bytes]) -> None:
        super().__init__(bot)
        self.written = bytearray()
        inner = self.transport.on_line

        def on_line(line: str) -> Any:
            if line.startswith("go ") and per_go:
                self.written += per_go.pop(0)
            return inner(line)

        self.transport.on_line = on_line

    @property
    def stderr_bytes(self) -> int:
        return len(self.written)

    def stderr_since(self, offset: int) -> tuple[str, int]:
        return bytes(self.written[offset:]).decode(), 0


def test_stderr_is_kept_by_game_its_last_64_kib_behind_a_marker() -> None:
    flood = [b"e" * 50_000 + b"\n"] * 4 + [b"second game\n"]
    south = StderrProcess(Bot(), flood)
    launcher = Launcher({"S": lambda: south, "N": lambda: FakeProcess(Bot())})
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    try:
        first = play_game(TOY, slots[0], slots[1], TC, config)
        second = play_game(TOY, slots[0], slots[1], TC, config, index=2)
    finally:
        for slot in slots:
            slot.close()
    head, tail = first.engine_errors["s"].split("\n", 1)
    assert head == cut_marker(4 * 50_001 - OUTPUT_KEEP_BYTES, "stderr")
    assert len(tail.encode()) == OUTPUT_KEEP_BYTES and tail.endswith("e\n")
    assert "n" not in first.engine_errors
    assert second.engine_errors == {"s": "second game\n"}  # not the first game's again
