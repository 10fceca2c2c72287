"""Writes of Elo ratings: rate the games of a finished match (formulas in ``tournaments.ratings``).

Every rated game moves both engines' ``Rating`` (per engine version and variant) and leaves two
``RatingChange`` rows. The unique (game, engine_version) constraint and the check made under
the row locks make rating idempotent: a game already rated is skipped.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.db import transaction

from arena.matches.events import MatchEnded
from arena.matches.models import Match
from arena.rules import SOUTH_POINTS
from arena.terminations import is_rated
from tournaments import ratings
from tournaments.models import Rating, RatingChange

if TYPE_CHECKING:
    from arena.matches.models import Game

logger = logging.getLogger(__name__)


def game_is_rateable(game: Game) -> bool:
    """Whether ``game`` counts for Elo.

    It must be flagged rated, have a rated termination (not ``aborted``) and a result.
    """
    return bool(game.rated) and is_rated(game.termination) and game.result in SOUTH_POINTS


def rate_ended_match(event: MatchEnded) -> None:
    """``MatchEnded`` subscriber (after commit): rate the games of a rated match that ended."""
    if event.rated:
        match = Match.objects.filter(pk=event.match_id).first()
        if match is not None:
            rate_match(match)


def rate_match(match: Match) -> int:
    """Rate the rated games of ``match`` in ``finished_at`` order.

    Returns how many were newly rated.

    Nothing happens for an unrated match. Safe to call again: already-rated games are skipped.
    """
    if not match.rated:
        return 0
    games = match.games.all().order_by("finished_at", "index")
    return sum(1 for game in games if rate_game(game, match.variant))


def rate_game(game: Game, variant: str) -> bool:
    """Apply one game to both engines' ratings; False if it is not rateable or already rated.

    Locks both ``Rating`` rows (in engine_version id order, so two games between the same
    engines cannot deadlock) before checking for an existing ``RatingChange``: a concurrent
    rating of the same game waits and then sees it done.
    """
    if not game_is_rateable(game):
        return False
    south_score = SOUTH_POINTS[game.result]
    ids = sorted((game.south_id, game.north_id))
    with transaction.atomic():
        for version_id in ids:
            Rating.objects.get_or_create(engine_version_id=version_id, variant=variant)
        locked = {
            r.engine_version_id: r
            for r in Rating.objects.select_for_update()
            .filter(engine_version_id__in=ids, variant=variant)
            .order_by("engine_version_id")
        }
        if RatingChange.objects.filter(game=game).exists():
            return False
        south, north = locked[game.south_id], locked[game.north_id]
        update = ratings.rate_game(
            south.rating, south.games, north.rating, north.games, south_score
        )
        changes = (
            (south, north, south_score,
             update.a_before, update.a_after, update.b_before, update.k_a),
            (north, south, 1.0 - south_score,
             update.b_before, update.b_after, update.a_before, update.k_b),
        )
        for rating, opponent, score, before, after, opponent_before, k in changes:
            RatingChange.objects.create(
                game=game,
                engine_version_id=rating.engine_version_id,
                opponent_id=opponent.engine_version_id,
                variant=variant,
                score=score,
                rating_before=before,
                rating_after=after,
                opponent_rating_before=opponent_before,
                k_factor=k,
                games_before=rating.games,
                finished_at=game.finished_at,
            )
        for rating, _opponent, score, _before, after, _ob, _k in changes:
            rating.rating = after
            rating.games += 1
            if score == 1.0:
                rating.wins += 1
            elif score == 0.5:
                rating.draws += 1
            else:
                rating.losses += 1
            rating.provisional = ratings.is_provisional(rating.games)
            rating.save(
                update_fields=[
                    "rating", "games", "wins", "draws", "losses", "provisional", "updated_at",
                ]
            )
    logger.info("rated game %s (%s): %s", game.pk, variant, game.result)
    return True
