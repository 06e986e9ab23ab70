#!/usr/bin/env bash
# A refactoring check, not a permanent test: runs the same command lines on two gpuecon binaries
# and diffs what they print (stdout, stderr, exit code), so a change that means to move code and
# keep behaviour can show it does. The command lines are every invocation of the command-line
# contract parts (tests/cli/*.cmake and tests/cli_time.cmake, replayed through a recording
# wrapper), plus the whole-output ones: compare (JSON, table, CSV, HTML), reproduce, validate
# (JSON and table) and the default job.
#
#   scripts/refactor_check.sh BEFORE/gpuecon AFTER/gpuecon [WORKDIR]
#
# Elapsed times and rates (JSON "elapsed_s" and "configs_per_s", their table lines) are masked: they differ from run to run.
# Exit status: 0 when every output is the same, 1 otherwise (the diff is printed, and kept under
# WORKDIR, default /tmp/gpuecon-refactor-check).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/refactor_check.sh BEFORE_BINARY AFTER_BINARY [WORKDIR]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
before="$(realpath "$1")"
after="$(realpath "$2")"
work="${3:-/tmp/gpuecon-refactor-check}"
rm -rf "$work"
mkdir -p "$work"

# The wrapper runs the real binary and appends the command line, exit code, stdout and stderr
# to $GPUECON_RC_LOG, then passes them on, so the contract parts run as they always do.
cat > "$work/wrap.sh" <<'EOF'
#!/usr/bin/env bash
out="$(mktemp)"; err="$(mktemp)"
rc=0
"$GPUECON_RC_REAL" "$@" >"$out" 2>"$err" || rc=$?
{
  printf '=== gpuecon'; printf ' %q' "$@"; printf '\n--- exit %s\n--- stdout\n' "$rc"
  cat "$out"; printf '\n--- stderr\n'; cat "$err"; printf '\n'
} >>"$GPUECON_RC_LOG"
cat "$out"; cat "$err" >&2
rm -f "$out" "$err"
exit "$rc"
EOF
chmod +x "$work/wrap.sh"

mask() {
  sed -E -e 's/"elapsed_s": *[-0-9.eE+]+/"elapsed_s": X/g' \
         -e 's/(elapsed[^0-9]*)[0-9.]+( ?(ms|s))/\1X\2/g' \
         -e 's/"configs_per_s": *[-0-9.eE+]+/"configs_per_s": X/g' \
         -e 's/, [0-9.]+ s \([0-9.e+]+ configurations\/s\)/, X s (X configurations\/s)/' \
         -e "s/^\([0-9.]+ s; 'gpuecon compare --help'/(X s; 'gpuecon compare --help'/" \
         -e 's/ in [0-9.]+ s/ in X s/g' \
         -e 's/, [0-9]+\.[0-9]+ s\b/, X s/g' -e 's/\([0-9]+\.[0-9]+ s\)/(X s)/g' "$1"
}

record() { # record NAME BINARY
  local name="$1" bin="$2" dir="$work/run"
  local log="$work/$name.log"
  : >"$log"
  export GPUECON_RC_REAL="$bin" GPUECON_RC_LOG="$log"
  for part in "$root"/tests/cli/*.cmake "$root"/tests/cli_time.cmake; do
    case "$part" in */common.cmake) continue ;; esac
    rm -rf "$dir"; mkdir -p "$dir"
    printf '##### part %s\n' "$(basename "$part")" >>"$log"
    (cd "$dir" && cmake -DGPUECON="$work/wrap.sh" -DSRC="$root" -DWORK="$dir" -P "$part" \
       >>"$work/$name.parts.txt" 2>&1) || printf '##### part failed: %s\n' "$part" >>"$log"
  done
  rm -rf "$dir"; mkdir -p "$dir"
  (cd "$dir"
   for args in "" "compare --json" "compare --csv" "compare --format html" "reproduce --json" \
               "reproduce" "validate --json" "validate" "catalog --json"; do
     # shellcheck disable=SC2086
     "$work/wrap.sh" $args >/dev/null 2>&1 || true
   done)
  mask "$log" >"$log.masked"
}

echo "refactor_check: recording $before"
record before "$before"
echo "refactor_check: recording $after"
record after "$after"
n=$(grep -c '^=== gpuecon' "$work/before.log" || true)
if diff -u "$work/before.log.masked" "$work/after.log.masked" >"$work/diff.txt"; then
  echo "refactor_check: $n command lines, outputs identical (elapsed times masked)"
  exit 0
fi
head -200 "$work/diff.txt"
echo "refactor_check: $n command lines, outputs DIFFER (full diff: $work/diff.txt)"
exit 1
