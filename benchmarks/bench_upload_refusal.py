"""How long an upload that must be refused holds its web worker (prints figures; asserts
nothing). Issue 30: a 12 000-member zip held one for 10 s before it was refused.

Times ``engines.package.load_engine`` (what ``engine_version_create`` runs in the request, for
the API and the web form alike) on: a zip and a tar.gz of 12 000 empty members (over
``MAX_MEMBERS``), a zip
whose members state more than the unpacked cap, and a manifest nested 60 000 deep.

Usage::

    python benchmarks/bench_upload_refusal.py
"""

from __future__ import annotations

import io
import json
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines.package import MANIFEST_NAME, load_engine

MANIFEST = json.dumps({"name": "x", "command": ["python3", "m.py"]})


def _timed(what: str, call: Callable[[], object]) -> None:
    began = time.perf_counter()
    try:
        call()
        outcome = "accepted"
    except Exception as exc:  # the figure is the point: whatever it raised is printed
        outcome = f"{type(exc).__name__}: {str(exc)[:70]}"
    print(f"{what:<32} {time.perf_counter() - began:7.3f} s  {outcome}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-upload-") as tmp:
        root = Path(tmp)
        many = root / "many.zip"
        with zipfile.ZipFile(many, "w") as zf:
            zf.writestr(MANIFEST_NAME, MANIFEST)
            zf.writestr("m.py", "print(1)\n")
            for i in range(12_000):
                zf.writestr(f"d/{i}", b"")
        _timed("zip of 12 000 members", lambda: load_engine(many, unpack_dir=root / "u1"))
        many_tgz = root / "many.tgz"
        with tarfile.open(many_tgz, "w:gz") as tf:
            for name, data in ((MANIFEST_NAME, MANIFEST.encode()), ("m.py", b"print(1)\n")):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            for i in range(12_000):
                tf.addfile(tarfile.TarInfo(f"d/{i}"), io.BytesIO(b""))
        _timed("tar.gz of 12 000 members", lambda: load_engine(many_tgz, unpack_dir=root / "u3"))
        big = root / "big.zip"
        with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(MANIFEST_NAME, MANIFEST)
            zf.writestr("m.py", "print(1)\n")
            zf.writestr("zeros", bytes(80 << 20))
        _timed(
            "zip stating 80 MiB (cap 64 MiB)",
            lambda: load_engine(big, unpack_dir=root / "u2", max_bytes=64 << 20),
        )
        deep = root / "deep"
        deep.mkdir()
        (deep / "m.py").write_text("print(1)\n")
        (deep / MANIFEST_NAME).write_text("[" * 60_000 + "]" * 5_000)
        _timed("manifest 60 000 deep", lambda: load_engine(deep))


if __name__ == "__main__":
    main()
