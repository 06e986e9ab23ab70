/*
 * infer_arch.c — the model arithmetic of serving: parameters by role (P1), KV bytes per token
 * with vLLM's KV-head replication and sliding windows (K2–K4), LoRA adapter size (LR1), MoE
 * expert coverage (M1), speculative-decoding closed forms (SD1, SD2, SD5), and the serving
 * efficiency profiles (docs/model.md §6.7).
 *
 * Key choice: layers are folded into a few groups by attention window, so every per-step sum
 * over layers (KV bytes, KV reads, attention FLOPs) is a loop over at most INFER_MAX_GROUPS
 * entries and nothing is allocated.
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <string.h>

/* ---- serving profiles ----------------------------------------- */

static const gpuecon_serving_profile profiles[] = {
#define PROFILE_COMMON                                                                                   \
    .eta_bw = 0.80, .step_overhead_s = 1.5e-3, .seq_overhead_s = 4e-6, .lora_module_s = 5e-6,            \
    .eta_link_small = 0.15, .eta_link_large = 0.80, .link_small_bytes = 1048576.0,                       \
    .allreduce_latency_s = 10e-6, .allreduce_latency_ampere_s = 12e-6, .cuda_graph_gib = 0.5
    {PROFILE_COMMON, .name = "generic", .eta_kv = 0.50, .eta_c = 0.40, .draft_step_s = 0.5e-3, .eta_train = 0.40,
     .note = "engineering estimates (docs/model.md §6.7) for engines on FlashAttention/FlashInfer; "
             "eta_train 0.40 is an assumption (typical bf16 training matmul efficiency)"},
    {PROFILE_COMMON, .name = "vessl-gemma4", .eta_kv = 0.25, .eta_c = 0.30, .draft_step_s = 1.5e-3,
     .eta_train = 0.325, .fitted_to_blog = true,
     .note = "eta_kv 0.25, eta_c 0.30 and t_d0 1.5 ms were fitted to the VESSL blog's own figures (B200 "
             "headline pair, FP8-KV gain, MTP increments) and eta_train 0.325, with the hf-peft-eager "
             "stack's host launch time, to its LoRA training figures (A100 and H100 FSDP tok/s, the B200 "
             "ratios): agreement with those figures is partly circular"},
    {PROFILE_COMMON, .name = "trtllm", .eta_kv = 0.90, .eta_c = 0.54, .draft_step_s = 0.5e-3, .eta_train = 0.40,
     .kv_reserve = true, .pp_host_serial = true, .eta_c_arch = "hopper", .eta_c_prec = GPUECON_FP8,
     .note = "TensorRT-LLM (PyTorch backend, trtllm-bench): eta_kv 0.90 and eta_c 0.54 were fitted to its "
             "published Llama 3.1 8B FP8 max-throughput table on H100 and H200 (perf-overview.md @ 00f37686, "
             "6 figures, 2 constants), eta_c on Hopper FP8 and moved to other GPUs and precisions by the "
             "training GEMM fractions; admission reserves prompt + output (GUARANTEED_NO_EVICT, the "
             "engine's default capacity scheduler); pipelined, each stage's host work runs after its forward "
             "and over every running request (its PP executor loop, docs/model.md 6.14 PP7); the rest as "
             "generic (docs/model.md 6.7)"},
#undef PROFILE_COMMON
};

size_t gpuecon_serving_profile_count(void)
{
    return sizeof profiles / sizeof profiles[0];
}

const gpuecon_serving_profile *gpuecon_serving_profile_at(size_t i)
{
    return i < gpuecon_serving_profile_count() ? &profiles[i] : NULL;
}

