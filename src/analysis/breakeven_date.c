/*
 * breakeven_date.c — when a platform starts to win: the date from which the leader of a
 * comparison becomes cheaper than the runner-up as their throughput timelines (timeline.c)
 * mature, interpolated linearly between the published points, and the series of both costs
 * by date that the report draws (decide.c asks for it; docs/model.md §7.8).
 *
 * Key choice: each day's cost is compare's ranked cost at that day's throughputs (every other
 * input as evaluated), so the date agrees with the verdict's own arithmetic.
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

/* Throughput of platform i on `day`: its timeline interpolated (its measurement before the
 * first point), or its evaluated throughput when it has none; with `pace` > 0 and `from`, the
 * last point grows by exp(pace·(day − last)) after the timeline ends. */
static double tps_on(const timeline_pair *tp, int i, long day, double pace)
{
    const gpuecon_platform *pl = tp->ps[i]->pl;
    if (!pl->n_timeline)
        return tp->ps[i]->in[IN_TOKS];
    const gpuecon_timeline_point *last = &pl->timeline[pl->n_timeline - 1];
    double v = timeline_interp(pl->timeline, pl->n_timeline, day, pl->measured_tokens_per_s);
    if (pace > 0 && day > last->day)
        v = last->tokens_per_s_per_gpu * exp(pace * (double)(day - last->day));
    return v;
}

/* cost of a over cost of b on `day`, minus 1 (raw: at full goodput) */
static double gap_on(const timeline_pair *tp, long day, double pace_b, bool raw)
{
    double in_a[IN_COUNT], in_b[IN_COUNT];
    memcpy(in_a, tp->ps[0]->in, sizeof in_a);
    memcpy(in_b, tp->ps[1]->in, sizeof in_b);
    in_a[IN_TOKS] = tps_on(tp, 0, day, 0);
    in_b[IN_TOKS] = tps_on(tp, 1, day, pace_b);
    gpuecon_platform_result ra, rb;
    double ca = compare_rank_cost(tp->ps[0], in_a, raw ? &ra : NULL);
    double cb = compare_rank_cost(tp->ps[1], in_b, raw ? &rb : NULL);
    if (raw) {
        ca = ra.usd_per_mtok;
        cb = rb.usd_per_mtok;
    }
    return ca / cb - 1;
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

void breakeven_dates(gpuecon_comparison_result *cr, const pstate *ps)
{
    int c = cr->cheapest, r = cr->runner_up;
    cr->breakeven_date[0] = '\0';
    cr->timeline_text[0] = '\0';
    if (c < 0 || r < 0 || cr->kind != GPUECON_WORKLOAD_TRAIN || (!ps[c].pl->n_timeline && !ps[r].pl->n_timeline))
        return;
    /* a = the platform that leads at the latest point of either timeline */
    long lo = LONG_MAX, hi = LONG_MIN;
    int who[2] = {c, r};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < ps[who[k]].pl->n_timeline; i++) {
            long d = ps[who[k]].pl->timeline[i].day;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    timeline_pair tp = {{&ps[c], &ps[r]}};
    if (gap_on(&tp, hi, 0, false) > 0) { /* the runner-up leads at the end: swap */
        tp.ps[0] = &ps[r];
        tp.ps[1] = &ps[c];
        int t = c;
        c = r;
        r = t;
    }
    const gpuecon_platform_result *a = &cr->platforms[c], *b = &cr->platforms[r];
    size_t n = 0, cap = sizeof cr->timeline_text;
    char d1[11];
    long flip = first_flip(&tp, lo, hi, 0, 7);
    if (flip >= 0) {
        gpuecon_date_format(flip, cr->breakeven_date, sizeof cr->breakeven_date);
        n += (size_t)snprintf(cr->timeline_text + n, cap - n, "%s becomes cheaper than %s from %s (throughputs "
                              "interpolated between their dated points)", a->name, b->name, cr->breakeven_date);
    } else {
        gpuecon_date_format(lo, d1, sizeof d1);
        n += (size_t)snprintf(cr->timeline_text + n, cap - n, "%s is cheaper than %s on every date from %s",
                              a->name, b->name, d1);
    }
    /* the leader's performance per TCO over the other's at each point date */
    cr->series_leader = c;
    cr->series_other = r;
    cr->n_series = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < tp.ps[k]->pl->n_timeline; i++) {
            const gpuecon_timeline_point *pt = &tp.ps[k]->pl->timeline[i];
            size_t j = 0;
            while (j < cr->n_series && strcmp(cr->series[j].date, pt->date))
                j++;
            if (j == cr->n_series) {
                if (j == sizeof cr->series / sizeof cr->series[0])
                    continue;
                cr->n_series++;
                snprintf(cr->series[j].date, sizeof cr->series[j].date, "%s", pt->date);
                long day = pt->day;
                cr->series[j].perf_per_tco = 1 / (gap_on(&tp, day, 0, true) + 1);
                cr->series[j].effective_ratio = 1 / (gap_on(&tp, day, 0, false) + 1);
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

