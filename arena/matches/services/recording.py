"""Recording a played match exactly once (``match_record_result``).

Exactly once: a result is written only by the holder of the match's lease, in one transaction
that first flips the match from ``running`` (with that ``lease_token``) to ``finished`` or
``aborted`` by a conditional UPDATE. A second delivery of the same task, a worker whose lease
was taken over, or a retry after a crash finds the row count 0 and writes nothing; the unique
(match, index) constraint on games is the second guard.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from arena.engine_text import storable, storable_text
from arena.matches.events import MatchEnded, RatedResult, publish_match_ended
from arena.matches.models import Game, Match
from arena.matches.usage import usage_at_commit
from arena.referee import GameRecord, MatchRecord
from arena.referee.output_cap import cap_stored_moves
from arena.rules import SOUTH_POINTS
from arena.terminations import ABORTED, TERMINATIONS, is_rated


def _game_time(game: GameRecord, fallback: datetime) -> tuple[datetime | None, datetime]:
    started = parse_datetime(game.started_at) if game.started_at else None
    if started is not None and timezone.is_naive(started):
        started = timezone.make_aware(started, UTC)
    if started is None:
        return None, fallback
    return started, started + timedelta(milliseconds=game.duration_ms)


class _Recording(NamedTuple):
    """What recording a match reads of its row (one query, no joins)."""

    engine_a_id: int
    engine_b_id: int
    rated: bool
    variant: str
    tournament_id: int | None
    priority: int


def _games_from_record(match_id: int, match: _Recording, record: MatchRecord) -> list[Game]:
    """Game rows of match ``match_id`` from the referee's record, its text made storable.

    Names in the record map to versions by position: ``record.engines`` is ``[A, B]`` and
    the referee keeps the two names distinct. Engine errors are re-keyed by side. The moves
    are stored in their JSON form (``MoveRecord.to_dict``), likewise ``time_loss``.
    Raises ``ValueError`` for a record that does not belong to this match.
    """
    names = list(record.engines)
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"record engines {names!r} are not two distinct names")
    by_name = {names[0]: match.engine_a_id, names[1]: match.engine_b_id}
    now = timezone.now()
    games: list[Game] = []
    for position, game in enumerate(record.games):
        south, north = by_name[game.south], by_name[game.north]
        winner = by_name[game.winner] if game.winner else None
        termination = game.termination
        if termination not in TERMINATIONS:
            raise ValueError(f"unknown termination {termination!r} in game {game.index}")
        # Games of an aborted match are kept for inspection but never rated: the match did
        # not complete, and its engines are not to blame for our fault.
        rated = match.rated and not record.aborted and is_rated(termination)
        started, finished = _game_time(game, now + timedelta(microseconds=position))
        engine_errors = {
            side: storable_text(game.engine_errors[name])
            for side, name in (("south", game.south), ("north", game.north))
            if game.engine_errors.get(name)
        }
        games.append(
            Game(
                match_id=match_id,
                index=game.index,
                south_id=south,
                north_id=north,
                winner_id=winner,
                result=storable_text(game.result),
                termination=termination,
                rated=rated,
                plies=game.plies,
                start_position=storable_text(game.start_position),
                final_position=storable_text(game.final_position),
                # Capped by the referee already; held to the cap again for a worker of an
                # older version (arena.referee.output_cap).
                moves=storable(cap_stored_moves([m.to_dict() for m in game.moves])),
                scores=list(game.scores) if game.scores is not None else None,
                seeds_in_hand=game.seeds_in_hand,
                engine_errors=engine_errors,
                detail=storable_text(game.detail),
                time_loss=game.time_loss.to_dict() if game.time_loss is not None else None,
                started_at=started,
                duration_ms=game.duration_ms,
                finished_at=finished,
            )
        )
    return games


def _abort_error(record: MatchRecord) -> str:
    for game in record.games:
        if game.termination == ABORTED:
            return f"game {game.index} aborted: {game.detail or 'no detail'}"
    return "match aborted by the referee"


def match_record_result(
    match_id: int, lease_token: str, record: MatchRecord, *, match: Match | None = None
) -> bool:
    """Write the games and the result of a match exactly once; True if this call wrote them.

    ``record`` is the referee's ``MatchRecord``. An ``aborted`` record marks the match
    ``aborted`` (its games stored unrated). Returns False, writing nothing, if the match is not
    ``running`` under ``lease_token`` (already recorded, reclaimed by another worker, aborted).
    Publishes ``MatchEnded`` in the same transaction (``arena.matches.events``).
    Raises ``ValueError`` (nothing written) if the record does not fit the match. Text stored
    from the record is made storable first (NUL and lone surrogates to U+FFFD,
    ``arena.engine_text.storable``): the referee cleans engine output already, this guard keeps
    any text PostgreSQL refuses from leaving a match ``running`` for ever.

    ``match``: the match's row as the caller loaded it (the runner), which saves reading it
    again: what recording reads of it (engines, ``rated``, variant, tournament, ``priority``)
    never changes once the match is created; the lease is checked by the UPDATE all the same.
    Without it, one query reads those columns (and finds nothing for a match no longer ours).
    Then the conditional UPDATE that is the lock and one insert of the games: two or three
    queries besides the subscribers' (issue 19); one more on PostgreSQL when this is the
    outermost transaction (``usage.usage_at_commit``: the fair share's rollup rows of the
    account, shared by every slot, are then written and locked at the commit only).
    """
    aborted = record.aborted
    now = timezone.now()
    ours = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=lease_token)
    outermost = not transaction.get_connection().in_atomic_block
    with transaction.atomic():
        if outermost:
            usage_at_commit()  # the account's usage rows locked at the commit only
        if match is not None and match.pk == match_id:
            known = _Recording(*(getattr(match, field) for field in _Recording._fields))
        else:
            row = ours.values_list(*_Recording._fields).first()
            if row is None:
                return False
            known = _Recording(*row)
        games = _games_from_record(match_id, known, record)
        score = record.score
        winner = None
        if record.winner is not None:  # never for an aborted record
            winner = known.engine_a_id if record.winner == record.engines[0] else known.engine_b_id
        status = Match.Status.ABORTED if aborted else Match.Status.FINISHED
        # The row read above is not locked: this UPDATE's row count is the lock.
        updated = ours.update(
            status=status,
            lease_token="",
            lease_expires_at=None,
            score_a=None if aborted else score[0],
            score_b=None if aborted else score[1],
            winner_id=winner,
            finished_at=now,
            error=storable_text(_abort_error(record)) if aborted else "",
        )
        if updated == 0:
            return False
        Game.objects.bulk_create(games)
        publish_match_ended(
            MatchEnded(
                match_id=match_id,
                status=status,
                variant=known.variant,
                tournament_id=known.tournament_id,
                rated=known.rated,
                priority=known.priority,
                rated_results=tuple(
                    RatedResult(g.south_id, g.north_id, g.result)
                    for g in games
                    if g.rated and g.result in SOUTH_POINTS
                ),
            )
        )
    return True
