"""The fair share's running totals (``arena.matches.usage``): the rollup the triggers keep as
matches end, its prune, and a pick that reads no row of the window."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches import usage
from arena.matches.models import Match, UsageMinute, UsageTotal

pytestmark = pytest.mark.django_db


def _ended(a, b, user, *, ago_s: float, seconds: float, status: str = "finished") -> Match:  # type: ignore[no-untyped-def]
    match = Match.objects.create(
        engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.1", seed=1,
        submitter=user,
    )  # fmt: skip
    end = timezone.now() - timedelta(seconds=ago_s)
    Match.objects.filter(pk=match.pk).update(
        status=status, started_at=end - timedelta(seconds=seconds), finished_at=end
    )
    return match


def test_an_ended_match_adds_its_seconds_to_its_users_minute_and_total(
    greedy, randomer, alice
) -> None:
    _ended(greedy, randomer, alice, ago_s=0, seconds=90)
    _ended(greedy, randomer, None, ago_s=0, seconds=12, status="aborted")
    assert {(m.account, round(m.seconds)) for m in UsageMinute.objects.all()} == {
        (alice.pk, 90),
        (usage.SYSTEM_ACCOUNT, 12),
    }
    assert round(UsageTotal.objects.get(account=alice.pk).seconds) == 90
    used = usage.usage_seconds({alice.pk, None}, timezone.now())
    assert 89.9 < used[alice.pk] < 90.1 and 11.9 < used[None] < 12.1


def test_a_match_that_ends_twice_or_never_started_adds_nothing(greedy, randomer, alice) -> None:
    match = _ended(greedy, randomer, alice, ago_s=0, seconds=30)
    Match.objects.filter(pk=match.pk).update(status="aborted")  # ended already: not again
    never = Match.objects.create(
        engine_a=greedy, engine_b=randomer, variant="bao-la-kete", time_control="2+0.1", seed=1,
        submitter=alice,
    )  # fmt: skip
    Match.objects.filter(pk=never.pk).update(status="aborted", finished_at=timezone.now())
    assert round(UsageTotal.objects.get(account=alice.pk).seconds) == 30


def test_minutes_older_than_the_window_stop_counting_before_and_after_the_prune(
    greedy, randomer, alice, settings
) -> None:
    settings.BAO_FAIR_SHARE_WINDOW_SECONDS = 600
    _ended(greedy, randomer, alice, ago_s=1200, seconds=100)  # ended outside the window
    _ended(greedy, randomer, alice, ago_s=60, seconds=40)
    now = timezone.now()
    assert round(UsageTotal.objects.get(account=alice.pk).seconds) == 140
    assert 39.9 < usage.usage_seconds({alice.pk}, now)[alice.pk] < 40.1  # not pruned yet
    assert usage.usage_prune(now) == 1
    assert round(UsageTotal.objects.get(account=alice.pk).seconds) == 40
    assert UsageMinute.objects.count() == 1
    assert 39.9 < usage.usage_seconds({alice.pk}, now)[alice.pk] < 40.1
    assert usage.usage_prune(now) == 0


def test_the_users_ended_time_is_one_query_whatever_the_window_holds(
    greedy, randomer, alice, bob, django_assert_max_num_queries
) -> None:
    # Two hours of minutes (none at the window's edge): 57 of them in the hour's window.
    for i in (*range(59), *range(62, 120)):
        _ended(greedy, randomer, alice if i % 2 else bob, ago_s=60 * i, seconds=10)
    with django_assert_max_num_queries(1):
        used = usage.ended_seconds({alice.pk, bob.pk, None}, timezone.now())
    assert round(used[alice.pk]) == 290 and round(used[bob.pk]) == 300 and used[None] == 0
