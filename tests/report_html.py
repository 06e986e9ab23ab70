#!/usr/bin/env python3
"""Checks of the static HTML report (`gpuecon compare --format html`) and of `-o FILE`.

Usage: report_html.py GPUECON_BINARY
- the summary across comparisons comes first: one row per comparison, before any section;
- break-even chart: a log scale centred at 100%, so each bar's length is proportional to
  |log2(ratio)| (ratio from the JSON of the same run; checked to 1%), one colour per direction
  (must fall #e15759, must rise #4e79a7); the issue's example: falling to 46% is drawn longer
  than rising to 124.6%, as |log2 0.46| = 1.12 > |log2 1.246| = 0.32;
- human labels ("GB200 NVL72 MTBI, GPU-days"), no field names in the charts;
- the over-time section with the break-even date and the series of the JSON; no empty label
  lines; platforms at several tiers get a by-tier table, each winner against another system;
- every command with -o FILE says on stderr how many bytes it wrote, and that is the file's size.
"""
import html
import json
import math
import os
import re
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
FAILS = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=600)


doc = json.loads(run("compare", "--json").stdout)
page = run("compare", "--format", "html").stdout
first_section = page.index("<section")
summary = page[page.index('id="summary"'):first_section]
check(page.index('id="summary"') < first_section, "the summary comes before the first comparison")
check(summary.count("<tr>") == 1 + len(doc["comparisons"]), "one summary row per comparison")
for c in doc["comparisons"]:
    ratio = c["cost_ratio"]
    pct = 100 * (1 - ratio)  # the one framing of a difference (docs/cli.md): "20% below"
    want = ("%.1f%% below" if pct < 9.95 else "%.0f%% below") % pct
    check(c["cheapest"] in summary and want in summary, "summary of %s: %s, %s" % (c["name"], c["cheapest"], want))

LABELS = {"mtbi_gpu_days": "MTBI, GPU-days", "tco_usd_per_gpu_hour": "TCO, $/GPU-h",
          "tokens_per_s_per_gpu": "throughput, tok/s/GPU", "pue": "PUE",
          "electricity_usd_per_kwh": "electricity, $/kWh", "spare_policy": "spares charged to the job"}
sections = re.findall(r'<section id="([^"]+)">(.*?)</section>', page, re.S)
for (name, body), c in zip(sections, doc["comparisons"]):
    svgs = re.findall(r"<svg.*?</svg>", body, re.S)
    check(not any(k in s for s in svgs for k in LABELS), "%s: no field names in the charts" % name)
    be = [s for s in svgs if "log scale" in s]
    found = [b for b in c["breakeven"] if b["found"] and b["ratio"] and b["ratio"] > 0]
    if not found:
        continue
    check(len(be) == 1, "%s: one break-even chart" % name)
    rows = re.findall(r'<text[^>]*text-anchor="end">([^<]*)</text><rect x="[^"]*" y="[^"]*" width="([^"]*)"'
                      r' height="[^"]*" fill="([^"]*)"', be[0])
    bars = {html.unescape(label): (float(w), fill) for label, w, fill in rows}
    unit = None
    for b in found:
        label = "%s %s" % (b["platform"], LABELS[b["input"]])
        if label not in bars:
            check(False, "%s: a bar for %s" % (name, label))
            continue
        w, fill = bars[label]
        check(fill == ("#e15759" if b["ratio"] < 1 else "#4e79a7"), "%s: %s in its direction's colour" % (name, label))
        if abs(math.log2(b["ratio"])) > 0.05:
            per = w / abs(math.log2(b["ratio"]))
            unit = unit or per
            check(abs(per / unit - 1) < 0.01, "%s: %s bar length ∝ |log2 %.4g| (%.2f px per doubling)"
                  % (name, label, b["ratio"], per))
    if name == "deepseek-v3-train":
        fall = bars["GB200 NVL72 MTBI, GPU-days"][0]
        rise = bars["GB200 NVL72 TCO, $/GPU-h"][0]
        check(fall > 3 * rise, "falling to 46%% (%.0f px) is drawn >3x longer than rising to 124.6%% (%.0f px)"
              % (fall, rise))

# The over-time section (docs/model.md §7.8): for every comparison with a timeline, its break-even
# date and every series date of the JSON of the same run, under an "Over time" heading.
for (name, body), c in zip(sections, doc["comparisons"]):
    if not c["timeline"]:
        check("Over time" not in body, "%s: no over-time section without a timeline" % name)
        continue
    check('id="%s-over-time"' % name in body, "%s: an over-time section" % name)
    want = "Break-even date: %s" % (c["breakeven_date"] or "none")
    check(want in body, "%s: %s" % (name, want))
    for s in c["timeline_series"]:
        check("<td>%s</td>" % s["date"] in body, "%s: the series row of %s" % (name, s["date"]))
check(any(c["timeline"] for c in doc["comparisons"]), "the default scenario has a timeline comparison")
# No empty label lines: a platform with nothing to say (a measured throughput) gets no "name: " line.
empty = re.findall(r'<p class="muted">[^<:]*: </p>', page)
check(not empty, "no empty label lines (%s)" % empty[:3])
# Platforms at several tiers: a "By operator tier" table, each tier's winner against another system
# at its own tier (the JSON's tiers[].runner_up), never the same hardware at another tier.
for (name, body), c in zip(sections, doc["comparisons"]):
    if "tiers" not in c:
        continue
    check("By operator tier" in body, "%s: a by-tier table" % name)
    for t in c["tiers"]:
        row = re.search(r"<tr><td>%s</td><td>([^<]*)</td><td[^>]*>[^<]*</td><td>([^<]*)</td>" % t["tier"], body)
        check(row and html.unescape(row.group(1)) == t["cheapest"] and html.unescape(row.group(2)) == t.get("runner_up"),
              "%s, %s operators: %s against %s" % (name, t["tier"], t["cheapest"], t.get("runner_up")))
        base = lambda n: re.sub(r" \(.*\)$", "", n or "")
        check(t.get("runner_up") and base(t.get("runner_up")) != base(t["cheapest"]),
              "%s, %s operators: the rival is another system" % (name, t["tier"]))

with tempfile.TemporaryDirectory() as d:
    cases = [("compare", "--format", "html"), ("compare", "--json"), ("compare", "--csv"), ("catalog", "gpus"),
             ("cost", "--system", "hgx-h100", "--profile", "hyperscaler", "--tokens-per-s", "800"),
             ("reproduce", "--json"), ("infer", "--model", "llama3-8b", "--system", "hgx-h100", "--gpus", "8",
                                       "--tp", "1")]
    for i, args in enumerate(cases):
        out = os.path.join(d, "out%d" % i)
        r = run(*args, "-o", out)
        m = re.search(r"gpuecon: wrote (\d+) bytes \(([^)]*)\) to (.*)", r.stderr)
        check(r.returncode == 0 and m and int(m.group(1)) == os.path.getsize(out) > 0 and m.group(3) == out,
              "%s -o FILE: says it wrote %s bytes (%s)" % (" ".join(args), m and m.group(1), m and m.group(2)))
print("%d failed" % len(FAILS))
sys.exit(1 if FAILS else 0)
