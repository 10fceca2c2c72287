"""Task time limits derived from the time control, and their bound by the visibility timeout."""

from __future__ import annotations

import pytest

from arena.matches import limits, tasks
from arena.matches.limits import match_budget_ms, match_limits
from arena.referee import TimeControl


def test_the_budget_is_three_games_of_both_clocks_plus_overheads() -> None:
    # Bao ply cap 1000: 500 moves a side. Per game: 2 x (2000 + 500 x 100 + grace 50) ms of
    # clocks, 1000 plies x 20 ms referee work, 2 handshakes + 2 quits (2 x 5000 + 2 x 200).
    per_game = 2 * (2000 + 500 * 100 + 50) + 1000 * 20 + 10400
    assert match_budget_ms("bao-la-kete", TimeControl.parse("2+0.1")) == 3 * per_game == 403_500


def test_kingulu_uses_its_own_ply_cap() -> None:
    per_game = 2 * (10_000 + 250 * 100 + 50) + 500 * 20 + 10400
    assert match_budget_ms("bao-kingulu", TimeControl.parse("10+0.1")) == 3 * per_game


def test_a_fixed_move_time_counts_every_ply() -> None:
    per_game = 1000 * (200 + 50) + 1000 * 20 + 10400
    assert match_budget_ms("bao-la-kiswahili", TimeControl.parse("movetime=200")) == 3 * per_game


def test_soft_and_hard_limits_add_the_margins(settings) -> None:
    settings.BAO_MATCH_LEASE_SECONDS = 120
    got = match_limits("bao-la-kete", "2+0.1")
    assert (got.soft, got.hard, got.lease) == (404 + 60, 404 + 90, 120)  # ceil(403.5 s)


def test_the_lease_never_exceeds_the_hard_limit(settings) -> None:
    settings.BAO_MATCH_LEASE_SECONDS = 100_000
    got = match_limits("bao-la-kete", "1+0")
    assert got.lease == got.hard


def test_every_limit_stays_below_the_broker_visibility_timeout(settings) -> None:
    settings.CELERY_BROKER_VISIBILITY_TIMEOUT = 3600
    assert limits.max_task_seconds() == 3180
    assert limits.fits_worker(match_limits("bao-la-kete", "10+0.1"))
    assert not limits.fits_worker(match_limits("bao-la-kete", "600+5"))


def test_the_task_ceiling_is_below_the_visibility_timeout_of_the_settings() -> None:
    from django.conf import settings as live

    assert tasks.TASK_SOFT_LIMIT_S < tasks.TASK_HARD_LIMIT_S < live.CELERY_BROKER_VISIBILITY_TIMEOUT
    assert tasks.run_match.time_limit == tasks.TASK_HARD_LIMIT_S
    assert tasks.run_match.acks_late is True and tasks.run_match.reject_on_worker_lost is True


def test_an_unparseable_time_control_raises() -> None:
    from arena.referee import TimeControlError

    with pytest.raises(TimeControlError):
        match_limits("bao-la-kete", "ten minutes")
