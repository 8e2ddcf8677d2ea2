#!/usr/bin/env bash
# Whole-command benchmarks of pi-session beside jq, a Python json reader, Pi 1.6.0 under
# node, and wc -l, on generated sessions of 10 MiB, 256 MiB and 1 GiB, in two shapes:
# `realistic` (entry sizes of the corpus's real sessions, ~130k entries per 256 MiB) and
# `large-entries` (the earlier shape, ~27k entries per 256 MiB). Prints markdown tables
# (median wall time over runs, peak RSS, and the anonymous memory of the peak).
#
#   bench/bench.sh                 # all sizes, both shapes
#   SIZES="10M 256M" SHAPES=realistic bench/bench.sh
#   RUNS=5 BENCH_DIR=/tmp/b bench/bench.sh
#   SHAPES=none bench/bench.sh     # only the many-sessions tables (ls, usage)
#
# Then `ls --all` and `usage` over LS_SESSIONS (2000) sessions of LS_SIZE (1M), and `usage`
# beside ccusage-pi (@ccusage/pi, installed by .ci/install-ccusage, or CCUSAGE_PI_DIR) over
# USAGE_SESSIONS (200) sessions of USAGE_SIZE (5M); 0 sessions skips a table. `ls` and
# `usage` run with their caches warm (kept in $BENCH_DIR/cache) and with --no-cache (every
# file read).
#
# Needs: cargo, GNU time (/usr/bin/time), jq, python3, node with the Pi oracle
# (.ci/install-oracle); hyperfine is used for timing when present.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SIZES="${SIZES:-10M 256M 1G}"
SHAPES="${SHAPES:-realistic large-entries}"
RUNS="${RUNS:-5}"
# shellcheck source=bench/common.sh
. bench/common.sh
find_pi_oracle

# median wall seconds of a command, over $RUNS runs (after one warm-up)
wall() {
  if command -v hyperfine >/dev/null; then
    hyperfine --ignore-failure --runs "$RUNS" --warmup 1 --style none --export-json "$BENCH_DIR/h.json" -- "$1" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$BENCH_DIR/h.json"
  else
    local times=()
    bash -c "$1" >/dev/null 2>&1
    for _ in $(seq "$RUNS"); do
      local s e; s=$(date +%s.%N); bash -c "$1" >/dev/null 2>&1; e=$(date +%s.%N)
      times+=("$(echo "$e - $s" | bc)")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)]}'
  fi
}

# peak RSS in MiB of one run
rss() {
  /usr/bin/time -f '%M' bash -c "exec $1 >/dev/null 2>&1" 2>&1 >/dev/null | tail -n 1 | awk '{printf "%.0f\n", $1/1024}'
}

# the largest anonymous (non-file) memory of one run in MiB, sampled from /proc every 10 ms
anon() {
  bash -c "exec $1 >/dev/null 2>&1" &
  local pid=$! peak=0 kb
  while kill -0 "$pid" 2>/dev/null; do
    kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
    sleep 0.01
  done
  wait "$pid" || true
  awk -v k="$peak" 'BEGIN {printf "%.0f\n", k/1024}'
}

row() { # name command
  printf '| %s | %s | %s | %s |\n' "$1" "$(wall "$2")" "$(rss "$2")" "$(anon "$2")"
}

for shape in $SHAPES; do
[ "$shape" = none ] && continue
for size in $SIZES; do
  f="$BENCH_DIR/session-$shape-$size.jsonl"
  [ -f "$f" ] || "$GEN" --shape "$shape" --size "$size" --out "$f" 2>/dev/null
  # A copy for the write commands, refreshed before each write benchmark.
  w="$BENCH_DIR/session-$shape-$size.write.jsonl"
  bytes=$(stat -L -c %s "$f")
  lines=$(wc -l <"$f")
  echo
  echo "### $shape, $size ($(numfmt --to=iec "$bytes"), $lines lines, $((bytes / lines)) bytes a line on average)"
  echo
  echo "| command | median s | peak RSS MiB | peak anonymous MiB |"
  echo "|---|---|---|---|"
  row "wc -l" "wc -l $f"
  row "jq -c '{type,id,parentId}'" "jq -c '{type,id,parentId}' $f"
  row "python3 json.loads per line" "python3 -c 'import json,sys
