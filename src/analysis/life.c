/*
 * life.c — the life of an owned cluster: cost per million tokens over its years, with the
 * software's improvements applied year by year, against renting the same GPUs, and the month
 * from which owning has cost less than renting.
 *
 * Owning pays the capex up front and, every month, data-hall rent for the IT power, the fixed
 * $/GPU-h, capex-proportional maintenance, and electricity for the hours the cluster trains;
 * renting pays `rent_usd_per_gpu_hour` for the hours it trains and nothing else. Both are
 * discounted monthly at the profile's cost of capital, so the crossing month is where the
 * present value of the rent paid so far first exceeds that of owning. Throughput (and so the
 * tokens trained) is the timeline's point in force at the start of each year (or constant);
 * goodput and spares are the reliability model's (gpuecon_run_cost), the same for both.
 */
#include "analysis/analysis.h"
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HOURS_PER_MONTH (8760.0 / 12)

void gpuecon_life_request_init(gpuecon_life_request *r)
{
    memset(r, 0, sizeof *r);
    gpuecon_run_request_init(&r->run);
}

static int check(const gpuecon_life_request *q, gpuecon_error *err)
{
    if (q->life_years < 0 || q->life_years > 30)
        return err_set(err, GPUECON_E_INPUT, OPTION("life_years"), 0, 0, "%s is out of range; allowed 0.1 to 30 "
                       "(0: the profile's life)", NUM_VAL(q->life_years));
    if (q->utilisation != 0 && !(q->utilisation > 0 && q->utilisation <= 1))
        return err_set(err, GPUECON_E_INPUT, OPTION("utilisation"), 0, 0,
                       "%s is out of range; allowed above 0 to 1", NUM_VAL(q->utilisation));
    if (q->workloads_per_year != 0 && !(q->workloads_per_year > 0 && q->workloads_per_year <= 1e4))
        return err_set(err, GPUECON_E_INPUT, OPTION("workloads_per_year"), 0, 0, "%s is out of range; allowed above 0 "
                       "to 10,000", NUM_VAL(q->workloads_per_year));
    if (q->utilisation > 0 && q->workloads_per_year > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("workloads_per_year"), 0, 0, "give a utilisation or workloads per "
                       "year, not both");
    if (!(q->rent_usd_per_gpu_hour > 0) || q->rent_usd_per_gpu_hour > 1000)
        return err_set(err, GPUECON_E_INPUT, OPTION("rent_usd_per_gpu_hour"), 0, 0, "the rental price must be above $0 "
                       "and at most $1,000 per GPU-hour");
    if (q->n_timeline > GPUECON_TIMELINE_MAX)
        return err_set(err, GPUECON_E_INPUT, "throughput_timeline", 0, 0, "at most %d points", GPUECON_TIMELINE_MAX);
    return GPUECON_OK;
}

