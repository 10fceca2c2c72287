"""The legal moves of a position as the board needs them: each token (rules 4) with its pit,
its direction and its nyumba choice. Pure: ``arena.rules`` only."""

from __future__ import annotations

from dataclasses import dataclass

from arena.rules import Position, Variant

#: The nyumba choice of a token's last character (rules 4.1): ``s`` stop, ``c`` continue.
CHOICES = {"s": "stop", "c": "continue"}
#: Direction characters (rules 4.1): ``+`` clockwise, ``-`` anticlockwise.
DIRECTIONS = {"+": "clockwise", "-": "anticlockwise"}


@dataclass(frozen=True)
class LegalMove:
    """One legal move: ``move`` the token, ``pit`` its square (``"f2"``), ``direction``
    ``"+"``/``"-"`` (None in Bao Kingulu, always anticlockwise), ``choice`` ``"s"``/``"c"``
    at a functional nyumba (None where the move has no choice)."""

    move: str
    pit: str
    direction: str | None
    choice: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "move": self.move,
            "pit": self.pit,
            "direction": self.direction,
            "choice": self.choice,
        }


def split_token(token: str) -> LegalMove:
    """A token's parts (``"c2+s"`` -> pit ``c2``, direction ``+``, choice ``s``); the token
    is one the rules engine generated, so its shape is rules 4.1 or 4.2."""
    pit, rest = token[:2], token[2:]
    direction = rest[:1] or None
    choice = rest[1:2] or None
    return LegalMove(move=token, pit=pit, direction=direction, choice=choice)


def legal_moves(variant: Variant, position: Position) -> list[LegalMove]:
    """Every legal move of ``position`` in ASCII order of the tokens (``Variant.legal_moves``)."""
    return [split_token(str(m)) for m in variant.legal_moves(position)]
