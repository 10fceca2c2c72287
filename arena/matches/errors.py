"""API errors of the matches app (stable codes; the envelope is ``arena.api.errors``).

Re-exported here with the shared ones the app raises, so callers import from one place.
"""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError, EngineNotActive, EngineNotYours, UnknownVariant

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


class VariantNotSupported(ApiError):
    default_code = "variant_not_supported"
    default_detail = "An engine did not announce this variant in its handshake."


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


class EngineNotFound(ApiError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "engine_not_found"
    default_detail = "No engine has this name."


class EngineDisabled(EngineNotActive):
    """The engine's owner disabled it: it keeps its history but enters no new match (409). A
    kind of ``EngineNotActive``, with its own code so clients can tell the two apart."""

    default_code = "engine_disabled"
    default_detail = "The engine is disabled by its owner."
