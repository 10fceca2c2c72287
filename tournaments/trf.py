"""FIDE's Tournament Report File (TRF-16) with the pairing extensions, read and written (pure).

The format is FIDE's TRF16 (FIDE Handbook, "TRF16: Tournament Report File"), fixed columns,
one record a line, each opening with a three-character code; the pairing programs endorsed by
FIDE (JaVaFo 1.4, bbpPairings) read it with two extensions of JaVaFo's advanced user manual:
``XXR n`` the number of rounds of the event and ``XXC white1``/``black1`` the colour of pairing
number 1 in round 1 (and ``XXP a b ...``: pairs that must not meet). What is read and written:

* ``012`` the tournament's name; ``XXR`` (or TRF-2026's ``142``) the rounds; ``XXC``;
  ``XXP``; every other record is kept out of the arena's view and ignored.
* ``001`` one player (0-based columns): ``[4:8]`` the start number (the pairing id, 1..9999),
  ``[14:47]`` the name, ``[48:52]`` the rating (blank: none), ``[80:84]`` the points,
  ``[85:89]`` the rank, then per round ``r`` (1-based) ten columns from ``91 + 10 (r - 1)``:
  ``[0:4]`` the opponent's start number (``0000`` or blank: none), ``[5]`` the colour (``w``,
  ``b``, ``-`` none, blank), ``[7]`` the result.

Result codes (``RESULT_CODES``, as bbpPairings and JaVaFo read them; lower case is accepted):
``1``/``W`` a won game, ``=``/``D`` a drawn one, ``0``/``L`` a lost one (all three need an
opponent and a colour ``w``/``b``); ``+`` a forfeit win, ``-`` a forfeit loss (with an
opponent; ``0000 - +`` is read as a pairing-allocated bye, as the programs do); ``U`` the
pairing-allocated bye (1 point); ``F`` a full-point bye, ``H`` a half-point bye and ``Z`` a
zero-point bye (absences the organiser granted, not paired), blank nothing. A player's points
must be the sum of its results (win 1, draw 1/2, loss 0; ``+ U F`` 1, ``H`` 1/2).

The arena writes an engine's match as a game: white is ``engine_a`` (South in game 1), the
result its match points (``1``, ``=``, ``0``); a forfeit win ``+`` against the withdrawn
engine's ``-`` (colour ``-``: no side was played); a bye ``0000 - U``; a forfeit win with no
opponent ``0000 - F``; a match the arena aborted (no result, but played: the two are not paired
again) ``-`` against ``-`` with the sides of the pairing, and an ``XXP`` record of the pair so
a FIDE program does not pair them again either (FIDE counts only played games as met). A file
to pair the next round from holds, in the column of that round, ``0000 - Z`` for each engine
that will not be paired (withdrawn), which is how the programs are told who is absent.

Errors: ``TrfError`` (a ``ValueError``) with the 1-based ``line`` number (0 for the file as a
whole) for a record that cannot be read or contradicts another.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tournaments.formats.base import BYE, FORFEIT, MATCH, Entrant, Field, Played

#: Result codes of a round's entry (module docstring).
RESULT_CODES = "1=0+-UHFZWDL"
#: Points of each result code (blank: 0).
CODE_POINTS: Mapping[str, float] = {
    "1": 1.0, "W": 1.0, "+": 1.0, "U": 1.0, "F": 1.0,
    "=": 0.5, "D": 0.5, "H": 0.5,
    "0": 0.0, "L": 0.0, "-": 0.0, "Z": 0.0, " ": 0.0,
}  # fmt: skip
#: Codes of a game played over the board (an opponent and a colour needed).
PLAYED_CODES = frozenset("1=0WDL")
#: Codes of a round in which the player was not paired (an absence).
ABSENT_CODES = frozenset("HFZ- ")
#: The result a played code's opponent must have.
_COMPLEMENT = {"1": "0", "0": "1", "=": "="}
_CANONICAL = {"W": "1", "D": "=", "L": "0"}

FIRST_WHITE, FIRST_BLACK = "white1", "black1"
#: Where round 1's entry starts on a ``001`` line, and each round's width.
ROUNDS_AT, ROUND_WIDTH = 91, 10
NAME_WIDTH = 33
MAX_ID = 9999


class TrfError(ValueError):
    """A TRF that cannot be read: ``line`` is the 1-based line (0: the file as a whole)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class TrfGame:
    """One round of a player: ``opponent`` its start number (None: no opponent), ``colour``
    ``w``/``b``/``-``/blank, ``result`` one of ``RESULT_CODES`` or blank (upper case)."""

    opponent: int | None
    colour: str
    result: str

    @property
    def points(self) -> float:
        """The points of this entry (``CODE_POINTS``)."""
        return CODE_POINTS[self.result]

    @property
    def paired(self) -> bool:
        """Whether the player took part in this round's pairing: an opponent, or a
        pairing-allocated bye (``U``, ``0000 - +``)."""
        return self.opponent is not None or self.result in ("U", "+")

    def text(self) -> str:
        """The entry's eight columns (``oooo c r``)."""
        opponent = "0000" if self.opponent is None else f"{self.opponent:>4}"
        if self.opponent is None and self.colour == " " and self.result == " ":
            opponent = "    "
        return f"{opponent} {self.colour} {self.result}"


