#!/bin/sh
# Install the toolchains the starter engines of engines/examples/ build with: make, gcc, cargo
# and rustc, node, a JDK (javac). Idempotent and quiet: prints nothing and installs nothing
# when every command is already on PATH; otherwise installs only the missing ones from Debian
# with apt-get (needs root: CI and the project setup run it as root). The Debian bookworm
# versions the starters are built and tested with are in engines/examples/README.md.
set -eu

# command -> the Debian package that provides it
missing=""
for pair in make:make gcc:gcc cargo:cargo rustc:rustc node:nodejs javac:default-jdk-headless; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "install-toolchains: missing$missing and we are not root; run: apt-get install -y$missing" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Quiet on success; on failure show apt's own words.
# shellcheck disable=SC2086 # $missing is a list of package names
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-toolchains: could not install$missing" >&2
    exit 1
fi

for name in make gcc cargo rustc node javac; do
    command -v "$name" >/dev/null 2>&1 || {
        echo "install-toolchains: installed$missing but $name is not on PATH" >&2
        exit 1
    }
done
