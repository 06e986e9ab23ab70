/*
 * infer_step.c — the time of one engine step of one replica (docs/model.md §6.4):
 * a per-operator roofline (weights and KV reads against HBM bandwidth, GEMM and attention
 * FLOPs against the tensor peak; LLM-Viewer's method), TP all-reduces per layer (Vidur's
 * two per layer of tokens·H·2 B; NCCL's ring cost; experts spread over the TP group need no
 * more), the dispatch and combine of attention-DP MoE layers,
 * and the fixed per-step, per-sequence, LoRA and draft costs.
 *
 * Key choice: the step is a pure function of the batch B and an optional extra prefill chunk,
 * so throughput curves, TTFT and the knee search are all just calls of infer_step.
 *
 * Pipeline parallelism (docs/model.md §6.14, the second half of this file): a replica of TP x PP
 * GPUs whose layers are split over PP stages, each stage holding its layers' weights and KV
 * cache, with in-flight micro-batches keeping the stages busy as TensorRT-LLM's executor does
 * (tensorrt_llm/_torch/pyexecutor/py_executor.py @ 9521caf4: num_micro_batches = dist.pp_size in
 * _executor_loop_pp) and vLLM's (one scheduled batch per virtual engine). A pipelined step is
 * built from the plain step of each stage (infer_step_stage on the stage's own infer_arch), so
 * every term — roofline, TP all-reduces, EP all-to-alls, LoRA, drafts — comes from the same
 * functions as an unpipelined replica, and the simulator, the search and the disaggregated
 * model see pipelining through infer_step_batch alone.
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* NCCL's ring protocols on NVLink (NVIDIA/nccl src/graph/tuning.cc at 01afd20a: baseLat and
 * hwLat[NVLINK] of Ring in µs; LL moves 8-byte words carrying a 4-byte flag, busBw/4 for an
 * all-reduce; LL128 0.92 of Simple's). Latency = base + steps·hop. */
static const struct {
    double base_us, hop_us, bw_factor;
} nccl_ring[] = {{3.6, 0.47, 0.25}, {10.0, 1.9, 0.92}, {8.4, 3.4, 1.0}};

/* C1: the fastest protocol valid at this size, as NCCL's tuner picks one (min over
 * ncclTopoGetAlgoTime): vLLM's one-shot custom all-reduce (α_ar + S·f/(η_small·B), valid up
 * to link_small_bytes), else NCCL's ring in LL, LL128 or Simple at η_large·B. Each candidate
 * is affine in S and the set of valid ones only shrinks as S grows, so the time never falls
 * as a message grows. `steps` = NCCL's ring steps (2(n−1) all-reduce, n−1 all-to-all), `f`
 * the bus-bandwidth factor, `one_shot` whether the custom kernel applies. */
static double collective_s(const infer_env *e, double bytes, double steps, double f, bool one_shot)
{
    const gpuecon_serving_profile *p = &e->prof;
    double best = INFINITY;
    /* an engine stack's own one-shot limits by TP (vLLM custom_all_reduce.cuh: under 512 KiB up
     * to 4 GPUs, under 256 KiB up to 8; none above 8 GPUs) */
    double small = p->link_small_bytes;
    if (p->ar_one_shot_tp4_bytes > 0 || p->ar_one_shot_tp8_bytes > 0)
        small = e->tp <= 4 ? p->ar_one_shot_tp4_bytes : e->tp <= 8 ? p->ar_one_shot_tp8_bytes : 0;
    if (one_shot && bytes <= small)
        best = e->ar_latency_s + bytes * f / (p->eta_link_small * e->link_bps);
    for (size_t i = 0; i < sizeof nccl_ring / sizeof nccl_ring[0]; i++) {
        double lat = (nccl_ring[i].base_us + steps * nccl_ring[i].hop_us) * 1e-6;
        double t = lat + bytes * f / (nccl_ring[i].bw_factor * p->eta_link_large * e->link_bps);
        best = fmin(best, t);
    }
    return best;
}

