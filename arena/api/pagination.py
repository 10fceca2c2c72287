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

A list is counted exactly up to ``COUNT_BOUND`` rows (``BoundedPaginator``): past that, on
PostgreSQL, ``count`` is the planner's estimate and the response says ``"count_exact":
false`` (a full ``COUNT(*)`` of a million matches is a sequential scan of 50-70 ms, the page
itself 1 ms: issue 32). ``next`` is then known from the page's own rows, ``page=last`` and a
page past the end count exactly. Lists up to the bound answer as before, without the key.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from typing import Any

from django.core.paginator import EmptyPage, InvalidPage, Page, Paginator
from django.db import connections
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

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


#: Rows a list counts exactly; past this many its count is an estimate (PostgreSQL).
COUNT_BOUND = 10_000


def planner_rows(queryset: QuerySet[Any]) -> int | None:
    """The number of rows PostgreSQL's planner expects ``queryset`` to return (``EXPLAIN``: no
    row is read, the table statistics ``ANALYZE`` keeps), or None on another database."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    sql, params = queryset.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


class BoundedPage(Page[Any]):
    """A page of a list whose count is an estimate: whether a next page exists is known from
    the page's own read (one row more than the page), not from the count."""

    more: bool | None = None

    def has_next(self) -> bool:
        return super().has_next() if self.more is None else self.more


class BoundedPaginator(Paginator[Any]):
    """A ``Paginator`` that counts a queryset exactly up to ``count_bound`` rows only.

    ``count`` is one ``SELECT COUNT(*)`` over at most ``count_bound`` + 1 rows; past the bound
    it is the planner's estimate (``planner_rows``, never below the bound + 1) and
    ``count_exact`` is False. A database without an estimate counts exactly. Pages of an
    estimated list read one row more than the page (``BoundedPage.has_next``); a page past the
    estimate is served while it has rows, and an empty one counts exactly (``EmptyPage`` then,
    as a page past the end of any list).
    """

    count_bound = COUNT_BOUND

    def __init__(self, object_list: Any, per_page: int, **kwargs: Any) -> None:
        super().__init__(object_list, per_page, **kwargs)
        self.count_exact = True

    @cached_property
    def count(self) -> int:
        rows: Any = self.object_list
        if not isinstance(rows, QuerySet):
            return len(rows)
        bounded = rows[: self.count_bound + 1].count()
        if bounded <= self.count_bound:
            return int(bounded)
        estimate = planner_rows(rows)
        if estimate is None:
            return int(rows.count())
        self.count_exact = False
        return max(estimate, bounded)

    def count_exactly(self) -> None:
        """Count exactly (a full count), whether or not ``count`` was read before."""
        if self.count_exact and "count" in self.__dict__:
            return
        rows: Any = self.object_list
        self.__dict__["count"] = rows.count() if isinstance(rows, QuerySet) else len(rows)
        self.__dict__.pop("num_pages", None)
        self.count_exact = True

    def validate_number(self, number: Any) -> int:
        try:
            return int(super().validate_number(number))
        except EmptyPage:
            if self.count_exact or int(number) < 1:
                raise
            return int(number)  # past the estimate: the page's read decides

    def page(self, number: Any) -> Page[Any]:
        number = self.validate_number(number)
        if self.count_exact:
            return super().page(number)
        bottom = (number - 1) * self.per_page
        rows = list(self.object_list[bottom : bottom + self.per_page + 1])
        if not rows and number > 1:
            self.count_exactly()
            return super().page(number)  # EmptyPage unless the estimate was high
        if bottom + len(rows) > self.count:
            self.__dict__["count"] = bottom + len(rows)
            self.__dict__.pop("num_pages", None)
        page = self._get_page(rows[: self.per_page], number, self)
        page.more = len(rows) > self.per_page
        return page

    def _get_page(self, *args: Any, **kwargs: Any) -> BoundedPage:
        return BoundedPage(*args, **kwargs)


class Pagination(PageNumberPagination):
    """``?page=N&page_size=M`` (M at most 200, see the module docstring).

    The response is ``{count, next, previous, results}``, and ``count_exact: false`` when
    ``count`` is an estimate (a list of more than ``COUNT_BOUND`` rows on PostgreSQL).
    """

    django_paginator_class = BoundedPaginator

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
        self.request = request
        paginator = self.django_paginator_class(queryset, self.get_page_size(request))
        raw = request.query_params.get(self.page_query_param) or 1
        if raw in self.last_page_strings:
            paginator.count_exactly()
            raw = paginator.num_pages
        try:
            self.page = paginator.page(raw)
        except InvalidPage:
            paginator.count_exactly()
            number = int(raw)
            pages = paginator.num_pages
            raise NotFoundError(
                f"Page {number} is past the end: there are {pages} pages.",
                details={"page": number, "pages": pages},
            ) from None
        return list(self.page)

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        if self.page is not None and not getattr(self.page.paginator, "count_exact", True):
            response.data["count_exact"] = False
        return response

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        described = super().get_paginated_response_schema(schema)
        described["properties"]["count"]["description"] = (
            f"The rows of the list; past {COUNT_BOUND:,} (PostgreSQL) an estimate, and "
            "`count_exact` is false."
        )
        described["properties"]["count_exact"] = {
            "type": "boolean",
            "description": "Present, and false, only when `count` is an estimate.",
        }
        return described

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
