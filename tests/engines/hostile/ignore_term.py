"""Ignores SIGTERM, SIGHUP, SIGINT and SIGPIPE, and keeps running after stdin reaches EOF."""

import signal
import sys
import time

for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
    signal.signal(sig, signal.SIG_IGN)
print("ready", flush=True)
sys.stdin.read()  # returns at EOF
print("eof", flush=True)
while True:
    time.sleep(1)
