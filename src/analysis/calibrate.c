/*
 * calibrate.c — a user's measured runs fitted group by group, for `gpuecon calibrate`
 * (docs/model.md §3.8). A group is what one calibration applies to: training or serving runs of one
 * stack on one system at one precision; GEMM microbenchmarks of one system at one precision (their
 * GEMM scale); nccl-tests bus bandwidths of one system (its collective scale, every stack).
 *
 * Bounds (physical, from the built-in values): a family of fractions of a peak may grow until its
 * largest member reaches GPUECON_CAL_FRACTION_MAX (a GEMM at 98% of the tensor cores' peak) and
 * shrink to a tenth (assumption: a stack at a tenth of the built-in fraction is another regime — a
 * host bottleneck, a wrong precision — that a scale should not hide); fixed times per kernel and host
 * step lie within 0.1x..10x of the built-in (assumption, the same reasoning: beyond that a run is bound
 * by something the model does not have; docs/model.md §3.8). Key choice: microbenchmark
 * groups are fitted first (collectives, then GEMMs) and their scales held fixed in the later groups of
 * the same system, so a directly measured GEMM or collective is not refitted from end-to-end step
 * times, and the one calibration a prediction picks carries every scale measured for its system.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int calrun_predict(gpuecon_ctx *ctx, const calrun_row *row, const gpuecon_calibration *c, double *figure,
                   gpuecon_error *err)
{
    *figure = 0;
    switch (row->kind) {
    case RUNS_TRAIN: {
        gpuecon_train_request q = row->train;
        q.calibration = c;
        gpuecon_train_result r;
        int rc = gpuecon_train_predict(ctx, &q, &r, err);
        if (rc)
            return rc;
        *figure = row->figure == RUNS_STEP_TIME_S ? r.step_time_s : r.tokens_per_s_per_gpu;
        return GPUECON_OK;
    }
    case RUNS_INFER: {
        gpuecon_infer_request q = row->infer;
        gpuecon_calibration_apply_profile(c, &q.profile);
        gpuecon_infer_result o;
        int rc = gpuecon_infer(&q, &o, err);
        if (rc)
            return rc;
        *figure = row->figure == RUNS_TPOT_MS   ? o.at.tpot_ms
                  : row->figure == RUNS_TTFT_MS ? o.at.ttft_ms
                                                : o.at.output_tokens_per_s_per_gpu;
        return GPUECON_OK;
    }
    case RUNS_FINETUNE: {
        gpuecon_finetune_request q = row->finetune;
        q.calibration = c;
        gpuecon_finetune_result o;
        int rc = gpuecon_finetune(&q, &o, err);
        if (rc)
            return rc;
        *figure = row->figure == RUNS_STEP_S                 ? o.step_s
                  : row->figure == RUNS_TOKENS_PER_S_PER_GPU ? o.tokens_per_s_per_gpu
                                                             : o.tokens_per_s;
        return GPUECON_OK;
    }
    case RUNS_GEMM:
        *figure = gpuecon_gemm_tflops(row->system, (gpuecon_precision)row->precision, c, row->m, row->n, row->k);
        return GPUECON_OK;
    case RUNS_NCCL: {
        gpuecon_efficiency e = *gpuecon_efficiency_for(row->system->gpu);
        gpuecon_calibration_apply_eff(c, &e);
        gpuecon_link_model lm = {e.scaleup_busbw, e.scaleout_busbw, e.coll_launch_s, e.scaleout_a2a};
        gpuecon_coll_result r;
        int rc = gpuecon_collective_ex(row->system, &lm, (gpuecon_coll_op)row->op, row->gpus, row->stride, row->bytes,
                                       GPUECON_ALGO_AUTO, &r, err);
        if (rc)
            return rc;
        *figure = r.busbw_gbps;
        return GPUECON_OK;
    }
    default: return err_set(err, GPUECON_E_INTERNAL, "", 0, 0, "unknown run kind");
    }
}

typedef struct fitctx {
    gpuecon_ctx *ctx;
    const calrun_row *rows;
    const calrun_group *g;
} fitctx;

static int predict_cb(void *user, size_t i, const double scale[GPUECON_CAL_PARAMS], double *figure,
                      gpuecon_error *err)
{
    const fitctx *f = user;
    gpuecon_calibration c = {0};
    c.name = f->g->name;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        c.scale[p] = f->g->base[p] * scale[p];
    const calrun_row *row = &f->rows[f->g->rows[i]];
    int rc = calrun_predict(f->ctx, row, &c, figure, err);
    if (rc == GPUECON_E_NOMEM || rc == GPUECON_E_CANCELED)
        return rc;
    if (rc) { /* the run's place, then what the model said */
        char where[64], msg[400];
        snprintf(where, sizeof where, "%.63s", err->where);
        snprintf(msg, sizeof msg, "%.399s", err->message);
        return err_set(err, rc, row->file, row->line, row->col, "run %d: %s%s%s", row->run, where, where[0] ? ": " : "",
                       msg);
    }
    return GPUECON_OK;
}

