/*
 * infer_layer.c — the fixed cost of a serving step per layer and per kernel, for engine stacks
 * (profiles with per_layer set; docs/model.md §6.15): the kernels an engine launches for each
 * layer (norms, GEMMs, RoPE and KV-cache write, attention, the MoE router, top-k, token
 * permutation, grouped GEMMs and combine), each paying a fixed GPU time t_k when replayed in a
 * CUDA graph; a step outside a graph (a batch above the largest captured size, or a step that
 * carries prefill) is bound by the host's launches when they take longer than the GPU; and the
 * scheduler's host time per step, hidden by an overlap scheduler while the GPU is busy.
 *
 * Key choice: the roofline of infer_step.c prices what a kernel moves and computes; this file
 * prices only what each kernel costs besides (launch gap, ramp and tail inside a graph), so a
 * 61-layer MoE model with ~20 kernels a layer pays more fixed time per step than a 32-layer dense
 * model with ~10, and every term is non-decreasing in the batch (the step stays monotone).
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <string.h>

/* Kernels of the attention block of one layer, its input norm excluded:
 * GQA/MHA: QKV GEMM, RoPE + KV-cache write, attention, O GEMM (vLLM llama.py / TensorRT-LLM
 * modeling_llama.py forward order); MLA in the absorbed decode form (DeepSeek-V3 in vLLM's
 * MLACommonImpl, SGLang's deepseek_v2.py forward_absorb): the fused q_a/kv_a GEMM, the q_a and
 * kv_a RMSNorms, q_b GEMM, the k-absorb batched GEMM, RoPE + cache write, attention, the
 * v-absorb batched GEMM, O GEMM. */
static double attn_kernels(const gpuecon_model *m)
{
    return m->attention == GPUECON_ATTN_MLA ? 9 : 4;
}

/* Kernels of the FFN block, its input norm excluded: dense: gate_up GEMM, activation, down GEMM;
 * MoE: router GEMM, top-k (softmax or grouped sigmoid), token sort/align (permutation), the two
 * grouped GEMMs and the activation between them, the combine (un-permute and weighted sum),
 * plus a shared expert's gate_up, activation and down (vLLM fused_moe: topk, moe_align_block_size,
 * fused_moe_kernel x 2, silu_and_mul, moe_sum). */
static double ffn_kernels(const gpuecon_model *m, bool moe)
{
    if (!moe)
        return 3;
    return 7 + (m->shared_experts > 0 ? 3 : 0);
}

void infer_layer_kernels(const infer_env *e, double *graph_kernels, double *eager_launches)
{
    const infer_arch *a = e->a;
    const gpuecon_model *m = a->m;
    const gpuecon_serving_profile *p = &e->prof;
    /* two norms a layer (before attention and before the FFN); with TP > 1 and a fused
     * all-reduce + residual + RMSNorm kernel they ride in the all-reduce, whose latency is C1's */
    double norms = e->tp > 1 && p->fused_ar_norm ? 0 : 2;
    int dense = a->layers - a->moe_layers;
    double per_dense = norms + attn_kernels(m) + ffn_kernels(m, false);
    double per_moe = norms + attn_kernels(m) + ffn_kernels(m, true);
    /* once a step on the stage holding them: embedding lookup on the first; final norm, LM head
     * GEMM and the sampler's softmax, top-k/top-p and sample on the last */
    double top = (a->first ? 1 : 0) + (a->last ? 5 : 0);
    *graph_kernels = dense * per_dense + a->moe_layers * per_moe + top;
    /* piecewise graphs (vLLM's FULL_AND_PIECEWISE above the captured sizes and for mixed
     * batches): the attention op runs outside the graph between two replayed pieces, so two
     * launches a layer; otherwise every kernel is its own launch */
    *eager_launches = p->piecewise ? 2.0 * a->layers + top : *graph_kernels;
}

double infer_layer_step(const infer_env *e, const infer_batch *b, double gpu_s, gpuecon_infer_step *s)
{
    const gpuecon_serving_profile *p = &e->prof;
    double kernels, launches;
    infer_layer_kernels(e, &kernels, &launches);
    s->kernels = kernels;
    s->kernel_s = kernels * p->kernel_s;
    double gpu = gpu_s + s->kernel_s;
    /* CUDA graphs cover pure decode batches up to the largest captured size (vLLM's
     * cudagraph_capture_sizes, SGLang's cuda_graph_max_bs, TensorRT-LLM's cuda_graph_config);
     * a step with prefill, or a larger batch, launches from the host, which the GPU cannot
     * outrun: the step is the longer of the two */
    bool graphed = p->graph_max_bs > 0 && b->pre <= 0 && b->seqs <= p->graph_max_bs;
    double host_launch = graphed ? 0 : launches * p->launch_s;
    double work = fmax(gpu, host_launch);
    /* the scheduler's host time: beside the GPU's step with an overlap scheduler, else after it */
    double step = p->overlap_sched ? fmax(work, p->sched_s) : work + p->sched_s;
    return step - gpu; /* the host's share the GPU does not hide */
}

/* E[max of m independent standard normals] (m = 1, 2, 4, ..., 1024; tabulated order statistics,
 * e.g. Harter 1961), interpolated in ln m between the entries. */
static double normal_max(double m)
{
    static const double z[] = {0.0, 0.5642, 1.0294, 1.4236, 1.7660, 2.0697, 2.3367, 2.5768, 2.7954, 2.9961, 3.1820};
    if (m <= 1)
        return 0;
    double x = log2(m);
    int i = (int)x;
    if (i >= 10)
        return z[10];
    return z[i] + (x - i) * (z[i + 1] - z[i]);
}

double infer_layer_ep_straggler(const infer_env *e, double tokens)
{
    const gpuecon_model *m = e->a->m;
    int ranks = e->dp > 1 ? e->dp : e->ep;
    if (!e->prof.per_layer || ranks <= 1 || m->experts <= 0 || tokens <= 0)
        return 1;
    /* each rank holds n = N_e/EP whole experts; a step's tokens (all ranks' under attention-DP)
       touch each expert with probability q = 1 − (1 − k/N_e)^T (M1), so a rank's count is about
       Binomial(n, q) and the layer waits for the busiest of the EP ranks */
    double n = (double)m->experts / ranks, all = e->dp > 1 ? tokens * e->dp : tokens;
    double q = 1 - pow(1 - (double)m->top_k / m->experts, all);
    double mean = n * q;
    if (mean <= 0)
        return 1;
    double busiest = fmin(n, mean + normal_max(ranks) * sqrt(n * q * (1 - q)));
    return busiest / mean;
}

