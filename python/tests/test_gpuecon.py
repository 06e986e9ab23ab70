"""Tests of the Python package (run by CTest as python_unittest; standard library unittest).

Expected numbers are hand arithmetic: H100 at 728 tok/s/GPU under the hyperscaler profile's
published owned TCO of $1.42/GPU-h (SemiAnalysis, 20 Aug 2025) is 1.42 / (728 x 3600) x 1e6 =
$0.5418 per 1M tokens; at a rented $2.49/GPU-h it is 2.49 / 2.6208 = $0.9501.
"""
import json
import os
import subprocess
import tempfile
import unittest
import unittest.mock

import gpuecon

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("GPUECON_CLI")


class Commands(unittest.TestCase):
    def test_cost(self):
        r = gpuecon.cost(system="hgx-h100", tokens_per_s=728, pue=1.3)
        self.assertAlmostEqual(r["usd_per_mtok"], 0.5418, delta=0.0005)
        r = gpuecon.cost(system="hgx-h100", tokens_per_s=728, usd_per_gpu_hour=2.49)
        self.assertAlmostEqual(r["usd_per_mtok"], 0.9501, delta=0.0005)
        self.assertEqual(r["tco"]["used_source"]["stage"], "user-input")

    def test_every_command_is_a_function(self):
        names = set(gpuecon.commands())
        self.assertEqual(names, {"catalog", "cost", "reproduce", "comm", "train", "search", "validate",
                                 "reliability", "infer", "finetune", "rl", "compare", "calibrate", "glossary"})
        for n in names:
            self.assertTrue(callable(getattr(gpuecon, n)), n)

    def test_calibrate_round_trip(self):
        # torchtitan's published Llama 3.1 8B eager rows (examples/runs.yaml): the overlay written, then
        # loaded by train, which names it
        with tempfile.TemporaryDirectory() as d:
            r = gpuecon.calibrate(os.path.join(ROOT, "examples", "runs.yaml"), out_dir=d)
            self.assertEqual(len(r["runs"]), 8)  # 6 measurements of training and serving, 2 of fine-tuning
            self.assertAlmostEqual(r["runs"][0]["measured"], 5762, delta=1e-9)
            t = gpuecon.train(model="llama3-8b", system="grand-teton-h100", stack="torchtitan-2024-eager", gpus=8,
                              seq=8192, gbs=16, tp=1, pp=1, cp=1, mbs=2, recompute="selective", zero=3, catalog=d)
            self.assertEqual(t["user_calibration"]["name"], "torchtitan-2024-eager/grand-teton-h100/bf16")
            f = gpuecon.finetune(model="gemma4-31b", system="hgx-a100", method="lora",
                                 efficiency_profile="vessl-gemma4", catalog=d)
            self.assertEqual(f["user_calibration"]["name"], "hf-peft-eager/hgx-a100/bf16")
            self.assertTrue(f["band"]["tokens_per_s"]["calibrated"])
        # the document itself, as a dict: the same fit (one run, one scale: predicted as measured)
        doc = {"runs": [{"command": "gemm", "system": "hgx-h100", "m": 8192, "n": 8192, "k": 8192,
                         "measured": {"tflops": 700}}]}
        r = gpuecon.calibrate(doc)
        self.assertAlmostEqual(r["runs"][0]["predicted_after"], 700, delta=0.7)

    def test_train_and_infer(self):
        r = gpuecon.train(model="gpt3-175b", system="hgx-h100", gpus=128, precision="fp8", seq=2048, gbs=256,
                          tp=4, pp=8, vpp=12, mbs=1)
        self.assertGreater(r["tokens_per_s_per_gpu"], 100)
        self.assertTrue(r["fits"])
        r = gpuecon.infer(model="gemma4-31b", system="hgx-h100", weights="fp8", kv="fp8", sweep=True,
                          grid=[1, 4, 16])
        self.assertEqual(len(r["points"]), 3)
        rows = gpuecon.to_rows(r)
        self.assertEqual(len(rows), 3)

    def test_same_json_as_the_cli(self):
        if not CLI:
            self.skipTest("GPUECON_CLI not set")
        argv = ["comm", "--system", "hgx-h100", "--op", "all-reduce", "--gpus", "8", "--bytes", "1G", "--json"]
        out = subprocess.run([CLI] + argv, capture_output=True, check=True, text=True).stdout
        self.assertEqual(json.loads(out), gpuecon.comm(system="hgx-h100", op="all-reduce", gpus=8, bytes=1e9))

    def test_catalog_and_dataframe(self):
        r = gpuecon.catalog("systems")
        names = [e["name"] for e in r["entries"]]
        self.assertIn("hgx-h100", names)
        rows = gpuecon.to_rows(r)
        self.assertEqual(len(rows), len(names))
        one = gpuecon.catalog("systems", "hgx-h100")
        self.assertEqual(one["entries"][0]["name"], "hgx-h100")

    def test_compare_renders_html(self):
        doc = {"workload": {"kind": "serve", "model": "llama3-70b"},
               "platforms": [{"system": "hgx-h100", "gpus": 8, "tp": 8, "precision": "fp8"}]}
        r = gpuecon.compare(doc, no_sensitivity=True)
        self.assertIsInstance(r, dict)
        self.assertIn("comparisons", r)
        html = r._repr_html_()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        path = os.path.join(ROOT, "tests", "cases", "scenarios", "infeasible.yaml")
        r = gpuecon.compare(path, no_sensitivity=True)
        self.assertFalse(r["comparisons"][0]["platforms"][0]["feasible"])

    def test_hugging_face_config(self):
        path = os.path.join(ROOT, "tests", "cases", "hf", "qwen3-8b.json")
        r = gpuecon.infer(model_file=path, system="hgx-h100")
        self.assertEqual(r["model"], "qwen3-8b")


