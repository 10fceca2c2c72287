"""Reads of the matches app: match lists and details, replays, who may see engine errors, the
queue (positions, running matches, slots)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db import connections
from django.db.models import (
    Count,
    IntegerField,
    Model,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce
from django.db.models.query import ModelIterable
from django.utils import timezone

from arena.matches.dispatch import WORKER_STALE_S, queue_order
from arena.matches.models import Game, LiveEvent, LiveGame, Match, WorkerNode
from engines.selectors import engine_version_ids

DRAW = "1/2-1/2"

#: Columns of the engine versions that no match list shows (a JSON decode each).
_VERSION_UNSHOWN = ("variants", "failed_variants", "rejection_log", "rejection_reason")


def attach_versions(matches: list[Match]) -> None:
    """Set ``engine_a``, ``engine_b`` and ``winner`` of each of ``matches`` to its engine
    version, with its engine, read in one query for all of them."""
    from engines.models import EngineVersion

    ids = {v for m in matches for v in (m.engine_a_id, m.engine_b_id, m.winner_id) if v}
    if not ids:
        return
    versions = EngineVersion.objects.select_related("engine").defer(*_VERSION_UNSHOWN).in_bulk(ids)
    for m in matches:
        m.engine_a = versions[m.engine_a_id]
        m.engine_b = versions[m.engine_b_id]
        m.winner = None if m.winner_id is None else versions[m.winner_id]


class _MatchesWithVersions(ModelIterable[Match]):
    """Matches as a queryset yields them, with ``attach_versions`` done on each batch read.

    Joining the three versions and their engines into the match query made an 8-table join
    whose planning cost PostgreSQL 5-15 ms a list, several times what running it did; the
    versions of a page are instead read by id in a second query (about 40 ms -> 12 ms for a
    page of 50 at a load of 6, in one run)."""

    def __iter__(self) -> Iterator[Match]:
        matches = list(super().__iter__())
        attach_versions(matches)
        yield from matches


def match_list() -> QuerySet[Match]:
    """Every match, newest first (the ``match_created_idx`` order), its tournament joined and
    its engine versions (with their engines) attached when it is read (``attach_versions``:
    one more query); filters are applied by the view."""
    qs = Match.objects.select_related("tournament").order_by("-created_at", "-id")
    # The iterable class is how a queryset turns rows into objects; it is kept by every
    # filter, slice and clone (``values()`` replaces it with its own).
    qs._iterable_class = _MatchesWithVersions
    return qs


class _MatchesWithGames(_MatchesWithVersions):
    """Matches with their versions attached (``_MatchesWithVersions``) and their games
    prefetched in index order, without the move lists, each game's South, North and winner
    set to the match's own engine versions.

    Joining the three versions and their engines into the games query made a 7-table join;
    a game is played between its match's two versions, which are already read."""

    def __iter__(self) -> Iterator[Match]:
        from engines.models import EngineVersion

        matches = list(super().__iter__())
        games = Game.objects.defer("moves", "engine_errors").order_by("index")
        prefetch_related_objects(matches, Prefetch("games", queryset=games))
        versions = {v.pk: v for m in matches for v in (m.engine_a, m.engine_b)}
        played = [g for m in matches for g in m.games.all()]
        others = {v for g in played for v in (g.south_id, g.north_id, g.winner_id) if v}
        if others - versions.keys():  # never for a game its match recorded
            versions.update(
                EngineVersion.objects.select_related("engine")
                .defer(*_VERSION_UNSHOWN)
                .in_bulk(others - versions.keys())
            )
        for g in played:
            g.south = versions[g.south_id]
            g.north = versions[g.north_id]
            g.winner = None if g.winner_id is None else versions[g.winner_id]
        yield from matches


def match_detail_queryset() -> QuerySet[Match]:
    """Matches with their games (without the move lists, which only the replay needs), the
    games' engine versions those of the match (``_MatchesWithGames``): three queries."""
    qs = match_list()
    qs._iterable_class = _MatchesWithGames
    return qs


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


#: The most games one page of the export holds (``GET /api/games/export/``), and its default.
EXPORT_MAX_GAMES = 10_000


@dataclass(frozen=True)
class ExportQuery:
    """What an export page asks for: games of ``engine`` (a name, any case, either side),
    ``tournament``, version ``test`` (ids) and ``variant`` (an id), each None for any; with an
    id above ``since``; at most ``limit``."""

    engine: str | None = None
    tournament: int | None = None
    test: int | None = None
    variant: str | None = None
    since: int = 0
    limit: int = EXPORT_MAX_GAMES


