/*
 * decide.c — what would change the verdict: root finding for break-even values, and the
 * batch-size penalty of McCandlish et al. (2018) that puts platforms on the same quality.
 *
 * Break-even inputs (MTBI, TCO, throughput, PUE, electricity price) are positive and the
 * effective cost is monotone in each, so a sign change of "my cost − the rival's cost" over a
 * wide multiplicative bracket brackets exactly one root; the Illinois method (Dowell and
 * Jarratt 1971) in log x converges superlinearly and never leaves the bracket.
 */
#include "decide.h"

#include <math.h>

bool decide_root(decide_fn f, void *ud, double lo, double hi, double rtol, double *root, int *evals)
{
    int n = 0;
    if (!(lo > 0) || !(hi > lo))
        return false;
    double a = log(lo), b = log(hi);
    double fa = f(lo, ud), fb = f(hi, ud);
    n += 2;
    if (evals)
        *evals = n;
    if (!isfinite(fa) || !isfinite(fb))
        return false;
    if (fa == 0) {
        *root = lo;
        return true;
    }
    if (fb == 0) {
        *root = hi;
        return true;
    }
    if ((fa > 0) == (fb > 0))
        return false;
    int side = 0;
    double c = a;
    for (int it = 0; it < 200; it++) {
        c = (a * fb - b * fa) / (fb - fa);
        double fc = f(exp(c), ud);
        n++;
        if (!isfinite(fc))
            break;
        if (fc == 0 || fabs(b - a) < rtol)
            break;
        if ((fc > 0) == (fb > 0)) {
            b = c;
            fb = fc;
            if (side == -1)
                fa /= 2;
            side = -1;
        } else {
            a = c;
            fa = fc;
            if (side == 1)
                fb /= 2;
            side = 1;
        }
    }
    if (evals)
        *evals = n;
    *root = exp(c);
    return true;
}

double gpuecon_batch_token_factor(double batch_tokens, double critical_batch_tokens)
{
    if (!(critical_batch_tokens > 0))
        return 1;
    return 1 + batch_tokens / critical_batch_tokens;
}

double gpuecon_batch_step_factor(double batch_tokens, double critical_batch_tokens)
{
    if (!(critical_batch_tokens > 0) || !(batch_tokens > 0))
        return 1;
    return 1 + critical_batch_tokens / batch_tokens;
}