class Errors(unittest.TestCase):
    def test_bad_value_names_the_argument(self):
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.cost(system="hgx-h100", tokens_per_s=728, pue=0.9)
        e = cm.exception
        self.assertEqual((e.argument, e.where), ("pue", "--pue"))
        self.assertEqual(e.message, "0.9 is out of range; allowed 1 to 3")
        self.assertEqual(str(e), "pue: 0.9 is out of range; allowed 1 to 3")

    def test_unknown_argument(self):
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.cost(sytem="hgx-h100", tokens_per_s=1)
        self.assertEqual(cm.exception.argument, "sytem")
        self.assertIn("did you mean system", cm.exception.message)
        self.assertIsInstance(cm.exception, TypeError)

    def test_missing_and_wrong_type(self):
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.cost(system="hgx-h100")
        self.assertEqual(cm.exception.where, "--tokens-per-s")
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.infer(model="gemma4-31b", system="hgx-h100", gpus=2.5)
        self.assertEqual(cm.exception.argument, "gpus")

    def test_file_errors_carry_the_position(self):
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.catalog("models", model_file=os.path.join(ROOT, "tests", "cases", "bad-model-typo.yaml"))
        self.assertGreater(cm.exception.line, 0)
        self.assertGreater(cm.exception.column, 0)

    def test_bands_on_serving_finetune_and_rl(self):
        # issue 47: each predicted figure carries its 80% band in the result (the JSON's own);
        # what holds for any band: level 0.8, 0 < low < high, a basis, about the figure (its
        # geometric middle within 3x of the figure; a band scaled for the wrong GPUs, 8 here, fails)
        def check(result, paths):
            found = {b["path"]: b for b in gpuecon.bands(result)}
            for p in paths:
                self.assertIn(p, found, "no band for %s (bands: %s)" % (p, sorted(found)))
                b = found[p]
                self.assertEqual(b["level"], 0.8, p)
                self.assertGreater(b["low"], 0, p)
                self.assertLess(b["low"], b["high"], p)
                self.assertTrue(b["basis"], p)
                self.assertIsInstance(b["extrapolating"], list, p)
                mid = (b["low"] * b["high"]) ** 0.5
                self.assertTrue(b["value"] / 3 < mid < 3 * b["value"], "%s: %s" % (p, b))
        r = gpuecon.infer(model="llama3-8b", system="hgx-h100", gpus=8, tp=1, weights="fp8", concurrency=256)
        check(r, ["output_tokens_per_s", "tpot_ms", "ttft_ms", "at.output_tokens_per_s_per_gpu",
                  "at.output_tokens_per_s", "at.tpot_ms", "at.ttft_ms"])
        r = gpuecon.infer(model="llama3-8b", system="hgx-h100", gpus=8, tp=1, weights="fp8", sweep=True,
                          grid=[1, 64])
        check(r, ["points.0.tpot_ms", "points.1.output_tokens_per_s_per_gpu"])
        first = gpuecon.to_rows(r)[0]  # the bands flatten with the rest of a point
        self.assertLess(first["band.tpot_ms.low"], first["band.tpot_ms.high"])
        r = gpuecon.finetune(model="gemma4-31b", system="hgx-h100", method="lora")
        check(r, ["tokens_per_s", "tokens_per_s_per_gpu"])
        r = gpuecon.rl(model="llama3-8b", system="hgx-h100", gpus=8, prompts=64, samples=8, prompt_len=512,
                       response_len=1024)
        check(r, ["step_time_s"])

    def test_infeasible_keeps_the_report(self):
        with self.assertRaises(gpuecon.Error) as cm:
            gpuecon.infer(model="llama3-405b", system="hgx-h100", gpus=1, tp=1)
        self.assertEqual(cm.exception.code, -6)
        self.assertFalse(cm.exception.result["fits"])


