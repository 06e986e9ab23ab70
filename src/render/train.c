/*
 * train.c — one predicted training configuration rendered: its JSON (docs/cli.md's keys, which
 * every train and search output uses), the config string, the run's reliability and totals as
 * JSON, and `gpuecon train`'s one-job output: the step-time breakdown (the table, terminal and
 * CSV), memory per GPU, the MoE part, with a price the cost and the run, and with --vs the same
 * job on another system.
 */
#include "render/render.h"

#include <math.h>

void train_config(const gpuecon_parallel *p, char *buf, size_t cap)
{
    if (p->ep > 1 || p->etp > 1)
        snprintf(buf, cap, "tp %d cp %d pp %d vpp %d dp %d mbs %d; experts ep %d etp %d edp %d", p->tp, p->cp, p->pp,
                 p->vpp, p->dp, p->mbs, p->ep, p->etp, p->edp);
    else
        snprintf(buf, cap, "tp %d cp %d pp %d vpp %d dp %d mbs %d", p->tp, p->cp, p->pp, p->vpp, p->dp, p->mbs);
}

/* The MoE part of a result (null for dense models). */
static json_t *moe_json(const gpuecon_train_result *r)
{
    const gpuecon_train_moe *m = &r->moe;
    if (m->moe_layers == 0)
        return json_null();
    json_t *j = json_object();
    json_object_set_new(j, "moe_layers", json_integer(m->moe_layers));
    json_object_set_new(j, "local_experts", json_integer(m->local_experts));
    json_object_set_new(j, "tokens_per_expert", rjson_real(m->tokens_per_expert));
    json_object_set_new(j, "load_factor", rjson_real(m->load_factor));
    json_object_set_new(j, "grouped_gemm_eff", rjson_real(m->grouped_gemm_eff));
    json_object_set_new(j, "a2a_bytes", rjson_real(m->a2a_bytes));
    json_object_set_new(j, "a2a_s", rjson_real(m->a2a_s));
    json_object_set_new(j, "a2a_intra_fraction", rjson_real(m->a2a_intra_fraction));
    json_object_set_new(j, "ep_domains", json_integer(m->ep_domains));
    json_object_set_new(j, "a2a_total_s", rjson_real(m->a2a_total_s));
    json_object_set_new(j, "a2a_exposed_s", rjson_real(m->a2a_exposed_s));
    json_object_set_new(j, "dispatcher", json_string(gpuecon_dispatcher_name(m->dispatcher)));
    char scope[64];
    gpuecon_graph_scope_name(m->cuda_graph_scope, scope, sizeof scope);
    json_object_set_new(j, "cuda_graphs", json_string(scope));
    json_object_set_new(j, "host_s", rjson_real(m->host_s));
    return j;
}