@dataclass(frozen=True)
class TrfPlayer:
    """A ``001`` record: start number ``id``, ``name``, ``rating`` (None: unrated), ``points``,
    ``rank``, one ``TrfGame`` per round, and ``line`` where it was read (0 if made here)."""

    id: int
    name: str
    rating: int | None
    points: float
    rank: int
    games: tuple[TrfGame, ...]
    line: int = 0

    def text(self) -> str:
        """The ``001`` line."""
        # Four columns (49-52): a rating outside 0..9999 is clamped, not allowed to shift the
        # columns after it.
        rating = "    " if self.rating is None else f"{min(max(self.rating, 0), 9999):>4}"
        head = (
            f"001 {self.id:>4}      {_clean_name(self.name):<{NAME_WIDTH}} {rating}"
            f"{'':28}{self.points:>4.1f} {self.rank:>4}"
        )
        body = "".join(f"  {g.text()}" for g in self.games)
        return (head + body).rstrip()


@dataclass(frozen=True)
class Trf:
    """A tournament report: its ``players`` (in the file's order), ``name`` (``012``),
    ``rounds`` (``XXR``; None if absent), ``first_colour`` (``XXC``: ``white1``, ``black1``
    or None), ``forbidden`` (``XXP`` groups of start numbers)."""

    players: tuple[TrfPlayer, ...]
    name: str = ""
    rounds: int | None = None
    first_colour: str | None = None
    forbidden: tuple[tuple[int, ...], ...] = ()

    @property
    def rounds_paired(self) -> int:
        """The last round in which any player was paired (0 before the start)."""
        return max(
            (r for p in self.players for r, g in enumerate(p.games, start=1) if g.paired),
            default=0,
        )

    def before_round(self, number: int) -> Trf:
        """The file as it was when round ``number`` (1-based) was to be paired: the rounds
        before it, plus each player's absence (``H F Z -``) in round ``number``, with the
        points recounted. ``TrfError`` if ``number`` is not 1..``rounds_paired`` + 1."""
        if not 1 <= number <= self.rounds_paired + 1:
            raise TrfError(0, f"round {number} is not 1 to {self.rounds_paired + 1}")
        players = []
        for p in self.players:
            games = p.games[: number - 1]
            if len(p.games) >= number and not p.games[number - 1].paired:
                nxt = p.games[number - 1]
                if nxt.result != " ":
                    games = (*_padded(games, number - 1), TrfGame(None, "-", nxt.result))
            games = _trimmed(games)
            players.append(replace(p, games=games, points=sum(g.points for g in games)))
        return replace(self, players=tuple(players))

    def text(self) -> str:
        """The file, ``\\n`` line ends, a final newline."""
        lines = []
        if self.name:
            lines.append(f"012 {_clean_name(self.name, 200)}")
        if self.rounds is not None:
            lines.append(f"XXR {self.rounds}")
        if self.first_colour:
            lines.append(f"XXC {self.first_colour}")
        lines += [p.text() for p in self.players]
        lines += ["XXP " + " ".join(str(i) for i in group) for group in self.forbidden]
        return "\n".join(lines) + "\n"


