"""Writes of version tests: create, count each recorded game pair once, keep pairs queued, stop.

Flow. ``version_test_create`` checks everything, stores the test and queues its first game pairs
in one transaction (a version that cannot be paired rolls the whole test back). A pair is a
``Match`` of ``best_of`` 2 with the new version as engine A, starting from the next position of
the test's suite. When a pair's match ends, ``version_test_match_ended`` runs inside the
transaction that records it (the in-transaction ``MatchEnded`` subscriber
``version_test_match_event``, ``arena.matches.events``): under the test's row lock it moves the
pair out of ``pending`` once, counts it (or voids it: an aborted game or match is not counted),
updates the LLR, decides, and either queues the next pairs or, once decided, aborts the test's
other matches. Because the counting commits or rolls back with the recorded games, and a second
call finds the pair no longer ``pending``, each pair is counted exactly once whatever is
delivered twice.

Locks: a recording transaction holds its match row, then takes the test's row lock, then the
pair's; whoever holds a test's lock (``version_test_stop``, a decision) never waits for a match
row, skipping the ones locked by a recording in progress, so the two cannot deadlock.

How many pairs wait: ``pairs_in_flight_target()``, about one per worker slot, never more than
the cap leaves room for; a pair voided is replaced, but more than ``void_limit(test)`` void
pairs stop the test (something keeps aborting its games).
"""

from __future__ import annotations

import logging
import os
import secrets
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.matches.events import MatchEnded
from arena.matches.models import Match
from arena.matches.selectors import live_slots
from arena.matches.services import (
    match_create,
    matches_abort,
    normalize_start_suite,
    normalize_time_control,
)
from arena.openings import DEFAULT_SUITE, STANDARD, load_suite
from arena.rules import UnknownVariantError, canonical_variant_id
from arena.terminations import ABORTED
from engines.consent import (
    Chooser,
    PairingKind,
    RatedDecision,
    check_pairing,
    pairing_refusal,
    rated_decision,
)
from engines.models import EngineVersion
from engines.selectors import engine_named, playability_error
from ratings.stats.sprt import (
    Decision,
    SprtInputError,
    SprtParameters,
    check_bound_limit,
)
from ratings.stats.sprt import Model as SprtModel
from versiontests import errors
from versiontests.models import VersionTest, VersionTestPair
from versiontests.selectors import version_test_figures

log = logging.getLogger(__name__)

#: The cap on game pairs when the request names none, and the largest cap accepted.
DEFAULT_MAX_PAIRS = 1000
MAX_PAIRS_LIMIT = 100_000
#: The fields a count or a decision changes (saved together).
_COUNT_FIELDS = [
    "status",
    "decision",
    "stop_reason",
    "pentanomial",
    "wins",
    "draws",
    "losses",
    "pairs_void",
    "pairs_created",
    "llr",
    "llr_history",
    "finished_at",
]


def worker_slots() -> int:
    """Matches the live workers play at once (their announced slots,
    ``arena.matches.selectors.live_slots``); before any worker has announced itself, this
    host's cores stand for them (a worker offers one slot per core by default)."""
    slots = live_slots()
    if slots:
        return slots
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def pairs_in_flight_target() -> int:
    """How many pairs of one running test are kept queued or playing:
    ``settings.BAO_VERSION_TEST_PAIRS`` if set, else ``worker_slots()`` (at least 1)."""
    configured = int(getattr(settings, "BAO_VERSION_TEST_PAIRS", 0) or 0)
    return max(1, configured or worker_slots())


