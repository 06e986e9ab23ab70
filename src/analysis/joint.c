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
 * A serving platform's TPOT and TTFT are drawn from their bands with the throughput's deviate,
 * reversed (a platform drawn slower serves more slowly in every figure): where the workload has
 * latency targets, the sample runs it at its operating load where the drawn latencies meet them
 * there, else at the lower load of its layout where they reach them (serve_curve, compare.h; at the
 * workload's own concurrency the load is fixed), or counts it as missing them, and a platform that
 * misses cannot be the cheapest of a sample in which another meets them. A training platform's days
 * and total cost follow its draws, so a deadline or a budget is met in a share of the samples.
 * Sample k draws from its own generator seeded from (ctx seed, k) and the platforms are drawn
 * in order, so the answer is the same for any thread count (the loop is serial: a sample
 * costs a few analytic reliability evaluations per platform).
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "io/fields.h"
#include "base/rng.h"
#include "model/infer.h"

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

/* A latency's draw: its value is the point x centre x exp(-sigma z), z the throughput's deviate. */
typedef struct lat_draw {
    double sigma, centre;
} lat_draw;

/* The lognormal whose 10th and 90th percentiles are band b's, as a factor on point x: sigma =
 * ln(high/low) / (2 Z80), centred on the band's geometric middle. False when b gives none. */
static bool band_lognormal(const gpuecon_band *b, double x, double *sigma, double *centre)
{
    if (!(b->set && b->low > 0 && b->high > b->low && x > 0))
        return false;
    *sigma = log(b->high / b->low) / (2 * Z80);
    *centre = sqrt(b->low * b->high) / x;
    return true;
}

/* The P90 half-widths of platform i's inputs (IN_* order); IN_SPARES is a policy, not drawn.
 * *centre: the factor the throughput's draws centre on (the band's geometric middle over the point;
 * 1 without a band). lat[0], lat[1]: TPOT's and TTFT's draws (a latency without a band of its own
 * moves as the inverse of the throughput). */
static void widths(const pstate *ps, const gpuecon_platform_result *r, double *w, double *centre, lat_draw *lat)
{
    const gpuecon_platform *pl = ps->pl;
    double sigma;
    *centre = 1;
    if (band_lognormal(&r->band, r->tokens_per_s_per_gpu, &sigma, centre))
        w[IN_TOKS] = expm1(sigma * Z90);
    else
        w[IN_TOKS] = r->uses_projection ? stage_range(GPUECON_STAGE_PROJECTION) : stage_range(r->throughput_source.stage);
    for (int k = 0; k < 2; k++) {
        const gpuecon_band *b = k ? &r->band_ttft : &r->band_tpot;
        if (!band_lognormal(b, k ? r->ttft_ms : r->tpot_ms, &lat[k].sigma, &lat[k].centre))
            lat[k] = (lat_draw){log1p(w[IN_TOKS]) / Z90, 1 / *centre};
    }
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

/* The larger of point j's drawn latencies over their targets (<= 1: both met). */
static double slo_ratio(const serve_curve *cv, size_t j, double ftpot, double fttft, const gpuecon_workload *wl)
{
    double g = 0;
    if (wl->tpot_ms_target > 0)
        g = fmax(g, cv->tpot_ms[j] * ftpot / wl->tpot_ms_target);
    if (wl->ttft_ms_target > 0)
        g = fmax(g, cv->ttft_ms[j] * fttft / wl->ttft_ms_target);
    return g;
}

/* A serving platform in a sample whose throughput deviate is zt: at its operating load where the
 * drawn latencies meet wl's targets there; else at the load below it where they reach them
 * (between two loads of its curve, the latencies and the throughput interpolated in log load), or,
 * where not even the lowest load meets them, at the lowest load, *met false. Returns the
 * throughput at that load over the operating point's, the factor on the drawn throughput. */
static double serve_draw(const serve_curve *cv, const lat_draw *lat, double zt, const gpuecon_workload *wl, bool *met,
                         bool *lowered)
{
    double ftpot = lat[0].centre * exp(-lat[0].sigma * zt), fttft = lat[1].centre * exp(-lat[1].sigma * zt);
    size_t top = cv->n - 1, j = top;
    double gu = slo_ratio(cv, top, ftpot, fttft, wl), gj = gu;
    *met = gu <= 1;
    *lowered = false;
    if (*met)
        return 1;
    while (j > 0 && (gj = slo_ratio(cv, j - 1, ftpot, fttft, wl)) > 1)
        j--, gu = gj;
    if (j == 0) /* the lowest load misses too */
        return cv->toks[0] / cv->toks[top];
    j--; /* point j meets, j + 1 misses (gu): the load between where the ratio reaches 1 */
    *met = *lowered = true;
    double t = gu > gj ? (1 - gj) / (gu - gj) : 0;
    double lt = log(cv->toks[j]) + t * (log(cv->toks[j + 1]) - log(cv->toks[j]));
    return exp(lt) / cv->toks[top];
}

/* One platform's part of the sampling: its widths and draws' centres (fixed), its deviates and
 * outcome in the current sample, and its counts over the samples. */
typedef struct pdraw {
    double w[IN_COUNT];  /* P90 half-widths (widths) */
    double centre;       /* the throughput draws' centre */
    lat_draw lat[2];     /* TPOT, TTFT */
    double z[IN_COUNT];  /* this sample's standard normals */
    double eff, rank;    /* this sample's effective and ranked cost (NaN: none) */
    bool met, lowered;   /* this sample: whether it meets the serving targets (below its operating load) or
                            the training deadline */
    bool within;         /* this sample, training: whether the run's total fits the budget */
    size_t wins, mets, lows, withins, counted; /* samples it was cheapest in, met the targets or deadline in (at a
                                                  lower load), fit the budget in, had a cost in */
} pdraw;

/* Whether a serving platform's latencies are drawn: a curve of its loads (targets, aggregated, not
 * sized at a rate) and a predicted, uncertain throughput. */
static bool served_draws(const pstate *ps, const gpuecon_platform_result *r, const pdraw *d)
{
    return ps->curve.n > 0 && !r->measured && d->w[IN_TOKS] > 0;
}

/* One sample: every platform's inputs drawn, its ranked and effective cost and whether it meets
 * the serving targets; the index of the cheapest (-1 when none is defined). */
static int sample(const pstate *ps, pdraw *d, const gpuecon_comparison_result *cr, const gpuecon_workload *wl, rng *r)
{
    double zpe = normal(r); /* the electricity market, shared by the platforms of the sample */
    for (size_t i = 0; i < cr->n_platforms; i++)
        for (int k = 0; k < IN_COUNT; k++)
            d[i].z[k] = normal(r);
    bool any_met = false;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        double in[IN_COUNT];
        memcpy(in, ps[i].in, sizeof in);
        for (int k = 0; k < IN_COUNT; k++) {
            if (k == IN_SPARES || !(d[i].w[k] > 0))
                continue;
            double zk = k == IN_PE ? zpe : d[owner(ps, i, k)].z[k];
            in[k] *= exp(log1p(d[i].w[k]) / Z90 * zk) * (k == IN_TOKS ? d[i].centre : 1);
        }
        if (in[IN_PUE] < 1)
            in[IN_PUE] = 1;
        d[i].eff = d[i].rank = NAN;
        d[i].met = cr->platforms[i].meets_target;
        d[i].lowered = false;
        d[i].within = cr->platforms[i].within_budget;
        if (!cr->platforms[i].feasible)
            continue;
        if (served_draws(&ps[i], &cr->platforms[i], &d[i]))
            in[IN_TOKS] *= serve_draw(&ps[i].curve, d[i].lat, d[owner(ps, i, IN_TOKS)].z[IN_TOKS], wl, &d[i].met,
                                    &d[i].lowered);
        gpuecon_platform_result res;
        memset(&res, 0, sizeof res);
        double rank = compare_rank_cost(&ps[i], in, &res);
        if (!isfinite(rank))
            continue;
        d[i].eff = res.effective_usd_per_mtok;
        d[i].rank = rank;
        if (cr->kind == GPUECON_WORKLOAD_TRAIN && ps[i].tokens > 0) { /* the deadline and budget at these draws */
            double days = ps[i].tokens / (in[IN_TOKS] * res.gpus * res.ettr) / 86400;
            d[i].met = !(wl->target_days > 0) || days <= wl->target_days * (1 + 1e-9);
            d[i].within = !(wl->budget_usd > 0) || ps[i].tokens / 1e6 * res.effective_usd_per_mtok <= wl->budget_usd;
        }
        any_met |= cr->kind == GPUECON_WORKLOAD_SERVE && d[i].met;
    }
    /* serving: a platform missing the latency targets cannot win while another meets them
       (decide.c rank) */
    int best = -1;
    double best_rank = INFINITY;
    for (size_t i = 0; i < cr->n_platforms; i++)
        if (d[i].rank < best_rank && !(any_met && !d[i].met))
            best_rank = d[i].rank, best = (int)i;
    return best;
}

int compare_joint_uncertainty(gpuecon_ctx *ctx, const pstate *ps, const gpuecon_workload *wl, int n,
                              gpuecon_comparison_result *cr, gpuecon_error *err)
{
    size_t np = cr->n_platforms;
    if (n <= 0 || np == 0)
        return GPUECON_OK;
    pdraw *d = ctx_alloc(ctx, np * sizeof *d);
    double *eff = ctx_alloc(ctx, (size_t)n * np * sizeof *eff);
    if (!d || !eff) {
        ctx_free(ctx, d, np * sizeof *d);
        ctx_free(ctx, eff, (size_t)n * np * sizeof *eff);
        return err_set(err, GPUECON_E_NOMEM, OPTION("uncertainty"), 0, 0, "out of memory for %d samples", n);
    }
    memset(d, 0, np * sizeof *d);
    for (size_t i = 0; i < np; i++)
        widths(&ps[i], &cr->platforms[i], d[i].w, &d[i].centre, d[i].lat);
    uint64_t seed = ctx->cfg.seed;
    int defined = 0;
    for (int k = 0; k < n; k++) {
        rng r;
        rng_seed(&r, seed, (uint64_t)k);
        int best = sample(ps, d, cr, wl, &r);
        if (best >= 0)
            d[best].wins++, defined++;
        for (size_t i = 0; i < np; i++) {
            eff[i * (size_t)n + (size_t)k] = d[i].eff;
            if (isfinite(d[i].rank))
                d[i].counted++, d[i].mets += d[i].met, d[i].lows += d[i].lowered, d[i].withins += d[i].within;
        }
    }
    bool targets = cr->kind == GPUECON_WORKLOAD_SERVE ? wl->tpot_ms_target > 0 || wl->ttft_ms_target > 0
                   : cr->kind == GPUECON_WORKLOAD_TRAIN && wl->target_days > 0;
    bool budget = cr->kind == GPUECON_WORKLOAD_TRAIN && wl->budget_usd > 0;
    for (size_t i = 0; i < np; i++) {
        gpuecon_platform_result *p = &cr->platforms[i];
        double *v = eff + i * (size_t)n;
        size_t m = 0;
        for (int k = 0; k < n; k++)
            if (isfinite(v[k]))
                v[m++] = v[k];
        qsort(v, m, sizeof *v, cmp_double);
        p->probability_cheapest = defined > 0 ? (double)d[i].wins / defined : 0;
        /* serving: only where the latencies were drawn (a platform sized at a rate or disaggregated
           draws its throughput alone: its meeting the targets would be the point's, not a share) */
        bool drawn = cr->kind != GPUECON_WORKLOAD_SERVE || served_draws(&ps[i], p, &d[i]);
        p->probability_meets_target = targets && drawn && d[i].counted > 0 ? (double)d[i].mets / d[i].counted : NAN;
        p->probability_lower_load = targets && drawn && d[i].counted > 0 && cr->kind == GPUECON_WORKLOAD_SERVE
                                        ? (double)d[i].lows / d[i].counted : NAN;
        p->probability_within_budget = budget && d[i].counted > 0 ? (double)d[i].withins / d[i].counted : NAN;
        p->effective_usd_per_mtok_p10 = quantile(v, m, 0.1);
        p->effective_usd_per_mtok_p50 = quantile(v, m, 0.5);
        p->effective_usd_per_mtok_p90 = quantile(v, m, 0.9);
    }
    cr->uncertainty_samples = n;
    ctx_free(ctx, d, np * sizeof *d);
    ctx_free(ctx, eff, (size_t)n * np * sizeof *eff);
    return GPUECON_OK;
}
