"""What a replay adds to the stored moves: the sowing trace of each move.

The trace comes from the rules engine (``Variant.trace``, ``arena.rules.trace``), replayed from
the stored position text before each move, so the browser animates a move without knowing a
rule. Stored games are immutable, so a trace is a pure function of the stored text: what a
replay shows of a stored game is computed once and kept in the cache
(``arena.matches.selectors.replay_cached``; 300 plies cost about 70 ms to trace, issue 32).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.rules import RulesError, get_variant


def move_traces(
    variant: str, start_position: str, moves: Sequence[dict[str, Any]], since: int = 0
) -> list[dict[str, Any] | None]:
    """The ``SowingTrace.to_dict()`` of each of ``moves[since:]`` (one per ply, in order).

    ``moves`` have the shape of ``Game.moves`` (``position`` is the text after the move). A
    move that cannot be traced from the stored text (a record aborted by a referee error, text
    no variant parses) gets None instead of failing the whole replay. Raises
    ``UnknownVariantError`` for an unknown ``variant``.
    """
    v = get_variant(variant)
    before = start_position if since == 0 else str(moves[since - 1].get("position", ""))
    traces: list[dict[str, Any] | None] = []
    for move in moves[since:]:
        try:
            traces.append(v.trace(v.parse_position(before), str(move.get("move", ""))).to_dict())
        except RulesError:
            traces.append(None)
        before = str(move.get("position", ""))
    return traces


def moves_with_traces(
    variant: str, start_position: str, moves: Sequence[dict[str, Any]], since: int = 0
) -> list[dict[str, Any]]:
    """``moves[since:]``, each with its ``trace`` added (``move_traces``)."""
    traces = move_traces(variant, start_position, moves, since)
    return [{**move, "trace": trace} for move, trace in zip(moves[since:], traces, strict=True)]
