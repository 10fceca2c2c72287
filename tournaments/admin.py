"""Admin pages for tournaments, entries, ratings and rating changes (read mostly)."""

from django.contrib import admin

from tournaments.models import Tournament, TournamentEntry


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
