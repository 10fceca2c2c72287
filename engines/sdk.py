"""The Python engine SDK: write ``choose(position, legal_moves, clock)``, call ``run``.

The SDK speaks BEP, the Bao Engine Protocol (``docs/protocol.md``), on stdin/stdout: handshake
(``bep`` -> ``id`` / ``option`` / ``variant`` lines -> ``bepok``), ``setoption``, ``newgame``,
``isready`` -> ``readyok``, ``position startpos|text ... [moves ...]``, ``legalmoves`` (only
sent to an engine that asked with ``want legalmoves``: ``Engine.legalmoves``), ``go`` with clocks
or ``movetime``, ``stop``, ``quit``. Unknown commands are ignored; end of input ends the engine with
exit status 0. Every line written is flushed at once.

Two levels:

* ``run(choose, name=..., author=..., variants=...)``: the engine is one function. Its result is
  checked against the legal moves; an exception (any, ``SystemExit`` and ``KeyboardInterrupt``
  included) or an illegal answer is reported as ``info string`` (an exception also with its
  traceback on stderr) and the first legal move is played instead, so an engine never dies
  silently.
* ``Engine``: a class with hooks (``on_newgame``, ``on_option``, ``search``) for engines that search
  and want ``stop`` handling: ``search`` runs in a worker thread, ``request.stopped()`` turns true
  on ``stop``/``quit``/end of input, and ``request.best`` holds the move to play if the search is
  cut short.

Standard library only, plus ``arena.rules``: the sandbox gives engines nothing else.
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from arena.rules import VARIANTS, Move, Position, RulesError, Variant, get_variant

#: What ``bestmove`` says when there is nothing legal to play (game over or no valid position).
NO_MOVE = "none"

# A Clock never plans to use the last few milliseconds: the pipe, the scheduler and the
# referee's own bookkeeping all take some of them.
_SAFETY_MS = 15


# --------------------------------------------------------------------------- clocks


@dataclass(frozen=True)
class Clock:
    """The clock situation of one ``go`` command, from the mover's point of view.

    ``my_ms`` / ``opp_ms``: remaining time in ms; ``my_inc_ms`` / ``opp_inc_ms``: Fischer
    increments in ms (added after each move). ``movetime_ms``: set for ``go movetime`` (the other
    fields are then 0). ``started``: ``time.monotonic()`` seconds when the ``go`` line was read.
    """

    my_ms: int = 0
    opp_ms: int = 0
    my_inc_ms: int = 0
    opp_inc_ms: int = 0
    movetime_ms: int | None = None
    started: float = field(default_factory=time.monotonic)

    def budget_ms(self, moves_to_go: int = 30) -> int:
        """Milliseconds to spend on this move (>= 1).

        ``go movetime t``: ``t`` minus a margin (5 %, at least 15 ms, at most ``t/5``). Clocks:
        ``remaining / moves_to_go`` plus most of the increment, never more than half the remaining
        time, minus a safety margin.
        """
        if self.movetime_ms is not None:
            # With a movetime nothing carries over, so the margin also covers a late node:
            # 5 % (at least the safety margin), never more than a fifth of the move.
            margin = min(max(_SAFETY_MS, self.movetime_ms // 20), self.movetime_ms // 5)
            return max(1, self.movetime_ms - margin)
        planned = self.my_ms // max(1, moves_to_go) + (self.my_inc_ms * 9) // 10
        planned = min(planned, self.my_ms // 2)
        return max(1, planned - _SAFETY_MS)

    def deadline(self, moves_to_go: int = 30) -> float:
        """``time.monotonic()`` value by which the move should be sent (``started + budget``)."""
        return self.started + self.budget_ms(moves_to_go) / 1000.0

    def elapsed_ms(self) -> int:
        """Milliseconds since the ``go`` line was read."""
        return int((time.monotonic() - self.started) * 1000)


def parse_go(args: Sequence[str], side: str, started: float | None = None) -> Clock:
    """A ``Clock`` from the words after ``go`` for the side to move (``"S"``/``"N"``).

    Accepts ``stime/ntime/sinc/ninc <ms>`` in any order and ``movetime <ms>``; unknown words and
    unreadable numbers are skipped (BEP: ignore what you do not know). With no usable field at
    all the clock is ``movetime 1000``.
    """
    values: dict[str, int] = {}
    words = list(args)
    for i in range(len(words) - 1):
        key = words[i]
        if key in ("stime", "ntime", "sinc", "ninc", "movetime"):
            try:
                values[key] = max(0, int(words[i + 1]))
            except ValueError:
                continue
    start = time.monotonic() if started is None else started
    if "movetime" in values:
        return Clock(movetime_ms=values["movetime"], started=start)
    if "stime" not in values and "ntime" not in values:
        return Clock(movetime_ms=1000, started=start)
    mine, theirs = ("s", "n") if side == "S" else ("n", "s")
    return Clock(
        my_ms=values.get(mine + "time", 0),
        opp_ms=values.get(theirs + "time", 0),
        my_inc_ms=values.get(mine + "inc", 0),
        opp_inc_ms=values.get(theirs + "inc", 0),
        started=start,
    )


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Option:
    """An engine option announced in the handshake: ``option name <name> type <type> default <d>``.

    ``type``: ``spin`` (integer), ``check`` (``true``/``false``) or ``string``.
    """

    name: str
    type: str
    default: str

    def line(self) -> str:
        return f"option name {self.name} type {self.type} default {self.default}"


# --------------------------------------------------------------------------- output


class Output:
    """Line writer shared by the reader and the search thread: one lock, flush every line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, line: str) -> None:
        # Newlines inside a line would forge extra protocol lines.
        text = line.replace("\r", " ").replace("\n", " ")
        with self._lock:
            try:
                self._stream.write(text + "\n")
                self._stream.flush()
            except (BrokenPipeError, ValueError):
                pass  # the referee has gone; nothing useful left to say