json_t *train_result_json(const gpuecon_train_result *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(r->tokens_per_s_per_gpu));
    json_object_set_new(j, "mfu", rjson_real(r->mfu));
    json_object_set_new(j, "mfu_convention",
                        json_string("model FLOPs per token with full (non-causal) attention and the LM head "
                                    "(NVIDIA/NeMo dense-model convention) over the dense peak at the "
                                    "training precision"));
    json_object_set_new(j, "mfu_causal", rjson_real(r->mfu_causal));
    json_object_set_new(j, "hfu", rjson_real(r->hfu));
    json_object_set_new(j, "model_flops_per_token", rjson_real(r->model_flops_per_token));
    json_object_set_new(j, "step_time_s", rjson_real(r->step_time_s));
    json_object_set_new(j, "memory_gib_per_gpu", rjson_real(r->memory_gib_per_gpu));
    json_object_set_new(j, "fits", json_boolean(r->fits));
    const gpuecon_parallel *p = &r->par;
    json_object_set_new(j, "parallelism",
                        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:b, s:b, s:i, s:i, s:b}", "tp",
                                  p->tp, "pp", p->pp, "vpp", p->vpp, "cp", p->cp, "ep", p->ep, "dp", p->dp, "mbs",
                                  p->mbs, "microbatches", p->microbatches, "recompute",
                                  gpuecon_recompute_name(p->recompute), "zero", p->zero, "tp_overlap", p->tp_overlap,
                                  "sequence_parallel", p->sequence_parallel, "etp", p->etp, "edp", p->edp,
                                  "a2a_overlap", p->a2a_overlap));
    json_object_set_new(json_object_get(j, "parallelism"), "offload_layers", json_integer(p->offload_layers));
    json_object_set_new(json_object_get(j, "parallelism"), "recompute_moe", json_boolean(p->recompute_moe));
    const gpuecon_train_breakdown *b = &r->bd;
    json_t *bd = json_object();
    json_object_set_new(bd, "compute_s", rjson_real(b->compute_s));
    json_object_set_new(bd, "tp_comm_s", rjson_real(b->tp_comm_s));
    json_object_set_new(bd, "cp_comm_s", rjson_real(b->cp_comm_s));
    json_object_set_new(bd, "ep_comm_s", rjson_real(b->ep_comm_s));
    json_object_set_new(bd, "pp_bubble_s", rjson_real(b->pp_bubble_s));
    json_object_set_new(bd, "pp_comm_s", rjson_real(b->pp_comm_s));
    json_object_set_new(bd, "dp_comm_s", rjson_real(b->dp_comm_s));
    json_object_set_new(bd, "optimizer_s", rjson_real(b->optimizer_s));
    json_object_set_new(bd, "straggler_s", rjson_real(b->straggler_s));
    json_object_set_new(bd, "offload_s", rjson_real(b->offload_s));
    json_object_set_new(j, "breakdown", bd);
    const gpuecon_train_memory *m = &r->mem;
    json_t *mem = json_object();
    json_object_set_new(mem, "weights_gib", rjson_real(m->weights_gib));
    json_object_set_new(mem, "fp8_copy_gib", rjson_real(m->fp8_copy_gib));
    json_object_set_new(mem, "grads_gib", rjson_real(m->grads_gib));
    json_object_set_new(mem, "optimizer_gib", rjson_real(m->optimizer_gib));
    json_object_set_new(mem, "activations_gib", rjson_real(m->activations_gib));
    json_object_set_new(mem, "transient_gib", rjson_real(m->transient_gib));
    json_object_set_new(mem, "reserve_gib", rjson_real(m->reserve_gib));
    json_object_set_new(mem, "total_gib", rjson_real(m->total_gib));
    json_object_set_new(mem, "capacity_gib", rjson_real(m->capacity_gib));
    json_object_set_new(mem, "stage", json_integer(m->stage));
    json_object_set_new(mem, "offloaded_gib", rjson_real(m->offloaded_gib));
    json_object_set_new(mem, "overflow_term", m->overflow_term ? json_string(m->overflow_term) : json_null());
    json_object_set_new(mem, "overflow_gib", rjson_real(m->overflow_gib));
    json_object_set_new(mem, "overflow_term_gib", rjson_real(m->overflow_term_gib));
    json_object_set_new(j, "memory", mem);
    json_object_set_new(j, "moe", moe_json(r));
    json_object_set_new(j, "stage_layers",
                        json_pack("{s:i, s:i, s:i}", "first", r->stage_layers_first, "max", r->stage_layers_max,
                                  "last", r->stage_layers_last));
    return j;
}

