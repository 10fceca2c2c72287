"""``manage.py refit_ratings [--variant V] [--rebuild]``: refit ratings now (all variants with
rated games, or one), e.g. after the migration to whole-history ratings; prints one line per
variant. ``--rebuild`` first counts the head-to-head rows again from every rated game
(``ratings.services.head_to_head_rebuild``: a repair, after games were changed by hand) and
adds the history points of every rated match still without any, however old."""

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
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="count the head-to-head results again from the games first",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            variants = (
                [canonical_variant_id(options["variant"])] if options["variant"] else VARIANTS
            )
        except UnknownVariantError as exc:
            raise CommandError(str(exc)) from None
        for variant in variants:
            if options["rebuild"]:
                rows = rating_services.head_to_head_rebuild(variant)
                self.stdout.write(f"{variant}: {rows} head-to-head rows counted from the games")
            rating_services.rating_refit(variant, all_history=options["rebuild"])
            pool = selectors.rating_pool(variant=variant)
            if pool is not None:
                self.stdout.write(
                    f"{variant}: {pool.games} games, {pool.rated} rated, {pool.excluded} "
                    f"excluded, fitted in {pool.fit_ms:.0f} ms"
                )