class Keywords(unittest.TestCase):
    def test_format_flags_and_help(self):
        """csv=True is format="csv" (it raised JSONDecodeError); help=True returns the help text."""
        text = gpuecon.cost(system="hgx-h100", tokens_per_s=728, csv=True)
        self.assertTrue(text.startswith("quantity,value,unit"))
        self.assertIn("usage: gpuecon cost", gpuecon.cost(help=True))

    def test_values_json_cannot_carry(self):
        """NaN, infinity and integers past 64 bits name their keyword (argument was None)."""
        for bad in (float("nan"), float("inf"), -float("inf"), 10 ** 30, [1, float("nan")]):
            with self.assertRaises(gpuecon.Error) as cm:
                gpuecon.cost(system="hgx-h100", tokens_per_s=bad)
            self.assertEqual(cm.exception.argument, "tokens_per_s")


class Interrupt(unittest.TestCase):
    def test_ctrl_c_stops_a_long_call(self):
        """SIGINT during a long library call raises KeyboardInterrupt within seconds (the Monte
        Carlo of two million trials runs about 30 s): the call sees it at its next progress
        report. It was seen only when the C call returned, 29-58 s later."""
        import signal
        import threading
        import time
        t0 = time.monotonic()
        timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                gpuecon.reliability(system="hgx-h100", active_gpus=16384, trials=2000000, max_work=1e5)
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - t0, 15)
        # the handler is the default one again, and the next call runs
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        self.assertAlmostEqual(gpuecon.cost(system="hgx-h100", tokens_per_s=728, pue=1.3)["usd_per_mtok"], 0.5418,
                               delta=0.0005)


