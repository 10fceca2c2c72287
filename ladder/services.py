"""The ladder: rated play that runs itself, per variant (docs/ladder.md).

Who is on a variant's ladder (``ladder_members``), topping up its queue of rated ladder matches
(``ladder_fill``: run by a minute beat job and after every recorded match) and an owner keeping
an older version on it (``ladder_keep``). Who meets whom is decided by the pure matchmaker
(``ladder.matchmaking``) from the whole-history fit (``Rating`` rows); the matches are
created through the matches service in the dispatcher's lowest class
(``Match.Priority.RATED_PLAY``), so every other kind of match goes first.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, TextField
from django.db.models.functions import Cast

from arena.api.errors import ApiError, UnknownVariant
from arena.matches import selectors as match_selectors
from arena.matches.events import MatchEnded
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.openings import DEFAULT_SUITE
from arena.rules import VARIANTS, UnknownVariantError, canonical_variant_id
from engines.consent import Chooser, pair_casual_note
from engines.errors import EngineNotFound, EngineNotYours, EngineVersionNotFound
from engines.models import Engine, EngineVersion, RatedPairing
from engines.selectors import engine_by_name
from ladder.matchmaking import PLACEMENT_MATCHES, LadderEntry, choose_pairings
from ladder.models import LadderKeep, LadderMatch, LadderState
from ratings.models import Rating

LOG = logging.getLogger(__name__)

OPEN = (Match.Status.PENDING, Match.Status.RUNNING)
#: The task that tops up every variant's ladder, sharing the free slots (``ladder.tasks``,
#: under the name it had in the tournaments app), sent by name after every match.
LADDER_FILL_TASK = "tournaments.tasks.ladder_fill_all"


def ladder_variant(variant: str) -> str:
    """The variant id for an id or alias; raises ``UnknownVariant`` (400 ``unknown_variant``)."""
    try:
        return canonical_variant_id(variant)
    except UnknownVariantError as exc:
        raise UnknownVariant(
            str(exc), details={"variant": str(variant)[:40], "known": list(VARIANTS)}
        ) from None


def ladder_time_control(variant: str) -> str:
    """The ladder's time control for ``variant`` (``BAO_LADDER_TIME_CONTROL``)."""
    return str(settings.BAO_LADDER_TIME_CONTROL)


#: What an engine must be for its versions to be on a ladder: enabled, and its owner lets it
#: play automatic rated play (``consent_ladder``, rated pairing by anyone).
LADDER_ENGINE = {"is_enabled": True, "consent_ladder": True, "consent_rated": RatedPairing.ANYONE}


def ladder_members(variant: str) -> list[EngineVersion]:
    """The engine versions on ``variant``'s ladder (an id or alias), by id.

    Every engine that is ``LADDER_ENGINE`` is on it with its newest version that is active for
    the variant, plus the older active versions its owner keeps on (``LadderKeep``). Raises
    ``UnknownVariant``.
    """
    variant = ladder_variant(variant)
    playing = (
        EngineVersion.objects.filter(
            status=EngineVersion.Status.ACTIVE,
            **{f"engine__{key}": value for key, value in LADDER_ENGINE.items()},
        )
        .annotate(variants_text=Cast("variants", TextField()))
        .filter(variants_text__contains=f'"{variant}"')
        .select_related("engine", "engine__owner")
        .order_by("engine_id", "-number")
    )
    kept = set(LadderKeep.objects.values_list("engine_version_id", flat=True))
    return sorted(_on_ladder(playing, kept), key=lambda v: v.pk)


def _on_ladder(playing: Iterable[EngineVersion], kept: set[int]) -> list[EngineVersion]:
    """Of ``playing`` (active versions playing one variant, of ``LADDER_ENGINE`` engines, by
    engine then newest first), those on its ladder: each engine's first, and the kept ones."""
    members: list[EngineVersion] = []
    seen: set[int] = set()
    for version in playing:
        if version.engine_id not in seen or version.pk in kept:
            members.append(version)
        seen.add(version.engine_id)
    return members


def ladder_kept_versions(engine_id: int) -> set[int]:
    """The ids of the versions of an engine that its owner keeps on the ladder (one query)."""
    return set(
        LadderKeep.objects.filter(engine_version__engine_id=engine_id).values_list(
            "engine_version_id", flat=True
        )
    )


