"""The body of ``GET /api/games/export/``: JSON lines, optionally gzip-encoded, streamed.

The games are read in chunks (``selectors.games_by_ids``) and written a line at a time, so a
page of 10 000 games is never one string in memory; gzip is one stream over the whole body
(``zlib`` with the gzip header), flushed per chunk of lines.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from urllib.parse import urlencode

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from rest_framework.request import Request

from arena.matches.gamerecord import game_line
from arena.matches.models import Game
from arena.matches.selectors import game_visible_engine_errors

CONTENT_TYPE = "application/x-ndjson; charset=utf-8"
#: Lines joined into one chunk of the streamed body.
LINES_PER_CHUNK = 100


def lines(games: Iterable[Game], user: AbstractBaseUser | AnonymousUser | None) -> Iterator[bytes]:
    """The body, in chunks of ``LINES_PER_CHUNK`` lines (UTF-8, each ending with a newline);
    ``engine_errors`` only of the sides ``user`` may read (``game_visible_engine_errors``)."""
    chunk: list[str] = []
    for game in games:
        errors = game_visible_engine_errors(game, user)
        chunk.append(game_line(game, errors).to_json())
        if len(chunk) == LINES_PER_CHUNK:
            yield ("\n".join(chunk) + "\n").encode()
            chunk = []
    if chunk:
        yield ("\n".join(chunk) + "\n").encode()


def gzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """``chunks`` as one gzip stream (RFC 1952)."""
    z = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    for chunk in chunks:
        out = z.compress(chunk) + z.flush(zlib.Z_SYNC_FLUSH)
        if out:
            yield out
    yield z.flush()


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip: ``gzip`` (or ``*``) listed without
    ``q=0`` (RFC 9110 12.5.3); an explicit ``gzip;q=0`` refuses it even beside ``*``."""
    weights: dict[str, float] = {}
    for item in header.split(","):
        name, *params = (part.strip() for part in item.split(";"))
        if not name:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        weights[name.lower()] = q
    if "gzip" in weights:
        return weights["gzip"] > 0
    return weights.get("*", 0.0) > 0


def next_url(request: Request, last_id: int) -> str:
    """This request's URL with ``since`` set to ``last_id`` (the other parameters kept)."""
    params = [
        (key, value)
        for key, values in request.query_params.lists()
        if key != "since"
        for value in values
    ]
    params.append(("since", str(last_id)))
    return request.build_absolute_uri(request.path) + "?" + urlencode(params)