const gpuecon_serving_profile *gpuecon_serving_profile_find(const char *name)
{
    for (size_t i = 0; name && i < gpuecon_serving_profile_count(); i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const char *gpuecon_serving_profile_label(const gpuecon_serving_profile *p)
{
    return p->stack ? p->stack : p->name;
}

bool gpuecon_serving_profile_from_stack(const gpuecon_stack *st, gpuecon_serving_profile *out)
{
    if (!st || st->workload != 2)
        return false;
    const gpuecon_serving_profile *base = gpuecon_serving_profile_find(st->profile ? st->profile : "generic");
    if (!base)
        return false;
    *out = *base;
    out->stack = st->name;
    out->per_layer = true;
    out->kernel_s = st->kernel_us * 1e-6;
    out->launch_s = st->host_launch_us * 1e-6;
    out->graph_max_bs = st->graph_max_bs;
    out->piecewise = st->piecewise;
    out->sched_s = st->sched_us * 1e-6;
    out->overlap_sched = st->overlap_sched;
    out->fused_ar_norm = st->fused_ar_norm;
    out->attention_dp_ok = st->attention_dp;
    out->ar_one_shot_tp4_bytes = st->ar_one_shot_tp4_kib * 1024;
    out->ar_one_shot_tp8_bytes = st->ar_one_shot_tp8_kib * 1024;
    out->eta_moe = st->moe_bw_frac;
    out->attn_kernels[0] = st->kernel_gqa_hopper;
    out->attn_kernels[1] = st->kernel_gqa_blackwell;
    out->attn_kernels[2] = st->kernel_mla_hopper;
    out->attn_kernels[3] = st->kernel_mla_blackwell;
    out->step_overhead_s = 0; /* replaced by the kernels and the scheduler (O4) */
    return true;
}

/* ---- tensor parallelism and heads ------------------------------------------------------ */

static int check_kv_heads(int kv, int tp, const char *what, gpuecon_error *err)
{
    if (kv >= tp ? kv % tp != 0 : tp % kv != 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                       "%d does not split the %d %s: TP must divide them, or be a multiple of "
                       "them when TP exceeds them (vLLM then replicates each KV head)",
                       tp, kv, what);
    return GPUECON_OK;
}

int infer_check_tp(const gpuecon_model *m, int tp, gpuecon_error *err)
{
    if (tp < 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0, "%d is out of range; allowed 1 or more", tp);
    if (m->heads % tp)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                       "%d does not divide %s's %d attention heads (allowed: divisors of %d)",
                       tp, m->name, m->heads, m->heads);
    if (m->attention == GPUECON_ATTN_MLA)
        return GPUECON_OK; /* one latent KV "head", replicated on every rank */
    int rc = check_kv_heads(m->kv_heads, tp, "KV heads", err);
    if (!rc && m->sliding_window > 0 && m->global_kv_heads != m->kv_heads)
        rc = check_kv_heads(m->global_kv_heads, tp, "KV heads of the global layers", err);
    return rc;
}

/* ---- per-layer KV and attention FLOPs -------------------------------------------------- */

/* K2, K3 for one layer in elements per token per GPU (times the KV element size later). */
static double layer_kv_elems(const gpuecon_model *m, const gpuecon_layer *l, int tp)
{
    if (m->attention == GPUECON_ATTN_MLA) /* compressed latent + decoupled RoPE key */
        return (double)m->kv_lora_rank + m->qk_rope_head_dim;
    int kvh = l->kv_heads / tp;
    if (kvh < 1)
        kvh = 1;
    return 2.0 * kvh * l->head_dim; /* K and V; vLLM stores both even when K = V */
}

/* Attention FLOPs per (query, key) pair on one GPU: 2·d for QK^T plus 2·d for AV per head.
 * MLA decodes in the absorbed form (scores over the latent, d_c + d_r, values d_c) and
 * prefills in the expanded form (d_nope + d_rope, d_v). */
static double layer_attn_flops(const gpuecon_model *m, const gpuecon_layer *l, int tp, bool decode)
{
    double heads = (double)m->heads / tp;
    if (m->attention == GPUECON_ATTN_MLA) {
        if (decode)
            return heads * (2.0 * (m->kv_lora_rank + m->qk_rope_head_dim) + 2.0 * m->kv_lora_rank);
        return heads * (2.0 * (m->qk_nope_head_dim + m->qk_rope_head_dim) + 2.0 * m->v_head_dim);
    }
    return heads * 4.0 * l->head_dim;
}

static void add_group(infer_arch *a, double window, double kv, double dec, double pre)
{
    for (int i = 0; i < a->ngroups; i++)
        if (a->g[i].window == window) {
            a->g[i].kv_bytes += kv;
            a->g[i].attn_decode += dec;
            a->g[i].attn_prefill += pre;
            return;
        }
    if (a->ngroups < INFER_MAX_GROUPS)
        a->g[a->ngroups++] = (infer_group){window, kv, dec, pre};
}

/* ---- LoRA (LR1) ------------------------------------------------------------------------ */

int infer_popcount7(unsigned bits)
{
    int n = 0;
    for (int i = 0; i < 7; i++)
        n += (bits >> i) & 1u;
    return n;
}

/* r·(in + out) of each adapted projection of layer l. The v adapter is counted on K=V layers
 * too (vLLM materialises v_proj there). MoE layers adapt the shared expert's MLP only; MLA
 * adapts q (H -> heads·d_qk), the KV down-projection (H -> d_c + d_r) as k, and o. */
static double layer_lora(const gpuecon_model *m, const gpuecon_layer *l, double r, unsigned mods)
{
    double h = m->hidden, nq = m->heads, q_out, kv_out, o_in;
    if (m->attention == GPUECON_ATTN_MLA) {
        q_out = nq * (m->qk_nope_head_dim + m->qk_rope_head_dim);
        kv_out = (double)m->kv_lora_rank + m->qk_rope_head_dim;
        o_in = nq * m->v_head_dim;
        mods &= ~(unsigned)GPUECON_LORA_V;
    } else {
        q_out = nq * l->head_dim;
        kv_out = (double)l->kv_heads * l->head_dim;
        o_in = q_out;
    }
    double inner = l->moe ? (double)m->shared_experts * m->shared_ffn_hidden : m->ffn_hidden;
    double p = 0;
    if (mods & GPUECON_LORA_Q) p += r * (h + q_out);
    if (mods & GPUECON_LORA_K) p += r * (h + kv_out);
    if (mods & GPUECON_LORA_V) p += r * (h + kv_out);
    if (mods & GPUECON_LORA_O) p += r * (o_in + h);
    if (inner > 0) {
        bool gated = gpuecon_ffn_matrices(m->ffn) == 3;
        if ((mods & GPUECON_LORA_GATE) && gated) p += r * (h + inner);
        if (mods & GPUECON_LORA_UP) p += r * (h + inner);
        if (mods & GPUECON_LORA_DOWN) p += r * (inner + h);
    }
    return p;
}

double gpuecon_lora_params(const gpuecon_model *m, int rank, unsigned modules)
{
    if (!m || rank <= 0)
        return 0;
    double p = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        p += layer_lora(m, &l, rank, modules);
    }
    return p;
}

