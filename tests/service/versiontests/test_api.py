"""The version-test API: create, list, detail with the live figures, stop; stable error codes."""

from __future__ import annotations

from typing import Any

import pytest

from ratings.stats.sprt import SprtParameters, sprt

pytestmark = pytest.mark.django_db

BODY = {"engine": "alice1", "variant": "kete", "time_control": "5+0.05", "elo0": 0, "elo1": 20}


def _code(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_a_test_is_created_and_shown_with_its_figures(
    alice_client: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    from arena.matches.models import Match

    response = alice_client.post("/api/tests/", BODY, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    params = SprtParameters(0, 20)
    assert body["new"] == {"id": alice_v2.pk, "engine": "alice1", "version": 2}
    assert body["base"] == {"id": alice_v1.pk, "engine": "alice1", "version": 1}
    assert (body["status"], body["decision"], body["created_by"]) == ("running", None, "alice")
    assert (body["model"], body["unit"], body["alpha"], body["beta"]) == (
        "logistic",
        "Elo",
        0.05,
        0.05,
    )
    assert (body["rated"], body["start_suite"], body["max_pairs"]) == (False, "balanced", 1000)
    assert body["lower"] == pytest.approx(params.lower)
    assert body["upper"] == pytest.approx(params.upper)
    assert (body["pairs"], body["llr"], body["elo"], body["los"]) == (0, 0.0, None, None)
    assert (body["pentanomial"], body["llr_history"], body["pairs_pending"]) == ([0] * 5, [], 3)
    match = Match.objects.filter(version_test_pair__test_id=body["id"]).first()
    record_pair(match, "WD")
    detail = alice_client.get(f"/api/tests/{body['id']}/").json()
    expected = sprt([0, 0, 0, 1, 0], params)
    assert detail["pentanomial"] == [0, 0, 0, 1, 0]
    assert (detail["wins"], detail["draws"], detail["losses"], detail["pairs"]) == (1, 1, 0, 1)
    assert detail["llr"] == pytest.approx(expected.llr)
    assert detail["llr_history"] == [round(expected.llr, 6)]
    assert (detail["elo"], detail["ci_low"], detail["ci_high"], detail["los"]) == (
        pytest.approx(expected.elo),
        pytest.approx(expected.ci_low),
        pytest.approx(expected.ci_high),
        pytest.approx(expected.los),
    )
    assert detail["ci_low"] < detail["elo"] < detail["ci_high"] and 0.5 < detail["los"] < 1


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"elo0": 10, "elo1": 5}, 400, "invalid_sprt_bounds"),
        ({"elo0": 5, "elo1": 5}, 400, "invalid_sprt_bounds"),
        ({"alpha": 0.5}, 400, "invalid_sprt_error_rate"),
        ({"alpha": 0}, 400, "invalid_sprt_error_rate"),
        ({"beta": -0.1}, 400, "invalid_sprt_error_rate"),
        ({"model": "bayes"}, 400, "invalid"),
        ({"max_pairs": 0}, 400, "invalid"),
        ({"variant": "chess"}, 400, "unknown_variant"),
        ({"time_control": "ten"}, 400, "invalid_time_control"),
        ({"start_suite": "nope"}, 400, "unknown_start_suite"),
        ({"engine": "carol9"}, 404, "engine_not_found"),
        ({"version": 7}, 404, "engine_version_not_found"),
        ({"version": 2, "base_version": 2}, 400, "same_engine"),
        (
            {"engine": "bob1", "base_engine": "bob1", "version": 2, "base_version": 1},
            403,
            "versions_not_yours",
        ),
    ],
)
def test_bad_input_answers_a_stable_code_and_creates_nothing(
    alice_client: Any,
    alice_v1: Any,
    alice_v2: Any,
    bob_v2: Any,
    change: dict[str, Any],
    status: int,
    code: str,
) -> None:
    from versiontests.models import VersionTest

    response = alice_client.post("/api/tests/", BODY | change, format="json")
    assert _code(response) == (status, code), response.json()
    assert not VersionTest.objects.exists()


def test_writes_need_a_user_and_reads_do_not(anon_client: Any, alice_v1: Any) -> None:
    assert _code(anon_client.post("/api/tests/", BODY, format="json")) == (401, "not_authenticated")
    assert _code(anon_client.post("/api/tests/1/stop/")) == (401, "not_authenticated")
    assert anon_client.get("/api/tests/").json()["results"] == []
    assert _code(anon_client.get("/api/tests/99/")) == (404, "not_found")


def test_the_list_is_paginated_and_filtered_strictly(
    alice: Any,
    alice_client: Any,
    alice_v1: Any,
    alice_v2: Any,
    bob_v1: Any,
    pairs_in_flight: int,
) -> None:
    mine = alice_client.post("/api/tests/", BODY, format="json").json()
    against_bob = alice_client.post(
        "/api/tests/", BODY | {"base_engine": "bob1", "variant": "kingulu"}, format="json"
    ).json()
    alice_client.post(f"/api/tests/{mine['id']}/stop/")
    ids = lambda query: [t["id"] for t in alice_client.get(f"/api/tests/{query}").json()["results"]]  # noqa: E731
    assert ids("") == [against_bob["id"], mine["id"]]
    assert ids("?status=stopped") == [mine["id"]]
    assert ids("?variant=ngulu") == [against_bob["id"]]
    assert ids("?engine=BOB1") == [against_bob["id"]]
    assert ids("?creator=alice&page_size=1") == [against_bob["id"]]
    assert ids("?creator=bob") == []
    assert _code(alice_client.get("/api/tests/?status=won")) == (400, "invalid")
    assert _code(alice_client.get("/api/tests/?variant=chess")) == (400, "unknown_variant")
    assert _code(alice_client.get("/api/tests/?page=0")) == (400, "invalid")


def test_the_creator_stops_a_test_once_and_nobody_else_may(
    alice_client: Any, bob_client: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    test = alice_client.post("/api/tests/", BODY, format="json").json()
    assert _code(bob_client.post(f"/api/tests/{test['id']}/stop/")) == (403, "test_not_yours")
    stopped = alice_client.post(f"/api/tests/{test['id']}/stop/")
    assert stopped.status_code == 200
    body = stopped.json()
    assert (body["status"], body["decision"], body["pairs_pending"]) == ("stopped", "stopped", 0)
    assert body["stop_reason"] == "stopped by its creator"
    assert _code(alice_client.post(f"/api/tests/{test['id']}/stop/")) == (409, "test_not_running")
    assert _code(alice_client.post("/api/tests/999/stop/")) == (404, "not_found")
