"""Writes of the matches app: creating matches, queueing them, recording results exactly once.

Exactly once: a result is written only by the holder of the match's lease, in one transaction
that first flips the match from ``running`` (with that ``lease_token``) to ``finished`` or
``aborted`` by a conditional UPDATE. A second delivery of the same task, a worker whose lease
was taken over, or a retry after a crash finds the row count 0 and writes nothing; the unique
(match, index) constraint on games is the second guard. Every service that ends a match
publishes ``events.MatchEnded`` in its transaction: the app's consumers (tournament progress,
ratings) subscribe there, so this module knows none of them. Tasks are sent by name through the
project's Celery app (``arena.celery.app``): the tasks module imports this one, never the reverse.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from arena.engine_text import storable, storable_text
from arena.matches import errors
from arena.matches.events import MatchEnded, publish_match_ended
from arena.matches.leases import (
    Claim,
    claimable,
    max_attempts,
    pending_or_expired,
    release_rows,
)
from arena.matches.limits import (
    fits_worker,
    longest_clock_ms,
    match_limits,
    max_task_seconds,
)
from arena.matches.models import Game, Match
from arena.matches.selectors import live_slots
from arena.openings import (
    STANDARD,
    OpeningError,
    match_start,
    start_choices,
    suite_position,
)
from arena.referee import GameRecord, MatchRecord, TimeControl, TimeControlError
from arena.rules import UnknownVariantError, canonical_variant_id
from arena.terminations import ABORTED, TERMINATIONS, is_rated
from engines.consent import PairingKind, check_pairing, rated_between
from engines.models import EngineVersion
from engines.selectors import check_playable, engine_named, latest_playable_version

if TYPE_CHECKING:
    from django.db.models import Model, QuerySet

log = logging.getLogger(__name__)

#: Seeds are drawn below 2**31 so they read well in URLs, records and engine logs.
SEED_BOUND = 2**31

#: The task that plays a match (``arena.matches.tasks.run_match``), sent by name.
RUN_MATCH_TASK = "arena.matches.tasks.run_match"

T = TypeVar("T")


def normalize_time_control(text: str, variant: str) -> str:
    """The canonical text of a time control (``"10+0.1"``) after checking it fits a worker.

    Raises ``InvalidTimeControl`` (``invalid_time_control``) if ``TimeControl.parse`` refuses
    it (unparseable, non-ASCII digits, finer than 1 ms, base under 1 s, movetime under 10 ms)
    and ``TimeControlTooLong`` (``time_control_too_long``) if a match could outlast the task
    time limit allowed below the broker's visibility timeout (``limits.max_task_seconds``); its
    message states the longest base (or movetime) that fits, its details the limits in s.
    """
    try:
        tc = TimeControl.parse(text)
    except TimeControlError as exc:
        raise errors.InvalidTimeControl(str(exc), details={"time_control": str(text)}) from None
    limits = match_limits(variant, tc)
    if not fits_worker(limits):
        longest_ms = longest_clock_ms(variant, tc)
        if tc.movetime_ms is not None:
            allowed = f"use movetime={max(longest_ms, 0)} or less"
        elif longest_ms >= 1000:
            allowed = (
                f"at a {tc.increment_ms / 1000:g} s increment the base may be at most "
                f"{longest_ms // 1000} s"
            )
        else:
            allowed = f"no base fits a {tc.increment_ms / 1000:g} s increment: use a smaller one"
        raise errors.TimeControlTooLong(
            f"a match at {tc} may take up to {limits.hard} s, more than the {max_task_seconds()} s "
            f"a worker may hold one; {allowed}.",
            details={
                "time_control": str(tc),
                "hard_limit_s": limits.hard,
                "max_hard_limit_s": max_task_seconds(),
            },
        )
    return str(tc)


def normalize_start_suite(start_suite: str, variant: str) -> str:
    """``start_suite`` after checking it names a start choice of ``variant`` (a variant id):
    ``"standard"`` or a suite with a file for it (``arena.openings.start_choices``).

    Raises ``UnknownStartSuite`` (``unknown_start_suite``); ``details.start_suite``,
    ``details.known`` (the choices for the variant).
    """
    known = start_choices(variant)
    if start_suite not in known:
        raise errors.UnknownStartSuite(
            f"unknown start positions {str(start_suite)[:40]!r} for {variant}; choose one of: "
            f"{', '.join(known)}.",
            details={"start_suite": str(start_suite)[:40], "known": list(known)},
        )
    return start_suite


def _new_match(
    *,
    engine_a: EngineVersion,
    engine_b: EngineVersion,
    variant: str,
    time_control: str,
    rated: bool = True,
    tournament: Model | None = None,
    round: int | None = None,
    challenger: User | None = None,
    seed: int | None = None,
    best_of: int = 3,
    start_suite: str = STANDARD,
    priority: int = Match.Priority.INTERACTIVE,
    submitter: User | None = None,
    start_index: int | None = None,
    checks: dict[tuple[Any, ...], Any] | None = None,
) -> Match:
    """The checked, unsaved match ``match_create`` describes (same arguments and errors).
    ``checks``: a memo shared by the matches of one batch (``matches_create``), so each
    variant, time control, suite and version is checked once, not once per match."""
    if engine_a.pk == engine_b.pk:
        raise errors.SameEngine(
            f"{engine_a} cannot play against itself.", details={"engine": engine_a.engine.name}
        )
    variant_id, tc_text, start_suite = _checked(
        checks, ("params", variant, time_control, start_suite),
        lambda: _checked_params(variant, time_control, start_suite),
    )  # fmt: skip
    for version in (engine_a, engine_b):
        _checked(checks, ("playable", version.pk, variant_id),
                 partial(check_playable, version, variant_id))  # fmt: skip
    if seed is None:
        seed = secrets.randbelow(SEED_BOUND)
    try:
        if start_index is not None and start_suite != STANDARD:
            start = suite_position(variant_id, start_suite, start_index)
        else:
            start = match_start(variant_id, start_suite, seed)
    except OpeningError as exc:  # a suite file broken on disk: our fault, and loud
        raise RuntimeError(f"start positions {start_suite!r}: {exc}") from exc
    rated = rated and rated_between(engine_a.engine, engine_b.engine)
    return Match(
        variant=variant_id,
        time_control=tc_text,
        engine_a=engine_a,
        engine_b=engine_b,
        seed=seed,
        start_suite=start_suite,
        start_position="" if start_suite == STANDARD else start.to_text(),
        rated=rated,
        # By id: the matches app names no tournaments type (see arena.matches.events).
        tournament_id=tournament.pk if tournament is not None else None,
        round=round,
        challenger=challenger,
        best_of=best_of,
        priority=priority,
        submitter_id=_submitter_id(submitter or challenger, tournament),
    )


def _checked_params(variant: str, time_control: str, start_suite: str) -> tuple[str, str, str]:
    """(variant id, time control text, start suite) after the checks of ``match_create``."""
    try:
        variant_id = canonical_variant_id(variant)
    except UnknownVariantError as exc:
        raise errors.UnknownVariant(str(exc), details={"variant": str(variant)}) from None
    return (
        variant_id,
        normalize_time_control(time_control, variant_id),
        normalize_start_suite(start_suite, variant_id),
    )


def _checked(
    memo: dict[tuple[Any, ...], Any] | None, key: tuple[Any, ...], check: Callable[[], T]
) -> T:
    """``check()``, or its memoized value or ``ApiError`` (raised again) from ``memo``."""
    if memo is None:
        return check()
    if key not in memo:
        try:
            memo[key] = check()
        except errors.ApiError as exc:
            memo[key] = exc
    value = memo[key]
    if isinstance(value, errors.ApiError):
        raise value
    return cast(T, value)


def match_create(
    *,
    engine_a: EngineVersion,
    engine_b: EngineVersion,
    variant: str,
    time_control: str,
    rated: bool = True,
    tournament: Model | None = None,
    round: int | None = None,
    challenger: User | None = None,
    seed: int | None = None,
    best_of: int = 3,
    start_suite: str = STANDARD,
    priority: int = Match.Priority.INTERACTIVE,
    submitter: User | None = None,
    start_index: int | None = None,
) -> Match:
    """Create a pending match and queue ``run_match`` once the transaction commits.

    ``variant`` is an id or alias (stored as the id); ``time_control`` ``"<base s>+<inc s>"``;
    ``seed`` (decides South in game 3) random below 2**31 if None; ``start_suite``
    ``"standard"`` or a suite of start positions, from which the seed draws the start of every
    game (``arena.openings.match_start``), stored in ``start_position``, unless ``start_index``
    names the suite's position to play (``arena.openings.suite_position``: a version test walks
    its suite pair by pair); ``best_of`` 3, 2 (a game pair: version tests) or 1 (a single game
    with A South: a knockout decider). A match between two engines of one owner is stored
    unrated whatever ``rated`` says
    (``engines.consent.rated_between``). Consent is the caller's to check
    (``engines.consent.check_pairing``). ``priority`` is the dispatch class
    (``Match.Priority``); ``submitter`` the user whose fair share it uses (default: the
    challenger, else the tournament's creator). The per-user cap on queued matches is the
    caller's check (``queue_admit``), made once for a whole batch.
    Raises (``ApiError`` subclasses, by stable code): ``unknown_variant``, ``same_engine`` (the
    same engine version on both sides), ``engine_disabled`` (409, disabled by its owner),
    ``engine_not_active`` (409, a version not ``active``), ``variant_not_supported`` (not
    announced in the engine's handshake), ``invalid_time_control``, ``time_control_too_long``,
    ``unknown_start_suite``.
    """
    match = _new_match(
        engine_a=engine_a, engine_b=engine_b, variant=variant, time_control=time_control,
        rated=rated, tournament=tournament, round=round, challenger=challenger, seed=seed,
        best_of=best_of, start_suite=start_suite, priority=priority, submitter=submitter,
        start_index=start_index,
    )  # fmt: skip
    match.save(force_insert=True)
    transaction.on_commit(lambda: matches_enqueue([match.pk]))
    return match


def matches_create(
    specs: Sequence[dict[str, Any]],
) -> tuple[list[Match], list[tuple[dict[str, Any], errors.ApiError]]]:
    """Create many pending matches at once (a tournament's rounds): each spec holds
    ``match_create``'s keyword arguments and is checked the same way; the valid ones are
    inserted in bulk and queued in one pass when the transaction commits. Returns (created
    matches in spec order, [(spec, error)] for the refused ones)."""
    matches: list[Match] = []
    refused: list[tuple[dict[str, Any], errors.ApiError]] = []
    checks: dict[tuple[Any, ...], Any] = {}
    # Queued as they are written: the wake-ups go out when the transaction commits
    # (``_wake_batch``), which takes ``queued_at`` back if the broker refuses them all.
    queued_at = timezone.now()
    for spec in specs:
        try:
            match = _new_match(**spec, checks=checks)
        except errors.ApiError as exc:
            refused.append((spec, exc))
            continue
        match.queued_at = queued_at
        matches.append(match)
    created = Match.objects.bulk_create(matches, batch_size=500)
    ids = [m.pk for m in created]
    if ids:
        transaction.on_commit(lambda: _wake_batch(ids, queued_at))
    return created, refused


def _wake_batch(ids: list[int], queued_at: datetime) -> None:
    """The on-commit half of ``matches_create``: ``wake_ups_for(len(ids))`` wake-ups for the
    matches ``ids`` just written, pending and marked queued at ``queued_at``. If the broker
    refuses the first one, ``queued_at`` is cleared again, so the requeue job queues them after
    its grace (``recovery.UNQUEUED_GRACE_S``)."""
    if _send_wake_ups(len(ids), hint=ids[0] if len(ids) == 1 else None):
        return
    Match.objects.filter(pk__in=ids, queued_at=queued_at).update(queued_at=None)


def _submitter_id(user: User | None, tournament: Model | None) -> int | None:
    """Whose fair share a match uses: ``user``, else the tournament's creator, else None."""
    if user is not None:
        return int(user.pk)
    creator = getattr(tournament, "created_by_id", None)
    return int(creator) if creator is not None else None


def queued_count(user: User) -> int:
    """Matches of ``user`` waiting for a slot (pending, as submitter)."""
    return Match.objects.filter(submitter=user, status=Match.Status.PENDING).count()


def queue_admit(user: User | None, adding: int) -> None:
    """Refuse a creation that would put more than ``settings.BAO_QUEUE_MAX_PER_USER`` matches
    of ``user`` in the queue: ``QueueFull`` (409 ``queue_full``, details ``queued``, ``adding``,
    ``limit``). Staff and the system (None) are exempt; the fair share, not this cap, keeps one
    user from holding every slot."""
    from django.conf import settings

    if user is None or getattr(user, "is_staff", False):
        return
    limit = int(settings.BAO_QUEUE_MAX_PER_USER)
    queued = queued_count(user)
    if queued + adding > limit:
        raise errors.QueueFull(
            f"you have {queued} matches queued; {adding} more would exceed the limit of {limit}."
            " Wait for some to be played.",
            details={"queued": queued, "adding": adding, "limit": limit},
        )


def match_enqueue(match_id: int, *, countdown: float | None = None) -> bool:
    """Queue one match nobody plays (pending, or running with an expired lease): a
    ``run_match`` wake-up whose hint is this match, and ``queued_at`` noted. Returns False if
    the broker refused (the requeue job sends it later) or the match is played, done or out of
    attempts. Safe to call twice: a message that finds nothing to claim does nothing.
    """
    return len(matches_enqueue_ids([match_id], countdown=countdown)) == 1


def matches_enqueue(match_ids: Sequence[int], *, countdown: float | None = None) -> int:
    """``matches_enqueue_ids`` for callers that need only how many were queued."""
    return len(matches_enqueue_ids(match_ids, countdown=countdown))


def wake_ups_for(queued: int) -> int:
    """How many ``run_match`` wake-ups a batch of ``queued`` matches sends: one per worker slot
    (the live workers' announced slots, ``selectors.live_slots``; before any worker announced
    itself, ``settings.BAO_WORKER_SLOTS``), at most one per match. More slots than that are
    woken by the chain (``match_wake_next``). Tasks run in-process (``task_always_eager``:
    no worker, no chain): one per match."""
    from django.conf import settings

    from arena.celery import registered_task

    if queued <= 1:
        return queued
    if registered_task(RUN_MATCH_TASK).app.conf.task_always_eager:
        return queued
    slots = live_slots() or int(settings.BAO_WORKER_SLOTS)
    return min(queued, max(1, slots))


def matches_enqueue_ids(match_ids: Sequence[int], *, countdown: float | None = None) -> list[int]:
    """Queue many matches in one pass: one query reads the ones nobody plays among
    ``match_ids`` (as ``match_enqueue``), ``wake_ups_for`` of them ``run_match`` wake-ups are
    sent, and one UPDATE notes ``queued_at`` of all of them. Returns their ids (ascending);
    [] if the broker refused the first wake-up (they stay unqueued for the requeue job).

    The rows of ``Match`` are the queue and a message only says "a slot may be free, work is
    waiting": a slot claims the dispatcher's pick (``arena.matches.dispatch``), not the
    message's match, and wakes the next slot when it claims (``match_wake_next``), so a batch
    of 2,016 matches sends a message per worker slot, not per match. A single match's wake-up
    carries its id as the hint (a worker's redelivered message waits for that match's expiring
    lease, ``runner.claim_next``); a batch's carry none. A broker that refuses a later wake-up
    stops the pass: the ones sent already wake the slots, which chain to the rest.
    """
    ids = list(
        Match.objects.filter(
            pending_or_expired(timezone.now()), attempts__lt=max_attempts(), pk__in=match_ids
        )
        .order_by("id")
        .values_list("id", flat=True)
    )
    if not ids:
        return []
    if not _send_wake_ups(len(ids), hint=ids[0] if len(ids) == 1 else None,
                          countdown=countdown):  # fmt: skip
        return []
    Match.objects.filter(pk__in=ids).update(queued_at=timezone.now())
    return ids


def _send_wake_ups(queued: int, *, hint: int | None, countdown: float | None = None) -> int:
    """Send ``wake_ups_for(queued)`` ``run_match`` wake-ups carrying ``hint``; returns how many
    went out (a broker that refuses one stops the pass, logged)."""
    # Imported here: importing the Celery app resolves the broker (and may start the embedded
    # one), which a web or management process that never queues a match must not pay for.
    from arena.celery import registered_task

    run_match = registered_task(RUN_MATCH_TASK)
    sent = 0
    for _ in range(wake_ups_for(queued)):
        try:
            run_match.apply_async(
                args=[hint],  # type: ignore[arg-type]  # any sequence; celery-types: tuple
                countdown=countdown,  # type: ignore[arg-type]  # None means now; stubs: float
            )
        except Exception:  # broker down: the caller leaves the rest to the requeue job
            log.exception("could not queue run_match (%s matches waiting)", queued)
            break
        sent += 1
    return sent


def match_wake_next() -> bool | None:
    """The chain of wake-ups: a slot that has just claimed a match sends one ``run_match``
    wake-up (no hint) if any match is still claimable, so a free slot (of any worker) takes the
    next one; the last claim of a drained queue sends none. So every claimable match has a
    wake-up waiting for it while any remains, however few messages queued it
    (``matches_enqueue_ids``). Returns True if one was sent, False if nothing is claimable (or
    under ``task_always_eager``, where every match of a batch has its own in-process run), None
    if the broker or the database failed: logged, never raised (the runner tries again once
    its match is played; the requeue job re-wakes a queue whose messages were lost).
    """
    from arena.celery import registered_task

    try:
        run_match = registered_task(RUN_MATCH_TASK)
        if run_match.app.conf.task_always_eager:
            return False
        if not Match.objects.filter(claimable(timezone.now())).exists():
            return False
        run_match.apply_async(args=[None])  # type: ignore[arg-type]  # celery-types: tuple
    except Exception:
        log.exception("could not send the next wake-up")
        return None
    return True


# --------------------------------------------------------------------------- recording


def _game_time(game: GameRecord, fallback: datetime) -> tuple[datetime | None, datetime]:
    started = parse_datetime(game.started_at) if game.started_at else None
    if started is not None and timezone.is_naive(started):
        started = timezone.make_aware(started, UTC)
    if started is None:
        return None, fallback
    return started, started + timedelta(milliseconds=game.duration_ms)


class _Recording(NamedTuple):
    """What recording a match reads of its row (one query, no joins)."""

    engine_a_id: int
    engine_b_id: int
    rated: bool
    variant: str
    tournament_id: int | None
    priority: int


def _games_from_record(match_id: int, match: _Recording, record: MatchRecord) -> list[Game]:
    """Game rows of match ``match_id`` from the referee's record, its text made storable.

    Names in the record map to versions by position: ``record.engines`` is ``[A, B]`` and
    the referee keeps the two names distinct. Engine errors are re-keyed by side. The moves
    are stored in their JSON form (``MoveRecord.to_dict``), likewise ``time_loss``.
    Raises ``ValueError`` for a record that does not belong to this match.
    """
    names = list(record.engines)
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"record engines {names!r} are not two distinct names")
    by_name = {names[0]: match.engine_a_id, names[1]: match.engine_b_id}
    now = timezone.now()
    games: list[Game] = []
    for position, game in enumerate(record.games):
        south, north = by_name[game.south], by_name[game.north]
        winner = by_name[game.winner] if game.winner else None
        termination = game.termination
        if termination not in TERMINATIONS:
            raise ValueError(f"unknown termination {termination!r} in game {game.index}")
        # Games of an aborted match are kept for inspection but never rated: the match did
        # not complete, and its engines are not to blame for our fault.
        rated = match.rated and not record.aborted and is_rated(termination)
        started, finished = _game_time(game, now + timedelta(microseconds=position))
        engine_errors = {
            side: storable_text(game.engine_errors[name])
            for side, name in (("south", game.south), ("north", game.north))
            if game.engine_errors.get(name)
        }
        games.append(
            Game(
                match_id=match_id,
                index=game.index,
                south_id=south,
                north_id=north,
                winner_id=winner,
                result=storable_text(game.result),
                termination=termination,
                rated=rated,
                plies=game.plies,
                start_position=storable_text(game.start_position),
                final_position=storable_text(game.final_position),
                moves=storable([m.to_dict() for m in game.moves]),
                scores=list(game.scores) if game.scores is not None else None,
                seeds_in_hand=game.seeds_in_hand,
                engine_errors=engine_errors,
                detail=storable_text(game.detail),
                time_loss=game.time_loss.to_dict() if game.time_loss is not None else None,
                started_at=started,
                duration_ms=game.duration_ms,
                finished_at=finished,
            )
        )
    return games


def _abort_error(record: MatchRecord) -> str:
    for game in record.games:
        if game.termination == ABORTED:
            return f"game {game.index} aborted: {game.detail or 'no detail'}"
    return "match aborted by the referee"


def match_record_result(
    match_id: int, lease_token: str, record: MatchRecord, *, match: Match | None = None
) -> bool:
    """Write the games and the result of a match exactly once; True if this call wrote them.

    ``record`` is the referee's ``MatchRecord``. An ``aborted`` record marks the match
    ``aborted`` (its games stored unrated). Returns False, writing nothing, if the match is not
    ``running`` under ``lease_token`` (already recorded, reclaimed by another worker, aborted).
    Publishes ``MatchEnded`` in the same transaction (``arena.matches.events``).
    Raises ``ValueError`` (nothing written) if the record does not fit the match. Text stored
    from the record is made storable first (NUL and lone surrogates to U+FFFD,
    ``arena.engine_text.storable``): the referee cleans engine output already, this guard keeps
    any text PostgreSQL refuses from leaving a match ``running`` for ever.

    ``match``: the match's row as the caller loaded it (the runner), which saves reading it
    again: what recording reads of it (engines, ``rated``, variant, tournament, ``priority``)
    never changes once the match is created; the lease is checked by the UPDATE all the same.
    Without it, one query reads those columns (and finds nothing for a match no longer ours).
    Then the conditional UPDATE that is the lock and one insert of the games: two or three
    queries besides the subscribers' (issue 19).
    """
    aborted = record.aborted
    now = timezone.now()
    ours = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=lease_token)
    with transaction.atomic():
        if match is not None and match.pk == match_id:
            known = _Recording(*(getattr(match, field) for field in _Recording._fields))
        else:
            row = ours.values_list(*_Recording._fields).first()
            if row is None:
                return False
            known = _Recording(*row)
        games = _games_from_record(match_id, known, record)
        score = record.score
        winner = None
        if record.winner is not None:  # never for an aborted record
            winner = known.engine_a_id if record.winner == record.engines[0] else known.engine_b_id
        status = Match.Status.ABORTED if aborted else Match.Status.FINISHED
        # The row read above is not locked: this UPDATE's row count is the lock.
        updated = ours.update(
            status=status,
            lease_token="",
            lease_expires_at=None,
            score_a=None if aborted else score[0],
            score_b=None if aborted else score[1],
            winner_id=winner,
            finished_at=now,
            error=storable_text(_abort_error(record)) if aborted else "",
        )
        if updated == 0:
            return False
        Game.objects.bulk_create(games)
        publish_match_ended(
            MatchEnded(
                match_id=match_id,
                status=status,
                variant=known.variant,
                tournament_id=known.tournament_id,
                rated=known.rated,
                priority=known.priority,
            )
        )
    return True


def match_abort(match_id: int, error: str, *, claim: Claim | None = None) -> bool:
    """Mark a match ``aborted`` with ``error`` (no games) and publish ``MatchEnded``.

    With ``claim``: only if we still hold its lease. Without: only if it is ``pending`` or
    ``running`` with an expired lease (the requeue job giving up on a match out of attempts).
    Returns True if this call aborted it.
    """
    with transaction.atomic():
        rows = Match.objects.filter(pk=match_id)
        if claim is not None:
            rows = rows.filter(status=Match.Status.RUNNING, lease_token=claim.token)
        else:
            rows = rows.filter(pending_or_expired(timezone.now()))
        if _abort_rows(rows, error) == 0:
            return False
        _publish_ended(match_id)
    return True


def _abort_rows(rows: QuerySet[Match], error: str) -> int:
    """The one abort UPDATE: ``rows`` become ``aborted`` with ``error`` (at most 10000
    characters), lease released, finished now. Returns the row count (the lock)."""
    return rows.update(
        status=Match.Status.ABORTED,
        lease_token="",
        lease_expires_at=None,
        finished_at=timezone.now(),
        error=error[:10000],
    )


def _publish_ended(match_id: int) -> None:
    status, variant, tournament_id, rated, priority = Match.objects.values_list(
        "status", "variant", "tournament_id", "rated", "priority"
    ).get(pk=match_id)
    publish_match_ended(
        MatchEnded(
            match_id=match_id,
            status=status,
            variant=variant,
            tournament_id=tournament_id,
            rated=rated,
            priority=priority,
        )
    )


def match_cancel_by(user: User, match_id: int, *, reason: str = "") -> None:
    """``match_cancel`` on behalf of ``user``: the match's challenger, or staff (the API's
    ``POST /api/matches/{id}/cancel/`` and the web's match page). ``reason`` "" becomes
    "by <username>".

    Raises ``NotFoundError`` (404 ``not_found``) for no such match, DRF's
    ``PermissionDenied`` (403 ``permission_denied``) for anyone else, ``MatchNotCancellable``
    (409 ``match_not_cancellable``) once it is over.
    """
    from rest_framework.exceptions import PermissionDenied

    from arena.api.errors import NotFoundError

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(f"no match {match_id}", details={"match": match_id})
    if not (user.is_staff or match.challenger_id == user.pk):
        raise PermissionDenied("Only the match's challenger or staff may cancel it.")
    if not match_cancel(match.pk, reason=reason or f"by {user.get_username()}"):
        match.refresh_from_db(fields=["status"])
        raise errors.MatchNotCancellable(
            f"match {match.pk} is {match.status}: only a pending or running match can be "
            "cancelled.",
            details={"status": match.status},
        )


def match_cancel(match_id: int, *, reason: str) -> bool:
    """Stop a pending or running match for good: it becomes ``aborted`` with the error
    ``"cancelled: <reason>"``, no games and nothing rated (``matches_abort``), and the
    match-ended hook is published (its tournament advances).

    A worker playing it finds its lease gone within a second (``arena.matches.keeper``),
    kills the engines and records nothing. Permission is the caller's (the view lets the
    challenger and staff). Returns False if the match is already over (or missing).
    """
    with transaction.atomic():
        if not matches_abort(match_ids=[match_id], error=f"cancelled: {reason}"):
            return False
        _publish_ended(match_id)
    log.info("match %s cancelled: %s", match_id, reason)
    return True


def matches_hand_back(worker: str) -> list[int]:
    """A worker shutting down gives back the matches it plays: ``pending`` again at once, the
    claim not counted as an attempt, and a ``run_match`` message each so another worker takes
    them. Its own slots see the lease gone and stop within a second. Returns the match ids."""
    rows = Match.objects.filter(status=Match.Status.RUNNING, worker=worker)
    ids = list(rows.values_list("pk", flat=True))
    if not ids:
        return []
    handed = release_rows(
        rows.filter(pk__in=ids), f"handed back by {worker} (shutting down)", count_attempt=False
    )
    log.warning("worker %s shutting down: %s matches handed back %s", worker, handed, ids)
    for match_id in ids:
        match_enqueue(match_id)
    return ids


def matches_abort(
    *,
    error: str,
    tournament_id: int | None = None,
    match_ids: Sequence[int] | None = None,
    pending_only: bool = False,
) -> list[int]:
    """Abort the unfinished matches of a tournament (``tournament_id``) or the given
    ``match_ids``: each still ``pending`` (or ``running``, unless ``pending_only``) becomes
    ``aborted`` with ``error``, its lease released, no games. Returns the ids this call aborted
    (one conditional UPDATE per match, so a match claimed meanwhile is left to its worker when
    ``pending_only``).

    A worker still playing an aborted match finds its lease gone within a second
    (``arena.matches.keeper``), kills its engines and records nothing; a queued message finds
    nothing to claim. No
    hook is called: the caller (cancelling a tournament, forfeiting a withdrawn engine's
    pairings) updates its own state in the same transaction.
    """
    statuses = (
        [Match.Status.PENDING] if pending_only else [Match.Status.PENDING, Match.Status.RUNNING]
    )
    rows = Match.objects.filter(status__in=statuses)
    if tournament_id is not None:
        rows = rows.filter(tournament_id=tournament_id)
    if match_ids is not None:
        rows = rows.filter(pk__in=list(match_ids))
    aborted = []
    for match_id in rows.order_by("id").values_list("id", flat=True):
        if _abort_rows(Match.objects.filter(pk=match_id, status__in=statuses), error):
            aborted.append(match_id)
    return aborted


# --------------------------------------------------------------------------- challenges


def match_challenge(
    *,
    user: User,
    engine: str,
    opponent: str,
    variant: str,
    time_control: str,
    rated: bool = True,
    start_suite: str = STANDARD,
) -> Match:
    """A user's challenge: their engine ``engine`` (latest active version, South in game 1)
    against ``opponent`` (latest active version), by engine names in any case.

    Raises ``engine_not_found`` (404) for an unknown name, ``engine_not_yours`` (403) if
    ``engine`` belongs to someone else, ``pairing_refused`` (403) if the opponent's owner does
    not accept this challenge (``engines.consent``), ``engine_not_active`` if either has no
    active version, ``engine_disabled`` if either is disabled by its owner, and every error of
    ``match_create``. A challenge between two of the user's own engines is played unrated.
    """
    mine, theirs = (engine_named(name) for name in (engine, opponent))  # any case
    if mine.owner_id != user.pk:
        raise errors.EngineNotYours(
            f"{engine!r} belongs to another user: challenge with an engine you own.",
            details={"engine": engine},
        )
    check_pairing(theirs, kind=PairingKind.CHALLENGE, rated=rated, requester=user)
    versions = [latest_playable_version(e) for e in (mine, theirs)]
    queue_admit(user, 1)
    return match_create(
        engine_a=versions[0],
        engine_b=versions[1],
        variant=variant,
        time_control=time_control,
        rated=rated,
        challenger=user,
        start_suite=start_suite,
    )
