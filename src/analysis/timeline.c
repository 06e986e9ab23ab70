/*
 * timeline.c — throughputs that change with software releases: ISO dates, the throughput in
 * force on a day, and the equivalent constant throughput of a run that spans releases.
 *
 * A timeline is a list of dated points, each the throughput from its date on (a release).
 * A run that starts on a day uses, on each later day, the latest point dated on or before it
 * (a step function: a gain arrives with its release, not before). Cost and energy per token
 * go as 1/throughput and goodput does not depend on it, so a run over several steps costs,
 * takes and draws exactly what a run at the tokens-weighted harmonic mean of the steps would:
 * compare evaluates that one number and every downstream formula (break-even, sensitivity)
 * stays as it is. That one rule holds everywhere a timeline is read (runs, deadlines, budgets,
 * the cluster's life, the break-even date of breakeven_date.c): between two points the earlier
 * one is in force; before the first point only a measurement given for before it is, or none
 * (the platform is not rated then). Dates are days since 1970-01-01 (src/base/date.c).
 */
#include "analysis/analysis.h"

#include <math.h>

int timeline_in_force(const gpuecon_timeline_point *p, size_t n, long day)
{
    int k = -1;
    for (size_t i = 0; i < n; i++)
        if (p[i].day <= day)
            k = (int)i;
    return k;
}

double timeline_run(const gpuecon_timeline_point *p, size_t n, long start, double before, double tokens,
                    double cluster_per_tok, bool *used)
{
    /* cluster_per_tok: tokens per day per unit of tokens/s/GPU (GPUs · ETTR · 86400) */
    for (size_t i = 0; i < n; i++)
        used[i] = false;
    int k = timeline_in_force(p, n, start);
    if (k < 0 && !(before > 0))
        return NAN;
    double done = 0, cost = 0; /* cost: Σ tokens_k / tps_k (days · cluster_per_tok) */
    long t = start;
    for (;;) {
        double tps = k < 0 ? before : p[k].tokens_per_s_per_gpu;
        if (k >= 0)
            used[k] = true;
        double rate = tps * cluster_per_tok; /* tokens per day */
        long end = (size_t)(k + 1) < n ? p[k + 1].day : -1;
        double seg = end < 0 ? INFINITY : (double)(end - t) * rate;
        if (done + seg >= tokens) {
            cost += (tokens - done) / tps;
            break;
        }
        done += seg;
        cost += seg / tps;
        t = end;
        k++;
    }
    return tokens / cost;
}
