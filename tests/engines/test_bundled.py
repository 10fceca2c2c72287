"""The bundled engines (``engines/bundled/``): legal answers over BEP in every variant, the
random engine's reproducibility, greedy's one-ply choice, the search engine's clock handling and
its strength in small self-contained matches played through ``arena.rules``."""

from __future__ import annotations

import os
import random
import select
import subprocess
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from arena.rules import VARIANTS, Position, Variant, get_variant
from engines.bundled_scripts import load_bundled
from engines.sdk import Clock

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "engines" / "bundled"
ENGINES = ("random", "greedy", "search")


def load_engine(name: str) -> ModuleType:
    """Import a bundled engine script (no ``.py`` suffix) as a module, without running it."""
    return load_bundled(name)


def playout(variant: Variant, seed: int, plies: int) -> list[str]:
    """Tokens of up to ``plies`` seeded random moves from the start, stopping before a move
    that would end the game, so the side to move always has a move."""
    rng = random.Random(seed)
    game = variant.new_game()
    while len(game.moves) < plies:
        move = rng.choice(game.legal_moves())
        after = variant.new_game(game.position)
        after.play(move)
        if after.outcome is not None:
            break
        game.play(move)
    return [str(m) for m in game.moves]


def sample_positions(variant: Variant) -> list[Position]:
    """The start position and three positions from seeded random games (8, 20 and 36 plies)."""
    found = [variant.initial_position()]
    for seed, plies in ((1, 8), (2, 20), (3, 36)):
        position = variant.initial_position()
        for token in playout(variant, seed, plies):
            position = variant.apply(position, token)
        if variant.legal_moves(position):
            found.append(position)
    return found


