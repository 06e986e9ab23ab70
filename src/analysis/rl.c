/*
 * rl.c — one step of reinforcement-learning post-training (PPO/GRPO as veRL, NeMo-RL and
 * OpenRLHF run it; docs/model.md §8): generation (rl_gen.c), scoring forward passes in the
 * trainer's layout, training, the refit and, colocated, the hand-over of the GPUs between the
 * engine and the trainer (the engine's sleep and wake, the trainer's and the reference's swaps).
 *
 * Key choice: every phase reuses a model the library already has — the serving model for
 * rollouts, the training model (layout searched, stack applied) for the update, the link
 * efficiencies of the collectives for the weight push — and this file only composes them by
 * placement; rl_cost.c prices the step (gpuecon_run_cost: TCO, goodput and energy). The breakdown is GPU-time: a phase's
 * duration times the share of the job's GPUs running it, idle the rest, so it sums to the step
 * for colocated and disaggregated placements alike; pools[] keep the raw durations.
 */
#include "analysis/analysis.h"
#include "model/rl.h"
#include "model/train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0
#define RL_MAX_SPLITS 48
#define RL_COARSE_SPLITS 12
#define VLLM_DEFAULT_MEM_UTIL 0.90 /* vLLM gpu_memory_utilization default */

/* The colocated hand-over's measured rates (docs/model.md §8.5).
 * RL_PIN_GBPS: the host's rate of pinning fresh pages for an engine's level-1 sleep backup. vLLM's
 * CuMemAllocator.sleep allocates a new pinned CPU tensor for every weight allocation at each sleep
 * (vllm/device_allocator/cumem.py, `pin_memory=is_pin_memory_available()`), then copies into it.
 * Measured (vllm-project/vllm#48337, comment of 15 July 2026, A100): Qwen3-8B + LoRA, level-1 sleep
 * 10.57 s with a CPU backup of ~22 GiB (23.6 GB); less the copy at a lone A100's PCIe 4.0 x16
 * (31.5 GB/s x 0.8 = 25.2 GB/s: 0.94 s), 23.6 GB / 9.63 s = 2.45 GB/s. Assumption: the same
 * per-process rate on H100 and Grace hosts (page pinning is the kernel's work, not the link's).
 * RL_REFIT_GBPS: NeMo-RL's colocated refit streams the whole model through every worker (each policy
 * worker gathers the full parameters, packs them into CUDA-IPC buckets, the vLLM worker on the same
 * GPU loads its shard: NeMo-RL blog "Journey of Optimizing Weight Transfer in Large MoE Models by
 * 10x", 12 Aug 2025, "How Refit is Done"); measured for DeepSeek-V3 (671B, 1.342 TB in BF16) at
 * "~35 seconds with over 175 distinct IPC transfers" (NVIDIA-NeMo/RL#1267, review thread of
 * 18 Oct 2025): 1.342e12 B / 35 s = 38.3 GB/s per worker.
 * RL_ITER_GBPS: the part of that path a disaggregated (NCCL-broadcast) refit keeps — the trainer's
 * parameter gather and the generator's load, without the CUDA-IPC hand-over: the same blog's
 * Table 1 (DeepSeek-V3, training EP64 PP8, generation TP64): gather 12.2 s + update 1.5 s of the
 * 47.2 s total, 1.342e12 B / 13.7 s = 98 GB/s. */
#define RL_PIN_GBPS (23.6 / (10.57 - 23.6 / 25.2))
#define RL_REFIT_GBPS (1342.0 / 35.0)
#define RL_ITER_GBPS (1342.0 / (12.2 + 1.5))

const char *gpuecon_rl_placement_name(gpuecon_rl_placement p)
{
    return p == GPUECON_RL_DISAGGREGATED ? "disaggregated" : "colocated";
}

void gpuecon_rl_request_init(gpuecon_rl_request *r)
{
    memset(r, 0, sizeof *r);
    r->placement = GPUECON_RL_COLOCATED;
    r->response_cv = 0.6;
    r->gen_weights = r->kv = r->train_precision = GPUECON_BF16;
    r->offload = true;
    r->engine_sleep = 1;
    r->old_logprobs = true;
    r->epochs = r->minibatches = 1;
    r->serving = *gpuecon_serving_profile_find("generic");
    r->steps = 1000;
}

