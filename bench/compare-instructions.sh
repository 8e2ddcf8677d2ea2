#!/usr/bin/env bash
# Two builds of pi-session compared by the instructions each command executes (valgrind's
# callgrind, whole process, every thread), on one generated session. Unlike times, the counts
# repeat exactly from run to run whatever else the machine is doing, so a change of a few per
# cent shows on a shared virtual machine. They leave out what waiting on memory costs: read
# them beside bench/compare-speed.sh, not instead of it.
#
#   bench/compare-instructions.sh OLD_BINARY NEW_BINARY        # realistic 32 MiB session
#   SIZE=64M bench/compare-instructions.sh OLD NEW
#
# Needs: valgrind, cargo (bench/common.sh builds the session generator).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

old="${1:?usage: bench/compare-instructions.sh OLD NEW}"
new="${2:?usage: bench/compare-instructions.sh OLD NEW}"
SIZE="${SIZE:-32M}"
# shellcheck source=bench/common.sh
. bench/common.sh
f="$(realistic_session "$SIZE")"
export PI_SESSION_PAGER=cat TZ=UTC

commands=("${FULL_FILE_COMMANDS[@]}")
count() { # binary, then the command's words
  local bin="$1" out
  shift
  out="$(mktemp)"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" -s "$f" "$@" >/dev/null 2>"$out" || true
  grep -o 'refs: *[0-9,]*' "$out" | tr -dc '0-9'
  rm -f "$out"
}
printf '%-28s %14s %14s %8s\n' command old new new/old
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086 # the command's words are meant to split
  o=$(count "$old" $c)
  # shellcheck disable=SC2086
  n=$(count "$new" $c)
  printf '%-28s %14s %14s %8.3f\n' "$c" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done
