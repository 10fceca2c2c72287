"""Creating matches: the checks of a new match (variant, time control, start positions,
playable versions), one match (``match_create``) or a batch in one insert (``matches_create``),
queued once the transaction commits (``queueing``)."""

from __future__ import annotations

import inspect
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial, wraps
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from arena.matches import errors
from arena.matches.limits import fits_worker, longest_clock_ms, match_limits, max_task_seconds
from arena.matches.models import Match
from arena.matches.services.queueing import matches_enqueue, send_wake_ups
from arena.openings import STANDARD, OpeningError, match_start, start_choices, suite_position
from arena.referee import TimeControl, TimeControlError
from arena.rules import UnknownVariantError, canonical_variant_id
from engines.consent import Chooser, rated_decision
from engines.models import EngineVersion
from engines.selectors import check_playable

if TYPE_CHECKING:
    from django.db.models import Model

#: Seeds are drawn below 2**31 so they read well in URLs, records and engine logs.
SEED_BOUND = 2**31

T = TypeVar("T")
_P = ParamSpec("_P")
_S = TypeVar("_S")
_R = TypeVar("_R")


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


@dataclass(frozen=True, kw_only=True)
class MatchSpec:
    """The parameters of a new match, the keyword arguments of ``match_create`` (and each spec
    of ``matches_create``).

    ``variant`` is an id or alias (stored as the id); ``time_control`` ``"<base s>+<inc s>"``
    or ``"movetime=<ms>"``; ``rated`` as the caller decided it (``engines.consent.rated_decision``
    for who chose the pairing; a match between two engines of one owner is stored casual
    whatever it says), ``rated_note`` why a rated request was made casual (a
    ``engines.consent.CASUAL_*`` text); ``tournament`` and
    ``round`` the event it belongs to, if any; ``challenger`` the user who challenged;
    ``seed`` (decides South in game 3) random below 2**31 if None; ``best_of`` 3, 2 (a game
    pair: version tests) or 1 (a single game with A South: a knockout decider);
    ``start_suite`` ``"standard"`` or a suite of start positions, from which the seed draws the
    start of every game (``arena.openings.match_start``), stored in ``start_position``, unless
    ``start_index`` names the suite's position to play (``arena.openings.suite_position``: a
    version test walks its suite pair by pair); ``priority`` the dispatch class
    (``Match.Priority``); ``submitter`` the user whose fair share it uses (default: the
    challenger, else the tournament's creator).
    """

    engine_a: EngineVersion
    engine_b: EngineVersion
    variant: str
    time_control: str
    rated: bool = True
    rated_note: str | None = None
    tournament: Model | None = None
    round: int | None = None
    challenger: User | None = None
    seed: int | None = None
    best_of: int = 3
    start_suite: str = STANDARD
    priority: int = Match.Priority.INTERACTIVE
    submitter: User | None = None
    start_index: int | None = None


