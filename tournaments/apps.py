from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        # Tournament progress must agree with the recorded result: it runs in the recording
        # transaction (arena.matches.events).
        from arena.matches.events import Phase, subscribe_match_ended
        from tournaments.services import tournament_match_ended

        subscribe_match_ended(tournament_match_ended, phase=Phase.IN_TRANSACTION)
