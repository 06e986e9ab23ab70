/*
 * validate_loo.c — how well a calibration on a few measured runs predicts the rest of their group
 * (`validate --leave-one-out`, `--calibrate-on K`; docs/model.md §3.9).
 *
 * The rows are validate's own. A group is the rows that share stack (serving: engine profile),
 * system, precision and dense/MoE — the scope of one user calibration — restricted to figures a
 * user measures on one deployment (training tokens/s/GPU, serving throughput, TPOT; not a ratio
 * of two runs, a memory or a count). For each choice of K rows of a group with more than K rows,
 * the one fit engine (calib_fit_run, what `gpuecon calibrate` runs) fits the families those rows
 * determine within validate_loo_bounds, with each row's published figure as the measurement, and
 * every other row of the group is predicted again with that calibration (each table's replay: the
 * row's own request with the calibration applied). The group's calibrated error is the median over
 * all those held-out predictions. Key choice: serving metrics are not split into groups of their
 * own — a user measures one figure (a throughput, or a TPOT) and expects the others to follow, and
 * the fit works in log error, so mixed figures weigh alike. The RL step rows (rl_validate.c) are a set
 * like the others, grouped by trainer stack x system x precision; their one calibration applies to the
 * trainer and the generator alike (validate_rl_replay). Each held-out prediction is also tested against
 * the calibrated band (band.c's band_calibrated_half: the row's built-in band scatter x sqrt(1 + 1/K), or
 * the fit's leave-one-out spread if wider), and each fit reports
 * how much of its rows' figures the scales move (the sum of its sensitivities): a group where some row's
 * figure is mostly what no scale reaches cannot be calibrated honestly, and the render says so.
 */
#include "analysis/analysis.h"
#include "analysis/band.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void validate_loo_bounds(const double *frac_max, double lo[GPUECON_CAL_PARAMS], double hi[GPUECON_CAL_PARAMS])
{
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) /* the rows' smallest members are not known: lo 0.1x */
        gpuecon_calibration_bounds(p != GPUECON_CAL_KERNEL && frac_max ? frac_max[p] : 0, 0, &lo[p], &hi[p]);
}

/* A row as the test sees it: its set, validate's row, its description and group. */
typedef struct lrow {
    int set;
    const gpuecon_validate_row *row;
    validate_replay d;
    size_t group;
    struct infer_sim_trace *trace; /* a simulated serving row's recorded run (NULL: none) */
    int rc;                        /* recording it (trace_rows) */
    gpuecon_error err;
    double band_half;              /* its built-in band's half-width without it (ln units; 0: none) */
} lrow;

/* Each row's built-in band half-width, the row left out of every group (band_of_row_loo over the band
 * rows of these same validate rows): what a calibrated band widens (band_calibrated_half). */
static int builtin_halves(gpuecon_ctx *ctx, const gpuecon_catalog *cat, lrow *x, size_t nx, gpuecon_error *err)
{
    band_row *br = ctx_alloc(ctx, BAND_ROWS_MAX * sizeof *br);
    if (!br)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < nx && n < BAND_ROWS_MAX; i++)
        n = band_rows_collect(cat, x[i].row, 1, br, BAND_ROWS_MAX, n);
    band_set *s = NULL;
    int rc = band_set_from_rows(ctx, br, n, &s, err);
    for (size_t i = 0; i < nx && !rc; i++) {
        size_t j = 0;
        while (j < n && strcmp(br[j].id, x[i].row->id))
            j++;
        gpuecon_band b;
        if (j < n)
            band_of_row_loo(s, j, &b);
        x[i].band_half = j < n && b.set ? log(b.high / b.low) / 2 : 0;
    }
    band_set_free(s);
    ctx_free(ctx, br, BAND_ROWS_MAX * sizeof *br);
    return rc;
}

static int replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const lrow *x, const gpuecon_calibration *cal,
                  bool predict, validate_replay *d, gpuecon_error *err)
{
    switch (x->set) {
    case VALIDATE_SET_TRAIN:
        return validate_train_replay(ctx, cat, x->row->id, cal, d, err);
    case VALIDATE_SET_SERVING:
        return validate_serving_replay(ctx, cat, x->row->id, cal, predict, x->trace, d, err);
    case VALIDATE_SET_RL:
        return validate_rl_replay(ctx, cat, x->row->id, cal, d, err);
    default:
        return validate_finetune_replay(cat, x->row->id, cal, d, err);
    }
}

