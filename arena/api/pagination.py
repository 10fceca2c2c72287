"""Pagination of API lists: ``?page=N`` and ``?page_size=M`` (default 50, at most 200).

Both are checked: a value that is not a whole number from 1 to 2**63-1 is 400 ``invalid``
(``details.page`` / ``details.page_size``), where DRF would ignore a bad ``page_size`` and call
a bad ``page`` "not found". A ``page_size`` above 200 is served as 200 (the cap is documented
in docs/api-errors.md: clients asking for "everything" get the largest page, and ``next``
says if there is more). ``page=last`` is the last page; a page past the end is 404
``not_found`` with ``details.page`` and ``details.pages``.
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from arena.api.errors import NotFoundError

_WHOLE = re.compile(r"[0-9]{1,19}")
_MAX = 2**63 - 1


def _positive_int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not _WHOLE.fullmatch(raw) or not 1 <= int(raw) <= _MAX:
        raise ValidationError({name: [f"Must be a whole number from 1 to {_MAX}."]})
    return int(raw)


class Pagination(PageNumberPagination):
    """``?page=N&page_size=M`` (M at most 200, see the module docstring).

    The response is ``{count, next, previous, results}``.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        size = _positive_int(request, self.page_size_query_param)
        return self.page_size if size is None else min(size, self.max_page_size)

    def paginate_queryset(
        self, queryset: Any, request: Request, view: Any = None
    ) -> list[Any] | None:
        if request.query_params.get(self.page_query_param) not in self.last_page_strings:
            _positive_int(request, self.page_query_param)
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            number = int(request.query_params[self.page_query_param])
            pages = self.django_paginator_class(queryset, self.get_page_size(request)).num_pages
            raise NotFoundError(
                f"Page {number} is past the end: there are {pages} pages.",
                details={"page": number, "pages": pages},
            ) from None
