"""The project-level Django app: commands that drive several apps at once (``manage.py demo``,
``manage.py setup_periodic_tasks``). It sits above the apps and below nothing but the settings
and URL conf; no app imports it."""
