#!/usr/bin/env bash
# Offline validation of deploy/kubernetes/: kubeconform and kustomize built from the Go module proxy, and
# JSON schemas made from the Kubernetes API's own OpenAPI document (api/openapi-spec/swagger.json in the
# k8s.io/kubernetes module) by deploy/kubernetes/openapi-to-schemas.mjs. Everything lands in
# ~/.cache/ficta/kubernetes-tools (or FICTA_K8S_TOOLS); idempotent, quick once there. Needs go and node.
set -euo pipefail
cd "$(dirname "$0")/../.."
KUBECONFORM=v0.8.0
KUSTOMIZE=v5.7.1
KUBERNETES=v1.34.4
dir=${FICTA_K8S_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/ficta/kubernetes-tools}
schemas=$dir/schemas-$KUBERNETES
stamp="kubeconform $KUBECONFORM kustomize $KUSTOMIZE kubernetes $KUBERNETES $(sha256sum deploy/kubernetes/openapi-to-schemas.mjs | cut -c1-12)"
if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dir/bin/kubeconform" ] && [ -x "$dir/bin/kustomize" ] && [ -f "$schemas/deployment-apps-v1.json" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "kubernetes.sh: go is not installed (needed to build kubeconform and kustomize)" >&2; exit 1; }
command -v node >/dev/null || { echo "kubernetes.sh: node is not on PATH" >&2; exit 1; }
mkdir -p "$dir/bin"
export GOFLAGS=-mod=mod GOMODCACHE="$dir/gomod" GOBIN="$dir/bin"
go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM"
go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE"
# The module zip holds the API's OpenAPI document; go verifies it against the checksum database.
src=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -f "$src/api/openapi-spec/swagger.json" ] || { echo "kubernetes.sh: no api/openapi-spec/swagger.json in k8s.io/kubernetes@$KUBERNETES" >&2; exit 1; }
rm -rf "$schemas"
node deploy/kubernetes/openapi-to-schemas.mjs "$src/api/openapi-spec/swagger.json" "$schemas"
# The module sources are not needed once the schemas exist (the module cache is read-only: make it writable first).
chmod -R u+w "$dir/gomod" && rm -rf "$dir/gomod"
echo "$stamp" > "$dir/.stamp"
