"""The registry of rating methods (ratings.stats.methods): the one place the service picks a
method, and the whole-history fit registered in it."""

from __future__ import annotations

import pytest

from ratings.stats import whr
from ratings.stats.methods import DEFAULT_METHOD, METHODS, get_method

GAMES = [("a", "b", 1.0), ("b", "a", 0.5), ("b", "c", 1.0), ("c", "a", 0.0), ("c", "b", 0.5)]


def test_the_registry_holds_the_whole_history_fit_by_its_id() -> None:
    assert list(METHODS) == ["whr"]
    assert DEFAULT_METHOD == "whr"
    assert get_method("whr") is whr.METHOD
    assert get_method("whr").label == "whole-history maximum-likelihood Elo"


def test_an_unknown_method_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        get_method("glicko")


def test_the_registered_method_fits_as_the_fit_itself() -> None:
    by_method = get_method(DEFAULT_METHOD).fit(GAMES)
    direct = whr.fit(GAMES)
    assert [(r.engine, round(r.rating, 6), round(r.low, 6)) for r in by_method.ratings] == [
        (r.engine, round(r.rating, 6), round(r.low, 6)) for r in direct.ratings
    ]
    assert [r.engine for r in by_method.ratings] == ["a", "b", "c"]
    assert by_method.superiority("a", "c") == pytest.approx(direct.superiority("a", "c"))
