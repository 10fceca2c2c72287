"""Request bodies take only the fields the endpoint documents: ``BodySerializer``.

A misspelt body field (``{"time_controll": "10+0.1"}``) used to be dropped by DRF, so the
client got the default and never knew. Every input serializer of a request body (JSON, form or
multipart, API and web forms alike) derives from ``BodySerializer``: before any field is
validated, ``is_valid`` raises ``UnknownField`` (400 ``unknown_field``) naming every key of the
body that is not one of its writable fields, in nested objects too when their serializer is a
``BodySerializer`` as well (``consent.laddr``). The serializer's fields are the one list: the
OpenAPI schema documents the same body with ``additionalProperties: false``
(``arena.api.schema.AutoSchema``). Query parameters are checked elsewhere
(``arena.api.query``), and a body that is not an object is left to the fields' own ``invalid``.

``csrfmiddlewaretoken`` is accepted at the top of every body: a browser form posted with a
session sends it, and Django reads it there, not the endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from arena.api.errors import UnknownField

#: Accepted at the top of every body: Django's CSRF token of a form posted from a browser.
ALWAYS_ACCEPTED = frozenset({"csrfmiddlewaretoken"})


class BodySerializer(serializers.Serializer[Any]):
    """Base of the serializers of request bodies: unknown keys are refused (module docstring)."""

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        """DRF's ``is_valid``, after the check for unknown keys.

        Raises ``UnknownField`` (whatever ``raise_exception`` says: it is not a field's
        validation error) when ``initial_data`` holds keys that no writable field takes;
        ``details.fields`` lists them sorted, ``details.known`` the accepted names.
        """
        data = getattr(self, "initial_data", None)
        if isinstance(data, Mapping):
            unknown, known = unknown_fields(self, data)
            unknown = [name for name in unknown if name not in ALWAYS_ACCEPTED]
            if unknown:
                raise UnknownField(
                    _message(unknown, known), details={"fields": unknown, "known": known}
                )
        return super().is_valid(raise_exception=raise_exception)


def unknown_fields(
    serializer: serializers.Serializer[Any], data: Mapping[str, Any], prefix: str = ""
) -> tuple[list[str], list[str]]:
    """``(unknown, known)``: the keys of ``data`` that ``serializer`` does not take, and the
    names it does take, both sorted and dotted below ``prefix``; nested ``BodySerializer``
    fields (and lists of them: ``name[0].key``) are walked with their part of ``data``."""
    fields = {
        name: field
        for name, field in serializer.fields.items()
        if not field.read_only and not isinstance(field, serializers.HiddenField)
    }
    unknown = [f"{prefix}{key}" for key in data if key not in fields]
    known = []
    for name, field in fields.items():
        known.append(f"{prefix}{name}")
        value = data.get(name)
        if isinstance(field, BodySerializer):
            nested_known = unknown_fields(field, {}, f"{prefix}{name}.")[1]
            known += nested_known
            if isinstance(value, Mapping):
                unknown += unknown_fields(field, value, f"{prefix}{name}.")[0]
        elif (
            isinstance(field, serializers.ListSerializer)
            and isinstance(field.child, BodySerializer)
            and isinstance(value, list)
        ):
            for index, item in enumerate(value):
                if isinstance(item, Mapping):
                    unknown += unknown_fields(field.child, item, f"{prefix}{name}[{index}].")[0]
    return sorted(unknown), sorted(known)


def _message(unknown: list[str], known: list[str]) -> str:
    names = ", ".join(repr(name) for name in unknown)
    takes = ", ".join(known) or "no fields"
    noun = "field" if len(unknown) == 1 else "fields"
    return f"Unknown {noun} {names}; this endpoint takes: {takes}."
