"""Paging and filters of the web list pages: the API's filters and selectors, pages of
``PAGE_SIZE`` rows with links that keep the filters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import EmptyPage, Page, PageNotAnInteger
from django.http import HttpRequest
from rest_framework.exceptions import APIException

from arena.api.pagination import BoundedPaginator
from arena.web.forms import FieldMap, FormErrors, form_errors

PAGE_SIZE = 50


@dataclass
class Listing:
    """One page of a list: its rows (``page``), the links to the pages around it (keeping the
    filters), the filter values and their errors."""

    page: Page[Any] | None
    filters: dict[str, str]
    errors: FormErrors | None
    previous_url: str = ""
    next_url: str = ""


def filter_values(request: HttpRequest, names: tuple[str, ...]) -> dict[str, str]:
    """The non-empty filter parameters of ``request`` among ``names`` (a GET form sends empty
    fields as ``name=``: that means "no filter", not a blank value)."""
    return {n: request.GET[n].strip() for n in names if request.GET.get(n, "").strip()}


def listing(
    request: HttpRequest,
    names: tuple[str, ...],
    query: Callable[[dict[str, str]], Any],
    fields: FieldMap | None = None,
) -> Listing:
    """The page ``?page=N`` of ``query(filters)`` (a queryset). A filter the API refuses
    (``query`` raises its ``APIException``: ``invalid``, ``unknown_variant``...) lists
    nothing and puts the API's message next to that filter.

    Counted as the API counts (``BoundedPaginator``: exactly up to ``COUNT_BOUND`` rows, an
    estimate past it); a page that is not a number is the first, one past the end the last."""
    filters = filter_values(request, names)
    try:
        rows = query(filters)
        paginator = BoundedPaginator(rows, PAGE_SIZE)
        try:
            page = paginator.page(request.GET.get("page") or 1)
        except PageNotAnInteger:
            page = paginator.page(1)
        except EmptyPage:
            paginator.count_exactly()
            page = paginator.page(paginator.num_pages)
    except APIException as exc:
        return Listing(None, filters, form_errors(exc, filters, fields or {}))
    result = Listing(page, filters, None)
    if page.has_previous():
        result.previous_url = "?" + urlencode({**filters, "page": page.previous_page_number()})
    if page.has_next():
        result.next_url = "?" + urlencode({**filters, "page": page.next_page_number()})
    return result