/* One calibration set: the K rows a fit sees. */
typedef struct fitq {
    gpuecon_ctx *ctx;
    const gpuecon_catalog *cat;
    const lrow *r[VALIDATE_LOO_K_MAX];
} fitq;

static int predict_cb(void *user, size_t i, const double scale[GPUECON_CAL_PARAMS], double *figure,
                      gpuecon_error *err)
{
    const fitq *q = user;
    const lrow *x = q->r[i];
    bool built_in = true;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        built_in = built_in && scale[p] == 1.0;
    if (built_in) { /* validate's prediction (the unit test checks the replay gives it bit for bit) */
        *figure = x->row->predicted;
        return GPUECON_OK;
    }
    gpuecon_calibration cal;
    memset(&cal, 0, sizeof cal);
    memcpy(cal.scale, scale, sizeof cal.scale);
    cal.precision = -1;
    validate_replay d;
    int rc = replay(q->ctx, q->cat, x, &cal, true, &d, err);
    *figure = d.figure;
    return rc;
}

/* A task: one group and one choice of K of its members (indices into the group's member list). */
typedef struct task {
    size_t group;
    size_t pick[VALIDATE_LOO_K_MAX];
    size_t out;        /* first slot in pred */
    int rc;
    gpuecon_error err;
    calib_fit fit;
} task;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *e, size_t k)
{
    if (!k)
        return NAN;
    qsort(e, k, sizeof e[0], cmp_d);
    return k % 2 ? e[k / 2] : (e[k / 2 - 1] + e[k / 2]) / 2;
}

void validate_loo_free(validate_loo *l)
{
    if (!l || !l->ctx)
        return;
    ctx_free(l->ctx, l->groups, (l->n ? l->n : 1) * sizeof *l->groups);
    ctx_free(l->ctx, l->pred, (l->npred ? l->npred : 1) * sizeof *l->pred);
    memset(l, 0, sizeof *l);
}

/* Groups of the measurable rows: x[i].group set, the groups filled but for their figures. */
static int group_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, lrow *x, size_t nx, validate_loo_group *g,
                      size_t *ng, gpuecon_error *err)
{
    *ng = 0;
    for (size_t i = 0; i < nx; i++) {
        /* training and fine-tuning rows are analytic: re-predicted here, they must give validate's figure */
        bool cheap = x[i].set != VALIDATE_SET_SERVING;
        int rc = replay(ctx, cat, &x[i], NULL, cheap, &x[i].d, err);
        if (rc)
            return rc;
        if (cheap && x[i].d.figure != x[i].row->predicted)
            return err_set(err, GPUECON_E_INTERNAL, x[i].row->id, 0, 0,
                           "re-predicted without calibration the row gives %s, validate %s",
                           NUM_SIG(x[i].d.figure, 9), NUM_SIG(x[i].row->predicted, 9));
        x[i].group = SIZE_MAX;
        if (!x[i].d.measurable || !(x[i].row->published > 0) || !(x[i].row->predicted > 0))
            continue;
        size_t k = 0;
        while (k < *ng && !(g[k].set == x[i].set && g[k].prec == x[i].d.prec && g[k].moe == x[i].d.moe &&
                            !strcmp(g[k].stack, x[i].d.stack) && !strcmp(g[k].system, x[i].d.system)))
            k++;
        if (k == *ng) {
            validate_loo_group *o = &g[(*ng)++];
            memset(o, 0, sizeof *o);
            snprintf(o->stack, sizeof o->stack, "%s", x[i].d.stack);
            snprintf(o->system, sizeof o->system, "%s", x[i].d.system);
            o->prec = x[i].d.prec;
            o->moe = x[i].d.moe;
            o->set = x[i].set;
            snprintf(o->name, sizeof o->name, "%s / %s / %s / %s", o->stack, o->system,
                     gpuecon_precision_name(o->prec), o->moe ? "moe" : "dense");
        }
        x[i].group = k;
        g[k].rows++;
        g[k].fitted_rows += x[i].row->fitted_on;
    }
    return GPUECON_OK;
}

/* Records the run of every simulated serving row of an evaluated group (rows in parallel), so that a
 * calibration re-times it instead of simulating it again (validate_serving_trace), and checks the
 * simulated figure is validate's. */
