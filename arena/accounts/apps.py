from django.apps import AppConfig
from django.db.backends.signals import connection_created


class AccountsConfig(AppConfig):
    name = "arena.accounts"
    label = "accounts"

    def ready(self) -> None:
        # The database holds the accounts' secrets: its SQLite file stays 0600 (arena.dbfile).
        from arena.dbfile import on_connection_created

        connection_created.connect(on_connection_created, dispatch_uid="arena.dbfile")
        # Failed logins on every path (API, web, admin) count against the login limits.
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from arena.accounts.login_limits import count_failure, on_logged_in

        user_login_failed.connect(count_failure, dispatch_uid="bao-login-limits")
        user_logged_in.connect(on_logged_in, dispatch_uid="bao-login-known")
