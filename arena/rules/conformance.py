"""Conformance data for porters: positions, their legal moves and the position after a move.

A conformance file (``docs/rules/conformance/<variant id>.jsonl.gz``, the format is described
in ``docs/rules/conformance.md``) is one JSON object a line, for every position of a set of
games: ``position`` (BPN/KPN, docs/rules/README.md section 7), ``legal`` (the sorted tokens of
``Variant.legal_moves``), ``move`` (the move played, absent at a game end), ``next`` (the
position after it, absent at a game end) and ``outcome`` (null, or ``Outcome.to_dict()`` at a
game end). A move generator written in any language is checked against it line by line.

The games are chosen so that every rule of the variant is exercised somewhere
(``RULES``): each game is played by one of a few policies (random, greedy for material, a
mix, a repeater that returns to positions it has seen) drawn from a seeded generator, and the
rules each line exercises are measured by instrumented copies of the variants' own hooks (the
sowing function a ``MoveRunner`` calls, the Bao la Kete priority and kuu hooks) and by the
sowing trace of the move played (``Variant.trace``), so no rule is decided a second time here.
Once enough lines are written, games are kept only if they reach a rule still missing; the
search gives up after ``MAX_EXTRA_GAMES`` such games (``CoverageError``).

Everything is a pure function of the variant, the seed and the line count: the same arguments
give the same lines, and ``write_gzip`` writes them with a zero gzip timestamp, so a file
regenerated with its seed is byte-identical (for one zlib version). No I/O here: the command
line (``python -m arena.rules conformance``) writes the bytes of ``encode``.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from . import Game, Move, Position, Variant, VariantId, get_variant
from .bao import BaoLaKete, BaoLaKiswahili, _Bao
from .bao_board import SQUARES, BaoPosition
from .bao_moves import MoveRunner, RawResult, Sow
from .bao_sowing import FRONT_ROW_EMPTIED, NEVER_ENDING, sow_move
from .kingulu import _FIRST_LAP, _NEVER_ENDING, BaoKingulu, KinguluPosition, _sow_move
from .kingulu_trace import T_CAPTURE, T_LAP, T_MTOTO, T_RESERVED

#: Lines written per variant by default.
DEFAULT_LINES = 10_000
#: The seed of the committed files (``docs/rules/conformance/``).
DEFAULT_SEED = 27
#: Games tried, after the line count is reached, for the rules seen in fewer than
#: ``MIN_LINES`` lines.
MAX_EXTRA_GAMES = 400
#: Lines wanted per rule, where play from the start position reaches it at all.
MIN_LINES = 5


class CoverageError(Exception):
    """Some rule of ``RULES`` was not reached by any game (the message names them)."""


# --------------------------------------------------------------------------- the rules

#: What a Bao la Kiswahili / Bao la Kete line can exercise: code -> description. The source
#: sections are those of ``docs/rules/bao-la-kete.md``, which Bao la Kiswahili shares but for
#: D1-D3.
_BAO_RULES: tuple[tuple[str, str], ...] = (
    ("namua_capture", "namua capture: reserve seed into a front pit, capture (4.1, 6.1)"),
    ("namua_takata", "namua takata from a front pit (4.1)"),
    ("namua_singleton", "namua takata from a single seed, no pit with 2+ legal (K-16)"),
    ("nyumba_tax", "the nyumba is taxed: 2 seeds lifted, the nyumba stays (6.1)"),
    ("nyumba_stop", "a namua lap ends in the functional nyumba and stops: nyumba kept (6.3)"),
    ("nyumba_safari", "a capture lap ends in the nyumba and goes on (safari, 'c')"),
    ("nyumba_destroyed", "the nyumba is emptied by a lift or relay: lost (K-2)"),
    ("nyumba_captured", "the opponent captures the nyumba: lost (5 step 1)"),
    ("mtaji_capture", "mtaji capture (4.2, 6.2)"),
    ("mtaji_takata_front", "mtaji takata from a front pit (4.2 step 3)"),
    ("mtaji_takata_back", "mtaji takata from a back pit, no front takata legal (4.2 step 4)"),
    ("kimbi_kichwa", "a capture in a kimbi forces its kichwa and direction (5 step 3)"),
    ("kichwa_direction", "a capture in a central pit keeps the direction (5 step 3)"),
    ("relay", "a lap ends in an occupied pit and its seeds are sown on (3)"),
    ("takasia_mark", "kutakatia: a takata leaves the opponent one capture, his pit marked (7)"),
    ("takasia_blocks", "the takasia'd pit may not start a takata (4.2)"),
    ("takasia_stop", "a takata lap ends in the takasia'd pit and stops (6.3 step 4)"),
    ("front_row_rule", "a candidate would empty the mover's front row: illegal (K-9)"),
    ("never_ending", "a candidate never ends (10,000 laps): illegal (rules 8)"),
    ("won_mid_move", "a capture empties the opponent's front row mid-move (A-5)"),
    ("end_bao_hamna", "game end: a front row is empty"),
    ("end_no_legal_move", "game end: the player to move has no legal move"),
    ("end_repetition", "game end: third repetition (a draw)"),
    ("end_ply_cap", "game end: the ply cap (1000) is reached (a draw)"),
)
_KETE_RULES: tuple[tuple[str, str], ...] = (
    ("kuu_six", "D1: a kuu of exactly 6 is emptied by the tax and destroyed"),
    ("kuu_first", "D2: the first mtaji takata starts from the kuu"),
    ("hizi_zetu", "D3: only the captures that take the marked pit are legal"),
)
_KINGULU_RULES: tuple[tuple[str, str], ...] = (
    ("relay", "rule 5: a lap ends in an occupied hole and its seeds are sown on"),
    ("capture", "rule 2: a lap ends in an own empty hole, the facing seeds are captured"),
    ("capture_refused", "rule 2: own empty hole facing an empty or reserved hole: no capture"),
    ("empty_end", "rule 2: a lap ends in an empty hole of the opponent"),
    ("mtoto", "rule 3: kuweka mtoto, the penultimate seed joins it"),
    ("mtoto_single", "rule 3 / G-5: kuweka mtoto with a one-seed lap"),
    ("mtoto_banked", "rule 3 / G-4: kuweka mtoto, the penultimate seed was banked"),
    ("reserved_end", "rule 1 / G-2: a lap ends in a reserved hole"),
    ("bank_sow", "G-1: a seed sown into a reserved hole goes to its owner's bank"),
    ("wrap_lap", "G-6: a lap of 12 or more seeds sows its emptied start hole"),
    ("first_lap_rule", "rule 4: a candidate's first lap ends in an own occupied hole: illegal"),
    ("never_ending", "a candidate never ends (10,000 laps): illegal (rules 8)"),
    ("end_score", "game end: no legal move, scored"),
    ("end_repetition", "game end: third repetition, scored"),
    ("end_ply_cap", "game end: the ply cap (500) is reached, scored"),
)

#: Variant id -> the rules its conformance file must reach, code -> description, in order.
RULES: dict[VariantId, dict[str, str]] = {
    VariantId.BAO_LA_KETE: dict(_BAO_RULES + _KETE_RULES),
    VariantId.BAO_LA_KISWAHILI: dict(_BAO_RULES),
    VariantId.BAO_KINGULU: dict(_KINGULU_RULES),
}


# --------------------------------------------------------------------------- lines


@dataclass(frozen=True)
class Line:
    """One line of a conformance file. ``outcome`` is ``Outcome.to_dict()`` at a game end,
    where ``move`` and ``next`` are None; else None."""

    position: str
    legal: tuple[str, ...]
    move: str | None = None
    next: str | None = None
    outcome: dict[str, object] | None = None

    def to_json(self) -> str:
        """The JSON object on one line: keys in the order of the format, compact."""
        data: dict[str, object] = {"position": self.position, "legal": list(self.legal)}
        if self.move is not None:
            data["move"] = self.move
            data["next"] = self.next
        data["outcome"] = self.outcome
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Line:
        """Parse one line; raises ``ValueError`` (``json.JSONDecodeError``) or ``KeyError``."""
        data = json.loads(text)
        return cls(
            data["position"],
            tuple(data["legal"]),
            data.get("move"),
            data.get("next"),
            data.get("outcome"),
        )


@dataclass
class Coverage:
    """How many lines exercised each rule of a variant (``RULES``), and the games played."""

    variant_id: VariantId
    counts: dict[str, int]
    games: int = 0
    lines: int = 0
    endings: dict[str, int] = field(default_factory=dict)

    @classmethod
    def empty(cls, variant_id: VariantId) -> Coverage:
        return cls(variant_id, dict.fromkeys(RULES[variant_id], 0))

    def add(self, rules: Iterable[str]) -> None:
        for rule in rules:
            self.counts[rule] += 1

    def missing(self) -> list[str]:
        """The rules no line has reached, in ``RULES`` order."""
        return [rule for rule, count in self.counts.items() if count == 0]

    def table(self) -> str:
        """A Markdown table: rule, lines that exercise it, description."""
        rows = [f"coverage of {self.variant_id}: {self.lines} lines, {self.games} games", ""]
        rows += ["| rule | lines | what |", "| --- | ---: | --- |"]
        for rule, what in RULES[self.variant_id].items():
            rows.append(f"| {rule} | {self.counts[rule]} | {what} |")
        return "\n".join(rows)


# --------------------------------------------------------------------------- observers


class _Watch:
    """Records what the hooks of an instrumented variant saw while generating moves."""

    def __init__(self) -> None:
        self.codes: set[int] = set()
        self.hizi_zetu = False
        self.kuu_first = False

    def reset(self) -> None:
        self.codes.clear()
        self.hizi_zetu = False
        self.kuu_first = False


def _watched(base: type[_Bao]) -> tuple[_Bao, _Watch]:
    """An instance of the Bao variant ``base`` whose generator reports to a ``_Watch``: the
    sowing results of every candidate, and whether the Kete hooks D2/D3 decided the list."""
    watch = _Watch()

    def sow(*args: object) -> tuple[int, bool, bool, int, bool]:
        result = sow_move(*args)  # type: ignore[arg-type]
        watch.codes.add(result[0])
        return result

    class Watched(base):  # type: ignore[valid-type, misc]
        def _runner(
            self,
            position: BaoPosition,
            si: int,
            me: tuple[int, ...],
            opp: tuple[int, ...],
            sow_: Sow = sow_move,
        ) -> MoveRunner:
            runner: MoveRunner = super()._runner(
                position, si, me, opp, sow if sow_ is sow_move else sow_
            )
            return runner

        def _house_first(self, ctx: MoveRunner, out: dict[Move, RawResult]) -> bool:
            chosen: bool = super()._house_first(ctx, out)
            watch.kuu_first = watch.kuu_first or chosen
            return chosen

        def _prioritised(self, captures: dict[Move, RawResult]) -> dict[Move, RawResult]:
            chosen: dict[Move, RawResult] = super()._prioritised(captures)
            watch.hizi_zetu = watch.hizi_zetu or len(chosen) < len(captures)
            return chosen

    return Watched(), watch


class _BaoObserver:
    """The rules of ``RULES`` one line of a Bao game exercises."""

    def __init__(self, variant: _Bao) -> None:
        self.variant = variant
        self.kete = isinstance(variant, BaoLaKete)
        self.watched, self.watch = _watched(BaoLaKete if self.kete else BaoLaKiswahili)

    def rules(self, position: Position, move: str | None, after: Position | None) -> set[str]:
        assert isinstance(position, BaoPosition)
        found: set[str] = set()
        watched, watch = self.watched, self.watch
        watch.reset()
        watched._cache = None  # every line generated afresh, so the hooks run
        legal = watched.legal_moves(position)
        if NEVER_ENDING in watch.codes:
            found.add("never_ending")
        if FRONT_ROW_EMPTIED in watch.codes:
            found.add("front_row_rule")
        if watch.hizi_zetu:
            found.add("hizi_zetu")
        if watch.kuu_first:
            found.add("kuu_first")
        si = 0 if position.side == "S" else 1
        mark = position.mark
        stop = mark & 15 if mark >= 0 and mark >> 4 == si else -1
        takata = bool(legal) and self.variant._legal_set(position)[legal[0]][6]
        me = position.pits[si]
        if takata and stop >= 0 and me[stop] >= 2:
            found.add("takasia_blocks")
        front = [i for i in range(8) if me[i]]
        if takata and len(front) == 1 and front[0] in (0, 7):
            # K-9 before any sowing: the lone kimbi may not be sown out of the front row.
            pit = front[0]
            outward = SQUARES[si][pit] + ("+" if pit == 7 else "-")
            if (position.reserves[si] or me[pit] >= 2) and outward not in legal:
                found.add("front_row_rule")
        if move is None:
            return found
        found |= self._played(position, move)
        assert isinstance(after, BaoPosition)
        if after.mark >= 0 and after.mark >> 4 == (1 - si) and mark != after.mark:
            found.add("takasia_mark")
        return found

    def _played(self, position: BaoPosition, move: str) -> set[str]:
        found: set[str] = set()
        si = 0 if position.side == "S" else 1
        trace = self.variant.trace(position, move)
        ops = {(s.op, s.rule) for s in trace.steps}
        namua = position.reserves[si] > 0
        capture = any(s.op == "capture" for s in trace.steps)
        pit = int(move[1]) in (2, 3)  # a front-row square
        if namua and capture:
            found.add("namua_capture")
        elif namua:
            found.add("namua_takata")
            me = position.pits[si]
            functional = position.houses[si] and me[4] >= 6
            lifted = next(s for s in trace.steps if s.op == "lift")
            if not functional and lifted.seeds == 2:  # one seed in the pit, plus the reserve
                found.add("namua_singleton")
        elif capture:
            found.add("mtaji_capture")
        else:
            found.add("mtaji_takata_front" if pit else "mtaji_takata_back")
        named = {
            ("nyumba", "tax"): "nyumba_tax",
            ("nyumba", "stop"): "nyumba_stop",
            ("nyumba", "safari"): "nyumba_safari",
            ("nyumba", "destroyed"): "nyumba_destroyed",
            ("nyumba", "captured"): "nyumba_captured",
            ("kichwa", "kimbi"): "kimbi_kichwa",
            ("kichwa", "direction"): "kichwa_direction",
            ("end", "takasia"): "takasia_stop",
            ("end", "won"): "won_mid_move",
        }
        found |= {rule for key, rule in named.items() if key in ops}
        if self.kete and ("nyumba", "tax") in ops and ("nyumba", "destroyed") in ops:
            found.add("kuu_six")
            found.discard("nyumba_destroyed")  # the D1 tax, not a relay or lift of the kuu
        if len(trace.laps) > 1 and any(s.rule == "relay" for s in trace.steps):
            found.add("relay")
        return found


class _KinguluObserver:
    """The rules of ``RULES`` one line of a Bao Kingulu game exercises."""

    def rules(self, position: Position, move: str | None, after: Position | None) -> set[str]:
        assert isinstance(position, KinguluPosition)
        found: set[str] = set()
        mover = 0 if position.side == "S" else 1
        for start in range(6 * mover, 6 * mover + 6):
            if position.owners[start] or not position.board[start]:
                continue
            code = _sow_move(
                list(position.board), list(position.owners), list(position.banks), mover, start
            )
            if code == _FIRST_LAP:
                found.add("first_lap_rule")
            elif code == _NEVER_ENDING:
                found.add("never_ending")
        if move is None:
            return found
        ring = {f"{f}1": i for i, f in enumerate("abcdef")} | {
            f"{f}2": 11 - i for i, f in enumerate("abcdef")
        }
        board, owners = list(position.board), list(position.owners)
        events: list[tuple[str, int, int, int]] = []
        _sow_move(board, owners, list(position.banks), mover, ring[move], events)
        laps = [e for e in events if e[0] == T_LAP]
        if len(laps) > 1:
            found.add("relay")
        if any(e[2] >= 12 for e in laps):
            found.add("wrap_lap")
        if any(position.owners):
            for _, pos, seeds, _ in laps:
                if any(position.owners[(pos + k) % 12] for k in range(1, min(seeds, 12) + 1)):
                    found.add("bank_sow")
        kind, _, b, _ = events[-1]
        if kind == T_RESERVED:
            found.add("reserved_end")
        elif kind == T_CAPTURE:
            found.add("capture")
        elif kind == T_MTOTO:
            seeds = laps[-1][2]
            if seeds == 1:
                found.add("mtoto_single")
            elif b < 0:
                found.add("mtoto_banked")
            else:
                found.add("mtoto")
        else:
            last = laps[-1][3]
            own = 6 * mover <= last < 6 * mover + 6
            found.add("capture_refused" if own else "empty_end")
        return found


_Observer = _BaoObserver | _KinguluObserver


def _observer(variant: Variant) -> _Observer:
    """The observer of ``variant``'s rules; raises ``ValueError`` for a variant without one."""
    if isinstance(variant, _Bao):
        return _BaoObserver(variant)
    if isinstance(variant, BaoKingulu):
        return _KinguluObserver()
    raise ValueError(f"no conformance observer for {variant.id}")


