/*
 * rl.c — `gpuecon rl` rendered: one RL step as JSON, as a table of quantities (terminal and
 * CSV: the step, its phases, the pools, then generation, scoring, training, sync and the cost),
 * and as the compare report's page around that table with where the step goes per pool.
 */
#include "render/render.h"
#include "render/report.h"

#include <math.h>
#include <string.h>

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *breakdown_json(const gpuecon_rl_breakdown *b)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "generation_s", rjson_real(b->generation_s), "scoring_s",
                     rjson_real(b->scoring_s), "training_s", rjson_real(b->training_s), "weight_sync_s",
                     rjson_real(b->weight_sync_s), "swap_s", rjson_real(b->swap_s), "idle_s", rjson_real(b->idle_s));
}

/* One generator replica spans more than one NVLink domain. */
static bool gen_across_nodes(const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    return (o->gen.attention_dp ? o->gen.ep : o->gen.tp) > r->system->scaleup_gpus;
}

/* "TP 8 x 4 replicas" or "attention-DP EP 32 x 2 groups" (across nodes when it spans domains). */
static void gen_layout_text(char *b, size_t n, const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    const gpuecon_infer_result *g = &o->gen;
    char red[48] = "";
    if (g->attention_dp && g->redundant_experts > 0) /* docs/model.md §6.5 EP1 */
        snprintf(red, sizeof red, " (%d + %d redundant experts)", g->experts, g->redundant_experts);
    if (g->attention_dp)
        snprintf(b, n, "attention-DP EP %d%s x %d group%s%s", g->ep, red, g->gpus / g->ep, g->gpus / g->ep > 1 ? "s" : "",
                 gen_across_nodes(r, o) ? " across nodes" : "");
    else
        snprintf(b, n, "TP %d x %d replicas%s", g->tp, g->replicas, gen_across_nodes(r, o) ? " across nodes" : "");
}

static json_t *pool_json(const gpuecon_rl_pool *p, const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    json_t *j = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "role", p->role, "gpus", p->gpus,
                          "generation_s", rjson_real(p->generation_s), "scoring_s", rjson_real(p->scoring_s),
                          "training_s", rjson_real(p->training_s), "weight_sync_s", rjson_real(p->weight_sync_s),
                          "swap_s", rjson_real(p->swap_s), "busy_s", rjson_real(p->busy_s), "idle_s",
                          rjson_real(p->idle_s), "utilisation", rjson_real(p->utilisation));
    if (p->generation_s > 0)
        json_object_set_new(j, "generator", json_pack("{s:i, s:i, s:b, s:b, s:i, s:b}", "tp", o->gen.tp, "replicas",
                                                      o->gen.replicas, "expert_parallel", o->gen.expert_parallel,
                                                      "attention_dp", o->gen.attention_dp, "ep",
                                                      o->gen.attention_dp ? o->gen.ep : o->gen.expert_parallel ? o->gen.tp : 1,
                                                      "across_nodes", gen_across_nodes(r, o)));
    if (p->training_s > 0) {
        const gpuecon_parallel *q = &o->train.par;
        json_object_set_new(j, "trainer", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:o, s:o}", "tp",
                                                    q->tp, "pp", q->pp, "cp", q->cp, "ep", q->ep, "dp", q->dp,
                                                    "mbs", q->mbs, "vpp", q->vpp, "recompute",
                                                    gpuecon_recompute_name(q->recompute), "zero", q->zero, "mfu",
                                                    rjson_real(o->train.mfu), "memory_gib_per_gpu",
                                                    rjson_real(o->train.memory_gib_per_gpu)));
    }
    return j;
}

static json_t *cost_or_null(bool ok, double v) { return ok && isfinite(v) ? rjson_real(v) : json_null(); }