/* ---- the whole model, or one pipeline stage, at one TP degree --------------------------- */

/* LoRA parameters of layers [l0, l1). */
static double range_lora(const gpuecon_model *m, int rank, unsigned mods, int l0, int l1)
{
    double p = 0;
    for (int i = l0; rank > 0 && i < l1; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        p += layer_lora(m, &l, rank, mods);
    }
    return p;
}

/* A stage's share of the role sums: attention layer by layer (its shape varies on models with
 * global layers), the per-layer-constant FFN roles by the stage's count of dense and MoE
 * layers. The whole model takes gpuecon_model_params' sums unchanged. */
static void range_roles(const gpuecon_model *m, const infer_sums *t, int l0, int l1, infer_arch *a)
{
    const gpuecon_params *p = &t->p;
    if (l0 == 0 && l1 == m->layers) {
        a->attn = p->attention;
        a->dense_ffn = p->dense_ffn;
        a->shared = p->shared_experts;
        a->router = p->router;
        a->routed = p->routed_experts;
        return;
    }
    int moe_here = 0;
    for (int i = l0; i < l1; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        moe_here += l.moe;
        a->attn += flops_attention_params(m, &l);
    }
    int dense_all = m->layers - t->moe_layers, dense_here = (l1 - l0) - moe_here;
    double fd = dense_all > 0 ? (double)dense_here / dense_all : 0;
    double fm = t->moe_layers > 0 ? (double)moe_here / t->moe_layers : 0;
    a->dense_ffn = p->dense_ffn * fd;
    a->shared = p->shared_experts * fm;
    a->router = p->router * fm;
    a->routed = p->routed_experts * fm;
}

void infer_sums_build(const gpuecon_model *m, infer_sums *t)
{
    gpuecon_model_params(m, &t->p);
    t->moe_layers = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        t->moe_layers += l.moe;
    }
}

