"""Creating, starting and finishing tournaments (services and the beat task)."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
from django.utils import timezone

from arena.matches.models import Match
from arena.openings import match_start
from tournaments import services, tasks
from tournaments.errors import (
    ApiError,
    DuplicateEngine,
    EngineDisabled,
    EngineNotActive,
    EngineNotFound,
    TooFewEngines,
    UnknownStartSuite,
    UnknownVariant,
    VariantNotSupported,
)
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(make_version: Any) -> list[Any]:
    return [make_version(n) for n in ("alpha", "beta", "gamma", "delta")]


def _create(names: list[str], **kw: Any) -> Tournament:
    args = {"name": "Spring", "variant": "bao-la-kete", "time_control": "2+0.05"} | kw
    return services.tournament_create(engines=names, **args)


def test_it_creates_a_scheduled_tournament_with_entries_in_the_given_order(four: list[Any]) -> None:
    t = _create(["gamma", "alpha", "delta", "beta"], variant="kete", time_control="2.0+0.050")
    assert (t.variant, t.time_control, t.status, t.format) == (
        "bao-la-kete",
        "2+0.05",
        "scheduled",
        "round_robin",
    )
    assert [(e.seed_no, e.engine_version.engine.name) for e in t.entries.order_by("seed_no")] == [
        (1, "gamma"),
        (2, "alpha"),
        (3, "delta"),
        (4, "beta"),
    ]


def test_it_enters_the_latest_active_version(make_version: Any) -> None:
    make_version("alpha")
    v2 = make_version("alpha")
    make_version("alpha", status="rejected")
    make_version("beta")
    t = _create(["alpha", "beta"])
    assert t.entries.get(seed_no=1).engine_version == v2


@pytest.mark.parametrize(
    ("kwargs", "error", "code"),
    [
        ({"engines": ["alpha"]}, TooFewEngines, "too_few_engines"),
        ({"variant": "chess"}, UnknownVariant, "unknown_variant"),
        ({"engines": ["alpha", "ghost"]}, EngineNotFound, "engine_not_found"),
        ({"engines": ["alpha", "alpha"]}, DuplicateEngine, "duplicate_engine"),
        ({"engines": ["alpha", "retired"]}, EngineNotActive, "engine_not_active"),
        ({"engines": ["alpha", "sleeping"]}, EngineDisabled, "engine_disabled"),
        (
            {"engines": ["alpha", "ketesolo"], "variant": "bao-kingulu"},
            VariantNotSupported,
            "variant_not_supported",
        ),
        ({"time_control": "fast"}, ApiError, "invalid_time_control"),
        ({"time_control": "0+0"}, ApiError, "invalid_time_control"),
    ],
)
def test_it_rejects_bad_requests_with_a_stable_code_and_creates_nothing(
    make_version: Any, kwargs: dict[str, Any], error: type[Exception], code: str
) -> None:
    make_version("alpha")
    make_version("beta")
    make_version("retired", status="rejected")
    make_version("sleeping", enabled=False)
    make_version("ketesolo", variants=["bao-la-kete"])
    args = {
        "name": "x",
        "variant": "bao-la-kete",
        "engines": ["alpha", "beta"],
        "time_control": "10+0.1",
    } | kwargs
    with pytest.raises(error) as info:
        services.tournament_create(**args)
    assert info.value.default_code == code  # type: ignore[attr-defined]
    assert Tournament.objects.count() == 0


def test_starting_creates_the_berger_rounds_as_matches(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma", "delta"])
    assert services.tournament_start(t.pk)
    t.refresh_from_db()
    assert t.status == "running" and t.started_at is not None
    matches = Match.objects.filter(tournament=t).order_by("round", "id")
    got = [
        (m.round, m.engine_a.engine.name, m.engine_b.engine.name, m.time_control, m.variant)
        for m in matches
    ]
    # round_robin(4): [0-3, 1-2], [3-2, 0-1], [1-3, 2-0] over seeds alpha, beta, gamma, delta.
    assert got == [
        (1, "alpha", "delta", "2+0.05", "bao-la-kete"),
        (1, "beta", "gamma", "2+0.05", "bao-la-kete"),
        (2, "delta", "gamma", "2+0.05", "bao-la-kete"),
        (2, "alpha", "beta", "2+0.05", "bao-la-kete"),
        (3, "beta", "delta", "2+0.05", "bao-la-kete"),
        (3, "gamma", "alpha", "2+0.05", "bao-la-kete"),
    ]
    assert all(m.status == "pending" and m.rated for m in matches)


def test_a_tournament_is_started_once(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma"])
    assert services.tournament_start(t.pk) is True
    assert services.tournament_start(t.pk) is False
    assert Match.objects.filter(tournament=t).count() == 3


def test_a_gauntlet_pits_the_first_engine_against_each_other(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma", "delta"], format="gauntlet")
    services.tournament_start(t.pk)
    matches = Match.objects.filter(tournament=t).order_by("round")
    pairs = [(m.engine_a.engine.name, m.engine_b.engine.name) for m in matches]
    assert pairs == [("alpha", "beta"), ("gamma", "alpha"), ("alpha", "delta")]


def test_the_beat_task_starts_only_tournaments_whose_time_has_come(four: list[Any]) -> None:
    now = timezone.now()
    due = _create(["alpha", "beta"], start_at=now - dt.timedelta(seconds=5))
    later = _create(["gamma", "delta"], start_at=now + dt.timedelta(hours=1))
    assert tasks.start_due_tournaments() == [due.pk]
    assert tasks.start_due_tournaments() == []
    due.refresh_from_db()
    later.refresh_from_db()
    assert (due.status, later.status) == ("running", "scheduled")
    assert Match.objects.filter(tournament=later).count() == 0
    assert services.start_due_tournaments(now=now + dt.timedelta(hours=2)) == [later.pk]


def test_a_pairing_whose_engine_was_disabled_since_is_skipped(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma"])
    four[2].engine.is_enabled = False
    four[2].engine.save()
    services.tournament_start(t.pk)
    matches = Match.objects.filter(tournament=t)
    pairs = {(m.engine_a.engine.name, m.engine_b.engine.name) for m in matches}
    assert pairs == {("alpha", "beta")}


def test_the_tournament_finishes_when_its_last_match_ends(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma"])
    services.tournament_start(t.pk)
    matches = list(Match.objects.filter(tournament=t).order_by("round"))
    for m in matches[:2]:
        m.status = "finished"
        m.save()
        services.match_finished(m)
    t.refresh_from_db()
    assert t.status == "running"
    matches[2].status = "aborted"
    matches[2].save()
    services.match_finished(matches[2])
    t.refresh_from_db()
    assert t.status == "finished" and t.finished_at is not None


def test_the_beat_task_also_finishes_a_tournament_whose_matches_all_ended(four: list[Any]) -> None:
    t = _create(["alpha", "beta"])
    services.tournament_start(t.pk)
    Match.objects.filter(tournament=t).update(status="aborted")
    services.start_due_tournaments()
    t.refresh_from_db()
    assert t.status == "finished"


def test_setup_periodic_tasks_registers_both_beat_jobs_once() -> None:
    from django.core.management import call_command
    from django_celery_beat.models import PeriodicTask

    call_command("setup_periodic_tasks", stdout=io.StringIO())
    call_command("setup_periodic_tasks", stdout=io.StringIO())
    tasks_by_name = dict(PeriodicTask.objects.values_list("task", "interval__every"))
    assert tasks_by_name["tournaments.tasks.start_due_tournaments"] == 1
    assert tasks_by_name["arena.matches.tasks.requeue_expired_leases"] == 10  # seconds
    assert tasks_by_name["tournaments.tasks.refit_stale_ratings"] == 1
    assert PeriodicTask.objects.filter(task="tournaments.tasks.start_due_tournaments").count() == 1


def test_setup_periodic_tasks_prints_each_job_and_its_interval_once() -> None:
    from django.core.management import call_command

    out = io.StringIO()
    call_command("setup_periodic_tasks", stdout=out)
    assert out.getvalue().splitlines() == [
        "tournaments: start due tournaments: tournaments.tasks.start_due_tournaments every minute",
        "tournaments: refit stale ratings: tournaments.tasks.refit_stale_ratings every minute",
        "tournaments: ladder matchmaking: tournaments.tasks.ladder_fill_all every minute",
        "matches: requeue expired leases: arena.matches.tasks.requeue_expired_leases "
        "every 10 seconds",
        "matches: delete ended live games: arena.matches.tasks.delete_ended_live_games "
        "every minute",
        "version tests: settle and queue pairs: "
        "tournaments.versiontests.tasks.refresh_version_tests every minute",
        "people: abort games whose worker died: people.tasks.abort_stale_person_games every minute",
    ]


def test_a_tournament_plays_the_standard_start_by_default(four: list[Any]) -> None:
    t = _create(["alpha", "beta"])
    assert t.start_suite == "standard"
    services.tournament_start(t.pk)
    match = Match.objects.get(tournament=t)
    assert (match.start_suite, match.start_position) == ("standard", "")


def test_a_tournament_from_a_suite_draws_each_matchs_start_by_its_seed(four: list[Any]) -> None:
    t = _create(["alpha", "beta", "gamma", "delta"], start_suite="balanced")
    assert t.start_suite == "balanced"
    services.tournament_start(t.pk)
    matches = list(Match.objects.filter(tournament=t))
    assert len(matches) == 6
    for m in matches:
        assert m.start_suite == "balanced"
        assert m.start_position == match_start("bao-la-kete", "balanced", m.seed).to_text()
    # Seeds are drawn per match, so the starts vary over the event.
    assert len({m.start_position for m in matches}) > 1


@pytest.mark.parametrize("suite", ["nope", "Balanced", "standard2"])
def test_an_unknown_start_suite_is_refused_and_nothing_is_created(
    four: list[Any], suite: str
) -> None:
    with pytest.raises(UnknownStartSuite) as info:
        _create(["alpha", "beta"], start_suite=suite)
    assert info.value.default_code == "unknown_start_suite"
    assert info.value.details["known"] == ["standard", "balanced"]
    assert Tournament.objects.count() == 0
