#!/bin/sh
# Ctrl-C cancels a long run cleanly (issue 14, item 9): SIGINT during a Monte Carlo of two
# million trials makes gpuecon stop at its next progress report, say so, exit 130 and write
# nothing (-o FILE is not created); so does a lone serving simulation. Usage: tests/cancel.sh path/to/gpuecon
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

# interrupt_within_10s WHAT OUT -- COMMAND...: COMMAND (writing -o OUT) gets SIGINT after 3 s and
# must end within 10 s of it, exit 130, write no OUT and say "canceled".
interrupt_within_10s() {
    what=$1 out=$2
    shift 3
    "$@" 2>"$dir/err" &
    pid=$!
    sleep 3
    kill -INT "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"; echo "the $what still ran 10 s after SIGINT"; exit 1
    fi
    wait "$pid"
    rc=$?
    if [ "$rc" -ne 130 ] || [ -e "$out" ] || ! grep -q "canceled" "$dir/err"; then
        echo "$what: exit $rc after SIGINT (expected 130), or an output file, or no message:"; cat "$dir/err"; exit 1
    fi
    echo "$what canceled cleanly: exit 130, no output file"
}

# A lone serving simulation (one replication of ten million requests, minutes) stops at its next
# progress report inside the replication, every 65,536 steps: within seconds, not at its end.
interrupt_within_10s simulation "$dir/sim.json" -- "$gpuecon" infer --model llama3-8b --system hgx-h100 --simulate \
    --rate 10 --requests 10000000 --max-work 1e5 --json -o "$dir/sim.json"

# Parallel replications (a wave on two threads, each of 2.5 million requests): the caller's thread
# reports for the wave and shares a cancel with the others, so SIGINT stops the whole wave within
# steps; it once waited for the wave's end (81 s with --replications).
interrupt_within_10s replications "$dir/rep.json" -- "$gpuecon" infer --model llama3-8b --system hgx-h100 --simulate \
    --rate 10 --requests 2500000 --replications 4 --threads 2 --max-work 1e5 --json -o "$dir/rep.json"