_current_output: Output | None = None


def info(
    *,
    depth: int | None = None,
    score: int | None = None,
    nodes: int | None = None,
    time_ms: int | None = None,
    pv: Iterable[str] | None = None,
    string: str | None = None,
) -> None:
    """Send an ``info`` line now: ``info depth .. score .. nodes .. time .. pv ..`` or
    ``info string <text>``. Does nothing outside ``run``/``Engine.run``."""
    out = _current_output
    if out is None:
        return
    if string is not None:
        out.send("info string " + string)
        return
    parts = ["info"]
    for key, value in (("depth", depth), ("score", score), ("nodes", nodes), ("time", time_ms)):
        if value is not None:
            parts += [key, str(int(value))]
    if pv:
        parts += ["pv", *map(str, pv)]
    if len(parts) > 1:
        out.send(" ".join(parts))


# --------------------------------------------------------------------------- search requests


@dataclass
class SearchRequest:
    """One ``go``: what ``Engine.search`` receives.

    ``history``: positions from the start of the ``position`` command up to ``position``
    (inclusive), for repetition checks. ``best``: the move answered if the search is stopped
    before it returns (starts as the first legal move; a search may update it).
    """

    variant: Variant
    position: Position
    legal_moves: list[Move]
    clock: Clock
    history: list[Position]
    best: Move
    _stop: threading.Event = field(default_factory=threading.Event)

    def stopped(self) -> bool:
        """True once ``stop``, ``quit`` or end of input has cut the search short."""
        return self._stop.is_set()


