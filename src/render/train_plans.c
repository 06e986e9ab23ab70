/*
 * train_plans.c — `gpuecon train`'s plans beyond one job, rendered: a scaling sweep
 * (--sweep-gpus), the fewest GPUs for a deadline (--target-days) and owning the cluster against
 * renting it (--rent-usd-per-gpu-hour), each as JSON, a table (terminal and CSV) and its terminal
 * text, and the sweep's and the deadline's charts.
 */
#include "render/render.h"

/* ---- --sweep-gpus ---- */

static json_t *sweep_json(const void *view)
{
    const train_sweep_view *v = view;
    const gpuecon_train_request *req = v->req;
    json_t *arr = json_array();
    for (int i = 0; i < v->n; i++) {
        json_t *j = train_result_json(&v->rows[i].r);
        json_object_set_new(j, "gpus", json_integer(v->rows[i].gpus));
        json_object_set_new(j, "gbs", json_integer(v->rows[i].gbs));
        if (v->calib && v->rows[i].ok)
            json_object_set_new(j, "calibration", calib_match_json(&v->calib[i]));
        if (v->bands && v->bands[i].set)
            json_object_set_new(j, "band", band_train_json(&v->bands[i], &v->rows[i].r));
        json_array_append_new(arr, j);
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:o}", "model", req->model->name, "system", req->system->name,
                     "precision", gpuecon_precision_name(req->precision), "scaling", v->strong ? "strong" : "weak",
                     "rows", arr);
}

static tbl *sweep_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const train_sweep_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    const char *cols[] = {"GPUs", "gbs", "tp", "cp", "pp", "vpp", "dp", "mbs", "tok/s/GPU", "MFU", "step s",
                          "exposed comm s", "bubble s", "GiB/GPU", "fits"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        tbl_col(t, cols[i], i == 14 ? 'l' : 'r');
    if (v->calib)
        calib_cols(t);
    if (v->bands) /* the 80% band of tok/s/GPU (docs/model.md §7.6) */
        band_cols(t, "tokens_per_s_per_gpu");
    for (int i = 0; i < v->n; i++) {
        const gpuecon_train_result *r = &v->rows[i].r;
        const gpuecon_train_breakdown *b = &r->bd;
        tbl_row(t);
        tbl_num(t, v->rows[i].gpus, 0);
        tbl_num(t, v->rows[i].gbs, 0);
        int p[] = {r->par.tp, r->par.cp, r->par.pp, r->par.vpp, r->par.dp, r->par.mbs};
        for (int k = 0; k < 6; k++)
            tbl_num(t, p[k], 0);
        tbl_num(t, r->tokens_per_s_per_gpu, 1);
        tbl_pct(t, r->mfu, 1);
        tbl_num(t, r->step_time_s, 3);
        tbl_num(t, b->tp_comm_s + b->cp_comm_s + b->pp_comm_s + b->dp_comm_s, 3);
        tbl_num(t, b->pp_bubble_s, 3);
        tbl_num(t, r->memory_gib_per_gpu, 1);
        tbl_str(t, v->rows[i].fits ? "yes" : "NO");
        if (v->calib)
            calib_cells(t, v->rows[i].ok ? &v->calib[i] : NULL);
        if (v->bands)
            band_cells(t, &v->bands[i], 1);
    }
    return t;
}

static void sweep_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const train_sweep_view *v = view;
    const gpuecon_train_request *req = v->req;
    const train_sweep_row *rows = v->rows;
    int n = v->n;
    sb_printf(f, "%s on %s, %s, seq %d, %s scaling (%s)\n\n", req->model->name, req->system->name,
            gpuecon_precision_name(req->precision), req->seq, v->strong ? "strong" : "weak",
            v->strong ? "global batch fixed" : "batch per GPU fixed");
    tbl_print(t, f);
    if (n >= 2 && rows[0].ok && rows[n - 1].ok)
        sb_printf(f, "\n%d -> %d GPUs: tokens/s/GPU %+.1f%%, MFU %.1f%% -> %.1f%%\n", rows[0].gpus, rows[n - 1].gpus,
                100 * (rows[n - 1].r.tokens_per_s_per_gpu / rows[0].r.tokens_per_s_per_gpu - 1), 100 * rows[0].r.mfu,
                100 * rows[n - 1].r.mfu);
    int k = 0, last = -1; /* the sizes whose layout is above the MFU cap (docs/model.md §3.5) */
    for (int i = 0; v->calib && i < n; i++)
        if (rows[i].ok && v->calib[i].above_cap)
            sb_printf(f, "%s%d", k++ ? ", " : "\nwarning: at ", rows[i].gpus), last = i;
    if (k)
        sb_printf(f, " GPUs the MFU (causal attention counted) is above %.1f%%, the best ever published for %s (%s): "
                  "optimistic estimates, ranked at the cap\n", 100 * v->calib[last].cap.mfu, v->calib[last].gpu_prec,
                  v->calib[last].cap.id);
}

