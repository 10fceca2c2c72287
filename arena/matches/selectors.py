"""Reads of the matches app: match lists and details, replays, who may see engine errors, the
queue (positions, running matches, slots)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet, Sum
from django.utils import timezone

from arena.matches.dispatch import queue_order
from arena.matches.models import Game, LiveGame, Match, WorkerNode

_VERSION_FIELDS = (
    "engine_a__engine",
    "engine_b__engine",
    "winner__engine",
)


#: Columns of the joined engine versions that no match list shows (a JSON decode each).
_VERSION_UNSHOWN = ("variants", "failed_variants", "rejection_log", "rejection_reason")


def match_list() -> QuerySet[Match]:
    """Every match, newest first (the ``match_created_idx`` order), with its engines joined
    (filters are applied by the view)."""
    unshown = [
        f"{side}__{column}"
        for side in ("engine_a", "engine_b", "winner")
        for column in _VERSION_UNSHOWN
    ]
    return (
        Match.objects.select_related(*_VERSION_FIELDS, "tournament")
        .defer(*unshown)
        .order_by("-created_at", "-id")
    )


def match_detail_queryset() -> QuerySet[Match]:
    """Matches with their games (without the move lists, which only the replay needs)."""
    games = Game.objects.select_related("south__engine", "north__engine", "winner__engine").defer(
        "moves", "engine_errors"
    )
    return match_list().prefetch_related(Prefetch("games", queryset=games.order_by("index")))


def game_summaries() -> QuerySet[Game]:
    """Games in index order with only what a list of matches shows (id, match, index, result,
    termination): to prefetch as ``Prefetch("games", queryset=game_summaries())`` where the
    move lists, which only a replay needs, would be decoded for nothing."""
    return Game.objects.only("id", "match_id", "index", "result", "termination").order_by("index")


def game_queryset() -> QuerySet[Game]:
    """Games with everything a replay shows."""
    return Game.objects.select_related(
        "match", "match__tournament", "south__engine", "north__engine", "winner__engine"
    )


def game_visible_engine_errors(
    game: Game, user: AbstractBaseUser | AnonymousUser | None
) -> dict[str, Any]:
    """The stderr tails of ``game`` the user may read: an engine's own errors are shown to its
    owner (and to staff) only, since stderr can reveal an engine's internals; others get ``{}``
    for that side. Shape ``{"south": "<text>", "north": "<text>"}`` (sides without errors
    omitted)."""
    errors: dict[str, Any] = game.engine_errors or {}
    if user is None or not user.is_authenticated:
        return {}
    if getattr(user, "is_staff", False):
        return dict(errors)
    owners = {"south": game.south.engine.owner_id, "north": game.north.engine.owner_id}
    return {side: text for side, text in errors.items() if owners.get(side) == user.pk}


def live_game_queryset() -> QuerySet[LiveGame]:
    """Live games with their match and engines joined."""
    return LiveGame.objects.select_related("match", "south__engine", "north__engine")


def live_games_running() -> QuerySet[LiveGame]:
    """The games being played now: running live rows of running matches (a row left
    ``running`` by a worker that died belongs to a match that is no longer ``running``, or
    is reset when the match is played again), newest first."""
    return live_game_queryset().filter(
        status=LiveGame.Status.RUNNING, match__status=Match.Status.RUNNING
    )


def live_game_replay_id(live: LiveGame) -> int | None:
    """The id of the stored replay of a live game, once its match is recorded, else None."""
    return (
        Game.objects.filter(match_id=live.match_id, index=live.index)
        .values_list("pk", flat=True)
        .first()
    )


#: A worker whose presence row is older than this is taken for dead (three missed updates).
WORKER_STALE_S = 30
#: Pending matches listed by the queue view (the count gives the rest).
QUEUE_LISTED = 50


def queue_position(match: Match) -> int | None:
    """1 for the match a free slot would take next, 2 after it...; None if it does not wait
    (``dispatch.queue_order``: an estimate, shares change as matches run)."""
    if match.status != Match.Status.PENDING:
        return None
    for entry in queue_order():
        if entry.match_id == match.pk:
            return entry.position
    return None  # held back for a retry, or out of attempts


def live_slots(now: datetime | None = None) -> int:
    """The match slots of the workers seen in the last ``WORKER_STALE_S`` seconds (0: none)."""
    now = now or timezone.now()
    live = WorkerNode.objects.filter(last_seen__gte=now - timedelta(seconds=WORKER_STALE_S))
    return int(live.aggregate(total=Sum("slots"))["total"] or 0)


def queue_snapshot() -> dict[str, Any]:
    """What the dispatcher sees: live workers and their slots, the matches running (on which
    worker, since when) and the first ``QUEUE_LISTED`` waiting matches with their positions.
    Shape: ``{"slots": {"total", "busy", "workers": [{"name", "slots", "busy", "cores",
    "last_seen"}]}, "running": [...], "pending": [...], "pending_count"}``."""
    now = timezone.now()
    live = list(WorkerNode.objects.filter(last_seen__gte=now - timedelta(seconds=WORKER_STALE_S)))
    running = list(
        Match.objects.filter(status=Match.Status.RUNNING)
        .order_by("started_at", "pk")
        .values(
            "pk",
            "worker",
            "priority",
            "submitter_id",
            "started_at",
            "lease_expires_at",
            "variant",
            "time_control",
        )
    )
    busy: dict[str, int] = {}
    for row in running:
        busy[row["worker"]] = busy.get(row["worker"], 0) + 1
    order = queue_order(now)
    return {
        "slots": {
            "total": sum(w.slots for w in live),
            "busy": sum(busy.get(w.name, 0) for w in live),
            "workers": [
                {
                    "name": w.name,
                    "slots": w.slots,
                    "busy": busy.get(w.name, 0),
                    "cores": w.cores,
                    "last_seen": w.last_seen,
                }
                for w in live
            ],
        },
        "running": [
            {
                "match": r["pk"],
                "worker": r["worker"],
                "class": Match.Priority(r["priority"]).label,
                "submitter": r["submitter_id"],
                "variant": r["variant"],
                "time_control": r["time_control"],
                "started_at": r["started_at"],
                "lease_expires_at": r["lease_expires_at"],
            }
            for r in running
        ],
        "pending": [
            {
                "match": e.match_id,
                "position": e.position,
                "class": Match.Priority(e.priority).label,
                "submitter": e.submitter_id,
            }
            for e in order[:QUEUE_LISTED]
        ],
        "pending_count": len(order),
    }