static int trace_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, lrow *x, size_t nx, const validate_loo_group *g,
                      gpuecon_error *err)
{
    int nt = 1, rc = GPUECON_OK;
#ifdef _OPENMP
    nt = ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
#endif
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
    for (long i = 0; i < (long)nx; i++) {
        lrow *r = &x[i];
        r->rc = GPUECON_OK;
        if (r->set != VALIDATE_SET_SERVING || r->group == SIZE_MAX || !g[r->group].evaluated)
            continue;
        memset(&r->err, 0, sizeof r->err);
        double y = 0;
        r->rc = validate_serving_trace(ctx, cat, r->row->id, &r->trace, &y, &r->err);
        if (!r->rc && r->trace && y != r->row->predicted)
            r->rc = err_set(&r->err, GPUECON_E_INTERNAL, r->row->id, 0, 0,
                            "simulated again the row gives %s, validate %s", NUM_SIG(y, 9),
                            NUM_SIG(r->row->predicted, 9));
    }
    for (size_t i = 0; i < nx && !rc; i++) /* the first row's error, whatever the threads */
        if ((rc = x[i].rc) && err)
            *err = x[i].err;
    return rc;
}

/* The calibration choices of a group of m members: every one (k = 1), every pair (k = 2) up to
 * VALIDATE_LOO_CHOICES, evenly spaced in lexicographic order beyond. Writes tasks when t is not NULL;
 * returns how many; *all: how many exist. */
static size_t choices(size_t group, size_t m, int k, task *t, size_t *all)
{
    if (k == 1) {
        *all = m;
        for (size_t a = 0; t && a < m; a++)
            t[a] = (task){.group = group, .pick = {a}};
        return m;
    }
    size_t total = m * (m - 1) / 2, take = total < VALIDATE_LOO_CHOICES ? total : VALIDATE_LOO_CHOICES, p = 0, w = 0;
    *all = total;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++, p++)
            if (w < take && p == w * total / take) { /* the w-th of `take` evenly spaced pair indices */
                if (t)
                    t[w] = (task){.group = group, .pick = {a, b}};
                w++;
            }
    return take;
}

