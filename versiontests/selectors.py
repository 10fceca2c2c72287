"""Reads of version tests: lists, one test, its SPRT figures (computed from the stored counts)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db.models import Q, QuerySet

from ratings.stats.sprt import Decision, SprtParameters, SprtResult, sprt
from ratings.stats.sprt import Model as SprtModel
from versiontests.models import VersionTest, VersionTestPair


def version_test_parameters(test: VersionTest) -> SprtParameters:
    """The hypotheses of ``test`` as ``ratings.stats.sprt`` takes them (checked at creation, so
    this does not raise for a stored test)."""
    return SprtParameters(
        elo0=test.elo0,
        elo1=test.elo1,
        alpha=test.alpha,
        beta=test.beta,
        model=SprtModel(test.elo_model),
    )


log = logging.getLogger(__name__)


def version_test_figures(test: VersionTest) -> SprtResult:
    """LLR, bounds, decision so far, Elo estimate with its 95% interval and the likelihood of
    superiority, from the test's pentanomial counts (pairs from the new version's side) and
    W/D/L.

    Never raises: the statistics must not cost a played game (``services._count`` calls this
    while a pair is recorded). If the figures cannot be computed, the answer has ``llr`` and
    the estimates None, ``llr_note`` saying why, and decision ``continue``; the error is
    logged. ``settings.BAO_TEST_BREAK_SPRT`` (tests only) makes that happen every time.
    """
    params = version_test_parameters(test)
    counts = list(test.pentanomial)
    try:
        if getattr(settings, "BAO_TEST_BREAK_SPRT", False):
            raise ArithmeticError("BAO_TEST_BREAK_SPRT is set (a test's injected failure)")
        return sprt(counts, params, wdl=(test.wins, test.draws, test.losses))
    except Exception as exc:
        log.exception("version test %s: the SPRT figures failed for %s", test.pk, counts)
        return SprtResult(
            games=2 * sum(counts),
            wdl=(test.wins, test.draws, test.losses),
            pentanomial=tuple(counts),
            llr=None,
            lower=params.lower,
            upper=params.upper,
            decision=Decision.CONTINUE,
            elo=None,
            ci_low=None,
            ci_high=None,
            los=None,
            llr_note=f"the LLR could not be computed: {type(exc).__name__}: {exc}"[:200],
        )


def version_test_list(
    *,
    status: str | None = None,
    variant: str | None = None,
    engine: str | None = None,
    creator: str | None = None,
) -> QuerySet[VersionTest]:
    """Tests, newest first, with both versions and the creator loaded, filtered by ``status``,
    ``variant`` (an id), ``engine`` (a name on either side, any case) and ``creator`` (a
    username)."""
    qs = VersionTest.objects.select_related(
        "new_version__engine", "base_version__engine", "created_by"
    )
    if status:
        qs = qs.filter(status=status)
    if variant:
        qs = qs.filter(variant=variant)
    if engine:
        qs = qs.filter(
            Q(new_version__engine__name__iexact=engine)
            | Q(base_version__engine__name__iexact=engine)
        )
    if creator:
        qs = qs.filter(created_by__username=creator)
    return qs


def version_test_get(test_id: int) -> VersionTest | None:
    """The test ``test_id`` with its versions and creator, or None."""
    return version_test_list().filter(pk=test_id).first()


def version_test_recent_pairs(test: VersionTest, limit: int) -> list[VersionTestPair]:
    """The last ``limit`` pairs of ``test`` (newest first) with their match, its engines and
    its games' summaries: for the test's page."""
    from django.db.models import Prefetch

    from arena.matches.selectors import game_summaries

    return list(
        VersionTestPair.objects.filter(test=test)
        .select_related("match__engine_a__engine", "match__engine_b__engine")
        .prefetch_related(Prefetch("match__games", queryset=game_summaries()))
        .order_by("-index")[:limit]
    )
