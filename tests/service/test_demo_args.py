"""``manage.py demo`` refuses bad arguments before it registers, creates or starts anything."""

from __future__ import annotations

import io
import socket
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engines.models import Engine
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port something listens on (127.0.0.1)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def _demo(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("demo", *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert Engine.objects.count() == 0 and Tournament.objects.count() == 0
    return str(caught.value)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "--workers must be at least 1, not 0"),
        (["--workers", "-3"], "--workers must be at least 1, not -3"),
        (["--port", "99999", "--serve"], "--port must be 1 to 65535, not 99999"),
        (["--port", "0"], "--port must be 1 to 65535, not 0"),
        (["--timeout", "0"], "--timeout must be a positive number of seconds, not 0.0"),
        (["--timeout", "nan"], "--timeout must be a positive number of seconds, not nan"),
    ],
)
def test_bad_numbers_are_refused_up_front(args: list[str], message: str) -> None:
    assert _demo(*args) == message


def test_more_workers_than_twice_the_cores_are_refused_unless_forced(settings) -> None:
    from arena.capacity import host_cores
    from arena.project.management.commands import demo

    cores = host_cores()
    too_many = 2 * cores + 1
    assert _demo("--workers", str(too_many)) == (
        f"--workers {too_many}: {too_many} match slots on {cores} cores: engines would share "
        f"cores and lose games on time (at most {2 * cores}, 2 per core); set "
        "BAO_WORKER_SLOTS_FORCE=1 to run anyway"
    )
    settings.BAO_WORKER_SLOTS_FORCE = True
    opts = {"workers": too_many, "port": 8000, "timeout": 10.0, "serve": False}
    demo._check_options(opts)
    settings.BAO_WORKER_SLOTS = cores
    opts = {"workers": None, "port": 8000, "timeout": 10.0, "serve": False}
    demo._check_options(opts)
    assert opts["workers"] == cores  # the default follows the host's slots


def test_serving_on_a_busy_port_is_refused_before_the_tournament(busy_port: int) -> None:
    assert _demo("--serve", "--port", str(busy_port)) == (
        f"--port {busy_port} is in use on 127.0.0.1: stop what listens there or pick another port"
    )


def test_a_busy_port_does_not_matter_without_serve(busy_port: int) -> None:
    from arena.project.management.commands import demo

    demo._check_options({"workers": 1, "port": busy_port, "timeout": 10.0, "serve": False})
    with pytest.raises(CommandError):
        demo._check_options({"workers": 1, "port": busy_port, "timeout": 10.0, "serve": True})
