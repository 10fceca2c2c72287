"""Engine text PostgreSQL cannot store (NUL) never keeps a match from being recorded.

The referee turns NUL and other control characters into U+FFFD where engine output becomes
text; ``match_record_result`` makes any remaining text storable; a record the database still
refuses aborts the match with the reason instead of leaving it ``running``. These tests run on
both databases; on SQLite (which stores NUL) they check the same exact values, on PostgreSQL
(CI) they are the real proof.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from django.db import DataError, connection, transaction

from arena.matches import runner
from arena.matches.models import Game, Match

from .conftest import make_version

NUL_ENGINE = Path(__file__).resolve().parents[2] / "referee" / "engines" / "nul_text.py"
R = "\ufffd"

pytestmark = pytest.mark.django_db


def _match(a, b) -> Match:  # type: ignore[no-untyped-def]
    return Match.objects.create(
        engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.1", seed=7
    )


def test_a_match_against_an_engine_writing_nul_everywhere_is_recorded(
    arena_user, greedy, fast_referee
) -> None:
    nul = make_version(arena_user, "nul-text", str(NUL_ENGINE))
    match = _match(nul, greedy)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    match.refresh_from_db()
    # greedy beats first-legal-move play in both games: 0-2, no third game.
    assert (match.status, match.error, match.score_a, match.score_b, match.winner_id) == (
        "finished",
        "",
        0.0,
        2.0,
        greedy.pk,
    )
    games = list(Game.objects.filter(match=match).order_by("index"))
    assert [(g.index, g.winner_id, g.rated) for g in games] == [
        (1, greedy.pk, True),
        (2, greedy.pk, True),
    ]
    for game in games:
        side = "south" if game.south_id == nul.pk else "north"
        mover = "S" if side == "south" else "N"
        infos = [m["info"] for m in game.moves if m["side"] == mover]
        assert infos and all(info == [f"string has{R}nul"] for info in infos)
        assert game.engine_errors[side].splitlines()[-1] == f"before{R}after"


def test_nul_left_in_a_record_is_stored_as_u_fffd(
    greedy, randomer, fast_referee, monkeypatch
) -> None:
    real_play = runner._play

    def play_with_nul(m, config, *args):  # type: ignore[no-untyped-def]
        # As if some text had reached the record without the referee's cleaning.
        record = real_play(m, config, *args)
        first, *rest = record.games
        first = replace(
            first,
            detail=first.detail + "\x00",
            moves=[replace(first.moves[0], info=["string a\x00b"]), *first.moves[1:]],
            engine_errors={first.south: "tail\x00\n", first.north: "\ud800"},
        )
        return replace(record, games=[first, *rest])

    monkeypatch.setattr(runner, "_play", play_with_nul)
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    game = Game.objects.get(match=match, index=1)
    assert game.detail.endswith(R) and "\x00" not in game.detail
    assert game.moves[0]["info"] == [f"string a{R}b"]
    assert game.engine_errors == {"south": f"tail{R}\n", "north": R}


def test_a_record_the_database_refuses_aborts_the_match_with_the_reason(
    greedy, randomer, fast_referee, monkeypatch
) -> None:
    def refuse(match_id, token, record, match=None):  # type: ignore[no-untyped-def]
        raise DataError("value too long for type character varying(256)")

    monkeypatch.setattr(runner, "match_record_result", refuse)
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.ABORTED
    match.refresh_from_db()
    assert (match.status, match.lease_token, match.winner_id) == ("aborted", "", None)
    assert match.error == (
        "the match record could not be stored: DataError: "
        "value too long for type character varying(256)"
    )
    assert not Game.objects.filter(match=match).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own refusals")
def test_on_postgresql_a_refused_record_aborts_the_match_instead_of_leaving_it_running(
    greedy, randomer, fast_referee, monkeypatch
) -> None:
    real_play = runner._play

    def overlong_position(m, config, *args):  # type: ignore[no-untyped-def]
        record = real_play(m, config, *args)
        first, *rest = record.games
        first = replace(first, start_position="x" * 300)  # the column holds 256
        return replace(record, games=[first, *rest])

    monkeypatch.setattr(runner, "_play", overlong_position)
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.ABORTED
    match.refresh_from_db()
    assert match.status == "aborted"
    assert match.error.startswith("the match record could not be stored: DataError: ")
    assert not Game.objects.filter(match=match).exists()
    # The premise of the guards: NUL and lone surrogates cannot reach PostgreSQL text at all
    # (the driver refuses both, the second as it cannot encode it).
    for value, error in (("a\x00b", DataError), ("\ud800", UnicodeEncodeError)):
        with pytest.raises(error), transaction.atomic():
            Match.objects.filter(pk=match.pk).update(error=value)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own refusals")
def test_on_postgresql_nul_in_a_games_json_is_refused_without_the_guard(
    greedy, randomer, fast_referee
) -> None:
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    game = Game.objects.filter(match=match).first()
    assert game is not None
    for value in ({"detail": "a\x00b"}, {"moves": ["a\x00b"]}, {"engine_errors": {"s": "\x00"}}):
        with pytest.raises(DataError), transaction.atomic():
            Game.objects.filter(pk=game.pk).update(**value)
