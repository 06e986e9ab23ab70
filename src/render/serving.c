/*
 * serving.c — `gpuecon infer` rendered for one deployment: memory, KV capacity and performance
 * at one concurrency as JSON or a table of quantities (terminal and CSV), and with --sweep the
 * deployment at each concurrency. Also what every serving output shares: the deployment as its
 * header names it.
 */
#include "render/render.h"

#include <string.h>

/* "8 GPUs = 2 replicas x TP 2 x PP 2 (experts EP)" or "8 GPUs = 8 attention-DP ranks, experts EP 8":
 * the deployment as every serving header names it. */
void serving_deployment(strbuf *f, const gpuecon_infer_result *o)
{
    int ep = o->attention_dp ? o->ep : o->expert_parallel ? o->tp : 1;
    if (o->attention_dp)
        sb_printf(f, "%d GPUs = %d attention-DP ranks, experts EP %d", o->gpus, o->replicas, o->ep);
    else {
        sb_printf(f, "%d GPU%s = %d replica%s x TP %d", o->gpus, o->gpus > 1 ? "s" : "", o->replicas,
                o->replicas > 1 ? "s" : "", o->tp);
        if (o->pp > 1)
            sb_printf(f, " x PP %d", o->pp);
        if (o->expert_parallel)
            sb_printf(f, " (experts EP)");
    }
    if (ep > 1 && o->redundant_experts > 0)
        sb_printf(f, " (%d + %d redundant experts = %d slots%s, %d per GPU)", o->experts, o->redundant_experts,
                  o->experts + o->redundant_experts, o->redundant_default ? " by default" : "", o->expert_slots);
    else if (ep > 1 && o->experts % ep)
        sb_printf(f, " (%d experts over %d GPUs: up to %d per GPU)", o->experts, ep, o->expert_slots);
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
    json_object_set_new(j, "kernel_ms", rjson_real(s->kernel_s * 1e3));
    json_object_set_new(j, "kernels", rjson_real(s->kernels));
    json_object_set_new(j, "dp_wait_ms", rjson_real(s->dp_wait_s * 1e3));
    json_object_set_new(j, "step_ms", rjson_real(s->step_s * 1e3));
    return j;
}

/* The bands of a point's figures next to them (b NULL: none); the total output tokens/s is the
 * per-GPU figure times the GPUs, and so is its band. */
static void point_bands(json_t *j, const gpuecon_infer_point *p, const serve_bands *b, bool per_gpu)
{
    if (!b)
        return;
    double gpus = p->output_tokens_per_s_per_gpu > 0 ? p->output_tokens_per_s / p->output_tokens_per_s_per_gpu : 0;
    if (per_gpu)
        figband_add(j, "output_tokens_per_s_per_gpu", &b->tps, 1);
    if (gpus > 0)
        figband_add(j, "output_tokens_per_s", &b->tps, gpus);
    figband_add(j, "tpot_ms", &b->tpot, 1);
    figband_add(j, "ttft_ms", &b->ttft, 1);
}

static json_t *point_json(const gpuecon_infer_point *p, const serve_bands *b)
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
    point_bands(j, p, b, true);
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