void rl_default_engine(const gpuecon_catalog *cat, gpuecon_rl_request *r)
{
    const gpuecon_stack *gen = gpuecon_catalog_stack(cat, GPUECON_RL_GEN_STACK);
    if (gen)
        gpuecon_serving_profile_from_stack(gen, &r->serving);
}

void rl_user_calibrations(const gpuecon_catalog *cat, const char *system, gpuecon_rl_request *r)
{
    r->train_calibration = gpuecon_catalog_calibration(cat, 0, r->stack ? r->stack->name : NULL, system,
                                                       (int)r->train_precision);
    gpuecon_calibration_apply_profile(gpuecon_catalog_calibration(cat, 2, gpuecon_serving_profile_label(&r->serving),
                                                                  system, (int)r->gen_weights),
                                      &r->serving);
}

static int check_request(const gpuecon_rl_request *r, gpuecon_error *err)
{
    int rc;
    if (!r || !r->policy || !r->system)
        return err_set(err, GPUECON_E_INPUT, OPTION("model"), 0, 0, "a policy model and a system are required");
    if (r->samples <= 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("samples"), 0, 0,
                       "%d: samples per prompt (the GRPO group) must be at least 1", r->samples);
    if (r->prompts <= 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("prompts"), 0, 0, "%d: prompts per step must be at least 1",
                       r->prompts);
    if ((rc = err_check_range(err, OPTION("gpus"), r->gpus, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("prompt_len"), r->prompt_len, 1, 1e8)) ||
        (rc = err_check_range(err, OPTION("response_len"), r->response_len, 1, 1e8)) ||
        (rc = err_check_range(err, OPTION("response_cv"), r->response_cv, 0, 10)) ||
        (rc = err_check_range(err, OPTION("oversample"), r->oversample, 0, 10)) ||
        (rc = err_check_range(err, OPTION("partial_rollouts"), r->partial_tokens, 0, 1e8)) ||
        (rc = err_check_range(err, OPTION("epochs"), r->epochs, 1, 100)) ||
        (rc = err_check_range(err, OPTION("minibatches"), r->minibatches, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("off_policy"), r->off_policy, 0, 1)) ||
        (rc = err_check_range(err, OPTION("engine_sleep"), r->engine_sleep, 1, 2)) ||
        (rc = err_check_range(err, OPTION("steps"), (double)r->steps, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("train_tp"), r->train_tp, 0, 1024)) ||
        (rc = err_check_range(err, OPTION("train_pp"), r->train_pp, 0, 1024)) ||
        (rc = err_check_range(err, OPTION("train_cp"), r->train_cp, 0, 1024)) ||
        (rc = err_check_range(err, OPTION("train_ep"), r->train_ep, 0, 1024)) ||
        (rc = err_check_range(err, OPTION("train_mbs"), r->train_mbs, 0, 1e6)))
        return rc;
    if ((double)r->prompts * r->samples > 1e7)
        return err_set(err, GPUECON_E_INPUT, OPTION("prompts"), 0, 0, "prompts x samples = %.0f; allowed up to 1e7",
                       (double)r->prompts * r->samples);
    long n = (long)r->prompts * r->samples;
    if (n % r->minibatches)
        return err_set(err, GPUECON_E_INPUT, OPTION("minibatches"), 0, 0,
                       "%d does not divide the %ld samples of a step (prompts x samples)", r->minibatches, n);
    if (r->placement == GPUECON_RL_COLOCATED && r->off_policy > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("off_policy"), 0, 0,
                       "an off-policy lag needs " OPTION("placement") " disaggregated: colocated GPUs cannot generate "
                       "while they train");
    if (!r->old_logprobs && (r->epochs > 1 || r->minibatches > 1))
        return err_set(err, GPUECON_E_INPUT, OPTION("old_logprobs"), 0, 0,
                       "off takes the importance ratio as 1, which holds only for one optimizer step per batch; "
                       "%d epochs x %d minibatches take several", r->epochs, r->minibatches);
    if (r->placement == GPUECON_RL_DISAGGREGATED && r->engine_sleep != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("engine_sleep"), 0, 0,
                       "%d needs " OPTION("placement") " colocated: a disaggregated engine never sleeps", r->engine_sleep);
    if (r->placement == GPUECON_RL_COLOCATED && r->gen_gpus > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_gpus"), 0, 0, "needs " OPTION("placement") " disaggregated");
    if (r->placement == GPUECON_RL_DISAGGREGATED && r->gpus < 2)
        return err_set(err, GPUECON_E_INPUT, OPTION("gpus"), 0, 0, "disaggregated placement needs at least 2 GPUs");
    if (r->gen_gpus < 0 || (r->gen_gpus > 0 && r->gen_gpus >= r->gpus))
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_gpus"), 0, 0,
                       "%d leaves no trainer GPUs; allowed 1 to %d (" OPTION("gpus") " minus one)", r->gen_gpus, r->gpus - 1);
    if (r->gen_attention_dp && !(r->policy->experts > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_attention_dp"), 0, 0,
                       "%s is dense: attention data-parallel spreads a MoE model's experts", r->policy->name);
    if (r->gen_attention_dp && r->gen_tp == 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_tp"), 0, 0,
                       "1 with " OPTION("gen_attention_dp") ": the experts need at least 2 GPUs to spread over");
    if (r->gen_weights == GPUECON_FP4 && gpuecon_gpu_peak_flops(r->system->gpu, GPUECON_FP4) <= 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_weights"), 0, 0, "%s has no FP4 tensor cores", r->system->gpu_name);
    if (gpuecon_gpu_peak_flops(r->system->gpu, r->train_precision) <= 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("train_precision"), 0, 0, "%s has no %s tensor cores",
                       r->system->gpu_name, gpuecon_precision_name(r->train_precision));
    if (r->placement == GPUECON_RL_COLOCATED && r->offload && !(r->system->host_link_gbps > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("offload"), 0, 0,
                       "%s has no host_link_gbps to offload the trainer over; use " OPTION("offload") " off", r->system->name);
    if (r->placement == GPUECON_RL_COLOCATED && r->engine_sleep == 1 && !(r->system->host_link_gbps > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("engine_sleep"), 0, 0,
                       "1 backs the engine's weights up in host memory, and %s has no host_link_gbps; use "
                       OPTION("engine_sleep") " 2", r->system->name);
    return GPUECON_OK;
}

/* ---- scoring: forward passes over every sequence (docs/model.md §8.3) ------------------ */

/* The MoE all-to-all of one forward pass over n sequences in the trainer's layout: each GPU runs
 * n/(DP·mbs) micro-batches through its moe_layers/PP MoE layers, each a dispatch and a combine
 * of the training model's one-dispatch time (§4.9; forward only, nothing to hide it behind). */
static double forward_a2a_s(const gpuecon_train_result *t, double n)
{
    const gpuecon_parallel *p = &t->par;
    if (t->moe.moe_layers <= 0 || !(t->moe.a2a_s > 0))
        return 0;
    return n / ((double)p->dp * p->mbs) * t->moe.moe_layers / p->pp * 2 * t->moe.a2a_s;
}

/* One forward-only pass over the step's samples through a training engine's own layout: the
 * forward share of the training step's compute and pipeline bubble (forward 1, backward 2, a full
 * recompute 1 more: 1/4 or 1/3), times the optimizer steps the samples fill, plus the MoE
 * all-to-all of forward_a2a_s. NeMo-RL computes the log-probs in its Megatron policy worker at
 * logprob_batch_size micro-batches through the same pipeline (megatron_policy_worker.py
 * get_logprobs; the DeepSeek-V3 and Qwen3 recipes set logprob_batch_size 1 = train_micro_batch_size). */
static double forward_pass_s(const gpuecon_train_result *t, double n, int minibatches)
{
    double share = t->par.recompute == GPUECON_RECOMPUTE_FULL ? 0.25 : 1.0 / 3;
    return minibatches * share * (t->bd.compute_s + t->bd.pp_bubble_s) + forward_a2a_s(t, n);
}

static void scoring(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, gpuecon_rl_result *o)
{
    /* the policy's own pass is skipped when its ratio is forced to 1 (--old-logprobs off) */
    const gpuecon_model *m[4] = {r->old_logprobs ? r->policy : NULL, r->reference, r->reward, r->critic};
    double seq = r->prompt_len + L->kept_mean, flops = 0, other = 0;
    o->scoring_models = 0;
    for (int i = 0; i < 4; i++) {
        if (!m[i])
            continue;
        o->scoring_models++;
        /* causal: a token of an s-token sequence attends to s/2 keys on average */
        double f = L->n * seq * gpuecon_infer_flops_per_token(m[i], seq / 2);
        flops += f;
        if (m[i] != r->policy && m[i] != r->critic)
            other += f; /* a separate reward model: no training layout to run it in */
    }
    double peak = gpuecon_gpu_peak_flops(r->system->gpu, r->train_precision) * gpuecon_system_clock(r->system);
    o->scoring_flops = flops;
    o->scoring_a2a_s = 0;
    o->scoring_s = other / (gpus * peak * r->serving.eta_c);
    for (int i = 0; i < 4; i++) /* the policy's layout serves the models that share it */
        if (m[i] == r->policy) {
            o->scoring_a2a_s += forward_a2a_s(&o->train, L->n);
            o->scoring_s += forward_pass_s(&o->train, L->n, r->minibatches);
        }
    if (r->critic) {
        o->scoring_a2a_s += forward_a2a_s(&o->critic_train, L->n);
        o->scoring_s += forward_pass_s(&o->critic_train, L->n, r->minibatches);
    }
}

/* ---- training (docs/model.md §8.4) ----------------------------------------------------- */

/* The policy trainer's fixed sizes (--train-tp ...): a train-request size error names them. */
static bool pinned(const gpuecon_rl_request *r)
{
    return r->train_tp || r->train_pp || r->train_cp || r->train_ep || r->train_mbs || r->train_full_recompute;
}

static int train_one(gpuecon_ctx *ctx, const gpuecon_rl_request *r, const gpuecon_model *m, bool policy, int gpus,
                     int seq, int gbs, gpuecon_train_result *t, gpuecon_error *err)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    if (r->stack)
        gpuecon_train_request_apply_stack(&q, r->stack);
    q.model = m;
    q.system = r->system;
    q.gpus = gpus;
    q.precision = r->train_precision;
    q.calibration = r->train_calibration; /* NULL: none */
    q.seq = seq;
    q.gbs = gbs;
    bool fixed = policy && pinned(r);
    if (fixed) { /* 0 stays "searched" */
        q.tp = r->train_tp ? r->train_tp : q.tp;
        q.pp = r->train_pp ? r->train_pp : q.pp;
        q.cp = r->train_cp ? r->train_cp : q.cp;
        q.ep = r->train_ep ? r->train_ep : q.ep;
        q.mbs = r->train_mbs ? r->train_mbs : q.mbs;
        if (r->train_full_recompute)
            q.recompute = GPUECON_RECOMPUTE_FULL;
    }
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_train_predict(ctx, &q, t, &e);
    if (rc == GPUECON_E_INPUT && fixed && !strncmp(e.where, OPTION_PREFIX, strlen(OPTION_PREFIX))) {
        /* the training option the trainer's own one came from (options.pp -> options.train_pp), so
           --train-pp 1024 is blamed on --train-pp, not --train-tp */
        static const char *const keys[] = {"tp", "pp", "cp", "ep", "mbs"};
        const char *k = e.where + strlen(OPTION_PREFIX);
        char where[48];
        snprintf(where, sizeof where, "%s", OPTION("train_tp"));
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!strcmp(k, keys[i]))
                snprintf(where, sizeof where, OPTION_PREFIX "train_%s", keys[i]);
        return err_set(err, GPUECON_E_INPUT, where, 0, 0, "the trainer layout on %d GPUs: %s", gpus, e.message);
    }
    if (rc == GPUECON_E_INFEASIBLE || rc == GPUECON_E_INPUT)
        return err_set(err, GPUECON_E_INFEASIBLE, OPTION("gpus"), 0, 0, "trainer pool of %d GPUs cannot train %s: %s",
                       gpus, m->name, e.message);
    if (rc && err)
        *err = e;
    return rc;
}

static int training(gpuecon_ctx *ctx, const gpuecon_rl_request *r, const rl_lengths *L, int gpus,
                    gpuecon_rl_result *o, gpuecon_error *err)
{
    o->train_seq = (int)ceil(r->prompt_len + L->kept_mean);
    /* a fixed CP (with TP's sequence parallelism) splits each sequence into 2·CP·TP equal chunks:
     * Megatron pads it up to that multiple (NeMo-RL pads packed sequences the same way) */
    int pad = r->train_cp > 1 ? 2 * r->train_cp * (r->train_tp > 1 ? r->train_tp : 1) : 1;
    o->train_seq = (o->train_seq + pad - 1) / pad * pad;
    o->train_gbs = (int)(L->n / r->minibatches);
    o->optimizer_steps = r->epochs * r->minibatches;
    int rc = train_one(ctx, r, r->policy, true, gpus, o->train_seq, o->train_gbs, &o->train, err);
    if (rc)
        return rc;
    o->training_s = o->optimizer_steps * o->train.step_time_s;
    memset(&o->critic_train, 0, sizeof o->critic_train);
    if (r->critic) {
        if ((rc = train_one(ctx, r, r->critic, false, gpus, o->train_seq, o->train_gbs, &o->critic_train, err)))
            return rc;
        o->training_s += o->optimizer_steps * o->critic_train.step_time_s;
    }
    return GPUECON_OK;
}

static double states_gib(const gpuecon_train_result *t)
{
    const gpuecon_train_memory *m = &t->mem;
    return m->weights_gib + m->grads_gib + m->optimizer_gib + m->fp8_copy_gib;
}

/* ---- weight sync (docs/model.md §8.5) -------------------------------------------------- */

/* Share of the policy's weights one trainer GPU holds in its layout. */
static double held_fraction(const gpuecon_model *m, const gpuecon_parallel *p)
{
    gpuecon_params pp;
    gpuecon_model_params(m, &pp);
    double exp = pp.routed_experts, dense = pp.total - exp;
    double ds = (double)p->tp * p->pp * (p->zero == 3 ? (double)p->dp * p->cp : 1);
    double es = (double)(p->ep > 0 ? p->ep : 1) * (p->etp > 0 ? p->etp : 1) * p->pp *
                (p->zero == 3 && p->edp > 0 ? p->edp : 1);
    return (dense / ds + exp / es) / pp.total;
}

/* Share of the policy's weights one generator GPU holds: 1/TP, or under attention-DP every
 * non-routed weight and its expert slots, ceil((E + R)/EP) of the E routed experts (1/EP where
 * EP divides E without redundant experts; docs/model.md §6.5 EP1). */
static double gen_fraction(const gpuecon_model *m, const gpuecon_infer_result *g)
{
    if (!g->attention_dp)
        return 1.0 / g->tp;
    gpuecon_params pp;
    gpuecon_model_params(m, &pp);
    double slots = g->experts > 0 && g->expert_slots > 0 ? (double)g->expert_slots / g->experts : 1.0 / g->ep;
    return (pp.total - pp.routed_experts + pp.routed_experts * slots) / pp.total;
}

static void weight_sync(const gpuecon_rl_request *r, gpuecon_rl_result *o)
{
    gpuecon_params pp;
    gpuecon_model_params(r->policy, &pp);
    o->sync_bytes = pp.total * (r->sync_fp8 ? 1.0 : 2.0);
    double h = held_fraction(r->policy, &o->train.par), need = gen_fraction(r->policy, &o->gen);
    gpuecon_link_model lm;
    gpuecon_link_model_for(r->system, &lm);
    bool up;
    if (r->placement == GPUECON_RL_COLOCATED) {
        /* each GPU gathers the part of its generator shard its trainer shard lacks, from the
         * 1/h GPUs that together hold one copy */
        o->sync_recv_bytes_per_gpu = o->sync_bytes * fmax(0, need - h);
        o->sync_send_bytes_per_gpu = o->sync_recv_bytes_per_gpu;
        up = 1.0 / h <= r->system->scaleup_gpus + 1e-9;
    } else {
        /* one trainer rank broadcasts the whole model to every generator worker, which keeps its
         * shard (NeMo-RL broadcast_weights_for_collective: packed_broadcast_producer, src 0;
         * OpenRLHF's broadcast to the vLLM engines the same): a pipelined NCCL broadcast, every
         * generator GPU receiving (and forwarding) all of it */
        o->sync_recv_bytes_per_gpu = o->sync_bytes;
        o->sync_send_bytes_per_gpu = o->sync_bytes;
        up = r->gpus <= r->system->scaleup_gpus;
    }
    o->sync_level = up ? GPUECON_LEVEL_SCALEUP : GPUECON_LEVEL_SCALEOUT;
    double b = up ? r->system->scaleup_gbps * lm.scaleup_eff : r->system->scaleout_gbps * lm.scaleout_eff;
    if (!up && r->placement == GPUECON_RL_DISAGGREGATED) {
        /* NCCL's broadcast runs one ring per channel, each through a different NIC, and the GPUs of
         * one NVLink domain forward to each other: a domain takes in the model once over all of
         * its GPUs' NICs */
        int d = r->system->scaleup_gpus > 0 ? r->system->scaleup_gpus : 1;
        b *= d < o->gen_gpus ? d : o->gen_gpus;
    }
    o->sync_gbps = b;
    double bytes = fmax(o->sync_recv_bytes_per_gpu, o->sync_send_bytes_per_gpu);
    o->weight_sync_s = bytes > 0 ? bytes / (b * 1e9) + lm.launch_s : 0;
    /* the software path every worker runs over the whole model: colocated, the gather and the
     * CUDA-IPC buckets (RL_REFIT_GBPS); broadcast, the gather and the load (RL_ITER_GBPS) */
    o->refit_s = o->sync_bytes / ((r->placement == GPUECON_RL_COLOCATED ? RL_REFIT_GBPS : RL_ITER_GBPS) * 1e9);
    o->weight_sync_s = fmax(o->weight_sync_s, o->refit_s);
}

/* ---- the colocated hand-over (docs/model.md §8.5) --------------------------------------- */

/* What a colocated step pays to hand the GPUs between the engine and the trainer, beyond the
 * refit: the trainer's states out and back (offload on), the reference policy's weights swapped
 * in for its log-probs and the policy's back (NeMo-RL megatron_policy_worker.py
 * use_reference_model: the model's state to host, the reference's in, the model's back: three
 * copies of the trainer's weight shard), and the engine's sleep and wake: level 1 backs its
 * weight shard up in fresh pinned host memory (pinning at RL_PIN_GBPS, then the copy) and copies
 * it back on wake; level 2 discards the weights (the refit rewrites them). The KV cache is
 * discarded at both levels (vllm-project/vllm#11743, LLM.sleep). Neither vLLM's sleep nor
 * SGLang's release needs a CUDA-graph recapture: the virtual addresses stay the same (vLLM blog,
 * 26 Oct 2025, "Sleep Mode"; sgl-project/sglang#2630). */
static void handover(const gpuecon_rl_request *r, double states_gib, gpuecon_rl_result *o)
{
    double link = r->system->host_link_gbps * 1e9;
    gpuecon_params pp;
    gpuecon_model_params(r->policy, &pp);
    o->trainer_swap_s = r->offload ? 2 * states_gib * GIB / link : 0; /* offload on needs the link */
    /* without a host link (a catalog system that gives none) the reference stays resident */
    o->reference_swap_s = r->reference == r->policy && link > 0 ? 3 * o->train.mem.weights_gib * GIB / link : 0;
    o->engine_weight_bytes_per_gpu = pp.total * gpuecon_precision_bytes(r->gen_weights) * gen_fraction(r->policy, &o->gen);
    double b = o->engine_weight_bytes_per_gpu;
    o->engine_sleep_s = r->engine_sleep == 1 ? b / (RL_PIN_GBPS * 1e9) + b / link : 0;
    o->engine_wake_s = r->engine_sleep == 1 ? b / link : 0;
    o->swap_bytes_per_gpu = (r->offload ? states_gib * GIB : 0) + (r->engine_sleep == 1 ? b : 0);
    o->swap_s = o->trainer_swap_s + o->reference_swap_s + o->engine_sleep_s + o->engine_wake_s;
}

/* ---- one placement at one split ------------------------------------------------------- */

static void assemble(const gpuecon_rl_request *r, const rl_lengths *L, gpuecon_rl_result *o)
{
    double A = o->generation_s, B = o->scoring_s + o->training_s, S = o->weight_sync_s, W = o->swap_s;
    gpuecon_rl_breakdown *bd = &o->bd;
    memset(bd, 0, sizeof *bd);
    memset(o->pools, 0, sizeof o->pools);
    if (r->placement == GPUECON_RL_COLOCATED) {
        o->step_time_s = A + B + S + W;
        *bd = (gpuecon_rl_breakdown){.generation_s = A, .scoring_s = o->scoring_s, .training_s = o->training_s,
                                     .weight_sync_s = S, .swap_s = W};
        o->npools = 1;
        o->pools[0] = (gpuecon_rl_pool){.role = "colocated", .gpus = r->gpus, .generation_s = A,
                                        .scoring_s = o->scoring_s, .training_s = o->training_s,
                                        .weight_sync_s = S, .swap_s = W, .busy_s = o->step_time_s};
    } else {
        o->step_time_s = (r->off_policy ? fmax(A, B) : A + B) + S;
        double g = (double)o->gen_gpus / r->gpus;
        bd->generation_s = g * A;
        bd->scoring_s = (1 - g) * o->scoring_s;
        bd->training_s = (1 - g) * o->training_s;
        bd->weight_sync_s = S;
        o->npools = 2;
        o->pools[0] = (gpuecon_rl_pool){.role = "generator", .gpus = o->gen_gpus, .generation_s = A,
                                        .weight_sync_s = S, .busy_s = A + S};
        o->pools[1] = (gpuecon_rl_pool){.role = "trainer", .gpus = o->train_gpus, .scoring_s = o->scoring_s,
                                        .training_s = o->training_s, .weight_sync_s = S, .busy_s = B + S};
    }
    bd->idle_s = fmax(0, o->step_time_s - (bd->generation_s + bd->scoring_s + bd->training_s +
                                           bd->weight_sync_s + bd->swap_s));
    for (int i = 0; i < o->npools; i++) {
        o->pools[i].idle_s = o->step_time_s - o->pools[i].busy_s;
        o->pools[i].utilisation = o->pools[i].busy_s / o->step_time_s;
    }
    o->generated_tokens = L->submitted * L->gen_mean;
    o->response_tokens = L->n * L->kept_mean;
    o->trained_tokens = L->n * (r->prompt_len + L->kept_mean);
    o->generated_tokens_per_s = o->generated_tokens / o->step_time_s;
    o->trained_tokens_per_s = o->trained_tokens / o->step_time_s;
}

static int eval_split(gpuecon_ctx *ctx, const gpuecon_rl_request *r, const rl_lengths *L, int gen_gpus,
                      gpuecon_rl_result *o, gpuecon_error *err)
{
    bool colo = r->placement == GPUECON_RL_COLOCATED;
    o->gen_gpus = colo ? r->gpus : gen_gpus;
    o->train_gpus = colo ? r->gpus : r->gpus - gen_gpus;
    int rc = training(ctx, r, L, o->train_gpus, o, err);
    if (rc)
        return rc;
    scoring(r, L, o->train_gpus, o);
    double mem_util = 0, states = states_gib(&o->train) + (r->critic ? states_gib(&o->critic_train) : 0);
    o->swap_bytes_per_gpu = o->swap_s = 0;
    if (colo && !r->offload) {
        mem_util = VLLM_DEFAULT_MEM_UTIL - states / r->system->gpu->hbm_gib;
        if (mem_util < 0.05)
            return err_set(err, GPUECON_E_INFEASIBLE, OPTION("offload"), 0, 0,
                           "the trainer's %.1f GiB of states leave the engine no memory on %.0f GiB GPUs; "
                           "use " OPTION("offload") " on", states, r->system->gpu->hbm_gib);
    }
    if ((rc = rl_generation(r, L, o->gen_gpus, mem_util, o, err)))
        return rc;
    if (colo)
        handover(r, states, o);
    weight_sync(r, o);
    assemble(r, L, o);
    return GPUECON_OK;
}

/* Evaluates the split of g generator GPUs into t and keeps it in o when it is the fastest so far.
 * Returns GPUECON_OK, or a status that ends the search (cancelled, out of memory). */
static int try_split(gpuecon_ctx *ctx, const gpuecon_rl_request *r, const rl_lengths *L, int g, gpuecon_rl_result *t,
                     gpuecon_rl_result *o, bool *found, gpuecon_error *last)
{
    gpuecon_error_clear(last);
    *t = *o;
    int e = eval_split(ctx, r, L, g, t, last), n = o->splits_evaluated + 1;
    o->splits_evaluated = n;
    if (e == GPUECON_E_CANCELED || e == GPUECON_E_NOMEM)
        return e;
    if (!e && (!*found || t->step_time_s < o->step_time_s)) {
        *o = *t;
        o->splits_evaluated = n;
        *found = true;
    }
    return GPUECON_OK;
}

/* Whole nodes for the generator: a coarse pass of at most RL_COARSE_SPLITS sizes, then every
 * node around the fastest (docs/model.md §8.6). */
static int search_split(gpuecon_ctx *ctx, const gpuecon_rl_request *r, const rl_lengths *L, gpuecon_rl_result *o,
                        gpuecon_error *err)
{
    int u = r->system->gpus_per_node > 0 ? r->system->gpus_per_node : 1;
    if (u >= r->gpus)
        u = 1;
    while ((r->gpus - 1) / u > RL_MAX_SPLITS)
        u *= 2;
    int sizes = (r->gpus - 1) / u, stride = (sizes + RL_COARSE_SPLITS - 1) / RL_COARSE_SPLITS;
    bool found = false;
    gpuecon_error last;
    gpuecon_error_clear(&last);
    err_set(&last, GPUECON_E_INFEASIBLE, OPTION("gpus"), 0, 0, "no split tried");
    o->splits_evaluated = 0;
    gpuecon_rl_result *t = ctx_alloc(ctx, sizeof *t);
    if (!t)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    int rc = GPUECON_OK;
    for (int i = 1; i <= sizes && !rc; i += stride)
        rc = try_split(ctx, r, L, i * u, t, o, &found, &last);
    if (!rc && found && stride > 1) {
        int best = o->gen_gpus / u;
        for (int i = best - stride + 1; i < best + stride && !rc; i++)
            if (i >= 1 && i <= sizes && i != best && (i - 1) % stride)
                rc = try_split(ctx, r, L, i * u, t, o, &found, &last);
    }
    ctx_free(ctx, t, sizeof *t);
    if (rc)
        return err_set(err, rc, last.where, 0, 0, "%s", last.message);
    if (!found)
        return err_set(err, GPUECON_E_INFEASIBLE, last.where, 0, 0,
                       "no split of %d GPUs in steps of %d gives both pools room (last: %s)", r->gpus, u,
                       last.message);
    return GPUECON_OK;
}

int rl_step(gpuecon_ctx *ctx, const gpuecon_rl_request *req, gpuecon_rl_result *out, gpuecon_error *err)
{
    if (!out || !ctx)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context and a result record are required");
    memset(out, 0, sizeof *out);
    rl_lengths L;
    int rc = check_request(req, err);
    if (rc || (rc = rl_lengths_compute(req, &L, err)))
        return rc;
    out->samples_submitted = L.submitted;
    out->response_end = L.end;
    out->response_capped = L.capped;
    out->max_response_len = L.cap;
    out->gen_mean_response = L.gen_mean;
    out->kept_mean_response = L.kept_mean;
    out->gen_requests = L.requests;
    out->carried_tokens = L.carried;
    out->splits_evaluated = 1;
    if (req->placement == GPUECON_RL_DISAGGREGATED && req->gen_gpus == 0)
        rc = search_split(ctx, req, &L, out, err);
    else
        rc = eval_split(ctx, req, &L, req->gen_gpus, out, err);
    if (rc == GPUECON_E_INFEASIBLE && req->placement == GPUECON_RL_DISAGGREGATED && req->gen_gpus > 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err ? err->message : "does not fit");
        return err_set(err, GPUECON_E_INPUT, OPTION("gen_gpus"), 0, 0, "%d generator + %d trainer GPUs: %s",
                       req->gen_gpus, req->gpus - req->gen_gpus, why);
    }
    if (rc)
        return rc;
    /* not costed: gpuecon_rl_predict (rl_cost.c) prices the step when it has a profile */
    out->costed = false;
    double nan = NAN;
    out->usd_per_gpu_hour = out->ettr = out->usd_per_step = out->usd_per_mtok_trained = nan;
    out->raw_usd_per_mtok_trained = out->mwh_per_step = out->mwh_per_mtok_trained = nan;
    out->run_days = out->run_usd = out->run_mwh = nan;
    return GPUECON_OK;
}
