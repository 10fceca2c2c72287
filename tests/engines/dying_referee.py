"""A stand-in referee for the tests: starts tests/engines/hostile/fork_children.py in the sandbox,
prints "<engine pid> <engine uid> <host scratch dir or -> forked 3" once the children run, then
waits to be killed.

Usage: python dying_referee.py <mode> <engine root> <marker>
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, start_engine

mode, root, marker = sys.argv[1:4]
package = EnginePackage(
    name="forker", root=Path(root), argv=("python3", "fork_children.py", marker)
)
engine = start_engine(package, SandboxConfig(mode=mode))
line = b""
while not line.endswith(b"\n"):
    chunk = os.read(engine.stdout_fd, 100)
    if not chunk:
        break
    line += chunk
print(engine.pid, engine.uid, engine.scratch or "-", line.decode().strip(), flush=True)
while True:
    time.sleep(1)