static json_t *result_json(const gpuecon_infer_request *r, const gpuecon_infer_result *o, const serve_bands *b)
{
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    rjson_power(j, r->system);
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
    json_object_set_new(j, "expert_imbalance_given", json_boolean(o->expert_imbalance_given));
    json_object_set_new(j, "expert_imbalance_without_redundant", rjson_real(o->expert_imbalance_plain));
    json_object_set_new(j, "redundant_experts", json_integer(o->redundant_experts));
    json_object_set_new(j, "redundant_experts_default", json_boolean(o->redundant_default));
    json_object_set_new(j, "expert_slots_per_gpu", json_integer(o->expert_slots));
    json_object_set_new(j, "weights", json_string(gpuecon_precision_name(r->weights)));
    json_object_set_new(j, "kv", json_string(gpuecon_precision_name(r->kv)));
    json_object_set_new(j, "stack", json_string(gpuecon_serving_profile_label(&r->profile)));
    if (r->profile.calibration)
        json_object_set_new(j, "user_calibration", rjson_user_calibration(r->profile.calibration));
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
    const gpuecon_attn_kernel_info *ak = gpuecon_attn_kernel_get(o->attn_kernel);
    json_object_set_new(j, "attention_kernel",
                        json_pack("{s:s, s:o, s:o, s:b}", "name", ak ? ak->name : "profile", "eta_kv",
                                  rjson_real(o->eta_kv), "decode_math_of_bf16_peak", rjson_real(o->eta_attn_decode),
                                  "decode_fp8", o->attn_decode_fp8));
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
    if (o->cost_note[0]) /* why the two above are null */
        json_object_set_new(j, "cost_note", json_string(o->cost_note));
    json_object_set_new(j, "usd_per_gpu_hour", r->tco ? rjson_real(o->usd_per_gpu_hour) : json_null());
    if (r->usd_per_gpu_hour > 0)
        json_object_set_new(j, "usd_per_gpu_hour_source", rjson_user_price());
    point_bands(j, &o->at, b, false);
    json_object_set_new(j, "at", point_json(&o->at, b));
    json_object_set_new(j, "saturation", json_pack("{s:o, s:o, s:o, s:o}", "max_concurrency",
                                                   rjson_real(o->max_concurrency), "c_knee", rjson_real(o->c_knee),
                                                   "output_tokens_per_s", rjson_real(o->saturated_tokens_per_s),
                                                   "ttft0_ms", rjson_real(o->ttft0_ms)));
    return j;
}

/* ---- tables ------------------------------------------------------------------------ */

