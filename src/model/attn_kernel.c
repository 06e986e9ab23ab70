/*
 * attn_kernel.c — the serving attention kernels an engine stack runs (docs/model.md §6.15, AK1–AK4):
 * for decode, the fraction of HBM bandwidth a kernel reaches reading the KV cache (decode attention
 * of MHA and GQA is memory-bound: 2·g FLOPs per KV element for g query heads per KV head) and, for
 * MLA's absorbed form (one 576-wide latent key, 512-wide value, shared by every query head: MQA
 * with g = the query heads on the GPU, compute-bound from about 128 heads on Hopper), the fraction
 * of the tensor peak it reaches; for prefill, the causal FlashAttention-3 curve by sequence length.
 *
 * Key choice: a kernel contributes only the figures its publisher (or a measurement we cite) gives;
 * where none is published the profile's constant stays (hbm or tc 0), so naming a kernel never
 * invents a number. The head layout enters through the FLOPs and bytes the step already counts
 * (KV bytes per KV head, attention FLOPs per query head), which the roofline max(T_kv, T_ca)
 * compares: GQA's group size moves the arithmetic intensity, MLA's absorbed form at 128 heads
 * crosses into compute.
 */
#include "model/model.h"

#include <math.h>
#include <stddef.h>

/* H800 SXM5's dense BF16 peak at its nominal clock, the H100 SXM die's (NVIDIA H100 datasheet):
 * FlashMLA's and FlashAttention-3's TFLOP/s are read as fractions of it. */
#define H100_BF16_TFLOPS 989.4

static const gpuecon_attn_kernel_info kernels[GPUECON_AK_COUNT] = {
    [GPUECON_AK_PROFILE] = {"profile", 0, 0, false, false, "no kernel named: the profile's eta_kv and attention efficiency"},
    [GPUECON_AK_XQA] = {"xqa", 0.90, 0, false, true,
                        "NVIDIA/TensorRT-LLM docs/source/advanced/gpt-attention.md (XQA: the query heads of a KV group "
                        "read each KV head once); no bandwidth is published, 0.90 is the trtllm profile's eta_kv, fitted "
                        "on the Llama 3.1 8B FP8 max-throughput table (perf-overview.md @ 00f37686) that ran XQA on Hopper"},
    [GPUECON_AK_TRTLLM_GEN] = {"trtllm-gen", 0.90, 0, false, true,
                               "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/trtllmGenKernels/fmha; no bandwidth is "
                               "published: XQA's 0.90 assumed"},
    [GPUECON_AK_FA3] = {"fa3", 1849.0 / 3350.0, 0, false, true,
                        "Dao-AILab/flash-attention issue #1572 (comment 2025-04-11, the repository's "
                        "flash_attention_benchmark.py on H100 SXM): FA3 paged decode, batch 16, 32 heads x 128, BF16, "
                        "CUDA graph, 1,226 / 1,796 / 1,849 GB/s at 128 / 2,000 / 4,000 tokens of 3.35 TB/s; the "
                        "long-context figure, 0.552"},
    [GPUECON_AK_FLASHINFER] = {"flashinfer", 0, 0, false, true,
                               "flashinfer-ai/flashinfer README: decode kernels on CUDA and tensor cores (FA2 and FA3 "
                               "templates); no absolute decode bandwidth is published (its vector-sparse kernel reaches "
                               "90% of its dense one): the profile's eta_kv"},
    [GPUECON_AK_FLASHMLA] = {"flashmla", 3000.0 / 3350.0, 660.0 / H100_BF16_TFLOPS, false, true,
                             "deepseek-ai/FlashMLA README @ 9241ae3e: up to 3,000 GB/s memory-bound (of 3.35 TB/s) and "
                             "660 TFLOPS compute-bound (of 989.4 dense BF16) on H800 SXM5, BF16, paged KV of block 64; its "
                             "deep dive (deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md): compute-bound "
                             "when query heads x query tokens >= 128"},
    [GPUECON_AK_TRTLLM_GEN_MLA] = {"trtllm-gen-mla", 3000.0 / 3350.0, 660.0 / H100_BF16_TFLOPS, true, true,
                                   "NVIDIA/TensorRT-LLM tech blog 3 (Optimizing DeepSeek R1 Throughput on Blackwell): "
                                   "with an FP8 KV cache Q is quantised too and FP8 MQA runs the generation phase; no "
                                   "kernel figures are published: FlashMLA's fractions assumed"},
};

const gpuecon_attn_kernel_info *gpuecon_attn_kernel_get(int k)
{
    return k >= 0 && k < GPUECON_AK_COUNT ? &kernels[k] : NULL;
}

/* FlashAttention-3 paper (Shah et al., arXiv:2407.08608), forward speed on H100 SXM5, FP16, causal,
 * head dim 128 (Dao-AILab/flash-attention assets/flash3_fp16_fwd.png @ 0251105a, panel d):
 * 292 / 423 / 521 / 579 / 602 / 616 TFLOP/s at 512 ... 16k tokens. */
static const double pre_s[] = {512, 1024, 2048, 4096, 8192, 16384};
static const double pre_tflops[] = {292, 423, 521, 579, 602, 616};

double gpuecon_attn_prefill_frac(double s)
{
    size_t n = sizeof pre_s / sizeof pre_s[0];
    if (!(s > pre_s[0]))
        return pre_tflops[0] / H100_BF16_TFLOPS;
    if (s >= pre_s[n - 1])
        return pre_tflops[n - 1] / H100_BF16_TFLOPS;
    size_t i = 1;
    while (s > pre_s[i])
        i++;
    double t = log(s / pre_s[i - 1]) / log(pre_s[i] / pre_s[i - 1]);
    return (pre_tflops[i - 1] + t * (pre_tflops[i] - pre_tflops[i - 1])) / H100_BF16_TFLOPS;
}