void train_run_json(json_t *j, const gpuecon_platform_result *r, const char *tier)
{
    json_object_set_new(j, "ettr", rjson_real(r->ettr));
    json_object_set_new(j, "tier", json_string(tier));
    json_object_set_new(j, "mtbi_gpu_days", rjson_real(r->mtbi_gpu_days));
    json_object_set_new(j, "interruptions_per_day", rjson_real(r->interruptions_per_day));
    json_object_set_new(j, "provisioned_gpus", json_integer(r->provisioned_gpus));
    json_object_set_new(j, "spare_gpus", json_integer(r->provisioned_gpus - r->gpus));
    json_object_set_new(j, "charged_gpus", rjson_real(r->charged_gpus));
    json_object_set_new(j, "effective_usd_per_mtok", rjson_real(r->effective_usd_per_mtok));
    if (isfinite(r->days_to_train)) {
        json_object_set_new(j, "days_to_train", rjson_real(r->days_to_train));
        json_object_set_new(j, "total_usd", rjson_real(r->total_usd));
        json_object_set_new(j, "energy_mwh", rjson_real(r->energy_mwh));
    }
    if (r->timeline) { /* --start-date: the catalog timeline's points the run used */
        json_t *tl = json_array();
        for (size_t i = 0; i < r->n_points_used; i++) {
            const gpuecon_timeline_point *pt = &r->points_used[i];
            json_array_append_new(tl, json_pack("{s:s, s:o, s:s, s:o}", "date", pt->date, "tokens_per_s_per_gpu",
                                                rjson_real(pt->tokens_per_s_per_gpu), "stage",
                                                gpuecon_stage_name(pt->source.stage), "source",
                                                rjson_source(pt->source)));
        }
        json_object_set_new(j, "timeline_points_used", tl);
        json_object_set_new(j, "run_tokens_per_s_per_gpu", rjson_real(r->tokens_per_s_per_gpu));
        json_object_set_new(j, "uses_projection", json_boolean(r->uses_projection));
    }
}

/* The cost of the run: raw figures at full goodput (usd_per_mtok, joules_per_token), and the
 * totals with the reliability model's goodput and spares, as compare reports them. */
static json_t *cost_json(const train_view *v)
{
    const gpuecon_cost *k = &v->cost;
    const gpuecon_platform_result *run = v->run;
    json_t *j = json_object();
    json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(v->usd_per_gpu_hour));
    json_object_set_new(j, "usd_per_mtok", rjson_real(k->usd_per_mtok));
    json_object_set_new(j, "effective_usd_per_mtok", rjson_real(run->effective_usd_per_mtok));
    json_object_set_new(j, "joules_per_token", rjson_real(k->joules_per_token));
    json_object_set_new(j, "pue", rjson_real(k->pue));
    json_object_set_new(j, "ettr", rjson_real(run->ettr));
    if (k->tokens > 0) {
        json_object_set_new(j, "tokens", rjson_real(k->tokens));
        /* GPU-hours the job pays for: charged GPUs (spares included when charged) over the days */
        json_object_set_new(j, "gpu_hours", rjson_real(run->charged_gpus * run->days_to_train * 24));
        json_object_set_new(j, "total_usd", rjson_real(run->total_usd));
        json_object_set_new(j, "energy_mwh", rjson_real(run->energy_mwh));
        json_object_set_new(j, "total_usd_at_full_goodput", rjson_real(k->total_usd));
    }
    if (v->user_price)
        json_object_set_new(j, "tco_source", rjson_user_price());
    double days = v->tokens > 0 ? run->days_to_train : 0;
    if (days > 0)
        json_object_set_new(j, "days", rjson_real(days));
    return j;
}

/* ---- --vs S: the same job on another system ---- */

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static json_t *vs_object(const train_vs_view *v)
{
    json_t *j = train_result_json(&v->r);
    json_object_set_new(j, "system", json_string(v->other->name));
    json_object_set_new(j, "gpus", json_integer(v->gpus));
    json_object_set_new(j, "gbs", json_integer(v->gbs));
    json_object_set_new(j, "throughput_ratio",
                        rjson_real(ratio(v->mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu)));
    if (v->user_cal)
        json_object_set_new(j, "user_calibration", rjson_user_calibration(v->user_cal));
    if (v->have_a2a) {
        json_t *a = json_object();
        json_object_set_new(a, "gpus", json_integer(v->ep));
        json_object_set_new(a, "stride", json_integer(v->etp));
        json_object_set_new(a, "bytes", rjson_real(v->bytes));
        json_object_set_new(a, "time_s", rjson_real(v->a2a_this));
        json_object_set_new(a, "vs_time_s", rjson_real(v->a2a_other));
        json_object_set_new(a, "ratio", rjson_real(ratio(v->a2a_other, v->a2a_this)));
        json_object_set_new(j, "all_to_all", a);
    }
    if (v->have_calib)
        json_object_set_new(j, "calibration", calib_match_json(&v->calib));
    if (v->band.set)
        json_object_set_new(j, "band", band_train_json(&v->band, &v->r));
    return j;
}

