#!/usr/bin/env bash
# Runs every benchmark binary in the given build folder (default build-bench) and prints the
# machine description first. Each benchmark prints its own medians.
set -euo pipefail
dir=${1:-build-bench}
echo "machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "compiler: $(${CC:-cc} --version | head -1)"
for b in "$dir"/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