def _clean_name(name: str, width: int = NAME_WIDTH) -> str:
    """``name`` on one line of at most ``width`` characters: control and separator characters
    other than the space become ``?`` (a name must not start a record of its own)."""
    shown = "".join(c if c == " " or unicodedata.category(c)[0] not in "CZ" else "?" for c in name)
    return shown[:width].rstrip()


def _padded(games: Sequence[TrfGame], n: int) -> tuple[TrfGame, ...]:
    return (*games, *(TrfGame(None, " ", " ") for _ in range(n - len(games))))


def _trimmed(games: Sequence[TrfGame]) -> tuple[TrfGame, ...]:
    """``games`` without trailing blank entries."""
    out = list(games)
    while out and out[-1] == TrfGame(None, " ", " "):
        out.pop()
    return tuple(out)


# --- reading -------------------------------------------------------------------------------


def parse(text: str) -> Trf:
    """Read a TRF (module docstring). Line ends ``\\n``, ``\\r\\n`` or ``\\r``; blank lines
    are skipped. Raises ``TrfError`` for a bad record, a repeated start number, an opponent
    who is not in the file or whose entry does not answer (same round: the other as opponent,
    the other colour, the complementary result), or points that are not the results' sum."""
    name = ""
    rounds: int | None = None
    first: str | None = None
    forbidden: list[tuple[int, ...]] = []
    players: dict[int, TrfPlayer] = {}
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip():
            continue
        if len(line) < 3:
            raise TrfError(number, f"a record needs a three-character code, got {line!r}")
        code = line[:3]
        if code == "001":
            player = _read_player(line, number)
            if player.id in players:
                raise TrfError(number, f"start number {player.id} is repeated")
            players[player.id] = player
        elif code == "012":
            name = line[4:].strip()
        elif code in ("XXR", "142"):
            rounds = _read_int(line[3:], number, "the number of rounds")
            if rounds < 1:
                raise TrfError(number, f"the number of rounds must be positive, not {rounds}")
        elif code == "XXC":
            tokens = line[3:].split()
            if FIRST_WHITE in tokens:
                first = FIRST_WHITE
            elif FIRST_BLACK in tokens:
                first = FIRST_BLACK
        elif code == "XXP":
            group = tuple(_read_int(t, number, "a start number") for t in line[3:].split())
            forbidden.append(group)
    trf = Trf(tuple(players.values()), name, rounds, first, tuple(forbidden))
    _check(trf, players)
    return trf


#: The most digits a number of a TRF record may have (round counts, start numbers of XXP):
#: longer ones are junk, and Python refuses to read integers over 4,300 digits.
MAX_DIGITS = 9


def _read_int(text: str, line: int, what: str) -> int:
    value = text.strip()
    if not value.isdigit() or not value.isascii() or len(value) > MAX_DIGITS:
        shown = value if len(value) <= 20 else f"{value[:20]}..."
        raise TrfError(
            line, f"{what} must be a whole number of at most {MAX_DIGITS} digits, not {shown!r}"
        )
    return int(value)