int validate_loo_run(gpuecon_ctx *ctx, const gpuecon_catalog *cat, int k,
                     const gpuecon_validate_row *const rows[VALIDATE_SETS], const size_t n[VALIDATE_SETS],
                     validate_loo *out, gpuecon_error *err)
{
    if (!ctx || !cat || !rows || !n || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, catalog, rows and result are required");
    memset(out, 0, sizeof *out);
    if (k < 1 || k > VALIDATE_LOO_K_MAX)
        return err_set(err, GPUECON_E_INPUT, OPTION("calibrate_on"), 0, 0,
                       "%d calibration rows per group: 1 or 2 are allowed", k);
    out->ctx = ctx;
    out->k = k;
    validate_loo_bounds(NULL, out->lo, out->hi);
    size_t nx = 0;
    for (int s = 0; s < VALIDATE_SETS; s++)
        nx += rows[s] ? n[s] : 0;
    lrow *x = ctx_alloc(ctx, (nx ? nx : 1) * sizeof *x);
    validate_loo_group *g = ctx_alloc(ctx, (nx ? nx : 1) * sizeof *g);
    if (!x || !g) {
        ctx_free(ctx, x, (nx ? nx : 1) * sizeof *x);
        ctx_free(ctx, g, (nx ? nx : 1) * sizeof *g);
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    }
    nx = 0;
    for (int s = 0; s < VALIDATE_SETS; s++)
        for (size_t i = 0; rows[s] && i < n[s]; i++)
            x[nx++] = (lrow){.set = s, .row = &rows[s][i]};
    size_t ng = 0, ntask = 0, npred = 0;
    int rc = group_rows(ctx, cat, x, nx, g, &ng, err);
    /* the members of each group, in row order: member[first[g] .. first[g] + rows) */
    size_t *member = rc ? NULL : ctx_alloc(ctx, (nx ? nx : 1) * sizeof *member);
    size_t *first = rc ? NULL : ctx_alloc(ctx, (ng ? ng : 1) * sizeof *first);
    task *t = NULL;
    if (!rc && (!member || !first))
        rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    if (!rc) {
        for (size_t j = 0, m = 0; j < ng; j++) {
            first[j] = m;
            for (size_t i = 0; i < nx; i++)
                if (x[i].group == j)
                    member[m++] = i;
            g[j].evaluated = g[j].rows > (size_t)k;
            if (g[j].evaluated) {
                size_t c = choices(j, g[j].rows, k, NULL, &g[j].choices_all);
                g[j].choices = c;
                ntask += c;
                npred += c * (g[j].rows - (size_t)k);
            }
        }
        rc = trace_rows(ctx, cat, x, nx, g, err);
        if (!rc)
            rc = builtin_halves(ctx, cat, x, nx, err);
        t = rc ? NULL : ctx_alloc(ctx, (ntask ? ntask : 1) * sizeof *t);
        out->pred = ctx_alloc(ctx, (npred ? npred : 1) * sizeof *out->pred);
        out->npred = npred;
        if (!rc && (!t || !out->pred))
            rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    }
    if (!rc) {
        for (size_t j = 0, w = 0, o = 0; j < ng; j++) {
            if (!g[j].evaluated)
                continue;
            size_t all, c = choices(j, g[j].rows, k, &t[w], &all);
            for (size_t i = 0; i < c; i++, w++) {
                t[w].out = o;
                o += g[j].rows - (size_t)k;
            }
        }
        int nt = 1;
#ifdef _OPENMP
        nt = ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
#endif
        (void)nt;
        /* each task writes its own slots: the result does not depend on the threads */
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (long w = 0; w < (long)ntask; w++) {
            task *tk = &t[w];
            const validate_loo_group *gr = &g[tk->group];
            const size_t *mem = &member[first[tk->group]];
            fitq q = {ctx, cat, {NULL}};
            double measured[VALIDATE_LOO_K_MAX], fmaxs[GPUECON_CAL_PARAMS] = {0}, lo[GPUECON_CAL_PARAMS],
                                                 hi[GPUECON_CAL_PARAMS];
            for (int a = 0; a < k; a++) {
                q.r[a] = &x[mem[tk->pick[a]]];
                measured[a] = q.r[a]->row->published;
                for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
                    fmaxs[p] = fmax(fmaxs[p], q.r[a]->d.frac_max[p]);
            }
            validate_loo_bounds(fmaxs, lo, hi);
            memset(&tk->err, 0, sizeof tk->err);
            tk->rc = calib_fit_run((size_t)k, measured, predict_cb, &q, (1u << GPUECON_CAL_PARAMS) - 1, lo, hi,
                                   &tk->fit, &tk->err);
            gpuecon_calibration cal;
            memset(&cal, 0, sizeof cal);
            memcpy(cal.scale, tk->fit.scale, sizeof cal.scale);
            cal.precision = -1;
            size_t o = tk->out;
            for (size_t i = 0; i < gr->rows && !tk->rc; i++) {
                bool chosen = false;
                for (int a = 0; a < k; a++)
                    chosen = chosen || tk->pick[a] == i;
                if (chosen)
                    continue;
                const lrow *h = &x[mem[i]];
                validate_replay d;
                tk->rc = replay(ctx, cat, h, &cal, true, &d, &tk->err);
                /* the calibrated band as band.c gives it: the row's built-in scatter widened for the
                   calibration's own error, or the fit's leave-one-out spread */
                double half = band_calibrated_half(h->band_half, tk->fit.spread, k),
                       e = log(d.figure / h->row->published);
                out->pred[o++] = (validate_loo_pred){tk->group, h->row, fabs(d.figure / h->row->published - 1),
                                                     isfinite(e) && fabs(e) <= half, half};
            }
        }
        for (size_t w = 0; w < ntask && !rc; w++)
            if (t[w].rc) {
                rc = t[w].rc;
                if (err)
                    *err = t[w].err;
            }
    }
    if (!rc) {
        double *e = ctx_alloc(ctx, (npred + nx + ng + 1) * sizeof *e), *gm = NULL, *gu = NULL;
        if (!e)
            rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        for (size_t j = 0; j < ng && !rc; j++) {
            validate_loo_group *gr = &g[j];
            size_t m = 0;
            for (size_t i = 0; i < gr->rows; i++)
                e[m++] = fabs(x[member[first[j] + i]].row->rel_err);
            gr->uncalibrated_median_abs_err = median_of(e, m);
            gr->calibrated_median_abs_err = gr->calibrated_max_abs_err = NAN;
            gr->band_coverage = gr->movable_share = gr->movable_min = gr->movable_max = NAN;
            if (!gr->evaluated)
                continue;
            m = 0;
            for (size_t i = 0; i < npred; i++)
                if (out->pred[i].group == j)
                    e[m++] = out->pred[i].abs_err;
            gr->predictions = m;
            gr->calibrated_median_abs_err = median_of(e, m);
            gr->calibrated_max_abs_err = m ? e[m - 1] : NAN;
            size_t inside = 0;
            for (size_t i = 0; i < npred; i++)
                inside += out->pred[i].group == j && out->pred[i].in_band;
            gr->band_coverage = m ? (double)inside / (double)m : NAN;
            double share = 0;
            size_t nshare = 0;
            gr->movable_min = gr->movable_max = NAN;
            for (size_t w = 0; w < ntask; w++) {
                if (t[w].group != j)
                    continue;
                double sum = 0;
                for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
                    sum += t[w].fit.sensitivity[p];
                share += sum, nshare++;
                gr->movable_min = nshare == 1 || sum < gr->movable_min ? sum : gr->movable_min;
                gr->movable_max = nshare == 1 || sum > gr->movable_max ? sum : gr->movable_max;
            }
            gr->movable_share = nshare ? share / (double)nshare : NAN;
            for (size_t w = 0; w < ntask; w++) {
                if (t[w].group != j)
                    continue;
                bool bound = false;
                for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
                    gr->fitted[p] += t[w].fit.fitted[p];
                    bound = bound || t[w].fit.at_bound[p];
                }
                gr->at_bound += bound;
            }
        }
        if (!rc) {
            for (size_t i = 0; i < npred; i++)
                e[i] = out->pred[i].abs_err;
            out->median_abs_err = median_of(e, npred);
            gm = e;
            gu = e + ng;
            validate_loo_summary *sum[3] = {&out->all, &out->held, &out->fitted};
            for (int w = 0; w < 3; w++) {
                size_t m = 0;
                for (size_t j = 0; j < ng; j++)
                    if (g[j].evaluated && (w == 0 || (w == 1) == (g[j].fitted_rows == 0))) {
                        gm[m] = g[j].calibrated_median_abs_err;
                        gu[m++] = g[j].uncalibrated_median_abs_err;
                    }
                sum[w]->groups = m;
                sum[w]->calibrated = median_of(gm, m);
                sum[w]->built_in = median_of(gu, m);
            }
            out->evaluated = out->all.groups;
        }
        ctx_free(ctx, e, (npred + nx + ng + 1) * sizeof *e);
    }
    ctx_free(ctx, t, (ntask ? ntask : 1) * sizeof *t);
    ctx_free(ctx, member, (nx ? nx : 1) * sizeof *member);
    ctx_free(ctx, first, (ng ? ng : 1) * sizeof *first);
    for (size_t i = 0; i < nx; i++)
        validate_serving_trace_free(ctx, x[i].trace);
    ctx_free(ctx, x, (nx ? nx : 1) * sizeof *x);
    if (rc) {
        ctx_free(ctx, g, (nx ? nx : 1) * sizeof *g);
        ctx_free(ctx, out->pred, (npred ? npred : 1) * sizeof *out->pred);
        memset(out, 0, sizeof *out);
        return rc;
    }
    /* keep the groups in an array of their own size */
    out->groups = ctx_alloc(ctx, (ng ? ng : 1) * sizeof *out->groups);
    if (!out->groups) {
        ctx_free(ctx, g, (nx ? nx : 1) * sizeof *g);
        ctx_free(ctx, out->pred, (npred ? npred : 1) * sizeof *out->pred);
        memset(out, 0, sizeof *out);
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    }
    memcpy(out->groups, g, ng * sizeof *g);
    out->n = ng;
    ctx_free(ctx, g, (nx ? nx : 1) * sizeof *g);
    return GPUECON_OK;
}

double validate_loo_class_median(const validate_loo *l, int set, const char *cls)
{
    if (!l || !cls || !l->npred)
        return NAN;
    double *e = ctx_alloc(l->ctx, l->npred * sizeof *e);
    if (!e)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < l->npred; i++)
        if (l->groups[l->pred[i].group].set == set && !strcmp(l->pred[i].row->cls, cls))
            e[m++] = l->pred[i].abs_err;
    double r = median_of(e, m);
    ctx_free(l->ctx, e, l->npred * sizeof *e);
    return r;
}
