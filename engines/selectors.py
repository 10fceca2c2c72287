"""Engine registry reads (HackSoft style: selectors read, services write)."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet, TextField
from django.db.models.functions import Cast
from django_stubs_ext import WithAnnotations

from arena.api import errors as api_errors
from arena.api.filters import variant_id
from engines import errors
from engines.models import Engine, EngineVersion, WorkerRuntimes

#: Seconds after its last presence update that a worker's runtimes still count (three
#: presence periods of ``arena.worker_hooks.PRESENCE_S``, as the queue view's workers).
RUNTIMES_STALE_S = 30


def engine_list(
    *,
    owner: str | None = None,
    variant: str | None = None,
    enabled: bool | None = None,
    bundled: bool | None = None,
    search: str | None = None,
) -> QuerySet[Engine]:
    """Engines with their owner and versions prefetched, filtered:

    ``owner`` (exact username), ``variant`` (a variant id or alias: engines with an ``active``
    version that plays it), ``enabled``/``bundled`` (flags), ``search`` (case-insensitive
    substring of the name). Raises ``UnknownVariant`` for a variant that is neither an id nor an
    alias (``arena.rules.canonical_variant_id``).
    """
    qs = Engine.objects.select_related("owner").prefetch_related(
        Prefetch("versions", queryset=EngineVersion.objects.order_by("number"))
    )
    if owner:
        qs = qs.filter(owner__username=owner)
    if variant:
        qs = qs.filter(pk__in=_engines_playing(variant))
    if enabled is not None:
        qs = qs.filter(is_enabled=enabled)
    if bundled is not None:
        qs = qs.filter(is_bundled=bundled)
    if search:
        qs = qs.filter(name__icontains=search.strip())
    return qs


def _engines_playing(variant: str) -> QuerySet[WithAnnotations[EngineVersion], int]:
    variant = variant_id(variant)
    # JSON 'contains' is not available on SQLite; the ids are fixed slugs, so a text match on
    # the JSON list ('"bao-la-kete"' with its quotes) is exact on SQLite and PostgreSQL alike.
    return (
        EngineVersion.objects.filter(status=EngineVersion.Status.ACTIVE)
        .annotate(variants_text=Cast("variants", TextField()))
        .filter(variants_text__contains=f'"{variant}"')
        .values_list("engine_id", flat=True)
    )


def engine_by_name(name: str) -> Engine | None:
    """The engine called ``name`` in any case (``ALICE1`` is ``alice1``), or None.

    Engine names are one name whatever the case: an upload of ``Alpha`` adds a version to
    ``alpha`` (``services.engine_version_create``), so every lookup of a name a client gives
    (paths, challenges, tournament entries, filters) goes through here.
    """
    return Engine.objects.filter(name__iexact=name).first()


def engine_version_ids(name: str) -> list[int]:
    """The ids of every version of the engine called ``name`` in any case (``[]`` if none):
    one query, for filters of large tables by engine (``?engine=`` of the match list)."""
    return list(
        EngineVersion.objects.filter(engine__name__iexact=name)
        .order_by("id")
        .values_list("id", flat=True)
    )


# --------------------------------------------------------------------------- who may play


def engine_named(name: str) -> Engine:
    """``engine_by_name`` or ``EngineNotFound`` (404 ``engine_not_found``)."""
    engine = engine_by_name(name)
    if engine is None:
        raise errors.EngineNotFound(f"no engine named {name!r}.", details={"engine": name})
    return engine


def latest_playable_version(engine: Engine) -> EngineVersion:
    """The version of ``engine`` a new match or tournament entry uses: its latest ``active``
    one. Raises ``EngineDisabled`` (409, disabled by its owner) or ``EngineNotActive`` (409, no
    active version)."""
    if not engine.is_enabled:
        raise errors.EngineDisabled(
            f"engine {engine.name} is disabled by its owner.", details={"engine": engine.name}
        )
    version = engine.latest_active_version()
    if version is None:
        raise errors.EngineNotActive(
            f"{engine.name!r} has no active version.", details={"engine": engine.name}
        )
    return version


def playability_error(version: EngineVersion, variant: str) -> errors.ApiError | None:
    """Why ``version`` may not play a new game of ``variant`` (a canonical id), or None if it
    may: ``EngineDisabled`` (its engine disabled by its owner), ``EngineNotActive`` (the version
    is not ``active``), ``VariantNotSupported`` (not announced in its handshake). Returned, not
    raised, so that a beat job can skip a pairing without catching API errors."""
    engine = version.engine
    if not engine.is_enabled:
        return errors.EngineDisabled(
            f"engine {engine.name} is disabled by its owner.", details={"engine": engine.name}
        )
    if version.status != EngineVersion.Status.ACTIVE:
        return errors.EngineNotActive(
            f"{version} is not active (status {version.status}).",
            details={"engine": engine.name, "version": version.number},
        )
    if variant not in (version.variants or []):
        return errors.VariantNotSupported(
            f"{version} does not play {variant} "
            f"(it announced: {', '.join(version.variants or []) or 'none'}).",
            details={"engine": engine.name, "variant": variant},
        )
    return None


def check_playable(version: EngineVersion, variant: str) -> None:
    """Raise ``playability_error(version, variant)`` if there is one."""
    error = playability_error(version, variant)
    if error is not None:
        raise error


def engine_get(name: str) -> Engine:
    """The engine called ``name`` (any case) with owner and versions.

    Raises ``NotFoundError`` (404 ``not_found``, ``details.engine``): for a name in a URL path.
    A name in a request body that names no engine is ``engine_not_found`` instead (the matches
    and tournaments services).
    """
    engine = engine_list().filter(name__iexact=name).first()
    if engine is None:
        raise api_errors.NotFoundError(f"No engine named {name!r}.", details={"engine": name})
    return engine


def engine_for_owner(name: str, user: Any) -> Engine:
    """The engine ``name`` (any case) if ``user`` owns it. Raises ``not_found`` or
    ``EngineNotYours`` (403)."""
    engine = engine_get(name)
    if engine.owner_id != getattr(user, "pk", None):
        raise errors.EngineNotYours(details={"engine": engine.name})
    return engine


def version_visible_rejection_log(version: EngineVersion, user: Any) -> str | None:
    """The stderr tail of a rejected ``version`` if ``user`` may read it (the engine's owner,
    or staff), else None. Stderr can reveal an engine's internals, as game engine errors do
    (``arena.matches.selectors.game_visible_engine_errors``)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if getattr(user, "is_staff", False) or version.engine.owner_id == user.pk:
        return version.rejection_log
    return None


