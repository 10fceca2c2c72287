"""The base view of the API's paginated lists, shared by the apps' list endpoints.

Apart from ``arena.api.pagination``: DRF's settings import that module's ``Pagination`` while
``rest_framework.generics`` is still loading, so it cannot import a generic view itself.
"""

from __future__ import annotations

from typing import Any

from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from arena.api.pagination import Pagination


class PaginatedListApi(GenericAPIView[Any]):
    """A paginated list (``?page=``, ``?page_size=``; documented so in the schema) whose
    filters are its own query serializer, not the default filter backends."""

    pagination_class = Pagination
    filter_backends = ()

    def paginated(self, queryset: Any, serializer_class: Any) -> Response:
        """The page of ``queryset`` the request asks for, each row through
        ``serializer_class``, as ``{count, next, previous, results}``."""
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(serializer_class(page, many=True).data)
