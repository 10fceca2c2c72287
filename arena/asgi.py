"""ASGI entry point (``uvicorn arena.asgi:application``): the server of the live games' event
streams (``GET /api/live/{id}/events``, docs/live.md), which holds many long requests on one
event loop where gunicorn's sync workers hold one each. It serves the whole site, so
``./demo.sh --serve`` runs on it alone; docker-compose routes only the streams to it."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
application = get_asgi_application()