const render_kind render_train_sweep = {sweep_json, sweep_table, sweep_text, NULL};

void train_plans_sweep_chart(const train_sweep_view *v, train_chart *ch)
{
    size_t k = 0;
    for (int i = 0; i < v->n; i++)
        if (v->rows[i].ok) {
            ch->x[k] = v->rows[i].gpus;
            ch->y[k] = v->rows[i].r.tokens_per_s_per_gpu;
            ch->y2[k] = 100 * v->rows[i].r.mfu;
            k++;
        }
    snprintf(ch->title, sizeof ch->title, "%s on %s, %s, %s scaling", v->req->model->name, v->req->system->name,
             gpuecon_precision_name(v->req->precision), v->strong ? "strong" : "weak");
    ch->series[0] = (plot_series){"tokens/s/GPU", ch->x, ch->y, k, false};
    ch->series[1] = (plot_series){"MFU (%)", ch->x, ch->y2, k, true};
    ch->spec = (plot_spec){ch->title, "GPUs", "tokens/s per GPU", "MFU (%)", true, false, 0, 0};
    ch->n = 2;
}

/* ---- --target-days ---- */

static json_t *target_row_json(const gpuecon_target_row *r, double days)
{
    json_t *j = json_object();
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "ok", json_boolean(r->ok));
    if (!r->ok) {
        json_object_set_new(j, "why", json_string(r->why));
        return j;
    }
    json_object_set_new(j, "provisioned_gpus", json_integer(r->provisioned_gpus));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(r->tokens_per_s_per_gpu));
    json_object_set_new(j, "ettr", rjson_real(r->ettr));
    json_object_set_new(j, "days_to_train", rjson_real(r->days_to_train));
    json_object_set_new(j, "total_usd", rjson_real(r->total_usd));
    json_object_set_new(j, "energy_mwh", rjson_real(r->energy_mwh));
    json_object_set_new(j, "meets_target", json_boolean(r->days_to_train <= days));
    json_object_set_new(j, "parallelism", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "tp", r->par.tp, "pp",
                                                    r->par.pp, "cp", r->par.cp, "ep", r->par.ep, "dp", r->par.dp,
                                                    "mbs", r->par.mbs));
    return j;
}

static json_t *target_json(const void *view)
{
    const train_target_view *v = view;
    const gpuecon_train_request *req = v->req;
    const gpuecon_target_result *t = v->t;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(req->model->name));
    json_object_set_new(j, "system", json_string(req->system->name));
    json_object_set_new(j, "precision", json_string(gpuecon_precision_name(req->precision)));
    json_object_set_new(j, "tokens", rjson_real(v->tokens));
    json_object_set_new(j, "target_days", rjson_real(v->target_days));
    json_object_set_new(j, "met", json_boolean(t->met));
    json_object_set_new(j, "unit", json_integer(t->unit));
    json_object_set_new(j, "gpus_needed", t->met ? json_integer(t->gpus_needed) : json_null());
    if (!t->met) {
        json_object_set_new(j, "nearest_gpus", t->nearest_gpus ? json_integer(t->nearest_gpus) : json_null());
        json_object_set_new(j, "nearest_days", t->nearest_gpus ? rjson_real(t->nearest_days) : json_null());
    }
    if (t->met || t->nearest_gpus) {
        train_run_json(j, &t->run, v->tier);
        json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(t->run.tokens_per_s_per_gpu));
        json_object_set_new(j, "train", train_result_json(&t->train));
    }
    if (v->band) { /* the answer's 80% band, its days, and the sizes it implies (docs/cli.md --target-days) */
        json_t *b = band_train_json(v->band, &t->train);
        gpuecon_band d;
        band_scaled(v->band, t->train.tokens_per_s_per_gpu, t->run.days_to_train, true, &d);
        json_object_set_new(b, "days_to_train", band_json(&d));
        json_object_set_new(j, "band", b);
        json_object_set_new(j, "gpus_needed_band",
                            json_pack("{s:o, s:o}", "at_low", v->gpus_at_low ? json_integer(v->gpus_at_low) : json_null(),
                                      "at_high", v->gpus_at_high ? json_integer(v->gpus_at_high) : json_null()));
    }
    json_t *rows = json_array();
    for (size_t i = 0; i < t->n_rows; i++)
        json_array_append_new(rows, target_row_json(&t->rows[i], t->target_days));
    json_object_set_new(j, "trade", rows);
    json_object_set_new(j, "evaluations", json_integer(t->evaluations));
    return j;
}

