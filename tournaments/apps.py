from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        # Tournament progress must agree with the recorded result: it runs in the recording
        # transaction. The rating refit is requested once the result is committed
        # (arena.matches.events), and so is the ladder's top-up (a slot is free).
        from arena.matches.events import Phase, subscribe_match_ended
        from tournaments.ladder_services import ladder_match_ended
        from tournaments.rating_services import ratings_match_ended
        from tournaments.services import tournament_match_ended

        subscribe_match_ended(tournament_match_ended, phase=Phase.IN_TRANSACTION)
        subscribe_match_ended(ratings_match_ended, phase=Phase.AFTER_COMMIT)
        subscribe_match_ended(ladder_match_ended, phase=Phase.AFTER_COMMIT)