# --------------------------------------------------------------------------- policies

Policy = Callable[[random.Random, Variant, Game], Move]


def _material(variant: Variant, position: Position, side: str) -> int:
    """Seeds ``side`` holds: Bao pits + reserve, Kingulu its score (G-9)."""
    if isinstance(position, BaoPosition):
        i = 0 if side == "S" else 1
        return sum(position.pits[i]) + position.reserves[i]
    assert isinstance(position, KinguluPosition)
    return position.scores()[0 if side == "S" else 1]


def _random(rng: random.Random, variant: Variant, game: Game) -> Move:
    return rng.choice(game.legal_moves())


def _greedy(rng: random.Random, variant: Variant, game: Game) -> Move:
    """The move that leaves the mover the most material; ties by the generator."""
    position = game.position
    moves = game.legal_moves()
    scored = [(_material(variant, variant.apply(position, m), position.side), m) for m in moves]
    best = max(score for score, _ in scored)
    return rng.choice([m for score, m in scored if score == best])


def _mixed(rng: random.Random, variant: Variant, game: Game) -> Move:
    return _greedy(rng, variant, game) if rng.random() < 0.6 else _random(rng, variant, game)


def _repeater(rng: random.Random, variant: Variant, game: Game) -> Move:
    """A move back to a position seen in this game if there is one (repetitions), else the
    greedy move."""
    seen = {p.repetition_key for p in game.positions}
    moves = game.legal_moves()
    back = [m for m in moves if variant.apply(game.position, m).repetition_key in seen]
    if back:
        return rng.choice(back)
    return _greedy(rng, variant, game) if rng.random() < 0.5 else _random(rng, variant, game)


