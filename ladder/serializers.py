"""Input and output serializers of the ladder API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from arena.api.filters import VariantField
from arena.api.serializers import BodySerializer
from arena.rules import VARIANTS


class LadderQuery(serializers.Serializer[Any]):
    """``GET /api/ladder/?variant=``: a variant id or alias (required)."""

    variant = VariantField(help_text=f"Variant id or alias: {', '.join(VARIANTS)}.")


class LadderEngineOutput(serializers.Serializer[Any]):
    engine = serializers.CharField()
    version = serializers.IntegerField()
    owner = serializers.CharField()
    rating = serializers.FloatField(allow_null=True, help_text="Fitted Elo; null: not rated yet")
    margin = serializers.FloatField(allow_null=True, help_text="Half the 95% interval, Elo")
    ladder_matches = serializers.IntegerField()
    placement_left = serializers.IntegerField()
    playing = serializers.BooleanField(help_text="In a ladder match queued or running now")


class LadderMatchesOutput(serializers.Serializer[Any]):
    queued = serializers.IntegerField()
    running = serializers.IntegerField()


class LadderSlotsOutput(serializers.Serializer[Any]):
    total = serializers.IntegerField(help_text="Match slots of the live workers")
    busy = serializers.IntegerField(help_text="Matches running now (any kind)")


class LadderOutput(serializers.Serializer[Any]):
    """The ladder of one variant (``ladder.services.ladder_state``)."""

    variant = serializers.CharField()
    enabled = serializers.BooleanField(
        help_text="Whether the ladder makes matches now: false when switched off on this "
        "service (BAO_LADDER_ENABLED) or paused for this variant"
    )
    time_control = serializers.CharField()
    start_suite = serializers.CharField()
    engines = LadderEngineOutput(many=True)
    matches = LadderMatchesOutput()
    slots = LadderSlotsOutput()


class LadderKeepInput(BodySerializer):
    """Keep (``keep: true``) or stop keeping an older version of your engine on the ladder."""

    engine = serializers.SlugField(max_length=64)
    version = serializers.IntegerField(min_value=1)
    keep = serializers.BooleanField()
