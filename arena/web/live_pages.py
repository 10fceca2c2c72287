"""The live pages: ``/live/`` (the games being played), ``/live/<id>/`` (one game, following
its match and tournament) and ``/tv/`` (the most interesting running game), docs/live.md.

The page's script (``static/web/viewer.js``) reads the game's events from
``GET /api/live/<id>/events`` (Server-Sent Events) and polls ``GET /api/live/<id>/`` where the
stream cannot be had. A game that is over is never shown as if it were running: ``/live/<id>/``
of an ended game goes on to the next game of its match or, the match over, to a running game
of its tournament (``?from=<id>`` makes the page say which game ended and how), and says the
game is over when there is neither.

The TV's choice (``tv_score``): the mean Elo of the two engines in the variant's latest fit
(``UNRATED_ELO`` for an unrated one) less ``CLOCK_WEIGHT_ELO`` times the difference of their
clocks as a fraction of the starting clock: a game between strong engines whose clocks are
close ranks first; a clock lead of the whole base time costs 200 Elo points of interest.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render

from arena.matches import selectors as match_selectors
from arena.matches.live import base_clock_ms
from arena.matches.models import LiveGame
from arena.web.views import _viewer_context, not_found
from ratings import selectors as rating_selectors

#: How often the page polls ``/api/live/<id>/`` where no event stream can be had (ms).
LIVE_POLL_MS = 1000
#: The Elo of an engine with no rating yet, in the TV's score.
UNRATED_ELO = 1500.0
#: Elo points of interest a clock lead of the whole starting clock costs, in the TV's score.
CLOCK_WEIGHT_ELO = 200.0


def live_list(request: HttpRequest) -> HttpResponse:
    """``/live/``: the games being played now."""
    return render(
        request, "web/live_list.html", {"games": list(match_selectors.live_games_running())}
    )


def _ended_note(live: LiveGame) -> dict[str, Any]:
    return {
        "id": live.pk,
        "match": live.match_id,
        "index": live.index,
        "result": live.result,
        "termination": live.termination,
        "status": live.status,
    }


def live_game(request: HttpRequest, live_id: int) -> HttpResponse:
    """``/live/<id>/``: a game as it is played (module docstring); an ended game redirects to
    what follows it (``live_game_next``) with ``?from=<id>``."""
    live = match_selectors.live_game_queryset().filter(pk=live_id).first()
    if live is None:
        return not_found(request, f"There is no live game {live_id}.")
    if live.status != LiveGame.Status.RUNNING:
        after = match_selectors.live_game_next(live)
        if after is not None:
            return HttpResponseRedirect(f"/live/{after.pk}/?from={live.pk}")
    came_from = None
    from_id = request.GET.get("from", "")
    if from_id.isdigit() and len(from_id) < 12:
        before = LiveGame.objects.filter(pk=int(from_id)).first()
        if before is not None and before.status != LiveGame.Status.RUNNING:
            came_from = _ended_note(before)
    return _render_live(request, live, came_from=came_from, tv=False)


def tv_score(
    ratings: tuple[float | None, float | None], clock: dict[str, Any] | None, base_ms: int | None
) -> float:
    """The TV's interest in a game (module docstring): ``ratings`` the Elo of South and North
    (None: unrated), ``clock`` the last ``clock`` event's payload (ms), ``base_ms`` the
    starting clock (ms). Higher is more interesting."""
    mean = sum(UNRATED_ELO if r is None else r for r in ratings) / 2
    if not clock or not base_ms:
        return mean
    south, north = clock.get("S"), clock.get("N")
    if not isinstance(south, int) or not isinstance(north, int):
        return mean
    return mean - CLOCK_WEIGHT_ELO * min(1.0, abs(south - north) / base_ms)


def tv_pick() -> LiveGame | None:
    """The running game with the highest ``tv_score`` (the earliest started of equals)."""
    games = list(match_selectors.live_games_running_with_clocks().order_by("started_at", "id"))
    if not games:
        return None
    rated: dict[str, dict[int, float]] = {}
    for variant in {g.match.variant for g in games}:
        ids = [i for g in games if g.match.variant == variant for i in (g.south_id, g.north_id)]
        rated[variant] = rating_selectors.version_ratings(variant=variant, version_ids=ids)

    def score(game: LiveGame) -> float:
        elo = rated[game.match.variant]
        clock = getattr(game, "clock", None)
        ratings = (elo.get(game.south_id), elo.get(game.north_id))
        return tv_score(ratings, clock, base_clock_ms(game.match.time_control))

    return max(games, key=score)  # max keeps the first of equal scores


#: How soon an idle TV looks again (ms): at first soon, since the next game of a match or
#: tournament starts within a second or two of the last one's end, then twice as late each
#: time, up to ``TV_IDLE_MAX_MS`` (an idle viewer costs a request every 10 s at most).
TV_IDLE_FIRST_MS = 1000
TV_IDLE_MAX_MS = 10_000


def tv_idle_wait(text: str | None) -> int:
    """The wait of an idle TV page reached with ``?idle=<text>`` (ms, the last wait; absent or
    junk: the first), clamped to ``TV_IDLE_FIRST_MS``..``TV_IDLE_MAX_MS``."""
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > 6:
        return TV_IDLE_FIRST_MS
    return max(TV_IDLE_FIRST_MS, min(TV_IDLE_MAX_MS, int(text)))


def tv(request: HttpRequest) -> HttpResponse:
    """``/tv/``: the most interesting running game (``tv_pick``); its page comes back here
    when the game ends, to the next choice. With none running, a page that looks again after
    ``tv_idle_wait(?idle=)`` ms, at ``?idle=`` twice that (up to ``TV_IDLE_MAX_MS``)."""
    live = tv_pick()
    if live is None:
        wait = tv_idle_wait(request.GET.get("idle"))
        context = {"poll_ms": wait, "next_ms": min(TV_IDLE_MAX_MS, 2 * wait)}
        return render(request, "web/tv_idle.html", context)
    live = match_selectors.live_game_queryset().get(pk=live.pk)
    return _render_live(request, live, came_from=None, tv=True)


def _render_live(
    request: HttpRequest, live: LiveGame, *, came_from: dict[str, Any] | None, tv: bool
) -> HttpResponse:
    game_id = match_selectors.live_game_replay_id(live)
    context = _viewer_context(
        request,
        variant=live.match.variant,
        time_control=live.match.time_control,
        start_position=live.start_position,
        moves=match_selectors.live_moves(live),
        south=live.south,
        north=live.north,
        live={
            "url": f"/api/live/{live.pk}/",
            "match": live.match_id,
            "status": live.status,
            "game": game_id,
            "poll_ms": LIVE_POLL_MS,
            "id": live.pk,
            "index": live.index,
            "events": f"/api/live/{live.pk}/events",
            "match_running": live.match.status == "running",
            "tv": tv,
        },
    )
    return render(
        request,
        "web/live.html",
        {**context, "live": live, "game_id": game_id, "came_from": came_from, "tv": tv},
    )
