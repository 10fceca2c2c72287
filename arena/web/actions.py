"""Writes in the browser: upload an engine (or a new version), challenge, create a tournament.

Each posts to the same input serializer, rate limit and service as its API endpoint
(``POST /api/engines/``, ``POST /api/matches/``, ``POST /api/tournaments/``), so permissions,
limits and error codes are the API's; the error codes are placed next to the field they
concern by the maps below (``arena.web.forms``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils import timezone
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from arena.api.auth import request_user
from arena.matches.serializers import ChallengeInput
from arena.matches.services import match_cancel_by, match_challenge
from arena.openings import start_choices
from arena.rules import VARIANTS
from arena.web.forms import Field, FieldMap, FormErrors, form_page, submit
from arena.web.views import refused
from engines import selectors as engine_selectors
from engines import services as engine_services
from engines.serializers import EngineUploadInputSerializer
from tournaments import services as tournament_services
from tournaments.formats import DEFAULT_FORMAT, format_choices
from tournaments.serializers import TournamentCreateInput

#: Engine names a form may send as a challenge's two sides.
BOTH_ENGINES = ("engine", "opponent")

UPLOAD_FIELDS = (
    Field(
        "name",
        "Engine name",
        required=True,
        help="Letters, digits, - and _. A new name creates your engine; your own name adds "
        "a version.",
    ),
    Field(
        "file",
        "Engine file",
        kind="file",
        required=True,
        help="A script starting with #! (e.g. #!/usr/bin/env python3) or an ELF binary, or a "
        ".zip / .tar.gz holding bao-engine.json.",
    ),
    Field("description", "Description (optional)", kind="textarea"),
)
UPLOAD_ERRORS: FieldMap = {
    "engine_not_yours": "name",
    "upload_too_large": "file",
    "request_too_large": "file",
    "unsafe_archive": "file",
    "bad_manifest": "file",
    "not_executable": "file",
    "bad_upload": "file",
    "duplicate_version": "file",
    "runtime_missing": "file",
}


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    """``/engines/upload/``: a new engine or a new version of one's own (``?name=``)."""
    # What the workers offer engines, probed in their sandboxes (docs/runtimes.md).
    runtimes = engine_selectors.runtimes_offered()["runtimes"]
    if request.method != "POST":
        return form_page(
            request,
            "web/upload.html",
            UPLOAD_FIELDS,
            {"name": request.GET.get("name", "")},
            None,
            runtimes=runtimes,
        )
    values: dict[str, Any] = {k: request.POST.get(k, "") for k in ("name", "description")}
    data = {**values, **({"file": request.FILES["file"]} if "file" in request.FILES else {})}
    result = submit(
        request,
        scope="uploads",
        serializer=EngineUploadInputSerializer,
        data=data,
        call=lambda d: engine_services.engine_version_create(
            owner=request_user(request),
            name=d["name"],
            upload=d["file"],
            description=d["description"],
        ),
        fields=UPLOAD_ERRORS,
    )
    if isinstance(result, FormErrors):
        return form_page(
            request, "web/upload.html", UPLOAD_FIELDS, values, result, runtimes=runtimes
        )
    messages.success(request, f"Uploaded {result}: {_status_sentence(result.status)}")
    return HttpResponseRedirect(f"/engines/{result.engine.name}/#version-{result.number}")


def _status_sentence(status: str) -> str:
    return {
        "pending": "it is waiting for validation (a handshake and a short game).",
        "validating": "it is being validated (a handshake and a short game).",
        "active": "it passed validation and may play.",
        "rejected": "it was rejected; the reason is below.",
    }.get(status, status)


def variant_field(name: str = "variant") -> Field:
    """The choice of variant (ids)."""
    return Field(
        name,
        "Variant",
        kind="select",
        required=True,
        choices=[(v, v) for v in VARIANTS],
        value=VARIANTS[0],
    )


