/*
 * validate_loo.c (render) — the calibration test of `validate --leave-one-out` / `--calibrate-on K`
 * in the validate report: per group (stack, system, precision, dense/MoE) the rows, K, the median
 * |error| of the held-out rows with the calibration fitted on K of them against the built-in
 * constants, and which families the fits chose. JSON: leave_one_out, and calibrated_median_abs_err
 * on each groups[] entry (validate's own classes, the held-out predictions of their rows pooled).
 */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TARGET_CALIBRATED 0.05 /* issue 47: one measured run per group, the rest within 5% median |error| */
/* Below this share of its figure moved by the families (validate_loo_group.movable_share), a group's
 * calibration cannot be honest: most of the figure is what no scale reaches (docs/model.md §3.9). */
#define MOVABLE_MIN 0.5

void render_loo_group_json(json_t *group, const validate_loo *l, int set)
{
    if (!l || !group)
        return;
    const char *name = json_string_value(json_object_get(group, "name"));
    json_object_set_new(group, "calibrated_median_abs_err", rjson_real(validate_loo_class_median(l, set, name)));
}

static const char *set_name(int set)
{
    return set == VALIDATE_SET_TRAIN     ? "training"
           : set == VALIDATE_SET_SERVING ? "serving"
           : set == VALIDATE_SET_RL      ? "rl"
                                         : "finetune";
}

/* Evaluated groups whose calibrated median meets the target: which -1 or 0 all, 1 those with no fitted
 * row, 2 the others. */
static size_t meeting(const validate_loo *l, int which)
{
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++) {
        const validate_loo_group *g = &l->groups[i];
        if (g->evaluated && g->calibrated_median_abs_err <= TARGET_CALIBRATED &&
            (which <= 0 || (which == 1) == (g->fitted_rows == 0)))
            m++;
    }
    return m;
}

