#!/usr/bin/env bash
# `slim` beside `repair` on an images session (examples/gen_session.rs --shape
# images): wall time (median of RUNS) and peak memory of `slim --dry-run` against
# `repair --check`, and of `slim` against a `repair` that rewrites the same file (a copy with
# one blank line after the header, which repair drops by rewriting it). Each run starts from
# a fresh copy. The budget (issue 36): slim
# within 2x of repair, --dry-run within 1.5x of repair --check, memory no higher.
#
#   bench/slim.sh              # a 1 GiB session
#   SIZE=256M RUNS=3 bench/slim.sh
#
# Needs: cargo, GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SIZE="${SIZE:-1G}"
RUNS="${RUNS:-3}"
# shellcheck source=bench/common.sh
. bench/common.sh
src="$(images_session "$SIZE")"
work="$BENCH_DIR/slim-work.jsonl"
export PI_SESSION_PAGER=cat

# Prints "seconds maxKB" of one run of pi-session with the given words on a fresh copy
# (DAMAGED=1: with a blank line after the header).
once() {
  if [ "${DAMAGED:-0}" = 1 ]; then
    { head -n 1; echo; cat; } <"$src" >"$work"
  else
    cp "$src" "$work"
  fi
  rm -rf "$work.slim" "$work".bak* "$work".*.bak 2>/dev/null || true
  touch -d '1 hour ago' "$work"
  /usr/bin/time -f '%e %M' -o "$BENCH_DIR/time.txt" "$PS" -s "$work" "$@" >/dev/null 2>&1 || true
  cat "$BENCH_DIR/time.txt"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
row() {
  local name="$1"
  shift
  local times mems
  times="$(for _ in $(seq "$RUNS"); do once "$@"; done)"
  mems="$(echo "$times" | awk '{print $2}' | median)"
  printf '%-22s %8.2f s %9d MB\n' "$name" "$(echo "$times" | awk '{print $1}' | median)" "$((mems / 1024))"
}
printf '%s: %s bytes\n' "$src" "$(stat -c %s "$src")"
row "repair --check" repair --check
row "slim --dry-run" slim --dry-run
DAMAGED=1 row "repair (rewrite)" repair
row "slim" slim
rm -rf "$work" "$work.slim" "$work".bak* 2>/dev/null || true
