"""URL patterns of the web pages (mounted at ``/``)."""

from django.urls import path

from arena.web import (
    accounts,
    actions,
    docs_pages,
    engine_pages,
    live_pages,
    pages,
    version_test_pages,
    views,
)

urlpatterns = [
    path("", pages.home, name="web-home"),
    path("engines/", pages.engine_list, name="web-engines"),
    path("engines/upload/", actions.upload, name="web-upload"),
    path("engines/<slug:name>/", engine_pages.engine_page, name="web-engine"),
    path("engines/<slug:name>/settings/", engine_pages.engine_settings, name="web-engine-settings"),
    path("engines/<slug:name>/ladder/", engine_pages.engine_ladder_keep, name="web-engine-ladder"),
    path("matches/", pages.match_list, name="web-matches"),
    path("matches/new/", actions.challenge, name="web-challenge"),
    path("matches/<int:match_id>/", pages.match_page, name="web-match"),
    path("matches/<int:match_id>/cancel/", actions.match_cancel, name="web-match-cancel"),
    path("tournaments/", pages.tournament_list, name="web-tournaments"),
    path("tournaments/new/", actions.tournament_new, name="web-tournament-new"),
    path("tournaments/<int:tournament_id>/", pages.tournament_page, name="web-tournament"),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        actions.tournament_cancel,
        name="web-tournament-cancel",
    ),
    path("tests/", version_test_pages.test_list, name="web-tests"),
    path("tests/new/", version_test_pages.test_new, name="web-test-new"),
    path("tests/<int:test_id>/", version_test_pages.test_page, name="web-test"),
    path("tests/<int:test_id>/stop/", version_test_pages.test_stop, name="web-test-stop"),
    path("games/<int:game_id>/", views.game_replay, name="web-game"),
    path("live/", live_pages.live_list, name="web-live-list"),
    path("live/<int:live_id>/", live_pages.live_game, name="web-live"),
    path("tv/", live_pages.tv, name="web-tv"),
    path("rules/", docs_pages.rules_index, name="web-rules"),
    path("rules/<slug:variant>/", docs_pages.rules_page, name="web-rules-variant"),
    path("docs/", docs_pages.docs_index, name="web-docs"),
    path("docs/<slug:slug>/", docs_pages.doc_page, name="web-doc"),
    path("docs/data/<str:name>", docs_pages.doc_data, name="web-doc-data"),
    path("accounts/signup/", accounts.signup, name="web-signup"),
    path("accounts/login/", accounts.login_page, name="web-login"),
    path("accounts/logout/", accounts.logout_page, name="web-logout"),
]
