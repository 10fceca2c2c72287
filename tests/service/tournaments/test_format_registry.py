"""A new tournament format is one module and one line in ``tournaments.formats.FORMATS``: the
model's, the API's and the form's choices follow the registry, and no migration is needed."""

from __future__ import annotations

import io
from typing import Any, ClassVar

from django.core.management import call_command

from tournaments import formats
from tournaments.formats.round_robin import RoundRobin
from tournaments.models import Tournament


class Marathon(RoundRobin):
    id: ClassVar[str] = "marathon"
    label: ClassVar[str] = "Marathon"


def test_the_choices_are_the_registry_in_order() -> None:
    assert formats.format_choices() == [
        ("round_robin", "Round Robin"),
        ("double_round_robin", "Double Round Robin"),
        ("gauntlet", "Gauntlet"),
        ("swiss", "Swiss"),
        ("knockout", "Knockout"),
    ]
    assert Tournament._meta.get_field("format").choices == formats.format_choices()


def test_a_registered_format_is_a_choice_and_needs_no_migration(db: Any, monkeypatch: Any) -> None:
    monkeypatch.setitem(formats.FORMATS, Marathon.id, Marathon())
    assert ("marathon", "Marathon") in Tournament._meta.get_field("format").choices
    out = io.StringIO()
    call_command("makemigrations", "tournaments", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
