"""gpuecon for Python: every command of the gpuecon library as a typed function.

    >>> import gpuecon
    >>> r = gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3)
    >>> round(r.usd_per_mtok, 3)
    0.542

Each command is a function whose keyword arguments are the command line's options with dashes as
underscores (``--tokens-per-s`` is ``tokens_per_s``); flags are ``True``; lists are Python lists.
The signatures and docstrings (``help(gpuecon.train)``) are generated from the library's option
tables (python/_build/gen_commands.py), with each option's help, range and choices. Each function
returns a :class:`Result`: the dict that ``gpuecon <command> --json`` prints, its fields also
attributes, with ``to_dict()``, ``to_rows()`` and ``to_dataframe()`` (pandas). Errors raise
:class:`Error` with ``where``, ``line``, ``column``, ``message`` and, for a bad keyword argument,
``argument``.

Long calls take ``progress=callable(done, total)``; returning True cancels (:class:`Canceled`).
Ctrl-C during a long call (a Monte Carlo, a simulation, a search) raises KeyboardInterrupt within
seconds: the library sees it at its next progress report and stops.

The shared library is found as: ``$GPUECON_LIBRARY``; the copy bundled by ``pip install``; an
installed ``libgpuecon.so.1`` (``make install``). Standard library only; ``to_dataframe`` needs
pandas.
"""
from ._core import (Canceled, CompareResult, Error, Result, UnknownArgument, __version__, bands, command_options,
                    commands, library_path, request, to_dataframe, to_rows)
from ._commands import (calibrate, catalog, comm, compare, cost, finetune, glossary, infer, reliability, reproduce,
                        rl, search, train, validate)

__all__ = ["Error", "Canceled", "UnknownArgument", "Result", "CompareResult", "request", "to_dataframe",
           "to_rows", "bands", "commands", "command_options", "library_path", "catalog", "cost", "reproduce",
           "comm", "train", "search", "validate", "reliability", "infer", "finetune", "rl", "compare", "calibrate",
           "glossary"]