double infer_allreduce_s(const infer_env *e, double bytes)
{
    if (e->tp <= 1)
        return 0;
    /* a replica over several domains: NCCL's hierarchical ring or tree (no link: one domain) */
    if (e->link.scaleup_gpus > 0 && e->tp > e->link.scaleup_gpus)
        return comm_time(&e->link, GPUECON_ALL_REDUCE, e->tp, 1, bytes);
    double tp = e->tp;
    return collective_s(e, bytes, 2 * (tp - 1), 2 * (tp - 1) / tp, true);
}

/* Attention-DP dispatch and combine (SGLang with DeepEP, the dispatcher of its DP-attention
 * MoE deployments): each rank sends its own tokens to the ranks holding their top-k experts,
 * deduplicated per destination GPU and scale-up domain (dispatch.c); FP8 with one scale per 128
 * values when the weights are 8-bit or less (DeepSeek-V3 report §3.3.3: dispatch in FP8, combine
 * in BF16), BF16 otherwise; the busiest rank carries `imbalance` times the mean. */
double infer_dp_dispatch_s(const infer_env *e, double tokens, bool dispatch)
{
    const gpuecon_model *m = e->a->m;
    if (e->dp <= 1 || tokens <= 0)
        return 0;
    gpuecon_dispatch_request q = {
        .dispatcher = GPUECON_DISPATCH_DEEPEP,
        .ep = e->dp,
        .stride = 1,
        .tokens = tokens,
        .top_k = m->top_k,
        .experts = m->experts,
        .groups = m->routing_groups,
        .groups_per_token = m->groups_per_token,
        .hidden = m->hidden,
        .bytes_per_elem = dispatch && e->b_w < 2 ? 1 + 4.0 / 128 : 2,
        .load_factor = e->imbalance,
    };
    gpuecon_dispatch_result r;
    return comm_dispatch(&e->link, &q, &r);
}

/* C2: communication of one step that processes `tokens` tokens. Attention-DP: a dispatch and a
 * combine per MoE layer. Otherwise two all-reduces of tokens·H bf16 values per layer, MoE layers
 * included when their experts are spread over the TP group (EP = TP, C3): attention's all-reduce
 * leaves every rank holding all tokens, each rank runs its local experts on the tokens routed to
 * them and the partial outputs are summed by one all-reduce, as for a row-parallel MLP
 * (vLLM FusedMoE.forward_impl: all-reduce when tp_size > 1 or ep_size > 1, no dispatch without
 * data parallelism; TensorRT-LLM Qwen3MoE: experts with reduce_results=False, then one
 * all-reduce). No all-to-all. */
static double comm_s(const infer_env *e, double tokens)
{
    if (e->dp > 1)
        return e->a->moe_layers * (infer_dp_dispatch_s(e, tokens, true) + infer_dp_dispatch_s(e, tokens, false));
    if (e->tp <= 1)
        return 0;
    return 2 * e->a->layers * infer_allreduce_s(e, tokens * e->a->m->hidden * 2);
}

/* Routed-expert parameters one GPU reads in a step of `tokens` tokens (M1 over the MoE layers;
 * attention-DP: the experts of this rank, 1/dp of them, see the tokens of all dp ranks). */
static double touched_params(const infer_env *e, double tokens)
{
    const infer_arch *a = e->a;
    if (a->moe_layers <= 0)
        return 0;
    /* O6: under an engine stack the layer waits for the expert-parallel rank that touches most */
    double f = infer_layer_ep_straggler(e, tokens);
    if (e->dp > 1)
        return f * a->moe_layers * gpuecon_moe_experts_touched(a->m, tokens * e->dp) * a->expert / e->dp;
    return f * a->moe_layers * gpuecon_moe_experts_touched(a->m, tokens) * a->expert;
}

/* R1 / M2: weight bytes one GPU streams in a step whose routed experts read `touched`
 * parameters (touched_params). */
static double weight_bytes(const infer_env *e, double touched)
{
    const infer_arch *a = e->a;
    double held = a->body - a->routed + a->dupv + touched;
    return (held * e->b_w + a->head * 2 + a->lora * 2) / e->tp;
}

/* Expert load imbalance: the busiest expert-parallel rank runs `imbalance` times the mean of
 * the routed-expert GEMMs (k experts of a->expert parameters per token and MoE layer), and the
 * layer waits for it. Nothing without expert parallelism (TP slices every expert evenly). */
