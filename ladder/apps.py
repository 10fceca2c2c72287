from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"

    def ready(self) -> None:
        # The ladder tops up once a result is committed (arena.matches.events): a slot is free.
        from arena.matches.events import Phase, subscribe_match_ended
        from ladder.services import ladder_match_ended

        subscribe_match_ended(ladder_match_ended, phase=Phase.AFTER_COMMIT)
