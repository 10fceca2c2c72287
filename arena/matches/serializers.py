"""Input and output serializers of the matches API, one per operation (no logic here)."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from arena.api.filters import MAX_ID, VariantField
from arena.api.serializers import BodySerializer
from arena.matches.gamerecord import game_moves
from arena.matches.models import Game, LiveGame, Match
from arena.matches.replay import moves_with_traces
from arena.matches.selectors import (
    EXPORT_MAX_GAMES,
    game_visible_engine_errors,
    queue_position,
    replay_cached,
)


class EngineVersionRefOutput(serializers.Serializer[Any]):
    """An engine version as other resources show it: ``{"id", "engine", "version", "label"}``."""

    id = serializers.IntegerField()
    engine = serializers.CharField(source="engine.name")
    version = serializers.IntegerField(source="number")
    # DRF's serializer metaclass takes declared fields off the class, so this does not replace
    # Field.label at run time; the stubs cannot express that.
    label = serializers.CharField(source="__str__")  # type: ignore[assignment]

    def to_representation(self, instance: Any) -> dict[str, Any]:
        # The fields above say the shape (schema); this builds it directly: a list of 50
        # matches shows up to 150 of these, and DRF's generic path (a signature inspection
        # per callable source) was a third of the list's time.
        return {
            "id": instance.pk,
            "engine": instance.engine.name,
            "version": instance.number,
            "label": str(instance),
        }


class GameSummaryOutput(serializers.ModelSerializer[Game]):
    south = EngineVersionRefOutput()
    north = EngineVersionRefOutput()
    winner = EngineVersionRefOutput(allow_null=True)

    class Meta:
        model = Game
        fields = [
            "id",
            "index",
            "south",
            "north",
            "winner",
            "result",
            "termination",
            "rated",
            "plies",
            "scores",
            "finished_at",
        ]


class MatchListOutput(serializers.ModelSerializer[Match]):
    engine_a = EngineVersionRefOutput()
    engine_b = EngineVersionRefOutput()
    winner = EngineVersionRefOutput(allow_null=True)
    tournament: serializers.PrimaryKeyRelatedField[Model] = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The tournament's id; null for a challenge."
    )
    rated_note = serializers.SerializerMethodField(
        help_text="Why a request for rated games was played casual (a stable text), else null."
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "variant",
            "time_control",
            "engine_a",
            "engine_b",
            "seed",
            "best_of",
            "start_suite",
            "start_position",
            "rated",
            "rated_note",
            "tournament",
            "round",
            "status",
            "attempts",
            "score_a",
            "score_b",
            "winner",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]

    @extend_schema_field({"type": "string", "nullable": True})
    def get_rated_note(self, match: Match) -> str | None:
        return match.rated_note or None


class MatchDetailOutput(MatchListOutput):
    """A match with its games; ``queue_position`` (pending matches only, else null) is its
    place in the dispatcher's order, 1 = next (an estimate: shares change as matches run);
    ``priority`` the dispatch class."""

    games = GameSummaryOutput(many=True, read_only=True)
    queue_position = serializers.SerializerMethodField()
    priority = serializers.CharField(source="get_priority_display")

    class Meta(MatchListOutput.Meta):
        fields = [*MatchListOutput.Meta.fields, "priority", "queue_position", "games"]

    def get_queue_position(self, match: Match) -> int | None:
        return queue_position(match)


class MatchCancelInput(BodySerializer):
    """``POST /api/matches/{id}/cancel/``: an optional reason (kept in the match's error)."""

    reason = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class QueueOutput(serializers.Serializer[Any]):
    """``GET /api/queue/`` (``selectors.queue_snapshot``)."""

    slots = serializers.DictField()
    running = serializers.ListField(child=serializers.DictField())
    pending = serializers.ListField(child=serializers.DictField())
    pending_count = serializers.IntegerField()
    time_loss = serializers.ListField(child=serializers.DictField(), required=False)


class MoveOutput(serializers.Serializer[Any]):
    """One ply of a replay: ``time_ms`` thinking time (ms), ``clock_ms`` the mover's clock after
    the move (ms), ``position`` the BPN/KPN after it, ``info`` the engine's info lines."""

    ply = serializers.IntegerField()
    side = serializers.CharField()
    move = serializers.CharField()
    time_ms = serializers.IntegerField()
    clock_ms = serializers.IntegerField()
    position = serializers.CharField()
    info = serializers.ListField(child=serializers.CharField(), required=False)
    trace = serializers.JSONField(
        allow_null=True,
        help_text=(
            "The sowing of the move from the rules engine (arena.rules.trace): move, side,"
            " direction, ended, laps ['c2(2)->e2', ...] and steps [{op, square, count, hand,"
            " ...}] in order; null if the stored text cannot be traced."
        ),
    )


class GameReplayOutput(serializers.ModelSerializer[Game]):
    """The replay of a game. ``engine_errors`` holds only the sides the viewer owns."""

    match: serializers.PrimaryKeyRelatedField[Match] = serializers.PrimaryKeyRelatedField(
        read_only=True
    )
    variant = serializers.CharField(source="match.variant")
    time_control = serializers.CharField(source="match.time_control")
    south = EngineVersionRefOutput()
    north = EngineVersionRefOutput()
    winner = EngineVersionRefOutput(allow_null=True)
    moves = serializers.SerializerMethodField()
    engine_errors = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "match",
            "index",
            "variant",
            "time_control",
            "south",
            "north",
            "winner",
            "result",
            "termination",
            "rated",
            "plies",
            "start_position",
            "final_position",
            "moves",
            "scores",
            "seeds_in_hand",
            "engine_errors",
            "detail",
            "started_at",
            "duration_ms",
            "finished_at",
        ]

    @extend_schema_field(MoveOutput(many=True))
    def get_moves(self, game: Game) -> Any:
        if self.context.get("moves_as_json"):
            return MOVES_PLACEHOLDER  # the view puts replay_moves_json(game) in its place
        return json.loads(replay_moves_json(game))

    def get_engine_errors(self, game: Game) -> dict[str, Any]:
        request = self.context.get("request")
        return game_visible_engine_errors(game, getattr(request, "user", None))