#: The policies a game is played by, drawn per game.
POLICIES: tuple[Policy, ...] = (_random, _greedy, _mixed, _repeater)


# --------------------------------------------------------------------------- starts

#: Positions some games start from, because play from the start position reaches their rule
#: only once in thousands of games (or never): ``(rule, position)``. The never-ending ones
#: were reached in random play (search seed 5: Bao la Kete game 1221 ply 30, Bao Kingulu
#: game 9586 ply 7); the front-row one is constructed (South's lone front pit h2 may not be
#: sown into h1). Bao la Kiswahili shares the Bao la Kete positions (no nyumba, no mark).
_BAO_STARTS: tuple[tuple[str, str], ...] = (
    (
        "never_ending",
        "1,1,1,0,0,0,0,0/1,0,0,4,0,0,0,0/0,5,5,0,3,8,5,1/3,0,1,0,5,0,6,0 S 7:7 n -- - 30",
    ),
    (
        "front_row_rule",
        "4,4,4,4,4,4,4,4/3,3,3,3,3,3,1,0/0,0,0,0,0,0,0,3/2,2,2,2,2,0,0,0 S 0:0 m -- - 60",
    ),
)
STARTS: dict[VariantId, tuple[tuple[str, str], ...]] = {
    VariantId.BAO_LA_KETE: _BAO_STARTS,
    VariantId.BAO_LA_KISWAHILI: _BAO_STARTS,
    VariantId.BAO_KINGULU: (("never_ending", "3,1,2,0,1,0/1,10,1,11,2,1 N 13:2 7"),),
}

