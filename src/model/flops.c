/*
 * flops.c — model arithmetic: parameter counts, model FLOPs per token, MFU.
 *
 * Counting follows Narayanan et al. (SC21, eq. 3) and NVIDIA NeMo's published MFU formulas:
 * 6 FLOPs per weight per trained token (2 forward, 4 backward) for every weight that
 * multiplies activations — the LM head included, the input-embedding lookup excluded — plus
 * the attention score and value products, 6·2·s·d per head per layer. Whether causal masking
 * halves the attention term is the caller's choice (gpuecon_attn_count): the published
 * figures use both conventions (docs/model.md §1).
 */
#include "model/model.h"

#include <math.h>

double gpuecon_gpu_peak_flops(const gpuecon_gpu *gpu, gpuecon_precision p)
{
    if (!gpu)
        return 0;
    switch (p) {
    case GPUECON_BF16: return gpu->peak_bf16_tflops * 1e12;
    case GPUECON_FP8: return gpu->peak_fp8_tflops * 1e12;
    case GPUECON_FP4: return gpu->peak_fp4_tflops * 1e12;
    }
    return 0;
}

void gpuecon_model_layer(const gpuecon_model *m, int i, gpuecon_layer *out)
{
    out->kv_heads = m->kv_heads;
    out->head_dim = m->head_dim;
    out->window = 0;
    out->k_eq_v = false;
    if (m->sliding_window > 0) {
        bool global = m->global_every > 0 && (i + 1) % m->global_every == 0;
        if (global) {
            out->kv_heads = m->global_kv_heads;
            out->head_dim = m->global_head_dim;
            out->k_eq_v = m->global_k_eq_v;
        } else {
            out->window = m->sliding_window;
        }
    }
    out->moe = false;
    if (m->experts > 0 && i >= m->dense_layers) {
        int every = m->moe_every > 0 ? m->moe_every : 1;
        out->moe = (i - m->dense_layers) % every == every - 1;
    }
}

/* Attention projection weights of one layer (declared in model/model.h). */
double flops_attention_params(const gpuecon_model *m, const gpuecon_layer *l)
{
    double h = m->hidden, H = m->heads;
    if (m->attention == GPUECON_ATTN_MLA) {
        double dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        double q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank * H * dqk + m->q_lora_rank
                                      : h * H * dqk;
        double kv = h * (m->kv_lora_rank + m->qk_rope_head_dim) + m->kv_lora_rank +
                    (double)m->kv_lora_rank * H * (m->qk_nope_head_dim + m->v_head_dim);
        double o = H * m->v_head_dim * h;
        return q + kv + o;
    }
    double hd = l->head_dim, kv = l->kv_heads;
    double q = h * H * hd, k = h * kv * hd, v = l->k_eq_v ? 0 : h * kv * hd, o = H * hd * h;
    return q + k + v + o;
}

void gpuecon_model_params(const gpuecon_model *m, gpuecon_params *out)
{
    const double h = m->hidden, mats = gpuecon_ffn_matrices(m->ffn);
    *out = (gpuecon_params){0};
    double active_ffn = 0, moe_layer_active = 0, moe_layer_attn = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        double attn = flops_attention_params(m, &l);
        out->attention += attn;
        out->norms += 2 * h;
        if (l.moe) {
            double routed = (double)m->experts * mats * h * m->expert_ffn_hidden;
            double shared = (double)m->shared_experts * mats * h * m->shared_ffn_hidden;
            double router = h * m->experts;
            out->routed_experts += routed;
            out->shared_experts += shared;
            out->router += router;
            moe_layer_active = (double)m->top_k * mats * h * m->expert_ffn_hidden + shared + router;
            moe_layer_attn = attn;
            active_ffn += moe_layer_active;
        } else {
            double dense = mats * h * m->ffn_hidden;
            out->dense_ffn += dense;
            active_ffn += dense;
        }
    }
    out->norms += h; /* final norm */
    out->embedding = (double)m->vocab * h;
    out->lm_head = m->tied_embeddings ? 0 : (double)m->vocab * h;
    out->total = out->attention + out->dense_ffn + out->routed_experts + out->shared_experts +
                 out->router + out->norms + out->embedding + out->lm_head;
    out->active = out->attention + active_ffn + out->norms + out->embedding + out->lm_head;
    if (m->mtp_layers > 0) {
        /* DeepSeek-V3 MTP module: embedding and head shared; its own projection (2h -> h),
         * two norms and one transformer layer (an MoE layer when the model is MoE). */
        if (m->experts == 0) {
            gpuecon_layer l;
            gpuecon_model_layer(m, m->layers - 1, &l);
            moe_layer_attn = flops_attention_params(m, &l);
            moe_layer_active = mats * h * m->ffn_hidden;
        }
        double full_moe = m->experts > 0 ? (double)m->experts * mats * h * m->expert_ffn_hidden +
                                               (double)m->shared_experts * mats * h * m->shared_ffn_hidden +
                                               h * m->experts
                                         : moe_layer_active;
        out->mtp = m->mtp_layers * (moe_layer_attn + full_moe + 2 * h * h + 4 * h);
    }
    out->vision = m->vision_params;
}

