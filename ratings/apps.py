from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        # The head-to-head counts a refit reads and the refit request commit or roll back with
        # the games (arena.matches.events); the refit task is sent after commit, and nothing
        # of the fit runs while recording.
        from arena.matches.events import Phase, subscribe_match_ended
        from ratings.services import ratings_match_recording

        subscribe_match_ended(ratings_match_recording, phase=Phase.IN_TRANSACTION)
