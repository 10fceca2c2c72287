"""Writes that move a running tournament on, round by round, through its format's strategy.

The one dispatch on a tournament's format is ``get_format(tournament.format)`` here: a format
known up front has all its rounds created when the event starts; any other has its next
round paired (``TournamentFormat.next_round``) when every match of the tournament has ended.
A round may be paired with nothing to play (only byes and forfeits): the next is paired at
once.

Withdrawals (the policy, also in the README): an entry whose engine can no longer play
(disabled by its owner, its version no longer ``active``, or its owner's consent
(``engines.consent``) now refusing the event) is marked ``withdrawn`` the next
time its tournament is looked at (at the start, whenever one of its matches ends, and by the
minute beat job). Its finished matches stand. Its pairings already made and not yet started
(``pending`` matches) are forfeited: each match is aborted and its opponent gets a forfeit
win (one match point, no games, not rated); a match it is playing at that moment is played
to the end. Its pairings not yet made are dropped (Swiss: it is no longer paired) or, for
formats known up front and knockout ties, forfeited in the same way when their round comes.
Two withdrawn engines' pairing is dropped (knockout: the higher seed goes through).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from arena.matches.models import ENDED_STATUSES
from arena.matches.services import MatchSpec, matches_abort, matches_create
from arena.openings import DEFAULT_SUITE, STANDARD
from engines.consent import PairingKind, pairing_refusal
from engines.models import EngineVersion
from ratings.models import Rating
from tournaments.formats import Entrant, Field, Finished, Played, Round, get_format
from tournaments.formats.base import BYE, DECISIVE, FORFEIT, MATCH
from tournaments.models import Tournament, TournamentEntry, UnplayedResult

logger = logging.getLogger(__name__)

#: Match statuses that end a match for tournament progress.
DONE_STATUSES = ENDED_STATUSES

#: Why an entry was withdrawn, by cause.
DISABLED = "engine disabled by its owner"
NOT_ACTIVE = "engine version no longer active"
NO_CONSENT = "the engine's owner no longer consents"


def entries_of(tournament: Tournament) -> list[TournamentEntry]:
    """Entries in seed order with their engine loaded."""
    return list(tournament.entries.select_related("engine_version__engine").order_by("seed_no"))


def field_of(tournament: Tournament, entries: Sequence[TournamentEntry]) -> Field:
    """The format's view of the event: entrants (rating at start, withdrawn or not), rounds
    asked for, last round paired."""
    return Field(
        tuple(
            Entrant(
                i,
                1500.0 if e.rating is None else e.rating,
                e.status == TournamentEntry.Status.WITHDRAWN,
            )
            for i, e in enumerate(entries)
        ),
        rounds=tournament.rounds,
        round=tournament.current_round,
    )


def history_of(tournament: Tournament, entries: Sequence[TournamentEntry]) -> list[Played]:
    """What was played and awarded so far, as the format reads it: matches (their engine_a's
    match points, None while unfinished or if aborted), byes and forfeit wins. A match a
    forfeit replaced is left out (the forfeit stands for it). Two queries
    (``history_from`` on what they read)."""
    unplayed = list(tournament.unplayed_results.all())
    matches = tournament.matches.order_by("round", "id").values_list(*HISTORY_MATCH_FIELDS)
    return history_from(entries, matches, unplayed)


#: The columns of a match ``history_from`` reads, in its rows' order.
HISTORY_MATCH_FIELDS = (
    "id", "round", "engine_a_id", "engine_b_id", "status", "score_a", "score_b", "best_of",
)  # fmt: skip


def history_from(
    entries: Sequence[TournamentEntry],
    matches: Iterable[tuple[Any, ...]],
    unplayed: Sequence[UnplayedResult],
) -> list[Played]:
    """``history_of`` from what was read: ``matches`` rows of ``HISTORY_MATCH_FIELDS`` in
    (round, id) order, the tournament's ``unplayed`` results in (round, id) order."""
    index = {e.engine_version_id: i for i, e in enumerate(entries)}
    by_entry = {e.pk: i for i, e in enumerate(entries)}
    replaced = {u.match_id for u in unplayed if u.match_id is not None}
    history: list[Played] = []
    for match_id, round_no, a, b, status, score_a, score_b, best_of in matches:
        if match_id in replaced or a not in index or b not in index:
            continue
        points: float | None = None
        if status == "finished" and score_a is not None and score_b is not None:
            points = 1.0 if score_a > score_b else 0.0 if score_a < score_b else 0.5
        kind = DECISIVE if best_of == 1 else MATCH
        history.append(Played(round_no or 0, index[a], index[b], points, kind))
    for u in unplayed:
        if u.kind == UnplayedResult.Kind.BYE:
            history.append(Played(u.round, by_entry[u.entry_id], None, kind=BYE))
        else:
            opponent = by_entry[u.opponent_id] if u.opponent_id is not None else None
            history.append(Played(u.round, by_entry[u.entry_id], opponent, 1.0, FORFEIT))
    return history