static double routed_extra(const infer_env *e, double tokens)
{
    const infer_arch *a = e->a;
    if (e->imbalance <= 1 || (e->ep <= 1 && e->dp <= 1))
        return 0;
    return (e->imbalance - 1) * 2 * a->moe_layers * a->m->top_k * a->expert / e->tp * tokens;
}

/* R6 split: t_model = max(T_w − T_w,e, T_cg − T_cg,e) + max(T_w,e, T_cg,e) + max(T_kv, T_ca). The
 * routed experts are their own operators (grouped GEMMs over tokens·k/N_e rows per expert), so
 * their weight reads and their FLOPs meet a roofline of their own, apart from the attention and
 * dense GEMMs of the same step (LLM-Viewer's per-operator roofline). Without experts the first
 * two terms are max(T_w, T_cg). */
static double split_model_s(const infer_env *e, const gpuecon_infer_step *s, double tokens, double touched)
{
    const infer_arch *a = e->a;
    const gpuecon_serving_profile *p = &e->prof;
    double we = touched * e->b_w / e->tp / (e->bw * p->eta_bw);
    double ge = (2 * a->moe_layers * a->m->top_k * a->expert / e->tp * tokens + routed_extra(e, tokens)) /
                (e->f_prec * e->eta_c);
    /* O5: an engine stack's grouped GEMM reads the experts at its own fraction of HBM (§6.15) */
    double wm = p->eta_moe > 0 ? touched * e->b_w / e->tp / (e->bw * p->eta_moe) : we;
    return fmax(s->weights_s - we, s->gemm_s - ge) + fmax(wm, ge) + fmax(s->kv_s, s->attn_s);
}

static double lora_s(const infer_env *e)
{
    return e->a->lora > 0 ? e->a->layers * e->a->lora_modules * e->prof.lora_module_s : 0;
}

static double draft_s(const infer_env *e)
{
    if (e->k <= 0)
        return 0;
    return e->k * (e->prof.draft_step_s + e->draft_read_bytes / e->tp / (e->bw * e->prof.eta_bw));
}

/* AK3: the prefill attention fraction at an equivalent causal length S, under the calibration's
 * tensor-core scale. */
static double prefill_eff(const infer_env *e, double S)
{
    double x = gpuecon_attn_prefill_frac(S) * e->cal_gemm;
    return x > GPUECON_CAL_FRACTION_MAX ? GPUECON_CAL_FRACTION_MAX : x;
}

void infer_step_stage(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s)
{
    const infer_arch *a = e->a;
    const gpuecon_serving_profile *p = &e->prof;
    memset(s, 0, sizeof *s);
    double dec = b->dec, pre = b->pre, tok = dec + pre;
    s->decode_tokens = dec;
    s->prefill_tokens = pre;
    double touched = touched_params(e, tok); /* M1 once: its pow is the step's dearest call */
    s->weight_bytes = weight_bytes(e, touched);
    /* R2: the LM head runs only on the sampled positions */
    s->gemm_flops = 2 * (a->active + a->dupv + a->lora) / e->tp * tok + 2 * a->head / e->tp * dec +
                    routed_extra(e, tok);
    /* R3, R4: every decoding sequence verifies k + 1 positions against its own context; AK2, AK3:
       decode attention at its kernel's rate, prefill attention at the curve's by the keys each
       prompt token attends to (a causal run of S tokens averages (S + 1)/2) */
    double kv = 0, adec = 0, apre = 0, pre_s = 0;
    for (int i = 0; i < a->ngroups; i++) {
        const infer_group *g = &a->g[i];
        kv += g->kv_bytes * b->kv_ctx[i];
        adec += g->attn_decode * b->kv_ctx[i] * (e->k + 1);
        double f = g->attn_prefill * b->pre_ctx[i];
        apre += f;
        if (f > 0)
            pre_s += f / (e->prefill_curve ? e->f16 * prefill_eff(e, 2 * b->pre_ctx[i] / b->pre) : e->f16 * e->eta_attn);
    }
    s->kv_bytes = kv;
    s->attn_flops = adec + apre;
    /* R5 */
    s->weights_s = s->weight_bytes / (e->bw * p->eta_bw);
    s->gemm_s = s->gemm_flops / (e->f_prec * e->eta_c);
    s->kv_s = s->kv_bytes / (e->bw * e->eta_kv);
    s->attn_s = adec / (e->f_attn_dec * e->eta_attn_dec) + pre_s;
    /* R6 split / R7 fused */
    if (e->roofline == GPUECON_ROOFLINE_FUSED)
        s->model_s = fmax(s->weights_s + s->kv_s, s->gemm_s + s->attn_s);
    else
        s->model_s = split_model_s(e, s, tok, touched);
    /* O1–O3, C2, S1 */
    s->overhead_s = p->step_overhead_s + p->seq_overhead_s * b->seqs;
    s->lora_s = lora_s(e);
    s->comm_s = comm_s(e, tok);
    s->draft_s = b->dec > 0 ? draft_s(e) : 0;
    if (p->per_layer) { /* O4: t0 becomes the kernels per layer and the scheduler (§6.15) */
        double seq = p->seq_overhead_s * b->seqs;
        double gpu = s->model_s + seq + s->lora_s + s->comm_s + s->draft_s;
        s->overhead_s = seq + infer_layer_step(e, b, gpu, s);
    }
    s->step_s = s->model_s + s->overhead_s + s->lora_s + s->comm_s + s->draft_s + s->kernel_s;
}

