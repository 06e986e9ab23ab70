/*
 * bench_search.c — speed of the training-configuration search (issue 3 targets):
 *   1. configurations evaluated per second on one core (threads = 1);
 *   2. GPT-3 175B on 64 H100, batch 256 x 2048: under 1 s (Calculon: 12 min 17 s on 2 cores);
 *   3. Llama 3 405B on 16,384 H100, batch 2,048 x 8,192: under 5 s.
 * Each is the median of 7 runs (the machines are shared and noisy). Never run by ctest;
 * `make bench` runs it through bench/run.sh.
 */
#include "bench.h"
#include "gpuecon.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 7

typedef struct job {
    const char *label, *model, *system;
    int gpus, seq, gbs;
} job;

/* Median elapsed seconds of RUNS searches; *evaluated and *best from the last. */
static double time_search(const gpuecon_catalog *cat, const job *j, int threads, uint64_t *evaluated,
                          gpuecon_train_result *best)
{
    gpuecon_ctx_config cfg = {0};
    cfg.threads = threads;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(cat, j->model);
    q.system = gpuecon_catalog_system(cat, j->system);
    q.gpus = j->gpus, q.seq = j->seq, q.gbs = j->gbs;
    gpuecon_search_options o = {.top_k = 10};
    double t[RUNS];
    for (int i = 0; i < RUNS; i++) {
        gpuecon_search_result r;
        gpuecon_error err;
        double t0 = bench_now_s();
        if (gpuecon_train_search(ctx, &q, &o, &r, &err)) {
            fprintf(stderr, "bench_search: %s\n", err.message);
            exit(1);
        }
        t[i] = bench_now_s() - t0;
        *evaluated = r.configs_evaluated;
        if (r.n_best)
            *best = r.best[0];
        gpuecon_search_result_free(&r);
    }
    gpuecon_ctx_free(ctx);
    qsort(t, RUNS, sizeof t[0], bench_cmp);
    return t[RUNS / 2];
}

int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err))
        return 1;
    const job jobs[] = {
        {"GPT-3 175B, 64 x H100, batch 256 x 2048", "gpt3-175b", "hgx-h100", 64, 2048, 256},
        {"Llama 3 405B, 16,384 x H100, batch 2,048 x 8,192", "llama3-405b", "hgx-h100", 16384, 8192, 2048},
    };
    printf("median of %d runs each\n", RUNS);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        uint64_t n = 0;
        gpuecon_train_result best = {0};
        double one = time_search(cat, &jobs[i], 1, &n, &best);
        double all = time_search(cat, &jobs[i], 0, &n, &best);
        printf("%s\n", jobs[i].label);
        printf("  configurations evaluated   %llu\n", (unsigned long long)n);
        printf("  1 thread                   %.4f s = %.3g configurations/s/core\n", one, n / one);
        printf("  all threads                %.4f s (target: < %s)\n", all, i == 0 ? "1 s" : "5 s");
        printf("  best                       tp %d cp %d pp %d vpp %d dp %d mbs %d, %.1f tokens/s/GPU, MFU %.1f%%\n",
               best.par.tp, best.par.cp, best.par.pp, best.par.vpp, best.par.dp, best.par.mbs,
               best.tokens_per_s_per_gpu, 100 * best.mfu);
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
