/*
 * cmd_infer.c — `gpuecon infer`: serving capacity, throughput, latency and cost per token of
 * one deployment (docs/model.md §6), at one concurrency or over a sweep.
 *
 * The library does the model (gpuecon_infer, gpuecon_infer_sweep); this file maps options to
 * a request, prints memory / KV / performance / cost as a table or one JSON object, and with
 * --sweep a throughput and TPOT curve against concurrency (--plot FILE.svg through gnuplot).
 * An infeasible request exits 3 with the shortfall in GB (and, with --json, the memory figures).
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"

#include <math.h>
#include <string.h>

static const char *const engine_names[] = {"legacy", "v0.21", NULL};
static const char *const roofline_names[] = {"split", "fused", NULL};
static const char *const prefill_steps_names[] = {"whole", "even", NULL};
static const char *const onoff_names[] = {"on", "off", NULL};


/* ---- options -> request ---------------------------------------------------------------- */

typedef struct infer_args {
    const char *model, *system, *profile, *serving, *lora_mods, *plot;
    int gpus, tp, pp, weights, kv, draft, lora_rank, max_loras, engine, roofline, prefill_steps, ep, attn_dp;
    int max_num_seqs, max_num_batched_tokens, long_prefill, max_model_len, block_size;
    double prompt_len, output_len, output_cv, prefix_hit, concurrency, accept, accept_rate, draft_gb;
    double gpu_mem_util, activation_gib, cuda_graph_gib, pue, usd_per_gpu_hour, imbalance;
    bool sweep, tp_across;
    int_list grid;
    infer_sim_args sim;
    infer_search_args search;
    infer_disagg_args disagg;
} infer_args;

static int check_args(cli *c, const opt *o, size_t n, const infer_args *a)
{
    int rc = opts_require(c, o, n);
    if (rc)
        return rc;
    if (opt_seen(o, n, "--concurrency") && !(a->concurrency > 0))
        return cli_usage_error(c, "--concurrency", "%g must be above 0 (requests in the system, all "
                                                "replicas together)", a->concurrency);
    if (opt_seen(o, n, "--concurrency") && (a->sweep || opt_seen(o, n, "--grid")))
        return cli_usage_error(c, "--concurrency", "give either --concurrency or --sweep/--grid");
    if (opt_seen(o, n, "--accept") && opt_seen(o, n, "--accept-rate"))
        return cli_usage_error(c, "--accept-rate", "give either --accept (per-position α) or --accept-rate");
    bool acc = opt_seen(o, n, "--accept") || opt_seen(o, n, "--accept-rate");
    if (a->draft > 0 && !acc)
        return cli_usage_error(c, "--draft", "needs --accept A (per-position acceptance α) or "
                                          "--accept-rate A (vLLM's draft acceptance rate)");
    if (acc && a->draft == 0 && !a->search.search)
        return cli_usage_error(c, opt_seen(o, n, "--accept") ? "--accept" : "--accept-rate",
                               "needs --draft K (the draft length)");
    if (a->sim.simulate && (a->sweep || opt_seen(o, n, "--grid") || opt_seen(o, n, "--concurrency")))
        return cli_usage_error(c, "--simulate", "simulates one deployment under arrivals: give --rate or "
                                             "--users, not --sweep, --grid or --concurrency");
    static const char *const sim_only[] = {"--rate", "--users", "--arrival", "--burstiness", "--lengths",
                                           "--prompt-cv", "--requests", "--replications", "--warmup",
                                           "--preempt", "--swap-gbps", "--seed", "--threads"};
    if (a->search.search && (a->sim.simulate || a->sweep || opt_seen(o, n, "--grid")))
        return cli_usage_error(c, "--search", "give it alone: not with --simulate, --sweep or --grid");
    if (a->disagg.search && a->sim.simulate)
        return cli_usage_error(c, "--disagg-search", "chooses the layout analytically: not with --simulate (simulate "
                                                  "the layout it prints with --prefill XxP --decode YxD --simulate)");
    if (cmd_infer_disagg_wanted(&a->disagg) &&
        (a->search.search || a->sweep || opt_seen(o, n, "--grid") || opt_seen(o, n, "--concurrency")))
        return cli_usage_error(c, a->disagg.search ? "--disagg-search" : a->disagg.prefill ? "--prefill" : "--decode",
                               "a disaggregated deployment is evaluated at a rate or simulated: not with --search, "
                               "--sweep, --grid or --concurrency");
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0] && !a->sim.simulate; i++) {
        bool search_too = i == 0 || i >= 11; /* --rate, --seed, --threads serve --search as well */
        if (i == 0 && cmd_infer_disagg_wanted(&a->disagg))
            continue; /* and --rate a disaggregated deployment */
        if (opt_seen(o, n, sim_only[i]) && !(search_too && a->search.search))
            return cli_usage_error(c, sim_only[i], search_too ? "needs --simulate or --search" : "needs --simulate");
    }
    static const char *const search_only[] = {"--objective", "--search-gpus", "--max-draft", "--confirm", "--top"};
    for (size_t i = 0; i < sizeof search_only / sizeof search_only[0] && !a->search.search; i++)
        if (opt_seen(o, n, search_only[i]))
            return cli_usage_error(c, search_only[i], "needs --search");
    if (opt_seen(o, n, "--plot") && !a->sweep && !opt_seen(o, n, "--grid") && !a->search.search)
        return cli_usage_error(c, "--plot", "needs --sweep (or --grid LIST)");
    return 0;
}