/* Keys attended per query token, averaged over a sequence of s tokens. */
static double keys_per_query(double s, double window, gpuecon_attn_count count)
{
    double w = window > 0 ? window : INFINITY;
    if (count == GPUECON_ATTN_COUNT_FULL)
        return s < w ? s : w;
    if (s <= w)
        return s / 2;
    return w * (1 - w / (2 * s)); /* causal sliding window: ramp to w, then w */
}

static void per_head_dims(const gpuecon_model *m, const gpuecon_layer *l, double *dqk, double *dv)
{
    if (m->attention == GPUECON_ATTN_MLA) {
        *dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        *dv = m->v_head_dim;
    } else {
        *dqk = l->head_dim;
        *dv = l->head_dim;
    }
}

void gpuecon_train_flops(const gpuecon_model *m, int seq, gpuecon_attn_count count,
                         bool include_mtp, gpuecon_flops *out)
{
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    *out = (gpuecon_flops){0};
    double head = (double)m->vocab * m->hidden;
    out->matmul_params = p.active - p.embedding - p.lm_head - p.norms + head;
    out->linear = 6 * out->matmul_params;
    double attn_layer_last = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        double dqk, dv;
        per_head_dims(m, &l, &dqk, &dv);
        attn_layer_last = 6 * keys_per_query(seq, l.window, count) * m->heads * (dqk + dv);
        out->attention += attn_layer_last;
    }
    if (include_mtp && m->mtp_layers > 0) {
        double h = m->hidden, mats = gpuecon_ffn_matrices(m->ffn);
        gpuecon_layer l;
        gpuecon_model_layer(m, m->layers - 1, &l);
        double ffn = m->experts > 0 ? (double)m->top_k * mats * h * m->expert_ffn_hidden +
                                          (double)m->shared_experts * mats * h * m->shared_ffn_hidden
                                    : mats * h * m->ffn_hidden;
        double per_module = 6 * (flops_attention_params(m, &l) + ffn + 2 * h * h + head) + attn_layer_last;
        out->mtp = m->mtp_layers * per_module;
    }
    out->total = out->linear + out->attention + out->mtp;
}

double gpuecon_infer_flops_per_token(const gpuecon_model *m, double context)
{
    gpuecon_flops f;
    gpuecon_train_flops(m, 1, GPUECON_ATTN_COUNT_FULL, false, &f);
    double attn = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        double dqk, dv;
        per_head_dims(m, &l, &dqk, &dv);
        attn += 2 * keys_per_query(context, l.window, GPUECON_ATTN_COUNT_FULL) * m->heads * (dqk + dv);
    }
    return 2 * f.matmul_params + attn;
}

double gpuecon_mfu(double tokens_per_s_per_gpu, double flops_per_token, double peak_flops)
{
    return peak_flops > 0 ? tokens_per_s_per_gpu * flops_per_token / peak_flops : 0;
}

double gpuecon_tokens_per_s_from_mfu(double mfu, double flops_per_token, double peak_flops)
{
    return flops_per_token > 0 ? mfu * peak_flops / flops_per_token : 0;
}
