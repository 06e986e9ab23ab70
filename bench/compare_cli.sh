#!/usr/bin/env bash
# compare_cli.sh — wall and CPU time of the whole program `gpuecon compare` on the built-in
# scenario (catalog load, scenario, compare, printing), median of N runs, with 1 thread, 2
# threads and the default (OMP_NUM_THREADS unset), for each binary given; with --callgrind,
# also the instructions executed on one thread (valgrind --tool=callgrind), a count that the
# load of a shared machine does not change.
#   bench/compare_cli.sh [--runs N] [--callgrind] BINARY [BINARY...]
# e.g. bench/compare_cli.sh --runs 9 --callgrind /tmp/before/gpuecon build/gpuecon
set -euo pipefail
runs=7
cg=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --callgrind) cg=1; shift ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--runs N] [--callgrind] BINARY..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for bin in "$@"; do
  for threads in 1 2 default; do
    : > "$tmp/wall"; : > "$tmp/user"
    for _ in $(seq "$runs"); do
      if [ "$threads" = default ]; then
        env -u OMP_NUM_THREADS /usr/bin/time -f "%e %U" -o "$tmp/t" "$bin" compare > /dev/null
      else
        OMP_NUM_THREADS=$threads /usr/bin/time -f "%e %U" -o "$tmp/t" "$bin" compare > /dev/null
      fi
      read -r w u < "$tmp/t"
      echo "$w" >> "$tmp/wall"; echo "$u" >> "$tmp/user"
    done
    printf '%s threads=%s: wall median %.3f s (min %.3f, max %.3f), user CPU median %.3f s, %d runs\n' \
      "$bin" "$threads" "$(median < "$tmp/wall")" "$(sort -g "$tmp/wall" | head -1)" \
      "$(sort -g "$tmp/wall" | tail -1)" "$(median < "$tmp/user")" "$runs"
  done
  if [ "$cg" = 1 ]; then
    OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" compare \
      > /dev/null 2> "$tmp/cg.err"
    printf '%s: %s instructions (callgrind, 1 thread)\n' "$bin" \
      "$(sed -n 's/.*Collected : //p' "$tmp/cg.err")"
  fi
done
