/*
 * power.c — a GPU under a board power limit (docs/model.md §9.2): the sustained tensor-core clock
 * it allows, the settable range, and a system whose GPUs run at a given limit.
 *
 * CMOS dynamic power is P_dyn = a·C·V²·f, and in the DVFS range the voltage rises in proportion
 * to the clock (V ∝ f), so P_dyn ∝ f³. With the power that does not scale with the SM clock
 * (leakage, HBM and board at idle, P_idle) added, a GPU held at its limit P under compute-bound
 * work runs at
 *
 *     f(P) / f(P_max) = ((P - P_idle) / (P_max - P_idle))^(1/3)
 *
 * of the clock it sustains at its board maximum P_max, which is where the efficiency fractions
 * were fitted. Memory clocks are not lowered by the limit, so HBM bandwidth keeps its value.
 */
#include "model/model.h"

#include <math.h>

double gpuecon_power_clock_factor(const gpuecon_gpu *g, double limit_w)
{
    if (!g || !(limit_w > 0) || !(g->tdp_w > 0) || limit_w >= g->tdp_w || !(g->idle_w > 0) ||
        g->idle_w >= g->tdp_w)
        return 1.0;
    double x = (limit_w - g->idle_w) / (g->tdp_w - g->idle_w);
    return x > 0 ? cbrt(x) : 0.0;
}

double gpuecon_system_power_limit(const gpuecon_system *s)
{
    if (!s)
        return 0;
    if (s->power_limit_w > 0)
        return s->power_limit_w;
    return s->gpu ? s->gpu->tdp_w : 0;
}

int gpuecon_power_limit_check(const gpuecon_gpu *g, double limit_w, const char *option, gpuecon_error *err)
{
    if (!g)
        return err_set(err, GPUECON_E_INPUT, option, 0, 0, "no GPU to limit");
    double lo = g->min_power_w > 0 ? g->min_power_w : g->tdp_w;
    if (!isfinite(limit_w) || limit_w < lo || limit_w > g->tdp_w) {
        if (g->min_power_w > 0)
            return err_set(err, GPUECON_E_INPUT, option, 0, 0,
                           "%s W is outside %s's settable power limits; allowed %s to %s W", NUM_VAL(limit_w),
                           g->name, NUM_VAL(g->min_power_w), NUM_VAL(g->tdp_w));
        return err_set(err, GPUECON_E_INPUT, option, 0, 0,
                       "%s W: %s has no known minimum power limit in the catalog (min_power_w); allowed only "
                       "its board maximum, %s W", NUM_VAL(limit_w), g->name, NUM_VAL(g->tdp_w));
    }
    return GPUECON_OK;
}

int gpuecon_system_at_power_limit(const gpuecon_system *s, double limit_w, const char *option, gpuecon_system *buf,
                                  const gpuecon_system **out, gpuecon_error *err)
{
    if (limit_w == 0) { /* no limit asked: the system as it is */
        *out = s;
        return GPUECON_OK;
    }
    int rc = gpuecon_power_limit_check(s ? s->gpu : NULL, limit_w, option, err);
    if (rc)
        return rc;
    *buf = *s;
    buf->it_w_per_gpu = s->it_w_per_gpu + (limit_w - gpuecon_system_power_limit(s));
    buf->power_limit_w = limit_w;
    buf->clock_factor = gpuecon_power_clock_factor(s->gpu, limit_w);
    *out = buf;
    return GPUECON_OK;
}
