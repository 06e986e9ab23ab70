/*
 * fuzz_hf.c — libFuzzer harness for the Hugging Face config.json reader (src/io/hf.c) behind
 * --model-file. The whole input is the file. It must load one model or fail with an error that
 * names the file and a line inside it — never a crash, a leak or a hang (a scalar where a mapping
 * belongs once made libfyaml's item count -1, read as SIZE_MAX: an endless loop). A model that
 * loads must be usable: positive parameters and training FLOPs, and a training step on 8 H100
 * that either runs or refuses with an error record.
 * Seeds: tests/cases/hf/ (real config.json files of each supported architecture).
 */
#include "analysis/analysis.h"
#include "model/train.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lines_in(const uint8_t *data, size_t size)
{
    int n = 1;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *c;
    gpuecon_error err;
    /* one catalog while inputs fail (a failed load changes nothing: loads are all-or-nothing), a
     * fresh one after an input that loads, so no model leaks into the next input */
    if (!ctx && !(ctx = gpuecon_ctx_new(NULL)))
        __builtin_trap();
    if (!c && gpuecon_catalog_new(ctx, &c, &err))
        __builtin_trap();
    const gpuecon_model *m = NULL;
    gpuecon_error_clear(&err);
    int rc = gpuecon_catalog_load_model_buffer(c, "config.json", (const char *)data, size, &m, &err);
    if (rc) {
        /* the error names the file (or the model it maps to) and a place inside it */
        if (!err.message[0] || m || err.line < 0 || err.column < 0 || err.line > lines_in(data, size) + 1)
            __builtin_trap();
    } else {
        if (!m)
            __builtin_trap();
        gpuecon_params p;
        gpuecon_flops f;
        gpuecon_model_params(m, &p);
        gpuecon_train_flops(m, 4096, GPUECON_ATTN_COUNT_CAUSAL, true, &f);
        if (!(p.total > 0) || !isfinite(p.total) || !(f.total > 0) || !isfinite(f.total))
            __builtin_trap();
        gpuecon_train_request q;
        gpuecon_train_request_init(&q);
        q.model = m;
        q.system = gpuecon_catalog_system(c, "hgx-h100");
        q.gpus = 8, q.seq = 4096, q.gbs = 64;
        gpuecon_train_result r;
        gpuecon_error_clear(&err);
        if (gpuecon_train_predict(ctx, &q, &r, &err) == GPUECON_OK) {
            if (!(r.step_time_s > 0) || !isfinite(r.step_time_s))
                __builtin_trap();
        } else if (!err.message[0]) {
            __builtin_trap();
        }
        gpuecon_catalog_free(c);
        c = NULL;
    }
    return 0;
}
