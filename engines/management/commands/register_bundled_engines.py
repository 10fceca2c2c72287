"""``python manage.py register_bundled_engines``: the bundled engines, registered and validated."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from engines.services import register_bundled_engines


class Command(BaseCommand):
    help = (
        "Register the bundled engines (random, greedy, search) under the system user 'arena' "
        "(idempotent)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--no-validate",
            action="store_true",
            help="Register only; leave new versions pending for a worker.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for version in register_bundled_engines(validate=not options["no_validate"]):
            line = f"{version}: {version.status}"
            if version.rejection_code:
                line += f" ({version.rejection_code})"
            self.stdout.write(line)
