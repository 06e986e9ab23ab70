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
# Every table and chart fits the page: in a 1,400-px window and at A4's printable width (210 mm
# less the report's 2 x 10 mm @page margins = 190 mm = 718 px at 96 px per inch; the print rules
# only shrink the text further), nothing ends right of the viewport. A copy of the report loads a
# script that measures it and writes the result into the DOM.
cat > "$tmp/fit.js" <<'JS'
addEventListener("load", () => {
  const vw = document.documentElement.clientWidth;
  const over = [...document.querySelectorAll("table, svg")]
    .filter((t) => t.getBoundingClientRect().right > vw + 0.5)
    .map((t) => t.tagName + " ending at " + Math.round(t.getBoundingClientRect().right) + " px: " +
                t.textContent.replace(/\s+/g, " ").slice(0, 60));
  const p = document.createElement("pre");
  p.id = "fit";
  p.textContent = "viewport " + vw + " px, " + over.length + " too wide" + (over.length ? ": " + over.join(" | ") : "");
  document.body.appendChild(p);
});
JS
sed 's#</body>#<script src="fit.js"></script></body>#' "$tmp/report.html" > "$tmp/fit.html"
for width in 1400 718; do
  timeout 120 "$browser" "${flags[@]}" --window-size=$width,1000 --dump-dom "file://$tmp/fit.html" > "$tmp/fit-dom.html" 2>/dev/null
  fit=$(sed -n 's#.*<pre id="fit">\([^<]*\)</pre>.*#\1#p' "$tmp/fit-dom.html")
  echo "window $width px: $fit"
  case "$fit" in
    *", 0 too wide") ;;
    *) echo "a table or chart is wider than the page at $width px"; exit 1 ;;
  esac
done
echo "report rendered in $(basename "$browser") without console messages; $svgs charts"
