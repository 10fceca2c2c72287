"""A game as a text record (``GET /api/games/{id}/record.txt``), in the manner of PGN.

Layout: a block of tag pairs (``[Name "value"]``, one per line, values with ``\\`` and ``"``
escaped), a blank line, the numbered move list in the notation of ``docs/rules/README.md``
section 6 (``1. f2- e3+ 2. ...``, wrapped at 79 columns, ending with the result), a blank line and
the final position (BPN/KPN, rules 7) on a line of its own after ``Final position:``.
"""

from __future__ import annotations

from typing import Any

from arena.matches.models import Game

LINE_WIDTH = 79


def _tag(name: str, value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _tags(game: Game) -> list[str]:
    match = game.match
    if match.tournament is not None:
        event = match.tournament.name
    else:
        event = "Bao Arena challenge" if match.challenger_id else "Bao Arena match"
    date = (game.started_at or game.finished_at).strftime("%Y.%m.%d")
    tags = [
        _tag("Event", event),
        _tag("Site", "Bao Arena"),
        _tag("Date", date),
        _tag("Round", match.round if match.round is not None else "-"),
        _tag("Match", match.pk),
        _tag("Game", game.index),
        _tag("Variant", match.variant),
        _tag("South", game.south),
        _tag("North", game.north),
        _tag("Result", game.result),
        _tag("Termination", game.termination),
        _tag("TimeControl", match.time_control),
        _tag("Seed", match.seed),
        _tag("Rated", "yes" if game.rated else "no"),
        _tag("Plies", game.plies),
        _tag("StartPosition", game.start_position),
    ]
    if game.scores is not None:
        tags.append(_tag("Scores", "-".join(str(s) for s in game.scores)))
    if game.seeds_in_hand:
        tags.append(_tag("SeedsInHand", game.seeds_in_hand))
    if game.detail:
        tags.append(_tag("Detail", game.detail))
    return tags


def move_number(move: dict[str, Any], previous_side: str | None) -> str:
    """The label printed before ``move`` (a stored move: ``ply``, ``side``): ``"3."`` before a
    South move, ``"3..."`` before a North move that does not follow a South move, else ``""``.
    Moves are numbered in pairs, South's first (ply 5 and 6 are move 3). The web replay uses
    the same labels."""
    number = (int(move["ply"]) + 1) // 2
    if move["side"] == "S":
        return f"{number}."
    return f"{number}..." if previous_side != "S" else ""


def move_tokens(moves: list[dict[str, Any]]) -> list[str]:
    """``["1.", "f2-", "e3+", "2.", ...]``: a number before each South move, and ``"1..."`` style
    before a North move that does not follow a South move (a record starting with North)."""
    tokens: list[str] = []
    previous_side = None
    for move in moves:
        label = move_number(move, previous_side)
        if label:
            tokens.append(label)
        tokens.append(str(move["move"]))
        previous_side = move["side"]
    return tokens


def _wrap(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for token in tokens:
        candidate = f"{current} {token}" if current else token
        if len(candidate) > LINE_WIDTH and current:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def game_record_text(game: Game) -> str:
    """The text record of ``game`` (module docstring); ends with a newline."""
    movetext = _wrap([*move_tokens(list(game.moves or [])), game.result])
    parts = [*_tags(game), "", *movetext, "", f"Final position: {game.final_position}"]
    return "\n".join(parts) + "\n"
