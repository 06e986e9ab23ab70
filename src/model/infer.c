/*
 * infer.c — serving capacity, throughput, latency and cost of one deployment: a vLLM-like
 * engine (paged KV cache, continuous batching, chunked prefill) on N GPUs split into replicas
 * of TP GPUs (docs/model.md §6).
 *
 * Memory follows vLLM's own accounting (weights + profiled activations + CUDA graphs inside
 * gpu_memory_utilization, the rest is KV cache). Throughput is a steady-state mean field:
 * B = min(C/replicas, KV capacity, max_num_seqs, what the token budget carries) sequences per
 * replica, each step timed by
 * infer_step.c. Key choice: everything a concurrency point needs is computed once in
 * prepare(), so a sweep is a loop of cheap pure calls with no allocation.
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SHAREGPT_IN 230.0  /* vLLM PR #18566: 229,711 input tokens / 1,000 prompts */
#define SHAREGPT_OUT 203.0 /* ... 203,068 output tokens */
#define DRAFTER_BYTES 0.9e9 /* Gemma-4-31B MTP assistant (< 1 GB, NVIDIA forum), the default */

void gpuecon_infer_request_init(gpuecon_infer_request *r)
{
    memset(r, 0, sizeof *r);
    r->tp = 1;
    r->expert_parallel = true;
    r->weights = GPUECON_BF16;
    r->kv = GPUECON_BF16;
    r->prompt_len = SHAREGPT_IN;
    r->output_len = SHAREGPT_OUT;
    r->draft_gb = -1;
    r->lora_modules = GPUECON_LORA_ALL;
    r->max_loras = 1;
    r->profile = *gpuecon_serving_profile_at(0);
    r->engine = GPUECON_ENGINE_LEGACY;
    r->roofline = GPUECON_ROOFLINE_SPLIT;
    r->block_size = 16;
    r->activation_gib = -1;
    r->cuda_graph_gib = -1;
    r->redundant_experts = -1;
}

const char *gpuecon_binding_name(gpuecon_binding b)
{
    switch (b) {
    case GPUECON_BIND_OFFERED_LOAD: return "offered_load";
    case GPUECON_BIND_KV_CAPACITY: return "kv_capacity";
    case GPUECON_BIND_MAX_NUM_SEQS: return "max_num_seqs";
    case GPUECON_BIND_MAX_NUM_BATCHED_TOKENS: return "max_num_batched_tokens";
    }
    return "unknown";
}

/* ---- input checks ---------------------------------------------------------------------- */

static int check_profile(const gpuecon_serving_profile *p, gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, "profile eta_bw", p->eta_bw, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile eta_kv", p->eta_kv, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile eta_c", p->eta_c, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile eta_link_small", p->eta_link_small, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile eta_link_large", p->eta_link_large, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile step overhead", p->step_overhead_s, 0, 1)) ||
        (rc = err_check_range(err, "profile sequence overhead", p->seq_overhead_s, 0, 1)) ||
        (rc = err_check_range(err, "profile LoRA module time", p->lora_module_s, 0, 1)) ||
        (rc = err_check_range(err, "profile draft step time", p->draft_step_s, 0, 1)) ||
        (rc = err_check_range(err, "profile all-reduce latency", p->allreduce_latency_s, 0, 1)) ||
        (rc = err_check_range(err, "profile all-reduce latency", p->allreduce_latency_ampere_s, 0, 1)) ||
        (rc = err_check_range(err, "profile CUDA-graph memory", p->cuda_graph_gib, 0, 1024)))
        return rc;
    return GPUECON_OK;
}

static int check_lengths(const gpuecon_infer_request *r, gpuecon_error *err)
{
    const gpuecon_model *m = r->model;
    int rc;
    if ((rc = err_check_range(err, OPTION("prompt_len"), r->prompt_len, 1, 1e8)) ||
        (rc = err_check_range(err, OPTION("output_len"), r->output_len, 1, 1e8)))
        return rc;
    if (m->max_seq > 0 && r->prompt_len > m->max_seq)
        return err_set(err, GPUECON_E_INPUT, OPTION("prompt_len"), 0, 0,
                       "%s tokens is longer than %s's context of %d tokens", NUM_VAL(r->prompt_len),
                       m->name, m->max_seq);
    if (m->max_seq > 0 && r->prompt_len + r->output_len > m->max_seq)
        return err_set(err, GPUECON_E_INPUT, OPTION("output_len"), 0, 0,
                       "prompt %s + output %s tokens exceed %s's context of %d tokens", NUM_VAL(r->prompt_len),
                       NUM_VAL(r->output_len), m->name, m->max_seq);
    if (r->max_model_len > 0 && m->max_seq > 0 && r->max_model_len > m->max_seq)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_model_len"), 0, 0,
                       "%d is longer than %s's context of %d tokens", r->max_model_len, m->name,
                       m->max_seq);
    if (r->max_model_len > 0 && r->max_model_len < r->prompt_len + r->output_len)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_model_len"), 0, 0,
                       "%d is shorter than prompt + output (%s tokens)", r->max_model_len,
                       NUM_VAL(r->prompt_len + r->output_len));
    return GPUECON_OK;
}

/* Attention data-parallel applies to a MoE model over more than one GPU. */
static bool dp_on(const gpuecon_infer_request *r, int tp)
{
    return r->attention_dp && r->model->experts > 0 && tp > 1;
}

