#!/usr/bin/env bash
# CI: stops the sidecar deploy/ci/start.sh started (SIGTERM: requests in flight finish), prints the run
# report (requests, redactions, restores, blocks, withheld restores: names and counts only), adds it to
# the job summary ($GITHUB_STEP_SUMMARY), and exits 3 when FICTA_ACTION_FAIL_ON_BLOCK=true and a request
# was blocked, or FICTA_ACTION_FAIL_ON_WITHHOLD=true and a restore was withheld.
set -uo pipefail
dir=${FICTA_ACTION_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ficta}
[ -f "$dir/pid" ] || { echo "ficta: no sidecar to stop in $dir (was the action run with mode: start?)" >&2; exit 1; }
pid=$(cat "$dir/pid")
kill -TERM "$pid" 2>/dev/null
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  echo "ficta: still running 30 s after SIGTERM; killing it" >&2
  kill -KILL "$pid" 2>/dev/null
fi
rm -f "$dir/secrets.env" "$dir/pid"
if [ ! -f "$dir/report.json" ]; then
  echo "ficta: no run report (ficta ended abnormally); its log:" >&2
  cat "$dir/log" >&2
  exit 1
fi
flags=()
[ "${FICTA_ACTION_FAIL_ON_BLOCK:-false}" = true ] && flags+=(--fail-on-block)
[ "${FICTA_ACTION_FAIL_ON_WITHHOLD:-false}" = true ] && flags+=(--fail-on-withhold)
ficta report "$dir/report.json" "${flags[@]}" > "$dir/summary.txt"
status=$?
cat "$dir/summary.txt"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  printf '### ficta run report\n\n```\n%s\n```\n' "$(cat "$dir/summary.txt")" >> "$GITHUB_STEP_SUMMARY"
fi
exit $status