#: Constructed positions with few seeds from which a cycle of moves exists (found by a
#: search over random sparse positions): a repetition game plays the moves into the cycle
#: that ``find_cycle`` finds, then the cycle until its first position occurs a third time.
#: The Bao ones hold fewer than 64 seeds (valid text, not reachable); Kingulu's 48.
CYCLE_STARTS: dict[VariantId, str] = {
    VariantId.BAO_LA_KETE: (
        "0,0,0,0,0,0,0,0/0,2,0,0,2,0,0,0/0,0,0,0,0,0,0,2/0,0,2,0,1,2,2,0 N 0:0 m -- - 101"
    ),
    VariantId.BAO_LA_KISWAHILI: (
        "0,0,0,0,0,0,0,0/0,2,0,0,2,0,0,0/0,0,0,0,0,0,0,2/0,0,2,0,1,2,2,0 N 0:0 m -- - 101"
    ),
    VariantId.BAO_KINGULU: "0,0,2,3,1,0/0,0,3,0,0,2 N 18:19 101",
}
#: Positions explored by ``find_cycle`` before it gives up.
CYCLE_SEARCH_LIMIT = 5_000
#: A ply-cap game starts this many plies before the cap, from a position of an earlier game.
PLY_CAP_RUN = 8


def find_cycle(
    variant: Variant, root: Position, limit: int = CYCLE_SEARCH_LIMIT
) -> tuple[list[Move], list[Move]] | None:
    """A depth-first search (moves in token order) for a cycle reachable from ``root``:
    ``(moves from root to the cycle's first position, the moves of the cycle)``, or None
    within ``limit`` positions. Positions are compared by ``repetition_key``; no position on
    the way ends the game by the rules."""
    grey: dict[object, int] = {root.repetition_key: 0}  # on the path: key -> depth
    done: set[object] = set()
    path: list[Position] = [root]
    moves: list[Move] = []
    stack = [iter(variant.legal_moves(root))]
    explored = 0
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            key = path.pop().repetition_key
            del grey[key]
            done.add(key)
            if moves:
                moves.pop()
            continue
        after = variant.apply(path[-1], move)
        key = after.repetition_key
        if key in grey:
            entry = grey[key]
            return moves[:entry], [*moves[entry:], move]
        if key in done or variant.outcome(after) is not None:
            continue
        explored += 1
        if explored > limit:
            return None
        grey[key] = len(path)
        path.append(after)
        moves.append(move)
        stack.append(iter(variant.legal_moves(after)))
    return None