/* The trade between GPUs, days and dollars around the answer. */
static tbl *target_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_target_result *t = ((const train_target_view *)view)->t;
    tbl *tb = tbl_new(ctx, oom);
    const char *cols[] = {"GPUs", "provisioned", "tp", "pp", "cp", "ep", "dp", "tok/s/GPU", "ETTR", "days", "$M",
                          "MWh", "deadline"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        tbl_col(tb, cols[i], i == 12 ? 'l' : 'r');
    for (size_t i = 0; i < t->n_rows; i++) {
        const gpuecon_target_row *r = &t->rows[i];
        tbl_row(tb);
        tbl_num(tb, r->gpus, 0);
        if (!r->ok) {
            char whole[sizeof r->why + 16];
            snprintf(whole, sizeof whole, "cannot run: %s", r->why);
            tbl_span(tb, whole, NULL); /* whole, wrapped over the row: a table never cuts a message */
            continue;
        }
        tbl_num(tb, r->provisioned_gpus, 0);
        int p[] = {r->par.tp, r->par.pp, r->par.cp, r->par.ep, r->par.dp};
        for (int k = 0; k < 5; k++)
            tbl_num(tb, p[k], 0);
        tbl_num(tb, r->tokens_per_s_per_gpu, 1);
        tbl_pct(tb, r->ettr, 1);
        tbl_num(tb, r->days_to_train, 1);
        tbl_num(tb, r->total_usd / 1e6, 3);
        tbl_num(tb, r->energy_mwh, 0);
        tbl_str(tb, r->days_to_train <= t->target_days ? (r->gpus == t->gpus_needed ? "meets (fewest)" : "meets")
                                                       : "misses");
    }
    return tb;
}

static void target_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const train_target_view *v = view;
    const gpuecon_train_request *req = v->req;
    const gpuecon_target_result *t = v->t;
    const gpuecon_platform_result *p = &t->run;
    sb_printf(f, "%s on %s, %s: %s tokens within %s days (%s tier; failures, restarts and spares included)\n",
            req->model->name, req->system->name, gpuecon_precision_name(req->precision), NUM_COUNT(v->tokens),
            NUM_SIG(v->target_days, 6),
            v->tier);
    if (t->met)
        sb_printf(f, "GPUs needed  %d active (%d per domain; %d provisioned with spares): %.1f days, %s, %.0f MWh, "
                   "ETTR %.1f%%\n",
                t->gpus_needed, t->unit, p->provisioned_gpus, p->days_to_train, NUM_MONEY(p->total_usd), p->energy_mwh,
                100 * p->ettr);
    else if (t->nearest_gpus)
        sb_printf(f, "no size meets it; the nearest miss is %d GPUs in %.1f days\n", t->nearest_gpus, t->nearest_days);
    else
        sb_printf(f, "no size can run this job: %s\n", t->why);
    if (v->band) {
        gpuecon_band d;
        band_scaled(v->band, t->train.tokens_per_s_per_gpu, p->days_to_train, true, &d);
        char tps[640], days[64];
        band_text(tps, sizeof tps, v->band, 1, 0);
        snprintf(days, sizeof days, "%s-%s", NUM_FIXED(d.low, 1), NUM_FIXED(d.high, 1));
        sb_printf(f, "80%% band    %s tok/s/GPU %s: %s days at %d GPUs; ", NUM_FIXED(t->train.tokens_per_s_per_gpu, 0),
                  tps, days, t->met ? t->gpus_needed : t->nearest_gpus);
        if (v->gpus_at_low)
            sb_printf(f, "the deadline needs %d GPUs at the band's low end", v->gpus_at_low);
        else
            sb_printf(f, "at the band's low end no size up to the limit meets the deadline");
        if (v->gpus_at_high)
            sb_printf(f, ", %d at its high end\n", v->gpus_at_high);
        else
            sb_printf(f, "\n");
    }
    sb_putc(f, '\n');
    tbl_print(tb, f);
}

