"""How long the bundled ``search`` thinks per move on a game clock (issue 33: a person's 5+3
should feel answered at once). Prints figures, asserts nothing.

Seeded games of ``search`` (its BEP side, ``SearchEngine.search``, in process: the budget of
its own time management, no sandbox) against an opponent that answers at once with a random
legal move, at ``--tc`` (default 300+3, "5+3" to players). The engine's clock is kept as the
referee keeps it (minus the think time, plus the increment). Printed, in ms: min / p50 / p95 /
max of the think time per engine move, the depth reached (mean, min), and the engine's clock
at the end of each game; then the host's load average and cores.

``--option NAME=VALUE`` sets an engine option first (repeatable), e.g. ``MaxMoveTime=1000``
(what people's games send: ``BAO_PEOPLE_ENGINE_MOVE_MS``). ``--engine-file`` runs another
copy of the script (say the one before a change: ``git show HEAD~1:engines/bundled/search >
/tmp/search-old``).

    .venv/bin/python benchmarks/bench_search_clock.py --games 2 --moves 12
    .venv/bin/python benchmarks/bench_search_clock.py --games 2 --moves 12 --option MaxMoveTime=1000

Single-threaded; at 300+3 without a cap about 5-10 s per engine move.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import os
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# After the path insert: the benchmark runs as a plain script from any directory.
from arena.referee import TimeControl  # noqa: E402
from arena.rules import VARIANTS, get_variant  # noqa: E402
from engines.sdk import Clock, SearchRequest  # noqa: E402


def load(path: Path) -> ModuleType:
    """The engine script at ``path`` as a module (its ``__main__`` part not run)."""
    name = f"bench_search_clock_{abs(hash(str(path)))}"
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def _figures(name: str, values: list[float], unit: str = "ms") -> str:
    v = sorted(values)
    p95 = v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]
    return (
        f"{name:8s} n={len(v):4d}  min {v[0]:8.0f}  p50 {statistics.median(v):8.0f}  "
        f"p95 {p95:8.0f}  max {v[-1]:8.0f} {unit}"
    )


def play(module: ModuleType, variant_id: str, tc: TimeControl, moves: int, seed: int,
         options: dict[str, str]) -> tuple[list[float], list[int], int]:  # fmt: skip
    """One game (the engine South); returns the think times (ms), depths, final clock (ms)."""
    engine = module.SearchEngine()
    engine.values.update(options)
    variant = get_variant(variant_id)
    engine.on_newgame(variant)
    rng = random.Random(seed)
    game = variant.new_game()
    clock_ms = tc.base_ms
    opp_ms = tc.base_ms
    think: list[float] = []
    depths: list[int] = []
    history = [game.position]
    while game.outcome is None and len(think) < moves:
        legal = game.legal_moves()
        if game.position.side == "S":
            request = SearchRequest(
                variant=variant,
                position=game.position,
                legal_moves=legal,
                clock=Clock(
                    my_ms=clock_ms,
                    opp_ms=opp_ms,
                    my_inc_ms=tc.increment_ms,
                    opp_inc_ms=tc.increment_ms,
                ),
                history=list(history),
                best=legal[0],
            )
            started = time.monotonic()
            move = engine.search(request)
            elapsed_ms = (time.monotonic() - started) * 1000
            think.append(elapsed_ms)
            searcher = engine.searcher
            depths.append(getattr(searcher, "last_depth", 0))
            clock_ms = max(0, clock_ms - int(elapsed_ms)) + tc.increment_ms
        else:
            move = rng.choice(legal)
            opp_ms += tc.increment_ms
        game.play(move)
        history.append(game.position)
    return think, depths, clock_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tc", default="300+3", help="'<base s>+<increment s>'")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--moves", type=int, default=12, help="engine moves per game at most")
    parser.add_argument("--variant", default="bao-la-kete", choices=VARIANTS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("--engine-file", type=Path, default=ROOT / "engines/bundled/search")
    args = parser.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    module = load(args.engine_file)
    # Depth per move: the searcher's result, kept by a thin wrapper around ``search``.
    original = module.Searcher.search

    def search(self: object, *a: object, **k: object) -> object:
        result = original(self, *a, **k)  # type: ignore[arg-type]
        self.last_depth = result.depth  # type: ignore[attr-defined]
        return result

    module.Searcher.search = search  # type: ignore[method-assign]
    tc = TimeControl.parse(args.tc)
    print(f"search ({args.engine_file}) at {tc}, {args.variant}, options {options or 'none'}")
    think: list[float] = []
    depths: list[int] = []
    for n in range(args.games):
        t, d, left = play(module, args.variant, tc, args.moves, args.seed + n, options)
        think += t
        depths += d
        print(f"game {n + 1}: {len(t)} engine moves, clock at the end {left} ms", flush=True)
    print(_figures("think", think))
    print(f"depth    mean {statistics.mean(depths):.1f}  min {min(depths)}  max {max(depths)}")
    load1 = os.getloadavg()[0]
    print(f"host: load1 {load1:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