/* Share of every held-out prediction whose published figure lies inside its calibrated band (NAN: none). */
static double coverage(const validate_loo *l)
{
    size_t in = 0;
    for (size_t i = 0; i < l->npred; i++)
        in += l->pred[i].in_band;
    return l->npred ? (double)in / (double)l->npred : NAN;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The same with each held-out row counted once: per row, the share of the calibrations it was held out
 * of whose band holds it, averaged over the rows of every group (the pooled share weighs a group of n
 * rows by n(n - 1) choices and predictions); *width the median over those rows of their bands' mean
 * width (high / low). NAN (both): none, or no memory. */
static double coverage_rows(const validate_loo *l, double *width)
{
    typedef struct seen {
        const gpuecon_validate_row *row;
        size_t n, in;
        double w;
    } seen;
    size_t cap = l->npred ? l->npred : 1, rows = 0;
    seen *r = ctx_alloc(l->ctx, cap * sizeof *r); /* a group's distinct rows */
    double *w = ctx_alloc(l->ctx, cap * sizeof *w), sum = 0;
    *width = NAN;
    if (!r || !w) {
        ctx_free(l->ctx, r, cap * sizeof *r);
        ctx_free(l->ctx, w, cap * sizeof *w);
        return NAN;
    }
    for (size_t a = 0; a < l->npred;) {
        size_t m = 0, b = a;
        for (; b < l->npred && l->pred[b].group == l->pred[a].group; b++) {
            const validate_loo_pred *p = &l->pred[b];
            size_t j = 0;
            while (j < m && r[j].row != p->row)
                j++;
            if (j == m)
                r[m++] = (seen){p->row, 0, 0, 0};
            r[j].n++, r[j].in += p->in_band, r[j].w += exp(2 * p->band_half);
        }
        for (size_t j = 0; j < m; j++)
            sum += (double)r[j].in / (double)r[j].n, w[rows++] = r[j].w / (double)r[j].n;
        a = b;
    }
    if (rows) {
        qsort(w, rows, sizeof *w, cmp_dbl);
        *width = rows % 2 ? w[rows / 2] : (w[rows / 2 - 1] + w[rows / 2]) / 2;
    }
    ctx_free(l->ctx, r, cap * sizeof *r);
    ctx_free(l->ctx, w, cap * sizeof *w);
    return rows ? sum / (double)rows : NAN;
}

json_t *render_loo_json(const validate_loo *l)
{
    json_t *j = json_object(), *ga = json_array(), *lo = json_object();
    json_object_set_new(j, "calibration_rows", json_integer(l->k));
    json_object_set_new(j, "choices_cap", json_integer(VALIDATE_LOO_CHOICES));
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        json_object_set_new(lo, gpuecon_cal_param_name((gpuecon_cal_param)p), rjson_real(l->lo[p]));
    /* the bounds of every fit: scales from scale_low; fractions up to fraction_max of the peak (the
     * largest of a family), fixed times up to kernel_scale_high */
    json_object_set_new(j, "scale_low", lo);
    json_object_set_new(j, "fraction_max", rjson_real(GPUECON_CAL_FRACTION_MAX));
    json_object_set_new(j, "kernel_scale_high", rjson_real(l->hi[GPUECON_CAL_KERNEL]));
    for (size_t i = 0; i < l->n; i++) {
        const validate_loo_group *g = &l->groups[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "name", g->name, "set",
                              set_name(g->set), "stack", g->stack, "system", g->system, "precision",
                              gpuecon_precision_name(g->prec), "kind", g->moe ? "moe" : "dense", "rows",
                              (json_int_t)g->rows, "fitted_rows", (json_int_t)g->fitted_rows, "choices",
                              (json_int_t)g->choices, "choices_all", (json_int_t)g->choices_all,
                              "predictions", (json_int_t)g->predictions);
        json_object_set_new(o, "calibrated_median_abs_err", rjson_real(g->calibrated_median_abs_err));
        json_object_set_new(o, "calibrated_max_abs_err", rjson_real(g->calibrated_max_abs_err));
        json_object_set_new(o, "uncalibrated_median_abs_err", rjson_real(g->uncalibrated_median_abs_err));
        json_object_set_new(o, "band_coverage", rjson_real(g->band_coverage));
        json_object_set_new(o, "movable_share", rjson_real(g->movable_share));
        json_object_set_new(o, "movable_share_min", rjson_real(g->movable_min));
        json_object_set_new(o, "movable_share_max", rjson_real(g->movable_max));
        json_object_set_new(o, "calibratable", json_boolean(!g->evaluated || !(g->movable_min < MOVABLE_MIN)));
        json_t *fam = json_object();
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
            json_object_set_new(fam, gpuecon_cal_param_name((gpuecon_cal_param)p), json_integer((json_int_t)g->fitted[p]));
        json_object_set_new(o, "families_fitted", fam);
        json_object_set_new(o, "fits_at_bound", json_integer((json_int_t)g->at_bound));
        json_array_append_new(ga, o);
    }
    json_object_set_new(j, "groups", ga);
    json_object_set_new(j, "groups_evaluated", json_integer((json_int_t)l->evaluated));
    json_object_set_new(j, "predictions", json_integer((json_int_t)l->npred));
    json_object_set_new(j, "median_abs_err", rjson_real(l->median_abs_err));
    json_object_set_new(j, "band_coverage", rjson_real(coverage(l)));
    double width;
    json_object_set_new(j, "band_coverage_rows", rjson_real(coverage_rows(l, &width)));
    json_object_set_new(j, "band_median_width_rows", rjson_real(width));
    json_object_set_new(j, "target_calibrated_median_abs_err", rjson_real(TARGET_CALIBRATED));
    json_object_set_new(j, "groups_meeting_target", json_integer((json_int_t)meeting(l, -1)));
    static const char *const keys[] = {"all_groups", "held_out_groups", "fitted_groups"};
    const validate_loo_summary *sum[] = {&l->all, &l->held, &l->fitted};
    for (int w = 0; w < 3; w++) {
        json_t *o = json_object();
        json_object_set_new(o, "groups", json_integer((json_int_t)sum[w]->groups));
        json_object_set_new(o, "groups_meeting_target", json_integer((json_int_t)meeting(l, w)));
        json_object_set_new(o, "median_calibrated_median_abs_err", rjson_real(sum[w]->calibrated));
        json_object_set_new(o, "median_uncalibrated_median_abs_err", rjson_real(sum[w]->built_in));
        json_object_set_new(j, keys[w], o);
    }
    return j;
}

/* The families fitted most often in a group's fits: "gemm 9, kernel 2". */
static void families(const validate_loo_group *g, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    bool used[GPUECON_CAL_PARAMS] = {false};
    for (int r = 0; r < GPUECON_CAL_PARAMS; r++) {
        int best = -1;
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
            if (!used[p] && g->fitted[p] && (best < 0 || g->fitted[p] > g->fitted[best]))
                best = p;
        if (best < 0)
            break;
        used[best] = true;
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s %zu", n ? ", " : "",
                              gpuecon_cal_param_name((gpuecon_cal_param)best), g->fitted[best]);
        if (n >= cap)
            break;
    }
    if (!buf[0])
        snprintf(buf, cap, "-");
}