def _load(path, name):
    """A module of the source tree by path (the build backend, the signature generator)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Signatures(unittest.TestCase):
    """The command functions' signatures come from the library's option tables (gen_commands.py)."""

    def test_committed_signatures_match_the_library(self):
        gen = _load(os.path.join(ROOT, "python", "_build", "gen_commands.py"), "gen_commands_for_test")
        core = gen.load_core(gpuecon.library_path)  # the library under test (the bundled copy, once installed)
        with open(os.path.join(ROOT, "python", "gpuecon", "_commands.py")) as f:
            committed = f.read()
        self.assertEqual(gen.render(core), committed,
                         "python/gpuecon/_commands.py is out of date: run python3 python/_build/gen_commands.py")

        # and the comparison sees a change: an option added to train's table appears in the text
        class Grown:
            library_path, commands = core.library_path, staticmethod(core.commands)

            @staticmethod
            def command_options(cmd):
                t = core.command_options(cmd)
                if cmd == "train":
                    t["options"].append({"name": "new_knob", "option": "--new-knob", "kind": "integer",
                                         "help": "a new option", "minimum": 1.0, "maximum": 8.0})
                return t
        grown = gen.render(Grown)
        self.assertNotEqual(grown, committed)
        self.assertIn("new_knob: Optional[int] = None", grown)
        self.assertIn("new_knob : int, 1 to 8", grown)

    def test_every_option_is_a_parameter(self):
        import inspect
        globals_ = ["catalog", "model_file", "max_work", "format", "help", "progress"]
        positional = {"catalog": ["kind", "name"]}
        for cmd in gpuecon.commands():
            names = [o["name"] for o in gpuecon.command_options(cmd)["options"]]
            params = inspect.signature(getattr(gpuecon, cmd)).parameters
            self.assertEqual(sorted(params), sorted(names + positional.get(cmd, []) + globals_), cmd)

    def test_train_signature(self):
        """train(model: str, system: str, gpus: Optional[int] = None, *, seq: Optional[int] = None, ...),
        each option typed by its kind (precision: the table's three choices), its help in the docstring."""
        import inspect
        import pydoc
        from typing import Literal, Optional
        sig = inspect.signature(gpuecon.train)
        p = sig.parameters
        self.assertEqual(list(p)[:3], ["model", "system", "gpus"])
        self.assertEqual((p["model"].annotation, p["model"].default), (str, inspect.Parameter.empty))
        self.assertEqual(p["model"].kind, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self.assertEqual((p["gpus"].annotation, p["gpus"].default), (Optional[int], None))
        self.assertEqual(p["seq"].kind, inspect.Parameter.KEYWORD_ONLY)
        self.assertEqual((p["seq"].annotation, p["seq"].default), (Optional[int], None))
        self.assertEqual(p["pue"].annotation, Optional[float])
        self.assertEqual(p["dropout"].annotation, bool)
        self.assertIs(p["dropout"].default, False)
        self.assertEqual(p["precision"].annotation, Optional[Literal["bf16", "fp8", "fp4"]])
        doc = pydoc.render_doc(gpuecon.train, renderer=pydoc.plaintext)
        self.assertIn("train(model: str, system: str, gpus: Optional[int] = None, *", doc)
        # the table's help, range and units: --seq is 1 to 2^24 tokens, --power-limit in watts
        self.assertIn("seq : int, 1 to 16777216", doc)
        self.assertIn("Tokens per sequence. Command line: ``--seq``.", doc)
        self.assertIn("GPU power limit in watts", doc)
        self.assertIn("precision : str, bf16 | fp8 | fp4", doc)

    def test_positional_call_is_the_keyword_call(self):
        a = gpuecon.train("gpt3-175b", "hgx-h100", 128, seq=2048, gbs=256, tp=4, pp=8, vpp=12, mbs=1)
        b = gpuecon.train(model="gpt3-175b", system="hgx-h100", gpus=128, seq=2048, gbs=256, tp=4, pp=8, vpp=12,
                          mbs=1)
        a.pop("elapsed_s", None), b.pop("elapsed_s", None)
        self.assertEqual(a, b)

    def test_python_checks_the_call(self):
        with self.assertRaises(TypeError):  # a required argument left out: Python's own error
            gpuecon.train(system="hgx-h100", gpus=8)
        with self.assertRaises(TypeError):  # an option given by position past the leading ones
            gpuecon.cost("hgx-h100", "hyperscaler")
        with self.assertRaises(gpuecon.UnknownArgument) as cm:
            gpuecon.train("llama3-8b", "hgx-h100", 8, seqq=8192)
        self.assertEqual(cm.exception.argument, "seqq")
        self.assertIn("did you mean seq", str(cm.exception))


class Results(unittest.TestCase):
    """Results are objects: attributes, to_dict, to_rows and to_dataframe (one row for a single result)."""

    def test_attributes_and_to_dict(self):
        r = gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3)
        self.assertIsInstance(r, gpuecon.Result)
        self.assertAlmostEqual(r.usd_per_mtok, 0.5418, delta=0.0005)  # 1.42 / (728 x 3600) x 1e6
        self.assertEqual(r.usd_per_mtok, r["usd_per_mtok"])
        self.assertEqual(r.tco.used_usd_per_gpu_hour, 1.42)  # the hyperscaler profile's published TCO
        self.assertEqual(r.tco.used_usd_per_gpu_hour, r["tco"]["used_usd_per_gpu_hour"])
        with self.assertRaises(AttributeError) as cm:
            r.usd_per_mtokk
        self.assertIn("usd_per_mtok", str(cm.exception))  # the message lists the fields
        d = r.to_dict()
        self.assertIs(type(d), dict)
        self.assertIs(type(d["tco"]), dict)
        self.assertEqual(d, r)
        self.assertIn("usd_per_mtok", dir(r))

    def test_one_row(self):
        r = gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3)
        rows = r.to_rows()
        self.assertEqual(len(rows), 1)
        self.assertAlmostEqual(rows[0]["usd_per_mtok"], 0.5418, delta=0.0005)
        self.assertEqual(rows[0]["tco.used_usd_per_gpu_hour"], 1.42)
        try:
            import pandas  # noqa: F401  (python3-pandas, when installed)
        except ImportError:
            with self.assertRaises(ImportError) as cm:
                r.to_dataframe()
            self.assertIn("python3-pandas", str(cm.exception))
            return
        df = r.to_dataframe()
        self.assertEqual(df.shape[0], 1)
        self.assertAlmostEqual(df["usd_per_mtok"][0], 0.5418, delta=0.0005)

    def test_no_pandas_is_a_clear_error(self):
        import sys
        from unittest import mock
        with mock.patch.dict(sys.modules, {"pandas": None}):  # import pandas raises ImportError
            with self.assertRaises(ImportError) as cm:
                gpuecon.cost("hgx-h100", tokens_per_s=728).to_dataframe()
        self.assertIn("to_dataframe needs pandas", str(cm.exception))
        self.assertIn("to_rows", str(cm.exception))

    def test_dataframe_is_one_row_of_the_flat_fields(self):
        """What to_dataframe hands pandas (a stand-in module here, so that this runs without pandas):
        a single result is one row of its flattened fields; a table result one row per entry."""
        import sys
        import types
        from unittest import mock
        fake = types.ModuleType("pandas")
        fake.DataFrame = lambda rows: ("frame", rows)
        r = gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3)
        with mock.patch.dict(sys.modules, {"pandas": fake}):
            kind, rows = r.to_dataframe()
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0]["tco.used_usd_per_gpu_hour"], 1.42)
            kind, rows = gpuecon.catalog("systems").to_dataframe()
            self.assertIn("hgx-h100", [row["name"] for row in rows])

    def test_copy_and_pickle(self):
        import copy
        import pickle
        r = gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3)
        for c in (copy.deepcopy(r), pickle.loads(pickle.dumps(r))):
            self.assertEqual(c, r)
            self.assertEqual(c.tco.used_usd_per_gpu_hour, 1.42)

    def test_table_results_and_a_bad_key(self):
        r = gpuecon.infer("gemma4-31b", "hgx-h100", weights="fp8", kv="fp8", sweep=True, grid=[1, 4, 16])
        self.assertEqual([row["concurrency"] for row in r.to_rows()], [1, 4, 16])
        self.assertEqual(r.points[1].concurrency, 4)
        with self.assertRaises(gpuecon.Error) as cm:
            r.to_rows("nope")
        self.assertIn("points", str(cm.exception))


