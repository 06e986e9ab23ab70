"""The core of the gpuecon package: the library loaded with ctypes, requests, errors, results.

The command functions (train, infer, ...) are in _commands.py, generated from the library's option
tables by _build/gen_commands.py; __init__.py exports both.
"""
import ctypes
import ctypes.util
import difflib
import functools
import inspect
import json
import os
import signal
import threading
from typing import Any, Callable, Union

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


class Canceled(Error):
    """A call stopped by its ``progress`` callback (it returned True): ``code`` -7
    (GPUECON_E_CANCELED). Ctrl-C raises KeyboardInterrupt instead."""


class UnknownArgument(Error, TypeError):
    """A keyword argument that is not one of the command's options (also a TypeError, as Python
    raises for a function's unknown keyword); ``message`` names the nearest options."""


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


class _Call:
    """One library call's progress callback and what it did: the callable, the exception it raised
    (re-raised once the call has returned) and whether it asked to cancel."""
    __slots__ = ("progress", "exception", "canceled")

    def __init__(self, progress):
        self.progress, self.exception, self.canceled = progress, None, False


_calls = {}  # progress_ud (a number) -> _Call, for the calls running now
_calls_lock = threading.Lock()
_next_call = [0]


def _on_progress(ud, done, total):
    """The library's progress report (gpuecon_ctx_config.progress): non-zero cancels the computation."""
    if _Interrupt.seen:
        return 1
    call = _calls.get(ud or 0)
    if call is None or call.progress is None:
        return 0
    try:
        if call.progress(done, total):
            call.canceled = True
            return 1
    except BaseException as e:  # raised again once the library has returned
        call.exception = e
        return 1
    return 0


_progress_cb = _PROGRESS_FN(_on_progress)  # kept alive for the library's calls


def _new_ctx(ud):
    cfg = _Config()
    cfg.progress = _progress_cb
    cfg.progress_ud = ud
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


def _raw(command, options, args, fmt, progress=None):
    opts = {}
    for k, v in options.items():
        if v is None or v is False:
            continue
        if isinstance(v, tuple):
            v = list(v)
        if isinstance(v, os.PathLike):
            v = os.fspath(v)
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
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(done, total), not %r" % (progress,))
    with _calls_lock:
        _next_call[0] += 1
        ud = _next_call[0]
        call = _calls[ud] = _Call(progress)
    ctx = _new_ctx(ud)  # the defaults, the seed included (GPUECON_DEFAULT_SEED), Ctrl-C and progress
    if not ctx:
        del _calls[ud]
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
        with _calls_lock:
            del _calls[ud]
    if _Interrupt.seen:
        _Interrupt.seen = False
        raise KeyboardInterrupt
    if call.exception is not None:
        raise call.exception
    if call.canceled and status == _CANCELED:
        raise Canceled(status, "progress", 0, 0, "%s (the progress callback asked to stop)"
                       % (err.message.decode(errors="replace") or "canceled"))
    return status, body, err


_CANCELED = -7  # GPUECON_E_CANCELED


def request(command, *args, format="json", progress=None, **options):
    """Runs any command: ``request("train", model=..., gpus=512)``. Returns the parsed JSON
    as a :class:`Result`, or the text for ``format="table"``, ``"csv"`` or ``"html"``. An
    infeasible request (the model does not fit) raises :class:`Error` with ``code`` -6 and the
    report in ``error.result``. ``progress``: a callable ``progress(done, total)`` the library
    calls as a long computation advances (a Monte Carlo's trials, a simulation's requests, a
    search's configurations; in the computation's own units); returning True cancels the call,
    which then raises :class:`Canceled`."""
    # csv=True / json=True / table=True are the command line's spelling of format
    for flag in ("csv", "json", "table", "html"):
        if options.get(flag) is True:
            options = dict(options)
            del options[flag]
            format = flag
    status, body, err = _raw(command, options, args, format, progress)
    if options.get("help") is True:  # the command's help text, as `gpuecon COMMAND --help` prints it
        return body
    result = json.loads(body, object_hook=Result) if body is not None and format == "json" else body
    if status != 0:
        where = err.where.decode(errors="replace")
        arg = _option_name(where)
        e = Error(status, where, err.line, err.column, err.message.decode(errors="replace"),
                  arg if arg in options or arg == "help" else None)
        e.result = result
        raise e
    return result


# The list in each command's JSON that is its main table.
_TABLES = ("rows", "best", "entries", "points", "sweep", "platforms", "comparisons", "classes", "terms")


def _table_key(result, key):
    if key is None:
        key = next((k for k in _TABLES if isinstance(result.get(k), list)), None)
    elif not isinstance(result.get(key), list):
        raise Error(-1, "to_dataframe", 0, 0, "%r is not a table of this result (tables: %s)"
                    % (key, ", ".join(k for k, v in result.items() if isinstance(v, list)) or "none"))
    return key


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("gpuecon: to_dataframe needs pandas, which is not installed (Debian: apt install "
                          "python3-pandas; or pip install pandas). to_rows gives the same rows as a list of "
                          "dicts without it.") from None
    return pandas


def to_rows(result, key=None):
    """The main table of a result (``rows``, ``best``, ``entries``, ``points``, ...; or ``key``)
    as a list of flat dicts, nested values with dotted names ("memory.total_gib"); a result
    without a table is one row, itself flattened. Needs nothing beyond the standard library."""
    key = _table_key(result, key)
    if key is None:
        return [_flatten(result)]
    return [_flatten(r) if isinstance(r, dict) else {"value": r} for r in result[key]]


