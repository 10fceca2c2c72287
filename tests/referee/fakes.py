"""Test doubles for the referee: a toy variant, scripted BEP bots, fake processes.

The toy game ("take"): a pile of seeds, each move takes 1 or 2 (tokens ``t1``/``t2``; ``t3`` is
well-formed but never legal, so illegal-move tests need no real rules). The player to move
with an empty pile has no legal move and loses (``no_legal_move``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.referee import FakeTransport, RefereeConfig
from arena.rules import (
    NO_LEGAL_MOVE,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    Variant,
)
from arena.rules.base import other
from arena.rules.trace import END, LIFT, SowingTrace, Step
from engines.package import EnginePackage

_TOKEN = re.compile(r"^t[1-3]$")


@dataclass(frozen=True)
class TakePosition:
    count: int
    side: str
    ply: int

    @property
    def repetition_key(self) -> Hashable:
        return (self.count, self.side)

    def to_text(self) -> str:
        return f"{self.count} {self.side} {self.ply}"


class TakeVariant(Variant):
    id = "toy-take"
    name = "Take (toy)"
    default_ply_cap = 100

    def __init__(self, pile: int = 7) -> None:
        self.pile = pile

    def initial_position(self) -> TakePosition:
        return TakePosition(self.pile, "S", 0)

    def parse_position(self, text: str, *, strict: bool = False) -> TakePosition:
        try:
            count, side, ply = text.split()
            return TakePosition(int(count), side, int(ply))
        except ValueError as exc:
            raise InvalidPositionError(text) from exc

    def parse_move(self, token: str) -> Move:
        if not _TOKEN.match(str(token)):
            raise InvalidMoveError(f"bad token {token!r}")
        return Move(token)

    def legal_moves(self, position: Any) -> list[Move]:
        return [Move(f"t{k}") for k in (1, 2) if k <= position.count]

    def _apply_legal(self, position: Any, move: Move) -> TakePosition:
        return TakePosition(position.count - int(move[1]), other(position.side), position.ply + 1)

    def outcome(self, position: Any) -> Outcome | None:
        if position.count == 0:
            return Outcome(other(position.side), NO_LEGAL_MOVE)
        return None

    def limit_outcome(self, position: Any, reason: str) -> Outcome:
        return Outcome(None, reason)

    def trace(self, position: Any, move: Move | str) -> SowingTrace:
        """Taking is one step: the pile loses ``k`` seeds."""
        token = self.parse_move(move)
        if token not in self.legal_moves(position):
            raise IllegalMoveError(f"{token} is not legal")
        left = position.count - int(token[1])
        step = Step(LIFT, "pile", left, int(token[1]), seeds=int(token[1]))
        return SowingTrace(str(token), position.side, "", (step, Step(END, "pile", left, 0)))


TOY = TakeVariant()


def first_move(count: int) -> str:
    return "t1"


def optimal_move(count: int) -> str:
    return f"t{count % 3}" if count % 3 else "t1"


@dataclass
class Bot:
    """A scripted BEP engine for ``FakeTransport(on_line=bot)``.

    ``choose(count) -> token``; ``delays_ms[n]`` delays the n-th (1-based) bestmove in fake time;
    ``replies[n]`` replaces the n-th bestmove line(s) verbatim; ``silent_ready`` lists the
    ``isready`` numbers left unanswered; ``info`` lines precede each bestmove. ``journal``
    (shared by several bots) records ``"<name>:<command word>"`` for every line received, and
    ``"<name>:kill"`` when its ``FakeProcess`` is killed, to check the order across engines.
    ``wants``: features asked for in the handshake (``want <feature>`` lines); ``legal``: the
    token lists of the ``legalmoves`` lines received, in order.
    """

    name: str = "bot"
    choose: Callable[[int], str] = first_move
    delays_ms: dict[int, int] = field(default_factory=dict)
    replies: dict[int, str] = field(default_factory=dict)
    silent_ready: set[int] = field(default_factory=set)
    info: bool = True
    variants: tuple[str, ...] = ("toy-take",)
    gos: int = 0
    readies: int = 0
    count: int = 0
    journal: list[str] | None = None
    wants: tuple[str, ...] = ()
    legal: list[list[str]] = field(default_factory=list)

    def __call__(self, line: str) -> list[Any]:
        words = line.split()
        if self.journal is not None:
            self.journal.append(f"{self.name}:{words[0] if words else ''}")
        if line == "bep":
            head = f"id name {self.name}\nid author Tests\noption name Seed type spin default 0\n"
            head += "".join(f"want {w}\n" for w in self.wants)
            return [head + "".join(f"variant {v}\n" for v in self.variants) + "bepok\n"]
        if words and words[0] == "legalmoves":
            self.legal.append(words[1:])
            return []
        if line == "isready":
            self.readies += 1
            return [] if self.readies in self.silent_ready else ["readyok\n"]
        if words[:2] == ["position", "startpos"]:
            self.count = TOY.pile - sum(int(t[1]) for t in words[3:])
            return []
        if words[:2] == ["position", "text"]:  # "position text <count> <side> <ply> [moves ..]"
            self.count = int(words[2]) - sum(int(t[1]) for t in words[6:])
            return []
        if words and words[0] == "go":
            self.gos += 1
            text = self.replies.get(self.gos, f"bestmove {self.choose(self.count)}\n")
            if self.info:
                text = f"info depth 1 score 0 nodes {self.count}\n" + text
            return [(self.delays_ms.get(self.gos, 5), text)]
        return []


@dataclass
class ListPlayer(Bot):
    """A BEP engine that knows no rules at all: it asks for the legal moves (``want
    legalmoves``) and plays the last token of the list it was sent; ``lists`` keeps every list
    received (``Bot.legal``)."""

    def __call__(self, line: str) -> list[Any]:
        words = line.split()
        if line == "bep":
            return [f"id name {self.name}\nwant legalmoves\nbepok\n"]
        if words and words[0] == "go":
            self.gos += 1
            return [(1, f"bestmove {self.legal[-1][-1]}\n")]
        if words and words[0] in ("legalmoves", "isready"):
            return super().__call__(line)
        return []


class FakeProcess:
    """Stands in for ``engines.sandbox.EngineProcess`` around a ``FakeTransport``."""

    def __init__(self, bot: Bot, **transport_kw: Any) -> None:
        self.bot = bot
        self.transport = FakeTransport(on_line=bot, **transport_kw)
        self.killed = False
        self.returncode: int | None = None
        self.stderr_overflow = False

    def poll(self) -> int | None:
        if self.killed:
            return -9
        eof_after = self.transport.eof_after
        if eof_after is not None and len(self.transport.written) >= eof_after:
            return 3  # the scripted "engine" exited after its last command
        return self.returncode

    def wait(self, timeout: float) -> int | None:
        return self.poll()

    def kill(self) -> None:
        if self.bot.journal is not None and not self.killed:
            self.bot.journal.append(f"{self.bot.name}:kill")
        self.killed = True

    def stderr_tail(self) -> str:
        return ""


class Launcher:
    """``RefereeConfig.starter``: hands out a fresh ``FakeProcess`` per start of each package.

    ``makers[name]`` builds the process for engine package ``name`` (called on every start, so
    a restart gets a fresh one); every process made is kept in ``started``.
    """

    def __init__(self, makers: dict[str, Callable[[], FakeProcess]]) -> None:
        self.makers = makers
        self.started: list[tuple[str, FakeProcess]] = []

    def __call__(self, package: EnginePackage, *args: Any) -> FakeProcess:
        process = self.makers[package.name]()
        self.started.append((package.name, process))
        return process


def Pkg(name: str) -> EnginePackage:
    """An engine package named ``name`` for a ``Launcher``, which starts it by name alone
    (its root and command are never run)."""
    return EnginePackage(name=name, root=Path("/nonexistent"), argv=("fake-engine",))


def fake_config(launcher: Launcher, **kw: Any) -> RefereeConfig:
    return RefereeConfig(
        sandbox=None,
        starter=launcher,
        transport_factory=lambda process: process.transport,
        **kw,
    )
