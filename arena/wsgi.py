"""WSGI entry point (gunicorn arena.wsgi)."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
application = get_wsgi_application()

# What is loaded now (Django, the apps, the URL resolver: about 170,000 objects) lives as long as
# the worker; moved out of the collector's generations, a full collection no longer walks it. A
# full collection every few requests cost a 48-engine tournament page 120-150 ms of its p95
# (benchmarks/README.md, bench_service.py).
gc.freeze()