static int build_request(cli *c, const opt *o, size_t n, const infer_args *a, gpuecon_infer_request *r)
{
    int rc;
    gpuecon_infer_request_init(r);
    if ((rc = cli_model(c, "--model", a->model, &r->model)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (rc = cli_profile(c, "--profile", a->profile, &r->tco)) ||
        (rc = cmd_infer_serving_profile(c, "--serving-profile", a->serving, &r->profile)))
        return rc;
    if (a->lora_mods && (rc = cmd_infer_lora_modules(c, "--lora-modules", a->lora_mods, &r->lora_modules)))
        return rc;
    r->usd_per_gpu_hour = a->usd_per_gpu_hour;
    r->gpus = opt_seen(o, n, "--gpus") ? a->gpus : r->system->gpus_per_node;
    r->tp = opt_seen(o, n, "--tp") ? a->tp : 0;
    r->pp = opt_seen(o, n, "--pp") ? a->pp : 1;
    r->tp_across_nodes = a->tp_across;
    r->expert_parallel = a->ep == 0;
    r->attention_dp = a->attn_dp == 0;
    if (r->attention_dp && r->model->experts == 0)
        return cli_usage_error(c, "--attention-dp", "%s is a dense model; attention data-parallel applies to "
                               "mixture-of-experts models (on for MoE, off otherwise)", r->model->name);
    r->expert_imbalance = a->imbalance;
    r->weights = (gpuecon_precision)a->weights;
    r->kv = (gpuecon_precision)a->kv;
    r->prompt_len = a->prompt_len;
    r->output_len = a->output_len;
    r->output_cv = a->output_cv;
    r->prefix_hit = a->prefix_hit;
    r->concurrency = opt_seen(o, n, "--concurrency") ? a->concurrency : 0;
    r->draft_k = a->draft;
    r->acceptance_is_rate = opt_seen(o, n, "--accept-rate");
    r->acceptance = r->acceptance_is_rate ? a->accept_rate : a->accept;
    r->draft_gb = opt_seen(o, n, "--draft-gb") ? a->draft_gb : -1;
    r->lora_rank = a->lora_rank;
    r->max_loras = a->max_loras;
    r->engine = (gpuecon_engine_mode)a->engine;
    r->roofline = (gpuecon_roofline)a->roofline;
    r->prefill_steps = (gpuecon_prefill_steps)a->prefill_steps;
    r->gpu_mem_util = a->gpu_mem_util;
    r->max_num_seqs = a->max_num_seqs;
    r->max_num_batched_tokens = a->max_num_batched_tokens;
    r->long_prefill_token_threshold = a->long_prefill;
    r->max_model_len = a->max_model_len;
    r->block_size = a->block_size;
    r->activation_gib = opt_seen(o, n, "--activation-gib") ? a->activation_gib : -1;
    r->cuda_graph_gib = opt_seen(o, n, "--cuda-graph-gib") ? a->cuda_graph_gib : -1;
    r->pue = a->pue;
    return 0;
}

/* ---- JSON --------------------------------------------------------------------------- */

static json_t *step_json(const gpuecon_infer_step *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "decode_tokens", rjson_real(s->decode_tokens));
    json_object_set_new(j, "prefill_tokens", rjson_real(s->prefill_tokens));
    json_object_set_new(j, "weights_ms", rjson_real(s->weights_s * 1e3));
    json_object_set_new(j, "gemm_ms", rjson_real(s->gemm_s * 1e3));
    json_object_set_new(j, "kv_ms", rjson_real(s->kv_s * 1e3));
    json_object_set_new(j, "attention_ms", rjson_real(s->attn_s * 1e3));
    json_object_set_new(j, "model_ms", rjson_real(s->model_s * 1e3));
    json_object_set_new(j, "overhead_ms", rjson_real(s->overhead_s * 1e3));
    json_object_set_new(j, "lora_ms", rjson_real(s->lora_s * 1e3));
    json_object_set_new(j, "comm_ms", rjson_real(s->comm_s * 1e3));
    json_object_set_new(j, "draft_ms", rjson_real(s->draft_s * 1e3));
    json_object_set_new(j, "p2p_ms", rjson_real(s->p2p_s * 1e3));
    json_object_set_new(j, "pp_wait_ms", rjson_real(s->pp_wait_s * 1e3));
    json_object_set_new(j, "micro_batches", rjson_real(s->micro_batches > 0 ? s->micro_batches : 1));
    json_object_set_new(j, "step_ms", rjson_real(s->step_s * 1e3));
    return j;
}

