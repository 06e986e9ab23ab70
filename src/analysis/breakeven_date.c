/*
 * breakeven_date.c — when a platform starts to win: the first start date from which a run of
 * the comparison's workload is cheaper on the leader than on the runner-up as their throughput
 * timelines (timeline.c) mature, and the series of both costs by date that the report draws
 * (decide.c asks for it; docs/model.md §7.8).
 *
 * Key choice: one rule between points, the run's own (timeline.c): a point's throughput holds
 * from its date until the next point, and a run starting on a day is costed exactly as compare
 * costs a run with that start_date (timeline_run at the goodput of the throughput in force on
 * the start). So the break-even date and a run starting on it agree by construction. A platform
 * whose timeline has not started (and that has no measurement for before it) is not rated on
 * that day: the scan starts where both are rated, and the text says so.
 */
#include "analysis/analysis.h"
#include "compare.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct timeline_pair {
    const pstate *ps[2]; /* a (the leader at the end), b */
} timeline_pair;

/* The first day on which platform ps has a throughput in force: its first point's date when it
 * has a timeline and no measurement for before it; LONG_MIN otherwise (always rated). */
static long rated_from(const pstate *ps)
{
    const gpuecon_platform *pl = ps->pl;
    return pl->n_timeline && !(pl->measured_tokens_per_s > 0) ? pl->timeline[0].day : LONG_MIN;
}

/* Throughput of platform i in force on `day` (the step rule): the point in force, its
 * measurement before the first point (NaN without one: not rated), or its evaluated throughput
 * when it has no timeline; with `pace` > 0, the last point grows by exp(pace·(day − last))
 * after the timeline ends (the what-if of the vanishing lead, beyond the last point). */
static double tps_on(const timeline_pair *tp, int i, long day, double pace)
{
    const gpuecon_platform *pl = tp->ps[i]->pl;
    if (!pl->n_timeline)
        return tp->ps[i]->in[IN_TOKS];
    const gpuecon_timeline_point *last = &pl->timeline[pl->n_timeline - 1];
    int k = timeline_in_force(pl->timeline, pl->n_timeline, day);
    double v = k >= 0 ? pl->timeline[k].tokens_per_s_per_gpu
                      : pl->measured_tokens_per_s > 0 ? pl->measured_tokens_per_s : NAN;
    if (pace > 0 && day > last->day)
        v = last->tokens_per_s_per_gpu * exp(pace * (double)(day - last->day));
    return v;
}

/* cost of a over cost of b with the software in force on `day`, minus 1 (raw: at full
 * goodput); NaN when either is not rated that day */
static double gap_on(const timeline_pair *tp, long day, double pace_b, bool raw)
{
    double in_a[IN_COUNT], in_b[IN_COUNT];
    memcpy(in_a, tp->ps[0]->in, sizeof in_a);
    memcpy(in_b, tp->ps[1]->in, sizeof in_b);
    in_a[IN_TOKS] = tps_on(tp, 0, day, 0);
    in_b[IN_TOKS] = tps_on(tp, 1, day, pace_b);
    if (!(in_a[IN_TOKS] > 0) || !(in_b[IN_TOKS] > 0))
        return NAN;
    gpuecon_platform_result ra, rb;
    double ca = compare_rank_cost(tp->ps[0], in_a, raw ? &ra : NULL);
    double cb = compare_rank_cost(tp->ps[1], in_b, raw ? &rb : NULL);
    if (raw) {
        ca = ra.usd_per_mtok;
        cb = rb.usd_per_mtok;
    }
    return ca / cb - 1;
}

/* The ranked cost of a run of the workload's tokens on ps starting on `day`, costed as compare
 * costs a run with that start_date (compare.c apply_timeline): goodput at the throughput in
 * force on the start, then the tokens-weighted harmonic mean of the points in force day by
 * day. NaN when no throughput is in force on `day`. */
