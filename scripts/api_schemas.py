#!/usr/bin/env python3
"""Writes docs/api/: the JSON Schemas (draft 2020-12) of gpuecon requests and responses.

  request.schema.json       every command's options, from the library's own option tables
                            (gpuecon_command_options): names, types, ranges, choices
  response/<command>.json   the shape of each command's JSON: its keys, their types, which are
                            always present; drafted from the outputs of SAMPLES below, then kept
                            in the repository (tests/api_schema_test.py validates every
                            command's output against them and checks request.schema.json is
                            current)

Usage: GPUECON_LIBRARY=build/libgpuecon.so.0 scripts/api_schemas.py build/gpuecon
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import gpuecon  # noqa: E402

DRAFT = "https://json-schema.org/draft/2020-12/schema"
HF = os.path.join(ROOT, "tests", "cases", "hf")

# Command lines whose --json output drafts each response schema (and that the test re-runs).
SAMPLES = {
    "catalog": [["catalog", "gpus"], ["catalog", "systems"], ["catalog", "profiles"], ["catalog", "models"],
                ["catalog", "reliability"], ["catalog", "systems", "hgx-h100"], ["catalog"]],
    "cost": [["cost", "--system", "hgx-h100", "--tokens-per-s", "728"],
             ["cost", "--system", "gb200-nvl72", "--tokens-per-s", "2138", "--tokens", "15T"],
             ["cost", "--system", "hgx-h100", "--tokens-per-s", "728", "--usd-per-gpu-hour", "2.49"],
             ["cost", "--system", "mi300x-8", "--tokens-per-s", "900", "--profile", "neocloud"]],
    "reproduce": [["reproduce"]],
    "glossary": [["glossary"]],
    "comm": [["comm", "--system", "hgx-h100", "--op", "all-reduce", "--gpus", "8", "--bytes", "1G"],
             ["comm", "--system", "gb200-nvl72", "--op", "all-to-all", "--gpus", "64", "--sweep-bytes"]],
    "train": [["train", "--model", "gpt3-175b", "--system", "hgx-h100", "--gpus", "128", "--precision", "fp8",
               "--seq", "2048", "--gbs", "256", "--tp", "4", "--pp", "8", "--vpp", "12", "--mbs", "1"],
              ["train", "--model", "llama3-70b", "--system", "hgx-h100", "--gpus", "64", "--seq", "8192",
               "--gbs", "128", "--profile", "hyperscaler", "--tokens", "1T"],
              ["train", "--model", "deepseek-v3", "--system", "gb200-nvl72", "--gpus", "256", "--seq", "4096",
               "--gbs", "2048"],
              ["train", "--model", "llama3-70b", "--system", "hgx-h100", "--sweep-gpus", "64,128", "--seq", "8192",
               "--gbs", "128"]],
    "search": [["search", "--model", "gpt3-175b", "--system", "hgx-h100", "--gpus", "64", "--seq", "2048",
                "--gbs", "256", "--top", "3"],
               ["search", "--model", "gpt3-175b", "--system", "hgx-h100", "--gpus", "64", "--seq", "2048",
                "--gbs", "256", "--top", "2", "--objective", "cost"]],
    "validate": [["validate"], ["validate", "--group", "heldout"], ["validate", "--group", "rl"],
                 ["validate", "--group", "dgxc", "--leave-one-out"]],
    "calibrate": [["calibrate", os.path.join(ROOT, "examples", "runs.yaml")]],  # absolute: the test runs it from two folders
    "reliability": [["reliability", "--system", "hgx-h100", "--active-gpus", "16384"],
                    ["reliability", "--system", "gb200-nvl72", "--active-gpus", "1024", "--tokens-per-s", "1000",
                     "--profile", "hyperscaler", "--trials", "20"]],
    "infer": [["infer", "--model", "gemma4-31b", "--system", "hgx-h100", "--weights", "fp8", "--kv", "fp8"],
              ["infer", "--model", "llama3-70b", "--system", "hgx-b200", "--sweep", "--grid", "1,8,64"],
              ["infer", "--model-file", os.path.join(HF, "gpt-oss-120b.json"), "--system", "hgx-h100"],
              ["infer", "--model", "llama3-405b", "--system", "hgx-h100", "--gpus", "1", "--tp", "1"]],
    "finetune": [["finetune", "--model", "gemma4-31b", "--system", "hgx-h100", "--method", "lora"],
                 ["finetune", "--model", "gemma4-31b", "--system", "hgx-a100", "--method", "lora", "--compare"]],
    "rl": [["rl", "--model", "llama3-8b", "--system", "hgx-h100", "--gpus", "16"],
           ["rl", "--model", "qwen3-235b-a22b", "--system", "gb200-nvl72", "--gpus", "72", "--placement",
            "disaggregated", "--off-policy", "1", "--gen-weights", "fp8"]],
    "compare": [["compare", "--no-sensitivity"], ["compare", "--no-sensitivity", "--uncertainty", "50"], ["compare", os.path.join(ROOT, "tests", "cases", "scenarios",
                                                                          "infeasible.yaml")]],
}

GLOBALS = {
    "format": {"enum": ["json", "table", "csv", "html"], "description": "output form (default json)"},
    "json": {"type": "boolean"}, "csv": {"type": "boolean"},
    "catalog": {"type": "string", "description": "a directory of catalog YAML files"},
    "model_file": {"description": "a model file or a Hugging Face config.json: its path (refused by gpuecon serve), "
                   "or its contents inline", "anyOf": [{"type": "string"}, {"$ref": "#/$defs/inline_file"}]},
    "help": {"type": "boolean"}, "max_work": {"type": ["number", "string"]},
}


def option_schema(o):
    kind = o["kind"]
    s = {"description": "%s: %s" % (o["option"], o["help"])}
    if kind == "flag":
        s["type"] = "boolean"
        return s
    if kind in ("number", "integer"):
        typed = {"type": kind, "minimum": o["minimum"], "maximum": o["maximum"]}
    elif kind == "choice":
        typed = {"enum": o["choices"]}
    elif kind == "list":
        typed = {"type": "array", "minItems": 1, "maxItems": 64,
                 "items": {"type": "integer", "minimum": o["minimum"], "maximum": o["maximum"]}}
    else:
        typed = {"type": ["string", "object"]} if o["name"] == "scenario" else {"type": "string"}
    if kind == "path":
        s["description"] += " (a file on this machine: gpuecon serve refuses it%s%s)" % (
            ", except " + " | ".join(o["choices"]) if o.get("choices") else "",
            "; or its contents inline" if o.get("inline") else "")
        if o.get("inline"):
            s["anyOf"] = [typed, {"$ref": "#/$defs/inline_file"}]
            return s
    if kind in ("number", "integer", "list"):
        s["anyOf"] = [typed, {"type": "string", "description": "the command line's syntax (15T, 64,128,...)"}]
    else:
        s.update(typed)
    return s


def request_schema():
    defs, branches = {}, []
    for name in gpuecon.commands():
        d = gpuecon.command_options(name)
        props = dict(GLOBALS)
        for o in d["options"]:
            props[o["name"]] = option_schema(o)
        defs[name] = {"type": "object", "additionalProperties": False, "properties": props}
        branch = {"if": {"properties": {"command": {"const": name}}},
                  "then": {"properties": {"options": {"$ref": "#/$defs/%s" % name},
                                          "args": {"maxItems": d["positional"]}}}}
        branches.append(branch)
    defs["inline_file"] = {
        "description": "a file's contents in the request (gpuecon serve names no file): at most 1 MiB of text, "
                       "no NUL; name is what errors quote (name:line:col) and a model file's stem",
        "type": "object", "additionalProperties": False, "required": ["text"],
        "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 1048576},
                       "name": {"type": "string", "minLength": 1, "maxLength": 200}}}
    return {
        "$schema": DRAFT, "$id": "https://gpuecon.invalid/api/request.schema.json",
        "title": "gpuecon request (gpuecon_request)",
        "description": "A command and its options as the command line names them, less the leading dashes, "
                       "inner dashes as underscores. Generated by scripts/api_schemas.py from the library's "
                       "option tables.",
        "type": "object", "additionalProperties": False, "required": ["command"],
        "properties": {"command": {"enum": list(gpuecon.commands())},
                       "options": {"type": "object"},
                       "args": {"type": "array", "items": {"type": "string"}}},
        "allOf": branches, "$defs": defs,
    }


def infer(values):
    """A schema for the given sample values (all of one key)."""
    types = set()
    for v in values:
        types.add("null" if v is None else "boolean" if isinstance(v, bool) else
                  "integer" if isinstance(v, int) else "number" if isinstance(v, float) else
                  "string" if isinstance(v, str) else "array" if isinstance(v, list) else "object")
    if "integer" in types and "number" in types:
        types.discard("integer")
    if "number" in types or "integer" in types:
        types.add("null")  # a number that is not finite is written as null
    s = {"type": sorted(types)[0] if len(types) == 1 else sorted(types)}
    objs = [v for v in values if isinstance(v, dict)]
    if objs:
        keys = {}
        for o in objs:
            for k, v in o.items():
                keys.setdefault(k, []).append(v)
        s["properties"] = {k: infer(vs) for k, vs in keys.items()}
        s["required"] = sorted(k for k in keys if all(k in o for o in objs))
    items = [x for v in values if isinstance(v, list) for x in v]
    if items:
        s["items"] = infer(items)
    return s


def response_schema(cli, name):
    outs = []
    for argv in SAMPLES[name]:
        p = subprocess.run([cli] + argv + ["--json"], capture_output=True, text=True, cwd=ROOT)
        if p.returncode not in (0, 3):
            raise SystemExit("%s: exit %d: %s" % (" ".join(argv), p.returncode, p.stderr))
        outs.append(json.loads(p.stdout))
    s = infer(outs)
    s.update({"$schema": DRAFT, "$id": "https://gpuecon.invalid/api/response/%s.schema.json" % name,
              "title": "gpuecon %s --json" % name})
    return s


def dump(path, obj):
    text = json.dumps(obj, indent=1, sort_keys=False) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    cli = sys.argv[1]
    api = os.path.join(ROOT, "docs", "api")
    dump(os.path.join(api, "request.schema.json"), request_schema())
    for name in SAMPLES:
        dump(os.path.join(api, "response", "%s.schema.json" % name), response_schema(cli, name))


if __name__ == "__main__":
    main()
