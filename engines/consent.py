"""Whether an engine may be paired: its owner's consent, and whether a game between two engines
can be rated. The one place every feature that pairs engines asks (HackSoft: selectors read).

Each engine carries one consent setting, set by its owner (``Engine.consent_*``,
``engines.services.engine_update``); the defaults allow everything, as before the setting
existed, so owners opt out:

``consent_rated`` (``anyone`` | ``own_events``)
    who may put it into *rated* play: anyone, or only its owner (their own challenges and
    tournaments; automatic rated play such as a ladder is nobody's own event).
``consent_challenges`` (``all`` | ``unrated`` | ``none``)
    which challenges by other users it accepts.
``consent_ladder`` (bool)
    whether it plays automatic rated play (a ladder that pairs engines as it comes).
``consent_version_tests`` (bool)
    whether other users may use it as an opponent in their version tests.
``consent_people`` (bool, default off; on for the bundled engines)
    whether signed-in people may play it in the browser (``people``: casual games, never
    rated). Unlike the others it is opt-in: a person's game costs its owner nothing but
    shows its play to anyone.

The owner's own requests are always allowed (but for the ladder, which is asked by nobody).
``requester=None`` means the service itself (the demo, tournaments it schedules), allowed like
the owner, except for the ladder. A refusal is ``PairingRefused``: 403 ``pairing_refused``
with ``details`` naming the engine, the setting and its value.

Rating (``rated_decision``, the one place that decides whether games are rated): games
between two engines of the same owner are never rated, the bundled engines (all owned by the
system user) excepted; and a rated game between two users' engines comes only from a pairing
the arena chose (``Chooser.ARENA``: the ladder's matchmaker and its placement matches,
tournaments created by staff or by the service itself). A pairing a user chose
(``Chooser.USER``: a challenge, a tournament, a version test) is rated only against the
arena's bundled engines, which cannot throw games; anything else is played casual whatever
the request asked, with ``CASUAL_*`` as the stable ``rated_note``. Any rule that let one user
pick the opponent of a rated game between two users' engines could be farmed with a second
account whose engine loses on a signal (the increment, the hour, the start position).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engines.errors import PairingRefused
from engines.models import ChallengeConsent, Engine, RatedPairing


class PairingKind(StrEnum):
    """What asks to pair an engine."""

    CHALLENGE = "challenge"  # a user's challenge (arena.matches.services.match_challenge)
    TOURNAMENT = "tournament"  # a tournament created by a user (tournaments.services)
    LADDER = "ladder"  # automatic rated play, nobody's own request
    VERSION_TEST = "version_test"  # a user's test of an engine version against this one
    PEOPLE = "people"  # a person plays it in the browser (people.services.person_game_start)


def pairing_refusal(
    engine: Engine, *, kind: PairingKind, rated: bool, requester: Any
) -> PairingRefused | None:
    """The ``PairingRefused`` error if ``engine``'s consent refuses this pairing, else None.

    ``kind``: what asks; ``rated``: whether the games would be rated; ``requester``: the user
    asking (``None``: the service itself).
    """
    if kind == PairingKind.LADDER:
        if not engine.consent_ladder:
            return _refused(engine, kind, "ladder", False)
        if engine.consent_rated == RatedPairing.OWN_EVENTS:
            return _refused(engine, kind, "rated_pairing", engine.consent_rated)
        return None
    if requester is None or getattr(requester, "pk", None) == engine.owner_id:
        return None
    if kind == PairingKind.PEOPLE and not engine.consent_people:
        return _refused(engine, kind, "people", False)
    if kind == PairingKind.CHALLENGE:
        challenges = engine.consent_challenges
        if challenges == ChallengeConsent.NONE or (
            rated and challenges == ChallengeConsent.UNRATED
        ):
            return _refused(engine, kind, "challenges", challenges)
    if kind == PairingKind.VERSION_TEST and not engine.consent_version_tests:
        return _refused(engine, kind, "version_tests", False)
    if rated and engine.consent_rated == RatedPairing.OWN_EVENTS:
        return _refused(engine, kind, "rated_pairing", engine.consent_rated)
    return None


def check_pairing(engine: Engine, *, kind: PairingKind, rated: bool, requester: Any) -> None:
    """Raise ``PairingRefused`` (403 ``pairing_refused``) if ``engine``'s consent refuses the
    pairing (``pairing_refusal``)."""
    refusal = pairing_refusal(engine, kind=kind, rated=rated, requester=requester)
    if refusal is not None:
        raise refusal


class Chooser(StrEnum):
    """Who chose a pairing, for ``rated_decision``."""

    ARENA = "arena"  # the ladder, its placement matches, staff's or the service's tournaments
    USER = "user"  # a user's challenge, tournament or version test


#: The stable ``rated_note`` of a game asked rated but played casual: both engines of one owner.
CASUAL_SAME_OWNER = "casual: both engines belong to one owner"
#: ... or a pairing a user chose between two users' engines (none of them bundled).
CASUAL_USER_PAIRING = (
    "casual: rated games between two users' engines come only from pairings the arena "
    "chooses (the ladder, tournaments created by staff); challenges and events you create "
    "are rated only against the arena's bundled engines"
)


@dataclass(frozen=True)
class RatedDecision:
    """Whether games are rated, and why not when they were asked rated: ``note`` is one of the
    ``CASUAL_*`` texts then, else None (also when they were asked casual)."""

    rated: bool
    note: str | None = None


def rated_decision(
    pairs: Iterable[tuple[Engine, Engine]], *, asked: bool, chooser: Chooser
) -> RatedDecision:
    """Whether the games of ``pairs`` (every pairing of a challenge or event, as engines) are
    rated when ``asked`` (the request's ``rated``) and ``chooser`` chose the pairing.

    Rated only if asked and every pair may be (``pair_casual_note``); the note of the first
    pair that may not otherwise. The one place every feature decides ``rated``: challenges,
    tournaments, version tests, the ladder and ``match_create``'s last check.
    """
    if not asked:
        return RatedDecision(rated=False)
    for engine_a, engine_b in pairs:
        note = pair_casual_note(engine_a, engine_b, chooser)
        if note is not None:
            return RatedDecision(rated=False, note=note)
    return RatedDecision(rated=True)


def pair_casual_note(engine_a: Engine, engine_b: Engine, chooser: Chooser) -> str | None:
    """Why games between these two engines cannot be rated (a ``CASUAL_*`` text), or None if
    they can: not if one owner owns both, unless both are bundled engines (the system user's
    reference players); not if a user chose the pairing and neither engine is bundled."""
    if engine_a.owner_id == engine_b.owner_id:
        return None if engine_a.is_bundled and engine_b.is_bundled else CASUAL_SAME_OWNER
    if chooser == Chooser.USER and not (engine_a.is_bundled or engine_b.is_bundled):
        return CASUAL_USER_PAIRING
    return None


def rated_between(engine_a: Engine, engine_b: Engine) -> bool:
    """Whether games between these two engines may be rated in a pairing the arena chose
    (``pair_casual_note`` with ``Chooser.ARENA``): not if one owner owns both, unless both are
    bundled engines."""
    return pair_casual_note(engine_a, engine_b, Chooser.ARENA) is None


def consent_of(engine: Engine) -> dict[str, Any]:
    """The consent setting as the API shows it:
    ``{"rated_pairing", "challenges", "ladder", "version_tests", "people"}``."""
    return {
        "rated_pairing": engine.consent_rated,
        "challenges": engine.consent_challenges,
        "ladder": engine.consent_ladder,
        "version_tests": engine.consent_version_tests,
        "people": engine.consent_people,
    }


_WHY = {
    "rated_pairing": "its owner allows rated games only in their own challenges and tournaments",
    "challenges": "its owner does not accept {rated}challenges from others",
    "ladder": "its owner keeps it out of automatic rated play",
    "version_tests": "its owner does not lend it to other users' version tests",
    "people": "its owner does not let people play it in the browser",
}


def _refused(engine: Engine, kind: PairingKind, setting: str, value: object) -> PairingRefused:
    why = _WHY[setting].format(rated="rated " if value == ChallengeConsent.UNRATED else "")
    where = (
        "a game against a person"
        if kind == PairingKind.PEOPLE
        else f"this {kind.value.replace('_', ' ')}"
    )
    return PairingRefused(
        f"{engine.name} cannot be paired in {where}: {why}.",
        details={"engine": engine.name, "kind": kind.value, "setting": setting, "value": value},
    )