static json_t *point_json(const gpuecon_infer_point *p)
{
    json_t *j = json_object();
    json_object_set_new(j, "concurrency", rjson_real(p->concurrency));
    json_object_set_new(j, "batch_per_replica", rjson_real(p->batch));
    json_object_set_new(j, "binding", json_string(gpuecon_binding_name(p->binding)));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(p->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", rjson_real(p->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "total_tokens_per_s", rjson_real(p->total_tokens_per_s));
    json_object_set_new(j, "tpot_ms", rjson_real(p->tpot_ms));
    json_object_set_new(j, "tpot_run_ms", rjson_real(p->tpot_run_ms));
    json_object_set_new(j, "ttft_ms", rjson_real(p->ttft_ms));
    json_object_set_new(j, "usd_per_mtok", rjson_real(p->usd_per_mtok));
    json_object_set_new(j, "joules_per_token", rjson_real(p->joules_per_token));
    json_object_set_new(j, "step", step_json(&p->step));
    json_object_set_new(j, "prompt_steps", json_pack("{s:o, s:o, s:o, s:o}", "fraction",
                                                     rjson_real(p->prompt_step_fraction), "chunk_tokens",
                                                     rjson_real(p->prompt_chunk_tokens), "step_ms",
                                                     rjson_real(p->prompt_step_ms), "decode_step_ms",
                                                     rjson_real(p->decode_step_ms)));
    return j;
}

static json_t *memory_json(const gpuecon_infer_result *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "hbm_gib", rjson_real(o->hbm_gib));
    json_object_set_new(j, "gpu_mem_util", rjson_real(o->gpu_mem_util));
    json_object_set_new(j, "requested_gib", rjson_real(o->requested_gib));
    json_object_set_new(j, "weights_gib", rjson_real(o->weights_gib));
    json_object_set_new(j, "vision_gib", rjson_real(o->vision_gib));
    json_object_set_new(j, "lora_gib", rjson_real(o->lora_gib));
    json_object_set_new(j, "draft_gib", rjson_real(o->draft_gib));
    json_object_set_new(j, "activation_gib", rjson_real(o->activation_gib));
    json_object_set_new(j, "cuda_graph_gib", rjson_real(o->cuda_graph_gib));
    json_object_set_new(j, "kv_avail_gib", rjson_real(o->kv_avail_gib));
    return j;
}

static json_t *result_json(const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    json_object_set_new(j, "gpus", json_integer(o->gpus));
    json_object_set_new(j, "tp", json_integer(o->tp));
    json_object_set_new(j, "pp", json_integer(o->pp));
    json_object_set_new(j, "stage_layers", json_pack("{s:i, s:i, s:i}", "min", o->stage_layers_min, "max",
                                                     o->stage_layers_max, "binding_stage", o->pp_stage));
    json_object_set_new(j, "replicas", json_integer(o->replicas));
    json_object_set_new(j, "expert_parallel", json_boolean(o->expert_parallel));
    json_object_set_new(j, "attention_dp", json_boolean(o->attention_dp));
    json_object_set_new(j, "ep", json_integer(o->attention_dp ? o->ep : o->expert_parallel ? o->tp : 1));
    json_object_set_new(j, "expert_imbalance", rjson_real(o->expert_imbalance));
    json_object_set_new(j, "weights", json_string(gpuecon_precision_name(r->weights)));
    json_object_set_new(j, "kv", json_string(gpuecon_precision_name(r->kv)));
    json_object_set_new(j, "serving_profile", json_pack("{s:s, s:b, s:s}", "name", r->profile.name,
                                                        "fitted_to_blog", r->profile.fitted_to_blog,
                                                        "note", r->profile.note ? r->profile.note : ""));
    json_object_set_new(j, "tco_profile", r->tco ? json_string(r->tco->name) : json_null());
    json_object_set_new(j, "fits", json_boolean(o->fits));
    json_object_set_new(j, "shortfall_gb", rjson_real(o->shortfall_gb));
    json_object_set_new(j, "memory", memory_json(o));
    json_object_set_new(j, "kv_bytes_per_token", rjson_real(o->kv_bytes_per_token));
    json_object_set_new(j, "kv_bytes_per_token_long", rjson_real(o->kv_bytes_per_token_long));
    if (!o->fits) { /* every contract key is present; null where there is no value */
        const char *keys[] = {"kv_capacity_tokens", "max_concurrency", "output_tokens_per_s",
                              "tpot_ms", "ttft_ms", "usd_per_mtok"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            json_object_set_new(j, keys[i], json_null());
        return j;
    }
    json_object_set_new(j, "kv_capacity_tokens", rjson_real(o->kv_capacity_tokens));
    json_object_set_new(j, "kv_blocks", rjson_real(o->kv_blocks));
    json_object_set_new(j, "max_concurrency", rjson_real(o->max_concurrency));
    json_object_set_new(j, "seqs_per_replica", json_pack("{s:o, s:o, s:o, s:o, s:b, s:o}", "at_mean_context",
                                                         rjson_real(o->seqs_at_mean), "at_prompt_plus_output",
                                                         rjson_real(o->seqs_at_full), "at_max_model_len",
                                                         rjson_real(o->seqs_at_max_model_len), "admitted",
                                                         rjson_real(o->seqs_admitted), "kv_reserved_up_front",
                                                         r->profile.kv_reserve, "token_budget",
                                                         rjson_real(o->seqs_budget)));
    json_object_set_new(j, "eta_c", json_pack("{s:o, s:o}", "gemm", rjson_real(o->eta_c), "attention",
                                              rjson_real(o->eta_attn)));
    json_object_set_new(j, "engine", json_pack("{s:i, s:i, s:i, s:b, s:b, s:o, s:i}", "max_num_batched_tokens",
                                               o->max_num_batched_tokens, "max_num_seqs", o->max_num_seqs,
                                               "max_model_len", o->max_model_len, "max_model_len_lowered",
                                               o->max_model_len_lowered, "startup_ok_at_model_context",
                                               o->startup_ok, "startup_need_gib", rjson_real(o->startup_need_gib),
                                               "max_model_len_fit", o->max_model_len_fit));
    json_object_set_new(j, "expected_tokens_per_step", rjson_real(o->expected_tokens));
    json_object_set_new(j, "acceptance_alpha", rjson_real(o->alpha));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(o->output_tokens_per_s));
    json_object_set_new(j, "tpot_ms", rjson_real(o->tpot_ms));
    json_object_set_new(j, "ttft_ms", rjson_real(o->ttft_ms));
    json_object_set_new(j, "usd_per_mtok", r->tco ? rjson_real(o->usd_per_mtok) : json_null());
    json_object_set_new(j, "joules_per_token", rjson_real(o->joules_per_token));
    json_object_set_new(j, "usd_per_gpu_hour", r->tco ? rjson_real(o->usd_per_gpu_hour) : json_null());
    if (r->usd_per_gpu_hour > 0)
        json_object_set_new(j, "usd_per_gpu_hour_source", rjson_user_price());
    json_object_set_new(j, "at", point_json(&o->at));
    json_object_set_new(j, "saturation", json_pack("{s:o, s:o, s:o, s:o}", "max_concurrency",
                                                   rjson_real(o->max_concurrency), "c_knee", rjson_real(o->c_knee),
                                                   "output_tokens_per_s", rjson_real(o->saturated_tokens_per_s),
                                                   "ttft0_ms", rjson_real(o->ttft0_ms)));
    return j;
}

