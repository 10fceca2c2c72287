"""Writes <count> lines "line %08d\\n" (14 bytes each) to stderr, then prints "done" and waits."""

import sys

count = int(sys.argv[2])
out = sys.stderr.buffer
for i in range(count):
    out.write(b"line %08d\n" % i)
out.flush()
print("done", flush=True)
sys.stdin.read()
