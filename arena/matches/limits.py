"""How long a match may take on a worker: the task time limits and the lease.

A match is at most three games; in each, each side thinks at most ``base`` plus one
``increment`` per own move, and a side makes at most ``ceil(ply_cap / 2)`` moves (rules 9.1:
ply cap 1000 in Bao, 500 in Kingulu). So the clocks bound a match by
``3 x 2 x (base + ceil(ply_cap/2) x increment)``, plus per-game start-up (handshake, readiness)
and per-ply referee work (rules, pipes, the liveness ping). A task past its soft limit raises
``SoftTimeLimitExceeded`` (the match is retried or aborted); the hard limit kills the worker
child. Both must stay below the broker's visibility timeout, or the broker would hand the same
message to a second worker while the first is still legitimately playing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.conf import settings

from arena.referee import GAMES, RefereeConfig, TimeControl
from arena.rules import get_variant

#: Referee work per ply not charged to a clock (rules engine, pipe latency, isready/readyok).
PER_PLY_OVERHEAD_MS = 20
#: Start and stop of one game: two handshakes and two quits (RefereeConfig defaults).
PER_GAME_OVERHEAD_MS = 2 * RefereeConfig.handshake_timeout_ms + 2 * RefereeConfig.quit_timeout_ms
#: Fixed slack for loading packages, writing the record, process scheduling.
MARGIN_S = 60
#: Between the soft limit (exception in the task) and the hard limit (child killed).
HARD_AFTER_SOFT_S = 30


@dataclass(frozen=True)
class MatchLimits:
    """Seconds: ``soft`` and ``hard`` task time limits, and ``lease`` (how long a claim lasts
    without renewal; the heartbeat renews it every ``lease / 3``)."""

    soft: int
    hard: int
    lease: int


def match_budget_ms(variant: str, time_control: TimeControl, ply_cap: int | None = None) -> int:
    """Upper bound in ms of the time a best-of-three match can take (module docstring).

    ``ply_cap`` None means the variant's default. Raises ``UnknownVariantError``.
    """
    cap = ply_cap if ply_cap is not None else get_variant(variant).default_ply_cap
    moves_per_side = math.ceil(cap / 2)
    if time_control.movetime_ms is not None:
        clocks = cap * (time_control.movetime_ms + RefereeConfig.grace_ms)
    else:
        per_side = time_control.base_ms + moves_per_side * time_control.increment_ms
        clocks = 2 * (per_side + RefereeConfig.grace_ms)
    per_game = clocks + cap * PER_PLY_OVERHEAD_MS + PER_GAME_OVERHEAD_MS
    return GAMES * per_game


def match_limits(variant: str, time_control: TimeControl | str) -> MatchLimits:
    """The task limits and lease for one match. Raises ``TimeControlError``/``UnknownVariantError``.

    The lease is ``settings.BAO_MATCH_LEASE_SECONDS`` (a dead worker's match is reclaimed that
    long after its last heartbeat), never longer than the hard limit.
    """
    tc = TimeControl.parse(time_control) if isinstance(time_control, str) else time_control
    soft = math.ceil(match_budget_ms(variant, tc) / 1000) + MARGIN_S
    hard = soft + HARD_AFTER_SOFT_S
    lease = min(int(settings.BAO_MATCH_LEASE_SECONDS), hard)
    return MatchLimits(soft=soft, hard=hard, lease=lease)


def max_task_seconds() -> int:
    """The longest hard limit a match task may have: below the visibility timeout, so a
    message is never redelivered while its task may still be running (10% + 60 s headroom)."""
    visibility = int(settings.CELERY_BROKER_VISIBILITY_TIMEOUT)
    return int(visibility * 0.9) - 60


def longest_clock_ms(variant: str, time_control: TimeControl) -> int:
    """The largest base (Fischer clock, with this increment) or movetime (``go movetime``), in
    ms, whose match still fits a worker (``fits_worker``); negative if none does. For the
    message of a refused time control. Raises ``UnknownVariantError``."""
    cap = get_variant(variant).default_ply_cap
    budget_ms = (max_task_seconds() - HARD_AFTER_SOFT_S - MARGIN_S) * 1000
    per_game = budget_ms // GAMES - cap * PER_PLY_OVERHEAD_MS - PER_GAME_OVERHEAD_MS
    if time_control.movetime_ms is not None:
        return per_game // cap - RefereeConfig.grace_ms
    return per_game // 2 - RefereeConfig.grace_ms - math.ceil(cap / 2) * time_control.increment_ms


def fits_worker(limits: MatchLimits) -> bool:
    """Whether a match with these limits can run without the broker redelivering it."""
    return limits.hard <= max_task_seconds()
