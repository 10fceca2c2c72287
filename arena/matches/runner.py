"""Playing one match on a worker: claim, play with the referee under a heartbeat, record once.

``execute_match`` is the body of the ``run_match`` task, kept apart so tests can call it with a
referee configuration of their own (``sandbox=off`` for speed). Outcomes:

* ``skipped``: not claimable (done, aborted, leased by a live worker, out of attempts, gone);
* ``recorded``: this run wrote the result;
* ``lost_lease``: played, but another worker had taken the match over (nothing written);
* ``retry``: an infrastructure fault (sandbox could not start, referee ``aborted``, package
  not fetched from the package storage or unreadable, soft time limit); the match is released
  and queued again after a delay;
* ``aborted``: the same, on the last allowed attempt: the match is marked ``aborted``; also a
  record the database refuses or that does not fit the match (``DataError``/``ValueError`` from
  ``match_record_result``): retrying would replay the same refusal, so the match is aborted
  at once with the reason, never left ``running``.

Engine misbehaviour is not a fault here: the referee turns it into a lost game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import DataError

from arena import metrics
from arena.engine_text import storable_text
from arena.matches.leases import (
    Claim,
    LeaseHeartbeat,
    match_claim,
    match_release,
    max_attempts,
)
from arena.matches.limits import match_limits
from arena.matches.live import LivePublisher
from arena.matches.models import Match
from arena.matches.services import match_abort, match_enqueue, match_record_result
from arena.referee import RefereeConfig, TimeControl, play_match
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
    match: Match, config: RefereeConfig, on_event: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    # Packages run from this host's cache, fetched from the package storage by content hash
    # and kept there for the whole match; they are named "<engine> v<n>".
    with checkout(match.engine_a) as package_a, checkout(match.engine_b) as package_b:
        record = play_match(
            package_a,
            package_b,
            match.variant,
            TimeControl.parse(match.time_control),
            seed=match.seed,
            config=config,
            on_event=on_event,
            best_of=match.best_of,
            start=match.start_position or None,
        )
    return record.to_dict()


def _give_up_or_retry(claim: Claim, error: str, record: dict[str, Any] | None) -> RunOutcome:
    """An infrastructure fault on this claim: retry while attempts remain, else abort (keeping
    the games the referee did play, unrated)."""
    error = storable_text(error)  # it may quote text an exception took from a package
    if claim.attempts < max_attempts():
        if match_release(claim, error):
            match_enqueue(claim.match_id, countdown=RETRY_DELAY_S)
            log.warning(
                "match %s: attempt %s failed (%s); retrying", claim.match_id, claim.attempts, error
            )
            return RETRY
        return LOST_LEASE
    log.error("match %s: attempt %s failed (%s); aborting", claim.match_id, claim.attempts, error)
    if record is not None:
        return _record(claim, {**record, "aborted": True})
    done = match_abort(claim.match_id, f"after {claim.attempts} attempts: {error}", claim=claim)
    return ABORTED if done else LOST_LEASE


def _record(claim: Claim, record: dict[str, Any]) -> RunOutcome:
    """``match_record_result`` under our lease: ``recorded`` (``aborted`` for an aborted record)
    or ``lost_lease``. A record it refuses (``ValueError``) or the database refuses
    (``DataError``, e.g. text PostgreSQL cannot hold) aborts the match with that reason: the
    referee plays the same games again on a retry, so the refusal would only repeat."""
    try:
        done = match_record_result(claim.match_id, claim.token, record)
    except (DataError, ValueError) as exc:
        log.exception("match %s: the record could not be stored", claim.match_id)
        error = storable_text(f"the match record could not be stored: {type(exc).__name__}: {exc}")
        return ABORTED if match_abort(claim.match_id, error, claim=claim) else LOST_LEASE
    if not done:
        return LOST_LEASE
    metrics.count_recorded_games(record.get("games", []))
    return ABORTED if record.get("aborted") else RECORDED


def execute_match(
    match_id: int,
    *,
    config: RefereeConfig | None = None,
    heartbeat_interval: float | None = None,
) -> RunOutcome:
    """Claim, play and record match ``match_id``; returns one of the outcomes above.

    ``config`` None means ``default_referee_config()``; a given config gets the worker's
    sandbox unless it sets one. Never raises for engine or infrastructure faults, except
    ``SoftTimeLimitExceeded``-style ``BaseException`` s that are not ``Exception`` s (after
    releasing the match).
    """
    match = (
        Match.objects.select_related("engine_a__engine", "engine_b__engine")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        return SKIPPED
    limits = match_limits(match.variant, match.time_control)
    claim = match_claim(match_id, lease_seconds=limits.lease)
    if claim is None:
        return SKIPPED
    if config is None:
        config = default_referee_config()
    elif config.sandbox is None:
        config = replace(config, sandbox=default_referee_config().sandbox)
    if config.on_metric is None:
        config = replace(config, on_metric=metrics.observe_referee)
    heartbeat = LeaseHeartbeat(claim, interval=heartbeat_interval)
    heartbeat.start()
    publisher = LivePublisher(match)  # each move to the live page, from a queue (live.py)
    publisher.start()

    def on_event(event: dict[str, Any]) -> None:
        heartbeat.on_event(event)
        publisher.on_event(event)

    record: dict[str, Any] | None = None
    error = ""
    try:
        record = _play(match, config, on_event)
        if record.get("aborted"):
            error = next(
                (
                    f"game {g['index']}: {g.get('detail') or 'aborted'}"
                    for g in record["games"]
                    if g["termination"] == Termination.ABORTED
                ),
                "referee aborted the match",
            )
    except Exception as exc:  # SandboxError, EnginePackageError, SoftTimeLimitExceeded, bugs
        log.exception("match %s: infrastructure failure", match_id)
        error = f"{type(exc).__name__}: {exc}"
    finally:
        heartbeat.stop()
        publisher.stop()
    if error:
        return _give_up_or_retry(claim, error, record)
    assert record is not None
    return _record(claim, record)
