"""Writes of the tournaments app: create and start tournaments, record finished matches.

``match_finished(match)`` is the hook ``arena.matches.services.match_record_result`` calls, in
its transaction, once the games of a match are written. ``start_due_tournaments`` is what the
periodic beat task runs every minute.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from arena.matches.services import match_create, normalize_start_suite, normalize_time_control
from arena.openings import STANDARD
from arena.rules import UnknownVariantError, canonical_variant_id
from engines.consent import PairingKind, check_pairing, pairing_refusal
from engines.models import EngineVersion
from engines.selectors import engine_by_name
from tournaments import pairing
from tournaments.errors import (
    ApiError,
    DuplicateEngine,
    EngineDisabled,
    EngineNotActive,
    EngineNotFound,
    RatedTournamentNotAllowed,
    TooFewEngines,
    UnknownVariant,
    VariantNotSupported,
)
from tournaments.models import Tournament, TournamentEntry
from tournaments.rating_services import ratings_match_recorded
from tournaments.versiontests.services import version_test_match_ended

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from arena.matches.models import Match

logger = logging.getLogger(__name__)

#: Match statuses that end a match for tournament progress.
DONE_STATUSES = ("finished", "aborted")


def tournament_create(
    *,
    name: str,
    variant: str,
    engines: Sequence[str],
    time_control: str,
    start_at: dt.datetime | None = None,
    format: str = Tournament.Format.ROUND_ROBIN,
    rated: bool = True,
    created_by: AbstractBaseUser | None = None,
    start_suite: str = STANDARD,
) -> Tournament:
    """Create a scheduled tournament between the latest active versions of the named engines.

    ``variant`` is an id or alias (stored canonical); ``time_control`` is ``"<base s>+<inc s>"``
    (stored canonical);
    ``start_at`` defaults to now (beat starts it within a minute); ``start_suite`` is
    ``"standard"`` or a suite of start positions each match draws its start from by its seed.
    In a gauntlet the first engine named meets every other one. All checks run before anything
    is written.

    Who may create what: any user may create an unrated tournament of any active, enabled
    engines (the arena's engines are public entrants). A *rated* tournament moves ratings, so,
    as for a challenge, every rated match needs an engine of the one who asked for it: unless
    ``created_by`` is staff (or None: the service itself, e.g. the demo), each pairing of the
    schedule must include an engine ``created_by`` owns (a gauntlet led by one's own engine,
    or a round robin with at most one foreign engine).

    Raises (``tournaments.errors``): ``UnknownVariant``, ``InvalidTimeControl``,
    ``TimeControlTooLong``, ``UnknownStartSuite``, ``DuplicateEngine``, ``TooFewEngines``
    (fewer than 2 engines), ``EngineNotFound``, ``EngineDisabled`` (disabled by its owner),
    ``EngineNotActive`` (no active version), ``VariantNotSupported`` (the version did not
    announce the variant), ``RatedTournamentNotAllowed`` (403, the rule above),
    ``PairingRefused`` (403 ``pairing_refused``: an engine's owner does not consent,
    ``engines.consent``). Pairings between two engines of one owner are played unrated
    (``arena.matches.services.match_create``).
    """
    try:
        variant_id = canonical_variant_id(variant)
    except UnknownVariantError as exc:
        raise UnknownVariant(str(exc), details={"variant": variant}) from None
    # The matches app's check: parses, and refuses a clock a worker could not finish in time.
    tc_text = normalize_time_control(time_control, variant_id)
    start_suite = normalize_start_suite(start_suite, variant_id)
    if format not in Tournament.Format.values:
        raise ApiError(f"unknown format {format!r}", details={"format": format})
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
    versions = [_entry_version(n, variant_id) for n in names]
    for version in versions:
        check_pairing(
            version.engine, kind=PairingKind.TOURNAMENT, rated=rated, requester=created_by
        )
    if rated:
        _check_rated_allowed(created_by, versions, format)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            variant=variant_id,
            time_control=tc_text,
            format=format,
            rated=rated,
            start_suite=start_suite,
            start_at=start_at or timezone.now(),
            created_by=created_by,
        )
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, engine_version=v, seed_no=i)
            for i, v in enumerate(versions, start=1)
        )
    return tournament


def _check_rated_allowed(
    user: AbstractBaseUser | None, versions: Sequence[EngineVersion], format: str
) -> None:
    """Refuse a rated tournament with a match between two engines ``user`` does not own
    (``tournament_create`` docstring); staff and the service itself (None) may."""
    if user is None or getattr(user, "is_staff", False):
        return
    schedule = pairing.gauntlet if format == Tournament.Format.GAUNTLET else pairing.round_robin
    owned = [v.engine.owner_id == user.pk for v in versions]
    foreign = [
        [versions[p.a].engine.name, versions[p.b].engine.name]
        for rnd in schedule(len(versions))
        for p in rnd
        if not (owned[p.a] or owned[p.b])
    ]
    if foreign:
        raise RatedTournamentNotAllowed(
            f"a rated tournament may only pair engines with one of yours; "
            f"{len(foreign)} match(es) would not (first: {foreign[0][0]} vs {foreign[0][1]}). "
            "Make it unrated, or a gauntlet led by your engine.",
            details={"foreign_pairings": foreign},
        )


def _entry_version(name: str, variant: str) -> EngineVersion:
    engine = engine_by_name(name)
    if engine is None:
        raise EngineNotFound(f"no engine named {name!r}", details={"engine": name})
    if not engine.is_enabled:
        raise EngineDisabled(f"engine {name} is disabled by its owner", details={"engine": name})
    version = engine.latest_active_version()
    if version is None:
        raise EngineNotActive(f"engine {name!r} has no active version", details={"engine": name})
    if variant not in (version.variants or []):
        raise VariantNotSupported(
            f"{version} does not play {variant} "
            f"(it announced: {', '.join(version.variants or []) or 'nothing'})",
            details={"engine": name, "variant": variant},
        )
    return version


def tournament_schedule(tournament: Tournament) -> list[list[pairing.Pairing]]:
    """The rounds of ``tournament`` as pairings of entry indexes (entries in seed order)."""
    n = tournament.entries.count()
    if tournament.format == Tournament.Format.GAUNTLET:
        return pairing.gauntlet(n)
    return pairing.round_robin(n)


def tournament_start(tournament_id: int, *, now: dt.datetime | None = None) -> bool:
    """Start a scheduled tournament whose start time has come: create and queue its matches.

    The conditional UPDATE scheduled -> running is the lock (its row count says whether this
    call won), so beat firing twice starts a tournament once. Matches are created with
    ``arena.matches.services.match_create`` and queued when the transaction commits. A pairing
    whose engine can no longer play (disabled since, or its owner withdrew consent since) is
    skipped and logged. Returns True if
    this call started the tournament.
    """
    now = now or timezone.now()
    with transaction.atomic():
        won = Tournament.objects.filter(
            pk=tournament_id, status=Tournament.Status.SCHEDULED, start_at__lte=now
        ).update(status=Tournament.Status.RUNNING, started_at=now)
        if not won:
            return False
        tournament = Tournament.objects.get(pk=tournament_id)
        entries = list(
            tournament.entries.select_related("engine_version__engine").order_by("seed_no")
        )
        created = 0
        refused = {
            i: refusal
            for i, entry in enumerate(entries)
            if (
                refusal := pairing_refusal(
                    entry.engine_version.engine,
                    kind=PairingKind.TOURNAMENT,
                    rated=tournament.rated,
                    requester=tournament.created_by,
                )
            )
        }
        for round_no, pairs in enumerate(tournament_schedule(tournament), start=1):
            for p in pairs:
                a, b = entries[p.a].engine_version, entries[p.b].engine_version
                if p.a in refused or p.b in refused:
                    logger.warning(
                        "tournament %s round %s: %s vs %s not played: %s",
                        tournament_id, round_no, a, b, refused.get(p.a) or refused.get(p.b),
                    )
                    continue
                try:
                    with transaction.atomic():
                        match_create(
                            engine_a=a,
                            engine_b=b,
                            variant=tournament.variant,
                            time_control=tournament.time_control,
                            rated=tournament.rated,
                            tournament=tournament,
                            round=round_no,
                            start_suite=tournament.start_suite,
                        )
                    created += 1
                except ApiError as exc:
                    logger.warning(
                        "tournament %s round %s: %s vs %s not played: %s",
                        tournament_id, round_no, a, b, exc,
                    )
        if created == 0:
            Tournament.objects.filter(pk=tournament_id).update(
                status=Tournament.Status.FINISHED, finished_at=now
            )
    logger.info("tournament %s started: %s matches queued", tournament_id, created)
    return True


def tournament_cancel(tournament_id: int, *, reason: str) -> int:
    """Stop a scheduled or running tournament early: it becomes ``cancelled`` (``reason`` kept,
    at most 200 characters) and each of its matches still ``pending`` or ``running`` becomes
    ``aborted`` with the error ``"tournament cancelled: <reason>"``, its lease released.

    Nothing is rated for the aborted matches (they have no games). A worker still playing one
    finds its lease gone and records nothing (``match_record_result``); a queued task finds the
    match not claimable and returns. Idempotent: a tournament already ``finished`` or
    ``cancelled`` (or missing) is left alone. Returns how many matches this call aborted.
    """
    from arena.matches.models import Match

    now = timezone.now()
    reason = reason[:200]
    with transaction.atomic():
        cancelled = Tournament.objects.filter(
            pk=tournament_id,
            status__in=(Tournament.Status.SCHEDULED, Tournament.Status.RUNNING),
        ).update(status=Tournament.Status.CANCELLED, finished_at=now, cancel_reason=reason)
        if not cancelled:
            return 0
        aborted = Match.objects.filter(
            tournament_id=tournament_id,
            status__in=(Match.Status.PENDING, Match.Status.RUNNING),
        ).update(
            status=Match.Status.ABORTED,
            lease_token="",
            lease_expires_at=None,
            finished_at=now,
            error=f"tournament cancelled: {reason}",
        )
    logger.info("tournament %s cancelled (%s): %s matches aborted", tournament_id, reason, aborted)
    return aborted


def tournament_refresh_status(tournament_id: int) -> bool:
    """Mark a running tournament finished once every one of its matches is finished or aborted.

    Locks the tournament row first, so two last matches finishing at once in two transactions
    cannot both miss each other (the second waits for the first, then sees its commit).
    Returns True if this call finished the tournament.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        matches = tournament.matches.all()
        if not matches.exists() or matches.exclude(status__in=DONE_STATUSES).exists():
            return False
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
    logger.info("tournament %s finished", tournament_id)
    return True


def match_finished(match: Match) -> None:
    """Record that ``match`` has ended: request a rating refit, advance its tournament, count
    it in its version test if it is a test's game pair.

    Called by ``match_record_result`` inside its transaction after the games are written; safe
    to call again for the same match (a refit reads every game once, the tournament finishes
    once, a pair is counted once). The refit runs after commit, debounced
    (``rating_services.ratings_match_recorded``).
    """
    ratings_match_recorded(match)
    version_test_match_ended(match.pk)
    if match.tournament_id is not None:
        tournament_refresh_status(match.tournament_id)


def start_due_tournaments(*, now: dt.datetime | None = None) -> list[int]:
    """Start every scheduled tournament whose start time has passed; returns their ids.

    Also re-checks running tournaments, so one whose last match was aborted by the requeue job
    (which does not go through ``match_finished``) still gets marked finished.
    """
    now = now or timezone.now()
    due = Tournament.objects.filter(
        status=Tournament.Status.SCHEDULED, start_at__lte=now
    ).order_by("start_at", "id")
    started = [t_id for t_id in due.values_list("id", flat=True) if tournament_start(t_id, now=now)]
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    for t_id in running.values_list("id", flat=True):
        tournament_refresh_status(t_id)
    return started
