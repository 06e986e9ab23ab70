#!/bin/sh
# Ctrl-C cancels a long run cleanly (issue 14, item 9): SIGINT during a Monte Carlo of two
# million trials makes gpuecon stop at its next progress report, say so, exit 130 and write
# nothing (-o FILE is not created). Usage: tests/cancel.sh path/to/gpuecon
set -u
gpuecon=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gpuecon" reliability --system hgx-h100 --active-gpus 16384 --trials 2000000 --max-work 1e5 \
    --json -o "$dir/out.json" 2>"$dir/err" &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then
    echo "exit $rc after SIGINT, expected 130"; cat "$dir/err"; exit 1
fi
if [ -e "$dir/out.json" ]; then
    echo "-o FILE was written by a canceled run"; exit 1
fi
if ! grep -q "canceled" "$dir/err"; then
    echo "stderr does not say the run was canceled:"; cat "$dir/err"; exit 1
fi
echo "canceled cleanly: exit 130, no output file"
