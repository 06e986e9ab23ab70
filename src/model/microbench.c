/*
 * microbench.c — a GEMM microbenchmark as the training model sees it, for `gpuecon calibrate`'s
 * `command: gemm` runs (docs/model.md §3.8): the same roofline and fixed per-kernel time as
 * train_gemm (docs/model.md §3.3), so a measured GEMM TFLOP/s calibrates the very efficiency the
 * training step uses. Key choice: the efficiency row of the system's GPU with the calibration
 * applied, at the sustained clock of the system's power limit, like train_prepare.
 */
#include "model/model.h"

double gpuecon_gemm_tflops(const gpuecon_system *s, gpuecon_precision p, const gpuecon_calibration *c, double m,
                           double n, double k)
{
    if (!s || !s->gpu || !(m > 0) || !(n > 0) || !(k > 0))
        return 0;
    gpuecon_efficiency e = *gpuecon_efficiency_for(s->gpu);
    gpuecon_calibration_apply_eff(c, &e);
    double clock = s->clock_factor > 0 ? s->clock_factor : 1.0;
    double peak = gpuecon_gpu_peak_flops(s->gpu, p) * clock;
    double eff = p == GPUECON_FP8 ? e.gemm_fp8 : p == GPUECON_FP4 ? e.gemm_fp4 : e.gemm_bf16;
    double hbm = s->gpu->hbm_tbps * 1e12 * e.hbm;
    if (!(peak > 0) || !(eff > 0) || !(hbm > 0))
        return 0;
    double ib = p == GPUECON_FP8 ? 1 : p == GPUECON_FP4 ? 0.5 : 2; /* bytes per input element */
    double flops = 2 * m * n * k, bytes = ib * (m * k + k * n) + 2 * m * n;
    double tc = flops / (peak * eff), tb = bytes / hbm;
    double t = (tc > tb ? tc : tb) + e.kernel_s;
    return flops / t / 1e12;
}