void infer_step_batch(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s)
{
    if (e->pp > 1)
        infer_pp_step(e, b, s); /* below: the stages, each through infer_step_stage */
    else
        infer_step_stage(e, b, s);
}

/* T1 for a step of B running sequences beside `pre` prefill tokens, at half a prompt of context,
 * from `parts` prompts (PP8; 0: spread over every micro-batch) */
static void mean_step(const infer_env *e, double B, double pre, double parts, gpuecon_infer_step *s)
{
    infer_batch b;
    memset(&b, 0, sizeof b);
    b.seqs = B;
    b.dec = B * (e->k + 1);
    b.pre = pre;
    b.pre_parts = parts;
    for (int i = 0; i < e->a->ngroups; i++) {
        b.kv_ctx[i] = B * fmin(e->nbar, e->a->g[i].window);
        b.pre_ctx[i] = b.pre * fmin(e->l_in / 2, e->a->g[i].window);
    }
    infer_step_batch(e, &b, s);
}

/* s ← (1 − f)·s + f·t, field by field: every term of the step and its inputs is a mean over
 * the steps, so the parts still add up to step_s. */
static void blend(gpuecon_infer_step *s, const gpuecon_infer_step *t, double f)
{
    _Static_assert(sizeof(gpuecon_infer_step) == 23 * sizeof(double),
                   "blend() reads gpuecon_infer_step as its 23 doubles");
    double *x = (double *)s;
    const double *y = (const double *)t;
    for (size_t i = 0; i < sizeof *s / sizeof(double); i++)
        x[i] = (1 - f) * x[i] + f * y[i];
}

/* ADP1: attention-DP ranks each run their own scheduler but meet at every MoE layer's dispatch
 * and combine, so a step lasts as long as its slowest rank's (TensorRT-LLM tech blog 10, "ADP
 * Balance Strategy", docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md @ 011cfc2c:
 * time_i = max over the N ranks of time_{i,m}; a rank on a prompt chunk holds back the others'
 * decodes). Under T2 a rank carries a chunk in a fraction n < 1 of its steps; with the dp ranks'
 * prompts independent (the engine's default round-robin placement: no waiting to align them), a
 * step meets at least one chunk with probability 1 − (1 − n)^dp, and this rank, decoding only,
 * then waits the difference (t_prompt − t_decode). The wait adds (1 − (1 − n)^dp − n)·(t_prompt −
 * t_decode) to the mean step; this rank's own tokens and prefill are unchanged. n ≥ 1 (every
 * step carries prefill) and one rank: no wait. Non-decreasing in B: n grows with B and both
 * step kinds do. */
static void dp_wait(const infer_env *e, double n, double gap, gpuecon_infer_step *s)
{
    if (e->dp <= 1 || !(n > 0 && n < 1) || !(gap > 0))
        return;
    double any = 1 - pow(1 - n, e->dp);
    s->dp_wait_s = (any - n) * gap;
    s->step_s += s->dp_wait_s;
}