def _read_player(line: str, number: int) -> TrfPlayer:
    if len(line) < 84:
        raise TrfError(number, f"a 001 record has at least 84 columns, this one {len(line)}")
    pid = _read_int(line[4:8], number, "the start number")
    if not 1 <= pid <= MAX_ID:
        raise TrfError(number, f"a start number is 1 to {MAX_ID}, not {pid}")
    rating_text = line[48:52].strip()
    rating = _read_int(rating_text, number, "the rating") if rating_text else None
    points_text = line[80:84].strip()
    try:
        points = float(points_text)
    except ValueError:
        raise TrfError(number, f"the points must be a number, not {points_text!r}") from None
    if not (math.isfinite(points) and points >= 0 and points * 2 == int(points * 2)):
        raise TrfError(number, f"the points must be whole or half points, not {points_text!r}")
    rank_text = line[85:89].strip() if len(line) > 85 else ""
    rank = _read_int(rank_text, number, "the rank") if rank_text else 0
    if line[84:ROUNDS_AT].strip() and not rank_text:
        raise TrfError(number, "columns 85-91 hold only the rank")
    games: list[TrfGame] = []
    at = ROUNDS_AT
    while line[at - 2 :].strip():
        entry = line[at : at + 8].ljust(8)
        rnd = len(games) + 1
        if line[at - 2 : at].strip() or entry[4] != " " or entry[6] != " ":
            raise TrfError(number, f"round {rnd}: an entry is 'oooo c r', got {entry!r}")
        games.append(_read_game(entry, pid, number, rnd))
        at += ROUND_WIDTH
    return TrfPlayer(pid, line[14:47].strip(), rating, points, rank, _trimmed(games), number)


def _read_game(entry: str, pid: int, line: int, rnd: int) -> TrfGame:
    where = f"round {rnd}"
    opp_text, colour, result = entry[0:4], entry[5].lower(), entry[7].upper()
    opponent: int | None = None
    if opp_text.strip() and opp_text != "0000":
        opponent = _read_int(opp_text, line, f"{where}: the opponent")
        if opponent == pid:
            raise TrfError(line, f"{where}: a player cannot meet itself")
        if opponent == 0:
            opponent = None
    if colour not in "wb- ":
        raise TrfError(line, f"{where}: the colour is w, b or -, not {entry[5]!r}")
    if result not in RESULT_CODES and result != " ":
        raise TrfError(line, f"{where}: unknown result code {entry[7]!r} ({RESULT_CODES})")
    result = _CANONICAL.get(result, result)
    if opponent is None and colour in "wb":
        raise TrfError(line, f"{where}: a colour without an opponent")
    half_bye = result == "=" and opponent is None  # "0000 - =": read as the programs do
    if result in PLAYED_CODES and not half_bye and (opponent is None or colour not in "wb"):
        raise TrfError(line, f"{where}: result {result!r} needs an opponent and w or b")
    if result in ("U", "H", "F", "Z") and opponent is not None:
        raise TrfError(line, f"{where}: result {result!r} is a bye and has no opponent")
    if opponent is not None and result == " ":
        raise TrfError(line, f"{where}: an opponent without a result")
    return TrfGame(opponent, colour, result)


def _check(trf: Trf, players: Mapping[int, TrfPlayer]) -> None:
    """Pairs answer each other and points are the results' sum (``parse``)."""
    paired = trf.rounds_paired
    for p in trf.players:
        for rnd, g in enumerate(p.games, start=1):
            if rnd > paired + 1 or (rnd == paired + 1 and g.paired):
                raise TrfError(p.line, f"round {rnd}: after the last round paired ({paired})")
            if g.opponent is None:
                continue
            other = players.get(g.opponent)
            if other is None:
                raise TrfError(p.line, f"round {rnd}: opponent {g.opponent} is not in the file")
            theirs = other.games[rnd - 1] if len(other.games) >= rnd else TrfGame(None, " ", " ")
            if theirs.opponent != p.id:
                raise TrfError(
                    p.line, f"round {rnd}: opponent {g.opponent}'s entry does not name {p.id}"
                )
            if g.result in PLAYED_CODES:
                if theirs.colour == g.colour or theirs.result != _COMPLEMENT[g.result]:
                    raise TrfError(
                        p.line,
                        f"round {rnd}: {g.colour} {g.result} against {g.opponent}'s "
                        f"{theirs.colour} {theirs.result}",
                    )
            elif not (g.result == "-" or theirs.result == "-"):
                raise TrfError(p.line, f"round {rnd}: forfeit {g.result} against {theirs.result}")
        total = sum(g.points for g in p.games)
        played = sum(g.points for g in p.games[:paired])
        if p.points not in (total, played):
            raise TrfError(p.line, f"player {p.id} has {p.points:g} points, its results {total:g}")


# --- the arena's view ----------------------------------------------------------------------


