"""End to end: version tests on a real Celery worker and broker, real sandboxed engines.

``search`` against ``random`` accepts H1; a version against an identical copy of itself (alice's
upload of the bundled ``random`` file) does not. Bounds [100, 300] logistic Elo, alpha = beta =
0.05: the copy's true difference (0) lies 100 Elo below H0, so its chance of a false H1 is far
below alpha and the test stays deterministic in practice; ``search`` wins nearly every game, so
it needs about a dozen pairs. ``movetime=20`` keeps each game short.
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
from ratings.stats.sprt import SprtParameters, sprt
from versiontests import services
from versiontests.models import VersionTest, VersionTestPair

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

SETTINGS = {
    "variant": "kete",
    "time_control": "movetime=20",
    "elo0": 100,
    "elo1": 300,
    "max_pairs": 40,
}


def _wait_done(tests: list[VersionTest], timeout: float, worker: Any) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for test in tests:
            test.refresh_from_db()
        if all(t.status != VersionTest.Status.RUNNING for t in tests):
            return
        time.sleep(0.5)
    states = [(t.pk, t.status, t.pentanomial, t.pairs_void) for t in tests]
    raise AssertionError(
        f"tests still running after {timeout} s: {states}\n--- worker:\n{worker.log_text()[-4000:]}"
    )


def test_search_accepts_h1_against_random_and_a_copy_does_not(
    fresh_var_dir: Any, live_worker: Any, alice: Any, settings: Any
) -> None:
    settings.BAO_VERSION_TEST_PAIRS = 2
    versions = register_bundled_engines()
    assert all(v.status == "active" for v in versions)
    copy = engine_version_create(
        owner=alice,
        name="random-copy",
        upload=SimpleUploadedFile("random", (BUNDLED_DIR / "random").read_bytes()),
    )
    assert validate_version_now(copy.pk) == EngineVersion.Status.ACTIVE
    worker = live_worker(BAO_VERSION_TEST_PAIRS="2")

    strong = services.version_test_create(
        user=None, engine="search", base_engine="random", **SETTINGS
    )
    same = services.version_test_create(
        user=alice, engine="random-copy", base_engine="random", **SETTINGS
    )
    _wait_done([strong, same], timeout=240, worker=worker)

    params = SprtParameters(100, 300)
    assert (strong.status, strong.decision) == ("finished", "H1"), strong.pentanomial
    assert same.decision in ("H0", "inconclusive") and same.status == "finished", same.pentanomial
    for test in (strong, same):
        counted = test.pairs.filter(state=VersionTestPair.State.COUNTED)
        # Each counted pair once: the pentanomial, the W/D/L and the LLR history agree with the
        # pairs' own scores and games, and the last LLR is the one the figures give.
        assert counted.count() == sum(test.pentanomial) == len(test.llr_history)
        scores = sorted(counted.values_list("score", flat=True))
        assert [scores.count(k / 2) for k in range(5)] == test.pentanomial
        games = 2 * counted.count()
        assert test.wins + test.draws + test.losses == games
        assert test.llr == pytest.approx(sprt(test.pentanomial, params).llr)
        matches = Match.objects.filter(version_test_pair__in=counted)
        assert {(m.best_of, m.status, m.rated) for m in matches} == {(2, "finished", False)}
        assert all(m.games.count() == 2 for m in matches)
        # Nothing of the test is left queued or playing.
        assert not Match.objects.filter(
            version_test_pair__test=test, status__in=("pending", "running")
        ).exists()
    assert strong.llr >= params.upper and strong.wins > 3 * strong.losses
    for name, test in (("search vs random", strong), ("copy vs random", same)):
        # Shown with -s: the figures behind the report.
        print(
            f"{name}: {test.decision} after {sum(test.pentanomial)} pairs, pentanomial "
            f"{test.pentanomial}, W/D/L {test.wins}/{test.draws}/{test.losses}, "
            f"LLR {test.llr:.3f}, void {test.pairs_void}"
        )
    assert worker.popen.poll() is None