const render_kind render_train_target = {target_json, target_table, target_text, NULL};

void train_plans_target_chart(const train_target_view *v, train_chart *ch)
{
    const gpuecon_target_result *t = v->t;
    size_t k = 0;
    for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i].ok) {
            ch->x[k] = t->rows[i].gpus;
            ch->y[k] = t->rows[i].days_to_train;
            ch->y2[k] = t->rows[i].total_usd / 1e6;
            k++;
        }
    ch->n = 0;
    if (k == 0)
        return;
    ch->dx[0] = ch->x[0];
    ch->dx[1] = ch->x[k - 1];
    ch->dy[0] = ch->dy[1] = t->target_days;
    snprintf(ch->title, sizeof ch->title, "%s on %s, %s: GPUs, days and dollars (deadline %g days)",
             v->req->model->name, v->req->system->name, gpuecon_precision_name(v->req->precision), t->target_days);
    ch->series[0] = (plot_series){"days to train", ch->x, ch->y, k, false};
    ch->series[1] = (plot_series){"deadline", ch->dx, ch->dy, 2, false};
    ch->series[2] = (plot_series){"total $M", ch->x, ch->y2, k, true};
    ch->spec = (plot_spec){ch->title, "active GPUs", "days (failures and spares included)", "$M", false, false, 0, 0};
    ch->n = 3;
}

/* ---- --rent-usd-per-gpu-hour ---- */

static json_t *life_json(const gpuecon_life_result *l)
{
    json_t *j = json_object();
    json_object_set_new(j, "life_years", rjson_real(l->life_years));
    json_object_set_new(j, "utilisation", rjson_real(l->utilisation));
    json_object_set_new(j, "charged_gpus", rjson_real(l->charged_gpus));
    json_object_set_new(j, "capex_usd", rjson_real(l->capex_usd));
    json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(l->tco_usd_per_gpu_hour));
    json_object_set_new(j, "rent_usd_per_gpu_hour", rjson_real(l->rent_usd_per_gpu_hour));
    json_object_set_new(j, "own_usd_per_mtok", rjson_real(l->own_usd_per_mtok));
    json_object_set_new(j, "rent_usd_per_mtok", rjson_real(l->rent_usd_per_mtok));
    json_object_set_new(j, "tokens", rjson_real(l->tokens));
    json_object_set_new(j, "runs", rjson_real(l->runs));
    json_object_set_new(j, "breakeven_utilisation", rjson_real(l->breakeven_utilisation));
    json_object_set_new(j, "own_beats_rent_month",
                        l->own_beats_rent_month > 0 ? json_integer(l->own_beats_rent_month) : json_null());
    json_object_set_new(j, "own_pv_usd", rjson_real(l->own_pv_usd));
    json_object_set_new(j, "rent_pv_usd", rjson_real(l->rent_pv_usd));
    json_t *ys = json_array();
    for (size_t i = 0; i < l->n_years; i++)
        json_array_append_new(ys, json_pack("{s:i, s:o, s:o, s:o, s:o}", "year", l->years[i].year,
                                            "tokens_per_s_per_gpu", rjson_real(l->years[i].tokens_per_s_per_gpu),
                                            "tokens", rjson_real(l->years[i].tokens), "own_usd_per_mtok",
                                            rjson_real(l->years[i].own_usd_per_mtok), "rent_usd_per_mtok",
                                            rjson_real(l->years[i].rent_usd_per_mtok)));
    json_object_set_new(j, "years", ys);
    return j;
}

