"""``GET /api/games/export/``: JSON lines in id order, pages linked by ``Link: rel="next"``,
filters, gzip, the rate limit and refused parameters."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import re
from typing import Any

import pytest
from django.test import override_settings

from arena.matches.gameline import GameLine
from arena.matches.gamerecord import game_record_text
from arena.matches.models import Game
from tests.service.rated_play import make_finished_match, make_version  # noqa: F401

URL = "/api/games/export/"


def _body(response: Any) -> bytes:
    data = b"".join(response.streaming_content)
    if response.get("Content-Encoding") == "gzip":
        data = gzip.decompress(data)
    return data


def _lines(response: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _body(response).decode().splitlines()]


def _next(response: Any) -> str | None:
    link = response.get("Link")
    if link is None:
        return None
    m = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert m is not None, link
    return m.group(1)


@pytest.fixture
def finished_tournament(make_version: Any, make_finished_match: Any) -> Any:
    from tournaments.models import Tournament

    a, b, c = make_version("alpha"), make_version("beta"), make_version("gamma")
    t = Tournament.objects.create(
        name="Cup", variant="bao-la-kete", time_control="10+0.1", status="finished",
        start_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), current_round=3,
    )  # fmt: skip
    for round_no, (x, y) in enumerate([(a, b), (a, c), (b, c)], start=1):
        make_finished_match(x, y, ["1-0", "0-1", "1/2-1/2"], tournament=t, round=round_no)
    # Games outside the tournament, before and after its ids.
    make_finished_match(a, b, ["1-0", "1-0"], variant="bao-kingulu")
    return t


def test_every_game_of_a_finished_tournament_comes_once_across_pages(
    anon_client: Any, finished_tournament: Any
) -> None:
    expected = list(
        Game.objects.filter(match__tournament=finished_tournament)
        .order_by("id")
        .values_list("id", flat=True)
    )
    assert len(expected) == 9
    seen: list[int] = []
    url: str | None = f"{URL}?tournament={finished_tournament.pk}&limit=4"
    pages = 0
    while url is not None:
        response = anon_client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
        seen += [line["id"] for line in _lines(response)]
        url = _next(response)
        pages += 1
    assert seen == expected
    assert pages == 3  # 4 + 4 + 1: no Link after the last page


def test_a_line_holds_the_replay_fields_and_the_text_record(
    anon_client: Any, finished_tournament: Any
) -> None:
    game = Game.objects.filter(match__tournament=finished_tournament).order_by("id").first()
    assert game is not None
    (line,) = _lines(anon_client.get(f"{URL}?limit=1"))
    assert line["id"] == game.pk
    assert line["south"] == {
        "id": game.south_id,
        "engine": "alpha",
        "version": 1,
        "label": "alpha v1",
    }
    assert (line["event"], line["round"], line["variant"]) == ("Cup", 1, "bao-la-kete")
    assert (line["result"], line["termination"], line["plies"]) == ("1-0", "bao_hamna", 10)
    assert line["engine_errors"] == {}
    assert line["record"] == game_record_text(game)
    assert GameLine.from_dict(line).to_dict() == line


def test_filters_by_engine_variant_and_version_test(
    anon_client: Any, finished_tournament: Any, make_version: Any, make_finished_match: Any
) -> None:
    from versiontests.models import VersionTest, VersionTestPair

    gamma = {line["id"] for line in _lines(anon_client.get(f"{URL}?engine=GAMMA"))}
    assert gamma == set(
        Game.objects.filter(south__engine__name="gamma").values_list("id", flat=True)
    ) | set(Game.objects.filter(north__engine__name="gamma").values_list("id", flat=True))
    assert len(gamma) == 6
    kingulu = _lines(anon_client.get(f"{URL}?variant=kingulu"))
    assert [line["variant"] for line in kingulu] == ["bao-kingulu", "bao-kingulu"]
    new, base = make_version("new"), make_version("base")
    pair_match = make_finished_match(new, base, ["1-0", "1/2-1/2"])
    test = VersionTest.objects.create(
        created_by=new.engine.owner, new_version=new, base_version=base,
        variant="bao-la-kete", time_control="10+0.1", elo_model="logistic", elo0=0, elo1=5,
        max_pairs=10,
    )  # fmt: skip
    VersionTestPair.objects.create(test=test, index=0, match=pair_match, state="counted")
    lines = _lines(anon_client.get(f"{URL}?test={test.pk}"))
    assert [line["match"] for line in lines] == [pair_match.pk, pair_match.pk]
    assert _lines(anon_client.get(f"{URL}?engine=nobody")) == []
    after = _lines(anon_client.get(f"{URL}?since={lines[0]['id']}"))
    assert [line["id"] for line in after] == [lines[1]["id"]]


def test_the_body_is_gzip_encoded_when_the_client_accepts_it(
    anon_client: Any, finished_tournament: Any
) -> None:
    plain = anon_client.get(URL)
    assert plain.get("Content-Encoding") is None
    zipped = anon_client.get(URL, HTTP_ACCEPT_ENCODING="br, gzip;q=0.8")
    assert zipped["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped["Vary"]
    assert _body(zipped) == _body(plain)
    refused = anon_client.get(URL, HTTP_ACCEPT_ENCODING="gzip;q=0, *")
    assert refused.get("Content-Encoding") is None


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("limit=0", "limit"),
        ("limit=10001", "limit"),
        ("limit=x", "limit"),
        ("since=-1", "since"),
        ("tournament=0", "tournament"),
        ("test=9223372036854775808", "test"),
        ("tournament=", "tournament"),
        ("engine=", "engine"),
        ("limit=1&limit=3", "limit"),
        ("variant=kete&variant=kete", "variant"),
    ],
)
def test_bad_parameters_are_400_invalid(anon_client: Any, db: Any, query: str, param: str) -> None:
    response = anon_client.get(f"{URL}?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "invalid"
    assert param in body["error"]["details"]


def test_an_unknown_variant_or_parameter_is_refused(anon_client: Any, db: Any) -> None:
    response = anon_client.get(f"{URL}?variant=chess")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "unknown_variant")
    response = anon_client.get(f"{URL}?tournamnet=1")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid")


def test_reads_are_rate_limited_per_client(anon_client: Any, alice_client: Any, db: Any) -> None:
    rates = {"export": "2/hour"}
    with override_settings(BAO_THROTTLE_RATES=rates):
        assert anon_client.get(URL).status_code == 200
        assert anon_client.get(URL).status_code == 200
        response = anon_client.get(URL)
        assert response.status_code == 429
        error = response.json()["error"]
        assert error["code"] == "throttled"
        assert error["details"]["retry_after_seconds"] > 0
        assert int(response["Retry-After"]) > 0
        # Another client has its own count.
        assert alice_client.get(URL).status_code == 200


def test_the_engine_tournament_and_version_test_pages_link_to_their_export(
    anon_client: Any, finished_tournament: Any, make_version: Any
) -> None:
    from versiontests.models import VersionTest

    new, base = make_version("new"), make_version("base")
    test = VersionTest.objects.create(
        created_by=new.engine.owner, new_version=new, base_version=base,
        variant="bao-la-kete", time_control="10+0.1", elo_model="logistic", elo0=0, elo1=5,
        max_pairs=10,
    )  # fmt: skip
    for page, link in [
        ("/engines/alpha/", f"{URL}?engine=alpha"),
        (f"/tournaments/{finished_tournament.pk}/", f"{URL}?tournament={finished_tournament.pk}"),
        (f"/tests/{test.pk}/", f"{URL}?test={test.pk}"),
    ]:
        response = anon_client.get(page)
        assert response.status_code == 200, page
        assert f'href="{link}"' in response.content.decode(), page