def perft(variant: Variant, position: Position, depth: int) -> list[int]:
    """Numbers of move sequences of length 1..``depth`` from ``position``.

    A position without legal moves (the game is over) contributes no children. Game-level
    limits (repetition, ply cap) are not applied: perft counts rules moves only.
    """
    counts = [0] * depth

    def walk(node: Position, level: int) -> None:
        moves = variant.legal_moves(node)
        counts[level] += len(moves)
        if level + 1 < depth:
            for move in moves:
                walk(variant.apply(node, move), level + 1)

    walk(position, 0)
    return counts


def _renumbered(variant: Variant, position: Position, ply: int) -> Position:
    """``position`` with its ply field set to ``ply`` (same parity: same side to move)."""
    fields = position.to_text().split()
    fields[-1] = str(ply)
    return variant.parse_position(" ".join(fields))


# --------------------------------------------------------------------------- generation


def _play(
    variant: Variant,
    observer: _Observer,
    rng: random.Random,
    start: Position | None = None,
    script: Sequence[Move] = (),
) -> tuple[list[Line], list[set[str]]]:
    """One game from ``start`` (default: the start position), its first moves ``script`` and
    the rest by two policies drawn from ``rng``: its lines and the rules each exercised."""
    policies = (rng.choice(POLICIES), rng.choice(POLICIES))  # South's and North's
    game = variant.new_game(start)
    lines: list[Line] = []
    rules: list[set[str]] = []
    while game.outcome is None:
        position = game.position
        ply = len(game.moves)
        if ply < len(script):
            move = script[ply]
        else:
            move = policies[0 if position.side == "S" else 1](rng, variant, game)
        after = game.play(move)
        legal = tuple(str(m) for m in variant.legal_moves(position))
        lines.append(Line(position.to_text(), legal, str(move), after.to_text()))
        rules.append(observer.rules(position, str(move), after))
    final = game.position
    outcome = game.outcome
    legal = tuple(str(m) for m in variant.legal_moves(final))
    lines.append(Line(final.to_text(), legal, outcome=outcome.to_dict()))
    rules.append(observer.rules(final, None, None) | {f"end_{outcome.reason}"})
    return lines, rules


