"""Time controls through the API: the referee's parser decides, and a clock too long for a
worker is refused with the longest one that fits (default visibility timeout 3600 s: a worker
may hold a match 3180 s)."""

from __future__ import annotations

import pytest

from arena.matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from arena.matches import tasks

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)


@pytest.fixture(autouse=True)
def default_visibility(settings) -> None:  # type: ignore[no-untyped-def]
    settings.CELERY_BROKER_VISIBILITY_TIMEOUT = 3600


def _challenge(client, time_control: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/matches/",
        {
            "engine": "alice-greedy",
            "opponent": "bob-random",
            "variant": "bao-la-kete",
            "time_control": time_control,
        },
        format="json",
    )


@pytest.mark.parametrize(
    ("time_control", "message"),
    [
        ("0.001+0", "base time in '0.001+0' must be 1 to 86400 s"),
        ("1+0.0001", "increment 0.0001 s in '1+0.0001' is finer than 1 ms: use at most 3 decimals"),
        (
            "\uff11+0",
            "bad time control '\uff11+0': expected '<base s>+<increment s>' such as "
            "'10+0.1', or 'movetime=<ms>'",
        ),
        ("movetime=1", "movetime in 'movetime=1' must be 10 to 3600000 ms"),
    ],
)
def test_it_refuses_clocks_outside_the_parser_range(
    alice_client, alices_engine, bobs_engine, time_control: str, message: str
) -> None:
    r = _challenge(alice_client, time_control)
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": "invalid_time_control",
        "message": message,
        "details": {"time_control": time_control},
    }
    assert Match.objects.count() == 0


@pytest.mark.parametrize(
    ("time_control", "hard", "advice"),
    [
        # Bao la Kete, ply cap 1000: with no increment the base may reach 499 s.
        ("2000+0", 12182, "at a 0 s increment the base may be at most 499 s"),
        ("3000+1", 21182, "no base fits a 1 s increment: use a smaller one"),
        ("movetime=5000", 15332, "use movetime=949 or less"),
    ],
)
def test_a_clock_too_long_for_a_worker_states_the_longest_that_fits(
    alice_client, alices_engine, bobs_engine, time_control: str, hard: int, advice: str
) -> None:
    r = _challenge(alice_client, time_control)
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": "time_control_too_long",
        "message": f"a match at {time_control} may take up to {hard} s, more than the 3180 s "
        f"a worker may hold one; {advice}.",
        "details": {"time_control": time_control, "hard_limit_s": hard, "max_hard_limit_s": 3180},
    }


@pytest.mark.parametrize(("base", "fits"), [(499, True), (500, False)])
def test_the_stated_longest_base_is_exact(
    alice_client, alices_engine, bobs_engine, base: int, fits: bool
) -> None:
    r = _challenge(alice_client, f"{base}+0")
    assert (r.status_code == 201) is fits, r.json()
