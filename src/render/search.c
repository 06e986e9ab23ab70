/*
 * search.c — `gpuecon search` rendered: the top configurations of a training job, ranked, as
 * JSON (each as train's), as a table (terminal and CSV; the expert columns for MoE models, $/Mtok
 * with a price) and the terminal text around it: how many configurations were evaluated, how fast.
 */
#include "render/render.h"

static json_t *search_json(const void *view)
{
    const search_view *v = view;
    const gpuecon_train_request *req = v->req;
    const gpuecon_search_result *r = v->r;
    json_t *arr = json_array();
    for (size_t i = 0; i < r->n_best; i++) {
        json_t *j = train_result_json(&r->best[i]);
        if (r->usd_per_mtok[i] > 0)
            json_object_set_new(j, "usd_per_mtok", rjson_real(r->usd_per_mtok[i]));
        if (v->calib)
            json_object_set_new(j, "calibration", calib_match_json(&v->calib[i]));
        if (v->bands)
            json_object_set_new(j, "band", band_train_json(&v->bands[i], &r->best[i]));
        json_array_append_new(arr, j);
    }
    json_t *root = json_object();
    json_object_set_new(root, "model", json_string(req->model->name));
    json_object_set_new(root, "system", json_string(req->system->name));
    rjson_power(root, req->system);
    json_object_set_new(root, "gpus", json_integer(req->gpus));
    if (req->stack)
        json_object_set_new(root, "stack", json_string(req->stack->name));
    if (req->calibration)
        json_object_set_new(root, "user_calibration", rjson_user_calibration(req->calibration));
    json_object_set_new(root, "objective", json_string(v->o->objective ? "cost" : "throughput"));
    json_object_set_new(root, "rank_mfu_cap", req->rank_mfu_cap > 0 ? rjson_real(req->rank_mfu_cap) : json_null());
    /* the band's low end over the point a layout ranks at: inside / outside the calibrated families */
    json_t *rb = json_null();
    if (req->rank_band_low[0] > 0)
        rb = json_pack("{s:o, s:o}", "inside", rjson_real(req->rank_band_low[0]), "outside_family",
                       rjson_real(req->rank_band_low[1]));
    json_object_set_new(root, "rank_band_low", rb ? rb : json_null());
    json_object_set_new(root, "best", arr);
    json_object_set_new(root, "configs_evaluated", json_integer((json_int_t)r->configs_evaluated));
    json_object_set_new(root, "configs_feasible", json_integer((json_int_t)r->configs_feasible));
    json_object_set_new(root, "configs_pruned", json_integer((json_int_t)r->configs_pruned));
    json_object_set_new(root, "elapsed_s", rjson_real(r->elapsed_s));
    json_object_set_new(root, "configs_per_s", rjson_real(r->elapsed_s > 0 ? r->configs_evaluated / r->elapsed_s : 0));
    if (v->o->shard_count > 0)
        json_object_set_new(root, "shard", json_pack("{s:i, s:i}", "index", v->o->shard_index, "count",
                                                     v->o->shard_count));
    if (r->have_overflow)
        json_object_set_new(root, "least_overflow", train_result_json(&r->least_overflow));
    return root;
}

static void table_row(tbl *t, int rank, const gpuecon_train_result *r, double usd, bool moe, const calib_match *m,
                      const gpuecon_band *band)
{
    const gpuecon_parallel *p = &r->par;
    const gpuecon_train_breakdown *b = &r->bd;
    tbl_row(t);
    tbl_num(t, rank, 0);
    int v[] = {p->tp, p->cp, p->pp, p->vpp, p->dp, p->mbs};
    for (int k = 0; k < 6; k++)
        tbl_num(t, v[k], 0);
    if (moe) {
        tbl_num(t, p->ep, 0);
        tbl_num(t, p->etp, 0);
        tbl_str(t, p->a2a_overlap ? "on" : "off");
        tbl_str(t, gpuecon_dispatcher_name(r->moe.dispatcher));
    }
    tbl_str(t, gpuecon_parallel_recompute_name(p));
    tbl_num(t, p->zero, 0);
    tbl_str(t, p->tp_overlap ? "on" : "off");
    tbl_num(t, r->tokens_per_s_per_gpu, 1);
    tbl_pct(t, r->mfu, 1);
    tbl_num(t, r->step_time_s, 3);
    tbl_num(t, b->tp_comm_s + b->cp_comm_s + b->ep_comm_s + b->pp_comm_s + b->dp_comm_s, 3);
    tbl_num(t, b->pp_bubble_s, 3);
    tbl_num(t, r->memory_gib_per_gpu, 1);
    if (usd > 0)
        tbl_num(t, usd, 4);
    if (m)
        calib_cells(t, m);
    if (band)
        band_cells(t, band, 1);
}

