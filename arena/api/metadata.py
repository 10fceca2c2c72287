"""What ``OPTIONS`` answers on an API route (``DEFAULT_METADATA_CLASS``).

DRF's ``SimpleMetadata`` describes the body of a ``POST``/``PUT`` the caller may send by
calling the view's ``get_serializer()``; the API's views take their input serializers per
operation (``TournamentCreateInput``...), not one ``serializer_class``, so with a token that
call failed (``OPTIONS /api/tournaments/`` was a 500, issue 30). The bodies are documented in
the OpenAPI schema instead, and ``OPTIONS`` answers what holds for every view. (Like
``arena.api.pagination``, imported by DRF's settings while ``rest_framework.views`` loads:
no import of a view here.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.metadata import BaseMetadata

if TYPE_CHECKING:  # DRF's settings import this module while rest_framework.views loads
    from rest_framework.request import Request
    from rest_framework.views import APIView

#: Where the request and response bodies of every operation are described.
SCHEMA_PATH = "/api/schema/"


class Metadata(BaseMetadata):
    """``{"name", "description", "methods", "renders", "parses", "schema"}``: the view's name
    and docstring, the methods it allows (also in the ``Allow`` header), the media types it
    answers and reads, and the path of the OpenAPI schema that describes its bodies."""

    def determine_metadata(self, request: Request, view: APIView) -> dict[str, Any]:
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "methods": list(view.allowed_methods),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
            "schema": SCHEMA_PATH,
        }
