#!/usr/bin/env python3
"""docs/api/ against the program (run by CTest as api_schema; needs python3-jsonschema).

- every schema is a valid draft 2020-12 schema;
- request.schema.json is what scripts/api_schemas.py makes of the library's option tables now;
- every command's --json output (scripts/api_schemas.py SAMPLES and the extra lines below)
  validates against docs/api/response/<command>.schema.json;
- the request each command line turns into (gpuecon_request_from_argv) validates against
  request.schema.json, and malformed requests do not;
- gpuecon_request (through the Python package) answers each of those requests with the JSON
  the program prints, elapsed times aside.
Usage: api_schema_test.py GPUECON_CLI  (GPUECON_LIBRARY: the shared library)
"""
import ctypes
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (scripts/deps.sh --test installs it)")
    sys.exit(77)
import api_schemas  # noqa: E402
import gpuecon  # noqa: E402  (api_schemas put python/ on the path)

CLI = sys.argv[1]
API = os.path.join(ROOT, "docs", "api")
EXTRA = {
    "cost": [["cost", "--system", "hgx-b300", "--tokens-per-s", "1500", "--profile", "neocloud", "--tokens", "1e12"]],
    "train": [["train", "--model", "llama3-8b", "--system", "hgx-b200", "--gpus", "16", "--seq", "8192", "--gbs", "64",
               "--usd-per-gpu-hour", "3", "--tokens", "1e11"],
              ["train", "--model", "gpt3-175b", "--system", "hgx-h100", "--sweep-gpus", "64,128,256", "--seq", "2048",
               "--gbs", "256", "--strong"]],
    "infer": [["infer", "--model", "gpt3-175b", "--system", "hgx-a100", "--gpus", "1", "--tp", "1"],
              ["infer", "--model-file", os.path.join(ROOT, "tests", "cases", "hf", "qwen3-30b-a3b.json"),
               "--system", "gb200-nvl72", "--gpus", "4"]],
    "reliability": [["reliability", "--system", "hgx-h100", "--active-gpus", "4096", "--tier", "best"]],
    "catalog": [["catalog", "models", "llama3-70b"]],
    # the joint samples' shares: serving latency targets, a training deadline and budget
    "compare": [["compare", os.path.join(ROOT, "tests", "cases", "scenarios", "serve-rate.yaml"), "--uncertainty", "200",
                 "--no-sensitivity"],
                ["compare", os.path.join(ROOT, "tests", "cases", "scenarios", "train-deadline-budget.yaml"),
                 "--uncertainty", "200", "--no-sensitivity"]],
}
ELAPSED = re.compile(r'"(elapsed_s|configs_per_s)": [0-9.eE+-]+')


def load(path):
    with open(path) as f:
        return json.load(f)


def validator(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def argv_request(argv):
    lib = gpuecon._core._lib
    lib.gpuecon_request_from_argv.restype = ctypes.c_int
    lib.gpuecon_request_from_argv.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                              ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(gpuecon._core._Error)]
    ctx = lib.gpuecon_ctx_new(None)
    arr = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    out, err = ctypes.c_void_p(), gpuecon._core._Error()
    try:
        st = lib.gpuecon_request_from_argv(ctx, len(argv), arr, ctypes.byref(out), ctypes.byref(err))
        text = ctypes.string_at(out.value).decode() if out.value else None
    finally:
        if out.value:
            lib.gpuecon_free(out)
        lib.gpuecon_ctx_free(ctx)
    if st:
        raise SystemExit("%s: %s" % (" ".join(argv), err.message.decode()))
    return json.loads(text)


def main():
    failures = []
    fresh = api_schemas.request_schema()
    committed = load(os.path.join(API, "request.schema.json"))
    if fresh != committed:
        failures.append("docs/api/request.schema.json is not current: run scripts/api_schemas.py")
    req = validator(committed)
    n = 0
    for name, lines in api_schemas.SAMPLES.items():
        resp = validator(load(os.path.join(API, "response", "%s.schema.json" % name)))
        for argv in lines + EXTRA.get(name, []):
            p = subprocess.run([CLI] + argv + ["--json"], capture_output=True, text=True, cwd=ROOT)
            if p.returncode not in (0, 3):
                failures.append("%s: exit %d %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
                continue
            for e in resp.iter_errors(json.loads(p.stdout)):
                failures.append("%s: %s at %s" % (" ".join(argv), e.message, "/".join(map(str, e.path))))
            r = argv_request(argv + ["--json"])
            for e in req.iter_errors(r):
                failures.append("request of %s: %s at %s" % (" ".join(argv), e.message, "/".join(map(str, e.path))))
            # the same request through gpuecon_request: the same bytes as the program
            st, body, _ = gpuecon._core._raw(r["command"], r["options"], r.get("args"), "json")
            if ELAPSED.sub("", body or "") != ELAPSED.sub("", p.stdout):
                failures.append("%s: gpuecon_request's JSON differs from the program's" % " ".join(argv))
            n += 1
    bad = [{"command": "cost", "options": {"sytem": "hgx-h100"}},
           {"command": "cost", "options": {"pue": True}},
           {"command": "cost", "options": {"pue": 0.5}},
           {"command": "frobnicate"},
           {"command": "train", "options": {"precision": "fp16"}},
           {"command": "cost", "opts": {}},
           {"command": "catalog", "args": ["gpus", "h100-sxm", "extra"]}]
    for b in bad:
        if req.is_valid(b):
            failures.append("request.schema.json accepts %s" % json.dumps(b))
    for f in failures:
        print("FAIL", f)
    print("%d outputs and requests checked, %d bad requests refused, %d failures" % (n, len(bad), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
