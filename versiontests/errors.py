"""API errors of version tests (stable codes; the envelope is ``arena.api.errors``).

The shared ones (an unknown engine, a version that cannot play, a bad time control...) come from
the engine registry and the matches app and mean the same thing here; re-exported so callers
import from one place.
The SPRT's own codes are those of ``ratings.stats.sprt.SprtInputError``.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status

from arena.api.errors import ApiError, UnknownVariant
from arena.matches.errors import (
    InvalidTimeControl,
    SameEngine,
    TimeControlTooLong,
    UnknownStartSuite,
)
from engines.errors import (
    EngineDisabled,
    EngineNotActive,
    EngineNotFound,
    EngineVersionNotFound,
    PairingRefused,
    VariantNotSupported,
)
from ratings.stats.sprt import SprtInputError

__all__ = [
    "ApiError",
    "EngineDisabled",
    "EngineNotActive",
    "EngineNotFound",
    "EngineVersionNotFound",
    "InvalidSprtBounds",
    "InvalidSprtErrorRate",
    "InvalidTimeControl",
    "PairingRefused",
    "SameEngine",
    "TestNotRunning",
    "TestNotYours",
    "TimeControlTooLong",
    "UnknownStartSuite",
    "UnknownVariant",
    "VariantNotSupported",
    "VersionsNotYours",
    "sprt_error",
]


class InvalidSprtBounds(ApiError):
    default_code = "invalid_sprt_bounds"
    default_detail = "The SPRT bounds must be finite numbers with elo0 < elo1."


class InvalidSprtErrorRate(ApiError):
    default_code = "invalid_sprt_error_rate"
    default_detail = "alpha and beta must lie strictly between 0 and 0.5."


class VersionsNotYours(ApiError):
    """Neither version of a test belongs to the user who asks for it."""

    status_code = status.HTTP_403_FORBIDDEN
    default_code = "versions_not_yours"
    default_detail = "A version test needs at least one version of an engine you own."


class TestNotYours(ApiError):
    """Only the test's creator (or staff) may stop it."""

    __test__ = False  # not a pytest class, whatever its name says
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "test_not_yours"
    default_detail = "Only the creator of the test (or staff) may stop it."


class TestNotRunning(ApiError):
    """The test already has its answer (or was stopped)."""

    __test__ = False
    status_code = status.HTTP_409_CONFLICT
    default_code = "test_not_running"
    default_detail = "The test is no longer running."


_SPRT_ERRORS: dict[str, type[ApiError]] = {
    "invalid_sprt_bounds": InvalidSprtBounds,
    "invalid_sprt_error_rate": InvalidSprtErrorRate,
}


def sprt_error(exc: SprtInputError, details: dict[str, Any]) -> ApiError:
    """The API error for a refusal of ``ratings.stats.sprt.SprtParameters`` (same code)."""
    return _SPRT_ERRORS[exc.code](str(exc), details=details)
