/*
 * calibration.c — a user's calibration applied to the built-in efficiency parameters
 * (docs/model.md §3.8). A calibration holds one scale per family of parameters (tensor-core
 * fractions, HBM fractions, fixed per-kernel and host times, collective bandwidth fractions),
 * fitted by `gpuecon calibrate` on the user's own runs. Key choice: a scale multiplies model
 * parameters only (fractions of a peak, fixed times), never a datasheet value, and a scaled
 * fraction stays inside [GPUECON_CAL_FRACTION_MIN, GPUECON_CAL_FRACTION_MAX] of its peak.
 */
#include "model/model.h"

#include <math.h>

const char *gpuecon_cal_param_name(gpuecon_cal_param p)
{
    static const char *const names[GPUECON_CAL_PARAMS] = {"gemm", "hbm", "kernel", "comm"};
    return (unsigned)p < GPUECON_CAL_PARAMS ? names[p] : "?";
}

void gpuecon_calibration_bounds(double frac_max, double frac_min, double *lo, double *hi)
{
    *lo = GPUECON_CAL_SCALE_MIN;
    *hi = GPUECON_CAL_SCALE_MAX;
    if (!(frac_max > 0))
        return;
    *hi = fmax(1, GPUECON_CAL_FRACTION_MAX / frac_max);
    if (frac_min > 0)
        *lo = fmax(GPUECON_CAL_SCALE_MIN, GPUECON_CAL_FRACTION_MIN / frac_min);
}

double gpuecon_calibration_scale(const gpuecon_calibration *c, gpuecon_cal_param p)
{
    if (!c || (unsigned)p >= GPUECON_CAL_PARAMS)
        return 1.0;
    double s = c->scale[p];
    return s > 0 && isfinite(s) ? s : 1.0;
}

/* x·s as a fraction of a peak: 0 stays 0 (no such unit), the rest within the bounds. */
static double frac(double x, double s)
{
    if (!(x > 0))
        return x;
    double y = x * s;
    return y > GPUECON_CAL_FRACTION_MAX ? GPUECON_CAL_FRACTION_MAX
           : y < GPUECON_CAL_FRACTION_MIN ? GPUECON_CAL_FRACTION_MIN
                                          : y;
}

void gpuecon_calibration_apply_eff(const gpuecon_calibration *c, gpuecon_efficiency *e)
{
    if (!c || !e)
        return;
    double g = gpuecon_calibration_scale(c, GPUECON_CAL_GEMM), h = gpuecon_calibration_scale(c, GPUECON_CAL_HBM);
    double k = gpuecon_calibration_scale(c, GPUECON_CAL_KERNEL), m = gpuecon_calibration_scale(c, GPUECON_CAL_COMM);
    e->gemm_bf16 = frac(e->gemm_bf16, g);
    e->gemm_fp8 = frac(e->gemm_fp8, g);
    e->gemm_fp4 = frac(e->gemm_fp4, g);
    e->attn_flash = frac(e->attn_flash, g);
    e->attn_fwd = frac(e->attn_fwd, g);
    e->hbm = frac(e->hbm, h);
    e->kernel_s *= k;
    e->moe_host_s *= k;
    e->scaleup_busbw = frac(e->scaleup_busbw, m);
    e->scaleout_busbw = frac(e->scaleout_busbw, m);
    e->scaleout_a2a = frac(e->scaleout_a2a, m);
}

void gpuecon_calibration_apply_link(const gpuecon_calibration *c, gpuecon_link_model *lm)
{
    if (!c || !lm)
        return;
    double m = gpuecon_calibration_scale(c, GPUECON_CAL_COMM);
    lm->scaleup_eff = frac(lm->scaleup_eff, m);
    lm->scaleout_eff = frac(lm->scaleout_eff, m);
    lm->a2a_scaleout_eff = frac(lm->a2a_scaleout_eff, m);
}

void gpuecon_calibration_apply_profile(const gpuecon_calibration *c, gpuecon_serving_profile *p)
{
    if (!c || !p)
        return;
    double g = gpuecon_calibration_scale(c, GPUECON_CAL_GEMM), h = gpuecon_calibration_scale(c, GPUECON_CAL_HBM);
    double k = gpuecon_calibration_scale(c, GPUECON_CAL_KERNEL), m = gpuecon_calibration_scale(c, GPUECON_CAL_COMM);
    p->eta_c = frac(p->eta_c, g);
    p->eta_train = frac(p->eta_train, g);
    p->eta_bw = frac(p->eta_bw, h);
    p->eta_kv = frac(p->eta_kv, h);
    p->eta_moe = frac(p->eta_moe, h);
    p->kernel_s *= k;
    p->launch_s *= k;
    p->sched_s *= k;
    p->step_overhead_s *= k;
    p->seq_overhead_s *= k;
    p->draft_step_s *= k;
    p->eta_link_small = frac(p->eta_link_small, m);
    p->eta_link_large = frac(p->eta_link_large, m);
    p->calibration = c;
}
