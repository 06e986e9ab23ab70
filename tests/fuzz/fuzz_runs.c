/*
 * fuzz_runs.c — libFuzzer harness for RUNS.yaml, the input of `gpuecon calibrate` (src/io/runs.c,
 * through runs_parse_text). The whole input is the file. It must load or fail with an error record that
 * names a file and has a message; a file that loads holds 1 to 64 runs, each with a known command,
 * at least one measured figure that the command measures, positive and finite in its unit, at a
 * 1-based place, and options that runs_option_get finds by their own names. It is read as an inline
 * document (runs_parse_text), which reads no file: a `log:` is an error record, not a read of the disk.
 */
#include "fuzz_once.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool measures(runs_command c, runs_figure f)
{
    switch (c) {
    case RUNS_TRAIN: return f == RUNS_TOKENS_PER_S_PER_GPU || f == RUNS_STEP_TIME_S;
    case RUNS_INFER: return f == RUNS_OUTPUT_TOKENS_PER_S_PER_GPU || f == RUNS_TPOT_MS || f == RUNS_TTFT_MS;
    case RUNS_GEMM: return f == RUNS_TFLOPS;
    case RUNS_NCCL: return f == RUNS_BUSBW_GBPS;
    case RUNS_FINETUNE: return f == RUNS_TOKENS_PER_S || f == RUNS_TOKENS_PER_S_PER_GPU || f == RUNS_STEP_S;
    default: return false;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *cat;
    fuzz_catalog_once(&ctx, &cat);
    runs_file f;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = runs_parse_text(ctx, "runs.yaml", (const char *)data, size, &f, &err);
    if (rc) {
        if (!err.message[0] || !err.where[0] || f.runs || f.n)
            __builtin_trap();
        return 0;
    }
    if (f.n < 1 || f.n > 64 || !f.runs)
        __builtin_trap();
    for (size_t i = 0; i < f.n; i++) {
        const runs_entry *r = &f.runs[i];
        if ((unsigned)r->command >= RUNS_COMMANDS || r->n_values < 1 || r->line < 1 || r->index != (int)i + 1)
            __builtin_trap();
        for (size_t j = 0; j < r->n_values; j++)
            if (!measures(r->command, r->values[j].figure) || !(r->values[j].value > 0) ||
                !isfinite(r->values[j].value) || r->values[j].line < 1)
                __builtin_trap();
        for (size_t j = 0; j < r->n_opts; j++)
            if (!r->opts[j].key || !r->opts[j].key[0] || !r->opts[j].text || !runs_option_get(r, r->opts[j].key))
                __builtin_trap();
    }
    runs_free(&f);
    return 0;
}
