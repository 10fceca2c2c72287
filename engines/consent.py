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

The owner's own requests are always allowed (but for the ladder, which is asked by nobody).
``requester=None`` means the service itself (the demo, tournaments it schedules), allowed like
the owner, except for the ladder. A refusal is ``PairingRefused``: 403 ``pairing_refused``
with ``details`` naming the engine, the setting and its value.

Rating: games between two engines of the same owner are never rated (``rated_between``), the
bundled engines (all owned by the system user) excepted; so no one lifts an engine's rating by
feeding it games against another engine of theirs built to lose.
"""

from __future__ import annotations

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


def rated_between(engine_a: Engine, engine_b: Engine) -> bool:
    """Whether games between these two engines may be rated: not if one owner owns both,
    unless both are bundled engines (the system user's reference players)."""
    if engine_a.owner_id != engine_b.owner_id:
        return True
    return engine_a.is_bundled and engine_b.is_bundled


def consent_of(engine: Engine) -> dict[str, Any]:
    """The consent setting as the API shows it:
    ``{"rated_pairing", "challenges", "ladder", "version_tests"}``."""
    return {
        "rated_pairing": engine.consent_rated,
        "challenges": engine.consent_challenges,
        "ladder": engine.consent_ladder,
        "version_tests": engine.consent_version_tests,
    }


_WHY = {
    "rated_pairing": "its owner allows rated games only in their own challenges and tournaments",
    "challenges": "its owner does not accept {rated}challenges from others",
    "ladder": "its owner keeps it out of automatic rated play",
    "version_tests": "its owner does not lend it to other users' version tests",
}


def _refused(engine: Engine, kind: PairingKind, setting: str, value: object) -> PairingRefused:
    why = _WHY[setting].format(rated="rated " if value == ChallengeConsent.UNRATED else "")
    return PairingRefused(
        f"{engine.name} cannot be paired in this {kind.value.replace('_', ' ')}: {why}.",
        details={"engine": engine.name, "kind": kind.value, "setting": setting, "value": value},
    )
