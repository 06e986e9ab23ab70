"""gpuecon for Python: every command of the gpuecon library as a function.

    >>> import gpuecon
    >>> r = gpuecon.cost(system="hgx-h100", tokens_per_s=728, pue=1.3)
    >>> round(r["usd_per_mtok"], 3)
    0.542

Keyword arguments are the command line's options with dashes as underscores
(``--tokens-per-s`` is ``tokens_per_s``); flags are ``True``; lists are Python lists. Each
function returns the dict that ``gpuecon <command> --json`` prints (the library builds it:
gpuecon_request in libgpuecon). Errors raise :class:`Error` with ``where``, ``line``,
``column``, ``message`` and, for a bad keyword argument, ``argument``.

Ctrl-C during a long call (a Monte Carlo, a simulation, a search) raises KeyboardInterrupt within
seconds: the library sees it at its next progress report and stops.

The shared library is found as: ``$GPUECON_LIBRARY``; the copy bundled by ``pip install``; an
installed ``libgpuecon.so.1`` (``make install``). Standard library only; ``to_dataframe`` uses
pandas when it is installed.
"""
import ctypes
import ctypes.util
import json
import os
import signal
import threading

__all__ = ["Error", "Result", "request", "to_dataframe", "catalog", "cost", "reproduce", "comm", "train",
           "search", "validate", "reliability", "infer", "finetune", "rl", "compare", "calibrate", "glossary",
           "commands", "command_options", "bands", "library_path"]
__version__ = "0.2.0"


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("where", ctypes.c_char * 256), ("line", ctypes.c_int),
                ("column", ctypes.c_int), ("message", ctypes.c_char * 512)]


class _CommandInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p)]


class Error(Exception):
    """A gpuecon error: ``where`` (an option as the command line spells it, a file, or
    ``request``), ``line`` and ``column`` (1-based, 0 when none), ``message``, ``code`` (the
    library's status) and ``argument`` (the keyword argument it concerns, when one does)."""

    def __init__(self, code, where, line, column, message, argument=None):
        self.code, self.where, self.line, self.column = code, where, line, column
        self.message, self.argument = message, argument
        head = argument or where
        if where and line > 0:
            head = "%s:%d:%d" % (where, line, column)
        super().__init__("%s: %s" % (head, message) if head else message)


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("GPUECON_LIBRARY"), os.path.join(here, "libgpuecon.so.1"),
                  ctypes.util.find_library("gpuecon"), "libgpuecon.so.1"]
    errors = []
    for path in candidates:
        if not path:
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("gpuecon: libgpuecon.so.1 not found (set GPUECON_LIBRARY, or `make install`): "
                      + "; ".join(errors))


_PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_double, ctypes.c_double)


class _Config(ctypes.Structure):
    """gpuecon_ctx_config, field for field (include/gpuecon.h)."""
    _fields_ = [("alloc", ctypes.c_void_p), ("alloc_ud", ctypes.c_void_p), ("seed", ctypes.c_uint64),
                ("threads", ctypes.c_int), ("progress", _PROGRESS_FN), ("progress_ud", ctypes.c_void_p),
                ("max_file_bytes", ctypes.c_size_t), ("clock", ctypes.c_void_p), ("clock_ud", ctypes.c_void_p),
                ("max_work_s", ctypes.c_double), ("memo", ctypes.c_void_p), ("catalog", ctypes.c_void_p),
                ("no_files", ctypes.c_bool), ("max_work_limit_s", ctypes.c_double)]


class _Interrupt:
    """Ctrl-C during a library call. ctypes releases the GIL for the call, so Python's SIGINT
    handler runs only when the library calls back into Python: the progress callback below. For
    the length of a call made from the main thread, SIGINT only records itself here; the callback
    then answers "cancel", the library returns GPUECON_E_CANCELED at its next report, and
    KeyboardInterrupt is raised once the call has returned (a KeyboardInterrupt raised inside a
    ctypes callback would be printed and lost)."""
    seen = False

    @staticmethod
    def handler(signum, frame):
        _Interrupt.seen = True


def _on_progress(ud, done, total):
    return 1 if _Interrupt.seen else 0


_progress_cb = _PROGRESS_FN(_on_progress)  # kept alive for the library's calls


def _new_ctx():
    cfg = _Config()
    cfg.progress = _progress_cb
    return _lib.gpuecon_ctx_new(ctypes.byref(cfg))


_lib, library_path = _find_library()
_lib.gpuecon_ctx_new.restype = ctypes.c_void_p
_lib.gpuecon_ctx_new.argtypes = [ctypes.c_void_p]
_lib.gpuecon_ctx_free.argtypes = [ctypes.c_void_p]
_lib.gpuecon_request.restype = ctypes.c_int
_lib.gpuecon_request.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                 ctypes.POINTER(_Error)]
_lib.gpuecon_free.argtypes = [ctypes.c_void_p]
_lib.gpuecon_command_options.restype = ctypes.c_int
_lib.gpuecon_command_options.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(_Error)]
_lib.gpuecon_command_at.restype = ctypes.POINTER(_CommandInfo)
_lib.gpuecon_command_at.argtypes = [ctypes.c_size_t]