def version_get(engine: Engine, number: int) -> EngineVersion:
    """Version ``number`` of ``engine``. Raises ``not_found``."""
    version = (
        EngineVersion.objects.select_related("engine").filter(engine=engine, number=number).first()
    )
    if version is None:
        raise api_errors.NotFoundError(
            f"Engine {engine.name!r} has no version {number}.",
            details={"engine": engine.name, "version": number},
        )
    return version


def live_worker_runtimes() -> list[WorkerRuntimes]:
    """The probed runtimes of each worker seen in the last ``RUNTIMES_STALE_S`` seconds, by
    worker name."""
    from datetime import timedelta

    from django.utils import timezone

    since = timezone.now() - timedelta(seconds=RUNTIMES_STALE_S)
    return list(WorkerRuntimes.objects.filter(last_seen__gte=since).order_by("worker"))


def runtimes_offered() -> dict[str, list[dict[str, Any]]]:
    """What ``GET /api/runtimes/`` answers: ``runtimes``, each distinct ``{name, version,
    command}`` some live worker offers (in the order of the promised table,
    ``engines.sandbox.runtimes.RUNTIMES``, then by version), and ``workers``, ``{name,
    runtimes}`` of each live worker. Both empty while no worker is running."""
    from engines.sandbox.runtimes import RUNTIME_NAMES

    workers = live_worker_runtimes()
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in workers:
        for runtime in row.runtimes:
            key = (runtime["name"], runtime["version"], runtime["command"])
            seen.setdefault(key, runtime)

    def order(key: tuple[str, str, str]) -> tuple[int, str]:
        name = key[0]
        return (RUNTIME_NAMES.index(name) if name in RUNTIME_NAMES else len(RUNTIME_NAMES), key[1])

    return {
        "runtimes": [seen[key] for key in sorted(seen, key=order)],
        "workers": [{"name": row.worker, "runtimes": row.runtimes} for row in workers],
    }


def offered_runtime_names() -> set[str]:
    """The names of the runtimes at least one live worker offers (``python``, ``java``...)."""
    return {runtime["name"] for row in live_worker_runtimes() for runtime in row.runtimes}


def missing_runtime(programs: list[str]) -> errors.RuntimeMissing | None:
    """The error for the first of ``programs`` (``engines.sandbox.runtimes.required_programs``)
    whose runtime of the promised table no live worker offers, or None: every such runtime is
    offered, no live worker has recorded a runtime yet (nothing is known: a worker whose sandbox
    cannot start engines records none, and its validations wait), or the programs are outside
    the table (only a worker can tell whether it has ``perl``: validation decides)."""
    from engines.sandbox.runtimes import runtime_for

    workers = [row for row in live_worker_runtimes() if row.runtimes]
    if not workers:
        return None
    offered = {runtime["name"] for row in workers for runtime in row.runtimes}
    for program in programs:
        runtime = runtime_for(program)
        if runtime is not None and runtime not in offered:
            return runtime_missing_error(runtime, program, sorted(offered))
    return None


def runtime_missing_error(runtime: str, program: str, offered: list[str]) -> errors.RuntimeMissing:
    """``RuntimeMissing`` naming ``runtime`` (a name of the table, or the program itself for
    one outside it), the ``program`` the command starts and the runtimes ``offered``."""
    what = runtime if runtime == program else f"{runtime} ({program})"
    return errors.RuntimeMissing(
        f"The engine's command needs {what}, which no worker offers "
        f"(offered: {', '.join(offered) or 'none'}; see docs/runtimes.md).",
        details={"runtime": runtime, "program": program, "offered": offered},
    )
