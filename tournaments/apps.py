from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        # Tournament progress must agree with the recorded result: it runs in the recording
        # transaction. The ladder's top-up waits until the result is committed
        # (arena.matches.events: a slot is free); the rating refit is the ratings app's.
        from arena.matches.events import Phase, subscribe_match_ended
        from tournaments.ladder_services import ladder_match_ended
        from tournaments.services import tournament_match_ended

        subscribe_match_ended(tournament_match_ended, phase=Phase.IN_TRANSACTION)
        subscribe_match_ended(ladder_match_ended, phase=Phase.AFTER_COMMIT)
