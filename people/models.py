"""A person's game against an engine (``PersonGame``): its settings, its moves as they are
played, both clocks, the person's move waiting for the worker, and at the end the result.

The row is the game's live state and, once it ended, its stored replay (``moves`` has the
shape of ``arena.matches.models.Game.moves``). It is not a ``Game`` of a ``Match``: those are
between two engine versions and feed the ratings; a person's game is casual by construction,
so no rating refit, leaderboard or crosstable ever reads it. Models hold data only: the writes
live in ``services``, the reads in ``selectors``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.matches.models import TERMINATION_CHOICES, VARIANT_CHOICES, LiveEvent


class PersonGame(models.Model):
    """One game of ``player`` against ``engine`` (a version), the person on ``person_side``
    (``"S"``/``"N"``).

    ``status``: ``pending`` until a people slot of a worker claims it, ``running`` while
    played, then ``finished`` (or ``aborted``: the engine could not start, our fault).
    ``position``: the text of the current position (BPN/KPN); ``plies`` the moves played.
    ``clock_south_ms``/``clock_north_ms``: each clock after its side's last move, ms;
    ``turn_started_at``: when the side to move's clock began running (the worker's publish of
    the previous move). ``pending_ply``/``pending_move``/``pending_at``: the person's move for
    ply ``pending_ply`` accepted by the API and not yet read by the worker (the worker
    clears it with the move it applies). ``resign_requested``: the person resigned.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"
        ABORTED = "aborted"

    class Side(models.TextChoices):
        SOUTH = "S", "south"
        NORTH = "N", "north"

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="person_games", on_delete=models.CASCADE
    )
    engine = models.ForeignKey(
        "engines.EngineVersion", related_name="person_games", on_delete=models.PROTECT
    )
    person_side = models.CharField(max_length=1, choices=Side.choices)
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    time_control = models.CharField(max_length=32)
    start_suite = models.CharField(max_length=32, default="standard")
    start_position = models.CharField(max_length=256)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    position = models.CharField(max_length=256)
    plies = models.PositiveIntegerField(default=0)
    moves = models.JSONField(default=list, blank=True)
    clock_south_ms = models.PositiveIntegerField()
    clock_north_ms = models.PositiveIntegerField()
    turn_started_at = models.DateTimeField(null=True, blank=True)
    pending_ply = models.PositiveIntegerField(null=True, blank=True)
    pending_move = models.CharField(max_length=8, blank=True)
    pending_at = models.DateTimeField(null=True, blank=True)
    resign_requested = models.BooleanField(default=False)
    result = models.CharField(max_length=8, blank=True)
    termination = models.CharField(max_length=32, choices=TERMINATION_CHOICES, blank=True)
    detail = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # A person's games (the profile page; the per-person limit counts open ones).
            models.Index(fields=["player", "-created_at"], name="persongame_player_idx"),
            # An engine's games against people (the engine page).
            models.Index(fields=["engine", "-created_at"], name="persongame_engine_idx"),
        ]

    def __str__(self) -> str:
        return f"person game #{self.pk} {self.player_id} vs {self.engine_id} ({self.status})"

    @property
    def engine_side(self) -> str:
        return "N" if self.person_side == "S" else "S"


class PersonGameEvent(models.Model):
    """One event of a person's game, for its stream ``GET /api/play/{id}/events`` (docs/play.md,
    "Watching"): the kinds and payloads of ``arena.matches.models.LiveEvent`` (``game``,
    ``move``, ``clock``, ``end`` with ``scope: "game"``), the game being the only one (index 1).

    ``seq`` numbers the game's events from 1 without gaps (unique per game), the stream's
    ``id:``. Appended by ``people.services`` in the transaction of the write it reports (the
    claim, each applied move, the end), so an event is never sent for a write that did not
    land nor missing for one that did. The rows go with their game.
    """

    #: The live games' kinds (``game``, ``move``, ``clock``, ``end``).
    Kind = LiveEvent.Kind

    game = models.ForeignKey(PersonGame, related_name="events", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    payload = models.JSONField(default=dict)

    #: The game's index in its "match" (the stream's ``index``): a person's game is alone.
    index = 1

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="persongameevent_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"person game #{self.game_id} event {self.seq} ({self.kind})"
