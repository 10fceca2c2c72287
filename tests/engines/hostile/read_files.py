"""Tries to read each path given (a file, or list a directory).

Prints "<path> ok" or "<path> <ERRNO>".
"""

import errno
import os
import sys

for path in sys.argv[2:]:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as fh:
                fh.read(1)
        print(path, "ok", flush=True)
    except OSError as exc:
        print(path, errno.errorcode.get(exc.errno or 0, repr(exc)), flush=True)
print("done", flush=True)