class Engine:
    """A BEP engine with hooks. Subclass and override ``search`` (and optionally the ``on_*``).

    ``name``/``author``: handshake ``id`` lines. ``variants``: ids played (default: all three).
    ``options``: announced options; their current values (strings) are in ``self.values``.
    ``legalmoves``: ask the referee for the legal moves of each position (``want legalmoves``,
    docs/protocol.md 3) and take them from its ``legalmoves`` line instead of generating them
    (the position is still replayed, for ``request.position`` and ``history``).
    """

    name: str = "unnamed"
    author: str = "unknown"
    variants: tuple[str, ...] = VARIANTS
    options: tuple[Option, ...] = ()
    legalmoves: bool = False
    #: How long ``stop`` waits for the search thread before answering ``request.best`` itself (ms).
    stop_grace_ms: int = 100

    def __init__(self) -> None:
        self.values: dict[str, str] = {o.name: o.default for o in self.options}
        self.variant: Variant | None = None
        self._out: Output | None = None
        self._base: tuple[str, str] | None = None  # ("startpos"|"text", text) of the last position
        self._tokens: list[str] = []
        self._history: list[Position] = []
        self._position_error: str | None = None
        self._given: list[str] | None = None  # the referee's legalmoves for the last position
        self._worker: threading.Thread | None = None
        self._request: SearchRequest | None = None
        self._answered = threading.Event()
        self._answer_lock = threading.Lock()

    # ---- hooks

    def on_newgame(self, variant: Variant) -> None:
        """Called on ``newgame <variant>``, before any position of that game."""

    def on_option(self, name: str, value: str) -> None:
        """Called after ``setoption`` stored ``value`` in ``self.values[name]``."""

    def search(self, request: SearchRequest) -> Move | str:
        """The move to play. Runs in a worker thread; check ``request.stopped()`` often."""
        return request.best

    # ---- option helpers

    def int_option(self, name: str, fallback: int = 0) -> int:
        """``self.values[name]`` as an int, ``fallback`` if missing or unreadable."""
        try:
            return int(self.values.get(name, fallback))
        except (TypeError, ValueError):
            return fallback

    # ---- output

    def send(self, line: str) -> None:
        if self._out is not None:
            self._out.send(line)

    # ---- the loop

    def run(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
        """Serve BEP until ``quit`` or end of input; returns the exit status (0)."""
        global _current_output
        self._out = Output(stdout if stdout is not None else sys.stdout)
        _current_output = self._out
        source = stdin if stdin is not None else sys.stdin
        if stdin is None and hasattr(source, "reconfigure"):
            # A stray non-UTF-8 byte must not end the engine: it becomes an unknown command.
            source.reconfigure(errors="replace")
        try:
            while True:
                try:
                    raw = source.readline()
                except (OSError, ValueError, UnicodeDecodeError):
                    break
                if not raw:
                    break  # end of input: the referee has closed our stdin
                try:
                    keep_going = self.handle(raw)
                except Exception as exc:  # one bad command must not end the engine
                    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                    self.send(f"info string error handling {raw.strip()[:80]!r}: {last}")
                    keep_going = True
                if not keep_going:
                    break
        finally:
            self._halt_search()
        return 0

    def handle(self, raw: str) -> bool:
        """Execute one command line; False when the engine should exit."""
        words = raw.strip().split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "quit":
            self._halt_search()
            return False
        if command == "bep":
            self._handshake()
        elif command == "isready":
            self.send("readyok")
        elif command == "setoption":
            self._setoption(args)
        elif command == "newgame":
            self._finish_search()
            self._newgame(args)
        elif command == "position":
            self._finish_search()
            self._given = None
            self._position(raw.strip()[len("position") :].strip())
        elif command == "legalmoves":
            self._given = args
        elif command == "go":
            self._finish_search()
            self._go(args)
        elif command == "stop":
            self._halt_search()
        # Anything else is ignored, as BEP requires.
        return True

    def _handshake(self) -> None:
        self.send(f"id name {self.name}")
        self.send(f"id author {self.author}")
        if self.legalmoves:
            self.send("want legalmoves")
        for option in self.options:
            self.send(option.line())
        for variant_id in self.variants:
            self.send(f"variant {variant_id}")
        self.send("bepok")

    def _setoption(self, args: list[str]) -> None:
        # setoption name <N...> value <V...>; names and values may contain spaces.
        if "name" not in args:
            return
        start = args.index("name") + 1
        end = args.index("value") if "value" in args[start:] else len(args)
        name = " ".join(args[start:end])
        value = " ".join(args[end + 1 :]) if end < len(args) else ""
        known = {o.name.lower(): o.name for o in self.options}
        key = known.get(name.lower())
        if key is None:
            self.send(f"info string unknown option {name!r} ignored")
            return
        self.values[key] = value
        self.on_option(key, value)

    def _newgame(self, args: list[str]) -> None:
        if not args:
            return
        try:
            variant = get_variant(args[0])
        except RulesError as exc:
            self.send(f"info string {exc}")
            return
        if variant.id not in self.variants:
            self.send(f"info string variant {variant.id} is not played by this engine")
        self.variant = variant
        self._base, self._tokens, self._history = None, [], []
        self._given = None
        self.on_newgame(variant)

    def _default_variant(self, text: str | None) -> Variant:
        if self.variant is not None:
            return self.variant
        # No newgame was sent: a KPN text (two ranks) can only be Kingulu.
        if text is not None and text.split(" ", 1)[0].count("/") == 1:
            self.variant = get_variant("bao-kingulu")
        else:
            self.variant = get_variant(self.variants[0])
        return self.variant

    def _position(self, rest: str) -> None:
        if rest.startswith("startpos"):
            base: tuple[str, str] = ("startpos", "")
            tail = rest[len("startpos") :]
        elif rest.startswith("text "):
            body = rest[len("text ") :]
            cut = body.find(" moves")
            text = body if cut < 0 else body[:cut]
            tail = "" if cut < 0 else body[cut:]
            base = ("text", text.strip())
        else:
            self._position_error = f"unreadable position command: {rest!r}"
            self.send("info string " + self._position_error)
            return
        tail = tail.strip()
        tokens = tail.split()[1:] if tail.startswith("moves") else []
        variant = self._default_variant(base[1] if base[0] == "text" else None)
        try:
            # The referee usually resends the same game one move longer: replay only the new moves.
            same_game = (
                base == self._base
                and not self._position_error
                and self._tokens == tokens[: len(self._tokens)]
                and self._history
            )
            if same_game:
                history = list(self._history)
                todo = tokens[len(self._tokens) :]
            else:
                start = (
                    variant.initial_position()
                    if base[0] == "startpos"
                    else variant.parse_position(base[1])
                )
                history, todo = [start], tokens
            for token in todo:
                history.append(variant.apply(history[-1], token))
        except RulesError as exc:
            self._position_error = f"bad position: {exc}"
            self.send("info string " + self._position_error)
            self._base, self._tokens, self._history = None, [], []
            return
        self._position_error = None
        self._base, self._tokens, self._history = base, tokens, history

    def _go(self, args: list[str]) -> None:
        started = time.monotonic()
        if not self._history or self.variant is None:
            reason = self._position_error or "no position was given"
            self.send(f"info string cannot search: {reason}")
            self.send(f"bestmove {NO_MOVE}")
            return
        variant, position = self.variant, self._history[-1]
        moves = self._given_moves(variant) or variant.legal_moves(position)
        if not moves:
            self.send("info string no legal move: the game is over")
            self.send(f"bestmove {NO_MOVE}")
            return
        clock = parse_go(args, position.side, started)
        request = SearchRequest(variant, position, moves, clock, list(self._history), moves[0])
        self._request = request
        self._answered = threading.Event()
        answered = self._answered
        worker = threading.Thread(target=self._search_thread, args=(request, answered), daemon=True)
        try:
            worker.start()
        except RuntimeError:
            # No thread can be started (the sandbox's process limit is reached): search in this
            # thread instead; ``stop`` cannot interrupt it, but the engine still answers.
            self._search_thread(request, answered)
            self._request = None
            return
        self._worker = worker

    def _given_moves(self, variant: Variant) -> list[Move]:
        """The referee's ``legalmoves`` for this position as ``Move``s; [] if none were sent
        (or a token is unreadable: then the SDK generates them itself)."""
        if not self._given:
            return []
        try:
            return [variant.parse_move(token) for token in self._given]
        except RulesError as exc:
            self.send(f"info string unreadable legalmoves ({exc}); generating them")
            return []

    def _search_thread(self, request: SearchRequest, answered: threading.Event) -> None:
        try:
            move: Move | str = self.search(request)
        except BaseException as exc:
            # Any exception, SystemExit and KeyboardInterrupt included: a search that raises
            # must still be answered, or the engine loses on time with nothing in the record.
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self.send(f"info string error in search: {last}; playing {request.best}")
            _report(f"error in search ({last}); playing {request.best}", exc)
            move = request.best
        if str(move) not in request.legal_moves:
            self.send(f"info string search returned illegal {str(move)!r}; playing {request.best}")
            move = request.best
        self._answer(answered, str(move))

    def _answer(self, answered: threading.Event, token: str) -> None:
        with self._answer_lock:
            if answered.is_set():
                return  # one bestmove per go: the search and a stop may race
            answered.set()
            self.send(f"bestmove {token}")

    def _finish_search(self) -> None:
        """Let a running search end by itself and answer: commands are executed in order.

        A referee waits for ``bestmove`` before sending the next position; a scripted input that
        does not still gets one answer per ``go``.
        """
        worker = self._worker
        if worker is not None:
            worker.join()
        self._request, self._worker = None, None

    def _halt_search(self) -> None:
        """``stop``/``quit``/end of input: stop the running search and make sure it answers.

        A search that ignores the stop flag gets ``stop_grace_ms``; then ``request.best`` is
        answered for it and its own answer, if it ever comes, is dropped.
        """
        request, worker = self._request, self._worker
        if request is None or worker is None:
            return
        request._stop.set()
        worker.join(self.stop_grace_ms / 1000.0)
        best = request.best if str(request.best) in request.legal_moves else request.legal_moves[0]
        self._answer(self._answered, str(best))
        self._request, self._worker = None, None


def _report(what: str, exc: BaseException) -> None:
    """``what`` and the traceback of ``exc`` on stderr (kept in the game record's
    ``engine_errors``); a closed stderr is ignored."""
    try:
        print(what, file=sys.stderr)
        traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# --------------------------------------------------------------------------- choose-style engines

Choose = Callable[..., "Move | str"]


class FunctionEngine(Engine):
    """An ``Engine`` whose search is a plain ``choose(position, legal_moves, clock)`` function.

    ``choose`` may also accept any of the keyword arguments ``variant`` (the ``Variant``),
    ``history`` (list of positions), ``options`` (dict of option values) and ``request``
    (the ``SearchRequest``); the SDK passes those its signature names.
    """

    def __init__(
        self,
        choose: Choose,
        *,
        name: str,
        author: str,
        variants: Sequence[str] = VARIANTS,
        options: Sequence[Option] = (),
        legalmoves: bool = False,
    ) -> None:
        self.name, self.author = name, author
        self.variants = tuple(variants)
        self.options = tuple(options)
        self.legalmoves = legalmoves
        super().__init__()
        self._choose = choose
        params: Mapping[str, inspect.Parameter]
        try:
            params = inspect.signature(choose).parameters
        except (TypeError, ValueError):
            params = {}
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        self._extras = {
            k for k in ("variant", "history", "options", "request") if takes_any or k in params
        }

    def search(self, request: SearchRequest) -> Move | str:
        extras: dict[str, Any] = {}
        if "variant" in self._extras:
            extras["variant"] = request.variant
        if "history" in self._extras:
            extras["history"] = request.history
        if "options" in self._extras:
            extras["options"] = dict(self.values)
        if "request" in self._extras:
            extras["request"] = request
        return self._choose(request.position, list(request.legal_moves), request.clock, **extras)


def run(
    choose: Choose,
    *,
    name: str,
    author: str,
    variants: Sequence[str] = VARIANTS,
    options: Sequence[Option] = (),
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    legalmoves: bool = False,
) -> int:
    """Serve BEP with ``choose`` until ``quit`` or end of input; returns exit status 0.

    ``choose(position, legal_moves, clock) -> move`` (a ``Move`` or token string). If it raises
    (any exception, ``SystemExit`` and ``KeyboardInterrupt`` included: reported on stderr with
    its traceback) or answers a move not in ``legal_moves``, the engine reports ``info string``
    and plays the first legal move. ``variants``: ids announced in the handshake (default all
    three). ``legalmoves``: take the legal moves from the referee (``Engine.legalmoves``).
    """
    engine = FunctionEngine(
        choose,
        name=name,
        author=author,
        variants=variants,
        options=options,
        legalmoves=legalmoves,
    )
    return engine.run(stdin, stdout)


# --------------------------------------------------------------------------- reading positions


@dataclass(frozen=True)
class SideView:
    """One player's seeds, read from the position text (rules 7).

    ``front``: Bao front row / Kingulu own row (a..f, seeds in holes the opponent reserved count
    0 here); ``back``: Bao back row, empty for Kingulu; ``store``: Bao reserve (seeds in hand) or
    Kingulu bank; ``reserved``: Kingulu seeds in the holes this player reserved, else 0;
    ``reserved_holes``: how many; ``nyumba``: Bao nyumba owned (``H``).
    """

    front: tuple[int, ...]
    back: tuple[int, ...]
    store: int
    reserved: int = 0
    reserved_holes: int = 0
    nyumba: bool = False

    @property
    def total(self) -> int:
        """Every seed this player owns: board, store and reserved holes (Kingulu: his score)."""
        return sum(self.front) + sum(self.back) + self.store + self.reserved


@dataclass(frozen=True)
class PositionView:
    """A position read as plain numbers: ``family`` is ``"bao"`` or ``"kingulu"``."""

    family: str
    side: str
    ply: int
    south: SideView
    north: SideView

    def of(self, side: str) -> SideView:
        return self.south if side == "S" else self.north


def view(position: Position) -> PositionView:
    """Read ``position`` (any variant) through its canonical text (rules 7.1 BPN, 7.2 KPN)."""
    fields = position.to_text().split()
    ranks = fields[0].split("/")
    if len(ranks) == 4:  # BPN: rank4/rank3/rank2/rank1 side resS:resN stage houses mark ply
        rows = [tuple(int(c) for c in r.split(",")) for r in ranks]
        res_s, res_n = (int(x) for x in fields[2].split(":"))
        houses = fields[4]
        north = SideView(rows[1], rows[0], res_n, nyumba=houses[1] == "H")
        south = SideView(rows[2], rows[3], res_s, nyumba=houses[0] == "H")
        return PositionView("bao", fields[1], int(fields[-1]), south, north)
    # KPN: rank2/rank1 side bankS:bankN ply; a cell is a count with "s"/"n" if reserved.
    own: dict[str, list[int]] = {"S": [], "N": []}
    reserved = {"S": 0, "N": 0}
    holes = {"S": 0, "N": 0}
    for owner_row, rank in (("N", ranks[0]), ("S", ranks[1])):
        for cell in rank.split(","):
            if cell[-1] in "sn":
                by = cell[-1].upper()
                reserved[by] += int(cell[:-1])
                holes[by] += 1
                own[owner_row].append(0)
            else:
                own[owner_row].append(int(cell))
    bank_s, bank_n = (int(x) for x in fields[2].split(":"))
    south = SideView(tuple(own["S"]), (), bank_s, reserved["S"], holes["S"])
    north = SideView(tuple(own["N"]), (), bank_n, reserved["N"], holes["N"])
    return PositionView("kingulu", fields[1], int(fields[-1]), south, north)


def material(position: Position, side: str) -> int:
    """Seeds owned by ``side`` minus seeds owned by the other side (``SideView.total``).

    Bao: board plus reserve (captures move seeds across); Kingulu: the score difference (G-9).
    """
    v = view(position)
    mine = v.of(side).total
    theirs = v.of("N" if side == "S" else "S").total
    return mine - theirs


__all__ = [
    "NO_MOVE",
    "Clock",
    "Engine",
    "FunctionEngine",
    "Option",
    "Output",
    "PositionView",
    "SearchRequest",
    "SideView",
    "info",
    "material",
    "parse_go",
    "run",
    "view",
]