def start_field(default: str = "standard") -> Field:
    """The choice of start positions: the standard start or a suite (``arena.openings``)."""
    suites = sorted({s for v in VARIANTS for s in start_choices(v)} - {"standard"})
    return Field(
        "start_suite",
        "Start positions",
        kind="select",
        value=default,
        choices=[("standard", "standard start"), *[(s, f"{s} suite") for s in suites]],
        help="Each match starts from the standard position, or from one drawn from a "
        "suite of balanced start positions.",
    )


CHALLENGE_ERRORS: FieldMap = {
    "engine_not_found": BOTH_ENGINES,
    "engine_not_yours": "engine",
    "engine_disabled": BOTH_ENGINES,
    "engine_not_active": BOTH_ENGINES,
    "variant_not_supported": BOTH_ENGINES,
    "same_engine": "opponent",
    "unknown_variant": "variant",
    "invalid_time_control": "time_control",
    "time_control_too_long": "time_control",
    "unknown_start_suite": "start_suite",
    "pairing_refused": BOTH_ENGINES,
}


def _challenge_fields(request: HttpRequest) -> list[Field]:
    mine = engine_selectors.engine_list(owner=request.user.get_username())
    return [
        Field(
            "engine",
            "Your engine",
            kind="select",
            required=True,
            choices=[(e.name, e.name) for e in mine],
            help="It plays its latest active version, South in game 1.",
        ),
        Field(
            "opponent",
            "Opponent engine",
            required=True,
            help="Any enabled engine's name; it plays its latest active version.",
        ),
        variant_field(),
        Field(
            "time_control",
            "Time control",
            value="10+0.1",
            required=True,
            help="Base seconds + increment seconds per move, e.g. 10+0.1.",
        ),
        start_field(),
        Field(
            "rated",
            "Rated (the games count for the ratings)",
            kind="checkbox",
            value="true",
            help="Only against the arena's bundled engines: a challenge of another user's "
            "engine is played casual (rated games between users' engines come from the ladder).",
        ),
    ]


@login_required
def challenge(request: HttpRequest) -> HttpResponse:
    """``/matches/new/``: challenge another engine with one of one's own (``?opponent=``)."""
    fields = _challenge_fields(request)
    if request.method != "POST":
        return form_page(
            request,
            "web/challenge.html",
            fields,
            {"opponent": request.GET.get("opponent", "")},
            None,
        )
    values = {
        k: request.POST.get(k, "")
        for k in ("engine", "opponent", "variant", "time_control", "start_suite")
    }
    # An unticked box is not posted at all: it means "false", where the API's default is true.
    values["rated"] = "true" if request.POST.get("rated") else "false"
    result = submit(
        request,
        scope="challenges",
        serializer=ChallengeInput,
        data=values,
        call=lambda d: match_challenge(user=request_user(request), **d),
        fields=CHALLENGE_ERRORS,
    )
    if isinstance(result, FormErrors):
        return form_page(request, "web/challenge.html", fields, values, result)
    note = f" It is played {result.rated_note}." if result.rated_note else ""
    messages.success(request, f"Challenge sent: match {result.pk} is queued.{note}")
    return HttpResponseRedirect(f"/matches/{result.pk}/")


TOURNAMENT_ERRORS: FieldMap = {
    "unknown_variant": "variant",
    "invalid_time_control": "time_control",
    "time_control_too_long": "time_control",
    "unknown_start_suite": "start_suite",
    "duplicate_engine": "engines",
    "too_few_engines": "engines",
    "engine_not_found": "engines",
    "engine_disabled": "engines",
    "engine_not_active": "engines",
    "variant_not_supported": "engines",
    "pairing_refused": "engines",
    "too_many_rounds": "rounds",
    "rounds_not_applicable": "rounds",
    "start_at_too_late": "start_at",
}


