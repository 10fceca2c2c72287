from django.apps import AppConfig


class VersionTestsConfig(AppConfig):
    name = "versiontests"
    label = "versiontests"
    verbose_name = "version tests"

    def ready(self) -> None:
        # A pair is counted in the transaction that records its match, so the count commits or
        # rolls back with the games (arena.matches.events).
        from arena.matches.events import Phase, subscribe_match_ended
        from versiontests.services import version_test_match_event

        subscribe_match_ended(version_test_match_event, phase=Phase.IN_TRANSACTION)