def games_export_ids(query: ExportQuery) -> tuple[list[int], bool]:
    """The ids of the page's games in id order, and whether more games follow it. One query
    on ids alone (``limit`` + 1 of them), so the page's size is known before any game is read.
    ``test`` follows the reverse relation that version tests declare on the match
    (``VersionTestPair.match``, related name ``version_test_pair``): a lookup by name, not an
    import of the app above this one."""
    games = Game.objects.filter(id__gt=query.since)
    if query.tournament is not None:
        games = games.filter(match__tournament_id=query.tournament)
    if query.test is not None:
        games = games.filter(match__version_test_pair__test_id=query.test)
    if query.variant is not None:
        games = games.filter(match__variant=query.variant)
    sides = [games]
    if query.engine is not None:
        # Each side alone (its side's index), merged here: what is read follows the engine's
        # own games, not every game above ``since`` (issue 32).
        versions = engine_version_ids(query.engine)
        sides = [games.filter(south_id__in=versions), games.filter(north_id__in=versions)]
    found: set[int] = set()
    for side in sides:
        found.update(side.order_by("id").values_list("id", flat=True)[: query.limit + 1])
    ids = sorted(found)[: query.limit + 1]
    return ids[: query.limit], len(ids) > query.limit


def games_by_ids(ids: list[int], chunk: int = 200) -> Iterator[Game]:
    """The games of ``ids`` (in that order) with what a replay shows, read ``chunk`` at a time
    so that a page of 10 000 games is never held in memory at once."""
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        by_id = game_queryset().in_bulk(part)
        for game_id in part:
            game = by_id.get(game_id)
            if game is not None:
                yield game


#: How long the cache keeps what a replay shows of a stored game, seconds (it never changes;
#: the bound only lets the cache forget games nobody replays).
REPLAY_CACHE_SECONDS = 7 * 24 * 3600

_T = TypeVar("_T")
_M = TypeVar("_M", bound=Model)


def replay_cached(game: Game, part: str, build: Callable[[], _T]) -> _T:
    """``build()``, kept in the cache under ``part`` (``"api-moves"``, ``"page-data"``) for the
    stored game ``game`` for ``REPLAY_CACHE_SECONDS``. The key names the game's
    id, match, plies and finish time, so a row that reused an id (a test database rolled
    back) is never served another game's replay. ``build`` must return a value the cache can
    pickle."""
    finished = game.finished_at.timestamp()
    key = f"replay:v1:{part}:{game.pk}:{game.match_id}:{game.plies}:{finished}"
    value: _T | None = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, REPLAY_CACHE_SECONDS)
    return value


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


def _live_move_events(live: LiveGame | None) -> QuerySet[LiveEvent]:
    """The ``move`` events of ``live`` (its match and index from ``first_seq`` on), or with
    None those of the outer query's live row (a subquery)."""
    if live is None:
        return LiveEvent.objects.filter(
            match_id=OuterRef("match_id"),
            index=OuterRef("index"),
            seq__gte=OuterRef("first_seq"),
            kind=LiveEvent.Kind.MOVE,
        )
    return LiveEvent.objects.filter(
        match_id=live.match_id, index=live.index, seq__gte=live.first_seq, kind=LiveEvent.Kind.MOVE
    )


def live_game_queryset() -> QuerySet[LiveGame]:
    """Live games with their match and engines joined, and ``plies``: how many moves were
    published (a count over its events, one subquery per row)."""
    plies = (
        _live_move_events(None).order_by().values("match_id").annotate(n=Count("pk")).values("n")
    )
    return LiveGame.objects.select_related("match", "south__engine", "north__engine").annotate(
        plies=Coalesce(Subquery(plies, output_field=IntegerField()), 0)
    )


def live_game_next(live: LiveGame) -> LiveGame | None:
    """What a viewer of ``live`` should watch once it is over: the next game of its match
    being played, else (its match over) a running game of another match of its tournament,
    oldest first; None when there is neither."""
    running = live_games_running().order_by("index", "started_at", "id")
    later = running.filter(match_id=live.match_id, index__gt=live.index).first()
    if later is not None or live.match.tournament_id is None:
        return later
    return (
        running.filter(match__tournament_id=live.match.tournament_id)
        .exclude(match_id=live.match_id)
        .order_by("started_at", "id")
        .first()
    )


def live_games_running_with_clocks() -> QuerySet[LiveGame]:
    """``live_games_running`` with ``clock``: the payload of each game's last ``clock`` event
    (``{"S", "N", "side", "at"}``, ms; None before its first)."""
    last_clock = (
        LiveEvent.objects.filter(
            match_id=OuterRef("match_id"),
            index=OuterRef("index"),
            seq__gte=OuterRef("first_seq"),
            kind=LiveEvent.Kind.CLOCK,
        )
        .order_by("-seq")
        .values("payload")[:1]
    )
    return live_games_running().annotate(clock=Subquery(last_clock))


