"""Writes of the tournaments app: creating and starting tournaments, recording finished matches.

``match_finished(match)`` is the hook ``arena.matches.services.match_record_result`` calls, in
its transaction, once the games of a match are written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from tournaments.models import Tournament

if TYPE_CHECKING:
    from arena.matches.models import Match

# Match statuses that end a match for the purpose of tournament progress.
_DONE_STATUSES = ("finished", "aborted")


def tournament_refresh_status(tournament_id: int) -> bool:
    """Mark a running tournament finished if every one of its matches is finished or aborted.

    Locks the tournament row first so that two matches finishing at once in different
    transactions cannot both miss the last one (the second waits, then sees the first's commit).
    Returns True if this call finished the tournament.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        matches = tournament.matches.all()
        if not matches.exists() or matches.exclude(status__in=_DONE_STATUSES).exists():
            return False
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        return True


def match_finished(match: Match) -> None:
    """Record that ``match`` has ended: rate its games, advance its tournament.

    Called by ``match_record_result`` inside its transaction after the games are written (and
    safe to call again for the same match: nothing is counted twice).
    """
    if match.tournament_id is not None:
        tournament_refresh_status(match.tournament_id)
