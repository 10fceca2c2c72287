"""Pagination of API lists: ``?page=N`` and ``?page_size=M`` (default 50, at most 200).

Both are checked, where DRF would ignore a bad ``page_size`` and call a bad ``page`` "not
found": a ``page`` that is not a whole number from 1 to 2**63-1 is 400 ``invalid``
(``details.page``), a ``page_size`` that is not a whole number of at least 1 too
(``details.page_size``; the message names 200, the documented cap). A ``page_size`` above 200,
however large, is served as 200 (docs/api-errors.md: clients asking for "everything" get
the largest page, and ``next`` says if there is more). ``page=last`` is the last page; a page
past the end is 404 ``not_found`` with ``details.page`` and ``details.pages``.

Every paginated queryset is ordered to the end by its primary key (``stable_order``): rows equal
on the requested sort keys (e.g. ``finished_at`` NULL for every unfinished match) would
otherwise come in whatever order the database picks for each page's query, and paging through
them skipped some rows and repeated others (seen on PostgreSQL).
"""

from __future__ import annotations

import re
from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from arena.api.errors import NotFoundError

_WHOLE = re.compile(r"[0-9]{1,19}")
_DIGITS = re.compile(r"[0-9]+")
_MAX = 2**63 - 1


def _positive_int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not _WHOLE.fullmatch(raw) or not 1 <= int(raw) <= _MAX:
        raise ValidationError({name: [f"Must be a whole number from 1 to {_MAX}."]})
    return int(raw)


_PK_TERMS = frozenset({"pk", "-pk", "id", "-id"})


def stable_order(queryset: Any) -> Any:
    """``queryset`` ordered as it is, then by primary key (in the direction of its last key),
    so that the order is total; other iterables are returned as they are."""
    if not isinstance(queryset, QuerySet):
        return queryset
    query = queryset.query
    default = (query.get_meta().ordering or ()) if query.default_ordering else ()
    ordering = list(query.order_by or default)
    if ordering and isinstance(ordering[-1], str) and ordering[-1] in _PK_TERMS:
        return queryset
    last = ordering[-1] if ordering else None
    descending = getattr(last, "descending", isinstance(last, str) and last.startswith("-"))
    return queryset.order_by(*ordering, "-pk" if descending else "pk")


class Pagination(PageNumberPagination):
    """``?page=N&page_size=M`` (M at most 200, see the module docstring).

    The response is ``{count, next, previous, results}``.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        digits = raw.lstrip("0")
        if not _DIGITS.fullmatch(raw) or not digits:
            cap = self.max_page_size
            raise ValidationError(
                {
                    self.page_size_query_param: [
                        f"Must be a whole number from 1 to {cap} (a larger one is served as {cap})."
                    ]
                }
            )
        # Compared as text first: a thousand-digit size is simply "more than the cap".
        return self.max_page_size if len(digits) > 3 else min(int(digits), self.max_page_size)

    def paginate_queryset(
        self, queryset: Any, request: Request, view: Any = None
    ) -> list[Any] | None:
        if request.query_params.get(self.page_query_param) not in self.last_page_strings:
            _positive_int(request, self.page_query_param)
        queryset = stable_order(queryset)
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            number = int(request.query_params[self.page_query_param])
            pages = self.django_paginator_class(queryset, self.get_page_size(request)).num_pages
            raise NotFoundError(
                f"Page {number} is past the end: there are {pages} pages.",
                details={"page": number, "pages": pages},
            ) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """``page`` (a whole number from 1, or ``last``) and ``page_size`` (from 1; above 200
        is served as 200), as the checks above read them."""
        return [
            {
                "name": self.page_query_param,
                "required": False,
                "in": "query",
                "description": "Page number (from 1), or `last`.",
                "schema": {
                    "oneOf": [
                        {"type": "integer", "minimum": 1, "maximum": _MAX},
                        {"type": "string", "enum": list(self.last_page_strings)},
                    ]
                },
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"Rows per page: default {self.page_size}; above "
                f"{self.max_page_size} is served as {self.max_page_size}.",
                "schema": {"type": "integer", "minimum": 1},
            },
        ]