static int check_request(const gpuecon_infer_request *r, gpuecon_error *err)
{
    if (!r || !r->model || !r->system || !r->system->gpu)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system are required");
    int rc;
    if ((rc = err_check_range(err, OPTION("gpus"), r->gpus, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("tp"), r->tp, 0, 1e6)) ||
        (rc = err_check_range(err, OPTION("output_cv"), r->output_cv, 0, 10)) ||
        (rc = err_check_range(err, OPTION("prefix_hit"), r->prefix_hit, 0, 0.99)) ||
        (rc = err_check_range(err, OPTION("concurrency"), r->concurrency, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("draft"), r->draft_k, 0, 16)) ||
        (rc = err_check_range(err, OPTION("lora_rank"), r->lora_rank, 0, 4096)) ||
        (rc = err_check_range(err, OPTION("max_loras"), r->max_loras, 1, 1024)) ||
        (rc = err_check_range(err, OPTION("gpu_mem_util"), r->gpu_mem_util, 0, 1)) ||
        (rc = err_check_range(err, OPTION("max_num_batched_tokens"), r->max_num_batched_tokens, 0, 1e7)) ||
        (rc = err_check_range(err, OPTION("long_prefill_token_threshold"), r->long_prefill_token_threshold, 0, 1e7)) ||
        (rc = err_check_range(err, OPTION("max_num_seqs"), r->max_num_seqs, 0, 65536)) ||
        (rc = err_check_range(err, OPTION("max_model_len"), r->max_model_len, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("block_size"), r->block_size, 1, 1024)) ||
        (rc = err_check_range(err, OPTION("pue"), r->pue, 0, 3)))
        return rc;
    if (r->expert_imbalance != 0 && (rc = err_check_range(err, OPTION("expert_imbalance"), r->expert_imbalance, 1, 64)))
        return rc;
    if ((rc = err_check_range(err, OPTION("expert_load_cv"), r->expert_load_cv, 0, 10)))
        return rc;
    if (r->redundant_experts > 0 && r->model && r->model->experts == 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("redundant_experts"), 0, 0,
                       "%s is a dense model; redundant experts apply to mixture-of-experts models", r->model->name);
    if (r->redundant_experts > 0 && r->model && r->redundant_experts > r->model->experts)
        return err_set(err, GPUECON_E_INPUT, OPTION("redundant_experts"), 0, 0,
                       "%d is more than %s's %d routed experts; allowed 0 to %d (one replica per expert at most "
                       "on average)", r->redundant_experts, r->model->name, r->model->experts, r->model->experts);
    if (r->pue != 0 && r->pue < 1)
        return err_check_range(err, OPTION("pue"), r->pue, 1, 3);
    if (!(r->acceptance >= 0 && r->acceptance < 1))
        return err_set(err, GPUECON_E_INPUT, r->acceptance_is_rate ? OPTION("accept_rate") : OPTION("accept"), 0, 0,
                       "%s is outside [0, 1): an acceptance is a probability below 1", NUM_VAL(r->acceptance));
    if (r->draft_gb >= 0 && (rc = err_check_range(err, OPTION("draft_gb"), r->draft_gb, 0, 1e4)))
        return rc;
    if (r->weights != GPUECON_BF16 && r->weights != GPUECON_FP8 && r->weights != GPUECON_FP4)
        return err_set(err, GPUECON_E_INPUT, OPTION("weights"), 0, 0, "allowed: bf16, fp8, fp4");
    if (r->kv != GPUECON_BF16 && r->kv != GPUECON_FP8)
        return err_set(err, GPUECON_E_INPUT, OPTION("kv"), 0, 0, "%s KV cache is not modelled; allowed: bf16, fp8",
                       gpuecon_precision_name(r->kv));
    if (r->lora_rank > 0 && (r->lora_modules & GPUECON_LORA_ALL) == 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("lora_modules"), 0, 0,
                       "a LoRA adapter needs at least one of q, k, v, o, gate, up, down");
    if (r->activation_gib >= 0 && (rc = err_check_range(err, OPTION("activation_gib"), r->activation_gib, 0, 1e4)))
        return rc;
    if (r->cuda_graph_gib >= 0 && (rc = err_check_range(err, OPTION("cuda_graph_gib"), r->cuda_graph_gib, 0, 1e4)))
        return rc;
    if ((rc = check_profile(&r->profile, err)) || (rc = check_lengths(r, err)) || (rc = infer_pp_check(r, err)))
        return rc;
    if (r->tp > 0) {
        if (r->gpus % r->tp)
            return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0, "%d does not divide " OPTION("gpus") " %d", r->tp, r->gpus);
        if (dp_on(r, r->tp)) /* attention replicated per rank: no head split; the slots are checked in prepare */
            return GPUECON_OK;
        if (r->tp > r->system->scaleup_gpus && !r->tp_across_nodes)
            return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                           "%d exceeds %s's NVLink domain of %d GPUs; give " OPTION("tp_across_nodes") " to run its all-reduces "
                           "over the scale-out network, or add " OPTION("pp") " stages",
                           r->tp, r->system->name, r->system->scaleup_gpus);
        return infer_check_tp(r->model, r->tp, err);
    }
    return GPUECON_OK;
}

/* ---- memory and capacity (W1, A1, G1, K1, K5–K7, startup check) ------------------------ */

/* The precision the weight GEMMs run at: FP4 weights on FP4 tensor cores, FP8 W8A8; FP4
 * weight-only falls back to FP8 math, and a GPU without FP8 (A100) runs BF16 math on FP8
 * weights (Marlin). */
static gpuecon_precision math_precision(const gpuecon_gpu *g, gpuecon_precision w)
{
    if (w == GPUECON_FP4 && gpuecon_gpu_peak_flops(g, GPUECON_FP4) > 0)
        return GPUECON_FP4;
    if (w != GPUECON_BF16 && gpuecon_gpu_peak_flops(g, GPUECON_FP8) > 0)
        return GPUECON_FP8;
    return GPUECON_BF16;
}

/* E1: a profile fitted on one GPU generation and math precision (eta_c_arch, eta_c_prec) moves
 * to another by the ratio of the training model's large-GEMM fractions (src/model/calib.c),
 * the same per-generation, per-precision numbers the training predictions use; 1 without a
 * reference or where a fraction is missing. */