static json_t *rl_json(const void *view)
{
    const gpuecon_rl_request *r = ((const rl_view *)view)->request;
    const gpuecon_rl_result *o = ((const rl_view *)view)->result;
    json_t *j = json_object(), *pools = json_array();
    json_object_set_new(j, "model", json_string(r->policy->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    rjson_power(j, r->system);
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "placement", json_string(gpuecon_rl_placement_name(r->placement)));
    json_object_set_new(j, "off_policy", json_integer(r->off_policy));
    json_object_set_new(j, "stack", r->stack ? json_string(r->stack->name) : json_null());
    json_object_set_new(j, "generator_stack", json_string(gpuecon_serving_profile_label(&r->serving)));
    if (r->train_calibration || r->serving.calibration) /* each piece a user calibrated, or null */
        json_object_set_new(j, "user_calibration",
                            json_pack("{s:o, s:o}", "trainer", rjson_user_calibration(r->train_calibration),
                                      "generator", rjson_user_calibration(r->serving.calibration)));
    json_object_set_new(j, "step_time_s", rjson_real(o->step_time_s));
    figband_add(j, "step_time_s", ((const rl_view *)view)->band, 1);
    json_object_set_new(j, "breakdown", breakdown_json(&o->bd));
    for (int i = 0; i < o->npools; i++)
        json_array_append_new(pools, pool_json(&o->pools[i], r, o));
    json_object_set_new(j, "pools", pools);
    json_object_set_new(j, "splits_evaluated", json_integer(o->splits_evaluated));
    json_object_set_new(j, "generation", json_pack(
        "{s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "samples_submitted",
        rjson_real(o->samples_submitted), "response_end_tokens", rjson_real(o->response_end), "max_response_len",
        rjson_real(o->max_response_len), "response_capped", o->response_capped, "mean_response_tokens",
        rjson_real(o->gen_mean_response), "kept_mean_response_tokens", rjson_real(o->kept_mean_response),
        "max_concurrency", rjson_real(o->gen.max_concurrency), "kv_capacity_tokens",
        rjson_real(o->gen.kv_capacity_tokens), "saturated_tokens_per_s", rjson_real(o->gen_tokens_per_s_saturated),
        "bulk_s", rjson_real(o->gen_bulk_s), "drain_s", rjson_real(o->gen_drain_s), "generation_s",
        rjson_real(o->generation_s)));
    json_t *gj = json_object_get(j, "generation");
    json_object_set_new(gj, "requests", rjson_real(o->gen_requests));
    json_object_set_new(gj, "partial_rollout_tokens", rjson_real(r->partial_tokens)); /* 0: off */
    json_object_set_new(gj, "carried_tokens_mean", rjson_real(o->carried_tokens));
    json_object_set_new(j, "scoring", json_pack("{s:i, s:o, s:o, s:o}", "models", o->scoring_models, "flops",
                                                rjson_real(o->scoring_flops), "a2a_s", rjson_real(o->scoring_a2a_s),
                                                "scoring_s", rjson_real(o->scoring_s)));
    json_object_set_new(j, "training", json_pack("{s:i, s:i, s:i, s:o, s:o, s:o}", "seq", o->train_seq, "gbs",
                                                 o->train_gbs, "optimizer_steps", o->optimizer_steps,
                                                 "step_time_s", rjson_real(o->train.step_time_s),
                                                 "critic_step_time_s", rjson_real(o->critic_train.step_time_s),
                                                 "training_s", rjson_real(o->training_s)));
    json_object_set_new(j, "weight_sync", json_pack(
        "{s:o, s:o, s:o, s:s, s:o, s:b, s:o, s:o, s:o}", "bytes", rjson_real(o->sync_bytes), "recv_bytes_per_gpu",
        rjson_real(o->sync_recv_bytes_per_gpu), "send_bytes_per_gpu", rjson_real(o->sync_send_bytes_per_gpu), "level",
        gpuecon_link_level_name(o->sync_level), "gbps", rjson_real(o->sync_gbps), "fp8", r->sync_fp8,
        "weight_sync_s", rjson_real(o->weight_sync_s), "swap_bytes_per_gpu", rjson_real(o->swap_bytes_per_gpu),
        "swap_s", rjson_real(o->swap_s)));
    json_t *wj = json_object_get(j, "weight_sync");
    json_object_set_new(wj, "refit_s", rjson_real(o->refit_s));
    json_object_set_new(j, "handover", json_pack(
        "{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "engine_sleep_level", r->engine_sleep, "engine_weight_bytes_per_gpu",
        rjson_real(o->engine_weight_bytes_per_gpu), "engine_sleep_s", rjson_real(o->engine_sleep_s), "engine_wake_s",
        rjson_real(o->engine_wake_s), "trainer_swap_s", rjson_real(o->trainer_swap_s), "reference_swap_s",
        rjson_real(o->reference_swap_s), "swap_s", rjson_real(o->swap_s)));
    json_object_set_new(j, "generated_tokens", rjson_real(o->generated_tokens));
    json_object_set_new(j, "response_tokens", rjson_real(o->response_tokens));
    json_object_set_new(j, "trained_tokens", rjson_real(o->trained_tokens));
    json_object_set_new(j, "generated_tokens_per_s", rjson_real(o->generated_tokens_per_s));
    json_object_set_new(j, "trained_tokens_per_s", rjson_real(o->trained_tokens_per_s));
    json_object_set_new(j, "profile", json_string(r->profile));
    json_object_set_new(j, "tier", json_string(r->tier));
    json_object_set_new(j, "usd_per_gpu_hour", cost_or_null(o->costed, o->usd_per_gpu_hour));
    if (r->usd_per_gpu_hour > 0)
        json_object_set_new(j, "usd_per_gpu_hour_source", rjson_user_price());
    json_object_set_new(j, "ettr", cost_or_null(o->costed, o->ettr));
    json_object_set_new(j, "provisioned_gpus", json_integer(o->provisioned_gpus));
    json_object_set_new(j, "usd_per_step", cost_or_null(o->costed, o->usd_per_step));
    json_object_set_new(j, "usd_per_mtok_trained", cost_or_null(o->costed, o->usd_per_mtok_trained));
    json_object_set_new(j, "raw_usd_per_mtok_trained", cost_or_null(o->costed, o->raw_usd_per_mtok_trained));
    json_object_set_new(j, "mwh_per_step", cost_or_null(o->costed, o->mwh_per_step));
    json_object_set_new(j, "mwh_per_mtok_trained", cost_or_null(o->costed, o->mwh_per_mtok_trained));
    json_object_set_new(j, "run", json_pack("{s:I, s:o, s:o, s:o}", "steps", (json_int_t)r->steps, "days",
                                            cost_or_null(o->costed, o->run_days), "total_usd",
                                            cost_or_null(o->costed, o->run_usd), "energy_mwh",
                                            cost_or_null(o->costed, o->run_mwh)));
    return j;
}

/* ---- table ----------------------------------------------------------------------------- */

static void phase_rows(tbl *tb, const gpuecon_rl_request *r, const gpuecon_rl_result *o, const gpuecon_band *band)
{
    char b[240], g[96];
    const gpuecon_rl_breakdown *d = &o->bd;
    snprintf(b, sizeof b, "%s%s", gpuecon_rl_placement_name(r->placement),
             r->off_policy ? ", one-step off-policy" : r->placement ? ", synchronous" : "");
    tbl_quantity(tb, "RL step", o->step_time_s, 1, "s", b);
    figband_row(tb, band, 1, 1, "s");
    const char *what = r->placement ? "GPU-time share" : "";
    tbl_quantity(tb, "  generation", d->generation_s, 1, "s", what);
    tbl_quantity(tb, "  scoring", d->scoring_s, 1, "s", what);
    tbl_quantity(tb, "  training", d->training_s, 1, "s", what);
    tbl_quantity(tb, "  weight sync", d->weight_sync_s, 2, "s", "");
    tbl_quantity(tb, "  swap (offload)", d->swap_s, 2, "s", "engine sleep and wake, trainer and reference swaps");
    tbl_quantity(tb, "  idle", d->idle_s, 1, "s", "pools waiting on each other");
    for (int i = 0; i < o->npools; i++) {
        const gpuecon_rl_pool *p = &o->pools[i];
        gen_layout_text(g, sizeof g, r, o);
        if (p->generation_s > 0 && p->training_s > 0)
            snprintf(b, sizeof b, "%d GPUs; generator %s, trainer TP%d PP%d CP%d EP%d DP%d", p->gpus, g,
                     o->train.par.tp, o->train.par.pp, o->train.par.cp, o->train.par.ep, o->train.par.dp);
        else if (p->generation_s > 0)
            snprintf(b, sizeof b, "%d GPUs; %s", p->gpus, g);
        else
            snprintf(b, sizeof b, "%d GPUs; TP%d PP%d CP%d EP%d DP%d, MFU %.1f%%", p->gpus, o->train.par.tp,
                     o->train.par.pp, o->train.par.cp, o->train.par.ep, o->train.par.dp, 100 * o->train.mfu);
        tbl_row(tb);
        tbl_fmt(tb, "%s pool busy", p->role);
        tbl_num(tb, 100 * p->utilisation, 1);
        tbl_str(tb, "%");
        tbl_str(tb, b);
    }
}

static void detail_rows(tbl *tb, const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    char b[240];
    snprintf(b, sizeof b, "mean %.0f of cap %.0f; %.0f samples submitted%s", o->gen_mean_response,
             o->max_response_len, o->samples_submitted, o->response_capped ? "; the cap binds" : "");
    tbl_quantity(tb, r->partial_tokens > 0 ? "longest segment" : "slowest response", o->response_end, 0, "tokens", b);
    if (r->partial_tokens > 0) {
        snprintf(b, sizeof b, "%.0f tokens per sample per step; %.0f new + %.0f carried, %.0f tokens carried on average",
                 r->partial_tokens, o->samples_submitted, o->gen_requests - o->samples_submitted, o->carried_tokens);
        tbl_quantity(tb, "partial rollouts", o->gen_requests, 0, "requests", b);
    }
    snprintf(b, sizeof b, "KV %.0f tokens per replica; saturated %.0f tok/s", o->gen.kv_capacity_tokens,
             o->gen_tokens_per_s_saturated);
    tbl_quantity(tb, "generator slots", o->gen.max_concurrency, 0, "seqs", b);
    snprintf(b, sizeof b, "slots full %.1f s + last wave drains %.1f s", o->gen_bulk_s, o->gen_drain_s);
    tbl_quantity(tb, "generation", o->generation_s, 1, "s", b);
    snprintf(b, sizeof b, "%d forward model%s over %.0f tokens%s", o->scoring_models, o->scoring_models > 1 ? "s" : "",
             o->trained_tokens, o->scoring_a2a_s > 0 ? "; incl. MoE all-to-all" : "");
    tbl_quantity(tb, "scoring", o->scoring_s, 1, "s", b);
    snprintf(b, sizeof b, "%d optimizer step%s of %d x %d tokens, %.2f s each%s", o->optimizer_steps,
             o->optimizer_steps > 1 ? "s" : "", o->train_gbs, o->train_seq, o->train.step_time_s,
             r->critic ? " (+ critic)" : "");
    tbl_quantity(tb, "training", o->training_s, 1, "s", b);
    snprintf(b, sizeof b, "%.1f GB %s; %.2f GB per GPU over %s at %.0f GB/s", o->sync_bytes / 1e9,
             r->sync_fp8 ? "fp8" : "bf16", fmax(o->sync_recv_bytes_per_gpu, o->sync_send_bytes_per_gpu) / 1e9,
             gpuecon_link_level_name(o->sync_level), o->sync_gbps);
    tbl_quantity(tb, "weight sync", o->weight_sync_s, 2, "s", b);
    if (o->refit_s > 0) {
        snprintf(b, sizeof b, "%s over the whole model, per worker", r->placement == GPUECON_RL_COLOCATED
                 ? "gather and CUDA-IPC hand-over (NeMo-RL)" : "gather and load around the broadcast");
        tbl_quantity(tb, "  refit software path", o->refit_s, 2, "s", b);
    }
    if (o->swap_s > 0) {
        snprintf(b, sizeof b, "%.1f GiB per GPU each way at %.0f GB/s", o->swap_bytes_per_gpu / 1073741824.0,
                 r->system->host_link_gbps);
        tbl_quantity(tb, "swap", o->swap_s, 2, "s", b);
        snprintf(b, sizeof b, "level %d; %.1f GB of weights per GPU%s", r->engine_sleep,
                 o->engine_weight_bytes_per_gpu / 1e9, r->engine_sleep == 1 ? " to fresh pinned host memory" : " discarded");
        tbl_quantity(tb, "  engine sleep", o->engine_sleep_s, 2, "s", b);
        tbl_quantity(tb, "  engine wake", o->engine_wake_s, 2, "s", r->engine_sleep == 1 ? "weights back over the host link" : "");
        tbl_quantity(tb, "  trainer swap", o->trainer_swap_s, 2, "s", "weights, grads, optimizer out and back");
        tbl_quantity(tb, "  reference swap", o->reference_swap_s, 2, "s", "reference weights in, the policy's out and back");
    }
    tbl_quantity(tb, "tokens generated", o->generated_tokens_per_s, 0, "tok/s", "whole job");
    snprintf(b, sizeof b, "%.0f per step (prompt + response)", o->trained_tokens);
    tbl_quantity(tb, "tokens trained", o->trained_tokens_per_s, 0, "tok/s", b);
    if (!o->costed)
        return;
    snprintf(b, sizeof b, "%s TCO %.3f $/GPU-h, ETTR %.3f, %d GPUs provisioned", r->usd_per_gpu_hour > 0 ? "your rate" : r->profile,
             o->usd_per_gpu_hour, o->ettr, o->provisioned_gpus);
    tbl_quantity(tb, "$ per step", o->usd_per_step, 2, "$", b);
    tbl_quantity(tb, "$ per 1M trained tokens", o->usd_per_mtok_trained, 3, "$/Mtok", "with failures and spares");
    tbl_quantity(tb, "energy per step", o->mwh_per_step * 1e3, 2, "kWh", "utility side");
    tbl_quantity(tb, "energy per 1M trained tokens", o->mwh_per_mtok_trained * 1e3, 3, "kWh", "utility side");
    snprintf(b, sizeof b, "%.1f days, $%.0f", o->run_days, o->run_usd);
    tbl_row(tb);
    tbl_fmt(tb, "run of %ld steps", r->steps);
    tbl_num(tb, o->run_mwh, 1);
    tbl_str(tb, "MWh");
    tbl_str(tb, b);
}

/* The two header lines of the table (title, and what ran). */
static void headline(char *t, size_t nt, char *sub, size_t ns, const gpuecon_rl_request *r)
{
    snprintf(t, nt, "%s RL step on %d x %s (%s): %d prompts x %d samples, prompt %s / response %s tokens (cv %s)",
             r->policy->name, r->gpus, r->system->name, gpuecon_rl_placement_name(r->placement), r->prompts,
             r->samples, NUM_SIG(r->prompt_len, 6), NUM_SIG(r->response_len, 6), NUM_SIG(r->response_cv, 6));
    snprintf(sub, ns, "generation %s weights, %s KV on %s; training %s, stack %s; reference %s, reward %s, critic %s",
             gpuecon_precision_name(r->gen_weights), gpuecon_precision_name(r->kv), gpuecon_serving_profile_label(&r->serving),
             gpuecon_precision_name(r->train_precision), r->stack ? r->stack->name : "-",
             r->reference ? r->reference->name : "none", r->reward ? r->reward->name : "rule-based",
             r->critic ? r->critic->name : "none (GRPO)");
    char pw[160];
    size_t k = strlen(sub);
    if (*fmt_power(pw, sizeof pw, r->system) && k + 2 < ns)
        snprintf(sub + k, ns - k, "; %s", pw);
}

static tbl *rl_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const rl_view *v = view;
    tbl *tb = tbl_new(ctx, oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "note", 'l');
    phase_rows(tb, v->request, v->result, v->band);
    detail_rows(tb, v->request, v->result);
    return tb;
}

