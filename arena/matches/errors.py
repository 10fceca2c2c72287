"""API errors of the matches app (stable codes; the envelope is ``arena.api.errors``).

Re-exported here with the engine registry's and the shared ones the app raises, so callers
import from one place.
"""

from __future__ import annotations

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
