"""The time a person's move is charged (``arena.referee.person._person_elapsed_ns``): until the
service accepted it, never more than the referee waited, never below 0."""

from __future__ import annotations

from arena.referee.person import PersonAction, _person_elapsed_ns

S = 1_000_000_000
BEGAN = 1_700_000_000 * S  # the wall clock when the person's turn began


def test_a_slow_relay_is_not_the_persons_time() -> None:
    accepted = PersonAction(token="a1", accepted_ns=BEGAN + 2 * S)
    assert _person_elapsed_ns(9 * S, BEGAN, accepted) == 2 * S


def test_never_more_than_the_referee_waited() -> None:
    # The web host's clock ahead of the worker's: still only what the referee measured.
    accepted = PersonAction(token="a1", accepted_ns=BEGAN + 5 * S)
    assert _person_elapsed_ns(3 * S, BEGAN, accepted) == 3 * S


def test_never_below_zero_and_without_an_accept_time_the_wait() -> None:
    behind = PersonAction(token="a1", accepted_ns=BEGAN - S)  # the web host's clock behind
    assert _person_elapsed_ns(3 * S, BEGAN, behind) == 0
    assert _person_elapsed_ns(3 * S, BEGAN, PersonAction(token="a1")) == 3 * S