void infer_arch_build_range(const gpuecon_model *m, const infer_sums *t, int tp, double kv_elem_bytes,
                            int lora_rank, unsigned lora_modules, int l0, int l1, bool first, bool last,
                            infer_arch *a)
{
    const gpuecon_params p = t->p;
    memset(a, 0, sizeof *a);
    bool whole = l0 == 0 && l1 == m->layers;
    a->m = m;
    a->tp = tp;
    a->first = first;
    a->last = last;
    a->layers = l1 - l0;
    range_roles(m, t, l0, l1, a);
    a->body = a->attn + a->dense_ffn + a->shared + a->router + a->routed;
    /* vLLM builds the embedding on the first rank and the LM head on the last, a copy of the
     * embedding there when the two are tied (llama.py @ e06c9ba2: ParallelLMHead on
     * is_last_rank, tie_weights) */
    double vh = (double)m->vocab * m->hidden;
    a->emb_mem = whole ? p.embedding + p.lm_head : (first ? p.embedding : 0) + (last ? vh : 0);
    a->head = last ? vh : 0;
    a->vision = first ? p.vision : 0;
    a->mtp = last ? p.mtp : 0;
    double mats = gpuecon_ffn_matrices(m->ffn);
    a->expert = m->experts > 0 ? mats * m->hidden * m->expert_ffn_hidden : 0;
    bool any_dense = false;
    for (int i = l0; i < l1; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        a->moe_layers += l.moe;
        any_dense |= !l.moe;
        if (l.k_eq_v && m->attention != GPUECON_ATTN_MLA)
            a->dupv += (double)m->hidden * l.kv_heads * l.head_dim;
        double window = l.window > 0 ? l.window : INFINITY;
        add_group(a, window, layer_kv_elems(m, &l, tp) * kv_elem_bytes,
                  layer_attn_flops(m, &l, tp, true), layer_attn_flops(m, &l, tp, false));
    }
    a->active = a->body - a->routed + (double)a->moe_layers * m->top_k * a->expert;
    double moe_inner = (double)m->top_k * m->expert_ffn_hidden +
                       (double)m->shared_experts * m->shared_ffn_hidden;
    a->ffn_inner = any_dense ? fmax(m->ffn_hidden, moe_inner) : moe_inner;
    a->lora = whole ? gpuecon_lora_params(m, lora_rank, lora_modules) : range_lora(m, lora_rank, lora_modules, l0, l1);
    a->lora_modules = lora_rank > 0 ? infer_popcount7(lora_modules) : 0;
    for (int i = 0; i < a->ngroups; i++) {
        a->kv_short += a->g[i].kv_bytes;
        if (isinf(a->g[i].window))
            a->kv_long += a->g[i].kv_bytes;
    }
}

void infer_arch_build(const gpuecon_model *m, int tp, double kv_elem_bytes, int lora_rank,
                      unsigned lora_modules, infer_arch *a)
{
    infer_sums t;
    gpuecon_model_params(m, &t.p);
    t.moe_layers = 0; /* unused for the whole model */
    infer_arch_build_range(m, &t, tp, kv_elem_bytes, lora_rank, lora_modules, 0, m->layers, true, true, a);
}

double gpuecon_kv_bytes_per_token(const gpuecon_model *m, int tp, gpuecon_precision kv, bool long_context)
{
    if (!m || tp < 1)
        return 0;
    infer_arch a;
    infer_arch_build(m, tp, gpuecon_precision_bytes(kv), 0, 0, &a);
    return long_context ? a.kv_long : a.kv_short;
}

double infer_kv_resident(const infer_arch *a, double n)
{
    double s = 0;
    for (int i = 0; i < a->ngroups; i++)
        s += a->g[i].kv_bytes * fmin(n, a->g[i].window);
    return s;
}

double infer_seq_bytes(const infer_arch *a, double n, double block_size)
{
    return infer_kv_resident(a, n) + a->kv_short * block_size / 2;
}

/* Full layers hold the whole max_model_len; a sliding layer holds
 * cdiv(min(W − 1 + N_bt, max_model_len), bs) + 1 blocks (vLLM SlidingWindowSpec). */
double infer_startup_bytes(const infer_arch *a, double max_model_len, double block_size,
                           double max_batched_tokens)
{
    double s = 0;
    for (int i = 0; i < a->ngroups; i++) {
        const infer_group *g = &a->g[i];
        if (isinf(g->window)) {
            s += g->kv_bytes * max_model_len;
        } else {
            double tokens = fmin(g->window - 1 + max_batched_tokens, max_model_len);
            s += g->kv_bytes * block_size * (ceil(tokens / block_size) + 1);
        }
    }
    return s;
}

/* ---- MoE (M1) and speculative decoding (SD1, SD2, SD5) --------------------------------- */

double gpuecon_moe_experts_touched(const gpuecon_model *m, double tokens)
{
    if (!m || m->experts <= 0 || tokens <= 0)
        return 0;
    double ne = m->experts, k = m->top_k;
    return ne * (1 - pow(1 - k / ne, tokens));
}

double gpuecon_spec_expected_tokens(double alpha, int k)
{
    if (k <= 0)
        return 1;
    if (alpha >= 1)
        return k + 1;
    return (1 - pow(alpha, k + 1)) / (1 - alpha);
}

/* Solves (α + α² + … + α^k)/k = rate for α by bisection (the left side rises with α). */
double gpuecon_spec_alpha_from_rate(double rate, int k)
{
    if (k <= 0 || rate <= 0)
        return 0;
    if (rate >= 1)
        return 1;
    double lo = 0, hi = 1;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        double mean = (gpuecon_spec_expected_tokens(mid, k) - 1) / k;
        if (mean < rate)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double gpuecon_spec_speedup(double alpha, int k, double gamma)
{
    return gpuecon_spec_expected_tokens(alpha, k) / (1 + gamma * k);
}
