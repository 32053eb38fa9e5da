#!/bin/sh
# A bin/ficta that runs under the V8 CPU profiler, for `ficta bench --ficta-bin bench/ficta-profiled.sh`:
# each proxy process writes a .cpuprofile into $FICTA_PROF_DIR (default /tmp/ficta-prof) when it exits.
# Summarise with: node --import tsx bench/profile-summary.ts "$FICTA_PROF_DIR"/*.cpuprofile
dir=$(cd "$(dirname "$0")/.." && pwd)
exec "${FICTA_NODE:-node}" --cpu-prof --cpu-prof-dir="${FICTA_PROF_DIR:-/tmp/ficta-prof}" -- "$dir/bin/ficta.js" "$@"