static double eta_scale(const gpuecon_serving_profile *p, const gpuecon_gpu *g, gpuecon_precision math,
                        gpuecon_precision ref_prec)
{
    if (!p->eta_c_arch)
        return 1;
    const gpuecon_gpu ref = {.arch = p->eta_c_arch};
    double to = train_gemm_eff(gpuecon_efficiency_for(g), math);
    double from = train_gemm_eff(gpuecon_efficiency_for(&ref), ref_prec);
    return to > 0 && from > 0 ? to / from : 1;
}

/* The same for the attention kernels, which are forwards: the BF16 GEMM fractions' ratio,
 * and an architecture whose forward attention is measured apart from its backward (Blackwell
 * Ultra's exponential unit, docs/model.md §3.3) runs them that much faster than the reference's. */
static double attn_scale(const gpuecon_serving_profile *p, const gpuecon_gpu *g)
{
    if (!p->eta_c_arch)
        return 1;
    const gpuecon_gpu ref = {.arch = p->eta_c_arch};
    const gpuecon_efficiency *to = gpuecon_efficiency_for(g), *from = gpuecon_efficiency_for(&ref);
    return eta_scale(p, g, GPUECON_BF16, GPUECON_BF16) * (train_attn_fwd_eff(to) / to->attn_flash) /
           (train_attn_fwd_eff(from) / from->attn_flash);
}

/* Drafter bytes: given, the model's own MTP modules, or the Gemma-4 assistant's 0.9 GB. */
static double drafter_bytes(const gpuecon_infer_request *r, const infer_arch *a, double b_w)
{
    if (r->draft_k <= 0 || !a->last) /* pipelined: the drafter sits with the LM head */
        return 0;
    if (r->draft_gb >= 0)
        return r->draft_gb * 1e9;
    return a->mtp > 0 ? a->mtp * b_w : DRAFTER_BYTES;
}

static void engine_defaults(const gpuecon_infer_request *r, gpuecon_infer_result *o)
{
    const gpuecon_gpu *g = r->system->gpu;
    bool big = g->hbm_gib >= 70 && strcmp(g->arch, "ampere") != 0; /* vLLM get_batch_defaults */
    o->max_num_batched_tokens = r->max_num_batched_tokens > 0 ? r->max_num_batched_tokens : big ? 8192 : 2048;
    o->max_num_seqs = r->max_num_seqs > 0 ? r->max_num_seqs : big ? 1024 : 256;
    o->gpu_mem_util = r->gpu_mem_util > 0 ? r->gpu_mem_util : r->engine == GPUECON_ENGINE_V021 ? 0.92 : 0.90;
    o->block_size = r->block_size;
}

static void memory(const gpuecon_infer_request *r, const infer_arch *a, gpuecon_infer_result *o)
{
    const gpuecon_model *m = r->model;
    double tp = o->tp, b_w = gpuecon_precision_bytes(r->weights);
    o->body_params = a->body;
    o->dup_v_params = a->dupv;
    o->embedding_params = a->emb_mem;
    o->lora_params = a->lora;
    o->hbm_gib = r->system->gpu->hbm_gib;
    o->requested_gib = o->gpu_mem_util * o->hbm_gib;
    double draft = drafter_bytes(r, a, b_w);
    o->draft_bytes = draft;
    bool own_mtp = r->draft_gb < 0 && a->mtp > 0;
    o->draft_gib = (own_mtp ? draft / tp : draft) / INFER_GIB;
    o->lora_gib = r->lora_rank > 0 ? r->max_loras * a->lora * 2 / tp / INFER_GIB : 0;
    o->vision_gib = a->vision * 2 / INFER_GIB; /* replicated on every TP rank */
    /* EP1: with experts spread, the busiest GPU holds ceil((E + R)/EP) expert slots of every MoE
       layer (a->routed / E each); sliced experts (TP) hold 1/TP of each */
    double routed = m->experts > 0 && o->expert_slots > 0 && (o->attention_dp || o->expert_parallel)
                        ? a->routed * o->expert_slots / m->experts
                        : a->routed / (o->attention_dp ? 1 : tp);
    if (o->attention_dp) /* attention, dense and shared weights on every GPU; experts over EP */
        o->weights_gib = ((a->body - a->routed + a->dupv) * b_w + routed * b_w + a->emb_mem * 2) /
                             INFER_GIB + o->vision_gib + o->lora_gib + o->draft_gib;
    else
        o->weights_gib = ((a->body - a->routed + a->dupv) * b_w / tp + routed * b_w + a->emb_mem * 2 / tp) /
                             INFER_GIB + o->vision_gib + o->lora_gib + o->draft_gib;
    if (r->activation_gib >= 0) {
        o->activation_gib = r->activation_gib;
    } else { /* A1 */
        double nbt = o->max_num_batched_tokens, smax = o->max_num_seqs;
        double logits = a->last ? smax * (m->vocab / tp) * 4 * 2 : 0; /* on the LM head's stage */
        double act = nbt * (2 * a->ffn_inner / tp + 4.0 * m->hidden) * 2 + logits;
        o->activation_gib = act / INFER_GIB + 0.5 + (a->vision > 0 ? 1.0 : 0);
    }
    if (r->cuda_graph_gib >= 0)
        o->cuda_graph_gib = r->cuda_graph_gib;
    else
        o->cuda_graph_gib = r->engine == GPUECON_ENGINE_V021 ? r->profile.cuda_graph_gib : 0;
    o->kv_avail_gib = o->requested_gib - o->weights_gib - o->activation_gib - o->cuda_graph_gib;
}