class Verdict(unittest.TestCase):
    def test_structured_verdict(self):
        """compare's verdict as fields beside the text. Hand check of the flips: a platform's cost per
        token is its TCO over its throughput, so the runner-up (H100) becomes cheapest when its TCO
        falls to TCO x cost_ratio, or its throughput rises to throughput / cost_ratio; and the
        cheapest, runner-up and ratio are the two lowest ranked costs of the platforms."""
        doc = {"workload": {"kind": "serve", "model": "llama3-70b"},
               "platforms": [{"system": "hgx-h100", "gpus": 8, "tp": 8, "precision": "fp8"},
                             {"system": "hgx-b200", "gpus": 8, "tp": 8, "precision": "fp8"}]}
        r = gpuecon.compare(doc)
        self.assertIsInstance(r.verdict, str)
        c = r.comparisons[0]
        v = c.verdict_fields
        self.assertEqual(r.verdicts[0].comparison, c.name)
        self.assertEqual({k: r.verdicts[0][k] for k in v}, v)
        ranked = sorted(c.platforms, key=lambda p: p.rank_usd_per_mtok)
        self.assertEqual((v.cheapest, v.runner_up), (ranked[0].name, ranked[1].name))
        self.assertEqual((v.cheapest, v.runner_up), ("hgx-b200", "hgx-h100"))
        self.assertAlmostEqual(v.cost_ratio, ranked[0].rank_usd_per_mtok / ranked[1].rank_usd_per_mtok, delta=1e-6)
        flips = {(f.platform, f.input): f for f in v.flips}
        h100 = ranked[1]
        f = flips[("hgx-h100", "tco_usd_per_gpu_hour")]
        self.assertEqual(f.rival, "hgx-b200")
        self.assertAlmostEqual(f.current, h100.tco_usd_per_gpu_hour, delta=1e-6)
        self.assertAlmostEqual(f.at, f.current * v.cost_ratio, delta=1e-4 * f.current)
        f = flips[("hgx-h100", "tokens_per_s_per_gpu")]
        self.assertAlmostEqual(f.at, f.current / v.cost_ratio, delta=1e-4 * f.current)
        # only the breakeven entries found are flips
        found = [b for b in c.breakeven if b.found]
        self.assertEqual(len(v.flips), len(found))

    def test_one_platform_has_no_runner_up(self):
        doc = {"workload": {"kind": "serve", "model": "llama3-70b"},
               "platforms": [{"system": "hgx-h100", "gpus": 8, "tp": 8, "precision": "fp8"}]}
        v = gpuecon.compare(doc, no_sensitivity=True).comparisons[0].verdict_fields
        self.assertEqual((v.cheapest, v.runner_up, v.cost_ratio, v.flips), ("hgx-h100", None, None, []))


