"""URL patterns of the tournaments API (mounted under ``/api/``)."""

from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.TournamentListCreateApi.as_view(), name="tournament-list"),
    path(
        "tournaments/<int:tournament_id>/",
        views.TournamentDetailApi.as_view(),
        name="tournament-detail",
    ),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        views.TournamentCancelApi.as_view(),
        name="tournament-cancel",
    ),
    path(
        "tournaments/<int:tournament_id>/trf/",
        views.TournamentTrfApi.as_view(),
        name="tournament-trf",
    ),
]