static int describe_shortfall(const gpuecon_infer_request *r, const gpuecon_infer_result *o, double need_b,
                              gpuecon_error *err)
{
    if (o->attention_dp) /* every rank holds the whole non-routed weights: only a wider EP (fewer slots) helps */
        return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                       "%s does not fit on %s with attention-DP over EP %d (%d expert slots per GPU): %.2f GB per GPU "
                       "short (%.2f x %.2f GiB usable; weights %.2f GiB, activations %.2f GiB, CUDA graphs %.2f GiB, "
                       "one %s-token request's KV %.3f GiB); try a larger " OPTION("tp") " (the EP group)%s",
                       r->model->name, r->system->name, o->ep, o->expert_slots, o->shortfall_gb, o->gpu_mem_util,
                       o->hbm_gib, o->weights_gib, o->activation_gib, o->cuda_graph_gib,
                       NUM_VAL(r->prompt_len + r->output_len),
                       need_b / INFER_GIB,
                       r->weights == GPUECON_BF16 ? " or " OPTION("weights") " fp8"
                       : r->weights == GPUECON_FP8 && gpuecon_gpu_peak_flops(r->system->gpu, GPUECON_FP4) > 0
                           ? " or " OPTION("weights") " fp4"
                           : "");
    int limit = r->gpus < r->system->scaleup_gpus ? r->gpus : r->system->scaleup_gpus;
    bool more_tp = false;
    for (int tp = o->tp + 1; tp <= limit && !more_tp; tp++)
        more_tp = r->gpus % tp == 0 && infer_check_tp(r->model, tp, NULL) == GPUECON_OK;
    bool more_gpus = !more_tp && r->gpus < r->system->scaleup_gpus;
    bool fp4 = gpuecon_gpu_peak_flops(r->system->gpu, GPUECON_FP4) > 0;
    char hint[160];
    snprintf(hint, sizeof hint, "; try %s%s%s",
             more_tp ? "a larger " OPTION("tp") : more_gpus ? "more GPUs per replica (" OPTION("gpus") " N " OPTION("tp") " N)"
                                                   : "a system with more memory per replica",
             r->weights == GPUECON_BF16 ? " or " OPTION("weights") " fp8" : "",
             r->weights == GPUECON_FP8 && fp4 ? " or " OPTION("weights") " fp4" : "");
    return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                   "%s does not fit on %s at TP %d: %.2f GB per GPU short (%.2f x %.2f GiB usable; "
                   "weights %.2f GiB, activations %.2f GiB, CUDA graphs %.2f GiB, one %s-token "
                   "request's KV %.3f GiB)%s",
                   r->model->name, r->system->name, o->tp, o->shortfall_gb, o->gpu_mem_util,
                   o->hbm_gib, o->weights_gib, o->activation_gib, o->cuda_graph_gib,
                   NUM_VAL(r->prompt_len + r->output_len), need_b / INFER_GIB, hint);
}

/* vLLM's startup check at the model's context; lowers max_model_len when it is the default. */
static int context_check(const gpuecon_infer_request *r, const infer_arch *a, gpuecon_infer_result *o,
                         gpuecon_error *err)
{
    double kv = o->kv_avail_gib * INFER_GIB, bs = o->block_size, nbt = o->max_num_batched_tokens;
    double ctx = r->model->max_seq > 0 ? r->model->max_seq : ceil(r->prompt_len + r->output_len);
    o->startup_need_gib = infer_startup_bytes(a, ctx, bs, nbt) / INFER_GIB;
    o->startup_ok = o->startup_need_gib <= o->kv_avail_gib;
    /* the largest max_model_len that passes: the need rises with it, so bisect */
    double lo = 0, hi = ctx;
    if (infer_startup_bytes(a, hi, bs, nbt) <= kv)
        lo = hi;
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (infer_startup_bytes(a, mid, bs, nbt) <= kv)
            lo = mid;
        else
            hi = mid;
    }
    o->max_model_len_fit = (int)lo;
    if (r->max_model_len > 0) {
        double need = infer_startup_bytes(a, r->max_model_len, bs, nbt);
        if (need > kv) {
            o->fits = false;
            o->shortfall_gb = (need - kv) / 1e9;
            return err_set(err, GPUECON_E_INFEASIBLE, OPTION("max_model_len"), 0, 0,
                           "%d needs %.2f GiB of KV cache per GPU and %.2f GiB are free, so vLLM "
                           "would refuse to start; the largest that fits is %d",
                           r->max_model_len, need / INFER_GIB, o->kv_avail_gib, o->max_model_len_fit);
        }
        o->max_model_len = r->max_model_len;
    } else if (o->startup_ok) {
        o->max_model_len = (int)ctx;
    } else {
        o->max_model_len = (int)(floor(o->max_model_len_fit / bs) * bs);
        o->max_model_len_lowered = true;
        double len = ceil(r->prompt_len + r->output_len);
        if (o->max_model_len < len) { /* the sliding layers' reserve alone does not fit */
            double need = infer_startup_bytes(a, len, bs, nbt);
            o->fits = false;
            o->shortfall_gb = (need - kv) / 1e9;
            return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                           "%s on %s at TP %d: vLLM would refuse to start even with max_model_len "
                           "%s: it needs %.2f GiB of KV cache per GPU, %.2f GiB are free (%.2f GB short)",
                           r->model->name, r->system->name, o->tp, NUM_VAL(len), need / INFER_GIB,
                           o->kv_avail_gib, o->shortfall_gb);
        }
    }
    return GPUECON_OK;
}

static void workload(const gpuecon_infer_request *r, gpuecon_infer_result *o)
{
    o->prompt_len = r->prompt_len;
    o->output_len = r->output_len;
    o->mean_context = r->prompt_len + r->output_len * (1 + r->output_cv * r->output_cv) / 2;
    if (r->draft_k <= 0) {
        o->expected_tokens = 1;
        o->alpha = 0;
    } else if (r->acceptance_is_rate) { /* SD2 */
        o->expected_tokens = 1 + r->draft_k * r->acceptance;
        o->alpha = gpuecon_spec_alpha_from_rate(r->acceptance, r->draft_k);
    } else { /* SD1 */
        o->alpha = r->acceptance;
        o->expected_tokens = gpuecon_spec_expected_tokens(r->acceptance, r->draft_k);
    }
}

