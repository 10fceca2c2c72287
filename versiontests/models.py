"""Version tests and their game pairs (data only: writes in ``services``, reads in ``selectors``).

A ``VersionTest`` asks whether ``new_version`` is stronger than ``base_version`` by a
sequential probability ratio test (``ratings.stats.sprt``): it plays game pairs (``Match`` rows
with ``best_of`` 2: one start position, colours swapped) until the log-likelihood ratio leaves
its bounds or ``max_pairs`` pairs are counted. Its counts are cumulative, from the new
version's side, and move only under its row lock when a pair is counted
(``services.version_test_match_ended``), once per pair.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.matches.models import VARIANT_CHOICES
from arena.openings import DEFAULT_SUITE
from ratings.stats.sprt import Model as SprtModel

PENTANOMIAL_SIZE = 5


def empty_pentanomial() -> list[int]:
    """``[0, 0, 0, 0, 0]``: no pair yet (the default of ``VersionTest.pentanomial``)."""
    return [0] * PENTANOMIAL_SIZE


class VersionTest(models.Model):
    """One SPRT of ``new_version`` against ``base_version``.

    Bounds: ``elo0 < elo1`` in the units of ``elo_model`` (logistic Elo, or normalized Elo per
    game), error rates ``alpha`` (false H1) and ``beta`` (false H0) in (0, 0.5). Pair ``i``
    starts from position ``opening_offset + i`` of ``start_suite`` (``arena.openings``;
    ``"standard"``: the variant's start for every pair).

    Counts, from the new version's side: ``pentanomial[k]`` pairs scored ``k / 2`` points
    (0, 1/2, 1, 3/2, 2); ``wins``/``draws``/``losses`` over the counted pairs' games;
    ``pairs_void`` pairs not counted (a game aborted by an infrastructure fault);
    ``llr_history[i]`` the LLR after the (i+1)-th counted pair, ``llr`` the last one (None
    where it could not be computed: the pair is counted all the same, the test runs on).

    ``status`` ``running`` until ``decision`` is known: ``H1`` (the new version is better by at
    least ``elo1``), ``H0`` (not better by ``elo1``; status ``finished``), ``inconclusive`` (the
    cap was reached; ``finished``) or ``stopped`` (by its creator or staff, or because a version
    could no longer play; status ``stopped``, ``stop_reason`` says why).
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        STOPPED = "stopped"

    class Decision(models.TextChoices):
        H0 = "H0"
        H1 = "H1"
        INCONCLUSIVE = "inconclusive"
        STOPPED = "stopped"

    class EloModel(models.TextChoices):
        """How ``elo0``/``elo1`` are meant: the values of ``ratings.stats.sprt.Model``."""

        LOGISTIC = SprtModel.LOGISTIC.value
        NORMALIZED = SprtModel.NORMALIZED.value

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="version_tests",
        on_delete=models.SET_NULL,
    )
    new_version = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT
    )
    base_version = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.PROTECT
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    time_control = models.CharField(max_length=32)
    start_suite = models.CharField(max_length=32, default=DEFAULT_SUITE)
    opening_offset = models.PositiveIntegerField(default=0)
    elo_model = models.CharField(max_length=16, choices=EloModel.choices)
    elo0 = models.FloatField()
    elo1 = models.FloatField()
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_pairs = models.PositiveIntegerField()
    rated = models.BooleanField(default=False)
    # Why a request for rated games was played casual (engines.consent.CASUAL_*), else "".
    rated_note = models.CharField(max_length=300, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True)
    stop_reason = models.CharField(max_length=200, blank=True)
    pentanomial = models.JSONField(default=empty_pentanomial)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    pairs_void = models.PositiveIntegerField(default=0)
    pairs_created = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0, null=True, blank=True)
    llr_history = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"], name="versiontest_status_idx")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(new_version=models.F("base_version")),
                name="versiontest_distinct_versions",
            ),
            models.CheckConstraint(
                condition=models.Q(elo0__lt=models.F("elo1")), name="versiontest_elo0_lt_elo1"
            ),
        ]

    def __str__(self) -> str:
        return f"test #{self.pk}: {self.new_version} vs {self.base_version} ({self.status})"

    @property
    def pairs_counted(self) -> int:
        """Pairs in the statistics (the sum of the pentanomial counts)."""
        return sum(self.pentanomial)


class VersionTestPair(models.Model):
    """Game pair ``index`` (0-based) of a test: one ``Match`` of ``best_of`` 2 with the new
    version as engine A (South in game 1, North in game 2).

    ``state``: ``pending`` while its match is queued or played; ``counted`` once its two games
    are in the test's counts (``score``: the new version's points, 0 to 2); ``void`` if it was
    not counted (a game aborted, the match aborted, or the test ended first). The move out of
    ``pending`` happens once, under the test's row lock: that is what makes counting exactly
    once.
    """

    class State(models.TextChoices):
        PENDING = "pending"
        COUNTED = "counted"
        VOID = "void"

    test = models.ForeignKey(VersionTest, related_name="pairs", on_delete=models.CASCADE)
    index = models.PositiveIntegerField()
    match = models.OneToOneField(
        "matches.Match", related_name="version_test_pair", on_delete=models.CASCADE
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["test_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["test", "index"], name="versiontestpair_unique_index"),
        ]
        indexes = [models.Index(fields=["test", "state"], name="versiontestpair_state_idx")]

    def __str__(self) -> str:
        return f"test #{self.test_id} pair {self.index} ({self.state})"