def live_game_for_stream(pk: int) -> LiveGame | None:
    """The live game ``pk`` with its match (an event stream needs no more), or None."""
    return LiveGame.objects.select_related("match").filter(pk=pk).first()


def live_moves(live: LiveGame) -> list[dict[str, Any]]:
    """The moves of a live game so far, in the ``Game.moves`` shape without ``ignored``."""
    return [
        dict(p) for p in _live_move_events(live).order_by("seq").values_list("payload", flat=True)
    ]


def live_stream_first_seq(live: LiveGame, last_event_id: int | None) -> int:
    """Where the event stream of ``live`` starts (``GET /api/live/{id}/events``): its own
    ``game`` event (``first_seq``) for a new viewer; for one resuming after ``last_event_id``
    (the ``Last-Event-ID`` of its last event, of this game or a later game of the match),
    the ``game`` event of the game that event belongs to, so the moves before it are at hand
    to trace the next (the stream sends only the events after ``last_event_id``)."""
    if last_event_id is None or last_event_id < live.first_seq:
        return live.first_seq
    game = (
        LiveEvent.objects.filter(
            match_id=live.match_id, kind=LiveEvent.Kind.GAME, seq__lte=last_event_id
        )
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    return max(live.first_seq, game or 0)


def live_events_from(match_id: int, first_seq: int, limit: int = 10_000) -> list[LiveEvent]:
    """The events of a match from ``first_seq`` on, in order (at most ``limit``)."""
    return list(
        LiveEvent.objects.filter(match_id=match_id, seq__gte=first_seq).order_by("seq")[:limit]
    )


#: Matches one query of ``live_events_after`` looks at.
LIVE_CURSORS_PER_QUERY = 200


def live_events_after(cursors: dict[int, int], limit: int = 5_000) -> list[LiveEvent]:
    """The events past each cursor of ``cursors`` (match id -> the last seq seen), ordered by
    match and seq, at most ``limit``: one query for every ``LIVE_CURSORS_PER_QUERY`` matches
    a stream server watches."""
    return events_past(LiveEvent.objects.all(), "match_id", cursors, limit)


def events_past(
    events: QuerySet[_M], key: str, cursors: dict[int, int], limit: int = 5_000
) -> list[_M]:
    """The rows of ``events`` (an event table with ``seq``, keyed by column ``key``: a
    match's, a person's game's) past each cursor of ``cursors`` (key -> the last seq seen),
    ordered by key and seq, at most ``limit``: one query per ``LIVE_CURSORS_PER_QUERY``
    keys."""
    found: list[_M] = []
    items = sorted(cursors.items())
    # A few hundred keys a query: SQLite refuses an expression tree deeper than 1,000.
    for start in range(0, len(items), LIVE_CURSORS_PER_QUERY):
        wanted = Q()
        for value, seq in items[start : start + LIVE_CURSORS_PER_QUERY]:
            wanted |= Q(**{key: value, "seq__gt": seq})
        left = limit - len(found)
        if left <= 0:
            break
        found += events.filter(wanted).order_by(key, "seq")[:left]
    return found


def live_matches_ended(match_ids: list[int]) -> set[int]:
    """Which of ``match_ids`` are no longer ``running`` (ended, or back in the queue)."""
    return set(
        Match.objects.filter(pk__in=match_ids)
        .exclude(status=Match.Status.RUNNING)
        .values_list("pk", flat=True)
    )


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


def matches_running() -> QuerySet[Match]:
    """The matches being played now, oldest start first, engines joined."""
    return match_list().filter(status=Match.Status.RUNNING).order_by("started_at", "id")


def match_list_with_games() -> QuerySet[Match]:
    """``match_list`` with each match's games as a list of matches shows them
    (``game_summaries``)."""
    return match_list().prefetch_related(Prefetch("games", queryset=game_summaries()))


def matches_recent_results() -> QuerySet[Match]:
    """Finished matches, latest finish first (the ``match_finished_idx`` order), with their
    games' summaries."""
    return (
        match_list_with_games().filter(status=Match.Status.FINISHED).order_by("-finished_at", "-id")
    )


#: The most games ``engine_games`` lists (the engine page shows the first 15).
ENGINE_GAMES_MAX = 50


def engine_games(
    engine_id: int, *, with_errors: bool = False, limit: int = ENGINE_GAMES_MAX
) -> QuerySet[Game]:
    """The latest ``limit`` games of the versions of an engine (either side), latest first,
    players and match joined, without the move lists; ``with_errors`` loads the engines'
    stderr tails too (for the owner's view: ``game_visible_engine_errors`` still decides
    which side is shown).

    Bounded whatever the history (issue 32): the ids first (``latest_game_ids``: the latest
    ``limit`` as South and as North, each a range of its side's index), then those games by
    id, where ``south IN (...) OR north IN (...) ORDER BY finished_at`` was a parallel
    sequential scan of every game (442 ms at 10^6 games). Two queries, not one: with the ids
    as a subquery of the 9-table select_related join, PostgreSQL joined every game before
    the semi-join (2.7 s at 10^5 games, where the ids alone take 2 ms)."""
    games = (
        Game.objects.filter(pk__in=latest_game_ids(_version_ids(engine_id), limit))
        .select_related("match", "south__engine", "north__engine", "winner__engine")
        .order_by("-finished_at", "-id")
    )
    games = games.defer("moves") if with_errors else games.defer("moves", "engine_errors")
    return games[:limit]


def latest_game_ids(versions: QuerySet[Any], limit: int) -> list[int]:
    """The ids of the latest ``limit`` (``finished_at``, then id, descending) of the games of
    ``versions`` (a subquery of version ids) as South and of the latest ``limit`` as North:
    at most 2 x ``limit`` ids, a game between two of ``versions`` once, in one query. On
    PostgreSQL a ``UNION ALL`` of two index-only ranges; SQLite allows no LIMIT inside a
    UNION, so there two ``IN`` subqueries."""
    south, north = (
        Game.objects.filter(**{f"{side}__in": versions})
        .order_by("-finished_at", "-id")
        .values_list("id", flat=True)[:limit]
        for side in ("south_id", "north_id")
    )
    if connections[south.db].features.supports_slicing_ordering_in_compound:
        return sorted(set(south.union(north, all=True)))
    either = Game.objects.filter(Q(pk__in=south) | Q(pk__in=north))
    return list(either.values_list("id", flat=True))


def _version_ids(engine_id: int) -> QuerySet[Any]:
    """The ids of an engine's versions, as a subquery: filtering games by their version
    columns (indexed) instead of joining the versions to read their engine."""
    from engines.models import EngineVersion

    return EngineVersion.objects.filter(engine_id=engine_id).values("pk")


@dataclass(frozen=True)
class HeadToHead:
    """An engine's record in finished games against one opponent engine (all versions of
    both): wins, draws, losses from its side, ``points`` (a draw is half), ``rated`` games."""

    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    rated: int

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """Points per game, 0..1."""
        return self.points / self.games if self.games else 0.0


def engine_head_to_head(engine_id: int) -> list[HeadToHead]:
    """``engine_id``'s record against each opponent engine, most games first (then name).

    Two grouped queries (the engine as South, as North, each from its side's index), whatever
    the number of games; aborted
    games (``*``) are left out. Games between two versions of the engine itself are counted
    against its own name from both sides.
    """
    totals: dict[str, list[int]] = {}
    for me, other, win in (("south", "north", "1-0"), ("north", "south", "0-1")):
        loss = "0-1" if win == "1-0" else "1-0"
        rows = (
            Game.objects.filter(
                **{f"{me}_id__in": _version_ids(engine_id)}, result__in=(win, loss, DRAW)
            )
            .values(f"{other}__engine__name")
            .annotate(
                n=Count("id"),
                w=Count("id", filter=Q(result=win)),
                d=Count("id", filter=Q(result=DRAW)),
                r=Count("id", filter=Q(rated=True)),
            )
            .order_by()
        )
        for row in rows:
            acc = totals.setdefault(row[f"{other}__engine__name"], [0, 0, 0, 0])
            acc[0] += row["n"]
            acc[1] += row["w"]
            acc[2] += row["d"]
            acc[3] += row["r"]
    records = [HeadToHead(name, n, w, d, n - w - d, r) for name, (n, w, d, r) in totals.items()]
    return sorted(records, key=lambda h: (-h.games, h.opponent))


def tournament_live_games(tournament_id: int) -> QuerySet[LiveGame]:
    """The games of a tournament's matches being played now (``live_games_running``), without
    their moves (a page lists them; the live page reads the moves)."""
    return live_games_running().filter(match__tournament_id=tournament_id)


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
    "last_seen"}]}, "running": [...], "pending": [...], "pending_count"}``; a pending entry
    is ``{"match", "position", "class", "submitter", "waiting_reason"}``
    (``dispatch.WaitingReason``: ``next``, ``over_share``, ``higher_class``, ``fair_share``)."""
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
                "waiting_reason": e.waiting_reason,
            }
            for e in order[:QUEUE_LISTED]
        ],
        "pending_count": len(order),
    }
