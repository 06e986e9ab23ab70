/*
 * validate_recipes.c — the NeMo / Megatron-Bridge performance-summary runs and the MoE runs
 * of 2024–26 (A41, A43, A44, A49, A50, A53, A66, A67; and the Megatron-Bridge 25.11 and 26.02
 * summaries on B200, B300, GB200, GB300 and H100, MB11-* and MB02-*), each predicted with
 * its published layout and its framework stack (data/stacks.yaml, docs/model.md §3.7), read
 * from the recipe, never tuned. The sources publish tokens/s/GPU, except model TFLOP/s/GPU for A66
 * and A67; those convert with the model's FLOPs per token with
 * causal attention and the MTP modules counted (Megatron-Bridge flops_formulas, docs/model.md
 * §3.6).
 */
#include "analysis/analysis.h"
#include "model/train.h"

#include <stdio.h>
#include <string.h>

typedef struct rcase {
    const char *id, *source, *model, *system, *stack;
    int gpus;
    gpuecon_precision prec;
    gpuecon_fp8_recipe recipe;
    int seq, gbs, tp, pp, vpp, cp, ep, mbs;
    gpuecon_recompute rc;
    int zero;
    bool dropout, pao;        /* dropout masks (GPT-3 recipes); precision-aware optimizer */
    gpuecon_dispatcher disp;  /* MoE rows */
    double published;         /* tokens/s/GPU; < 0: model TFLOP/s per GPU */
    bool fit;                 /* false until an efficiency is fitted on it (docs/model.md §3.6) */
    bool serial;              /* the published command or recipe sets no EP overlap (A67:
                                 A2A_OVERLAP=0; the recipes' moe_a2a_overlap False): the EP
                                 all-to-all is not overlapped */
    bool recompute_moe;       /* the published command recomputes the MoE layers too (A67's
                                 --recompute-modules layernorm moe) */
    int offload;              /* activations of this many layers per stage in host memory */
    bool no_mtp;              /* published "w/o MTP": no multi-token-prediction module */
    bool eager;               /* no CUDA graphs (A67: no --cuda-graph-impl; the recipes without
                                 cuda_graph_impl): kernels launch eagerly */
    bool no_tp_overlap;       /* the recipe switches TP communication overlap off */
    int scope;                /* partial CUDA graphs: the GPUECON_GRAPH_* parts captured (0: as the
                                 stack, or none when eager) */
} rcase;

#define NEMO2407 "NVIDIA/NeMo docs/source/performance/performance_summary.md @8e3d65dc (NeMo 24.07)"
#define MB2511 "Megatron-Bridge docs/performance-summary-archive.md §25.11 DGX-H100"
#define MB2606 "Megatron-Bridge docs/performance-summary-archive.md §26.06"
#define DSV3GB "Megatron-LM docs/discussions/deepseek-v3-gb200-optimization @eb0783b6 (HybridEP, CUDA graphs)"
#define QWEN "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @020b8136 (DeepEP, forced balance)"
/* The newest summaries (issue 11's unseen families; docs/model.md §3.6): each row's layout from the
 * table, the rest from the release's recipe files (scripts/performance/configs/...). */
#define MBA "Megatron-Bridge docs/performance-summary-archive.md @0a25f911"
#define MB11 MBA " §25.11"
#define MB02 MBA " §26.02"
#define OFF70 " (FSDP; offload from configs/llama/llama3_workload_base_configs.py @00919dcf)"
#define DSCFG "configs/deepseek/deepseek_workload_base_configs.py @04264182"
#define MOEG " (HybridEP, full-iteration graphs, EP overlap: " DSCFG ")"
#define MOED " (HybridEP, eager, no EP overlap: " DSCFG ")"
#define MOEQ " (NCCL all-to-all, eager, no EP overlap: configs/qwen/qwen3_workload_base_configs.py @01b2977e)"
/* 26.02's B300 DeepSeek-V3 row has the B200 layout (PP16 EP8), not the B300 preset of the recipe
 * file (PP8 VP2): the B200 preset's settings are assumed for it */
