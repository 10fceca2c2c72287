"""Each variant's ladder pause (``ladder.models.LadderState``): the ladder's own row, not the
rating pool's, and carried over by the migration that moved it there from ``RatingPool``."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from ladder import services as ladder_services
from ladder.models import LadderState
from ratings.models import RatingPool

BEFORE = [("ladder", "0001_initial"), ("ratings", "0001_initial")]


def _migrate(targets: list[tuple[str, str]] | None = None) -> Any:
    """Migrate the test database to ``targets`` (the latest migrations when None); returns
    the apps of the state reached."""
    executor = MigrationExecutor(connection)
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.mark.django_db
def test_a_pause_is_the_ladders_row_and_leaves_the_rating_pool_alone() -> None:
    ladder_services.ladder_pause("kete")
    ladder_services.ladder_pause("kingulu")
    ladder_services.ladder_pause("kingulu", paused=False)
    assert list(LadderState.objects.order_by("variant").values_list("variant", "paused")) == [
        ("bao-kingulu", False),
        ("bao-la-kete", True),
    ]
    assert not RatingPool.objects.exists()
    assert ladder_services.ladder_fill("kete") == []
    assert not RatingPool.objects.exists()
    assert ladder_services.ladder_enabled("kete") is False
    assert ladder_services.ladder_enabled("kingulu") is True
    assert ladder_services.ladder_enabled("kiswahili") is True  # no row: not paused


@pytest.mark.django_db(transaction=True)
def test_a_paused_variant_stays_paused_across_the_migration_both_ways() -> None:
    try:
        old = _migrate(BEFORE)
        OldPool = old.get_model("ratings", "RatingPool")
        OldPool.objects.create(variant="bao-la-kete", ladder_paused=True, requested=7)
        OldPool.objects.create(variant="bao-kingulu", ladder_paused=False, requested=2)

        _migrate()
        assert list(LadderState.objects.values_list("variant", "paused")) == [("bao-la-kete", True)]
        assert ladder_services.ladder_enabled("kete") is False
        assert ladder_services.ladder_enabled("kingulu") is True
        assert dict(RatingPool.objects.values_list("variant", "requested")) == {
            "bao-la-kete": 7,
            "bao-kingulu": 2,
        }

        # Backwards: the pauses go back to the rating pools (one made for a variant without).
        ladder_services.ladder_pause("kete", paused=False)
        ladder_services.ladder_pause("kiswahili")
        ladder_services.ladder_pause("kingulu")
        old = _migrate(BEFORE)
        pools = old.get_model("ratings", "RatingPool").objects
        assert dict(pools.values_list("variant", "ladder_paused")) == {
            "bao-la-kete": False,
            "bao-kingulu": True,
            "bao-la-kiswahili": True,
        }
        assert "ladder_ladderstate" not in connection.introspection.table_names()
    finally:
        _migrate()  # the other tests find the latest schema
