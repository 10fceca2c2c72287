"""API errors of people's games (stable codes; the envelope is ``arena.api.errors``;
docs/api-errors.md lists them)."""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError


class GameNotFound(ApiError):
    """No such game of the caller's (another person's game is not found either)."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "not_found"
    default_detail = "There is no such game of yours."


class TimeControlNotForPeople(ApiError):
    """A time control outside what a person may play (``details``: the limits in s)."""

    default_code = "time_control_not_for_people"
    default_detail = "People play Fischer clocks within the service's limits (docs/play.md)."


class TooManyGames(ApiError):
    """The person already has ``settings.BAO_PEOPLE_GAMES_PER_USER`` games open (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "too_many_games"
    default_detail = "You have too many games open: finish or resign one first."


class InvalidMove(ApiError):
    """Not a move token of the variant (rules 4)."""

    default_code = "invalid_move"
    default_detail = "Not a move in the rules' notation."


class IllegalMove(ApiError):
    """A well-formed token that is not legal in the game's position (``details.legal``)."""

    default_code = "illegal_move"
    default_detail = "The move is not legal in this position."


class NotYourTurn(ApiError):
    """The engine is to move, the game has not begun, or a move of yours is already waiting
    for the worker (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "not_your_turn"
    default_detail = "It is not your turn."


class PlyMismatch(ApiError):
    """The move was sent for another ply than the one a move of the person's would be now
    (``details.ply`` sent, ``details.expected``): a stale page, a retry or a second click after
    the game moved on (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "ply_mismatch"
    default_detail = "The game is not at the ply this move was sent for."


class GameOver(ApiError):
    """The game has ended (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "game_over"
    default_detail = "The game is over."
