"""Statistics never cost a played game (issue 26): a pair is stored and counted whatever the
SPRT arithmetic does, an LLR that cannot be computed is null with a note, an unbounded interval
end is null with a note, and absurd bounds are refused when the test is created."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.matches.models import Match
from ratings.stats.sprt import Model, SprtParameters, sprt
from versiontests import errors, services
from versiontests.models import VersionTest, VersionTestPair

pytestmark = pytest.mark.django_db


def _create(user: Any, **kwargs: Any) -> VersionTest:
    options: dict[str, Any] = {
        "engine": "alice1",
        "variant": "kete",
        "time_control": "5+0.05",
        "elo0": 0,
        "elo1": 20,
        "max_pairs": 50,
    }
    return services.version_test_create(user=user, **(options | kwargs))


def _next_pending(test: VersionTest) -> Match:
    pair = test.pairs.filter(state=VersionTestPair.State.PENDING).order_by("index").first()
    assert pair is not None
    return Match.objects.get(pk=pair.match_id)


def test_split_pairs_of_equal_versions_are_all_counted_with_nelo_bounds(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    # nElo [0, 20]: the old fit raised from the 7th split pair on, which aborted the pair's
    # match and threw its games away.
    test = _create(alice, model="normalized")
    for _ in range(12):
        assert record_pair(_next_pending(test), "WL") is True
    test.refresh_from_db()
    assert test.pentanomial == [0, 0, 12, 0, 0] and test.pairs_void == 0
    assert (test.wins, test.draws, test.losses) == (12, 0, 12)
    assert test.status == "running" and len(test.llr_history) == 12
    params = SprtParameters(0, 20, model=Model.NORMALIZED)
    assert test.llr == pytest.approx(sprt([0, 0, 12, 0, 0], params).llr)
    assert all(v is not None and v < 0 for v in test.llr_history)
    counted = Match.objects.filter(version_test_pair__test=test, status="finished")
    assert counted.count() == 12 and all(m.games.count() == 2 for m in counted)


def test_a_failing_sprt_leaves_the_pair_counted_and_the_llr_null_with_a_note(
    alice: Any,
    alice_v1: Any,
    alice_v2: Any,
    pairs_in_flight: int,
    record_pair: Any,
    settings: Any,
    alice_client: Any,
) -> None:
    test = _create(alice)
    settings.BAO_TEST_BREAK_SPRT = True
    first = _next_pending(test)
    assert record_pair(first, "WD") is True
    second = _next_pending(test)
    assert record_pair(second, "WW") is True
    test.refresh_from_db()
    assert test.pentanomial == [0, 0, 0, 1, 1] and test.pairs_void == 0
    assert (test.wins, test.draws, test.losses) == (3, 1, 0)
    assert (test.status, test.decision, test.llr, test.llr_history) == (
        "running",
        "",
        None,
        [None, None],
    )
    assert set(test.pairs.values_list("state", flat=True)) >= {"counted"}
    assert first.games.count() == 2 and second.games.count() == 2
    # A third pair was queued as usual.
    assert test.pairs.filter(state=VersionTestPair.State.PENDING).count() == pairs_in_flight
    body = alice_client.get(f"/api/tests/{test.pk}/").json()
    assert body["llr"] is None and "BAO_TEST_BREAK_SPRT" in body["llr_note"]
    assert (body["status"], body["pairs"], body["elo"]) == ("running", 2, None)
    page = Client().get(f"/tests/{test.pk}/").content.decode()
    assert "not computed" in page and 'id="llr-note"' in page
    # Once the figures can be computed again, they come from the counts.
    settings.BAO_TEST_BREAK_SPRT = False
    body = alice_client.get(f"/api/tests/{test.pk}/").json()
    assert body["llr"] == pytest.approx(sprt([0, 0, 0, 1, 1], SprtParameters(0, 20)).llr)
    assert body["llr_note"] is None


def test_an_unbounded_interval_end_is_null_in_the_api_and_unbounded_on_the_page(
    alice: Any,
    alice_v1: Any,
    alice_v2: Any,
    pairs_in_flight: int,
    record_pair: Any,
    alice_client: Any,
) -> None:
    test = _create(alice)
    for _ in range(3):
        record_pair(_next_pending(test), "WW")
    body = alice_client.get(f"/api/tests/{test.pk}/").json()
    assert body["pentanomial"] == [0, 0, 0, 0, 3]
    assert body["ci_high"] is None and body["ci_low"] > 0
    assert body["ci_note"].startswith("upper end unbounded")
    page = Client().get(f"/tests/{test.pk}/").content.decode()
    assert "to unbounded)" in page and 'id="ci-note"' in page


@pytest.mark.parametrize(
    ("model", "elo0", "elo1"), [("normalized", 0, 3000), ("logistic", -1001, 0)]
)
def test_bounds_beyond_the_limit_are_refused_with_the_range(
    alice: Any, alice_v1: Any, alice_v2: Any, model: str, elo0: float, elo1: float
) -> None:
    with pytest.raises(errors.InvalidSprtBounds) as caught:
        _create(alice, model=model, elo0=elo0, elo1=elo1)
    assert "[-1000, 1000]" in str(caught.value.detail)
    assert not VersionTest.objects.exists()
    # The limit itself is allowed.
    assert _create(alice, model=model, elo0=-1000, elo1=1000).status == "running"