static json_t *vs_json(const void *view)
{
    return vs_object(view);
}

static tbl *vs_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const train_vs_view *v = view;
    const gpuecon_train_result *mine = v->mine;
    char b[32];
    tbl *t = tbl_new(ctx, oom);
    tbl_col(t, "", 'l');
    tbl_col(t, v->system->name, 'r');
    tbl_col(t, v->other->name, 'r');
    tbl_col(t, "ratio", 'r');
    tbl_row(t);
    tbl_str(t, "throughput, tokens/s/GPU (end to end)");
    tbl_num(t, mine->tokens_per_s_per_gpu, 1);
    tbl_num(t, v->r.tokens_per_s_per_gpu, 1);
    tbl_fmt(t, "%.2fx", ratio(mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu));
    tbl_row(t);
    tbl_str(t, "step time, s");
    tbl_num(t, mine->step_time_s, 3);
    tbl_num(t, v->r.step_time_s, 3);
    tbl_str(t, "");
    tbl_row(t);
    tbl_str(t, "exposed expert all-to-all per step, s");
    tbl_num(t, mine->bd.ep_comm_s, 3);
    tbl_num(t, v->r.bd.ep_comm_s, 3);
    tbl_str(t, "");
    if (v->have_a2a) {
        tbl_row(t);
        tbl_fmt(t, "one dispatch all-to-all (%d GPUs, %s each), ms", v->ep, fmt_si(b, sizeof b, v->bytes, "B"));
        tbl_num(t, 1e3 * v->a2a_this, 3);
        tbl_num(t, 1e3 * v->a2a_other, 3);
        tbl_fmt(t, "%.1fx", ratio(v->a2a_other, v->a2a_this));
    }
    return t;
}

/* Follows the one job's text: starts with an empty line. */
static void vs_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const train_vs_view *v = view;
    char cfg[128];
    train_config(&v->r.par, cfg, sizeof cfg);
    sb_printf(f, "\nversus %s: %d GPUs, global batch %d, its own best layout (%s)%s\n\n", v->other->name, v->gpus,
            v->gbs, cfg, v->fits ? "" : " - does NOT fit, nearest miss");
    char ucal[400];
    if (v->user_cal)
        sb_printf(f, "%s calibrated: %s\n\n", v->other->name, fmt_user_calibration(ucal, sizeof ucal, v->user_cal));
    tbl_print(t, f);
    if (v->have_a2a)
        sb_printf(f, "\nthe all-to-all alone is %.1fx faster on %s; the job end to end %.2fx per GPU: the collective is "
                   "only part of the step (and overlaps compute)\n",
                ratio(v->a2a_other, v->a2a_this), v->system->name,
                ratio(v->mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu));
    if (v->have_calib) {
        sb_printf(f, "\n%s's layout:\n", v->other->name);
        calib_match_brief(f, &v->calib, "  ");
        char band[400];
        band_text(band, sizeof band, &v->band, 1, 0);
        if (band[0])
            sb_printf(f, "  80%% band: %s tokens/s/GPU\n", band);
    }
}

const render_kind render_train_vs = {vs_json, vs_table, vs_text, NULL};

static json_t *one_json(const void *view)
{
    const train_view *v = view;
    const gpuecon_train_request *req = v->req;
    json_t *j = train_result_json(v->r);
    json_object_set_new(j, "model", json_string(req->model->name));
    json_object_set_new(j, "system", json_string(req->system->name));
    rjson_power(j, req->system);
    json_object_set_new(j, "gpus", json_integer(req->gpus));
    json_object_set_new(j, "precision", json_string(gpuecon_precision_name(req->precision)));
    json_object_set_new(j, "seq", json_integer(req->seq));
    json_object_set_new(j, "gbs", json_integer(req->gbs));
    if (req->stack)
        json_object_set_new(j, "stack", json_string(req->stack->name));
    if (req->calibration)
        json_object_set_new(j, "user_calibration", rjson_user_calibration(req->calibration));
    if (v->profile) {
        json_object_set_new(j, "cost", cost_json(v));
        train_run_json(j, v->run, v->tier);
    }
    if (v->vs)
        json_object_set_new(j, "vs", vs_object(v->vs));
    if (v->calib)
        json_object_set_new(j, "calibration", calib_match_json(v->calib));
    if (v->band)
        json_object_set_new(j, "band", band_train_json(v->band, v->r));
    return j;
}