static void header(strbuf *f, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    sb_printf(f, "%s on %s: ", r->model->name, r->system->name);
    serving_deployment(f, o);
    sb_printf(f, ", weights %s, KV %s", gpuecon_precision_name(r->weights), gpuecon_precision_name(r->kv));
    if (o->expert_imbalance > 1)
        sb_printf(f, ", expert load %.2fx the mean", o->expert_imbalance);
    if (o->expert_imbalance > 1 && !o->expert_imbalance_given && o->redundant_experts > 0)
        sb_printf(f, " (%.2fx without redundant experts)", o->expert_imbalance_plain);
    if (r->lora_rank > 0)
        sb_printf(f, ", LoRA r%d", r->lora_rank);
    if (r->system->power_limit_w > 0 && r->system->gpu && r->system->power_limit_w < r->system->gpu->tdp_w)
        sb_printf(f, ", GPUs at %.0f W (clock %.3f)", r->system->power_limit_w, gpuecon_system_clock(r->system));
    if (r->draft_k > 0)
        sb_printf(f, ", draft %d (E %.3f tokens/step)", r->draft_k, o->expected_tokens);
    if (r->profile.stack)
        sb_printf(f, "\nprompt %s / output %s tokens; stack %s (profile %s: kernels per layer, CUDA graphs "
                  "up to batch %d, %s scheduler)%s\n", NUM_SIG(r->prompt_len, 6), NUM_SIG(r->output_len, 6),
                  r->profile.stack,
                  r->profile.name, r->profile.graph_max_bs, r->profile.overlap_sched ? "overlap" : "serial",
                  r->profile.fitted_to_blog ? " (constants fitted to the VESSL blog)" : "");
    else
    sb_printf(f, "\nprompt %s / output %s tokens; stack %s (profile constants, no per-layer kernels)%s\n",
            NUM_SIG(r->prompt_len, 6), NUM_SIG(r->output_len, 6), r->profile.name,
            r->profile.fitted_to_blog ? " (constants fitted to the VESSL blog: agreement with its "
                                        "figures is partly circular)" : "");
    char ucal[400];
    if (r->profile.calibration)
        sb_printf(f, "calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, r->profile.calibration));
    if (o->pp > 1)
    {
        char span[32];
        if (o->stage_layers_min == o->stage_layers_max)
            snprintf(span, sizeof span, "%d", o->stage_layers_min);
        else
            snprintf(span, sizeof span, "%d-%d (uneven)", o->stage_layers_min, o->stage_layers_max);
        sb_printf(f, "pipeline: %d stages of %s layers (%s's %d split as the training model splits them); "
                   "memory below is stage %d's (0-based), whose KV pool binds\n",
                o->pp, span, r->model->name, r->model->layers, o->pp_stage);
    }
    if (o->pp > 1 && r->draft_k > 0)
        sb_printf(f, "note: priced as a what-if: neither engine serves a drafted model over pipeline stages "
                   "(TensorRT-LLM's PP executor refuses drafting; vLLM fails to start it); --search skips it\n");
    if (o->fits && o->max_model_len_lowered)
        sb_printf(f, "note: vLLM would refuse %s's full context (%.2f GiB of KV needed, %.2f free); "
                   "modelled with --max-model-len %d\n",
                r->model->name, o->startup_need_gib, o->kv_avail_gib, o->max_model_len);
    sb_putc(f, '\n');
}

static void memory_rows(tbl *tb, const gpuecon_infer_request *r, const gpuecon_infer_result *o)
{
    char b[160];
    snprintf(b, sizeof b, "%.2f x %.2f GiB", o->gpu_mem_util, o->hbm_gib);
    tbl_quantity(tb, "usable memory per GPU", o->requested_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "vision %.2f, LoRA %.2f, drafter %.2f GiB incl.", o->vision_gib, o->lora_gib,
             o->draft_gib);
    tbl_quantity(tb, "  weights", o->weights_gib, 2, "GiB", b);
    tbl_quantity(tb, "  activations (profile run)", o->activation_gib, 2, "GiB", "");
    tbl_quantity(tb, "  CUDA graphs", o->cuda_graph_gib, 2, "GiB", "");
    tbl_quantity(tb, "  KV cache", o->kv_avail_gib, 2, "GiB", "");
    if (!o->fits)
        return;
    if (o->kv_bytes_per_token_long < o->kv_bytes_per_token)
        snprintf(b, sizeof b, "per GPU; %.0f B past the sliding windows", o->kv_bytes_per_token_long);
    else
        snprintf(b, sizeof b, "per GPU; every layer attends globally");
    tbl_quantity(tb, "KV bytes per token", o->kv_bytes_per_token, 0, "B", b);
    tbl_quantity(tb, "KV capacity", o->kv_capacity_tokens, 0, "tokens", "per replica");
    snprintf(b, sizeof b, "per replica at the mean context %.1f tokens", o->mean_context);
    tbl_quantity(tb, "sequences that fit", o->seqs_at_mean, 1, "seqs", b);
    snprintf(b, sizeof b, "per replica at max_model_len %d", o->max_model_len);
    tbl_quantity(tb, "  at full context", o->seqs_at_max_model_len, 2, "seqs", b);
    if (r->profile.kv_reserve)
        tbl_quantity(tb, "  admitted", o->seqs_admitted, 1, "seqs",
                      "per replica: each reserves prompt + output up front (GUARANTEED_NO_EVICT)");
    snprintf(b, sizeof b, "per replica: %d batched tokens / %.1f tokens per sequence per step",
             o->max_num_batched_tokens, o->max_num_batched_tokens / o->seqs_budget);
    tbl_quantity(tb, "sequences the budget carries", o->seqs_budget, 1, "seqs", b);
    tbl_quantity(tb, "max concurrency", o->max_concurrency, 0, "seqs", "all replicas (C_sat)");
    if (o->eta_c != r->profile.eta_c) {
        snprintf(b, sizeof b, "profile %.2f on %s %s, moved by the training GEMM fractions", r->profile.eta_c,
                 r->profile.eta_c_arch, gpuecon_precision_name(r->profile.eta_c_prec));
        tbl_quantity(tb, "GEMM efficiency eta_c", o->eta_c, 3, "", b);
    }
    if (o->attn_kernel != GPUECON_AK_PROFILE) {
        const gpuecon_attn_kernel_info *k = gpuecon_attn_kernel_get(o->attn_kernel);
        snprintf(b, sizeof b, "%s: decode attention math at %.3f of the BF16 peak%s; prefill by sequence length (FA3 curve)",
                 k ? k->name : "?", o->eta_attn_decode, o->attn_decode_fp8 ? " (FP8 Q and KV)" : "");
        tbl_quantity(tb, "decode KV fraction of HBM", o->eta_kv, 3, "", b);
    }
}

static void perf_rows(tbl *tb, const gpuecon_infer_request *r, const gpuecon_infer_result *o, const serve_bands *bands)
{
    const gpuecon_infer_point *p = &o->at;
    char b[200];
    snprintf(b, sizeof b, "%.1f running per replica, bound by %s", p->batch, gpuecon_binding_name(p->binding));
    tbl_quantity(tb, "concurrency", p->concurrency, 0, "requests", b);
    snprintf(b, sizeof b, "%.1f per GPU", p->output_tokens_per_s_per_gpu);
    tbl_quantity(tb, "output throughput", p->output_tokens_per_s, 0, "tok/s", b);
    if (bands)
        figband_row(tb, &bands->tps, 1, 0, "tok/s/GPU");
    snprintf(b, sizeof b, "running %.1f ms", p->tpot_run_ms);
    tbl_quantity(tb, "TPOT", p->tpot_ms, 1, "ms", b);
    if (bands)
        figband_row(tb, &bands->tpot, 1, 1, "ms");
    tbl_quantity(tb, "TTFT", p->ttft_ms, 1, "ms", "");
    if (bands)
        figband_row(tb, &bands->ttft, 1, 1, "ms");
    const gpuecon_infer_step *s = &p->step;
    snprintf(b, sizeof b, "weights %.2f | GEMM %.2f | KV %.2f | attn %.2f | ovh %.2f | LoRA %.2f | "
                          "comm %.2f | draft %.2f", s->weights_s * 1e3, s->gemm_s * 1e3, s->kv_s * 1e3,
             s->attn_s * 1e3, s->overhead_s * 1e3, s->lora_s * 1e3, s->comm_s * 1e3, s->draft_s * 1e3);
    tbl_quantity(tb, "step time", s->step_s * 1e3, 2, "ms", b);
    if (p->prompt_step_fraction > 0) {
        snprintf(b, sizeof b, "of the steps carry a %.0f-token prompt chunk (%.2f ms); the rest decode (%.2f ms)",
                 p->prompt_chunk_tokens, p->prompt_step_ms, p->decode_step_ms);
        tbl_quantity(tb, "  steps with a prompt", 100 * p->prompt_step_fraction, 1, "%", b);
    }
    if (s->dp_wait_s > 0) {
        snprintf(b, sizeof b, "per step: waiting at the MoE collectives for another attention-DP rank's prompt chunk");
        tbl_quantity(tb, "  attention-DP wait", s->dp_wait_s * 1e3, 2, "ms", b);
    }
    if (o->pp > 1) {
        snprintf(b, sizeof b, "%.0f micro-batches in flight; busiest stage %.2f ms; waiting %.2f ms",
                 s->micro_batches, s->stage_max_s * 1e3, s->pp_wait_s * 1e3);
        tbl_quantity(tb, "  pipeline sends", s->p2p_s * 1e3, 3, "ms", b);
    }
    tbl_quantity(tb, "saturated throughput", o->saturated_tokens_per_s, 0, "tok/s", "at max concurrency");
    tbl_quantity(tb, "knee concurrency", o->c_knee, 0, "requests", "90% of saturated throughput");
    tbl_quantity(tb, "TTFT of a lone prompt", o->ttft0_ms, 1, "ms", "empty server");
    if (r->tco) {
        snprintf(b, sizeof b, "%s%s %.3f $/GPU-h", r->usd_per_gpu_hour > 0 ? "your rate" : r->tco->name,
                 r->usd_per_gpu_hour > 0 ? "" : " TCO", o->usd_per_gpu_hour);
        tbl_quantity(tb, "$ per 1M output tokens", o->usd_per_mtok, 4, "$/Mtok", o->cost_note[0] ? o->cost_note : b);
    }
    tbl_quantity(tb, "energy per output token", o->joules_per_token, 3, "J",
                 o->cost_note[0] ? o->cost_note : "utility side");
}

/* ---- the default layout (infer_layout_choose) ------------------------------------------- */

/* "TP 2", "TP 1 x PP 2", "attention-DP over EP 6" */
static void layout_name(char *buf, size_t cap, const gpuecon_infer_request *r, const infer_layout_eval *e)
{
    if (r->attention_dp && r->model->experts > 0 && e->tp > 1)
        snprintf(buf, cap, "attention-DP over EP %d", e->tp);
    else if (e->pp > 1)
        snprintf(buf, cap, "TP %d x PP %d", e->tp, e->pp);
    else
        snprintf(buf, cap, "TP %d", e->tp);
}

json_t *render_layout_choice_json(const gpuecon_infer_request *r, const infer_layout_choice *l)
{
    if (!l)
        return json_null();
    (void)r;
    json_t *j = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:o}", "chosen_by",
                          l->rate > 0 ? "most capacity among the layouts serving the rate"
                                      : "most output tokens/s per GPU",
                          "load", l->rate > 0 ? "rate" : l->concurrency > 0 ? "concurrency" : "saturation",
                          "layouts_evaluated",
                          l->evaluated, "tp", l->chosen.tp, "pp", l->chosen.pp, "replicas", l->chosen.replicas,
                          "output_tokens_per_s_per_gpu", rjson_real(l->chosen.output_tokens_per_s_per_gpu));
    json_object_set_new(j, "smallest", l->has_smallest
                                           ? json_pack("{s:i, s:i, s:i, s:o}", "tp", l->smallest.tp, "pp", l->smallest.pp,
                                                       "replicas", l->smallest.replicas,
                                                       "output_tokens_per_s_per_gpu",
                                                       rjson_real(l->smallest.output_tokens_per_s_per_gpu))
                                           : json_null());
    return j;
}

