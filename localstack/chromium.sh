#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing: the dashboard's browser
# tests (internal/devstack, chromedp) drive it headless.
set -euo pipefail
if command -v chromium >/dev/null; then
  exit 0
fi
apt-get update -qq
apt-get install -y -qq chromium fonts-dejavu-core
