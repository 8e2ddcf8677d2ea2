#!/usr/bin/env bash
# How long headless Chromium takes to render HTML exports, and how long the exports take:
# generated sessions of ~10,000+ entries (SIZES, realistic shape), exported with
# --all-branches and with @'s branch only. Prints a markdown table (median of RUNS).
#
#   bench/export-browser.sh
#   SIZES="36M 72M" RUNS=3 BENCH_DIR=/tmp/b bench/export-browser.sh
#
# Needs: cargo, chromium (PI_SESSION_CHROMIUM names another binary).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SIZES="${SIZES:-36M}"
RUNS="${RUNS:-3}"
CHROMIUM="${PI_SESSION_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$CHROMIUM" ] || { echo "no chromium found" >&2; exit 1; }
# shellcheck source=bench/common.sh
. bench/common.sh

# median of the wall seconds a command takes over $RUNS runs
median() {
  local times=()
  for _ in $(seq "$RUNS"); do
    local s e; s=$(date +%s.%N); bash -c "$1" >/dev/null 2>&1; e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f\n", a[int((NR+1)/2)]}'
}

render() {
  local profile; profile=$(mktemp -d)
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom "file://$1" >/dev/null 2>&1
  rm -rf "$profile"
}
export -f render
export CHROMIUM

echo "| session | export | entries shown | HTML size | export s | chromium --dump-dom s |"
echo "|---|---|---|---|---|---|"
for size in $SIZES; do
  f="$(realistic_session "$size" --seed 5)"
  for mode in "" "--all-branches"; do
    out="$BENCH_DIR/export-$size${mode:+-all}.html"
    export_s=$(median "rm -f '$out'; '$PS' -s '$f' export $mode -o '$out'")
    [ -f "$out" ] || "$PS" -s "$f" export $mode -o "$out"
    entries=$(grep -o '<article ' "$out" | wc -l)
    bytes=$(du -h "$out" | cut -f1)
    dom_s=$(median "render '$out'")
    echo "| $(basename "$f") | ${mode:-branch of @} | $entries | $bytes | $export_s | $dom_s |"
  done
done