#define MOED3 " (the B200 preset's HybridEP, eager, no EP overlap assumed: its layout is the B200 preset's, " DSCFG ")"
/* partial CUDA graphs (Megatron-Core --cuda-graph-scope attn moe_router moe_preprocess): the routed
 * experts launch eagerly */
#define PART (GPUECON_GRAPH_ATTN | GPUECON_GRAPH_MOE_ROUTER | GPUECON_GRAPH_MOE_PREPROCESS)
#define MOEPQ                                                                                                    \
    " (HybridEP, CUDA graphs of attention, router and preprocessing, no EP overlap: "                            \
    "configs/qwen/qwen3_workload_base_configs.py @01b2977e)"
#define MOEPD " (HybridEP, CUDA graphs of attention, router and preprocessing, no EP overlap: " DSCFG ")"
#define RPRE (GPUECON_GRAPH_MOE_ROUTER | GPUECON_GRAPH_MOE_PREPROCESS)
#define MOEQ30                                                                                                   \
    " (HybridEP, CUDA graphs of router and preprocessing only, no EP overlap: "                                  \
    "configs/qwen/qwen3_workload_base_configs.py @01b2977e)"
#define MOEQ30H                                                                                                  \
    " (HybridEP, eager, no EP overlap: configs/qwen/qwen3_workload_base_configs.py @01b2977e; the table's "      \
    "layout, PP2 with EP8, not the preset's EP16)"
#define MOEH                                                                                                     \
    " (NCCL all-to-all with EP overlap, eager, TP overlap off: configs/qwen/qwen3_workload_base_configs.py "     \
    "@01b2977e, qwen3_llm_pretrain.py @05c0c90f)"
#define FP4 GPUECON_FP4
#define F8 GPUECON_FP8
#define MBS26 "megatron-bridge-2026"
#define HE GPUECON_DISPATCH_HYBRIDEP
/* a dense Megatron-Bridge row: sequence 8192, no EP, no recompute, held out */
#define D(id, src, model, sys, gpus, prec, rec, gbs, tp, pp, vp, cp, mbs, zero, off, pub)                          \
    {id, src, model, sys, MBS26, gpus, prec, rec, 8192, gbs, tp, pp, vp, cp, 1, mbs, RN, zero, false, false, NA, pub,  \
     false, false, false, off, false, false, false, 0}
#define FP8D GPUECON_FP8_DELAYED
#define FP8T GPUECON_FP8_TENSORWISE
#define MX GPUECON_FP8_MXFP8
#define RN GPUECON_RECOMPUTE_NONE
#define RS GPUECON_RECOMPUTE_SELECTIVE
#define NA GPUECON_DISPATCH_NCCL_A2A

