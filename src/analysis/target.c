/*
 * target.c — "how many GPUs do I need to finish by a date, and what does it cost?"
 *
 * A size N is judged exactly as `train --gpus N --profile P --tokens T` judges it: the training
 * model predicts tokens/s/GPU at N (its layout search picks the layout at each size), and
 * gpuecon_run_cost turns that into days with the reliability model's goodput (failures,
 * restarts, waiting for spares) and the spares charged. Sizes step in the system's granularity:
 * whole scale-up domains of active GPUs (8 per HGX node; 72 less the hot spares per NVL72 rack).
 *
 * Days fall as N grows (more GPUs; goodput and per-GPU speed fall only slowly), so the smallest
 * size that meets the deadline is bracketed by doubling and then bisected in whole domains.
 * The answer is checked the way a user would check it: N meets the deadline and N − one domain
 * does not (both evaluated, never inferred). Sizes the layout cannot use (no layout divides the
 * batch, nothing fits) count as not meeting it. Evaluations are cached, so the trade table
 * around the answer costs few extra predictions.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CACHE 96

typedef struct tsearch {
    gpuecon_ctx *ctx;
    const gpuecon_catalog *cat;
    const gpuecon_train_request *treq;
    const gpuecon_run_request *rreq;
    gpuecon_target_row rows[CACHE];
    gpuecon_train_result train[CACHE];
    gpuecon_platform_result run[CACHE];
    size_t n;
    int rc;
    gpuecon_error *err;
} tsearch;

/* The size's row (evaluated once). NULL on a hard error (ts->rc set). */
static const gpuecon_target_row *eval_at(tsearch *ts, int gpus)
{
    for (size_t i = 0; i < ts->n; i++)
        if (ts->rows[i].gpus == gpus)
            return &ts->rows[i];
    if (ts->n == CACHE) {
        ts->rc = err_set(ts->err, GPUECON_E_INTERNAL, OPTION("target_days"), 0, 0, "the size search did not converge");
        return NULL;
    }
    size_t k = ts->n++;
    gpuecon_target_row *row = &ts->rows[k];
    memset(row, 0, sizeof *row);
    row->gpus = gpus;
    row->days_to_train = row->total_usd = row->energy_mwh = row->ettr = row->tokens_per_s_per_gpu = NAN;
    gpuecon_train_request q = *ts->treq;
    q.gpus = gpus;
    gpuecon_error e;
    int rc = gpuecon_train_predict(ts->ctx, &q, &ts->train[k], &e);
    if (rc == GPUECON_E_INPUT || rc == GPUECON_E_INFEASIBLE) {
        snprintf(row->why, sizeof row->why, "%.199s", e.message);
        return row;
    }
    if (rc) {
        ts->rc = rc;
        *ts->err = e;
        return NULL;
    }
    gpuecon_run_request r = *ts->rreq;
    r.gpus = gpus;
    r.tokens_per_s_per_gpu = ts->train[k].tokens_per_s_per_gpu;
    rc = gpuecon_run_cost(ts->ctx, ts->cat, &r, &ts->run[k], &e);
    if (rc == GPUECON_E_INFEASIBLE) {
        snprintf(row->why, sizeof row->why, "%.199s", e.message);
        return row;
    }
    if (rc) {
        ts->rc = rc;
        *ts->err = e;
        return NULL;
    }
    const gpuecon_platform_result *p = &ts->run[k];
    row->ok = true;
    row->tokens_per_s_per_gpu = p->tokens_per_s_per_gpu;
    row->ettr = p->ettr;
    row->days_to_train = p->days_to_train;
    row->total_usd = p->total_usd;
    row->energy_mwh = p->energy_mwh;
    row->provisioned_gpus = p->provisioned_gpus;
    row->par = ts->train[k].par;
    return row;
}

static bool meets(const gpuecon_target_row *r, double days)
{
    return r->ok && r->days_to_train <= days;
}

int gpuecon_target_unit(const gpuecon_catalog *cat, const gpuecon_run_request *run, gpuecon_error *err)
{
    const gpuecon_system *sys = gpuecon_catalog_system(cat, run->system);
    char name[160];
    snprintf(name, sizeof name, "%s/%s", run->system, run->tier ? run->tier : "typical");
    const gpuecon_reliability *t = gpuecon_catalog_reliability(cat, name);
    if (!sys || !t)
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0, "no system or reliability tier '%s'", name);
    int spares = run->spares_per_domain >= 0 ? run->spares_per_domain : t->spares_per_domain;
    int unit = sys->scaleup_gpus - spares;
    return unit > 0 ? unit : sys->scaleup_gpus;
}

