"""Matches (best-of-three between two engine versions) and their games (the stored replays).

A ``Match`` row is the unit of work of a worker, and the pending rows are the queue: a free
worker slot claims the next one by ``priority``, the ``submitter``'s fair share and age
(``arena.matches.dispatch``) with a lease (``lease_token``, ``lease_expires_at``) by a
conditional UPDATE, plays it with the referee and records the games once
(``arena.matches.services``). A ``Game`` row is one refereed
game with its full move list, so a replay is rebuilt from ``start_position`` and ``moves``
(STYLE point 2). Models hold data only: the writes live in ``services``, the reads in
``selectors``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from arena.rules import VARIANTS
from arena.terminations import TERMINATIONS

#: The variant ids as model choices (every model with a variant field uses these).
VARIANT_CHOICES = [(v, v) for v in VARIANTS]
TERMINATION_CHOICES = [(t, t) for t in TERMINATIONS]


class Match(models.Model):
    """A best-of-three match between ``engine_a`` and ``engine_b`` (A is South in game 1); with
    ``best_of`` 2 a game pair (both games, colours swapped: a version test's unit), with 1 a
    single game with A South (a knockout's decisive game).

    ``score_a``/``score_b`` are match points (a game win 1, a draw 0.5); ``winner`` is None for a
    drawn or aborted match. ``seed`` decides who is South in game 3 (the referee's
    ``third_game_south``). Every game starts from ``start_position`` (BPN/KPN; "" for the
    variant's standard start), drawn once at creation from the suite named ``start_suite``
    (``arena.openings``; ``"standard"`` for none) by the seed, so a retried attempt plays the
    same start; games 1 and 2 play it with colours swapped. ``attempts`` counts claims by
    workers (bounded retries of infrastructure faults). ``queued_at`` is when the match was last
    queued (a ``run_match`` wake-up sent for it or for its batch, whose slots chain to the rest:
    ``arena.matches.services.matches_enqueue_ids``), so the requeue job can tell a pending match
    whose message was lost.

    Dispatch (``arena.matches.dispatch``): ``priority`` is the class (lower first);
    ``submitter`` is the user whose fair share the match uses (the challenger, the tournament's
    creator; None: the system); ``available_at`` holds a retried match back until then.
    ``worker`` names the Celery node that holds (or last held) the lease.
    """

    class Priority(models.IntegerChoices):
        """Dispatch classes, first served first; no preemption between them."""

        INTERACTIVE = 0, "challenges and tournament rounds"
        VERSION_TEST = 1, "version tests"
        RATED_PLAY = 2, "automatic rated play"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"
        ABORTED = "aborted"

    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    time_control = models.CharField(max_length=32)  # "10+0.1": base seconds + increment seconds
    engine_a = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT
    )
    engine_b = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT
    )
    seed = models.BigIntegerField()
    # Games at most: 3 (best of three), 2 (a game pair, both always played: version tests),
    # or 1 for a one-game decider (knockout tie-break).
    best_of = models.PositiveSmallIntegerField(default=3)
    start_suite = models.CharField(max_length=32, default="standard")
    start_position = models.CharField(max_length=256, blank=True)
    rated = models.BooleanField(default=True)
    # Why a request for rated games was played casual (engines.consent.CASUAL_*), else "".
    rated_note = models.CharField(max_length=300, blank=True, default="")
    tournament = models.ForeignKey(
        "tournaments.Tournament",
        null=True,
        blank=True,
        related_name="matches",
        on_delete=models.CASCADE,
    )
    round = models.PositiveIntegerField(null=True, blank=True)
    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="challenges",
        on_delete=models.SET_NULL,
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    priority = models.PositiveSmallIntegerField(
        choices=Priority.choices, default=Priority.INTERACTIVE
    )
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="submitted_matches",
        on_delete=models.SET_NULL,
    )
    available_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    lease_token = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    score_a = models.FloatField(null=True, blank=True)
    score_b = models.FloatField(null=True, blank=True)
    winner = models.ForeignKey(
        "engines.EngineVersion", null=True, blank=True, related_name="+", on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        indexes = [
            # The requeue job scans by status and lease expiry every minute.
            models.Index(fields=["status", "lease_expires_at"], name="match_status_lease_idx"),
            models.Index(fields=["tournament", "round"], name="match_tournament_round_idx"),
            # The dispatcher reads the queue in this order; fair shares sum by submitter.
            models.Index(fields=["status", "priority", "created_at"], name="match_dispatch_idx"),
            models.Index(fields=["submitter", "started_at"], name="match_submitter_idx"),
            # The running totals of the fair share: running matches per user, from an index
            # over running matches only; and the window's worker time per user, summed from
            # the index (arena.matches.dispatch).
            models.Index(
                fields=["submitter"],
                condition=models.Q(status="running"),
                name="match_running_submitter_idx",
            ),
            # The queue: pending and running rows only (not the history), in the claim's
            # order within a class and user; the pick groups it, the claim walks it.
            models.Index(
                fields=["priority", "submitter", "created_at", "id"],
                condition=models.Q(status__in=["pending", "running"]),
                name="match_queue_idx",
            ),
            models.Index(
                fields=["submitter", "finished_at", "started_at"], name="match_submitter_end_idx"
            ),
            # What GET /api/matches/ and the home page order by (newest first, id breaks
            # ties): a page is read from the index instead of sorting every match.
            models.Index(fields=["-created_at", "-id"], name="match_created_idx"),
            models.Index(fields=["-finished_at", "-id"], name="match_finished_idx"),
            # ?engine=NAME: either side, newest first (MatchFilter.filter_engine).
            models.Index(fields=["engine_a", "-created_at", "-id"], name="match_engine_a_idx"),
            models.Index(fields=["engine_b", "-created_at", "-id"], name="match_engine_b_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(engine_a=models.F("engine_b")), name="match_distinct_engines"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.variant} {self.time_control} ({self.status})"


#: The statuses of a match that has ended (for tournament progress and the requeue job).
ENDED_STATUSES = (Match.Status.FINISHED, Match.Status.ABORTED)


class MovesField(models.JSONField):
    """A ``JSONField`` for a game's move list that bulk inserts as plain ``VALUES`` rows.

    On PostgreSQL, Django 5.2 bulk inserts through ``UNNEST`` of one array per column unless a
    field has ``get_placeholder``. psycopg writes an array of JSON texts by escaping every
    double quote of every element in Python: for the three 56-ply games of a match (about 11 kB
    of JSON each) that took 3-10 ms on a loaded machine, against 2-3 ms for the same rows as
    ``VALUES`` (``benchmarks/README.md``, ``bench_service.py record``). The column is the
    plain ``jsonb`` of a ``JSONField``, and migrations see one (``deconstruct``).
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs


class Game(models.Model):
    """One refereed game of a match (index 1..3), stored as a replay.

    ``moves`` is a list of ``{"ply", "side", "move", "time_ms", "clock_ms", "position",
    "info"}`` (the referee's record, times in ms, ``position`` the BPN/KPN after the move).
    ``result`` is ``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"`` (aborted). ``engine_errors``
    maps ``"south"``/``"north"`` to that engine's stderr tail (shown to its owner only).
    ``rated`` is whether the game counts for Elo; ``finished_at`` orders rating updates.
    """

    # No index of its own: the unique (match, index) constraint's index serves every lookup by
    # match, and one index fewer is one fewer to maintain for each game recorded (issue 19).
    match = models.ForeignKey(Match, related_name="games", on_delete=models.CASCADE, db_index=False)
    index = models.PositiveSmallIntegerField()
    # Indexed by (side, finished_at, id) below instead of alone: a version's latest games are
    # a range of that index (issue 32), and it still serves the PROTECT check of a deletion.
    south = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT, db_index=False
    )
    north = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT, db_index=False
    )
    winner = models.ForeignKey(
        "engines.EngineVersion", null=True, blank=True, related_name="+", on_delete=models.PROTECT
    )
    result = models.CharField(max_length=8)
    termination = models.CharField(max_length=32, choices=TERMINATION_CHOICES)
    rated = models.BooleanField()
    plies = models.PositiveIntegerField(default=0)
    start_position = models.CharField(max_length=256)
    final_position = models.CharField(max_length=256, blank=True)
    moves = MovesField(default=list, blank=True)
    scores = models.JSONField(null=True, blank=True)
    seeds_in_hand = models.PositiveIntegerField(default=0)
    engine_errors = models.JSONField(default=dict, blank=True)
    detail = models.TextField(blank=True)
    # A time forfeit: how far past its clock the engine went and the host's load then
    # (arena.referee.hostload): {"overrun_ms", "clock_ms", "answered", "runnable", "load1",
    # "cores"}; None otherwise.
    time_loss = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["match_id", "index"]
        constraints = [
            # The second guard of exactly-once recording (the first is the lease UPDATE).
            models.UniqueConstraint(fields=["match", "index"], name="game_unique_match_index"),
        ]
        indexes = [
            models.Index(fields=["south", "-finished_at", "-id"], name="game_south_finished_idx"),
            models.Index(fields=["north", "-finished_at", "-id"], name="game_north_finished_idx"),
        ]

    def __str__(self) -> str:
        return f"match #{self.match_id} game {self.index}: {self.result} ({self.termination})"


class LiveGame(models.Model):
    """A game as it is being played, published move by move by the worker (``live``).

    One row per (match, game index), reset when a retried match plays that game again. Its
    moves are not on the row: they are the match's ``LiveEvent`` rows of kind ``move`` with
    this ``index`` from ``first_seq`` on (the seq of the game's ``game`` event; selectors
    ``live_moves``), so a publish appends instead of rewriting. ``status`` is ``running``
    until the referee ends the game, then ``finished`` (or ``aborted``) with its
    ``result``/``termination``. The stored replay (``Game``) appears when the whole match is
    recorded.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        ABORTED = "aborted"

    match = models.ForeignKey(Match, related_name="live_games", on_delete=models.CASCADE)
    index = models.PositiveSmallIntegerField()
    south = models.ForeignKey("engines.EngineVersion", related_name="+", on_delete=models.PROTECT)
    north = models.ForeignKey("engines.EngineVersion", related_name="+", on_delete=models.PROTECT)
    start_position = models.CharField(max_length=256)
    first_seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    result = models.CharField(max_length=8, blank=True)
    termination = models.CharField(max_length=32, blank=True)
    detail = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="livegame_unique_match_index"),
        ]
        indexes = [models.Index(fields=["status"], name="livegame_status_idx")]

    def __str__(self) -> str:
        return f"live match #{self.match_id} game {self.index} ({self.status})"


class LiveEvent(models.Model):
    """One event of a match being played, appended by the worker's publisher (``live``) and
    sent to viewers by ``GET /api/live/{id}/events`` (docs/live.md, "Events").

    ``seq`` numbers the match's events from 1 without gaps (unique per match; a retried match
    goes on from the last), so it is the stream's ``id:`` and a viewer resumes after it.
    ``index`` is the game (1-based), ``kind`` one of ``Kind`` and ``payload`` its JSON object:
    ``game`` (``live``: the ``LiveGame`` id, ``south``/``north``: ``{"version", "name"}``,
    ``start_position``), ``move`` (the ``Game.moves`` shape without ``ignored``), ``clock``
    (``S``/``N``: ms left, ``side``: whose clock runs or null, ``at``: ms since the epoch on the
    worker when it started), ``end`` (``scope`` ``game`` with ``result``, ``termination``,
    ``detail``, ``plies``; or ``scope`` ``match`` with ``score``, ``aborted``). The rows go with
    the match's live rows (``live_games_delete_ended``).
    """

    class Kind(models.TextChoices):
        GAME = "game"
        MOVE = "move"
        CLOCK = "clock"
        END = "end"

    match = models.ForeignKey(Match, related_name="live_events", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField()
    index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="liveevent_unique_match_seq"),
        ]

    def __str__(self) -> str:
        return f"match #{self.match_id} event {self.seq} ({self.kind})"


class WorkerNode(models.Model):
    """A running Celery worker and the match slots it offers, refreshed by the worker itself
    every ``arena.worker_hooks.PRESENCE_S`` seconds (``last_seen``) and removed at its warm
    shutdown; a row not seen for three periods is a worker that died. For the queue view."""

    name = models.CharField(max_length=200, unique=True)
    slots = models.PositiveIntegerField()
    cores = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.slots} slots)"


class LeaseClock(models.Model):
    """One row (pk 1): when the workers last reached the database, and since when they have
    without a gap (``arena.matches.leases``: no expired lease is taken over until the workers
    have had ``TAKEOVER_GRACE_S`` to renew after an outage), and when the recovery scan last
    ran (``arena.matches.recovery``: workers run it themselves when beat has not)."""

    seen_at = models.DateTimeField()
    up_since = models.DateTimeField()
    scanned_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"seen {self.seen_at:%H:%M:%S}, up since {self.up_since:%H:%M:%S}"


class UsageMinute(models.Model):
    """Worker seconds of the matches that ended in one minute, per account: the fair share's
    rollup (``arena.matches.usage``). ``account`` is the submitter's user id, 0 for the
    system's matches; ``minute`` the end's Unix time // 60; ``seconds`` the sum of
    ``finished_at - started_at`` of those matches. Written by database triggers as a match
    ends (migration ``0018``), in the transaction that ends it, whatever path ends it."""

    account = models.BigIntegerField()
    minute = models.BigIntegerField()
    seconds = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "minute"], name="usageminute_unique"),
        ]

    def __str__(self) -> str:
        return f"account {self.account} minute {self.minute}: {self.seconds:.0f} s"


class UsageTotal(models.Model):
    """The sum of an account's ``UsageMinute`` rows not yet pruned (``arena.matches.usage``):
    the same triggers add to it as a match ends, ``usage_prune`` subtracts the minutes it
    deletes. So a user's ended worker time in the window is this total less the few minutes
    older than the window that are still waiting for the prune: one row per user read."""

    account = models.BigIntegerField(unique=True)
    seconds = models.FloatField(default=0.0)

    def __str__(self) -> str:
        return f"account {self.account}: {self.seconds:.0f} s"
