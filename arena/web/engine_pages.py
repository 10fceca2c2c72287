"""The engine page ``/engines/<name>/`` and what its owner does there.

Everyone sees the versions with their validation outcome, the current ratings and the rating
history (SVG drawn here, ``arena.web.charts``), head-to-head records and recent games. Only
the owner sees the stderr logs (as the API: ``version_visible_rejection_log``,
``game_visible_engine_errors``; staff read logs too, but get no owner controls) and the
owner's controls: enable/disable, consent settings (the ladder among them), keeping an older
version on the ladder, upload a new version. Everyone sees which ladders each version is on.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from arena.api.errors import NotFoundError
from arena.matches import selectors as match_selectors
from arena.web.charts import ChartPoint, rating_chart
from arena.web.forms import Field, FieldMap, FormErrors, bind, submit
from arena.web.views import not_found, refused
from engines import selectors, services
from engines.consent import consent_of
from engines.models import ChallengeConsent, Engine, EngineVersion, RatedPairing
from engines.serializers import EngineUpdateInputSerializer
from ladder import services as ladder_services
from ladder.serializers import LadderKeepInput
from people import selectors as people_selectors
from ratings import selectors as rating_selectors

RECENT_GAMES = 15

#: The owner's consent settings (``engines.consent``), as ``PATCH /api/engines/{name}/`` takes
#: them under ``consent``.
CONSENT_FIELDS = (
    Field(
        "rated_pairing",
        "Rated games",
        kind="select",
        choices=[
            (RatedPairing.ANYONE, "anyone may pair it in rated games"),
            (RatedPairing.OWN_EVENTS, "only my own challenges and tournaments"),
        ],
    ),
    Field(
        "challenges",
        "Challenges from other users",
        kind="select",
        choices=[
            (ChallengeConsent.ALL, "accept all"),
            (ChallengeConsent.UNRATED, "accept unrated challenges only"),
            (ChallengeConsent.NONE, "accept none"),
        ],
    ),
    Field("ladder", "Plays automatic rated games (the ladder)", kind="checkbox"),
    Field("version_tests", "Other users may test their versions against it", kind="checkbox"),
    Field("people", "Signed-in people may play it in the browser (casual)", kind="checkbox"),
)


def is_owner(request: HttpRequest, engine: Engine) -> bool:
    """Whether the viewer owns ``engine`` (and so sees its logs and owner controls)."""
    return bool(request.user.is_authenticated and request.user.pk == engine.owner_id)


def engine_page(request: HttpRequest, name: str) -> HttpResponse:
    """``/engines/<name>/`` (any case); an unknown name is the styled 404 page."""
    try:
        engine = selectors.engine_get(name)
    except NotFoundError:
        return not_found(request, f"There is no engine named {name!r}.")
    return render_engine(request, engine)


def render_engine(
    request: HttpRequest, engine: Engine, errors: FormErrors | None = None
) -> HttpResponse:
    """The engine page, with the ``errors`` of an owner's settings form on top (answered with
    their status)."""
    owner = is_owner(request, engine)
    user = request.user
    versions = list(engine.versions.all())  # prefetched by engine_get, in number order
    kept = ladder_services.ladder_kept_versions(engine.pk)
    on_ladder = ladder_services.engine_ladder_variants(engine, versions, kept)
    newest_active = max(
        (v.number for v in versions if v.status == EngineVersion.Status.ACTIVE), default=None
    )
    version_rows = [
        {
            "v": v,
            "log": selectors.version_visible_rejection_log(v, user),
            "ladder": on_ladder.get(v.pk, []),
            "kept": v.pk in kept,
            # The newest active version is on by default; an older active one may be kept on,
            # and a kept one taken off.
            "may_keep": owner
            and (
                v.pk in kept
                or (v.status == EngineVersion.Status.ACTIVE and v.number != newest_active)
            ),
        }
        for v in reversed(versions)
    ]
    sees_errors = owner or bool(getattr(user, "is_staff", False))
    games = list(match_selectors.engine_games(engine.pk, with_errors=sees_errors)[:RECENT_GAMES])
    game_rows = [
        {
            "g": g,
            "errors": match_selectors.game_visible_engine_errors(g, user) if sees_errors else {},
        }
        for g in games
    ]
    pending = [
        v.number
        for v in versions
        if v.status in (EngineVersion.Status.PENDING, EngineVersion.Status.VALIDATING)
    ]
    return render(
        request,
        "web/engine.html",
        {
            "engine": engine,
            "owner": owner,
            "versions": version_rows,
            "latest": versions[-1] if versions else None,
            "pending": pending,
            "ratings": list(rating_selectors.engine_current_ratings(engine_id=engine.pk)),
            "charts": rating_charts(engine),
            "h2h": match_selectors.engine_head_to_head(engine.pk),
            "games": game_rows,
            "person_games": people_selectors.games_of_engine(engine.pk),
            "settings_errors": errors.all_messages() if errors else [],
            "ladder_off": _ladder_off_reason(engine),
            "consent_fields": bind(
                CONSENT_FIELDS,
                {
                    k: str(v).lower() if isinstance(v, bool) else v
                    for k, v in consent_of(engine).items()
                },
            )
            if owner
            else [],
        },
        status=errors.status if errors else 200,
    )


def rating_charts(engine: Engine) -> list[dict[str, Any]]:
    """One chart per variant the engine is rated in, a line (with its 95% band) per version."""
    by_variant: dict[str, dict[int, list[ChartPoint]]] = defaultdict(lambda: defaultdict(list))
    for p in rating_selectors.engine_rating_points(engine_id=engine.pk):
        by_variant[p.variant][p.version].append(ChartPoint(p.finished_at, p.rating, p.low, p.high))
    charts = []
    for variant in sorted(by_variant):
        series = [
            (f"{engine.name} v{number}", points)
            for number, points in sorted(by_variant[variant].items())
        ]
        chart = rating_chart(series, subject=f"Rating history of {engine.name} in {variant}")
        charts.append({"variant": variant, "chart": chart, "slug": variant})
    return charts


@login_required
@require_POST
def engine_settings(request: HttpRequest, name: str) -> HttpResponse:
    """``POST /engines/<name>/settings/``: the owner enables or disables the engine, or sets
    its consent (``form=consent``) (``PATCH /api/engines/{name}/``: the same serializer and
    service)."""
    try:
        engine = selectors.engine_for_owner(name, request.user)
    except APIException as exc:  # not_found, engine_not_yours
        return refused(request, exc, f"engine named {name!r}")
    data: dict[str, Any] = {
        k: request.POST[k] for k in ("is_enabled", "description") if k in request.POST
    }
    if request.POST.get("form") == "consent":
        data["consent"] = {
            "rated_pairing": request.POST.get("rated_pairing", ""),
            "challenges": request.POST.get("challenges", ""),
            # An unticked box is not posted at all: it means "no".
            "ladder": bool(request.POST.get("ladder")),
            "version_tests": bool(request.POST.get("version_tests")),
            "people": bool(request.POST.get("people")),
        }
    result = submit(
        request,
        scope=None,
        serializer=EngineUpdateInputSerializer,
        data=data,
        call=lambda d: services.engine_update(engine=engine, **d),
        fields={},
    )
    if isinstance(result, FormErrors):
        return render_engine(request, selectors.engine_get(name), result)
    if "is_enabled" in data:
        messages.success(
            request, f"{engine.name} is now {'enabled' if result.is_enabled else 'disabled'}."
        )
    else:
        messages.success(request, f"The consent settings of {engine.name} are saved.")
    return HttpResponseRedirect(f"/engines/{engine.name}/")


def _ladder_off_reason(engine: Engine) -> str:
    """Why none of the engine's versions is on a ladder whatever it plays ("" if it may be)."""
    if not engine.is_enabled:
        return "it is disabled"
    if not engine.consent_ladder:
        return "its owner keeps it out of automatic rated play"
    if engine.consent_rated != RatedPairing.ANYONE:
        return "its owner lets it play rated games only in their own challenges and tournaments"
    return ""


