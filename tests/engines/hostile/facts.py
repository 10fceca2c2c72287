"""Prints one JSON object of facts about its sandbox: ids, environment, cwd, imports, writes."""

import errno
import json
import os
import sys


def attempt(fn):
    try:
        fn()
        return "ok"
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, repr(exc))


def rules():
    import arena.rules
    import engines.sdk  # noqa: F401  (the SDK must import too)

    return list(arena.rules.VARIANTS)


facts = {
    "uid": os.getuid(),
    "euid": os.geteuid(),
    "gid": os.getgid(),
    "groups": os.getgroups(),
    "env": dict(os.environ),
    "cwd": os.getcwd(),
    "executable": sys.executable,
    "variants": rules(),
    "write_own_file": attempt(lambda: open("facts.py", "a").close()),
    "create_in_root": attempt(lambda: open("new.txt", "w").close()),
    "write_home": attempt(lambda: open(os.path.join(os.environ["HOME"], "note"), "w").close()),
    "write_tmp": attempt(lambda: open(f"/tmp/bao-note-{sys.argv[1]}", "w").close()),
    "setsid_pgid": os.getpgid(0) == os.getsid(0),
}
print(json.dumps(facts), flush=True)
