"""The SPRT arithmetic (ratings.stats.sprt) against fishtest's own on 300 count vectors.

``data/fishtest_llr.json`` was made by running fishtest's ``LLRcalc.LLR_logistic`` /
``LLR_normalized`` and ``stat_util.get_elo`` (official-stockfish/fishtest b8eecff) beside the
project on trinomial and pentanomial records: the issue 26 edge records (straight lost and won
pairs, all-draw games, all 1-1 pairs), a few small ones and 250 random ones of 1 to 200 000
pairs (298 non-empty, 166 pentanomial), each with 6 logistic and 10 normalized pairs of bounds,
ordinary to extreme. Only the inputs and fishtest's outputs are stored.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ratings.stats import sprt
from ratings.stats.sprt import Model, SprtParameters

DATA = json.loads((Path(__file__).parent / "data" / "fishtest_llr.json").read_text())["vectors"]
CASES = [(row["counts"], *entry) for row in DATA for entry in row["llr"]]
ANSWERED = [c for c in CASES if c[4] is not None and sum(c[0]) > 0]
REFUSED = [c for c in CASES if c[4] is None]


def _llr(counts: list[int], model: str, elo0: float, elo1: float) -> float:
    return sprt.llr(counts, SprtParameters(elo0, elo1, model=Model(model)))


def test_the_data_holds_a_few_hundred_records_and_fishtest_refuses_some():
    assert len(DATA) == 300 and sum(1 for row in DATA if not sum(row["counts"])) == 2
    assert len(ANSWERED) == 3862 and len(REFUSED) == 912
    assert {len(row["counts"]) for row in DATA} == {3, 5}


def test_the_llr_equals_fishtests_wherever_fishtest_answers():
    # To 1e-6, or 1e-10 of the LLR: on [23226, 105352, 71422, 0, 0] with nElo [0, 50] (LLR
    # -28921.5) the two differ by 1.6e-6 because fishtest's own fit of H1 misses its constraints
    # (its probabilities sum to 1 - 3.1e-6, its t-value is off by 9e-6), while this one meets
    # them to 1e-16 and so has the larger likelihood.
    for counts, model, elo0, elo1, ref, *_ in ANSWERED:
        value = _llr(counts, model, elo0, elo1)
        assert abs(value - ref) < max(1e-6, 1e-10 * abs(ref)), (counts, model, elo0, elo1)


def test_the_issues_records_have_fishtests_llr():
    # The 29th straight lost pair with nElo [0, 2]: fishtest -0.237, here it used to raise.
    assert _llr([29, 0, 0, 0, 0], "normalized", 0, 2) == pytest.approx(-0.237, abs=5e-4)
    for counts, model, e0, e1, ref, *_ in ANSWERED:
        if (counts, e0, e1) in (([0, 0, 604, 0, 0], 0, 2), ([0, 242, 0], 0, 2)):
            assert _llr(counts, model, e0, e1) == pytest.approx(ref, abs=1e-6)


@pytest.mark.parametrize(("counts", "model", "elo0", "elo1"), [c[:4] for c in REFUSED[::20]])
def test_the_llr_is_finite_where_fishtest_raises(counts, model, elo0, elo1):
    assert math.isfinite(_llr(counts, model, elo0, elo1))


def test_an_empty_record_has_llr_zero_by_definition():
    for counts in ([0, 0, 0], [0, 0, 0, 0, 0]):
        for model in Model:
            assert _llr(counts, model, 0, 5) == 0.0


def test_the_estimate_equals_fishtests_fixed_sample_one():
    # get_elo clamps the score to [0.001, 0.999] and gives a half-width; compared where its
    # clamp does not act and both of our ends are bounded.
    compared = 0
    for row in DATA:
        if "get_elo" not in row:
            continue
        elo_ref, half_ref, los_ref = row["get_elo"]
        elo, low, high, los = sprt.estimate(row["counts"], Model.LOGISTIC)
        assert los == pytest.approx(los_ref, abs=1e-9)
        if abs(elo_ref) < 1199 and low is not None and high is not None:
            assert elo == pytest.approx(elo_ref, abs=1e-6)
            if abs(high) < 1199 and abs(low) < 1199:
                assert (high - low) / 2 == pytest.approx(half_ref, abs=1e-6)
                compared += 1
    assert compared > 200