def _special_games(
    variant: Variant, rng: random.Random, kept: list[Line]
) -> Iterator[tuple[Position, Sequence[Move]]]:
    """The starts (and scripted first moves) of the games for the rare rules: ``STARTS``,
    the repetition game of ``CYCLE_STARTS``, then ply-cap games from positions of ``kept``."""
    for _, text in STARTS[variant.id]:
        yield variant.parse_position(text), ()
    root = variant.parse_position(CYCLE_STARTS[variant.id])
    cycle = find_cycle(variant, root)
    if cycle is not None:
        into, loop = cycle
        yield root, [*into, *loop, *loop]
    # Mid-game positions of the games already kept, renumbered a few plies before the cap.
    cap = variant.default_ply_cap
    middles = [i for i, line in enumerate(kept) if line.outcome is None]
    for _ in range(20):
        line = kept[rng.choice(middles)]
        position = variant.parse_position(line.position)
        if isinstance(position, BaoPosition) and position.stage != "m":
            continue
        run = PLY_CAP_RUN + (position.ply - PLY_CAP_RUN) % 2  # keep the side to move
        yield _renumbered(variant, position, cap - run), ()


def generate(
    variant_name: str, *, seed: int = DEFAULT_SEED, lines: int = DEFAULT_LINES, games: int = 0
) -> tuple[list[Line], Coverage]:
    """The lines of the conformance file of a variant, and their coverage.

    ``variant_name``: a variant id or alias. ``seed``: any int (the games are a pure function
    of it). ``lines``, ``games``: games from the start position are played until at least
    this many lines and games are written; then the games of ``STARTS``, ``CYCLE_STARTS`` and
    ply-cap games are added while they reach a rule still missing, then more games from the
    start position (at most ``MAX_EXTRA_GAMES``, kept while they reach a rule seen in fewer
    than ``MIN_LINES`` lines). Raises ``UnknownVariantError`` and ``CoverageError`` (a rule of
    ``RULES`` still not reached).
    """
    variant = get_variant(variant_name)
    observer = _observer(variant)
    rng = random.Random(f"{variant.id}:{seed}")
    coverage = Coverage.empty(variant.id)
    out: list[Line] = []

    def keep(game: tuple[list[Line], list[set[str]]]) -> None:
        game_lines, game_rules = game
        out.extend(game_lines)
        for found in game_rules:
            coverage.add(found)
        coverage.games += 1
        outcome = game_lines[-1].outcome or {}
        ending = str(outcome.get("reason"))
        coverage.endings[ending] = coverage.endings.get(ending, 0) + 1

    def adds_a_rule(game: tuple[list[Line], list[set[str]]]) -> bool:
        return bool(set().union(*game[1]) & set(coverage.missing()))

    while len(out) < lines or coverage.games < games:
        keep(_play(variant, observer, rng))
    for start, script in _special_games(variant, rng, list(out)):
        if not coverage.missing():
            break
        game = _play(variant, observer, rng, start, script)
        if adds_a_rule(game):
            keep(game)
    # More games from the start position, kept while they reach a rule seen in fewer than
    # MIN_LINES lines (those only special starts reach stay rare: the loop then runs out).
    for _ in range(MAX_EXTRA_GAMES):
        rare = {rule for rule, count in coverage.counts.items() if count < MIN_LINES}
        if not rare:
            break
        game = _play(variant, observer, rng)
        if set().union(*game[1]) & rare:
            keep(game)
    coverage.lines = len(out)
    missing = coverage.missing()
    if missing:
        raise CoverageError(
            f"{variant.id}: no game reached {', '.join(missing)} (seed {seed}, {len(out)} lines)"
        )
    return out, coverage