def new_match(spec: MatchSpec, checks: dict[tuple[Any, ...], Any] | None = None) -> Match:
    """The checked, unsaved match ``spec`` describes (the errors of ``match_create``).
    ``checks``: a memo shared by the matches of one batch (``matches_create``), so each
    variant, time control, suite and version is checked once, not once per match."""
    if spec.engine_a.pk == spec.engine_b.pk:
        raise errors.SameEngine(
            f"{spec.engine_a} cannot play against itself.",
            details={"engine": spec.engine_a.engine.name},
        )
    variant_id, tc_text, start_suite = _checked(
        checks,
        ("params", spec.variant, spec.time_control, spec.start_suite),
        lambda: _checked_params(spec.variant, spec.time_control, spec.start_suite),
    )
    for version in (spec.engine_a, spec.engine_b):
        _checked(
            checks,
            ("playable", version.pk, variant_id),
            partial(check_playable, version, variant_id),
        )
    seed = secrets.randbelow(SEED_BOUND) if spec.seed is None else spec.seed
    try:
        if spec.start_index is not None and start_suite != STANDARD:
            start = suite_position(variant_id, start_suite, spec.start_index)
        else:
            start = match_start(variant_id, start_suite, seed)
    except OpeningError as exc:  # a suite file broken on disk: our fault, and loud
        raise RuntimeError(f"start positions {start_suite!r}: {exc}") from exc
    tournament = spec.tournament
    # The last check of every caller's decision: one owner's engines are never rated.
    decision = rated_decision(
        [(spec.engine_a.engine, spec.engine_b.engine)], asked=spec.rated, chooser=Chooser.ARENA
    )
    return Match(
        variant=variant_id,
        time_control=tc_text,
        engine_a=spec.engine_a,
        engine_b=spec.engine_b,
        seed=seed,
        start_suite=start_suite,
        start_position="" if start_suite == STANDARD else start.to_text(),
        rated=decision.rated,
        rated_note=spec.rated_note or decision.note or "",
        # By id: the matches app names no tournaments type (see arena.matches.events).
        tournament_id=tournament.pk if tournament is not None else None,
        round=spec.round,
        challenger=spec.challenger,
        best_of=spec.best_of,
        priority=spec.priority,
        submitter_id=_submitter_id(spec.submitter or spec.challenger, tournament),
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


def _called_with_fields_of(
    spec_type: Callable[_P, _S],
) -> Callable[[Callable[[_S], _R]], Callable[_P, _R]]:
    """Makes a function of one ``spec_type`` value callable with ``spec_type``'s own keyword
    arguments instead (type-checked as the dataclass's fields): ``f(**kw)`` is
    ``f(spec_type(**kw))``. So the parameters are defined once, on the dataclass."""

    def decorate(function: Callable[[_S], _R]) -> Callable[_P, _R]:
        @wraps(function)
        def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            return function(spec_type(*args, **kwargs))

        # help() and inspect show the keywords, not the one argument of ``function``.
        returns = inspect.signature(function).return_annotation
        signature = inspect.signature(spec_type).replace(return_annotation=returns)
        call.__signature__ = signature  # type: ignore[attr-defined]
        return call

    return decorate


@_called_with_fields_of(MatchSpec)
def match_create(spec: MatchSpec) -> Match:
    """Create a pending match and queue ``run_match`` once the transaction commits.

    Called with the fields of ``MatchSpec`` as keyword arguments
    (``match_create(engine_a=a, engine_b=b, variant="kete", time_control="10+0.1")``).
    Consent is the caller's to check (``engines.consent.check_pairing``), and so is the
    per-user cap on queued matches (``queue_admit``), made once for a whole batch.
    Raises (``ApiError`` subclasses, by stable code): ``unknown_variant``, ``same_engine`` (the
    same engine version on both sides), ``engine_disabled`` (409, disabled by its owner),
    ``engine_not_active`` (409, a version not ``active``), ``variant_not_supported`` (not
    announced in the engine's handshake), ``invalid_time_control``, ``time_control_too_long``,
    ``unknown_start_suite``.
    """
    match = new_match(spec)
    match.save(force_insert=True)
    transaction.on_commit(lambda: matches_enqueue([match.pk]))
    return match


def matches_create(
    specs: Sequence[MatchSpec],
) -> tuple[list[Match], list[tuple[MatchSpec, errors.ApiError]]]:
    """Create many pending matches at once (a tournament's rounds), each checked as
    ``match_create`` checks one; the valid ones are inserted in bulk and queued in one pass
    when the transaction commits. Returns (created matches in spec order, [(spec, error)] for
    the refused ones)."""
    matches: list[Match] = []
    refused: list[tuple[MatchSpec, errors.ApiError]] = []
    checks: dict[tuple[Any, ...], Any] = {}
    # Queued as they are written: the wake-ups go out when the transaction commits
    # (``_wake_batch``), which takes ``queued_at`` back if the broker refuses them all.
    queued_at = timezone.now()
    for spec in specs:
        try:
            match = new_match(spec, checks)
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
    if send_wake_ups(len(ids), hint=ids[0] if len(ids) == 1 else None):
        return
    Match.objects.filter(pk__in=ids, queued_at=queued_at).update(queued_at=None)


def _submitter_id(user: User | None, tournament: Model | None) -> int | None:
    """Whose fair share a match uses: ``user``, else the tournament's creator, else None."""
    if user is not None:
        return int(user.pk)
    creator = getattr(tournament, "created_by_id", None)
    return int(creator) if creator is not None else None
