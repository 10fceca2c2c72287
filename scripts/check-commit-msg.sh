#!/usr/bin/env bash
# commit-msg hook (.pre-commit-config.yaml): a subject of at most 72 characters, then a blank
# line before the body, which says why (CONTRIBUTING.md, "Commits").
# Usage: scripts/check-commit-msg.sh FILE   (git passes the message file)
set -euo pipefail
msg=$1
subject=$(grep -v '^#' "$msg" | head -n 1)
second=$(grep -v '^#' "$msg" | sed -n 2p)
if [ -z "$subject" ]; then
  echo "commit-msg: empty subject" >&2
  exit 1
fi
if [ "${#subject}" -gt 72 ]; then
  echo "commit-msg: the subject has ${#subject} characters; at most 72 (put the why in the body)" >&2
  exit 1
fi
if [ -n "$second" ]; then
  echo "commit-msg: leave a blank line between the subject and the body" >&2
  exit 1
fi
