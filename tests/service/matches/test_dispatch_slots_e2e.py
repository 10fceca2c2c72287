"""The dispatcher with a real worker (issue 29): a new version's validation does not wait behind
automatic rated play (its own queue and pool), and a user holding every slot gets no new one
while another user waits. Prints its measured times (``[figure]`` lines)."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from arena.matches.models import Match
from arena.matches.services import MatchSpec, match_challenge, matches_create

from ..e2e import figure, wait_for
from .conftest import BUNDLED, make_version

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

HOLDER = str(Path(__file__).parent / "engines" / "holder.py")
THINKER = str(Path(__file__).parent / "engines" / "thinker.py")


def test_a_new_version_is_validated_while_rated_play_fills_every_slot(
    live_worker, alice, arena_user
) -> None:
    from arena.celery import registered_task
    from engines.models import EngineVersion
    from engines.services import engine_version_create

    holder = make_version(arena_user, "holder", HOLDER)
    randomer = make_version(arena_user, "random", "random")
    worker = live_worker(concurrency=1)
    wait_for(
        lambda: "] validation." in worker.log_path.read_text(errors="replace"),
        60,
        "the worker's validation pool",
    )
    # The ladder's play: a match that holds the only slot, more waiting, and a backlog of
    # wake-ups ahead in the broker, as a busy ladder leaves them.
    specs = [
        MatchSpec(engine_a=holder, engine_b=randomer, variant="kete", time_control="60+0.1",
                  rated=False, priority=Match.Priority.RATED_PLAY)
        for _ in range(5)
    ]  # fmt: skip
    with transaction.atomic():
        created, refused = matches_create(specs)
    assert refused == [] and len(created) == 5
    busy = Match.objects.filter(status="running")
    held = wait_for(lambda: busy.values_list("pk", flat=True).first(), 30, "a match in the slot")
    run_match = registered_task("arena.matches.tasks.run_match")
    for _ in range(40):
        run_match.apply_async(args=[None])
    upload = SimpleUploadedFile("greedy", (BUNDLED / "greedy").read_bytes())
    asked = time.monotonic()
    with transaction.atomic():
        version = engine_version_create(owner=alice, name="alice-greedy", upload=upload)
    wait_for(
        lambda: EngineVersion.objects.get(pk=version.pk).status in ("active", "rejected"),
        120,
        "the validation",
    )
    took = time.monotonic() - asked
    figure("a new version active while rated play held every slot", took)
    assert EngineVersion.objects.get(pk=version.pk).status == "active"
    # The slot never freed meanwhile: the validation did not wait for it.
    assert list(busy.values_list("pk", flat=True)) == [held]
    assert Match.objects.filter(status="pending").count() == 4


def test_a_user_holding_every_slot_gets_no_new_one_while_another_user_waits(
    live_worker, alice, bob, arena_user
) -> None:
    make_version(alice, "alice-holder", HOLDER)
    make_version(alice, "alice-thinker", THINKER)
    make_version(arena_user, "random", "random")
    make_version(bob, "bob-greedy", "greedy")
    # Bob used ten minutes of worker time in the window: by worker time alone alice, who
    # used less, would take every slot that frees.
    earlier = match_challenge(
        user=bob, engine="bob-greedy", opponent="random", variant="kete", time_control="2+0.05",
        rated=False,
    )  # fmt: skip
    now = timezone.now()
    Match.objects.filter(pk=earlier.pk).update(
        status="finished", started_at=now - timedelta(seconds=600), finished_at=now
    )
    live_worker(concurrency=2)
    long_a, long_b = (
        match_challenge(
            user=alice, engine="alice-holder", opponent="random", variant="kete",
            time_control="60+0.1", rated=False,
        )
        for _ in range(2)
    )  # fmt: skip
    wait_for(
        lambda: Match.objects.filter(pk__in=[long_a.pk, long_b.pk], status="running").count() == 2,
        60,
        "alice's two long matches to hold both slots",
    )
    alices_next = match_challenge(
        user=alice, engine="alice-thinker", opponent="random", variant="kete",
        time_control="2+0.05", rated=False,
    )  # fmt: skip
    bobs = match_challenge(
        user=bob, engine="bob-greedy", opponent="random", variant="kete", time_control="2+0.05",
        rated=False,
    )  # fmt: skip
    from arena.matches.services import match_cancel

    assert match_cancel(long_a.pk, reason="a slot frees")
    freed = timezone.now()
    wait_for(
        lambda: Match.objects.filter(pk=bobs.pk).exclude(started_at=None).exists(),
        60,
        "bob's match to start",
    )
    bobs.refresh_from_db()
    assert bobs.started_at is not None
    waited = (bobs.started_at - freed).total_seconds()
    figure("bob's match started after a slot freed", waited)
    assert Match.objects.get(pk=alices_next.pk).started_at is None or (
        Match.objects.get(pk=alices_next.pk).started_at > bobs.started_at  # type: ignore[operator]
    )
    assert match_cancel(long_b.pk, reason="done")
