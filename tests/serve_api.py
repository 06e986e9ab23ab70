#!/usr/bin/env python3
"""API tests of `gpuecon serve` against servers this test starts on free loopback ports.

Usage: serve_api.py GPUECON_BINARY
Each check compares the API with the CLI itself (the same documents, byte for byte where the
CLI's output has no clock in it) or with a status the API promises (docs/cli.md, serve):
400 bad request with the CLI's error record, 413 body over the cap, the bounded queue beyond the
concurrency cap (a wait, then 503 with Retry-After when it is full or the wait runs out), 503 over
the work budget, 404 unknown paths; security headers; graceful SIGTERM.
Standard library only.
"""
import json
import os
import re
import shutil
import tempfile
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

BIN = os.path.abspath(sys.argv[1])
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []
LONG = """name: long
comparisons:
  - name: mc
    workload: {kind: train, model: llama3-8b, precision: bf16, tokens: 1e12, seq: 8192, gbs: 512}
    platforms:
      - system: hgx-h100
        gpus: 1024
        measured_tokens_per_s: 9000
      - system: gb200-nvl72
        gpus: 1024
        measured_tokens_per_s: 20000
"""
# A request well over a 1-second budget: with 10^6 Monte Carlo trials on 16,384 GPUs it runs about
# 2 s in a Release build and 7 s in make test's sanitized one (LONG on 1,024 GPUs finished in
# 0.7-0.9 s once the sanitized build ran at -O1, at the budget, and the budget check failed at random).
HEAVY = LONG.replace("gpus: 1024", "gpus: 16384")


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def command_options():
    """{command: [option records]} from the library beside the binary (gpuecon_command_options),
    read in a child Python: a sanitized library needs its sanitizer runtimes preloaded (the paths
    ldd gives), with leak checking off (the interpreter keeps memory until exit by design)."""
    lib = None
    for name in ("libgpuecon.so.1", "libgpuecon.so"):
        path = os.path.join(os.path.dirname(BIN), name)
        if os.path.exists(path):
            lib = path
            break
    if lib is None:
        return None
    env = dict(os.environ)
    try:
        deps = subprocess.run(["ldd", lib], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        deps = ""
    pre = [m.group(1) for m in re.finditer(r"lib(?:asan|ubsan)\.so[.\d]* => (\S+)", deps)]
    if pre:
        env["LD_PRELOAD"] = ":".join(pre)
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    code = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
class Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("where", ctypes.c_char * 256), ("line", ctypes.c_int),
                ("column", ctypes.c_int), ("message", ctypes.c_char * 512)]
class Info(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p)]
lib.gpuecon_ctx_new.restype = ctypes.c_void_p
lib.gpuecon_ctx_new.argtypes = [ctypes.c_void_p]
lib.gpuecon_command_at.restype = ctypes.POINTER(Info)
lib.gpuecon_command_at.argtypes = [ctypes.c_size_t]
lib.gpuecon_command_options.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                        ctypes.POINTER(Err)]
ctx = lib.gpuecon_ctx_new(None)
out, i = {}, 0
while True:
    info = lib.gpuecon_command_at(i)
    if not info:
        break
    name = info.contents.name.decode()
    p, e = ctypes.c_void_p(), Err()
    if lib.gpuecon_command_options(ctx, name.encode(), ctypes.byref(p), ctypes.byref(e)) == 0:
        out[name] = json.loads(ctypes.cast(p, ctypes.c_char_p).value.decode())["options"]
    i += 1
