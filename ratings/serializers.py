"""Input and output serializers of the ratings API: the leaderboard and an engine's rating
history."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from arena.api.filters import VariantField
from arena.rules import VARIANTS
from ratings.models import Rating, RatingPoint


class LeaderboardQuery(serializers.Serializer[Any]):
    """``?variant=`` is required: ratings of different games are not comparable, and a missing
    variant once silently meant Bao la Kete."""

    variant = VariantField(
        help_text=f"Variant id or alias: {', '.join(VARIANTS)}.",
        error_messages={
            "required": f"Name the variant: one of {', '.join(VARIANTS)} (or an alias).",
            "blank": f"Name the variant: one of {', '.join(VARIANTS)} (or an alias).",
        },
    )
    provisional = serializers.BooleanField(required=False, allow_null=True, default=None)


class LeaderboardRowOutput(serializers.ModelSerializer[Rating]):
    """One leaderboard line: a version's place in the latest whole-history fit (Elo).

    ``low``/``high`` bound the 95% interval and ``margin`` is its half-width; ``bound`` is
    ``">"`` when the rating is only a lower bound (the version won every game against those
    below it: ``high`` and ``margin`` are null), ``"<"`` for an upper bound (``low`` and
    ``margin`` null), null otherwise; ``score`` is points per game (0..1); ``superiority`` is
    the likelihood (0..1) that this version is stronger than the next one down the variant's
    full list (null for the last, or when either is a bound); ``provisional`` while the rating
    is a bound or rests on fewer than 30 rated games, ``provisional_reason`` says which (empty
    when established); ``prior`` is true exactly when ``bound`` is set (kept for clients of the
    weak prior that bounds replaced).
    """

    rank = serializers.IntegerField(read_only=True)
    engine = serializers.CharField(source="engine_version.engine.name")
    version = serializers.IntegerField(source="engine_version.number")
    engine_version_id = serializers.IntegerField()
    rating = serializers.SerializerMethodField()
    low = serializers.SerializerMethodField()
    high = serializers.SerializerMethodField()
    margin = serializers.SerializerMethodField()
    bound = serializers.SerializerMethodField()
    points = serializers.FloatField()
    score = serializers.SerializerMethodField()
    superiority = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields = [
            "rank",
            "engine",
            "version",
            "engine_version_id",
            "variant",
            "rating",
            "low",
            "high",
            "margin",
            "bound",
            "games",
            "wins",
            "draws",
            "losses",
            "points",
            "score",
            "superiority",
            "provisional",
            "provisional_reason",
            "prior",
            "updated_at",
        ]

    def get_rating(self, obj: Rating) -> float:
        return _elo(obj.rating)

    def get_low(self, obj: Rating) -> float | None:
        return None if obj.low is None else round(obj.low, 1)

    def get_high(self, obj: Rating) -> float | None:
        return None if obj.high is None else round(obj.high, 1)

    def get_margin(self, obj: Rating) -> float | None:
        if obj.low is None or obj.high is None:
            return None
        return round((obj.high - obj.low) / 2, 1)

    def get_bound(self, obj: Rating) -> str | None:
        return obj.bound or None

    def get_score(self, obj: Rating) -> float | None:
        return round(obj.points / obj.games, 4) if obj.games else None

    def get_superiority(self, obj: Rating) -> float | None:
        return None if obj.superiority is None else round(obj.superiority, 4)


def _elo(value: float | None) -> float:
    # Rows listed on the leaderboard are rated (selectors.leaderboard): never None here.
    return round(value or 0.0, 1)


class LeaderboardExcludedOutput(serializers.ModelSerializer[Rating]):
    """A version with rated games that the fit did not rate, and why."""

    engine = serializers.CharField(source="engine_version.engine.name")
    version = serializers.IntegerField(source="engine_version.number")
    engine_version_id = serializers.IntegerField()
    reason = serializers.CharField(source="excluded_reason")

    class Meta:
        model = Rating
        fields = ["engine", "version", "engine_version_id", "games", "reason"]


class LeaderboardOutput(serializers.Serializer[Any]):
    """``GET /api/leaderboard/``: a page of rows best first, plus the versions the fit left out
    and when the variant was last fitted (null before its first refit)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LeaderboardRowOutput(many=True)
    excluded = LeaderboardExcludedOutput(many=True)
    fitted_at = serializers.DateTimeField(allow_null=True)


class RatingHistoryQuery(serializers.Serializer[Any]):
    variant = VariantField(required=False)


class RatingPointOutput(serializers.ModelSerializer[RatingPoint]):
    """One point of an engine's rating history: the version's fitted rating (Elo, with its 95%
    interval) after one match, as of the first refit that included the match; ``games`` and
    ``points`` are its rated games and points in that match."""

    version = serializers.IntegerField(source="engine_version.number")
    opponent = serializers.CharField(source="opponent.engine.name")
    opponent_version = serializers.IntegerField(source="opponent.number")

    class Meta:
        model = RatingPoint
        fields = [
            "match_id",
            "variant",
            "version",
            "opponent",
            "opponent_version",
            "games",
            "points",
            "rating",
            "low",
            "high",
            "finished_at",
            "fitted_at",
        ]