for l in open(sys.argv[1], \"rb\"): json.loads(l)' $f"
  if [ -n "${PI_ORACLE_MODULE_DIR:-}" ] && command -v node >/dev/null; then
    row "Pi 1.6.0: SessionManager.open + getBranch" "node bench/pi_open.mjs $f"
  fi
  row "pi-session tree --all --json" "$PS -s $f tree --all --json"
  row "pi-session tree --all" "$PS -s $f tree --all"
  row "pi-session log --all --json" "$PS -s $f log --all --json"
  row "pi-session log (whole branch)" "$PS -s $f log --no-pager"
  row "pi-session repair --check" "$PS -s $f repair --check"
  row "pi-session stats" "$PS -s $f stats"
  row "pi-session grep zzqqxxyy (no match)" "$PS -s $f grep zzqqxxyy"
  row "pi-session export --format md" "$PS -s $f export --format md -o -"
  row "pi-session export --format html" "$PS -s $f export --format html -o -"
  row "pi-session export --format html --all-branches" "$PS -s $f export --format html --all-branches -o -"
  row "pi-session secrets" "$PS -s $f secrets"
  row "pi-session log -n 20" "$PS -s $f log -n 20"
  row "pi-session show @" "$PS -s $f show @"
  row "pi-session rev-parse @~5" "$PS -s $f rev-parse @~5"
  row "pi-session context --json" "$PS -s $f context --json"
  row "pi-session context" "$PS -s $f context --no-pager"
  cp "$f" "$w"
  row "pi-session label @ NAME" "$PS -s $w label @ bench-\$RANDOM"
  row "pi-session checkout @~3" "$PS -s $w checkout @~3"
  rm -f "$w"
done
done

# ls --all and usage over many sessions: LS_SESSIONS distinct sessions (seeds 1..N) of LS_SIZE
# each, in 20 project folders.
LS_SESSIONS="${LS_SESSIONS:-2000}"
LS_SIZE="${LS_SIZE:-1M}"
# usage beside ccusage-pi (@ccusage/pi) on USAGE_SESSIONS sessions of USAGE_SIZE (~1 GB).
USAGE_SESSIONS="${USAGE_SESSIONS:-200}"
USAGE_SIZE="${USAGE_SIZE:-5M}"

# A folder of N distinct generated sessions of SIZE each (made once).
agent_dir() { # name n size
  local agent="$BENCH_DIR/$1" n="$2" size="$3"
  if [ ! -d "$agent/sessions" ] || [ "$(find "$agent/sessions" -name '*.jsonl' | wc -l)" -ne "$n" ]; then
    rm -rf "$agent"
    for i in $(seq 1 "$n"); do
      d="$agent/sessions/--home-user-proj$((i % 20))--"
      mkdir -p "$d"
      "$GEN" --shape realistic --size "$size" --seed "$i" \
        --out "$d/2026-11-0$((i % 9 + 1))T10-00-00-000Z_$(printf '%08d' "$i")-0000-7000-8000-000000000000.jsonl" 2>/dev/null
    done
  fi
  echo "$agent"
}

sessions_table() { # agent n
  local total
  total=$(du -sb "$1/sessions" | cut -f1)
  echo
  echo "### over $2 sessions ($(numfmt --to=iec "$total"))"
  echo
  echo "| command | median s | peak RSS MiB | peak anonymous MiB |"
  echo "|---|---|---|---|"
}

if [ "$LS_SESSIONS" -gt 0 ]; then
  agent=$(agent_dir "agent-$LS_SESSIONS" "$LS_SESSIONS" "$LS_SIZE")
  sessions_table "$agent" "$LS_SESSIONS"
  # The caches' own folder: the warm-up run fills it, the timed runs read it.
  row "pi-session ls --all --json (cache warm)" "env XDG_CACHE_HOME=$BENCH_DIR/cache PI_CODING_AGENT_DIR=$agent $PS ls --all --json"
  row "pi-session ls --all --json --no-cache" "env PI_CODING_AGENT_DIR=$agent $PS ls --all --json --no-cache"
  row "pi-session usage --json (cache warm)" "env XDG_CACHE_HOME=$BENCH_DIR/cache PI_CODING_AGENT_DIR=$agent $PS usage --json"
  row "pi-session usage --json --no-cache" "env PI_CODING_AGENT_DIR=$agent $PS usage --json --no-cache"
fi

if [ "$USAGE_SESSIONS" -gt 0 ]; then
  agent=$(agent_dir "agent-$USAGE_SESSIONS-$USAGE_SIZE" "$USAGE_SESSIONS" "$USAGE_SIZE")
  sessions_table "$agent" "$USAGE_SESSIONS"
  row "pi-session usage --by session --json --no-cache" "env PI_CODING_AGENT_DIR=$agent $PS usage --by session --json --no-cache"
  row "pi-session usage --by day --json --no-cache" "env PI_CODING_AGENT_DIR=$agent $PS usage --by day --json --no-cache"
  row "pi-session usage --by session --json (cache warm)" "env XDG_CACHE_HOME=$BENCH_DIR/cache PI_CODING_AGENT_DIR=$agent $PS usage --by session --json"
  if [ -z "${CCUSAGE_PI_DIR:-}" ] && [ -x .ci/install-ccusage ]; then
    CCUSAGE_PI_DIR="$(.ci/install-ccusage 2>/dev/null | tail -n 1 || true)"
  fi
  if [ -n "${CCUSAGE_PI_DIR:-}" ] && command -v node >/dev/null; then
    row "ccusage-pi session --json" "node $CCUSAGE_PI_DIR/dist/index.js session --json --piPath $agent/sessions"
    row "ccusage-pi daily --json" "node $CCUSAGE_PI_DIR/dist/index.js daily --json --piPath $agent/sessions"
  fi
fi
