"""Ratings per engine version and variant: the latest fit, its history, each variant's pool.

Models hold data only; the writes live in ``ratings.services`` and the reads in
``ratings.selectors`` (HackSoft style: no logic in ``save()``).

A ``Rating`` is one engine version's place in the latest whole-history fit of a variant;
``RatingPoint`` rows are its history (the fitted rating after each of its matches, as of the
first refit that included it); ``RatingPool`` keeps each variant's refit requests and the last
fit's figures; ``HeadToHead`` rows count each variant's rated games per pair of versions, what
a refit reads instead of every game.

The tables keep the names they had when these models lived in the tournaments app
(``db_table``; migration ``ratings.0001_initial`` moved the models without touching them).
"""

from __future__ import annotations

from django.db import models

from arena.matches.models import VARIANT_CHOICES


class Rating(models.Model):
    """One engine version's place in the latest rating fit of a variant (``ratings.stats.whr``).

    Rewritten by every refit (``ratings.services.rating_refit``). ``rating``,
    ``low`` and ``high`` (the 95% interval) are Elo; all three are None when the version is
    not rated (``excluded_reason`` says why, e.g. not connected to the pool by games).
    ``bound`` is ``">"`` when the rating is only a lower bound (it won every game against the
    versions below it; ``high`` is None), ``"<"`` for an upper bound (``low`` is None), empty
    otherwise; ``prior`` is True exactly when ``bound`` is set (the column of the weak prior
    that bounds replaced). ``games``/``wins``/``draws``/``losses``/``points`` count its rated
    games (a draw is half a point); ``provisional`` (with ``provisional_reason``) while it is a
    bound or has fewer than 30 rated games (``ratings.stats.whr.PROVISIONAL_GAMES``);
    ``superiority`` is the likelihood of superiority over the next version down the variant's
    list (None for the last, or when either is a bound).
    """

    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="ratings", on_delete=models.CASCADE
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    rating = models.FloatField(null=True, blank=True)
    low = models.FloatField(null=True, blank=True)
    high = models.FloatField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    bound = models.CharField(max_length=1, blank=True, default="")
    provisional = models.BooleanField(default=True)
    provisional_reason = models.CharField(max_length=100, blank=True, default="")
    prior = models.BooleanField(default=False)
    superiority = models.FloatField(null=True, blank=True)
    excluded_reason = models.CharField(max_length=100, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "tournaments_rating"
        ordering = ["variant", "-rating"]
        constraints = [
            models.UniqueConstraint(
                fields=["engine_version", "variant"], name="rating_unique_version_variant"
            ),
        ]

    @property
    def points(self) -> float:
        """Points scored in rated games (a draw is half a point)."""
        return self.wins + self.draws / 2

    def __str__(self) -> str:
        shown = "not rated" if self.rating is None else f"{self.rating:.0f}"
        return f"{self.engine_version} {self.variant} {shown}"


class RatingPoint(models.Model):
    """One point of a version's rating history: its fitted rating after one of its matches.

    Written once, by the first refit whose fit includes the match and rates the version, and
    never changed after (later refits move ``Rating``, not history). ``games``/``points`` are
    this version's rated games and points in the match; ``rating``/``low``/``high`` in Elo
    (``low`` or ``high`` None when the rating was only a bound);
    ``finished_at`` is the match's end, the order of the history.
    """

    match = models.ForeignKey(
        "matches.Match", related_name="rating_points", on_delete=models.CASCADE
    )
    engine_version = models.ForeignKey(
        "engines.EngineVersion", related_name="rating_points", on_delete=models.CASCADE
    )
    opponent = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.CASCADE
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    games = models.PositiveIntegerField()
    points = models.FloatField()
    rating = models.FloatField()
    low = models.FloatField(null=True, blank=True)
    high = models.FloatField(null=True, blank=True)
    finished_at = models.DateTimeField()
    fitted_at = models.DateTimeField()

    class Meta:
        db_table = "tournaments_ratingpoint"
        ordering = ["finished_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "engine_version"], name="rating_point_unique_match_version"
            ),
        ]
        indexes = [
            models.Index(
                fields=["engine_version", "variant", "finished_at"],
                name="rating_point_history_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.engine_version} {self.rating:.0f} after match {self.match_id}"


class RatingPool(models.Model):
    """The refit bookkeeping of one variant (``ratings.services``).

    ``requested`` counts refit requests (one per recorded rated match, after commit);
    ``fitted`` is the request count the stored fit covers, so a refit that read older data
    never overwrites a newer one. ``refit_queued`` (since ``queued_at``) is the debounce: one
    refit task queued at a time. ``history_through`` is the latest ``finished_at`` of the
    rated matches a refit saw: the next refit looks for matches without history points from
    a little before it on (``ratings.services.HISTORY_OVERLAP``), not through every match;
    None before the first refit. The other fields describe the last fit (engines rated and
    excluded, games, time taken).
    """

    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES, unique=True)
    requested = models.PositiveBigIntegerField(default=0)
    refit_queued = models.BooleanField(default=False)
    queued_at = models.DateTimeField(null=True, blank=True)
    fitted = models.PositiveBigIntegerField(default=0)
    fitted_at = models.DateTimeField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    rated = models.PositiveIntegerField(default=0)
    excluded = models.PositiveIntegerField(default=0)
    fit_ms = models.FloatField(default=0.0)
    history_through = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tournaments_ratingpool"

    def __str__(self) -> str:
        return f"{self.variant}: {self.rated} rated, {self.games} games"


class HeadToHead(models.Model):
    """The rated games between two engine versions in one variant, counted: what a refit reads
    (``ratings.services.rating_refit``) instead of every game (issue 32).

    One row per unordered pair, ``version_a`` the lower id: ``wins_a`` games won by A,
    ``draws``, ``wins_b`` games won by B, either colour (the fit's model has no colour
    advantage, so the counts are all it sees of the games: ``ratings.stats.whr.fit_results``).
    Only rated games count (the filter of ``ratings.services.rated_games``). Kept up to date
    in the transaction that records a match (``head_to_head_add``, one upsert); rebuilt from
    the games by ``head_to_head_rebuild`` (migration ``0004``, ``refit_ratings --rebuild``).
    """

    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    version_a = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.CASCADE
    )
    version_b = models.ForeignKey(
        "engines.EngineVersion", related_name="+", on_delete=models.CASCADE
    )
    wins_a = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    wins_b = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            # Also the index of a refit's read (every row of one variant).
            models.UniqueConstraint(
                fields=["variant", "version_a", "version_b"], name="head_to_head_unique_pair"
            ),
            models.CheckConstraint(
                condition=models.Q(version_a__lt=models.F("version_b")),
                name="head_to_head_lower_id_first",
            ),
        ]

    @property
    def games(self) -> int:
        """Rated games between the two versions."""
        return self.wins_a + self.draws + self.wins_b

    def __str__(self) -> str:
        return (
            f"{self.variant} {self.version_a_id} vs {self.version_b_id}: "
            f"+{self.wins_a} ={self.draws} -{self.wins_b}"
        )
