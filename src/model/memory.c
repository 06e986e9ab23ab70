/*
 * memory.c — bytes per GPU during training: model states, activations, reserve.
 *
 * Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
 * Transformer Models", Table 2 and §4), written per term so that grouped-query attention,
 * gated MLPs and flash attention change exactly the terms they touch. In units of s·b·h
 * bytes (16-bit activations, one byte per dropout-mask element), one layer keeps:
 *   split by TP only with sequence parallelism (the "10" of 10 + 24/t):
 *     2 (input of LayerNorm 1) + 2 (input of LayerNorm 2) + 2 (QKV input) + 2 (MLP input)
 *     + 1 + 1 (attention and MLP dropout masks, when dropout is on)
 *   always split by TP (the "24/t"):
 *     2·(q + k) for QK^T and 2·v for AV, 2·o for the output projection input
 *     (q = o = heads·head_dim/h, k = v = kv_heads·head_dim/h; MHA: 2+2+2+2 = 8)
 *     MLP: 2r (activation input) + 2r (second GEMM input), 4r for gated (r = ffn/h)
 *   unfused attention only (the "5as/h"): softmax output 2, dropout mask 1, dropout out 2,
 *     per a·s/h; flash attention keeps only the row log-sum-exp, 4 bytes per head and token.
 * GPT-3 with dropout, MHA, 4h GELU: 10 + 24 = 34 — Korthikanti's 34 + 5as/h.
 * Selective recompute drops the attention-core terms; full recompute keeps the layer input.
 * FP8 runs save FP8 copies of the linear inputs (mem_fp8_act_delta); model states follow the
 * distributed optimizer's bytes per parameter by precision (gpuecon_param_bytes_ex).
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

const char *gpuecon_recompute_name(gpuecon_recompute r)
{
    switch (r) {
    case GPUECON_RECOMPUTE_NONE: return "none";
    case GPUECON_RECOMPUTE_SELECTIVE: return "selective";
    case GPUECON_RECOMPUTE_FULL: return "full";
    }
    return "unknown";
}

const char *gpuecon_parallel_recompute_name(const gpuecon_parallel *p)
{
    return p->recompute == GPUECON_RECOMPUTE_SELECTIVE && p->recompute_moe ? "selective+moe"
                                                                          : gpuecon_recompute_name(p->recompute);
}

/* Activation bytes of one layer in the shape terms of the header comment, split into the
 * attention half (LayerNorm 1 and QKV inputs, attention core, projection input; with full
 * recompute the layer input) and the FFN half (LayerNorm 2 and MLP inputs, MLP terms), so a
 * mixture-of-experts layer can replace the second. */
double mem_attn_act(double h, double heads, double kv, double hd, double s, double b, double tp, bool sp,
                    gpuecon_recompute rc, gpuecon_attn_impl impl, bool dropout)
{
    double sbh = s * b * h;
    double seq_div = (sp && tp > 1) ? tp : 1;
    if (rc == GPUECON_RECOMPUTE_FULL)
        return 2 * sbh / seq_div;
    double q = heads * hd / h, k = kv * hd / h;
    double replicated = 2 + 2 + (dropout ? 1 : 0);
    double split = 2 * (q + k) + 2 * k + 2 * q;
    double core = 0;
    if (impl == GPUECON_ATTN_IMPL_UNFUSED)
        core = (dropout ? 5 : 2) * heads * s / h;
    else
        core = 4 * heads / h; /* fp32 log-sum-exp per head and token */
    if (rc == GPUECON_RECOMPUTE_SELECTIVE)
        core = 0;
    return sbh * (replicated / seq_div + (split + core) / tp);
}

double mem_mlp_act(double h, double ffn, double mats, double s, double b, double tp, bool sp, gpuecon_recompute rc,
                   bool dropout)
{
    if (rc == GPUECON_RECOMPUTE_FULL)
        return 0;
    double sbh = s * b * h, seq_div = (sp && tp > 1) ? tp : 1, r = ffn / h;
    return sbh * ((2 + 2 + (dropout ? 1 : 0)) / seq_div + (mats > 2 ? 6 * r : 4 * r) / tp);
}

double mem_layer_act(double h, double heads, double kv, double hd, double ffn, double mats, double s,
                     double b, double tp, bool sp, gpuecon_recompute rc, gpuecon_attn_impl impl,
                     bool dropout)
{
    return mem_attn_act(h, heads, kv, hd, s, b, tp, sp, rc, impl, dropout) +
           mem_mlp_act(h, ffn, mats, s, b, tp, sp, rc, dropout);
}

double gpuecon_layer_activation_bytes(const gpuecon_model *m, int layer, int seq_local, int mbs, int tp,
                                      bool sp, gpuecon_recompute r, gpuecon_attn_impl impl, bool dropout)
{
    if (!m || layer < 0 || layer >= m->layers || seq_local < 1 || mbs < 1 || tp < 1)
        return 0;
    gpuecon_layer l;
    gpuecon_model_layer(m, layer, &l);
    return mem_layer_act(m->hidden, m->heads, l.kv_heads, l.head_dim, m->ffn_hidden,
                         gpuecon_ffn_matrices(m->ffn), seq_local, mbs, tp, sp, r, impl, dropout);
}

