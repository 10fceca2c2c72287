"""Strict query-parameter filters shared by the list endpoints.

django-filter's defaults are lenient in ways that hide mistakes: ``NumberFilter`` takes any
decimal (``?tournament=9223372036854775808`` reached the database and overflowed SQLite's
64-bit integers) and ``BooleanFilter`` reads ``?rated=maybe`` as "no filter". These refuse such
values; the filter backend turns the refusal into 400 ``invalid`` with the parameter under
``details``. Variant filters take ids and aliases and answer ``unknown_variant`` otherwise, as
the request bodies do.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from drf_spectacular.utils import extend_schema_field
from rest_framework import filters, serializers
from rest_framework.exceptions import ValidationError

from arena.api.errors import UnknownVariant
from arena.rules import VARIANTS, UnknownVariantError, canonical_variant_id, variant_names

#: The largest id a 64-bit signed primary key can hold (PostgreSQL bigint, SQLite INTEGER).
MAX_ID = 2**63 - 1

#: Every id and alias a variant parameter takes (compared in any case).
VARIANT_NAMES = variant_names()
#: The OpenAPI schema of a variant parameter: an id or alias (compared in any case).
VARIANT_SCHEMA = {
    "type": "string",
    "enum": list(VARIANT_NAMES),
    "description": "Variant id or alias (any case).",
}
#: The OpenAPI schema of an id parameter.
ID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}

_TRUE = frozenset({"true", "1", "yes", "on", "t", "y"})
_FALSE = frozenset({"false", "0", "no", "off", "f", "n"})


def variant_id(text: str) -> str:
    """The variant id for an id or alias (``kete`` -> ``bao-la-kete``); raises
    ``UnknownVariant`` (400 ``unknown_variant``, ``details.variant`` and ``details.known``, the
    ids) otherwise."""
    try:
        return canonical_variant_id(text)
    except UnknownVariantError as exc:
        raise UnknownVariant(str(exc), details={"variant": text, "known": list(VARIANTS)}) from None


@extend_schema_field(ID_SCHEMA)
class IdFilter(django_filters.NumberFilter):
    """An object id: a whole number from 1 to ``MAX_ID``."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class StrictBooleanField(forms.Field):
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``, any case); empty
    means "not given"; anything else is an error."""

    def to_python(self, value: Any) -> bool | None:
        if value in (None, ""):
            return None
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise forms.ValidationError("Must be true or false.", code="invalid")


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


@extend_schema_field(VARIANT_SCHEMA)
class VariantField(serializers.CharField):
    """A serializer field for a variant id or alias (the value is kept as given; views and
    services turn it into the id with ``variant_id``, answering ``unknown_variant``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)


@extend_schema_field(VARIANT_SCHEMA)
class VariantFilter(django_filters.CharFilter):
    """A variant id or alias, compared as the canonical id."""

    def filter(self, qs: Any, value: Any) -> Any:
        if value in (None, ""):
            return qs
        return super().filter(qs, variant_id(value))


class OrderingFilter(filters.OrderingFilter):
    """DRF's ``?ordering=`` (comma-separated terms, ``-`` for descending) that refuses what it
    cannot honour: an unknown or empty term is 400 ``invalid`` with ``details.ordering`` naming
    the accepted terms (DRF drops such terms silently). The schema lists the terms as an enum.

    Every ordering, requested or default, is completed with the primary key by the paginator
    (``arena.api.pagination.stable_order``), so pages never skip or repeat rows."""

    def get_ordering(self, request: Any, queryset: Any, view: Any) -> Any:
        raw = request.query_params.get(self.ordering_param)
        if raw is None or raw == "":
            return self.get_default_ordering(view)
        terms = [term.strip() for term in raw.split(",")]
        valid = self._terms(queryset, view, request)
        bad = [term for term in terms if term not in valid]
        if bad:
            raise ValidationError(
                {
                    self.ordering_param: [
                        f"Cannot order by {', '.join(repr(t) for t in bad)}; use one or more "
                        f"of {', '.join(valid)} (comma-separated)."
                    ]
                }
            )
        return terms

    def _terms(self, queryset: Any, view: Any, request: Any = None) -> list[str]:
        fields = [name for name, _ in self.get_valid_fields(queryset, view, {"request": request})]
        return [term for name in fields for term in (name, f"-{name}")]

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        queryset = view.get_queryset() if hasattr(view, "get_queryset") else None
        terms = self._terms(queryset, view)
        return [
            {
                "name": self.ordering_param,
                "required": False,
                "in": "query",
                "description": "Sort by these fields (comma-separated; `-` for descending). "
                "Ties are broken by id.",
                "schema": {"type": "array", "items": {"type": "string", "enum": terms}},
                "style": "form",
                "explode": False,
            }
        ]