def _tournament_fields() -> list[Field]:
    return [
        Field("name", "Name", required=True),
        variant_field(),
        Field(
            "format",
            "Format",
            kind="select",
            value=DEFAULT_FORMAT,
            choices=format_choices(),
        ),
        Field(
            "rounds",
            "Rounds (Swiss only)",
            kind="number",
            help="Empty: the format's own number (a Swiss plays about log2 of the field).",
        ),
        Field(
            "engines",
            "Engines",
            required=True,
            help="Engine names separated by spaces or commas; in a gauntlet the first one "
            "meets every other.",
        ),
        Field(
            "time_control",
            "Time control",
            value="10+0.1",
            required=True,
            help="Base seconds + increment seconds per move, e.g. 10+0.1.",
        ),
        start_field(),
        Field(
            "start_at",
            "Start (UTC, optional)",
            kind="datetime-local",
            help="Empty: it starts within a minute.",
        ),
        Field(
            "rated",
            "Rated (the games count for the ratings)",
            kind="checkbox",
            value="true",
            help="Unless you are staff, only if every pairing the format may make has one of "
            "the arena's bundled engines; otherwise the tournament is played casual.",
        ),
    ]


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    """``/tournaments/new/``: create a tournament (``tournament_create``)."""
    fields = _tournament_fields()
    if request.method != "POST":
        return form_page(request, "web/tournament_new.html", fields, {}, None)
    values = {
        k: request.POST.get(k, "")
        for k in (
            "name",
            "variant",
            "format",
            "rounds",
            "engines",
            "time_control",
            "start_suite",
            "start_at",
        )
    }
    values["rated"] = "true" if request.POST.get("rated") else "false"
    data: dict[str, Any] = {**values, "engines": _names(values["engines"])}
    if values["start_at"]:
        data["start_at"] = _utc(values["start_at"])
    for optional in ("start_at", "rounds"):  # an empty field means "not given"
        if not values[optional]:
            data.pop(optional)
    result = submit(
        request,
        scope="tournaments",
        serializer=TournamentCreateInput,
        data=data,
        call=lambda d: tournament_services.tournament_create(**d, created_by=request_user(request)),
        fields=TOURNAMENT_ERRORS,
    )
    if isinstance(result, FormErrors):
        return form_page(request, "web/tournament_new.html", fields, values, result)
    note = f" It is played {result.rated_note}." if result.rated_note else ""
    messages.success(request, f"Tournament {result.name} created.{note}")
    return HttpResponseRedirect(f"/tournaments/{result.pk}/")


def _names(text: str) -> list[str]:
    return [n for n in re.split(r"[\s,]+", text) if n]


def _utc(text: str) -> str:
    """A ``datetime-local`` value (no zone) read as UTC, as ISO 8601 for the serializer."""
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return text  # the serializer says what is wrong with it, next to the field
    if timezone.is_naive(when):
        when = when.replace(tzinfo=dt.UTC)
    return when.isoformat()


@login_required
@require_POST
def tournament_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """``POST /tournaments/<id>/cancel/``: its creator (or staff) stops it early
    (``tournament_cancel_by``, as ``POST /api/tournaments/{id}/cancel/``)."""
    reason = request.POST.get("reason", "").strip()
    try:
        aborted = tournament_services.tournament_cancel_by(
            request_user(request), tournament_id, reason=reason or "cancelled by its creator"
        )
    except APIException as exc:  # not_found, tournament_not_yours, tournament_not_cancellable
        return refused(request, exc, f"tournament {tournament_id}")
    messages.success(
        request,
        f"The tournament is cancelled; {aborted} unfinished "
        f"match{'es' if aborted != 1 else ''} aborted.",
    )
    return HttpResponseRedirect(f"/tournaments/{tournament_id}/")


@login_required
@require_POST
def match_cancel(request: HttpRequest, match_id: int) -> HttpResponse:
    """``POST /matches/<id>/cancel/``: its challenger (or staff) stops it for good
    (``match_cancel_by``, as ``POST /api/matches/{id}/cancel/``)."""
    try:
        match_cancel_by(
            request_user(request), match_id, reason=request.POST.get("reason", "").strip()[:200]
        )
    except APIException as exc:  # not_found, permission_denied, match_not_cancellable
        return refused(request, exc, f"match {match_id}")
    messages.success(request, f"Match {match_id} is cancelled.")
    return HttpResponseRedirect(f"/matches/{match_id}/")
