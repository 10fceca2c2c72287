"""The API answers what its OpenAPI schema says: schemathesis (pinned in requirements-dev.txt)
loads the live schema from ``/api/schema/`` and sends every operation it documents generated
requests, valid and invalid, in process (WSGI), with every check it has: no 5xx, every status,
content type, header and body as documented, invalid input refused, valid input accepted.

Generic: an endpoint added later is tested as soon as the schema documents it. Bounded: a few
examples per operation (15; BAO_SCHEMATHESIS_EXAMPLES for more) and derandomized (the same
cases every run), about a minute in all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.specs.openapi.checks import positive_data_acceptance

pytestmark = [pytest.mark.slow]

#: Examples per operation and generation mode (valid, invalid).
EXAMPLES = int(os.environ.get("BAO_SCHEMATHESIS_EXAMPLES", "15"))


@pytest.fixture
def api_world(alice1: Any, bob1: Any, alice_client: Any, settings: Any) -> Iterator[dict[str, str]]:
    """Rows for the generated requests to find (alice's and bob's engines, a tournament of the
    two with a match) and alice's token (sent with every request); uploads go to a private
    engines directory."""
    from django.core import signals
    from django.db import close_old_connections
    from django.utils import timezone

    from arena.matches.models import Match
    from tournaments.models import Tournament, TournamentEntry

    tournament = Tournament.objects.create(
        name="t", variant="bao-la-kete", time_control="10+0.1", start_at=timezone.now()
    )
    for seed_no, version in enumerate((alice1, bob1), start=1):
        TournamentEntry.objects.create(tournament=tournament, engine_version=version,
                                       seed_no=seed_no)  # fmt: skip
    Match.objects.create(variant="bao-la-kete", time_control="10+0.1", engine_a=alice1,
                         engine_b=bob1, seed=1, tournament=tournament)  # fmt: skip

    root = Path(tempfile.mkdtemp(prefix="bao-test-schemathesis-"))
    settings.BAO_ENGINES_DIR = root
    # The requests go through Django's WSGI handler, which closes the database connection
    # after each request; the test's transaction lives on it (Django's test client unhooks
    # the same signal handlers for the same reason).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        # Alice's credentials as the shared fixture makes them (whatever the token scheme).
        yield {"Authorization": alice_client._credentials["HTTP_AUTHORIZATION"]}
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
        shutil.rmtree(root, ignore_errors=True)


def _run(operation: Any, mode: schemathesis.GenerationMode, headers: dict[str, str]) -> None:
    # Reads: the schema is the whole contract, so every schema-valid query must be accepted.
    # Writes: the schema gives the body's shape, and the service also refuses well-shaped
    # bodies that mean something wrong (a common password, an engine file that is no engine, an
    # engine that does not exist) with a documented 4xx code: those are not checked as "valid
    # data rejected".
    excluded = [] if operation.method.upper() == "GET" else [positive_data_acceptance]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        case.call_and_validate(headers=headers, excluded_checks=excluded)

    run()


@pytest.mark.django_db
def test_every_operation_answers_as_the_schema_says(api_world: dict[str, str]) -> None:
    from django.core.wsgi import get_wsgi_application

    # schemathesis's own pytest loader (from_fixture) does not run on pytest 9; this is its
    # Python API, one hypothesis run per operation and mode, failures gathered and shown together.
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        if operation.path in ("/api/live/{id}/events", "/api/play/{game_id}/events"):
            # An event stream needs the ASGI server; this WSGI app answers it with its
            # documented 503, which schemathesis counts as a server error. The streams' own
            # tests: tests/service/matches/test_live_stream.py, people/test_play_stream.py.
            continue
        for mode in schemathesis.GenerationMode:
            try:
                _run(operation, mode, api_world)
            except Unsatisfiable:
                pass  # nothing of this operation can be made invalid (no parameter, no body)
            except (Exception, BaseExceptionGroup) as exc:  # every failure is reported below
                failures.append(f"{operation.label} ({mode.value}): {exc}")
    assert operations >= 20
    assert not failures, f"{len(failures)} failing:\n\n" + "\n\n".join(failures)