print(json.dumps(out))
"""
    r = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, env=env, timeout=120)
    if r.returncode != 0:
        print(r.stderr[-2000:])
        return None
    return json.loads(r.stdout)


def walk_options(base):
    """Every string or path option of every command, given a file's path over the API: no answer
    quotes the file, and every option of kind "path" is refused with 400 naming it (the library's
    allow list by kind; a deny list by name once let --lengths read any file on the server)."""
    table = command_options()
    check(table is not None and len(table) >= 10, "the command table is readable beside the binary")
    if not table:
        return
    secret = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    secret.write("SECRET-LINE-7f3a 1 1\n")
    secret.close()
    paths = 0
    leaks = []
    for cmd, opts in table.items():
        for o in opts:
            if o["kind"] not in ("string", "path"):
                continue
            base_opts = {"model": "llama3-8b", "system": "hgx-h100", "simulate": True, "rate": 1,
                         "requests": 10} if cmd == "infer" else {}
            base_opts[o["name"]] = secret.name
            st, _, body = call(base, "/api/v1/" + cmd, {"options": base_opts})
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
            if "SECRET-LINE" in text:
                leaks.append("%s %s" % (cmd, o["name"]))
            if o["kind"] == "path":
                paths += 1
                e = error_of(body)
                check(st == 400 and e.get("where") == o["option"] and "names a file" in e.get("message", ""),
                      "%s %s (a path) is refused over the API (%s %s)" % (cmd, o["option"], st, e.get("where")))
    os.unlink(secret.name)
    check(paths >= 5, "the walk met the path options (%d)" % paths)
    check(not leaks, "no answer quotes a file named in any option (%s)" % ", ".join(leaks))


def raw_request(base, method, path, headers, body=b""):
    """One request with exactly these headers (urllib adds its own Host and Content-Type)."""
    import http.client
    host, port = base.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    if body:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body if body else None)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def civetweb_errors(base):
    """civetweb's own error answers (a bad method, a 20 KB URI) carry the server's security headers."""
    import socket
    host, port = base.split("//")[1].split(":")
    for what, line in [("a bad method", b"FOO / HTTP/1.1"), ("a 20 KB URI", b"GET /" + b"a" * 20000 + b" HTTP/1.1")]:
        s = socket.create_connection((host, int(port)), timeout=30)
        s.sendall(line + b"\r\nHost: " + (host + ":" + port).encode() + b"\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        head = data.split(b"\r\n\r\n")[0].decode("latin-1").lower()
        check(head.startswith("http/1.1 4") and "content-security-policy:" in head and
              "x-content-type-options: nosniff" in head, "%s: a 4xx with the security headers (%s)" %
              (what, head.split("\r\n")[0]))


def duplicate_host(base):
    """Two Host fields: 400 (RFC 9112 section 3.2), not the first one's answer (it was 200)."""
    import socket
    host, port = base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sk:
        sk.sendall(("GET /api/v1/scenario HTTP/1.1\r\nHost: %s:%s\r\nHost: evil.example\r\n"
                    "Connection: close\r\n\r\n" % (host, port)).encode())
        data = b""
        while True:
            chunk = sk.recv(4096)
            if not chunk:
                break
            data += chunk
    check(data.startswith(b"HTTP/1.1 400") and b"more than one Host header" in data,
          "two Host headers: 400 (%r)" % data[:40])


def origin_checks(base):
    """DNS rebinding and cross-origin POSTs (docs/security.md): the Host must name this server by
    address or as localhost; an API POST must be JSON and same-origin. 403 otherwise."""
    hostport = base.split("//")[1]
    body = json.dumps({"options": {"system": "hgx-h100", "profile": "hyperscaler", "tokens_per_s": 800}}).encode()
    ok = {"Host": hostport, "Content-Type": "application/json"}
    st, _ = raw_request(base, "POST", "/api/v1/cost", ok, body)
    check(st == 200, "a same-origin JSON POST runs (%d)" % st)
    st, _ = raw_request(base, "POST", "/api/v1/cost", dict(ok, Origin="http://" + hostport,
                                                           **{"Sec-Fetch-Site": "same-origin"}), body)
    check(st == 200, "a POST with this server's Origin and Sec-Fetch-Site same-origin runs (%d)" % st)
    st, _ = raw_request(base, "POST", "/api/v1/cost", dict(ok, Host="localhost:" + hostport.split(":")[1]), body)
    check(st == 200, "Host localhost:PORT is accepted (%d)" % st)
    for what, headers in [
            ("a rebinding Host (a domain name)", dict(ok, Host="evil.example:" + hostport.split(":")[1])),
            ("a rebinding Host without a port", dict(ok, Host="evil.example")),
            ("no Host", {"Content-Type": "application/json"}),
            ("a text/plain POST", dict(ok, **{"Content-Type": "text/plain"})),
            ("a form POST", dict(ok, **{"Content-Type": "application/x-www-form-urlencoded"})),
            ("no Content-Type", {"Host": hostport}),
            ("a cross-origin Origin", dict(ok, Origin="http://evil.example")),
            ("Origin null", dict(ok, Origin="null")),
            ("Sec-Fetch-Site cross-site", dict(ok, **{"Sec-Fetch-Site": "cross-site"})),
            ("Sec-Fetch-Site same-site", dict(ok, **{"Sec-Fetch-Site": "same-site"}))]:
        st, data = raw_request(base, "POST", "/api/v1/cost", headers, body)
        check(st == 403, "%s: 403 (%d)" % (what, st))
    st, _ = raw_request(base, "GET", "/", {"Host": "evil.example"})
    check(st == 403, "the page itself with a rebinding Host: 403 (%d)" % st)