void render_layout_choice_text(strbuf *f, const gpuecon_infer_request *r, const infer_layout_choice *l)
{
    if (!l)
        return;
    char chosen[32], smallest[32], load[64], x[32];
    layout_name(chosen, sizeof chosen, r, &l->chosen);
    if (l->rate > 0)
        sb_printf(f, "layout: %s (%d replica%s), the most capacity (%s output tokens/s per GPU at saturation) of the "
                     "%d TP x PP layouts that serve %g requests/s", chosen, l->chosen.replicas,
                  l->chosen.replicas == 1 ? "" : "s",
                  fmt_num(x, sizeof x, l->chosen.metric, 1), l->evaluated, l->rate);
    else {
        if (l->concurrency > 0)
            snprintf(load, sizeof load, "at concurrency %s", fmt_num(x, sizeof x, l->concurrency, 0));
        else
            snprintf(load, sizeof load, "at saturation");
        sb_printf(f, "layout: %s (%d replica%s) serves %s output tokens/s per GPU %s, the most of the %d TP x PP "
                     "layouts that fit", chosen, l->chosen.replicas, l->chosen.replicas == 1 ? "" : "s",
                  fmt_num(x, sizeof x, l->chosen.output_tokens_per_s_per_gpu, 1), load, l->evaluated);
    }
    if (!l->chosen.meets)
        sb_printf(f, " (none meets the latency targets at the mean)");
    if (l->has_smallest && (l->smallest.tp != l->chosen.tp || l->smallest.pp != l->chosen.pp)) {
        layout_name(smallest, sizeof smallest, r, &l->smallest);
        sb_printf(f, "; the smallest that fits, %s (%d replica%s), %s %s", smallest, l->smallest.replicas,
                  l->smallest.replicas == 1 ? "" : "s",
                  l->rate > 0 ? "has" : "serves", fmt_num(x, sizeof x, l->rate > 0 ? l->smallest.metric
                                                                      : l->smallest.output_tokens_per_s_per_gpu, 1));
    }
    else if (!l->has_smallest && l->smallest_fits && l->rate > 0)
        sb_printf(f, "; the smallest that fits does not serve the rate");
    sb_printf(f, "; --tp/--pp fix the layout\n");
}

