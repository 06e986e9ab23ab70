/*
 * cmd_rl.c — `gpuecon rl`: one step of RL post-training (PPO/GRPO) — generation, scoring,
 * training, weight sync, idle — its pools, throughput, $ and MWh per step and per million
 * trained tokens, with goodput (ETTR) as for training (docs/model.md §8).
 *
 * The library does the model (gpuecon_rl_predict); this file maps options to a request and
 * prints a table, one JSON object, CSV, or the table as an HTML page (report.c). A request that nothing fits exits 3 with the pool
 * and the constraint; a fixed split that leaves a pool short exits 2 naming --gen-gpus.
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"
#include "render/report.h"

#include <math.h>
#include <string.h>

static const char *const place_names[] = {"colocated", "disaggregated", NULL};
static const char *const onoff_names[] = {"on", "off", NULL};

typedef struct rl_args {
    const char *model, *system, *profile, *stack, *reference, *reward, *critic, *serving;
    int gpus, prompts, samples, placement, gen_gpus, gen_tp, off_policy, gen_weights, kv, train_precision;
    int offload, epochs, minibatches, tier, steps, train_tp, train_pp, train_cp, train_ep, train_mbs;
    double prompt_len, response_len, response_cv, max_response_len, oversample, partial, pue, usd_per_gpu_hour;
    bool sync_fp8, gen_attention_dp, train_full_recompute;
} rl_args;

static int optional_model(cli *c, const char *option, const char *name, const gpuecon_model **out)
{
    *out = NULL;
    if (!name || !strcmp(name, "none"))
        return 0;
    return cli_model(c, option, name, out);
}

static int build_request(cli *c, const opt *o, size_t n, const rl_args *a, gpuecon_rl_request *r)
{
    int rc;
    gpuecon_rl_request_init(r);
    const gpuecon_profile *prof = NULL;
    if ((rc = cli_model(c, "--model", a->model, &r->policy)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (rc = cli_profile(c, "--profile", a->profile, &prof)) ||
        (rc = cli_stack(c, "--stack", a->stack ? a->stack : CLI_DEFAULT_STACK, 0, &r->stack)) ||
        (rc = cmd_infer_serving_profile(c, "--serving-profile", a->serving, &r->serving)) ||
        (rc = optional_model(c, "--reward-model", a->reward, &r->reward)) ||
        (rc = optional_model(c, "--critic", a->critic, &r->critic)))
        return rc;
    /* GRPO's KL term: the reference is the initial policy unless another model or none is named */
    if (a->reference)
        rc = optional_model(c, "--reference", a->reference, &r->reference);
    else
        r->reference = r->policy;
    if (rc)
        return rc;
    r->profile = prof->name;
    r->tier = names_tier[a->tier];
    r->gpus = opt_seen(o, n, "--gpus") ? a->gpus : r->system->gpus_per_node;
    r->placement = (gpuecon_rl_placement)a->placement;
    r->gen_gpus = a->gen_gpus;
    r->gen_tp = a->gen_tp;
    r->gen_attention_dp = a->gen_attention_dp;
    r->off_policy = a->off_policy;
    r->prompts = a->prompts;
    r->samples = a->samples;
    r->prompt_len = a->prompt_len;
    r->response_len = a->response_len;
    r->response_cv = a->response_cv;
    r->max_response_len = a->max_response_len;
    r->oversample = a->oversample;
    r->partial_tokens = a->partial;
    r->gen_weights = (gpuecon_precision)a->gen_weights;
    r->kv = (gpuecon_precision)a->kv;
    r->train_precision = (gpuecon_precision)a->train_precision;
    r->sync_fp8 = a->sync_fp8;
    r->offload = a->offload == 0;
    r->epochs = a->epochs;
    r->minibatches = a->minibatches;
    r->train_tp = a->train_tp;
    r->train_pp = a->train_pp;
    r->train_cp = a->train_cp;
    r->train_ep = a->train_ep;
    r->train_mbs = a->train_mbs;
    r->train_full_recompute = a->train_full_recompute;
    r->usd_per_gpu_hour = a->usd_per_gpu_hour;
    r->pue = a->pue;
    r->steps = a->steps;
    return 0;
}

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
    if (g->attention_dp)
        snprintf(b, n, "attention-DP EP %d x %d group%s%s", g->ep, g->gpus / g->ep, g->gpus / g->ep > 1 ? "s" : "",
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

static json_t *result_json(const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    json_t *j = json_object(), *pools = json_array();
    json_object_set_new(j, "model", json_string(r->policy->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "placement", json_string(gpuecon_rl_placement_name(r->placement)));
    json_object_set_new(j, "off_policy", json_integer(r->off_policy));
    json_object_set_new(j, "stack", r->stack ? json_string(r->stack->name) : json_null());
    json_object_set_new(j, "step_time_s", rjson_real(o->step_time_s));
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

static void phase_rows(tbl *tb, const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    char b[240], g[96];
    const gpuecon_rl_breakdown *d = &o->bd;
    snprintf(b, sizeof b, "%s%s", gpuecon_rl_placement_name(r->placement),
             r->off_policy ? ", one-step off-policy" : r->placement ? ", synchronous" : "");
    cmd_infer_row(tb, "RL step", o->step_time_s, 1, "s", b);
    const char *what = r->placement ? "GPU-time share" : "";
    cmd_infer_row(tb, "  generation", d->generation_s, 1, "s", what);
    cmd_infer_row(tb, "  scoring", d->scoring_s, 1, "s", what);
    cmd_infer_row(tb, "  training", d->training_s, 1, "s", what);
    cmd_infer_row(tb, "  weight sync", d->weight_sync_s, 2, "s", "");
    cmd_infer_row(tb, "  swap (offload)", d->swap_s, 2, "s", "trainer states to host and back");
    cmd_infer_row(tb, "  idle", d->idle_s, 1, "s", "pools waiting on each other");
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
    cmd_infer_row(tb, r->partial_tokens > 0 ? "longest segment" : "slowest response", o->response_end, 0, "tokens", b);
    if (r->partial_tokens > 0) {
        snprintf(b, sizeof b, "%.0f tokens per sample per step; %.0f new + %.0f carried, %.0f tokens carried on average",
                 r->partial_tokens, o->samples_submitted, o->gen_requests - o->samples_submitted, o->carried_tokens);
        cmd_infer_row(tb, "partial rollouts", o->gen_requests, 0, "requests", b);
    }
    snprintf(b, sizeof b, "KV %.0f tokens per replica; saturated %.0f tok/s", o->gen.kv_capacity_tokens,
             o->gen_tokens_per_s_saturated);
    cmd_infer_row(tb, "generator slots", o->gen.max_concurrency, 0, "seqs", b);
    snprintf(b, sizeof b, "slots full %.1f s + last wave drains %.1f s", o->gen_bulk_s, o->gen_drain_s);
    cmd_infer_row(tb, "generation", o->generation_s, 1, "s", b);
    snprintf(b, sizeof b, "%d forward model%s over %.0f tokens%s", o->scoring_models, o->scoring_models > 1 ? "s" : "",
             o->trained_tokens, o->scoring_a2a_s > 0 ? "; incl. MoE all-to-all" : "");
    cmd_infer_row(tb, "scoring", o->scoring_s, 1, "s", b);
    snprintf(b, sizeof b, "%d optimizer step%s of %d x %d tokens, %.2f s each%s", o->optimizer_steps,
             o->optimizer_steps > 1 ? "s" : "", o->train_gbs, o->train_seq, o->train.step_time_s,
             r->critic ? " (+ critic)" : "");
    cmd_infer_row(tb, "training", o->training_s, 1, "s", b);
    snprintf(b, sizeof b, "%.1f GB %s; %.2f GB per GPU over %s at %.0f GB/s", o->sync_bytes / 1e9,
             r->sync_fp8 ? "fp8" : "bf16", fmax(o->sync_recv_bytes_per_gpu, o->sync_send_bytes_per_gpu) / 1e9,
             gpuecon_link_level_name(o->sync_level), o->sync_gbps);
    cmd_infer_row(tb, "weight sync", o->weight_sync_s, 2, "s", b);
    if (o->swap_s > 0) {
        snprintf(b, sizeof b, "%.1f GiB per GPU each way at %.0f GB/s", o->swap_bytes_per_gpu / 1073741824.0,
                 r->system->host_link_gbps);
        cmd_infer_row(tb, "swap", o->swap_s, 2, "s", b);
    }
    cmd_infer_row(tb, "tokens generated", o->generated_tokens_per_s, 0, "tok/s", "whole job");
    snprintf(b, sizeof b, "%.0f per step (prompt + response)", o->trained_tokens);
    cmd_infer_row(tb, "tokens trained", o->trained_tokens_per_s, 0, "tok/s", b);
    if (!o->costed)
        return;
    snprintf(b, sizeof b, "%s TCO %.3f $/GPU-h, ETTR %.3f, %d GPUs provisioned", r->usd_per_gpu_hour > 0 ? "your rate" : r->profile,
             o->usd_per_gpu_hour, o->ettr, o->provisioned_gpus);
    cmd_infer_row(tb, "$ per step", o->usd_per_step, 2, "$", b);
    cmd_infer_row(tb, "$ per 1M trained tokens", o->usd_per_mtok_trained, 3, "$/Mtok", "with failures and spares");
    cmd_infer_row(tb, "energy per step", o->mwh_per_step * 1e3, 2, "kWh", "utility side");
    cmd_infer_row(tb, "energy per 1M trained tokens", o->mwh_per_mtok_trained * 1e3, 3, "kWh", "utility side");
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
    snprintf(t, nt, "%s RL step on %d x %s (%s): %d prompts x %d samples, prompt %g / response %g tokens (cv %g)",
             r->policy->name, r->gpus, r->system->name, gpuecon_rl_placement_name(r->placement), r->prompts,
             r->samples, r->prompt_len, r->response_len, r->response_cv);
    snprintf(sub, ns, "generation %s weights, %s KV; training %s, stack %s; reference %s, reward %s, critic %s",
             gpuecon_precision_name(r->gen_weights), gpuecon_precision_name(r->kv),
             gpuecon_precision_name(r->train_precision), r->stack ? r->stack->name : "-",
             r->reference ? r->reference->name : "none", r->reward ? r->reward->name : "rule-based",
             r->critic ? r->critic->name : "none (GRPO)");
}

/* HTML: the compare report's page around the same table, with where the step goes per pool
 * (durations, busy and idle) as a stacked bar chart (src/render/svg.c). */
static int print_html(cli *c, const gpuecon_rl_request *r, const gpuecon_rl_result *o, const tbl *tb)
{
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
    sb_init(&b, c->ctx, &c->oom);
    svg_stacked(&b, "Where the RL step goes", "s", parts, 6, rows, n);
    char t[400], sub[400];
    headline(t, sizeof t, sub, sizeof sub, r);
    strbuf page;
    sb_init(&page, c->ctx, &c->oom);
    report_table_html(&page, t, sub, b.s, tb);
    sb_free(&b);
    int rc = cli_write_strbuf(c, &page);
    return rc;
}

static int print_result(cli *c, const gpuecon_rl_request *r, const gpuecon_rl_result *o)
{
    tbl *tb = tbl_new(c->ctx, &c->oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "note", 'l');
    phase_rows(tb, r, o);
    detail_rows(tb, r, o);
    if (c->format == FMT_HTML) {
        int rc = print_html(c, r, o, tb);
        tbl_free(tb);
        return rc;
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    char t[400], sub[400];
    headline(t, sizeof t, sub, sizeof sub, r);
    fprintf(f, "%s\n%s\n\n", t, sub);
    tbl_print(tb, f);
    return cli_table_done(c, tb, f);
}

static int execute(cli *c, const opt *opts, size_t nopts, const rl_args *a)
{
    gpuecon_rl_request r;
    int rc = build_request(c, opts, nopts, a, &r);
    if (rc)
        return rc;
    gpuecon_rl_result *o = ctx_alloc(c->ctx, sizeof *o);
    if (!o)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_rl_predict(c->ctx, c->cat, &r, o, &err);
    if (rc) {
        cli_spell_options(c, err.where, sizeof err.where);
        cli_spell_options(c, err.message, sizeof err.message);
        if (rc == GPUECON_E_INFEASIBLE && c->format == FMT_JSON) /* the JSON still says why */
            cli_emit_json(c, json_pack("{s:s, s:s, s:b, s:s, s:s}", "model", r.policy->name, "system",
                                       r.system->name, "fits", 0, "where", err.where, "reason", err.message));
        ctx_free(c->ctx, o, sizeof *o);
        return cli_fail(c, &err);
    }
    rc = c->format == FMT_JSON ? cli_emit_json(c, result_json(&r, o)) : print_result(c, &r, o);
    ctx_free(c->ctx, o, sizeof *o);
    return rc;
}

int cmd_rl(cli *c, int argc, char **argv)
{
    rl_args a = {.tier = TIER_TYPICAL, .profile = CLI_DEFAULT_PROFILE, .serving = "generic", .prompts = 128, .samples = 8,
                 .prompt_len = 1024, .response_len = 4096, .response_cv = 0.6, .epochs = 1, .minibatches = 1,
                 .steps = 1000};
    opt opts[] = {
        {"--model", O_STR, &a.model, 0, 0, NULL, "M", "policy model (gpuecon catalog models)",
         "gpuecon catalog models lists them", false},
        CLI_OPT_SYSTEM(&a.system),
        {"--gpus", O_INT, &a.gpus, 1, 1e6, NULL, "N", "GPUs of the job (default: one server)", NULL, false},
        {"--prompts", O_INT, &a.prompts, -1e9, 1e7, NULL, "P", "prompts per step, 1 to 1e7 (default 128)", NULL, false},
        {"--samples", O_INT, &a.samples, -1e9, 1e6, NULL, "K", "samples per prompt, the GRPO group, 1 to 1e6 (default 8)", NULL, false},
        {"--prompt-len", O_DOUBLE, &a.prompt_len, 1, 1e8, NULL, "L", "mean prompt tokens (default 1024)", NULL, false},
        {"--response-len", O_DOUBLE, &a.response_len, 1, 1e8, NULL, "R", "mean response tokens (default 4096)", NULL, false},
        {"--response-cv", O_DOUBLE, &a.response_cv, 0, 10, NULL, "F", "coefficient of variation of the response length, lognormal (default 0.6)", NULL, false},
        {"--max-response-len", O_DOUBLE, &a.max_response_len, 1, 1e8, NULL, "N", "truncation length (default: the model's context minus the prompt)", NULL, false},
        {"--oversample", O_DOUBLE, &a.oversample, 0, 10, NULL, "F", "submit N(1+F) samples, train on the first N done", NULL, false},
        {"--partial-rollouts", O_DOUBLE, &a.partial, 1, 1e8, NULL, "T", "partial rollouts: each sample decodes at most T tokens per step, the unfinished carry over (steady state)", NULL, false},
        {"--placement", O_CHOICE, &a.placement, 0, 0, place_names, "P", "colocated | disaggregated (default colocated)", NULL, false},
        {"--gen-gpus", O_INT, &a.gen_gpus, 1, 1e6, NULL, "N", "disaggregated: generator GPUs (default: searched in whole nodes)", NULL, false},
        {"--gen-tp", O_INT, &a.gen_tp, 1, 1024, NULL, "T", "generator TP (EP = TP for MoE), across servers beyond the NVLink domain; with --gen-attention-dp the GPUs of a replica (default: the fastest)", NULL, false},
        {"--gen-attention-dp", O_FLAG, &a.gen_attention_dp, 0, 0, NULL, NULL, "MoE: generate attention data-parallel, experts EP = --gen-tp wide (default: searched with TP)", NULL, false},
        {"--off-policy", O_INT, &a.off_policy, -1e9, 1e9, NULL, "LAG", "0 synchronous, 1 one-step off-policy (disaggregated) [0 to 1]", NULL, false},
        {"--gen-weights", O_CHOICE, &a.gen_weights, 0, 0, names_precision, "P", "generator weight precision (default bf16)", NULL, false},
        {"--kv", O_CHOICE, &a.kv, 0, 0, names_precision_no_fp4, "P", "generator KV-cache precision (default bf16)", NULL, false},
        {"--train-precision", O_CHOICE, &a.train_precision, 0, 0, names_precision, "P", "training GEMM precision (default bf16)", NULL, false},
        {"--sync-fp8", O_FLAG, &a.sync_fp8, 0, 0, NULL, NULL, "push the new weights in FP8 (1 B/param)", NULL, false},
        {"--offload", O_CHOICE, &a.offload, 0, 0, onoff_names, "on|off", "colocated: trainer states to host while generating (default on)", NULL, false},
        {"--epochs", O_INT, &a.epochs, 1, 100, NULL, "E", "PPO epochs over the step's samples (default 1)", NULL, false},
        {"--minibatches", O_INT, &a.minibatches, 1, 1e6, NULL, "M", "optimizer steps per epoch (default 1)", NULL, false},
        {"--train-tp", O_INT, &a.train_tp, 1, 1024, NULL, "T", "policy trainer TP (default: searched)", NULL, false},
        {"--train-pp", O_INT, &a.train_pp, 1, 1024, NULL, "P", "policy trainer PP (default: searched)", NULL, false},
        {"--train-cp", O_INT, &a.train_cp, 1, 1024, NULL, "C", "policy trainer CP (default: searched)", NULL, false},
        {"--train-ep", O_INT, &a.train_ep, 1, 1024, NULL, "E", "policy trainer EP (default: searched)", NULL, false},
        {"--train-mbs", O_INT, &a.train_mbs, 1, 1e6, NULL, "B", "policy trainer micro-batch (default: searched)", NULL, false},
        {"--train-full-recompute", O_FLAG, &a.train_full_recompute, 0, 0, NULL, NULL, "the policy trainer recomputes every layer (activation checkpointing; default: searched)", NULL, false},
        {"--reference", O_STR, &a.reference, 0, 0, NULL, "M|none", "KL reference model (default: the policy)", NULL, false},
        {"--reward-model", O_STR, &a.reward, 0, 0, NULL, "M", "reward-model forward (default: a rule-based verifier)", NULL, false},
        {"--critic", O_STR, &a.critic, 0, 0, NULL, "M", "PPO value model, forward and trained (default: none, GRPO)", NULL, false},
        {"--stack", O_STR, &a.stack, 0, 0, NULL, "NAME", "training framework stack (default " CLI_DEFAULT_STACK ")", NULL, false},
        {"--serving-profile", O_STR, &a.serving, 0, 0, NULL, "NAME", "engine constants: " CLI_SERVING_PROFILES, NULL, false},
        CLI_OPT_PROFILE(&a.profile),
        {"--tier", O_CHOICE, &a.tier, 0, 0, names_tier, "T", "operator tier for failures and spares (default typical)", NULL, false},
        {"--steps", O_INT, &a.steps, 1, 1e6, NULL, "N", "steps of the run, for totals (default 1000)", NULL, false},
        CLI_OPT_PUE(&a.pue),
        CLI_OPT_USD_PER_GPU_HOUR(&a.usd_per_gpu_hour),
    };
    static const cmd_usage usage = {
        "rl --model M --system S --gpus N --prompts P --samples K --prompt-len L --response-len R\n"
        "   [--response-cv F] [--max-response-len N] [--oversample F | --partial-rollouts T]\n"
        "   [--placement colocated|disaggregated]\n"
        "   [--gen-gpus N] [--gen-tp T] [--gen-attention-dp] [--off-policy 0|1] [--gen-weights P] [--kv P] [--train-precision P] [--sync-fp8]\n"
        "   [--train-tp T] [--train-pp P] [--train-cp C] [--train-ep E] [--train-mbs B] [--train-full-recompute]\n"
        "   [--reference M|none] [--reward-model M] [--critic M] [--stack NAME] [--profile P] [--steps N]",
        "One step of RL post-training (PPO/GRPO as veRL, NeMo-RL, OpenRLHF run it): rollouts through\n"
        "the serving model, waiting for the slowest response; scoring forward passes; the training\n"
        "step through the training model; the weight push to the generators; colocated (with the\n"
        "memory swap) or disaggregated (the split searched). Time, breakdown, pools, tokens/s, $ and\n"
        "MWh per step and per million trained tokens with goodput (docs/model.md §8).",
        "gpuecon rl --model qwen3-235b-a22b --system gb200-nvl72 --gpus 72 --prompts 256 --samples 16 "
        "--prompt-len 1024 --response-len 8192 --gen-weights fp8 --placement disaggregated"};
    size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)) || (rc = cli_load_catalog(c)))
        return rc;
    return execute(c, opts, nopts, &a);
}
