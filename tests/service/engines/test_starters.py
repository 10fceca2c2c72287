"""The starter engines of ``engines/examples/*/`` (C, Rust, JavaScript, Java, ...), end to end as
their README tells an author to use them: ``make check``, ``make package``, then the
``engine.zip`` uploaded through the API by a newly registered user, validated by the worker's
task in every variant the engine announces, and a rated challenge against the bundled
``random`` engine played in the real sandbox to a normal end, after which the engine is rated.

Every directory of ``engines/examples`` with a ``Makefile`` is a starter (the shared convention:
engines/examples/README.md), so a new starter is tested by being added. The toolchains come
from ``scripts/install-toolchains.sh`` (CI runs it first); a starter whose tool is missing here
fails rather than skips, as CI must build every one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from arena import terminations as T
from arena.matches import runner, tasks
from arena.rules import VARIANTS
from engines.models import EngineVersion
from engines.package import load_engine
from engines.services import register_bundled_engines
from engines.tasks import validate_engine_version
from engines.validation import validate_version_now
from ratings.services import rating_refit

EXAMPLES = Path(__file__).resolve().parents[3] / "engines" / "examples"
STARTERS = sorted(p.parent.name for p in EXAMPLES.glob("*/Makefile"))
#: A fast clock for the rated match (3 games at most of two engines that answer at once).
TIME_CONTROL = "2+0.05"
#: How long one ``make`` target may take: a first cargo or javac build is seconds.
MAKE_TIMEOUT_S = 600

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def make(starter: str, target: str) -> str:
    """``make -C engines/examples/<starter> <target>``; its output, or a failure showing it."""
    done = subprocess.run(
        ["make", "-C", str(EXAMPLES / starter), target],
        capture_output=True,
        text=True,
        timeout=MAKE_TIMEOUT_S,
    )
    assert done.returncode == 0, f"make {target} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def announced_variants(archive: Path, unpack_dir: Path) -> list[str]:
    """The variants the packaged engine names in its handshake (all three if none), read by
    running its manifest's command outside the service, as an author trying it would."""
    package = load_engine(archive, unpack_dir=unpack_dir)
    done = subprocess.run(
        list(package.argv),
        cwd=package.root,
        input="bep\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.splitlines()
    assert "bepok" in lines, f"no handshake: {done.stdout!r} {done.stderr!r}"
    variants = [line.split()[1] for line in lines if line.startswith("variant ")]
    return variants or list(VARIANTS)


def registered_client(username: str) -> APIClient:
    """A client holding the token of a user who just registered through the API."""
    client = APIClient()
    r = client.post(
        "/api/auth/register/",
        {"username": username, "password": "kete-and-kichwa-7"},
        format="json",
    )
    assert r.status_code == 201, r.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
    return client


@pytest.mark.timeout(900)
@pytest.mark.parametrize("starter", STARTERS)
def test_a_starter_passes_its_checks_and_is_validated_and_rated_after_an_upload(
    starter: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # No broker: the worker's tasks are called here, as the worker would run them.
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)
    make(starter, "check")
    make(starter, "package")
    archive = EXAMPLES / starter / "engine.zip"
    assert archive.is_file()
    announced = announced_variants(archive, tmp_path / "unpacked")

    bundled = register_bundled_engines(validate=False)
    (opponent,) = [v for v in bundled if v.engine.name == "random"]
    validate_version_now(opponent.pk)  # only the opponent: the others play no part here

    author = registered_client("amina")
    name = f"my-{starter}"
    upload = SimpleUploadedFile("engine.zip", archive.read_bytes(), "application/zip")
    r = author.post("/api/engines/", {"name": name, "file": upload}, format="multipart")
    assert r.status_code == 201, r.json()
    version = EngineVersion.objects.get(engine__name=name, number=r.json()["number"])
    assert validate_engine_version(version.pk) == "active"
    body = author.get(f"/api/engines/{name}/versions/{version.number}/").json()
    assert (body["status"], body["variants"], body["failed_variants"]) == (
        "active",
        [v for v in VARIANTS if v in announced],
        {},
    )

    variant = "bao-la-kete" if "bao-la-kete" in announced else announced[0]
    r = author.post(
        "/api/matches/",
        {"engine": name, "opponent": "random", "variant": variant, "time_control": TIME_CONTROL},
        format="json",
    )
    assert r.status_code == 201, r.json()
    match_id = r.json()["id"]
    assert r.json()["rated"] is True
    assert runner.execute_match(match_id) == runner.RECORDED
    match = author.get(f"/api/matches/{match_id}/").json()
    assert (match["status"], match["rated"]) == ("finished", True)
    assert 2 <= len(match["games"]) <= 3
    for game in match["games"]:
        assert game["termination"] in T.RULES_TERMINATIONS, game
        assert game["plies"] > 0

    rating_refit(variant)  # the refit task's work, queued after the match was recorded
    board = author.get(f"/api/leaderboard/?variant={variant}").json()
    assert name in [row["engine"] for row in board["results"]], board
