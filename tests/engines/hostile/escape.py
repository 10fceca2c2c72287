"""Tries what the seccomp filter and bubblewrap's options refuse, and prints one JSON object.

Each attempt maps to "ok" (it worked: the sandbox failed) or the errno name it got:
a nested user namespace (``unshare -Urm id`` and the ``unshare`` call), a ``clone`` with
``CLONE_NEWUSER``, ``ptrace`` of pid 1, netlink and inet sockets, a unix socket (allowed),
``keyctl``, ``bpf``, ``mount``, ``perf_event_open``, ``userfaultfd``, ``process_vm_readv``,
a thread and a child (allowed). Then what pid 1 shows: ``/proc/1/{cmdline,environ,maps}`` and
the targets of ``/proc/1/{root,cwd,exe}``, as text (or the errno name).
"""

import ctypes
import errno
import json
import os
import socket
import subprocess
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# x86-64 system call numbers.
NR = {
    "ptrace": 101,
    "keyctl": 250,
    "bpf": 321,
    "mount": 165,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "process_vm_readv": 310,
    "unshare": 272,
    "clone": 56,
}
CLONE_NEWUSER = 0x10000000
SIGCHLD = 17


def name(code):
    return errno.errorcode.get(code, str(code))


def call(nr, *args):
    ctypes.set_errno(0)
    res = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if res >= 0 else name(ctypes.get_errno())


def sock(family, kind):
    try:
        socket.socket(family, kind).close()
        return "ok"
    except OSError as exc:
        return name(exc.errno)


found = {}
try:
    done = subprocess.run(["unshare", "-Urm", "id"], capture_output=True, text=True, timeout=10)
    found["unshare -Urm id"] = "ok" if done.returncode == 0 else done.stderr.strip()
except OSError as exc:
    found["unshare -Urm id"] = name(exc.errno)
found["unshare"] = call(NR["unshare"], CLONE_NEWUSER)
# A raw clone(CLONE_NEWUSER | SIGCHLD) child exits at once, if it is ever born.
res = call(NR["clone"], CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
if res == "ok":
    os.wait()
found["clone(CLONE_NEWUSER)"] = res
found["ptrace(ATTACH, 1)"] = call(NR["ptrace"], 16, 1, 0, 0)
found["ptrace(TRACEME)"] = call(NR["ptrace"], 0, 0, 0, 0)
found["socket(AF_NETLINK)"] = sock(socket.AF_NETLINK, socket.SOCK_RAW)
found["socket(AF_INET)"] = sock(socket.AF_INET, socket.SOCK_STREAM)
found["socket(AF_UNIX)"] = sock(socket.AF_UNIX, socket.SOCK_STREAM)
found["keyctl"] = call(NR["keyctl"], 0, -3, 0, 0)  # KEYCTL_GET_KEYRING_ID of the session
found["bpf"] = call(NR["bpf"], 0, 0, 0)
found["mount"] = call(NR["mount"], 0, 0, 0, 0, 0)
found["perf_event_open"] = call(NR["perf_event_open"], 0, 0, -1, -1, 0)
found["userfaultfd"] = call(NR["userfaultfd"], 0)
found["process_vm_readv"] = call(NR["process_vm_readv"], 1, 0, 0, 0, 0, 0)
box = []
thread = threading.Thread(target=box.append, args=("ok",))
thread.start()
thread.join()
found["thread"] = box[0] if box else "failed"
pid = os.fork()
if pid == 0:
    os._exit(7)
found["fork"] = "ok" if os.waitpid(pid, 0)[1] >> 8 == 7 else "failed"
for part in ("cmdline", "environ", "maps"):
    try:
        with open(f"/proc/1/{part}", "rb") as fh:
            found[f"/proc/1/{part}"] = fh.read().decode("latin-1")
    except OSError as exc:
        found[f"/proc/1/{part}"] = name(exc.errno)
for part in ("root", "cwd", "exe"):
    try:
        found[f"/proc/1/{part}"] = os.readlink(f"/proc/1/{part}")
    except OSError as exc:
        found[f"/proc/1/{part}"] = name(exc.errno)
found["pid"] = os.getpid()
print(json.dumps(found), flush=True)
sys.stdin.readline()
