"""The SPRT arithmetic (ratings.stats.sprt): figures pinned against values worked out by hand from
the formulas in its docstring, the fits' constraints, and the command line."""

import json
import math

import pytest

from ratings.stats import sprt, sprt_fits
from ratings.stats.sprt import Decision, Model, SprtInputError, SprtParameters

#: The keys of ``--json`` in their documented order (docs/version-tests.md), written out here
#: rather than read from the code so a renamed key fails the test.
SPRT_JSON_KEYS = (
    "games",
    "wdl",
    "pentanomial",
    "llr",
    "lower",
    "upper",
    "decision",
    "elo",
    "ci_low",
    "ci_high",
    "los",
    "ci_note",
    "llr_note",
)


def test_the_bounds_are_log_beta_over_one_minus_alpha_and_back():
    params = SprtParameters(0, 5)
    assert params.lower == pytest.approx(-math.log(19))
    assert params.upper == pytest.approx(math.log(19))
    skewed = SprtParameters(0, 5, alpha=0.1, beta=0.2)
    assert skewed.lower == pytest.approx(math.log(0.2 / 0.9))
    assert skewed.upper == pytest.approx(math.log(0.8 / 0.1))


def test_wins_and_losses_alone_give_the_binomial_llr():
    # With no draws the trinomial fit is (nearly: the zero draw count becomes 0.001) a binomial
    # one, whose LLR is W log(s1/s0) + L log((1-s1)/(1-s0)); s0 = 0.5, s1 = 1/(1+10^-0.025).
    s1 = 1 / (1 + 10 ** (-10 / 400))
    by_hand = 60 * math.log(s1 / 0.5) + 40 * math.log((1 - s1) / 0.5)
    assert by_hand == pytest.approx(0.5342, abs=1e-4)
    assert sprt.llr([40, 0, 60], SprtParameters(0, 10)) == pytest.approx(by_hand, abs=1e-3)


def test_a_symmetric_record_favours_neither_of_two_symmetric_hypotheses():
    for model in Model:
        assert sprt.llr([10, 5, 2, 5, 10], SprtParameters(-5, 5, model=model)) == pytest.approx(
            0, abs=1e-9
        )


def test_the_published_normalized_example_is_reproduced():
    # fastchess printed LLR 2.96 for pentanomial [0, 0, 2, 0, 37] with nElo bounds [0, 20].
    result = sprt.sprt([0, 0, 2, 0, 37], SprtParameters(0, 20, model=Model.NORMALIZED))
    assert round(result.llr, 2) == 2.96
    assert result.decision is Decision.H1


def test_the_estimates_of_a_trinomial_record_are_those_worked_by_hand():
    # L 20, D 20, W 60: mu 0.7, sigma 0.4, se 0.04.
    elo, low, high, los = sprt.estimate([20, 20, 60], Model.LOGISTIC)
    assert elo == pytest.approx(400 * math.log10(7 / 3))  # 147.19
    mu_low, mu_high = 0.7 - 1.959964 * 0.04, 0.7 + 1.959964 * 0.04
    assert low == pytest.approx(400 * math.log10(mu_low / (1 - mu_low)), abs=1e-3)
    assert high == pytest.approx(400 * math.log10(mu_high / (1 - mu_high)), abs=1e-3)
    assert los == pytest.approx(0.5 * (1 + math.erf(5 / math.sqrt(2))))
    nelo, nlow, nhigh, _ = sprt.estimate([20, 20, 60], Model.NORMALIZED)
    assert nelo == pytest.approx(0.5 * 800 / math.log(10))  # t = 0.2 / 0.4 per game
    assert nlow == pytest.approx((mu_low - 0.5) / 0.4 * 800 / math.log(10), abs=1e-3)
    assert nhigh == pytest.approx((mu_high - 0.5) / 0.4 * 800 / math.log(10), abs=1e-3)


def test_pentanomial_nelo_is_per_game_so_a_pair_t_is_divided_by_root_two():
    # Pairs scoring 2, 1 and 1 (counts 0, 0, 2, 0, 1 -> zeros become 0.001).
    elo, _, _, _ = sprt.estimate([0, 0, 2, 0, 1], Model.NORMALIZED)
    total = 3.003
    pdf = [(0, 0.001), (0.25, 0.001), (0.5, 2), (0.75, 0.001), (1, 1)]
    mu = sum(a * c for a, c in pdf) / total
    sigma = math.sqrt(sum(c * (a - mu) ** 2 for a, c in pdf) / total)
    assert elo == pytest.approx((mu - 0.5) / sigma / math.sqrt(2) * 800 / math.log(10))


def test_the_constrained_fits_meet_their_constraints():
    _, pdf = sprt._pdf([3, 10, 25, 12, 6])
    outcomes = [a for a, _ in pdf]
    q = sprt_fits.fit_mean(pdf, 0.55)
    assert sum(q) == pytest.approx(1)
    assert sum(a * x for a, x in zip(outcomes, q, strict=True)) == pytest.approx(0.55)
    q = sprt_fits.fit_t(pdf, 0.1)
    mu, sigma = sprt_fits.moments(list(zip(outcomes, q, strict=True)))
    assert sum(q) == pytest.approx(1)
    assert (mu - 0.5) / sigma == pytest.approx(0.1)