static bool same_group(const calrun_group *g, const calrun_row *r)
{
    /* by the system's name: runs at different power limits share its efficiencies (the clock is the model's) */
    if (g->kind != r->kind || strcmp(g->system->name, r->system->name))
        return false;
    if (r->kind == RUNS_NCCL) /* the system's collectives, every stack and precision */
        return true;
    if (g->precision != r->precision)
        return false;
    return r->kind == RUNS_GEMM || (g->stack && r->stack && !strcmp(g->stack, r->stack)) || (!g->stack && !r->stack);
}

static int workload_of(runs_command k)
{
    return k == RUNS_TRAIN ? 0 : k == RUNS_FINETUNE ? 1 : k == RUNS_INFER ? 2 : -1;
}

/* Upper bound of a family of fractions: the scale at which its largest member reaches the cap. */
static void frac_bound(calrun_group *g, gpuecon_cal_param p, const double *v, size_t n)
{
    double mx = 0, mn = 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0) {
            mx = v[i] > mx ? v[i] : mx;
            mn = v[i] < mn ? v[i] : mn;
        }
    if (!(mx > 0)) { /* no member: the family is not fitted */
        g->lo[p] = g->hi[p] = 1;
        g->allowed &= ~(1u << p);
        return;
    }
    g->bound_value[p] = mx;
    gpuecon_calibration_bounds(mx, mn, &g->lo[p], &g->hi[p]);
}

