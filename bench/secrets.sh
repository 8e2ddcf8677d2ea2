#!/usr/bin/env bash
# `pi-session secrets` beside Yelp's detect-secrets (1.5.0, installed by
# .ci/install-detect-secrets): wall time (median of RUNS) on each file, and what each finds.
# On the planted fixture (tests/fixtures/secrets/planted.v3.jsonl, made by
# examples/plant_secrets.rs) every finding is checked against its manifest: a table of the
# planted secrets, found or not by each tool, then the findings that match no planted secret
# (hits on the near-misses, and anything else). On the other files, each detect-secrets
# finding is listed with the entry and the JSON path it is in.
#
#   bench/secrets.sh                        # fixture, tests/corpus/*.jsonl, a 256 MiB session
#   bench/secrets.sh FILE...                # these files instead
#   SIZE=10M RUNS=3 bench/secrets.sh        # a smaller generated session
#   SIZE=none bench/secrets.sh              # no generated session
#   TOOLS=detect-secrets bench/secrets.sh   # one tool only (pi-session, detect-secrets)
#
# The generated session is `examples/gen_session.rs --shape realistic --size $SIZE`, kept in
# $BENCH_DIR as bench/bench.sh keeps its own. Files over 64 MiB are timed LARGE_RUNS times
# (default 1, no warm-up): detect-secrets takes about 3 s of CPU a MiB of session.
# PS=path/to/pi-session uses that binary instead of building this checkout's. When the
# binary has no `secrets` subcommand (or the checkout does not build), its rows say so and
# the rest still runs. A line of `secrets --json` matches a planted secret when its `entry`
# (or `entryId`), `path` and `rule` are the manifest record's. Needs python3 and cargo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS="${RUNS:-5}"
LARGE_RUNS="${LARGE_RUNS:-1}"
SIZE="${SIZE:-256M}"
TOOLS="${TOOLS:-pi-session detect-secrets}"
BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/pi-session-bench}"
mkdir -p "$BENCH_DIR"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
FIXTURE=tests/fixtures/secrets/planted.v3.jsonl
MANIFEST=tests/fixtures/secrets/planted.manifest.jsonl

has_tool() { [[ " $TOOLS " == *" $1 "* ]]; }
note() { printf '%s\n' "$*" >&2; }

# pi-session: this checkout's, unless PS names one. A checkout that does not build yet only
# skips pi-session.
PS_SKIP=""
if has_tool pi-session; then
  if [ -z "${PS:-}" ]; then
    PS="$TARGET/release/pi-session"
    if ! cargo build --release --quiet --bin pi-session 2>"$BENCH_DIR/secrets-build.log"; then
      PS_SKIP="skip: this checkout's pi-session does not build (see $BENCH_DIR/secrets-build.log)"
    fi
  fi
  if [ -z "$PS_SKIP" ] && ! "$PS" secrets --help >/dev/null 2>&1; then
    PS_SKIP="skip: $PS has no \`secrets\` subcommand yet"
  fi
else
  PS_SKIP="skip: pi-session not in TOOLS"
fi

DS=""
if has_tool detect-secrets; then
  DS="${DETECT_SECRETS:-$(.ci/install-detect-secrets 2>/dev/null | tail -n 1)}"
  DS_PY="$(dirname "$DS")/python"
