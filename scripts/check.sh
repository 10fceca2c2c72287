#!/usr/bin/env bash
# The static checks, in the order CI runs them: formatting, lint, import contracts, types and
# migrations that models need but nobody wrote. .ci/run and the pre-commit hook
# (.pre-commit-config.yaml) both run this script, so the two cannot drift apart.
# Usage: scripts/check.sh            (after scripts/setup.sh has made .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
step() { printf 'check: %s\n' "$*"; "$@"; }
step "$bin/ruff" format --check .
step "$bin/ruff" check .
step "$bin/lint-imports"
step "$bin/mypy"
step "$bin/python" manage.py makemigrations --check --dry-run
