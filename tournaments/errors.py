"""API errors the tournaments app raises (stable codes; the envelope is ``arena.api.errors``).

The shared ones come from ``arena.api.errors`` and the matches app (the same codes mean the
same thing whether a match or a tournament is being created); re-exported here so the app's
callers import from one place.
"""

from __future__ import annotations

from arena.api.errors import ApiError, EngineNotActive, TooFewEngines, UnknownVariant
from arena.matches.errors import EngineNotFound, InvalidTimeControl, VariantNotSupported

__all__ = [
    "ApiError",
    "DuplicateEngine",
    "EngineNotActive",
    "EngineNotFound",
    "InvalidTimeControl",
    "TooFewEngines",
    "UnknownVariant",
    "VariantNotSupported",
]


class DuplicateEngine(ApiError):
    default_code = "duplicate_engine"
    default_detail = "An engine is listed more than once."
