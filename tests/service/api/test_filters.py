"""Query filters, path ids and paging answer bad values with typed 400s (never a 500, never a
silent ignore): findings 5, 14 (variant filters) and 17."""

from __future__ import annotations

import json

import pytest

HUGE = "9223372036854775808"  # 2**63: one past the largest 64-bit id
HUGER = "1" + "0" * 40


def error_of(response) -> tuple[int, str, dict]:  # type: ignore[no-untyped-def]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    return response.status_code, body["error"]["code"], body["error"]["details"]


def ids_of(response) -> list[int]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


# --- integer filters and path ids ------------------------------------------------------------


@pytest.mark.parametrize("value", [HUGE, HUGER, "-1", "0", "1.5", "abc"])
@pytest.mark.django_db
def test_a_tournament_filter_out_of_range_or_not_an_id_is_invalid(anon_client, value):
    status, code, details = error_of(anon_client.get(f"/api/matches/?tournament={value}"))
    assert (status, code, list(details)) == (400, "invalid", ["tournament"])


@pytest.mark.django_db
def test_the_largest_id_is_a_valid_tournament_filter(anon_client, two_matches):
    assert ids_of(anon_client.get("/api/matches/?tournament=9223372036854775807")) == []


@pytest.mark.parametrize(
    "path",
    [
        f"/api/matches/{HUGE}/",
        f"/api/games/{HUGE}/",
        f"/api/games/{HUGER}/",
        f"/api/games/{HUGE}/record.txt",
        f"/api/tournaments/{HUGE}/",
        f"/api/engines/alice1/versions/{HUGE}/",
        f"/api/engines/alice1/versions/{HUGE}/download/",
    ],
)
def test_a_path_id_out_of_range_is_a_json_not_found(alice_client, alice1, path):
    status, code, _ = error_of(alice_client.get(path))
    assert (status, code) == (404, "not_found")


@pytest.mark.django_db
def test_a_web_page_id_out_of_range_is_a_404_not_a_crash(anon_client):
    assert anon_client.get(f"/games/{HUGE}/").status_code == 404
    assert anon_client.get(f"/tournaments/{HUGE}/").status_code == 404


# --- boolean filters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/matches/?rated=maybe", "rated"),
        ("/api/engines/?enabled=maybe", "enabled"),
        ("/api/engines/?bundled=2", "bundled"),
        ("/api/leaderboard/?variant=kete&provisional=maybe", "provisional"),
    ],
)
@pytest.mark.django_db
def test_a_boolean_filter_that_is_not_a_boolean_is_invalid(anon_client, url, field):
    status, code, details = error_of(anon_client.get(url))
    assert (status, code, list(details)) == (400, "invalid", [field])


@pytest.mark.parametrize(
    ("value", "rated"),
    [("true", True), ("1", True), ("false", False), ("0", False), ("False", False)],
)
def test_the_rated_filter_takes_the_usual_spellings(anon_client, two_matches, value, rated):
    kete, kiswahili = two_matches
    want = [kete.pk] if rated else [kiswahili.pk]
    assert ids_of(anon_client.get(f"/api/matches/?rated={value}")) == want


# --- variant filters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/api/matches/?variant=bogus",
        "/api/tournaments/?variant=bogus",
        "/api/engines/?variant=bogus",
        "/api/leaderboard/?variant=bogus",
    ],
)
@pytest.mark.django_db
def test_an_unknown_variant_filter_is_unknown_variant_everywhere(anon_client, url):
    status, code, details = error_of(anon_client.get(url))
    assert (status, code, details["variant"]) == (400, "unknown_variant", "bogus")


@pytest.mark.parametrize("alias", ["kete", "lamu", "KETE", "bao-la-kete"])
def test_the_match_variant_filter_takes_aliases(anon_client, two_matches, alias):
    kete, _ = two_matches
    assert ids_of(anon_client.get(f"/api/matches/?variant={alias}")) == [kete.pk]


def test_the_engine_variant_filter_takes_aliases(anon_client, alice1, bob1):
    response = anon_client.get("/api/engines/?variant=ngulu")
    assert response.status_code == 200
    assert [row["name"] for row in response.json()["results"]] == ["alice1", "bob1"]


# --- paging -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["abc", "-1", "0", "000", "1.5", " 5"])
@pytest.mark.parametrize(
    "url", ["/api/matches/", "/api/tournaments/", "/api/engines/", "/api/leaderboard/?variant=kete"]
)
@pytest.mark.django_db
def test_a_page_size_that_is_not_a_positive_integer_is_invalid_and_names_the_cap(
    anon_client, url, value
):
    sep = "&" if "?" in url else "?"
    status, code, details = error_of(anon_client.get(f"{url}{sep}page_size={value}"))
    assert (status, code, list(details)) == (400, "invalid", ["page_size"])
    # The documented cap, not the largest 64-bit integer.
    assert details["page_size"] == [
        "Must be a whole number from 1 to 200 (a larger one is served as 200)."
    ]


@pytest.mark.parametrize("value", ["abc", "-1", "0", "1.5", HUGER])
@pytest.mark.parametrize("url", ["/api/matches/", "/api/tournaments/", "/api/engines/"])
@pytest.mark.django_db
def test_a_page_that_is_not_a_positive_integer_is_invalid(anon_client, url, value):
    status, code, details = error_of(anon_client.get(f"{url}?page={value}"))
    assert (status, code, list(details)) == (400, "invalid", ["page"])


def test_a_page_past_the_end_is_not_found(anon_client, two_matches):
    status, code, details = error_of(anon_client.get("/api/matches/?page=3&page_size=1"))
    assert (status, code, details) == (404, "not_found", {"page": 3, "pages": 2})


def test_a_page_size_over_the_cap_is_capped_at_200(anon_client, two_matches):
    from arena.api.pagination import Pagination

    assert Pagination.max_page_size == 200
    for size in ("201", "100000", HUGE, HUGER):
        response = anon_client.get(f"/api/matches/?page_size={size}")
        assert ids_of(response) == [two_matches[1].pk, two_matches[0].pk]
        assert response.json()["next"] is None


def test_page_and_page_size_page_through_a_list(anon_client, two_matches):
    first = anon_client.get("/api/matches/?page_size=1")
    second = anon_client.get("/api/matches/?page_size=1&page=2")
    last = anon_client.get("/api/matches/?page_size=1&page=last")
    assert ids_of(first) == [two_matches[1].pk]
    assert ids_of(second) == ids_of(last) == [two_matches[0].pk]
