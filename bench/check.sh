#!/usr/bin/env bash
# `check` with every rule against `log --all --json` on the realistic session (the issue's
# budget: within 2x), median of $ROUNDS runs each, wall time.
#   bench/check.sh                 # 256 MiB, 5 rounds
#   SIZE=64M ROUNDS=3 bench/check.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/common.sh

SIZE="${SIZE:-256M}"
ROUNDS="${ROUNDS:-5}"
f="$(realistic_session "$SIZE")"
every=(check --max-cost 1e9 --max-tokens 999999999999 --max-context 1000 --max-tool-calls 999999999
  --max-turns 999999999 --max-tool-errors 999999999 --paths '*' --no-secrets --no-own-keys --valid
  --forbid-tool nothing --require-tool bash)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() {
  for _ in $(seq "$ROUNDS"); do
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    echo "$e - $s" | bc
  done | median
}

cat "$f" >/dev/null # into the page cache
log=$(time_of "$PS" -s "$f" log --all --json)
chk=$(time_of "$PS" -s "$f" "${every[@]}")
printf 'session %s (%s), %s rounds, median wall seconds\n' "$SIZE" "$(du -h "$f" | cut -f1)" "$ROUNDS"
printf '  log --all --json    %6.2f\n' "$log"
printf '  check (every rule)  %6.2f   %.2fx\n' "$chk" "$(echo "$chk / $log" | bc -l)"
