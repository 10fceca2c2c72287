from django.apps import AppConfig
from django.db.backends.signals import connection_created


class AccountsConfig(AppConfig):
    name = "arena.accounts"
    label = "accounts"

    def ready(self) -> None:
        # The database holds the accounts' secrets: its SQLite file stays 0600 (arena.dbfile).
        from arena.dbfile import on_connection_created

        connection_created.connect(on_connection_created, dispatch_uid="arena.dbfile")
