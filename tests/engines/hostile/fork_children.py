"""Starts three children that keep running, one of them a daemon in its own session that
forks again (escaping the engine's process group), then prints "forked 3" and sleeps."""

import os
import sys
import time

for i in range(3):
    if os.fork() == 0:
        if i == 2:
            os.setsid()
            if os.fork() > 0:
                os._exit(0)  # a classic daemon: the grandchild is orphaned
        while True:
            time.sleep(1)
print("forked 3", flush=True)
while True:
    time.sleep(1)
