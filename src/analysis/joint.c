/*
 * joint.c — `compare --uncertainty N`: every uncertain input of a comparison sampled together
 * (docs/model.md §7.5), so a verdict comes with the probability that each platform is the
 * cheapest and the spread of its effective cost, not only with break-evens moved one input
 * at a time.
 *
 * A predicted throughput (training or serving) is drawn from its 80% band (band.c, docs/model.md
 * §7.6): lognormal with the band's 10th and 90th percentiles, centred on the band's geometric middle,
 * which is off the point where the band's group is biased; every other input by the stage of its source — a
 * projection or an assumption spreads wider than a measurement or a datasheet. Each input is
 * lognormal around its value, its P90 half-width the band or the stage's range. One input is
 * one draw: platforms on the same system with the same value of an input (the same prediction,
 * TCO or tier, as at several operator tiers) share it, and the price of electricity is one
 * market, one draw per sample for every platform that uses a catalog price.
 * Sample k draws from its own generator seeded from (ctx seed, k) and the platforms are drawn
 * in order, so the answer is the same for any thread count (the loop is serial: a sample
 * costs a few analytic reliability evaluations per platform).
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "io/fields.h"
#include "base/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z90 1.6448536269514722 /* P90 of |N(0,1)|: a half-width x covers 90% of draws */
#define Z80 1.2815515655446004 /* P80 of |N(0,1)|: the 10th and 90th percentiles are at ±Z80·σ */

/* P90 half-width of an input by the stage of its source (assumption; docs/model.md §7.5). */
static double stage_range(gpuecon_stage s)
{
    switch (s) {
    case GPUECON_STAGE_DATASHEET: return 0.02;
    case GPUECON_STAGE_MEASURED: return 0.05;
    case GPUECON_STAGE_PUBLISHER_REPORTED: return 0.10;
    case GPUECON_STAGE_FITTED: return 0.10;
    case GPUECON_STAGE_DERIVED: return 0.15;
    case GPUECON_STAGE_PROJECTION: return 0.30;
    case GPUECON_STAGE_ASSUMPTION: return 0.40;
    case GPUECON_STAGE_USER_INPUT: return 0; /* the caller's own number: the premise */
    default: return 0.40;
    }
}

/* A standard normal deviate (Box-Muller, one of the pair). */
static double normal(rng *r)
{
    double u = rng_u01(r), v = rng_u01(r);
    return sqrt(-2 * log1p(-u)) * cos(6.283185307179586 * v);
}

/* The stage of an entry's field (entry->src[index], fields.h), or fallback without an entry. */
static gpuecon_stage src_stage(const gpuecon_source *src, int index, gpuecon_stage fallback)
{
    return src ? src[index].stage : fallback;
}

/* The P90 half-widths of platform i's inputs (IN_* order); IN_SPARES is a policy, not drawn.
 * *centre: the factor the throughput's draws centre on (the band's geometric middle over the point;
 * 1 without a band). */
