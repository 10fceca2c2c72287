"""Starting a tournament writes its rounds and matches in bulk and queues them with a wake-up per
worker slot (issue 19): the number of queries and of broker messages does not grow with the
number of rounds or matches, and every match is marked queued."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.matches.models import Match, WorkerNode
from tournaments import services
from tournaments.models import Tournament, UnplayedResult

START = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
#: The queries of starting a round robin besides its matches' bulk insert, whatever its size
#: (12 for 5, 6, 16 or 64 engines, savepoints included; before: one per round and four more per
#: queued match, then one per round).
START_QUERIES = 12
#: Rows of one bulk insert of matches (``matches_create``), where the database allows as many.
INSERT_ROWS = 500


@pytest.fixture
def sent(monkeypatch: Any) -> list[dict[str, Any]]:
    """The run_match messages sent (captured at the broker boundary, never sent)."""
    from arena.matches import tasks

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: calls.append(kw))
    return calls


def _round_robin(n: int, make_version: Any, first: int) -> Tournament:
    names = [f"rr{first + i}" for i in range(n)]
    for name in names:
        make_version(name)
    return services.tournament_create(name=f"rr of {n}", variant="kete", engines=names,
                                      time_control="10+0.1", start_at=START)  # fmt: skip


def _start(t: Tournament, capture: Any) -> int:
    """Start ``t``; returns its queries besides the matches' bulk insert, after checking that
    insert takes a statement per ``INSERT_ROWS`` rows (fewer where the database's limit on
    parameters is lower, as SQLite's)."""
    with CaptureQueriesContext(connection) as queries, capture(execute=True):
        assert services.tournament_start(t.pk, now=START)
    table = Match._meta.db_table
    inserts = [q for q in queries if q["sql"].startswith(f'INSERT INTO "{table}"')]
    matches = Match.objects.filter(tournament=t).count()
    fields = [f for f in Match._meta.concrete_fields if not f.primary_key]
    rows = min(INSERT_ROWS, connection.ops.bulk_batch_size(fields, [None] * matches))
    assert len(inserts) == -(-matches // rows), (matches, rows, len(inserts))
    return len(queries) - len(inserts)


def test_starting_a_round_robin_costs_the_same_queries_for_5_6_or_16_engines(
    make_version: Any, sent: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.BAO_WORKER_SLOTS = 4
    counts = {}
    for n, first in ((5, 0), (6, 100), (16, 200)):
        sent.clear()
        t = _round_robin(n, make_version, first)
        counts[n] = _start(t, django_capture_on_commit_callbacks)
        matches = list(Match.objects.filter(tournament=t).order_by("id"))
        assert len(matches) == n * (n - 1) // 2
        assert all(m.queued_at is not None and m.status == "pending" for m in matches)
        assert [m.round for m in matches] == sorted(m.round for m in matches)
        assert len(sent) == 4  # a wake-up per slot, not per match
    # A round adds no query (its byes in one insert with the others', its number written
    # once), a match none.
    assert counts[5] == counts[6] == counts[16] == START_QUERIES, counts
    assert Tournament.objects.get(name="rr of 5").current_round == 5


def test_an_engine_withdrawn_at_the_start_forfeits_each_of_its_rounds_in_one_insert(
    make_version: Any, sent: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from engines.models import Engine

    t = _round_robin(5, make_version, 0)
    Engine.objects.filter(name="rr0").update(is_enabled=False)
    _start(t, django_capture_on_commit_callbacks)
    forfeits = UnplayedResult.objects.filter(tournament=t, kind=UnplayedResult.Kind.FORFEIT)
    # rr0 (seed 1) meets each of the four others once: a forfeit win for each, in its round.
    assert sorted((f.entry.seed_no, f.opponent.seed_no) for f in forfeits) == [
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 1),
    ]
    assert len({f.round for f in forfeits}) == 4
    assert Match.objects.filter(tournament=t).count() == 6  # the other four's pairings


def test_starting_a_64_engine_round_robin_sends_one_wake_up_per_live_worker_slot(
    make_version: Any,
    sent: Any,
    settings: Any,
    django_assert_max_num_queries: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.BAO_WORKER_SLOTS = 2  # this host's; the live workers' announced slots come first
    for name, slots in (("w1@a", 3), ("w2@b", 5)):
        WorkerNode.objects.create(name=name, slots=slots, cores=2, last_seen=timezone.now(),
                                  started_at=timezone.now())  # fmt: skip
    t = _round_robin(64, make_version, 0)
    # 2,016 matches: five inserts of 500 rows on PostgreSQL (60 on SQLite, 999 parameters).
    fields = [f for f in Match._meta.concrete_fields if not f.primary_key]
    inserts = -(-2016 // min(INSERT_ROWS, connection.ops.bulk_batch_size(fields, [None] * 2016)))
    with (
        django_assert_max_num_queries(START_QUERIES + inserts),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert services.tournament_start(t.pk, now=START)
    matches = Match.objects.filter(tournament=t)
    assert matches.count() == 2016
    assert not matches.filter(queued_at=None).exists()
    assert len(sent) == 3 + 5
    # A batch's wake-ups name no match: the slot claims the dispatcher's pick.
    assert all(kw == {"args": [None], "countdown": None} for kw in sent), sent[:2]
    t.refresh_from_db()
    assert t.current_round == 63


def test_a_start_whose_wake_ups_the_broker_refuses_leaves_its_matches_to_the_requeue_job(
    make_version: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.matches import recovery, tasks

    def refuse(**kw: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.run_match, "apply_async", refuse)
    t = _round_robin(4, make_version, 0)
    _start(t, django_capture_on_commit_callbacks)
    matches = Match.objects.filter(tournament=t)
    assert matches.count() == 6 and not matches.exclude(queued_at=None).exists()
    # After the grace, the job queues all six in one pass once the broker is back.
    matches.update(created_at=timezone.now() - dt.timedelta(seconds=recovery.UNQUEUED_GRACE_S + 1))
    back: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: back.append(kw))
    report = recovery.matches_requeue_stale()
    assert sorted(report.requeued) == sorted(matches.values_list("pk", flat=True))
    assert 1 <= len(back) <= 6
    assert not matches.filter(queued_at=None).exists()
