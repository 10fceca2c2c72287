"""URL patterns of the ratings API (mounted under ``/api/``)."""

from django.urls import path

from ratings import views

urlpatterns = [
    path("leaderboard/", views.LeaderboardApi.as_view(), name="leaderboard"),
    path(
        "engines/<slug:name>/ratings/",
        views.EngineRatingHistoryApi.as_view(),
        name="engine-ratings",
    ),
]