static const rcase rcases[] = {
    {"A41", NEMO2407, "gpt3-175b", "hgx-h100", "nemo-2024", 128, GPUECON_FP8, FP8D, 2048, 256, 4, 8, 6, 1, 1, 1, RN,
     1, true, false, NA, 716, false, false, false, 0, false, false, false, 0},
    {"A43", NEMO2407, "llama3-70b", "hgx-h100", "nemo-2024", 64, GPUECON_FP8, FP8D, 8192, 128, 4, 4, 5, 2, 1, 1, RN,
     1, false, false, NA, 1524, false, false, false, 0, false, false, false, 0},
    {"A44", NEMO2407, "llama3-8b", "hgx-h100", "nemo-2024", 8, GPUECON_FP8, FP8D, 8192, 128, 1, 1, 1, 2, 1, 1, RN, 1,
     false, false, NA, 12273, false, false, false, 0, false, false, false, 0},
    {"A49", MB2511 " (FSDP)", "llama3-8b", "hgx-h100", "megatron-bridge-2026", 8, GPUECON_FP8, FP8T, 8192, 128, 1, 1,
     1, 1, 1, 1, RN, 3, false, false, NA, 14451, false, false, false, 0, false, false, false, 0},
    {"A50", MB2511, "llama3-70b", "hgx-h100", "megatron-bridge-2026", 64, GPUECON_FP8, FP8T, 8192, 128, 4, 8, 5, 1, 1,
     1, RN, 1, false, false, NA, 1602, false, false, false, 0, false, false, false, 0},
    {"A53-GB300", MB2606 " (NVFP4)", "llama3-405b", "gb300-nvl72", "megatron-bridge-2026", 256, GPUECON_FP4, MX,
     8192, 1536, 4, 8, 4, 1, 1, 1, RN, 1, false, false, NA, 1413, false, false, false, 0, false, false, false, 0},
    {"A53-GB200", MB2606 " (NVFP4)", "llama3-405b", "gb200-nvl72", "megatron-bridge-2026", 256, GPUECON_FP4, MX,
     8192, 1536, 4, 16, 8, 1, 1, 1, RN, 1, false, false, NA, 1166, false, false, false, 0, false, false, false, 0},
    {"A66", DSV3GB, "deepseek-v3", "gb200-nvl72", "megatron-bridge-2026", 256, GPUECON_FP8, MX, 4096, 2048, 1, 8, 4,
     1, 32, 1, RS, 1, false, true, GPUECON_DISPATCH_HYBRIDEP, -970.01, false, false, false, 0, false, false, false, 0},
    {"A67-16K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 16384, 256, 4,
     8, 4, 1, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -295, false, true, true, 0, false, true, false, 0},
    {"A67-32K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 32768, 256, 4,
     8, 4, 2, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -335, false, true, true, 0, false, true, false, 0},
    {"A67-64K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 65536, 256, 4,
     8, 4, 4, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -368, false, true, true, 0, false, true, false, 0},
    {"A67-128K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 131072, 256,
     4, 8, 4, 8, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -389, false, true, true, 0, false, true, false, 0},
    /* Megatron-Bridge 25.11 and 26.02, dense: Llama 3 8B (GBS 128, MBS 2), 70B (FSDP, MBS 2, GBS
     * 256; MXFP8/NVFP4 GBS 256 MBS 1), Llama 3.1 405B, each at its table's layout */
    D("MB11-8B-GB300-CS", MB11, "llama3-8b", "gb300-nvl72", 8, F8, FP8T, 128, 1, 1, 1, 1, 2, 1, 0, 37556),
    D("MB11-8B-GB300-MX", MB11, "llama3-8b", "gb300-nvl72", 8, F8, MX, 128, 1, 1, 1, 1, 2, 1, 0, 36108),
    D("MB11-8B-GB200-CS", MB11, "llama3-8b", "gb200-nvl72", 8, F8, FP8T, 128, 1, 1, 1, 1, 2, 1, 0, 31508),
    D("MB11-8B-GB200-MX", MB11, "llama3-8b", "gb200-nvl72", 8, F8, MX, 128, 1, 1, 1, 1, 2, 1, 0, 29789),
    D("MB11-8B-B200-CS", MB11, "llama3-8b", "hgx-b200", 8, F8, FP8T, 128, 1, 1, 1, 1, 2, 1, 0, 30624),
    D("MB11-8B-B200-MX", MB11, "llama3-8b", "hgx-b200", 8, F8, MX, 128, 1, 1, 1, 1, 2, 1, 0, 29521),
    D("MB11-70B-GB300-CS", MB11 OFF70, "llama3-70b", "gb300-nvl72", 64, F8, FP8T, 256, 1, 1, 1, 1, 2, 3, 20, 4520),
    D("MB11-70B-GB200-CS", MB11 OFF70, "llama3-70b", "gb200-nvl72", 64, F8, FP8T, 256, 1, 1, 1, 1, 2, 3, 40, 4312),
    D("MB11-405B-GB300-CS", MB11, "llama3-405b", "gb300-nvl72", 256, F8, FP8T, 1536, 2, 8, 4, 2, 1, 1, 0, 999),
    D("MB11-405B-GB200-CS", MB11, "llama3-405b", "gb200-nvl72", 256, F8, FP8T, 1536, 4, 16, 4, 1, 1, 1, 0, 813),
    D("MB11-405B-B200-CS", MB11, "llama3-405b", "hgx-b200", 128, F8, FP8T, 64, 4, 8, 8, 2, 1, 1, 0, 661),
    D("MB11-405B-B200-MX", MB11, "llama3-405b", "hgx-b200", 128, F8, MX, 64, 4, 8, 8, 2, 1, 1, 0, 624),
    D("MB11-405B-H100-CS", MB11, "llama3-405b", "hgx-h100", 1024, F8, FP8T, 512, 8, 8, 8, 2, 1, 1, 0, 292),
    D("MB02-70B-GB300-FP4", MB02, "llama3-70b", "gb300-nvl72", 64, FP4, MX, 256, 1, 4, 5, 1, 1, 1, 0, 6798),
    D("MB02-70B-GB200-FP4", MB02, "llama3-70b", "gb200-nvl72", 64, FP4, MX, 256, 2, 4, 5, 1, 1, 1, 0, 4458),
    D("MB02-70B-GB300-MX", MB02, "llama3-70b", "gb300-nvl72", 64, F8, MX, 256, 1, 4, 5, 1, 1, 1, 0, 4596),
    D("MB02-70B-GB200-MX", MB02, "llama3-70b", "gb200-nvl72", 64, F8, MX, 256, 2, 4, 5, 1, 1, 1, 0, 3613),
    D("MB02-70B-GB300-CS", MB02 OFF70, "llama3-70b", "gb300-nvl72", 64, F8, FP8T, 256, 1, 1, 1, 1, 2, 3, 20, 5003),
    D("MB02-70B-GB200-CS", MB02 OFF70, "llama3-70b", "gb200-nvl72", 64, F8, FP8T, 256, 1, 1, 1, 1, 2, 3, 40, 4040),
    D("MB02-70B-H100-CS", MB02, "llama3-70b", "hgx-h100", 64, F8, FP8T, 256, 4, 8, 5, 1, 1, 1, 0, 1621),
    D("MB02-405B-GB300-FP4", MB02, "llama3-405b", "gb300-nvl72", 256, FP4, MX, 1536, 4, 8, 4, 1, 1, 1, 0, 1333),
    D("MB02-405B-GB200-FP4", MB02, "llama3-405b", "gb200-nvl72", 256, FP4, MX, 1536, 4, 16, 8, 1, 1, 1, 0, 1076),
    D("MB02-405B-GB300-MX", MB02, "llama3-405b", "gb300-nvl72", 256, F8, MX, 1536, 2, 8, 4, 2, 1, 1, 0, 931),
    D("MB02-405B-GB200-MX", MB02, "llama3-405b", "gb200-nvl72", 256, F8, MX, 1536, 4, 16, 8, 1, 1, 1, 0, 786),
    D("MB02-405B-GB300-CS", MB02, "llama3-405b", "gb300-nvl72", 256, F8, FP8T, 1536, 4, 8, 4, 1, 1, 1, 0, 988),
    D("MB02-405B-GB200-CS", MB02, "llama3-405b", "gb200-nvl72", 256, F8, FP8T, 1536, 4, 16, 4, 1, 1, 1, 0, 793),
    D("MB02-405B-H100-CS", MB02, "llama3-405b", "hgx-h100", 1024, F8, FP8T, 1536, 8, 8, 8, 2, 1, 1, 0, 311),
    /* MoE rows whose recipe settings the model can state (GPT-OSS and the GB300 DeepSeek-V3 rows, with
     * their custom pipeline layout, are left out: docs/model.md 3.6). DeepSeek-V3 with the
     * precision-aware optimizer and recompute of mla_up_proj (selective); published tokens/s/GPU */
    {"MB11-DSV3-GB200-MX", MB11 MOEG, "deepseek-v3", "gb200-nvl72", MBS26, 256, F8, MX, 4096, 4096, 1, 8, 4, 1, 32, 1,
     RS, 1, false, true, HE, 4018, false, false, false, 0, true, false, false, 0},
    {"MB11-DSV3-B200-MX", MB11 MOED, "deepseek-v3", "hgx-b200", MBS26, 256, F8, MX, 4096, 2048, 1, 16, 1, 1, 8, 1, RS,
     1, false, true, HE, 2139, false, true, false, 0, false, true, false, 0},
    {"MB11-Q235-B200-MX", MB11 MOEQ, "qwen3-235b-a22b", "hgx-b200", MBS26, 64, F8, MX, 4096, 1024, 1, 8, 2, 1, 8, 1,
     RN, 1, false, false, NA, 3269, false, true, false, 0, false, true, false, 0},
    {"MB02-Q235-B200-MX", MB02 MOEQ, "qwen3-235b-a22b", "hgx-b200", MBS26, 256, F8, MX, 4096, 8192, 1, 8, 1, 1, 8, 1,
     RN, 1, false, false, NA, 3805, false, true, false, 0, false, true, false, 0},
    /* 26.02 DeepSeek-V3 rows count the MTP module: their model TFLOP per token (0.2600) is 25.11's
     * "w/ MTP" B200 row's (0.2604), not its "w/o MTP" GB200 row's (0.2496) */
    {"MB02-DSV3-GB200-MX", MB02 MOEG, "deepseek-v3", "gb200-nvl72", MBS26, 256, F8, MX, 4096, 4096, 1, 4, 4, 1, 64, 1,
     RS, 1, false, true, HE, 3955, false, false, false, 0, false, false, false, 0},
    {"MB02-DSV3-B200-MX", MB02 MOED, "deepseek-v3", "hgx-b200", MBS26, 256, F8, MX, 4096, 4096, 1, 16, 1, 1, 8, 1, RS,
     1, false, true, HE, 2689, false, true, false, 0, false, true, false, 0},
    {"MB02-DSV3-B300-MX", MB02 MOED3, "deepseek-v3", "hgx-b300", MBS26, 256, F8, MX, 4096, 4096, 1, 16, 1, 1, 8, 1, RS,
     1, false, true, HE, 2983, false, true, false, 0, false, true, false, 0},
    {"MB02-Q235-B300-MX", MB02 MOEQ, "qwen3-235b-a22b", "hgx-b300", MBS26, 256, F8, MX, 4096, 8192, 1, 8, 4, 1, 8, 1,
     RN, 1, false, false, NA, 2691, false, true, false, 0, false, true, false, 0},
    /* partial CUDA graphs on GB200 / GB300 (the layout from the table, the graph scope, dispatcher and
     * overlap from the recipe file) */
    {"MB11-DSV3-GB200-BF16", MB11 MOEPD, "deepseek-v3", "gb200-nvl72", MBS26, 256, GPUECON_BF16, FP8D, 4096, 4096, 1,
     4, 4, 1, 64, 1, RS, 1, false, true, HE, 3139, false, true, false, 0, true, false, false, PART},
    {"MB11-Q235-GB300-BF16", MB11 MOEPQ, "qwen3-235b-a22b", "gb300-nvl72", MBS26, 256, GPUECON_BF16, FP8D, 4096, 8192,
     1, 4, 12, 1, 16, 2, RN, 1, false, false, HE, 6131, false, true, false, 0, false, false, false, PART},
    {"MB11-Q235-GB200-BF16", MB11 MOEPQ, "qwen3-235b-a22b", "gb200-nvl72", MBS26, 256, GPUECON_BF16, FP8D, 4096, 8192,
     1, 8, 3, 1, 32, 1, RN, 1, false, false, HE, 4916, false, true, false, 0, false, false, false, PART},
    {"MB02-Q235-GB300-MX", MB02 MOEPQ, "qwen3-235b-a22b", "gb300-nvl72", MBS26, 256, F8, MX, 4096, 8192, 1, 4, 1, 1, 32,
     2, RN, 1, false, false, HE, 6583, false, true, false, 0, false, false, false, PART},
    {"MB02-Q235-GB200-MX", MB02 MOEPQ, "qwen3-235b-a22b", "gb200-nvl72", MBS26, 256, F8, MX, 4096, 8192, 1, 8, 1, 1, 32,
     1, RN, 1, false, false, HE, 5448, false, true, false, 0, false, false, false, PART},
    /* Qwen3-30B-A3B on 8 GPUs (EP8) and on 16 H100, each at its table's layout (which in several rows is not
     * the preset's: micro-batch 1 on B200 against the preset's 4, PP2 EP8 on H100 against EP16) with the
     * preset's other settings */
    {"MB11-Q30-GB300-MX", MB11 MOEQ30, "qwen3-30b-a3b", "gb300-nvl72", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 4,
     RN, 1, false, false, HE, 28934, false, true, false, 0, false, false, false, RPRE},
    {"MB11-Q30-GB200-MX", MB11 MOEQ30, "qwen3-30b-a3b", "gb200-nvl72", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 4,
     RN, 1, false, false, HE, 23766, false, true, false, 0, false, false, false, RPRE},
    {"MB02-Q30-GB300-MX", MB02 MOEQ30, "qwen3-30b-a3b", "gb300-nvl72", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 8,
     RN, 1, false, false, HE, 30376, false, true, false, 0, false, false, false, RPRE},
    {"MB02-Q30-GB200-MX", MB02 MOEQ30, "qwen3-30b-a3b", "gb200-nvl72", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 4,
     RN, 1, false, false, HE, 26084, false, true, false, 0, false, false, false, RPRE},
    {"MB02-Q30-B300-MX", MB02 MOEQ30, "qwen3-30b-a3b", "hgx-b300", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 8, RN,
     1, false, false, HE, 29521, false, true, false, 0, false, false, false, RPRE},
    {"MB11-Q30-B200-MX", MB11 MOEPQ, "qwen3-30b-a3b", "hgx-b200", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 1, RN, 1,
     false, false, HE, 9299, false, true, false, 0, false, false, false, PART},
    {"MB02-Q30-B200-MX", MB02 MOEPQ, "qwen3-30b-a3b", "hgx-b200", MBS26, 8, F8, MX, 4096, 512, 1, 1, 1, 1, 8, 1, RN, 1,
     false, false, HE, 9691, false, true, false, 0, false, false, false, PART},
    {"MB11-Q30-H100-CS", MB11 MOEQ30H, "qwen3-30b-a3b", "hgx-h100", MBS26, 16, F8, FP8T, 4096, 512, 1, 2, 24, 1, 8, 2,
     RN, 1, false, false, HE, 5275, false, true, false, 0, false, true, false, 0},
    {"MB02-Q30-H100-CS", MB02 MOEQ30H, "qwen3-30b-a3b", "hgx-h100", MBS26, 16, F8, FP8T, 4096, 1024, 1, 2, 12, 1, 8, 1,
     RN, 1, false, false, HE, 5113, false, true, false, 0, false, true, false, 0},
    /* Qwen3-235B on H100: the expert group (EP 32) spans four 8-GPU servers */
    {"MB11-Q235-H100-CS", MB11 MOEH, "qwen3-235b-a22b", "hgx-h100", MBS26, 256, F8, FP8T, 4096, 2048, 2, 8, 4, 1, 32,
     1, RN, 1, false, false, NA, 1575, false, false, false, 0, false, true, true, 0},
    {"MB02-Q235-H100-CS", MB02 MOEH, "qwen3-235b-a22b", "hgx-h100", MBS26, 256, F8, FP8T, 4096, 8192, 2, 8, 4, 1, 32,
     1, RN, 1, false, false, NA, 1633, false, false, false, 0, false, true, true, 0},
};

