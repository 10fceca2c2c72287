"""The browsing pages as HTML: home with leaderboards and trends, the lists with paging and
filters (the API's, refusing what it refuses), the engine page (chart, versions, head to head,
what only the owner sees), the match and tournament pages; query counts that do not grow with
the rows shown."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _html(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


def test_home_shows_leaderboards_with_trend_running_matches_and_results(world: Any) -> None:
    w = world(3)
    html = _html(Client(), "/")
    board = html[html.index('id="lb-bao-la-kete"') : html.index('id="lb-bao-la-kiswahili"')]
    assert '<a class="ev" href="/engines/alpha/">alpha</a>' in board and "6/0/0" in board
    assert board.count('<svg class="spark"') == 2  # a trend line per rated version
    assert "Elo over its last 3 rated matches" in board
    assert f'href="/matches/{w["running"].pk}/"' in html  # being played now
    assert "Watch 1 game live" in html
    assert f'href="/tournaments/{w["tournament"].pk}/">Spring cup</a>' in html
    assert html.count('aria-label="Replay of game') == 6  # the three results' games


def test_the_trend_is_the_change_over_the_latest_rating_points(world: Any) -> None:
    from ratings.models import RatingPoint
    from ratings.selectors import rating_trends

    w = world(3)
    history = list(RatingPoint.objects.filter(engine_version=w["a2"]).order_by("finished_at"))
    trends = rating_trends(
        keys=[(w["a2"].pk, "bao-la-kete"), (w["a2"].pk, "bao-kingulu")], points=2
    )
    assert trends == {(w["a2"].pk, "bao-la-kete"): [history[-2].rating, history[-1].rating]}


def test_the_trends_hold_the_latest_points_of_each_version_in_each_variant_asked(
    world: Any,
) -> None:
    import datetime as dt

    from arena.matches.models import Match
    from ratings.models import RatingPoint
    from ratings.selectors import rating_trends

    w = world(3)
    a2, b1 = w["a2"], w["b1"]
    kete = {v: [p.rating for p in RatingPoint.objects.filter(engine_version=v)
                .order_by("finished_at", "id")] for v in (a2, b1)}  # fmt: skip
    assert len(kete[a2]) == len(kete[b1]) == 3
    # Kingulu points of alpha v2: two at the same time (the later id is the newer).
    same = dt.datetime(2026, 4, 1, tzinfo=dt.UTC)
    for n, (rating, at) in enumerate(((1400.0, same - dt.timedelta(days=1)), (1410.0, same),
                                      (1420.0, same))):  # fmt: skip
        match = Match.objects.create(
            variant="bao-kingulu",
            time_control="10+0.1",
            engine_a=a2,
            engine_b=b1,
            seed=50 + n,
            status="finished",
        )
        RatingPoint.objects.create(
            match=match,
            engine_version=a2,
            opponent=b1,
            variant="bao-kingulu",
            games=2,
            points=1.0,
            rating=rating,
            low=rating - 50,
            high=rating + 50,
            finished_at=at,
            fitted_at=at,
        )
    keys = [
        (a2.pk, "bao-la-kete"),
        (b1.pk, "bao-la-kete"),
        (a2.pk, "bao-kingulu"),
        (b1.pk, "bao-kingulu"),
    ]
    assert rating_trends(keys=keys, points=2) == {
        (a2.pk, "bao-la-kete"): kete[a2][-2:],
        (b1.pk, "bao-la-kete"): kete[b1][-2:],
        (a2.pk, "bao-kingulu"): [1410.0, 1420.0],
    }
    assert rating_trends(keys=keys[2:3], points=12) == {
        (a2.pk, "bao-kingulu"): [1400.0, 1410.0, 1420.0]
    }
    assert rating_trends(keys=[], points=12) == {}


def test_the_engine_page_shows_versions_chart_head_to_head_and_games(world: Any) -> None:
    world(3)
    html = _html(Client(), "/engines/ALPHA/")  # any case, as the API
    assert "<h1>alpha" in html
    v1 = html[html.index('id="version-1"') : html.index("</tr>", html.index('id="version-1"'))]
    assert '<span class="badge rejected">rejected</span>' in v1
    # The stored reason starts with its code, as validation writes it: the code shows once.
    assert '<span class="reject-code">crash</span>: exited with status 3' in v1
    assert "crash: crash" not in v1
    assert '<span class="badge active">active</span>' in html
    chart = html[
        html.index('<svg viewBox="0 0 760 280" role="img"') : html.index(
            "</svg>", html.index('class="rating-chart"')
        )
    ]
    assert '<path class="line" d="M' in chart and '<path class="band"' in chart
    assert re.search(
        r"<desc id=\"chart-bao-la-kete-desc\">Rating history of alpha in "
        r"bao-la-kete: alpha v2: \d+ after its first rated match",
        chart,
    )
    h2h = html[html.index('id="h2h-h"') : html.index('id="games-h"')]
    assert '<a href="/engines/beta/">beta</a></td><td>6</td><td>6/0/0</td><td>100%</td>' in h2h
    assert html.count(">replay</a>") == 6
    assert "Validation is running" not in html


def test_an_unknown_engine_is_the_styled_404_page(db: Any) -> None:
    html = _html(Client(), "/engines/nobody/", 404)
    assert "<h1>Not found</h1>" in html and "nobody" in html
    assert '<link rel="stylesheet" href="/static/web/arena.css">' in html


@pytest.mark.parametrize("viewer", [None, "bob"])
def test_a_non_owner_never_sees_logs_or_owner_controls(
    world: Any, viewer: str | None, request: Any
) -> None:
    world(2)
    client = Client()
    if viewer:
        client.force_login(request.getfixturevalue(viewer))
    html = _html(client, "/engines/alpha/")
    assert "SECRET" not in html  # neither the rejection log nor any game's stderr
    assert 'id="owner-controls"' not in html and "/settings/" not in html
    assert 'name="file"' not in html


def test_the_owner_sees_the_logs_of_their_engine_only_and_the_controls(
    world: Any, alice: Any
) -> None:
    world(2)
    client = Client()
    client.force_login(alice)
    html = _html(client, "/engines/alpha/")
    assert "SECRET-ALPHA-STDERR" in html
    assert html.count("stderr of alpha: SECRET-GAME") == 4  # alpha's side of each game
    assert "stderr of beta" not in html  # the opponent's stderr is the opponent's
    assert 'id="owner-controls"' in html and 'id="toggle-enabled"' in html
    assert 'id="consent-form"' in html
    assert (
        '<option value="anyone" selected>' in html
        and 'id="f-ladder" name="ladder" value="true" checked' in html
    )
    assert '<input type="hidden" name="name" value="alpha">' in html  # upload a new version


def test_the_owner_disables_and_enables_the_engine(world: Any, alice: Any, bob: Any) -> None:
    w = world(1)
    client = Client()
    client.force_login(alice)
    response = client.post("/engines/alpha/settings/", {"is_enabled": "false"}, follow=True)
    assert "alpha is now disabled." in response.content.decode()
    w["alpha"].refresh_from_db()
    assert w["alpha"].is_enabled is False
    other = Client()
    other.force_login(bob)
    assert other.post("/engines/alpha/settings/", {"is_enabled": "true"}).status_code == 403
    w["alpha"].refresh_from_db()
    assert w["alpha"].is_enabled is False
    assert Client().post("/engines/alpha/settings/", {"is_enabled": "true"}).status_code == 302


def test_the_owner_sets_the_consent(world: Any, alice: Any) -> None:
    from engines.consent import consent_of

    w = world(1)
    client = logged_in(alice)
    response = client.post(
        "/engines/alpha/settings/",
        {
            "form": "consent",
            "rated_pairing": "own_events",
            "challenges": "unrated",
            "version_tests": "true",
            "people": "true",
        },
        follow=True,
    )  # the ladder box unticked
    assert "The consent settings of alpha are saved." in response.content.decode()
    w["alpha"].refresh_from_db()
    assert consent_of(w["alpha"]) == {
        "rated_pairing": "own_events",
        "challenges": "unrated",
        "ladder": False,
        "version_tests": True,
        "people": True,
    }
    bad = client.post("/engines/alpha/settings/", {"form": "consent", "challenges": "some"})
    assert bad.status_code == 400
    assert "consent: challenges: &quot;some&quot; is not a valid choice." in (bad.content.decode())


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_bad_settings_value_is_refused_with_the_api_message(world: Any, alice: Any) -> None:
    world(1)
    client = Client()
    client.force_login(alice)
    response = client.post("/engines/alpha/settings/", {"is_enabled": "maybe"})
    assert response.status_code == 400
    assert "is_enabled: Must be a valid boolean." in response.content.decode()


def test_the_lists_page_and_keep_their_filters(world: Any, settings: Any) -> None:
    from arena.web import paging

    world(5)
    paging.PAGE_SIZE, saved = 2, paging.PAGE_SIZE
    try:
        html = _html(Client(), "/matches/?engine=alpha&status=finished")
        assert html.count('aria-label="Replay of game 1') == 2
        assert "Page 1 of 3 (5 in all)" in html
        assert 'href="?engine=alpha&amp;status=finished&amp;page=2"' in html
        last = _html(Client(), "/matches/?engine=alpha&status=finished&page=3")
        assert last.count('aria-label="Replay of game 1') == 1 and 'rel="prev"' in last
    finally:
        paging.PAGE_SIZE = saved
    assert "No match matches" in _html(Client(), "/matches/?engine=nobody")


def test_a_filter_the_api_refuses_is_shown_next_to_it(db: Any) -> None:
    html = _html(Client(), "/matches/?variant=chess", 400)
    field = html[html.index('id="f-variant"') : html.index("</div>", html.index('id="f-variant"'))]
    assert 'aria-invalid="true"' in field and "unknown variant" in field.lower()
    html = _html(Client(), "/matches/?tournament=abc", 400)
    assert 'id="f-tournament-errors"' in html and "Enter a whole number." in html
    html = _html(Client(), "/engines/?variant=chess", 400)
    assert 'id="f-variant-errors"' in html
    _html(Client(), "/tournaments/?status=nope", 400)


def test_engines_and_tournaments_lists_filter(world: Any) -> None:
    world(1)
    html = _html(Client(), "/engines/?owner=bob")
    assert 'href="/engines/beta/"' in html and 'href="/engines/alpha/"' not in html
    assert 'href="/engines/alpha/"' in _html(Client(), "/engines/?search=LPH")
    assert "Spring cup" in _html(Client(), "/tournaments/?status=running&variant=kete")
    assert "Spring cup" not in _html(Client(), "/tournaments/?status=finished")


def test_the_tournament_page_shows_pairings_live_games_and_rounds(world: Any) -> None:
    w = world(2)
    html = _html(Client(), f"/tournaments/{w['tournament'].pk}/")
    current = html[html.index('id="current-pairings"') :]
    assert current.startswith(
        f'id="current-pairings"><li><a href="/matches/{w["running"].pk}/">'
        "round 2: beta v1 &ndash; alpha v2</a>"
    )
    assert f'href="/live/{w["live"].pk}/"' in html
    assert 'id="next-pairings"><li>round 3: alpha v2 &ndash; beta v1</li>' in html
    assert "<h3>Round 1</h3>" in html and "<h3>Round 3</h3>" in html
    assert 'max="4" value="2"' in html  # the progress bar: 2 of 4 matches done


def test_a_scheduled_tournament_shows_its_first_round(world: Any) -> None:
    from tournaments import services

    world(0)
    t = services.tournament_create(
        name="Later", variant="kete", engines=["beta", "alpha"], time_control="10+0.1"
    )
    html = _html(Client(), f"/tournaments/{t.pk}/")
    assert 'id="next-pairings"><li>beta v1 &ndash; alpha v2</li>' in html


def test_the_match_page_lists_its_games_and_live_game(world: Any) -> None:
    from arena.matches.models import Match

    w = world(1)
    finished = Match.objects.filter(status="finished").get()
    html = _html(Client(), f"/matches/{finished.pk}/")
    assert html.count(">replay of game ") == 2 and "<b>2&ndash;0</b>" in html
    assert f'href="/live/{w["live"].pk}/">watch game 1 live' in _html(
        Client(), f"/matches/{w['running'].pk}/"
    )
    _html(Client(), "/matches/999999/", 404)


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        ("/", 12),
        ("/engines/", 4),
        ("/engines/alpha/", 10),
        ("/matches/", 4),
        ("/tournaments/", 3),
        ("TOURNAMENT", 7),
    ],
)
def test_pages_read_a_fixed_number_of_queries_whatever_the_rows(
    world: Any, url: str, budget: int, django_assert_max_num_queries: Any
) -> None:
    w = world(12)
    if url == "TOURNAMENT":
        url = f"/tournaments/{w['tournament'].pk}/"
    client = Client()
    client.get(url)  # warm: session, content types
    # 12 matches, 24 games: a query per row would be far over any of these budgets.
    with django_assert_max_num_queries(budget):
        assert client.get(url).status_code == 200


def test_the_owner_engine_page_reads_a_fixed_number_of_queries(
    world: Any, alice: Any, django_assert_max_num_queries: Any
) -> None:
    world(12)
    client = Client()
    client.force_login(alice)
    client.get("/engines/alpha/")
    with django_assert_max_num_queries(14):
        assert client.get("/engines/alpha/").status_code == 200


def _more_engines(owner: Any, *names: str) -> None:
    from engines.models import Engine, EngineVersion

    for name in names:
        engine = Engine.objects.create(owner=owner, name=name)
        EngineVersion.objects.create(
            engine=engine,
            number=1,
            status="active",
            sha256="2" * 64,
            original_filename=name,
            size_bytes=1,
            storage_path=f"{name}/1",
            variants=["bao-la-kete"],
        )


def test_a_knockout_shows_its_bracket_and_a_swiss_its_first_round(world: Any, bob: Any) -> None:
    from tournaments import services

    world(0)
    _more_engines(bob, "gamma", "delta")
    ko = services.tournament_create(
        name="KO",
        variant="kete",
        format="knockout",
        engines=["alpha", "beta", "gamma", "delta"],
        time_control="10+0.1",
        rated=False,
    )
    services.tournament_start(ko.pk)
    html = _html(Client(), f"/tournaments/{ko.pk}/")
    bracket = html[html.index('id="bracket-h"') : html.index("<h2>Crosstable</h2>")]
    assert bracket.count('<li class="tie') == 3  # two semi-finals, the final
    assert "<h3>Final</h3>" in bracket and bracket.count("not decided yet") == 2
    assert "winner of round 1 tie 1</span>" in bracket
    assert "ordered by round reached, seed." in html
    swiss = services.tournament_create(
        name="Swiss",
        variant="kete",
        format="swiss",
        rounds=2,
        engines=["alpha", "beta", "gamma", "delta"],
        time_control="10+0.1",
        rated=False,
    )
    html = _html(Client(), f"/tournaments/{swiss.pk}/")
    preview = html[
        html.index('id="next-pairings"') : html.index("</ul>", html.index('id="next-pairings"'))
    ]
    assert preview.count("<li>") == 2 and "bracket-h" not in html
    assert "ordered by points, Buchholz, Sonneborn-Berger." in html
    assert '<th scope="col">Buchholz</th><th scope="col">Sonneborn-Berger</th>' in html


def test_the_creator_cancels_a_tournament_others_may_not(world: Any, alice: Any, bob: Any) -> None:
    from tournaments import services
    from tournaments.models import Tournament

    world(0)
    t = services.tournament_create(
        name="Mine",
        variant="kete",
        engines=["alpha", "beta"],
        time_control="10+0.1",
        rated=False,
        created_by=alice,
    )
    assert 'id="cancel-tournament"' not in _html(logged_in(bob), f"/tournaments/{t.pk}/")
    refused = logged_in(bob).post(f"/tournaments/{t.pk}/cancel/", {"reason": "no"})
    assert refused.status_code == 403
    owner = logged_in(alice)
    assert 'id="cancel-tournament"' in _html(owner, f"/tournaments/{t.pk}/")
    done = owner.post(f"/tournaments/{t.pk}/cancel/", {"reason": "wrong field"}, follow=True)
    assert "The tournament is cancelled" in done.content.decode()
    t.refresh_from_db()
    assert (t.status, t.cancel_reason) == (Tournament.Status.CANCELLED, "wrong field")
    assert owner.post(f"/tournaments/{t.pk}/cancel/").status_code == 409


def test_the_challenger_sees_the_queue_and_cancels_the_match(
    world: Any, alice: Any, bob: Any
) -> None:
    from arena.matches.models import Match

    world(0)
    client = logged_in(alice)
    client.post(
        "/matches/new/",
        {
            "engine": "alpha",
            "opponent": "beta",
            "variant": "kete",
            "time_control": "10+0.1",
            "start_suite": "standard",
        },
    )
    match = Match.objects.get(challenger=alice)
    html = _html(client, f"/matches/{match.pk}/")
    # Behind the world's pending tournament match, or ahead of it (fair share): in the queue.
    assert re.search(r'id="queue-position">Waiting for a worker: number [12] in the queue\.', html)
    assert 'id="cancel-match"' in html
    assert 'id="cancel-match"' not in _html(logged_in(bob), f"/matches/{match.pk}/")
    assert logged_in(bob).post(f"/matches/{match.pk}/cancel/").status_code == 403
    done = client.post(f"/matches/{match.pk}/cancel/", {"reason": "wrong clock"}, follow=True)
    assert f"Match {match.pk} is cancelled." in done.content.decode()
    match.refresh_from_db()
    assert (match.status, match.error) == ("aborted", "cancelled: wrong clock")
    assert client.post(f"/matches/{match.pk}/cancel/").status_code == 409