def commands():
    """The library's commands: a dict name -> one-line summary."""
    out, i = {}, 0
    while True:
        p = _lib.gpuecon_command_at(i)
        if not p:
            return out
        out[p.contents.name.decode()] = p.contents.summary.decode()
        i += 1


def command_options(command):
    """A command's options: a list of dicts (name, option, kind, help, minimum, maximum,
    choices), as the library's option table has them."""
    ctx = _lib.gpuecon_ctx_new(None)
    out, err = ctypes.c_void_p(), _Error()
    try:
        status = _lib.gpuecon_command_options(ctx, command.encode(), ctypes.byref(out), ctypes.byref(err))
        body = ctypes.string_at(out.value).decode() if out.value else None
    finally:
        if out.value:
            _lib.gpuecon_free(out)
        _lib.gpuecon_ctx_free(ctx)
    if status:
        raise Error(status, err.where.decode(), err.line, err.column, err.message.decode())
    return json.loads(body)


def _option_name(where):
    """"--tokens-per-s" -> "tokens_per_s" (the keyword argument of an option)."""
    if where.startswith("--"):
        return where[2:].replace("-", "_")
    return None


def _check_value(key, v):
    """A keyword's value the request's JSON can carry: no NaN or infinity (JSON has none), no
    integer beyond 64 bits; else an Error naming the keyword."""
    import math
    items = v if isinstance(v, (list, tuple)) else [v]
    for x in items:
        if isinstance(x, float) and not math.isfinite(x):
            raise Error(-1, "--" + key.replace("_", "-"), 0, 0, "%r is not a finite number" % x, key)
        if isinstance(x, int) and not isinstance(x, bool) and not -2**63 <= x < 2**63:
            raise Error(-1, "--" + key.replace("_", "-"), 0, 0, "%d is too large a number" % x, key)


def _raw(command, options, args, fmt):
    opts = {}
    for k, v in options.items():
        if v is None or v is False:
            continue
        if isinstance(v, tuple):
            v = list(v)
        _check_value(k, v)
        opts[k] = v
    if fmt != "json":
        opts["format"] = fmt
    req = {"command": command, "options": opts}
    if args:
        req["args"] = [str(a) for a in args]
    try:
        text = json.dumps(req)
    except (TypeError, ValueError) as e:
        raise Error(-1, "request", 0, 0, "an argument is not JSON-serialisable: %s" % e) from None
    ctx = _new_ctx()  # the defaults, the seed included (GPUECON_DEFAULT_SEED), and Ctrl-C
    if not ctx:
        raise MemoryError("gpuecon: out of memory")
    out = ctypes.c_void_p()
    err = _Error()
    _Interrupt.seen = False
    previous = None
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous = signal.signal(signal.SIGINT, _Interrupt.handler)
    try:
        status = _lib.gpuecon_request(ctx, text.encode(), ctypes.byref(out), ctypes.byref(err))
        body = ctypes.string_at(out.value).decode() if out.value else None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if out.value:
            _lib.gpuecon_free(out)
        _lib.gpuecon_ctx_free(ctx)
    if _Interrupt.seen:
        _Interrupt.seen = False
        raise KeyboardInterrupt
    return status, body, err


def request(command, *args, format="json", **options):
    """Runs any command: ``request("train", model=..., gpus=512)``. Returns the parsed JSON
    (a dict), or the text for ``format="table"``, ``"csv"`` or ``"html"``. An infeasible
    request (the model does not fit) raises :class:`Error` with ``code`` -6 and the report in
    ``error.result``."""
    # csv=True / json=True / table=True are the command line's spelling of format
    for flag in ("csv", "json", "table", "html"):
        if options.get(flag) is True:
            options = dict(options)
            del options[flag]
            format = flag
    status, body, err = _raw(command, options, args, format)
    if options.get("help") is True:  # the command's help text, as `gpuecon COMMAND --help` prints it
        return body
    result = json.loads(body) if body is not None and format == "json" else body
    if status != 0:
        where = err.where.decode(errors="replace")
        arg = _option_name(where)
        e = Error(status, where, err.line, err.column, err.message.decode(errors="replace"),
                  arg if arg in options or arg == "help" else None)
        e.result = result
        raise e
    return result


class Result(dict):
    """A compare result: the JSON dict, which renders its HTML report in Jupyter."""

    def __init__(self, data, html_request):
        super().__init__(data)
        self._html_request = html_request

    def _repr_html_(self):
        return self._html_request()


