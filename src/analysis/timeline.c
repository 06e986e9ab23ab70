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
 * stays as it is. For "when does a platform start to win", throughputs between points are
 * interpolated linearly in time (the published points are samples of a gradual maturing).
 * Dates are days since 1970-01-01 (src/base/date.c).
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

double timeline_interp(const gpuecon_timeline_point *p, size_t n, long day, double before)
{
    if (n == 0 || day < p[0].day)
        return before > 0 ? before : n ? p[0].tokens_per_s_per_gpu : NAN;
    for (size_t i = 0; i + 1 < n; i++)
        if (day < p[i + 1].day) {
            double f = (double)(day - p[i].day) / (double)(p[i + 1].day - p[i].day);
            return p[i].tokens_per_s_per_gpu + f * (p[i + 1].tokens_per_s_per_gpu - p[i].tokens_per_s_per_gpu);
        }
    return p[n - 1].tokens_per_s_per_gpu;
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
