#!/usr/bin/env bash
# The main job on a fresh clone: set up, migrate, register the bundled engines, run a round-robin
# tournament of best-of-three Bao la Kete matches on a real Celery worker (embedded broker and
# SQLite by default), print the leaderboard. `./demo.sh --serve` keeps the API server running.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
.venv/bin/python manage.py migrate --no-input -v 0
exec .venv/bin/python manage.py demo "$@"