static double run_cost_on(const pstate *ps, long day)
{
    const gpuecon_platform *pl = ps->pl;
    double in[IN_COUNT];
    memcpy(in, ps->in, sizeof in);
    if (!pl->n_timeline)
        return compare_rank_cost(ps, in, NULL);
    int k = timeline_in_force(pl->timeline, pl->n_timeline, day);
    double before = pl->measured_tokens_per_s;
    in[IN_TOKS] = k >= 0 ? pl->timeline[k].tokens_per_s_per_gpu : before;
    if (!(in[IN_TOKS] > 0))
        return NAN;
    gpuecon_platform_result r;
    memset(&r, 0, sizeof r);
    if (!isfinite(compare_rank_cost(ps, in, &r)))
        return NAN;
    bool used[GPUECON_TIMELINE_MAX];
    in[IN_TOKS] = timeline_run(pl->timeline, pl->n_timeline, day, before, ps->tokens, r.gpus * r.ettr * 86400, used);
    return compare_rank_cost(ps, in, NULL);
}

/* cost of a run starting on `day` on a over the same run on b, minus 1 */
static double run_gap(const timeline_pair *tp, long day)
{
    return run_cost_on(tp->ps[0], day) / run_cost_on(tp->ps[1], day) - 1;
}

/* The first day in [lo, hi] where gap_on changes sign from its value at lo (bisection in
 * days); -1 when it does not. */
static long first_flip(const timeline_pair *tp, long lo, long hi, double pace_b, long step)
{
    double g0 = gap_on(tp, lo, pace_b, false);
    if (!isfinite(g0))
        return -1;
    for (long a = lo; a < hi; a += step) {
        long b = a + step > hi ? hi : a + step;
        double gb = gap_on(tp, b, pace_b, false);
        if (isfinite(gb) && (gb < 0) != (g0 < 0)) {
            while (b - a > 1) {
                long m = a + (b - a) / 2;
                double gm = gap_on(tp, m, pace_b, false);
                if ((gm < 0) == (g0 < 0))
                    a = m;
                else
                    b = m;
            }
            return b;
        }
    }
    return -1;
}

/* Published pace of a timeline: the mean exponential growth per day from its first to its
 * last point that is not a projection; 0 when it has fewer than two such points. */
static double pace_of(const gpuecon_platform *pl)
{
    int first = -1, last = -1;
    for (size_t i = 0; i < pl->n_timeline; i++)
        if (pl->timeline[i].source.stage != GPUECON_STAGE_PROJECTION) {
            if (first < 0)
                first = (int)i;
            last = (int)i;
        }
    if (first < 0 || last <= first)
        return 0;
    const gpuecon_timeline_point *a = &pl->timeline[first], *b = &pl->timeline[last];
    return log(b->tokens_per_s_per_gpu / a->tokens_per_s_per_gpu) / (double)(b->day - a->day);
}

/* The series of the leader's performance per TCO over the other's at each point date on which
 * both are rated (the software in force that day), by date. */
static void fill_series(gpuecon_comparison_result *cr, const timeline_pair *tp, long rated)
{
    cr->n_series = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < tp->ps[k]->pl->n_timeline; i++) {
            const gpuecon_timeline_point *pt = &tp->ps[k]->pl->timeline[i];
            if (pt->day < rated)
                continue;
            size_t j = 0;
            while (j < cr->n_series && strcmp(cr->series[j].date, pt->date))
                j++;
            if (j == cr->n_series) {
                if (j == sizeof cr->series / sizeof cr->series[0])
                    continue;
                cr->n_series++;
                snprintf(cr->series[j].date, sizeof cr->series[j].date, "%s", pt->date);
                cr->series[j].perf_per_tco = 1 / (gap_on(tp, pt->day, 0, true) + 1);
                cr->series[j].effective_ratio = 1 / (gap_on(tp, pt->day, 0, false) + 1);
                cr->series[j].projection = false;
            }
            cr->series[j].projection |= pt->source.stage == GPUECON_STAGE_PROJECTION;
        }
    for (size_t i = 1; i < cr->n_series; i++) /* by date (ISO text sorts by date) */
        for (size_t j = i; j > 0 && strcmp(cr->series[j - 1].date, cr->series[j].date) > 0; j--) {
            __typeof__(cr->series[0]) t = cr->series[j];
            cr->series[j] = cr->series[j - 1];
            cr->series[j - 1] = t;
        }
}

