/*
 * calibrate.c — `gpuecon calibrate` rendered: each measured figure with its prediction as built in
 * and calibrated, the errors before and after and left out (leave-one-out), the scales each group
 * fitted with their bounds, the warnings (a scale at a bound and what that means), the predictions
 * the calibration moves most, and the overlay handed to the front end. JSON, the table (CSV) and
 * the terminal text from one view.
 */
#include "render/render.h"

#include <math.h>
#include <string.h>

const char *calibrate_unit(runs_figure f)
{
    switch (f) {
    case RUNS_TOKENS_PER_S_PER_GPU:
    case RUNS_OUTPUT_TOKENS_PER_S_PER_GPU: return "tokens/s/GPU";
    case RUNS_STEP_TIME_S:
    case RUNS_STEP_S: return "s";
    case RUNS_TOKENS_PER_S: return "tokens/s";
    case RUNS_TPOT_MS:
    case RUNS_TTFT_MS: return "ms";
    case RUNS_TFLOPS: return "TFLOP/s";
    case RUNS_BUSBW_GBPS: return "GB/s";
    default: return "";
    }
}

/* predicted / measured - 1 */
static double rel(double pred, double meas)
{
    return isfinite(pred) && meas > 0 ? pred / meas - 1 : NAN;
}

/* "tp 1 cp 1 pp 1 vpp 1 dp 8 mbs 2, ZeRO 3, recompute selective" */
static void layout_text(const gpuecon_parallel *p, char *buf, size_t cap)
{
    char t[128];
    train_config(p, t, sizeof t);
    snprintf(buf, cap, "%s, ZeRO %d, recompute %s", t, p->zero, gpuecon_parallel_recompute_name(p));
}

static const char *workload_name(int w)
{
    return w == 0 ? "train" : w == 1 ? "finetune" : w == 2 ? "serve" : "any";
}

static json_t *group_json(const calrun_group *g)
{
    json_t *sc = json_object();
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        json_t *one = json_pack("{s:o, s:b, s:b, s:o, s:o}", "scale", rjson_real(g->cal.scale[p]), "fitted",
                                g->fit.fitted[p], "at_bound", g->fit.at_bound[p], "lo", rjson_real(g->base[p] * g->lo[p]),
                                "hi", rjson_real(g->base[p] * g->hi[p]));
        json_object_set_new(one, "sensitivity", rjson_real(g->fit.sensitivity[p]));
        if (g->cal.scale_source[p])
            json_object_set_new(one, "from", json_string(g->cal.scale_source[p]));
        json_object_set_new(sc, gpuecon_cal_param_name((gpuecon_cal_param)p), one);
    }
    json_t *j = json_pack("{s:s, s:s, s:s?, s:s, s:s, s:i, s:o}", "name", g->name, "workload",
                          workload_name(g->workload), "stack", g->stack, "system", g->system->name, "precision",
                          g->precision >= 0 ? gpuecon_precision_name((gpuecon_precision)g->precision) : "any",
                          "measurements", (int)g->n, "scales", sc);
    json_object_set_new(j, "median_abs_err_before", rjson_real(g->med_before));
    json_object_set_new(j, "median_abs_err_after", rjson_real(g->med_after));
    json_object_set_new(j, "median_abs_err_loo", rjson_real(g->med_loo));
    json_object_set_new(j, "spread", rjson_real(g->fit.spread));
    json_object_set_new(j, "residual_gap", rjson_real(g->fit.residual_gap));
    return j;
}

static json_t *row_json(const calibrate_view *v, const calrun_row *r)
{
    json_t *j = json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:s}", "run", r->run, "file", r->file, "line", r->line,
                          "command", runs_command_name(r->kind), "what", r->what ? r->what : "", "figure",
                          runs_figure_name(r->figure), "unit", calibrate_unit(r->figure));
    json_object_set_new(j, "measured", rjson_real(r->measured));
    json_object_set_new(j, "predicted_before", rjson_real(r->before));
    json_object_set_new(j, "predicted_after", rjson_real(r->after));
    json_object_set_new(j, "err_before", rjson_real(rel(r->before, r->measured)));
    json_object_set_new(j, "err_after", rjson_real(rel(r->after, r->measured)));
    json_object_set_new(j, "err_loo", rjson_real(rel(r->loo, r->measured)));
    json_object_set_new(j, "group", json_string(v->groups[r->group].name));
    return j;
}

