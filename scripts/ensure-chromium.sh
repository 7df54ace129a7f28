#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (/usr/bin/chromium) with Playwright.
# On CI (CI=true) install it if it is missing, so those tests always run there;
# elsewhere just say whether they will run or be skipped.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "browser tests: using $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
if [ "${CI:-}" = "true" ]; then
  echo "browser tests: CI=true and /usr/bin/chromium missing; installing Debian's chromium"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  /usr/bin/chromium --version
else
  echo "browser tests: /usr/bin/chromium not found; they will be SKIPPED (apt-get install chromium to run them)"
fi
