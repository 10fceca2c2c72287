"""Admin pages for tournaments, entries, ratings and rating changes (read mostly)."""

from django.contrib import admin

from tournaments.models import Rating, RatingPoint, RatingPool, Tournament, TournamentEntry


class TournamentEntryInline(admin.TabularInline[TournamentEntry, Tournament]):
    model = TournamentEntry
    extra = 0
    raw_id_fields = ["engine_version"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    list_display = [
        "id",
        "name",
        "variant",
        "time_control",
        "format",
        "status",
        "start_at",
        "finished_at",
    ]
    list_filter = ["status", "variant", "format"]
    search_fields = ["name"]
    inlines = [TournamentEntryInline]


@admin.register(TournamentEntry)
class TournamentEntryAdmin(admin.ModelAdmin[TournamentEntry]):
    list_display = ["tournament", "seed_no", "engine_version"]
    raw_id_fields = ["tournament", "engine_version"]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = [
        "engine_version",
        "variant",
        "rating",
        "low",
        "high",
        "games",
        "wins",
        "draws",
        "losses",
        "provisional",
        "excluded_reason",
    ]
    list_filter = ["variant", "provisional"]
    search_fields = ["engine_version__engine__name"]


@admin.register(RatingPoint)
class RatingPointAdmin(admin.ModelAdmin[RatingPoint]):
    list_display = [
        "match",
        "engine_version",
        "opponent",
        "variant",
        "games",
        "points",
        "rating",
        "fitted_at",
    ]
    list_filter = ["variant"]
    raw_id_fields = ["match", "engine_version", "opponent"]


@admin.register(RatingPool)
class RatingPoolAdmin(admin.ModelAdmin[RatingPool]):
    list_display = [
        "variant",
        "requested",
        "fitted",
        "refit_queued",
        "fitted_at",
        "games",
        "rated",
        "excluded",
        "fit_ms",
    ]
