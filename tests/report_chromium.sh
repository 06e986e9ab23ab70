#!/usr/bin/env bash
# Renders the compare HTML report in headless Chromium and fails on any console message
# (errors, warnings from the page) or when the report's sections and charts are missing.
# Exit 77 (CTest: skipped) when Chromium is not installed. Usage: report_chromium.sh GPUECON
set -u
gpuecon=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "chromium not installed (Debian package 'chromium'): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gpuecon" compare --format html -o "$tmp/report.html" || { echo "gpuecon compare failed"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/report.html" > "$tmp/dom.html" 2> "$tmp/log.txt"
rc=$?
if [ $rc -ne 0 ]; then
  echo "chromium exited $rc"; cat "$tmp/log.txt"; exit 1
fi
if grep -E "CONSOLE|Uncaught|Refused to|net::ERR" "$tmp/log.txt"; then
  echo "the page logged console messages or failed loads"; exit 1
fi
for want in "<h1>" "Verdict." "What would change the verdict" "Provenance of the inputs" "<svg" "Sensitivity of the cost ratio"; do
  grep -q -- "$want" "$tmp/dom.html" || { echo "rendered DOM lacks: $want"; exit 1; }
done
svgs=$(grep -o "<svg" "$tmp/dom.html" | wc -l)
[ "$svgs" -ge 8 ] || { echo "expected at least 8 charts, found $svgs"; exit 1; }
echo "report rendered in $(basename "$browser") without console messages; $svgs charts"
