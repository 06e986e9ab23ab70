/*
 * fuzz_once.h — the built-in catalog, built once per fuzzing process for the harnesses that only
 * read it (fuzz_scenario, fuzz_request, fuzz_lengths): a failure to build it is a crash.
 */
#ifndef GPUECON_FUZZ_ONCE_H
#define GPUECON_FUZZ_ONCE_H

#include "analysis/analysis.h"

static inline void fuzz_catalog_once(gpuecon_ctx **ctx, gpuecon_catalog **cat)
{
    if (*ctx)
        return;
    gpuecon_error err;
    *ctx = gpuecon_ctx_new(NULL);
    if (!*ctx || gpuecon_catalog_new(*ctx, cat, &err))
        __builtin_trap();
}

#endif