static tbl *search_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const search_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    bool moe = v->req->model->experts > 0;
    const char *cols[] = {"#", "tp", "cp", "pp", "vpp", "dp", "mbs", "ep", "etp", "a2a-ovl", "dispatcher",
                          "recompute", "zero", "tp-ovl", "tok/s/GPU", "MFU", "step s", "exposed comm s", "bubble s",
                          "GiB/GPU", "$/Mtok"};
    size_t nc = sizeof cols / sizeof cols[0] - (v->o->usd_per_gpu_hour > 0 ? 0 : 1);
    for (size_t i = 0; i < nc; i++) {
        if (!moe && i >= 7 && i <= 10)
            continue; /* the expert columns */
        tbl_col(t, cols[i], (i == 9 || i == 10 || i == 11 || i == 13) ? 'l' : 'r');
    }
    if (v->calib)
        calib_cols(t);
    if (v->bands) /* the 80% band of tok/s/GPU (docs/model.md §7.6) */
        band_cols(t, "tokens_per_s_per_gpu");
    for (size_t i = 0; i < v->r->n_best; i++)
        table_row(t, (int)i + 1, &v->r->best[i], v->r->usd_per_mtok[i], moe, v->calib ? &v->calib[i] : NULL,
                  v->bands ? &v->bands[i] : NULL);
    return t;
}

static void search_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const search_view *v = view;
    const gpuecon_train_request *req = v->req;
    const gpuecon_search_result *r = v->r;
    sb_printf(f, "%s on %d x %s, %s, seq %d, global batch %d: best %zu by %s\n\n", req->model->name, req->gpus,
            req->system->name, gpuecon_precision_name(req->precision), req->seq, req->gbs, r->n_best,
            v->o->objective ? "cost per token" : "tokens/s/GPU");
    if (req->stack)
        sb_printf(f, "stack: %s (%s)\n\n", req->stack->name, req->stack->framework);
    char ucal[400];
    if (req->calibration)
        sb_printf(f, "calibrated: %s\n\n", fmt_user_calibration(ucal, sizeof ucal, req->calibration));
    char pw[160];
    if (*fmt_power(pw, sizeof pw, req->system))
        sb_printf(f, "power limit: %s\n\n", pw);
    tbl_print(t, f);
    sb_printf(f, "\n%llu configurations evaluated, %llu fit in memory, %llu skipped by the bound, %.3f s "
               "(%s configurations/s)\n",
            (unsigned long long)r->configs_evaluated, (unsigned long long)r->configs_feasible,
            (unsigned long long)r->configs_pruned, r->elapsed_s,
            NUM_COUNT(r->elapsed_s > 0 ? r->configs_evaluated / r->elapsed_s : 0));
    if (!v->calib || !r->n_best)
        return;
    if (req->rank_mfu_cap > 0)
        sb_printf(f, "ranked by throughput at min(MFU with causal attention, %.1f%%), the best ever published for %s "
                  "(%s); above it, the smaller estimate first\n", 100 * req->rank_mfu_cap, v->calib[0].gpu_prec,
                  v->calib[0].cap.id);
    if (req->rank_band_low[0] > 0)
        sb_printf(f, "ranked at the low end of each layout's 80%% band: %.3f of its throughput, %.3f where no "
                  "calibration row combines its parallelisms (layout_family), so an untested combination cannot win "
                  "on optimism alone\n", req->rank_band_low[0], req->rank_band_low[1]);
    sb_printf(f, "\n#1 against the calibration set:\n");
    calib_match_text(f, &v->calib[0]);
    char band[400];
    band_text(band, sizeof band, v->bands ? &v->bands[0] : NULL, 1, 0);
    if (band[0])
        sb_printf(f, "#1 80%% band: %s tokens/s/GPU\n", band);
    size_t k = 0;
    for (size_t i = 1; i < r->n_best; i++)
        if (v->calib[i].above_cap)
            sb_printf(f, "%s#%zu", k++ ? ", " : "also above the MFU cap (ranked at it): ", i + 1);
    if (k)
        sb_putc(f, '\n');
}

const render_kind render_search = {search_json, search_table, search_text, NULL};
