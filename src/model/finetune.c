/*
 * finetune.c — memory per GPU and speed of LoRA or full fine-tuning under DDP or FSDP, with or
 * without activation checkpointing (docs/model.md §6.9; VESSL AI's LoRA benchmark).
 *
 * The collectives are the training model's (comm.c). Memory follows the Hugging Face / PyTorch
 * FSDP conventions of the measured runs rather than Megatron's (memory.c): state bytes per
 * parameter (ZeRO, Rajbhandari et al. 2020 §3.1, with bf16 gradients; PEFT keeps adapters in
 * fp32), saved activations per layer (Korthikanti et al. 2022 §4.1 without dropout and with
 * flash attention), FLOPs per token (2 forward, 2 activation-gradient, 2 weight-gradient per
 * weight; Narayanan et al. 2021). Key choice: FSDP's
 * all-gathers are counted as exposed (not overlapped): that is what makes FSDP without
 * checkpointing land below the 1.5x the FLOP ratio alone would give (VESSL AI measured 1.33x).
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LOGIT_BYTES 6.0    /* bf16 logits + the fp32 copy the loss makes, per vocab entry */
#define DDP_BUCKET 26214400.0 /* PyTorch DDP bucket_cap_mb = 25 */
#define USABLE 0.95        /* of the HBM: CUDA context, allocator fragmentation */

void gpuecon_finetune_request_init(gpuecon_finetune_request *r)
{
    memset(r, 0, sizeof *r);
    r->gpus = 8;
    r->method = GPUECON_FT_LORA;
    r->lora_rank = 16;
    r->lora_alpha = 32;
    r->lora_modules = GPUECON_LORA_ALL;
    r->strategy = GPUECON_FT_FSDP;
    r->mbs = 2;
    r->seq = 2048;
    r->precision = GPUECON_BF16;
    r->vision = true;
    r->profile = *gpuecon_serving_profile_at(0);
}

static int check(const gpuecon_finetune_request *r, gpuecon_error *err)
{
    if (!r || !r->model || !r->system || !r->system->gpu)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system are required");
    int rc;
    if ((rc = err_check_range(err, OPTION("gpus"), r->gpus, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("mbs"), r->mbs, 1, 4096)) ||
        (rc = err_check_range(err, OPTION("seq"), r->seq, 1, 1e8)) ||
        (rc = err_check_range(err, OPTION("efficiency"), r->efficiency, 0, 1)) ||
        (rc = err_check_range(err, "profile eta_train", r->profile.eta_train, 1e-3, 1)) ||
        (rc = err_check_range(err, "profile eta_link_large", r->profile.eta_link_large, 1e-3, 1)) ||
        (rc = err_check_range(err, OPTION("pue"), r->pue, 0, 3)))
        return rc;
    if (r->method == GPUECON_FT_LORA &&
        ((rc = err_check_range(err, OPTION("lora_rank"), r->lora_rank, 1, 4096)) ||
         (rc = err_check_range(err, OPTION("lora_alpha"), r->lora_alpha, 1e-6, 1e6))))
        return rc;
    if (r->method == GPUECON_FT_LORA && (r->lora_modules & GPUECON_LORA_ALL) == 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("lora_modules"), 0, 0, "needs at least one projection");
    if (r->model->max_seq > 0 && r->seq > r->model->max_seq)
        return err_set(err, GPUECON_E_INPUT, OPTION("seq"), 0, 0, "%d is longer than %s's context of %d tokens",
                       r->seq, r->model->name, r->model->max_seq);
    if (r->precision != GPUECON_BF16 && r->precision != GPUECON_FP8)
        return err_set(err, GPUECON_E_INPUT, OPTION("precision"), 0, 0, "allowed: bf16, fp8");
    const gpuecon_stack *st = r->stack;
    if (st && st->workload != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("stack"), 0, 0,
                       "%s is a training stack (train, search, compare, rl); fine-tuning stacks: hf-peft-eager, "
                       "hf-peft-compile, te-fp8-compile", st->name);
    if (st && r->precision == GPUECON_FP8 && st->fp8_linear == FT_FP8_NONE)
        return err_set(err, GPUECON_E_INPUT, OPTION("precision"), 0, 0, "stack %s has no FP8 linears; use bf16",
                       st->name);
    if (r->precision == GPUECON_FP8 && gpuecon_gpu_peak_flops(r->system->gpu, GPUECON_FP8) <= 0) {
        if (st && st->precision == 1)
            return err_set(err, GPUECON_E_INPUT, OPTION("stack"), 0, 0,
                           "stack %s runs FP8 linears and %s has no FP8 tensor cores; use " OPTION("precision") " bf16 "
                           "or " OPTION("stack") " hf-peft-eager", st->name, r->system->gpu->name);
        return err_set(err, GPUECON_E_INPUT, OPTION("precision"), 0, 0, "%s has no FP8 tensor cores; use bf16",
                       r->system->gpu->name);
    }
    if (r->pue != 0 && r->pue < 1)
        return err_check_range(err, OPTION("pue"), r->pue, 1, 3);
    return GPUECON_OK;
}

