#!/usr/bin/env python3
"""Sweep the catalog's platforms for one training job with the gpuecon Python package and
print them cheapest first; with --plot, also chart them when matplotlib is installed (without
it the table is all there is).

    pip install ./python        # or: PYTHONPATH=python GPUECON_LIBRARY=build/libgpuecon.so.0
    python3 examples/sweep_platforms.py [--model-file path/to/config.json] [--plot sweep.png]

CTest python_example runs it (the table) so that it keeps working with the package.
"""
import argparse

import gpuecon


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama3-70b")
    ap.add_argument("--model-file", help="a Hugging Face config.json or a model file")
    ap.add_argument("--usd-per-gpu-hour", type=float, help="your rental price (default: each profile's TCO)")
    ap.add_argument("--plot", help="write a chart here (needs matplotlib)")
    a = ap.parse_args()
    model = {"model_file": a.model_file} if a.model_file else {"model": a.model}
    price = {"usd_per_gpu_hour": a.usd_per_gpu_hour} if a.usd_per_gpu_hour else {}
    systems = [e["name"] for e in gpuecon.catalog("systems")["entries"]]
    rows = []
    for s in systems:
        gpus = gpuecon.catalog("systems", s)["entries"][0]["fields"]["scaleup_gpus"]["value"]
        try:
            t = gpuecon.train(system=s, gpus=max(64, gpus), seq=8192, gbs=512, tokens=1e12, **model, **price)
        except gpuecon.Error as e:
            print("%-14s train: %s" % (s, e))
            continue
        # where the searched layout stands against the calibration set (docs/model.md 3.5): above
        # the best MFU ever published for the GPU generation and precision, and the axes on which
        # no calibration row resembles it
        cal = t.get("calibration", {})
        flag = ("MFU>cap " if cal.get("above_mfu_cap") else "") + ",".join(cal.get("axes", {}))
        rows.append((s, t["tokens_per_s_per_gpu"], t["mfu"], t["cost"]["usd_per_mtok"], t["cost"]["days"],
                     flag or "-"))
    print("%-14s %12s %6s %10s %8s  %s" % ("system", "tok/s/GPU", "MFU", "$/Mtok", "days/1T", "outside calibration"))
    for s, tok, mfu, usd, days, flag in sorted(rows, key=lambda r: r[3]):
        print("%-14s %12.0f %6.3f %10.4f %8.1f  %s" % (s, tok, mfu, usd, days, flag))
    if a.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no chart")
            return
        fig, ax = plt.subplots(figsize=(8, 4.5))
        ax.scatter([r[1] for r in rows], [r[3] for r in rows])
        for s, tok, _, usd, _, _ in rows:
            ax.annotate(s, (tok, usd), fontsize=8)
        ax.set_xlabel("training tokens/s per GPU")
        ax.set_ylabel("$ per 1M tokens")
        ax.set_title("%s: platforms (gpuecon)" % (a.model_file or a.model))
        fig.savefig(a.plot, dpi=120, bbox_inches="tight")
        print("wrote", a.plot)


if __name__ == "__main__":
    main()
