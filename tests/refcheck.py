#!/usr/bin/env python3
"""The project stands alone: no doc, comment, catalog source or program output may point at a
file that is not in the repository, or name a published figure only by an internal id.

Usage: refcheck.py SOURCE_DIR GPUECON_BINARY

Checks, each failing with the file (or command) and line:
  1. tracked text files never name the design notes the project was started from (the
     ../shared folder, its reference/*.md files, DESIGN.md) nor cite a figure as "seed S6",
     "(S6)" or "seed figure V3": a reader has no such file; the figure is named by what it is
     and its publication (docs/sources.md);
  2. every repository path a doc, comment or catalog source cites (docs/model.md, data/gpus.yaml,
     src/model/train.c, tests/cli/moe.cmake, ...) exists;
  3. every "docs/model.md §N.M" names a section that docs/model.md has;
  4. the outputs users read (reproduce, validate, every catalog kind, compare as JSON and HTML)
     pass check 1 too, and name no figure by a bare seed id.
Exit 0 when all hold, 1 with every violation listed otherwise.
"""
import os
import re
import subprocess
import sys

SRC, BIN = sys.argv[1], sys.argv[2]

# The notes outside the repository and the ways their figure ids were cited.
FORBIDDEN = [
    (re.compile(r"\.\./shared"), "a path outside the repository"),
    (re.compile(r"\b(seed-figures|reliability-tco|inference-model|published-calibration|mechanisms-fp8-moe|mechanisms-stacks|published-set2)\.md"),
     "a design note that is not in the repository"),
    (re.compile(r"\bDESIGN\.md"), "a design note that is not in the repository"),
    (re.compile(r"(?<![\w-])reference/(calibration/)?[\w.-]*"), "a folder that is not in the repository"),
    (re.compile(r"\bseed (figure )?[SV](1[01]|[1-9])\b"), "a figure named by an internal id"),
    (re.compile(r"\((seed )?[SV](1[01]|[1-9])\)"), "a figure named by an internal id"),
]
# In program output no bare S1..S11 / V1..V9 either (docs may define formula ids like S1).
BARE_ID = re.compile(r"(?<![\w./-])[SV](1[01]|[1-9])(?![\w.%-])")

TEXT_EXT = (".md", ".c", ".h", ".yaml", ".yml", ".py", ".js", ".mjs", ".cmake", ".txt", ".sh", ".json", ".in")
SKIP = ("tests/fuzz/corpus", "web/vendor/", "tests/browser/package-lock.json", "tests/refcheck.py",
        "data/calibration/vtrain-LICENSE.txt")
ROOTS = ("docs", "data", "src", "include", "tests", "bench", "scripts", "python", "web", "examples", "cmake")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w-]\.[A-Za-z]{1,5})\b" % "|".join(ROOTS))
# A path in another project's repository is named after that project on the same line
# ("deepseek-ai/DeepEP docs/legacy.md", "vTrain data/README.md"): not ours to check.
EXTERNAL = re.compile(r"(DeepEP|NeMo|torchtitan|pytorch|torchao|flash-attention|Megatron|vTrain|NCCL|nccl|github|Bridge|TransformerEngine|dgxc|vllm|vLLM|"
                      r"sglang|SGLang|TensorRT|deepseek-ai|@[0-9a-f]{7})")
# src/ folders this project has or had: a path into one is checked even when the folder is gone
OUR_SRC = re.compile(r"src/(core|cmd|emit|base|model|io|analysis|render|request|cli|serve)/")
SECTION = re.compile(r"docs/model\.md\s*§\s*(\d+(?:\.\d+)?)")

problems = []


def scan_forbidden(where, text, bare_ids):
    for n, line in enumerate(text.splitlines(), 1):
        for rx, why in FORBIDDEN:
            m = rx.search(line)
            if m:
                problems.append("%s:%d: %s: '%s'" % (where, n, why, m.group(0)))
        if bare_ids:
            m = BARE_ID.search(line)
            if m:
                problems.append("%s:%d: a figure named by an internal id: '%s' in %s" %
                                (where, n, m.group(0), line.strip()[:120]))


def model_sections():
    secs = set()
    with open(os.path.join(SRC, "docs/model.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#{2,4}\s+(\d+(?:\.\d+)*)[.\s]", line)
            if m:
                secs.add(m.group(1))
    return secs


def main():
    r = subprocess.run(["git", "-C", SRC, "ls-files"], capture_output=True, text=True)
    if r.returncode == 0:
        files = r.stdout.split()
    else:  # a source tree without git: every file but build folders
        files = [os.path.relpath(os.path.join(d, f), SRC) for d, ds, fs in os.walk(SRC)
                 for f in fs if not os.path.relpath(d, SRC).startswith(("build", ".git"))]
    secs = model_sections()
    for rel in files:
        if not rel.endswith(TEXT_EXT) or rel.startswith(SKIP):
            continue
        path = os.path.join(SRC, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        scan_forbidden(rel, text, False)
        for n, line in enumerate(text.splitlines(), 1):
            for m in PATH.finditer(line):
                p = m.group(1).rstrip(".")
                # a folder of ours that is gone (src/core after the move to layers) is no excuse
                if ("*" in p or "<" in p or os.path.exists(os.path.join(SRC, p))
                        or (not OUR_SRC.match(p) and not os.path.isdir(os.path.join(SRC, os.path.dirname(p))))
                        or EXTERNAL.search(line[:m.start()])):
                    continue
                problems.append("%s:%d: cites %s, which is not in the repository" % (rel, n, p))
            for m in SECTION.finditer(line):
                if m.group(1) not in secs:
                    problems.append("%s:%d: cites docs/model.md §%s, which has no such section" % (rel, n, m.group(1)))
    outputs = [
        ["reproduce", "--json"],
        ["validate", "--json"],
        ["compare", "--json"],
        ["compare", "--format", "html"],
    ] + [["catalog", k, "--json"] for k in ("gpus", "systems", "profiles", "models", "reliability", "stacks")]
    for argv in outputs:
        r = subprocess.run([BIN] + argv, capture_output=True, text=True)
        if r.returncode not in (0, 1, 3) or not r.stdout:
            problems.append("gpuecon %s: exit %d, no output\n%s" % (" ".join(argv), r.returncode, r.stderr[-500:]))
            continue
        scan_forbidden("gpuecon " + " ".join(argv), r.stdout, True)
    for p in problems:
        print(p)
    print("%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
