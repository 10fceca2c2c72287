"""A user's challenge: their engine against another, by engine names (``match_challenge``)."""

from __future__ import annotations

from django.contrib.auth.models import User

from arena.matches import errors
from arena.matches.models import Match
from arena.matches.services.creation import match_create
from arena.matches.services.queueing import queue_admit
from arena.openings import STANDARD
from engines.consent import PairingKind, check_pairing
from engines.selectors import engine_named, latest_playable_version


def match_challenge(
    *,
    user: User,
    engine: str,
    opponent: str,
    variant: str,
    time_control: str,
    rated: bool = True,
    start_suite: str = STANDARD,
) -> Match:
    """A user's challenge: their engine ``engine`` (latest active version, South in game 1)
    against ``opponent`` (latest active version), by engine names in any case.

    Raises ``engine_not_found`` (404) for an unknown name, ``engine_not_yours`` (403) if
    ``engine`` belongs to someone else, ``pairing_refused`` (403) if the opponent's owner does
    not accept this challenge (``engines.consent``), ``engine_not_active`` if either has no
    active version, ``engine_disabled`` if either is disabled by its owner, and every error of
    ``match_create``. A challenge between two of the user's own engines is played unrated.
    """
    mine, theirs = (engine_named(name) for name in (engine, opponent))  # any case
    if mine.owner_id != user.pk:
        raise errors.EngineNotYours(
            f"{engine!r} belongs to another user: challenge with an engine you own.",
            details={"engine": engine},
        )
    check_pairing(theirs, kind=PairingKind.CHALLENGE, rated=rated, requester=user)
    versions = [latest_playable_version(e) for e in (mine, theirs)]
    queue_admit(user, 1)
    return match_create(
        engine_a=versions[0],
        engine_b=versions[1],
        variant=variant,
        time_control=time_control,
        rated=rated,
        challenger=user,
        start_suite=start_suite,
    )
