/*
 * ctx.c — the context: the caller's allocator, seed, thread count and callbacks.
 *
 * There are no globals in the library; everything configurable lives here (as Lua's
 * lua_State or jq's jq_state), so several independent contexts can coexist.
 */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

gpuecon_ctx *gpuecon_ctx_new(const gpuecon_ctx_config *cfg)
{
    gpuecon_ctx_config c;
    memset(&c, 0, sizeof c);
    if (cfg)
        c = *cfg;
    if (!c.alloc)
        c.alloc = default_alloc;
    if (c.seed == 0)
        c.seed = GPUECON_DEFAULT_SEED;
    if (c.max_file_bytes == 0)
        c.max_file_bytes = (size_t)4 << 20;
    if (!(c.max_work_s > 0))
        c.max_work_s = GPUECON_DEFAULT_MAX_WORK_S;
    gpuecon_ctx *ctx = c.alloc(c.alloc_ud, NULL, 0, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->cfg = c;
    return ctx;
}

void gpuecon_ctx_free(gpuecon_ctx *ctx)
{
    if (ctx)
        ctx->cfg.alloc(ctx->cfg.alloc_ud, ctx, sizeof *ctx, 0);
}

void gpuecon_ctx_set_max_work(gpuecon_ctx *ctx, double seconds)
{
    if (ctx)
        ctx->cfg.max_work_s = seconds > 0 ? seconds : GPUECON_DEFAULT_MAX_WORK_S;
}

const gpuecon_ctx_config *gpuecon_ctx_get_config(const gpuecon_ctx *ctx)
{
    return ctx ? &ctx->cfg : NULL;
}

void *ctx_alloc(gpuecon_ctx *ctx, size_t n)
{
    void *p = ctx->cfg.alloc(ctx->cfg.alloc_ud, NULL, 0, n ? n : 1);
    if (p)
        memset(p, 0, n ? n : 1);
    return p;
}

void *ctx_realloc(gpuecon_ctx *ctx, void *p, size_t oldn, size_t newn)
{
    return ctx->cfg.alloc(ctx->cfg.alloc_ud, p, oldn, newn ? newn : 1);
}

void ctx_free(gpuecon_ctx *ctx, void *p, size_t n)
{
    if (p) /* ctx_alloc hands out at least one byte */
        ctx->cfg.alloc(ctx->cfg.alloc_ud, p, n ? n : 1, 0);
}