def start(*args):
    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--quiet", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        print("server did not start:", line, p.stderr.read())
        sys.exit(1)
    return p, "http://127.0.0.1:%s" % m.group(1)


def call(base, path, body=None, method=None, raw=None, timeout=300):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(base + path, data=data, method=method or ("POST" if data is not None else "GET"))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def cli(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def cli_doc(text, *args):
    """The CLI on a scenario file named `scenario`, the name the API gives a document."""
    d = tempfile.mkdtemp()
    try:
        with open(os.path.join(d, "scenario"), "w") as f:
            f.write(text)
        return cli("compare", "scenario", *args, cwd=d)
    finally:
        shutil.rmtree(d)


def error_of(body):
    try:
        return json.loads(body)["error"]
    except (ValueError, KeyError):
        return {}


def no_clock(doc):
    """A JSON document without the keys that hold a clock reading (elapsed_s, configs_per_s)."""
    doc = json.loads(doc) if isinstance(doc, (str, bytes)) else doc

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("elapsed_s", "configs_per_s")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(doc)


# Every command of the library, as a request's options and as the same command line.
COMMANDS = [
    ("cost", {"system": "hgx-h100", "profile": "hyperscaler", "tokens_per_s": 800}),
    ("reproduce", {}),
    ("comm", {"system": "hgx-h100", "op": "all-reduce", "gpus": 64, "bytes": 1e9}),
    ("train", {"model": "llama3-8b", "system": "hgx-h100", "gpus": 64, "seq": 8192, "gbs": 512}),
    ("search", {"model": "llama3-8b", "system": "hgx-h100", "gpus": 64, "seq": 8192, "gbs": 512, "top": 3}),
    ("validate", {}),
    ("reliability", {"system": "gb200-nvl72", "active_gpus": 4096}),
    ("infer", {"model": "llama3-8b", "system": "hgx-h100", "gpus": 8, "tp": 1}),
    ("finetune", {"model": "llama3-8b", "system": "hgx-h100", "gpus": 8, "method": "lora"}),
    ("rl", {"model": "llama3-8b", "system": "hgx-h100", "gpus": 16, "prompts": 16, "samples": 4}),
    ("compare", {"no_sensitivity": True}),
]


def argv_of(options):
    out = []
    for k, v in options.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            out.append(flag)
        else:
            out += [flag, "%g" % v if isinstance(v, float) else str(v)]
    return out


def headers_and_pages(base):
    st, h, body = call(base, "/")
    check(st == 200 and b"<textarea" in body, "GET / serves the page")
    check("script-src 'self'" in h.get("Content-Security-Policy", ""), "Content-Security-Policy on the page")
    check(h.get("X-Content-Type-Options") == "nosniff", "X-Content-Type-Options: nosniff")
    check(not any(k.lower().startswith("access-control") for k in h), "no CORS headers")
    st, h, _ = call(base, "/vendor/js-yaml.min.js")
    check(st == 200 and h["Content-Type"].startswith("text/javascript"), "the vendored js-yaml is served")
    st, _, _ = call(base, "/../data/gpus.yaml")
    check(st == 404, "no files outside the embedded page")
    st, h, _ = call(base, "/api/v1/compare", method="OPTIONS")
    check(st == 405 and not any(k.lower().startswith("access-control") for k in h), "CORS preflight refused")


def commands(base):
    st, _, body = call(base, "/api/v1/scenario")
    doc = json.loads(body)
    check(st == 200 and doc["name"] == "default" and "deepseek-v3-train" in doc["yaml"], "GET /api/v1/scenario")
    for kind in ["gpus", "systems", "profiles", "models", "reliability", "stacks", "timelines"]:
        st, _, body = call(base, "/api/v1/catalog/" + kind)
        check(st == 200 and body.decode() == cli("catalog", kind, "--json").stdout,
              "GET /api/v1/catalog/%s is byte-identical to gpuecon catalog %s --json" % (kind, kind))
    st, _, body = call(base, "/api/v1/catalog", {"args": ["systems", "gb200-nvl72"]})
    check(st == 200 and body.decode() == cli("catalog", "systems", "gb200-nvl72", "--json").stdout,
          "POST catalog {args: [systems, gb200-nvl72]} = gpuecon catalog systems gb200-nvl72 --json")
    for name, options in COMMANDS:
        st, _, body = call(base, "/api/v1/" + name, {"command": name, "options": options})
        ref = cli(name, *argv_of(options), "--json")
        check(st == 200 and ref.returncode == 0 and no_clock(body) == no_clock(ref.stdout),
              "POST /api/v1/%s = gpuecon %s %s --json (status %d)" % (name, name, " ".join(argv_of(options)), st))
    st, _, body = call(base, "/api/v1/train", {"options": {"model": "llama3-405b", "system": "hgx-h100", "gpus": 8,
                                                           "seq": 8192, "gbs": 8}})
    ref = cli("train", "--model", "llama3-405b", "--system", "hgx-h100", "--gpus", "8", "--seq", "8192", "--gbs", "8")
    check(st == 422 and ref.returncode == 3 and error_of(body).get("exit_code") == 3,
          "an infeasible request (405B on 8 GPUs): 422 with the CLI's exit code 3")
    st, _, body = call(base, "/api/v1/compare", {"command": "compare", "options": {}})
    check(st == 200 and no_clock(body) == no_clock(cli("compare", "--json").stdout),
          "POST compare {} = gpuecon compare --json (elapsed_s aside; status %d)" % st)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases", "scenarios", "infeasible.yaml")
    with open(path) as f:
        text = f.read()
    ref = cli_doc(text, "--json")
    st, _, body = call(base, "/api/v1/compare", {"options": {"scenario": text}})
    check(st == 200 and no_clock(body) == no_clock(ref.stdout), "compare with a scenario document as YAML text")
    st, _, body = call(base, "/api/v1/compare", {"options": {"scenario": json.loads(json.dumps(
        {"name": "long", "comparisons": [{"name": "mc", "workload": {"kind": "train", "model": "llama3-8b",
         "precision": "bf16", "tokens": 1e12, "seq": 8192, "gbs": 512}, "platforms": [
         {"system": "hgx-h100", "gpus": 1024, "measured_tokens_per_s": 9000},
         {"system": "gb200-nvl72", "gpus": 1024, "measured_tokens_per_s": 20000}]}]}))}})
    check(st == 200 and no_clock(body) == no_clock(cli_doc(LONG, "--json").stdout),
          "compare with a scenario document as a JSON object = the same scenario in YAML")
    st, h, body = call(base, "/api/v1/compare", {"options": {"scenario": LONG, "format": "csv"}})
    check(st == 200 and h["Content-Type"].startswith("text/csv") and body.decode() == cli_doc(LONG, "--csv").stdout,
          "compare format csv = gpuecon compare --csv")
    st, h, body = call(base, "/api/v1/compare", {"options": {"scenario": LONG, "format": "html"}})
    check(st == 200 and h["Content-Type"].startswith("text/html") and
          body.decode() == cli_doc(LONG, "--format", "html").stdout, "compare format html = gpuecon compare --format html")


def bad_requests(base):
    st, _, body = call(base, "/api/v1/compare", raw=b'{"options": {"trials": 1,}}')
    e = error_of(body)
    check(st == 400 and e.get("where") == "request" and e.get("line") == 1 and e.get("column", 0) > 20,
          "bad JSON: 400 naming request:1:col (%s)" % e.get("text"))
    st, _, body = call(base, "/api/v1/compare", raw=b"[1, 2]")
    check(st == 400 and "JSON object" in error_of(body).get("message", ""), "a request that is not an object: 400")
    st, _, body = call(base, "/api/v1/compare", {"command": "train", "options": {}})
    check(st == 400 and error_of(body).get("where") == "request.command", "command in the body must match the URL")
    st, _, body = call(base, "/api/v1/compare", {"options": {"trails": 5}})
    e = error_of(body)
    ref = cli("compare", "--trails", "5")
    check(st == 400 and "trials" in e.get("message", "") and e.get("text") in ref.stderr,
          "unknown option: 400 with the CLI's error line (%s)" % e.get("text"))
    for key, value in [("catalog", "/etc"), ("model_file", "/etc/passwd"), ("plot", "/tmp/x.svg"), ("output", "/tmp/x")]:
        st, _, body = call(base, "/api/v1/compare", {"options": {key: value}})
        where = "--" + key.replace("_", "-")
        check(st == 400 and error_of(body).get("where") == where, "option %s (a file) is refused (%s)" %
              (key, error_of(body).get("where")))
    walk_options(base)
    origin_checks(base)
    duplicate_host(base)
    civetweb_errors(base)
    st, _, body = call(base, "/api/v1/compare", {"args": ["/etc/passwd"]})
    check(st == 400 and error_of(body).get("where") == "request.args", "a scenario file path in args is refused")
    # a scenario document that names a model file (docs/scenarios.md model_file:) is refused too
    hf = ("workload: {kind: train, model_file: /etc/passwd, tokens: 1e12, seq: 4096, gbs: 64}\n"
          "platforms: [{system: hgx-h100, gpus: 8}]\n")
    st, _, body = call(base, "/api/v1/compare", {"options": {"scenario": hf}})
    e = error_of(body)
    check(st == 400 and e.get("line") == 1 and "cannot name files" in e.get("message", ""),
          "a scenario document with model_file: is refused (%s)" % e.get("text"))
    st, _, body = call(base, "/api/v1/compare", {"options": {"scenario": "name: x\ncomparisons: [\n"}})
    e = error_of(body)
    ref = cli_doc("name: x\ncomparisons: [\n")
    check(st == 400 and e.get("line") == 3 and e.get("exit_code") == ref.returncode == 2 and
          e.get("message") in ref.stderr, "a broken scenario: the CLI's error record, line 3 (%s)" % e.get("text"))
    st, _, body = call(base, "/api/v1/compare", raw=b"[" * 100 + b"]" * 100)
    check(st == 400 and "deeper than 32" in error_of(body).get("message", ""), "nesting deeper than the cap: 400")
    st, _, body = call(base, "/api/v1/frobnicate", {})
    ref = cli("frobnicate")
    check(st == 400 and "unknown command" in error_of(body).get("message", "") and error_of(body).get("text") in ref.stderr,
          "unknown command: 400 with the CLI's error line")
    st, _, _ = call(base, "/api/v1/catalog/gadgets")
    check(st == 404, "unknown catalog kind: 404")
    # the server's --max-work (default 60 CPU-seconds) caps what a request may ask for
    # ("1k" is 1000 to the library's number parser; the server once read it as 1 with a parser of
    # its own and let it through)
    for value in [61, "1e7", "1k", "61.0"]:
        st, _, body = call(base, "/api/v1/reproduce", {"options": {"max_work": value}})
        e = error_of(body)
        check(st == 400 and e.get("where") == "--max-work" and "limit of 60" in e.get("message", ""),
              "max_work %s above the server's 60: 400 naming the limit (%s)" % (value, e))
    st, _, body = call(base, "/api/v1/cost", {"options": {"max_work": 60, "system": "hgx-h100",
                                                          "profile": "hyperscaler", "tokens_per_s": 800}})
    check(st == 200, "max_work at the server's limit is accepted")
    st, _, body = call(base, "/api/v1/compare", raw=b" " * (64 * 1024 + 1))
    check(st == 413, "a body one byte over --max-body: 413")
    st, _, _ = call(base, "/api/v1/compare", raw=b"{}" + b" " * (64 * 1024 - 2))
    check(st == 200, "a body exactly at --max-body is accepted")


def inline_files(base):
    """A request names no file on the server, so files a command reads travel inline, size-capped
    (issue 49): a lengths histogram as {"text": ...} is used (a long-prompt tail raises the P90 TTFT above
    the fixed lengths' at the same rate: 8,192-token prompts take about 8x the prefill of 1,024-token ones),
    a Hugging Face config.json as the global model_file {"text", "name"} is the model, and each malformed
    form is a 400 naming the option."""
    q = {"model": "llama3-8b", "system": "hgx-h100", "gpus": 8, "simulate": True, "rate": 2, "requests": 400,
         "prompt_len": 1024, "output_len": 256, "json": True}
    st, _, fixed = call(base, "/api/v1/infer", {"options": q})
    st2, _, hist = call(base, "/api/v1/infer", {"options": dict(q, lengths={"text": "1024 256 3\n8192 2048 1\n",
                                                                         "name": "tail.txt"})})
    check(st == 200 and st2 == 200, "infer with an inline histogram answers (%s %s)" % (st, st2))
    if st == 200 and st2 == 200:
        f, h = json.loads(fixed), json.loads(hist)
        check(h["ttft_ms_p90"] > 2 * f["ttft_ms_p90"],
              "the inline histogram is used: P90 TTFT %.1f ms > 2 x fixed %.1f ms" % (h["ttft_ms_p90"], f["ttft_ms_p90"]))
    st, _, body = call(base, "/api/v1/infer", {"options": dict(q, lengths={"text": "1024 x\n", "name": "bad.txt"})})
    e = error_of(body)
    check(st == 400 and e.get("where") == "bad.txt" and e.get("line") == 1 and e.get("column") == 6,
          "a bad inline histogram: 400 at its name:line:col (%s)" % e.get("text"))
    for bad, what in [({"text": ""}, "is empty"), ({"text": "1 1", "path": "/etc/passwd"}, "nothing else"),
                      ({"text": "1 1", "name": "a\u001bb"}, "printable")]:
        st, _, body = call(base, "/api/v1/infer", {"options": dict(q, lengths=bad)})
        e = error_of(body)
        check(st == 400 and e.get("where") == "--lengths" and what in e.get("message", ""),
              "inline lengths %s: 400 '%s' (%s)" % (list(bad), what, e.get("message")))
    cfg = open(os.path.join(SRC, "tests", "cases", "hf", "qwen2.5-7b.json")).read()
    st, _, body = call(base, "/api/v1/infer", {"options": {"system": "hgx-h100", "gpus": 8, "json": True,
                                                           "model_file": {"text": cfg,
                                                                          "name": "Qwen/Qwen2.5-7B/config.json"}}})
    check(st == 200 and json.loads(body).get("model") == "Qwen2.5-7B",
          "an inline config.json is the model (%s %s)" % (st, body[:80]))
    st, _, body = call(base, "/api/v1/infer", {"options": {"system": "hgx-h100", "gpus": 8,
                                                           "model_file": {"text": "{not json"}}})
    e = error_of(body)
    check(st == 400 and e.get("where") == "inline-model.json" and e.get("line") == 2,
          "a broken inline model file: 400 at inline-model.json:line (%s)" % e.get("text"))


def limits():
    p, base = start("--max-concurrent", "1", "--budget-s", "1", "--queue-depth", "0")
    out = {}

    def long_request():
        t0 = time.time()
        out["long"] = call(base, "/api/v1/compare", {"options": {"scenario": HEAVY, "trials": 1000000}})
        out["long_s"] = time.time() - t0

    t = threading.Thread(target=long_request)
    t.start()
    time.sleep(0.4)
    st, h, body = call(base, "/api/v1/scenario")
    # Retry-After: the queue wait (default 10 s), rounded up
    check(st == 503 and h.get("Retry-After") == "10" and "--queue-depth" in error_of(body).get("message", ""),
          "a second request while one runs (--max-concurrent 1, --queue-depth 0): 503, Retry-After: 10 (%d %s)" %
          (st, h.get("Retry-After")))
    t.join()
    st, _, body = out["long"]
    e = error_of(body)
    check(st == 503 and e.get("status") == "canceled" and out["long_s"] < 30,
          "a request over --budget-s 1 is cancelled with 503 after %.1f s (%s)" % (out["long_s"], e.get("message")))
    st, _, _ = call(base, "/api/v1/scenario")
    check(st == 200, "the server answers again once the long request is gone")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=30) == 0, "SIGTERM: exit 0")