static void breakdown_row(tbl *t, const char *what, double s, double step, const char *how)
{
    tbl_row(t);
    tbl_str(t, what);
    tbl_num(t, s, 3);
    tbl_pct(t, step > 0 ? s / step : 0, 1);
    tbl_str(t, how);
}

/* The prediction in one row, the table of train --csv: the headline figures and the layout. */
static tbl *summary_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const train_view *v = view;
    const gpuecon_train_result *r = v->r;
    const gpuecon_parallel *p = &r->par;
    tbl *t = tbl_new(ctx, oom);
    const char *cols[] = {"tokens_per_s_per_gpu", "mfu", "step_time_s", "memory_gib_per_gpu", "fits", "tp", "cp",
                          "pp", "vpp", "dp", "mbs", "recompute", "zero", "tp_overlap"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        tbl_col(t, cols[i], i == 4 || i == 11 ? 'l' : 'r');
    if (v->calib)
        calib_cols(t);
    if (v->band)
        band_cols(t, "tokens_per_s_per_gpu");
    tbl_row(t);
    tbl_num(t, r->tokens_per_s_per_gpu, 1);
    tbl_pct(t, r->mfu, 1);
    tbl_num(t, r->step_time_s, 3);
    tbl_num(t, r->memory_gib_per_gpu, 2);
    tbl_str(t, r->fits ? "true" : "false");
    int sz[] = {p->tp, p->cp, p->pp, p->vpp, p->dp, p->mbs};
    for (size_t i = 0; i < 6; i++)
        tbl_num(t, sz[i], 0);
    tbl_str(t, gpuecon_parallel_recompute_name(p));
    tbl_num(t, p->zero, 0);
    tbl_num(t, p->tp_overlap, 0);
    if (v->calib)
        calib_cells(t, v->calib);
    if (v->band)
        band_cells(t, v->band, 1);
    return t;
}

/* The step time's terms, the terminal form's first table. */
static tbl *breakdown_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_train_result *r = ((const train_view *)view)->r;
    const gpuecon_train_breakdown *b = &r->bd;
    tbl *t = tbl_new(ctx, oom);
    tbl_col(t, "step time", 'l');
    tbl_col(t, "s", 'r');
    tbl_col(t, "share", 'r');
    tbl_col(t, "what", 'l');
    double st = r->step_time_s;
    breakdown_row(t, "compute", b->compute_s, st, "GEMMs, attention, elementwise, recompute (slowest stage)");
    breakdown_row(t, "tensor-parallel comm", b->tp_comm_s, st, "exposed all-gather / reduce-scatter / all-reduce");
    breakdown_row(t, "context-parallel comm", b->cp_comm_s, st, "exposed exchange of K, V (ring or all-gather)");
    if (r->moe.moe_layers > 0)
        breakdown_row(t, "expert-parallel comm", b->ep_comm_s, st,
                      "exposed dispatch / combine all-to-all (4 per MoE layer)");
    breakdown_row(t, "pipeline bubble", b->pp_bubble_s, st, "the other stages' time per micro-batch, /v");
    breakdown_row(t, "pipeline comm", b->pp_comm_s, st, "point-to-point activations on the critical path");
    breakdown_row(t, "data-parallel comm", b->dp_comm_s, st, "exposed gradient reduce / parameter gather");
    breakdown_row(t, "optimizer", b->optimizer_s, st, "Adam over the local shard");
    breakdown_row(t, "slowest GPU", b->straggler_s, st, "a synchronous step waits for the slowest of the GPUs");
    if (r->par.offload_layers > 0)
        breakdown_row(t, "activation offload", b->offload_s, st, "host-memory copies not hidden behind compute");
    tbl_sep(t);
    breakdown_row(t, "step", st, st, "");
    return t;
}

