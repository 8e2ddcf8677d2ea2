#!/usr/bin/env bash
# `import --from claude` of a generated Claude Code session (examples/gen_claude_session.rs:
# split assistant replies, tool results repeated in toolUseResult, rewinds, subagents,
# compactions) of $SIZE (default 100M), median wall time of $ROUNDS runs. The issue's budget:
# under 2 s here.
#   bench/import.sh
#   SIZE=20M ROUNDS=3 bench/import.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source bench/common.sh
cargo build --release --quiet --example gen_claude_session
GEN_CLAUDE="$(dirname "$GEN")/gen_claude_session"

SIZE="${SIZE:-100M}"
ROUNDS="${ROUNDS:-5}"
src="$BENCH_DIR/claude-$SIZE.jsonl"
[ -f "$src" ] || "$GEN_CLAUDE" --size "$SIZE" --out "$src"
cat "$src" >/dev/null # into the page cache

out="$BENCH_DIR/import-out"
times=()
for _ in $(seq "$ROUNDS"); do
  rm -rf "$out" && mkdir -p "$out"
  s=$(date +%s.%N)
  "$PS" import --from claude "$src" -o "$out/imported.jsonl" >/dev/null 2>&1
  e=$(date +%s.%N)
  times+=("$(echo "$e - $s" | bc)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'claude session %s (%s, %s lines), %s rounds\n' "$SIZE" "$(du -h "$src" | cut -f1)" "$(wc -l <"$src")" "$ROUNDS"
printf '  import --from claude   %6.2f s (median wall)   -> %s\n' "$median" "$(du -h "$out/imported.jsonl" | cut -f1)"
