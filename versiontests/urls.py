"""URL patterns of the version-test API (mounted under ``/api/``)."""

from django.urls import path

from versiontests import views

urlpatterns = [
    path("tests/", views.VersionTestListCreateApi.as_view(), name="version-test-list"),
    path("tests/<int:test_id>/", views.VersionTestDetailApi.as_view(), name="version-test-detail"),
    path("tests/<int:test_id>/stop/", views.VersionTestStopApi.as_view(), name="version-test-stop"),
]
