#!/usr/bin/env bash
# The static checks, in the order CI runs them: formatting, lint, import contracts, types (and
# no process left behind by them) and migrations that models need but nobody wrote. .ci/run and
# the pre-commit hook (.pre-commit-config.yaml) both run this script, so the two cannot drift
# apart.
# Usage: scripts/check.sh            (after scripts/setup.sh has made .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
step() { printf 'check: %s\n' "$*"; "$@"; }
step "$bin/ruff" format --check .
step "$bin/ruff" check .
step "$bin/lint-imports"
# mypy, then manage.py check, each failing if it leaves a process behind (an embedded
# redis-server started by a django.setup() that imported the Celery app).
step "$bin/python" scripts/check-no-leftovers.py
step "$bin/python" manage.py makemigrations --check --dry-run
