#!/usr/bin/env bash
# Idempotent setup of a checkout: virtualenv, Python packages, the sandbox package (bubblewrap).
# Used by ./demo.sh, ./test.sh and .ci/run. Quiet when everything is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating virtualenv .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python packages (requirements-dev.txt)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
if [ -x scripts/install-sandbox.sh ]; then
  scripts/install-sandbox.sh
fi