/* ---- FT1, FT2: parameters and model states ------------------------------------------ */

/* Bytes per trainable parameter: weight, gradient, optimizer (Adam m and v, fp32 master). */
static void state_bytes(gpuecon_ft_method method, double *w, double *g, double *o)
{
    if (method == GPUECON_FT_LORA) { /* PEFT adapters in fp32: 4 + 4 + Adam 8 = 16 B */
        *w = 4, *g = 4, *o = 8;
    } else { /* mixed precision (ZeRO §3.1): bf16 weight 2 + bf16 grad 2 + fp32 master, m, v 12 */
        *w = 2, *g = 2, *o = 12;
    }
}

static void states(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    gpuecon_params p;
    gpuecon_model_params(r->model, &p);
    double vision = r->vision ? p.vision : 0;
    if (r->method == GPUECON_FT_LORA) {
        o->trainable_params = gpuecon_lora_params(r->model, r->lora_rank, r->lora_modules);
        o->frozen_params = p.total + vision;
    } else {
        o->trainable_params = p.total;
        o->frozen_params = vision;
    }
    double w, g, opt, shard = r->strategy == GPUECON_FT_FSDP ? r->gpus : 1;
    state_bytes(r->method, &w, &g, &opt);
    o->weights_gib = (o->frozen_params * 2 + o->trainable_params * w) / shard / INFER_GIB;
    o->grads_gib = o->trainable_params * g / shard / INFER_GIB;
    o->optimizer_gib = o->trainable_params * opt / shard / INFER_GIB;
    o->states_gib = o->weights_gib + o->grads_gib + o->optimizer_gib;
}

/* ---- FT3: activations --------------------------------------------------------------- */

/* bf16 values one layer saves per token for the backward pass: the inputs of both norms and
 * of every linear, Q, K, V, the attention output, the FFN's intermediate tensors, and the
 * LoRA shrink outputs (Korthikanti et al. 2022 without dropout masks; flash attention keeps
 * no s x s scores). */
static double layer_saved(const gpuecon_model *m, const gpuecon_layer *l, double lora_per_layer)
{
    double h = m->hidden, q, k, v;
    if (m->attention == GPUECON_ATTN_MLA) {
        q = k = (double)m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim);
        v = (double)m->heads * m->v_head_dim;
    } else {
        q = (double)m->heads * l->head_dim;
        k = (double)l->kv_heads * l->head_dim;
        v = l->k_eq_v ? 0 : k;
    }
    double attn = 2 * h + q + k + v + q;
    double mats = gpuecon_ffn_matrices(m->ffn), ffn;
    if (l->moe)
        ffn = 2 * h + m->top_k * (h + mats * m->expert_ffn_hidden) +
              (double)m->shared_experts * mats * m->shared_ffn_hidden;
    else
        ffn = 2 * h + mats * m->ffn_hidden;
    return attn + ffn + lora_per_layer;
}

static void activations(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    const gpuecon_model *m = r->model;
    double tokens = (double)r->mbs * r->seq, all = 0, widest = 0;
    int mods = r->method == GPUECON_FT_LORA ? infer_popcount7(r->lora_modules) : 0;
    double lora = (double)mods * (r->method == GPUECON_FT_LORA ? r->lora_rank : 0);
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        double s = layer_saved(m, &l, lora);
        all += s;
        widest = fmax(widest, s);
    }
    double saved = r->recompute ? m->layers * (double)m->hidden + widest : all;
    o->activations_gib = saved * tokens * 2 / INFER_GIB;
    o->logits_gib = tokens * m->vocab * LOGIT_BYTES / INFER_GIB;
    if (r->stack && r->precision == GPUECON_FP8) {
        gpuecon_params p;
        gpuecon_model_params(m, &p);
        o->fp8_copies_gib = finetune_fp8_copy_bytes(r, r->stack->fp8_linear, p.total) / INFER_GIB;
    }
}

