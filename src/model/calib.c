/*
 * calib.c — the efficiency parameters of the training model, one row per GPU architecture.
 *
 * These are the only numbers in the step model that do not come from the catalog or from
 * the model's shape: what fraction of a datasheet peak real kernels reach. Five were fitted
 * (bench/fit_train.c, trimmed-L1 loss on log throughput) on the calibration runs only
 * (`gpuecon validate` lists them with their sources): three for A100 with 2021-23 Megatron-LM on the vTrain
 * and Narayanan runs, two for H100 with 2024-25 NeMo on the DGX Cloud recipes. One was read
 * off measured nccl-tests data; the rest are assumptions with a source. A fitted row holds
 * for its generation *and its software era*: ampere's describes eager-mode Megatron (large
 * per-kernel overhead, unfused attention), hopper's a fused, overlapped NeMo stack.
 * docs/model.md §3.3 lists each value with its data; `gpuecon validate` shows the errors.
 * The GEMM fractions are flat in shape (roofline plus kernel_s): §3.3 also records the two shape
 * curves refitted against these rows and not adopted (a fixed 128x256 tile; the best of cuBLAS's
 * tiles with split-K), each of which raised the fitted and vTrain P90.
 * Rows without calibration data copy a fitted generation's and say so; the Blackwell row (B200,
 * GB200), the sm_120 row (RTX PRO 6000) and the CDNA3 row (MI300X) scale Hopper's BF16 fraction
 * by a measured GEMM rate ratio, and Blackwell's MoE runs fit only its MoE parameters.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

#define SINHA "Sinha et al. SC22 ('Not All GPUs Are Created Equal'): ~8% speed spread across a cluster"

static const gpuecon_efficiency table[] = {
    {
        .arch = "ampere",
        .gemm_bf16 = 0.776,     /* fitted: 109 vTrain A100 runs + Narayanan A01-A10 (refitted with the
                                   async TP all-reduce of the vTrain runs' stack, 4 Dec 2026) */
        .gemm_fp8 = 0,          /* no FP8 tensor cores */
        .gemm_fp4 = 0,
        .attn_flash = 0.55,     /* assumption: FlashAttention-2 (Dao 2023) reaches 50-73% on A100 */
        .hbm = 0.679,           /* fitted (same runs): memory-bound kernels of 2021-23 Megatron */
        .kernel_s = 38.8e-6,    /* fitted (same runs): per-kernel launch and framework overhead of
                                   eager 2021-23 Megatron; the valley is flat from 30 to 45 us */
        .speed_cv = 0.015,      /* assumption: SINHA */
        .scaleup_busbw = 0.74,  /* measured: vTrain trace/a100/AR_GPU8_1M_1024M_LUT, nccl-tests
                                   all-reduce on 8 A100, 64-300 MB: 212-222 GB/s of 300 */
        .scaleout_busbw = 0.90, /* assumption: InfiniBand busbw ~90% of line rate */
        .coll_launch_s = 10e-6, /* assumption; with 3 us per hop it gives the 53 us intercept of
                                   the same measured all-reduce */
        .scaleout_a2a = 0.60, .grouped_gemm = 0.944, .moe_host_s = 100e-6, .moe_load_cv = 0.10, /* as hopper (x86 hosts) */
        .stage = GPUECON_STAGE_FITTED,
        .source = "vTrain A100 runs (109) and Narayanan et al. SC21 Table 1 (A01-A10), Megatron-LM 2021-23",
    },
    {
        .arch = "hopper",
        .gemm_bf16 = 0.609,     /* fitted: DGX Cloud H100 BF16 runs A27, A29, A31, A35 */
        .gemm_fp8 = 0.490,      /* fitted: DGX Cloud H100 FP8 runs A26, A29, A30, A33, A34, A35 */
        .gemm_fp4 = 0,
        .attn_flash = 0.60,     /* assumption: FlashAttention-3 (Shah et al. 2024) ~75% forward,
                                   ~55% backward of the H100 BF16 peak */
        .hbm = 0.85,            /* assumption: fused elementwise kernels ~85% of HBM3 bandwidth */
        .kernel_s = 3e-6,       /* assumption: kernel launch with CUDA graphs / TE fusion */
        .speed_cv = 0.015,      /* assumption: SINHA */
        .scaleup_busbw = 0.80,  /* assumption: nccl-tests all-reduce ~360 GB/s of NVLink4 450 */
        .scaleout_busbw = 0.90, /* assumption: NDR InfiniBand busbw ~90% of line rate */
        .coll_launch_s = 10e-6,
        .scaleout_a2a = 0.60,   /* assumption from measurements: NCCL all-to-all on 8 x 400G H100/H800
                                   nodes, 24-28 GB/s busbw at 64 GPUs (docs/model.md §4.1) */
        .grouped_gemm = 0.944,  /* fitted: MoE runs A38, DSV3-Jul-H100, L4-H100-fp8 */
        .moe_host_s = 100e-6,   /* assumption (x86 hosts): the H100 eager runs A38 and Llama 4 BF16
                                   stay GPU-bound below ~130 us; Grace's fitted 240 us over the
                                   measured Grace/x86 ratio of eager host time per op, 2.46-2.75
                                   (TransformerEngine issue #2053), gives 87-98 us */
        .moe_load_cv = 0.10,    /* assumption within the range the dropless Llama 4 runs allow (0-0.1) */
        .stage = GPUECON_STAGE_FITTED,
        .source = "NVIDIA dgxc-benchmarking H100 recipes A26-A35 (GPT-3 175B, Llama 3.1 8B/70B), NeMo 24.11-25.04",
    },
    {
        .arch = "blackwell",
        /* BF16: Hopper's fitted fraction times the ratio of the two GPUs' measured fractions in one
         * public benchmark, as the sm_120 and CDNA3 rows below (torch.matmul BF16 at 8192^3,
         * PyTorch 2.8.0; zzc0721/torch-performance-test-data database.md @ 07858687: B200 180GB
         * 1696.03 of 2250 TFLOPS = 0.7538, H100 80GB HBM3 789.24 of 989 = 0.7980). Until
         * 6 December 2026 it was 0.48, fitted on one MoE run (DSV3-Jul-GB200), which also
         * carried the MoE block's losses: the published Llama 3.1 405B FP8 runs on GB200
         * reach 42% MFU (Megatron-Bridge 26.02), above that row's whole FP8 fraction (0.386).
         * The MoE losses are now in grouped_gemm, fitted on the GB200 MoE runs. */
        .gemm_bf16 = 0.575,     /* derived: 0.609 x 0.7538 / 0.7980 */
        .gemm_fp8 = 0.463,      /* derived: gemm_bf16 x Hopper's fitted FP8/BF16 ratio 0.805 */
        .gemm_fp4 = 0.33,       /* assumption (0.85 x the FP8 fraction before 6 Dec 2026; kept, now 0.71 x) */
        .attn_flash = 0.60, .hbm = 0.85, .kernel_s = 3e-6, .speed_cv = 0.015,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .scaleout_a2a = 0.60,
        .grouped_gemm = 0.619,  /* fitted: GB200 MoE runs A39, DSV3-Jul-GB200, L4-GB200-fp8 */
        .moe_host_s = 240e-6,   /* fitted (same runs; Grace hosts) */
        .moe_load_cv = 0.10,
        .stage = GPUECON_STAGE_DERIVED,
        .source = "GEMM fractions from measured torch.matmul rates (B200 0.754, H100 0.798 of peak) times "
                  "Hopper's fitted 0.609 and its FP8 ratio; grouped GEMM and host time fitted on the GB200 "
                  "MoE runs (dgxc DeepSeek-V3 A39, SemiAnalysis July 2025, Llama 4 Maverick FP8)",
    },
    {
        .arch = "blackwell-ultra",
        /* BF16: Hopper's fitted fraction times the ratio of measured large-GEMM fractions, as the
         * Blackwell row: cuBLASLt 13.2.0 BF16 at 8192^3 on a B300 SXM6 AC at its 1,100 W limit,
         * 2,109.7 of 2,250 TFLOPS = 0.9376 (mean of three campaigns; Antoniomv7/gb300-microbench
         * results/gemm_comparison.csv @1c36b44b), over the H100's 0.7980 (the Blackwell row's
         * file). The same study samples the clock under a whole-device BF16 MMA load: 1,931 MHz
         * at 1,083 W (results/umma_device_scaling.csv), above the 1,856 MHz at which 148 SMs x
         * 8,192 FLOPs per clock give the 2,250 TFLOPS of the datasheet. The ratio to Blackwell's
         * row, 0.9376 / 0.7538 = 1.244, mixes that clock with a newer cuBLAS; at 4096^3 XLA's
         * measured B200 table (tensorflow/tensorflow third_party/xla/xla/backends/gpu/cost_model/
         * matmul_interpolator_data.h @a305421c, sm_100: 1,416.9 TFLOPS) against the study's
         * 1,768.0 gives 1.248 too. The Megatron-Bridge tables, one container on both GPUs, put
         * GB300 at 1.19-1.25x GB200 at equal peaks. */
        .gemm_bf16 = 0.716,     /* derived: 0.609 x 0.9376 / 0.7980 */
        .gemm_fp8 = 0.576,      /* derived: gemm_bf16 x Hopper's fitted FP8/BF16 ratio 0.805 */
        .gemm_fp4 = 0.33,       /* assumption: Blackwell's (the NVFP4 GB300 rows agree, docs/model.md 3.3) */
        .attn_flash = 0.60, .hbm = 0.85, .kernel_s = 3e-6, .speed_cv = 0.015,
        /* Blackwell Ultra doubles the SFU's exponentials per clock (NVIDIA technical blog
         * "Inside NVIDIA Blackwell Ultra", 22 Aug 2025: 10.7 against 5 TeraExponentials/s). A
         * causal forward with 128-wide heads spends 4·128 MMA FLOPs per exponential, which
         * Blackwell's BF16 peak runs in about the time its SFU takes for the one exponential
         * (2,450 TFLOPS / 512 = 4.8 T/s), so Blackwell's forward is partly exponential-bound
         * and Blackwell Ultra's is not; the backward (10·128 FLOPs per exponential) is MMA-bound
         * on both. Measured with one library (NVIDIA/cudnn-frontend
         * benchmark/attention_inference/results/prefill_sweep, cuDNN 9.27.0, Llama 3.1 70B
         * heads, 64 query / 8 KV of 128, causal, batch 1, q = kv = 8,192 and 16,384, backends
         * cudnn and cudnn_oss; GB300 file @bd77903d, GB200 @d6d35d69): GB300 1,875.9 / 1,986.3
         * and 1,824.3 / 1,927.8 TFLOPS against GB200 1,438.1 / 1,562.9 and 1,389.0 / 1,534.2,
         * ratios 1.304, 1.271, 1.313, 1.257 (median 1.288) at the same catalog BF16 peak. The
         * forward fraction is Blackwell's attn_flash times that ratio. */
        .attn_fwd = 0.773,      /* derived: 0.60 x 1.288 */
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .scaleout_a2a = 0.60, .grouped_gemm = 0.619, .moe_host_s = 240e-6, .moe_load_cv = 0.10,
        .stage = GPUECON_STAGE_DERIVED,
        .source = "GEMM fractions from a measured cuBLASLt BF16 rate (B300 0.938 of peak, against the H100's "
                  "0.798) times Hopper's fitted 0.609 and its FP8 ratio; forward attention from cuDNN's "
                  "GB300/GB200 ratio; the rest Blackwell's (no calibration run)",
    },
    {
        /* sm_120 (GB202: RTX PRO 6000 Blackwell, GeForce RTX 50): Blackwell's number formats on
         * another tensor-core path (warp-level mma.sync with block scales, no tensor memory,
         * 99 KB of shared memory per SM), in a 600 W board with under a quarter of a B200's BF16
         * peak (500 against 2,250 TFLOPS), so the B200's fractions do not carry over. BF16 is
         * Hopper's fitted fraction times the ratio of the two GPUs' measured fractions in one
         * public benchmark (torch.matmul BF16 at 8192^3, torch 2.7.0+cu128,
         * zzc0721/torch-performance-test-data issues #162 and #79: RTX PRO 6000 Server Edition
         * 417.34 of 500 TFLOPS = 0.8347, H100 SXM 797.51 of 989 = 0.8064), 0.609 x 1.0351; FP8
         * and FP4 keep Blackwell's ratios to BF16 (0.805, then 0.85), no dense FP8/FP4
         * measurement of this card being published. */
        .arch = "blackwell-rtx",
        .gemm_bf16 = 0.630,     /* derived: 0.609 x 0.8347 / 0.8064 */
        .gemm_fp8 = 0.507,      /* derived: gemm_bf16 x Hopper's fitted FP8/BF16 ratio 0.805 */
        .gemm_fp4 = 0.431,      /* assumption: 0.85 x the FP8 fraction, as Blackwell */
        .attn_flash = 0.55,     /* assumption: FlashAttention-2-class kernels (FlashAttention-3 needs
                                   Hopper's wgmma), Ampere's value */
        .hbm = 0.85, .kernel_s = 3e-6, .speed_cv = 0.015,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .scaleout_a2a = 0.60, .grouped_gemm = 0.944, /* as hopper */
        .moe_host_s = 100e-6,   /* assumption: x86 hosts, as hopper */
        .moe_load_cv = 0.10,
        .stage = GPUECON_STAGE_DERIVED,
        .source = "no calibration run: BF16 GEMM fraction from measured torch.matmul rates (RTX PRO 6000 "
                  "0.835, H100 0.806 of peak) times Hopper's fitted 0.609; Blackwell's precision ratios",
    },
    {
        /* CDNA3 (MI300X): no published training run to fit, but one public benchmark measures the
         * largest matmul rate of this GPU and of the H100 with the same script and method
         * (stas00/ml-engineering compute/accelerator/README.md @ b9e29720, "Maximum Achievable
         * Matmul FLOPS", BF16 v2 table: MI300X 668.4 TFLOPS under torch 2.5.1 + ROCm 6.3 with
         * TunableOp, H100 SXM 794.5 under torch 2.7.0+cu126). Of the catalog peaks that is
         * 668.4/1307.4 = 0.5112 against 794.5/989 = 0.8033, and the row's BF16 fraction is
         * Hopper's fitted 0.609 x 0.6364. The same table's older reading (ROCm 6.2, no cache
         * flush: 781.9 against 792.1) would give 0.455; the newer method is taken. FP8 keeps
         * Hopper's FP8/BF16 ratio (0.805; no MI300X FP8 rate in the table), and attention is
         * assumed to lose to Hopper what the GEMMs lose (0.60 x 0.6364). */
        .arch = "cdna3",
        .gemm_bf16 = 0.388,     /* derived: 0.609 x 0.5112 / 0.8033 */
        .gemm_fp8 = 0.312,      /* derived: gemm_bf16 x Hopper's fitted FP8/BF16 ratio 0.805 */
        .gemm_fp4 = 0,
        .attn_flash = 0.38,     /* assumption: Hopper's 0.60 x the measured GEMM ratio 0.6364 */
        .hbm = 0.85, .kernel_s = 3e-6, .speed_cv = 0.015,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .scaleout_a2a = 0.60, .grouped_gemm = 0.944,
        .moe_host_s = 100e-6,   /* assumption: x86 hosts, as hopper */
        .moe_load_cv = 0.10,
        .stage = GPUECON_STAGE_DERIVED,
        .source = "no calibration run: BF16 GEMM fraction from measured maximum matmul rates (MI300X 0.511, "
                  "H100 0.803 of peak; stas00/ml-engineering) times Hopper's fitted 0.609; Hopper's FP8 ratio",
    },
};

