"""Who may create a rated tournament: every rated match needs an engine of the one who asked
for it (as a challenge does), unless they are staff; unrated tournaments of any active, enabled
engines are open to every user."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments import services
from tournaments.errors import RatedTournamentNotAllowed
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(make_version: Any, alice: Any) -> None:
    """``mine`` belongs to alice; ``alpha``, ``beta``, ``gamma`` to someone else."""
    for name in ("alpha", "beta", "gamma", "mine"):
        make_version(name)
    from engines.models import Engine

    Engine.objects.filter(name="mine").update(owner=alice)


def _post(client: Any, engines: list[str], **kw: Any) -> Any:
    body = {
        "name": "Cup",
        "variant": "bao-la-kete",
        "engines": engines,
        "time_control": "10+0.1",
    } | kw
    return client.post("/api/tournaments/", body, format="json")


def test_a_rated_round_robin_of_other_peoples_engines_is_refused(
    alice_client: Any, field: None
) -> None:
    r = _post(alice_client, ["alpha", "beta", "gamma"])
    assert r.status_code == 403
    error = r.json()["error"]
    assert error["code"] == "rated_tournament_not_allowed"
    # round_robin(3): [1-2], [0-1], [2-0] over alpha, beta, gamma (engine_a first).
    assert error["details"] == {
        "foreign_pairings": [["beta", "gamma"], ["alpha", "beta"], ["gamma", "alpha"]]
    }
    assert error["message"] == (
        "a rated tournament may only pair engines with one of yours; 3 match(es) would not "
        "(first: beta vs gamma). Make it unrated, or a gauntlet led by your engine."
    )
    assert Tournament.objects.count() == 0


def test_owning_one_entrant_of_a_round_robin_of_three_is_not_enough(
    alice_client: Any, field: None
) -> None:
    r = _post(alice_client, ["mine", "alpha", "beta"])
    assert (r.status_code, r.json()["error"]["details"]) == (
        403,
        {"foreign_pairings": [["alpha", "beta"]]},
    )


@pytest.mark.parametrize(
    ("engines", "extra"),
    [
        (["mine", "alpha", "beta", "gamma"], {"format": "gauntlet"}),  # every match has mine
        (["mine", "alpha"], {}),  # a round robin of two: one match, with mine
        (["alpha", "beta", "gamma"], {"rated": False}),  # unrated: open to everyone
    ],
)
def test_a_user_may_create_tournaments_whose_rated_matches_all_involve_their_engine(
    alice_client: Any, field: None, engines: list[str], extra: dict[str, Any]
) -> None:
    r = _post(alice_client, engines, **extra)
    assert r.status_code == 201, r.json()
    assert Tournament.objects.get().rated is extra.get("rated", True)


@pytest.mark.parametrize("fmt", ["swiss", "knockout"])
def test_a_swiss_or_knockout_may_pair_any_two_so_one_foreign_pair_is_refused(
    alice_client: Any, field: None, fmt: str
) -> None:
    r = _post(alice_client, ["mine", "alpha", "beta"], format=fmt)
    assert (r.status_code, r.json()["error"]["details"]) == (
        403,
        {"foreign_pairings": [["alpha", "beta"]]},
    )
    assert _post(alice_client, ["mine", "alpha"], format=fmt).status_code == 201


def test_a_gauntlet_led_by_a_foreign_engine_is_refused(alice_client: Any, field: None) -> None:
    r = _post(alice_client, ["alpha", "mine", "beta"], format="gauntlet")
    assert (r.status_code, r.json()["error"]["details"]) == (
        403,
        {"foreign_pairings": [["beta", "alpha"]]},
    )


def test_staff_and_the_service_itself_may_create_any_rated_tournament(
    alice: Any, alice_client: Any, field: None
) -> None:
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    assert _post(alice_client, ["alpha", "beta", "gamma"]).status_code == 201
    t = services.tournament_create(
        name="Demo", variant="bao-la-kete", engines=["alpha", "beta"], time_control="10+0.1"
    )
    assert (t.rated, t.created_by) == (True, None)


def test_the_service_refuses_a_foreign_rated_pairing_for_a_plain_user(
    bob: Any, field: None
) -> None:
    with pytest.raises(RatedTournamentNotAllowed):
        services.tournament_create(
            name="x",
            variant="bao-la-kete",
            engines=["alpha", "beta"],
            time_control="10+0.1",
            created_by=bob,
        )
