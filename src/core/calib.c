/*
 * calib.c — the efficiency parameters of the training model, one row per GPU architecture.
 *
 * These are the only numbers in the step model that do not come from the catalog or from
 * the model's shape. Each says what fraction of a datasheet peak real kernels reach. They
 * were fitted on the calibration runs only (../shared/reference/calibration/), as few as the
 * data can identify, or assumed where no calibration run exercises them; docs/model.md §3.3
 * gives each value with the data it came from and `gpuecon validate` shows the resulting
 * errors. Rows for GPUs without calibration data copy a calibrated generation and say so.
 */
#include "train.h"

#include <string.h>

static const gpuecon_efficiency table[] = {
    {
        .arch = "ampere",
        .gemm_bf16 = 0.80,     /* fitted: vTrain A100 runs + Narayanan A01-A10 */
        .gemm_fp8 = 0,         /* no FP8 tensor cores */
        .gemm_fp4 = 0,
        .attn_flash = 0.50,    /* assumption: FlashAttention-2 forward on A100 ~50-70% */
        .hbm = 0.85,           /* assumption: STREAM-like kernels reach ~85% of HBM2e */
        .kernel_s = 4e-6,      /* fitted: vTrain small micro-batch / high TP runs */
        .layer_host_s = 0,
        .scaleup_busbw = 0.74, /* measured: vTrain trace/a100/AR_GPU8 (nccl-tests, 8 A100) */
        .scaleout_busbw = 0.90,/* assumption: HDR InfiniBand busbw ~90% of line rate */
        .coll_launch_s = 10e-6,
        .stage = GPUECON_STAGE_FITTED,
        .source = "vTrain A100 multi-node runs (109) and Narayanan et al. SC21 Table 1 (A01-A10)",
    },
    {
        .arch = "hopper",
        .gemm_bf16 = 0.80,     /* fitted: DGX Cloud H100 BF16 runs A27, A29, A31, A35 */
        .gemm_fp8 = 0.60,      /* fitted: DGX Cloud H100 FP8 runs A26, A29, A30, A33-A35 */
        .gemm_fp4 = 0,
        .attn_flash = 0.55,    /* fitted with gemm_bf16 (long-sequence Llama runs) */
        .hbm = 0.85,
        .kernel_s = 3e-6,
        .layer_host_s = 0,
        .scaleup_busbw = 0.80, /* NCCL-tests all-reduce busbw ~360 GB/s of NVLink4 450 */
        .scaleout_busbw = 0.90,
        .coll_launch_s = 10e-6,
        .stage = GPUECON_STAGE_FITTED,
        .source = "NVIDIA dgxc-benchmarking H100 recipes A26-A35 (GPT-3 175B, Llama 3.1 8B/70B)",
    },
    {
        .arch = "blackwell",
        .gemm_bf16 = 0.80, .gemm_fp8 = 0.60, .gemm_fp4 = 0.50,
        .attn_flash = 0.55, .hbm = 0.85, .kernel_s = 3e-6, .layer_host_s = 0,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .stage = GPUECON_STAGE_ASSUMPTION,
        .source = "no calibration run: Hopper's fitted fractions of peak; FP4 assumed below FP8",
    },
    {
        .arch = "blackwell-ultra",
        .gemm_bf16 = 0.80, .gemm_fp8 = 0.60, .gemm_fp4 = 0.50,
        .attn_flash = 0.55, .hbm = 0.85, .kernel_s = 3e-6, .layer_host_s = 0,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .stage = GPUECON_STAGE_ASSUMPTION,
        .source = "no calibration run: Hopper's fitted fractions of peak; FP4 assumed below FP8",
    },
    {
        .arch = "cdna3",
        .gemm_bf16 = 0.80, .gemm_fp8 = 0.60, .gemm_fp4 = 0,
        .attn_flash = 0.55, .hbm = 0.85, .kernel_s = 3e-6, .layer_host_s = 0,
        .scaleup_busbw = 0.80, .scaleout_busbw = 0.90, .coll_launch_s = 10e-6,
        .stage = GPUECON_STAGE_ASSUMPTION,
        .source = "no calibration run: Hopper's fitted fractions of peak (ROCm maturity not modelled)",
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
