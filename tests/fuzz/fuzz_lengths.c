/*
 * fuzz_lengths.c — libFuzzer harness for length histograms (infer --simulate --lengths FILE,
 * src/io/lengths.c). The whole input is the file. It must load or fail with a located error;
 * every bin that loads holds whole lengths from 1 to 1e8 and a positive weight. A histogram
 * that loads is then simulated (Llama 3 8B on one H100, 50 requests), so the simulator takes
 * whatever the parser accepts: an error record or a finite result, never a crash or a hang.
 *
 * Under libFuzzer a histogram whose longest output exceeds SIM_OUTPUT_MAX tokens is only read,
 * not simulated: the simulator steps once per output token, so one such input costs seconds under
 * the sanitizers and a campaign of millions would take days. The replay (CTest
 * fuzz_replay_lengths, FUZZ_LENGTHS_FULL=1) simulates every input of the corpus, long ones included.
 */
#include "fuzz_once.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SIM_OUTPUT_MAX = 2048 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool whole(double x)
{
    return x >= 1 && x <= 1e8 && x == floor(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *cat;
    gpuecon_error err;
    fuzz_catalog_once(&ctx, &cat); /* the catalog is read-only here */
    gpuecon_length_bin *bins = NULL;
    size_t n = 0;
    gpuecon_error_clear(&err);
    int rc = gpuecon_length_bins_load_buffer(ctx, "fuzz.csv", (const char *)data, size, &bins, &n, &err);
    if (rc) {
        if (!err.message[0] || strcmp(err.where, "fuzz.csv") || bins || n)
            __builtin_trap();
        return 0;
    }
    if (!bins || n == 0)
        __builtin_trap();
    double longest = 0;
    for (size_t i = 0; i < n; i++) {
        if (!whole(bins[i].prompt) || !whole(bins[i].output) || !(bins[i].weight > 0 && isfinite(bins[i].weight)))
            __builtin_trap();
        longest = fmax(longest, bins[i].output);
    }
    static int full = -1;
    if (full < 0)
        full = getenv("FUZZ_LENGTHS_FULL") != NULL;
    if (!full && longest > SIM_OUTPUT_MAX) {
        gpuecon_length_bins_free(ctx, bins, n);
        return 0;
    }
    gpuecon_sim_request q;
    gpuecon_sim_request_init(&q);
    q.serve.model = gpuecon_catalog_model(cat, "llama3-8b");
    q.serve.system = gpuecon_catalog_system(cat, "hgx-h100");
    q.serve.gpus = 1;
    q.arrival = GPUECON_ARRIVAL_POISSON;
    q.rate = 1;
    q.requests = 50;
    q.lengths = GPUECON_LENGTHS_HISTOGRAM;
    q.bins = bins;
    q.nbins = n;
    gpuecon_sim_result o;
    gpuecon_error_clear(&err);
    rc = gpuecon_infer_simulate(ctx, &q, &o, &err);
    if (rc ? !err.message[0] : !(isfinite(o.output_tokens_per_s) && o.output_tokens_per_s >= 0))
        __builtin_trap();
    gpuecon_length_bins_free(ctx, bins, n);
    return 0;
}
