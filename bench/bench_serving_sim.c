/*
 * bench_serving_sim.c — simulated requests per second per core of `infer --simulate`
 * (issue 13 asks for at least 100,000), on one thread, timed in thread CPU time (the machine
 * is shared, so wall time would count other jobs), for an open loop at 80% of the
 * replica's analytic saturation and a closed loop past saturation; and the same for a
 * disaggregated deployment (gpuecon_infer_disagg_simulate) at 80% of its analytic capacity.
 * Medians over repeats.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <stdio.h>

#define REPEATS 7

static double run(gpuecon_ctx *ctx, const gpuecon_sim_request *r, double *sink)
{
    double t[REPEATS];
    for (int i = 0; i < REPEATS; i++) {
        gpuecon_sim_result o;
        gpuecon_error err;
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        if (gpuecon_infer_simulate(ctx, r, &o, &err)) {
            fprintf(stderr, "simulate: %s\n", err.message);
            return 0;
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        t[i] = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
        *sink += o.ttft_ms.p99;
    }
    return (double)r->requests * r->replications / bench_median(t, REPEATS);
}

static double run_disagg(gpuecon_ctx *ctx, const gpuecon_disagg_sim_request *q, double *sink)
{
    double t[REPEATS];
    for (int i = 0; i < REPEATS; i++) {
        gpuecon_disagg_sim_result o;
        gpuecon_error err;
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        if (gpuecon_infer_disagg_simulate(ctx, q, &o, &err)) {
            fprintf(stderr, "disaggregated simulate: %s\n", err.message);
            return 0;
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        t[i] = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
        *sink += o.sim.ttft_ms.p99;
    }
    return (double)q->sim.requests * q->sim.replications / bench_median(t, REPEATS);
}

/* Llama 3 70B FP8 on 16 H200 as 2 prefill instances of TP4 and 1 decode instance of TP8. */
static int disagg(gpuecon_ctx *ctx, gpuecon_catalog *cat, double *sink)
{
    gpuecon_disagg_sim_request q = {.prefill_instances = 2, .prefill_tp = 4, .decode_instances = 1, .decode_tp = 8};
    gpuecon_sim_request_init(&q.sim);
    q.sim.serve.model = gpuecon_catalog_model(cat, "llama3-70b");
    q.sim.serve.system = gpuecon_catalog_system(cat, "hgx-h200");
    q.sim.serve.gpus = 16;
    q.sim.serve.weights = q.sim.serve.kv = GPUECON_FP8;
    q.sim.lengths = GPUECON_LENGTHS_LOGNORMAL;
    q.sim.prompt_cv = q.sim.serve.output_cv = 1;
    q.sim.requests = 50000;
    gpuecon_disagg_request a = {.base = q.sim.serve, .prefill_instances = 2, .prefill_tp = 4,
                                .decode_instances = 1, .decode_tp = 8};
    gpuecon_disagg_result an;
    gpuecon_error err;
    if (gpuecon_infer_disagg(&a, &an, &err)) {
        fprintf(stderr, "disagg: %s\n", err.message);
        return 1;
    }
    q.sim.rate = 0.8 * an.capacity;
    double open = run_disagg(ctx, &q, sink);
    q.sim.arrival = GPUECON_ARRIVAL_CLOSED;
    q.sim.users = 2048;
    double closed = run_disagg(ctx, &q, sink);
    printf("llama3-70b on hgx-h200, 2P x TP4 + 1D x TP8 (ShareGPT-mean lognormal CV 1, %s-bound): open loop at "
           "80%% of capacity %.0f requests/s/core; closed loop of %d users %.0f requests/s/core\n",
           an.bound, open, q.sim.users, closed);
    return 0;
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
    const char *cases[][2] = {{"llama3-8b", "hgx-h100"}, {"llama3-70b", "hgx-h200"}, {"gemma4-31b", "hgx-b200"}};
    double sink = 0;
    for (int c = 0; c < 3; c++) {
        gpuecon_sim_request r;
        gpuecon_sim_request_init(&r);
        r.serve.model = gpuecon_catalog_model(cat, cases[c][0]);
        r.serve.system = gpuecon_catalog_system(cat, cases[c][1]);
        r.serve.gpus = c == 1 ? 8 : 1;
        r.serve.tp = c == 1 ? 8 : 1;
        r.serve.weights = r.serve.kv = GPUECON_FP8;
        r.lengths = GPUECON_LENGTHS_LOGNORMAL;
        r.prompt_cv = r.serve.output_cv = 1;
        r.requests = 50000;
        gpuecon_infer_result a;
        if (gpuecon_infer(&r.serve, &a, &err)) {
            fprintf(stderr, "infer: %s\n", err.message);
            return 1;
        }
        r.rate = 0.8 * a.saturated_tokens_per_s / r.serve.output_len;
        double open = run(ctx, &r, &sink);
        r.arrival = GPUECON_ARRIVAL_CLOSED;
        r.users = (int)(2 * a.max_concurrency);
        double closed = run(ctx, &r, &sink);
        printf("%s on %s (ShareGPT-mean lognormal CV 1): open loop at 80%% of saturation %.0f "
               "requests/s/core; closed loop of %d users %.0f requests/s/core\n",
               cases[c][0], cases[c][1], open, r.users, closed);
    }
    if (disagg(ctx, cat, &sink))
        return 1;
    printf("(checksum %.6g)\n", sink);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
