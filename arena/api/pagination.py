"""Pagination of API lists: page numbers, ``?page_size=`` up to 200 (default 50)."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """``?page=N&page_size=M`` (M at most 200).

    The response is ``{count, next, previous, results}``.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