static void memory_text(strbuf *f, gpuecon_ctx *ctx, bool *oom, const gpuecon_train_result *r)
{
    const gpuecon_train_memory *m = &r->mem;
    tbl *u = tbl_new(ctx, oom);
    tbl_col(u, "memory (stage)", 'l');
    tbl_col(u, "GiB", 'r');
    const char *names[] = {"weights", "FP8 weight copy", "gradients", "optimizer states", "activations",
                           "transient (recompute, logits)", "reserve (allocator, workspaces)"};
    double v[] = {m->weights_gib, m->fp8_copy_gib, m->grads_gib, m->optimizer_gib, m->activations_gib,
                  m->transient_gib, m->reserve_gib};
    for (int i = 0; i < 7; i++) {
        if (i == 1 && v[i] == 0)
            continue;
        tbl_row(u);
        tbl_str(u, names[i]);
        tbl_num(u, v[i], 2);
    }
    tbl_sep(u);
    tbl_row(u);
    tbl_fmt(u, "total (stage %d)", m->stage);
    tbl_num(u, m->total_gib, 2);
    tbl_row(u);
    tbl_str(u, "capacity");
    tbl_num(u, m->capacity_gib, 2);
    tbl_print(u, f);
    tbl_free(u);
    if (m->offloaded_gib > 0)
        sb_printf(f, "\nactivations of %d layers per stage offloaded to host memory: %.2f GiB\n",
                r->par.offload_layers, m->offloaded_gib);
    if (!m->fits)
        sb_printf(f, "\ndoes NOT fit: %.2f GiB over; largest term: %s\n", m->overflow_gib,
                m->overflow_term ? m->overflow_term : "?");
}

static void moe_text(strbuf *f, const gpuecon_train_result *r)
{
    const gpuecon_train_moe *e = &r->moe;
    if (e->moe_layers == 0)
        return;
    char b1[32];
    sb_printf(f, "\nexperts      %d MoE layers; %d routed experts per GPU, %.0f tokens per expert per micro-batch "
               "(load factor %.2f), grouped GEMMs at %.1f%% of peak\n",
            e->moe_layers, e->local_experts, e->tokens_per_expert, e->load_factor, 100 * e->grouped_gemm_eff);
    sb_printf(f, "all-to-all   %s: dispatch of %s per GPU over %d GPUs in %d scale-up domain%s (%.0f%% stays inside): "
               "%.3f ms; per MoE layer and micro-batch %.3f ms, exposed %.3f ms\n",
            gpuecon_dispatcher_name(e->dispatcher), fmt_si(b1, sizeof b1, e->a2a_bytes, "B"), r->par.ep,
            e->ep_domains, e->ep_domains == 1 ? "" : "s",
            100 * e->a2a_intra_fraction, 1e3 * e->a2a_s, 1e3 * e->a2a_total_s, 1e3 * e->a2a_exposed_s);
    if (e->host_s > 0) {
        char scope[64];
        gpuecon_graph_scope_name(e->cuda_graph_scope, scope, sizeof scope);
        sb_printf(f, "host         CUDA graphs %s: the kernels launched from the host take %.3f ms per MoE layer "
                   "and micro-batch (forward and backward), a floor under the layer's GPU time\n",
                scope, 1e3 * e->host_s);
    }
}

