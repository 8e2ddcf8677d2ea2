# Sourced by the bench scripts, from the repository's top folder: where generated sessions and
# results go ($BENCH_DIR), release builds of pi-session ($PS) and of the session generator
# ($GEN), and Pi 1.6.0 for the comparisons.
# shellcheck shell=bash

BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/pi-session-bench}"
mkdir -p "$BENCH_DIR"

cargo build --release --quiet --bin pi-session --example gen_session
# Where cargo put them: $CARGO_TARGET_DIR when set (relative to here when relative).
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
PS="$target/release/pi-session"
GEN="$target/release/examples/gen_session"

# Exports PI_ORACLE_MODULE_DIR: as given, else where .ci/install-oracle puts Pi 1.6.0 (empty
# when it cannot).
find_pi_oracle() {
  if [ -z "${PI_ORACLE_MODULE_DIR:-}" ]; then
    PI_ORACLE_MODULE_DIR="$(.ci/install-oracle 2>/dev/null | tail -n 1 || true)"
  fi
  export PI_ORACLE_MODULE_DIR
}

# The full-file commands every comparison runs, in this order (the tables follow it).
# shellcheck disable=SC2034 # used by the scripts that source this file
FULL_FILE_COMMANDS=(
  "log --all --json" "tree --all --json" "tree --all" "log" "log --json" "repair --check"
  "stats" "grep zzqqxxyy" "export --format md -o -" "export --format html -o -" "secrets"
)

# The realistic session of size $1 (`256M`, `1G`) in $BENCH_DIR, generated on first use (with
# the generator's options that follow); prints its path.
realistic_session() {
  local size="$1"
  shift
  local f="$BENCH_DIR/session-realistic-$size.jsonl"
  [ -f "$f" ] || "$GEN" --shape realistic --size "$size" --out "$f" "$@" 2>/dev/null
  echo "$f"
}

# The images session (gen_session --shape images) of size $1 (`1G`) in $BENCH_DIR, generated on first use; prints its
# path (what `slim` is measured on: bench/slim.sh).
images_session() {
  local size="$1"
  local f="$BENCH_DIR/session-images-$size.jsonl"
  [ -f "$f" ] || "$GEN" --shape images --size "$size" --out "$f" 2>/dev/null
  echo "$f"
}