/* The k-th size of the 1-2-3 grid: unit x 1, 2, 3, 4, 6, 8, 12, 16, 24, ... */
static long grid(int unit, int k)
{
    if (k <= 0)
        return unit;
    long m = 1L << ((k + 1) / 2);
    return k % 2 ? unit * m : unit * 3 * (m / 2);
}

/* Bisects (lo, hi] in whole units for the smallest size that meets the deadline; lo does not
 * meet it, hi does. Returns hi, or -1 on a hard error. */
static long bisect(tsearch *ts, long lo, long hi, int unit, double days)
{
    while (hi - lo > unit) {
        long mid = lo + (hi - lo) / unit / 2 * unit;
        const gpuecon_target_row *r = eval_at(ts, (int)mid);
        if (!r)
            return -1;
        if (meets(r, days))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The trade table: the grid sizes from about half to four times the answer (or the nearest
 * miss), the answer and the size one domain below it, sorted by GPUs. */
static bool in_table(long g, long centre, int unit)
{
    return g == centre || g == centre - unit || (2 * g >= centre && g <= 4 * centre);
}

static int trade_rows(tsearch *ts, long centre, int unit, long max_gpus, gpuecon_target_result *out)
{
    for (int k = 0; grid(unit, k) <= max_gpus && grid(unit, k) <= 4 * centre; k++)
        if (in_table(grid(unit, k), centre, unit) && !eval_at(ts, (int)grid(unit, k)))
            return ts->rc;
    out->n_rows = 0;
    for (size_t i = 0; i < ts->n && out->n_rows < GPUECON_TARGET_ROWS; i++) {
        long g = ts->rows[i].gpus;
        bool on_grid = false;
        for (int k = 0; grid(unit, k) <= g; k++)
            on_grid |= grid(unit, k) == g;
        if ((on_grid && in_table(g, centre, unit)) || g == centre || g == centre - unit)
            out->rows[out->n_rows++] = ts->rows[i];
    }
    for (size_t i = 1; i < out->n_rows; i++) /* insertion sort by GPUs */
        for (size_t j = i; j > 0 && out->rows[j - 1].gpus > out->rows[j].gpus; j--) {
            gpuecon_target_row t = out->rows[j];
            out->rows[j] = out->rows[j - 1];
            out->rows[j - 1] = t;
        }
    return GPUECON_OK;
}

static void take(const tsearch *ts, const gpuecon_target_row *r, gpuecon_target_result *out)
{
    size_t k = (size_t)(r - ts->rows);
    out->train = ts->train[k];
    out->run = ts->run[k];
}

int gpuecon_train_target(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_train_request *treq,
                         const gpuecon_run_request *rreq, double target_days, int max_gpus,
                         gpuecon_target_result *out, gpuecon_error *err)
{
    if (!ctx || !cat || !treq || !rreq || !out || !treq->model || !treq->system)
        return err_set(err, GPUECON_E_INPUT, OPTION("target_days"), 0, 0, "context, catalog, model and system are required");
    memset(out, 0, sizeof *out);
    if (!(target_days > 0) || !isfinite(target_days))
        return err_set(err, GPUECON_E_INPUT, OPTION("target_days"), 0, 0,
                       "%s: a deadline must be a positive number of days", NUM_VAL(target_days));
    if (!(rreq->tokens > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("tokens"), 0, 0, "a deadline needs the token budget (" OPTION("tokens") " T)");
    int unit = gpuecon_target_unit(cat, rreq, err);
    if (unit < 0)
        return unit;
    if (max_gpus <= 0)
        max_gpus = 1000000; /* the reliability model's topology limit is 10M; no cluster is near */
    if (max_gpus < unit)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_gpus"), 0, 0, "%d is below one domain of %d GPUs", max_gpus, unit);
    out->unit = unit;
    out->target_days = target_days;
    tsearch *ts = ctx_alloc(ctx, sizeof *ts);
    if (!ts)
        return err_set(err, GPUECON_E_NOMEM, OPTION("target_days"), 0, 0, "out of memory");
    memset(ts, 0, sizeof *ts);
    ts->ctx = ctx;
    ts->cat = cat;
    ts->treq = treq;
    ts->rreq = rreq;
    ts->err = err;
    long lim = (long)max_gpus / unit * unit;
    /* a first guess from one evaluation, then doubling until a size meets the deadline */
    long g = treq->gpus > 0 ? (long)treq->gpus / unit * unit : 64L * unit;
    if (g < unit)
        g = unit;
    if (g > lim)
        g = lim;
    /* First the sizes of the 1-2-3 grid (unit x 1, 2, 3, 4, 6, 8, 12, ...), which a power-of-two
       batch can use with a balanced layout: a first size, the size its days say should just
       meet the deadline, then step along the grid to the smallest grid size that meets it (hi)
       and the one below it (lo, or 0, which trivially does not). */
    int k = 0;
    while (grid(unit, k + 1) <= g)
        k++;
    const gpuecon_target_row *r = eval_at(ts, (int)grid(unit, k));
    if (r && r->ok) { /* days scale about as 1/N */
        double want = grid(unit, k) * r->days_to_train / target_days;
        while (k > 0 && grid(unit, k - 1) >= want)
            k--;
        while (grid(unit, k) < want && grid(unit, k + 1) <= lim)
            k++;
        r = eval_at(ts, (int)grid(unit, k));
    }
    long hi = -1, lo = 0;
    if (r && meets(r, target_days)) {
        hi = grid(unit, k);
        while (k > 0 && (r = eval_at(ts, (int)grid(unit, k - 1))) && meets(r, target_days))
            hi = grid(unit, --k);
        lo = k > 0 ? grid(unit, k - 1) : 0;
    } else {
        while (r && hi < 0 && grid(unit, k) < lim) {
            lo = grid(unit, k);
            long next = grid(unit, k + 1) > lim ? lim : grid(unit, ++k);
            if ((r = eval_at(ts, (int)next)) && meets(r, target_days))
                hi = next;
            if (next == lim)
                break;
        }
    }
    if (ts->rc == GPUECON_OK && hi > 0)
        hi = bisect(ts, lo, hi, unit, target_days);
    int rc = ts->rc;
    if (rc == GPUECON_OK && hi > 0) {
        /* verified as a user would check it: N meets it, N − one domain does not */
        const gpuecon_target_row *below = hi > unit ? eval_at(ts, (int)(hi - unit)) : NULL;
        while (below && meets(below, target_days) && hi > unit) {
            hi -= unit;
            below = hi > unit ? eval_at(ts, (int)(hi - unit)) : NULL;
        }
        rc = ts->rc;
        if (rc == GPUECON_OK) {
            out->met = true;
            out->gpus_needed = (int)hi;
            take(ts, eval_at(ts, (int)hi), out);
        }
    } else if (rc == GPUECON_OK) {
        /* the nearest miss: the fastest size evaluated */
        const gpuecon_target_row *best = NULL;
        for (size_t i = 0; i < ts->n; i++)
            if (ts->rows[i].ok && (!best || ts->rows[i].days_to_train < best->days_to_train))
                best = &ts->rows[i];
        if (best) {
            out->nearest_gpus = best->gpus;
            out->nearest_days = best->days_to_train;
            take(ts, best, out);
        } else {
            snprintf(out->why, sizeof out->why, "%.199s", ts->rows[0].why);
        }
    }
    if (rc == GPUECON_OK)
        rc = trade_rows(ts, out->met ? out->gpus_needed : out->nearest_gpus > 0 ? out->nearest_gpus : g, unit,
                        lim, out);
    out->evaluations = (int)ts->n;
    ctx_free(ctx, ts, sizeof *ts);
    if (rc == GPUECON_OK && !out->met)
        return out->nearest_gpus > 0
                   ? err_set(err, GPUECON_E_INFEASIBLE, OPTION("target_days"), 0, 0,
                             "no size up to %d GPUs finishes in %s days; the nearest miss is %d GPUs in %.1f days",
                             (int)lim, NUM_VAL(target_days), out->nearest_gpus, out->nearest_days)
                   : err_set(err, GPUECON_E_INFEASIBLE, OPTION("target_days"), 0, 0, "no size can run this job: %s",
                             out->why);
    return rc;
}