int gpuecon_cluster_life(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_life_request *q,
                         gpuecon_life_result *out, gpuecon_error *err)
{
    if (!ctx || !cat || !q || !out)
        return err_set(err, GPUECON_E_INPUT, "life", 0, 0, "context, catalog, request and result are required");
    memset(out, 0, sizeof *out);
    int rc = check(q, err);
    if (rc)
        return rc;
    /* one run: its goodput, spares, days (and the throughput in force at the start) */
    gpuecon_run_request run = q->run;
    double tps0 = run.tokens_per_s_per_gpu;
    if (q->n_timeline && q->has_start) {
        int k = timeline_in_force(q->timeline, q->n_timeline, q->start_day);
        if (k >= 0)
            tps0 = q->timeline[k].tokens_per_s_per_gpu;
        else if (!(tps0 > 0))
            return err_set(err, GPUECON_E_INPUT, "start_date", 0, 0, "no throughput is in force on the start date");
    }
    run.tokens_per_s_per_gpu = tps0;
    gpuecon_platform_result pr;
    if ((rc = gpuecon_run_cost(ctx, cat, &run, &pr, err)))
        return rc;
    const gpuecon_system *sys = gpuecon_catalog_system(cat, run.system);
    const gpuecon_profile *prof = gpuecon_catalog_profile(cat, run.profile);
    gpuecon_tco t;
    if ((rc = gpuecon_tco_price(prof, sys, run.pue, run.usd_per_gpu_hour, &t, err)))
        return rc;
    double life = q->life_years > 0 ? q->life_years : prof->life_years;
    double util = q->utilisation;
    if (q->workloads_per_year > 0) {
        util = q->workloads_per_year * pr.days_to_train / 365;
        if (util > 1)
            return err_set(err, GPUECON_E_INFEASIBLE, OPTION("workloads_per_year"), 0, 0,
                           "%s runs of %.1f days do not fit in a year (%.0f%% of it)", NUM_VAL(q->workloads_per_year),
                           pr.days_to_train, 100 * util);
    }
    if (!(util > 0))
        util = 1;
    double gpus = pr.charged_gpus; /* the job's GPUs with its spares, owned or rented alike */
    double maint_h = prof->maintenance_per_year * t.capex_usd / 8760;
    double own_fixed_h = t.colo_usd_per_hour + t.fixed_usd_per_hour + maint_h; /* every hour */
    double own_run_h = t.power_usd_per_hour;                                   /* hours it trains */
    double mr = prof->rate / 12;
    out->life_years = life;
    out->utilisation = util;
    out->capex_usd = t.capex_usd * gpus;
    out->ettr = pr.ettr;
    out->gpus = pr.gpus;
    out->charged_gpus = gpus;
    out->tco_usd_per_gpu_hour = t.usd_per_gpu_hour;
    out->rent_usd_per_gpu_hour = q->rent_usd_per_gpu_hour;
    double own = out->capex_usd, rent = 0, own_total = 0, rent_total = 0, tokens_total = 0;
    out->own_beats_rent_month = -1;
    int months = (int)ceil(life * 12);
    for (int m = 1; m <= months; m++) {
        double disc = pow(1 + mr, -m);
        double hours = HOURS_PER_MONTH * util;
        own += gpus * (own_fixed_h * HOURS_PER_MONTH + own_run_h * hours) * disc;
        rent += gpus * q->rent_usd_per_gpu_hour * hours * disc;
        if (out->own_beats_rent_month < 0 && rent >= own)
            out->own_beats_rent_month = m;
    }
    out->own_pv_usd = own;
    out->rent_pv_usd = rent;
    /* cost per 1M tokens, year by year: owning pays its TCO for every hour, renting only for
       the hours that train; throughput is the timeline's in force at the start of the year */
    size_t ny = (size_t)ceil(life);
    if (ny > GPUECON_LIFE_YEARS)
        ny = GPUECON_LIFE_YEARS;
    for (size_t y = 0; y < ny; y++) {
        double frac = life - (double)y < 1 ? life - (double)y : 1;
        double tps = tps0;
        if (q->n_timeline) {
            long day = (q->has_start ? q->start_day : q->timeline[0].day) + (long)(365.25 * (double)y);
            int k = timeline_in_force(q->timeline, q->n_timeline, day);
            if (k >= 0)
                tps = q->timeline[k].tokens_per_s_per_gpu;
        }
        double hours = 8760 * frac * util;
        double tokens = pr.gpus * tps * pr.ettr * 3600 * hours;
        double own_y = gpus * t.usd_per_gpu_hour * 8760 * frac, rent_y = gpus * q->rent_usd_per_gpu_hour * hours;
        gpuecon_life_year *yr = &out->years[y];
        yr->year = (int)y + 1;
        yr->tokens_per_s_per_gpu = tps;
        yr->tokens = tokens;
        yr->own_usd_per_mtok = own_y / tokens * 1e6;
        yr->rent_usd_per_mtok = rent_y / tokens * 1e6;
        own_total += own_y;
        rent_total += rent_y;
        tokens_total += tokens;
    }
    out->n_years = ny;
    out->tokens = tokens_total;
    out->runs = tokens_total / run.tokens;
    out->own_usd_per_mtok = own_total / tokens_total * 1e6;
    out->rent_usd_per_mtok = rent_total / tokens_total * 1e6;
    /* levelised: owning costs its TCO every hour, renting the rent for the hours used */
    out->breakeven_utilisation = t.usd_per_gpu_hour / q->rent_usd_per_gpu_hour;
    return GPUECON_OK;
}

int compare_life(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, const pstate *ps,
                 gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_platform *pl = ps->pl;
    if (!(pl->rent_usd_per_gpu_hour > 0) || !ps->train || !res->feasible)
        return GPUECON_OK;
    gpuecon_life_request q;
    gpuecon_life_request_init(&q);
    q.run.system = pl->system;
    q.run.profile = pl->profile;
    q.run.tier = pl->tier;
    q.run.gpus = res->gpus;
    q.run.tokens_per_s_per_gpu = res->timeline ? res->start_tokens_per_s_per_gpu : ps->in[IN_TOKS];
    q.run.tokens = res->tokens;
    q.run.pue = pl->pue;
    q.run.electricity_usd_per_kwh = pl->electricity_usd_per_kwh;
    q.run.mtbi_gpu_days = pl->mtbi_gpu_days;
    q.run.spares_per_domain = pl->spares_per_domain;
    q.run.spare_domains = pl->spare_domains;
    q.run.spares_do_other_work = pl->spares_do_other_work;
    q.life_years = pl->life_years;
    q.utilisation = pl->utilisation;
    q.workloads_per_year = pl->workloads_per_year;
    q.rent_usd_per_gpu_hour = pl->rent_usd_per_gpu_hour;
    q.timeline = pl->timeline;
    q.n_timeline = pl->n_timeline;
    q.has_start = c->workload.has_start_date;
    q.start_day = c->workload.start_day;
    res->life_result = ctx_alloc(ctx, sizeof *res->life_result);
    if (!res->life_result)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    gpuecon_error e;
    int rc = gpuecon_cluster_life(ctx, cat, &q, res->life_result, &e);
    if (rc == GPUECON_E_INFEASIBLE || rc == GPUECON_E_INPUT) {
        snprintf(res->life_why, sizeof res->life_why, "%.199s", e.message);
        return GPUECON_OK;
    }
    if (rc) {
        *err = e;
        return rc;
    }
    res->life = true;
    return GPUECON_OK;
}
