#!/usr/bin/env bash
# CI: installs ficta from this checkout (the action's own copy) and puts its bin/ on PATH for later steps
# ($GITHUB_PATH on GitHub; the current shell's PATH when sourced elsewhere). Needs Node >= 22.19.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' \
  || { echo "ficta: Node >= 22.19 is needed (found $(node --version 2>/dev/null || echo none)); use actions/setup-node first" >&2; exit 1; }
command -v pnpm >/dev/null || npm install -g pnpm@10 >/dev/null
(cd "$root" && pnpm install --frozen-lockfile --reporter=silent)
"$root/bin/ficta" --version >/dev/null
if [ -n "${GITHUB_PATH:-}" ]; then echo "$root/bin" >> "$GITHUB_PATH"; fi
echo "ficta: installed $("$root/bin/ficta" --version) from $root"
