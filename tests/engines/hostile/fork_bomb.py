"""A fork bomb: every process forks until the kernel refuses, then sleeps.

The first process prints "refused <ERRNO>" when its own fork is refused."""

import errno
import os
import time

first = True
while True:
    try:
        pid = os.fork()
    except OSError as exc:
        if first:
            print("refused", errno.errorcode.get(exc.errno or 0, repr(exc)), flush=True)
        break
    if pid == 0:
        first = False
while True:
    time.sleep(1)