/* T1: B running sequences in the mean field: each decodes (k+1) positions against the mean
 * context n̄, and the steady-state prefill n̄_pre = B·E·ρ(1−h) rides along (plus `chunk`).
 * T2: a scheduler that fills its token budget greedily (vLLM's chunked prefill, TensorRT-LLM's
 * in-flight batching) does not spread that prefill evenly: a prompt is taken whole, or as much
 * of it as the budget left by the decode (and vLLM's long_prefill_token_threshold N_thr) allows,
 * q = min(L_in(1−h), N_thr, N_bt − B(k+1)/m), so with n = n̄_pre/q < 1 prompts a step, a
 * fraction n of the steps carry a chunk of q and the rest decode only. The mean step is
 * (1 − n)·t(B, 0) + n·t(B, q), not t(B, n̄_pre): a memory-bound
 * decode step cannot hide a compute-bound chunk it does not carry (max is convex). With n ≥ 1
 * every step carries prefill and T2 is T1. A pipelined replica (m micro-batches, each with B/m
 * sequences and a budget of its own) carries each chunk in one micro-batch (PP8): the other
 * m − 1 wait behind it at every stage, and with n ≥ 1 prompts a step n micro-batches carry
 * one (all m once n ≥ m: T1). */
void infer_step_mix(const infer_env *e, double B, double chunk, gpuecon_infer_step *s, double *n, double *c,
                    double *t_prompt, double *t_decode)
{
    *n = *c = *t_prompt = *t_decode = 0;
    double pre = B * e->E * e->rho * (1 - e->hit);
    double m = e->pp > 1 ? fmin(e->pp, fmax(1, B)) : 1;
    double q = fmin(fmin(e->l_in * (1 - e->hit), e->chunk_cap), e->budget - B * (e->k + 1) / m);
    if (e->prefill_even || chunk > 0 || pre <= 0 || q <= 0) {
        mean_step(e, B, pre + chunk, 0, s);
        return;
    }
    if (pre / q >= 1) {
        mean_step(e, B, pre, pre / q, s);
        return;
    }
    gpuecon_infer_step t;
    mean_step(e, B, 0, 0, s);
    mean_step(e, B, q, 1, &t);
    *n = pre / q;
    *c = q;
    *t_prompt = t.step_s;
    *t_decode = s->step_s;
    blend(s, &t, *n);
    dp_wait(e, *n, t.step_s - *t_decode, s);
}

void infer_step(const infer_env *e, double B, double chunk, gpuecon_infer_step *s)
{
    double n, c, tp, td;
    infer_step_mix(e, B, chunk, s, &n, &c, &tp, &td);
}

/* Σ_{j = s+1}^{s+n} min(j, w): keys the n prompt tokens after s earlier ones attend to in a
 * layer with window w (causal; additive over consecutive chunks). */
double infer_pairs(double s, double n, double w)
{
    double e = s + n;
    if (e <= w)
        return n * (s + e + 1) / 2;
    if (s >= w)
        return n * w;
    return (w - s) * (s + w + 1) / 2 + (e - w) * w;
}

/* L3: `span` steps (their mean) that each prefill `take` tokens of one prompt, the first of them
 * after `ctx` of its tokens, beside `others` running sequences of the mean field (T1: each
 * decodes k+1 positions against n̄ and brings its share E·ρ(1−h) of the steady-state prefill).
 * The prompt's attention pairs are averaged over the span: exact where the step time is linear
 * in them, as it is with nothing decoding beside (max(T_kv, T_ca) = T_ca). */
static double chunk_step_s(const infer_env *e, double others, double take, double ctx, double span)
{
    infer_batch b;
    memset(&b, 0, sizeof b);
    double steady = others * e->E * e->rho * (1 - e->hit);
    b.seqs = others + 1;
    b.dec = others * (e->k + 1);
    b.pre = steady + take;
    b.pre_parts = 1; /* one prompt: one micro-batch of a pipelined step (PP8) */
    for (int i = 0; i < e->a->ngroups; i++) {
        double w = e->a->g[i].window;
        b.kv_ctx[i] = others * fmin(e->nbar, w);
        b.pre_ctx[i] = steady * fmin(e->l_in / 2, w) + infer_pairs(ctx, take * span, w) / span;
    }
    gpuecon_infer_step s;
    infer_step_batch(e, &b, &s);
    return s.step_s;
}

