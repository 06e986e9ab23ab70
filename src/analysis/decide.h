/*
 * decide.h — private helpers of the comparison layer (decide.c, compare.c).
 */
#ifndef GPUECON_DECIDE_H
#define GPUECON_DECIDE_H

#include "analysis/analysis.h"

/* f(x, ud): a function of one positive input. */
typedef double (*decide_fn)(double x, void *ud);

/* Root of f on [lo, hi] (0 < lo < hi) by the Illinois variant of regula falsi in log x, after
 * checking that f changes sign there. Returns true and sets *root (relative accuracy rtol);
 * false when f(lo) and f(hi) have the same sign (no flip in the range) or f is not finite. */
bool decide_root(decide_fn f, void *ud, double lo, double hi, double rtol, double *root, int *evals);

#endif
