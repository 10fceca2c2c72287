"""Starting a tournament writes its matches in bulk and queues them in one pass (issue 19): the
number of queries does not grow with the number of matches, and every match is queued once."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.matches.models import Match
from tournaments import services

START = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


def _start_round_robin(n: int, make_version: Any, capture: Any, first: int) -> tuple[int, Any]:
    names = [f"rr{first + i}" for i in range(n)]
    for name in names:
        make_version(name)
    t = services.tournament_create(name=f"rr of {n}", variant="kete", engines=names,
                                   time_control="10+0.1", start_at=START)  # fmt: skip
    with CaptureQueriesContext(connection) as queries, capture(execute=True):
        assert services.tournament_start(t.pk, now=START)
    return len(queries), t


def test_starting_a_round_robin_costs_the_same_queries_for_6_or_16_engines(
    make_version: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.matches import tasks

    sent: list[int] = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: sent.append(kw["args"][0]))
    small, _ = _start_round_robin(6, make_version, django_capture_on_commit_callbacks, 0)
    sent.clear()
    large, t = _start_round_robin(16, make_version, django_capture_on_commit_callbacks, 100)
    matches = list(Match.objects.filter(tournament=t).order_by("id"))
    assert len(matches) == 16 * 15 // 2
    assert sorted(sent) == [m.pk for m in matches]  # each queued once
    assert all(m.queued_at is not None for m in matches)
    assert [m.round for m in matches] == sorted(m.round for m in matches)
    # A round adds a query or two (its number, byes); matches add none (6 engines: 18
    # queries, 16: 30; one per match and four more per queued match before).
    assert large - small <= 2 * (15 - 5), (small, large)
    assert large <= 40
