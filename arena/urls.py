"""URL map: the REST API under /api/, the schema and interactive docs, admin, the web page."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/", include("arena.accounts.urls")),
    path("api/", include("engines.urls")),
    path("api/", include("arena.matches.urls")),
    path("api/", include("tournaments.urls")),
    path("", include("arena.web.urls")),
]
