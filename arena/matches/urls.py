"""URL patterns of the matches API (included under ``/api/``)."""

from django.urls import path

from arena.matches import views

urlpatterns = [
    path("matches/", views.MatchListView.as_view(), name="match-list"),
    path("matches/<int:pk>/", views.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<int:pk>/cancel/", views.MatchCancelView.as_view(), name="match-cancel"),
    path("queue/", views.QueueView.as_view(), name="queue"),
    path("games/export/", views.GameExportView.as_view(), name="game-export"),
    path("games/<int:pk>/", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:pk>/record.txt", views.GameRecordView.as_view(), name="game-record"),
    path("live/", views.LiveGameListView.as_view(), name="live-list"),
    path("live/<int:pk>/", views.LiveGameDetailView.as_view(), name="live-detail"),
    path("live/<int:pk>/events", views.live_events, name="live-events"),
]
