/*
 * fuzz_catalog.c — libFuzzer harness for every YAML loader: catalog files of each kind and
 * single model files. The first byte picks the loader; the rest is the document. Any input
 * must give GPUECON_OK or an error record, never a crash, leak or hang.
 *
 * The built-in catalog is loaded once and reused: loads are all-or-nothing (gpuecon.h), so a
 * failed load must leave every entry where it was, which the harness checks; after a load
 * that succeeds the catalog is rebuilt. Most inputs fail, so this runs many times faster than
 * a fresh catalog per input, and it tests the all-or-nothing contract on every failure.
 */
#include "analysis/analysis.h"
#include "../catalog_snap.h"

#include <stdint.h>
#include <string.h>

static gpuecon_ctx *ctx;
static gpuecon_catalog *cat;

/* Every entry's address and the bytes of its struct (catalog_snap.h): what a failed load must
 * not change (a replacement by name keeps its place, so a failed one must not write into it).
 * A kind with more than SNAP_MAX entries is compared on its first SNAP_MAX. */
static void take(snap *s)
{
    (void)snap_take(cat, s);
}

static int fresh_catalog(void)
{
    gpuecon_error err;
    if (cat)
        gpuecon_catalog_free(cat);
    cat = NULL;
    if (!ctx && !(ctx = gpuecon_ctx_new(NULL)))
        return -1;
    return gpuecon_catalog_new(ctx, &cat, &err) ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!cat && fresh_catalog())
        return 0;
    static snap before, after;
    take(&before);
    gpuecon_error err;
    unsigned which = data[0] % (GPUECON_KIND_COUNT + 1);
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    int rc;
    if (which == GPUECON_KIND_COUNT)
        rc = gpuecon_catalog_load_model_buffer(cat, "fuzz.yaml", buf, len, NULL, &err);
    else
        rc = gpuecon_catalog_load_buffer(cat, (gpuecon_kind)which, "fuzz.yaml", buf, len, &err);
    if (rc) {
        /* an error must say something and point inside the input, and change nothing */
        if (!err.message[0] || err.line < 0 || err.column < 0)
            __builtin_trap();
        take(&after);
        if (memcmp(&before, &after, sizeof before))
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
        fresh_catalog(); /* the load changed the catalog: the next input starts from the built-in one */
    }
    return 0;
}