@dataclass(frozen=True)
class ArenaView:
    """A TRF as the formats read it: the ``field`` (entrants in start-number order, seeds
    0..n-1), the ``history``, per seed its start number (``ids``), ``names`` and ``ratings``
    (None: unrated), and the ``first_colour`` (``white1``, ``black1``, None)."""

    field: Field
    history: tuple[Played, ...]
    ids: tuple[int, ...]
    names: tuple[str, ...]
    ratings: tuple[int | None, ...] = ()
    first_colour: str | None = None


def to_arena(trf: Trf) -> ArenaView:
    """The field and history of ``trf`` (module docstring, read backwards).

    Seeds follow the start numbers, which are the pairing numbers of FIDE's systems (the
    programs pair by them, whatever the ratings): every entrant is rated 1500 in the field, so
    a pairing that ranks by rating, then seed, keeps the file's order; the file's ratings are
    in ``ratings``. An entrant is withdrawn when it is absent (``Z``, ``-``, ``H``, ``F``) in
    the round after the last one paired; ``Field.round`` is the last round paired,
    ``Field.rounds`` the file's ``XXR``; ``first_colour`` its ``XXC``, else inferred from the
    colours as bbpPairings does (None before any). A won, drawn
    or lost game is a match (white is ``a``), ``+`` against ``-`` a forfeit win, ``-``
    against ``-`` a match with no result, ``U`` a bye, ``F`` a forfeit win over no one; ``Z``,
    blank and ``0000 - -`` are nothing. Raises ``TrfError`` for a half-point bye (``H`` in a
    paired round, or a drawn game with no opponent): the arena has no such result."""
    ordered = sorted(trf.players, key=lambda p: p.id)
    seed = {p.id: i for i, p in enumerate(ordered)}
    paired = trf.rounds_paired
    history: list[Played] = []
    for p in ordered:
        me = seed[p.id]
        for rnd, g in enumerate(p.games[:paired], start=1):
            if g.opponent is not None:
                them = seed[g.opponent]
                theirs = ordered[them].games[rnd - 1]
                if g.result in PLAYED_CODES:
                    if g.colour == "w":
                        history.append(Played(rnd, me, them, CODE_POINTS[g.result], MATCH))
                elif g.result == "+":
                    history.append(Played(rnd, me, them, 1.0, FORFEIT))
                elif theirs.result == "-" and (
                    g.colour == "w" or (theirs.colour != "w" and p.id < g.opponent)
                ):
                    history.append(Played(rnd, me, them, None, MATCH))  # "-" against "-"
            elif g.result in ("U", "+"):
                history.append(Played(rnd, me, None, kind=BYE))
            elif g.result == "F":
                history.append(Played(rnd, me, None, 1.0, FORFEIT))
            elif g.result in ("H", "="):
                raise TrfError(p.line, f"round {rnd}: a half-point bye has no arena counterpart")
    absent = {
        p.id for p in ordered if len(p.games) > paired and p.games[paired].result in ABSENT_CODES
    }
    field = Field(
        tuple(Entrant(seed[p.id], 1500.0, p.id in absent) for p in ordered),
        rounds=trf.rounds,
        round=paired,
    )
    first = trf.first_colour
    if first is None and any(g.colour in ("w", "b") for p in ordered for g in p.games):
        first = _first_colour(ordered)
    history.sort(key=lambda h: (h.round, h.a))
    return ArenaView(
        field,
        tuple(history),
        tuple(p.id for p in ordered),
        tuple(p.name for p in ordered),
        tuple(p.rating for p in ordered),
        first,
    )


