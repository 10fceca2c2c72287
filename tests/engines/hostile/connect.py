"""Tries a TCP connection to each 127.0.0.1 port given; prints "<port> ok" or "<port> <ERRNO>"
(the errno of the connection, or of the socket itself where that is refused)."""

import errno
import socket
import sys

for port in sys.argv[2:]:
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        print(port, errno.errorcode.get(exc.errno or 0, repr(exc)), flush=True)
        continue
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", int(port)))
        print(port, "ok", flush=True)
    except OSError as exc:
        print(port, errno.errorcode.get(exc.errno or 0, repr(exc)), flush=True)
    finally:
        s.close()
print("done", flush=True)
