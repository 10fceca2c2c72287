"""Users and tokens are administered through Django's own admin (``django.contrib.auth`` and
``rest_framework.authtoken`` register them); this app adds no model of its own."""
