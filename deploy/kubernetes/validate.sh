#!/usr/bin/env bash
# Renders deploy/kubernetes with kustomize and checks every resource, and the Secret examples, against the
# Kubernetes API schemas with kubeconform (strict: unknown fields are errors). Offline once
# .ci/deps.d/kubernetes.sh has built the tools and schemas (it runs here first; quick when done).
# Usage: deploy/kubernetes/validate.sh [FILE…]   (extra files to check, e.g. your overlay's output)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/.ci/deps.d/kubernetes.sh"
dir=${FICTA_K8S_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/ficta/kubernetes-tools}
schemas=$(ls -d "$dir"/schemas-v* | tail -n1)
rendered=$(mktemp "${TMPDIR:-/tmp}/ficta-k8s.XXXXXX.yaml")
trap 'rm -f "$rendered"' EXIT
"$dir/bin/kustomize" build "$root/deploy/kubernetes" > "$rendered"
echo "validate: $(cat "$dir/.stamp")" >&2
"$dir/bin/kubeconform" -strict -summary -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
  "$rendered" "$root/deploy/kubernetes/secrets/example.yaml" "$@"