def encode(lines: Sequence[Line]) -> bytes:
    """The gzip bytes of ``lines``, one JSON object and ``\\n`` each, with mtime 0 and no file
    name, so equal lines give equal bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        for line in lines:
            gz.write(line.to_json().encode("ascii") + b"\n")
    return buffer.getvalue()


def decode(data: bytes) -> list[Line]:
    """The lines of a conformance file's gzip bytes. Raises ``OSError`` (``gzip.BadGzipFile``),
    ``EOFError``, ``UnicodeDecodeError``, ``ValueError`` and ``KeyError`` for a broken file."""
    text = gzip.decompress(data).decode("ascii")
    return [Line.from_json(line) for line in text.splitlines()]


# --------------------------------------------------------------------------- perft

#: The perft table's positions per variant: ``(label, position text or "start", depth)``.
#: The positions other than the start are lines of the conformance files (the never-ending
#: ones are the ``STARTS``): a namua position with nyumba choices (``s``/``c`` tokens), a
#: mtaji one, a takasia mark, a Bao la Kete hizi zetu mark, reserved Kingulu holes.
_NEVER_ENDING_BAO = _BAO_STARTS[0][1]
PERFT_POSITIONS: dict[VariantId, tuple[tuple[str, str, int], ...]] = {
    VariantId.BAO_LA_KETE: (
        ("start", "start", 9),
        (
            "namua, nyumba choices",
            "1,1,0,0,0,0,1,1/1,1,2,8,0,0,0,0/2,1,0,1,9,2,0,0/1,1,0,0,0,0,0,1 S 15:15 n HH - 14",
            6,
        ),
        (
            "mtaji",
            "3,1,1,4,3,1,3,2/0,0,0,0,1,1,0,0/6,1,0,4,5,5,6,0/4,3,2,1,1,2,1,3 N 0:0 m -- - 71",
            6,
        ),
        (
            "takasia mark",
            "1,1,2,4,5,0,11,2/2,11,1,1,0,5,1,1/0,0,0,0,1,1,2,4/3,1,0,2,1,0,0,1 S 0:0 m -- g2 56",
            7,
        ),
        (
            "hizi zetu mark",
            "1,1,2,4,5,0,11,2/2,11,1,1,0,5,1,1/0,0,0,0,1,1,2,0/3,1,1,3,0,1,1,2 N 0:0 m -- g2 57",
            6,
        ),
        ("never-ending candidates", _NEVER_ENDING_BAO, 4),
    ),
    VariantId.BAO_LA_KISWAHILI: (
        ("start", "start", 9),
        (
            "namua, nyumba choices",
            "1,3,0,1,1,0,0,0/1,1,0,10,3,1,2,0/0,1,3,0,1,4,1,0/0,0,0,0,0,1,2,0 N 13:14 n -H - 17",
            6,
        ),
        (
            "mtaji",
            "0,2,0,3,4,0,1,2/3,0,2,1,1,7,1,2/0,0,3,1,12,2,1,2/1,0,6,5,0,1,1,0 S 0:0 m -- - 78",
            7,
        ),
        (
            "takasia mark",
            "2,1,0,0,0,0,1,1/0,0,1,0,0,0,0,2/1,16,3,2,1,0,5,5/4,3,4,3,1,5,0,3 N 0:0 m -- c3 47",
            6,
        ),
        ("never-ending candidates", _NEVER_ENDING_BAO, 4),
    ),
    VariantId.BAO_KINGULU: (
        ("start", "start", 12),
        ("reserved holes", "0,2,1,2,4s,5s/4,0,4,1,5n,5 S 13:2 12", 10),
        ("never-ending candidate", "3,1,2,0,1,0/1,10,1,11,2,1 N 13:2 7", 8),
    ),
}


def perft_table(variant_ids: Sequence[VariantId]) -> dict[str, list[dict[str, object]]]:
    """``{variant id: [{"label", "position", "counts": [depth 1, depth 2, ...]}, ...]}`` for
    the positions of ``PERFT_POSITIONS``."""
    table: dict[str, list[dict[str, object]]] = {}
    for variant_id in variant_ids:
        variant = get_variant(variant_id)
        rows: list[dict[str, object]] = []
        for label, text, depth in PERFT_POSITIONS[variant_id]:
            position = (
                variant.initial_position() if text == "start" else variant.parse_position(text)
            )
            counts = perft(variant, position, depth)
            rows.append({"label": label, "position": position.to_text(), "counts": counts})
        table[str(variant_id)] = rows
    return table


def perft_json(table: dict[str, list[dict[str, object]]]) -> str:
    """The table as JSON text, one position a line (stable, diff-friendly)."""
    parts = []
    for variant_id, rows in table.items():
        body = ",\n".join("    " + json.dumps(row) for row in rows)
        parts.append(f'  "{variant_id}": [\n{body}\n  ]')
    return "{\n" + ",\n".join(parts) + "\n}\n"
