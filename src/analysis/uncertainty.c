/*
 * uncertainty.c — the uncertainty a predicted throughput carries into a comparison
 * (docs/model.md §7.5): the P90 |error| of the validate group nearest the platform — same GPU
 * generation, precision and dense/MoE; failing three rows there, the same generation and kind,
 * then the same precision and kind, then the kind — and whether that band reaches the
 * break-even throughput, i.e. whether the prediction's own error could flip the verdict.
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "model/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAND_MIN_ROWS 3

int compare_bands_fill(gpuecon_ctx *ctx, const gpuecon_catalog *cat, bool moe, bool vtrain, compare_bands *b,
                       gpuecon_error *err)
{
    if (b->ready && b->moe == moe && b->vtrain == vtrain)
        return GPUECON_OK;
    if (!b->rows)
        b->rows = ctx_alloc(ctx, GPUECON_VALIDATE_MAX * sizeof *b->rows);
    if (!b->rows)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    int rc = validate_kind(ctx, cat, moe, vtrain, b->rows, GPUECON_VALIDATE_MAX, &b->n, err);
    b->ready = rc == GPUECON_OK, b->moe = moe, b->vtrain = vtrain;
    return rc;
}

void compare_bands_free(gpuecon_ctx *ctx, compare_bands *b)
{
    ctx_free(ctx, b->rows, GPUECON_VALIDATE_MAX * sizeof *b->rows);
    memset(b, 0, sizeof *b);
}

static int cmp_abs(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* P90 |error| of the rows whose class matches arch-prec-kind (NULL parts match anything). */
static size_t p90_of(const compare_bands *b, const char *arch, const char *prec, const char *kind, double *p90)
{
    double e[GPUECON_VALIDATE_MAX];
    size_t k = 0;
    for (size_t i = 0; i < b->n && k < GPUECON_VALIDATE_MAX; i++) {
        char cls[sizeof b->rows[i].cls];
        snprintf(cls, sizeof cls, "%s", b->rows[i].cls);
        char *d = strrchr(cls, '-');
        if (!d)
            continue;
        *d = '\0';
        char *p = strrchr(cls, '-');
        if (!p)
            continue;
        *p = '\0';
        if ((arch && strcmp(cls, arch)) || (prec && strcmp(p + 1, prec)) || strcmp(d + 1, kind))
            continue;
        e[k++] = fabs(b->rows[i].rel_err);
    }
    qsort(e, k, sizeof e[0], cmp_abs);
    double x = 0.9 * (double)(k ? k - 1 : 0);
    size_t i = (size_t)x;
    *p90 = k == 0 ? 0 : i + 1 < k ? e[i] + (x - (double)i) * (e[i + 1] - e[i]) : e[k - 1];
    return k;
}

void compare_uncertainty(const compare_bands *b, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                         gpuecon_comparison_result *cr, const pstate *ps)
{
    const gpuecon_model *m = c->workload.model ? gpuecon_catalog_model(cat, c->workload.model) : NULL;
    const char *kind = m && m->experts > 0 ? "moe" : "dense";
    for (size_t i = 0; i < cr->n_platforms; i++) {
        gpuecon_platform_result *r = &cr->platforms[i];
        r->throughput_p90_rel = 0;
        r->throughput_group[0] = '\0';
        if (cr->kind != GPUECON_WORKLOAD_TRAIN || !r->feasible || r->measured || !b || !b->ready)
            continue;
        const char *arch = ps[i].sys->gpu->arch ? ps[i].sys->gpu->arch : "?";
        const char *prec = gpuecon_precision_name(ps[i].pl->precision);
        const char *try_arch[] = {arch, arch, NULL, NULL}, *try_prec[] = {prec, NULL, prec, NULL};
        for (int t = 0; t < 4; t++) {
            double p90;
            if (p90_of(b, try_arch[t], try_prec[t], kind, &p90) >= BAND_MIN_ROWS || t == 3) {
                r->throughput_p90_rel = p90;
                snprintf(r->throughput_group, sizeof r->throughput_group, "%s-%s-%s", try_arch[t] ? try_arch[t] : "*",
                         try_prec[t] ? try_prec[t] : "*", kind);
                break;
            }
        }
    }
}

/* Whether the band of platform p reaches its throughput break-even against the rival. */
static const gpuecon_breakeven *toks_breakeven(const gpuecon_comparison_result *cr, int p)
{
    for (size_t i = 0; i < cr->n_breakeven; i++)
        if (cr->breakeven[i].platform == p && !strcmp(cr->breakeven[i].input, "tokens_per_s_per_gpu"))
            return &cr->breakeven[i];
    return NULL;
}

void compare_uncertainty_verdict(gpuecon_comparison_result *cr)
{
    int who[2] = {cr->cheapest, cr->runner_up};
    size_t n = strlen(cr->verdict), cap = sizeof cr->verdict;
    for (int w = 0; w < 2 && n < cap; w++) {
        if (who[w] < 0)
            continue;
        const gpuecon_platform_result *r = &cr->platforms[who[w]];
        if (!(r->throughput_p90_rel > 0))
            continue;
        const gpuecon_breakeven *be = toks_breakeven(cr, who[w]);
        double b = r->throughput_p90_rel, t = r->tokens_per_s_per_gpu;
        if (!be || !be->found) {
            n += (size_t)snprintf(cr->verdict + n, cap - n, " %s's throughput is predicted ±%.0f%% (validate group %s).",
                                  r->name, 100 * b, r->throughput_group);
            continue;
        }
        /* the band is multiplicative, as the joint sampling draws it (joint.c): t/(1+b) to t·(1+b);
         * a linear t·(1-b) would turn negative for a group whose P90 |error| reaches 100% */
        double lo = t / (1 + b), hi = t * (1 + b);
        bool flips = w == 0 ? lo <= be->value : hi >= be->value;
        n += (size_t)snprintf(cr->verdict + n, cap - n,
                              " %s's throughput is predicted ±%.0f%% (validate group %s): %.0f-%.0f tok/s/GPU, %s the "
                              "break-even %.0f, so the prediction's own uncertainty %s flip the verdict.",
                              r->name, 100 * b, r->throughput_group, lo, hi,
                              flips ? "reaching" : "short of", be->value, flips ? "could" : "cannot");
    }
}