def void_limit(test: VersionTest) -> int:
    """Void pairs (aborted games) a test tolerates before it stops: 10, or a tenth of its cap."""
    return max(10, test.max_pairs // 10)


# --------------------------------------------------------------------------- create


def _version(name: str, number: int | None, *, older_than: EngineVersion | None = None) -> Any:
    """Version ``number`` of the engine ``name`` (any case); None: its latest active version
    (below ``older_than``'s number when that is a version of the same engine).

    Raises ``EngineNotFound`` (404), ``EngineVersionNotFound`` (404), ``EngineNotActive``
    (409, no active version to default to). Whether the version can play is ``match_create``'s
    check.
    """
    engine = engine_named(name)
    if number is not None:
        version = engine.versions.select_related("engine").filter(number=number).first()
        if version is None:
            raise errors.EngineVersionNotFound(
                f"engine {engine.name!r} has no version {number}.",
                details={"engine": engine.name, "version": number},
            )
        return version
    candidates = engine.versions.select_related("engine").filter(status=EngineVersion.Status.ACTIVE)
    below = ""
    if older_than is not None and older_than.engine_id == engine.pk:
        candidates = candidates.filter(number__lt=older_than.number)
        below = f" older than v{older_than.number}"
    version = candidates.order_by("-number").first()
    if version is None:
        raise errors.EngineNotActive(
            f"{engine.name!r} has no active version{below}: name the version to test against.",
            details={"engine": engine.name},
        )
    return version


def _check_may_test(
    user: Any, new: EngineVersion, base: EngineVersion, rated: bool
) -> RatedDecision:
    """At least one of the two versions must be the user's (staff and the service itself,
    ``user`` None, excepted): a test spends worker time on engines, and its pairs are the
    business of the engines' owners. The other one's owner must consent to being used in
    other users' version tests (``engines.consent``; their own engines always may). Returns
    whether its games are rated: a test another user asked for is rated only against a
    bundled engine (``engines.consent.rated_decision``)."""
    staff = user is None or getattr(user, "is_staff", False)
    decision = rated_decision(
        [(new.engine, base.engine)],
        asked=rated,
        chooser=Chooser.ARENA if staff else Chooser.USER,
    )
    if not staff and user.pk not in (new.engine.owner_id, base.engine.owner_id):
        raise errors.VersionsNotYours(
            f"neither {new} nor {base} is yours: a version test needs one version of your engine.",
            details={"new": str(new), "base": str(base)},
        )
    for version in (new, base):
        check_pairing(
            version.engine, kind=PairingKind.VERSION_TEST, rated=decision.rated, requester=user
        )
    return decision


def version_test_create(
    *,
    user: Any,
    engine: str,
    variant: str,
    time_control: str,
    elo0: float,
    elo1: float,
    version: int | None = None,
    base_engine: str | None = None,
    base_version: int | None = None,
    model: str = SprtModel.LOGISTIC,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    start_suite: str = DEFAULT_SUITE,
    rated: bool = False,
) -> VersionTest:
    """Create a running test of ``engine`` v``version`` (default: its latest active version)
    against ``base_engine`` (default: the same engine) v``base_version`` (default: the latest
    active version below the new one, or the latest active one of another engine), and queue
    its first game pairs.

    ``elo0 < elo1`` in the units of ``model`` (``logistic`` Elo or ``normalized`` Elo per game),
    both within ``[-BOUND_LIMIT, BOUND_LIMIT]`` (``ratings.stats.sprt.BOUND_LIMIT``),
    ``alpha``, ``beta`` in (0, 0.5); ``max_pairs`` (1 to ``MAX_PAIRS_LIMIT``) caps the counted
    pairs; ``start_suite`` a suite of start positions (pairs walk it in order from a random
    offset) or ``"standard"``; ``rated``: whether its games should count for ratings (off by
    default; a user's test is rated only against a bundled engine, ``rated_note`` says why
    not).
    ``user`` must own at least one of the versions (staff and ``None``, the service, may test
    any).

    Raises (stable codes): ``invalid_sprt_bounds``, ``invalid_sprt_error_rate``,
    ``unknown_variant``, ``invalid_time_control``, ``time_control_too_long``,
    ``unknown_start_suite``, ``engine_not_found``, ``engine_version_not_found``,
    ``engine_not_active``, ``same_engine``, ``versions_not_yours`` (403), ``pairing_refused``
    (403: the other engine's owner lends it to no one's version tests), and those of
    ``arena.matches.services.match_create`` for a version that cannot play the variant
    (``engine_disabled``, ``engine_not_active``, ``variant_not_supported``). Nothing is written
    when it raises. ``ValueError`` for a ``max_pairs`` out of range or an unknown ``model``
    (the API's serializer refuses those first).
    """
    if not 1 <= int(max_pairs) <= MAX_PAIRS_LIMIT:
        raise ValueError(f"max_pairs must be 1..{MAX_PAIRS_LIMIT}, got {max_pairs}")
    bounds = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}
    try:
        params = SprtParameters(
            float(elo0), float(elo1), float(alpha), float(beta), SprtModel(model)
        )
        check_bound_limit(params)
    except SprtInputError as exc:
        raise errors.sprt_error(exc, bounds) from None
    try:
        variant_id = canonical_variant_id(variant)
    except UnknownVariantError as exc:
        raise errors.UnknownVariant(str(exc), details={"variant": str(variant)}) from None
    tc_text = normalize_time_control(time_control, variant_id)
    start_suite = normalize_start_suite(start_suite, variant_id)
    new = _version(engine, version)
    base = _version(base_engine or engine, base_version, older_than=new)
    if new.pk == base.pk:
        raise errors.SameEngine(
            f"{new} cannot be tested against itself: name another version.",
            details={"engine": new.engine.name, "version": new.number},
        )
    decision = _check_may_test(user, new, base, rated)
    offset = (
        0
        if start_suite == STANDARD
        else secrets.randbelow(len(load_suite(variant_id, start_suite)))
    )
    with transaction.atomic():
        test = VersionTest.objects.create(
            created_by=user,
            new_version=new,
            base_version=base,
            variant=variant_id,
            time_control=tc_text,
            start_suite=start_suite,
            opening_offset=offset,
            elo_model=params.model.value,
            elo0=params.elo0,
            elo1=params.elo1,
            alpha=params.alpha,
            beta=params.beta,
            max_pairs=int(max_pairs),
            rated=decision.rated,
            rated_note=decision.note or "",
        )
        # match_create checks both versions can play (active, enabled, the variant); its
        # refusal leaves nothing behind.
        _top_up(test, strict=True)
        test.save(update_fields=_COUNT_FIELDS)
    log.info("version test %s created: %s vs %s", test.pk, new, base)
    return test


