"""Tournaments, their entries, and Elo ratings per engine version and variant.

Models hold data only; the writes live in ``tournaments.services`` / ``tournaments.ratings``
and the reads in ``tournaments.selectors`` (HackSoft style: no logic in ``save()``).

A ``Tournament`` is a schedule of best-of-three matches (``arena.matches.models.Match`` rows
pointing back at it, created when it starts). A ``Rating`` is the current Elo of one engine
version in one variant; every rated game that changed it leaves one ``RatingChange`` row
(unique per game and engine version, so a game is never counted twice).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.rules import VARIANTS

VARIANT_CHOICES = [(v, v) for v in VARIANTS]


class Tournament(models.Model):
    """A named event: entries, a time control, a format and a start time (UTC).

    ``start_suite``: where its matches start, ``"standard"`` (the variant's start position) or
    a suite of balanced start positions (``arena.openings``), drawn per match by its seed.
    """

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        GAUNTLET = "gauntlet"

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"  # waiting for start_at (beat starts it)
        RUNNING = "running"  # matches created and queued
        FINISHED = "finished"  # every match finished or aborted
        CANCELLED = "cancelled"  # stopped early (tournament_cancel): unfinished matches aborted

    name = models.CharField(max_length=120)
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    time_control = models.CharField(max_length=32)  # "10+0.1": base seconds + increment seconds
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.ROUND_ROBIN)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    rated = models.BooleanField(default=True)
    start_suite = models.CharField(max_length=32, default="standard")
    start_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="tournaments",
        on_delete=models.SET_NULL,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-start_at", "-id"]
        indexes = [models.Index(fields=["status", "start_at"], name="tournament_due_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.variant}, {self.time_control})"


class TournamentEntry(models.Model):
    """One engine version taking part; ``seed_no`` (1..n) is its number in the Berger table.

    In a gauntlet, ``seed_no`` 1 is the gauntlet engine that meets every other entry.
    """

    tournament = models.ForeignKey(Tournament, related_name="entries", on_delete=models.CASCADE)
    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="tournament_entries", on_delete=models.PROTECT
    )
    seed_no = models.PositiveIntegerField()

    class Meta:
        ordering = ["tournament", "seed_no"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "engine_version"], name="entry_unique_engine"
            ),
            models.UniqueConstraint(fields=["tournament", "seed_no"], name="entry_unique_seed_no"),
        ]

    def __str__(self) -> str:
        return f"#{self.seed_no} {self.engine_version}"


class Rating(models.Model):
    """The current Elo of one engine version in one variant (start 1500).

    ``games`` counts rated games (a game = one result between South and North; draws count
    half); ``provisional`` is True while ``games`` is below ``ratings.PROVISIONAL_GAMES``.
    """

    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="ratings", on_delete=models.CASCADE
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    rating = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    provisional = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["variant", "-rating"]
        constraints = [
            models.UniqueConstraint(
                fields=["engine_version", "variant"], name="rating_unique_version_variant"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.engine_version} {self.variant} {self.rating:.0f}"


class RatingChange(models.Model):
    """One engine's rating move from one rated game: the history behind ``Rating``.

    Unique per (game, engine_version): recording a finished match twice counts each game once.
    ``score`` is this engine's result (1, 0.5, 0); ``finished_at`` copies the game's end time,
    the order in which games are rated and in which history is listed.
    """

    game = models.ForeignKey(
        "matches.Game", related_name="rating_changes", on_delete=models.CASCADE
    )
    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="rating_changes", on_delete=models.CASCADE
    )
    opponent = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.CASCADE
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    score = models.FloatField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    opponent_rating_before = models.FloatField()
    k_factor = models.FloatField()
    games_before = models.PositiveIntegerField()
    finished_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["finished_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "engine_version"], name="rating_change_unique_game_version"
            ),
        ]
        indexes = [
            models.Index(
                fields=["engine_version", "variant", "finished_at"],
                name="rating_change_history_idx",
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.engine_version} {self.rating_before:.0f}->{self.rating_after:.0f} "
            f"(game {self.game_id})"
        )
