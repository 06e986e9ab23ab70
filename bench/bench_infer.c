/*
 * bench_infer.c — how long the serving and fine-tuning models take per call (issue 7's
 * compare will call them for every platform and scenario). Prints medians over repeats.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPEATS 15

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat = NULL;
    gpuecon_error err;
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err)) {
        fprintf(stderr, "catalog: %s\n", err.message);
        return 1;
    }
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(cat, "gemma4-31b");
    r.system = gpuecon_catalog_system(cat, "hgx-b200");
    r.gpus = 8;
    r.weights = r.kv = GPUECON_FP8;
    r.lora_rank = 16;
    r.tco = gpuecon_catalog_profile(cat, "hyperscaler");
    double t_infer[REPEATS], t_sweep[REPEATS], t_ft[REPEATS], sink = 0;
    gpuecon_infer_result o;
    gpuecon_infer_point pts[64];
    double grid[64];
    size_t n = 0;
    gpuecon_finetune_request f;
    gpuecon_finetune_request_init(&f);
    f.model = r.model;
    f.system = r.system;
    gpuecon_finetune_result fo;
    for (int i = 0; i < REPEATS; i++) {
        double t0 = now();
        for (int k = 0; k < 1000; k++) {
            gpuecon_infer(&r, &o, &err);
            sink += o.output_tokens_per_s;
        }
        double t1 = now();
        n = gpuecon_infer_grid(&o, grid, 64);
        for (int k = 0; k < 1000; k++) {
            gpuecon_infer_sweep(&r, grid, n, pts, &err);
            sink += pts[0].tpot_ms;
        }
        double t2 = now();
        for (int k = 0; k < 1000; k++) {
            gpuecon_finetune(&f, &fo, &err);
            sink += fo.tokens_per_s;
        }
        double t3 = now();
        t_infer[i] = (t1 - t0) / 1000;
        t_sweep[i] = (t2 - t1) / 1000;
        t_ft[i] = (t3 - t2) / 1000;
    }
    printf("gpuecon_infer (memory, capacity, saturation, knee, one point): median %.1f us\n",
           bench_median(t_infer, REPEATS) * 1e6);
    printf("gpuecon_infer_sweep (%zu concurrencies): median %.1f us\n", n, bench_median(t_sweep, REPEATS) * 1e6);
    printf("gpuecon_finetune: median %.2f us\n", bench_median(t_ft, REPEATS) * 1e6);
    printf("(checksum %.6g)\n", sink);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
