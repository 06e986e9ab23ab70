/*
 * bench_serving_search.c — configurations per second of `infer --search`'s analytic screen
 * (issue 13 asks for at least 100,000) and the whole search with the simulator confirming the
 * best three, for one model on one system over all layouts × precisions × drafts × engine
 * limits (target: under 1 s), and the screen at 10 requests/s, where each configuration that
 * serves the rate also gets its capacity (a second bisection, docs/model.md §6.12). One thread,
 * thread CPU time (the machine is shared), medians.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>

#define REPEATS 7

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
    gpuecon_ctx_config cfg = {0};
    cfg.threads = 1;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_catalog *cat = NULL;
    gpuecon_error err;
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err)) {
        fprintf(stderr, "catalog: %s\n", err.message);
        return 1;
    }
    const char *cases[][2] = {{"llama3-70b", "hgx-h200"}, {"deepseek-v3", "hgx-b200"}, {"gemma4-31b", "gb200-nvl72"}};
    static gpuecon_serve_search_result o;
    for (int c = 0; c < 3; c++) {
        gpuecon_serve_search_request q;
        gpuecon_serve_search_request_init(&q);
        q.base.model = gpuecon_catalog_model(cat, cases[c][0]);
        q.base.system = gpuecon_catalog_system(cat, cases[c][1]);
        q.base.gpus = 8;
        q.base.acceptance = 0.7;
        q.max_draft = 3;
        q.base.tco = gpuecon_catalog_profile(cat, "hyperscaler");
        q.ttft_ms = 2000;
        q.tpot_ms = 50;
        double screen[REPEATS], whole[REPEATS], rated[REPEATS];
        for (int i = 0; i < REPEATS; i++) {
            q.confirm = 0;
            double t0 = cpu_s();
            int rc = gpuecon_infer_search(ctx, &q, &o, &err);
            screen[i] = cpu_s() - t0;
            q.confirm = 3;
            t0 = cpu_s();
            rc |= gpuecon_infer_search(ctx, &q, &o, &err);
            whole[i] = cpu_s() - t0;
            q.confirm = 0;
            q.rate = 10;
            t0 = cpu_s();
            rc |= gpuecon_infer_search(ctx, &q, &o, &err);
            rated[i] = cpu_s() - t0;
            q.rate = 0;
            if (rc) {
                fprintf(stderr, "search %s: %s\n", cases[c][0], err.message);
                return 1;
            }
        }
        double s = bench_median(screen, REPEATS);
        printf("%s on %s, 8 GPUs: %ld configurations, screen %.1f ms = %.0f configurations/s/core; "
               "with 3 simulated confirmations %.0f ms; screen at 10 requests/s %.1f ms\n",
               cases[c][0], cases[c][1], o.configs_evaluated, s * 1e3, o.configs_evaluated / s,
               bench_median(whole, REPEATS) * 1e3, bench_median(rated, REPEATS) * 1e3);
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