/* ---- one deployment ------------------------------------------------------------------ */

static json_t *infer_json(const void *view)
{
    const infer_view *v = view;
    json_t *j = result_json(v->request, v->result, v->bands);
    if (v->reason)
        json_object_set_new(j, "reason", json_string(v->reason));
    json_object_set_new(j, "layout_choice", render_layout_choice_json(v->request, v->layout));
    return j;
}

static tbl *infer_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const infer_view *v = view;
    tbl *tb = tbl_new(ctx, oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "note", 'l');
    memory_rows(tb, v->request, v->result);
    if (v->result->fits)
        perf_rows(tb, v->request, v->result, v->bands);
    return tb;
}

static void infer_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const infer_view *v = view;
    header(f, v->request, v->result);
    render_layout_choice_text(f, v->request, v->layout);
    tbl_print(tb, f);
}

const render_kind render_infer = {infer_json, infer_table, infer_text, NULL};

/* ---- --sweep ------------------------------------------------------------------------- */

static json_t *sweep_json(const void *view)
{
    const infer_sweep_view *v = view;
    json_t *j = result_json(v->request, v->result, v->at_bands), *arr = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(arr, point_json(&v->points[i], v->bands ? &v->bands[i] : NULL));
    json_object_set_new(j, "points", arr);
    json_object_set_new(j, "layout_choice", render_layout_choice_json(v->request, v->layout));
    return j;
}

