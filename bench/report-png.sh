#!/bin/sh
# Renders an HTML bench report (`ficta bench --html FILE`) to a PNG with headless Chromium, to look at
# the page as a reader would. Debian: apt-get install -y chromium. The flags keep Chromium off the
# network (the page is self-contained; a closed network otherwise costs refused connections at start).
# Usage: bench/report-png.sh REPORT.html OUT.png [WIDTH]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 REPORT.html OUT.png [WIDTH]" >&2; exit 2; }
html=$(realpath "$1")
out=$(realpath -m "$2")
width=${3:-1180}
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$browser" ] || { echo "report-png: no chromium on PATH (apt-get install -y chromium, or set CHROMIUM)" >&2; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# The page's height is not known before layout: render tall, then trim the empty bottom if ImageMagick
# is there (the PNG is complete either way).
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$profile" \
  --window-size="$width,${HEIGHT:-6000}" --screenshot="$out" "file://$html" >/dev/null 2>&1
if command -v magick >/dev/null 2>&1; then magick "$out" -trim +repage -bordercolor '#f6f7f9' -border 16 "$out"
elif convert -version 2>/dev/null | grep -q ImageMagick; then convert "$out" -trim +repage -bordercolor '#f6f7f9' -border 16 "$out"
fi
echo "$out"