class BepProcess:
    """A bundled engine in a subprocess, run the way the sandbox does: ``/usr/bin/python3``, a
    scrubbed environment, ``PYTHONPATH`` giving ``arena.rules`` and ``engines.sdk``. Every read
    has a deadline."""

    def __init__(self, name: str) -> None:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "HOME": "/tmp"}
        self.proc = subprocess.Popen(
            [str(BUNDLED / name)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd="/tmp",
        )
        self._buffer = b""

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def readline(self, timeout: float = 10.0) -> str:
        assert self.proc.stdout is not None
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no line within {timeout} s; got {self._buffer!r}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(f"engine closed stdout; stderr: {self.stderr()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def until(self, prefix: str, timeout: float = 10.0) -> tuple[str, list[str]]:
        """Read up to the first line starting with ``prefix``; that line and the ones before."""
        before: list[str] = []
        while True:
            line = self.readline(timeout)
            if line.startswith(prefix):
                return line, before
            before.append(line)

    def stderr(self) -> str:
        return "" if self.proc.stderr is None else self.proc.stderr.read1(65536).decode()  # type: ignore[union-attr]

    def close(self) -> int:
        self.send("quit")
        try:
            return self.proc.wait(5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def engine_process(request: pytest.FixtureRequest):
    started: list[BepProcess] = []

    def start(name: str) -> BepProcess:
        process = BepProcess(name)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()


# ------------------------------------------------------------------ every engine, every variant


@pytest.mark.parametrize("name", ENGINES)
def test_each_bundled_engine_is_an_executable_python3_script(name: str) -> None:
    path = BUNDLED / name
    assert path.read_text().startswith("#!/usr/bin/env python3\n")
    assert os.access(path, os.X_OK)


@pytest.mark.parametrize("name", ENGINES)
def test_each_bundled_engine_answers_legal_moves_in_every_variant(
    name: str, engine_process
) -> None:
    engine = engine_process(name)
    engine.send("bep")
    _, before = engine.until("bepok")
    assert before[:2] == [f"id name {name}", "id author Bao Arena"]
    assert [x for x in before if x.startswith("variant ")] == [f"variant {v}" for v in VARIANTS]
    answered = 0
    for variant_id in VARIANTS:
        variant = get_variant(variant_id)
        engine.send(f"newgame {variant_id}")
        for position in sample_positions(variant):
            engine.send("isready")
            assert engine.readline() == "readyok"
            engine.send(f"position text {position.to_text()}")
            engine.send("go movetime 60")
            move = engine.until("bestmove ")[0].split()[1]
            assert move in variant.legal_moves(position), (variant_id, position.to_text(), move)
            answered += 1
        # The same game given as the start position and a move list.
        tokens = playout(variant, 5, 12)
        engine.send("position startpos moves " + " ".join(tokens))
        engine.send("go stime 5000 ntime 5000 sinc 100 ninc 100")
        move = engine.until("bestmove ")[0].split()[1]
        end = variant.initial_position()
        for token in tokens:
            end = variant.apply(end, token)
        assert move in variant.legal_moves(end)
    assert answered >= 10
    assert engine.close() == 0


# ------------------------------------------------------------------ random


def test_random_is_reproducible_per_seed_and_position() -> None:
    module = load_engine("random")
    v = get_variant("bao-la-kiswahili")
    p = v.initial_position()
    moves = v.legal_moves(p)
    first = [module.choose(p, moves, Clock(), {"Seed": str(s)}) for s in range(40)]
    again = [module.choose(p, moves, Clock(), {"Seed": str(s)}) for s in range(40)]
    assert first == again
    assert set(first) <= set(moves)


def test_random_spreads_its_choices_uniformly() -> None:
    module = load_engine("random")
    v = get_variant("bao-kingulu")
    p = v.initial_position()
    moves = v.legal_moves(p)  # c1 d1 e1 f1 (KGL-E1)
    counts = Counter(module.choose(p, moves, Clock(), {"Seed": str(s)}) for s in range(2000))
    assert sorted(counts) == ["c1", "d1", "e1", "f1"]
    # 500 expected each; 4 standard deviations (about 78) either side.
    assert all(420 <= n <= 580 for n in counts.values()), counts


# ------------------------------------------------------------------ greedy


def test_greedy_takes_the_kingulu_opening_capture() -> None:
    module = load_engine("greedy")
    v = get_variant("bao-kingulu")
    p = v.initial_position()
    # c1 banks 7 seeds (KGL-E1): South 34 against 14, +20; d1 gives +10, e1 -4, f1 -6.
    assert [module.move_value(v, p, m) for m in v.legal_moves(p)] == [20, 10, -4, -6]
    assert module.choose(p, v.legal_moves(p), Clock(), v) == "c1"


def test_greedy_breaks_ties_by_token_order() -> None:
    module = load_engine("greedy")
    v = get_variant("bao-la-kiswahili")
    p = v.apply(v.apply(v.initial_position(), "f2-"), "d3-")
    # Both takata moves leave South 2 seeds ahead: the first token is played.
    assert [module.move_value(v, p, m) for m in v.legal_moves(p)] == [2, 2]
    assert module.choose(p, v.legal_moves(p), Clock(), v) == "c2+"


# ------------------------------------------------------------------ search: clock


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_search_answers_go_movetime_100_within_its_budget(variant_id: str, engine_process) -> None:
    variant = get_variant(variant_id)
    engine = engine_process("search")
    engine.send(f"newgame {variant_id}")
    engine.send("isready")
    assert engine.readline() == "readyok"
    engine.send("position startpos moves " + " ".join(playout(variant, 11, 6)))
    started = time.monotonic()
    engine.send("go movetime 100")
    _, infos = engine.until("bestmove ", timeout=5)
    elapsed_ms = (time.monotonic() - started) * 1000
    print(f"{variant_id}: go movetime 100 answered in {elapsed_ms:.0f} ms; last {infos[-1:]}")
    assert elapsed_ms < 1000
    assert infos and infos[-1].startswith("info depth ")
    fields = infos[-1].split()
    assert fields[1::2][:5] == ["depth", "score", "nodes", "time", "pv"]


def _clocked_game(variant_id: str, base_ms: int, inc_ms: int, plies: int, engine_process) -> int:
    """search against itself over BEP with a referee-style Fischer clock; returns the least
    time left (ms) seen after a move. Fails if a clock runs out."""
    variant = get_variant(variant_id)
    players = {"S": engine_process("search"), "N": engine_process("search")}
    clocks = {"S": base_ms, "N": base_ms}
    for engine in players.values():
        engine.send(f"newgame {variant_id}")
    game = variant.new_game()
    least = base_ms
    while game.outcome is None and len(game.moves) < plies:
        side = game.position.side
        engine = players[side]
        engine.send("isready")
        assert engine.readline() == "readyok"
        engine.send("position startpos moves " + " ".join(map(str, game.moves)))
        started = time.monotonic()
        engine.send(f"go stime {clocks['S']} ntime {clocks['N']} sinc {inc_ms} ninc {inc_ms}")
        move = engine.until("bestmove ", timeout=clocks[side] / 1000 + 2)[0].split()[1]
        used = int((time.monotonic() - started) * 1000)
        clocks[side] -= used
        assert clocks[side] > 0, f"{side} lost on time at ply {len(game.moves)}: used {used} ms"
        least = min(least, clocks[side])
        clocks[side] += inc_ms
        game.play(move)
    return least


@pytest.mark.slow
@pytest.mark.parametrize("variant_id", VARIANTS)
def test_search_never_loses_on_time_at_1_plus_0_1(variant_id: str, engine_process) -> None:
    least = _clocked_game(variant_id, 1000, 100, 40, engine_process)
    print(f"{variant_id} 1+0.1: least time left {least} ms")
    assert least > 0


@pytest.mark.slow
def test_search_never_loses_on_time_at_10_plus_0_1(engine_process) -> None:
    least = _clocked_game("bao-la-kiswahili", 10_000, 100, 12, engine_process)
    print(f"bao-la-kiswahili 10+0.1: least time left {least} ms")
    assert least > 5000  # twelve plies use only a small part of ten seconds


# ------------------------------------------------------------------ search: strength


def _opening(variant: Variant, seed: int) -> Position:
    """Two seeded random plies from the start: varied but still balanced openings."""
    position = variant.initial_position()
    for token in playout(variant, 100 + seed, 2):
        position = variant.apply(position, token)
    return position


def _match(variant_id: str, opponent: str, depth: int, openings: int = 8) -> dict[str, int]:
    """search (fixed depth, so deterministic) against ``opponent`` from each opening with
    both colours; wins/draws/losses of search, judged by ``Game`` (repetition, ply cap)."""
    search = load_engine("search")
    other = load_engine(opponent)
    variant = get_variant(variant_id)
    tally = {"win": 0, "draw": 0, "loss": 0}
    for k in range(openings):
        start = _opening(variant, k)
        for search_side in ("S", "N"):
            searcher = search.Searcher(variant)
            game = variant.new_game(start)
            while game.outcome is None:
                position, moves = game.position, game.legal_moves()
                if position.side == search_side:
                    move = searcher.search(position, max_depth=depth, history=game.positions).move
                elif opponent == "greedy":
                    move = other.choose(position, moves, Clock(), variant)
                else:
                    move = other.choose(position, moves, Clock(), {"Seed": str(k)})
                game.play(move)
            winner = game.outcome.winner
            tally["draw" if winner is None else "win" if winner == search_side else "loss"] += 1
    return tally


# Search depth per variant for the matches: Kingulu games are short (about 20 plies) and its
# positions small, so the search looks further there.
_MATCH_DEPTH = {"bao-la-kete": 3, "bao-la-kiswahili": 3, "bao-kingulu": 12}
# Measured outcomes (16 games each: 8 openings x 2 colours). They are exact because every
# player is deterministic; a change in the rules engine may move them, the bound may not.
_EXPECTED = {
    ("bao-la-kete", "greedy"): {"win": 16, "draw": 0, "loss": 0},
    ("bao-la-kete", "random"): {"win": 16, "draw": 0, "loss": 0},
    ("bao-la-kiswahili", "greedy"): {"win": 16, "draw": 0, "loss": 0},
    ("bao-la-kiswahili", "random"): {"win": 16, "draw": 0, "loss": 0},
    # Kingulu is nearly decided after two plies: a depth-40 search proves the openings of the
    # two games search drew or lost against random (k=2 North, k=4 North) lost for it.
    ("bao-kingulu", "greedy"): {"win": 13, "draw": 3, "loss": 0},
    ("bao-kingulu", "random"): {"win": 14, "draw": 1, "loss": 1},
}


@pytest.mark.slow
@pytest.mark.parametrize(("variant_id", "opponent"), sorted(_EXPECTED))
def test_search_beats_greedy_and_random(variant_id: str, opponent: str) -> None:
    started = time.monotonic()
    tally = _match(variant_id, opponent, _MATCH_DEPTH[variant_id])
    print(f"search vs {opponent} in {variant_id}: {tally} ({time.monotonic() - started:.1f} s)")
    assert tally["win"] >= 10 and tally["loss"] <= 2  # clearly stronger: the point of the test
    assert tally == _EXPECTED[(variant_id, opponent)]


# ------------------------------------------------------------------ through the real referee


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant_id", "opponent"), [("bao-kingulu", "random"), ("bao-la-kete", "greedy")]
)
def test_search_wins_a_refereed_match_in_the_sandbox(variant_id: str, opponent: str) -> None:
    import tempfile

    from arena.referee import RefereeConfig, TimeControl, play_match
    from engines.package import load_engine as load_package
    from engines.sandbox import SandboxConfig

    # The copies of the engine files go where the engine uid can read them (pytest's tmp_path
    # is root-only) and are removed afterwards.
    with tempfile.TemporaryDirectory(prefix="bao-bundled-test-") as work:
        os.chmod(work, 0o755)
        record = play_match(
            load_package(BUNDLED / "search", unpack_dir=Path(work) / "search"),
            load_package(BUNDLED / opponent, unpack_dir=Path(work) / opponent),
            variant_id,
            TimeControl.parse("1+0.1"),
            seed=3,
            config=RefereeConfig(sandbox=SandboxConfig(mode="auto")),
        ).to_dict()
    games = [(g["result"], g["termination"], g["plies"]) for g in record["games"]]
    print(f"search vs {opponent} in {variant_id} at 1+0.1: {record['score']} {games}")
    assert record["score"] == [2.0, 0.0]
    assert record["winner"] == "search"
    rules_endings = {"bao_hamna", "no_legal_move", "score", "repetition", "ply_cap"}
    assert all(g["termination"] in rules_endings for g in record["games"])
    # Every search move carries its thinking, as the referee keeps it.
    searched = [m for g in record["games"] for m in g["moves"] if m["info"]]
    assert searched and all(m["info"][-1].startswith("depth ") for m in searched)


# ------------------------------------------------------------------ search: the searcher itself


def test_search_takes_the_kingulu_opening_capture_at_depth_1() -> None:
    search = load_engine("search")
    v = get_variant("bao-kingulu")
    result = search.Searcher(v).search(v.initial_position(), max_depth=1)
    assert (result.move, result.depth, result.pv) == ("c1", 1, ["c1"])
    assert result.score == search.evaluate(v.apply(v.initial_position(), "c1")) * -1


def test_search_proves_a_kingulu_win() -> None:
    search = load_engine("search")
    v = get_variant("bao-kingulu")
    # KGL-E1 after c1 c2: South to move; the game is won for South with best play.
    p = v.parse_position("0,2,1,7,1,2/8,7,5n,0,1,7 S 7:0 2")
    result = search.Searcher(v).search(p, max_depth=30)
    assert result.score > search.WIN - 30
    assert result.move in ("a1", "b1")
    # Following the principal variation really ends the game in South's favour.
    game = v.new_game(p)
    for token in result.pv:
        game.play(token)
    assert game.outcome is not None and game.outcome.winner == "S"


def test_search_with_no_time_plays_the_first_legal_move() -> None:
    search = load_engine("search")
    v = get_variant("bao-la-kete")
    result = search.Searcher(v).search(v.initial_position(), deadline=time.monotonic())
    assert (result.move, result.depth) == (v.legal_moves(v.initial_position())[0], 0)


def test_the_depth_option_limits_the_search() -> None:
    import io

    search = load_engine("search")
    out = io.StringIO()
    script = (
        "setoption name Depth value 2\nnewgame bao-la-kiswahili\nposition startpos\n"
        "go movetime 5000\n"
    )
    assert search.SearchEngine().run(io.StringIO(script), out) == 0
    lines = out.getvalue().splitlines()
    assert [line.split()[2] for line in lines[:-1]] == ["1", "2"]
    v = get_variant("bao-la-kiswahili")
    expected = search.Searcher(v).search(v.initial_position(), max_depth=2).move
    assert lines[-1] == f"bestmove {expected}"


@pytest.mark.parametrize(
    ("cap", "budget_ms"),
    [("0", 300_000 // 30 + 2700 - 15), ("1000", 1000), ("200000", 300_000 // 30 + 2700 - 15)],
)
def test_the_max_move_time_option_caps_the_budget_of_a_move(
    monkeypatch: pytest.MonkeyPatch, cap: str, budget_ms: int
) -> None:
    """People's games send ``MaxMoveTime`` (docs/play.md, "The engine's pace"): the budget at
    300+3 is the clock's (remaining/30 + 90 % of the increment - 15 ms) unless the cap is
    lower; the soft limit for a new iteration stays 45 % of it."""
    from engines.sdk import SearchRequest

    search = load_engine("search")
    engine = search.SearchEngine()
    assert "option name MaxMoveTime type spin default 0" in [o.line() for o in engine.options]
    engine.values["MaxMoveTime"] = cap
    seen: dict[str, float] = {}

    def fake(self: object, root: Position, **kw: float) -> object:
        seen.update(deadline=kw["deadline"], soft=kw["soft_deadline"])
        return search.SearchResult(variant.legal_moves(root)[0], 0, 1, 1)

    monkeypatch.setattr(search.Searcher, "search", fake)
    variant = get_variant("bao-la-kete")
    root = variant.initial_position()
    clock = Clock(my_ms=300_000, opp_ms=300_000, my_inc_ms=3000, opp_inc_ms=3000, started=100.0)
    moves = variant.legal_moves(root)
    engine.search(SearchRequest(variant, root, moves, clock, [root], moves[0]))
    assert round((seen["deadline"] - 100.0) * 1000) == budget_ms
    assert round((seen["soft"] - 100.0) * 1000) == round(budget_ms * 0.45)


def test_search_ends_a_game_only_at_the_third_occurrence_of_a_position() -> None:
    search = load_engine("search")
    v = get_variant("bao-kingulu")
    p = v.parse_position("0,2,1,7,1,2/8,7,5n,0,1,7 S 7:0 2")
    b1 = v.apply(p, "b1")  # 1,5s,2,1,0,4/9,1,5n,2,0,9 N 7:2 3: scored 33-15 if the game ended
    # Seen once before: b1 would be its second occurrence, the game goes on, a1 and b1 both
    # evaluate to 1900 and the first is kept.
    once = search.Searcher(v).search(p, max_depth=1, history=[b1, p])
    assert (once.move, once.score) == ("a1", 1900)
    # Seen twice: b1 is the third occurrence and ends the game, scored 33-15 for South
    # (README 6.3), a won game one ply away with an 18-seed margin.
    twice = search.Searcher(v).search(p, max_depth=1, history=[b1, b1, p])
    assert (twice.move, twice.score) == ("b1", search.WIN - 1 + 18)


def test_search_answers_the_lost_kingulu_c1_opening_from_its_book() -> None:
    search = load_engine("search")
    v = get_variant("bao-kingulu")
    after_c1 = v.apply(v.initial_position(), "c1")
    result = search.Searcher(v).search(after_c1, max_depth=20)
    assert (result.move, result.depth, result.nodes, result.pv) == ("f2", 0, 0, ["f2"])