static void request_of(const gpuecon_catalog *cat, const rcase *v, gpuecon_train_request *q)
{
    gpuecon_train_request_init(q);
    gpuecon_train_request_apply_stack(q, gpuecon_catalog_stack(cat, v->stack));
    q->model = gpuecon_catalog_model(cat, v->model);
    q->system = gpuecon_catalog_system(cat, v->system);
    q->gpus = v->gpus, q->precision = v->prec, q->fp8_recipe = v->recipe;
    q->seq = v->seq, q->gbs = v->gbs;
    q->tp = v->tp, q->pp = v->pp, q->vpp = v->vpp, q->cp = v->cp, q->mbs = v->mbs;
    q->ep = v->ep, q->etp = 1;
    q->recompute = v->rc, q->zero = v->zero;
    q->tp_overlap = q->tp_overlap == GPUECON_SEARCH ? v->tp > 1 : 0;
    q->dropout = v->dropout;
    if (v->pao)
        q->optim_state_bytes = 2;
    q->dispatcher = v->disp;
    q->balanced_routing = true; /* the published MoE benchmarks force-balance the routing */
    q->recompute_moe = v->recompute_moe;
    if (v->serial) /* no EP overlap */
        q->a2a_overlap = 0;
    if (v->eager)
        q->cuda_graphs = false;
    if (v->no_tp_overlap)
        q->tp_overlap = 0;
    q->cuda_graph_scope = v->scope;
    q->offload_layers = v->offload;
    if (v->no_mtp)
        q->mtp = 0;
}

