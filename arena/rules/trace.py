"""The sowing trace of one move: every lift, drop and capture in order, for replays and tests.

Source: ``docs/rules/README.md`` 2 (laps, relays), 4.2 and 5 (directions: Bao ``+`` is
clockwise ``i -> i+1``; Kingulu always sows counterclockwise ``k -> k+1``), and the lap
notation of the worked examples (``start(seeds)->last pit``, ``docs/rules/bao-kingulu.md``
6). The variants build traces from the events their own sowing code records
(``Variant.trace``), so no rule is written a second time here: this module only holds the
value types and their JSON form.

A trace is a list of ``Step`` s. Each step names one square and gives its seed count *after*
the step, and the seeds in the sowing hand after it, so a viewer can animate a move by
applying the steps one by one without knowing any rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .base import RulesError

# Step operations.
RESERVE: Final = "reserve"  # Bao namua: one seed from the mover's reserve into ``square``
LIFT: Final = "lift"  # ``seeds`` lifted from ``square`` into the hand (a relay: rule "relay")
SOW: Final = "sow"  # one seed from the hand dropped into ``square``
BANK: Final = "bank"  # Kingulu: one seed sown into a reserved hole goes to ``side``'s bank
CAPTURE: Final = "capture"  # ``seeds`` taken from ``square`` (Bao: into the hand; Kingulu: bank)
KICHWA: Final = "kichwa"  # Bao: captured seeds enter at ``square`` in ``direction`` (``rule``)
NYUMBA: Final = "nyumba"  # Bao: a nyumba rule applied at ``square`` (``rule``)
MTOTO: Final = "mtoto"  # Kingulu kuweka mtoto: ``square`` becomes reserved by ``side``
END: Final = "end"  # the move ends at ``square`` (``rule`` says why)
OPS: Final = (RESERVE, LIFT, SOW, BANK, CAPTURE, KICHWA, NYUMBA, MTOTO, END)

#: Rules named by ``KICHWA`` steps: forced by a kimbi (bao-la-kete.md 5 step 3), or the
#: direction of the move (the token's on a first namua capture, else the current one).
KICHWA_RULES: Final = ("kimbi", "direction")
#: Rules named by ``NYUMBA`` steps (bao-la-kete.md 6.1, 6.3, 5 step 1).
NYUMBA_RULES: Final = ("stop", "safari", "tax", "destroyed", "captured")
#: Rules named by ``END`` steps: the lap ended in an empty pit, in the functional nyumba
#: (namua stop), in the takasia'd pit, or a capture emptied the opponent's front row (A-5,
#: seeds stay in hand); Kingulu: rule 1 (reserved hole), 2 (capture or not), 3 (mtoto).
END_RULES: Final = ("empty", "nyumba", "takasia", "won", "reserved", "mtoto")

#: A trace longer than this many steps is refused (only hand-made positions with huge counts
#: come near it: the longest moves of real games sow a few thousand seeds).
MAX_STEPS: Final = 20_000

CLOCKWISE: Final = "clockwise"
ANTICLOCKWISE: Final = "anticlockwise"


class TraceTooLongError(RulesError):
    """The move would need more than ``MAX_STEPS`` steps to trace (hand-made huge counts)."""


@dataclass(frozen=True)
class Step:
    """One event of a move. ``op``: one of ``OPS``; ``square``: the pit or hole (rules 4);
    ``count``: seeds in ``square`` after the step; ``hand``: seeds in the sowing hand after it.
    Optional, by op: ``seeds`` moved by a ``LIFT``/``CAPTURE``; ``side`` (``"S"``/``"N"``) the
    owner of a bank (``BANK``, Kingulu ``CAPTURE``) or of a new reservation (``MTOTO``), and
    ``bank`` that bank's seeds after the step; ``direction`` of a ``KICHWA`` (``"+"``/``"-"``);
    ``rule`` of a ``KICHWA``, ``NYUMBA`` or ``END`` step, and of a ``LIFT``/``SOW`` that is
    not plain sowing (``"relay"``; Kingulu ``"mtoto"``: the penultimate seed moved)."""

    op: str
    square: str
    count: int
    hand: int
    seeds: int = 0
    side: str = ""
    bank: int | None = None
    direction: str = ""
    rule: str = ""

    def to_dict(self) -> dict[str, object]:
        """The JSON form: ``op``, ``square``, ``count``, ``hand`` always; the optional fields
        only when set."""
        out: dict[str, object] = {
            "op": self.op,
            "square": self.square,
            "count": self.count,
            "hand": self.hand,
        }
        if self.seeds:
            out["seeds"] = self.seeds
        if self.side:
            out["side"] = self.side
        if self.bank is not None:
            out["bank"] = self.bank
        if self.direction:
            out["direction"] = self.direction
        if self.rule:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True)
class Lap:
    """One lap in the worked examples' notation ``start(seeds)->last``: ``start`` is where
    the seeds came from (the lifted pit, or the opponent's pit a Bao capture took them from),
    ``last`` the pit its last seed fell into."""

    start: str
    seeds: int
    last: str

    def __str__(self) -> str:
        return f"{self.start}({self.seeds})->{self.last}"


@dataclass(frozen=True)
class SowingTrace:
    """The whole of one legal move (``Variant.trace``).

    ``move``: the token; ``side``: the mover; ``direction``: of the first lap (``CLOCKWISE``
    or ``ANTICLOCKWISE``); ``steps``: every ``Step`` in order, the last one an ``END``;
    ``laps``: the laps in worked-example notation. Applying the steps' counts to the board
    before the move gives the board after it (seeds in hand after a win stay in ``hand``).
    """

    move: str
    side: str
    direction: str
    steps: tuple[Step, ...]
    laps: tuple[Lap, ...] = field(default=())

    @property
    def ended(self) -> str:
        """Why the move ended: the ``rule`` of its last step (one of ``END_RULES``)."""
        return self.steps[-1].rule if self.steps else ""

    def squares(self, op: str) -> list[str]:
        """The squares of the steps with ``op``, in order (``trace.squares("sow")``)."""
        return [s.square for s in self.steps if s.op == op]

    def to_dict(self) -> dict[str, object]:
        """``{"move", "side", "direction", "ended", "laps": ["c2(2)->e2", ...],
        "steps": [Step.to_dict(), ...]}``: what the API serves under ``trace``."""
        return {
            "move": self.move,
            "side": self.side,
            "direction": self.direction,
            "ended": self.ended,
            "laps": [str(lap) for lap in self.laps],
            "steps": [s.to_dict() for s in self.steps],
        }


class StepWriter:
    """Collects steps and laps, refusing a trace of more than ``MAX_STEPS`` steps.

    The variants' trace builders keep the board; this only records what they report.
    """

    __slots__ = ("hand", "laps", "steps")

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.laps: list[Lap] = []
        self.hand = 0

    def add(self, op: str, square: str, count: int, **extra: object) -> None:
        """Append a step with the current ``hand``; raises ``TraceTooLongError``."""
        if len(self.steps) >= MAX_STEPS:
            raise TraceTooLongError(f"the move needs more than {MAX_STEPS} steps to trace")
        self.steps.append(Step(op, square, count, self.hand, **extra))  # type: ignore[arg-type]

    def reserve_room(self, seeds: int) -> None:
        """Refuse at once a lap of ``seeds`` drops that cannot fit (no huge loops)."""
        if len(self.steps) + seeds > MAX_STEPS:
            raise TraceTooLongError(f"the move needs more than {MAX_STEPS} steps to trace")

    def finish(self, move: str, side: str, direction: str) -> SowingTrace:
        return SowingTrace(move, side, direction, tuple(self.steps), tuple(self.laps))
