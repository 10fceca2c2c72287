"""The matches API: challenges (permissions, validation codes), lists with filters and pages,
match details, replays, game records as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.matches import runner
from arena.matches.models import Game, Match
from engines.consent import CASUAL_USER_PAIRING

from .conftest import make_version

pytestmark = pytest.mark.django_db

GOLDEN = json.loads((Path(__file__).parent / "data" / "greedy-random-kete-seed7.json").read_text())
# The start position of bao-la-kete (bao-la-kete.md).
KETE_START = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0"


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> None:
    from arena.matches import tasks

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)


@pytest.fixture
def played(greedy, randomer, fast_referee) -> Match:
    """The greedy-random match of the golden file, played and recorded."""
    match = Match.objects.create(
        engine_a=greedy, engine_b=randomer, variant="bao-la-kete", time_control="2+0.1", seed=7
    )
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    return Match.objects.get(pk=match.pk)


# --------------------------------------------------------------------------- challenges


def test_it_creates_a_challenge_with_the_callers_engine(
    alice, alice_client, alices_engine, bobs_engine
) -> None:
    r = alice_client.post(
        "/api/matches/",
        {
            "engine": "alice-greedy",
            "opponent": "bob-random",
            "variant": "bao-la-kete",
            "time_control": "5+0.05",
        },
        format="json",
    )
    assert r.status_code == 201, r.json()
    body = r.json()
    assert (body["engine_a"]["label"], body["engine_b"]["label"]) == (
        "alice-greedy v1",
        "bob-random v1",
    )
    # Asked rated (the default), played casual: bob's engine is another user's, and a user
    # choosing the opponent of a rated game could farm a rating (engines.consent).
    assert (body["status"], body["time_control"], body["rated"], body["games"]) == (
        "pending",
        "5+0.05",
        False,
        [],
    )
    assert body["rated_note"] == CASUAL_USER_PAIRING
    assert Match.objects.get(pk=body["id"]).challenger == alice


def test_it_plays_the_latest_active_version(
    alice, alice_client, alices_engine, bobs_engine
) -> None:
    make_version(alice, "alice-greedy", "greedy", number=2)
    make_version(alice, "alice-greedy", "greedy", number=3, status="rejected")
    r = alice_client.post(
        "/api/matches/",
        {"engine": "alice-greedy", "opponent": "bob-random", "variant": "kete"},
        format="json",
    )
    assert r.status_code == 201
    assert (r.json()["engine_a"]["version"], r.json()["variant"], r.json()["time_control"]) == (
        2,
        "bao-la-kete",
        "10+0.1",
    )


def test_it_rejects_a_challenge_with_someone_elses_engine(
    alice_client, alices_engine, bobs_engine
) -> None:
    r = alice_client.post(
        "/api/matches/",
        {"engine": "bob-random", "opponent": "alice-greedy", "variant": "bao-la-kete"},
        format="json",
    )
    assert r.status_code == 403
    assert r.json()["error"]["code"] == "engine_not_yours"
    assert Match.objects.count() == 0


def test_it_rejects_a_challenge_from_an_anonymous_user(
    anon_client, alices_engine, bobs_engine
) -> None:
    r = anon_client.post(
        "/api/matches/",
        {"engine": "alice-greedy", "opponent": "bob-random", "variant": "bao-la-kete"},
        format="json",
    )
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"opponent": "bob-random", "variant": "bao-la-kete"}, 400, "invalid"),
        (
            {"engine": "alice-greedy", "opponent": "nobody", "variant": "bao-la-kete"},
            404,
            "engine_not_found",
        ),
        (
            {"engine": "alice-greedy", "opponent": "bob-random", "variant": "chess"},
            400,
            "unknown_variant",
        ),
        (
            {"engine": "alice-greedy", "opponent": "alice-greedy", "variant": "bao-la-kete"},
            400,
            "same_engine",
        ),
        (
            {
                "engine": "alice-greedy",
                "opponent": "bob-random",
                "variant": "bao-la-kete",
                "time_control": "1 hour",
            },
            400,
            "invalid_time_control",
        ),
        (
            {
                "engine": "alice-greedy",
                "opponent": "bob-random",
                "variant": "bao-la-kete",
                "time_control": "3000+1",
            },
            400,
            "time_control_too_long",
        ),
        (
            {"engine": "alice-greedy", "opponent": "kete-only", "variant": "bao-kingulu"},
            400,
            "variant_not_supported",
        ),
        (
            {"engine": "alice-greedy", "opponent": "unvalidated", "variant": "bao-la-kete"},
            409,
            "engine_not_active",
        ),
        (
            {"engine": "alice-greedy", "opponent": "sleepy", "variant": "bao-la-kete"},
            409,
            "engine_disabled",
        ),
    ],
)
def test_it_rejects_bad_challenges_with_stable_codes(
    alice_client, alices_engine, bobs_engine, bob, payload, status, code
) -> None:
    make_version(bob, "kete-only", "random", variants=("bao-la-kete",))
    make_version(bob, "unvalidated", "random", status="pending")
    make_version(bob, "sleepy", "random", enabled=False)
    r = alice_client.post("/api/matches/", payload, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (status, code), r.json()
    assert Match.objects.count() == 0


def test_a_malformed_body_is_a_parse_error(alice_client) -> None:
    r = alice_client.post("/api/matches/", "{not json", content_type="application/json")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "parse_error")


# --------------------------------------------------------------------------- lists and details


def _ids(response) -> list[int]:  # type: ignore[no-untyped-def]
    return [m["id"] for m in response.json()["results"]]


def test_the_list_filters_by_engine_variant_status_rated_and_tournament(
    anon_client, greedy, randomer, searcher
) -> None:
    from django.utils import timezone

    from tournaments.models import Tournament

    cup = Tournament.objects.create(
        name="Cup", variant="bao-kingulu", time_control="2+0.1", start_at=timezone.now()
    )
    m1 = Match.objects.create(
        engine_a=greedy, engine_b=randomer, variant="bao-la-kete", time_control="2+0.1", seed=1
    )
    m2 = Match.objects.create(
        engine_a=searcher,
        engine_b=greedy,
        variant="bao-kingulu",
        time_control="2+0.1",
        seed=2,
        tournament=cup,
        round=1,
        status="finished",
    )
    m3 = Match.objects.create(
        engine_a=searcher,
        engine_b=randomer,
        variant="bao-la-kete",
        time_control="2+0.1",
        seed=3,
        rated=False,
    )
    assert _ids(anon_client.get("/api/matches/")) == [m3.pk, m2.pk, m1.pk]
    assert _ids(anon_client.get("/api/matches/?engine=greedy")) == [m2.pk, m1.pk]
    assert _ids(anon_client.get("/api/matches/?engine=random&variant=bao-la-kete")) == [
        m3.pk,
        m1.pk,
    ]
    assert _ids(anon_client.get("/api/matches/?status=finished")) == [m2.pk]
    assert _ids(anon_client.get("/api/matches/?rated=false")) == [m3.pk]
    assert _ids(anon_client.get(f"/api/matches/?tournament={cup.pk}")) == [m2.pk]
    r = anon_client.get("/api/matches/?status=sleeping")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid")
    assert "status" in r.json()["error"]["details"]


def test_the_list_is_paginated(anon_client, greedy, randomer) -> None:
    made = [
        Match.objects.create(
            engine_a=greedy, engine_b=randomer, variant="bao-la-kete", time_control="2+0.1", seed=i
        ).pk
        for i in range(5)
    ]
    page1 = anon_client.get("/api/matches/?page_size=2").json()
    assert page1["count"] == 5 and [m["id"] for m in page1["results"]] == made[::-1][:2]
    page3 = anon_client.get("/api/matches/?page_size=2&page=3").json()
    assert [m["id"] for m in page3["results"]] == [made[0]] and page3["next"] is None
    r = anon_client.get("/api/matches/?page=9")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")


def test_the_match_detail_lists_its_games(anon_client, played, greedy, randomer) -> None:
    body = anon_client.get(f"/api/matches/{played.pk}/").json()
    assert (body["status"], body["score_a"], body["score_b"], body["winner"]["label"]) == (
        "finished",
        2.0,
        1.0,
        "greedy v1",
    )
    summary = [
        (
            g["index"],
            g["south"]["label"],
            g["north"]["label"],
            g["result"],
            g["termination"],
            g["plies"],
        )
        for g in body["games"]
    ]
    assert summary == [
        (
            g["index"],
            f"{g['south']} v1",
            f"{g['north']} v1",
            g["result"],
            g["termination"],
            g["plies"],
        )
        for g in GOLDEN["games"]
    ]
    assert anon_client.get("/api/matches/999999/").json()["error"]["code"] == "not_found"


# --------------------------------------------------------------------------- replays


def test_the_replay_holds_every_move_with_its_time_and_position(anon_client, played) -> None:
    game = played.games.get(index=1)
    body = anon_client.get(f"/api/games/{game.pk}/").json()
    want = GOLDEN["games"][0]
    assert [m["move"] for m in body["moves"]] == want["moves"].split()
    assert (body["result"], body["termination"], body["plies"], body["final_position"]) == (
        want["result"],
        want["termination"],
        want["plies"],
        want["final_position"],
    )
    assert body["start_position"] == KETE_START
    trace = body["moves"][0].pop("trace")
    assert body["moves"][0] == {**game.moves[0], "info": game.moves[0]["info"]}
    assert set(body["moves"][0]) == {
        "ply",
        "side",
        "move",
        "time_ms",
        "clock_ms",
        "position",
        "info",
    }
    assert (trace["move"], trace["side"], trace["steps"][0]["op"]) == (
        want["moves"].split()[0],
        "S",
        "reserve",
    )
    # bao_hamna in the middle of a move: the captured seed stays in hand (README A-5).
    assert (body["variant"], body["time_control"], body["seeds_in_hand"], body["scores"]) == (
        "bao-la-kete",
        "2+0.1",
        1,
        None,
    )


def test_engine_errors_are_shown_to_their_owner_only(
    anon_client, alice, alice_client, bob_client, alices_engine, bobs_engine
) -> None:
    match = Match.objects.create(
        engine_a=alices_engine,
        engine_b=bobs_engine,
        variant="bao-la-kete",
        time_control="2+0.1",
        seed=1,
        status="finished",
    )
    from django.utils import timezone

    game = Game.objects.create(
        match=match,
        index=1,
        south=alices_engine,
        north=bobs_engine,
        winner=bobs_engine,
        result="0-1",
        termination="crash",
        rated=True,
        start_position="x",
        engine_errors={"south": "Traceback: secret.py line 3", "north": "warning: slow"},
        finished_at=timezone.now(),
    )
    url = f"/api/games/{game.pk}/"
    assert anon_client.get(url).json()["engine_errors"] == {}
    assert alice_client.get(url).json()["engine_errors"] == {"south": "Traceback: secret.py line 3"}
    assert bob_client.get(url).json()["engine_errors"] == {"north": "warning: slow"}


def test_the_game_record_is_a_text_download_with_tags_moves_and_final_position(
    anon_client, played
) -> None:
    game = played.games.get(index=2)
    r = anon_client.get(f"/api/games/{game.pk}/record.txt")
    assert r.status_code == 200 and r["Content-Type"] == "text/plain; charset=utf-8"
    assert r["Content-Disposition"] == f'attachment; filename="bao-match{played.pk}-game2.txt"'
    text = r.content.decode()
    header, movetext, final = text.split("\n\n")
    date = game.started_at.strftime("%Y.%m.%d")
    assert header.splitlines() == [
        '[Event "Bao Arena match"]',
        '[Site "Bao Arena"]',
        f'[Date "{date}"]',
        '[Round "-"]',
        f'[Match "{played.pk}"]',
        '[Game "2"]',
        '[Variant "bao-la-kete"]',
        '[South "random v1"]',
        '[North "greedy v1"]',
        '[Result "1-0"]',
        '[Termination "bao_hamna"]',
        '[TimeControl "2+0.1"]',
        '[Seed "7"]',
        '[Rated "yes"]',
        '[Plies "37"]',
        f'[StartPosition "{KETE_START}"]',
        '[SeedsInHand "1"]',
        '[Detail "bao_hamna"]',
    ]
    moves = GOLDEN["games"][1]["moves"].split()
    tokens = movetext.split()
    assert tokens[:5] == ["1.", moves[0], moves[1], "2.", moves[2]]
    assert tokens[-1] == "1-0" and [t for t in tokens if not t.endswith(".")][:-1] == moves
    assert all(len(line) <= 79 for line in movetext.splitlines())
    assert final == f"Final position: {GOLDEN['games'][1]['final_position']}\n"
    assert anon_client.get("/api/games/999999/record.txt").json()["error"]["code"] == "not_found"


def test_the_admin_lists_and_shows_matches_and_games(client, played) -> None:
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", "root@example.org", "admin pass 1")
    client.force_login(admin)
    game = played.games.get(index=1)
    for url in (
        "/admin/matches/match/",
        f"/admin/matches/match/{played.pk}/change/",
        "/admin/matches/game/",
        f"/admin/matches/game/{game.pk}/change/",
    ):
        r = client.get(url)
        assert r.status_code == 200, url
    assert b"greedy v1" in client.get("/admin/matches/match/").content
