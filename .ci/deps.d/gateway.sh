#!/usr/bin/env bash
# The gateway's fleet test (test/integration/gateway-fleet.test.ts) runs a real HAProxy in front of three
# gateway instances and a real Prometheus scraping them: Debian's `haproxy` and `prometheus`. The test runs
# both as its own processes on loopback with configs it writes; the distribution's services are never
# used, so they are kept from starting (policy-rc.d during the install) and stopped if they run.
set -euo pipefail

if command -v haproxy >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Keep the packages' postinst from starting system services on the default ports (80/9090/9100).
policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod +x "$policy"
  added_policy=1
fi
cleanup() { if [ "$added_policy" -eq 1 ]; then $SUDO rm -f "$policy"; fi; }
trap cleanup EXIT

$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends haproxy prometheus >/dev/null

# In case a service manager started them anyway.
for svc in haproxy prometheus; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    $SUDO systemctl stop "$svc" || true
    $SUDO systemctl disable "$svc" >/dev/null 2>&1 || true
  fi
done

command -v haproxy >/dev/null && command -v prometheus >/dev/null
