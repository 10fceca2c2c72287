#!/bin/sh
# A root filesystem made from the Debian packages the Dockerfile installs, to run the engine
# sandbox as a compose worker would, without docker (docs/runtimes.md, "For operators").
#
#   scripts/image-rootfs.sh DIR                  # build it: debootstrap bookworm, minbase, plus
#                                                # the Dockerfile's apt-get install list
#                                                # (about 3 minutes and 630 MB; root, network)
#   scripts/image-rootfs.sh --run DIR -- CMD...  # run CMD there, the checkout at /app (read-only)
#
# --run enters DIR with bubblewrap as root (a pivot_root, not a chroot, so the sandbox inside
# may create its own user namespaces), binds the host's /proc and /dev (a fresh /proc would be
# too covered for the inner bwrap to mount its own), a tmpfs /tmp (the sandbox's state), and
# sets PYTHONPATH=/app, so the image's /usr/bin/python3 imports the pure engines.sandbox and
# arena.referee. Example: the probe every worker runs, as the image would run it:
#   scripts/image-rootfs.sh --run var/image-rootfs -- /usr/bin/python3 -c \
#     'from engines.sandbox import SandboxConfig; from engines.sandbox.runtimes import *;
#      print(probe_runtimes(SandboxConfig(mode="bwrap")))'
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--run" ]; then
    [ $# -ge 4 ] && [ "$3" = "--" ] || { echo "usage: $0 --run DIR -- CMD..." >&2; exit 2; }
    root=$2
    shift 3
    exec bwrap --bind "$root" / --ro-bind "$PWD" /app --bind /proc /proc --dev-bind /dev /dev \
        --tmpfs /tmp --chdir /app --setenv PYTHONPATH /app --setenv PATH /usr/bin:/bin \
        --setenv BAO_SANDBOX_MODE bwrap --die-with-parent -- "$@"
fi

[ $# -eq 1 ] || { echo "usage: $0 DIR | --run DIR -- CMD..." >&2; exit 2; }
dest=$1
command -v debootstrap >/dev/null 2>&1 || {
    echo "image-rootfs: needs debootstrap (apt-get install debootstrap)" >&2
    exit 1
}
# The packages of the Dockerfile's install list: its continuation lines holding one name each.
packages=$(sed -n '/apt-get install/,/&&/p' Dockerfile \
    | sed -n 's/^ *\([a-z0-9][a-z0-9.+-]*\) *\\$/\1/p' | paste -sd, -)
[ -n "$packages" ] || { echo "image-rootfs: no package list found in the Dockerfile" >&2; exit 1; }
mkdir -p "$dest"
log="$dest.debootstrap.log"
if ! debootstrap --variant=minbase --include="$packages" bookworm "$dest" \
        http://deb.debian.org/debian >"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "image-rootfs: debootstrap failed (log: $log)" >&2
    exit 1
fi
echo "image-rootfs: $dest holds bookworm with $packages"
