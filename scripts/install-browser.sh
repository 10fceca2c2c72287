#!/bin/sh
# Install Debian's headless browser for the browser tests (tests/service/web/test_browser.py):
# chromium and chromium-driver (chromedriver), driven through Selenium.
# Idempotent and quiet: does nothing when both are on PATH. Needs root (CI runs it as root).
set -eu

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-browser: chromium/chromedriver missing and we are not root; run: apt-get install -y chromium chromium-driver" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-browser: could not install chromium and chromium-driver" >&2
    exit 1
fi