static void rl_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    char t[400], sub[400];
    const gpuecon_rl_request *r = ((const rl_view *)view)->request;
    headline(t, sizeof t, sub, sizeof sub, r);
    sb_printf(f, "%s\n%s\n\n", t, sub);
    char ucal[512];
    if (r->train_calibration)
        sb_printf(f, "trainer calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, r->train_calibration));
    if (r->serving.calibration)
        sb_printf(f, "generator calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, r->serving.calibration));
    if (r->train_calibration || r->serving.calibration)
        sb_printf(f, "\n");
    tbl_print(tb, f);
}

/* The compare report's page around the same table, with where the step goes per pool
 * (durations, busy and idle) as a stacked bar chart (svg.c). */
static void rl_html(strbuf *page, const void *view)
{
    const rl_view *v = view;
    const gpuecon_rl_result *o = v->result;
    tbl *tb = rl_table(page->ctx, page->oom, view);
    static const char *const parts[] = {"generation", "scoring", "training", "weight sync", "swap", "idle"};
    svg_stack rows[3];
    size_t n = 0;
    rows[n++] = (svg_stack){.label = "whole job (GPU-time share)",
                            .parts = {o->bd.generation_s, o->bd.scoring_s, o->bd.training_s, o->bd.weight_sync_s,
                                      o->bd.swap_s, o->bd.idle_s}};
    for (int i = 0; i < o->npools && o->npools > 1; i++) {
        const gpuecon_rl_pool *p = &o->pools[i];
        rows[n++] = (svg_stack){.label = p->role,
                                .parts = {p->generation_s, p->scoring_s, p->training_s, p->weight_sync_s, p->swap_s,
                                          p->idle_s}};
    }
    strbuf b;
    sb_init(&b, page->ctx, page->oom);
    svg_stacked(&b, "Where the RL step goes", "s", parts, 6, rows, n);
    char t[400], sub[400];
    headline(t, sizeof t, sub, sizeof sub, v->request);
    report_table_html(page, t, sub, b.s, tb);
    sb_free(&b);
    tbl_free(tb);
}

const render_kind render_rl = {rl_json, rl_table, rl_text, rl_html};

json_t *rl_unfit_json(const gpuecon_rl_request *r, const gpuecon_error *err)
{
    return json_pack("{s:s, s:s, s:b, s:s, s:s}", "model", r->policy->name, "system", r->system->name, "fits", 0,
                     "where", err->where, "reason", err->message);
}