static json_t *own_rent_json(const void *view)
{
    const train_life_view *v = view;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(v->req->model->name));
    json_object_set_new(j, "system", json_string(v->req->system->name));
    json_object_set_new(j, "gpus", json_integer(v->req->gpus));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(v->tokens_per_s_per_gpu));
    json_object_set_new(j, "life", life_json(v->l));
    if (v->band) { /* the throughput's band and the life's $/Mtok under it (both as 1/throughput) */
        gpuecon_band o, r;
        band_scaled(v->band, v->tokens_per_s_per_gpu, v->l->own_usd_per_mtok, true, &o);
        band_scaled(v->band, v->tokens_per_s_per_gpu, v->l->rent_usd_per_mtok, true, &r);
        json_t *b = json_object();
        json_object_set_new(b, "tokens_per_s_per_gpu", band_json(v->band));
        json_object_set_new(b, "own_usd_per_mtok", band_json(&o));
        json_object_set_new(b, "rent_usd_per_mtok", band_json(&r));
        json_object_set_new(j, "band", b);
    }
    return j;
}

/* Cost per million tokens year by year, owning and renting, and over the life. */
static tbl *own_rent_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_life_result *l = ((const train_life_view *)view)->l;
    tbl *t = tbl_new(ctx, oom);
    const char *cols[] = {"year", "tok/s/GPU", "tokens", "own $/Mtok", "rent $/Mtok"};
    for (size_t i = 0; i < 5; i++)
        tbl_col(t, cols[i], 'r');
    for (size_t i = 0; i < l->n_years; i++) {
        tbl_row(t);
        tbl_num(t, l->years[i].year, 0);
        tbl_num(t, l->years[i].tokens_per_s_per_gpu, 1);
        tbl_text(t, NUM_COUNT(l->years[i].tokens), NULL);
        tbl_num(t, l->years[i].own_usd_per_mtok, 4);
        tbl_num(t, l->years[i].rent_usd_per_mtok, 4);
    }
    tbl_sep(t);
    tbl_row(t);
    tbl_str(t, "life");
    tbl_str(t, "");
    tbl_text(t, NUM_COUNT(l->tokens), NULL);
    tbl_num(t, l->own_usd_per_mtok, 4);
    tbl_num(t, l->rent_usd_per_mtok, 4);
    return t;
}

static void own_rent_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const train_life_view *v = view;
    const gpuecon_life_result *l = v->l;
    sb_printf(f, "%s on %d x %s (%.0f GPUs with spares), %s profile: owning for %s years at %.0f%% utilisation "
               "vs renting at $%.3f per GPU-hour used\n\n",
            v->req->model->name, v->req->gpus, v->req->system->name, l->charged_gpus, v->profile->name,
            NUM_SIG(l->life_years, 3), 100 * l->utilisation, l->rent_usd_per_gpu_hour);
    tbl_print(t, f);
    sb_printf(f, "\nowning (TCO $%.3f/GPU-h every hour) beats renting above %.0f%% utilisation; ",
            l->tco_usd_per_gpu_hour, 100 * l->breakeven_utilisation);
    if (l->own_beats_rent_month > 0)
        sb_printf(f, "with %s capex up front, owning has cost less than renting from month %d on (present "
                   "values at the profile's cost of capital).\n",
                NUM_MONEY(l->capex_usd), l->own_beats_rent_month);
    else
        sb_printf(f, "with %s capex up front, owning never catches up within the life.\n", NUM_MONEY(l->capex_usd));
    if (v->band) {
        gpuecon_band o, r;
        band_scaled(v->band, v->tokens_per_s_per_gpu, l->own_usd_per_mtok, true, &o);
        band_scaled(v->band, v->tokens_per_s_per_gpu, l->rent_usd_per_mtok, true, &r);
        char tps[640];
        band_text(tps, sizeof tps, v->band, 1, 0);
        sb_printf(f, "80%% band: %s tok/s/GPU %s, so own %s-%s and rent %s-%s per 1M tokens over the life; the "
                     "verdict and its break-evens do not move with the throughput (owning and renting both cost "
                     "per hour, so both scale as 1/throughput).\n",
                  NUM_FIXED(v->tokens_per_s_per_gpu, 0), tps, NUM_MONEY(o.low), NUM_MONEY(o.high), NUM_MONEY(r.low),
                  NUM_MONEY(r.high));
    }
}

const render_kind render_train_life = {own_rent_json, own_rent_table, own_rent_text, NULL};
