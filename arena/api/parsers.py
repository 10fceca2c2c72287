"""Request body parsers of the API: DRF's JSON and form parsers with two guards.

* The body is read up to ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (Django's own limit,
  which Django checks for ``request.body`` and multipart fields but DRF's parsers bypass by
  reading the stream): one byte more raises ``RequestTooLarge`` (413 ``request_too_large``).
* JSON nested deeper than the interpreter's recursion limit (``[[[[...]]]]``) makes
  ``json.loads`` raise ``RecursionError``; that is a ``ParseError`` (400 ``parse_error``).

Multipart bodies keep DRF's ``MultiPartParser`` (Django's parser, which enforces the limit for
non-file fields itself; the error handler turns its ``RequestDataTooBig`` into the same 413).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError


def read_bounded(stream: IO[bytes]) -> bytes:
    """The whole body from ``stream``; raises ``RequestTooLarge`` past the upload limit."""
    # None disables Django's limit (its documented value; the stubs type it int only).
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is None:
        return stream.read()
    body = stream.read(limit + 1)
    if len(body) > limit:
        # Imported here: arena.api.errors imports rest_framework.views, whose APIView class
        # reads DEFAULT_PARSER_CLASSES (this module) while it is being defined.
        from arena.api.errors import RequestTooLarge

        raise RequestTooLarge(
            f"The request body is larger than {limit} bytes.", details={"max_bytes": limit}
        )
    return body


class JSONParser(parsers.JSONParser):
    """``application/json``: bounded read; too deep a nesting is a ``parse_error``."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        body = io.BytesIO(read_bounded(stream))
        try:
            return super().parse(body, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the document is nested too deeply.") from None


class FormParser(parsers.FormParser):
    """``application/x-www-form-urlencoded``: bounded read."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        return super().parse(io.BytesIO(read_bounded(stream)), media_type, parser_context)