def engine_ladder_variants(
    engine: Engine, versions: Iterable[EngineVersion], kept: set[int]
) -> dict[int, list[str]]:
    """Version id -> the variants (ids, in ``VARIANTS`` order) whose ladder it is on now, by
    ``ladder_members``' rule, for one engine whose ``versions`` are loaded and whose kept
    versions are ``kept`` (``ladder_kept_versions``); no query. Versions on no ladder are
    left out (all of them when the engine is not ``LADDER_ENGINE``)."""
    if any(getattr(engine, key) != value for key, value in LADDER_ENGINE.items()):
        return {}
    newest_first = sorted(
        (v for v in versions if v.status == EngineVersion.Status.ACTIVE),
        key=lambda v: -v.number,
    )
    on: dict[int, list[str]] = {}
    for variant in VARIANTS:
        playing = [v for v in newest_first if variant in (v.variants or [])]
        for version in _on_ladder(playing, kept):
            on.setdefault(version.pk, []).append(str(variant))
    return on


def _history(
    variant: str, members: set[int]
) -> tuple[Counter[int], dict[int, int], Counter[frozenset[Hashable]], set[int]]:
    """Per member: ladder matches (not aborted), last opponent; matches per pair; members now
    in an open ladder match."""
    matches: Counter[int] = Counter()
    last: dict[int, int] = {}
    met: Counter[frozenset[Hashable]] = Counter()
    engaged: set[int] = set()
    rows = (
        LadderMatch.objects.filter(variant=variant)
        .filter(Q(match__engine_a__in=members) | Q(match__engine_b__in=members))
        .exclude(match__status=Match.Status.ABORTED)
        .order_by("created_at", "id")
        .values_list("match__engine_a_id", "match__engine_b_id", "match__status")
    )
    for a, b, status in rows:
        for x, y in ((a, b), (b, a)):
            matches[x] += 1
            last[x] = y
            if status in OPEN:
                engaged.add(x)
        met[frozenset((a, b))] += 1
    return matches, last, met, engaged


def ladder_entries(
    variant: str,
    members: list[EngineVersion],
    matches: Counter[int],
    last: dict[int, int],
) -> list[LadderEntry]:
    """The matchmaker's view of the members: fitted rating and interval, ladder matches
    (``matches``), placement owed, last opponent (``last``; both from ``_history``)."""
    ratings = {
        r.engine_version_id: r
        for r in Rating.objects.filter(variant=variant, engine_version__in=members)
    }
    entries = []
    for version in members:
        row = ratings.get(version.pk)
        fitted = None
        if row is not None and None not in (row.rating, row.low, row.high):
            fitted = (float(row.rating or 0), (float(row.high or 0) - float(row.low or 0)) / 2)
        entries.append(
            LadderEntry(
                key=version.pk,
                rating=fitted[0] if fitted else 1500.0,
                half_width=fitted[1] if fitted else None,
                matches=matches[version.pk],
                placement_left=max(0, PLACEMENT_MATCHES - matches[version.pk]),
                last_opponent=last.get(version.pk),
            )
        )
    return entries


def ladder_wanted() -> int:
    """How many ladder matches to add now: the live workers' free slots less every match
    already waiting (of any class), so the ladder fills idle capacity and builds no backlog."""
    slots = match_selectors.live_slots()
    open_matches = Match.objects.filter(status__in=OPEN).count()
    return max(0, slots - open_matches)