static void widths(const pstate *ps, const gpuecon_platform_result *r, double *w, double *centre)
{
    const gpuecon_platform *pl = ps->pl;
    const gpuecon_band *b = &r->band;
    *centre = 1;
    if (b->set && b->low > 0 && b->high > b->low && r->tokens_per_s_per_gpu > 0) {
        /* the band's 10th..90th percentiles as a lognormal's: sigma = ln(high/low) / (2 Z80) */
        double sigma = log(b->high / b->low) / (2 * Z80);
        w[IN_TOKS] = expm1(sigma * Z90);
        *centre = sqrt(b->low * b->high) / r->tokens_per_s_per_gpu;
    } else
        w[IN_TOKS] = r->uses_projection ? stage_range(GPUECON_STAGE_PROJECTION) : stage_range(r->throughput_source.stage);
    w[IN_TCO] = stage_range(r->tco_source.stage);
    w[IN_MTBI] = ps->train ? stage_range(r->mtbi_source.stage) : 0;
    w[IN_PUE] = pl->pue > 0 ? 0
                            : stage_range(src_stage(ps->sys ? ps->sys->src : NULL, FIELD_SYSTEM_PUE,
                                                    GPUECON_STAGE_ASSUMPTION));
    w[IN_PE] = pl->electricity_usd_per_kwh > 0
                   ? 0
                   : stage_range(src_stage(ps->prof ? ps->prof->src : NULL,
                                           FIELD_PROFILE_ELECTRICITY_USD_PER_KWH, GPUECON_STAGE_ASSUMPTION));
    w[IN_SPARES] = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Linear interpolation between order statistics of the sorted v[0..n-1]. */
static double quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double x = q * (double)(n - 1);
    size_t i = (size_t)x;
    return i + 1 < n ? v[i] + (x - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* The platform whose draw platform i shares for input k: the first with the same system and
 * the same value of that input (one prediction, one TCO, one tier: one draw, as the same
 * system appears at several tiers or prices), else i itself. */
static size_t owner(const pstate *ps, size_t i, int k)
{
    for (size_t j = 0; j < i; j++)
        if (ps[j].sys == ps[i].sys && ps[j].in[k] == ps[i].in[k])
            return j;
    return i;
}

/* One sample: every platform's inputs drawn (z: a standard normal per platform and input),
 * its ranked and effective cost; the index of the cheapest (-1 when none is defined). */
static int sample(const pstate *ps, const double (*w)[IN_COUNT], const double *centre,
                  const gpuecon_comparison_result *cr, bool any_met, rng *r, double (*z)[IN_COUNT], double *eff)
{
    double zpe = normal(r); /* the electricity market, shared by the platforms of the sample */
    for (size_t i = 0; i < cr->n_platforms; i++)
        for (int k = 0; k < IN_COUNT; k++)
            z[i][k] = normal(r);
    int best = -1;
    double best_rank = INFINITY;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        double in[IN_COUNT];
        memcpy(in, ps[i].in, sizeof in);
        for (int k = 0; k < IN_COUNT; k++) {
            if (k == IN_SPARES || !(w[i][k] > 0))
                continue;
            double zk = k == IN_PE ? zpe : z[owner(ps, i, k)][k];
            in[k] *= exp(log1p(w[i][k]) / Z90 * zk) * (k == IN_TOKS ? centre[i] : 1);
        }
        if (in[IN_PUE] < 1)
            in[IN_PUE] = 1;
        eff[i] = NAN;
        if (!cr->platforms[i].feasible)
            continue;
        gpuecon_platform_result res;
        memset(&res, 0, sizeof res);
        double rank = compare_rank_cost(&ps[i], in, &res);
        if (!isfinite(rank))
            continue;
        eff[i] = res.effective_usd_per_mtok;
        if (rank < best_rank && !(any_met && !cr->platforms[i].meets_target))
            best_rank = rank, best = (int)i;
    }
    return best;
}

int compare_joint_uncertainty(gpuecon_ctx *ctx, const pstate *ps, int n,
                              gpuecon_comparison_result *cr, gpuecon_error *err)
{
    size_t np = cr->n_platforms;
    if (n <= 0 || np == 0)
        return GPUECON_OK;
    double(*w)[IN_COUNT] = ctx_alloc(ctx, np * sizeof *w);
    double(*z)[IN_COUNT] = ctx_alloc(ctx, np * sizeof *z);
    double *eff = ctx_alloc(ctx, (size_t)n * np * sizeof *eff), *row = ctx_alloc(ctx, np * sizeof *row);
    size_t *wins = ctx_alloc(ctx, np * sizeof *wins);
    double *centre = ctx_alloc(ctx, np * sizeof *centre);
    if (!w || !z || !eff || !row || !wins || !centre) {
        ctx_free(ctx, centre, np * sizeof *centre);
        ctx_free(ctx, w, np * sizeof *w);
        ctx_free(ctx, z, np * sizeof *z);
        ctx_free(ctx, eff, (size_t)n * np * sizeof *eff);
        ctx_free(ctx, row, np * sizeof *row);
        ctx_free(ctx, wins, np * sizeof *wins);
        return err_set(err, GPUECON_E_NOMEM, OPTION("uncertainty"), 0, 0, "out of memory for %d samples", n);
    }
    for (size_t i = 0; i < np; i++)
        widths(&ps[i], &cr->platforms[i], w[i], &centre[i]);
    uint64_t seed = ctx->cfg.seed;
    int defined = 0;
    /* serving: a platform missing the latency targets cannot win while another meets them
       (decide.c rank) */
    bool any_met = false;
    for (size_t i = 0; i < np; i++)
        any_met |= cr->kind == GPUECON_WORKLOAD_SERVE && cr->platforms[i].meets_target;
    for (int k = 0; k < n; k++) {
        rng r;
        rng_seed(&r, seed, (uint64_t)k);
        int best = sample(ps, (const double(*)[IN_COUNT])w, centre, cr, any_met, &r, z, row);
        if (best >= 0)
            wins[best]++, defined++;
        for (size_t i = 0; i < np; i++)
            eff[i * (size_t)n + (size_t)k] = row[i];
    }
    for (size_t i = 0; i < np; i++) {
        gpuecon_platform_result *p = &cr->platforms[i];
        double *v = eff + i * (size_t)n;
        size_t m = 0;
        for (int k = 0; k < n; k++)
            if (isfinite(v[k]))
                v[m++] = v[k];
        qsort(v, m, sizeof *v, cmp_double);
        p->probability_cheapest = defined > 0 ? (double)wins[i] / defined : 0;
        p->effective_usd_per_mtok_p10 = quantile(v, m, 0.1);
        p->effective_usd_per_mtok_p50 = quantile(v, m, 0.5);
        p->effective_usd_per_mtok_p90 = quantile(v, m, 0.9);
    }
    cr->uncertainty_samples = n;
    ctx_free(ctx, w, np * sizeof *w);
    ctx_free(ctx, z, np * sizeof *z);
    ctx_free(ctx, eff, (size_t)n * np * sizeof *eff);
    ctx_free(ctx, row, np * sizeof *row);
    ctx_free(ctx, wins, np * sizeof *wins);
    ctx_free(ctx, centre, np * sizeof *centre);
    return GPUECON_OK;
}
