"""``GET /api/tournaments/{id}/trf/``: a Swiss played through the services, with a bye, a
withdrawal (its pending match forfeited) and an aborted match, exported as TRF-16; the file
reads back to the arena's own history, and pairing it from the command line gives the round
the arena paired."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from arena.matches.models import Match
from engines.models import Engine
from tournaments import services
from tournaments.formats import Played
from tournaments.models import Tournament
from tournaments.pairing import main
from tournaments.rounds import entries_of, history_of
from tournaments.trf import parse, to_arena

pytestmark = pytest.mark.django_db

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]


@pytest.fixture
def seven(make_version: Any) -> list[Any]:
    return [make_version(n) for n in NAMES]


def _create(fmt: str, rounds: int | None = None) -> Tournament:
    return services.tournament_create(
        name="TRF Cup",
        variant="bao-la-kete",
        time_control="2+0.05",
        engines=NAMES,
        format=fmt,
        start_at=timezone.now() - dt.timedelta(seconds=1),
        **({"rounds": rounds} if rounds else {}),
    )


def _end(match: Match, status: str, score_a: float | None, score_b: float | None) -> None:
    Match.objects.filter(pk=match.pk).update(status=status, score_a=score_a, score_b=score_b)
    match.refresh_from_db()
    services.match_finished(match)


def _pending(t: Tournament) -> list[Match]:
    return list(t.matches.filter(status="pending").order_by("id"))


def _play_round(t: Tournament, rng: random.Random, abort_first: bool = False) -> None:
    """End every match of the current round, one at a time (each end may withdraw an engine
    and forfeit a pending match): the first aborted if ``abort_first``."""
    t.refresh_from_db()
    number = t.current_round
    while pending := list(t.matches.filter(status="pending", round=number).order_by("id")):
        if abort_first:
            _end(pending[0], "aborted", None, None)
            abort_first = False
            continue
        score_a = rng.choice([2.0, 1.5, 0.5, 1.0])
        _end(pending[0], "finished", score_a, 3.0 - score_a if score_a != 1.0 else 2.0)


def _pairs(t: Tournament, number: int, tpn: dict[int, int]) -> list[tuple[int, int]]:
    """Round ``number``'s (South in game 1, North) start numbers (``tpn``: seed_no -> start
    number) and (start number, 0) for its bye."""
    seeds = {e.engine_version_id: tpn[e.seed_no] for e in entries_of(t)}
    pairs = [
        (seeds[a], seeds[b])
        for a, b in t.matches.filter(round=number).values_list("engine_a_id", "engine_b_id")
    ]
    byes = t.unplayed_results.filter(round=number, kind="bye")
    pairs += [(tpn[u.entry.seed_no], 0) for u in byes]
    return sorted(pairs)


def _export(client: Any, t: Tournament, query: str = "") -> str:
    response = client.get(f"/api/tournaments/{t.pk}/trf/{query}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    suffix = f"-before-round-{query.split('=')[1]}" if query else ""
    assert response["Content-Disposition"] == (
        f'attachment; filename="tournament-{t.pk}{suffix}.trf"'
    )
    return str(response.content.decode("utf-8"))


def _cli(tmp_path: Path, capsys: Any, text: str) -> list[tuple[int, int]]:
    """``python -m tournaments.pairing dutch`` on ``text`` (in this process: the command's own
    tests run it as a process), its pairs sorted."""
    path = tmp_path / "event.trf"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["dutch", str(path)]) == 0, capsys.readouterr().err
    lines = capsys.readouterr().out.splitlines()
    assert int(lines[0]) == len(lines) - 1
    return sorted((int(a), int(b)) for a, b in (line.split() for line in lines[1:]))


def test_a_finished_swiss_exports_as_trf_and_reads_back_to_its_history(
    seven: list[Any], anon_client: Any, tmp_path: Path, capsys: Any
) -> None:
    from ratings.models import Rating

    # Ratings out of entry order: the pairing numbers (start numbers) are not the seeds.
    for version, rating in zip(seven, (1500, 1620, 1480, 1700, 1550, 1610, 1400), strict=True):
        Rating.objects.create(engine_version=version, variant="bao-la-kete", rating=rating)
    tpn = {1: 5, 2: 2, 3: 6, 4: 1, 5: 4, 6: 3, 7: 7}  # seed_no -> start number
    rng = random.Random(31)
    t = _create("swiss", rounds=4)
    assert services.tournament_start(t.pk)
    _play_round(t, rng)  # round 1: 3 matches and a bye
    t.refresh_from_db()
    assert t.current_round == 2
    # Mid-event: rounds 1 complete, round 2 paired: the file pairs round 2 as the arena did.
    assert _cli(tmp_path, capsys, _export(anon_client, t)) == _pairs(t, 2, tpn)
    # An engine withdraws with its round 2 match pending: the match is forfeited.
    withdrawing = _pending(t)[1].engine_b
    Engine.objects.filter(pk=withdrawing.engine_id).update(is_enabled=False)
    _play_round(t, rng)
    t.refresh_from_db()
    assert t.current_round == 3 and t.unplayed_results.filter(kind="forfeit").count() == 1
    mid = _export(anon_client, t)
    assert _cli(tmp_path, capsys, mid) == _pairs(t, 3, tpn)  # six left: no bye
    withdrawn_seed = next(tpn[e.seed_no] for e in entries_of(t) if e.engine_version == withdrawing)
    absent = next(p for p in parse(mid).players if p.id == withdrawn_seed)
    assert absent.games[-1].result == "Z" and len(absent.games) == 3
    _play_round(t, rng, abort_first=True)
    t.refresh_from_db()
    assert t.current_round == 4
    before_4 = _export(anon_client, t)
    assert _cli(tmp_path, capsys, before_4) == _pairs(t, 4, tpn)  # the aborted pair apart
    first = t.matches.filter(round=4, status="pending").order_by("id")[0]
    _end(first, "finished", 2.0, 1.0)
    assert _export(anon_client, t) == before_4  # round 4 is not over: not written yet
    _play_round(t, rng)
    t.refresh_from_db()
    assert t.status == "finished"

    text = _export(anon_client, t)
    trf = parse(text)
    assert (trf.name, trf.rounds, trf.first_colour, trf.rounds_paired) == (
        "TRF Cup",
        4,
        "white1",
        4,
    )
    assert len(trf.forbidden) == 1  # the aborted match
    codes = {g.result for p in trf.players for g in p.games}
    assert {"1", "0", "=", "+", "-", "U", "Z"} <= codes
    entries = entries_of(t)
    view = to_arena(trf)

    def numbered(h: Played, ids: Callable[[int], int]) -> tuple[Any, ...]:
        return (h.round, ids(h.a), None if h.b is None else ids(h.b), h.points_a, h.kind)

    assert sorted(numbered(h, lambda s: view.ids[s]) for h in view.history) == sorted(
        numbered(h, lambda s: tpn[s + 1]) for h in history_of(t, entries)
    )
    assert view.ids == tuple(range(1, 8))
    by_tpn = {tpn[k]: NAMES[k - 1] for k in tpn}
    assert view.names == tuple(f"{by_tpn[i]} v1" for i in range(1, 8))
    assert view.ratings == (1700, 1620, 1610, 1550, 1500, 1480, 1400)
    body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    ranks = {r["engine"]: r["rank"] for r in body["standings"]}
    assert {p.name: p.rank for p in trf.players} == {f"{n} v1": r for n, r in ranks.items()}
    points = {r["engine"]: r["points"] for r in body["standings"]}
    assert {p.name: p.points for p in trf.players} == {f"{n} v1": x for n, x in points.items()}

    # Any round can be checked from the file as it was before it.
    for number in (1, 2, 3, 4):
        before = _export(anon_client, t, f"?round={number}")
        assert _cli(tmp_path, capsys, before) == _pairs(t, number, tpn)


def test_the_export_refuses_another_format_and_a_round_out_of_range(
    seven: list[Any], anon_client: Any
) -> None:
    rr = _create("round_robin")
    response = anon_client.get(f"/api/tournaments/{rr.pk}/trf/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "tournament_not_swiss"
    assert response.json()["error"]["details"] == {"format": "round_robin"}
    swiss = _create("swiss", rounds=3)
    for query in ("?round=0", "?round=x", "?round=10000"):
        response = anon_client.get(f"/api/tournaments/{swiss.pk}/trf/{query}")
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] == "invalid"
        assert list(response.json()["error"]["details"]) == ["round"]
    response = anon_client.get(f"/api/tournaments/{swiss.pk}/trf/?round=2")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert response.json()["error"]["details"] == {"round": 2, "max_round": 1}
    assert anon_client.get("/api/tournaments/999999/trf/").status_code == 404
    # Before the start: a file of the field alone, no round, for round 1.
    text = _export(anon_client, swiss)
    assert [line[:3] for line in text.splitlines()] == ["012", "XXR", "XXC"] + ["001"] * 7


def test_the_schema_documents_the_export_as_plain_text(anon_client: Any) -> None:
    schema = anon_client.get("/api/schema/?format=json").json()
    op = schema["paths"]["/api/tournaments/{tournament_id}/trf/"]["get"]
    assert list(op["responses"]["200"]["content"]) == ["text/plain"]
    assert {"400", "404", "409"} <= set(op["responses"])
    assert [p["name"] for p in op["parameters"] if p["in"] == "query"] == ["round"]
