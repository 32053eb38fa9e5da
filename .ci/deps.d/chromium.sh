#!/bin/sh
# Debian's Chromium for the dashboard's browser tests (test/integration/ui-browser.test.ts, driven by
# playwright-core). Quick when it is already installed.
set -eu
if command -v chromium >/dev/null 2>&1 && [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
[ -x /usr/bin/chromium ]