def _playable(version: EngineVersion, tournament: Tournament) -> str:
    """Why ``version`` can no longer play in ``tournament``, or '' if it can: disabled, no
    longer active, or its owner's consent now refuses the event (``engines.consent``)."""
    if not version.engine.is_enabled:
        return DISABLED
    if version.status != EngineVersion.Status.ACTIVE:
        return NOT_ACTIVE
    refusal = pairing_refusal(
        version.engine,
        kind=PairingKind.TOURNAMENT,
        rated=tournament.rated,
        requester=tournament.created_by,
    )
    if refusal is not None:
        return f"{NO_CONSENT}: {refusal.detail}"[:200]
    return ""


def withdraw_unplayable(tournament: Tournament, *, now: dt.datetime | None = None) -> list[int]:
    """Mark withdrawn every active entry whose engine can no longer play, and forfeit its
    pending matches (module docstring). Call inside a transaction holding the tournament row.
    Returns the seed numbers withdrawn by this call."""
    now = now or timezone.now()
    entries = entries_of(tournament)
    withdrawn: list[int] = []
    for entry in entries:
        reason = _playable(entry.engine_version, tournament)
        if entry.status != TournamentEntry.Status.ACTIVE or not reason:
            continue
        TournamentEntry.objects.filter(pk=entry.pk).update(
            status=TournamentEntry.Status.WITHDRAWN, withdrawn_at=now, withdrawn_reason=reason
        )
        entry.status = TournamentEntry.Status.WITHDRAWN
        withdrawn.append(entry.seed_no)
        logger.info("tournament %s: %s withdrawn (%s)", tournament.pk, entry.engine_version, reason)
    if not withdrawn:
        return []
    by_version = {e.engine_version_id: e for e in entries}
    gone = [e.engine_version_id for e in entries if e.seed_no in withdrawn]
    pending = tournament.matches.filter(status="pending").filter(
        engine_a_id__in=gone
    ) | tournament.matches.filter(status="pending", engine_b_id__in=gone)
    for match in pending.order_by("id"):
        if not matches_abort(
            match_ids=[match.pk], pending_only=True, error="forfeit: an engine withdrew"
        ):
            continue  # a worker claimed it meanwhile: it is played to the end
        a, b = by_version[match.engine_a_id], by_version[match.engine_b_id]
        winner, loser = (b, a) if a.seed_no in withdrawn else (a, b)
        if winner.status == TournamentEntry.Status.ACTIVE:
            UnplayedResult.objects.get_or_create(
                tournament=tournament,
                round=match.round or 0,
                entry=winner,
                defaults={"kind": UnplayedResult.Kind.FORFEIT, "opponent": loser, "match": match},
            )
    return withdrawn


def _record_ratings(tournament: Tournament, entries: Sequence[TournamentEntry]) -> None:
    ratings = dict(
        Rating.objects.filter(
            variant=tournament.variant, engine_version__in=[e.engine_version_id for e in entries]
        ).values_list("engine_version_id", "rating")
    )
    for e in entries:
        e.rating = ratings.get(e.engine_version_id, 1500.0)
    TournamentEntry.objects.bulk_update(entries, ["rating"])


def _start_suite(tournament: Tournament, step: Round) -> str:
    """The tournament's start choice; a one-game decider always starts from a suite position
    (the tournament's suite, else ``arena.openings.DEFAULT_SUITE``), so that two deterministic
    engines do not replay a game of their drawn match."""
    if step.best_of == 1 and tournament.start_suite == STANDARD:
        return DEFAULT_SUITE
    return tournament.start_suite


def _create_round(tournament: Tournament, entries: Sequence[TournamentEntry], step: Round) -> int:
    """Write round ``step``: its matches, byes and forfeits. Returns the matches created."""
    return _create_matches(tournament, _pair_round(tournament, entries, step))


def _pair_round(
    tournament: Tournament, entries: Sequence[TournamentEntry], step: Round
) -> list[MatchSpec]:
    """Write round ``step``'s byes and forfeits and make it the current round; returns its
    matches to create for ``_create_matches``."""
    unplayed, specs = _round_rows(tournament, entries, step)
    for row in unplayed:
        UnplayedResult.objects.get_or_create(
            tournament=tournament, round=row.round, entry=row.entry,
            defaults={"kind": row.kind, "opponent": row.opponent},
        )  # fmt: skip
    _set_current_round(tournament, step.number)
    return specs


