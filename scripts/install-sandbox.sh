#!/bin/sh
# Install bubblewrap (bwrap), the full engine sandbox of engines/sandbox/.
# Idempotent and quiet: does nothing when bwrap is already on PATH. Needs root
# (the project setup, CI and the docker workers run it as root). Without bwrap
# the service still runs engines, in the weaker fallback sandbox, with a warning.
set -eu

if command -v bwrap >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-sandbox: bwrap is missing and we are not root; run: apt-get install -y bubblewrap" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Quiet on success; on failure show apt's own words.
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends bubblewrap; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-sandbox: could not install bubblewrap" >&2
    exit 1
fi

command -v bwrap >/dev/null 2>&1 || {
    echo "install-sandbox: bubblewrap installed but bwrap is not on PATH" >&2
    exit 1
}