int validate_recipe_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick,
                         const gpuecon_efficiency *tab, size_t n_eff, int kind, gpuecon_validate_row *rows,
                         size_t cap, size_t *n, gpuecon_error *err)
{
    for (size_t i = 0; i < sizeof rcases / sizeof rcases[0] && *n < cap; i++) {
        const rcase *v = &rcases[i];
        gpuecon_train_request q;
        request_of(cat, v, &q);
        if (kind >= 0 && q.model && (q.model->experts > 0) != (kind == 1))
            continue;
        if (!q.model || !q.system || !q.stack)
            return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s, %s or %s", v->model,
                           v->system, v->stack);
        q.eff = pick(q.system->gpu, tab, n_eff);
        gpuecon_train_result r;
        int rc = gpuecon_train_predict(ctx, &q, &r, err);
        if (rc && rc != GPUECON_E_INFEASIBLE)
            return rc;
        gpuecon_validate_row *row = validate_row_next(rows, n, v->id, q.model->experts > 0 ? "moe" : "recipes", v->source);
        snprintf(row->what, sizeof row->what, "%s, %d x %s, %s", q.model->name, v->gpus, q.system->gpu_name,
                 gpuecon_precision_name(v->prec));
        snprintf(row->config, sizeof row->config, "TP%d PP%d VP%d CP%d EP%d DP%d %s", v->tp, v->pp, v->vpp, v->cp,
                 v->ep, r.par.dp, v->stack);
        row->fitted_on = v->fit;
        /* model TFLOP/s with causal attention counted (Megatron-Bridge flops_formulas:
         * causal_self_attn 0.5), the MTP modules included */
        double causal = r.tokens_per_s_per_gpu > 0 ? r.mfu_causal * r.peak_flops / r.tokens_per_s_per_gpu : 0;
        row->published = v->published > 0 ? v->published : -v->published * 1e12 / causal;
        row->predicted = r.tokens_per_s_per_gpu;
        row->rel_err = row->predicted / row->published - 1;
        row->fits = r.fits;
        validate_set_train(row, &q, &r);
    }
    return GPUECON_OK;
}

