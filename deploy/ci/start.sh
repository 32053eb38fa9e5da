#!/usr/bin/env bash
# CI: starts `ficta serve` in the background as the job's sidecar: a free port, a random access token,
# the secrets given in FICTA_ACTION_SECRETS (dotenv text) and FICTA_ACTION_SECRET_ENV (names of variables)
# registered, extra arguments from FICTA_ACTION_ARGS. Once ready, the base-URL variables (FICTA_URL,
# ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL) go to $GITHUB_ENV and the step's outputs;
# the token is masked in the job log. State lives in $FICTA_ACTION_DIR (default $RUNNER_TEMP/ficta);
# deploy/ci/stop.sh ends it.
set -euo pipefail
dir=${FICTA_ACTION_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ficta}
if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
  echo "ficta: already running (pid $(cat "$dir/pid")); stop it first" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p -m 700 "$dir"
args=(serve --port 0 --token auto --ready-file "$dir/ready" --report-file "$dir/report.json" --log-format json)
if [ -n "${FICTA_ACTION_SECRETS:-}" ]; then
  (umask 077 && printf '%s\n' "$FICTA_ACTION_SECRETS" > "$dir/secrets.env")
  args+=(--env-file "$dir/secrets.env")
fi
for name in ${FICTA_ACTION_SECRET_ENV:-}; do args+=(--secret-env "$name"); done
# Extra arguments, split on whitespace (no quoting: they are flags and URLs).
read -r -a extra <<< "${FICTA_ACTION_ARGS:-}"
nohup ficta "${args[@]}" "${extra[@]}" > "$dir/out" 2> "$dir/log" < /dev/null &
echo $! > "$dir/pid"
for _ in $(seq 1 300); do
  [ -f "$dir/ready" ] && break
  kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
  sleep 0.1
done
if [ ! -f "$dir/ready" ]; then
  echo "ficta: did not start; its log (no secret values are ever logged):" >&2
  cat "$dir/log" >&2
  kill -TERM "$(cat "$dir/pid")" 2>/dev/null || true
  exit 1
fi
# The token is a credential for this run: on GitHub, masked (*** in every later log line). Elsewhere
# nothing here prints it; keep the base URLs out of the log yourself.
token=$(sed -n 's|^FICTA_URL=.*/t/\([^/]*\).*$|\1|p' "$dir/ready")
if [ "${GITHUB_ACTIONS:-}" = true ] && [ -n "$token" ]; then echo "::add-mask::$token"; fi
grep -v '^FICTA_LISTEN=' "$dir/ready" >> "${GITHUB_ENV:-/dev/null}"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  sed -n -e 's/^FICTA_URL=/base-url=/p' -e 's/^ANTHROPIC_BASE_URL=/anthropic-base-url=/p' \
    -e 's/^OPENAI_BASE_URL=/openai-base-url=/p' -e 's/^GOOGLE_GEMINI_BASE_URL=/gemini-base-url=/p' "$dir/ready" >> "$GITHUB_OUTPUT"
fi
echo "ficta: listening on $(sed -n 's/^FICTA_LISTEN=//p' "$dir/ready") (pid $(cat "$dir/pid")); base URLs exported"