def heavy_then(base, delay, fn):
    """Runs HEAVY (cancelled by a 1 s --budget-s) on the server's one work slot and, `delay`
    seconds into it, fn(); returns fn's result and HEAVY's answer."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("heavy", call(
        base, "/api/v1/compare", {"options": {"scenario": HEAVY, "trials": 1000000}})))
    t.start()
    time.sleep(delay)
    r = fn()
    t.join()
    return r, out["heavy"]


def timed(base, path):
    t0 = time.monotonic()
    st, h, body = call(base, path, timeout=120)
    return st, h, body, time.monotonic() - t0


def queue():
    """Issue 48: requests beyond --max-concurrent wait in a bounded queue instead of being refused
    at once. (1) one that finds the only slot busy waits for it and gets 200 once HEAVY has
    gone (HEAVY holds it for its 1 s budget, so the wait is at least 1 - 0.3 s); (2) with
    --queue-depth 4, 20 requests sent at once while HEAVY runs: exactly 4 queue and get 200, the
    other 16 get 503 at once with Retry-After: 300 (--queue-wait 300, rounded up); (3) with
    --queue-wait 0.5, a queued request gets 503 after 0.5 s, Retry-After: 1; (4) 50 concurrent
    compare requests at the default depth and slots (4 slots + 64 queued >= 50) all get 200 (the
    wait is raised to 300 s: under the sanitizers a compare takes seconds)."""
    p, base = start("--max-concurrent", "1", "--budget-s", "1", "--queue-depth", "4", "--queue-wait", "300")
    try:
        (st, h, body, waited), heavy = heavy_then(base, 0.3, lambda: timed(base, "/api/v1/scenario"))
        check(heavy[0] == 503 and st == 200 and waited > 0.5,
              "a request that finds the one slot busy waits in the queue and gets 200 after %.2f s (HEAVY: %d)" %
              (waited, heavy[0]))
        answers = []
        go = threading.Barrier(20)

        def one():
            go.wait()
            answers.append(timed(base, "/api/v1/scenario"))

        def burst():
            ts = [threading.Thread(target=one) for _ in range(20)]
            for x in ts:
                x.start()
            for x in ts:
                x.join()
        heavy_then(base, 0.3, burst)
        ok = [a for a in answers if a[0] == 200]
        busy = [a for a in answers if a[0] == 503]
        check(len(ok) == 4 and len(busy) == 16 and all(a[1].get("Retry-After") == "300" for a in busy) and
              all("--queue-depth" in error_of(a[2]).get("message", "") and a[3] < 0.5 for a in busy),
              "20 requests at once with one slot busy and --queue-depth 4: 4 x 200 and 16 x 503 at once, "
              "Retry-After: 300 (%s)" % sorted(a[0] for a in answers))
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
    p, base = start("--max-concurrent", "1", "--budget-s", "1", "--queue-wait", "0.5")
    try:
        (st, h, body, waited), _ = heavy_then(base, 0.2, lambda: timed(base, "/api/v1/scenario"))
        check(st == 503 and h.get("Retry-After") == "1" and 0.45 < waited < 0.8 and
              "--queue-wait" in error_of(body).get("message", ""),
              "--queue-wait 0.5: a queued request gets 503 after %.2f s, Retry-After: 1 (%d)" % (waited, st))
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
    p, base = start("--budget-s", "600", "--queue-wait", "300")
    try:
        sts = []
        go = threading.Barrier(50)

        def client():
            go.wait()
            sts.append(call(base, "/api/v1/compare", {"options": {"scenario": LONG, "trials": 2000}}, timeout=600)[0])
        ts = [threading.Thread(target=client) for _ in range(50)]
        for x in ts:
            x.start()
        for x in ts:
            x.join()
        check(sts.count(200) == 50, "50 concurrent compare requests on the default 4 slots: 50 x 200 (%s)" %
              {s: sts.count(s) for s in set(sts)})
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)


def graceful():
    p, base = start()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", call(base, "/api/v1/compare", {"options": {"scenario": LONG, "trials": 20000}})))
    t.start()
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    t.join()
    check(out["r"][0] == 200, "SIGINT during a request: the request finishes (200)")
    check(p.wait(timeout=30) == 0, "SIGINT: exit 0 after the request")
    r = subprocess.run([BIN, "serve", "--listen", "192.0.2.1:0"], capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "--allow-remote" in r.stderr, "a non-loopback --listen needs --allow-remote (exit 2)")
    r = subprocess.run([BIN, "serve", "--listen", "192.0.2.1:0", "--allow-remote"], capture_output=True, text=True,
                       timeout=30)
    check("warning" in r.stderr and r.returncode == 1,
          "with --allow-remote a non-loopback --listen warns (and 192.0.2.1 cannot bind)")
    # every address of a comma list is checked (the check once read only the first)
    for bad in ["127.0.0.1:0,0.0.0.0:0", "127.0.0.1:0,192.0.2.1:0"]:
        r = subprocess.run([BIN, "serve", "--listen", bad], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "is not a loopback address" in r.stderr, "--listen %s: exit 2" % bad)
    for bad in ["x:0", "127.evil.example:80", "127.0.0.1:80s", "1,2,3,4,5"]:
        r = subprocess.run([BIN, "serve", "--listen", bad], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "--listen" in r.stderr, "--listen %s: a usage error (exit 2)" % bad)
    r = cli("serve", "--listen", "localhost")
    check(r.returncode == 2 and "--listen" in r.stderr, "--listen without a port is a usage error")


def slow_clients():
    """A few slow clients do not take the server down (issue 49 item 6; docs/security.md): 4 POSTs
    that declare 100 bytes and send 2 do not hold the 2 work slots (a whole body is read before a
    slot is taken), 10 connections trickling header lines do not starve the page of threads, and
    each slow one is dropped within the 5 s read deadline (408 for a body cut short)."""
    import socket
    p, base = start("--max-concurrent", "2")
    host, port = base.split("//")[1].split(":")
    hostport = host + ":" + port
    socks = []
    try:
        for _ in range(4):
            s = socket.create_connection((host, int(port)), timeout=30)
            s.sendall(("POST /api/v1/cost HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: 100\r\n\r\n{\"" % hostport).encode())
            socks.append(s)
        for _ in range(10):
            s = socket.create_connection((host, int(port)), timeout=30)
            s.sendall(("GET / HTTP/1.1\r\nHost: %s\r\n" % hostport).encode())  # no blank line yet
            socks.append(s)
        time.sleep(0.5)
        t0 = time.monotonic()
        st, _, _ = call(base, "/api/v1/cost", {"options": {"system": "hgx-h100", "profile": "hyperscaler",
                                                           "tokens_per_s": 800}}, timeout=30)
        check(st == 200 and time.monotonic() - t0 < 10,
              "with 4 half-sent bodies and 10 trickling clients, a whole request runs at once (%d, %.1f s)" %
              (st, time.monotonic() - t0))
        t0 = time.monotonic()
        st, _, _ = call(base, "/", timeout=30)
        check(st == 200 and time.monotonic() - t0 < 10, "and the page is served (%d, %.1f s)" %
              (st, time.monotonic() - t0))
        # the half-sent bodies are answered 408 (or closed) within the deadline
        t0 = time.monotonic()
        s = socks[0]
        s.settimeout(15)
        data = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        waited = time.monotonic() - t0
        check(waited < 9 and (data == b"" or data.startswith(b"HTTP/1.1 408")),
              "a body cut short is dropped within the read deadline (%.1f s, %r)" % (waited, data[:40]))
    finally:
        for s in socks:
            s.close()
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)


def request_log():
    """The request log (stderr without --quiet) escapes the control bytes of a URL-decoded path: a
    %1b (ESC) or %07 (BEL) must not reach the terminal as such."""
    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = p.stdout.readline().decode()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    check(m is not None, "a logging server starts")
    if not m:
        p.kill()
        return
    call("http://127.0.0.1:%s" % m.group(1), "/api/v1/x%1b%5b31mred%07")
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    check(b"\x1b" not in err and b"\x07" not in err and b"\\x1b[31mred\\x07" in err,
          "the request log escapes control bytes (%r)" % err[:200])


def main():
    # a generous budget: under the sanitizers the built-in compare takes seconds
    p, base = start("--max-body", "65536", "--budget-s", "600")
    try:
        headers_and_pages(base)
        commands(base)
        bad_requests(base)
        inline_files(base)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
    limits()
    queue()
    graceful()
    request_log()
    slow_clients()
    print("%d failed" % len(FAILS))
    sys.exit(1 if FAILS else 0)


main()
