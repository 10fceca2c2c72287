"""The registry of tournament formats: one small strategy module per format (pure).

``get_format(id)`` is the one place the services dispatch on a tournament's format; adding a
format is one new module and one line in ``FORMATS``. See ``tournaments.formats.base`` for
what a format decides.
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
    "FORMATS",
    "Entrant",
    "Field",
    "Finished",
    "FormatError",
    "Played",
    "Round",
    "TournamentFormat",
    "get_format",
]

#: Format id -> strategy, in the order the API lists them.
FORMATS: dict[str, TournamentFormat] = {
    f.id: f for f in (RoundRobin(), DoubleRoundRobin(), Gauntlet(), Swiss(), Knockout())
}


def get_format(format_id: str) -> TournamentFormat:
    """The strategy of ``format_id``; raises ``KeyError`` for an unknown id."""
    return FORMATS[format_id]