double infer_prefill_s(const infer_env *e, double others, double fresh, double cached, double chunk)
{
    if (fresh <= 0)
        return 0;
    chunk = fmin(chunk, fresh);
    double n = ceil(fresh / chunk - 1e-9), full = n - 1, last = fresh - full * chunk;
    double t = chunk_step_s(e, others, last, cached + full * chunk, 1);
    if (full > 0)
        t += full * chunk_step_s(e, others, chunk, cached, full);
    return t;
}

double infer_ttft0_s(const infer_env *e, double budget)
{
    return infer_prefill_s(e, 0, e->l_in, 0, fmin(fmin(e->l_in, e->chunk_cap), budget));
}

/* ---- pipeline parallelism: the stages of one replica ---------------------------------------- */

int infer_pp_check(const gpuecon_infer_request *r, gpuecon_error *err)
{
    int pp = r->pp > 1 ? r->pp : 1, rc;
    if ((rc = err_check_range(err, OPTION("pp"), r->pp, 0, GPUECON_INFER_MAX_PP)))
        return rc;
    if (pp == 1)
        return GPUECON_OK;
    if (pp > r->model->layers)
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0, "%d stages exceed %s's %d layers; allowed 1 to %d",
                       pp, r->model->name, r->model->layers, r->model->layers);
    if (r->gpus % pp)
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0,
                       "%d does not divide " OPTION("gpus") " %d (a replica is TP x PP GPUs)", pp, r->gpus);
    if (r->tp > 0 && r->gpus % (r->tp * pp))
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0,
                       "TP %d x PP %d = %d GPUs per replica does not divide " OPTION("gpus") " %d", r->tp, pp, r->tp * pp,
                       r->gpus);
    if (r->attention_dp && r->model->experts > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0,
                       "pipeline stages with " OPTION("attention_dp") " are not modelled; use " OPTION("pp") " 1 or " OPTION("attention_dp") " off");
    return GPUECON_OK;
}

/* PP11: stage s holds the layers mem_stage_chunk gives it (the training model's split: the
 * remainder on the middle stages, as vLLM's get_pp_indices spreads it over all but the last). */
void infer_pp_stage(const gpuecon_infer_request *r, const gpuecon_infer_result *o, const infer_sums *t, int s,
                    infer_arch *a)
{
    int start, size;
    mem_stage_chunk(r->model->layers, o->pp, 1, s, &start, &size);
    infer_arch_build_range(r->model, t, o->tp, gpuecon_precision_bytes(r->kv), r->lora_rank, r->lora_modules,
                           start, start + size, s == 0, s == o->pp - 1, a);
}

static bool prop(double x, double y, double f)
{
    return fabs(x - f * y) <= 1e-12 * fmax(fabs(x), fabs(f * y));
}

/* Whether stage a is stage b with its layers scaled by f: every per-layer sum in proportion,
 * everything else (LM head, MTP, expert shape, windows) equal. Every term of a stage's step
 * (roofline, all-reduces, all-to-alls, LoRA) is a sum over its layers, so such a stage's step
 * is b's scaled by f (PP12). */
static bool scaled(const infer_arch *a, const infer_arch *b, double f)
{
    if (a->head != b->head || a->mtp != b->mtp || a->expert != b->expert || a->ffn_inner != b->ffn_inner ||
        a->lora_modules != b->lora_modules || a->last != b->last || a->ngroups != b->ngroups ||
        (long)a->moe_layers * b->layers != (long)b->moe_layers * a->layers)
        return false;
    if (!prop(a->attn, b->attn, f) || !prop(a->dense_ffn, b->dense_ffn, f) || !prop(a->shared, b->shared, f) ||
        !prop(a->router, b->router, f) || !prop(a->routed, b->routed, f) || !prop(a->body, b->body, f) ||
        !prop(a->active, b->active, f) || !prop(a->dupv, b->dupv, f) || !prop(a->lora, b->lora, f))
        return false;
    for (int i = 0; i < a->ngroups; i++)
        if (a->g[i].window != b->g[i].window || !prop(a->g[i].kv_bytes, b->g[i].kv_bytes, f) ||
            !prop(a->g[i].attn_decode, b->g[i].attn_decode, f) || !prop(a->g[i].attn_prefill, b->g[i].attn_prefill, f))
            return false;
    return true;
}

