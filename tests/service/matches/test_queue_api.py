"""The queue through the API: positions, what runs, slots; cancelling a match; the per-user
cap's 409; dependency outages as 503 with Retry-After; /healthz."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches.leases import match_claim
from arena.matches.models import Match, WorkerNode

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> None:
    import arena.celery  # noqa: F401  (the app /healthz uses, bound before the task is patched)
    from arena.matches import tasks

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)


def _challenge(client, **kw):  # type: ignore[no-untyped-def]
    body = {
        "engine": "alice-greedy",
        "opponent": "bob-random",
        "variant": "kete",
        "time_control": "2+0.1",
    } | kw
    return client.post("/api/matches/", body, format="json")


def test_the_queue_shows_slots_running_matches_and_positions(
    anon_client, alice_client, alice, alices_engine, bobs_engine
) -> None:
    now = timezone.now()
    WorkerNode.objects.create(name="celery@a", slots=2, cores=2, started_at=now, last_seen=now)
    WorkerNode.objects.create(
        name="celery@gone", slots=4, cores=4, started_at=now, last_seen=now - timedelta(minutes=5)
    )  # died: not counted
    ids = [_challenge(alice_client).json()["id"] for _ in range(3)]
    assert match_claim(ids[0], lease_seconds=30, worker="celery@a") is not None
    body = anon_client.get("/api/queue/").json()
    assert body["slots"]["total"] == 2 and body["slots"]["busy"] == 1
    assert [w["name"] for w in body["slots"]["workers"]] == ["celery@a"]
    assert [(r["match"], r["worker"]) for r in body["running"]] == [(ids[0], "celery@a")]
    assert [(p["match"], p["position"]) for p in body["pending"]] == [(ids[1], 1), (ids[2], 2)]
    assert body["pending"][0]["class"] == "challenges and tournament rounds"
    assert body["pending_count"] == 2
    detail = anon_client.get(f"/api/matches/{ids[2]}/").json()
    assert (detail["queue_position"], detail["priority"]) == (2, "challenges and tournament rounds")
    assert anon_client.get(f"/api/matches/{ids[0]}/").json()["queue_position"] is None


def test_a_challenger_cancels_a_match_and_others_may_not(
    alice_client, bob_client, alice, bob, alices_engine, bobs_engine
) -> None:
    match_id = _challenge(alice_client).json()["id"]
    r = bob_client.post(f"/api/matches/{match_id}/cancel/", {}, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "permission_denied")
    r = alice_client.post(
        f"/api/matches/{match_id}/cancel/", {"reason": "wrong clock"}, format="json"
    )
    assert r.status_code == 200, r.json()
    assert (r.json()["status"], r.json()["error"]) == ("aborted", "cancelled: wrong clock")
    r = alice_client.post(f"/api/matches/{match_id}/cancel/", {}, format="json")
    assert r.status_code == 409
    assert r.json()["error"] == {
        "code": "match_not_cancellable",
        "message": f"match {match_id} is aborted: only a pending or running match can be "
        "cancelled.",
        "details": {"status": "aborted"},
    }


def test_staff_may_cancel_a_running_match(alice_client, bob, alices_engine, bobs_engine) -> None:
    from rest_framework.test import APIClient

    match_id = _challenge(alice_client).json()["id"]
    assert match_claim(match_id, lease_seconds=30) is not None
    bob.is_staff = True
    bob.save()
    staff = APIClient()
    staff.force_authenticate(bob)
    r = staff.post(f"/api/matches/{match_id}/cancel/", {}, format="json")
    assert r.status_code == 200
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.lease_token, match.error) == ("aborted", "", "cancelled: by bob")


def test_a_tournament_over_the_queue_cap_is_refused_with_409(
    alice_client, alice, alices_engine, bobs_engine, settings
) -> None:
    settings.BAO_QUEUE_MAX_PER_USER = 1
    assert _challenge(alice_client).status_code == 201
    r = alice_client.post(
        "/api/tournaments/",
        {
            "name": "t",
            "variant": "kete",
            "time_control": "2+0.1",
            "engines": ["alice-greedy", "bob-random"],
            "rated": False,
        },
        format="json",
    )
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "queue_full"
    assert r.json()["error"]["details"] == {"queued": 1, "adding": 1, "limit": 1}
    r = _challenge(alice_client)
    assert (r.status_code, r.json()["error"]["code"]) == (409, "queue_full")


def test_a_database_error_answers_503_with_retry_after(anon_client, monkeypatch) -> None:
    from django.db import OperationalError

    from arena.matches import selectors

    def down(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setattr(selectors, "queue_snapshot", down)
    r = anon_client.get("/api/queue/")
    assert r.status_code == 503 and r["Retry-After"] == "30"
    assert r.json()["error"]["code"] == "service_unavailable"
    assert r.json()["error"]["details"] == {"dependency": "database", "retry_after_seconds": 30}


def test_healthz_reports_the_database_and_the_broker(anon_client) -> None:
    r = anon_client.get("/healthz")
    assert r.status_code == 200, r.json()
    body = r.json()
    assert (body["status"], body["database"]["ok"], body["broker"]["ok"]) == ("ok", True, True)


def test_healthz_answers_503_when_the_broker_is_down(anon_client) -> None:
    from ..faults import broker_switched, free_port

    with broker_switched(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        r = anon_client.get("/healthz")
    assert r.status_code == 503 and r["Retry-After"] == "30"
    body = r.json()
    assert (body["status"], body["database"]["ok"], body["broker"]["ok"]) == (
        "unavailable",
        True,
        False,
    )
    assert "Connection refused" in body["broker"]["error"] or "Error" in body["broker"]["error"]


def _game(match: Match, index: int, termination: str) -> None:
    from arena.matches.models import Game

    Game.objects.create(
        match=match,
        index=index,
        south=match.engine_a,
        north=match.engine_b,
        result="0-1",
        termination=termination,
        rated=False,
        start_position="x",
        finished_at=timezone.now(),
        time_loss={"overrun_ms": 50, "runnable": 9, "cores": 2}
        if termination == "time_forfeit"
        else None,
    )


def test_staff_see_each_workers_time_loss_and_a_jump_is_logged(
    anon_client, bob, greedy, randomer, caplog
) -> None:
    from rest_framework.test import APIClient

    from arena.matches import timeloss

    for worker, forfeits in (("celery@busy", 4), ("celery@calm", 0)):
        for n in range(4):
            match = Match.objects.create(
                engine_a=greedy,
                engine_b=randomer,
                variant="bao-la-kete",
                time_control="1+0.01",
                seed=n,
                worker=worker,
                status="finished",
            )
            for index in (1, 2, 3):
                _game(match, index, "time_forfeit" if index == 1 and n < forfeits else "score")
    assert "time_loss" not in anon_client.get("/api/queue/").json()
    bob.is_staff = True
    bob.save()
    staff = APIClient()
    staff.force_authenticate(bob)
    assert staff.get("/api/queue/").json()["time_loss"] == [
        {"worker": "celery@busy", "games": 12, "time_forfeits": 4, "rate": 0.3333},
        {"worker": "celery@calm", "games": 12, "time_forfeits": 0, "rate": 0.0},
    ]
    with caplog.at_level("WARNING", logger="arena.matches.timeloss"):
        assert timeloss.report_jump("celery@calm") is None
        jumped = timeloss.report_jump("celery@busy")
    assert jumped is not None and jumped.forfeits == 4
    assert "celery@busy: 4 of its last 12 games lost on time (33%; other workers 0%)" in caplog.text
    assert "'runnable': 9" in caplog.text


def test_the_queue_says_why_each_match_waits(
    anon_client, alice_client, bob_client, alices_engine, bobs_engine
) -> None:
    now = timezone.now()
    WorkerNode.objects.create(name="celery@a", slots=2, cores=2, started_at=now, last_seen=now)
    alices = [_challenge(alice_client).json()["id"] for _ in range(3)]
    for match_id in alices[:2]:  # both slots play alice's matches: her share of two users
        assert match_claim(match_id, lease_seconds=30, worker="celery@a") is not None
    bobs = _challenge(bob_client, engine="bob-random", opponent="alice-greedy").json()["id"]
    pending = anon_client.get("/api/queue/").json()["pending"]
    assert [(p["match"], p["waiting_reason"]) for p in pending] == [
        (bobs, "next"),
        (alices[2], "over_share"),
    ]