static void bounds(calrun_group *g, const calrun_row *r)
{
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        gpuecon_calibration_bounds(0, 0, &g->lo[p], &g->hi[p]);
        g->bound_value[p] = 0;
    }
    switch (g->kind) {
    case RUNS_TRAIN:
    case RUNS_GEMM:
    case RUNS_NCCL: {
        gpuecon_efficiency e = r->kind == RUNS_TRAIN && r->train.eff ? *r->train.eff
                                                                       : *gpuecon_efficiency_for(r->system->gpu);
        gpuecon_calibration b = {0};
        memcpy(b.scale, g->base, sizeof b.scale);
        gpuecon_calibration_apply_eff(&b, &e);
        double gm = r->precision == GPUECON_FP8 ? e.gemm_fp8 : r->precision == GPUECON_FP4 ? e.gemm_fp4 : e.gemm_bf16;
        double gemm[] = {gm, g->kind == RUNS_TRAIN ? e.attn_flash : 0, g->kind == RUNS_TRAIN ? e.attn_fwd : 0};
        double hbm[] = {e.hbm}, comm[] = {e.scaleup_busbw, e.scaleout_busbw, e.scaleout_a2a};
        frac_bound(g, GPUECON_CAL_GEMM, gemm, 3);
        frac_bound(g, GPUECON_CAL_HBM, hbm, 1);
        frac_bound(g, GPUECON_CAL_COMM, comm, 3);
        g->bound_value[GPUECON_CAL_KERNEL] = e.kernel_s;
        break;
    }
    case RUNS_FINETUNE: { /* the profile's eta_train (unless an explicit efficiency: not scaled), the
                             GPU's HBM and link fractions, the stack's host launch time (finetune.c) */
        gpuecon_efficiency e = *gpuecon_efficiency_for(r->system->gpu);
        gpuecon_calibration b = {0};
        memcpy(b.scale, g->base, sizeof b.scale);
        gpuecon_calibration_apply_eff(&b, &e);
        double eta = r->finetune.efficiency > 0 ? 0 : r->finetune.profile.eta_train * g->base[GPUECON_CAL_GEMM];
        double gemm[] = {eta}, hbm[] = {e.hbm}, comm[] = {e.scaleup_busbw, e.scaleout_busbw, e.scaleout_a2a};
        frac_bound(g, GPUECON_CAL_GEMM, gemm, 1);
        frac_bound(g, GPUECON_CAL_HBM, hbm, 1);
        frac_bound(g, GPUECON_CAL_COMM, comm, 3);
        g->bound_value[GPUECON_CAL_KERNEL] = r->finetune.stack ? r->finetune.stack->host_launch_us * 1e-6 : 0;
        break;
    }
    case RUNS_INFER: {
        gpuecon_serving_profile pr = r->infer.profile;
        gpuecon_calibration b = {0};
        memcpy(b.scale, g->base, sizeof b.scale);
        gpuecon_calibration_apply_profile(&b, &pr);
        double gemm[] = {pr.eta_c}, hbm[] = {pr.eta_bw, pr.eta_kv, pr.eta_moe};
        double comm[] = {pr.eta_link_small, pr.eta_link_large};
        frac_bound(g, GPUECON_CAL_GEMM, gemm, 1);
        frac_bound(g, GPUECON_CAL_HBM, hbm, 3);
        frac_bound(g, GPUECON_CAL_COMM, comm, 2);
        g->bound_value[GPUECON_CAL_KERNEL] = pr.kernel_s > 0 ? pr.kernel_s : pr.step_overhead_s;
        break;
    }
    default: break;
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median |predicted/measured - 1| of log errors v: the error the table prints for each run and
   validate --leave-one-out takes its medians of (not |ln|, which reads a prediction at a tenth of
   the measurement as a 900% error where the row says -90%) */
static double median_abs(const double *v, size_t n)
{
    double t[CALIB_FIT_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            t[k++] = fabs(expm1(v[i]));
    if (!k)
        return NAN;
    qsort(t, k, sizeof t[0], cmp_d);
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

static int fit_group(gpuecon_ctx *ctx, calrun_row *rows, calrun_group *g, const char *source, gpuecon_error *err)
{
    bounds(g, &rows[g->rows[0]]);
    double measured[CALIB_FIT_MAX];
    for (size_t i = 0; i < g->n; i++)
        measured[i] = rows[g->rows[i]].measured;
    fitctx f = {ctx, rows, g};
    int rc = calib_fit_run(g->n, measured, predict_cb, &f, g->allowed, g->lo, g->hi, &g->fit, err);
    if (rc)
        return rc;
    memset(&g->cal, 0, sizeof g->cal);
    g->cal.name = g->name;
    g->cal.workload = g->workload;
    g->cal.stack = g->stack;
    g->cal.system = g->system->name;
    g->cal.precision = g->precision;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        g->cal.scale[p] = g->base[p] * g->fit.scale[p];
    g->cal.spread = g->fit.spread;
    g->cal.runs = (int)g->n;
    g->cal.source = source;
    double b[CALIB_FIT_MAX], a[CALIB_FIT_MAX], l[CALIB_FIT_MAX];
    for (size_t i = 0; i < g->n; i++) {
        calrun_row *r = &rows[g->rows[i]];
        b[i] = g->fit.before[i], a[i] = g->fit.after[i], l[i] = g->fit.loo[i];
        r->before = r->measured * exp(g->fit.before[i]);
        r->after = r->measured * exp(g->fit.after[i]);
        r->loo = isfinite(g->fit.loo[i]) ? r->measured * exp(g->fit.loo[i]) : NAN;
    }
    g->med_before = median_abs(b, g->n);
    g->med_after = median_abs(a, g->n);
    g->med_loo = median_abs(l, g->n);
    g->worst_a = g->rows[g->fit.worst_a];
    g->worst_b = g->rows[g->fit.worst_b];
    g->contradiction = g->n >= 2 && g->fit.residual_gap > CALRUN_CONTRADICTION &&
                       rows[g->worst_a].run != rows[g->worst_b].run;
    return GPUECON_OK;
}

int calrun_fit(gpuecon_ctx *ctx, calrun_row *rows, size_t n, const char *source, calrun_group *groups,
               size_t *n_groups, gpuecon_error *err)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        calrun_row *r = &rows[i];
        int w = workload_of(r->kind);
        size_t g = 0;
        while (g < ng && !same_group(&groups[g], r))
            g++;
        if (g == ng) {
            if (ng >= CALRUN_MAX_GROUPS)
                return err_set(err, GPUECON_E_INPUT, r->file, r->line, r->col,
                               "run %d: more than %d groups (stack x system x precision)", r->run, CALRUN_MAX_GROUPS);
            calrun_group *ng_ = &groups[ng++];
            memset(ng_, 0, sizeof *ng_);
            ng_->workload = w;
            ng_->kind = r->kind;
            ng_->stack = r->stack;
            ng_->system = r->system;
            ng_->precision = r->kind == RUNS_NCCL ? -1 : r->precision;
            for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
                ng_->base[p] = 1, ng_->base_group[p] = -1;
            ng_->allowed = r->kind == RUNS_GEMM   ? 1u << GPUECON_CAL_GEMM
                           : r->kind == RUNS_NCCL ? 1u << GPUECON_CAL_COMM
                                                  : (1u << GPUECON_CAL_PARAMS) - 1;
            snprintf(ng_->name, sizeof ng_->name, "%s/%s/%s", r->stack ? r->stack : r->kind == RUNS_GEMM ? "gemm" : "nccl",
                     r->system->name, ng_->precision >= 0 ? gpuecon_precision_name((gpuecon_precision)r->precision)
                                                          : "any");
        }
        if (groups[g].n >= CALIB_FIT_MAX)
            return err_set(err, GPUECON_E_INPUT, r->file, r->line, r->col,
                           "run %d: more than %d measurements in group %s", r->run, CALIB_FIT_MAX, groups[g].name);
        groups[g].rows[groups[g].n++] = i;
        r->group = (int)g;
    }
    *n_groups = ng;
    /* collectives first, then GEMMs (holding their system's collective scale), then the training and
     * serving groups (holding both): one calibration then carries every scale measured for its system */
    for (int pass = 0; pass < 3; pass++)
        for (size_t g = 0; g < ng; g++) {
            calrun_group *G = &groups[g];
            int want = G->kind == RUNS_NCCL ? 0 : G->kind == RUNS_GEMM ? 1 : 2;
            if (want != pass)
                continue;
            for (size_t m = 0; pass > 0 && m < ng; m++) {
                const calrun_group *M = &groups[m];
                int mpass = M->kind == RUNS_NCCL ? 0 : M->kind == RUNS_GEMM ? 1 : 2;
                if (mpass >= pass || strcmp(M->system->name, G->system->name) ||
                    (M->precision >= 0 && M->precision != G->precision))
                    continue;
                gpuecon_cal_param p = M->kind == RUNS_GEMM ? GPUECON_CAL_GEMM : GPUECON_CAL_COMM;
                if (!M->fit.fitted[p])
                    continue;
                G->base[p] = M->fit.scale[p];
                G->base_group[p] = (int)m;
                G->allowed &= ~(1u << p);
            }
            int rc = fit_group(ctx, rows, G, source, err);
            if (rc)
                return rc;
            for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
                if (G->base_group[p] >= 0)
                    G->cal.scale_source[p] = groups[G->base_group[p]].name;
        }
    return GPUECON_OK;
}
