/*
 * bench_sim.c — speed of the reliability Monte Carlo (issue 5 targets): simulated events per
 * second on one core, and 1,000 trials of a 90-day job on 100,000 GPUs (failures, repairs,
 * in-rack and pool spares) on 2 threads; peak memory at 100 and 3,000 trials.
 * Prints medians of REPEATS runs (the machines are shared and noisy).
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPEATS 5

typedef struct counter {
    size_t now, peak;
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    counter *c = ud;
    c->now = c->now + nsize - (ptr ? osize : 0);
    if (c->now > c->peak)
        c->peak = c->now;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

/* Runs `trials` trials of a 90-day job on 100,000 GPUs of tier `name` with `threads`
 * threads, REPEATS times; prints the median time and events per second per thread. */
static int run(const gpuecon_catalog *cat, const char *name, int trials, int threads, size_t *peak)
{
    const gpuecon_reliability *t = gpuecon_catalog_reliability(cat, name);
    gpuecon_reliability_request q;
    gpuecon_error err;
    if (!t || gpuecon_reliability_request_init(&q, gpuecon_catalog_system(cat, t->system), t,
                                               100000, &err))
        return 1;
    q.duration_s = 90 * 86400.0;
    q.trials = trials;
    double secs[REPEATS], rate[REPEATS];
    gpuecon_reliability_mc mc;
    for (int r = 0; r < REPEATS; r++) {
        counter c = {0, 0};
        gpuecon_ctx_config cfg = {0};
        cfg.alloc = counting_alloc;
        cfg.alloc_ud = &c;
        cfg.threads = threads;
        cfg.seed = 1234;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        double t0 = bench_now_s();
        int rc = gpuecon_reliability_simulate(ctx, &q, &mc, &err);
        secs[r] = bench_now_s() - t0;
        gpuecon_ctx_free(ctx);
        if (rc) {
            fprintf(stderr, "bench_sim: %s: %s\n", err.where, err.message);
            return 1;
        }
        rate[r] = mc.events / secs[r] / threads;
        if (peak)
            *peak = c.peak;
    }
    double med = bench_median(secs, REPEATS), min = secs[0]; /* sorted by bench_median */
    printf("%-22s %5d trials %d thread%s: median %.3f s (min %.3f), %.1f M events/s per thread, "
           "%.0f events/trial, ETTR %.4f\n",
           name, trials, threads, threads > 1 ? "s" : " ", med, min, bench_median(rate, REPEATS) / 1e6,
           mc.events / trials, mc.ettr_mean);
    return 0;
}

/* Per-call cost of the closed form (compare root-finds through it). */
static int analytic_speed(const gpuecon_catalog *cat)
{
    const gpuecon_reliability *t = gpuecon_catalog_reliability(cat, "gb200-nvl72/typical");
    gpuecon_reliability_request q;
    gpuecon_reliability_result r;
    if (!t || gpuecon_reliability_request_init(&q, gpuecon_catalog_system(cat, t->system), t, 100000, NULL))
        return 1;
    double us[REPEATS], sink = 0;
    for (int k = 0; k < REPEATS; k++) {
        double t0 = bench_now_s();
        for (int i = 0; i < 100000; i++) {
            q.mtbi_gpu_days = 1000 + i % 2000;
            if (gpuecon_reliability_analytic(&q, &r, NULL))
                return 1;
            sink += r.ettr;
        }
        us[k] = (bench_now_s() - t0) / 100000 * 1e6;
    }
    printf("gpuecon_reliability_analytic: median %.2f us per call (checksum %.3f)\n", bench_median(us, REPEATS), sink);
    return 0;
}

int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err))
        return 1;
    if (analytic_speed(cat))
        return 1;
    const char *tiers[] = {"hgx-h100/typical", "gb200-nvl72/typical", "hgx-h100/poor",
                           "gb200-nvl72/poor"};
    puts("-- 100,000 GPUs, 90 days: events per second on one core (200 trials)");
    for (int i = 0; i < 4; i++)
        if (run(cat, tiers[i], 200, 1, NULL))
            return 1;
    puts("-- 100,000 GPUs, 90 days, 1,000 trials on 2 threads (target < 5 s)");
    for (int i = 0; i < 4; i++)
        if (run(cat, tiers[i], 1000, 2, NULL))
            return 1;
    puts("-- peak memory (bytes allocated through the context), 2 threads");
    size_t p100, p3000;
    if (run(cat, "gb200-nvl72/typical", 100, 2, &p100) || run(cat, "gb200-nvl72/typical", 3000, 2, &p3000))
        return 1;
    printf("peak memory: %zu bytes at 100 trials, %zu bytes at 3,000 trials\n", p100, p3000);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
