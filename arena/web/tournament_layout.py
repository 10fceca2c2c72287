"""The big tables of a tournament's page laid out in Python: the crosstable and the matches
of each round, as rows of ready HTML that the template prints one by one.

A 48-engine round robin has 2,304 crosstable cells and 1,128 matches; laying them out with
template tags, includes and filters per cell took 0.6-0.9 s. Each piece here prints what the
template pieces did (``web/_ev.html``, ``web/_status.html``, ``floatformat:"-1"``), every
engine name and stored text escaped (``html.escape``, which Django's ``escape`` calls: the
same text, without its lazy-string wrapper on each of some 8,000 calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from django.template.defaultfilters import floatformat
from django.utils.safestring import SafeString, mark_safe

from engines.models import EngineVersion
from tournaments.selectors import RoundMatch
from tournaments.standings import CrossCell

_SELF = '<td class="self"><span aria-label="itself">&times;</span></td>'
_UNPLAYED = '<td><span class="muted" aria-label="not played">&middot;</span></td>'


class _Points:
    """``floatformat:"-1"`` of each value, worked out once per value (a crosstable of game
    points holds a handful of different values)."""

    def __init__(self) -> None:
        self._seen: dict[float, str] = {}

    def __call__(self, value: float) -> str:
        text = self._seen.get(value)
        if text is None:
            text = self._seen[value] = str(floatformat(value, "-1"))
        return text


def engine_version_html(version: EngineVersion) -> str:
    """``web/_ev.html``: the engine's name linked to its page, and the version number."""
    name = escape(version.engine.name)
    return (
        f'<a class="ev" href="/engines/{name}/">{name}</a>&nbsp;'
        f'<span class="ev-v">v{version.number}</span>'
    )


def crosstable_rows(
    names: Sequence[str], crosstable: Sequence[Sequence[CrossCell | None]]
) -> list[SafeString]:
    """One ``<tr>`` per engine in seed order: its number and name, then its game points
    against each engine (``score``-``opponent score``; a cross against itself, a dot if
    they have not played)."""
    points = _Points()
    rows = []
    for i, (name, row) in enumerate(zip(names, crosstable, strict=True)):
        cells = "".join(
            _SELF if j == i
            else _UNPLAYED if c is None
            else f"<td>{points(c.score)}&ndash;{points(c.opponent_score)}</td>"
            for j, c in enumerate(row)
        )  # fmt: skip
        rows.append(
            mark_safe(f'<tr><th scope="row" class="l">{i + 1}. {escape(name)}</th>{cells}</tr>')
        )
    return rows


def match_rows(matches: Sequence[RoundMatch]) -> list[SafeString]:
    """One ``<tr>`` per match: engine A, the score linked to the match (once it has one),
    engine B (a knockout decider marked), the status, and a replay link per game."""
    points = _Points()
    versions: dict[int, str] = {}
    texts: dict[str, str] = {}  # statuses and game results: a handful of values

    def version(v: EngineVersion) -> str:
        html = versions.get(v.pk)
        if html is None:
            html = versions[v.pk] = engine_version_html(v)
        return html

    def text(value: str) -> str:
        html = texts.get(value)
        if html is None:
            html = texts[value] = escape(value)
        return html

    rows = []
    for m in matches:
        score = ""
        if m.score_a is not None:
            score = (
                f'<a href="/matches/{m.id}/">{points(m.score_a)}&ndash;'
                f"{points(m.score_b) if m.score_b is not None else ''}</a>"
            )
        decider = ' <span class="muted">(decisive game)</span>' if m.best_of == 1 else ""
        status = text(m.status)
        games = ", ".join(
            f'<a href="/games/{g.id}/" aria-label="Replay of game {g.index}: '
            f'{text(g.result)}">g{g.index} {text(g.result)}</a>'
            for g in m.games
        )
        rows.append(mark_safe(
            f'<tr><td class="l">{version(m.engine_a)}</td><td>{score}</td>'
            f'<td class="l">{version(m.engine_b)}{decider}</td><td class="l">'
            f'<span class="badge {status}">{status}</span></td><td class="l">{games}</td></tr>'
        ))  # fmt: skip
    return rows


def rounds_of(
    matches: Sequence[RoundMatch], byes: dict[int, list[str]], forfeits: dict[int, list[Any]]
) -> list[tuple[int | None, dict[str, Any]]]:
    """The page's rounds in order (the matches of no round last): per round its match rows
    (``match_rows``), the names of its byes and its forfeits (``UnplayedResult`` rows).
    ``byes`` and ``forfeits`` are keyed by every round paired so far, so a round with only
    byes or forfeits is listed too."""
    by_round: dict[int | None, list[SafeString]] = {number: [] for number in byes}
    for m, row in zip(matches, match_rows(matches), strict=True):
        by_round.setdefault(m.round, []).append(row)
    ordered = sorted(by_round, key=lambda number: (number is None, number or 0))
    return [
        (number, {
            "rows": by_round[number],
            "byes": byes.get(number, []) if number is not None else [],
            "forfeits": forfeits.get(number, []) if number is not None else [],
        })
        for number in ordered
    ]  # fmt: skip