class Progress(unittest.TestCase):
    def test_progress_reports_to_the_end(self):
        calls = []
        gpuecon.search("llama3-70b", "hgx-h100", 512, seq=8192, gbs=512, progress=lambda d, t: calls.append((d, t)))
        # reports in each computation's own units (a search: configurations): done within total, and
        # not going back while the total stays the same; the last, the search's, past its first item
        self.assertGreater(len(calls), 1)
        self.assertTrue(all(0 <= d <= t for d, t in calls), calls)
        self.assertTrue(all(b[0] >= a[0] for a, b in zip(calls, calls[1:]) if a[1] == b[1]), calls)
        self.assertGreater(calls[-1][0], 1)

    def test_progress_cancels(self):
        """True from the callback stops a two-million-trial Monte Carlo (about 30 s) at its first report."""
        import time
        t0 = time.monotonic()
        with self.assertRaises(gpuecon.Canceled) as cm:
            gpuecon.reliability("hgx-h100", 16384, trials=2000000, max_work=1e5, progress=lambda d, t: True)
        self.assertEqual(cm.exception.code, -7)
        self.assertLess(time.monotonic() - t0, 10)

    def test_an_exception_in_progress_stops_the_call_and_is_raised(self):
        class Stop(Exception):
            pass

        def progress(done, total):
            raise Stop(done)
        with self.assertRaises(Stop):
            gpuecon.reliability("hgx-h100", 16384, trials=2000000, max_work=1e5, progress=progress)
        with self.assertRaises(TypeError):
            gpuecon.cost("hgx-h100", tokens_per_s=728, progress=5)
        self.assertAlmostEqual(gpuecon.cost("hgx-h100", tokens_per_s=728, pue=1.3).usd_per_mtok, 0.5418, delta=0.0005)


