"""End to end (issue 26): on a real worker, the SPRT arithmetic never costs a played pair.

1. The worker runs with ``BAO_TEST_BREAK_SPRT=1`` (a test-only setting, ``arena.settings``),
   so every LLR it computes while recording a pair fails: the pairs are stored and counted
   all the same, the LLR is null, and the test ends at its cap.
2. Two equal versions (``greedy`` and alice's upload of the same file) with normalized bounds
   [0, 20]: before the fix the fit raised from the 7th split pair on, the pair's match was
   aborted and its games thrown away; now every played pair is counted up to the cap.

``movetime=20`` and caps of 3 and 10 pairs keep each under a minute on a 2-core machine.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.matches.models import Match
from engines.models import EngineVersion
from engines.services import BUNDLED_DIR, engine_version_create, register_bundled_engines
from engines.validation import validate_version_now
from ratings.stats.sprt import Model, SprtParameters, sprt
from versiontests import services
from versiontests.models import VersionTest, VersionTestPair

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def _copy_of_greedy(alice: Any) -> None:
    versions = register_bundled_engines()
    assert all(v.status == "active" for v in versions)
    copy = engine_version_create(
        owner=alice,
        name="greedy-copy",
        upload=SimpleUploadedFile("greedy", (BUNDLED_DIR / "greedy").read_bytes()),
    )
    assert validate_version_now(copy.pk) == EngineVersion.Status.ACTIVE


def _wait_done(test: VersionTest, timeout: float, worker: Any) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        test.refresh_from_db()
        if test.status != VersionTest.Status.RUNNING:
            return
        time.sleep(0.5)
    raise AssertionError(
        f"test still running after {timeout} s: {test.pentanomial}, void {test.pairs_void}"
        f"\n--- worker:\n{worker.log_text()[-4000:]}"
    )


def _assert_every_played_pair_counted(test: VersionTest) -> None:
    counted = test.pairs.filter(state=VersionTestPair.State.COUNTED)
    assert test.pairs_void == 0
    assert counted.count() == sum(test.pentanomial) == len(test.llr_history) == test.max_pairs
    assert test.wins + test.draws + test.losses == 2 * counted.count()
    scores = sorted(counted.values_list("score", flat=True))
    assert [scores.count(k / 2) for k in range(5)] == test.pentanomial
    played = Match.objects.filter(version_test_pair__test=test, status="finished")
    assert played.count() == counted.count()
    assert all(m.games.count() == 2 for m in played)
    # Nothing aborted for a statistic: the only unfinished pairs are those the end voided.
    aborted = Match.objects.filter(version_test_pair__test=test, status="aborted")
    assert all(m.error.startswith(f"version test {test.pk} ended") for m in aborted)
    assert not Match.objects.filter(
        version_test_pair__test=test, status__in=("pending", "running")
    ).exists()


def test_a_worker_whose_sprt_fails_still_stores_and_counts_every_pair(
    fresh_var_dir: Any, live_worker: Any, alice: Any, settings: Any
) -> None:
    settings.BAO_VERSION_TEST_PAIRS = 2
    _copy_of_greedy(alice)
    worker = live_worker(BAO_VERSION_TEST_PAIRS="2", BAO_TEST_BREAK_SPRT="1")
    test = services.version_test_create(
        user=alice,
        engine="greedy-copy",
        base_engine="greedy",
        variant="kete",
        time_control="movetime=20",
        elo0=0,
        elo1=5,
        max_pairs=3,
    )
    _wait_done(test, timeout=180, worker=worker)
    assert (test.status, test.decision) == ("finished", "inconclusive")
    _assert_every_played_pair_counted(test)
    # The worker's every LLR failed (its setting), this process's computes one from the counts.
    assert test.llr is None and test.llr_history == [None, None, None]
    assert "the SPRT figures failed" in worker.log_text()
    assert sprt(test.pentanomial, SprtParameters(0, 5)).llr is not None
    assert worker.popen.poll() is None


def test_two_equal_versions_with_nelo_bounds_count_every_pair_to_the_cap(
    fresh_var_dir: Any, live_worker: Any, alice: Any, settings: Any
) -> None:
    settings.BAO_VERSION_TEST_PAIRS = 2
    _copy_of_greedy(alice)
    worker = live_worker(BAO_VERSION_TEST_PAIRS="2")
    test = services.version_test_create(
        user=alice,
        engine="greedy-copy",
        base_engine="greedy",
        variant="kete",
        time_control="movetime=20",
        model="normalized",
        elo0=0,
        elo1=20,
        max_pairs=10,
    )
    _wait_done(test, timeout=300, worker=worker)
    assert test.status == "finished" and test.decision in ("H0", "inconclusive"), test.pentanomial
    if test.decision == "inconclusive":
        _assert_every_played_pair_counted(test)
    params = SprtParameters(0, 20, model=Model.NORMALIZED)
    assert all(v is not None for v in test.llr_history)
    assert test.llr == pytest.approx(sprt(test.pentanomial, params).llr)
    # Shown with -s: the figures behind the report.
    print(
        f"greedy copy vs greedy, nElo [0, 20]: {test.decision} after {sum(test.pentanomial)} "
        f"pairs, pentanomial {test.pentanomial}, W/D/L {test.wins}/{test.draws}/{test.losses}, "
        f"LLR {test.llr:.3f}, void {test.pairs_void}"
    )
    assert worker.popen.poll() is None