def ladder_fill(variant: str, *, most: int | None = None) -> list[int]:
    """Create the ladder matches ``variant`` should have queued now (at most ``most``, when
    given); returns their match ids.

    Serialized per variant (the variant's ``LadderState`` row is locked), so two runs never pair
    the same engine twice. A pairing the matches service refuses (an engine disabled a moment
    ago) is skipped and logged. Nothing is made while ``BAO_LADDER_ENABLED`` is off in this
    process, nor while the variant's ladder is paused (``ladder_pause``, read under the lock).
    Raises ``UnknownVariant`` for an unknown variant.
    """
    variant = ladder_variant(variant)
    if not settings.BAO_LADDER_ENABLED:
        return []
    with transaction.atomic():
        if _locked_state(variant).paused:
            return []
        wanted = ladder_wanted() if most is None else min(most, ladder_wanted())
        if wanted <= 0:
            return []
        members = ladder_members(variant)
        by_id = {v.pk: v for v in members}
        matches, last, met, engaged = _history(variant, set(by_id))
        entries = [
            e for e in ladder_entries(variant, members, matches, last) if e.key not in engaged
        ]
        if len(entries) < 2:
            return []
        placing = {e.key for e in entries if e.placement_left > 0}
        made = LadderMatch.objects.filter(variant=variant).count()
        rng = random.Random(f"bao-arena/ladder/{variant}/{made}")

        def compatible(a: Hashable, b: Hashable) -> bool:
            engine_a, engine_b = by_id[int(str(a))].engine, by_id[int(str(b))].engine
            return pair_casual_note(engine_a, engine_b, Chooser.ARENA) is None

        created: list[int] = []
        for a, b in choose_pairings(entries, wanted, rng, met, compatible):
            engine_a, engine_b = by_id[int(str(a))], by_id[int(str(b))]
            try:
                with transaction.atomic():
                    match = match_create(
                        engine_a=engine_a,
                        engine_b=engine_b,
                        variant=variant,
                        time_control=ladder_time_control(variant),
                        rated=True,
                        start_suite=DEFAULT_SUITE,
                        priority=Match.Priority.RATED_PLAY,
                    )
                    LadderMatch.objects.create(
                        match=match, variant=variant, placement=bool({a, b} & placing)
                    )
            except ApiError as exc:
                LOG.warning("ladder %s: %s vs %s not created: %s", variant, a, b, exc)
                continue
            created.append(match.pk)
    if created:
        LOG.info("ladder %s: created matches %s", variant, created)
    return created


def ladder_pause(variant: str, *, paused: bool = True) -> None:
    """Pause (or resume, ``paused=False``) the ladder of ``variant`` for every process: a
    switch in the database, so a worker topping the ladder up after a match reads it too.

    Taken under the same row lock as ``ladder_fill``: once this returns, every fill that ran
    before has committed its matches and no later one makes any, so the caller may abort the
    ladder's pending matches knowing no new one follows (``manage.py demo --ladder``). Raises
    ``UnknownVariant``.
    """
    variant = ladder_variant(variant)
    with transaction.atomic():
        state = _locked_state(variant)
        state.paused = paused
        state.save(update_fields=["paused"])


def _locked_state(variant: str) -> LadderState:
    """The ``LadderState`` row of ``variant`` (made if missing), locked until the transaction
    ends: the lock that serializes a variant's fills and its pause."""
    LadderState.objects.get_or_create(variant=variant)
    return LadderState.objects.select_for_update().get(variant=variant)


def ladder_enabled(variant: str) -> bool:
    """Whether the ladder of ``variant`` makes matches: ``BAO_LADDER_ENABLED`` (this process's
    setting) and not paused (``ladder_pause``). Raises ``UnknownVariant``."""
    variant = ladder_variant(variant)
    return (
        bool(settings.BAO_LADDER_ENABLED)
        and not LadderState.objects.filter(variant=variant, paused=True).exists()
    )


def ladder_match_ended(event: MatchEnded) -> None:
    """``MatchEnded`` subscriber (after commit): a match ended, so a worker slot is free; send
    ``ladder_fill_all``, which gives it to whichever variant's ladder is owed it (not only the
    ended match's: one busy variant would keep the others waiting). A broker failure is logged
    (the minute job fills)."""
    from arena.celery import registered_task  # not at module level: it resolves the broker

    try:
        registered_task(LADDER_FILL_TASK).apply_async()
    except Exception:  # broker down: the minute job tops the ladder up
        LOG.warning("ladder: fill task not sent after match %s", event.match_id, exc_info=True)


