from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        # The refit is requested once a rated result is committed (arena.matches.events): a
        # rolled-back match requests nothing, and nothing of the fit runs while recording.
        from arena.matches.events import Phase, subscribe_match_ended
        from ratings.services import ratings_match_ended

        subscribe_match_ended(ratings_match_ended, phase=Phase.AFTER_COMMIT)