#: Where the errors of ``POST /api/ladder/keep/`` go: the form has no field but the version.
LADDER_KEEP_ERRORS: FieldMap = {"not_found": "version"}


@login_required
@require_POST
def engine_ladder_keep(request: HttpRequest, name: str) -> HttpResponse:
    """``POST /engines/<name>/ladder/`` (``version``, ``keep`` true or false): the owner keeps
    an older version on the ladder or takes it off (``POST /api/ladder/keep/``: the same
    serializer and service)."""
    try:
        engine = selectors.engine_for_owner(name, request.user)
    except APIException as exc:  # not_found, engine_not_yours
        return refused(request, exc, f"engine named {name!r}")
    data = {
        "engine": engine.name,
        "version": request.POST.get("version", ""),
        "keep": request.POST.get("keep", ""),
    }
    result = submit(
        request,
        scope=None,
        serializer=LadderKeepInput,
        data=data,
        call=lambda d: (
            ladder_services.ladder_keep(
                user=request.user, engine_name=d["engine"], number=d["version"], keep=d["keep"]
            ),
            bool(d["keep"]),
        ),
        fields=LADDER_KEEP_ERRORS,
    )
    if isinstance(result, FormErrors):
        return render_engine(request, selectors.engine_get(name), result)
    version, keep = result
    messages.success(
        request,
        f"v{version.number} of {engine.name} is "
        f"{'kept on' if keep else 'no longer kept on'} the ladder.",
    )
    return HttpResponseRedirect(f"/engines/{engine.name}/#version-{version.number}")
