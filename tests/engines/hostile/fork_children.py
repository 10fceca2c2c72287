"""Starts three children that keep running, one of them a daemon in its own session that
forks again (escaping the engine's process group), then prints "forked 3" and sleeps.

"forked 3" comes only once the daemon runs and its short-lived parent is reaped, so exactly
four processes (this one, two children, the daemon) are alive from then on. With the argument
``exit-on-eof`` (after the marker) this process exits with status 0 at the end of its stdin,
as an engine does after ``quit``, leaving the children and the daemon running."""

import os
import sys
import time

for i in range(3):
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        if i == 2:
            os.setsid()
            if os.fork() > 0:
                os.read(ready_r, 1)  # the daemon runs
                os._exit(0)  # a classic daemon: the grandchild is orphaned
            os.write(ready_w, b"x")
        while True:
            time.sleep(1)
    if i == 2:
        os.waitpid(pid, 0)
print("forked 3", flush=True)
if "exit-on-eof" in sys.argv[2:]:
    sys.stdin.read()
    os._exit(0)
while True:
    time.sleep(1)