/* A fraction scaled by a calibration, bounded as gpuecon_calibration_apply_profile bounds them. */
static double cal_frac(double x, double s)
{
    double y = x * s;
    return y > GPUECON_CAL_FRACTION_MAX ? GPUECON_CAL_FRACTION_MAX : y < GPUECON_CAL_FRACTION_MIN ? GPUECON_CAL_FRACTION_MIN : y;
}

/* AK1: the stack's attention kernel for this GPU generation (Hopper or Blackwell; another GPU, or a
 * bare profile: none) and head layout (MLA or MHA/GQA), and what it sets: the decode KV fraction of
 * HBM, the decode math fraction and rate (AK2; FP8 math on an FP8 KV cache where the kernel quantises
 * Q too) and the prefill curve (AK3). A user's calibration scales them as it scales the profile's. */
static void attn_kernel_env(const gpuecon_infer_request *r, infer_env *e)
{
    const gpuecon_gpu *g = r->system->gpu;
    const gpuecon_serving_profile *p = &r->profile;
    bool mla = r->model->attention == GPUECON_ATTN_MLA;
    int slot = -1;
    if (strcmp(g->arch, "hopper") == 0)
        slot = mla ? 2 : 0;
    else if (strcmp(g->arch, "blackwell") == 0)
        slot = mla ? 3 : 1;
    e->attn_kernel = slot >= 0 ? p->attn_kernels[slot] : GPUECON_AK_PROFILE;
    const gpuecon_attn_kernel_info *k = gpuecon_attn_kernel_get(e->attn_kernel);
    if (!k)
        k = gpuecon_attn_kernel_get(GPUECON_AK_PROFILE);
    double h = p->calibration ? gpuecon_calibration_scale(p->calibration, GPUECON_CAL_HBM) : 1;
    e->cal_gemm = p->calibration ? gpuecon_calibration_scale(p->calibration, GPUECON_CAL_GEMM) : 1;
    e->eta_kv = k->hbm > 0 ? cal_frac(k->hbm, h) : p->eta_kv;
    e->eta_attn_dec = k->tc > 0 ? cal_frac(k->tc, e->cal_gemm) : e->eta_attn;
    double f8 = gpuecon_gpu_peak_flops(g, GPUECON_FP8) * gpuecon_system_clock(r->system);
    e->f_attn_dec = k->fp8_math && r->kv == GPUECON_FP8 && f8 > 0 ? f8 : e->f16;
    e->prefill_curve = k->prefill;
}

static void build_env(const gpuecon_infer_request *r, const infer_arch *a, const gpuecon_infer_result *o,
                      infer_env *e)
{
    const gpuecon_gpu *g = r->system->gpu;
    memset(e, 0, offsetof(infer_env, stages)); /* the stages, built before, stay */
    e->a = a;
    e->prof = r->profile;
    e->roofline = r->roofline;
    e->bw = g->hbm_tbps * 1e12;
    gpuecon_precision math = math_precision(g, r->weights);
    /* tensor-core rates at the sustained clock the power limit allows (power.c); HBM keeps its rate */
    e->f_prec = gpuecon_gpu_peak_flops(g, math) * gpuecon_system_clock(r->system);
    e->f16 = gpuecon_gpu_peak_flops(g, GPUECON_BF16) * gpuecon_system_clock(r->system);
    e->eta_c = o->eta_c;
    e->eta_attn = o->eta_attn;
    attn_kernel_env(r, e);
    e->link_bps = r->system->scaleup_gbps * 1e9;
    e->ar_latency_s = strcmp(g->arch, "ampere") == 0 ? r->profile.allreduce_latency_ampere_s
                                                     : r->profile.allreduce_latency_s;
    e->b_w = gpuecon_precision_bytes(r->weights);
    e->tp = o->tp;
    e->ep = o->expert_parallel && !o->attention_dp ? o->tp : 1;
    e->dp = o->attention_dp ? o->ep : 1;
    e->imbalance = o->expert_imbalance;
    comm_link_init(&e->link, r->system, NULL);
    e->k = r->draft_k;
    e->E = o->expected_tokens;
    e->rho = r->prompt_len / r->output_len;
    e->hit = r->prefix_hit;
    e->l_in = r->prompt_len;
    e->nbar = o->mean_context;
    e->budget = o->max_num_batched_tokens;
    e->prefill_even = r->prefill_steps == GPUECON_PREFILL_EVEN;
    e->chunk_cap = r->long_prefill_token_threshold > 0 ? r->long_prefill_token_threshold : INFINITY;
    e->draft_read_bytes = r->draft_k > 0 ? o->draft_bytes + (double)r->model->vocab * r->model->hidden * 2 : 0;
    if (o->pp > 1)
        infer_pp_env(r, o, e);
}

/* Pipelined: memory stage by stage; the stage whose KV pool holds the fewest mean-length
 * sequences binds the replica (each stage keeps its own layers' KV of every sequence, vLLM and
 * TensorRT-LLM size one block pool for all), so its arch and memory figures become the
 * replica's. The parameter counts stay the whole model's. */
static void pp_memory(const gpuecon_infer_request *r, infer_arch *a, infer_env *e, gpuecon_infer_result *o)
{
    infer_arch st;
    infer_sums t;
    infer_sums_build(r->model, &t);
    gpuecon_infer_result best = *o;
    double best_key = INFINITY, body = 0, dupv = 0, lora = 0, draft = 0;
    int stage = 0;
    e->stages.n = 0;
    o->stage_layers_min = r->model->layers;
    o->stage_layers_max = 0;
    for (int s = 0; s < o->pp; s++) {
        infer_pp_stage(r, o, &t, s, &st);
        infer_pp_add_stage(e, &st, s);
        o->stage_layers_min = st.layers < o->stage_layers_min ? st.layers : o->stage_layers_min;
        o->stage_layers_max = st.layers > o->stage_layers_max ? st.layers : o->stage_layers_max;
        body += st.body;
        dupv += st.dupv;
        lora += st.lora;
        if (st.last)
            draft = drafter_bytes(r, &st, gpuecon_precision_bytes(r->weights));
        gpuecon_infer_result m = *o;
        memory(r, &st, &m);
        /* no room at all binds before any room (the most negative first) */
        double key = m.kv_avail_gib > 0 ? m.kv_avail_gib * INFER_GIB / infer_seq_bytes(&st, o->mean_context, o->block_size)
                                        : m.kv_avail_gib - 1e30;
        if (key < best_key) {
            best = m;
            best_key = key;
            *a = st;
            stage = s;
        }
    }
    int lo = o->stage_layers_min, hi = o->stage_layers_max;
    *o = best;
    o->stage_layers_min = lo;
    o->stage_layers_max = hi;
    o->pp_stage = stage;
    o->body_params = body; /* the whole model's: the stages' sums */
    o->dup_v_params = dupv;
    o->embedding_params = t.p.embedding + t.p.lm_head;
    o->lora_params = lora;
    o->draft_bytes = draft;
}

