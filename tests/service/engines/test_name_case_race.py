"""Engine names are unique whatever their case, in the database too (not only in the selector
the upload service asks first): two uploads racing with ``Alpha`` and ``alpha`` make one engine."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from engines import errors, services
from engines.models import Engine

from .conftest import FIRST_MOVE_ENGINE, script_upload

pytestmark = pytest.mark.django_db


def test_the_database_refuses_a_second_engine_differing_only_in_case(alice, bob):
    Engine.objects.create(owner=alice, name="Alpha")
    with pytest.raises(IntegrityError), transaction.atomic():
        Engine.objects.create(owner=bob, name="alpha")


def test_an_upload_that_lost_the_race_adds_a_version_to_the_owners_engine(
    alice, engines_dir, monkeypatch
):
    services.engine_version_create(owner=alice, name="Alpha", upload=script_upload())
    # As if the first upload had not committed yet when the second looked the name up.
    monkeypatch.setattr(services, "engine_by_name", lambda name: None)
    second = services.engine_version_create(
        owner=alice, name="alpha", upload=script_upload(FIRST_MOVE_ENGINE + b"# v2\n")
    )
    assert (second.engine.name, second.number) == ("Alpha", 2)
    assert list(Engine.objects.values_list("name", flat=True)) == ["Alpha"]


def test_an_upload_of_another_user_that_lost_the_race_is_not_theirs(
    alice, bob, engines_dir, monkeypatch
):
    services.engine_version_create(owner=alice, name="Alpha", upload=script_upload())
    monkeypatch.setattr(services, "engine_by_name", lambda name: None)
    with pytest.raises(errors.EngineNotYours):
        services.engine_version_create(owner=bob, name="alpha", upload=script_upload())
    assert list(Engine.objects.values_list("name", "owner__username")) == [("Alpha", "alice")]
