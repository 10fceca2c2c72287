"""The registry of tournament formats: one small strategy module per format (pure).

``get_format(id)`` is the one place the services dispatch on a tournament's format; adding a
format is one new module and one line in ``FORMATS``: the model's choices, the API's and the
web form's come from ``format_choices()`` (a callable in the model's migrations, so a new
format needs no migration). See ``tournaments.formats.base`` for what a format decides.
"""

from __future__ import annotations

from tournaments.formats.base import (
    Entrant,
    Field,
    Finished,
    FormatError,
    Played,
    Round,
    TournamentFormat,
)
from tournaments.formats.knockout import Knockout
from tournaments.formats.round_robin import DoubleRoundRobin, Gauntlet, RoundRobin
from tournaments.formats.swiss import Swiss

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "Entrant",
    "Field",
    "Finished",
    "FormatError",
    "Played",
    "Round",
    "TournamentFormat",
    "format_choices",
    "get_format",
]

#: Format id -> strategy, in the order the API lists them.
#: One entry a line, so that a new format adds one line.
FORMATS: dict[str, TournamentFormat] = {
    f.id: f
    for f in (
        RoundRobin(),
        DoubleRoundRobin(),
        Gauntlet(),
        Swiss(),
        Knockout(),
    )
}


#: The format of a tournament created without one.
DEFAULT_FORMAT = RoundRobin.id


def format_choices() -> list[tuple[str, str]]:
    """``(id, label)`` of every format, in ``FORMATS`` order: the choices of the model field,
    the API's serializers and the web form."""
    return [(f.id, f.label) for f in FORMATS.values()]


def get_format(format_id: str) -> TournamentFormat:
    """The strategy of ``format_id``; raises ``KeyError`` for an unknown id."""
    return FORMATS[format_id]
