from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web pages: templates in ``templates/web/``, static files in ``static/web/``."""

    name = "arena.web"
    label = "web"