/* EP1–EP4 (docs/model.md §6.5): the expert slots of a layout whose experts spread over `ep` GPUs
 * (1: not spread), its redundant experts (the request's, or the fewest that make the slots even)
 * and the busiest rank's load factor with them and without (the request's factor where given). */
static int expert_layout(const gpuecon_infer_request *r, int ep, gpuecon_infer_result *o, gpuecon_error *err)
{
    const gpuecon_model *m = r->model;
    int E = m->experts;
    o->expert_imbalance = o->expert_imbalance_plain = 1;
    o->expert_slots = o->experts = E;
    if (E <= 0)
        return GPUECON_OK;
    if (ep <= 1) {
        if (r->redundant_experts > 0)
            return err_set(err, GPUECON_E_INPUT, OPTION("redundant_experts"), 0, 0,
                           "%d redundant experts need expert parallelism: experts spread over more than one GPU "
                           "(" OPTION("tp") " above 1 with " OPTION("ep") " on, or " OPTION("attention_dp") " on)",
                           r->redundant_experts);
        return GPUECON_OK;
    }
    int R = r->redundant_experts >= 0 ? r->redundant_experts : infer_redundant_default(E, ep);
    if (ep > 1024 || E + R > 1024)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                       "expert parallelism over %d GPUs with %d expert slots is beyond what is modelled (1024 at most)",
                       ep, E + R);
    if (E + R < ep)
        return err_set(err, GPUECON_E_INPUT, r->redundant_experts >= 0 ? OPTION("redundant_experts") : OPTION("tp"), 0, 0,
                       "%s's %d routed experts + %d redundant are fewer than the %d GPUs they spread over: a GPU would "
                       "hold no expert; give " OPTION("redundant_experts") " %d or more, or fewer GPUs",
                       m->name, E, R, ep, ep - E);
    o->redundant_experts = R;
    o->redundant_default = r->redundant_experts < 0 && R > 0;
    o->expert_slots = infer_expert_slots(E, R, ep);
    o->expert_imbalance_plain = infer_expert_imbalance(E, ep, 0, r->expert_load_cv);
    o->expert_imbalance_given = r->expert_imbalance > 0;
    o->expert_imbalance = o->expert_imbalance_given ? r->expert_imbalance
                                                    : infer_expert_imbalance(E, ep, R, r->expert_load_cv);
    return GPUECON_OK;
}

/* Everything but the concurrency point, at one TP degree. */
static int prepare(const gpuecon_infer_request *r, int tp, infer_arch *a, infer_env *e,
                   gpuecon_infer_result *o, gpuecon_error *err)
{
    memset(o, 0, sizeof *o);
    bool dp = dp_on(r, tp);
    int rc = dp ? GPUECON_OK : infer_check_tp(r->model, tp, err); /* attention-DP splits no heads */
    if (rc)
        return rc;
    o->gpus = r->gpus;
    o->attention_dp = dp;
    o->ep = dp ? tp : 1;
    o->tp = dp ? 1 : tp; /* attention-DP: each GPU a replica with its own scheduler */
    o->pp = r->pp > 1 ? r->pp : 1;
    o->stage_layers_min = o->stage_layers_max = r->model->layers;
    o->replicas = r->gpus / (o->tp * o->pp);
    o->expert_parallel = dp || (r->expert_parallel && r->model->experts > 0 && tp > 1);
    if ((rc = expert_layout(r, o->expert_parallel ? tp : 1, o, err)))
        return rc;
    engine_defaults(r, o);
    workload(r, o);
    if (o->pp > 1) {
        pp_memory(r, a, e, o);
    } else {
        infer_arch_build(r->model, o->tp, gpuecon_precision_bytes(r->kv), r->lora_rank, r->lora_modules, a);
        memory(r, a, o);
    }
    double bs = o->block_size, kv = o->kv_avail_gib * INFER_GIB;
    o->kv_bytes_per_token = a->kv_short;
    o->kv_bytes_per_token_long = a->kv_long;
    double need = infer_seq_bytes(a, r->prompt_len + r->output_len, bs);
    if (kv < need) {
        o->shortfall_gb = (need - kv) / 1e9;
        return describe_shortfall(r, o, need, err);
    }
    o->fits = true;
    if ((rc = context_check(r, a, o, err)))
        return rc;
    o->kv_capacity_tokens = kv / a->kv_short;
    o->kv_blocks = floor(kv / (bs * a->kv_short));
    o->seq_bytes = infer_seq_bytes(a, o->mean_context, bs);
    o->seqs_at_mean = kv / o->seq_bytes;
    o->seqs_at_full = kv / need;
    o->seqs_at_max_model_len = kv / infer_seq_bytes(a, o->max_model_len, bs);
    o->seqs_admitted = r->profile.kv_reserve ? o->seqs_at_full : o->seqs_at_mean; /* A2 */
    gpuecon_precision math = math_precision(r->system->gpu, r->weights);
    o->eta_c = r->profile.eta_c * eta_scale(&r->profile, r->system->gpu, math, r->profile.eta_c_prec);
    o->eta_attn = r->profile.eta_c * attn_scale(&r->profile, r->system->gpu);
    build_env(r, a, o, e);
    o->attn_kernel = e->attn_kernel;
    o->eta_kv = e->eta_kv;
    o->eta_attn_decode = e->eta_attn_dec * e->f_attn_dec / e->f16;
    o->attn_decode_fp8 = e->f_attn_dec != e->f16;
    o->seqs_budget = infer_budget_seqs(e, o->max_num_batched_tokens);
    o->max_concurrency = o->replicas * floor(infer_running_cap(o));
    return GPUECON_OK;
}

