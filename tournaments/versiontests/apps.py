from django.apps import AppConfig


class VersionTestsConfig(AppConfig):
    name = "tournaments.versiontests"
    label = "versiontests"
    verbose_name = "version tests"