def test_decisions_follow_the_llr():
    params = SprtParameters(0, 10)
    assert sprt.sprt([0, 4, 20, 60, 120], params).decision is Decision.H1
    assert sprt.sprt([120, 60, 20, 4, 0], params).decision is Decision.H0
    assert sprt.sprt([1, 1, 1, 1, 1], params).decision is Decision.CONTINUE


def test_no_games_means_no_evidence_and_no_estimate():
    result = sprt.sprt([0, 0, 0, 0, 0], SprtParameters(0, 5))
    assert result.llr == 0.0
    assert result.decision is Decision.CONTINUE
    assert (result.elo, result.ci_low, result.ci_high, result.los) == (None, None, None, None)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"elo0": 5, "elo1": 5}, "invalid_sprt_bounds"),
        ({"elo0": 5, "elo1": 0}, "invalid_sprt_bounds"),
        ({"elo0": 0, "elo1": math.inf}, "invalid_sprt_bounds"),
        ({"elo0": 0, "elo1": 5, "alpha": 0.5}, "invalid_sprt_error_rate"),
        ({"elo0": 0, "elo1": 5, "beta": 0}, "invalid_sprt_error_rate"),
    ],
)
def test_bad_parameters_raise_with_a_stable_code(kwargs, code):
    with pytest.raises(SprtInputError) as caught:
        SprtParameters(**kwargs)
    assert caught.value.code == code


@pytest.mark.parametrize("counts", [[1, 2], [1, 2, 3, 4], [1, -1, 3], [1, 2.5, 3]])
def test_bad_counts_raise_with_a_stable_code(counts):
    with pytest.raises(SprtInputError) as caught:
        sprt.llr(counts, SprtParameters(0, 5))
    assert caught.value.code == "invalid_sprt_counts"


def test_the_command_prints_json_with_the_documented_keys(capsys):
    argv = ["--elo0", "0", "--elo1", "10", "--model", "logistic", "--trinomial", "40,0,60"]
    assert sprt.main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert list(payload) == list(SPRT_JSON_KEYS)
    assert (payload["games"], payload["wdl"], payload["pentanomial"]) == (100, [60, 0, 40], None)
    assert (payload["ci_note"], payload["llr_note"]) == (None, None)
    assert payload["decision"] == "continue"
    assert payload["llr"] == pytest.approx(0.5342, abs=1e-3)
    assert payload["elo"] == pytest.approx(400 * math.log10(0.6 / 0.4), abs=0.1)