static json_t *calibrate_json(const void *view)
{
    const calibrate_view *v = view;
    json_t *j = json_pack("{s:s, s:s}", "command", "calibrate", "file", v->file);
    json_t *rows = json_array(), *groups = json_array(), *ch = json_array(), *w = json_array();
    for (size_t i = 0; i < v->n_rows; i++)
        json_array_append_new(rows, row_json(v, &v->rows[i]));
    for (size_t g = 0; g < v->n_groups; g++)
        json_array_append_new(groups, group_json(&v->groups[g]));
    for (size_t i = 0; i < v->n_changes; i++) {
        const calrun_row *r = &v->rows[v->changes[i]];
        json_t *c = json_pack("{s:i, s:s, s:s}", "run", r->run, "what", r->what ? r->what : "", "figure",
                              runs_figure_name(r->figure));
        json_object_set_new(c, "before", rjson_real(r->before));
        json_object_set_new(c, "after", rjson_real(r->after));
        json_object_set_new(c, "change", rjson_real(rel(r->after, r->before)));
        json_array_append_new(ch, c);
    }
    for (size_t i = 0; i < v->n_warnings; i++)
        json_array_append_new(w, json_string(v->warnings[i]));
    json_t *lay = json_array();
    for (size_t i = 0; i < v->n_layouts; i++) {
        const calibrate_layout *l = &v->layouts[i];
        char b[160], a[160];
        layout_text(&l->before, b, sizeof b);
        layout_text(&l->after, a, sizeof a);
        json_t *o = json_pack("{s:s, s:s, s:b}", "group", v->groups[l->group].name, "job", l->what, "fits", l->ok);
        if (l->ok) {
            json_object_set_new(o, "before", json_pack("{s:s, s:o}", "layout", b, "tokens_per_s_per_gpu",
                                                       rjson_real(l->before_tok_s)));
            json_object_set_new(o, "after", json_pack("{s:s, s:o}", "layout", a, "tokens_per_s_per_gpu",
                                                      rjson_real(l->after_tok_s)));
        }
        json_array_append_new(lay, o);
    }
    json_object_set_new(j, "searched_layouts", lay);
    json_object_set_new(j, "runs", rows);
    json_object_set_new(j, "groups", groups);
    json_object_set_new(j, "changes_most", ch);
    json_object_set_new(j, "warnings", w);
    json_object_set_new(j, "overlay", json_pack("{s:s?, s:s}", "path", v->overlay_path, "yaml",
                                                v->overlay_yaml ? v->overlay_yaml : ""));
    return j;
}

static void pct_cell(tbl *t, double x)
{
    if (isfinite(x))
        tbl_pct(t, x, 1);
    else
        tbl_text(t, "-", "");
}

static tbl *calibrate_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const calibrate_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    static const char *const cols[] = {"run", "line", "command", "figure", "unit", "measured", "before", "after",
                                       "err before", "err after", "err left out", "group"};
    for (int i = 0; i < 12; i++)
        tbl_col(t, cols[i], i == 0 || (i >= 5 && i <= 10) ? 'r' : 'l');
    for (size_t i = 0; i < v->n_rows; i++) {
        const calrun_row *r = &v->rows[i];
        int dec = r->figure == RUNS_STEP_TIME_S || r->figure == RUNS_STEP_S ? 3 : r->measured >= 100 ? 0 : 2;
        tbl_row(t);
        tbl_num(t, r->run, 0);
        tbl_num(t, r->line, 0);
        tbl_str(t, runs_command_name(r->kind));
        tbl_str(t, runs_figure_name(r->figure));
        tbl_str(t, calibrate_unit(r->figure));
        tbl_num(t, r->measured, dec);
        tbl_num(t, r->before, dec);
        tbl_num(t, r->after, dec);
        pct_cell(t, rel(r->before, r->measured));
        pct_cell(t, rel(r->after, r->measured));
        pct_cell(t, rel(r->loo, r->measured));
        tbl_str(t, v->groups[r->group].name);
    }
    return t;
}

