"""Time forfeits per worker (issue 12): a host that loses games on time more often than the
others is overloaded, not unlucky.

Each ``time_forfeit`` game keeps its overrun and the host's load (``Game.time_loss``); the
match keeps the worker that played it (``Match.worker``). ``rates`` gives staff each worker's
time-loss rate over the last ``WINDOW``; ``report_jump`` logs a warning on the worker itself
when its rate stands out (``JUMP_MIN_GAMES`` games at least, ``JUMP_MIN_RATE`` and more than
``JUMP_FACTOR`` times the other workers' rate).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from arena.matches.models import Game
from arena.terminations import TIME_FORFEIT

log = logging.getLogger(__name__)

WINDOW = timedelta(hours=1)
JUMP_MIN_GAMES = 10
JUMP_MIN_RATE = 0.05
JUMP_FACTOR = 2.0


@dataclass(frozen=True)
class WorkerTimeLoss:
    """``games`` finished on ``worker`` in the window, ``forfeits`` of them on time."""

    worker: str
    games: int
    forfeits: int

    @property
    def rate(self) -> float:
        return self.forfeits / self.games if self.games else 0.0


def rates() -> list[WorkerTimeLoss]:
    """Every worker's games and time forfeits over the last ``WINDOW``, worst rate first."""
    rows = (
        Game.objects.filter(finished_at__gte=timezone.now() - WINDOW)
        .exclude(match__worker="")
        .values("match__worker")
        .annotate(games=Count("pk"), forfeits=Count("pk", filter=Q(termination=TIME_FORFEIT)))
    )
    found = [WorkerTimeLoss(r["match__worker"], r["games"], r["forfeits"]) for r in rows]
    return sorted(found, key=lambda w: (-w.rate, w.worker))


def report_jump(worker: str) -> WorkerTimeLoss | None:
    """Log a warning if ``worker``'s time-loss rate stands out (module docstring); returns its
    figures then, else None."""
    everyone = rates()
    mine = next((w for w in everyone if w.worker == worker), None)
    if mine is None or mine.games < JUMP_MIN_GAMES or mine.rate < JUMP_MIN_RATE:
        return None
    others_games = sum(w.games for w in everyone if w.worker != worker)
    others_forfeits = sum(w.forfeits for w in everyone if w.worker != worker)
    others = others_forfeits / others_games if others_games else 0.0
    if mine.rate <= JUMP_FACTOR * others:
        return None
    last = (
        Game.objects.filter(match__worker=worker, termination=TIME_FORFEIT)
        .order_by("-finished_at")
        .values_list("time_loss", flat=True)
        .first()
    )
    log.warning(
        "worker %s: %d of its last %d games lost on time (%.0f%%; other workers %.0f%%); "
        "the last forfeit: %s. Too many match slots for this host's cores?",
        worker,
        mine.forfeits,
        mine.games,
        100 * mine.rate,
        100 * others,
        last,
    )
    return mine