double infer_budget_seqs(const infer_env *e, double budget)
{
    return budget / (e->k + 1 + e->E * e->rho * (1 - e->hit));
}

double infer_running_cap(const gpuecon_infer_result *o)
{
    return fmin(fmin(o->seqs_admitted, o->max_num_seqs), o->seqs_budget);
}

/* ---- one concurrency point (X1–X4, L1–L3) ----------------------------------------------- */

static double replica_rate(const infer_env *e, double B)
{
    gpuecon_infer_step s;
    infer_step(e, B, 0, &s);
    return B * e->E / s.step_s;
}

/* The point's $/Mtok and J/token; when the cost model refuses its figures (a throughput below its
 * range, a derived TCO out of range) NaN, never a silent 0 (infer_cost_note says why). */
static void economics(const gpuecon_infer_request *r, const gpuecon_infer_result *o, gpuecon_infer_point *pt)
{
    if (!r->tco && !(r->usd_per_gpu_hour > 0))
        return;
    gpuecon_tco t;
    gpuecon_cost c;
    double pue = r->pue > 0 ? r->pue : r->system->pue;
    if (gpuecon_tco_price(r->tco, r->system, r->pue, r->usd_per_gpu_hour, &t, NULL) == GPUECON_OK &&
        gpuecon_cost_compute(t.usd_per_gpu_hour, r->system->it_w_per_gpu, pue,
                             pt->output_tokens_per_s_per_gpu, 0, &c, NULL) == GPUECON_OK) {
        pt->usd_per_mtok = c.usd_per_mtok;
        pt->joules_per_token = c.joules_per_token;
    } else {
        pt->usd_per_mtok = pt->joules_per_token = NAN;
    }
    (void)o;
}

/* Why the request's cost could not be had at its headline point: the cost model's own message. */
static void infer_cost_note(const gpuecon_infer_request *r, gpuecon_infer_result *o)
{
    o->cost_note[0] = '\0';
    if ((!r->tco && !(r->usd_per_gpu_hour > 0)) || !isnan(o->at.usd_per_mtok))
        return;
    gpuecon_tco t;
    gpuecon_cost c;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    double pue = r->pue > 0 ? r->pue : r->system->pue;
    if (gpuecon_tco_price(r->tco, r->system, r->pue, r->usd_per_gpu_hour, &t, &e) == GPUECON_OK)
        gpuecon_cost_compute(t.usd_per_gpu_hour, r->system->it_w_per_gpu, pue, o->at.output_tokens_per_s_per_gpu, 0,
                             &c, &e);
    snprintf(o->cost_note, sizeof o->cost_note, "not priced: %.50s%s%.120s", e.where + (strncmp(e.where, OPTION_PREFIX, strlen(OPTION_PREFIX)) ? 0 : strlen(OPTION_PREFIX)), e.where[0] ? ": " : "", e.message);
}

void infer_point(const gpuecon_infer_request *r, const infer_env *e, const gpuecon_infer_result *o,
                 double C, gpuecon_infer_point *pt)
{
    memset(pt, 0, sizeof *pt);
    double nrep = o->replicas, c_rep = C / nrep, smax = o->max_num_seqs, bkv = o->seqs_admitted;
    double bbt = o->seqs_budget, B = fmin(c_rep, infer_running_cap(o));
    pt->concurrency = C;
    pt->batch = B;
    if (bbt <= c_rep && bbt < bkv && bbt < smax) /* X4 */
        pt->binding = GPUECON_BIND_MAX_NUM_BATCHED_TOKENS;
    else if (bkv <= fmin(c_rep, smax))
        pt->binding = GPUECON_BIND_KV_CAPACITY;
    else if (smax < c_rep && smax < bkv)
        pt->binding = GPUECON_BIND_MAX_NUM_SEQS;
    else
        pt->binding = GPUECON_BIND_OFFERED_LOAD;
    double tp, td;
    infer_step_mix(e, B, 0, &pt->step, &pt->prompt_step_fraction, &pt->prompt_chunk_tokens, &tp, &td);
    pt->prompt_step_ms = tp * 1e3;
    pt->decode_step_ms = td * 1e3;
    double x_rep = B * e->E / pt->step.step_s;
    pt->output_tokens_per_s = nrep * x_rep;
    pt->output_tokens_per_s_per_gpu = pt->output_tokens_per_s / o->gpus;
    pt->total_tokens_per_s = pt->output_tokens_per_s * (1 + e->rho);
    pt->tpot_run_ms = pt->step.step_s / e->E * 1e3;
    pt->tpot_ms = pt->tpot_run_ms;
    if (pt->binding == GPUECON_BIND_KV_CAPACITY) /* L2: admitted requests share X_rep */
        pt->tpot_ms = fmax(pt->tpot_run_ms, fmin(c_rep, smax) / x_rep * 1e3);
    /* L3: the steps that carry this prompt's chunks beside the B − 1 other sequences (their
       decode and steady-state prefill; the chunk gets the budget their decode leaves), plus a
       Little's-law wait for a slot */
    double fresh = r->prompt_len * (1 - r->prefix_hit), others = fmax(0, B - 1);
    double chunk = fmin(fmin(fresh, e->chunk_cap), o->max_num_batched_tokens - others * (e->k + 1));
    if (chunk < o->block_size)
        chunk = fmin(fresh, o->block_size);
    double prefill = infer_prefill_s(e, others, fresh, r->prompt_len * r->prefix_hit, chunk);
    double queue = fmax(0, c_rep - B) * r->output_len / x_rep;
    if (pt->binding == GPUECON_BIND_MAX_NUM_BATCHED_TOKENS) /* L3b: the prompts in prefill are not */
        pt->ttft_ms = fmax(prefill, queue) * 1e3;           /* among the B decoding sequences */
    else
        pt->ttft_ms = (prefill + queue) * 1e3;
    economics(r, o, pt);
}

