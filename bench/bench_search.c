/*
 * bench_search.c — speed of the training-configuration search (issue 3 and 4 targets):
 *   1. configurations evaluated per second on one core (threads = 1), exhaustive;
 *   2. GPT-3 175B on 64 H100, batch 256 x 2048: under 1 s (Calculon: 12 min 17 s on 2 cores);
 *   3. Llama 3 405B on 16,384 H100, batch 2,048 x 8,192: under 5 s;
 *   4. DeepSeek-V3 on 1,024 H100, batch 8,192 x 4,096 (the MoE space: ep, etp, all-to-all
 *      overlap on top): under 5 s; and the four MoE searches of the default `gpuecon compare`
 *      (DeepSeek-V3 and Llama 4 Maverick at 16,384 GPUs on HGX H100 and GB200 NVL72), which
 *      must leave the whole compare under 1 s.
 * Searches are timed both bounded (the default: blocks whose optimistic bound cannot enter
 * the top k are skipped) and exhaustive, ranked as train ranks (at the MFU cap and each layout's
 * band's low end), and the exhaustive one also at the point, without the bands, for their cost. Each figure is the median of 7 runs (the machines
 * are shared and noisy). Never run by ctest; `make bench` runs it through bench/run.sh.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 7

typedef struct job {
    const char *label, *model, *system;
    int gpus, seq, gbs;
    gpuecon_precision prec;
    bool stack; /* the CLI's defaults: megatron-bridge-2026 and activation offload searched */
} job;

/* Median elapsed seconds of RUNS searches; *evaluated and *best from the last. cap: the MFU cap;
 * rank: a request whose band ranking (rank_band_low, rank_family_covered) is copied in (NULL: none). */