/* Stages are kept once per kind with a count; a kind whose layers are another's scaled (a
 * stage of 7 MoE layers beside stages of 8) reuses that kind's step, so a pipelined step costs
 * one stage step per distinct layer mix. */
void infer_pp_add_stage(infer_env *e, const infer_arch *a, int s)
{
    infer_arch *n = &e->stages.st[e->stages.n];
    *n = *a;
    n->emb_mem = 0;
    n->vision = 0;
    n->first = false;
    int k = 0;
    while (k < e->stages.n && memcmp(&e->stages.st[k], n, sizeof *n) != 0)
        k++;
    if (k == e->stages.n) {
        e->stages.first[k] = s;
        e->stages.count[k] = 0;
        e->stages.base[k] = k;
        e->stages.scale[k] = 1;
        for (int b = 0; b < k; b++)
            if (e->stages.base[b] == b && scaled(n, &e->stages.st[b], (double)n->layers / e->stages.st[b].layers)) {
                e->stages.base[k] = b;
                e->stages.scale[k] = (double)n->layers / e->stages.st[b].layers;
                break;
            }
        e->stages.n++;
    }
    e->stages.count[k]++;
}

/* PP2: stage s sits on GPUs [s·tp, (s+1)·tp) of its replica; the boundary after it stays on
 * NVLink when both stages lie in one scale-up domain, else it crosses the network. */
void infer_pp_env(const gpuecon_infer_request *r, const gpuecon_infer_result *o, infer_env *e)
{
    (void)r;
    e->pp = o->pp;
    e->bounds_up = e->bounds_out = 0;
    long S = e->link.scaleup_gpus > 0 ? e->link.scaleup_gpus : 1, tp = o->tp;
    for (long s = 0; s + 1 < o->pp; s++) {
        bool out = tp >= S || (s * tp) / S != ((s + 2) * tp - 1) / S;
        if (out)
            e->bounds_out++;
        else
            e->bounds_up++;
    }
}

/* PP3: one boundary's send for `tokens` tokens: vLLM's IntermediateTensors carry the hidden
 * states and the residual (llama.py @ e06c9ba2), H values each in 16 bits, every TP rank
 * sending its copy to its peer of the next stage (NCCL point-to-point, comm.c). */
static double send_s(const infer_env *e, double tokens, bool out)
{
    double bytes = tokens * e->a->m->hidden * 2 * 2;
    if (bytes <= 0)
        return 0;
    return comm_time(&e->link, GPUECON_SEND_RECV, 2, out ? e->link.scaleup_gpus : 1, bytes);
}

static void scale_batch(const infer_batch *b, double f, infer_batch *mb)
{
    *mb = *b;
    mb->seqs *= f;
    mb->dec *= f;
    mb->pre *= f;
    for (int i = 0; i < INFER_MAX_GROUPS; i++) {
        mb->kv_ctx[i] *= f;
        mb->pre_ctx[i] *= f;
    }
}

static void add_terms(gpuecon_infer_step *s, const gpuecon_infer_step *t, double n, bool draft)
{
    s->weight_bytes += n * t->weight_bytes;
    s->kv_bytes += n * t->kv_bytes;
    s->gemm_flops += n * t->gemm_flops;
    s->attn_flops += n * t->attn_flops;
    s->weights_s += n * t->weights_s;
    s->gemm_s += n * t->gemm_s;
    s->kv_s += n * t->kv_s;
    s->attn_s += n * t->attn_s;
    s->model_s += n * t->model_s;
    s->lora_s += n * t->lora_s;
    s->comm_s += n * t->comm_s;
    s->kernel_s += n * t->kernel_s;
    s->kernels += n * t->kernels;
    if (draft)
        s->draft_s += n * t->draft_s;
}

