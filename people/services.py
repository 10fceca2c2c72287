"""Writes of people's games (docs/play.md): the API's (start, a move, resign) and the
worker's (claim, publish a move, finish).

The worker is the only one that applies moves and ends a running game; the API only leaves
the person's move (``pending_*``) or resignation on the row, each by a conditional UPDATE
whose row count says whether it was taken (a second move for the same ply, a move after the
end: refused, never lost or doubled). Every move the API takes was checked against the legal
moves the rules engine generates for the row's position, so the worker never meets an
illegal one.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.api.filters import variant_id
from arena.engine_text import storable
from arena.matches.services.creation import normalize_start_suite
from arena.openings import STANDARD, match_start
from arena.referee import GameRecord, MoveRecord, TimeControl, TimeControlError
from arena.rules import IllegalMoveError, InvalidMoveError, get_variant
from engines import errors as engine_errors
from engines.consent import PairingKind, check_pairing
from engines.selectors import engine_named, latest_playable_version
from people import errors
from people.models import PersonGame, PersonGameEvent

log = logging.getLogger(__name__)

#: The Celery task that plays a person's game (on the people queue: ``arena.beat_pool``).
PLAY_TASK = "people.tasks.play_person_game"
#: The ``side`` values of ``POST /api/play/``.
SIDES = {"south": "S", "north": "N"}
#: Statuses of a game still open (counted by the per-person limit).
OPEN = (PersonGame.Status.PENDING, PersonGame.Status.RUNNING)


def people_time_control(text: str) -> TimeControl:
    """The ``TimeControl`` of ``text`` (``"5+3"``: base s + increment s) if a person may play it:
    a Fischer clock with a base of ``BAO_PEOPLE_MIN_BASE_S`` .. ``BAO_PEOPLE_MAX_BASE_S`` s and
    an increment of at most ``BAO_PEOPLE_MAX_INCREMENT_S`` s. Raises
    ``TimeControlNotForPeople`` (400 ``time_control_not_for_people``, ``details`` with the
    limits) otherwise, an unparseable text included."""
    limits = {
        "time_control": str(text)[:32],
        "min_base_s": settings.BAO_PEOPLE_MIN_BASE_S,
        "max_base_s": settings.BAO_PEOPLE_MAX_BASE_S,
        "max_increment_s": settings.BAO_PEOPLE_MAX_INCREMENT_S,
    }
    rule = (
        f"people play '<base s>+<increment s>' with a base of {settings.BAO_PEOPLE_MIN_BASE_S}.."
        f"{settings.BAO_PEOPLE_MAX_BASE_S} s and an increment of at most "
        f"{settings.BAO_PEOPLE_MAX_INCREMENT_S} s"
    )
    try:
        tc = TimeControl.parse(text)
    except TimeControlError as exc:
        # The parser's own suggestion (": expected ... or 'movetime=<ms>'") is not for people.
        reason = str(exc).split(": expected", 1)[0]
        raise errors.TimeControlNotForPeople(
            f"{reason}: {rule}, such as '300+3'.", details=limits
        ) from None
    base_s, inc_s = tc.base_ms / 1000, tc.increment_ms / 1000
    if (
        tc.movetime_ms is not None
        or not settings.BAO_PEOPLE_MIN_BASE_S <= base_s <= settings.BAO_PEOPLE_MAX_BASE_S
        or inc_s > settings.BAO_PEOPLE_MAX_INCREMENT_S
    ):
        raise errors.TimeControlNotForPeople(f"{rule}, not {tc}.", details=limits)
    return tc


def person_game_start(
    *,
    user: User,
    engine: str,
    variant: str,
    time_control: str = "300+3",
    side: str = "random",
    start_suite: str = STANDARD,
) -> PersonGame:
    """A game of ``user`` against engine ``engine`` (by name, its latest active version),
    queued for a people slot (sent on commit).

    ``side``: ``south``, ``north`` or ``random``. Raises ``engine_not_found`` (404),
    ``pairing_refused`` (403: the owner does not let people play it, ``engines.consent``,
    setting ``people``; the owner may always play their own engine), ``engine_disabled`` /
    ``engine_not_active`` (409), ``unknown_variant``, ``variant_not_supported``,
    ``time_control_not_for_people``, ``unknown_start_suite`` (400), ``too_many_games`` (409:
    ``BAO_PEOPLE_GAMES_PER_USER`` open already).
    """
    variant = variant_id(variant)
    tc = people_time_control(time_control)
    start_suite = normalize_start_suite(start_suite, variant)
    target = engine_named(engine)
    check_pairing(target, kind=PairingKind.PEOPLE, rated=False, requester=user)
    version = latest_playable_version(target)
    if version.variants and variant not in version.variants:
        raise engine_errors.VariantNotSupported(
            f"{target.name} does not play {variant}.",
            details={"engine": target.name, "variant": variant, "variants": version.variants},
        )
    person_games_abort_stale(user.pk)
    person_side = SIDES.get(side) or secrets.choice("SN")
    seed = secrets.randbelow(2**31)
    start = match_start(variant, start_suite, seed).to_text()
    with transaction.atomic():
        # The row lock on the user serialises a person's starts, so two at once cannot both
        # pass the limit.
        User.objects.select_for_update().filter(pk=user.pk).first()
        open_games = PersonGame.objects.filter(player=user, status__in=OPEN).count()
        limit = settings.BAO_PEOPLE_GAMES_PER_USER
        if open_games >= limit:
            raise errors.TooManyGames(details={"open": open_games, "limit": limit})
        game = PersonGame.objects.create(
            player=user,
            engine=version,
            person_side=person_side,
            variant=variant,
            time_control=str(tc),
            start_suite=start_suite,
            start_position=start,
            seed=seed,
            position=start,
            clock_south_ms=tc.base_ms,
            clock_north_ms=tc.base_ms,
        )
        transaction.on_commit(lambda: _send(game.pk))
    return game


def _send(game_id: int) -> None:
    """Queue game ``game_id`` for a people slot (run on commit). A game that cannot be queued
    is ended as aborted; if the broker is unreachable (kombu's ``OperationalError``) that error
    is raised on, out of the request's commit, so the API answers ``503 service_unavailable``
    (dependency ``broker``, ``arena.api.outages``) rather than a game that never starts."""
    from kombu.exceptions import OperationalError as BrokerError

    from arena.celery import registered_task

    try:
        registered_task(PLAY_TASK).delay(game_id)
    except Exception as exc:
        log.exception("person game %s: could not queue it", game_id)
        person_game_abort(game_id, "the game could not be queued")
        if isinstance(exc, BrokerError):
            raise


def _mine(game_id: int, user: User) -> PersonGame:
    game = PersonGame.objects.filter(pk=game_id, player_id=user.pk).first()
    if game is None:
        raise errors.GameNotFound(details={"game": game_id})
    return game


def _taken(game: PersonGame, ply: int, token: str) -> bool:
    """Whether ``token`` was already taken as the person's move for ``ply``: waiting for the
    worker (``pending_*``) or played (``moves``)."""
    if game.pending_ply == ply and game.pending_move == token:
        return True
    if 1 <= ply <= len(game.moves):
        played = game.moves[ply - 1]
        return (
            isinstance(played, dict)
            and played.get("side") == game.person_side
            and played.get("move") == token
        )
    return False


def person_move(*, game_id: int, user: User, move: str, ply: int | None = None) -> PersonGame:
    """Leave ``user``'s move ``move`` (a token of rules 4) for the worker of game ``game_id``.

    ``ply``: the ply the move is sent for (1-based, the game's ``plies`` + 1 when the person
    saw it), None for the ply at hand. Given, the same ``move`` for a ply already taken
    (waiting or played) answers the game as it stands, changing nothing (a double click or a
    retry), and any other ply is refused.

    Raises ``not_found`` (404, also for another person's game), ``game_over`` (409),
    ``not_your_turn`` (409: the engine is to move, the game has not begun, or a move of yours
    waits already), ``ply_mismatch`` (409: ``ply`` is not the ply at hand; ``details.ply``,
    ``details.expected``), ``invalid_move`` (400: not a token of the variant), ``illegal_move``
    (400: not legal in the position; ``details.legal`` the legal tokens).
    """
    game = _mine(game_id, user)
    token = str(move)[:16]
    if ply is not None and _taken(game, ply, token):
        return game
    if game.status in (PersonGame.Status.FINISHED, PersonGame.Status.ABORTED):
        raise errors.GameOver(details={"game": game.pk, "result": game.result})
    v = get_variant(game.variant)
    position = v.parse_position(game.position)
    if game.status != PersonGame.Status.RUNNING or position.side != game.person_side:
        raise errors.NotYourTurn(details={"game": game.pk, "status": game.status})
    if ply is not None and ply != game.plies + 1:
        raise errors.PlyMismatch(
            f"this move was sent for ply {ply}; a move of yours now would be ply {game.plies + 1}.",
            details={"game": game.pk, "ply": ply, "expected": game.plies + 1},
        )
    try:
        parsed = v.parse_move(token)
    except InvalidMoveError as exc:
        raise errors.InvalidMove(str(exc), details={"move": token}) from None
    try:
        v.apply(position, parsed)
    except IllegalMoveError:
        legal = [str(m) for m in v.legal_moves(position)]
        raise errors.IllegalMove(
            f"{token} is not legal in this position.", details={"move": token, "legal": legal}
        ) from None
    taken = PersonGame.objects.filter(
        pk=game.pk,
        status=PersonGame.Status.RUNNING,
        plies=game.plies,
        pending_move="",
        resign_requested=False,
    ).update(pending_ply=game.plies + 1, pending_move=token, pending_at=timezone.now())
    game.refresh_from_db()
    if not taken:
        if ply is not None and _taken(game, ply, token):
            return game  # the same move sent twice at once: the other request took it
        raise errors.NotYourTurn(
            "a move of yours is already waiting, or the game moved on.",
            details={"game": game.pk},
        )
    return game


def person_resign(*, game_id: int, user: User) -> PersonGame:
    """``user`` resigns game ``game_id``: a game not yet begun ends at once (the engine wins,
    ``resignation``), a running one when the worker sees it (within about 0.1 s).

    Raises ``not_found`` (404) and ``game_over`` (409)."""
    game = _mine(game_id, user)
    now = timezone.now()
    detail = "the person resigned before the game began"
    with transaction.atomic():
        ended = PersonGame.objects.filter(pk=game.pk, status=PersonGame.Status.PENDING).update(
            status=PersonGame.Status.FINISHED,
            resign_requested=True,
            result=_result_against(game.person_side),
            termination="resignation",
            detail=detail,
            finished_at=now,
        )
        if ended:
            _append(game.pk, [_end(_result_against(game.person_side), "resignation", detail, 0)])
    if not ended:
        taken = PersonGame.objects.filter(pk=game.pk, status=PersonGame.Status.RUNNING).update(
            resign_requested=True
        )
        if not taken:
            raise errors.GameOver(details={"game": game.pk, "result": game.result})
    game.refresh_from_db()
    return game


def _result_against(side: str) -> str:
    return "0-1" if side == "S" else "1-0"


# ----------------------------------------------------------------------------- the worker's


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _clock(south_ms: int, north_ms: int, side: str | None, at: datetime) -> tuple[str, Any]:
    """A ``clock`` event: both clocks (ms), whose runs (None: none), since when (ms epoch)."""
    return (PersonGameEvent.Kind.CLOCK, {"S": south_ms, "N": north_ms, "side": side, "at": _ms(at)})


def _end(result: str, termination: str, detail: str, plies: int) -> tuple[str, Any]:
    data = {"result": result, "termination": termination, "detail": detail, "plies": plies}
    return (PersonGameEvent.Kind.END, {"scope": "game"} | data)


def _append(game_id: int, events: list[tuple[str, Any]], after: int | None = None) -> None:
    """Append ``events`` (kind, payload) to game ``game_id``'s stream, numbered after ``after``
    (its last seq; read here when None): call it inside the transaction of the conditional
    UPDATE the events report, which holds the game's row, so two writers number in turn."""
    if after is None:
        after = PersonGameEvent.objects.filter(game_id=game_id).aggregate(m=Max("seq"))["m"] or 0
    PersonGameEvent.objects.bulk_create(
        PersonGameEvent(game_id=game_id, seq=after + n, kind=kind, payload=storable(payload))
        for n, (kind, payload) in enumerate(events, start=1)
    )


def _side_to_move(position: str) -> str | None:
    parts = position.split()
    return parts[1] if len(parts) > 1 else None


def person_game_claim(game_id: int, worker: str) -> PersonGame | None:
    """Take pending game ``game_id`` for this worker (``running``, its turn clock started);
    None if it is not pending (begun elsewhere, resigned, aborted: the task is a no-op).
    Its stream gets the ``game`` and first ``clock`` events."""
    now = timezone.now()
    with transaction.atomic():
        taken = PersonGame.objects.filter(pk=game_id, status=PersonGame.Status.PENDING).update(
            status=PersonGame.Status.RUNNING,
            worker=worker[:200],
            started_at=now,
            turn_started_at=now,
        )
        if not taken:
            return None
        game = PersonGame.objects.select_related("engine__engine", "player").get(pk=game_id)
        engine = {"version": game.engine_id, "name": str(game.engine)}
        person = {"version": None, "name": game.player.get_username()}
        start = {
            "game": game.pk,
            "south": person if game.person_side == "S" else engine,
            "north": person if game.person_side == "N" else engine,
            "start_position": game.start_position,
        }
        _append(
            game.pk,
            [
                (PersonGameEvent.Kind.GAME, start),
                _clock(
                    game.clock_south_ms,
                    game.clock_north_ms,
                    _side_to_move(game.start_position),
                    now,
                ),
            ],
        )
    return game


def person_game_publish(game_id: int, moves: list[dict[str, Any]], record: MoveRecord) -> None:
    """Store the move ``record`` just played (``moves``: every move so far, ``Game.moves``
    shape): the position, the mover's clock, the other side's turn starting now, and the
    person's waiting move cleared if it was this one. Its stream gets the ``move`` and a
    ``clock`` event in the same transaction: UPDATE, one SELECT (the clocks, the last seq),
    one INSERT."""
    clock = "clock_south_ms" if record.side == "S" else "clock_north_ms"
    now = timezone.now()
    with transaction.atomic():
        taken = PersonGame.objects.filter(pk=game_id).update(
            moves=moves,
            position=record.position,
            plies=record.ply,
            turn_started_at=now,
            pending_ply=None,
            pending_move="",
            pending_at=None,
            **{clock: max(0, record.clock_ms)},
        )
        row = (
            PersonGame.objects.filter(pk=game_id)
            .annotate(last_seq=Max("events__seq"))
            .values_list("clock_south_ms", "clock_north_ms", "last_seq")
            .first()
        )
        if not taken or row is None:
            return
        south, north, last = row
        _append(
            game_id,
            [
                (PersonGameEvent.Kind.MOVE, record.to_dict(ignored=False)),
                _clock(south, north, _side_to_move(record.position), now),
            ],
            after=last or 0,
        )


def person_game_finish(game_id: int, record: GameRecord) -> None:
    """Record the end of a running game from the referee's ``record`` (idempotent: only a
    ``running`` row is changed). ``aborted`` for the result ``*``. Its stream gets the last
    ``clock`` (none running) and the ``end``."""
    from people.selectors import clocks_now

    status = PersonGame.Status.ABORTED if record.result == "*" else PersonGame.Status.FINISHED
    now = timezone.now()
    detail = record.detail[:2000]
    with transaction.atomic():
        game = (
            PersonGame.objects.filter(pk=game_id, status=PersonGame.Status.RUNNING)
            .only("status", "clock_south_ms", "clock_north_ms", "turn_started_at")
            .first()
        )
        if game is None:
            return
        # The clocks stand at each side's last move: the side to move in the final position
        # also spent the time since its turn began (all of it, on a time forfeit).
        game.position = record.final_position
        now_clocks = clocks_now(game, now)
        clocks = {"S": now_clocks["south_ms"], "N": now_clocks["north_ms"]}
        if str(record.termination) == "time_forfeit" and now_clocks["running"] in clocks:
            clocks[now_clocks["running"]] = 0
        ended = PersonGame.objects.filter(pk=game_id, status=PersonGame.Status.RUNNING).update(
            status=status,
            moves=[m.to_dict(ignored=False) for m in record.moves],
            position=record.final_position,
            plies=record.plies,
            result=record.result,
            termination=str(record.termination),
            detail=detail,
            finished_at=now,
            pending_move="",
            pending_ply=None,
            clock_south_ms=clocks["S"],
            clock_north_ms=clocks["N"],
        )
        if not ended:
            return
        _append(
            game_id,
            [
                _clock(clocks["S"], clocks["N"], None, now),
                _end(record.result, str(record.termination), detail, record.plies),
            ],
        )


#: How long past the side to move's clock a running game may go unmoved before it is taken
#: for one whose worker died (s): the slot ends a game within its clock, so only a game
#: nobody plays any more is this late.
STALE_AFTER_S = 120


def person_games_abort_stale(user_id: int | None = None) -> int:
    """Abort the running games (``user_id``'s, or everyone's for None) whose side to move ran
    out of clock more than ``STALE_AFTER_S`` ago (the worker playing them died: nobody will
    end them), so they no longer count against the person's limit nor show as running;
    returns how many. Idempotent. Called at a person's start (their own) and by the beat job
    ``people.tasks.abort_stale_person_games`` (everyone's, every minute)."""
    from people.selectors import clocks_now

    now = timezone.now()
    stale = []
    # A stale game's turn began more than STALE_AFTER_S ago whatever its clock: the index-free
    # prefilter keeps the scan to the few running games that old.
    running = PersonGame.objects.filter(
        status=PersonGame.Status.RUNNING,
        turn_started_at__lt=now - timedelta(seconds=STALE_AFTER_S),
    )
    if user_id is not None:
        running = running.filter(player_id=user_id)
    for game in running:
        clocks = clocks_now(game, now)
        side_ms = clocks["south_ms"] if clocks["running"] == "S" else clocks["north_ms"]
        if game.turn_started_at is None or side_ms > 0:
            continue
        clock_ms = game.clock_south_ms if clocks["running"] == "S" else game.clock_north_ms
        if (now - game.turn_started_at).total_seconds() > clock_ms / 1000 + STALE_AFTER_S:
            stale.append(game.pk)
    for game_id in stale:
        log.warning("person game %s: no worker ended it; aborted", game_id)
        person_game_abort(game_id, "the worker playing it stopped")
    return len(stale)


def person_game_abort(game_id: int, detail: str) -> None:
    """End a game that could not be played (not queued, no package): ``aborted``, ``*``; its
    stream gets the ``end``."""
    with transaction.atomic():
        ended = PersonGame.objects.filter(pk=game_id, status__in=OPEN).update(
            status=PersonGame.Status.ABORTED,
            result="*",
            termination="aborted",
            detail=detail[:2000],
            finished_at=timezone.now(),
        )
        if ended:
            plies = PersonGame.objects.filter(pk=game_id).values_list("plies", flat=True).get()
            _append(game_id, [_end("*", "aborted", detail[:2000], plies)])