/* ---- tables ------------------------------------------------------------------------ */

static void header(FILE *f, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    fprintf(f, "%s on %s: ", r->model->name, r->system->name);
    cmd_infer_deployment(f, o);
    fprintf(f, ", weights %s, KV %s", gpuecon_precision_name(r->weights), gpuecon_precision_name(r->kv));
    if (o->expert_imbalance > 1)
        fprintf(f, ", expert load %.2fx the mean", o->expert_imbalance);
    if (r->lora_rank > 0)
        fprintf(f, ", LoRA r%d", r->lora_rank);
    if (r->draft_k > 0)
        fprintf(f, ", draft %d (E %.3f tokens/step)", r->draft_k, o->expected_tokens);
    fprintf(f, "\nprompt %g / output %g tokens; serving profile %s%s\n", r->prompt_len, r->output_len,
            r->profile.name,
            r->profile.fitted_to_blog ? " (constants fitted to the VESSL blog: agreement with its "
                                        "figures is partly circular)" : "");
    if (o->pp > 1)
    {
        char span[32];
        if (o->stage_layers_min == o->stage_layers_max)
            snprintf(span, sizeof span, "%d", o->stage_layers_min);
        else
            snprintf(span, sizeof span, "%d-%d (uneven)", o->stage_layers_min, o->stage_layers_max);
        fprintf(f, "pipeline: %d stages of %s layers (%s's %d split as the training model splits them); "
                   "memory below is stage %d's (0-based), whose KV pool binds\n",
                o->pp, span, r->model->name, r->model->layers, o->pp_stage);
    }
    if (o->pp > 1 && r->draft_k > 0)
        fprintf(f, "note: priced as a what-if: neither engine serves a drafted model over pipeline stages "
                   "(TensorRT-LLM's PP executor refuses drafting; vLLM fails to start it); --search skips it\n");
    if (o->fits && o->max_model_len_lowered)
        fprintf(f, "note: vLLM would refuse %s's full context (%.2f GiB of KV needed, %.2f free); "
                   "modelled with --max-model-len %d\n",
                r->model->name, o->startup_need_gib, o->kv_avail_gib, o->max_model_len);
    fputc('\n', f);
}

