"""The pure parts of bao-match: engine and option arguments, the schedule, the counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bao_match.plan import (
    EngineSpec,
    PlanError,
    parse_option,
    schedule,
    start_order,
    start_positions,
)
from arena.bao_match.tally import Finished, Tally
from arena.rules import get_variant


def test_an_engine_argument_is_a_path_or_a_name_and_a_path() -> None:
    assert EngineSpec.parse("engines/bundled/search") == EngineSpec("engines/bundled/search")
    assert EngineSpec.parse("weak=./search") == EngineSpec("./search", "weak")
    # A path with "=" after a slash is a path, not a name.
    assert EngineSpec.parse("./a=b") == EngineSpec("./a=b")
    with pytest.raises(PlanError, match="no path after"):
        EngineSpec.parse("weak=")


def test_an_option_names_its_engine_before_the_last_dot() -> None:
    assert parse_option("search.Depth=3") == ("search", "Depth", "3")
    assert parse_option("v1.2.Hash=10") == ("v1.2", "Hash", "10")
    assert parse_option("a.Name=x=y") == ("a", "Name", "x=y")
    for bad in ("Depth=3", "search.Depth", ".Depth=3", "search.=3"):
        with pytest.raises(PlanError):
            parse_option(bad)


def test_two_engines_play_pairs_numbered_in_order() -> None:
    jobs = schedule(2, 5)
    assert [(j.number, j.a, j.b, j.round, j.games, j.first_game) for j in jobs] == [
        (1, 0, 1, 0, 2, 1),
        (2, 0, 1, 1, 2, 3),
        (3, 0, 1, 2, 1, 5),
    ]


def test_a_round_robin_interleaves_its_pairings_and_a_gauntlet_has_the_first_in_each() -> None:
    robin = schedule(3, 4)
    assert [(j.a, j.b, j.round) for j in robin] == [
        (0, 1, 0),
        (0, 2, 0),
        (1, 2, 0),
        (0, 1, 1),
        (0, 2, 1),
        (1, 2, 1),
    ]
    assert [j.first_game for j in robin] == [1, 3, 5, 7, 9, 11]
    assert {(j.a, j.b) for j in schedule(4, 2, gauntlet=True)} == {(0, 1), (0, 2), (0, 3)}
    with pytest.raises(PlanError, match="at least two engines"):
        schedule(1, 2)


def test_start_positions_come_in_order_or_shuffled_by_the_seed(tmp_path: Path) -> None:
    kete = get_variant("bao-la-kete")
    assert start_positions(kete, "standard") == (kete.initial_position(),)
    suite = start_positions(kete, "balanced")
    assert len(suite) > 10
    assert start_order(5, None) == [0, 1, 2, 3, 4]
    shuffled = start_order(len(suite), 7)
    assert sorted(shuffled) == list(range(len(suite))) and shuffled != sorted(shuffled)
    assert start_order(len(suite), 7) == shuffled
    path = tmp_path / "two.txt"
    path.write_text("# two positions\n" + "\n".join(p.to_text() for p in suite[:2]) + "\n")
    assert start_positions(kete, str(path)) == suite[:2]
    with pytest.raises(PlanError, match="neither"):
        start_positions(kete, str(tmp_path / "missing.txt"))
    path.write_text("not a position\n")
    with pytest.raises(PlanError, match=r"two\.txt:1"):
        start_positions(kete, str(path))


def test_the_tally_counts_pairs_from_the_first_engines_side() -> None:
    tally = Tally(["new", "base"])
    # Pair 1: new wins as South, draws as North (3/2 points); pair 2: new loses on time as
    # South, the second game is aborted: no pair counted.
    tally.add(Finished(1, 0, 1, "1-0", "bao_hamna", None), 2)
    tally.add(Finished(1, 1, 0, "1/2-1/2", "repetition", None), 2)
    tally.add(Finished(2, 0, 1, "0-1", "time_forfeit", 0), 2)
    tally.add(Finished(2, 1, 0, "*", "aborted", None), 2)
    assert tally.games == 4
    assert tally.wdl == [1, 1, 1]
    assert tally.trinomial == [1, 1, 1]
    assert tally.pentanomial == [0, 0, 0, 1, 0]
    assert tally.pair_wdl == [1, 1, 0]
    assert tally.terminations["new"] == {"time_forfeit": 1, "aborted": 1}
    assert tally.terminations["base"] == {"aborted": 1}
    assert tally.failures == 1
    assert tally.results == [("new", "base", 1.0), ("base", "new", 0.5), ("new", "base", 0.0)]


def test_a_terminal_gets_one_status_line_rewritten_in_place_and_a_pipe_plain_lines() -> None:
    import io

    from arena.bao_match.cli import Display

    tty = io.StringIO()
    shown = Display(tty, tty=True)
    shown.update("games 1/4")
    shown.line("game 2 ...")
    shown.update("games 2/4")
    shown.end()
    assert tty.getvalue() == (
        "\r\x1b[Kgames 1/4" + "\r\x1b[Kgame 2 ...\ngames 1/4" + "\r\x1b[Kgames 2/4" + "\n"
    )
    pipe = io.StringIO()
    plain = Display(pipe, tty=False)
    plain.update("games 1/4")
    plain.line("game 2 ...")
    plain.end()
    assert pipe.getvalue() == "games 1/4\ngame 2 ...\n"


def test_the_progress_line_shows_counts_elo_llr_rate_and_time_left() -> None:
    from arena.bao_match.report import progress_line
    from ratings.stats.sprt import SprtParameters, sprt

    tally = Tally(["new", "base"])
    for job in range(1, 4):
        tally.add(Finished(job, 0, 1, "1-0", "bao_hamna", None), 2)
        tally.add(Finished(job, 1, 0, "1/2-1/2", "repetition", None), 2)
    params = SprtParameters(0, 10)
    line = progress_line(tally, total=12, played=6, elapsed_s=3.0, params=params)
    llr = sprt([0, 0, 0, 3, 0], params).llr
    assert llr is not None
    assert line.startswith("games 6/12  W/D/L 3/3/0  ptnml [0, 0, 0, 3, 0]  Elo ")
    assert f"LLR {llr:.2f} (-2.94, 2.94)  2.00 games/s  left 0m03s" in line


def test_elo_is_shown_as_an_interval_unbounded_ends_named_and_no_minus_zero() -> None:
    from arena.bao_match.report import Estimate, _llr, _pm
    from ratings.stats.sprt import SprtParameters, sprt

    assert _pm(Estimate(682.861, 562.6, 1248.6, 1.0)) == "682.86 [562.60, 1248.60]"
    assert _pm(Estimate(925.7, 736.17, None, 1.0)) == "925.70 [736.17, unbounded]"
    assert _pm(Estimate(-0.001, -5.0, 5.0, 0.5), 1) == "0.0 [-5.0, 5.0]"
    assert _pm(Estimate(None, None, None, None)) == "-"
    # Equal records: an LLR of a hair below zero is shown as 0.00, not -0.00.
    assert _llr(sprt([0, 1, 2, 1, 0], SprtParameters(-1e-9, 1e-9))) == "0.00"


def test_the_progress_line_waits_for_the_first_pair_before_any_elo() -> None:
    from arena.bao_match.report import progress_line

    tally = Tally(["new", "base"])
    tally.add(Finished(1, 0, 1, "1-0", "bao_hamna", None), 2)
    line = progress_line(tally, total=4, played=1, elapsed_s=1.0, params=None)
    assert "W/D/L 1/0/0  ptnml [0, 0, 0, 0, 0]  Elo after the first pair  1.00" in line
    tally.add(Finished(1, 1, 0, "1-0", "bao_hamna", None), 2)
    line = progress_line(tally, total=4, played=2, elapsed_s=1.0, params=None)
    assert "ptnml [0, 0, 1, 0, 0]  Elo 0.0 [" in line


def test_an_option_value_must_fit_the_type_the_handshake_declared() -> None:
    from arena.bao_match.plan import option_value_error

    spin, check = {"type": "spin", "default": "0"}, {"type": "check", "default": "false"}
    assert option_value_error("Depth", "3", spin) is None
    assert option_value_error("Depth", "-2", spin) is None
    assert option_value_error("Depth", "abc", spin) == (
        "Depth is a spin option: it takes a whole number, not 'abc'"
    )
    assert option_value_error("Ponder", "true", check) is None
    assert option_value_error("Ponder", "yes", check) == (
        "Ponder is a check option: it takes true or false, not 'yes'"
    )
    assert option_value_error("Book", "any text", {"type": "string"}) is None


def test_a_bundled_engine_can_be_named_when_no_such_path_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.bao_match.cli import bundled_path
    from engines.bundled_scripts import BUNDLED_DIR

    monkeypatch.chdir(tmp_path)
    assert bundled_path("search") == str(BUNDLED_DIR / "search")
    assert bundled_path("nosuch") == "nosuch"
    assert bundled_path("./search") == "./search"
    (tmp_path / "search").mkdir()  # a path of that name here wins
    assert bundled_path("search") == "search"