static double time_search(const gpuecon_catalog *cat, const job *j, double cap, const gpuecon_train_request *rank,
                          int threads, bool exhaustive, uint64_t *evaluated, gpuecon_train_result *best)
{
    gpuecon_ctx_config cfg = {0};
    cfg.threads = threads;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(cat, j->model);
    q.system = gpuecon_catalog_system(cat, j->system);
    q.gpus = j->gpus, q.seq = j->seq, q.gbs = j->gbs, q.precision = j->prec;
    q.rank_mfu_cap = cap; /* as train and search rank (docs/model.md §3.5) */
    if (rank) { /* and at each layout's band's low end */
        memcpy(q.rank_band_low, rank->rank_band_low, sizeof q.rank_band_low);
        memcpy(q.rank_family_covered, rank->rank_family_covered, sizeof q.rank_family_covered);
    }
    if (j->stack) {
        gpuecon_train_request_apply_stack(&q, gpuecon_catalog_stack(cat, "megatron-bridge-2026"));
        q.offload_layers = GPUECON_SEARCH;
    }
    gpuecon_search_options o = {.top_k = 10, .exhaustive = exhaustive};
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
        {"GPT-3 175B, 64 x H100, batch 256 x 2048", "gpt3-175b", "hgx-h100", 64, 2048, 256, GPUECON_BF16, false},
        {"Llama 3 405B, 16,384 x H100, batch 2,048 x 8,192", "llama3-405b", "hgx-h100", 16384, 8192, 2048,
         GPUECON_BF16, false},
        {"DeepSeek-V3, 1,024 x H100, batch 8,192 x 4,096", "deepseek-v3", "hgx-h100", 1024, 4096, 8192, GPUECON_BF16, false},
        {"DeepSeek-V3, 16,384 x H100, batch 15,360 x 4,096 (compare)", "deepseek-v3", "hgx-h100", 16384, 4096, 15360,
         GPUECON_BF16, false},
        {"DeepSeek-V3, 16,384 x GB200, batch 15,360 x 4,096 (compare)", "deepseek-v3", "gb200-nvl72", 16384, 4096,
         15360, GPUECON_BF16, false},
        {"Llama 4 Maverick FP8, 16,384 x H100, batch 2,048 x 8,192 (compare)", "llama4-maverick", "hgx-h100", 16384,
         8192, 2048, GPUECON_FP8, false},
        {"Llama 4 Maverick FP8, 16,384 x GB200, batch 2,048 x 8,192 (compare)", "llama4-maverick", "gb200-nvl72",
         16384, 8192, 2048, GPUECON_FP8, false},
        {"GPT-3 175B, 64 x H100, megatron-bridge-2026, offload searched", "gpt3-175b", "hgx-h100", 64, 2048, 256,
         GPUECON_BF16, true},
    };
    const char *target[] = {"1 s", "5 s", "5 s", "", "", "", "", "0.1 s"};
    printf("median of %d runs each\n", RUNS);
    /* each search ranks at its GPU generation and precision's MFU cap, as the CLI's do */
    calib_set set;
    band_set *bands = NULL;
    if (calib_set_build(ctx, cat, &set, &err) || band_set_build(ctx, cat, &bands, &err)) {
        fprintf(stderr, "bench_search: %s\n", err.message);
        return 1;
    }
    double compare_s = 0;
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        uint64_t n = 0, nx = 0;
        gpuecon_train_result best = {0}, bx = {0};
        calib_cap cap;
        const gpuecon_system *sys = gpuecon_catalog_system(cat, jobs[i].system);
        const gpuecon_model *mod = gpuecon_catalog_model(cat, jobs[i].model);
        calib_mfu_cap(&set, sys && sys->gpu && sys->gpu->arch ? sys->gpu->arch : "?", jobs[i].prec,
                      mod && mod->experts > 0, &cap);
        double c = cap.have ? cap.mfu : 0;
        /* the band ranking as train builds it (train_cli_rank): from the calibration and band sets */
        gpuecon_train_request rq;
        gpuecon_train_request_init(&rq);
        if (jobs[i].stack)
            gpuecon_train_request_apply_stack(&rq, gpuecon_catalog_stack(cat, "megatron-bridge-2026"));
        rq.model = mod, rq.system = sys, rq.gpus = jobs[i].gpus, rq.seq = jobs[i].seq, rq.gbs = jobs[i].gbs;
        rq.precision = jobs[i].prec;
        calib_rank_band(&set, bands, &rq);
        double one = time_search(cat, &jobs[i], c, &rq, 1, false, &n, &best);
        double all = time_search(cat, &jobs[i], c, &rq, 0, false, &n, &best);
        double ex = time_search(cat, &jobs[i], c, &rq, 1, true, &nx, &bx);
        uint64_t n0 = 0;
        gpuecon_train_result b0 = {0};
        double ex0 = time_search(cat, &jobs[i], c, NULL, 1, true, &n0, &b0); /* the same without the bands */
        if (i >= 3 && i <= 6)
            compare_s += one;
        printf("%s (MFU cap %.3f, band low %.3f / %.3f)\n", jobs[i].label, c, rq.rank_band_low[0],
               rq.rank_band_low[1]);
        printf("  exhaustive, 1 thread       %.4f s, %llu configurations = %.3g configurations/s/core\n", ex,
               (unsigned long long)nx, nx / ex);
        printf("  the same, ranked at the point (no bands): %.4f s (ratio with bands %.2f)\n", ex0, ex / ex0);
        printf("  bounded, 1 thread          %.4f s (%llu evaluated)\n", one, (unsigned long long)n);
        printf("  bounded, all threads       %.4f s %s%s\n", all, *target[i] ? "target: < " : "", target[i]);
        printf("  best                       tp %d cp %d pp %d vpp %d dp %d mbs %d ep %d etp %d, %.1f tokens/s/GPU, "
               "MFU %.1f%%%s\n",
               best.par.tp, best.par.cp, best.par.pp, best.par.vpp, best.par.dp, best.par.mbs, best.par.ep,
               best.par.etp, best.tokens_per_s_per_gpu, 100 * best.mfu,
               best.step_time_s == bx.step_time_s ? " (= exhaustive)" : " (DIFFERS from exhaustive)");
    }
    printf("the four MoE searches of the default compare, 1 thread: %.3f s (the whole compare: target < 1 s)\n",
           compare_s);
    band_set_free(bands);
    calib_set_free(&set);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