void breakeven_dates(gpuecon_comparison_result *cr, const pstate *ps)
{
    int c = cr->cheapest, r = cr->runner_up;
    cr->breakeven_date[0] = '\0';
    cr->timeline_text[0] = '\0';
    cr->n_series = 0;
    if (c < 0 || r < 0 || cr->kind != GPUECON_WORKLOAD_TRAIN || (!ps[c].pl->n_timeline && !ps[r].pl->n_timeline))
        return;
    /* the span of the points of either timeline, from the first day both are rated */
    long lo = LONG_MAX, hi = LONG_MIN;
    int who[2] = {c, r};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < ps[who[k]].pl->n_timeline; i++) {
            long d = ps[who[k]].pl->timeline[i].day;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    long rc = rated_from(&ps[c]), rr = rated_from(&ps[r]);
    long rated = rc > rr ? rc : rr;
    lo = rated > lo ? rated : lo;
    timeline_pair tp = {{&ps[c], &ps[r]}};
    /* a = the platform a run starting on the last point date is cheaper on (runs starting later
       use the last points only, so the order holds from then on) */
    if (run_gap(&tp, hi) > 0) {
        tp.ps[0] = &ps[r];
        tp.ps[1] = &ps[c];
        int t = c;
        c = r;
        r = t;
    }
    const gpuecon_platform_result *a = &cr->platforms[c], *b = &cr->platforms[r];
    size_t n = 0, cap = sizeof cr->timeline_text;
    char d1[11];
    /* the last start day in [lo, hi) on which b is not dearer: a wins every start after it.
       Day by day over spans up to about eleven years; over longer ones (dates run to 9999) in
       steps of span/4000 days, the last bracket then bisected to the day. */
    long last_b = LONG_MIN, step = (hi - lo) / 4000 + 1;
    for (long d = hi - 1; d >= lo && last_b == LONG_MIN; d -= step) {
        double g = run_gap(&tp, d);
        if (isfinite(g) && g >= 0)
            last_b = d;
    }
    for (long x = last_b, z = last_b + step < hi ? last_b + step : hi; last_b != LONG_MIN && z - x > 1;) {
        long m = x + (z - x) / 2; /* invariant: b not dearer on x, a cheaper on z (or z = hi) */
        double g = run_gap(&tp, m);
        if (isfinite(g) && g >= 0)
            x = last_b = m;
        else
            z = m;
    }
    if (last_b != LONG_MIN) {
        gpuecon_date_format(last_b + 1, cr->breakeven_date, sizeof cr->breakeven_date);
        n += (size_t)snprintf(cr->timeline_text + n, cap - n, "%s becomes cheaper than %s for a run starting on or "
                              "after %s (each throughput in force from its point's date until the next point)",
                              a->name, b->name, cr->breakeven_date);
    } else {
        gpuecon_date_format(lo, d1, sizeof d1);
        n += (size_t)snprintf(cr->timeline_text + n, cap - n, "%s is cheaper than %s for a run starting on any date "
                              "from %s (each throughput in force from its point's date until the next point)",
                              a->name, b->name, d1);
    }
    /* a platform whose timeline starts after the other's first point is not rated before it */
    for (int k = 0; k < 2 && n < cap; k++) {
        const pstate *p = tp.ps[k], *o = tp.ps[1 - k];
        if (rated_from(p) != LONG_MIN && o->pl->n_timeline && o->pl->timeline[0].day < p->pl->timeline[0].day)
            n += (size_t)snprintf(cr->timeline_text + n, cap - n, "; %s is not rated before its first point (%s): "
                                  "no throughput is given for it before then", cr->platforms[k ? r : c].name,
                                  p->pl->timeline[0].date);
    }
    cr->series_leader = c;
    cr->series_other = r;
    fill_series(cr, &tp, lo);
    /* a's lead vanishes if b's software keeps improving at its published pace */
    double pace = pace_of(tp.ps[1]->pl);
    long far = hi + 3650, gone = pace > 0 ? first_flip(&tp, hi, far, pace, 30) : -1;
    gpuecon_platform_result *am = &cr->platforms[c];
    am->advantage_vanishes_date[0] = '\0';
    if (gone >= 0) {
        gpuecon_date_format(gone, am->advantage_vanishes_date, sizeof am->advantage_vanishes_date);
        if (n < cap)
            n += (size_t)snprintf(cr->timeline_text + n, cap - n, "; its lead would vanish on %s if %s kept "
                                  "improving at its published pace (%+.1f%% a month) while %s followed its own points (flat after its last)",
                                  am->advantage_vanishes_date, b->name, 100 * (exp(pace * 30.44) - 1), a->name);
    } else if (n < cap) {
        n += (size_t)snprintf(cr->timeline_text + n, cap - n, "; %s has no published pace to catch up at", b->name);
    }
}
