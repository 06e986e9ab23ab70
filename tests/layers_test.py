#!/usr/bin/env python3
"""The architecture as a test (docs/architecture.md): src/ is layered, and arrows point down only.

    base -> model -> io -> analysis -> render -> request -> serve -> cli
    (lowest first; a file may use its own layer and the ones before it)

Checked four ways:
  1. includes: every `#include "..."` of a file under src/ names a header of its own layer or a
     lower one (or the installed gpuecon.h);
  2. symbols: every symbol an object file of the library or a front end uses (nm) is defined in
     its own layer or a lower one, so a call cannot go up through a header that happens to
     declare it;
  3. front ends: src/cli and src/serve, tests/install/hello.c and the Python module use the
     installed header only (no private header; Python calls only functions gpuecon.h declares);
  4. no circle: no two files use each other, directly or through others (a strongly connected
     component of the file graph of more than one file); one concern split over files that
     call each other is one file, else what both need moves down.

Usage: layers_test.py SOURCE_DIR OBJECTS...
  each OBJECTS is an object file, a folder searched for them, or a ';'-separated list of
  object files (CMake's $<TARGET_OBJECTS:...>)
"""
import collections
import os
import re
import subprocess
import sys

LAYERS = ["base", "model", "io", "analysis", "render", "request", "serve", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
FRONT_ENDS = {"serve", "cli"}

failures = []


def fail(msg):
    failures.append(msg)


def layer_of(rel):
    """'model/train.c' -> 'model'; None outside the layers."""
    top = rel.split("/", 1)[0]
    return top if top in RANK else None


def check_includes(src):
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    n = 0
    for layer in LAYERS:
        folder = os.path.join(src, "src", layer)
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            rel = f"{layer}/{name}"
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for target in inc_re.findall(text):
                n += 1
                if target == "gpuecon.h":
                    continue
                if "/" in target:
                    tl = target.split("/", 1)[0]
                    path = os.path.join(src, "src", target)
                else:
                    tl = layer
                    path = os.path.join(folder, target)
                if not os.path.exists(path):
                    fail(f"src/{rel}: includes \"{target}\", which is no header under src/")
                    continue
                if tl not in RANK:
                    fail(f"src/{rel}: includes \"{target}\" from outside the layers")
                elif layer in FRONT_ENDS and tl != layer and not (layer == "cli" and tl == "serve"):
                    fail(f"src/{rel}: a front end includes the private header \"{target}\" "
                         "(front ends use include/gpuecon.h only)")
                elif RANK[tl] > RANK[layer]:
                    fail(f"src/{rel}: includes \"{target}\" of the higher layer {tl}/ (arrows point down)")
    return n


def nm_symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def objects(args):
    """(path under src/, object file) of every object compiled from src/."""
    files = []
    for arg in args:
        for item in filter(None, arg.split(";")):
            if os.path.isdir(item):
                files += [os.path.join(r, f) for r, _, fs in os.walk(item) for f in fs if f.endswith(".o")]
            else:
                files.append(item)
    for full in files:
        m = re.search(r"/src/(([a-z]+)/[^/]+\.c)\.o$", full)
        if m and m.group(2) in RANK:
            yield m.group(1), full


def check_symbols(dirs):
    defs, uses = {}, {}
    for rel, obj in objects(dirs):
        d, u = nm_symbols(obj)
        uses[rel] = u
        for s in d:
            defs[s] = rel
    if len(uses) < 40:
        fail(f"only {len(uses)} object files found under {dirs}: is the library built?")
    edges = collections.defaultdict(set)
    for rel, used in uses.items():
        for s in used:
            owner = defs.get(s)
            if owner is None or owner == rel:
                continue
            edges[rel].add(owner)
            if RANK[layer_of(owner)] > RANK[layer_of(rel)]:
                fail(f"src/{rel} uses {s} of src/{owner}: a call up from {layer_of(rel)}/ "
                     f"to {layer_of(owner)}/")
    return edges, len(uses)


def circles(edges):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    nodes = set(edges) | {w for vs in edges.values() for w in vs}
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def check_front_ends(src):
    declared = set()
    with open(os.path.join(src, "include", "gpuecon.h"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("GPUECON_API "):
                m = re.search(r"(gpuecon_[a-z0-9_]+)\(", line)
                if m:
                    declared.add(m.group(1))
    hello = os.path.join(src, "tests", "install", "hello.c")
    with open(hello, encoding="utf-8") as f:
        incs = re.findall(r'#\s*include\s+[<"]([^>"]+)[>"]', f.read())
    private = [i for i in incs if "/" in i or i.endswith(".h") and i not in
               ("gpuecon.h", "stdio.h", "stdlib.h", "string.h")]
    if private:
        fail(f"tests/install/hello.c includes {private}: only gpuecon.h and the C library")
    pydir = os.path.join(src, "python", "gpuecon")
    for name in sorted(os.listdir(pydir)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(pydir, name), encoding="utf-8") as f:
            text = f.read()
        for fn in sorted(set(re.findall(r"\b(gpuecon_[a-z0-9_]+)\b", text))):
            if fn in declared or fn.endswith(("_config", "_error", "_ctx")):
                continue
            fail(f"python/gpuecon/{name} uses {fn}, which include/gpuecon.h does not declare")
    return len(declared)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    src, dirs = sys.argv[1], sys.argv[2:]
    n_inc = check_includes(src)
    edges, n_obj = check_symbols(dirs)
    n_api = check_front_ends(src)
    found = circles(edges)
    for comp in found:
        fail("a circle of files that use each other: " + ", ".join(sorted(comp)) +
             " (merge them if they are one concern, else move what both need down)")
    for msg in failures:
        print("FAIL:", msg)
    print(f"layers: {n_inc} includes and {n_obj} object files checked, "
          f"{sum(len(v) for v in edges.values())} file-to-file uses, {n_api} public functions; "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
