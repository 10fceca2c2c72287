"""The tournament page's crosstable and match rows, laid out in Python
(``arena.web.tournament_layout``), print what the template pieces they replaced printed."""

from __future__ import annotations

import re

from django.template import Context, Template

from arena.web.tournament_layout import crosstable_rows, match_rows
from engines.models import Engine, EngineVersion
from tournaments.selectors import GameRow, RoundMatch
from tournaments.standings import CrossCell

#: The crosstable row and match row of ``web/_tournament_results.html`` before the layout
#: moved to Python: the reference the rows are compared with.
CROSS_ROW = (
    '<tr><th scope="row" class="l">{{ n }}. {{ name }}</th>'
    '{% for is_self, c in cells %}<td{% if is_self %} class="self"{% endif %}>{% if is_self %}'
    '<span aria-label="itself">&times;</span>{% elif c %}{{ c.score|floatformat:"-1" }}&ndash;'
    '{{ c.opponent_score|floatformat:"-1" }}{% else %}<span class="muted" aria-label="not '
    'played">&middot;</span>{% endif %}</td>{% endfor %}</tr>'
)
MATCH_ROW = (
    '<tr><td class="l">{% with ev=m.engine_a %}{% include "web/_ev.html" %}{% endwith %}</td>'
    '<td>{% if m.score_a is not None %}<a href="/matches/{{ m.id }}/">'
    '{{ m.score_a|floatformat:"-1" }}&ndash;{{ m.score_b|floatformat:"-1" }}</a>{% endif %}</td>'
    '<td class="l">{% with ev=m.engine_b %}{% include "web/_ev.html" %}{% endwith %}'
    '{% if m.best_of == 1 %} <span class="muted">(decisive game)</span>{% endif %}</td>'
    '<td class="l">{% include "web/_status.html" with status=m.status %}</td>'
    '<td class="l">{% for g in m.games %}<a href="/games/{{ g.id }}/" aria-label="Replay of '
    'game {{ g.index }}: {{ g.result }}">g{{ g.index }} {{ g.result }}</a>'
    "{% if not forloop.last %}, {% endif %}{% endfor %}</td></tr>"
)


def _squeeze(html: str) -> str:
    """``html`` without the whitespace between tags (the includes end with a newline)."""
    return re.sub(r">\s+<", "><", html.strip())


def _version(pk: int, name: str, number: int) -> EngineVersion:
    return EngineVersion(pk=pk, number=number, engine=Engine(pk=pk, name=name))


def test_a_crosstable_row_prints_points_a_cross_and_dots_as_the_template_did() -> None:
    names = ["alpha v1", "b<e>ta & co v2", "gamma v1"]
    table: list[list[CrossCell | None]] = [
        [None, CrossCell(1.5, 0.5, 1.0, [1]), None],
        [CrossCell(0.5, 1.5, 0.0, [1]), None, CrossCell(2.0, 2.0, 1.0, [2, 3])],
        [None, CrossCell(2.0, 2.0, 1.0, [2, 3]), None],
    ]
    rows = crosstable_rows(names, table)
    reference = Template(CROSS_ROW)
    for i, (name, row) in enumerate(zip(names, table, strict=True)):
        cells = [(j == i, c) for j, c in enumerate(row)]
        want = reference.render(Context({"n": i + 1, "name": name, "cells": cells}))
        assert _squeeze(rows[i]) == _squeeze(want)
    assert "<td>1.5&ndash;0.5</td>" in rows[0] and "<td>2&ndash;2</td>" in rows[1]
    assert "b&lt;e&gt;ta &amp; co v2" in rows[1]


def test_a_match_row_prints_engines_score_status_and_replays_as_the_template_did() -> None:
    a, b = _version(1, "alpha", 2), _version(2, "be<ta", 1)
    games = (GameRow(11, 1, 1, "1-0"), GameRow(12, 2, 2, "1/2-1/2"), GameRow(13, 3, 1, "0-1"))
    matches = [
        RoundMatch(5, 1, a, b, 3, "finished", 1.5, 1.5, None, games, 1, 2),
        RoundMatch(6, 1, b, a, 3, "pending", None, None, None, (), 2, 1),
        RoundMatch(7, 2, a, b, 1, "finished", 1.0, 0.0, 1, (GameRow(14, 1, 1, "1-0"),), 1, 2),
        RoundMatch(8, 2, b, a, 3, "running", 0.5, None, None, (), 2, 1),
    ]
    rows = match_rows(matches)
    reference = Template(MATCH_ROW)
    for m, row in zip(matches, rows, strict=True):
        assert _squeeze(row) == _squeeze(reference.render(Context({"m": m})))
    assert '<a href="/matches/5/">1.5&ndash;1.5</a>' in rows[0]
    assert 'aria-label="Replay of game 2: 1/2-1/2">g2 1/2-1/2</a>, ' in rows[0]
    assert '<a class="ev" href="/engines/be&lt;ta/">be&lt;ta</a>' in rows[1]
    assert "(decisive game)" in rows[2] and "(decisive game)" not in rows[0]
    assert '<span class="badge pending">pending</span>' in rows[1]