# --------------------------------------------------------------------------- pairs


def _top_up(test: VersionTest, *, strict: bool) -> int:
    """Queue pairs until ``pairs_in_flight_target()`` are pending or the cap leaves no room;
    the caller holds the test's row lock and saves it. Returns how many were queued.

    ``strict``: a version that cannot be paired raises (creation: nothing is written);
    otherwise it stops the test with the reason (a version disabled since, for instance).
    """
    if test.status != VersionTest.Status.RUNNING:
        return 0
    pending = test.pairs.filter(state=VersionTestPair.State.PENDING).count()
    room = test.max_pairs - test.pairs_counted - pending
    wanted = min(pairs_in_flight_target() - pending, room)
    if wanted <= 0:
        return 0
    refusal = _pairing_refusal(test)
    if refusal is not None:  # a version disabled, rejected or lent no more since the start
        if strict:
            raise refusal
        log.warning("version test %s: no more pairs: %s", test.pk, refusal.detail)
        _end(test, VersionTest.Decision.STOPPED, f"no more pairs: {refusal.detail}")
        return 0
    queued = 0
    for _ in range(wanted):
        index = test.pairs_created
        match = match_create(
            engine_a=test.new_version,
            engine_b=test.base_version,
            variant=test.variant,
            time_control=test.time_control,
            rated=test.rated,
            best_of=2,
            start_suite=test.start_suite,
            start_index=test.opening_offset + index,
            priority=Match.Priority.VERSION_TEST,
            submitter=test.created_by,
        )
        VersionTestPair.objects.create(test=test, index=index, match=match)
        test.pairs_created = index + 1
        queued += 1
    return queued


def _pairing_refusal(test: VersionTest) -> errors.ApiError | None:
    """Why the test's next pair cannot be queued, or None: a version that can no longer play
    the variant (``engines.selectors.playability_error``), or the other owner's consent
    (``engines.consent``; not asked for a test the service itself created)."""
    for version in (test.new_version, test.base_version):
        error = playability_error(version, test.variant)
        if error is None and test.created_by is not None:
            error = pairing_refusal(
                version.engine,
                kind=PairingKind.VERSION_TEST,
                rated=test.rated,
                requester=test.created_by,
            )
        if error is not None:
            return error
    return None