double infer_rate_c(const gpuecon_infer_request *r, const infer_env *e, const gpuecon_infer_result *o,
                    double need, double lo, gpuecon_infer_point *pt)
{
    double hi = fmax(o->replicas, o->max_concurrency);
    infer_point(r, e, o, hi, pt);
    if (pt->output_tokens_per_s < need)
        return -1;
    for (int i = 0; i < 40 && hi - lo > 1e-3 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        infer_point(r, e, o, mid, pt);
        if (pt->output_tokens_per_s >= need)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* X6: smallest B whose throughput is 90% of the saturated one. */
static void saturation(const infer_env *e, gpuecon_infer_result *o)
{
    double b_sat = infer_running_cap(o);
    double x_sat = replica_rate(e, b_sat);
    o->saturated_tokens_per_s = o->replicas * x_sat;
    o->c_knee = o->replicas * b_sat;
    for (int b = 1; b <= (int)ceil(b_sat); b++) {
        double bb = fmin(b, b_sat);
        if (replica_rate(e, bb) >= 0.9 * x_sat) {
            o->c_knee = o->replicas * bb;
            break;
        }
    }
    o->ttft0_ms = infer_ttft0_s(e, o->max_num_batched_tokens) * 1e3;
}

/* TP given, or the smallest divisor of the GPU count inside the NVLink domain that fits. */
static int resolve(const gpuecon_infer_request *r, infer_arch *a, infer_env *e, gpuecon_infer_result *o,
                   gpuecon_error *err)
{
    if (r->tp > 0)
        return prepare(r, r->tp, a, e, o, err);
    int rc = GPUECON_E_INPUT, limit = r->gpus < r->system->scaleup_gpus ? r->gpus : r->system->scaleup_gpus;
    bool any = false;
    int pp = r->pp > 1 ? r->pp : 1;
    for (int tp = 1; tp <= limit; tp++) {
        if (r->gpus % (tp * pp) || (!dp_on(r, tp) && infer_check_tp(r->model, tp, NULL) != 0))
            continue;
        any = true;
        rc = prepare(r, tp, a, e, o, err);
        if (rc != GPUECON_E_INFEASIBLE)
            return rc;
    }
    if (!any)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                       "no TP degree dividing %d GPUs (within %s's NVLink domain) splits %s's heads",
                       r->gpus, r->system->name, r->model->name);
    return rc;
}

int infer_prepare_core(const gpuecon_infer_request *req, infer_arch *a, infer_env *e, gpuecon_infer_result *out,
                       gpuecon_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_request(req, err);
    return rc ? rc : resolve(req, a, e, out, err);
}

int infer_prepare(const gpuecon_infer_request *req, infer_arch *a, infer_env *e, gpuecon_infer_result *out,
                  gpuecon_error *err)
{
    int rc = infer_prepare_core(req, a, e, out, err);
    if (!rc)
        saturation(e, out);
    return rc;
}

int gpuecon_infer(const gpuecon_infer_request *req, gpuecon_infer_result *out, gpuecon_error *err)
{
    if (!out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a result record is required");
    infer_arch a;
    infer_env e;
    int rc = infer_prepare(req, &a, &e, out, err);
    if (rc)
        return rc;
    double C = req->concurrency > 0 ? req->concurrency : out->replicas * infer_running_cap(out);
    infer_point(req, &e, out, C, &out->at);
    out->output_tokens_per_s = out->at.output_tokens_per_s;
    out->tpot_ms = out->at.tpot_ms;
    out->ttft_ms = out->at.ttft_ms;
    out->usd_per_mtok = out->at.usd_per_mtok;
    out->joules_per_token = out->at.joules_per_token;
    infer_cost_note(req, out);
    if (req->tco || req->usd_per_gpu_hour > 0) {
        gpuecon_tco t;
        if (gpuecon_tco_price(req->tco, req->system, req->pue, req->usd_per_gpu_hour, &t, NULL) == GPUECON_OK)
            out->usd_per_gpu_hour = t.usd_per_gpu_hour;
    }
    return GPUECON_OK;
}

int gpuecon_infer_sweep(const gpuecon_infer_request *req, const double *concurrency, size_t n,
                        gpuecon_infer_point *points, gpuecon_error *err)
{
    int rc = check_request(req, err);
    if (rc)
        return rc;
    if (n > 0 && (!concurrency || !points))
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "concurrency and points arrays are required");
    for (size_t i = 0; i < n; i++)
        if (!(concurrency[i] > 0) || concurrency[i] > 1e9)
            return err_set(err, GPUECON_E_INPUT, OPTION("concurrency"), 0, 0,
                           "%s is out of range; allowed above 0 up to 1B", NUM_VAL(concurrency[i]));
    infer_arch a;
    infer_env e;
    gpuecon_infer_result o;
    if ((rc = resolve(req, &a, &e, &o, err)))
        return rc;
    for (size_t i = 0; i < n; i++)
        infer_point(req, &e, &o, concurrency[i], &points[i]);
    return GPUECON_OK;
}

size_t gpuecon_infer_grid(const gpuecon_infer_result *r, double *out, size_t cap)
{
    size_t n = 0;
    if (!r || !out || r->replicas <= 0)
        return 0;
    double sat = r->replicas * infer_running_cap(r);
    for (double c = r->replicas; n < cap; c *= 2) {
        out[n++] = c;
        if (c >= 2 * sat)
            break;
    }
    return n;
}