void render_loo_text(const render_out *out, const validate_loo *l)
{
    strbuf *f = out->f;
    sb_printf(f, "\nCalibration on %d published row%s of a group, the group's other rows predicted (validate "
                 "--calibrate-on %d; docs/model.md §3.9)\n\n",
              l->k, l->k == 1 ? "" : "s", l->k);
    tbl *t = tbl_new(out->ctx, out->oom);
    const char *cols[] = {"group (stack / system / precision / kind)", "rows", "fitted on", "fits",
                          "calibrated median |err|", "max", "built-in median |err|", "families fitted (fits)",
                          "in band", "moved"};
    for (int i = 0; i < 10; i++)
        tbl_col(t, cols[i], i == 0 || i == 7 ? 'l' : 'r');
    for (size_t i = 0; i < l->n; i++) {
        const validate_loo_group *g = &l->groups[i];
        char fam[96];
        families(g, fam, sizeof fam);
        tbl_row(t);
        tbl_str(t, g->name);
        tbl_num(t, (double)g->rows, 0);
        tbl_num(t, (double)g->fitted_rows, 0);
        if (g->evaluated && g->choices < g->choices_all)
            tbl_fmt(t, "%zu of %zu", g->choices, g->choices_all);
        else
            tbl_num(t, (double)g->choices, 0);
        if (g->evaluated) {
            tbl_fmt(t, "%.1f%%", 100 * g->calibrated_median_abs_err);
            tbl_fmt(t, "%.1f%%", 100 * g->calibrated_max_abs_err);
        } else {
            tbl_str(t, "(too few rows)");
            tbl_str(t, "-");
        }
        tbl_fmt(t, "%.1f%%", 100 * g->uncalibrated_median_abs_err);
        tbl_str(t, g->evaluated ? fam : "-");
        if (g->evaluated) {
            tbl_fmt(t, "%.0f%%", 100 * g->band_coverage);
            if (g->movable_max - g->movable_min >= 0.005)
                tbl_fmt(t, "%.0f-%.0f%%", 100 * g->movable_min, 100 * g->movable_max);
            else
                tbl_fmt(t, "%.0f%%", 100 * g->movable_share);
        } else {
            tbl_str(t, "-");
            tbl_str(t, "-");
        }
    }
    tbl_print(t, f);
    tbl_free(t);
    if (!l->npred)
        sb_printf(f, "\nno group has more than %d row%s: nothing is left to predict\n", l->k, l->k == 1 ? "" : "s");
    else
        sb_printf(f, "\n%zu groups with more than %d row%s, %zu held-out predictions: median |error| %.1f%% over all; "
                     "target <= %.0f%% per group met by %zu\n",
                  l->evaluated, l->k, l->k == 1 ? "" : "s", l->npred, 100 * l->median_abs_err,
                  100 * TARGET_CALIBRATED, meeting(l, -1));
    static const char *const what[] = {"every group", "groups with no row fitted on (held out)",
                                       "groups with rows fitted on"};
    const validate_loo_summary *sum[] = {&l->all, &l->held, &l->fitted};
    for (int w = 0; w < 3; w++)
        if (sum[w]->groups)
            sb_printf(f, "  %s, %zu: median of the groups' medians %.1f%% calibrated, %.1f%% built in; %zu meet the "
                         "target\n",
                      what[w], sum[w]->groups, 100 * sum[w]->calibrated, 100 * sum[w]->built_in, meeting(l, w));
    double width, rows_in = coverage_rows(l, &width);
    if (l->npred)
        sb_printf(f, "in band: held-out predictions inside the calibrated 80%% band (prediction x exp(+-max(the row's "
                     "built-in half-width x sqrt(1 + 1/%d), the fit's leave-one-out spread, %s))), %.0f%% of all, "
                     "%.0f%% with each row counted once (median width %.2f); moved: the share of the figure the "
                     "scales move (sum of |d ln figure / d ln scale| on the calibration rows)\n",
                  l->k, NUM_SIG(VALIDATE_LOO_BAND_FLOOR, 3), 100 * coverage(l), 100 * rows_in, width);
    for (size_t i = 0; i < l->n; i++) {
        const validate_loo_group *g = &l->groups[i];
        if (g->evaluated && g->movable_min < MOVABLE_MIN)
            sb_printf(f, "%s: not calibrated honestly: on some of its rows the scales move only %.0f%% of the "
                         "figure (on others %.0f%%); the rest (%s) no calibration reaches, so a calibration on such a "
                         "row lays the whole gap on that part and over-corrects the others\n",
                      g->name, 100 * g->movable_min, 100 * g->movable_max,
                      g->set == VALIDATE_SET_RL ? "weight sync, engine sleep and wake, memory swaps"
                                                : "the parts no family scales");
    }
    sb_printf(f, "scale bounds of each fit: gemm, hbm, comm fractions from %sx the built-in values until the largest "
                 "reaches %s of peak; fixed times %sx to %sx\n",
              NUM_SIG(l->lo[GPUECON_CAL_GEMM], 6), NUM_SIG(GPUECON_CAL_FRACTION_MAX, 6),
              NUM_SIG(l->lo[GPUECON_CAL_KERNEL], 6), NUM_SIG(l->hi[GPUECON_CAL_KERNEL], 6));
}
