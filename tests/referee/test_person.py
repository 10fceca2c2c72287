"""``play_person_game``: a person (a scripted ``PersonSource``, no Django) against real engine
processes in the sandbox: the person's moves reach the engine and both clocks run; an engine
fault loses for the engine; a person who stops answering loses on time; a resignation during
the engine's turn ends the game; and every engine process is gone at the end."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, RefereeConfig, TimeControl
from arena.referee.events import MovePlayed
from arena.referee.person import PersonAction, play_person_game
from arena.referee.players import close_all
from arena.rules import get_variant

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")

from .test_misbehaving import ENGINES  # noqa: E402

VARIANT = "bao-kingulu"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


class Scripted:
    """A person who plays the first legal move of each position after ``think_s``, until
    ``stop_at_ply`` (then never again), and resigns once ``resign_after`` moves were seen."""

    def __init__(self, think_s: float = 0.0, stop_at_ply: int | None = None,
                 resign_after: int | None = None) -> None:  # fmt: skip
        self.game = get_variant(VARIANT).new_game()
        self.think_s = think_s
        self.stop_at_ply = stop_at_ply
        self.resign_after = resign_after
        self.seen = 0

    def on_event(self, event: Any) -> None:
        if isinstance(event, MovePlayed):
            self.game.play(event.record.move)
            self.seen += 1

    def next_action(self, ply: int, timeout_s: float) -> PersonAction | None:
        if self.stop_at_ply is not None and ply >= self.stop_at_ply:
            time.sleep(timeout_s)
            return None
        time.sleep(min(self.think_s, timeout_s))
        return PersonAction(token=str(self.game.legal_moves()[0]), accepted_ns=time.time_ns())

    def resigned(self) -> bool:
        return self.resign_after is not None and self.seen >= self.resign_after


class SlowRelay(Scripted):
    """A person whose moves the service takes at once but the referee reads ``relay_s`` late
    (a busy worker host)."""

    def __init__(self, relay_s: float) -> None:
        super().__init__()
        self.relay_s = relay_s

    def next_action(self, ply: int, timeout_s: float) -> PersonAction | None:
        accepted = time.time_ns()
        time.sleep(self.relay_s)
        if ply >= 5:  # two moves made: then resign
            return PersonAction(resign=True, accepted_ns=accepted)
        return PersonAction(token=str(self.game.legal_moves()[0]), accepted_ns=accepted)


@pytest.fixture
def slot() -> Iterator[Any]:
    made: list[tuple[EngineSlot, Any]] = []

    def make(name: str) -> EngineSlot:
        pkg = package.load_engine(ENGINES / f"{name}.py")
        config = RefereeConfig(handshake_timeout_ms=3000, ready_timeout_ms=2000)
        engine = EngineSlot(pkg, name, config)
        made.append((engine, pkg))
        return engine

    yield make
    for engine, pkg in made:
        close_all([engine])
        shutil.rmtree(pkg.root, ignore_errors=True)


def play(engine: EngineSlot, person: Scripted, tc: str = "60+0", **kw: Any) -> Any:
    relays: list[float] = []
    config = replace(engine.config, on_metric=lambda name, s: relays.append(s))
    record = play_person_game(VARIANT, engine, engine_side="N", person=person,
                              person_name="person", time_control=TimeControl.parse(tc),
                              config=config, on_event=person.on_event, **kw)  # fmt: skip
    process = engine.process
    close_all([engine])
    assert process is None or process.poll() is not None
    return record, relays


def test_a_whole_game_against_a_real_engine(slot):
    person = Scripted(think_s=0.01)
    record, relays = play(slot("steady"), person)
    assert record.termination in T.RULES_TERMINATIONS, record.detail
    assert [m.side for m in record.moves[:3]] == ["S", "N", "S"]
    assert [m.move for m in record.moves] == [str(m) for m in person.game.moves]
    south = [m for m in record.moves if m.side == "S"]
    assert all(m.time_ms >= 10 for m in south)  # the person's thinking is on their clock
    assert south[0].clock_ms <= 60_000 - 10
    # Each person's move but one that ended the game was relayed to the engine.
    assert len(relays) >= len(south) - 1 >= 1


def test_an_engine_fault_loses_for_the_engine(slot):
    record, _ = play(slot("illegal"), Scripted())
    assert (record.termination, record.result, record.winner) == (T.ILLEGAL_MOVE, "1-0", "person")


def test_a_person_who_stops_answering_loses_on_time(slot):
    began = time.monotonic()
    record, _ = play(slot("steady"), Scripted(stop_at_ply=3), tc="1+0")
    assert (record.termination, record.result, record.winner) == (
        T.TIME_FORFEIT, "0-1", "steady",
    )  # fmt: skip
    assert record.plies == 2 and time.monotonic() - began >= 1.0


def test_a_move_taken_in_time_but_read_late_is_charged_until_it_was_taken(slot):
    # Each move is read 1.2 s after it was taken, on a 1 s clock: neither is a loss on time.
    record, _ = play(slot("steady"), SlowRelay(relay_s=1.2), tc="1+0")
    assert (record.termination, record.plies) == (T.RESIGNATION, 4), record.detail
    south = [m for m in record.moves if m.side == "S"]
    assert len(south) == 2
    assert all(m.time_ms < 200 for m in south)
    assert south[-1].clock_ms > 600


def test_a_resignation_during_the_engines_turn_ends_the_game(slot):
    record, _ = play(slot("slow"), Scripted(resign_after=1))
    assert (record.termination, record.result, record.winner) == (
        T.RESIGNATION, "0-1", "slow",
    )  # fmt: skip
    assert record.plies == 1