/* FSDP keeps the root unit (embedding, LM head) unsharded through the step and gathers the
 * current and the prefetched layer; DDP keeps a copy of the gradients in its buckets. */
static void buffers(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    double w, g, opt;
    state_bytes(r->method, &w, &g, &opt);
    if (r->strategy == GPUECON_FT_DDP) {
        o->buffers_gib = o->trainable_params * g / INFER_GIB;
        return;
    }
    gpuecon_params p;
    gpuecon_model_params(r->model, &p);
    double root = p.embedding + p.lm_head;
    double layer = (p.total - root) / r->model->layers;
    o->buffers_gib = (root + 2 * layer) * 2 / INFER_GIB;
}

/* ---- FT4, FT5: FLOPs and time -------------------------------------------------------- */

static void flops(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    gpuecon_flops f;
    gpuecon_train_flops(r->model, r->seq, GPUECON_ATTN_COUNT_CAUSAL, false, &f);
    double P = f.matmul_params, a = f.attention / 3; /* a: attention forward FLOPs per token */
    if (r->method == GPUECON_FT_LORA) {
        double pl = o->trainable_params;
        o->model_flops_per_token = 4 * P + 3 * a + 6 * pl; /* no weight gradients of the base */
        o->flops_per_token = o->model_flops_per_token + (r->recompute ? 2 * P + a + 2 * pl : 0);
    } else {
        o->model_flops_per_token = 6 * P + 3 * a;
        o->flops_per_token = o->model_flops_per_token + (r->recompute ? 2 * P + a : 0);
    }
}

/* `calls` equal collectives moving `bytes` in all (nccl-tests sizes) over the job's GPUs, timed
 * by the training model's collective model (comm.c: the system's two-level topology). */
static double coll_s(const gpuecon_finetune_request *r, gpuecon_coll_op op, double bytes, double calls)
{
    if (r->gpus <= 1 || !(bytes > 0) || !(calls >= 1))
        return 0;
    gpuecon_coll_result c;
    gpuecon_error e;
    gpuecon_link_model lm; /* the system's, a user's calibration applied (none: as built in) */
    gpuecon_link_model_for(r->system, &lm);
    gpuecon_calibration_apply_link(r->calibration, &lm);
    if (gpuecon_collective_ex(r->system, &lm, op, r->gpus, 1, bytes / calls, GPUECON_ALGO_AUTO, &c, &e))
        return 0; /* unreachable: the request was checked; no communication rather than NaN */
    return calls * c.time_s;
}

/* The profile's training matmul efficiency, a user's GEMM scale applied within the fraction bounds
 * (calibration.c); an explicit --efficiency is the user's own and is not scaled. */
static double finetune_eta(const gpuecon_finetune_request *r)
{
    double s = gpuecon_calibration_scale(r->calibration, GPUECON_CAL_GEMM), x = r->profile.eta_train * s;
    if (s == 1.0)
        return r->profile.eta_train;
    return x > GPUECON_CAL_FRACTION_MAX ? GPUECON_CAL_FRACTION_MAX : x < GPUECON_CAL_FRACTION_MIN ? GPUECON_CAL_FRACTION_MIN : x;
}

static void timing(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    gpuecon_precision prec = r->precision;
    double peak = gpuecon_gpu_peak_flops(r->system->gpu, prec) * gpuecon_system_clock(r->system);
    double eta = r->efficiency > 0 ? r->efficiency : finetune_eta(r);
    double tokens = (double)r->mbs * r->seq, w, g, opt;
    state_bytes(r->method, &w, &g, &opt);
    o->tokens_per_step = tokens * r->gpus;
    if (r->stack) { /* the stack's kernels, each max(GPU time, host launch) (finetune_step.c) */
        const gpuecon_stack *st = r->stack;
        ft_stack_facts f = {.host_launch_s = st->host_launch_us * 1e-6 *
                                             gpuecon_calibration_scale(r->calibration, GPUECON_CAL_KERNEL),
                            .compiled = st->compiled,
                            .fp8_linear = st->fp8_linear, .norms_per_layer = r->model->norms_per_layer > 0
                                                                                 ? r->model->norms_per_layer : 2,
                            .qk_norm = r->model->qk_norm};
        ft_kernel_time k;
        finetune_kernels(r, &f, eta, &k);
        o->compute_s = k.time_s;
        o->kernels = k.kernels;
        o->host_bound_kernels = k.host_bound_kernels;
        o->host_s = k.host_s;
    } else {
        o->compute_s = tokens * o->flops_per_token / (peak * eta);
    }
    double L = r->model->layers, grads = o->trainable_params * g;
    if (r->strategy == GPUECON_FT_DDP) { /* buckets overlap the backward pass but the last */
        double t_ar = coll_s(r, GPUECON_ALL_REDUCE, grads, ceil(grads / DDP_BUCKET));
        double t_bwd = o->compute_s * 0.5;
        o->comm_s = fmax(0, t_ar - t_bwd) + coll_s(r, GPUECON_ALL_REDUCE, fmin(grads, DDP_BUCKET), 1);
    } else { /* all-gather in forward and again in backward, reduce-scatter of gradients */
        double params = (o->frozen_params + o->trainable_params) * 2;
        o->comm_s = 2 * coll_s(r, GPUECON_ALL_GATHER, params, L) + coll_s(r, GPUECON_REDUCE_SCATTER, grads, L);
    }
    o->step_s = o->compute_s + o->comm_s;
    o->tokens_per_s = o->tokens_per_step / o->step_s;
    o->tokens_per_s_per_gpu = o->tokens_per_s / r->gpus;
    o->mfu = gpuecon_mfu(o->tokens_per_s_per_gpu, o->model_flops_per_token,
                         gpuecon_gpu_peak_flops(r->system->gpu, GPUECON_BF16));
}

