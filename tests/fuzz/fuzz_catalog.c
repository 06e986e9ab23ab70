/*
 * fuzz_catalog.c — libFuzzer harness for every YAML loader: catalog files of each kind and
 * single model files. The first byte picks the loader; the rest is the document. Any input
 * must give GPUECON_OK or an error record, never a crash, leak or hang.
 */
#include "gpuecon.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat = NULL;
    gpuecon_error err;
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err)) {
        gpuecon_ctx_free(ctx);
        return 0;
    }
    unsigned which = data[0] % (GPUECON_KIND_COUNT + 1);
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    int rc;
    if (which == GPUECON_KIND_COUNT)
        rc = gpuecon_catalog_load_model_buffer(cat, "fuzz.yaml", buf, len, NULL, &err);
    else
        rc = gpuecon_catalog_load_buffer(cat, (gpuecon_kind)which, "fuzz.yaml", buf, len, &err);
    if (rc) {
        /* an error must say something and point inside the input */
        if (!err.message[0] || err.line < 0 || err.column < 0)
            __builtin_trap();
    } else {
        /* whatever loaded must be usable by the model functions */
        for (size_t i = 0; i < gpuecon_catalog_count(cat, GPUECON_KIND_MODEL); i++) {
            gpuecon_params p;
            gpuecon_flops f;
            const gpuecon_model *m = gpuecon_catalog_at(cat, GPUECON_KIND_MODEL, i);
            gpuecon_model_params(m, &p);
            gpuecon_train_flops(m, 4096, GPUECON_ATTN_COUNT_CAUSAL, true, &f);
            if (!(p.total > 0) || !(f.total > 0))
                __builtin_trap();
        }
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