class Wheel(unittest.TestCase):
    """The build backend: a platform tag for a bundled library, a clear failure when there is none."""

    def backend(self):
        return _load(os.path.join(ROOT, "python", "_build", "gpuecon_build.py"), "gpuecon_build_for_test")

    def test_platform_tag(self):
        import platform
        import zipfile
        b = self.backend()
        lib = os.environ.get("GPUECON_LIBRARY") or gpuecon.library_path
        with tempfile.TemporaryDirectory() as d, unittest.mock.patch.dict(os.environ, {"GPUECON_LIBRARY": lib}):
            name = b.build_wheel(d)
            self.assertEqual(name, "gpuecon-0.2.0-py3-none-linux_%s.whl" % platform.machine())
            with zipfile.ZipFile(os.path.join(d, name)) as z:
                wheel = z.read("gpuecon-0.2.0.dist-info/WHEEL").decode()
                self.assertIn("gpuecon/libgpuecon.so.1", z.namelist())
                self.assertIn("gpuecon/py.typed", z.namelist())  # PEP 561: type checkers use the signatures
        self.assertIn("Root-Is-Purelib: false", wheel)
        self.assertIn("Tag: py3-none-linux_%s" % platform.machine(), wheel)

    def test_no_library_is_a_clear_failure(self):
        """Outside the source tree, with no GPUECON_LIBRARY and no installed library, building fails
        before anything is installed, saying what to do."""
        import shutil
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(ROOT, "python"), os.path.join(d, "python"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            b = _load(os.path.join(d, "python", "_build", "gpuecon_build.py"), "gpuecon_build_copy")
            env = {k: v for k, v in os.environ.items() if k != "GPUECON_LIBRARY"}
            with unittest.mock.patch.dict(os.environ, env, clear=True), \
                    unittest.mock.patch("ctypes.util.find_library", return_value=None):
                with self.assertRaises(b.BuildError) as cm:
                    b.build_wheel(d)
            self.assertIn("make install", str(cm.exception))
            self.assertIn("GPUECON_LIBRARY", str(cm.exception))
            self.assertEqual([f for f in os.listdir(d) if f.endswith(".whl")], [])
            with unittest.mock.patch.dict(os.environ, {"GPUECON_LIBRARY": os.path.join(d, "nope.so")}):
                with self.assertRaises(b.BuildError) as cm:
                    b.build_wheel(d)
            self.assertIn("nope.so, which is not a file", str(cm.exception))

    def test_in_tree_without_a_library_builds_it_or_says_why(self):
        """In a source tree with no build/libgpuecon.so.1 the backend builds it as `make` does; with
        no cmake, or a build that fails, it stops with what to do (and the build's own output)."""
        import shutil
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, "src")
            os.makedirs(os.path.join(tree, "include"))
            for f in ("CMakeLists.txt", os.path.join("include", "gpuecon.h")):
                open(os.path.join(tree, f), "w").close()
            shutil.copytree(os.path.join(ROOT, "python"), os.path.join(tree, "python"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            b = _load(os.path.join(tree, "python", "_build", "gpuecon_build.py"), "gpuecon_build_tree")
            env = {k: v for k, v in os.environ.items() if k != "GPUECON_LIBRARY"}
            bindir = os.path.join(d, "bin")
            os.makedirs(bindir)
            env["PATH"] = bindir  # no cmake on it
            with unittest.mock.patch.dict(os.environ, env, clear=True):
                with self.assertRaises(b.BuildError) as cm:
                    b.build_wheel(d)
                self.assertIn("cmake is not installed", str(cm.exception))
                with open(os.path.join(bindir, "cmake"), "w") as f:  # a cmake whose configure step fails
                    f.write("#!/bin/sh\necho 'CMake Error: libfyaml not found'\nexit 1\n")
                os.chmod(os.path.join(bindir, "cmake"), 0o755)
                with self.assertRaises(b.BuildError) as cm:
                    b.build_wheel(d)
            self.assertIn("building libgpuecon failed", str(cm.exception))
            self.assertIn("CMake Error: libfyaml not found", str(cm.exception))
            self.assertEqual([f for f in os.listdir(d) if f.endswith(".whl")], [])


if __name__ == "__main__":
    unittest.main()
