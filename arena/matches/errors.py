"""API errors of the matches app (stable codes; the envelope is ``arena.api.errors``).

Re-exported here with the engine registry's and the shared ones the app raises, so callers
import from one place.
"""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError, UnknownVariant
from engines.errors import (
    EngineDisabled,
    EngineNotActive,
    EngineNotFound,
    EngineNotYours,
    VariantNotSupported,
)

__all__ = [
    "ApiError",
    "EngineDisabled",
    "EngineNotActive",
    "EngineNotFound",
    "EngineNotYours",
    "InvalidTimeControl",
    "MatchNotCancellable",
    "QueueFull",
    "SameEngine",
    "TimeControlTooLong",
    "UnknownStartSuite",
    "UnknownVariant",
    "VariantNotSupported",
]


class SameEngine(ApiError):
    default_code = "same_engine"
    default_detail = "An engine version cannot play a match against itself."


class InvalidTimeControl(ApiError):
    default_code = "invalid_time_control"
    default_detail = (
        "The time control does not parse: use '<base s>+<increment s>' such as '10+0.1'."
    )


class TimeControlTooLong(ApiError):
    default_code = "time_control_too_long"
    default_detail = "A match at this time control could outlast the worker's time limit."


class UnknownStartSuite(ApiError):
    default_code = "unknown_start_suite"
    default_detail = "The start positions are neither 'standard' nor a suite of this variant."


class QueueFull(ApiError):
    """The user already has ``settings.BAO_QUEUE_MAX_PER_USER`` matches waiting (409; details
    ``queued``, ``adding``, ``limit``). Staff are exempt."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "queue_full"
    default_detail = "You have too many matches waiting to be played."


class MatchNotCancellable(ApiError):
    """Only a pending or running match can be cancelled (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "match_not_cancellable"
    default_detail = "The match is already over."
