"""Playing matches on a worker: claim, play with the referee under a lease keeper, record once.

``execute_next`` is the body of the ``run_match`` task: a free slot claims the match the
dispatcher picks (``arena.matches.dispatch``; the message's match id is only a hint), sends the
wake-up of the next slot while more is claimable (the chain that runs a batch queued with a
wake-up per slot, ``services.matches_enqueue_ids``) and plays it. ``execute_match`` claims one
given match (tests, tools). Both take a referee configuration of their own for tests
(``sandbox=off`` for speed). Outcomes:

* ``skipped``: nothing claimable (done, aborted, leased by a live worker, out of attempts, gone);
* ``recorded``: this run wrote the result;
* ``lost_lease``: stopped or finished, but the match was no longer ours (another worker took it
  over after our lease expired, it was cancelled, or our worker handed it back): nothing
  written, the engines killed within about a second of the loss (``arena.matches.keeper``);
* ``retry``: an infrastructure fault (sandbox could not start, referee ``aborted``, package
  not fetched from the package storage or unreadable, time limit); the match is released and
  claimable again after a delay;
* ``aborted``: the same, on the last allowed attempt: the match is marked ``aborted``; also a
  record the database refuses or that does not fit the match (``DataError``/``ValueError`` from
  ``match_record_result``): retrying would replay the same refusal, so the match is aborted
  at once with the reason, never left ``running``.

Database outages are not faults of the match: before a claim the slot retries with back-off
(the message stays unacknowledged, so nothing is consumed for nothing); a finished match's
record is written with retries while the lease holds (the keeper renews it once the database
answers again). Engine misbehaviour is not a fault here: the referee turns it into a lost game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import TypeVar

from django.conf import settings
from django.db import DataError, InterfaceError, OperationalError, close_old_connections, connection
from django.utils import timezone

from arena import metrics
from arena.engine_text import storable_text
from arena.matches.dispatch import match_claim_next
from arena.matches.keeper import LEASE_LOST, LeaseKeeper
from arena.matches.leases import (
    Claim,
    lease_clock_beat,
    match_claim,
    match_release,
    max_attempts,
    takeovers_held_for,
)
from arena.matches.limits import match_limits
from arena.matches.live import LivePublisher
from arena.matches.models import Match
from arena.matches.services import (
    match_abort,
    match_enqueue,
    match_record_result,
    match_wake_next,
)
from arena.matches.timeloss import report_jump
from arena.referee import (
    MatchControl,
    MatchRecord,
    MatchStopped,
    RefereeConfig,
    TimeControl,
    play_match,
)
from arena.referee.events import EventHandler
from arena.terminations import Termination
from engines.storage import checkout

log = logging.getLogger(__name__)


class RunOutcome(StrEnum):
    """What one ``run_match`` delivery did (module docstring)."""

    SKIPPED = "skipped"
    RECORDED = "recorded"
    LOST_LEASE = "lost_lease"
    RETRY = "retry"
    ABORTED = "aborted"


SKIPPED = RunOutcome.SKIPPED
RECORDED = RunOutcome.RECORDED
LOST_LEASE = RunOutcome.LOST_LEASE
RETRY = RunOutcome.RETRY
ABORTED = RunOutcome.ABORTED

#: Seconds before a released match is tried again (a busy or broken machine may recover).
RETRY_DELAY_S = 10
#: Errors of an unreachable or restarting database: retried, never charged to a match.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)
#: How long a slot retries the database before a claim, then hands its message back.
CLAIM_RETRY_S = 600
#: How long a finished match's record is retried while the database is down (the lease is
#: renewed as soon as it answers again; after this, the match is played again elsewhere).
RECORD_RETRY_S = 900
#: Back-off between database retries, in seconds (doubling from the first to the last).
BACKOFF_S = (0.5, 5.0)
#: A message whose hinted match has a lease expiring within this many seconds past its lease
#: (its worker died: the redelivery of its message) waits for it instead of being dropped.
HINT_WAIT_MARGIN_S = 2.0

T = TypeVar("T")


class ClaimUnavailable(RuntimeError):
    """The database stayed unreachable for ``CLAIM_RETRY_S`` before a claim (the task hands its
    message back to the broker)."""


def default_referee_config() -> RefereeConfig:
    """The referee settings of a worker: the sandbox of the settings
    (``engines.validation.sandbox_config``), the memory cap per engine from
    ``settings.BAO_ENGINE_MEMORY_BYTES``."""
    from engines.validation import sandbox_config

    return RefereeConfig(
        sandbox=sandbox_config(),
        memory_cap_bytes=int(settings.BAO_ENGINE_MEMORY_BYTES),
    )


def _play(
    match: Match,
    config: RefereeConfig,
    control: MatchControl,
    on_event: EventHandler | None = None,
) -> MatchRecord:
    # Packages run from this host's cache, fetched from the package storage by content hash
    # and kept there for the whole match; they are named "<engine> v<n>".
    with checkout(match.engine_a) as package_a, checkout(match.engine_b) as package_b:
        # While the referee plays, the slot's thread needs no connection (its keeper and
        # publisher use the process's link): closed, so a running match holds none of its own;
        # the record opens a new one. Not inside a transaction (a test's).
        if not connection.in_atomic_block:
            connection.close()
        return play_match(
            package_a,
            package_b,
            match.variant,
            TimeControl.parse(match.time_control),
            seed=match.seed,
            config=config,
            on_event=on_event,
            best_of=match.best_of,
            control=control,
            start=match.start_position or None,
        )


def _reset_connection() -> None:
    close_old_connections()
    connection.close()


def _backoff() -> Callable[[], None]:
    delay = [BACKOFF_S[0]]

    def sleep() -> None:
        time.sleep(delay[0])
        delay[0] = min(delay[0] * 2, BACKOFF_S[1])

    return sleep


def _db_retry(action: Callable[[], T], *, control: MatchControl, what: str, match_id: int) -> T:
    """``action()`` retried through database outages for up to ``RECORD_RETRY_S`` while the
    match is still ours. Each retry tells the keeper the worker is alive (so it renews the lease
    when the database answers again); raises ``MatchStopped`` once the lease is lost and the
    last ``TRANSIENT_DB_ERRORS`` after the retry time."""
    give_up = time.monotonic() + RECORD_RETRY_S
    pause = _backoff()
    while True:
        try:
            return action()
        except TRANSIENT_DB_ERRORS as exc:
            log.warning("match %s: %s failed (%s); retrying", match_id, what, exc)
            _reset_connection()
            if time.monotonic() > give_up:
                raise
            control.check()  # MatchStopped once the keeper found the lease gone
            pause()


def _give_up_or_retry(
    claim: Claim,
    error: str,
    record: MatchRecord | None,
    control: MatchControl,
    match: Match | None = None,
) -> RunOutcome:
    """An infrastructure fault on this claim: retry while attempts remain, else abort (keeping
    the games the referee did play, unrated)."""
    error = storable_text(error)  # it may quote text an exception took from a package
    if claim.attempts < max_attempts():
        released = _db_retry(
            lambda: match_release(claim, error, delay_s=RETRY_DELAY_S),
            control=control, what="release", match_id=claim.match_id,
        )  # fmt: skip
        if released:
            match_enqueue(claim.match_id, countdown=RETRY_DELAY_S)
            log.warning(
                "match %s: attempt %s failed (%s); retrying", claim.match_id, claim.attempts, error
            )
            return RETRY
        return LOST_LEASE
    log.error("match %s: attempt %s failed (%s); aborting", claim.match_id, claim.attempts, error)
    if record is not None:
        return _record(claim, replace(record, aborted=True), control, match)
    done = _db_retry(
        lambda: match_abort(claim.match_id, f"after {claim.attempts} attempts: {error}",
                            claim=claim),
        control=control, what="abort", match_id=claim.match_id,
    )  # fmt: skip
    return ABORTED if done else LOST_LEASE


def _record(
    claim: Claim, record: MatchRecord, control: MatchControl, match: Match | None = None
) -> RunOutcome:
    """``match_record_result`` under our lease (``match``: the row we loaded to play it, so it
    is not read again), retried through database outages:
    ``recorded`` (``aborted`` for an aborted record) or ``lost_lease``. A record it refuses
    (``ValueError``) or the database refuses (``DataError``, e.g. text PostgreSQL cannot hold)
    aborts the match with that reason: the referee plays the same games again on a retry, so
    the refusal would only repeat."""
    try:
        done = _db_retry(
            lambda: match_record_result(claim.match_id, claim.token, record, match=match),
            control=control, what="recording the result", match_id=claim.match_id,
        )  # fmt: skip
    except (DataError, ValueError) as exc:
        log.exception("match %s: the record could not be stored", claim.match_id)
        error = storable_text(f"the match record could not be stored: {type(exc).__name__}: {exc}")
        return ABORTED if match_abort(claim.match_id, error, claim=claim) else LOST_LEASE
    if not done:
        return LOST_LEASE
    metrics.count_recorded_games(record.games)
    if any(g.time_loss is not None for g in record.games):
        try:
            report_jump(claim.worker)
        except Exception:  # a report must not turn a recorded match into a failure
            log.exception("match %s: the time-loss report failed", claim.match_id)
    return ABORTED if record.aborted else RECORDED


def _worker_config(config: RefereeConfig | None) -> RefereeConfig:
    if config is None:
        config = default_referee_config()
    elif config.sandbox is None:
        config = replace(config, sandbox=default_referee_config().sandbox)
    if config.on_metric is None:
        config = replace(config, on_metric=metrics.observe_referee)
    return config


def play_claimed(claim: Claim, *, config: RefereeConfig | None = None) -> RunOutcome:
    """Play and record the match ``claim`` holds; returns one of the outcomes above.

    ``config`` None means ``default_referee_config()``; a given config gets the worker's
    sandbox unless it sets one. Never raises for engine or infrastructure faults, except
    ``BaseException`` s that are not ``Exception`` s (the keeper is stopped first).
    """
    control = MatchControl()
    match = _db_retry(
        lambda: Match.objects.select_related("engine_a__engine", "engine_b__engine").get(
            pk=claim.match_id
        ),
        control=control, what="loading the match", match_id=claim.match_id,
    )  # fmt: skip
    limits = match_limits(match.variant, match.time_control)
    keeper = LeaseKeeper(claim, control, deadline_s=limits.soft)
    keeper.start()
    publisher = LivePublisher(match)  # each move to the live page, from a queue (live.py)
    publisher.start()
    try:
        record: MatchRecord | None = None
        error = ""
        try:
            record = _play(match, _worker_config(config), control, publisher.on_event)
            if record.aborted:
                error = next(
                    (
                        f"game {g.index}: {g.detail or 'aborted'}"
                        for g in record.games
                        if g.termination == Termination.ABORTED
                    ),
                    "referee aborted the match",
                )
        except MatchStopped as stop:
            if stop.reason == LEASE_LOST:
                log.info("match %s: stopped, the lease is gone; nothing recorded", claim.match_id)
                return LOST_LEASE
            error = f"stopped: {stop.reason}"  # overdue: an infrastructure fault
        except Exception as exc:  # SandboxError, EnginePackageError, SoftTimeLimitExceeded, bugs
            log.exception("match %s: infrastructure failure", claim.match_id)
            error = f"{type(exc).__name__}: {exc}"
        # From here the match leaves ``running`` by our own write: not a lost lease.
        keeper.finishing()
        try:
            if error:
                return _give_up_or_retry(claim, error, record, control, match)
            assert record is not None
            return _record(claim, record, control, match)
        except MatchStopped:
            return LOST_LEASE
    finally:
        publisher.stop()
        keeper.stop()


def execute_match(match_id: int, *, config: RefereeConfig | None = None) -> RunOutcome:
    """Claim match ``match_id`` itself (not the dispatcher's pick), play and record it;
    ``skipped`` if it is not claimable. For tests and tools; workers use ``execute_next``."""
    row = Match.objects.filter(pk=match_id).values("variant", "time_control").first()
    if row is None:
        return SKIPPED
    limits = match_limits(row["variant"], row["time_control"])
    claim = match_claim(match_id, lease_seconds=limits.lease)
    if claim is None:
        return SKIPPED
    return play_claimed(claim, config=config)


def _hint_wait_until(hint: int | None) -> float:
    """Monotonic time until which a slot with nothing to claim waits for the hinted match: its
    lease expires soon and was not renewed (the worker holding it died, and this message is
    the broker's redelivery of it). 0: do not wait."""
    if hint is None:
        return 0.0
    row = (
        Match.objects.filter(pk=hint, status=Match.Status.RUNNING)
        .values("variant", "time_control", "lease_expires_at")
        .first()
    )
    if row is None or row["lease_expires_at"] is None:
        return 0.0
    lease = match_limits(row["variant"], row["time_control"]).lease
    left = (row["lease_expires_at"] - timezone.now()).total_seconds()
    if left > lease:
        return 0.0
    return time.monotonic() + max(0.0, left) + HINT_WAIT_MARGIN_S


def claim_next(hint: int | None = None, *, worker: str = "") -> Claim | None:
    """The claim of a free slot: the dispatcher's pick, else (if the hinted match's lease is
    about to expire) that match once it does; None when there is nothing to play. Database
    outages are retried with back-off for ``CLAIM_RETRY_S``, then ``ClaimUnavailable``."""
    give_up = time.monotonic() + CLAIM_RETRY_S
    pause = _backoff()
    wait_until: float | None = None
    held_checked = False
    while True:
        try:
            claim = match_claim_next(worker=worker)
            if claim is not None:
                return claim
            if wait_until is None:
                wait_until = _hint_wait_until(hint)
            if time.monotonic() >= wait_until:
                if wait_until == 0.0 or held_checked:
                    return None
                # The hinted lease expired, but takeovers may be held (the lease clock: just
                # after an outage, or silent since the dead worker was its only beat): beat it
                # (which starts the grace) and wait the grace out once.
                held_checked = True
                lease_clock_beat()
                held = takeovers_held_for()
                if held <= 0:
                    continue
                wait_until = time.monotonic() + held + HINT_WAIT_MARGIN_S
            time.sleep(1.0)
        except TRANSIENT_DB_ERRORS as exc:
            log.warning("claim: the database is unavailable (%s); retrying", exc)
            _reset_connection()
            if time.monotonic() > give_up:
                raise ClaimUnavailable(str(exc)) from exc
            pause()


def execute_next(
    hint: int | None = None, *, worker: str = "", config: RefereeConfig | None = None
) -> RunOutcome:
    """A free slot's turn: claim the dispatcher's pick (``claim_next``), wake the next slot if
    more is claimable (``services.match_wake_next``: a batch of matches is queued with a
    wake-up per slot, not per match; tried again once the match is played if the broker or
    database failed) and play it; ``skipped`` when nothing is claimable. Raises
    ``ClaimUnavailable`` (database down too long)."""
    claim = claim_next(hint, worker=worker)
    if claim is None:
        return SKIPPED
    woke = match_wake_next()
    try:
        return play_claimed(claim, config=config)
    finally:
        if woke is None:
            match_wake_next()
