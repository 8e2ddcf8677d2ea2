#!/usr/bin/env bash
# Two builds of pi-session side by side on one generated session: each round runs every command
# once with each build, the builds' order alternating and the commands' order turning by one,
# so that a slow or fast moment of a shared machine falls on both. Prints each command's median
# wall time per build and the ratio NEW/OLD. For changes that must not cost speed.
#
#   bench/compare-speed.sh OLD_BINARY NEW_BINARY        # realistic 256 MiB session, 7 rounds
#   SIZE=1G ROUNDS=5 BENCH_DIR=/tmp/pb bench/compare-speed.sh OLD NEW
#
# Needs: cargo (bench/common.sh builds the session generator), python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

old="${1:?usage: bench/compare-speed.sh OLD NEW}"
new="${2:?usage: bench/compare-speed.sh OLD NEW}"
SIZE="${SIZE:-256M}"
ROUNDS="${ROUNDS:-7}"
# shellcheck source=bench/common.sh
. bench/common.sh
f="$(realistic_session "$SIZE")"
export PI_SESSION_PAGER=cat TZ=UTC

commands=("${FULL_FILE_COMMANDS[@]}" "log -n 20" "show @" "context --json")
times="$BENCH_DIR/compare-speed.times"
: >"$times"
run() { # build label, command
  local s e
  s=$(date +%s%N)
  # shellcheck disable=SC2086
  "$1" --no-pager --color never -s "$f" $3 >/dev/null 2>&1 || true
  e=$(date +%s%N)
  printf '%s\t%s\t%s\n' "$2" "$3" "$(((e - s) / 1000))" >>"$times"
}
for c in "${commands[@]}"; do "$old" -s "$f" $c >/dev/null 2>&1 || true; done # warm-up
n=${#commands[@]}
for ((r = 0; r < ROUNDS; r++)); do
  for ((k = 0; k < n; k++)); do
    c="${commands[$(((k + r) % n))]}"
    if ((r % 2)); then run "$new" new "$c"; run "$old" old "$c"; else run "$old" old "$c"; run "$new" new "$c"; fi
  done
done
python3 - "$times" "${commands[@]}" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
print(f"{'command':<28} {'old s':>8} {'new s':>8} {'new/old':>8}")
for c in sys.argv[2:]:
    med = {b: statistics.median(int(t) for (x, cc, t) in rows if x == b and cc == c) / 1e6 for b in ("old", "new")}
    print(f"{c:<28} {med['old']:>8.3f} {med['new']:>8.3f} {med['new'] / med['old']:>8.2f}")
EOF
