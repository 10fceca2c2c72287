"""Writes of the tournaments app: create and start tournaments, follow their matches.

``tournament_match_ended`` subscribes to ``arena.matches.events.MatchEnded`` inside the
recording transaction (``TournamentsConfig.ready``), so a tournament moves on exactly when a
result is written; the rating refit is requested in the same transaction and sent after commit
(``ratings.services.ratings_match_recording``). ``start_due_tournaments`` is what the periodic beat
task runs every minute.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from arena.matches.events import MatchEnded
from arena.matches.models import Match
from arena.matches.services import (
    matches_abort,
    normalize_start_suite,
    normalize_time_control,
    queue_admit,
)
from arena.openings import STANDARD
from arena.rules import UnknownVariantError, canonical_variant_id
from engines.consent import Chooser, PairingKind, RatedDecision, check_pairing, rated_decision
from engines.models import EngineVersion
from engines.selectors import check_playable, engine_named, latest_playable_version
from ratings.services import ratings_match_recorded
from tournaments.errors import (
    FORMAT_ERRORS,
    ApiError,
    DuplicateEngine,
    NotFoundError,
    StartAtTooLate,
    TooFewEngines,
    TournamentNotCancellable,
    TournamentNotYours,
    UnknownVariant,
)
from tournaments.formats import DEFAULT_FORMAT, FORMATS, FormatError, TournamentFormat, get_format
from tournaments.models import Tournament, TournamentEntry
from tournaments.rounds import DONE_STATUSES as DONE_STATUSES  # re-exported for callers
from tournaments.rounds import advance, start_rounds

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

#: How far ahead a tournament may be scheduled.
MAX_START_AHEAD = dt.timedelta(days=90)


def tournament_create(
    *,
    name: str,
    variant: str,
    engines: Sequence[str],
    time_control: str,
    start_at: dt.datetime | None = None,
    format: str = DEFAULT_FORMAT,
    rated: bool = True,
    created_by: User | None = None,
    rounds: int | None = None,
    start_suite: str = STANDARD,
) -> Tournament:
    """Create a scheduled tournament between the latest active versions of the named engines.

    ``variant`` is an id or alias (stored canonical); ``time_control`` is ``"<base s>+<inc s>"``
    (stored canonical); ``format`` a ``tournaments.formats.FORMATS`` id; ``rounds`` the
    number of Swiss rounds (1 to engines - 1, default ceil(log2 engines)), only for a Swiss.
    ``start_at`` at most ``MAX_START_AHEAD`` (90 days) from now; a tournament without a start
    time (or one already past) is started at once, by a task sent when the transaction commits
    (the minute beat job starts it if the broker refused). ``start_suite`` is ``"standard"`` or
    a suite of start positions each match draws its start from by its seed. In a gauntlet the
    first engine named meets every other one. All checks run before anything is written.

    Who may create what: any user may create a tournament of any active, enabled engines (the
    arena's engines are public entrants). ``rated`` is the request: a tournament created by
    staff (or None: the service itself, e.g. the demo) is an arena's pairing and rated as
    asked; one created by another user is rated only if every pairing its format may make
    includes one of the arena's bundled engines (``engines.consent.rated_decision``), else it
    is played casual with ``rated_note`` saying why (a user who picks the opponents could
    farm a rating with a second account's engine).

    Raises (``tournaments.errors``): ``UnknownVariant``, ``InvalidTimeControl``,
    ``TimeControlTooLong``, ``UnknownStartSuite``, ``DuplicateEngine``, ``TooFewEngines``
    (fewer than 2 engines), ``EngineNotFound``, ``EngineDisabled`` (disabled by its owner),
    ``EngineNotActive`` (no active version), ``VariantNotSupported`` (the version did not
    announce the variant), ``TooManyRounds``, ``RoundsNotApplicable``, ``StartAtTooLate``,
    ``PairingRefused`` (403
    ``pairing_refused``: an engine's owner does not consent, ``engines.consent``),
    ``QueueFull`` (409 ``queue_full``: its matches would put more of ``created_by``'s matches
    in the queue than the per-user cap, ``arena.matches.services.queue_admit``). Pairings
    between two engines of one owner are played casual (``match_create``).
    """
    try:
        variant_id = canonical_variant_id(variant)
    except UnknownVariantError as exc:
        raise UnknownVariant(str(exc), details={"variant": variant}) from None
    # The matches app's check: parses, and refuses a clock a worker could not finish in time.
    tc_text = normalize_time_control(time_control, variant_id)
    start_suite = normalize_start_suite(start_suite, variant_id)
    if format not in FORMATS:
        raise ApiError(f"unknown format {format!r}", details={"format": format})
    fmt = get_format(format)
    now = timezone.now()
    if start_at is not None and start_at > now + MAX_START_AHEAD:
        latest = now + MAX_START_AHEAD
        raise StartAtTooLate(
            f"start_at may be at most {MAX_START_AHEAD.days} days ahead "
            f"(until {latest.isoformat(timespec='seconds')})",
            details={"start_at": start_at.isoformat(), "latest": latest.isoformat()},
        )
    names = [str(n).strip() for n in engines]
    # Names are one name whatever the case (engines.selectors.engine_by_name): alice1 and
    # ALICE1 are the same entrant. Reported as first spelled.
    first_spelling: dict[str, str] = {}
    repeated: set[str] = set()
    for n in names:
        if n.lower() in first_spelling:
            repeated.add(first_spelling[n.lower()])
        first_spelling.setdefault(n.lower(), n)
    duplicates = sorted(repeated)
    if duplicates:
        raise DuplicateEngine(
            f"listed more than once: {', '.join(duplicates)}", details={"engines": duplicates}
        )
    if len(names) < 2:
        raise TooFewEngines(
            f"a tournament needs at least 2 engines, got {len(names)}", details={"engines": names}
        )
    try:
        rounds_count = fmt.check(len(names), rounds)
    except FormatError as exc:
        raise FORMAT_ERRORS[exc.code](str(exc), details=exc.details) from None
    versions = [_entry_version(n, variant_id) for n in names]
    decision = _rated(created_by, versions, fmt, rated)
    for version in versions:
        check_pairing(
            version.engine, kind=PairingKind.TOURNAMENT, rated=decision.rated, requester=created_by
        )
    queue_admit(created_by, _expected_matches(fmt, len(versions), rounds_count))
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            variant=variant_id,
            time_control=tc_text,
            format=format,
            rounds=rounds_count,
            rated=decision.rated,
            rated_note=decision.note or "",
            start_at=start_at or now,
            start_suite=start_suite,
            created_by=created_by,
        )
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, engine_version=v, seed_no=i)
            for i, v in enumerate(versions, start=1)
        )
        if tournament.start_at <= now:
            transaction.on_commit(lambda: _send_start(tournament.pk))
    return tournament


#: The task that starts one tournament (``tournaments.tasks.start_tournament``), sent by name.
START_TASK = "tournaments.tasks.start_tournament"


def _send_start(tournament_id: int) -> None:
    """Send the task that starts a tournament due now; if the broker refuses, the minute beat
    job starts it."""
    # By name through the project's app (tasks are leaves: they import this module).
    from arena.celery import registered_task

    try:
        registered_task(START_TASK).delay(tournament_id)
    except Exception:  # broker down: beat's start_due_tournaments picks it up
        logger.exception("tournament %s: could not send the start task", tournament_id)


def _expected_matches(fmt: TournamentFormat, n: int, rounds: int | None) -> int:
    """How many matches an event of ``n`` entrants will queue, for the per-user cap: the whole
    schedule of a format known up front, else its rounds' pairings (a Swiss), else the ``n - 1``
    matches of a knockout."""
    if fmt.known_up_front:
        return len(fmt.possible_pairs(n))
    if rounds:
        return rounds * (n // 2)
    return n - 1


def _rated(
    user: User | None, versions: Sequence[EngineVersion], fmt: TournamentFormat, asked: bool
) -> RatedDecision:
    """Whether the tournament is rated (``tournament_create`` docstring): staff and the service
    itself (None) choose as the arena does; any other user's event is judged over every pairing
    its format may make (a Swiss or a knockout may pair any two entrants)."""
    if user is None or getattr(user, "is_staff", False):
        # The arena's event: rated as asked; a match between one owner's engines is still
        # played casual on its own (``match_create``).
        return RatedDecision(rated=asked)
    engines = [v.engine for v in versions]
    return rated_decision(
        ((engines[a], engines[b]) for a, b in fmt.possible_pairs(len(engines))),
        asked=asked,
        chooser=Chooser.USER,
    )


def _entry_version(name: str, variant: str) -> EngineVersion:
    version = latest_playable_version(engine_named(name))
    check_playable(version, variant)
    return version


def tournament_start(tournament_id: int, *, now: dt.datetime | None = None) -> bool:
    """Start a scheduled tournament whose start time has come: pair it through its format.

    The conditional UPDATE scheduled -> running is the lock (its row count says whether this
    call won), so beat firing twice starts a tournament once. ``tournaments.rounds.start_rounds``
    then records each entry's rating, withdraws engines that can no longer play (their pairings
    forfeit) and creates the first round's matches (every round's, for a format known up
    front) in one bulk insert (``arena.matches.services.matches_create``); they are queued in
    one pass when the transaction commits. Returns True if this call started the tournament.
    """
    now = now or timezone.now()
    with transaction.atomic():
        won = Tournament.objects.filter(
            pk=tournament_id, status=Tournament.Status.SCHEDULED, start_at__lte=now
        ).update(status=Tournament.Status.RUNNING, started_at=now)
        if not won:
            return False
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        created = start_rounds(tournament)
    logger.info("tournament %s started: %s matches queued", tournament_id, created)
    return True


def tournament_cancel(tournament_id: int, *, reason: str) -> int:
    """Stop a scheduled or running tournament early: it becomes ``cancelled`` (``reason`` kept,
    at most 200 characters) and each of its matches still ``pending`` or ``running`` becomes
    ``aborted`` with the error ``"tournament cancelled: <reason>"``, its lease released
    (``arena.matches.services.matches_abort``).

    Nothing is rated for the aborted matches (they have no games). A worker still playing one
    finds its lease gone within a second, kills the engines and records nothing
    (``arena.matches.keeper``); a queued task finds the match not claimable. Idempotent: a
    tournament already ``finished`` or ``cancelled`` (or missing) is left alone. Returns how
    many matches this call aborted.
    """
    now = timezone.now()
    reason = reason[:200]
    with transaction.atomic():
        cancelled = Tournament.objects.filter(
            pk=tournament_id,
            status__in=(Tournament.Status.SCHEDULED, Tournament.Status.RUNNING),
        ).update(status=Tournament.Status.CANCELLED, finished_at=now, cancel_reason=reason)
        if not cancelled:
            return 0
        aborted = len(
            matches_abort(tournament_id=tournament_id, error=f"tournament cancelled: {reason}")
        )
    logger.info("tournament %s cancelled (%s): %s matches aborted", tournament_id, reason, aborted)
    return aborted


def tournament_cancel_by(user: User, tournament_id: int, *, reason: str = "") -> int:
    """``tournament_cancel`` on behalf of ``user``: its creator (``created_by``) or staff.

    Raises ``NotFoundError`` (404 ``not_found``) for no such tournament, ``TournamentNotYours`` (403
    ``tournament_not_yours``) for anyone else, ``TournamentNotCancellable`` (409
    ``tournament_not_cancellable``) if it is already finished or cancelled. Returns how many
    matches were aborted.
    """
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFoundError(f"no tournament {tournament_id}", details={"tournament": tournament_id})
    if not getattr(user, "is_staff", False) and tournament.created_by_id != user.pk:
        raise TournamentNotYours(
            "only the tournament's creator or staff may cancel it",
            details={"tournament": tournament_id},
        )
    if tournament.status not in (Tournament.Status.SCHEDULED, Tournament.Status.RUNNING):
        raise TournamentNotCancellable(
            f"the tournament is already {tournament.status}",
            details={"tournament": tournament_id, "status": tournament.status},
        )
    username = getattr(user, "username", "") or f"user {user.pk}"
    return tournament_cancel(tournament_id, reason=reason or f"cancelled by {username}")


def tournament_refresh_status(tournament_id: int) -> bool:
    """Move a running tournament on (``tournaments.rounds.advance``): withdraw engines that
    can no longer play, and once every match has ended pair the next round or mark it
    finished. Returns True if this call finished the tournament."""
    return advance(tournament_id)


def tournament_match_ended(event: MatchEnded) -> None:
    """``MatchEnded`` subscriber (in the recording transaction): move the match's tournament
    on (next round, or finished)."""
    if event.tournament_id is not None:
        tournament_refresh_status(event.tournament_id)


def match_finished(match: Match) -> None:
    """Apply an ended ``match`` to this app at once: request a rating refit (after commit,
    debounced: ``ratings.services.ratings_match_recorded``), move its tournament on; what the
    two ``MatchEnded`` subscribers do, in one call. Safe to call again for the same match (a
    refit reads every game once, the tournament finishes once).
    """
    ratings_match_recorded(match)
    if match.tournament_id is not None:
        tournament_refresh_status(match.tournament_id)


def start_due_tournaments(*, now: dt.datetime | None = None) -> list[int]:
    """Start every scheduled tournament whose start time has passed; returns their ids.

    Also re-checks running tournaments, so one whose last match was aborted without an event
    (``arena.matches.services.matches_abort``) still moves on.
    """
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, start_at__lte=now).order_by(
        "start_at", "id"
    )
    started = [t_id for t_id in due.values_list("id", flat=True) if tournament_start(t_id, now=now)]
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    for t_id in running.values_list("id", flat=True):
        tournament_refresh_status(t_id)
    return started
