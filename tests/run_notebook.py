#!/usr/bin/env python3
"""Runs a Jupyter notebook's code cells in order, as CI's check that it still works (standard library
only: no Jupyter kernel needed). Usage: run_notebook.py NOTEBOOK.ipynb

The notebook must be committed clean: every code cell without outputs and without an execution count
(exit 1 naming the cell otherwise). The cells then run in one namespace, top to bottom; a cell's last
expression is evaluated and shown as Jupyter would (its _repr_html_ is called when it has one, so a
rich display that fails, fails here too). Any exception fails the run, naming the cell and its first
line. IPython magics (%, !) are refused: the notebook is to be plain Python.
"""
import ast
import json
import sys
import time
import traceback


def cells(path):
    with open(path) as f:
        nb = json.load(f)
    if nb.get("nbformat") != 4:
        raise SystemExit("%s: not an nbformat 4 notebook" % path)
    out = []
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        if c.get("outputs") or c.get("execution_count") is not None:
            raise SystemExit("%s: code cell %d is committed with outputs; clear them (Jupyter: Edit > Clear "
                             "Outputs of All Cells) before committing" % (path, i))
        for line in src.splitlines():
            if line.lstrip().startswith(("%", "!")):
                raise SystemExit("%s: code cell %d uses an IPython magic (%s): plain Python only"
                                 % (path, i, line.strip()))
        out.append((i, src))
    return out


def run(path):
    ns = {"__name__": "__main__"}
    todo = cells(path)
    for i, src in todo:
        tree = ast.parse(src, "%s[cell %d]" % (path, i))
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        t0 = time.monotonic()
        try:
            exec(compile(tree, "%s[cell %d]" % (path, i), "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "%s[cell %d]" % (path, i), "eval"), ns)
                if value is not None:
                    shown = value._repr_html_() if hasattr(value, "_repr_html_") else repr(value)
                    print(shown if len(shown) < 300 else "%s... (%d characters)" % (shown[:300], len(shown)))
        except BaseException:
            traceback.print_exc()
            first = src.strip().splitlines()[0] if src.strip() else ""
            print("%s: cell %d (%s) failed" % (path, i, first), file=sys.stderr)
            return 1
        print("-- cell %d ran in %.1f s" % (i, time.monotonic() - t0), flush=True)
    print("%s: %d code cells ran" % (path, len(todo)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: run_notebook.py NOTEBOOK.ipynb")
    sys.exit(run(sys.argv[1]))
