"""Celery tasks of people's games (thin: an id in, the work in ``people.runner``)."""

from __future__ import annotations

from celery import shared_task

from people.runner import play
from people.services import person_games_abort_stale


@shared_task(name="people.tasks.play_person_game")
def play_person_game(game_id: int) -> str:
    """Play person game ``game_id`` on this people slot (``arena.beat_pool.PeoplePool``);
    returns ``skipped`` (no longer pending), ``finished`` or ``aborted``. Idempotent: only a
    pending game is claimed. Acknowledged on receipt (not late): a game outlasting the broker's
    visibility timeout must not be delivered twice, and a game lost with its worker ends on
    the person's clock anyway."""
    return play(game_id)


@shared_task(name="people.tasks.abort_stale_person_games", ignore_result=True)
def abort_stale_person_games() -> int:
    """Beat job (every minute, ``people.periodic``): abort every running game whose worker died
    (``services.person_games_abort_stale``: its side to move's clock ran out more than
    ``STALE_AFTER_S`` ago); returns how many."""
    return person_games_abort_stale()