def test_the_command_prints_a_readable_summary(capsys):
    argv = ["--elo0", "0", "--elo1", "20", "--model", "normalized", "--pentanomial", "0,0,2,0,37"]
    assert sprt.main(argv) == 0
    out = capsys.readouterr().out
    assert "LLR 2.962 (-2.944, 2.944) [0, 20] normalized: H1" in out
    assert "nElo" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--elo0", "5", "--elo1", "0", "--model", "logistic", "--trinomial", "1,1,1"],
        [
            "--elo0",
            "0",
            "--elo1",
            "5",
            "--alpha",
            "0.7",
            "--model",
            "normalized",
            "--trinomial",
            "1,1,1",
        ],
        ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--trinomial", "1,1"],
        ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--pentanomial", "1,1,1,1,x"],
        ["--elo0", "0", "--elo1", "5", "--model", "elo", "--trinomial", "1,1,1"],
    ],
)
def test_the_command_refuses_bad_input_with_status_two(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        sprt.main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m ratings.stats.sprt: error: ")


# --- issue 26: every record has an LLR, clamps are not numbers, errors are one line -------------


def test_equal_pairs_give_an_llr_at_every_count_where_the_old_fit_raised():
    # Two equal deterministic versions split every pair: the empirical start had sigma ~ 0
    # and raised from pair 604 ([0, 2]), 97 ([0, 5]), 25 ([0, 10]), 7 ([0, 20]), 1 ([0, 50]).
    for elo1, first_failure in ((2, 604), (5, 97), (10, 25), (20, 7), (50, 1)):
        params = SprtParameters(0, elo1, model=Model.NORMALIZED)
        values = [
            sprt.llr([0, 0, n, 0, 0], params) for n in range(first_failure, first_failure + 3)
        ]
        # Evidence against H1 grows with every split pair; nothing favours it.
        assert all(math.isfinite(v) and v < 0 for v in values)
        assert values[0] > values[1] > values[2]


def test_the_fallback_search_finds_the_fixed_points_fit_on_ordinary_records():
    for counts, t in (
        ([3, 10, 25, 12, 6], 0.1),
        ([40, 100, 60], -0.05),
        ([10, 40, 100, 45, 12], 0.04),
    ):
        _, pdf = sprt._pdf(counts)
        fixed, searched = sprt_fits.fit_t(pdf, t), sprt_fits.fit_t_search(pdf, t)
        assert max(abs(a - b) for a, b in zip(fixed, searched, strict=True)) < 1e-6


def test_the_search_finds_the_narrow_peak_of_an_all_draw_record():
    # 1000 pairs all 1-1, nElo 20: the best fit moves mass to 2 points (mean 0.5033), a
    # peak of the profile between scan points, found through the two-point means.
    _, pdf = sprt._pdf([0, 0, 1000, 0, 0])
    t = 20 * math.sqrt(2) / sprt.NELO_PER_T
    fixed, searched = sprt_fits.fit_t(pdf, t), sprt_fits.fit_t_search(pdf, t)
    assert max(abs(a - b) for a, b in zip(fixed, searched, strict=True)) < 1e-7
    assert fixed[4] == pytest.approx(0.00658, abs=1e-5)


def test_logistic_bounds_of_thousands_of_elo_keep_a_finite_llr():
    # The score of 20000 Elo is 1 - 1e-50: computed from s it would be 1.0 and leave no tilt.
    result = sprt.sprt([3, 10, 25, 12, 6], SprtParameters(-20000, 20000))
    assert result.llr is not None and math.isfinite(result.llr) and result.llr > 0
    # Symmetric bounds, a record above 1/2: H1 (the score near 1) is the likelier.
    assert result.decision is Decision.H1


def test_the_llr_is_finite_where_fishtest_itself_fails():
    # fishtest's LLR_normalized raises ValueError (no tilt) on this record and bound.
    result = sprt.sprt([0, 0, 1, 0, 0], SprtParameters(0, 400, model=Model.NORMALIZED))
    assert result.llr is not None and math.isfinite(result.llr) and result.llr < 0
    assert result.llr_note is None and result.decision is Decision.CONTINUE


def test_a_straight_loss_has_no_lower_interval_end_and_says_why():
    result = sprt.sprt([10, 0, 0], SprtParameters(0, 5))
    assert result.ci_low is None and result.ci_high is not None and result.ci_high < -800
    assert result.ci_note is not None and result.ci_note.startswith("lower end unbounded")
    won = sprt.sprt([0, 0, 0, 0, 8], SprtParameters(0, 5))
    assert won.ci_high is None and won.ci_low is not None and won.ci_low > 0
    assert won.ci_note is not None and "upper end unbounded" in won.ci_note
    assert (won.games, won.wdl, won.pentanomial) == (16, None, (0, 0, 0, 0, 8))
    # Normalized Elo has no clamp: both ends are numbers.
    normalized = sprt.sprt([10, 0, 0], SprtParameters(0, 5, model=Model.NORMALIZED))
    assert normalized.ci_low is not None and normalized.ci_note is None


def test_the_dict_is_the_json_of_every_figure():
    result = sprt.sprt([1, 2, 3, 2, 1], SprtParameters(0, 5), wdl=(7, 4, 7))
    data = result.to_dict()
    assert data == {
        "games": 18,
        "wdl": [7, 4, 7],
        "pentanomial": [1, 2, 3, 2, 1],
        "llr": result.llr,
        "lower": result.lower,
        "upper": result.upper,
        "decision": "continue",
        "elo": result.elo,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "los": result.los,
        "ci_note": None,
        "llr_note": None,
    }
    assert json.loads(json.dumps(data)) == data


def test_the_text_output_says_unbounded(capsys):
    argv = ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--trinomial", "10,0,0"]
    assert sprt.main(argv) == 0
    out = capsys.readouterr().out
    assert "Elo -1529.57 [unbounded, -858.81] (95%), LOS 0" in out
    assert "note: lower end unbounded" in out
    assert sprt.main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ci_low"] is None and payload["ci_note"].startswith("lower end unbounded")


def test_the_command_reports_the_wdl_given_with_pentanomial_counts(capsys):
    argv = ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--pentanomial", "1,2,3,2,1"]
    assert sprt.main([*argv, "--wdl", "7,4,7", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["games"], payload["wdl"], payload["pentanomial"]) == (
        18,
        [7, 4, 7],
        [1, 2, 3, 2, 1],
    )
    assert sprt.main(argv) == 0
    assert "W/D/L" not in capsys.readouterr().out  # not known from pairs alone


def test_the_bound_limit_refuses_bounds_beyond_1000_and_such_bounds_have_no_llr() -> None:
    from ratings.stats.sprt import BOUND_LIMIT, check_bound_limit

    assert BOUND_LIMIT == 1000
    check_bound_limit(SprtParameters(-1000, 1000))
    with pytest.raises(SprtInputError, match=r"\[-1000, 1000\]") as caught:
        check_bound_limit(SprtParameters(0, 1e300))
    assert caught.value.code == "invalid_sprt_bounds"
    # What the limit keeps out: a logistic bound whose score rounds to 1 has no LLR.
    result = sprt.sprt([1, 2, 3, 2, 1], SprtParameters(0, 1e300))
    assert result.llr is None and result.llr_note is not None
    assert sprt.sprt([1, 2, 3, 2, 1], SprtParameters(0, 1000)).llr == pytest.approx(
        -37.517, abs=1e-3
    )