def _pair_points(test: VersionTest, match: Match) -> list[float] | None:
    """The new version's points in each game of the pair (1, 1/2 or 0), or None when the pair
    does not count: the match was aborted, or it does not hold two played games."""
    if match.status != Match.Status.FINISHED:
        return None
    games = list(match.games.order_by("index"))
    if len(games) != 2 or any(g.termination == ABORTED for g in games):
        return None
    # A played game without a winner is a draw (an aborted one was excluded above).
    return [
        0.5 if g.winner_id is None else (1.0 if g.winner_id == test.new_version_id else 0.0)
        for g in games
    ]


def _count(test: VersionTest, points: list[float]) -> None:
    """Add one pair to the counts, append the LLR (None if it cannot be computed), and decide
    (H1, H0, or inconclusive at the cap). Never raises for a figure: whatever the statistics
    do, the pair is counted."""
    test.pentanomial[round(2 * sum(points))] += 1
    test.wins += sum(1 for p in points if p == 1.0)
    test.draws += sum(1 for p in points if p == 0.5)
    test.losses += sum(1 for p in points if p == 0.0)
    # version_test_figures never raises: a figure that cannot be computed is None (with a
    # note) and the pair stays counted; only a known LLR decides.
    result = version_test_figures(test)
    test.llr = result.llr
    test.llr_history = [
        *test.llr_history,
        None if result.llr is None else round(result.llr, 6),
    ]
    if result.decision is Decision.H1:
        _end(test, VersionTest.Decision.H1)
    elif result.decision is Decision.H0:
        _end(test, VersionTest.Decision.H0)
    elif test.pairs_counted >= test.max_pairs:
        _end(test, VersionTest.Decision.INCONCLUSIVE)


def _end(test: VersionTest, decision: str, reason: str = "") -> None:
    """Set the answer (the caller saves and then ends the pending pairs)."""
    test.status = (
        VersionTest.Status.STOPPED
        if decision == VersionTest.Decision.STOPPED
        else VersionTest.Status.FINISHED
    )
    test.decision = decision
    test.stop_reason = reason[:200]
    test.finished_at = timezone.now()


def _end_pending_pairs(test: VersionTest) -> int:
    """Void the test's pending pairs and abort their matches (pending or running: a worker
    still playing one finds its lease gone and records nothing). Returns the matches aborted."""
    pending = test.pairs.filter(state=VersionTestPair.State.PENDING)
    match_ids = list(pending.values_list("match_id", flat=True))
    pending.update(state=VersionTestPair.State.VOID)
    if not match_ids:
        return 0
    unfinished = (Match.Status.PENDING, Match.Status.RUNNING)
    # A match row locked now is being recorded (its transaction locks the match, then waits for
    # this test's lock, which we hold): waiting for it would deadlock, so it is skipped; it ends
    # finished, and its pair, void above, is not counted.
    free = list(
        Match.objects.select_for_update(skip_locked=True)
        .filter(pk__in=match_ids, status__in=unfinished)
        .values_list("pk", flat=True)
    )
    # No games, nothing rated, no match-ended hook (their pairs are settled above).
    error = f"version test {test.pk} ended ({test.decision})"
    return len(matches_abort(error=error, match_ids=free))


def version_test_match_event(event: MatchEnded) -> None:
    """The in-transaction ``MatchEnded`` subscriber (``apps.VersionTestsConfig.ready``). A
    test's pairs are created in the ``VERSION_TEST`` dispatch class (``_top_up``), so a
    match of another class is no pair and costs no query."""
    if event.priority != Match.Priority.VERSION_TEST:
        return
    version_test_match_ended(event.match_id)


