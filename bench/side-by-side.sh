#!/usr/bin/env bash
# Issue 12's comparison, side by side: each round opens the session once with Pi 1.6.0
# (bench/pi_open.mjs) and then runs every full-file command once, so that a slow or fast
# moment of a shared machine falls on both; the commands' order turns by one each round.
# Prints each command's median, its ratio to Pi's median, and the median and minimum of the
# per-round ratios, in the order of the list below.
#
#   bench/side-by-side.sh                       # realistic 256 MiB session, 7 rounds
#   SIZE=1G ROUNDS=5 BENCH_DIR=/tmp/pb bench/side-by-side.sh
#
# Needs: cargo, node with the Pi oracle (.ci/install-oracle), python3, bc.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SIZE="${SIZE:-256M}"
ROUNDS="${ROUNDS:-7}"
# shellcheck source=bench/common.sh
. bench/common.sh
f="$(realistic_session "$SIZE")"
find_pi_oracle
[ -n "$PI_ORACLE_MODULE_DIR" ] || { echo "Pi 1.6.0 is needed: run .ci/install-oracle" >&2; exit 1; }
export PI_SESSION_PAGER=cat

seconds() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}

commands=("${FULL_FILE_COMMANDS[@]}")
times="$BENCH_DIR/side-by-side.times"
: >"$times"
# One warm-up of each, so that the first round is not the one reading the file from disk.
# Pi's shows its errors: a Pi that cannot run would make every ratio meaningless.
node bench/pi_open.mjs "$f" >/dev/null || { echo "Pi 1.6.0 could not open $f" >&2; exit 1; }
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086 # the command's words are meant to split
  $PS -s "$f" $c >/dev/null 2>&1 || true
done
# Each round starts one command further down the list: the first process after Pi's pays
# for memory Pi has just given back (on the VM these numbers come from, up to +0.13 s for
# a 0.23 s export), and that cost must not fall on the same command every round.
n=${#commands[@]}
for r in $(seq "$ROUNDS"); do
  echo "pi|$r|$(seconds node bench/pi_open.mjs "$f")" >>"$times"
  for k in $(seq 0 $((n - 1))); do
    c="${commands[$(((k + r) % n))]}"
    # shellcheck disable=SC2086
    echo "$c|$r|$(seconds $PS -s "$f" $c)" >>"$times"
  done
done

echo "$(wc -l <"$f") lines, $(stat -L -c %s "$f") bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$times" "${commands[@]}" <<'PY'
import collections, statistics, sys
by = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    command, round_, t = line.rstrip("\n").split("|")
    by[command][int(round_)] = float(t)
pi = by.pop("pi")
pi_median = statistics.median(pi.values())
print(f"| command | median | vs Pi's median | per-round ratio: median, min |")
print(f"|---|---|---|---|")
print(f"| Pi 1.6.0 opening the file | {pi_median:.3f} s ({min(pi.values()):.2f}–{max(pi.values()):.2f}) | | |")
for command in sys.argv[2:]:
    runs = by[command]
    m = statistics.median(runs.values())
    ratios = [pi[r] / runs[r] for r in runs]
    print(f"| `{command}` | {m:.3f} s | {pi_median / m:.1f}× | {statistics.median(ratios):.1f}×, {min(ratios):.1f}× |")
PY