static void memory_rows(tbl *tb, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    char b[160];
    snprintf(b, sizeof b, "%.2f x %.2f GiB", o->gpu_mem_util, o->hbm_gib);
    cmd_infer_row(tb, "usable memory per GPU", o->requested_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "vision %.2f, LoRA %.2f, drafter %.2f GiB incl.", o->vision_gib, o->lora_gib,
             o->draft_gib);
    cmd_infer_row(tb, "  weights", o->weights_gib, 2, "GiB", b);
    cmd_infer_row(tb, "  activations (profile run)", o->activation_gib, 2, "GiB", "");
    cmd_infer_row(tb, "  CUDA graphs", o->cuda_graph_gib, 2, "GiB", "");
    cmd_infer_row(tb, "  KV cache", o->kv_avail_gib, 2, "GiB", "");
    if (!o->fits)
        return;
    if (o->kv_bytes_per_token_long < o->kv_bytes_per_token)
        snprintf(b, sizeof b, "per GPU; %.0f B past the sliding windows", o->kv_bytes_per_token_long);
    else
        snprintf(b, sizeof b, "per GPU; every layer attends globally");
    cmd_infer_row(tb, "KV bytes per token", o->kv_bytes_per_token, 0, "B", b);
    cmd_infer_row(tb, "KV capacity", o->kv_capacity_tokens, 0, "tokens", "per replica");
    snprintf(b, sizeof b, "per replica at the mean context %.1f tokens", o->mean_context);
    cmd_infer_row(tb, "sequences that fit", o->seqs_at_mean, 1, "seqs", b);
    snprintf(b, sizeof b, "per replica at max_model_len %d", o->max_model_len);
    cmd_infer_row(tb, "  at full context", o->seqs_at_max_model_len, 2, "seqs", b);
    if (r->profile.kv_reserve)
        cmd_infer_row(tb, "  admitted", o->seqs_admitted, 1, "seqs",
                      "per replica: each reserves prompt + output up front (GUARANTEED_NO_EVICT)");
    snprintf(b, sizeof b, "per replica: %d batched tokens / %.1f tokens per sequence per step",
             o->max_num_batched_tokens, o->max_num_batched_tokens / o->seqs_budget);
    cmd_infer_row(tb, "sequences the budget carries", o->seqs_budget, 1, "seqs", b);
    cmd_infer_row(tb, "max concurrency", o->max_concurrency, 0, "seqs", "all replicas (C_sat)");
    if (o->eta_c != r->profile.eta_c) {
        snprintf(b, sizeof b, "profile %.2f on %s %s, moved by the training GEMM fractions", r->profile.eta_c,
                 r->profile.eta_c_arch, gpuecon_precision_name(r->profile.eta_c_prec));
        cmd_infer_row(tb, "GEMM efficiency eta_c", o->eta_c, 3, "", b);
    }
}

static void perf_rows(tbl *tb, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    const gpuecon_infer_point *p = &o->at;
    char b[200];
    snprintf(b, sizeof b, "%.1f running per replica, bound by %s", p->batch, gpuecon_binding_name(p->binding));
    cmd_infer_row(tb, "concurrency", p->concurrency, 0, "requests", b);
    snprintf(b, sizeof b, "%.1f per GPU", p->output_tokens_per_s_per_gpu);
    cmd_infer_row(tb, "output throughput", p->output_tokens_per_s, 0, "tok/s", b);
    snprintf(b, sizeof b, "running %.1f ms", p->tpot_run_ms);
    cmd_infer_row(tb, "TPOT", p->tpot_ms, 1, "ms", b);
    cmd_infer_row(tb, "TTFT", p->ttft_ms, 1, "ms", "");
    const gpuecon_infer_step *s = &p->step;
    snprintf(b, sizeof b, "weights %.2f | GEMM %.2f | KV %.2f | attn %.2f | ovh %.2f | LoRA %.2f | "
                          "comm %.2f | draft %.2f", s->weights_s * 1e3, s->gemm_s * 1e3, s->kv_s * 1e3,
             s->attn_s * 1e3, s->overhead_s * 1e3, s->lora_s * 1e3, s->comm_s * 1e3, s->draft_s * 1e3);
    cmd_infer_row(tb, "step time", s->step_s * 1e3, 2, "ms", b);
    if (p->prompt_step_fraction > 0) {
        snprintf(b, sizeof b, "of the steps carry a %.0f-token prompt chunk (%.2f ms); the rest decode (%.2f ms)",
                 p->prompt_chunk_tokens, p->prompt_step_ms, p->decode_step_ms);
        cmd_infer_row(tb, "  steps with a prompt", 100 * p->prompt_step_fraction, 1, "%", b);
    }
    if (o->pp > 1) {
        snprintf(b, sizeof b, "%.0f micro-batches in flight; busiest stage %.2f ms; waiting %.2f ms",
                 s->micro_batches, s->stage_max_s * 1e3, s->pp_wait_s * 1e3);
        cmd_infer_row(tb, "  pipeline sends", s->p2p_s * 1e3, 3, "ms", b);
    }
    cmd_infer_row(tb, "saturated throughput", o->saturated_tokens_per_s, 0, "tok/s", "at max concurrency");
    cmd_infer_row(tb, "knee concurrency", o->c_knee, 0, "requests", "90% of saturated throughput");
    cmd_infer_row(tb, "TTFT of a lone prompt", o->ttft0_ms, 1, "ms", "empty server");
    if (r->tco) {
        snprintf(b, sizeof b, "%s%s %.3f $/GPU-h", r->usd_per_gpu_hour > 0 ? "your rate" : r->tco->name,
                 r->usd_per_gpu_hour > 0 ? "" : " TCO", o->usd_per_gpu_hour);
        cmd_infer_row(tb, "$ per 1M output tokens", o->usd_per_mtok, 4, "$/Mtok", b);
    }
    cmd_infer_row(tb, "energy per output token", o->joules_per_token, 3, "J", "utility side");
}

