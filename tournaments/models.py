"""Tournaments, their entries and their unplayed results.

Models hold data only; the writes live in ``tournaments.services`` and the reads in
``tournaments.selectors`` (HackSoft style: no logic in ``save()``).

A ``Tournament`` is a schedule of best-of-three matches (``arena.matches.models.Match`` rows
pointing back at it, created when it starts). Ratings live in the ratings app
(``ratings.models``), the ladder's rows in the ladder app (``ladder.models``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.matches.models import VARIANT_CHOICES
from tournaments.formats import DEFAULT_FORMAT, format_choices


class Tournament(models.Model):
    """A named event: entries, a time control, a format and a start time (UTC).

    ``start_suite``: where its matches start, ``"standard"`` (the variant's start position) or
    a suite of balanced start positions (``arena.openings``), drawn per match by its seed.
    """

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"  # waiting for start_at (beat starts it)
        RUNNING = "running"  # matches created and queued
        FINISHED = "finished"  # every round played (or ended early: end_reason)
        CANCELLED = "cancelled"  # stopped early (tournament_cancel): unfinished matches aborted

    name = models.CharField(max_length=120)
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    time_control = models.CharField(max_length=32)  # "10+0.1": base seconds + increment seconds
    # The ids of ``tournaments.formats.FORMATS`` (the strategies live there).
    format = models.CharField(max_length=24, choices=format_choices, default=DEFAULT_FORMAT)
    # Swiss: the number of rounds asked for; None for formats without a choice of rounds.
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    # The last round paired so far (0 before the start): the format pairs the next from it.
    current_round = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    rated = models.BooleanField(default=True)
    # Why a request for rated games was played casual (engines.consent.CASUAL_*), else "".
    rated_note = models.CharField(max_length=300, blank=True, default="")
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
    # Why a finished event ended before its planned rounds (e.g. no Swiss pairing without
    # repeats); empty for a normal end.
    end_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-start_at", "-id"]
        indexes = [models.Index(fields=["status", "start_at"], name="tournament_due_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.variant}, {self.time_control})"


class TournamentEntry(models.Model):
    """One engine version taking part; ``seed_no`` (1..n) is its number in the Berger table.

    In a gauntlet, ``seed_no`` 1 is the gauntlet engine that meets every other entry.
    ``rating`` is the engine version's Elo in the variant when the event started (knockout
    seeds by it). ``status`` becomes ``withdrawn`` when its engine can no longer play (disabled
    by its owner, or its version no longer active): see ``tournaments.rounds``.
    """

    class Status(models.TextChoices):
        ACTIVE = "active"
        WITHDRAWN = "withdrawn"

    tournament = models.ForeignKey(Tournament, related_name="entries", on_delete=models.CASCADE)
    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="tournament_entries", on_delete=models.PROTECT
    )
    seed_no = models.PositiveIntegerField()
    rating = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_reason = models.CharField(max_length=200, blank=True)

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


class UnplayedResult(models.Model):
    """One match point without a game to ``entry`` in round ``round``: a ``bye`` (no
    ``opponent``) or a ``forfeit`` win over ``opponent``, who withdrew. ``match`` is the
    pending match the forfeit replaced (aborted), if one had been created. Unique per entry and
    round, so a point is never awarded twice."""

    class Kind(models.TextChoices):
        BYE = "bye"
        FORFEIT = "forfeit"

    tournament = models.ForeignKey(
        Tournament, related_name="unplayed_results", on_delete=models.CASCADE
    )
    round = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    entry = models.ForeignKey(TournamentEntry, related_name="+", on_delete=models.CASCADE)
    opponent = models.ForeignKey(
        TournamentEntry, null=True, blank=True, related_name="+", on_delete=models.CASCADE
    )
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, related_name="+", on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "round", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "entry"], name="unplayed_unique_round_entry"
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.round} {self.kind} to entry {self.entry_id}"