def ladder_fill_all() -> dict[str, list[int]]:
    """Top up every variant's ladder, sharing the free slots among the variants: one match at
    a time, to the variant with the fewest open ladder matches, then the fewest ladder matches
    made so far, then ``VARIANTS`` order, until no slot is free or no variant can pair two
    engines. So one variant with many engines cannot take every slot while another's engines
    (a new version owed its placement matches there) wait. Returns variant -> match ids made.
    (The beat job, every minute, and the task sent after every match.)"""
    made: dict[str, list[int]] = {variant: [] for variant in VARIANTS}
    if not settings.BAO_LADDER_ENABLED:
        return made
    # (open, made so far) per variant, read once and kept up to date as matches are made.
    rows = LadderMatch.objects.values("variant").annotate(
        total=Count("pk"), open=Count("pk", filter=Q(match__status__in=OPEN))
    )
    load = {variant: (0, 0) for variant in VARIANTS}
    load.update({r["variant"]: (r["open"], r["total"]) for r in rows})
    stuck: set[str] = set()
    while len(stuck) < len(VARIANTS) and ladder_wanted() > 0:
        variant = min(
            (v for v in VARIANTS if v not in stuck),
            key=lambda v: (*load[v], VARIANTS.index(v)),
        )
        created = ladder_fill(variant, most=1)
        if created:
            made[variant] += created
            opened, total = load[variant]
            load[variant] = (opened + len(created), total + len(created))
        else:
            stuck.add(variant)  # nobody to pair (or paused): the next variant gets the slot
    return made


def ladder_keep(*, user: Any, engine_name: str, number: int, keep: bool) -> EngineVersion:
    """Keep (or stop keeping) an older version of the caller's engine on the ladder.

    Raises ``EngineNotFound`` (404 ``engine_not_found``), ``EngineVersionNotFound`` (404
    ``engine_version_not_found``): the body names them (docs/api-errors.md, "Which not
    found"), or ``EngineNotYours`` (403 ``engine_not_yours``).
    """
    engine: Engine | None = engine_by_name(engine_name)
    if engine is None:
        raise EngineNotFound(
            f"no engine named {engine_name!s:.64}.", details={"engine": str(engine_name)[:64]}
        )
    version = EngineVersion.objects.filter(engine=engine, number=number).first()
    if version is None:
        raise EngineVersionNotFound(
            f"{engine.name} has no version {number}.",
            details={"engine": engine.name, "version": number},
        )
    if engine.owner_id != getattr(user, "pk", None):
        raise EngineNotYours(f"{engine.name} is not your engine.", details={"engine": engine.name})
    if keep:
        LadderKeep.objects.get_or_create(engine_version=version)
    else:
        LadderKeep.objects.filter(engine_version=version).delete()
    return version


def ladder_state(variant: str) -> dict[str, Any]:
    """What the ladder of ``variant`` looks like now (``GET /api/ladder/``): whether it makes
    matches (``enabled``: ``ladder_enabled``), its time control, the engines on it (rating,
    interval, ladder matches, placement owed, whether it plays now), its matches queued and
    running, and the worker slots.

    Raises ``UnknownVariant``.
    """
    variant = ladder_variant(variant)
    members = ladder_members(variant)
    matches, last, _, engaged = _history(variant, {v.pk for v in members})
    entries = {e.key: e for e in ladder_entries(variant, members, matches, last)}
    open_ladder = Counter(
        LadderMatch.objects.filter(variant=variant, match__status__in=OPEN).values_list(
            "match__status", flat=True
        )
    )
    engines: list[dict[str, Any]] = []
    for version in members:
        e = entries[version.pk]
        engines.append(
            {
                "engine": version.engine.name,
                "version": version.number,
                "owner": version.engine.owner.username,
                "rating": None if e.half_width is None else round(e.rating, 1),
                "margin": None if e.half_width is None else round(e.half_width, 1),
                "ladder_matches": e.matches,
                "placement_left": e.placement_left,
                "playing": version.pk in engaged,
            }
        )
    engines.sort(key=lambda r: (r["rating"] is None, -float(r["rating"] or 0), str(r["engine"])))
    return {
        "variant": variant,
        "enabled": ladder_enabled(variant),
        "time_control": ladder_time_control(variant),
        "start_suite": DEFAULT_SUITE,
        "engines": engines,
        "matches": {
            "queued": open_ladder.get(Match.Status.PENDING, 0),
            "running": open_ladder.get(Match.Status.RUNNING, 0),
        },
        "slots": {
            "total": match_selectors.live_slots(),
            "busy": Match.objects.filter(status=Match.Status.RUNNING).count(),
        },
    }
