#!/usr/bin/env bash
# The README's pictures of an HTML export: a corpus session rendered by headless Chromium in
# its light and dark colours, written to docs/export-light.png and docs/export-dark.png.
#
#   bench/screenshots.sh [SESSION]     # default: tests/corpus/real-large.v3.jsonl
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SESSION="${1:-tests/corpus/real-large.v3.jsonl}"
CHROMIUM="${PI_SESSION_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$CHROMIUM" ] || { echo "no chromium found" >&2; exit 1; }
cargo build --release --quiet --bin pi-session
mkdir -p docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/release/pi-session -s "$SESSION" export -o "$tmp/export.html"
# Blink's preferredColorScheme: 0 is dark, 1 is light.
for scheme in light:1 dark:0; do
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile-${scheme%%:*}" --hide-scrollbars \
    --blink-settings=preferredColorScheme="${scheme##*:}" --window-size=1100,1400 \
    --screenshot="$PWD/docs/export-${scheme%%:*}.png" "file://$tmp/export.html" >/dev/null 2>&1
  echo "docs/export-${scheme%%:*}.png"
done
