"""Version-test service: pairs queued and counted once, aborted pairs, decisions, cap, stop."""

from __future__ import annotations

from typing import Any

import pytest

from arena.matches.events import MatchEnded, publish_match_ended
from arena.matches.models import Match
from arena.openings import suite_position
from engines.consent import CASUAL_SAME_OWNER, CASUAL_USER_PAIRING
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


def _pending(test: VersionTest) -> list[Match]:
    ids = test.pairs.filter(state=VersionTestPair.State.PENDING).values_list("match_id", flat=True)
    return list(Match.objects.filter(pk__in=list(ids)).order_by("id"))


def test_a_new_test_queues_one_pair_per_slot_from_consecutive_suite_positions(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    test = _create(alice)
    assert (test.new_version, test.base_version) == (alice_v2, alice_v1)
    assert (test.status, test.decision, test.rated, test.start_suite) == (
        "running",
        "",
        False,
        "balanced",
    )
    matches = _pending(test)
    assert len(matches) == pairs_in_flight == test.pairs_created
    for index, match in enumerate(matches):
        assert (match.engine_a, match.engine_b, match.best_of) == (alice_v2, alice_v1, 2)
        assert (match.variant, match.time_control, match.rated) == ("bao-la-kete", "5+0.05", False)
        expected = suite_position("bao-la-kete", "balanced", test.opening_offset + index)
        assert match.start_position == expected.to_text()
    assert len({m.start_position for m in matches}) == pairs_in_flight


def test_each_recorded_pair_is_counted_once_and_replaced(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice)
    first, second, _ = _pending(test)
    assert record_pair(first, "WD") is True
    test.refresh_from_db()
    assert test.pentanomial == [0, 0, 0, 1, 0]  # 1.5 points of 2
    assert (test.wins, test.draws, test.losses) == (1, 1, 0)
    assert test.pairs_created == 4 and len(_pending(test)) == pairs_in_flight
    # The hook again (a redelivered message, a second call) and the same record again: no-ops.
    publish_match_ended(
        MatchEnded(first.pk, "finished", "bao-la-kete", None, False, first.priority)
    )
    assert services.version_test_match_ended(first.pk) is False
    assert record_pair(first, "WD") is False
    assert record_pair(second, "LL") is True
    test.refresh_from_db()
    assert test.pentanomial == [1, 0, 0, 1, 0]
    assert (test.wins, test.draws, test.losses) == (1, 1, 2)
    assert test.pairs_created == 5
    params = SprtParameters(0, 20, model=Model.LOGISTIC)
    assert test.llr_history == [
        round(sprt([0, 0, 0, 1, 0], params).llr, 6),
        round(sprt([1, 0, 0, 1, 0], params).llr, 6),
    ]
    assert test.llr == pytest.approx(sprt([1, 0, 0, 1, 0], params).llr)
    assert VersionTestPair.objects.get(match=first).score == 1.5


def test_a_pair_with_an_aborted_game_is_not_counted_but_replaced(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice)
    first = _pending(test)[0]
    assert record_pair(first, "WA") is True
    test.refresh_from_db()
    assert (test.pentanomial, test.pairs_void, test.llr_history) == ([0] * 5, 1, [])
    assert (test.wins, test.draws, test.losses) == (1 - 1, 0, 0)  # the won game is not counted
    assert VersionTestPair.objects.get(match=first).state == "void"
    assert len(_pending(test)) == pairs_in_flight and test.pairs_created == 4


def test_a_match_aborted_without_games_voids_its_pair(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    from arena.matches.services import match_abort

    test = _create(alice)
    first = _pending(test)[0]
    assert match_abort(first.pk, "after 3 attempts: sandbox failed") is True
    test.refresh_from_db()
    assert (test.pairs_void, test.pairs_counted, test.pairs_created) == (1, 0, 4)


def test_too_many_aborted_pairs_stop_the_test(
    alice: Any, alice_v1: Any, alice_v2: Any, settings: Any, record_pair: Any
) -> None:
    settings.BAO_VERSION_TEST_PAIRS = 1
    test = _create(alice, max_pairs=20)
    for _ in range(services.void_limit(test) + 1):
        assert record_pair(_pending(test)[0], "A")
    test.refresh_from_db()
    assert (test.status, test.decision) == ("stopped", "stopped")
    assert test.stop_reason.startswith("11 pairs aborted (the last: game 1 aborted")
    assert _pending(test) == []


def test_the_llr_crossing_the_upper_bound_accepts_h1_and_ends_the_other_pairs(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice, elo0=0, elo1=50)
    upper = SprtParameters(0, 50).upper
    for n in range(1, 40):
        record_pair(_pending(test)[0], "WW" if n % 4 else "WD")
        test.refresh_from_db()
        if test.status != "running":
            break
    assert (test.status, test.decision) == ("finished", "H1")
    assert test.llr >= upper and all(v < upper for v in test.llr_history[:-1])
    assert len(test.llr_history) == test.pairs_counted == n
    # The pairs still queued are void, their matches aborted; none was queued after the answer.
    assert _pending(test) == []
    others = Match.objects.filter(version_test_pair__test=test, version_test_pair__state="void")
    assert others.count() == pairs_in_flight - 1
    assert set(others.values_list("status", flat=True)) == {"aborted"}
    assert test.pairs_created == n + pairs_in_flight - 1
    assert test.finished_at is not None


def test_the_llr_crossing_the_lower_bound_accepts_h0(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice, elo0=0, elo1=50)
    for _ in range(40):
        record_pair(_pending(test)[0], "LD")
        test.refresh_from_db()
        if test.status != "running":
            break
    assert (test.status, test.decision) == ("finished", "H0")
    assert test.llr <= SprtParameters(0, 50).lower


def test_the_cap_ends_an_undecided_test_inconclusive_and_never_queues_past_it(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice, max_pairs=4, elo0=-10, elo1=10)
    assert test.pairs_created == 3
    record_pair(_pending(test)[0], "WL")
    test.refresh_from_db()
    assert test.pairs_created == 4  # 1 counted + 3 pending: the cap
    record_pair(_pending(test)[0], "DD")
    test.refresh_from_db()
    assert test.pairs_created == 4 and len(_pending(test)) == 2
    for _ in range(2):
        record_pair(_pending(test)[0], "LW")
    test.refresh_from_db()
    assert (test.status, test.decision, test.pairs_counted) == ("finished", "inconclusive", 4)
    assert test.pentanomial == [0, 0, 4, 0, 0] and test.pairs_created == 4


def test_the_creator_stops_a_test_and_its_pending_matches_are_aborted(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice)
    record_pair(_pending(test)[0], "WW")
    queued = _pending(test)
    stopped = services.version_test_stop(test.pk, user=alice)
    assert (stopped.status, stopped.decision) == ("stopped", "stopped")
    assert stopped.stop_reason == "stopped by its creator"
    assert stopped.pentanomial == [0, 0, 0, 0, 1]  # counted before the stop: kept
    assert {m.status for m in Match.objects.filter(pk__in=[m.pk for m in queued])} == {"aborted"}
    # A worker that was playing one of them records nothing; nothing is counted later.
    assert record_pair(queued[0], "LL") is False
    stopped.refresh_from_db()
    assert stopped.pentanomial == [0, 0, 0, 0, 1]
    with pytest.raises(errors.TestNotRunning):
        services.version_test_stop(test.pk, user=alice)


def test_only_the_creator_or_staff_may_stop_a_test(
    alice: Any, bob: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    test = _create(alice)
    with pytest.raises(errors.TestNotYours):
        services.version_test_stop(test.pk, user=bob)
    bob.is_staff = True
    bob.save()
    assert services.version_test_stop(test.pk, user=bob).stop_reason == "stopped by staff (bob)"


def test_a_version_disabled_during_the_test_stops_it_when_the_next_pair_cannot_be_queued(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int, record_pair: Any
) -> None:
    test = _create(alice)
    alice_v1.engine.is_enabled = False
    alice_v1.engine.save()
    assert record_pair(_pending(test)[0], "WW") is True  # the result itself is recorded
    test.refresh_from_db()
    assert (test.status, test.decision, test.pentanomial) == ("stopped", "stopped", [0, 0, 0, 0, 1])
    assert "disabled" in test.stop_reason
    assert _pending(test) == []


# ------------------------------------------------------------------------- creation refusals


def test_bounds_and_error_rates_are_refused_with_the_sprt_codes(
    alice: Any, alice_v1: Any, alice_v2: Any
) -> None:
    with pytest.raises(errors.InvalidSprtBounds):
        _create(alice, elo0=5, elo1=5)
    with pytest.raises(errors.InvalidSprtErrorRate):
        _create(alice, alpha=0.5)
    with pytest.raises(errors.InvalidSprtErrorRate):
        _create(alice, beta=0)
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_two_versions_neither_yours_are_refused(
    alice: Any, bob: Any, alice_v1: Any, alice_v2: Any, bob_v1: Any
) -> None:
    with pytest.raises(errors.VersionsNotYours):
        _create(bob)
    # One of the two is enough: bob's engine against alice's.
    test = _create(bob, engine="bob1", base_engine="alice1")
    assert (test.new_version, test.base_version) == (bob_v1, alice_v2)


def test_unknown_engines_and_versions_and_one_version_twice_are_refused(
    alice: Any, alice_v1: Any, alice_v2: Any
) -> None:
    with pytest.raises(errors.EngineNotFound):
        _create(alice, engine="nobody")
    with pytest.raises(errors.EngineVersionNotFound):
        _create(alice, version=9)
    with pytest.raises(errors.SameEngine):
        _create(alice, version=2, base_version=2)
    with pytest.raises(errors.EngineNotActive):
        _create(alice, version=1)  # no active version below v1 to default to
    assert not VersionTest.objects.exists()


def test_a_version_that_cannot_play_leaves_nothing_behind(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    alice_v1.variants = ["bao-kingulu"]
    alice_v1.save()
    with pytest.raises(errors.VariantNotSupported):
        _create(alice)
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_another_owners_engine_is_used_only_within_its_consent(
    alice: Any,
    alice_v1: Any,
    alice_v2: Any,
    bob_v1: Any,
    pairs_in_flight: int,
    record_pair: Any,
) -> None:
    from engines.errors import PairingRefused

    bob_v1.engine.consent_version_tests = False
    bob_v1.engine.save()
    with pytest.raises(PairingRefused) as refused:
        _create(alice, base_engine="bob1")
    assert refused.value.details["setting"] == "version_tests"
    bob_v1.engine.consent_version_tests = True
    bob_v1.engine.save()
    test = _create(alice, base_engine="bob1")
    # Consent withdrawn during the test: the next pair cannot be queued, so the test stops
    # (the pair recorded counts; the others queued are aborted).
    bob_v1.engine.consent_version_tests = False
    bob_v1.engine.save()
    record_pair(_pending(test)[0], "WL")
    test.refresh_from_db()
    assert (test.status, test.pentanomial) == ("stopped", [0, 0, 1, 0, 0])
    assert "version tests" in test.stop_reason
    assert _pending(test) == [] and test.pairs_created == pairs_in_flight


def test_a_rated_test_between_two_versions_of_one_owner_plays_unrated(
    alice: Any, alice_v1: Any, alice_v2: Any, bob_v1: Any, pairs_in_flight: int
) -> None:
    own = _create(alice, rated=True)
    assert {m.rated for m in _pending(own)} == {False}
    assert (own.rated, own.rated_note) == (False, CASUAL_SAME_OWNER)
    # Against another user's engine the user chose: casual too (engines.consent).
    against_bob = _create(alice, base_engine="bob1", rated=True)
    assert {m.rated for m in _pending(against_bob)} == {False}
    assert (against_bob.rated, against_bob.rated_note) == (False, CASUAL_USER_PAIRING)


def test_the_beat_job_settles_a_pair_whose_match_ended_without_the_hook_and_refills(
    alice: Any, alice_v1: Any, alice_v2: Any, pairs_in_flight: int
) -> None:
    test = _create(alice)
    assert services.version_tests_refresh() == []  # nothing missed: nothing changed
    first = _pending(test)[0]
    # A bulk abort written straight to the row (as a tournament's cancel does): no hook.
    Match.objects.filter(pk=first.pk).update(status=Match.Status.ABORTED, error="bulk")
    assert services.version_tests_refresh() == [test.pk]
    test.refresh_from_db()
    assert (test.pairs_void, test.pairs_created) == (1, 4)
    assert len(_pending(test)) == pairs_in_flight
    assert services.version_tests_refresh() == []