def version_test_match_ended(match_id: int) -> bool:
    """Count the game pair of match ``match_id`` in its test, once; True if this call did.

    Called inside the transaction that records (or aborts) the match, after its games are
    written (``version_test_match_event``). Does nothing for a match that is not a test's pair,
    a pair already settled (a second call, a redelivery), or a match not ended yet. A finished
    pair with two played games is counted (pentanomial, W/D/L, LLR appended, decision); an
    aborted match or game voids the pair (``pairs_void``; replaced while the test runs, up to
    ``void_limit``). Then, while the test runs, pairs are queued up to the target; once it has
    its answer, its other pairs are voided and their matches aborted.
    """
    row = VersionTestPair.objects.filter(match_id=match_id).values("test_id", "state").first()
    if row is None or row["state"] != VersionTestPair.State.PENDING:
        return False
    with transaction.atomic():
        test = VersionTest.objects.select_for_update().get(pk=row["test_id"])
        pair = VersionTestPair.objects.select_for_update().get(match_id=match_id)
        match = Match.objects.get(pk=match_id)
        if pair.state != VersionTestPair.State.PENDING or match.status not in (
            Match.Status.FINISHED,
            Match.Status.ABORTED,
        ):
            return False
        points = _pair_points(test, match) if test.status == VersionTest.Status.RUNNING else None
        if points is None:
            pair.state = VersionTestPair.State.VOID
            if test.status == VersionTest.Status.RUNNING:
                test.pairs_void += 1
                if test.pairs_void > void_limit(test):
                    _end(
                        test,
                        VersionTest.Decision.STOPPED,
                        f"{test.pairs_void} pairs aborted (the last: {match.error[:120]})",
                    )
        else:
            pair.state = VersionTestPair.State.COUNTED
            pair.score = sum(points)
            _count(test, points)
        pair.save(update_fields=["state", "score"])
        if test.status == VersionTest.Status.RUNNING:
            _top_up(test, strict=False)
        if test.status != VersionTest.Status.RUNNING:
            _end_pending_pairs(test)
        test.save(update_fields=_COUNT_FIELDS)
    if test.status != VersionTest.Status.RUNNING:
        log.info("version test %s: %s after %s pairs", test.pk, test.decision, test.pairs_counted)
    return True


# --------------------------------------------------------------------------- stop


def version_test_stop(test_id: int, *, user: Any, reason: str = "") -> VersionTest:
    """Stop a running test for good: decision ``stopped``, its pending pairs voided and their
    matches aborted (a pair being played is not counted). The counts so far are kept.

    Only the creator or staff may: ``TestNotYours`` (403 ``test_not_yours``) otherwise;
    ``TestNotRunning`` (409 ``test_not_running``) if it already has its answer;
    ``NotFoundError`` (404) for no such test.
    """
    from arena.api.errors import NotFoundError

    with transaction.atomic():
        test = VersionTest.objects.select_for_update().filter(pk=test_id).first()
        if test is None:
            raise NotFoundError(f"no version test {test_id}.", details={"test": test_id})
        staff = bool(getattr(user, "is_staff", False))
        if not staff and (user is None or test.created_by_id != user.pk):
            raise errors.TestNotYours(details={"test": test_id})
        if test.status != VersionTest.Status.RUNNING:
            raise errors.TestNotRunning(
                f"version test {test_id} is {test.status} ({test.decision}).",
                details={"test": test_id, "status": test.status, "decision": test.decision},
            )
        creator = test.created_by_id is not None and test.created_by_id == user.pk
        who = "its creator" if creator else f"staff ({user.get_username()})"
        _end(test, VersionTest.Decision.STOPPED, reason or f"stopped by {who}")
        _end_pending_pairs(test)
        test.save(update_fields=_COUNT_FIELDS)
    log.info("version test %s stopped: %s", test_id, test.stop_reason)
    return test


# --------------------------------------------------------------------------- safety net


def version_tests_refresh() -> list[int]:
    """Beat job (every minute): settle the pending pairs of running tests whose match ended
    without the hook reaching them, and queue pairs a test lacks. Returns the ids of the tests
    this call changed.

    The hook in the recording transaction does both as each pair ends; this only repairs a
    path that ends a match without it (a bulk abort written straight to the rows). Idempotent.
    """
    changed: list[int] = []
    running = VersionTest.objects.filter(status=VersionTest.Status.RUNNING)
    for test_id in running.values_list("id", flat=True):
        ended = VersionTestPair.objects.filter(
            test_id=test_id,
            state=VersionTestPair.State.PENDING,
            match__status__in=(Match.Status.FINISHED, Match.Status.ABORTED),
        ).values_list("match_id", flat=True)
        settled = [version_test_match_ended(match_id) for match_id in list(ended)]
        with transaction.atomic():
            test = VersionTest.objects.select_for_update().get(pk=test_id)
            queued = _top_up(test, strict=False)
            if test.status != VersionTest.Status.RUNNING:
                _end_pending_pairs(test)
            test.save(update_fields=_COUNT_FIELDS)
        if any(settled) or queued or test.status != VersionTest.Status.RUNNING:
            changed.append(test_id)
    return changed
