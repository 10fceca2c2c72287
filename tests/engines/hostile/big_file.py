"""Writes 4 KiB blocks to $HOME/big until the kernel refuses; prints "written <bytes> <ERRNO>".

Python ignores SIGXFSZ, so the file size limit shows as EFBIG rather than a kill."""

import errno
import os

written = 0
block = b"x" * 4096
with open(os.path.join(os.environ["HOME"], "big"), "wb", buffering=0) as fh:
    try:
        while written < 1 << 30:
            written += fh.write(block)
        print("written", written, "none", flush=True)
    except OSError as exc:
        print(
            "written",
            written,
            errno.errorcode.get(exc.errno or 0, repr(exc)),
            flush=True,
        )
