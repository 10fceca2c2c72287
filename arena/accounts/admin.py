"""Users are administered through Django's own admin (``django.contrib.auth``); API tokens
through django-rest-knox's (digests only: a key is never stored). This app adds no model."""