const gpuecon_efficiency *gpuecon_efficiency_table(size_t *n)
{
    if (n)
        *n = sizeof table / sizeof table[0];
    return table;
}

const gpuecon_efficiency *gpuecon_efficiency_for(const gpuecon_gpu *gpu)
{
    if (gpu && gpu->arch)
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
            if (strcmp(table[i].arch, gpu->arch) == 0)
                return &table[i];
    return &table[1]; /* hopper */
}

/* FlashAttention-2's causal forward+backward throughput, TFLOP/s, at sequence lengths 512, 1k,
 * 2k, 4k, 8k, 16k (batch x seqlen = 16k tokens, hidden 2048, BF16/FP16), head dims 64 and 128,
 * on A100 80GB SXM4 and H100 80GB SXM5: Dao-AILab/flash-attention @0251105a
 * assets/flash2_a100_fwd_bwd_benchmark.png and flash2_h100_fwd_bwd_benchmark.png, panels (c)
 * and (d) (the FlashAttention-2 paper's Fig. 4 and 6), counting FLOPs as gpuecon does for a
 * causal kernel (half the square, backward 2.5x the forward). */
static const double fa2_a100[2][6] = {{88, 119, 140, 156, 165, 171}, {99, 133, 155, 173, 182, 189}};
static const double fa2_h100[2][6] = {{141, 192, 232, 257, 273, 284}, {163, 221, 265, 294, 308, 328}};

double train_fa2_eff(const gpuecon_gpu *gpu, double head_dim, double seq)
{
    bool ampere = gpu && gpu->arch && strcmp(gpu->arch, "ampere") == 0;
    const double(*t)[6] = ampere ? fa2_a100 : fa2_h100;
    double peak = ampere ? 312 : 989; /* the benchmarked GPUs' dense BF16 peaks */
    /* log2(seq / 512) places the point on the 512..16k grid; shorter and longer sequences take
     * the nearest end (the curves are flat past 8k) */
    double x = seq > 512 ? log2(seq / 512) : 0;
    if (x > 5)
        x = 5;
    int i = (int)x;
    if (i > 4)
        i = 4;
    double w = x - i, r[2];
    for (int k = 0; k < 2; k++)
        r[k] = t[k][i] + w * (t[k][i + 1] - t[k][i]);
    /* head dims between 64 and 128 interpolate; outside, the nearest */
    double u = head_dim <= 64 ? 0 : head_dim >= 128 ? 1 : (head_dim - 64) / 64;
    return (r[0] + u * (r[1] - r[0])) / peak;
}