static int print_result(cli *c, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    tbl *tb = tbl_new(c->ctx, &c->oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "note", 'l');
    memory_rows(tb, r, o);
    if (o->fits)
        perf_rows(tb, r, o);
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    header(f, r, o);
    tbl_print(tb, f);
    return cli_table_done(c, tb, f);
}

/* ---- sweep ----------------------------------------------------------------------- */

static int plot_sweep(cli *c, const char *path, const gpuecon_infer_request *r, const double *x,
                      const gpuecon_infer_point *p, size_t n)
{
    double y1[64], y2[64];
    for (size_t i = 0; i < n; i++) {
        y1[i] = p[i].output_tokens_per_s;
        y2[i] = p[i].tpot_ms;
    }
    char title[256];
    snprintf(title, sizeof title, "%s on %s (%s weights, %s KV)", r->model->name, r->system->name,
             gpuecon_precision_name(r->weights), gpuecon_precision_name(r->kv));
    plot_series s[2] = {{"output tokens/s", x, y1, n, false}, {"TPOT (ms)", x, y2, n, true}};
    plot_spec spec = {title, "concurrent requests", "output tokens/s", "TPOT (ms)", true, false, 0, 0};
    return cli_plot(c, path, &spec, s, 2, true, false);
}

static int print_sweep(cli *c, const gpuecon_infer_request *r, gpuecon_infer_result *o, const double *x,
                       const gpuecon_infer_point *p, size_t n)
{
    if (c->format == FMT_JSON) {
        json_t *j = result_json(r, o), *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, point_json(&p[i]));
        json_object_set_new(j, "points", arr);
        return cli_emit_json(c, j);
    }
    tbl *tb = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"concurrency", "per replica", "bound by", "step ms", "output tok/s",
                          "tok/s/GPU", "TPOT ms", "TTFT ms", "$/Mtok"};
    for (size_t i = 0; i < 9; i++)
        tbl_col(tb, cols[i], i == 2 ? 'l' : 'r');
    for (size_t i = 0; i < n; i++) {
        tbl_row(tb);
        tbl_num(tb, x[i], 0);
        tbl_num(tb, p[i].batch, 1);
        tbl_str(tb, gpuecon_binding_name(p[i].binding));
        tbl_num(tb, p[i].step.step_s * 1e3, 2);
        tbl_num(tb, p[i].output_tokens_per_s, 0);
        tbl_num(tb, p[i].output_tokens_per_s_per_gpu, 1);
        tbl_num(tb, p[i].tpot_ms, 1);
        tbl_num(tb, p[i].ttft_ms, 1);
        tbl_num(tb, p[i].usd_per_mtok, 4);
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    header(f, r, o);
    tbl_print(tb, f);
    fprintf(f, "\nKV capacity %.0f tokens per replica; saturation at %.0f requests (%.0f tok/s), "
               "knee at %.0f\n",
            o->kv_capacity_tokens, o->max_concurrency, o->saturated_tokens_per_s, o->c_knee);
    return cli_table_done(c, tb, f);
}

static int run_sweep(cli *c, const infer_args *a, const gpuecon_infer_request *r, gpuecon_infer_result *o)
{
    double x[64];
    size_t n = 0;
    if (a->grid.n > 0)
        for (int i = 0; i < a->grid.n; i++)
            x[n++] = a->grid.v[i];
    else
        n = gpuecon_infer_grid(o, x, 64);
    gpuecon_infer_point p[64];
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_infer_sweep(r, x, n, p, &err))
        return cli_fail(c, &err);
    int rc = a->plot ? plot_sweep(c, a->plot, r, x, p, n) : 0;
    return rc ? rc : print_sweep(c, r, o, x, p, n);
}

