"""The ladder's rows: each variant's ladder state (paused or not), the matches it made and the
older versions owners keep on it.

Models hold data only; the writes live in ``ladder.services``. ``LadderMatch`` and
``LadderKeep`` keep the table names they had when they lived in the tournaments app
(``db_table``; migration ``ladder.0001_initial`` moved the models without touching them).
"""

from __future__ import annotations

from django.db import models

from arena.matches.models import VARIANT_CHOICES


class LadderState(models.Model):
    """The ladder of one variant. ``paused``: it makes no match (``ladder.services.ladder_pause``),
    in every process, whatever ``BAO_LADDER_ENABLED`` says.

    The row is also the ladder's lock: ``ladder_fill`` and ``ladder_pause`` take it with
    ``select_for_update``, so fills of one variant run one at a time and none runs across a
    pause. Made on first use (``get_or_create``); a variant without a row is not paused.
    """

    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES, unique=True)
    paused = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"ladder {self.variant}: {'paused' if self.paused else 'playing'}"


class LadderMatch(models.Model):
    """A match the ladder made (``ladder.services``; docs/ladder.md): rated, at the
    variant's ladder time control, in the dispatcher's lowest class. ``placement`` when it was
    one of a new version's placement matches."""

    match = models.OneToOneField(
        "matches.Match", related_name="ladder_match", on_delete=models.CASCADE
    )
    variant = models.CharField(max_length=32, choices=VARIANT_CHOICES)
    placement = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tournaments_laddermatch"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["variant", "created_at"], name="ladder_match_variant_idx")]

    def __str__(self) -> str:
        return f"ladder {self.variant}: match #{self.match_id}"


class LadderKeep(models.Model):
    """An engine version its owner keeps on the ladder although a newer version of the engine
    took its place (by default only the newest active version of an engine is on it)."""

    engine_version = models.OneToOneField(
        "engines.EngineVersion", related_name="ladder_keep", on_delete=models.CASCADE
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tournaments_ladderkeep"

    def __str__(self) -> str:
        return f"kept on the ladder: {self.engine_version}"
