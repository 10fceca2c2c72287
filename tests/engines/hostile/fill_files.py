"""Fills each directory given with 4 MiB files (under the file size limit) until the kernel
refuses; prints "<dir> <bytes written> <ERRNO>" for each, then "done", then waits for stdin EOF.

Arguments: <marker> <dir>...; the word HOME stands for $HOME. Files are named
fill-<marker>-<k>-<n> for the k-th directory given (from 0), so the test can look for them on the
host, and two directories on one file system never overwrite each other's files."""

import errno
import os
import sys

marker = sys.argv[1]
block = b"x" * (1 << 20)
for k, place in enumerate(sys.argv[2:]):
    where = os.environ["HOME"] if place == "HOME" else place
    written = 0
    try:
        for n in range(16):  # at most 64 MiB: the caps in the tests stop it long before
            with open(os.path.join(where, f"fill-{marker}-{k}-{n}"), "wb", buffering=0) as fh:
                for _ in range(4):
                    written += fh.write(block)
        outcome = "none"
    except OSError as exc:
        outcome = errno.errorcode.get(exc.errno or 0, repr(exc))
    print(place, written, outcome, flush=True)
print("done", flush=True)
sys.stdin.read()
