#!/usr/bin/env bash
# Byte-for-byte comparison of two pi-session builds: every read command's output (`--json`, the
# human views with colour off, the exports) on the corpus, the fixtures, the example and a
# generated session. For refactors that must not change behaviour.
#
#   bench/compare-outputs.sh OLD_BINARY NEW_BINARY [GENERATED_SESSION…]
#
# Prints one line per difference and a summary; exits 1 if any output differs. Runs with
# TZ=UTC, COLUMNS=120 and no pager, and never writes to a session (write commands run with
# --dry-run on a copy).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
old="${1:?usage: bench/compare-outputs.sh OLD NEW [SESSION…]}"
new="${2:?usage: bench/compare-outputs.sh OLD NEW [SESSION…]}"
shift 2

export TZ=UTC COLUMNS=120 NO_COLOR=1 PI_SESSION_PAGER=
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Both run as `pi-session`: clap names the program in usage errors by how it was called.
mkdir -p "$scratch/old" "$scratch/new"
cp "$old" "$scratch/old/pi-session"
cp "$new" "$scratch/new/pi-session"
old="$scratch/old/pi-session"
new="$scratch/new/pi-session"
# Sessions looked up without -s (ls, usage) come from an agent dir of our own.
export PI_CODING_AGENT_DIR="$scratch/agent" XDG_CACHE_HOME="$scratch/cache"
mkdir -p "$PI_CODING_AGENT_DIR/sessions/--tmp--"

sessions=(examples/session.jsonl tests/corpus/*.jsonl tests/fixtures/*.jsonl "$@")
for s in "${sessions[@]}"; do cp "$s" "$PI_CODING_AGENT_DIR/sessions/--tmp--/" 2>/dev/null; done

same=0
differ=0
run_both() { # label, then the arguments
  local label="$1"
  shift
  "$old" "$@" >"$scratch/old.out" 2>"$scratch/old.err"
  local old_rc=$?
  "$new" "$@" >"$scratch/new.out" 2>"$scratch/new.err"
  local new_rc=$?
  # repair draws a fresh id for a duplicated one: the only output that is new each run.
  sed -i -E 's/→ [0-9a-f]{8}/→ ID/g' "$scratch"/old.* "$scratch"/new.*
  if [ $old_rc != $new_rc ] || ! cmp -s "$scratch/old.out" "$scratch/new.out" || ! cmp -s "$scratch/old.err" "$scratch/new.err"; then
    differ=$((differ + 1))
    echo "DIFFERS ($old_rc vs $new_rc): $label: $*"
  else
    same=$((same + 1))
  fi
}

for s in "${sessions[@]}"; do
  name="$(basename "$s")"
  for args in \
    "log" "log --all" "log --json" "log --all --json" "log --oneline" "log --long" \
    "tree" "tree --all" "tree --user" "tree --json" "tree --all --json" "tree --depth 2" \
    "show" "show --json" "show root" "context" "context --json" "rev-parse @ root" "rev-parse --leaf" \
    "stats" "stats --json" "stats --branch --json" "label --list --json" "label" \
    "diff root @ --json" "diff root @ --stat" "merge-base root @" \
    "repair --check --json" "repair --dry-run --json" "secrets --json" "redact --dry-run --json" \
    "grep -i the" "grep -c e --json" "grep --tools -i file" \
    "usage --json" "usage --by day,model,source --json --no-cache" \
    "export --format md -o -" "export --format html -o -" "export --format md --all-branches -o -" \
    "export --format html --all-branches -o -" "export --format md --redact -o -" \
    "compact --dry-run --json"; do
    # shellcheck disable=SC2086
    run_both "$name" --no-pager --color never -s "$s" $args
  done
done
run_both ls ls --json
run_both ls ls --all --json -v
run_both usage usage --all --json

echo "compare-outputs: $same same, $differ differ"
[ $differ = 0 ]
