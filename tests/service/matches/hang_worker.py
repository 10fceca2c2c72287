"""A Celery worker whose referee hangs in our own code (a test fault, started by
``test_recovery_e2e``): after a few moves, ``EngineClient.go`` sleeps for an hour without calling
its watch, as a referee loop stuck in a bug would. Everything else (the lease keeper's thread,
the pool, the broker) is the real worker: ``python hang_worker.py -A arena.worker worker ...``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root

from arena.referee import client

_real_go = client.EngineClient.go
_calls = [0]


def _hanging_go(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    _calls[0] += 1
    if _calls[0] > 6:
        print("hang_worker: the referee hangs now", flush=True)
        time.sleep(3600)
    return _real_go(self, *args, **kwargs)


client.EngineClient.go = _hanging_go  # type: ignore[method-assign]

if __name__ == "__main__":
    from celery.__main__ import main

    sys.argv[0] = "celery"
    sys.exit(main())