static tbl *sweep_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const infer_sweep_view *v = view;
    const gpuecon_infer_point *p = v->points;
    tbl *tb = tbl_new(ctx, oom);
    const char *cols[] = {"concurrency", "per replica", "bound by", "step ms", "output tok/s",
                          "tok/s/GPU", "80% band", "TPOT ms", "80% band", "TTFT ms", "80% band", "$/Mtok"};
    for (size_t i = 0; i < 12; i++)
        if (v->bands || (i != 6 && i != 8 && i != 10))
            tbl_col(tb, cols[i], i == 2 ? 'l' : 'r');
    for (size_t i = 0; i < v->n; i++) {
        tbl_row(tb);
        tbl_num(tb, v->concurrency[i], 0);
        tbl_num(tb, p[i].batch, 1);
        tbl_str(tb, gpuecon_binding_name(p[i].binding));
        tbl_num(tb, p[i].step.step_s * 1e3, 2);
        tbl_num(tb, p[i].output_tokens_per_s, 0);
        tbl_num(tb, p[i].output_tokens_per_s_per_gpu, 1);
        if (v->bands)
            figband_cell(tb, &v->bands[i].tps, 1, 0);
        tbl_num(tb, p[i].tpot_ms, 1);
        if (v->bands)
            figband_cell(tb, &v->bands[i].tpot, 1, 1);
        tbl_num(tb, p[i].ttft_ms, 1);
        if (v->bands)
            figband_cell(tb, &v->bands[i].ttft, 1, 1);
        tbl_num(tb, p[i].usd_per_mtok, 4);
    }
    return tb;
}

static void sweep_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const infer_sweep_view *v = view;
    const gpuecon_infer_result *o = v->result;
    header(f, v->request, o);
    render_layout_choice_text(f, v->request, v->layout);
    tbl_print(tb, f);
    sb_printf(f, "\nKV capacity %.0f tokens per replica; saturation at %.0f requests (%.0f tok/s), "
               "knee at %.0f\n",
            o->kv_capacity_tokens, o->max_concurrency, o->saturated_tokens_per_s, o->c_knee);
    if (v->bands)
        figband_bases(f, v->bands, v->n);
}

const render_kind render_infer_sweep = {sweep_json, sweep_table, sweep_text, NULL};
