from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        # The refit is requested once a rated result is committed (arena.matches.events): a
        # rolled-back match requests nothing, and nothing of the fit runs while recording.
        from arena.matches.events import Phase, subscribe_match_ended
        from ratings.services import head_to_head_recorded, ratings_match_ended

        # The head-to-head counts a refit reads commit or roll back with the games.
        subscribe_match_ended(head_to_head_recorded, phase=Phase.IN_TRANSACTION)
        subscribe_match_ended(ratings_match_ended, phase=Phase.AFTER_COMMIT)
