"""Version tests in the browser: the list with the API's filters, a test's page (its LLR
drawn between the bounds, the pentanomial, the latest pairs), starting one through the form
(errors by field) and stopping it (its creator only)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def version_test(world: Any, alice: Any) -> Any:
    """alice's test of alpha v2 against bob's beta v1, with three pairs counted."""
    from versiontests.services import version_test_create

    world(0)
    test = version_test_create(
        user=alice,
        engine="alpha",
        base_engine="beta",
        variant="bao-la-kete",
        time_control="10+0.1",
        elo0=0,
        elo1=20,
    )
    test.pentanomial = [0, 1, 1, 1, 0]
    test.wins, test.draws, test.losses = 2, 2, 2
    test.llr_history = [-0.05, 0.11, 0.02]
    test.llr = 0.02
    test.save()
    return test


def test_a_test_page_draws_the_llr_between_the_bounds(version_test: Any) -> None:
    html = Client().get(f"/tests/{version_test.pk}/").content.decode()
    assert "<h1>Version test" in html and "alpha v2 against beta v1" in html
    chart = html[html.index('class="rating-chart llr-chart"') : html.index("</svg>")]
    assert re.search(
        r'<desc id="llr-desc">LLR after 3 pairs: 0\.02, between the bounds '
        r"-2\.94 \(H0 accepted below\) and 2\.94 \(H1 accepted above\)\.</desc>",
        chart,
    )
    assert chart.count(" L") == 3  # from 0 before the first pair, then one point per pair
    assert '<line class="bound h1"' in chart and '<line class="bound h0"' in chart
    assert "<td>0</td><td>1</td><td>1</td><td>1</td><td>0</td>" in html  # the pentanomial
    assert html.count('<a href="/matches/') >= 1  # its queued pairs
    assert 'id="stop-test"' not in html  # a visitor


def test_the_list_filters_as_the_api(version_test: Any) -> None:
    link = f'href="/tests/{version_test.pk}/"'
    assert link in Client().get("/tests/?engine=BETA&status=running").content.decode()
    assert link not in Client().get("/tests/?status=finished").content.decode()
    refused = Client().get("/tests/?variant=chess")
    assert refused.status_code == 400 and 'id="f-variant-errors"' in refused.content.decode()


def test_only_its_creator_stops_a_test(version_test: Any, alice: Any, bob: Any) -> None:
    assert logged_in(bob).post(f"/tests/{version_test.pk}/stop/").status_code == 403
    owner = logged_in(alice)
    assert 'id="stop-test"' in owner.get(f"/tests/{version_test.pk}/").content.decode()
    page = owner.post(f"/tests/{version_test.pk}/stop/", follow=True).content.decode()
    assert f"Version test {version_test.pk} is stopped." in page and 'id="decision">stopped' in page
    assert owner.post(f"/tests/{version_test.pk}/stop/").status_code == 409


def test_starting_a_test_through_the_form(world: Any, alice: Any) -> None:
    from versiontests.models import VersionTest

    world(0)
    response = logged_in(alice).post(
        "/tests/new/",
        {
            "engine": "alpha",
            "version": "",
            "base_engine": "beta",
            "base_version": "",
            "variant": "bao-la-kete",
            "time_control": "5+0.1",
            "model": "normalized",
            "elo0": "0",
            "elo1": "5",
            "alpha": "0.05",
            "beta": "0.1",
            "max_pairs": "200",
            "start_suite": "balanced",
        },
    )
    test = VersionTest.objects.get()
    assert response["Location"] == f"/tests/{test.pk}/"
    assert (
        test.new_version.number,
        test.base_version.engine.name,
        test.elo_model,
        test.beta,
        test.max_pairs,
        test.rated,
    ) == (2, "beta", "normalized", 0.1, 200, False)


@pytest.mark.parametrize(
    ("change", "status", "field", "message"),
    [
        ({"elo0": "10", "elo1": "5"}, 400, "elo1", ""),
        ({"alpha": "0.7"}, 400, "alpha", ""),
        ({"base_engine": "nobody"}, 404, "base_engine", ""),
        ({"engine": "nobody"}, 404, "engine", ""),
        ({"time_control": "ten"}, 400, "time_control", ""),
        ({"elo1": ""}, 400, "elo1", "A valid number is required."),
    ],
)
def test_test_form_errors_sit_next_to_their_fields(
    world: Any, alice: Any, change: dict[str, str], status: int, field: str, message: str
) -> None:
    from tests.service.web.test_forms import field_errors

    world(0)
    post = {
        "engine": "alpha",
        "base_engine": "beta",
        "variant": "bao-la-kete",
        "time_control": "10+0.1",
        "model": "logistic",
        "elo0": "0",
        "elo1": "10",
        "alpha": "0.05",
        "beta": "0.05",
        "max_pairs": "100",
        "start_suite": "balanced",
        **change,
    }
    response = logged_in(alice).post("/tests/new/", post)
    assert response.status_code == status
    errors = field_errors(response.content.decode(), field)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_the_test_pages_are_labelled_and_read_few_queries(
    version_test: Any, alice: Any, django_assert_max_num_queries: Any
) -> None:
    from tests.service.web.test_accessibility import Audit

    client = logged_in(alice)
    for url in ("/tests/", f"/tests/{version_test.pk}/", "/tests/new/"):
        client.get(url)
        with django_assert_max_num_queries(8):
            html = client.get(url).content.decode()
        audit = Audit()
        audit.feed(html)
        assert all(f.get("id") in audit.labels for f in audit.inputs), url
        assert all(i.get("aria-labelledby") or i.get("aria-label") for i in audit.images), url
