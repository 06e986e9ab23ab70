/*
 * bench_band.c — the cost of an 80% band (src/analysis/band.c, docs/model.md §7.6): building the set
 * from the compiled rows (once per command) and one band, for a Hopper BF16 dense training case (its
 * group's held-out rows) and an A100 Megatron case (whose group's fitted floor binds), with and without
 * a user calibration. Medians of 21 repeats.
 */
#include "bench.h"
#include "analysis/analysis.h"
#include "analysis/band.h"

#include <stdio.h>

#define REPS 21

static double time_bands(const band_set *s, const band_case *c, int iters)
{
    gpuecon_band b;
    double t0 = bench_now_s(), sink = 0;
    for (int i = 0; i < iters; i++) {
        band_of(s, c, 1000 + i % 7, &b);
        sink += b.low;
    }
    double dt = bench_now_s() - t0;
    if (sink < 0)
        printf("?");
    return dt / iters;
}

int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    if (!ctx)
        return 1;
    double build[REPS], hop[REPS], amp[REPS], cal[REPS];
    band_set *s = NULL;
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now_s();
        for (int i = 0; i < 100; i++) {
            band_set *t = NULL;
            if (band_set_build(ctx, NULL, &t, NULL))
                return 1;
            band_set_free(t);
        }
        build[r] = (bench_now_s() - t0) / 100;
    }
    if (band_set_build(ctx, NULL, &s, NULL))
        return 1;
    band_case h = {.metric = BAND_TRAIN_TPS, .arch = "hopper", .prec = GPUECON_BF16, .stack = "megatron-bridge-2026",
                   .seq = 8192, .gpus = 8, .batch = 128};
    band_case a = {.metric = BAND_TRAIN_TPS, .arch = "ampere", .prec = GPUECON_BF16, .stack = "megatron-2021",
                   .seq = 4096, .gpus = 64, .batch = 512};
    gpuecon_calibration one = {.runs = 1, .source = "runs.yaml"};
    band_case hc = h;
    hc.cal = &one;
    for (int r = 0; r < REPS; r++) {
        hop[r] = time_bands(s, &h, 2000);
        amp[r] = time_bands(s, &a, 2000);
        cal[r] = time_bands(s, &hc, 2000);
    }
    printf("band set build (%zu rows)      %8.2f us (median of %d)\n", band_rows_count, 1e6 * bench_median(build, REPS), REPS);
    printf("one band, hopper bf16 dense     %8.2f us\n", 1e6 * bench_median(hop, REPS));
    printf("one band, ampere megatron       %8.2f us (fitted floor binds)\n", 1e6 * bench_median(amp, REPS));
    printf("one band, calibrated (1 run)    %8.2f us\n", 1e6 * bench_median(cal, REPS));
    band_set_free(s);
    gpuecon_ctx_free(ctx);
    return 0;
}