def to_dataframe(result, key=None):
    """:func:`to_rows` as a pandas DataFrame: the main table, one row per entry, or a result
    without a table (train, cost, comm, ...) as one row. Raises ImportError naming the package
    when pandas is not installed."""
    pandas = _pandas()
    return pandas.DataFrame(to_rows(result, key))


class Result(dict):
    """A command's answer: the JSON's dict, its fields also attributes (``r.tokens_per_s_per_gpu``,
    ``r.memory.total_gib``; a field named like a dict method, such as ``items``, is read as
    ``r["items"]``). :meth:`to_dict` gives plain dicts and lists, :meth:`to_dataframe` and
    :meth:`to_rows` a table."""
    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("this result has no field %r (its fields: %s)" % (name, ", ".join(map(str, self))))\
                from None

    def __dir__(self):
        return sorted(set(dir(type(self))) | {k for k in self if isinstance(k, str) and k.isidentifier()})

    def to_dict(self):
        """The result as plain dicts and lists (what ``json.loads`` of the JSON gives)."""
        def plain(v):
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list):
                return [plain(x) for x in v]
            return v
        return plain(self)

    def to_rows(self, key=None):
        """:func:`to_rows` of this result."""
        return to_rows(self, key)

    def to_dataframe(self, key=None):
        """:func:`to_dataframe` of this result: its main table, or itself as one row."""
        return to_dataframe(self, key)


class CompareResult(Result):
    """A compare result: a :class:`Result` that renders its HTML report in Jupyter."""
    __slots__ = ("_html_request",)

    def __init__(self, data, html_request):
        super().__init__(data)
        self._html_request = html_request

    def _repr_html_(self):
        return self._html_request()


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


# Types of the generated signatures (_commands.py).
PathLike = Union[str, os.PathLike]
Progress = Callable[[float, float], Any]

# Commands whose leading parameters are positional arguments of the command line, not options.
_POSITIONAL = {"catalog": ("kind", "name")}
# The command line's spelling of format, still accepted as keywords: csv=True is format="csv".
_FORMAT_FLAGS = ("csv", "json", "table", "html")


def _command(fn):
    """A generated command function, checked as Python checks a call, with gpuecon's words: an unknown
    keyword raises UnknownArgument (a TypeError) naming the nearest options; csv=True (json, table,
    html) is format="csv"; model may be left out when model_file is given. inspect.signature and
    help() show fn's own signature."""
    sig = inspect.signature(fn)
    params = list(sig.parameters)
    lead = [n for n, p in sig.parameters.items() if p.kind == p.POSITIONAL_OR_KEYWORD]

    @functools.wraps(fn)
    def call(*args, **kwargs):
        for flag in _FORMAT_FLAGS:
            if kwargs.get(flag) is True and flag not in sig.parameters:
                del kwargs[flag]
                kwargs["format"] = flag
        for k in kwargs:
            if k not in sig.parameters:
                near = difflib.get_close_matches(k, params, 3, 0.6)
                option = "--" + k.replace("_", "-")
                raise UnknownArgument(-1, option, 0, 0, "%s() has no option %s%s" % (
                    fn.__name__, k, "; did you mean %s?" % " or ".join(near) if near else
                    " (help(gpuecon.%s) lists them)" % fn.__name__), k)
        if kwargs.get("help") is True:  # the help text needs none of the required arguments
            return request(fn.__name__, help=True)
        if "model" in lead and kwargs.get("model_file") is not None and "model" not in kwargs \
                and len(args) <= lead.index("model"):
            kwargs["model"] = None
        return fn(*args, **kwargs)
    return call


def _run(command, params):
    """A generated function's call: its parameters (locals()) as a request."""
    params = dict(params)
    fmt, progress = params.pop("format"), params.pop("progress")
    if command == "compare":
        return _compare(params, fmt, progress)
    if command == "calibrate":
        return _calibrate(params, fmt, progress)
    args = [params.pop(k) for k in _POSITIONAL.get(command, ())]
    while args and args[-1] is None:
        args.pop()
    if None in args:
        raise TypeError("%s(): give kind as well as name" % command)
    return request(command, *args, format=fmt, progress=progress, **params)


def _compare(options, fmt, progress):
    """compare: scenario is a path, a dict (the document) or YAML text; the JSON result renders its
    HTML report in Jupyter."""
    args, scenario = [], options.pop("scenario")
    if isinstance(scenario, dict):
        options["scenario"] = scenario
    elif isinstance(scenario, str) and ("\n" in scenario or not os.path.exists(scenario)) and ":" in scenario:
        options["scenario"] = scenario
    elif scenario is not None:
        args.append(os.fspath(scenario))
    data = request("compare", *args, format=fmt, progress=progress, **options)
    if fmt != "json" or options.get("help"):
        return data
    return CompareResult(data, lambda: request("compare", *args, format="html", **options))


def _calibrate(options, fmt, progress):
    """calibrate: runs is a path or the document (a dict, or YAML text); out_dir gets the overlay as
    calibrations.yaml, written here (the library writes no file)."""
    args, runs, out_dir = [], options.pop("runs"), options.pop("out_dir")
    if isinstance(runs, dict) or (isinstance(runs, str) and "\n" in runs and not os.path.exists(runs)):
        options["runs"] = runs
    elif runs is not None:
        args.append(os.fspath(runs))
    data = request("calibrate", *args, format=fmt, progress=progress, **options)
    if out_dir is not None and fmt == "json" and not options.get("help"):
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "calibrations.yaml"), "w") as f:
            f.write(data["overlay"]["yaml"])
    return data
