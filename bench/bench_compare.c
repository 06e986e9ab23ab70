/*
 * bench_compare.c — speed of `gpuecon compare` (issue 7 targets): the default scenario
 * (every training prediction, reliability, break-even and sensitivity) in under 1 s, and the
 * same with a Monte Carlo of 1,000 trials per training platform in under 10 s on 2 cores.
 * Prints medians of REPEATS runs.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>

#define REPEATS 5

static int run(gpuecon_ctx *ctx, const gpuecon_catalog *cat, int trials, double *secs)
{
    gpuecon_error err;
    gpuecon_scenario *sc = NULL;
    gpuecon_compare_result *r = NULL;
    double t0 = bench_now_s();
    gpuecon_compare_options opt = {.trials = trials};
    if (gpuecon_scenario_load(ctx, cat, NULL, &sc, &err) || gpuecon_compare(ctx, cat, sc, &opt, &r, &err)) {
        fprintf(stderr, "bench_compare: %s: %s\n", err.where, err.message);
        gpuecon_scenario_free(sc);
        return 1;
    }
    *secs = bench_now_s() - t0;
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    return 0;
}

int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat = NULL;
    gpuecon_error err;
    double t0 = bench_now_s();
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err))
        return 1;
    double load = bench_now_s() - t0;
    int trials[] = {0, 1000};
    for (int k = 0; k < 2; k++) {
        double v[REPEATS];
        for (int i = 0; i < REPEATS; i++)
            if (run(ctx, cat, trials[k], &v[i]))
                return 1;
        double med = bench_median(v, REPEATS);
        printf("compare, default scenario, %s: median %.3f s (min %.3f, max %.3f) over %d runs; target < %s\n",
               trials[k] ? "Monte Carlo 1,000 trials per training platform" : "analytic", med, v[0],
               v[REPEATS - 1], REPEATS, trials[k] ? "10 s" : "1 s");
    }
    printf("catalog load (built-in): %.4f s\n", load);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
