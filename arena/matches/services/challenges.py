"""A user's challenge: their engine against another, by engine names (``match_challenge``)."""

from __future__ import annotations

from django.contrib.auth.models import User

from arena.matches import errors
from arena.matches.models import Match
from arena.matches.services.creation import match_create
from arena.matches.services.queueing import queue_admit
from arena.openings import STANDARD
from engines.consent import Chooser, PairingKind, check_pairing, rated_decision
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
    ``match_create``.

    ``rated`` is the request; the match is rated only against one of the arena's bundled
    engines (``engines.consent.rated_decision``: a user chose this pairing), so a challenge
    between two users' engines, or two of the user's own, is played casual, its
    ``rated_note`` saying why; consent is checked for the games as they will be played.
    """
    mine, theirs = (engine_named(name) for name in (engine, opponent))  # any case
    if mine.owner_id != user.pk:
        raise errors.EngineNotYours(
            f"{engine!r} belongs to another user: challenge with an engine you own.",
            details={"engine": engine},
        )
    decision = rated_decision([(mine, theirs)], asked=rated, chooser=Chooser.USER)
    check_pairing(theirs, kind=PairingKind.CHALLENGE, rated=decision.rated, requester=user)
    versions = [latest_playable_version(e) for e in (mine, theirs)]
    queue_admit(user, 1)
    return match_create(
        engine_a=versions[0],
        engine_b=versions[1],
        variant=variant,
        time_control=time_control,
        rated=decision.rated,
        rated_note=decision.note,
        challenger=user,
        start_suite=start_suite,
    )
