"""API errors the tournaments app raises (stable codes; the envelope is ``arena.api.errors``).

The shared ones come from ``arena.api.errors``, the engine registry and the matches app (the
same codes mean the same thing whether a match or a tournament is being created); re-exported
here so the app's callers import from one place.
"""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError, NotFoundError, UnknownVariant
from arena.matches.errors import InvalidTimeControl, UnknownStartSuite
from engines.errors import EngineDisabled, EngineNotActive, EngineNotFound, VariantNotSupported

__all__ = [
    "ApiError",
    "DuplicateEngine",
    "EngineDisabled",
    "EngineNotActive",
    "EngineNotFound",
    "InvalidTimeControl",
    "NotFoundError",
    "RoundsNotApplicable",
    "StartAtTooLate",
    "TooFewEngines",
    "UnknownStartSuite",
    "UnknownVariant",
    "VariantNotSupported",
]


class DuplicateEngine(ApiError):
    default_code = "duplicate_engine"
    default_detail = "An engine is listed more than once."


class TooFewEngines(ApiError):
    default_code = "too_few_engines"
    default_detail = "Not enough engines for this operation."


class TooManyRounds(ApiError):
    """A Swiss asked for more rounds than its entrants minus one; ``details.rounds``,
    ``details.max_rounds``."""

    default_code = "too_many_rounds"
    default_detail = "A Swiss has at most one round fewer than it has engines."


class RoundsNotApplicable(ApiError):
    """``rounds`` given for a format whose rounds follow from its field (all but Swiss)."""

    default_code = "rounds_not_applicable"
    default_detail = "This format has no choice of rounds."


class StartAtTooLate(ApiError):
    """``start_at`` further ahead than ``services.MAX_START_AHEAD``; ``details.latest``."""

    default_code = "start_at_too_late"
    default_detail = "The start time is too far ahead."


class TournamentNotYours(ApiError):
    """Cancelling a tournament one did not create (staff excepted)."""

    status_code = status.HTTP_403_FORBIDDEN
    default_code = "tournament_not_yours"
    default_detail = "Only the tournament's creator or staff may do this."


class TournamentNotCancellable(ApiError):
    """Cancelling a tournament already finished or cancelled; ``details.status``."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "tournament_not_cancellable"
    default_detail = "The tournament is already over."


#: ``FormatError.code`` (pure formats) -> the API error raised for it.
FORMAT_ERRORS: dict[str, type[ApiError]] = {
    "too_few_engines": TooFewEngines,
    "too_many_rounds": TooManyRounds,
    "rounds_not_applicable": RoundsNotApplicable,
}


class TournamentNotSwiss(ApiError):
    """A Swiss-only read (the TRF export) of a tournament of another format;
    ``details.format``."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "tournament_not_swiss"
    default_detail = "Only a Swiss tournament has this."
