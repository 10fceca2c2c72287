"""``manage.py refit_ratings [--variant V]``: refit ratings now (all variants with rated games,
or one), e.g. after the migration to whole-history ratings; prints one line per variant."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.rules import VARIANTS, UnknownVariantError, canonical_variant_id
from ratings import selectors
from ratings import services as rating_services


class Command(BaseCommand):
    help = "Refit the whole-history ratings of every variant (or --variant) now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", help="variant id or alias (default: every variant)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            variants = (
                [canonical_variant_id(options["variant"])] if options["variant"] else VARIANTS
            )
        except UnknownVariantError as exc:
            raise CommandError(str(exc)) from None
        for variant in variants:
            rating_services.rating_refit(variant)
            pool = selectors.rating_pool(variant=variant)
            if pool is not None:
                self.stdout.write(
                    f"{variant}: {pool.games} games, {pool.rated} rated, {pool.excluded} "
                    f"excluded, fitted in {pool.fit_ms:.0f} ms"
                )