int validate_recipe_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick, const char *id,
                           const gpuecon_calibration *cal, validate_replay *out, gpuecon_error *err)
{
    for (size_t i = 0; i < sizeof rcases / sizeof rcases[0]; i++) {
        const rcase *v = &rcases[i];
        if (!validate_id_is(v->id, id))
            continue;
        gpuecon_train_request q;
        request_of(cat, v, &q);
        if (!q.model || !q.system || !q.stack)
            return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s, %s or %s", v->model,
                           v->system, v->stack);
        q.eff = pick(q.system->gpu, NULL, 0);
        q.calibration = cal;
        gpuecon_train_result r;
        int rc = gpuecon_train_predict(ctx, &q, &r, err);
        if (rc && rc != GPUECON_E_INFEASIBLE)
            return rc;
        memset(out, 0, sizeof *out);
        out->figure = r.tokens_per_s_per_gpu;
        out->system = q.system->name;
        out->stack = q.stack->name;
        out->prec = q.precision;
        out->moe = q.model->experts > 0;
        out->measurable = true;
        validate_frac_max_eff(q.eff ? q.eff : gpuecon_efficiency_for(q.system->gpu), out->frac_max);
        return GPUECON_OK;
    }
    return err_set(err, GPUECON_E_NOTFOUND, id, 0, 0, "no recipe row %s", id);
}
