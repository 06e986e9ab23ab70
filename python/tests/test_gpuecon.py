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
            self.assertEqual(len(r["runs"]), 6)
            self.assertAlmostEqual(r["runs"][0]["measured"], 5762, delta=1e-9)
            t = gpuecon.train(model="llama3-8b", system="grand-teton-h100", stack="torchtitan-2024-eager", gpus=8,
                              seq=8192, gbs=16, tp=1, pp=1, cp=1, mbs=2, recompute="selective", zero=3, catalog=d)
            self.assertEqual(t["user_calibration"]["name"], "torchtitan-2024-eager/grand-teton-h100/bf16")
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
        rows = gpuecon.to_dataframe(r)
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
        rows = gpuecon.to_dataframe(r)
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
        self.assertIn("did you mean --system", cm.exception.message)

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
        rows = gpuecon.to_dataframe(r)  # the bands flatten with the rest of a point
        first = rows[0] if isinstance(rows, list) else rows.iloc[0].to_dict()
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


if __name__ == "__main__":
    unittest.main()