static void calibrate_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const calibrate_view *v = view;
    sb_printf(f, "calibrate: %zu measurements from %s in %zu group%s (stack x system x precision)\n\n", v->n_rows,
              v->file, v->n_groups, v->n_groups == 1 ? "" : "s");
    tbl_print(t, f);
    for (size_t g = 0; g < v->n_groups; g++) {
        const calrun_group *G = &v->groups[g];
        sb_printf(f, "\n%s (%s, %zu measurement%s): median |error| %.1f%% before, %.1f%% after", G->name,
                  workload_name(G->workload), G->n, G->n == 1 ? "" : "s", 100 * G->med_before,
                  100 * G->med_after);
        if (isfinite(G->med_loo))
            sb_printf(f, ", %.1f%% left out (leave-one-out; 80%% band half-width %.1f%%)", 100 * G->med_loo,
                      100 * expm1(G->fit.spread));
        else
            sb_puts(f, "; one measurement: no leave-one-out error");
        sb_putc(f, '\n');
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
            const char *name = gpuecon_cal_param_name((gpuecon_cal_param)p);
            if (G->fit.fitted[p])
                sb_printf(f, "  %-7s x%.3f  fitted (bounds x%.2f..x%.2f)%s\n", name, G->cal.scale[p],
                          G->base[p] * G->lo[p], G->base[p] * G->hi[p], G->fit.at_bound[p] ? "  AT A BOUND" : "");
            else if (G->cal.scale_source[p])
                sb_printf(f, "  %-7s x%.3f  from %s\n", name, G->cal.scale[p], G->cal.scale_source[p]);
            else if (G->allowed & 1u << p)
                sb_printf(f, "  %-7s x1      as built in (these runs do not determine it: sensitivity %.2f%s)\n", name,
                          G->fit.sensitivity[p], G->fit.sensitivity[p] >= 0.05 ? ", or it moves them as another does" : "");
        }
    }
    if (v->n_warnings) {
        sb_puts(f, "\nwarnings:\n");
        for (size_t i = 0; i < v->n_warnings; i++)
            sb_printf(f, "  %s\n", v->warnings[i]);
    }
    if (v->n_changes) {
        sb_puts(f, "\nwhat the calibration changes most (its own runs: each stands for every prediction of its group):\n");
        for (size_t i = 0; i < v->n_changes; i++) {
            const calrun_row *r = &v->rows[v->changes[i]];
            sb_printf(f, "  run %d %s: %s %s -> %s %s (%+.1f%%)\n", r->run, r->what ? r->what : "",
                      runs_figure_name(r->figure), NUM_SIG(r->before, 4), NUM_SIG(r->after, 4), calibrate_unit(r->figure),
                      100 * rel(r->after, r->before));
        }
    }
    bool any = false;
    for (size_t i = 0; i < v->n_layouts; i++)
        any |= v->layouts[i].ok;
    if (any)
        sb_puts(f, "\nthe search's best layout before and after (what train and search now answer):\n");
    for (size_t i = 0; i < v->n_layouts; i++) {
        const calibrate_layout *l = &v->layouts[i];
        if (!l->ok)
            continue;
        char b[160], a[160];
        layout_text(&l->before, b, sizeof b);
        layout_text(&l->after, a, sizeof a);
        bool same = !strcmp(a, b);
        sb_printf(f, "  %s: %s, %.0f -> %s%s%.0f tokens/s/GPU (%+.1f%%)\n", l->what, b, l->before_tok_s,
                  same ? "the same layout, " : a, same ? "" : ", ", l->after_tok_s,
                  100 * rel(l->after_tok_s, l->before_tok_s));
    }
    if (v->overlay_path)
        sb_printf(f, "\noverlay: %s (use it with --catalog on any command)\n", v->overlay_path);
    else
        sb_puts(f, "\nno overlay written: give -o DIR to write DIR/calibrations.yaml\n");
}

const render_kind render_calibrate = {calibrate_json, calibrate_table, calibrate_text, NULL};
