"""Engine registry costs: accepting an upload (service call) and validating a version.

Prints figures.

Runs against a throw-away SQLite database and engines directory in a temporary ``BAO_VAR_DIR``
(nothing of the real ``var/`` is touched). Measures, per kind of upload, the wall time of
``engines.services.engine_version_create`` (stream to disk, sha256, ``load_engine`` check,
row insert) and of ``engines.validation.validate_version_now`` (handshake + one short game
against the bundled random engine in the configured sandbox). Usage::

    python benchmarks/bench_engine_registry.py [--rounds 5] [--sandbox auto]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "fallback", "off"))
    args = parser.parse_args()

    var = tempfile.mkdtemp(prefix="bao-bench-registry-")
    os.chmod(var, 0o755)
    os.environ.update(
        {
            "BAO_VAR_DIR": var,
            "DATABASE_URL": f"sqlite:///{var}/bench.sqlite3",
            "BAO_SANDBOX_MODE": args.sandbox,
        }
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from engines.services import engine_version_create
    from engines.validation import validate_version_now

    call_command("migrate", verbosity=0)
    owner = get_user_model().objects.create_user("bench", password="bench-password-1")
    script = (ROOT / "engines" / "bundled" / "greedy").read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, data in (
            (
                "bao-engine.json",
                b'{"name": "zipped", "command": ["python3", "main.py"]}',
            ),
            ("main.py", script),
        ):
            info = zipfile.ZipInfo(member)
            info.external_attr = (
                0o100644 << 16
            )  # a regular file (writestr(name) leaves the type bits out)
            archive.writestr(info, data)
    uploads = {
        "script": ("greedy.py", script),
        "zip": ("engine.zip", buffer.getvalue()),
    }

    print(f"sandbox mode setting: {args.sandbox}; rounds: {args.rounds}")
    for kind, (filename, content) in uploads.items():
        create_ms: list[float] = []
        validate_ms: list[float] = []
        statuses: set[str] = set()
        for _ in range(args.rounds):
            began = time.perf_counter()
            version = engine_version_create(
                owner=owner,
                name=f"bench-{kind}",
                upload=SimpleUploadedFile(filename, content),
            )
            create_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            statuses.add(validate_version_now(version.pk))
            validate_ms.append((time.perf_counter() - began) * 1000)
        print(
            f"{kind:6s} ({len(content)} bytes): "
            f"create median {statistics.median(create_ms):7.1f} ms, "
            f"validate median {statistics.median(validate_ms):7.1f} ms "
            f"(min {min(validate_ms):.1f}, max {max(validate_ms):.1f}); statuses {sorted(statuses)}"
        )


if __name__ == "__main__":
    main()
