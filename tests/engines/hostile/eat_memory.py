"""Allocates (and touches) 16 MiB blocks without bound; prints "MemoryError after <n> MiB"."""

blocks = []
try:
    while True:
        blocks.append(bytearray(16 << 20))
except MemoryError:
    count = len(blocks)
    blocks.clear()
    print("MemoryError after", count * 16, "MiB", flush=True)
