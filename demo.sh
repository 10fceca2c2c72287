#!/usr/bin/env bash
# The main job on a fresh clone: set up, migrate, register the bundled engines, run a round-robin
# tournament of best-of-three Bao la Kete matches on a real Celery worker, print the leaderboard.
# `./demo.sh --serve` then keeps the API server, worker and beat running on that database.
#
# The demo has a world of its own, under $BAO_VAR_DIR/demo (default var/demo): its SQLite
# database (made anew each run, so its rated games never touch the ratings of your own
# database, and its first game is /games/1/), its stored engines, its logs and, unless
# CELERY_BROKER_URL names a broker, its embedded broker. One demo runs at a time per directory.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
BAO_VAR_DIR="$(realpath -m "${BAO_VAR_DIR:-var}")/demo"
export BAO_VAR_DIR
export DATABASE_URL="sqlite:///$BAO_VAR_DIR/arena.sqlite3"
mkdir -p "$BAO_VAR_DIR"
exec 9>"$BAO_VAR_DIR/.lock"
if ! flock -n 9; then
  echo "demo: another demo is running on $BAO_VAR_DIR; stop it first" >&2
  exit 1
fi
# A fresh world: the database, stored engines, logs and embedded broker of the last run go.
find "$BAO_VAR_DIR" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
chmod 755 "$BAO_VAR_DIR"
.venv/bin/python manage.py migrate --no-input -v 0
exec .venv/bin/python manage.py demo "$@"  # fd 9 (the lock) stays open in the demo
