/*
 * bench.h — what every benchmark shares: a monotonic clock and the median of repeated runs
 * (the machines are shared and noisy, so benchmarks report medians, never single runs).
 */
#ifndef GPUECON_BENCH_H
#define GPUECON_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
