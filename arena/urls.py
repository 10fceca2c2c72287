"""URL map: the REST API under /api/, the schema and interactive docs, admin, ``/metrics``
(Prometheus), the web pages.

Under /api/ every answer is JSON: the last API route catches unknown paths, and Django's error
handlers answer in the API's error shape there (``arena.api.handlers``).
"""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from arena.api import handlers
from arena.api.docs import DocsView
from arena.api.outages import healthz
from arena.metrics import metrics_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),  # Prometheus (arena.metrics)
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", DocsView.as_view(url_name="schema"), name="docs"),
    path("api/", include("arena.accounts.urls")),
    path("api/", include("engines.urls")),
    path("api/", include("arena.matches.urls")),
    path("api/", include("tournaments.urls")),
    path("api/", include("ratings.urls")),
    path("api/", include("ladder.urls")),
    path("api/", include("versiontests.urls")),
    path("api/", include("people.urls")),
    re_path(r"^api(?:/|$)", handlers.api_not_found, name=handlers.NOT_FOUND_ROUTE),
    path("", include("arena.web.urls")),
]

handler400 = handlers.handler400
handler403 = handlers.handler403
handler404 = handlers.handler404
handler500 = handlers.handler500
