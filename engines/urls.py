"""URL patterns of this app."""

urlpatterns: list = []
