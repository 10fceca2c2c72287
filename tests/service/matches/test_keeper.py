"""The worker link (issue 29): one thread and connection per worker process keeps the leases
of all its matches in one query per poll, logs an outage once with its counts, and a match
that ends by its own record is not a lost lease (issue 30)."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from arena.matches import keeper as keeper_module
from arena.matches.keeper import LeaseKeeper, worker_link
from arena.matches.leases import match_claim
from arena.matches.models import Match
from arena.referee import MatchControl


def _claimed(a, b, n: int):  # type: ignore[no-untyped-def]
    claims = []
    for seed in range(n):
        match = Match.objects.create(
            engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.1", seed=seed
        )
        claim = match_claim(match.pk, lease_seconds=30)
        assert claim is not None
        claims.append(claim)
    return claims


def _wait(predicate, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.django_db(transaction=True)
def test_one_thread_keeps_every_lease_of_the_process_in_two_queries_a_poll(
    greedy, randomer
) -> None:
    claims = _claimed(greedy, randomer, 8)
    Match.objects.update(lease_expires_at=timezone.now() + timedelta(seconds=1))
    controls = [MatchControl() for _ in claims]
    keepers = [
        LeaseKeeper(c, control, poll_s=0.05, renew_s=0.05)
        for c, control in zip(claims, controls, strict=True)
    ]
    link = worker_link()
    for k in keepers:
        k.start()
    ticks, queries = link.ticks, link.queries
    try:
        deadline = time.monotonic() + 10
        while link.ticks < ticks + 10 and time.monotonic() < deadline:
            for control in controls:
                control.check()  # every referee loop is alive
            time.sleep(0.01)
    finally:
        for k in keepers:
            k.stop()
    ticks, queries = link.ticks - ticks, link.queries - queries
    # Eight matches of one lease length, renewed every poll: one look, one renewal and one
    # clock beat per poll (three queries), not eight of each.
    assert ticks >= 10 and queries <= 3 * ticks + 3
    assert all(k.renewals >= 3 and not k.lost for k in keepers)
    soon = timezone.now() + timedelta(seconds=20)
    assert Match.objects.filter(lease_expires_at__gt=soon).count() == 8
    assert worker_link() is link  # one link per process


@pytest.mark.django_db(transaction=True)
def test_a_match_finished_by_its_record_is_not_a_lost_lease(greedy, randomer, caplog) -> None:
    (claim,) = _claimed(greedy, randomer, 1)
    control = MatchControl()
    keeper = LeaseKeeper(claim, control, poll_s=0.02)
    keeper.start()
    try:
        keeper.finishing()
        Match.objects.filter(pk=claim.match_id).update(status=Match.Status.FINISHED)
        ticks = worker_link().ticks
        _wait(lambda: worker_link().ticks >= ticks + 3)
    finally:
        keeper.stop()
    assert keeper.lost is False and not control.stopped
    assert "lease lost" not in caplog.text


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_poll_that_renews_every_lease_is_one_statement(greedy, randomer) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the one-statement tick is PostgreSQL's (data-modifying CTEs)")
    claims = _claimed(greedy, randomer, 4)
    Match.objects.update(lease_expires_at=timezone.now() + timedelta(seconds=1))
    controls = [MatchControl() for _ in claims]
    keepers = [
        LeaseKeeper(c, ctl, poll_s=0.05, renew_s=0.05)
        for c, ctl in zip(claims, controls, strict=True)
    ]
    link = worker_link()
    for k in keepers:
        k.start()
    ticks, queries = link.ticks, link.queries
    try:
        deadline = time.monotonic() + 10
        while link.ticks < ticks + 10 and time.monotonic() < deadline:
            for control in controls:
                control.check()
            time.sleep(0.01)
    finally:
        for k in keepers:
            k.stop()
    ticks, queries = link.ticks - ticks, link.queries - queries
    # Renewals, the clock's beat and the look at all four matches: one statement a poll (one
    # more at most for the first beat after the clock row went quiet).
    assert ticks >= 10 and queries <= ticks + 2
    assert all(k.renewals >= 3 and not k.lost for k in keepers)
    soon = timezone.now() + timedelta(seconds=20)
    assert all(
        m.lease_expires_at is not None and m.lease_expires_at > soon
        for m in Match.objects.filter(pk__in=[c.match_id for c in claims])
    )


@pytest.mark.django_db(transaction=True)
def test_an_outage_is_logged_once_with_its_counts_and_the_lease_renewed_after(
    greedy, randomer, caplog, monkeypatch
) -> None:
    (claim,) = _claimed(greedy, randomer, 1)
    held = keeper_module.match_leases_tick
    failures = {"left": 20}

    def flaky(*args, **kwargs):  # type: ignore[no-untyped-def]
        if failures["left"] > 0:
            failures["left"] -= 1
            raise OperationalError("the database did not answer within 5 s")
        return held(*args, **kwargs)

    monkeypatch.setattr(keeper_module, "match_leases_tick", flaky)
    Match.objects.filter(pk=claim.match_id).update(lease_expires_at=timezone.now())
    control = MatchControl()
    keeper = LeaseKeeper(claim, control, poll_s=0.02, renew_s=0.02)
    caplog.set_level(logging.WARNING, logger="arena.matches.keeper")
    keeper.start()
    try:
        _wait(lambda: failures["left"] == 0 and keeper.renewals >= 1)
    finally:
        keeper.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "arena.matches.keeper"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("database unavailable (the database did not answer")
    assert lines[1].startswith("database unavailable for ") and "20 queries failed" in lines[1]
    assert keeper.lost is False
    expires = Match.objects.get(pk=claim.match_id).lease_expires_at
    assert expires is not None and expires > timezone.now() + timedelta(seconds=20)
