from django.apps import AppConfig


class ProjectConfig(AppConfig):
    """The project level: management commands that span the apps (``demo``,
    ``setup_periodic_tasks``). No models."""

    name = "arena.project"
    label = "project"
