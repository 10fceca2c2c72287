"""``/api/play/``: starting a game, moves (legal, illegal, out of turn), resigning, consent,
the per-person limit and sign-in. The worker's side is played by its services here (claim,
publish), as ``people.runner`` calls them."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from arena.referee import MoveRecord
from arena.rules import get_variant
from people.models import PersonGame
from people.services import STALE_AFTER_S, person_game_claim, person_game_publish

from .conftest import make_engine

pytestmark = pytest.mark.django_db

KETE = "bao-la-kete"


def code(response: Any) -> str:
    """The stable error code of an API error answer."""
    return str(response.json()["error"]["code"])


def start(client: Any, **body: Any) -> Any:
    data = {"engine": "tembo", "variant": KETE, "time_control": "300+3", "side": "south"}
    return client.post("/api/play/", {**data, **body}, format="json")


def running_game(client: Any, sent: list[int], **body: Any) -> int:
    """A game started through the API and claimed as a people slot would."""
    r = start(client, **body)
    assert r.status_code == 201, r.json()
    game_id: int = r.json()["id"]
    assert sent == [game_id]
    assert person_game_claim(game_id, "test-worker") is not None
    return game_id


def engine_plays(game_id: int, token: str) -> None:
    """The worker publishes the engine's ``token`` in the game's position."""
    game = PersonGame.objects.get(pk=game_id)
    v = get_variant(game.variant)
    after = v.apply(v.parse_position(game.position), token)
    side = v.parse_position(game.position).side
    record = MoveRecord(ply=game.plies + 1, side=side, move=token, time_ms=5, clock_ms=299_000,
                        position=after.to_text())  # fmt: skip
    person_game_publish(game_id, [*game.moves, record.to_dict()], record)


def test_it_starts_a_game_waiting_for_a_people_slot(alice_client, opponent, sent):
    r = start(alice_client)
    assert r.status_code == 201, r.json()
    body = r.json()
    assert (body["status"], body["your_side"], body["engine"], body["time_control"]) == (
        "pending", "S", "tembo v1", "300+3",
    )  # fmt: skip
    assert body["clocks"] == {"south_ms": 300_000, "north_ms": 300_000, "running": None}
    assert body["position"] == get_variant(KETE).initial_position().to_text()
    assert body["legal"] == []  # not begun: nothing can be played yet
    assert sent == [body["id"]]


def test_its_state_lists_the_legal_moves_of_the_rules_engine_with_their_parts(
    alice_client, opponent, sent
):
    game_id = running_game(alice_client, sent)
    body = alice_client.get(f"/api/play/{game_id}/").json()
    v = get_variant(KETE)
    expected = [str(m) for m in v.legal_moves(v.initial_position())]
    assert body["your_turn"] is True
    assert body["legal_moves"] == expected
    first = body["legal"][0]
    assert first == {
        "move": expected[0], "pit": expected[0][:2], "direction": expected[0][2], "choice": None,
    }  # fmt: skip
    assert body["clocks"]["running"] == "S"
    assert 299_000 <= body["clocks"]["south_ms"] <= 300_000


def test_a_legal_move_waits_for_the_worker_and_a_second_is_refused(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    v = get_variant(KETE)
    move = str(v.legal_moves(v.initial_position())[0])
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": move}, format="json")
    assert r.status_code == 200, r.json()
    game = PersonGame.objects.get(pk=game_id)
    assert (game.pending_ply, game.pending_move) == (1, move)
    assert r.json()["your_turn"] is False
    again = alice_client.post(f"/api/play/{game_id}/move/", {"move": move}, format="json")
    assert (again.status_code, code(again)) == (409, "not_your_turn")


def move_at(client: Any, game_id: int, move: str, ply: int) -> Any:
    return client.post(f"/api/play/{game_id}/move/", {"move": move, "ply": ply}, format="json")


def test_the_same_move_resent_for_its_ply_is_taken_once(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    v = get_variant(KETE)
    move = str(v.legal_moves(v.initial_position())[0])
    first = move_at(alice_client, game_id, move, 1)
    assert first.status_code == 200, first.json()
    again = move_at(alice_client, game_id, move, 1)  # a double click while it waits
    assert again.status_code == 200, again.json()
    game = PersonGame.objects.get(pk=game_id)
    assert (game.pending_ply, game.pending_move, game.plies) == (1, move, 0)
    # The worker plays it and the engine answers: a late retry of ply 1 is still no new move.
    engine_plays(game_id, move)
    reply = str(v.legal_moves(v.parse_position(PersonGame.objects.get(pk=game_id).position))[0])
    engine_plays(game_id, reply)
    late = move_at(alice_client, game_id, move, 1)
    assert late.status_code == 200, late.json()
    assert (late.json()["plies"], late.json()["your_turn"]) == (2, True)
    game = PersonGame.objects.get(pk=game_id)
    assert (game.plies, game.pending_ply, game.pending_move) == (2, None, "")


def test_a_move_for_another_ply_is_ply_mismatch(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    v = get_variant(KETE)
    moves = [str(m) for m in v.legal_moves(v.initial_position())]
    for ply in (2, 7):
        r = move_at(alice_client, game_id, moves[0], ply)
        assert (r.status_code, code(r)) == (409, "ply_mismatch")
        assert r.json()["error"]["details"] == {"game": game_id, "ply": ply, "expected": 1}
    engine_plays(game_id, moves[0])  # the person's ply 1, as the worker applies it
    reply = str(v.legal_moves(v.parse_position(PersonGame.objects.get(pk=game_id).position))[0])
    engine_plays(game_id, reply)
    # Another move sent for ply 1 (a second click on another pit, after the game moved on).
    r = move_at(alice_client, game_id, moves[1], 1)
    assert (r.status_code, code(r)) == (409, "ply_mismatch")
    assert r.json()["error"]["details"]["expected"] == 3
    assert PersonGame.objects.get(pk=game_id).pending_move == ""
    current = alice_client.get(f"/api/play/{game_id}/").json()["legal_moves"][0]
    assert move_at(alice_client, game_id, current, 3).status_code == 200
    assert PersonGame.objects.get(pk=game_id).pending_ply == 3


def test_another_move_for_a_waiting_ply_is_not_your_turn(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    v = get_variant(KETE)
    first, second = (str(m) for m in v.legal_moves(v.initial_position())[:2])
    assert move_at(alice_client, game_id, first, 1).status_code == 200
    r = move_at(alice_client, game_id, second, 1)
    assert (r.status_code, code(r)) == (409, "not_your_turn")
    assert PersonGame.objects.get(pk=game_id).pending_move == first


@pytest.mark.parametrize("ply", [0, -1, "x", 10**6])
def test_a_junk_ply_is_invalid(alice_client, opponent, sent, ply):
    game_id = running_game(alice_client, sent)
    r = move_at(alice_client, game_id, "f2-", ply)
    assert (r.status_code, code(r)) == (400, "invalid")
    assert "ply" in r.json()["error"]["details"]


def test_an_illegal_move_is_refused_with_the_legal_ones(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    v = get_variant(KETE)
    legal = {str(m) for m in v.legal_moves(v.initial_position())}
    illegal = next(
        f"{f}{r}{d}" for f in "abcdefgh" for r in "12" for d in "+-" if f"{f}{r}{d}" not in legal
    )
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": illegal}, format="json")
    assert (r.status_code, code(r)) == (400, "illegal_move")
    assert sorted(r.json()["error"]["details"]["legal"]) == sorted(legal)
    assert PersonGame.objects.get(pk=game_id).pending_move == ""


@pytest.mark.parametrize("token", ["z9+", "f2", "", "f2-x", "a1'; DROP TABLE"])
def test_a_token_that_is_no_move_is_invalid_move_never_a_500(alice_client, opponent, sent, token):
    game_id = running_game(alice_client, sent)
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": token}, format="json")
    assert r.status_code == 400
    assert code(r) == ("invalid" if token == "" else "invalid_move")


def test_a_move_on_the_engines_turn_is_not_your_turn(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent, side="north")
    v = get_variant(KETE)
    south_move = str(v.legal_moves(v.initial_position())[0])
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": south_move}, format="json")
    assert (r.status_code, code(r)) == (409, "not_your_turn")
    engine_plays(game_id, south_move)
    body = alice_client.get(f"/api/play/{game_id}/").json()
    assert (body["your_turn"], body["plies"], body["side_to_move"]) == (True, 1, "N")
    north_move = body["legal_moves"][0]
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": north_move}, format="json")
    assert r.status_code == 200, r.json()
    assert PersonGame.objects.get(pk=game_id).pending_ply == 2


def test_a_move_before_the_game_began_is_not_your_turn(alice_client, opponent, sent):
    game_id = start(alice_client).json()["id"]
    r = alice_client.post(f"/api/play/{game_id}/move/", {"move": "f2-"}, format="json")
    assert (r.status_code, code(r)) == (409, "not_your_turn")


def test_resigning_a_game_not_begun_ends_it_at_once(alice_client, opponent, sent):
    game_id = start(alice_client).json()["id"]
    r = alice_client.post(f"/api/play/{game_id}/resign/")
    assert r.status_code == 200, r.json()
    assert (r.json()["status"], r.json()["result"], r.json()["termination"]) == (
        "finished", "0-1", "resignation",
    )  # fmt: skip
    again = alice_client.post(f"/api/play/{game_id}/resign/")
    assert (again.status_code, code(again)) == (409, "game_over")
    move = alice_client.post(f"/api/play/{game_id}/move/", {"move": "f2-"}, format="json")
    assert (move.status_code, code(move)) == (409, "game_over")


def test_resigning_a_running_game_is_left_for_the_worker(alice_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    r = alice_client.post(f"/api/play/{game_id}/resign/")
    assert r.status_code == 200
    game = PersonGame.objects.get(pk=game_id)
    assert (game.status, game.resign_requested) == ("running", True)
    assert r.json()["legal"] == []


def test_another_persons_game_is_not_found(alice_client, bob_client, opponent, sent):
    game_id = running_game(alice_client, sent)
    for r in (
        bob_client.get(f"/api/play/{game_id}/"),
        bob_client.post(f"/api/play/{game_id}/move/", {"move": "f2-"}, format="json"),
        bob_client.post(f"/api/play/{game_id}/resign/"),
    ):
        assert (r.status_code, code(r)) == (404, "not_found")
    assert PersonGame.objects.get(pk=game_id).resign_requested is False


def test_it_needs_a_signed_in_user(anon_client, opponent, sent):
    r = start(anon_client)
    assert r.status_code == 401
    assert anon_client.get("/api/play/1/").status_code == 401
    assert sent == []


def test_an_engine_whose_owner_does_not_consent_is_refused(alice_client, bob, sent):
    make_engine("shy", owner=bob, people=False)
    r = start(alice_client, engine="shy")
    assert (r.status_code, code(r)) == (403, "pairing_refused")
    assert r.json()["error"]["details"]["setting"] == "people"
    assert sent == []


def test_the_owner_may_play_their_own_engine_without_consent(bob_client, bob, sent):
    make_engine("shy", owner=bob, people=False)
    assert start(bob_client, engine="shy").status_code == 201


def test_the_owner_turns_people_on_through_the_api(bob_client, alice_client, bob, sent):
    make_engine("shy", owner=bob, people=False)
    r = bob_client.patch("/api/engines/shy/", {"consent": {"people": True}}, format="json")
    assert r.status_code == 200, r.json()
    assert r.json()["consent"]["people"] is True
    assert start(alice_client, engine="shy").status_code == 201


@override_settings(BAO_PEOPLE_GAMES_PER_USER=2)
def test_a_person_has_at_most_the_limit_of_games_open(alice_client, opponent, sent):
    first, second = (start(alice_client).json()["id"] for _ in range(2))
    r = start(alice_client)
    assert (r.status_code, code(r)) == (409, "too_many_games")
    assert r.json()["error"]["details"] == {"open": 2, "limit": 2}
    alice_client.post(f"/api/play/{first}/resign/")
    assert start(alice_client).status_code == 201
    assert sent[:2] == [first, second]


@pytest.mark.parametrize(
    "time_control", ["10+0.1", "movetime=500", "7200+0", "300+120", "5 minutes", "300+0.0001"]
)
def test_time_controls_a_person_cannot_play_are_refused(alice_client, opponent, sent,
                                                        time_control):  # fmt: skip
    r = start(alice_client, time_control=time_control)
    assert (r.status_code, code(r)) == (400, "time_control_not_for_people")
    assert r.json()["error"]["details"]["min_base_s"] == 60
    assert sent == []


def test_a_suites_start_position_is_drawn(alice_client, opponent, sent):
    r = start(alice_client, start_suite="balanced")
    assert r.status_code == 201, r.json()
    assert r.json()["start_position"] != get_variant(KETE).initial_position().to_text()
    bad = start(alice_client, start_suite="nowhere")
    assert (bad.status_code, code(bad)) == (400, "unknown_start_suite")


def test_a_variant_the_engine_does_not_play_is_refused(alice_client, opponent, sent):
    r = start(alice_client, variant="bao-la-kiswahili")
    assert (r.status_code, code(r)) == (400, "variant_not_supported")


def test_the_bundled_engines_let_people_play_them(db):
    from engines.models import Engine
    from engines.services import register_bundled_engines

    register_bundled_engines(validate=False)
    assert set(Engine.objects.filter(is_bundled=True).values_list("name", "consent_people")) == {
        ("random", True), ("greedy", True), ("search", True),
    }  # fmt: skip
    assert make_engine("newcomer", people=Engine._meta.get_field("consent_people").default)
    assert Engine.objects.get(name="newcomer").consent_people is False


def test_a_game_whose_worker_died_no_longer_counts_against_the_limit(
    alice_client, opponent, sent, settings
):
    import datetime as dt

    settings.BAO_PEOPLE_GAMES_PER_USER = 1
    game_id = running_game(alice_client, sent)
    # The person's clock (300 s) ran out more than STALE_AFTER_S ago and nobody ended it.
    PersonGame.objects.filter(pk=game_id).update(
        turn_started_at=timezone.now() - dt.timedelta(seconds=300 + STALE_AFTER_S + 1)
    )
    r = start(alice_client)
    assert r.status_code == 201, r.json()
    game = PersonGame.objects.get(pk=game_id)
    assert (game.status, game.result, game.detail) == (
        "aborted", "*", "the worker playing it stopped",
    )  # fmt: skip


def test_a_game_still_on_its_clock_is_not_taken_for_stale(alice_client, opponent, sent, settings):
    import datetime as dt

    settings.BAO_PEOPLE_GAMES_PER_USER = 1
    game_id = running_game(alice_client, sent)
    PersonGame.objects.filter(pk=game_id).update(
        turn_started_at=timezone.now() - dt.timedelta(seconds=300 + STALE_AFTER_S - 5)
    )
    r = start(alice_client)
    assert (r.status_code, code(r)) == (409, "too_many_games")
    assert PersonGame.objects.get(pk=game_id).status == "running"


def test_the_beat_job_aborts_every_game_whose_worker_died(alice_client, bob_client, opponent, sent):
    import datetime as dt

    from django_celery_beat.models import PeriodicTask

    from people import tasks
    from people.models import PersonGameEvent
    from people.periodic import STALE_SWEEP_ENTRY, STALE_SWEEP_TASK

    dead = running_game(alice_client, sent)
    sent.clear()
    alive = running_game(bob_client, sent)
    PersonGame.objects.filter(pk=dead).update(
        turn_started_at=timezone.now() - dt.timedelta(seconds=300 + STALE_AFTER_S + 1)
    )
    PersonGame.objects.filter(pk=alive).update(
        turn_started_at=timezone.now() - dt.timedelta(seconds=300 + STALE_AFTER_S - 5)
    )
    assert tasks.abort_stale_person_games() == 1
    rows = dict(PersonGame.objects.values_list("pk", "status"))
    assert (rows[dead], rows[alive]) == ("aborted", "running")
    end = PersonGameEvent.objects.filter(game_id=dead).order_by("seq").last()
    assert end is not None
    assert (end.kind, end.payload["termination"], end.payload["detail"]) == (
        "end", "aborted", "the worker playing it stopped",
    )  # fmt: skip
    assert tasks.abort_stale_person_games() == 0  # idempotent
    # The data migration registered the job, every minute, on the beat queue.
    job = PeriodicTask.objects.get(name=STALE_SWEEP_ENTRY)
    assert (job.task, job.enabled, job.interval.every, job.interval.period) == (
        STALE_SWEEP_TASK, True, 1, "minutes",
    )  # fmt: skip
    from arena.beat_pool import beat_queue, route_beat_tasks

    assert route_beat_tasks(STALE_SWEEP_TASK, (), {}, {}) == {"queue": beat_queue()}


def test_a_persons_game_never_reaches_the_ratings(alice_client, opponent, sent):
    import datetime as dt

    from arena.matches.models import Game, Match
    from arena.terminations import is_rated
    from ratings.models import Rating
    from ratings.services import head_to_head_rebuild, rating_refit

    tembo = opponent.versions.get()
    other = make_engine("simba").versions.get()
    now = timezone.now()
    for i, (winner, result) in enumerate(((tembo, "1-0"), (other, "0-1"), (tembo, "1-0"))):
        match = Match.objects.create(
            variant=KETE,
            time_control="10+0.1",
            engine_a=tembo,
            engine_b=other,
            seed=i,
            status="finished",
            finished_at=now,
        )
        Game.objects.create(
            match=match,
            index=1,
            south=tembo,
            north=other,
            winner=winner,
            result=result,
            termination="bao_hamna",
            rated=True,
            plies=10,
            start_position="",
            finished_at=now + dt.timedelta(minutes=i),
        )
    head_to_head_rebuild(KETE)  # the games were stored by hand, not recorded
    rating_refit(KETE)  # fmt: skip
    before = Rating.objects.get(engine_version=tembo, variant=KETE)
    for _ in range(2):  # two games tembo won against a person, who resigned
        game_id = running_game(alice_client, sent)
        alice_client.post(f"/api/play/{game_id}/resign/")
        PersonGame.objects.filter(pk=game_id).update(
            status="finished", result="0-1", termination="resignation", finished_at=now
        )
        sent.clear()
    rating_refit(KETE)
    after = Rating.objects.get(engine_version=tembo, variant=KETE)
    assert (after.games, after.wins, after.rating) == (before.games, before.wins, before.rating)
    assert before.games == 3
    assert is_rated("resignation") is False


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_a_start_is_503_and_its_game_aborted(
    alice_client, opponent, monkeypatch
):
    """The send runs once the game is committed: it stays, aborted, and the answer is 503."""
    from kombu.exceptions import OperationalError as BrokerError

    from arena import celery

    class Down:
        def delay(self, *_: Any) -> None:
            raise BrokerError("Error 111 connecting to the broker. Connection refused.")

    monkeypatch.setattr(celery, "registered_task", lambda name: Down())
    r = start(alice_client)
    assert r.status_code == 503, r.content
    assert (code(r), r.json()["error"]["details"]["dependency"]) == (
        "service_unavailable",
        "broker",
    )
    assert r["Retry-After"] == "30"
    game = PersonGame.objects.get()
    assert (game.status, game.detail) == ("aborted", "the game could not be queued")
