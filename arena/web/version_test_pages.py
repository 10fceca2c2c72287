"""Version tests in the browser: the list (``/tests/``), a test's page with its LLR drawn
between the SPRT's bounds, starting one (``/tests/new/``) and stopping it.

The same selectors, input serializer, rate limit (``tests``) and services as ``/api/tests/``
(``versiontests``); error codes are placed by field as in ``arena.web.actions``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from arena.api.auth import request_user
from arena.api.filters import variant_id
from arena.openings import DEFAULT_SUITE
from arena.web.actions import start_field, variant_field
from arena.web.charts import llr_chart
from arena.web.forms import Field, FieldMap, FormErrors, form_page, submit
from arena.web.pages import VARIANT_CHOICES, list_page
from arena.web.paging import listing
from arena.web.views import not_found, refused
from versiontests import selectors, services
from versiontests.models import VersionTest
from versiontests.serializers import VersionTestCreateInput, VersionTestListQuery

#: Pairs listed on a test's page (newest first).
RECENT_PAIRS = 20
#: The pentanomial's classes: the new version's points in a pair of two games.
PAIR_SCORES = ("0", "½", "1", "1½", "2")

TEST_FILTERS = (
    Field("engine", "Engine (either side)"),
    Field("variant", "Variant", kind="select", choices=VARIANT_CHOICES),
    Field(
        "status",
        "Status",
        kind="select",
        choices=[("", "any status"), *[(s, s) for s in VersionTest.Status.values]],
    ),
    Field("creator", "Started by (username)"),
)


def test_list(request: HttpRequest) -> HttpResponse:
    """``/tests/``: version tests, newest first, filtered as ``GET /api/tests/`` is."""

    def query(filters: dict[str, str]) -> Any:
        data = VersionTestListQuery(data=filters)
        data.is_valid(raise_exception=True)
        variant = data.validated_data.get("variant")
        return selectors.version_test_list(
            status=data.validated_data.get("status"),
            variant=variant_id(variant) if variant else None,
            engine=data.validated_data.get("engine"),
            creator=data.validated_data.get("creator"),
        )

    result = listing(
        request, tuple(f.name for f in TEST_FILTERS), query, {"unknown_variant": "variant"}
    )
    return list_page(
        request,
        "web/tests.html",
        result,
        TEST_FILTERS,
        lambda t: (t, selectors.version_test_figures(t)),
    )


def test_page(request: HttpRequest, test_id: int) -> HttpResponse:
    """``/tests/<id>/``: the settings, the decision or the figures so far (LLR, Elo with its
    95% interval, likelihood of superiority), the LLR after each pair between the bounds,
    the pentanomial and the latest pairs; its creator (or staff) may stop it."""
    test = selectors.version_test_get(test_id)
    if test is None:
        return not_found(request, f"There is no version test {test_id}.")
    figures = selectors.version_test_figures(test)
    user = request.user
    may_stop = test.status == VersionTest.Status.RUNNING and (
        bool(getattr(user, "is_staff", False))
        or (user.is_authenticated and test.created_by_id == user.pk)
    )
    pairs = selectors.version_test_recent_pairs(test, RECENT_PAIRS)
    return render(
        request,
        "web/test.html",
        {
            "t": test,
            "f": figures,
            "unit": "Elo" if test.elo_model == VersionTest.EloModel.LOGISTIC else "nElo",
            "chart": llr_chart(list(test.llr_history), figures.lower, figures.upper),
            "pentanomial": list(zip(PAIR_SCORES, test.pentanomial, strict=True)),
            "pairs": [(p, sorted(p.match.games.all(), key=lambda g: g.index)) for p in pairs],
            "may_stop": may_stop,
        },
    )


TEST_ERRORS: FieldMap = {
    "engine_not_found": ("engine", "base_engine"),
    "engine_version_not_found": ("engine", "base_engine"),
    "engine_not_active": ("engine", "base_engine"),
    "engine_disabled": ("engine", "base_engine"),
    "variant_not_supported": ("engine", "base_engine"),
    "pairing_refused": ("base_engine", "engine"),
    "versions_not_yours": "engine",
    "same_engine": "base_version",
    "unknown_variant": "variant",
    "invalid_time_control": "time_control",
    "time_control_too_long": "time_control",
    "unknown_start_suite": "start_suite",
    "invalid_sprt_bounds": "elo1",
    "invalid_sprt_error_rate": "alpha",
}


def _test_fields() -> list[Field]:
    return [
        Field("engine", "Engine", required=True, help="The engine whose version is tested."),
        Field(
            "version", "Version (optional)", kind="number", help="Empty: its latest active version."
        ),
        Field(
            "base_engine",
            "Against engine (optional)",
            help="Empty: the same engine, an earlier version.",
        ),
        Field(
            "base_version",
            "Against version (optional)",
            kind="number",
            help="Empty: the latest active version below the tested one.",
        ),
        variant_field(),
        Field(
            "time_control",
            "Time control",
            value="10+0.1",
            required=True,
            help="Base seconds + increment seconds per move, e.g. 10+0.1.",
        ),
        Field(
            "model",
            "Elo model",
            kind="select",
            value="logistic",
            choices=[("logistic", "logistic (Elo)"), ("normalized", "normalized (nElo)")],
        ),
        Field(
            "elo0",
            "elo0 (H0)",
            kind="number",
            value="0",
            required=True,
            help="H0: the new version is this much better.",
        ),
        Field(
            "elo1",
            "elo1 (H1)",
            kind="number",
            value="10",
            required=True,
            help="H1: the new version is this much better (above elo0).",
        ),
        Field(
            "alpha",
            "alpha",
            kind="number",
            value="0.05",
            help="The chance of a false H1, in (0, 0.5).",
        ),
        Field(
            "beta",
            "beta",
            kind="number",
            value="0.05",
            help="The chance of a false H0, in (0, 0.5).",
        ),
        Field(
            "max_pairs",
            "Most pairs",
            kind="number",
            value="1000",
            help="Inconclusive once this many pairs are counted.",
        ),
        start_field(DEFAULT_SUITE),
        Field(
            "rated",
            "Rated (the games count for the ratings)",
            kind="checkbox",
            value="false",
            help="Only against one of the arena's bundled engines; otherwise played casual.",
        ),
    ]


#: Optional numbers: an empty field means "not given" (the service's default).
OPTIONAL = ("version", "base_engine", "base_version")


@login_required
def test_new(request: HttpRequest) -> HttpResponse:
    """``/tests/new/``: start a version test (``version_test_create``, ``?engine=``)."""
    fields = _test_fields()
    if request.method != "POST":
        return form_page(
            request, "web/test_new.html", fields, {"engine": request.GET.get("engine", "")}, None
        )
    names = [f.name for f in fields if f.kind != "checkbox"]
    values = {k: request.POST.get(k, "").strip() for k in names}
    values["rated"] = "true" if request.POST.get("rated") else "false"
    data = {k: v for k, v in values.items() if v or k not in OPTIONAL}
    result = submit(
        request,
        scope="tests",
        serializer=VersionTestCreateInput,
        data=data,
        call=lambda d: services.version_test_create(user=request_user(request), **d),
        fields=TEST_ERRORS,
    )
    if isinstance(result, FormErrors):
        return form_page(request, "web/test_new.html", fields, values, result)
    messages.success(request, f"Version test {result.pk} started.")
    return HttpResponseRedirect(f"/tests/{result.pk}/")


@login_required
@require_POST
def test_stop(request: HttpRequest, test_id: int) -> HttpResponse:
    """``POST /tests/<id>/stop/``: its creator (or staff) stops it (``version_test_stop``)."""
    try:
        services.version_test_stop(test_id, user=request_user(request))
    except APIException as exc:  # not_found, test_not_yours, test_not_running
        return refused(request, exc, f"version test {test_id}")
    messages.success(request, f"Version test {test_id} is stopped.")
    return HttpResponseRedirect(f"/tests/{test_id}/")