fi

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  files=("$FIXTURE" tests/corpus/*.jsonl)
  if [ "$SIZE" != none ]; then
    big="$BENCH_DIR/session-realistic-$SIZE.jsonl"
    if [ ! -f "$big" ]; then
      if cargo build --release --quiet --example gen_session 2>>"$BENCH_DIR/secrets-build.log"; then
        "$TARGET/release/examples/gen_session" --shape realistic --size "$SIZE" --out "$big" 2>/dev/null
      else
        note "skip: cannot build examples/gen_session for the $SIZE session"
        big=""
      fi
    fi
    [ -n "$big" ] && files+=("$big")
  fi
fi

# median wall seconds of a command over n runs (after one warm-up unless n is 1); the exit
# status is ignored (`secrets` exits 1 when it finds something)
wall() { # n command
  local n="$1" times=() s e
  [ "$n" -gt 1 ] && { bash -c "$2" >/dev/null 2>&1 || true; }
  for _ in $(seq "$n"); do
    s=$(date +%s.%N)
    bash -c "$2" >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)]}'
}

echo "## pi-session secrets beside detect-secrets"
echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, RUNS=$RUNS (LARGE_RUNS=$LARGE_RUNS over 64 MiB)."
[ -n "$DS" ] && echo "detect-secrets $("$DS" --version 2>/dev/null) (\`detect-secrets scan --all-files FILE\`, its default plugins and filters)."
[ -n "$PS_SKIP" ] && echo "pi-session secrets: $PS_SKIP."
echo
echo "| file | size | lines | tool | median s | findings |"
echo "|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  key="$(basename "$f" .jsonl)"
  bytes=$(stat -L -c %s "$f")
  lines=$(wc -l <"$f")
  n="$RUNS"
  [ "$bytes" -gt $((64 << 20)) ] && n="$LARGE_RUNS"
  size="$(numfmt --to=iec "$bytes")"
  if has_tool pi-session; then
    if [ -n "$PS_SKIP" ]; then
      echo "| $key | $size | $lines | pi-session secrets --json | - | skipped (above) |"
    else
      # The timed runs' output is kept: the last run's is what is compared below.
      t=$(wall "$n" "$PS secrets --json -s $f >$BENCH_DIR/secrets-ps-$key.ndjson")
      echo "| $key | $size | $lines | pi-session secrets --json | $t | $(grep -c . "$BENCH_DIR/secrets-ps-$key.ndjson" || true) |"
    fi
  fi
  if [ -n "$DS" ]; then
    # --all-files: otherwise detect-secrets skips a file that git does not track.
    # Run in the file's own folder: detect-secrets silently skips a file outside the
    # current directory (a symbolic link to one too), and one git does not track unless
    # given --all-files.
    real="$(realpath "$f")"
    t=$(wall "$n" "cd $(dirname "$real") && $DS scan --all-files $(basename "$real") >$BENCH_DIR/secrets-ds-$key.json")
    count=$(python3 -c 'import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1]))["results"].values()))' "$BENCH_DIR/secrets-ds-$key.json")
    echo "| $key | $size | $lines | detect-secrets scan | $t | $count |"
  fi
done

# What each tool found. detect-secrets's JSON holds only a hash of each secret; its own
# Python API (the same scan, in the venv) gives the values, so that a finding can be matched
# to a planted secret it covers (detect-secrets often reports a part: "ghp" for a GitHub
# token, "BEGIN RSA PRIVATE KEY" for a key) and to the JSON path it sits in. Files over
# 64 MiB are summed up by type from the JSON alone.
for f in "${files[@]}"; do
  key="$(basename "$f" .jsonl)"
  manifest=""
  [ "$(realpath "$f")" = "$(realpath "$FIXTURE")" ] && manifest="$MANIFEST"
  ps_out="$BENCH_DIR/secrets-ps-$key.ndjson"
  [ -n "$PS_SKIP" ] && ps_out=""
  ds_json=""
  [ -n "$DS" ] && ds_json="$BENCH_DIR/secrets-ds-$key.json"
  py="${DS_PY:-python3}"
  "$py" - "$f" "$manifest" "$ds_json" "$ps_out" <<'PY'
import json, os, re, sys
from collections import Counter, defaultdict

path, manifest_path, ds_json, ps_out = sys.argv[1:5]
name = os.path.basename(path)
big = os.path.getsize(path) > (64 << 20)

def mask(v):
    v = v.replace("\n", "\\n")
    return "*" * len(v) if len(v) <= 8 else f"{v[:4]}…{v[-2:]} ({len(v)} chars)"

def strings(v, at=""):
    """Every string of an entry, with its path (message.content[2].arguments.command)."""
    if isinstance(v, str):
        yield at, v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from strings(x, f"{at}.{k}" if at else k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from strings(x, f"{at}[{i}]")

def clean(v):
    # Values found in the raw line keep JSON escapes and quotes at their ends.
    return v.strip("\\\"' ")

entries = {}  # line number (1-based) -> entry
if not big:
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                entries[n] = json.loads(line)
            except ValueError:
                entries[n] = {}

def where(line, value):
    e = entries.get(line, {})
    v = clean(value)
    paths = [p for p, s in strings(e) if v and v in s]
    return e.get("id", "header" if e.get("type") == "session" else "?"), ", ".join(paths) or "?"

ds = []  # (line, type, value or None)
if ds_json:
    results = json.load(open(ds_json))["results"]
    cli = sorted((x["line_number"], x["type"], x["hashed_secret"]) for xs in results.values() for x in xs)
    if big:
        ds = [(l, t, None) for l, t, _ in cli]
    else:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
        sc = SecretsCollection()
        with default_settings():
            sc.scan_file(path)
        api = sorted((s.line_number, s.type, s.secret_hash, s.secret_value) for _, s in sc)
        if [a[:3] for a in api] != cli:
            print(f"\nwarning: detect-secrets's API and CLI disagree on {name}; listing the API's findings")
        ds = [(l, t, v) for l, t, _, v in api]

ps = []
if ps_out and os.path.exists(ps_out):
    for line in open(ps_out, encoding="utf-8"):
        if line.strip():
            ps.append(json.loads(line))

def ps_key(r):
    return (r.get("entry") or r.get("entryId") or r.get("id"), r.get("path"), r.get("rule") or r.get("ruleId"))

print(f"\n### {name}\n")
if manifest_path:
    plants = [json.loads(l) for l in open(manifest_path, encoding="utf-8") if l.strip()]
    line_of = {e.get("id"): n for n, e in entries.items()}
    secrets = [p for p in plants if p["rule"]]
    misses = [p for p in plants if not p["rule"]]
    ds_used, ps_used = set(), set()
    print("| entry | path | rule | detect-secrets | pi-session |")
    print("|---|---|---|---|---|")
    found_ds = found_ps = 0
    for p in secrets:
        line = line_of[p["entry"]]
        hits = []
        for i, (l, t, v) in enumerate(ds):
            c = clean(v or "")
            if l == line and c and (c in p["secret"] or p["secret"] in c):
                hits.append(t)
                ds_used.add(i)
        got_ps = "-"
        if ps_out:
            got_ps = "n"
            for i, r in enumerate(ps):
                if ps_key(r) == (p["entry"], p["path"], p["rule"]):
                    got_ps = "y"
                    ps_used.add(i)
            found_ps += got_ps == "y"
        found_ds += bool(hits)
        col = f"y ({', '.join(sorted(set(hits)))})" if hits else "n"
        if not hits:
            # detect-secrets reports each distinct value once a file, on its first line.
            dup = [l for l, t, v in ds if l < line and clean(v or "") and (clean(v) in p["secret"] or p["secret"] in clean(v))]
            if dup:
                col = f"n (same value reported on line {dup[0]}, once a file)"
        print(f"| {p['entry']} | {p['path']} | {p['rule']} | {col if ds_json else '-'} | {got_ps} |")
    print(f"\nPlanted secrets found: detect-secrets {found_ds if ds_json else '-'}/{len(secrets)}, "
          f"pi-session {found_ps if ps_out else '-'}/{len(secrets)}.")
    if ds_json:
        print("\ndetect-secrets findings that match no planted secret:\n")
        print("| entry | path | type | value | near-miss? |")
        print("|---|---|---|---|---|")
        for i, (l, t, v) in enumerate(ds):
            if i in ds_used:
                continue
            entry, at = where(l, v)
            c = clean(v)
            near = [m for m in misses if m["entry"] == entry and (c in m["secret"] or m["secret"] in c)]
            print(f"| {entry} | {at} | {t} | {mask(c)} | {'yes' if near else 'no'} |")
    if ps_out:
        print("\npi-session findings that match no planted secret:\n")
        for i, r in enumerate(ps):
            if i not in ps_used:
                print(f"- {json.dumps(r)}")
else:
    if ds_json:
        if big:
            c = Counter(t for _, t, _ in ds)
            print(f"detect-secrets: {len(ds)} findings" + (": " + ", ".join(f"{t} {n}" for t, n in c.most_common()) if ds else "."))
        elif ds:
            # Grouped by type and the path's shape (indexes dropped): real sessions repeat
            # the same kind of string (tool-call ids, signatures) in every turn.
            groups = defaultdict(list)
            for l, t, v in ds:
                entry, at = where(l, v)
                shape = re.sub(r"\[\d+\]", "[]", at)
                groups[(t, shape)].append((l, entry, clean(v)))
            print(f"detect-secrets: {len(ds)} findings.\n")
            print("| detect-secrets type | path | findings | first lines (entry) | a value |")
            print("|---|---|---|---|---|")
            for (t, shape), xs in sorted(groups.items(), key=lambda g: -len(g[1])):
                first = ", ".join(f"{l} ({e})" for l, e, _ in xs[:3]) + (", …" if len(xs) > 3 else "")
                print(f"| {t} | {shape} | {len(xs)} | {first} | {mask(xs[0][2])} |")
        else:
            print("detect-secrets: no findings.")
    if ps_out:
        c = Counter(r.get("rule") or r.get("ruleId") for r in ps)
        print(f"\npi-session: {len(ps)} findings" + (": " + ", ".join(f"{t} {n}" for t, n in c.most_common()) if ps else "."))
PY
done