def from_arena(
    field: Field,
    history: Iterable[Played],
    names: Sequence[str],
    *,
    rounds_paired: int,
    absent: Collection[int] = (),
    ranks: Mapping[int, int] | None = None,
    ids: Sequence[int] | None = None,
    ratings: Sequence[int | None] | None = None,
    name: str = "",
) -> Trf:
    """The TRF of an arena event (module docstring): rounds 1..``rounds_paired`` of
    ``history`` (later items are left out; deciders are not written), ``absent`` the seeds to
    mark ``0000 - Z`` in round ``rounds_paired + 1`` (not to be paired), ``ranks`` seed -> rank
    (1-based; default by points, then seed), ``ids`` seed -> start number (default seed + 1;
    the ``001`` records are written in start-number order),
    ``ratings`` (default the entrants' rounded), ``name`` the ``012`` record. ``XXR`` is
    ``field.rounds``, ``XXC`` the first colour as the programs would infer it (``white1``
    when nothing was played). Raises ``TrfError`` (line 0) for a history the format cannot
    hold (two items for one entrant in one round, a start number over 9999)."""
    n = field.n
    ids = list(ids) if ids is not None else [i + 1 for i in range(n)]
    if any(not 1 <= i <= MAX_ID for i in ids) or len(set(ids)) != n:
        raise TrfError(0, f"start numbers are distinct, 1 to {MAX_ID}")
    cells: list[dict[int, TrfGame]] = [{} for _ in range(n)]
    forbidden: list[tuple[int, ...]] = []

    def put(seed: int, rnd: int, game: TrfGame) -> None:
        if rnd in cells[seed]:
            raise TrfError(0, f"round {rnd}: entrant {seed} has two results")
        cells[seed][rnd] = game

    for h in history:
        if not 1 <= h.round <= rounds_paired or h.kind not in (MATCH, BYE, FORFEIT):
            continue
        if h.kind == BYE:
            put(h.a, h.round, TrfGame(None, "-", "U"))
        elif h.kind == FORFEIT and h.b is None:
            put(h.a, h.round, TrfGame(None, "-", "F"))
        elif h.b is not None and h.kind == FORFEIT:
            put(h.a, h.round, TrfGame(ids[h.b], "-", "+"))
            put(h.b, h.round, TrfGame(ids[h.a], "-", "-"))
        elif h.b is not None and h.points_a is None:
            put(h.a, h.round, TrfGame(ids[h.b], "w", "-"))
            put(h.b, h.round, TrfGame(ids[h.a], "b", "-"))
            forbidden.append((ids[h.a], ids[h.b]))
        elif h.b is not None and h.points_a is not None:
            code = {1.0: "1", 0.5: "=", 0.0: "0"}[h.points_a]
            put(h.a, h.round, TrfGame(ids[h.b], "w", code))
            put(h.b, h.round, TrfGame(ids[h.a], "b", _COMPLEMENT[code]))
    rows: list[tuple[tuple[TrfGame, ...], float]] = []
    for seed in range(n):
        games = [
            cells[seed].get(rnd, TrfGame(None, "-", "Z")) for rnd in range(1, rounds_paired + 1)
        ]
        if seed in absent:
            games.append(TrfGame(None, "-", "Z"))
        rows.append((tuple(games), sum(g.points for g in games)))
    if ranks is None:
        order = sorted(range(n), key=lambda s: (-rows[s][1], s))
        ranks = {s: k for k, s in enumerate(order, start=1)}
    rated = ratings or [round(e.rating) for e in field.entrants]
    players = tuple(
        sorted(
            (TrfPlayer(ids[s], names[s], rated[s], rows[s][1], ranks[s], rows[s][0])
             for s in range(n)),
            key=lambda p: p.id,
        )
    )  # fmt: skip
    return Trf(players, name, field.rounds, _first_colour(players), tuple(forbidden))


def _first_colour(players: Sequence[TrfPlayer]) -> str:
    """``XXC``'s colour as bbpPairings infers it when it is not given: in the first round with
    a colour, the colour of the highest start number that took part in the pairing, reversed
    for the second highest, and so on (bbpPairings' README); ``white1`` before any."""
    coloured = [r for p in players for r, g in enumerate(p.games) if g.colour in ("w", "b")]
    if not coloured:
        return FIRST_WHITE
    first = min(coloured)
    k = 0
    for p in sorted(players, key=lambda p: p.id):
        if not any(g.paired for g in p.games[: first + 1]):
            continue
        g = p.games[first]
        if g.colour in ("w", "b"):
            white = (g.colour == "w") != (k % 2 == 1)
            return FIRST_WHITE if white else FIRST_BLACK
        k += 1
    return FIRST_WHITE
