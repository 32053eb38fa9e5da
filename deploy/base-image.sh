#!/usr/bin/env bash
# Builds the `debian:bookworm-slim` base image locally with debootstrap, for machines that reach Debian's
# package mirror but no image registry. Copies this host's extra CA certificates into the base so that
# build steps fetching from package registries through a re-signing egress proxy trust it.
# Where Docker Hub is reachable, skip this script: `docker build` pulls debian:bookworm-slim itself.
# Usage: deploy/base-image.sh [--force]   (needs root, debootstrap and a running dockerd)
set -euo pipefail
tag=debian:bookworm-slim
if [ "${1:-}" != "--force" ] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base-image: $tag already present" >&2
  exit 0
fi
command -v debootstrap >/dev/null || { echo "base-image: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
# The mirror this host's apt uses (deb822 sources first, then the classic list).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -n1 || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
fi
[ -n "$mirror" ] || { echo "base-image: no Debian mirror found in this host's apt sources" >&2; exit 1; }
root=$(mktemp -d "${TMPDIR:-/tmp}/ficta-base.XXXXXX")
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$mirror" >&2
# Trim like the official slim image: no apt lists, docs, man pages or locales.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/* \
  "$root"/usr/share/info/* "$root"/usr/share/locale/*
# Extra CAs this host trusts (an egress proxy's): the base gets them in the same place, and a CA bundle
# that includes them, so npm/apt inside a build trust the same roots as the host.
shopt -s nullglob
extra=(/usr/local/share/ca-certificates/*.crt)
if [ ${#extra[@]} -gt 0 ]; then
  mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
  cp "${extra[@]}" "$root/usr/local/share/ca-certificates/"
  cat "${extra[@]}" > "$root/etc/ssl/certs/ca-certificates.crt"
  echo "base-image: copied ${#extra[@]} CA certificate(s) from the host" >&2
fi
tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$tag" >/dev/null
echo "base-image: built $tag ($(docker image inspect -f '{{.Size}}' "$tag") bytes)" >&2