#: What ``GameReplayOutput`` puts for ``moves`` when its context has ``moves_as_json``: a
#: string no field before ``moves`` can hold (the rendering replaces its first occurrence).
MOVES_PLACEHOLDER = "\u0000replay-moves\u0000"


def replay_moves_json(game: Game) -> bytes:
    """The ``moves`` of ``game``'s replay (``MoveOutput`` each, with its ``trace``) as the
    API's JSON renders them, computed once per game and kept in the cache
    (``selectors.replay_cached``: a stored game never changes; tracing 300 plies
    and rendering the 0.5 MB of JSON cost about 100 ms, issue 32)."""

    def build() -> bytes:
        moves = moves_with_traces(game.match.variant, game.start_position, game_moves(game))
        return bytes(JSONRenderer().render(MoveOutput(moves, many=True).data))

    return replay_cached(game, "api-moves", build)


class GameExportQuery(serializers.Serializer[Any]):
    """The query of ``GET /api/games/export/`` (every parameter optional)."""

    engine = serializers.CharField(
        required=False, max_length=64, help_text="engine name (either side, any case)"
    )
    tournament = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    test = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="version test id"
    )
    variant = VariantField(required=False)
    since = serializers.IntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=MAX_ID,
        help_text="only games with an id above this one (the last id of the previous page)",
    )
    limit = serializers.IntegerField(
        required=False,
        default=EXPORT_MAX_GAMES,
        min_value=1,
        max_value=EXPORT_MAX_GAMES,
        help_text=f"at most this many games (default and most: {EXPORT_MAX_GAMES})",
    )

    def to_internal_value(self, data: Any) -> Any:
        """DRF's, after refusing (400 ``invalid``, naming the parameter) a parameter given
        twice (``limit=1&limit=3``: which one was meant?) or given empty (``tournament=``
        would otherwise drop the filter and export every game)."""
        problems: dict[str, list[str]] = {}
        lists = data.lists() if hasattr(data, "lists") else ((k, [v]) for k, v in data.items())
        for name, values in lists:
            if name not in self.fields:
                continue
            if len(values) > 1:
                problems[name] = [f"given {len(values)} times: give it once"]
            elif str(values[0]).strip() == "":
                problems[name] = ["empty: give a value or leave the parameter out"]
        if problems:
            raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class ChallengeInput(BodySerializer):
    """``POST /api/matches/``: the caller's engine (by name) against another engine (by name);
    each plays its latest active version."""

    engine = serializers.SlugField(max_length=64)
    opponent = serializers.SlugField(max_length=64)
    variant = VariantField()
    time_control = serializers.CharField(max_length=32, default="10+0.1")
    rated = serializers.BooleanField(default=True)
    # "standard" or a suite of start positions (arena.openings); checked by the service, which
    # answers unknown_start_suite with the known choices.
    start_suite = serializers.CharField(max_length=64, default="standard")


class LiveGameListOutput(serializers.ModelSerializer[LiveGame]):
    """A game being played: who, where, how far (``plies``)."""

    match: serializers.PrimaryKeyRelatedField[Match] = serializers.PrimaryKeyRelatedField(
        read_only=True
    )
    variant = serializers.CharField(source="match.variant")
    time_control = serializers.CharField(source="match.time_control")
    south = EngineVersionRefOutput()
    north = EngineVersionRefOutput()
    plies = serializers.SerializerMethodField()

    class Meta:
        model = LiveGame
        fields = [
            "id",
            "match",
            "index",
            "variant",
            "time_control",
            "south",
            "north",
            "status",
            "plies",
            "started_at",
            "updated_at",
        ]

    def get_plies(self, live: LiveGame) -> int:
        return int(getattr(live, "plies", 0))  # the selectors' annotation


class LiveGameOutput(LiveGameListOutput):
    """A live game with its moves from ply ``since`` + 1 on (each with its ``trace``), its
    ``status`` (``running``, ``finished``, ``aborted``), result once ended, and ``game``: the
    id of the stored replay once the match is recorded, else null."""

    moves = serializers.SerializerMethodField()
    since = serializers.SerializerMethodField()
    game = serializers.SerializerMethodField()

    class Meta(LiveGameListOutput.Meta):
        fields = [
            *LiveGameListOutput.Meta.fields,
            "result",
            "termination",
            "detail",
            "start_position",
            "since",
            "moves",
            "game",
        ]

    def get_since(self, live: LiveGame) -> int:
        return min(int(self.context.get("since", 0)), len(self.context.get("moves", [])))

    @extend_schema_field(MoveOutput(many=True))
    def get_moves(self, live: LiveGame) -> list[dict[str, Any]]:
        moves = self.context.get("moves", [])  # selectors.live_moves, read by the view
        since = self.get_since(live)
        traced = moves_with_traces(live.match.variant, live.start_position, moves, since)
        return MoveOutput(traced, many=True).data  # type: ignore[return-value]

    def get_game(self, live: LiveGame) -> int | None:
        return self.context.get("game_id")


class LiveGameInput(serializers.Serializer[Any]):
    """``GET /api/live/{id}/?since=N``: only the moves after ply N (default 0: all)."""

    since = serializers.IntegerField(min_value=0, default=0)