static int execute(cli *c, const opt *opts, size_t nopts, const infer_args *a)
{
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    gpuecon_infer_request r;
    int rc = build_request(c, opts, nopts, a, &r);
    if (rc)
        return rc;
    if (cmd_infer_disagg_wanted(&a->disagg))
        return cmd_infer_disagg(c, opts, nopts, &a->disagg, &a->sim, &r);
    /* the search tries every precision and layout itself: the given one need not fit */
    if (a->search.search)
        return cmd_infer_search(c, opts, nopts, &a->search, &a->sim, a->plot, &r);
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_infer(&r, &o, &err);
    if (rc == GPUECON_E_INFEASIBLE && o.hbm_gib > 0) {
        if (c->format == FMT_JSON) { /* the JSON still says why (docs/cli.md) */
            json_t *j = result_json(&r, &o);
            json_object_set_new(j, "reason", json_string(err.message));
            cli_emit_json(c, j);
        }
        return cli_fail(c, &err);
    }
    if (rc)
        return cli_fail(c, &err);
    if (a->sim.simulate)
        return cmd_infer_simulate(c, opts, nopts, &a->sim, &r);
    if (a->sweep || a->grid.n > 0)
        return run_sweep(c, a, &r, &o);
    if (c->format == FMT_JSON)
        return cli_emit_json(c, result_json(&r, &o));
    return print_result(c, &r, &o);
}

