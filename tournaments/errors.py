"""API errors the tournaments app raises (stable codes; the envelope is ``arena.api.errors``).

The shared ones come from ``arena.api.errors`` and the matches app (the same codes mean the
same thing whether a match or a tournament is being created); re-exported here so the app's
callers import from one place.
"""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError, EngineNotActive, TooFewEngines, UnknownVariant
from arena.matches.errors import (
    EngineDisabled,
    EngineNotFound,
    InvalidTimeControl,
    UnknownStartSuite,
    VariantNotSupported,
)

__all__ = [
    "ApiError",
    "DuplicateEngine",
    "EngineDisabled",
    "EngineNotActive",
    "EngineNotFound",
    "InvalidTimeControl",
    "RatedTournamentNotAllowed",
    "TooFewEngines",
    "UnknownStartSuite",
    "UnknownVariant",
    "VariantNotSupported",
]


class DuplicateEngine(ApiError):
    default_code = "duplicate_engine"
    default_detail = "An engine is listed more than once."


class RatedTournamentNotAllowed(ApiError):
    """A non-staff user asked for a rated tournament with a match between two engines they do
    not own (``tournaments.services.tournament_create``)."""

    status_code = status.HTTP_403_FORBIDDEN
    default_code = "rated_tournament_not_allowed"
    default_detail = "A rated tournament may only pair engines with one of yours."