def _round_rows(
    tournament: Tournament, entries: Sequence[TournamentEntry], step: Round
) -> tuple[list[UnplayedResult], list[MatchSpec]]:
    """Round ``step`` as rows, nothing written: its byes and forfeits (unsaved), and its
    matches to create."""
    unplayed = [
        UnplayedResult(tournament=tournament, round=step.number, entry=entries[player],
                       kind=UnplayedResult.Kind.BYE)
        for player in step.byes
    ] + [
        UnplayedResult(tournament=tournament, round=step.number, entry=entries[p.a],
                       kind=UnplayedResult.Kind.FORFEIT, opponent=entries[p.b])
        for p in step.forfeits
    ]  # fmt: skip
    specs = [
        MatchSpec(
            engine_a=entries[p.a].engine_version,
            engine_b=entries[p.b].engine_version,
            variant=tournament.variant,
            time_control=tournament.time_control,
            rated=tournament.rated,
            tournament=tournament,
            round=step.number,
            best_of=step.best_of,
            start_suite=_start_suite(tournament, step),
        )
        for p in step.pairings
    ]
    return unplayed, specs


def _set_current_round(tournament: Tournament, number: int) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(current_round=number)
    tournament.current_round = number


def _create_matches(tournament: Tournament, specs: list[MatchSpec]) -> int:
    """Create the matches ``specs`` describes: one bulk insert, queued in one pass when the
    transaction commits (a 64-engine round robin writes 2,016 matches at its start). Returns
    the matches created."""
    matches, refused = matches_create(specs)
    for spec, exc in refused:
        # Checked just before by withdraw_unplayable; a race with an owner disabling
        # the engine meanwhile is caught at the next look (the pairing then forfeits).
        logger.warning(
            "tournament %s round %s: %s vs %s not played: %s",
            tournament.pk,
            spec.round,
            spec.engine_a,
            spec.engine_b,
            exc,
        )
    return len(matches)


def _finish(tournament: Tournament, reason: str = "") -> None:
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.end_reason = reason[:200]
    tournament.save(update_fields=["status", "finished_at", "end_reason"])
    logger.info("tournament %s finished%s", tournament.pk, f" early: {reason}" if reason else "")


def _busy(tournament: Tournament) -> bool:
    return tournament.matches.exclude(status__in=DONE_STATUSES).exists()


def start_rounds(tournament: Tournament) -> int:
    """Pair a just-started tournament (row locked, status ``running``): every round of a
    format known up front, else round 1 (and on, while rounds have nothing to play). Returns
    the matches created."""
    entries = entries_of(tournament)
    _record_ratings(tournament, entries)
    withdraw_unplayable(tournament)
    entries = entries_of(tournament)
    fmt = get_format(tournament.format)
    if not fmt.known_up_front:
        return _pair_until_busy(tournament)
    # Every round at once: one bulk insert of the byes and forfeits, one of the matches, and
    # the last round's number (a round adds no query).
    unplayed: list[UnplayedResult] = []
    specs: list[MatchSpec] = []
    steps = fmt.rounds_up_front(field_of(tournament, entries))
    for step in steps:
        round_unplayed, round_specs = _round_rows(tournament, entries, step)
        unplayed += round_unplayed
        specs += round_specs
    UnplayedResult.objects.bulk_create(unplayed, ignore_conflicts=True)
    if steps:
        _set_current_round(tournament, steps[-1].number)
    created = _create_matches(tournament, specs)
    if not _busy(tournament):
        _finish(tournament)
    return created


def _pair_until_busy(tournament: Tournament) -> int:
    fmt = get_format(tournament.format)
    created = 0
    while not _busy(tournament):
        entries = entries_of(tournament)
        step = fmt.next_round(field_of(tournament, entries), history_of(tournament, entries))
        if isinstance(step, Finished):
            _finish(tournament, step.reason)
            break
        created += _create_round(tournament, entries, step)
    return created


def advance(tournament_id: int) -> bool:
    """Look at a running tournament: withdraw engines that can no longer play, and once every
    match has ended pair the next round or finish the event. Locks the tournament row first,
    so two last matches ending at once cannot both pair (or both miss) the next round.
    Returns True if this call finished the tournament.

    Inside the transaction that records a result (``tournament_match_ended``) it adds no
    savepoint: an error here rolls the whole result back anyway. The creator is read with the
    row (owners' consent is asked on their behalf) and only the tournament row is locked."""
    with transaction.atomic(savepoint=False):
        tournament = (
            Tournament.objects.select_for_update(of=("self",))
            .select_related("created_by")
            .filter(pk=tournament_id)
            .first()
        )
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        withdraw_unplayable(tournament)
        if _busy(tournament):
            return False
        if get_format(tournament.format).known_up_front:
            _finish(tournament)
        else:
            _pair_until_busy(tournament)
        return tournament.status == Tournament.Status.FINISHED
