"""Admin of matches and games (read-mostly: results come from workers, not from forms)."""

from __future__ import annotations

from django.contrib import admin

from arena.matches.models import Game, Match

_GAME_FIELDS = ("index", "south", "north", "result", "termination", "rated", "plies", "finished_at")


class GameInline(admin.TabularInline[Game, Match]):
    model = Game
    fields = _GAME_FIELDS
    readonly_fields = _GAME_FIELDS
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = [
        "id",
        "variant",
        "time_control",
        "engine_a",
        "engine_b",
        "status",
        "score_a",
        "score_b",
        "attempts",
        "tournament",
        "created_at",
        "finished_at",
    ]
    list_filter = ["status", "variant", "rated"]
    search_fields = ["engine_a__engine__name", "engine_b__engine__name"]
    list_select_related = ["engine_a__engine", "engine_b__engine", "tournament"]
    readonly_fields = [
        "lease_token",
        "lease_expires_at",
        "queued_at",
        "attempts",
        "started_at",
        "finished_at",
        "score_a",
        "score_b",
        "winner",
        "error",
    ]
    raw_id_fields = ["engine_a", "engine_b", "tournament", "challenger"]
    inlines = [GameInline]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = [
        "id",
        "match",
        "index",
        "south",
        "north",
        "result",
        "termination",
        "rated",
        "plies",
    ]
    list_filter = ["termination", "rated", "result"]
    list_select_related = ["match", "south__engine", "north__engine"]
    raw_id_fields = ["match", "south", "north", "winner"]
    readonly_fields = ["moves", "engine_errors"]
