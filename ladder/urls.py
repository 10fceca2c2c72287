"""URL patterns of the ladder API (mounted under ``/api/``)."""

from django.urls import path

from ladder import views

urlpatterns = [
    path("ladder/", views.LadderApi.as_view(), name="ladder"),
    path("ladder/keep/", views.LadderKeepApi.as_view(), name="ladder-keep"),
]