/* PP4-PP7: m = min(PP, sequences) micro-batches of b/m decoding sequences each circulate through
 * the stages. One pass (a token of one micro-batch) takes the host's step overhead, every stage's
 * time and every boundary's send; each stage serves all m micro-batches in turn, so a micro-batch
 * comes round every max(pass, the busiest stage's work for all m, its sends included) — a closed
 * cycle of m jobs over PP deterministic servers. Below PP micro-batches the stages idle (the
 * bubble); at PP or more the busiest stage sets the rate. PP8: a prompt's chunk rides in one
 * micro-batch, as a scheduler puts a request into one, so the prefill of `pre_parts` prompts
 * fills h = min(m, pre_parts) micro-batches (the heavy ones, whose pass the terms of *s
 * describe) and the other m − h carry only their share of the decodes; pre_parts 0 spreads it
 * over all m (the mean field, whose micro-batches each bring their own chunk: T1, T2's steps
 * with a chunk). A step of prefill alone (no sequences) is one micro-batch.
 * The host's work for a micro-batch runs beside the stages, or (profile pp_host_serial,
 * TensorRT-LLM's PP executor loop, PP7) after each stage's GPU work, over every running sequence. */
void infer_pp_step(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s)
{
    memset(s, 0, sizeof *s);
    double m = fmin(e->pp, fmax(1, b->seqs));
    /* PP8: h micro-batches carry the prefill (one per prompt, at most m), the other m − h
       only their share of the decodes */
    double h = b->pre > 0 && b->pre_parts > 0 ? fmin(m, b->pre_parts) : m;
    infer_batch light, heavy;
    scale_batch(b, 1 / m, &heavy);
    light = heavy;
    if (h < m) {
        light.pre = 0;
        heavy.pre = b->pre / h;
        for (int i = 0; i < INFER_MAX_GROUPS; i++) {
            light.pre_ctx[i] = 0;
            heavy.pre_ctx[i] = b->pre_ctx[i] / h;
        }
    }
    infer_env se;
    memcpy(&se, e, offsetof(infer_env, stages));
    se.pp = 1;
    gpuecon_infer_step th[GPUECON_INFER_MAX_PP], tl[GPUECON_INFER_MAX_PP];
    double busiest = 0, overhead = 0;
    for (int k = 0; k < e->stages.n; k++) {
        int base = e->stages.base[k];
        double f = e->stages.scale[k];
        if (base == k) {
            se.a = &e->stages.st[k];
            infer_step_stage(&se, &heavy, &th[k]);
            if (h < m)
                infer_step_stage(&se, &light, &tl[k]);
            else
                tl[k] = th[k];
        }
        const gpuecon_infer_step *hv = &th[base], *lt = &tl[base];
        bool last = e->stages.st[k].last;
        double gh = f * (hv->step_s - hv->overhead_s - (last ? 0 : hv->draft_s));
        double gl = f * (lt->step_s - lt->overhead_s - (last ? 0 : lt->draft_s));
        add_terms(s, hv, e->stages.count[k] * f, last);
        busiest = fmax(busiest, h * gh + (m - h) * gl); /* the stage's work for all m micro-batches */
        overhead = hv->overhead_s;
    }
    double toh = heavy.dec + heavy.pre, tol = light.dec + light.pre;
    double uph = e->bounds_up ? send_s(e, toh, false) : 0, outh = e->bounds_out ? send_s(e, toh, true) : 0;
    double upl = e->bounds_up ? send_s(e, tol, false) : 0, outl = e->bounds_out ? send_s(e, tol, true) : 0;
    s->decode_tokens = b->dec;
    s->prefill_tokens = b->pre;
    /* PP7: with pp_host_serial the host's per-sequence work covers every running sequence at
     * each micro-batch, and it runs after the stage's GPU work instead of beside it */
    bool serial = e->prof.pp_host_serial;
    double host = overhead + (serial ? e->prof.seq_overhead_s * (b->seqs - heavy.seqs) : 0);
    s->overhead_s = host;
    s->p2p_s = e->bounds_up * uph + e->bounds_out * outh;
    s->stage_max_s = (busiest + h * fmax(uph, outh) + (m - h) * fmax(upl, outl)) / m; /* per micro-batch */
    s->micro_batches = m;
    double pass = host + s->model_s + s->lora_s + s->comm_s + s->draft_s + s->kernel_s + s->p2p_s;
    s->step_s = fmax(pass, m * (serial ? s->stage_max_s + host : fmax(s->stage_max_s, host)));
    s->pp_wait_s = s->step_s - pass;
}
