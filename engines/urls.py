"""Engine URLs under /api/engines/, and /api/runtimes/ (what workers offer engines)."""

from django.urls import path

from engines import views

urlpatterns = [
    path("engines/", views.EngineListCreateView.as_view(), name="engine-list"),
    path("runtimes/", views.RuntimesView.as_view(), name="runtimes"),
    path("engines/<slug:name>/", views.EngineDetailView.as_view(), name="engine-detail"),
    path(
        "engines/<slug:name>/versions/<int:number>/",
        views.EngineVersionDetailView.as_view(),
        name="engine-version-detail",
    ),
    path(
        "engines/<slug:name>/versions/<int:number>/download/",
        views.EngineVersionDownloadView.as_view(),
        name="engine-version-download",
    ),
]
