"""Celery tasks of people's games (thin: an id in, the work in ``people.runner``)."""

from __future__ import annotations

from celery import shared_task

from people.runner import play


@shared_task(name="people.tasks.play_person_game")
def play_person_game(game_id: int) -> str:
    """Play person game ``game_id`` on this people slot (``arena.beat_pool.PeoplePool``);
    returns ``skipped`` (no longer pending), ``finished`` or ``aborted``. Idempotent: only a
    pending game is claimed. Acknowledged on receipt (not late): a game outlasting the broker's
    visibility timeout must not be delivered twice, and a game lost with its worker ends on
    the person's clock anyway."""
    return play(game_id)
