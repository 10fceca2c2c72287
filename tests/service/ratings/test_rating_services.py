"""Refitting ratings from the database: stored values equal the pure fit, rated games only,
history as of the first refit, the after-commit debounced trigger, stale and superseded refits."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from ratings import services as rating_services
from ratings.models import Rating, RatingPoint, RatingPool
from ratings.stats.whr import fit
from tournaments.services import match_finished

pytestmark = pytest.mark.django_db

KETE = "bao-la-kete"


def _rating(version: Any, variant: str = KETE) -> Rating:
    return Rating.objects.get(engine_version=version, variant=variant)


def test_a_refit_stores_the_fit_of_every_rated_game(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    # A wins games 1 and 3, loses game 2: 2 of 3 -> a rating difference of 400 log10(2).
    make_finished_match(a, b, ["1-0", "1-0", "1-0"])
    assert rating_services.rating_refit(KETE)
    ra, rb = _rating(a), _rating(b)
    diff = 400 * math.log10(2)
    assert ra.rating == pytest.approx(1500 + diff / 2)
    assert rb.rating == pytest.approx(1500 - diff / 2)
    assert (ra.games, ra.wins, ra.draws, ra.losses, ra.points) == (3, 2, 0, 1, 2.0)
    assert (ra.provisional, ra.prior, ra.excluded_reason) == (True, False, "")
    expected = fit([(a.pk, b.pk, 1.0), (b.pk, a.pk, 1.0), (a.pk, b.pk, 1.0)])
    top = expected.ratings[0]
    assert (ra.low, ra.high) == (pytest.approx(top.low), pytest.approx(top.high))
    assert ra.superiority == pytest.approx(expected.superiority(a.pk, b.pk))
    assert rb.superiority is None  # the last row
    pool = RatingPool.objects.get(variant=KETE)
    assert (pool.games, pool.rated, pool.excluded) == (3, 2, 0)
    assert pool.fitted_at is not None and pool.fit_ms > 0


def test_the_order_in_which_matches_were_recorded_changes_nothing(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b, c = make_version("alpha"), make_version("beta"), make_version("gamma")
    results = [(a, b, ["1-0", "1/2-1/2"]), (b, c, ["1-0", "1-0", "0-1"]), (c, a, ["1-0", "0-1"])]
    for x, y, r in results:
        make_finished_match(x, y, r)
    rating_services.rating_refit(KETE)
    first = {r.engine_version_id: r.rating for r in Rating.objects.all()}
    from arena.matches.models import Match

    Match.objects.all().delete()
    for x, y, r in reversed(results):
        make_finished_match(x, y, r)
    rating_services.rating_refit(KETE)
    second = {r.engine_version_id: r.rating for r in Rating.objects.all()}
    assert second == {k: pytest.approx(v) for k, v in first.items()}


def test_aborted_games_and_unrated_matches_are_not_counted(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    make_finished_match(a, b, ["1-0", "*"], terminations=["time_forfeit", "aborted"])
    make_finished_match(a, b, ["0-1", "0-1"], rated=False)
    rating_services.rating_refit(KETE)
    assert (_rating(a).games, _rating(a).wins, _rating(b).losses) == (1, 1, 1)
    # One decisive game: the rated group is one version, the winner only a bound above it.
    assert (_rating(a).bound, _rating(b).bound, _rating(a).prior) == (">", "", True)
    assert _rating(a).high is None and _rating(a).low is not None


def test_ratings_are_fitted_per_variant(make_version: Any, make_finished_match: Any) -> None:
    a, b = make_version("alpha"), make_version("beta")
    make_finished_match(a, b, ["1-0", "0-1"], variant="bao-kingulu")
    rating_services.rating_refit(KETE)
    rating_services.rating_refit("bao-kingulu")
    assert not Rating.objects.filter(variant=KETE).exists()
    assert _rating(a, "bao-kingulu").games == 2


def test_history_keeps_the_rating_of_the_first_refit_that_included_each_match(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    first = make_finished_match(a, b, ["1-0", "1-0", "1-0"])  # a 2-1
    rating_services.rating_refit(KETE)
    after_first = _rating(a).rating
    rating_services.rating_refit(KETE)  # nothing new: the history is not rewritten
    second = make_finished_match(a, b, ["1-0", "0-1"])  # a 2-0
    rating_services.rating_refit(KETE)
    assert _rating(a).rating > after_first
    points = list(RatingPoint.objects.filter(engine_version=a).order_by("finished_at"))
    assert [(p.match_id, p.opponent_id, p.games, p.points) for p in points] == [
        (first.pk, b.pk, 3, 2.0),
        (second.pk, b.pk, 2, 2.0),
    ]
    assert points[0].rating == pytest.approx(after_first)
    assert points[1].rating == pytest.approx(_rating(a).rating)
    assert points[0].low < points[0].rating < points[0].high
    assert RatingPoint.objects.count() == 4  # one per side per match


def test_a_version_not_connected_to_the_pool_is_reported_not_rated(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b, c = make_version("alpha"), make_version("beta"), make_version("gamma")
    x, y = make_version("xi"), make_version("ypsilon")
    make_finished_match(a, b, ["1-0", "1-0", "1/2-1/2"])
    make_finished_match(b, c, ["1-0", "1-0"])
    make_finished_match(x, y, ["1-0", "1-0"])
    rating_services.rating_refit(KETE)
    left_out = _rating(x)
    assert (left_out.rating, left_out.low, left_out.games) == (None, None, 2)
    assert left_out.excluded_reason == "not connected to the rated pool by games"
    assert not RatingPoint.objects.filter(engine_version__in=(x, y)).exists()
    assert RatingPool.objects.get(variant=KETE).excluded == 2


def test_recording_a_match_requests_a_refit_only_after_commit(
    make_version: Any,
    make_finished_match: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ratings.tasks import refit_ratings

    sent: list[tuple[Any, Any]] = []
    monkeypatch.setattr(
        refit_ratings, "apply_async", lambda args, countdown: sent.append((args, countdown))
    )
    a, b = make_version("alpha"), make_version("beta")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        match_finished(make_finished_match(a, b, ["1-0", "0-1"]))
    assert len(callbacks) == 1 and sent == [] and not Rating.objects.exists()
    callbacks[0]()
    assert sent == [([KETE], rating_services.REFIT_DELAY_SECONDS)]
    # Debounce: a second match while the refit is queued counts, but queues nothing more.
    with django_capture_on_commit_callbacks(execute=True):
        match_finished(make_finished_match(a, b, ["1-0", "1-0"]))
    pool = RatingPool.objects.get(variant=KETE)
    assert (len(sent), pool.requested, pool.refit_queued, pool.fitted) == (1, 2, True, 0)
    # The task: clears the flag, fits both matches, covers both requests.
    refit_ratings.run(KETE)
    pool.refresh_from_db()
    assert (pool.refit_queued, pool.fitted, pool.games) == (False, 2, 4)
    assert _rating(a).games == 4


def test_a_rolled_back_match_requests_nothing(
    make_version: Any, make_finished_match: Any, django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match = make_finished_match(a, b, ["1-0", "0-1"])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                match_finished(match)
                raise RuntimeError("the recording failed")
        except RuntimeError:
            pass
    assert callbacks == [] and not RatingPool.objects.exists()


def test_a_broker_failure_leaves_the_request_to_the_minute_job(
    make_version: Any, make_finished_match: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ratings.tasks import refit_ratings

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(refit_ratings, "apply_async", refuse)
    a, b = make_version("alpha"), make_version("beta")
    make_finished_match(a, b, ["1-0", "0-1"])
    assert rating_services.rating_refit_request(KETE) is False
    pool = RatingPool.objects.get(variant=KETE)
    assert (pool.requested, pool.refit_queued, pool.fitted) == (1, False, 0)
    assert rating_services.rating_refit_stale() == [KETE]
    assert _rating(a).games == 2
    assert rating_services.rating_refit_stale() == []  # nothing left to do


def test_the_minute_job_leaves_a_freshly_queued_refit_alone_but_not_a_lost_one(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    make_finished_match(a, b, ["1-0", "0-1"])
    now = timezone.now()
    RatingPool.objects.create(variant=KETE, requested=1, refit_queued=True, queued_at=now)
    assert rating_services.rating_refit_stale(now=now) == []
    later = now + dt.timedelta(seconds=rating_services.STALE_AFTER_SECONDS + 1)
    assert rating_services.rating_refit_stale(now=later) == [KETE]
    assert RatingPool.objects.get(variant=KETE).refit_queued is False


def test_a_refit_older_than_the_stored_one_writes_nothing(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    make_finished_match(a, b, ["1-0", "0-1"])
    RatingPool.objects.create(variant=KETE, requested=3, fitted=5)
    assert rating_services.rating_refit(KETE) is False
    assert not Rating.objects.exists() and not RatingPoint.objects.exists()
