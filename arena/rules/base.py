"""Shared vocabulary of the rules engine: errors, moves, outcomes, the variant contract and games.

Source: ``docs/rules/README.md`` (cited as "rules n") sections 6 (move tokens,
``#6-move-tokens``), 7 (position notation, ``#7-position-notation``), 9.1 (game-level limits:
third repetition, ply cap, and their precedence; the reason codes) and 9.2 (the result of a
win in the middle of a move).

Standard library only: this package is imported by untrusted Python engines, the referee and the
Django service alike, and must never need Django settings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Container, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, Protocol

from .terminations import RULES_TERMINATIONS, Termination

if TYPE_CHECKING:
    from .trace import SowingTrace

SOUTH = "S"
NORTH = "N"


class VariantId(StrEnum):
    """The stable id of each variant (its spec file's name), in the order the service lists
    them. Each ``Variant`` subclass names its id and its aliases;
    ``arena.rules.canonical_variant_id`` reads them there."""

    BAO_LA_KETE = "bao-la-kete"
    BAO_LA_KISWAHILI = "bao-la-kiswahili"
    BAO_KINGULU = "bao-kingulu"


def other(side: str) -> str:
    """The opponent of ``side`` (``"S"`` <-> ``"N"``)."""
    return NORTH if side == SOUTH else SOUTH


# --------------------------------------------------------------------------- errors


class RulesError(ValueError):
    """Base class of every error this package raises on bad input."""


class UnknownVariantError(RulesError, KeyError):
    """``get_variant`` was given an id or alias that names no variant."""

    def __str__(self) -> str:  # KeyError would print the repr of its argument
        return str(self.args[0]) if self.args else "unknown variant"


class InvalidPositionError(RulesError):
    """A position text breaks a validity rule of rules 7.3 (first tier)."""


class InvalidMoveError(RulesError):
    """A move token is not syntactically a token of this variant (rules 6)."""


class IllegalMoveError(RulesError):
    """A well-formed token that is not in the legal move list of the position."""


# --------------------------------------------------------------------------- values


class Move(str):
    """A move token (rules 6). ``str(m)`` is the token; moves sort in ASCII order.

    A ``Move`` compares equal to its token string, so ``"f2-" in v.legal_moves(p)`` works.
    Variants create them through ``Variant.parse_move``, which checks the syntax.
    """

    __slots__ = ()

    @property
    def token(self) -> str:
        return str.__str__(self)


# Reason codes of rules 9: the rules endings of the one termination vocabulary.
BAO_HAMNA = Termination.BAO_HAMNA
NO_LEGAL_MOVE = Termination.NO_LEGAL_MOVE
SCORE = Termination.SCORE
REPETITION = Termination.REPETITION
PLY_CAP = Termination.PLY_CAP
RULES_REASONS = RULES_TERMINATIONS


#: South's points for each result of ``Outcome.result`` (a win 1, a draw 1/2, a loss 0).
SOUTH_POINTS: Mapping[str, float] = MappingProxyType({"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5})


@dataclass(frozen=True)
class Outcome:
    """How a game ended by the rules (rules 9).

    ``winner``: ``"S"``, ``"N"`` or ``None`` for a draw. ``reason``: one of ``RULES_REASONS``.
    ``scores``: ``(south, north)`` seed counts for Bao Kingulu endings, else ``None``.
    ``seeds_in_hand``: seeds left in the winner's hand after a win in the middle of a move
    (``bao_hamna``, A-5), else 0.
    """

    winner: str | None
    reason: Termination
    scores: tuple[int, int] | None = None
    seeds_in_hand: int = 0

    @property
    def result(self) -> str:
        """``"1-0"`` (South won), ``"0-1"`` (North won) or ``"1/2-1/2"``."""
        if self.winner == SOUTH:
            return "1-0"
        if self.winner == NORTH:
            return "0-1"
        return "1/2-1/2"

    def to_dict(self) -> dict[str, object]:
        return {
            "winner": self.winner,
            "reason": self.reason,
            "scores": list(self.scores) if self.scores is not None else None,
            "seeds_in_hand": self.seeds_in_hand,
            "result": self.result,
        }


class Position(Protocol):
    """What every variant's position offers. Positions are immutable and hashable values."""

    @property
    def side(self) -> str: ...  # "S" or "N", the player to move

    @property
    def ply(self) -> int: ...

    @property
    def repetition_key(self) -> Hashable: ...  # every notation field except ply (rules 7)

    def to_text(self) -> str: ...  # canonical BPN/KPN; parse_position(p.to_text()) == p


# --------------------------------------------------------------------------- variants


class Variant(ABC):
    """The static game: rules and parameters of one variant (rules 8-9, the game's page).

    Subclasses implement the abstract methods; everything else is shared.
    """

    id: ClassVar[VariantId]
    aliases: ClassVar[tuple[str, ...]] = ()
    name: ClassVar[str]
    #: Default ply cap of rules 9.1 (Bao 1000, Kingulu 500).
    default_ply_cap: ClassVar[int]
    #: Default number of occurrences of a position that ends the game (rules 9.1).
    default_repetitions: ClassVar[int] = 3

    @abstractmethod
    def initial_position(self) -> Position:
        """The start position (rules 4.3 / 5)."""

    @abstractmethod
    def parse_position(self, text: str, *, strict: bool = False) -> Position:
        """Parse BPN/KPN text.

        Raises ``InvalidPositionError`` if the text breaks a first-tier validity rule
        (rules 7.3); with ``strict=True`` also if it breaks an invariant of reachable
        positions.
        """

    @abstractmethod
    def parse_move(self, token: str) -> Move:
        """Check the token syntax (rules 6); raises ``InvalidMoveError``."""

    @abstractmethod
    def legal_moves(self, position: Position) -> list[Move]:
        """Every legal move in ``position``, sorted by token (ASCII). Empty if the game is over."""

    @abstractmethod
    def _apply_legal(self, position: Position, move: Move) -> Position:
        """Execute a move already known to be legal."""

    def _legal_set(self, position: Position) -> Container[str]:
        """The legal moves of ``position`` for a membership test (``move in ...``): what
        ``apply`` checks. Variants whose generator already holds them in a dict or set return
        that (no list is built per move); the default is ``legal_moves``."""
        return self.legal_moves(position)

    @abstractmethod
    def outcome(self, position: Position) -> Outcome | None:
        """The rules result of ``position`` (``bao_hamna``, ``no_legal_move``, ``score``) or None.

        Game-level limits (repetition, ply cap) need the history: see ``Game``.
        """

    @abstractmethod
    def limit_outcome(self, position: Position, reason: str) -> Outcome:
        """The result when a game-level limit (``repetition`` or ``ply_cap``) ends the game in
        ``position`` (rules 9.1: Bao draws, Kingulu is scored)."""

    @abstractmethod
    def trace(self, position: Position, move: Move | str) -> SowingTrace:
        """Every step of the legal ``move`` in order: lifts, drops, captures and the rules
        applied (``arena.rules.trace.SowingTrace``), recorded by the code ``apply`` runs.

        Raises ``InvalidMoveError``, ``IllegalMoveError``, ``InvalidPositionError`` and
        ``TraceTooLongError`` (more than ``trace.MAX_STEPS`` steps: hand-made counts only).
        """

    def is_valid_strict(self, position: Position) -> bool:
        """Whether ``position`` satisfies the reachable-position invariants (rules 7.3)."""
        try:
            self.parse_position(position.to_text(), strict=True)
        except InvalidPositionError:
            return False
        return True

    def apply(self, position: Position, move: Move | str) -> Position:
        """The position after ``move`` (a ``Move`` or a token string).

        Raises ``InvalidMoveError`` for bad syntax and ``IllegalMoveError`` if the move is not in
        ``legal_moves(position)`` (including when the game is already over).
        """
        parsed = self.parse_move(move)
        if parsed not in self._legal_set(position):
            raise IllegalMoveError(f"{parsed} is not legal in {position.to_text()}")
        return self._apply_legal(position, parsed)

    def new_game(
        self,
        start: Position | str | None = None,
        *,
        ply_cap: int | None = None,
        repetitions: int | None = None,
    ) -> Game:
        """A game with history from ``start`` (default: the start position)."""
        if isinstance(start, str):
            start = self.parse_position(start)
        return Game(self, start, ply_cap=ply_cap, repetitions=repetitions)

    def __repr__(self) -> str:
        return f"<Variant {self.id}>"


class Game:
    """A game with history: applies moves and adds the game-level limits of rules 9.1.

    ``ply_cap``: the game ends when ``position.ply`` reaches it (default per variant).
    ``repetitions``: the game ends when a position (all fields but ply) occurs this many times
    (default 3). Precedence (rules 9.1): a rules ending of the move first, then repetition, then
    the ply cap.
    """

    def __init__(
        self,
        variant: Variant,
        start: Position | None = None,
        *,
        ply_cap: int | None = None,
        repetitions: int | None = None,
    ) -> None:
        self.variant = variant
        self.start = start if start is not None else variant.initial_position()
        self.ply_cap = variant.default_ply_cap if ply_cap is None else ply_cap
        self.repetitions = variant.default_repetitions if repetitions is None else repetitions
        if self.ply_cap < 1 or self.repetitions < 2:
            raise ValueError("ply_cap must be >= 1 and repetitions >= 2")
        self.moves: list[Move] = []
        self.positions: list[Position] = [self.start]
        self._seen: dict[Hashable, int] = {self.start.repetition_key: 1}
        self.outcome: Outcome | None = self._judge(self.start, 1)

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def legal_moves(self) -> list[Move]:
        return [] if self.outcome is not None else self.variant.legal_moves(self.position)

    def play(self, move: Move | str) -> Position:
        """Apply ``move``; returns the new position and updates ``outcome``.

        Raises ``InvalidMoveError``/``IllegalMoveError`` (the game is unchanged), or
        ``IllegalMoveError`` if the game is already over.
        """
        if self.outcome is not None:
            raise IllegalMoveError(f"the game is over ({self.outcome.reason})")
        parsed = self.variant.parse_move(move)  # parsed once: the referee plays every ply here
        after = self.variant.apply(self.positions[-1], parsed)
        self.moves.append(parsed)
        self.positions.append(after)
        key = after.repetition_key
        seen = self._seen.get(key, 0) + 1
        self._seen[key] = seen
        self.outcome = self._judge(after, seen)
        return after

    def _judge(self, position: Position, seen: int) -> Outcome | None:
        """The outcome of ``position``, which has now occurred ``seen`` times."""
        ruled = self.variant.outcome(position)
        if ruled is not None:
            return ruled
        if seen >= self.repetitions:
            return self.variant.limit_outcome(position, REPETITION)
        if position.ply >= self.ply_cap:
            return self.variant.limit_outcome(position, PLY_CAP)
        return None


def sorted_moves(tokens: Sequence[str]) -> list[Move]:
    """Deduplicate and sort tokens in ASCII order, as ``legal_moves`` reports them."""
    return [Move(t) for t in sorted(set(tokens))]
