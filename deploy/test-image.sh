#!/usr/bin/env bash
# Builds the container image and runs test/integration/container-image.test.ts against it: read-only root,
# non-root, mounted env file and config, official SDKs through it to a mock provider on loopback, the
# HEALTHCHECK, and SIGTERM draining a stream to exit 0. Prints the build time and the image size.
# Needs root for dockerd; starts dockerd when none answers, builds the local base when it is missing.
# Usage: deploy/test-image.sh [TAG]   (FICTA_IMAGE_NO_CACHE=1 builds every layer again, to time a fresh build)
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-ficta:test}

# Debian's docker.io and debootstrap when missing (as root; run `apt-get update` once on a new machine).
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test-image: installing ${missing[*]}" >&2
  apt-get install -y "${missing[@]}" >/dev/null || { echo "test-image: could not install ${missing[*]}" >&2; exit 1; }
fi
if ! docker info >/dev/null 2>&1; then
  echo "test-image: starting dockerd (log: /tmp/ficta-dockerd.log)" >&2
  nohup dockerd >/tmp/ficta-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { echo "test-image: dockerd did not start" >&2; exit 1; }
fi
docker image inspect debian:bookworm-slim >/dev/null 2>&1 || bash deploy/base-image.sh

pnpm build
started=$(date +%s.%N)
docker build ${FICTA_IMAGE_NO_CACHE:+--no-cache} -f deploy/Dockerfile -t "$tag" . >/tmp/ficta-image-build.log 2>&1 || { tail -40 /tmp/ficta-image-build.log >&2; exit 1; }
built=$(date +%s.%N)
size=$(docker image inspect -f '{{.Size}}' "$tag")
awk -v t="$tag" -v a="$started" -v b="$built" -v s="$size" 'BEGIN { printf "test-image: built %s in %.1f s, %d bytes (%.1f MB)\n", t, b - a, s, s / 1e6 }'

FICTA_TEST_IMAGE=$tag pnpm exec vitest run test/integration/container-image.test.ts