/* The cost at the profile's (or the user's) price, the run's reliability, totals and timeline. */
static void cost_text(strbuf *f, const train_view *v)
{
    const gpuecon_platform_result *run = v->run;
    sb_printf(f, "\ncost (%s): $%.3f per GPU-hour, $%.4f per 1M tokens, %.2f J/token",
            v->user_price ? "your rate, --usd-per-gpu-hour" : v->profile->name, v->usd_per_gpu_hour,
            v->cost.usd_per_mtok, v->cost.joules_per_token);
    if (v->run_ok)
        sb_printf(f, "\nreliability (%s tier, MTBI %.0f GPU-days): ETTR %.1f%%, %d spare GPU%s %s; effective $%.4f "
                   "per 1M tokens", v->tier, run->mtbi_gpu_days, 100 * run->ettr,
                run->provisioned_gpus - run->gpus, run->provisioned_gpus - run->gpus == 1 ? "" : "s",
                run->spares_charged ? "charged to the job" : "earning other work", run->effective_usd_per_mtok);
    if (v->run_ok && v->tokens > 0)
        sb_printf(f, "\n%s tokens: %.1f days, %s, %s GPU-hours, %.1f MWh (failures, restarts and spares "
                   "included)", NUM_COUNT(v->tokens), run->days_to_train, NUM_MONEY(run->total_usd),
                NUM_SIG(run->charged_gpus * run->days_to_train * 24, 4), run->energy_mwh);
    if (v->run_ok && run->timeline) {
        sb_printf(f, "\nfrom %s at the catalog's published software dates: %.1f tokens/s/GPU over the run "
                   "(the prediction before the first point); points used:", v->start_date, run->tokens_per_s_per_gpu);
        for (size_t i = 0; i < run->n_points_used; i++)
            sb_printf(f, "%s %s %.0f (%s)", i ? "," : "", run->points_used[i].date,
                    run->points_used[i].tokens_per_s_per_gpu, gpuecon_stage_name(run->points_used[i].source.stage));
        if (!run->n_points_used)
            sb_printf(f, " none (the run ends before the first)");
        if (run->uses_projection)
            sb_printf(f, "\nthis result rests on a projection");
    }
    sb_putc(f, '\n');
}

/* The job, the headline figures in words (t, the CSV row, is not printed), the step-time
 * breakdown and memory tables, the MoE part and the cost. */
static void one_text(const render_out *out, const void *view, const tbl *t)
{
    (void)t;
    strbuf *f = out->f;
    const train_view *v = view;
    const gpuecon_train_request *req = v->req;
    const gpuecon_train_result *r = v->r;
    char cfg[128];
    train_config(&r->par, cfg, sizeof cfg);
    sb_printf(f, "%s on %d x %s (%s), %s, seq %d, global batch %d\n", req->model->name, req->gpus, req->system->name,
            req->system->gpu_name, gpuecon_precision_name(req->precision), req->seq, req->gbs);
    if (req->stack)
        sb_printf(f, "stack: %s (%s)\n", req->stack->name, req->stack->framework);
    char ucal[400];
    if (req->calibration)
        sb_printf(f, "calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, req->calibration));
    char pw[160];
    if (*fmt_power(pw, sizeof pw, req->system))
        sb_printf(f, "power limit: %s\n", pw);
    sb_printf(f, "parallelism: %s, %d micro-batches, %s recompute, ZeRO-%d%s%s\n\n", cfg, r->par.microbatches,
            gpuecon_parallel_recompute_name(&r->par), r->par.zero, r->par.sequence_parallel ? ", SP" : "",
            r->par.tp_overlap ? ", TP overlap" : "");
    sb_printf(f, "throughput   %.1f tokens/s/GPU (%s tokens/s in all)\n", r->tokens_per_s_per_gpu,
            NUM_SIG(r->tokens_per_s_per_gpu * req->gpus, 4));
    char band[400];
    band_text(band, sizeof band, v->band, 1, 0); /* the 80% band (docs/model.md §7.6) */
    if (band[0])
        sb_printf(f, "80%% band     %s tokens/s/GPU\n", band);
    sb_printf(f, "MFU          %.1f%% (full-attention model FLOPs vs %s peak; %.1f%% counting causal attention)\n",
            100 * r->mfu, gpuecon_precision_name(req->precision), 100 * r->mfu_causal);
    sb_printf(f, "step time    %.3f s", r->step_time_s);
    if (v->band && v->band->set) {
        gpuecon_band st;
        band_scaled(v->band, r->tokens_per_s_per_gpu, r->step_time_s, true, &st);
        sb_printf(f, " (%.3f-%.3f s, 80%%)", st.low, st.high);
    }
    sb_putc(f, '\n');
    if (v->calib)
        calib_match_text(f, v->calib);
    sb_putc(f, '\n');
    tbl *b = breakdown_table(out->ctx, out->oom, view);
    tbl_print(b, f);
    tbl_free(b);
    sb_putc(f, '\n');
    memory_text(f, out->ctx, out->oom, r);
    moe_text(f, r);
    if (v->profile)
        cost_text(f, v);
}

const render_kind render_train = {one_json, summary_table, one_text, NULL};