void gpuecon_param_bytes_ex(int zero, int shards, gpuecon_precision p, int grad_bytes, int state_bytes,
                            bool fp8_param, bool transpose, gpuecon_param_bytes *out)
{
    double n = shards > 1 ? shards : 1, low = gpuecon_precision_bytes(p);
    bool lowp = p != GPUECON_BF16;
    /* FP8-only weights (fp8_param_gather): the FP8 tensor is the parameter, no BF16 copy;
     * otherwise BF16 weights plus Transformer Engine's FP8 copy (dual precision). Hopper keeps
     * a column-wise (transposed) FP8 copy beside it; Blackwell reads column-wise natively
     * (TE docs performance_considerations.rst). */
    out->weights = lowp && fp8_param ? 0 : 2;
    out->fp8_copy = lowp ? low * (transpose ? 2 : 1) : 0;
    out->grads = grad_bytes > 0 ? grad_bytes : 4;            /* main_grad: fp32 or param dtype */
    out->optimizer = 4 + 2 * (state_bytes > 0 ? state_bytes : 4); /* fp32 master + m + v */
    if (zero >= 1)
        out->optimizer /= n;
    if (zero >= 2)
        out->grads /= n;
    if (zero >= 3) {
        out->weights /= n;
        out->fp8_copy /= n;
    }
}

void gpuecon_param_bytes_per_param(int zero, int shards, gpuecon_precision p, gpuecon_param_bytes *out)
{
    gpuecon_param_bytes_ex(zero, shards, p, 4, 4, false, false, out);
}

double mem_fp8_act_delta(double h, double heads, double hd, double ffn, double s, double b, double tp, bool sp,
                         gpuecon_recompute rc)
{
    if (rc == GPUECON_RECOMPUTE_FULL)
        return 0;
    /* Transformer Engine saves the FP8 (column-wise) copy of each linear layer's input for
     * wgrad instead of the BF16 one (TE module/linear.py): QKV and FC1 inputs 2 -> 1 byte,
     * FC2 input 2r -> r; the projection keeps its FP8 input beside the BF16 attention output
     * the fused attention saves (Megatron-LM DeepSeek-V3 GB200 doc §2.2.2: "1.5 times"), +1;
     * the SwiGLU/GELU input stays BF16 (activation_func_fp8_input_store false). */
    double sbh = s * b * h, seq_div = (sp && tp > 1) ? tp : 1, q = heads * hd / h, r = ffn / h;
    return sbh * (-2.0 / seq_div + (q - r) / tp);
}

void mem_stage_chunk(int layers, int pp, int vpp, int chunk, int *start, int *size)
{
    /* base layers per chunk, the remainder on chunks 1..r1 (the first and last stage carry the
     * embedding and the loss) and on the last chunk when it is chunks - 1 */
    int chunks = pp * vpp, base = layers / chunks, rem = layers % chunks;
    int r1 = rem < chunks - 2 ? rem : chunks - 2;
    if (chunks <= 1) {
        *start = 0, *size = layers;
        return;
    }
    *start = chunk * base + (chunk >= 1 ? (chunk - 1 < r1 ? chunk - 1 : r1) : 0);
    *size = base + (chunk >= 1 && chunk <= r1) + (rem == chunks - 1 && chunk == chunks - 1);
}

int mem_stage_layers(int layers, int pp, int vpp, int stage)
{
    if (pp < 1 || vpp < 1 || stage < 0 || stage >= pp)
        return 0;
    int n = 0;
    for (int j = 0; j < vpp; j++) { /* stage s holds chunks s, s + pp, ... */
        int start, size;
        mem_stage_chunk(layers, pp, vpp, stage + j * pp, &start, &size);
        n += size;
    }
    return n;
}

double mem_inflight(int pp, int vpp, int microbatches, int stage)
{
    if (pp <= 1)
        return 1;
    if (vpp <= 1) {
        int n = pp - stage;
        return microbatches < n ? microbatches : n;
    }
    /* Megatron's interleaved schedule: 2(p-s-1) + (v-1)p warm-up chunks, plus one */
    double chunks = 2.0 * (pp - stage - 1) + (double)(vpp - 1) * pp + 1;
    double all = (double)microbatches * vpp;
    return (chunks < all ? chunks : all) / vpp;
}

double gpuecon_inflight_microbatches(int pp, int vpp, int microbatches)
{
    if (pp < 1 || vpp < 1 || microbatches < 1)
        return 0;
    return mem_inflight(pp, vpp, microbatches, 0);
}

double gpuecon_memory_reserve_bytes(const gpuecon_gpu *gpu)
{
    /* CUDA context, cuBLAS/cuDNN workspaces and NCCL buffers of a few communicators:
     * about 1.5 GiB, plus 2% of capacity for the caching allocator's fragmentation. */
    double cap = gpu ? gpu->hbm_gib : 80;
    return (1.5 + 0.02 * cap) * 1073741824.0;
}
