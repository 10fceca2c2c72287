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

from arena.api.errors import UnknownVariant
from arena.rules import VARIANTS, UnknownVariantError, canonical_variant_id

#: The largest id a 64-bit signed primary key can hold (PostgreSQL bigint, SQLite INTEGER).
MAX_ID = 2**63 - 1

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


class VariantFilter(django_filters.CharFilter):
    """A variant id or alias, compared as the canonical id."""

    def filter(self, qs: Any, value: Any) -> Any:
        if value in (None, ""):
            return qs
        return super().filter(qs, variant_id(value))