int cmd_infer(cli *c, int argc, char **argv)
{
    infer_args a = {0};
    a.profile = "hyperscaler";
    a.serving = "generic";
    a.prompt_len = 230;
    a.output_len = 203;
    a.max_loras = 1;
    a.block_size = 16;
    a.attn_dp = 1; /* off */
    cmd_infer_sim_defaults(&a.sim);
    cmd_infer_search_defaults(&a.search);
    opt opts[80] = {
        {"--model", O_STR, &a.model, 0, 0, NULL, "M", "model (gpuecon catalog models)", NULL, false},
        CLI_OPT_SYSTEM(&a.system),
        {"--gpus", O_INT, &a.gpus, 1, 1e6, NULL, "N", "GPUs in all (default: one server)", NULL, false},
        {"--tp", O_INT, &a.tp, 1, 1024, NULL, "T", "tensor-parallel GPUs per replica (default: smallest that fits)", NULL, false},
        {"--pp", O_INT, &a.pp, 1, GPUECON_INFER_MAX_PP, NULL, "N",
         "pipeline stages per replica (layers split over N x TP GPUs; default 1)", NULL, false},
        {"--tp-across-nodes", O_FLAG, &a.tp_across, 0, 0, NULL, NULL,
         "let --tp exceed the NVLink domain (its all-reduces on the scale-out network)", NULL, false},
        {"--weights", O_CHOICE, &a.weights, 0, 0, names_precision, "P", "weight precision of the body linears", NULL, false},
        {"--kv", O_CHOICE, &a.kv, 0, 0, names_precision_no_fp4, "P", "KV-cache precision", NULL, false},
        {"--prompt-len", O_DOUBLE, &a.prompt_len, 1, 1e8, NULL, "P", "mean prompt tokens (ShareGPT 230)", NULL, false},
        {"--output-len", O_DOUBLE, &a.output_len, 1, 1e8, NULL, "O", "mean output tokens (ShareGPT 203)", NULL, false},
        {"--output-cv", O_DOUBLE, &a.output_cv, 0, 10, NULL, "F", "coefficient of variation of the output length", NULL, false},
        {"--prefix-hit", O_DOUBLE, &a.prefix_hit, 0, 0.99, NULL, "F", "prefix-cache hit rate on prompt tokens", NULL, false},
        {"--concurrency", O_DOUBLE, &a.concurrency, -1e12, 1e9, NULL, "C", "requests in the system, all replicas (default: saturation)", NULL, false},
        {"--sweep", O_FLAG, &a.sweep, 0, 0, NULL, NULL, "throughput and TPOT against concurrency", NULL, false},
        {"--grid", O_LIST, &a.grid, 1, 1e9, NULL, "LIST", "concurrencies for the sweep (1,2,4,...,1024)", NULL, false},
        {"--plot", O_STR, &a.plot, 0, 0, NULL, "FILE.svg", "with --sweep: SVG chart through gnuplot", NULL, false},
        {"--draft", O_INT, &a.draft, 0, 16, NULL, "K", "speculative / MTP draft length", NULL, false},
        {"--accept", O_DOUBLE, &a.accept, -1e12, 1e12, NULL, "A", "per-position acceptance α, [0, 1)", NULL, false},
        {"--accept-rate", O_DOUBLE, &a.accept_rate, -1e12, 1e12, NULL, "A", "vLLM's draft acceptance rate, [0, 1)", NULL, false},
        {"--draft-gb", O_DOUBLE, &a.draft_gb, 0, 1e4, NULL, "G", "drafter weights, GB (default: MTP modules or 0.9)", NULL, false},
        {"--lora-rank", O_INT, &a.lora_rank, 0, 4096, NULL, "R", "LoRA adapter rank (0: none)", NULL, false},
        {"--lora-modules", O_STR, &a.lora_mods, 0, 0, NULL, "LIST", "adapted projections (default all: q,k,v,o,gate,up,down)", NULL, false},
        {"--max-loras", O_INT, &a.max_loras, 1, 1024, NULL, "N", "preallocated adapter slots", NULL, false},
        {"--serving-profile", O_STR, &a.serving, 0, 0, NULL, "NAME", "efficiency constants: " CLI_SERVING_PROFILES, NULL, false},
        {"--engine", O_CHOICE, &a.engine, 0, 0, engine_names, "E", "vLLM memory accounting", NULL, false},
        {"--roofline", O_CHOICE, &a.roofline, 0, 0, roofline_names, "R", "how roofline terms combine", NULL, false},
        {"--prefill-steps", O_CHOICE, &a.prefill_steps, 0, 0, prefill_steps_names, "P",
         "mean field: prompts whole in some steps (greedy schedulers) or evenly in every step", NULL, false},
        {"--ep", O_CHOICE, &a.ep, 0, 0, onoff_names, "on|off", "MoE expert parallelism inside a replica (default on)", NULL, false},
        {"--attention-dp", O_CHOICE, &a.attn_dp, 0, 0, onoff_names, "on|off",
         "MoE: attention data-parallel over the --tp GPUs, experts EP over them (default off)", NULL, false},
        {"--expert-imbalance", O_DOUBLE, &a.imbalance, 1, 64, NULL, "F",
         "MoE: busiest expert rank's tokens / the mean (default 1, balanced)", NULL, false},
        {"--gpu-mem-util", O_DOUBLE, &a.gpu_mem_util, 0.05, 1, NULL, "F", "vLLM gpu_memory_utilization", NULL, false},
        {"--max-num-seqs", O_INT, &a.max_num_seqs, 1, 65536, NULL, "N", "vLLM max_num_seqs", NULL, false},
        {"--max-num-batched-tokens", O_INT, &a.max_num_batched_tokens, 16, 1e7, NULL, "N", "vLLM max_num_batched_tokens", NULL, false},
        {"--long-prefill-token-threshold", O_INT, &a.long_prefill, 0, 1e7, NULL, "N",
         "a prompt's tokens per step at most (vLLM's; 0: none)", NULL, false},
        {"--max-model-len", O_INT, &a.max_model_len, 1, 1e9, NULL, "N", "vLLM max_model_len (default: the model's, lowered to fit)", NULL, false},
        {"--block-size", O_INT, &a.block_size, 1, 1024, NULL, "N", "KV block size, tokens", NULL, false},
        {"--activation-gib", O_DOUBLE, &a.activation_gib, 0, 1e4, NULL, "G", "peak activation memory from the vLLM log", NULL, false},
        {"--cuda-graph-gib", O_DOUBLE, &a.cuda_graph_gib, 0, 1e4, NULL, "G", "CUDA-graph memory from the vLLM log", NULL, false},
        {"--profile", O_STR, &a.profile, 0, 0, NULL, "P", "TCO profile for $/Mtok (default hyperscaler)", NULL, false},
        CLI_OPT_PUE(&a.pue),
        CLI_OPT_USD_PER_GPU_HOUR(&a.usd_per_gpu_hour),
    };
    static const cmd_usage usage = {
        "infer --model M --system S [--gpus N] [--tp T] [--pp N] [--weights bf16|fp8|fp4] [--kv bf16|fp8]\n"
        "       [--prompt-len P --output-len O] [--concurrency C | --sweep [--plot FILE.svg]]\n"
        "       [--draft K --accept A] [--lora-rank R] [--serving-profile NAME] [--profile P]\n"
        "       [--simulate (--rate R [--arrival gamma --burstiness B] | --users N) [--lengths fixed|lognormal|FILE]\n"
        "        [--ttft-ms T --tpot-ms T --slo-percentile P] [--requests N --replications N --seed N]]\n"
        "       [--search --ttft-ms T --tpot-ms T [--rate R | --concurrency C] [--objective throughput|cost]\n"
        "        [--search-gpus LIST] [--max-draft K --accept A] [--plot FILE.svg]]\n"
        "       [--prefill XxP --decode YxD [--rate R | --simulate ...] | --disagg-search --ttft-ms T --tpot-ms T]",
        "Serving capacity, throughput, latency and cost per output token of a vLLM-like engine:\n"
        "memory per GPU (weights, activations, CUDA graphs, KV cache), KV capacity and the\n"
        "sequences that fit, throughput/TPOT/TTFT at a concurrency (all replicas = gpus/(tp x pp)),\n"
        "the saturation point and what binds, $/Mtok and J/token (docs/model.md §6).",
        "gpuecon infer --model gemma4-31b --system hgx-b200 --gpus 8 --tp 1 --weights fp8 --kv fp8 --sweep"};
    size_t nopts = 0;
    while (nopts < 80 && opts[nopts].name)
        nopts++;
    nopts += cmd_infer_sim_opts(&a.sim, opts + nopts, 80 - nopts);
    nopts += cmd_infer_search_opts(&a.search, opts + nopts, 80 - nopts);
    nopts += cmd_infer_disagg_opts(&a.disagg, opts + nopts, 80 - nopts);
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc || (rc = check_args(c, opts, nopts, &a)) || (rc = cli_load_catalog(c)))
        return rc;
    return execute(c, opts, nopts, &a);
}
