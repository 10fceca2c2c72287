"""Input and output serializers of the version-test API (no logic: the service checks)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from arena.api.filters import VariantField
from arena.api.serializers import BodySerializer
from arena.openings import DEFAULT_SUITE
from engines.models import EngineVersion
from ratings.stats.sprt import Model as SprtModel
from versiontests.models import VersionTest, VersionTestPair
from versiontests.selectors import version_test_figures
from versiontests.services import DEFAULT_MAX_PAIRS, MAX_PAIRS_LIMIT


class VersionTestCreateInput(BodySerializer):
    """``POST /api/tests/``: ``engine`` v``version`` (default: latest active) against
    ``base_engine`` (default: the same engine) v``base_version`` (default: the latest active
    version below the new one). The bounds and error rates are checked by the service, which
    answers with the SPRT's stable codes (``invalid_sprt_bounds``, ``invalid_sprt_error_rate``).
    """

    engine = serializers.CharField(max_length=64)
    version = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    base_engine = serializers.CharField(max_length=64, required=False, allow_null=True)
    base_version = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    variant = serializers.CharField(max_length=64)
    time_control = serializers.CharField(max_length=32, default="10+0.1")
    model = serializers.ChoiceField(choices=[m.value for m in SprtModel], default="logistic")
    elo0 = serializers.FloatField()
    elo1 = serializers.FloatField()
    alpha = serializers.FloatField(default=0.05)
    beta = serializers.FloatField(default=0.05)
    max_pairs = serializers.IntegerField(
        min_value=1, max_value=MAX_PAIRS_LIMIT, default=DEFAULT_MAX_PAIRS
    )
    start_suite = serializers.CharField(max_length=64, default=DEFAULT_SUITE)
    rated = serializers.BooleanField(default=False)


class VersionTestStopInput(BodySerializer):
    """``POST /api/tests/{id}/stop/``: no fields (an empty object, or no body at all)."""


class VersionTestListQuery(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=VersionTest.Status.choices, required=False)
    variant = VariantField(required=False)
    engine = serializers.CharField(required=False, max_length=64)
    creator = serializers.CharField(required=False, max_length=150)


def _version_ref(version: EngineVersion) -> dict[str, Any]:
    return {"id": version.pk, "engine": version.engine.name, "version": version.number}


def _time(value: Any) -> str | None:
    return None if value is None else serializers.DateTimeField().to_representation(value)


def version_test_data(test: VersionTest, *, detail: bool = False) -> dict[str, Any]:
    """The JSON of a test: settings, status, decision and the SPRT figures (LLR and its bounds,
    ``llr`` None with ``llr_note`` if it cannot be computed; ``elo`` with ``ci_low``/``ci_high``,
    the 95% interval, in the model's unit, an end None when unbounded with ``ci_note`` saying
    why, and ``los``, the likelihood of superiority in [0, 1], all None before the first pair).
    ``detail`` adds the pentanomial, W/D/L, the LLR after each pair (``llr_history``) and the
    pairs in flight."""
    figures = version_test_figures(test)
    data: dict[str, Any] = {
        "id": test.pk,
        "new": _version_ref(test.new_version),
        "base": _version_ref(test.base_version),
        "created_by": test.created_by.get_username() if test.created_by else None,
        "variant": test.variant,
        "time_control": test.time_control,
        "start_suite": test.start_suite,
        "model": test.elo_model,
        "unit": "Elo" if test.elo_model == SprtModel.LOGISTIC else "nElo",
        "elo0": test.elo0,
        "elo1": test.elo1,
        "alpha": test.alpha,
        "beta": test.beta,
        "max_pairs": test.max_pairs,
        "rated": test.rated,
        "rated_note": test.rated_note or None,
        "status": test.status,
        "decision": test.decision or None,
        "stop_reason": test.stop_reason,
        "pairs": test.pairs_counted,
        "llr": figures.llr,
        "llr_note": figures.llr_note,
        "lower": figures.lower,
        "upper": figures.upper,
        "elo": figures.elo,
        "ci_low": figures.ci_low,
        "ci_high": figures.ci_high,
        "ci_note": figures.ci_note,
        "los": figures.los,
        "created_at": _time(test.created_at),
        "finished_at": _time(test.finished_at),
    }
    if detail:
        data |= {
            "pentanomial": list(test.pentanomial),
            "wins": test.wins,
            "draws": test.draws,
            "losses": test.losses,
            "pairs_void": test.pairs_void,
            "pairs_pending": test.pairs.filter(state=VersionTestPair.State.PENDING).count(),
            "llr_history": list(test.llr_history),
        }
    return data
