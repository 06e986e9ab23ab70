#!/usr/bin/env bash
# The Python package against the library just built. Usage:
#   python_test.sh unittest|schema|pip|example|notebook SOURCE_DIR LIBGPUECON.so GPUECON_CLI CC SANITIZE(ON|OFF)
# unittest: python/tests with PYTHONPATH=python. schema: tests/api_schema_test.py (docs/api/
# against the program; skipped, exit 77, without python3-jsonschema). pip: `pip install --no-index
# --no-build-isolation ./python` into a fresh venv (nothing fetched: the build backend is in-tree), the
# wheel's platform tag checked, then the tests against the installed copy, from outside the source
# tree; and a copy of python/ outside the source tree, with no library to bundle, must fail to install
# with the backend's message (unless a libgpuecon is installed, when it must install and import).
# example: examples/sweep_platforms.py's table. notebook: examples/gpuecon.ipynb's code cells run in
# order (tests/run_notebook.py).
# With SANITIZE=ON the library is ASan/UBSan-instrumented: their runtimes are preloaded into
# Python (leak checking off: the interpreter keeps memory until exit by design).
set -euo pipefail
mode=$1 src=$2 lib=$3 cli=$4 cc=$5 san=$6
py=$(command -v python3)
export GPUECON_LIBRARY=$lib GPUECON_CLI=$cli
if [ "$san" = ON ]; then
  export LD_PRELOAD="$("$cc" -print-file-name=libasan.so):$("$cc" -print-file-name=libubsan.so)"
  export ASAN_OPTIONS=detect_leaks=0
fi
case "$mode" in
  unittest)
    PYTHONPATH=$src/python exec "$py" -m unittest discover -s "$src/python/tests" -v ;;
  example)
    # examples/sweep_platforms.py, the table path: a header, then a row per system that trains
    # the job (at least five of the catalog's), cheapest first, every number positive, and where the
    # layout stands against the calibration set ("-" when inside it)
    out=$(PYTHONPATH=$src/python "$py" "$src/examples/sweep_platforms.py")
    printf '%s\n' "$out"
    printf '%s\n' "$out" | LD_PRELOAD= "$py" -c '
import sys
lines = sys.stdin.read().splitlines()
head = [i for i, l in enumerate(lines) if l.split()[:2] == ["system", "tok/s/GPU"]]
assert head, "no table header"
rows = [l.split() for l in lines[head[0] + 1:]]
assert len(rows) >= 5, "only %d platforms" % len(rows)
usd = [float(r[3]) for r in rows]
assert all(float(x) > 0 for r in rows for x in r[1:5]), "a number is not positive"
assert all(len(r) > 5 for r in rows), "a row lacks its outside-calibration column"
assert usd == sorted(usd), "not cheapest first: %s" % usd
print("example: %d platforms, cheapest %s" % (len(rows), rows[0][0]))' ;;
  notebook)
    PYTHONPATH=$src/python exec "$py" "$src/tests/run_notebook.py" "$src/examples/gpuecon.ipynb" ;;
  schema)
    PYTHONPATH=$src/python exec "$py" "$src/tests/api_schema_test.py" "$cli" ;;
  pip)
    "$py" -c "import venv, ensurepip" 2>/dev/null || { echo "python3-venv is not installed"; exit 77; }
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    LD_PRELOAD= "$py" -m venv "$tmp/venv"
    LD_PRELOAD= "$tmp/venv/bin/pip" install --no-index --no-build-isolation --quiet "$src/python"
    # the wheel bundles machine code: its tag names the platform (linux_x86_64 here), not "any"
    tag=$(LD_PRELOAD= "$tmp/venv/bin/python" -c "import glob; print(open(glob.glob('$tmp/venv/lib/python3*/site-packages/gpuecon-*.dist-info/WHEEL')[0]).read())" | sed -n 's/^Tag: //p')
    [ "$tag" = "py3-none-linux_$(uname -m)" ] || { echo "wheel tag '$tag', expected py3-none-linux_$(uname -m)"; exit 1; }
    echo "wheel tag: $tag"
    # no library to bundle (a copy outside the source tree): the install fails and says why
    mkdir "$tmp/alone" && cp -r "$src/python" "$tmp/alone/" && rm -rf "$tmp/alone/python/gpuecon/__pycache__"
    if ( unset GPUECON_LIBRARY; LD_PRELOAD= "$tmp/venv/bin/pip" install --no-index --no-build-isolation --quiet \
           --force-reinstall --target "$tmp/alone/site" "$tmp/alone/python" >"$tmp/alone/log" 2>&1 ); then
      LD_PRELOAD= "$py" -c "import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library('gpuecon') else 1)" ||
        { echo "pip install succeeded with no library to bundle or load"; cat "$tmp/alone/log"; exit 1; }
      (cd "$tmp" && PYTHONPATH="$tmp/alone/site" GPUECON_LIBRARY= "$tmp/venv/bin/python" -c "import gpuecon") ||
        { echo "installed without a bundled library, and it does not import"; exit 1; }
    else
      grep -q "no libgpuecon to bundle or to load" "$tmp/alone/log" ||
        { echo "pip install failed without the backend's message:"; cat "$tmp/alone/log"; exit 1; }
      echo "without a library: pip install fails with the backend's message"
    fi
    unset GPUECON_LIBRARY # the installed package must find its bundled copy
    cd "$tmp"
    "$tmp/venv/bin/python" -c "import gpuecon, sys; sys.exit(0 if gpuecon.library_path.startswith('$tmp') else 1)" ||
      { echo "the installed package does not use its bundled library"; exit 1; }
    exec "$tmp/venv/bin/python" -m unittest discover -s "$src/python/tests" -t "$src/python/tests" ;;
esac
