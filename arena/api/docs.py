"""The interactive API documentation page (``/api/docs/``, Swagger UI on ``/api/schema/``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, JsonResponse
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request

from arena.api.metadata import Metadata


class DocsView(SpectacularSwaggerView):
    """drf-spectacular's Swagger UI page. ``OPTIONS`` answers the API's metadata as JSON
    (``arena.api.metadata``): the page's HTML template renders only its own ``GET`` context,
    and an ``OPTIONS`` from a browser was a 500 (issue 30)."""

    # A plain JSON response: the page's own renderer is the HTML template.
    def options(  # type: ignore[override]
        self, request: Request, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        metadata = Metadata().determine_metadata(request, self)
        return JsonResponse(metadata, headers={"Allow": ", ".join(self.allowed_methods)})
