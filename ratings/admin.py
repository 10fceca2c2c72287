from django.contrib import admin

from ratings.models import Rating, RatingPoint, RatingPool


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = [
        "engine_version",
        "variant",
        "rating",
        "low",
        "high",
        "bound",
        "games",
        "wins",
        "draws",
        "losses",
        "provisional",
        "provisional_reason",
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
