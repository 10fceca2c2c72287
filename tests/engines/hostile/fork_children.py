"""Starts three children that keep running, one of them a daemon in its own session that
forks again (escaping the engine's process group), then prints "forked 3" and sleeps.

"forked 3" comes only once the daemon runs and its short-lived parent is reaped, so exactly
four processes (this one, two children, the daemon) are alive from then on."""

import os
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
while True:
    time.sleep(1)