def catalog(kind=None, name=None, **options):
    """GPUs, systems, profiles, models, reliability tiers: ``catalog("systems")``."""
    return request("catalog", *[a for a in (kind, name) if a is not None], **options)


def cost(**options):
    """$ per 1M tokens, J/token and totals of a throughput (system, tokens_per_s, ...)."""
    return request("cost", **options)


def reproduce(**options):
    """SemiAnalysis's H100 vs GB200 NVL72 arithmetic figures recomputed (docs/sources.md)."""
    return request("reproduce", **options)


def comm(**options):
    """Time of one collective on a system's network (system, op, gpus, bytes)."""
    return request("comm", **options)


def train(**options):
    """The predicted training step of a job (model, system, gpus, seq, gbs, ...)."""
    return request("train", **options)


def search(**options):
    """Ranked parallel configurations of a training job."""
    return request("search", **options)


def validate(**options):
    """Predicted vs published throughput on the calibration set."""
    return request("validate", **options)


def reliability(**options):
    """Goodput of a long job under failures, checkpoints and spares (system, active_gpus, ...)."""
    return request("reliability", **options)


def infer(**options):
    """Serving capacity, throughput, latency and cost per token (model, system, ...)."""
    return request("infer", **options)


def finetune(**options):
    """LoRA or full fine-tuning memory and speed (model, system, method, ...)."""
    return request("finetune", **options)


def rl(**options):
    """One RL post-training step: generation, scoring, training, weight sync, cost (model, system,
    gpus, prompts, samples, prompt_len, response_len, placement, ...)."""
    return request("rl", **options)


def compare(scenario=None, **options):
    """Platforms side by side. ``scenario``: a path to a scenario file, a dict (the document
    itself) or YAML text; None: the built-in default. The result renders its HTML report in
    Jupyter."""
    args = []
    if isinstance(scenario, dict):
        options["scenario"] = scenario
    elif isinstance(scenario, str) and ("\n" in scenario or not os.path.exists(scenario)) and ":" in scenario:
        options["scenario"] = scenario
    elif scenario is not None:
        args.append(os.fspath(scenario))
    data = request("compare", *args, **options)
    return Result(data, lambda: request("compare", *args, format="html", **options))


def calibrate(runs, out_dir=None, **options):
    """Fits the model's efficiency scales to your measured runs: ``runs`` is the path of a RUNS.yaml
    (docs/cli.md), or the document itself (a dict, or YAML text; it then reads no ``log:`` files). The
    JSON holds the overlay's text (``["overlay"]["yaml"]``); with ``out_dir`` it is also written to
    ``out_dir/calibrations.yaml`` for ``catalog=out_dir`` on any command."""
    args = []
    if isinstance(runs, dict) or (isinstance(runs, str) and "\n" in runs and not os.path.exists(runs)):
        options["runs"] = runs
    else:
        args.append(os.fspath(runs))
    data = request("calibrate", *args, **options)
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "calibrations.yaml"), "w") as f:
            f.write(data["overlay"]["yaml"])
    return data


def glossary(**options):
    """The terms the outputs use (ETTR, MTBI, MFU, TPOT, ...): ``["terms"]``, each with its definition, unit
    and where docs/model.md defines it (``gpuecon help terms`` on the command line)."""
    return request("glossary", **options)


# The list in each command's JSON that is its main table.
_TABLES = ("rows", "best", "entries", "points", "sweep", "platforms", "comparisons", "classes", "terms")


def to_dataframe(result, key=None):
    """The main table of a result (``rows``, ``best``, ``entries``, ``points``, ...; or
    ``key``) as a pandas DataFrame when pandas is installed, else as a list of dicts. Nested
    values are flattened with dotted names ("memory.total_gib")."""
    if key is None:
        key = next((k for k in _TABLES if isinstance(result.get(k), list)), None)
        if key is None:
            raise Error(-1, "to_dataframe", 0, 0, "no table in this result (keys: %s)" % ", ".join(result))
    rows = [_flatten(r) if isinstance(r, dict) else {"value": r} for r in result[key]]
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def bands(result):
    """Every 80% band in a result, with the figure it belongs to: a list of dicts ``path``
    (where the figure is, dotted: "at.tpot_ms", "points.2.ttft_ms"), ``value`` (the figure),
    ``low``, ``high``, ``level``, ``basis`` and ``extrapolating``, in the result's order. The
    bands are the JSON's own ("band" next to each predicted figure, docs/cli.md); nothing is
    computed here."""
    out = []

    def walk(node, prefix):
        if isinstance(node, list):
            for i, x in enumerate(node):
                walk(x, "%s%d." % (prefix, i))
        elif isinstance(node, dict):
            for figure, b in (node.get("band") or {}).items():
                out.append(dict(path=prefix + figure, value=node.get(figure), **b))
            for k, v in node.items():
                if k != "band":
                    walk(v, prefix + k + ".")

    walk(result, "")
    return out


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out