static void economics(const gpuecon_finetune_request *r, gpuecon_finetune_result *o)
{
    if (!r->tco && !(r->usd_per_gpu_hour > 0))
        return;
    gpuecon_tco t;
    gpuecon_cost c;
    double pue = r->pue > 0 ? r->pue : r->system->pue;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    if (gpuecon_tco_price(r->tco, r->system, r->pue, r->usd_per_gpu_hour, &t, &e) == GPUECON_OK &&
        gpuecon_cost_compute(t.usd_per_gpu_hour, r->system->it_w_per_gpu, pue, o->tokens_per_s_per_gpu, 0,
                             &c, &e) == GPUECON_OK) {
        o->usd_per_gpu_hour = t.usd_per_gpu_hour;
        o->usd_per_mtok = c.usd_per_mtok;
        o->joules_per_token = c.joules_per_token;
    } else { /* never a silent 0 (a tiny throughput once printed $0/Mtok) */
        o->usd_per_mtok = o->joules_per_token = NAN;
        snprintf(o->cost_note, sizeof o->cost_note, "not priced: %.50s%s%.120s", e.where + (strncmp(e.where, OPTION_PREFIX, strlen(OPTION_PREFIX)) ? 0 : strlen(OPTION_PREFIX)), e.where[0] ? ": " : "",
                 e.message);
    }
}

int gpuecon_finetune(const gpuecon_finetune_request *req, gpuecon_finetune_result *out, gpuecon_error *err)
{
    if (!out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a result record is required");
    memset(out, 0, sizeof *out);
    int rc = check(req, err);
    if (rc)
        return rc;
    states(req, out);
    activations(req, out);
    buffers(req, out);
    out->memory_gib_per_gpu =
        out->states_gib + out->activations_gib + out->logits_gib + out->buffers_gib + out->fp8_copies_gib;
    out->hbm_gib = req->system->gpu->hbm_gib;
    flops(req, out);
    timing(req, out);
    economics(req, out);
    double usable = USABLE * out->hbm_gib;
    out->fits = out->memory_gib_per_gpu <= usable;
    if (!out->fits) {
        out->shortfall_gb = (out->memory_gib_per_gpu - usable) * INFER_GIB / 1e9;
        return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                       "%s %s fine-tuning with %s%s at micro-batch %d x %d tokens needs %.1f GiB per "
                       "GPU, %.1f GiB usable on %s: %.2f GB short (states %.1f, activations %.1f, "
                       "logits %.1f, buffers %.1f, FP8 copies %.1f GiB)%s",
                       req->model->name, req->method == GPUECON_FT_LORA ? "LoRA" : "full",
                       req->strategy == GPUECON_FT_FSDP ? "FSDP" : "DDP",
                       req->recompute ? " + checkpointing" : "", req->mbs, req->seq,
                       out->memory_gib_per_gpu, usable, req->system->gpu->name, out->shortfall_gb,
                       out->states_gib, out->activations_gib, out->logits_gib, out->buffers_gib,
                       out->fp8_copies_gib, req->recompute ? "; try a smaller " OPTION("mbs") " or FSDP" : "; try " OPTION("recompute") " or a smaller " OPTION("mbs"));
    }
    return GPUECON_OK;
}
