"""Which tournaments are rated: one staff (or the service) creates is rated as asked; one another
user creates is rated only if every pairing its format may make has one of the arena's bundled
engines, else it is played casual with a stable ``rated_note`` (engines.consent.rated_decision).
Nothing is refused for asking: any user may create a tournament of any active, enabled
engines."""

from __future__ import annotations

from typing import Any

import pytest

from engines.consent import CASUAL_SAME_OWNER, CASUAL_USER_PAIRING
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(make_version: Any, alice: Any) -> None:
    """``mine`` belongs to alice; ``alpha``, ``beta``, ``gamma`` to other users; ``greedy`` and
    ``random`` are bundled engines of the system user."""
    from django.contrib.auth import get_user_model

    from engines.models import Engine

    for name in ("alpha", "beta", "gamma", "mine", "greedy", "random"):
        make_version(name)
    Engine.objects.filter(name="mine").update(owner=alice)
    system, _ = get_user_model().objects.get_or_create(username="arena-system")
    Engine.objects.filter(name__in=["greedy", "random"]).update(owner=system, is_bundled=True)


def _post(client: Any, engines: list[str], **kw: Any) -> Any:
    body = {
        "name": "Cup",
        "variant": "bao-la-kete",
        "engines": engines,
        "time_control": "10+0.1",
    } | kw
    return client.post("/api/tournaments/", body, format="json")


@pytest.mark.parametrize(
    ("engines", "extra"),
    [
        (["alpha", "beta", "gamma"], {}),  # nobody's engine is alice's
        (["mine", "alpha"], {}),  # a round robin of two with her engine: her choice of opponent
        (["mine", "alpha", "greedy"], {"format": "gauntlet"}),  # mine vs alpha is in it
        (["mine", "alpha", "greedy"], {"format": "swiss"}),  # may pair mine with alpha
    ],
)
def test_a_users_rated_tournament_between_users_engines_is_played_casual(
    alice_client: Any, field: None, engines: list[str], extra: dict[str, Any]
) -> None:
    r = _post(alice_client, engines, **extra)
    assert r.status_code == 201, r.json()
    body = r.json()
    assert (body["rated"], body["rated_note"]) == (False, CASUAL_USER_PAIRING)
    tournament = Tournament.objects.get()
    assert (tournament.rated, tournament.rated_note) == (False, CASUAL_USER_PAIRING)
    listed = alice_client.get("/api/tournaments/").json()["results"][0]
    assert (listed["rated"], listed["rated_note"]) == (False, CASUAL_USER_PAIRING)


@pytest.mark.parametrize(
    ("engines", "extra"),
    [
        (["greedy", "mine", "alpha"], {"format": "gauntlet"}),  # every match has greedy
        (["mine", "greedy"], {}),
        (["greedy", "random"], {}),  # two bundled engines: neither can throw a game
    ],
)
def test_a_users_tournament_is_rated_when_every_pairing_has_a_bundled_engine(
    alice_client: Any, field: None, engines: list[str], extra: dict[str, Any]
) -> None:
    r = _post(alice_client, engines, **extra)
    assert r.status_code == 201, r.json()
    assert (r.json()["rated"], r.json()["rated_note"]) == (True, None)


def test_a_tournament_asked_casual_has_no_note(alice_client: Any, field: None) -> None:
    r = _post(alice_client, ["alpha", "beta"], rated=False)
    assert (r.status_code, r.json()["rated"], r.json()["rated_note"]) == (201, False, None)


def test_staff_and_the_service_itself_may_create_any_rated_tournament(
    alice: Any, alice_client: Any, field: None
) -> None:
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    r = _post(alice_client, ["alpha", "beta", "gamma"])
    assert (r.status_code, r.json()["rated"], r.json()["rated_note"]) == (201, True, None)
    t = services.tournament_create(
        name="Demo", variant="bao-la-kete", engines=["alpha", "beta"], time_control="10+0.1"
    )
    assert (t.rated, t.created_by) == (True, None)


def test_the_service_makes_a_plain_users_foreign_pairing_casual(bob: Any, field: None) -> None:
    t = services.tournament_create(
        name="x",
        variant="bao-la-kete",
        engines=["alpha", "beta"],
        time_control="10+0.1",
        created_by=bob,
    )
    assert (t.rated, t.rated_note) == (False, CASUAL_USER_PAIRING)


def test_a_staff_tournaments_same_owner_match_is_casual_with_its_note(
    alice: Any, field: None
) -> None:
    from engines.models import Engine
    from tournaments.models import Tournament as T

    Engine.objects.filter(name="alpha").update(owner=alice)
    t = services.tournament_create(
        name="Demo", variant="bao-la-kete", engines=["alpha", "mine"], time_control="10+0.1"
    )
    assert T.objects.get(pk=t.pk).rated is True  # the event; its one match is not
    services.tournament_start(t.pk)
    match = t.matches.get()
    assert (match.rated, match.rated_note) == (False, CASUAL_SAME_OWNER)
