/*
 * bench_calibrate.c — how long `gpuecon calibrate` takes on 20 runs (issue 47's target: under a second):
 * 8 training runs of Llama 3.1 8B on 8 to 1,024 H100 (one group), 8 serving runs of Llama 3.1 8B on one
 * H100 under vLLM at 1 to 128 requests in flight (one group), 2 GEMM and 2 all-reduce microbenchmarks.
 * The measured figures are the model's own predictions times 1 + 0.04 sin(i), so the fit has work to
 * do and no contradiction stops it. The whole request is timed (RUNS.yaml read, every run's options
 * through its command's table, the layouts resolved, the fits with leave-one-out, the overlay text),
 * through gpuecon_request as every front end calls it. Prints the median of 7 runs.
 */
#include "bench.h"
#include "analysis/analysis.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPEATS 7

/* The figure at key path a.b of a request's JSON answer (0 on failure). */
static double ask(gpuecon_ctx *ctx, const char *req, const char *a, const char *b)
{
    char *out = NULL;
    gpuecon_error err;
    if (gpuecon_request(ctx, req, &out, &err)) {
        fprintf(stderr, "%s: %s\n", req, err.message);
        exit(1);
    }
    json_t *j = json_loads(out, 0, NULL);
    json_t *v = json_object_get(j, a);
    if (b)
        v = json_object_get(v, b);
    double x = json_number_value(v);
    json_decref(j);
    gpuecon_free(out);
    return x;
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
    char path[] = "/tmp/bench_calibrate_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    fprintf(f, "runs:\n");
    int i = 0;
    for (int g = 8; g <= 1024; g *= 2, i++) {
        char req[512];
        snprintf(req, sizeof req, "{\"command\": \"train\", \"options\": {\"model\": \"llama3-8b\", \"system\": \"hgx-h100\", "
                 "\"gpus\": %d, \"seq\": 8192, \"gbs\": %d, \"tp\": 1, \"pp\": 1, \"cp\": 1, \"mbs\": 1, \"zero\": 3, "
                 "\"recompute\": \"full\"}}", g, 2 * g);
        double x = ask(ctx, req, "tokens_per_s_per_gpu", NULL) * (1 + 0.04 * sin(i));
        fprintf(f, "  - {command: train, model: llama3-8b, system: hgx-h100, gpus: %d, seq: 8192, gbs: %d, tp: 1, pp: 1, "
                "cp: 1, mbs: 1, zero: 3, recompute: full, measured: {tokens_per_s_per_gpu: %.6g}}\n", g, 2 * g, x);
    }
    for (int c = 1; c <= 128; c *= 2, i++) {
        char req[512];
        snprintf(req, sizeof req, "{\"command\": \"infer\", \"options\": {\"model\": \"llama3-8b\", \"system\": \"hgx-h100\", "
                 "\"gpus\": 1, \"stack\": \"vllm-v1\", \"concurrency\": %d}}", c);
        double x = ask(ctx, req, "at", "tpot_ms") * (1 + 0.04 * sin(i));
        fprintf(f, "  - {command: infer, model: llama3-8b, system: hgx-h100, gpus: 1, stack: vllm-v1, concurrency: %d, "
                "measured: {tpot_ms: %.6g}}\n", c, x);
    }
    const gpuecon_system *h100 = gpuecon_catalog_system(cat, "hgx-h100");
    for (int m = 4096; m <= 8192; m *= 2, i++)
        fprintf(f, "  - {command: gemm, system: hgx-h100, m: %d, n: %d, k: %d, measured: {tflops: %.6g}}\n", m, m, m,
                gpuecon_gemm_tflops(h100, GPUECON_BF16, NULL, m, m, m) * (1 + 0.04 * sin(i)));
    for (double b = 268435456; b <= 1073741824; b *= 4, i++) {
        gpuecon_coll_result r;
        if (gpuecon_collective(h100, GPUECON_ALL_REDUCE, 8, 1, b, GPUECON_ALGO_AUTO, &r, &err))
            return 1;
        fprintf(f, "  - {command: nccl, system: hgx-h100, gpus: 8, bytes: %.0f, measured: {busbw_gbps: %.6g}}\n", b,
                r.busbw_gbps * (1 + 0.04 * sin(i)));
    }
    fclose(f);
    char req[256];
    snprintf(req, sizeof req, "{\"command\": \"calibrate\", \"args\": [\"%s\"]}", path);
    double t[REPEATS];
    int rows = 0;
    for (int k = 0; k < REPEATS; k++) {
        char *out = NULL;
        double t0 = bench_now_s();
        int rc = gpuecon_request(ctx, req, &out, &err);
        t[k] = bench_now_s() - t0;
        if (rc) {
            fprintf(stderr, "calibrate: %s:%d: %s\n", err.where, err.line, err.message);
            unlink(path);
            return 1;
        }
        json_t *j = json_loads(out, 0, NULL);
        rows = (int)json_array_size(json_object_get(j, "runs"));
        json_decref(j);
        gpuecon_free(out);
    }
    unlink(path);
    printf("calibrate, %d runs (%d measurements), 4 groups: median %.1f ms of %d (target < 1 s)\n", i, rows,
           1e3 * bench_median(t, REPEATS), REPEATS);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
