"""URL patterns of the web page (mounted at ``/``)."""

from django.urls import path

from arena.web import views

urlpatterns = [
    path("", views.home, name="web-home"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="web-tournament"),
    path("games/<int:game_id>/", views.game_replay, name="web-game"),
    path("live/", views.live_list, name="web-live-list"),
    path("live/<int:live_id>/", views.live_game, name="web-live"),
]
