"""URL patterns of people's games (mounted under ``/api/``)."""

from django.urls import path

from people import views

urlpatterns = [
    path("play/", views.PlayStartApi.as_view(), name="play-start"),
    path("play/<int:game_id>/", views.PlayDetailApi.as_view(), name="play-detail"),
    path("play/<int:game_id>/move/", views.PlayMoveApi.as_view(), name="play-move"),
    path("play/<int:game_id>/events", views.play_events, name="play-events"),
    path("play/<int:game_id>/resign/", views.PlayResignApi.as_view(), name="play-resign"),
]
