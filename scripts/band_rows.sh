#!/bin/sh
# Regenerates src/analysis/band_rows.c (the published figures behind the 80% bands,
# docs/model.md §7.6) from the validate tables, after a change to the model or to a table;
# the unit test test_band_rows fails until it is regenerated.
# Usage: scripts/band_rows.sh [BUILD_DIR]   (default build-rows: a Release build with the tests)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rows}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUECON_TESTS=ON >/dev/null
cmake --build "$build" --target test_band_rows -j2 >/dev/null
"$build/tests/test_band_rows" --write "$root/src/analysis/band_rows.c"
echo "wrote src/analysis/band_rows.c"
