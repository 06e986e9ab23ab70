/*
 * validate.c — the training model against every published run with a known configuration.
 *
 * Three calibration sets (`gpuecon validate` lists each row with its source): the 109 A100 Megatron-LM runs of
 * vTrain (data/calibration/vtrain-a100-multinode.csv, compiled in), Narayanan et al. SC21
 * Table 1 (A01-A10) and the NVIDIA DGX Cloud H100 recipes (A26-A35); and, held out of the
 * fit, SemiAnalysis's weak-scaling figures for Llama 3 405B and 70B on H100 (20 Aug 2025),
 * and published runs never fitted on (group
 * "heldout"): Llama 3.1 405B on GB200 (another GPU generation) and MT-NLG 530B on A100
 * (another framework). Each case runs through the framework stack of its era (data/stacks.yaml:
 * megatron-2021, megatron-ds-2023 for vTrain's runs, or nemo-2024, named in the row's config) and states on top what its own run did
 * (recompute, ZeRO stage, DP overlap, dropout), read from the run's scripts, never tuned: a case
 * differs from another only by what was run.
 * Mixture-of-experts runs (group "moe", docs/model.md §4.5) state their framework the same
 * way: token drop or dropless, eager or CUDA graphs, all-to-all overlap; SemiAnalysis's July
 * 2025 DeepSeek-V3 figures have no published layout and are taken at the May layouts.
 */
#include "analysis/analysis.h"
#include "model/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef enum { FW_MEGATRON_2021, FW_NEMO_2024 } framework; /* the stacks megatron-2021, nemo-2024 */

typedef struct vcase {
    const char *id, *group, *source;
    const char *model;        /* catalog name, or NULL for an inline GPT shape */
    int layers, hidden, heads;
    const char *system;
    int gpus;
    gpuecon_precision prec;
    int seq, gbs, tp, pp, vpp, cp, mbs;
    framework fw;
    bool dp_overlap, dropout;
    double published;         /* tokens/s/GPU; < 0: TFLOP/s per GPU by Narayanan eq. (3) */
    double mfu;               /* > 0: published is derived from this MFU (SemiAnalysis rows) */
    bool fit;
} vcase;

#define NARA "Narayanan et al. SC21 Table 1 (Megatron-LM cases_april2021.png; sc21/run_table_1.sh)"
#define DGXC "NVIDIA/dgxc-benchmarking README"

static const vcase cases[] = {
    /* Narayanan 2021: fp16, full ("uniform") recompute, torch DDP (overlapped) up to 18B,
     * Megatron local DDP (not overlapped) above; published: achieved TFLOP/s per GPU */
    {"A01", "narayanan", NARA, NULL, 24, 2304, 24, "hgx-a100", 32, GPUECON_BF16, 2048, 512, 1, 1, 1, 1, 16, FW_MEGATRON_2021, true, true, -137, 0, true},
    {"A02", "narayanan", NARA, NULL, 30, 3072, 32, "hgx-a100", 64, GPUECON_BF16, 2048, 512, 2, 1, 1, 1, 16, FW_MEGATRON_2021, true, true, -138, 0, true},
    {"A03", "narayanan", NARA, NULL, 36, 4096, 32, "hgx-a100", 128, GPUECON_BF16, 2048, 512, 4, 1, 1, 1, 16, FW_MEGATRON_2021, true, true, -142, 0, true},
    {"A04", "narayanan", NARA, NULL, 40, 6144, 48, "hgx-a100", 256, GPUECON_BF16, 2048, 1024, 8, 1, 1, 1, 8, FW_MEGATRON_2021, true, true, -135, 0, true},
    {"A05", "narayanan", NARA, NULL, 48, 8192, 64, "hgx-a100", 512, GPUECON_BF16, 2048, 1536, 8, 2, 1, 1, 4, FW_MEGATRON_2021, false, true, -138, 0, true},
    {"A06", "narayanan", NARA, NULL, 60, 10240, 80, "hgx-a100", 1024, GPUECON_BF16, 2048, 1792, 8, 4, 3, 1, 2, FW_MEGATRON_2021, false, true, -140, 0, true},
    {"A07", "narayanan", NARA, NULL, 80, 12288, 96, "hgx-a100", 1536, GPUECON_BF16, 2048, 2304, 8, 8, 2, 1, 2, FW_MEGATRON_2021, false, true, -148, 0, true},
    {"A08", "narayanan", NARA, NULL, 96, 16384, 128, "hgx-a100", 1920, GPUECON_BF16, 2048, 2160, 8, 16, 2, 1, 1, FW_MEGATRON_2021, false, true, -155, 0, true},
    {"A09", "narayanan", NARA, NULL, 105, 20480, 128, "hgx-a100", 2520, GPUECON_BF16, 2048, 2520, 8, 35, 3, 1, 1, FW_MEGATRON_2021, false, true, -163, 0, true},
    {"A10", "narayanan", NARA, NULL, 128, 25600, 160, "hgx-a100", 3072, GPUECON_BF16, 2048, 3072, 8, 64, 1, 1, 1, FW_MEGATRON_2021, false, true, -163, 0, true},
    /* DGX Cloud H100, NeMo: flash attention, SP, TP comm overlap, distributed optimizer,
     * overlapped DP, no recompute; tokens/s/GPU = aggregate / GPUs */
    {"A26", "dgxc", DGXC " v25.02 nemo_megatron/README_175b.md", "gpt3-175b", 0, 0, 0, "hgx-h100", 128, GPUECON_FP8, 2048, 256, 4, 8, 12, 1, 1, FW_NEMO_2024, true, true, 728.0, 0, true},
    {"A27", "dgxc", DGXC " v25.02 nemo_megatron/README_175b.md", "gpt3-175b", 0, 0, 0, "hgx-h100", 128, GPUECON_BF16, 2048, 256, 4, 8, 12, 1, 1, FW_NEMO_2024, true, true, 493.0, 0, true},
    {"A29-fp8", "dgxc", DGXC " v24.11.1 nemo_megatron/README_175b.md", "gpt3-175b", 0, 0, 0, "hgx-h100", 128, GPUECON_FP8, 2048, 256, 4, 8, 12, 1, 1, FW_NEMO_2024, true, true, 691.9, 0, true},
    {"A29-bf16", "dgxc", DGXC " v24.11.1 nemo_megatron/README_175b.md", "gpt3-175b", 0, 0, 0, "hgx-h100", 128, GPUECON_BF16, 2048, 256, 4, 8, 12, 1, 1, FW_NEMO_2024, true, true, 459.7, 0, true},
    {"A30", "dgxc", DGXC " v25.02 llama3.1/README_70b.md", "llama3-70b", 0, 0, 0, "hgx-h100", 64, GPUECON_FP8, 8192, 128, 4, 4, 5, 2, 1, FW_NEMO_2024, true, false, 1566.8, 0, true},
    {"A31", "dgxc", DGXC " v25.02 llama3.1/README_70b.md", "llama3-70b", 0, 0, 0, "hgx-h100", 64, GPUECON_BF16, 8192, 128, 4, 4, 5, 2, 1, FW_NEMO_2024, true, false, 1121.2, 0, true},
    {"A33", "dgxc", DGXC " v25.04 llama3.1/README.md", "llama3-70b", 0, 0, 0, "hgx-h100", 64, GPUECON_FP8, 8192, 128, 4, 8, 5, 1, 1, FW_NEMO_2024, true, false, 1661.7, 0, true},
    {"A34", "dgxc", DGXC " v25.04 llama3.1/README.md", "llama3-8b", 0, 0, 0, "hgx-h100", 128, GPUECON_FP8, 8192, 2048, 1, 1, 1, 2, 1, FW_NEMO_2024, true, false, 13739.2, 0, true},
    {"A35-bf16", "dgxc", DGXC " v25.04 llama3.1/README.md", "llama3-8b", 0, 0, 0, "hgx-h100", 128, GPUECON_BF16, 8192, 2048, 1, 1, 1, 2, 1, FW_NEMO_2024, true, false, 10630.3, 0, true},
    {"A35-fp8-8", "dgxc", DGXC " v25.04 llama3.1/README.md", "llama3-8b", 0, 0, 0, "hgx-h100", 8, GPUECON_FP8, 8192, 128, 1, 1, 1, 2, 1, FW_NEMO_2024, true, false, 14048.5, 0, true},
    /* SemiAnalysis 20 Aug 2025, held out: weak scaling of Llama 3.1 405B (BF16) and 70B (FP8) */
    {"L405-H100-576", "seed", "SemiAnalysis 20 Aug 2025, Llama 3 405B weak scaling (dgxc llama3.1 405B recipe: TP8 PP9 CP2 VP7)", "llama3-405b", 0, 0, 0, "hgx-h100", 576, GPUECON_BF16, 8192, 252, 8, 9, 7, 2, 1, FW_NEMO_2024, true, false, 0, 0.545, false},
    {"L405-H100-2304", "seed", "SemiAnalysis 20 Aug 2025, Llama 3 405B weak scaling (dgxc llama3.1 405B recipe: TP8 PP9 CP2 VP7)", "llama3-405b", 0, 0, 0, "hgx-h100", 2304, GPUECON_BF16, 8192, 1008, 8, 9, 7, 2, 1, FW_NEMO_2024, true, false, 0, 0.542, false},
    {"L70-H100-64", "seed", "SemiAnalysis 20 Aug 2025, Llama 3 70B weak scaling (dgxc llama3.1 70B recipe: TP4 PP4 CP2 VP5)", "llama3-70b", 0, 0, 0, "hgx-h100", 64, GPUECON_FP8, 8192, 128, 4, 4, 5, 2, 1, FW_NEMO_2024, true, false, 1567, 0, false},
    {"L70-H100-2048", "seed", "SemiAnalysis 20 Aug 2025, Llama 3 70B weak scaling (dgxc llama3.1 70B recipe: TP4 PP4 CP2 VP5)", "llama3-70b", 0, 0, 0, "hgx-h100", 2048, GPUECON_FP8, 8192, 4096, 4, 4, 5, 2, 1, FW_NEMO_2024, true, false, 1462, 0, false},
    /* held out, another GPU: Llama 3.1 405B BF16 on GB200 NVL72 (TP4 PP8 CP2 VP8, GBS = GPUs/2);
     * step 9.347 s at 128 GPUs (the README's worked example) and 9.479 s at 256 (its
     * parse_train_timing example); tokens/s/GPU = 8192 x GBS / step / GPUs */
    {"L405-GB200-128", "heldout", DGXC " llama3.1/README.md (2025, commit 14fb6ae)", "llama3-405b", 0, 0, 0, "gb200-nvl72", 128, GPUECON_BF16, 8192, 64, 4, 8, 8, 2, 1, FW_NEMO_2024, true, false, 8192.0 * 64 / 9.347 / 128, 0, false},
    {"L405-GB200-256", "heldout", DGXC " llama3.1/README.md (2025, commit 14fb6ae)", "llama3-405b", 0, 0, 0, "gb200-nvl72", 256, GPUECON_BF16, 8192, 128, 4, 8, 8, 2, 1, FW_NEMO_2024, true, false, 8192.0 * 128 / 9.479 / 256, 0, false},
    /* held out, another framework: MT-NLG 530B (Smith et al. 2022 §2.4) on 280/350/420 DGX A100
     * (Selene), Megatron-DeepSpeed with DeepSpeed's pipeline (not interleaved), TP8 PP35, MBS 1,
     * GBS 1920, full recompute; 60.1 / 50.2 / 44.4 s per iteration (126 / 121 / 113 TFLOP/s) */
#define MTNLG "Smith et al. 2022 (MT-NLG) Sec. 2.4, as restated in cli99/llm-analysis examples/megatron-turing-nlg"
    {"MTNLG-2240", "heldout", MTNLG, NULL, 105, 20480, 128, "hgx-a100", 2240, GPUECON_BF16, 2048, 1920, 8, 35, 1, 1, 1, FW_MEGATRON_2021, false, true, 1920.0 * 2048 / 60.1 / 2240, 0, false},
    {"MTNLG-2800", "heldout", MTNLG, NULL, 105, 20480, 128, "hgx-a100", 2800, GPUECON_BF16, 2048, 1920, 8, 35, 1, 1, 1, FW_MEGATRON_2021, false, true, 1920.0 * 2048 / 50.2 / 2800, 0, false},
    {"MTNLG-3360", "heldout", MTNLG, NULL, 105, 20480, 128, "hgx-a100", 3360, GPUECON_BF16, 2048, 1920, 8, 35, 1, 1, 1, FW_MEGATRON_2021, false, true, 1920.0 * 2048 / 44.4 / 3360, 0, false},
};

/* Mixture-of-experts runs. Sizes 0 are searched; a2a -1 searched. */
typedef struct mcase {
    const char *id, *source, *model, *system;
    int gpus;
    gpuecon_precision prec;
    int seq, gbs, tp, pp, vpp, cp, ep, etp, mbs;
    double cf;           /* capacity factor (NeMo's MegatronTokenDropCallback: 1.0, padded); 0 dropless */
    int a2a;             /* all-to-all overlap: 0, 1, -1 searched */
    bool graphs, tp_overlap;
    int rc;              /* recompute, or GPUECON_SEARCH */
    double published;    /* tokens/s/GPU */
    bool fit;
    bool unfused;        /* attention core not fused (GB200 DeepSeek recipes recompute core_attn) */
} mcase;

#define DSV3_MAY DGXC " v25.05 deepseek_v3/pretraining/README.md (NeMo 25.04.01: token drop, no CUDA graphs)"
#define L4_MAY DGXC " v25.05 llama4/README.md"
/* The July figures give no layout; the dgxc release after v25.05 (deepseek_v3/pretrain/README.md) keeps
 * the same layouts, so the July figures are taken as the same jobs on newer software: CUDA
 * graphs and dispatch/combine overlapped with compute (docs/model.md §4.5) */
#define DSV3_JUL "SemiAnalysis 20 Aug 2025, DeepSeek-V3 July 2025 software; layout of dgxc deepseek_v3/pretrain/README.md"
static const mcase moe_cases[] = {
    {"A38", DSV3_MAY, "deepseek-v3", "hgx-h100", 1024, GPUECON_BF16, 4096, 8192, 2, 16, 1, 1, 64, 1, 1, 1.0, 0,
     false, false, GPUECON_RECOMPUTE_SELECTIVE, 629.7, true, false},
    {"A39", DSV3_MAY, "deepseek-v3", "gb200-nvl72", 128, GPUECON_BF16, 4096, 1024, 2, 4, 1, 1, 32, 1, 1, 1.0, 0,
     false, false, GPUECON_RECOMPUTE_SELECTIVE, 959.0, true, true},
    {"DSV3-Jul-H100", DSV3_JUL, "deepseek-v3", "hgx-h100", 1024, GPUECON_BF16, 4096, 8192, 2, 16, 1, 1, 64, 1, 1, 1.0,
     1, true, false, GPUECON_RECOMPUTE_SELECTIVE, 842, true, false},
    {"DSV3-Jul-GB200", DSV3_JUL, "deepseek-v3", "gb200-nvl72", 128, GPUECON_BF16, 4096, 1024, 2, 4, 1, 1, 32, 1, 1, 1.0,
     1, true, false, GPUECON_RECOMPUTE_SELECTIVE, 2138, true, true},
    {"L4-H100-fp8", L4_MAY " (FP8 with CUDA graphs); SemiAnalysis 20 Aug 2025, Llama 4 Maverick FP8", "llama4-maverick", "hgx-h100", 512, GPUECON_FP8, 8192,
     1024, 4, 1, 1, 1, 128, 4, 1, 0, 0, true, true, GPUECON_RECOMPUTE_NONE, 4251.1, true, false},
    {"L4-GB200-fp8", L4_MAY "; SemiAnalysis 20 Aug 2025, Llama 4 Maverick FP8", "llama4-maverick", "gb200-nvl72", 128, GPUECON_FP8, 8192, 1024, 1, 2, 12, 1,
     64, 1, 1, 0, 0, false, false, GPUECON_RECOMPUTE_NONE, 10756.8, true, false},
    /* held out: the same READMEs' other runs, never fitted on */
    {"A38-512", DSV3_MAY, "deepseek-v3", "hgx-h100", 512, GPUECON_BF16, 4096, 4096, 2, 8, 1, 1, 64, 1, 1, 1.0, 0,
     false, false, GPUECON_RECOMPUTE_SELECTIVE, 669.4, false, false},
    {"A39-512", DSV3_MAY, "deepseek-v3", "gb200-nvl72", 512, GPUECON_BF16, 4096, 4096, 2, 4, 1, 1, 64, 1, 1, 1.0, 0,
     false, false, GPUECON_RECOMPUTE_SELECTIVE, 956.1, false, true},
    {"L4-H100-bf16", L4_MAY, "llama4-maverick", "hgx-h100", 512, GPUECON_BF16, 8192, 1024, 4, 1, 1, 1, 128, 4, 1, 0,
     0, false, true, GPUECON_RECOMPUTE_NONE, 3702.8, false, false},
    {"L4-GB200-bf16", L4_MAY, "llama4-maverick", "gb200-nvl72", 128, GPUECON_BF16, 8192, 1024, 1, 2, 12, 1, 64, 1,
     1, 0, 0, false, false, GPUECON_RECOMPUTE_NONE, 8419.9, false, false},
};

/* A GPT shape of the 2021-23 papers: 4h GELU MLP, MHA, tied embeddings. */
static void gpt_shape(gpuecon_model *m, int layers, int hidden, int heads, int seq, int vocab, char *name,
                      size_t cap)
{
    memset(m, 0, sizeof *m);
    snprintf(name, cap, "gpt-L%d-h%d", layers, hidden);
    m->name = name;
    m->layers = layers;
    m->hidden = hidden;
    m->heads = heads;
    m->kv_heads = heads;
    m->head_dim = hidden / heads;
    m->ffn_hidden = 4 * hidden;
    m->ffn = GPUECON_FFN_GELU;
    m->vocab = vocab;
    m->tied_embeddings = true;
    m->max_seq = seq;
    m->attention = GPUECON_ATTN_MHA;
}

/* Narayanan et al. eq. (3): FLOPs per token with full recompute, 96·l·h²·(1 + s/6h + V/16lh). */
static double narayanan_tokens(double tflops, const gpuecon_model *m, double seq)
{
    double l = m->layers, h = m->hidden, V = m->vocab;
    return tflops * 1e12 / (96 * l * h * h * (1 + seq / (6 * h) + V / (16 * l * h)));
}

static const gpuecon_efficiency *pick_eff(const gpuecon_gpu *gpu, const gpuecon_efficiency *tab, size_t n)
{
    for (size_t i = 0; tab && i < n; i++)
        if (gpu && gpu->arch && tab[i].arch && strcmp(tab[i].arch, gpu->arch) == 0)
            return &tab[i];
    return gpuecon_efficiency_for(gpu);
}

typedef struct run_in {
    const gpuecon_model *model;
    const gpuecon_system *sys;
    int gpus, seq, gbs, tp, pp, vpp, cp, mbs;
    gpuecon_precision prec;
    framework fw;
    bool dp_overlap, dropout;
    const gpuecon_stack *stack;
    const gpuecon_calibration *cal; /* a candidate calibration (validate --leave-one-out); NULL: none */
} run_in;

static int predict(gpuecon_ctx *ctx, const run_in *in, const gpuecon_efficiency *tab, size_t n_eff,
                   gpuecon_train_request *qout, gpuecon_train_result *r, gpuecon_error *err)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    if (in->stack)
        gpuecon_train_request_apply_stack(&q, in->stack);
    q.model = in->model;
    q.system = in->sys;
    q.gpus = in->gpus;
    q.precision = in->prec;
    q.seq = in->seq;
    q.gbs = in->gbs;
    q.tp = in->tp, q.pp = in->pp, q.vpp = in->vpp, q.cp = in->cp, q.mbs = in->mbs, q.ep = 1;
    q.dp_overlap = in->dp_overlap;
    q.dropout = in->dropout;
    q.eff = pick_eff(in->sys->gpu, tab, n_eff);
    q.calibration = in->cal;
    /* the framework facts come from the stack; the layout facts below from the run */
    if (in->fw == FW_MEGATRON_2021) {
        q.recompute = GPUECON_RECOMPUTE_FULL;
        q.zero = 0;
    } else {
        q.recompute = GPUECON_RECOMPUTE_NONE;
        q.zero = 1;
    }
    int rc = gpuecon_train_predict(ctx, &q, r, err);
    *qout = q;
    return rc == GPUECON_E_INFEASIBLE ? GPUECON_OK : rc;
}

/* vTrain runs whose published step contradicts a neighbour that differs in one respect
 * (docs/model.md §3.6): the inconsistency is in the data, whatever the model. */
static const struct {
    const char *id, *note;
} vtrain_notes[] = {
    {"V016", "V017 is the same run at MBS 32 (2 micro-batches): 4,972 ms against this run's 9,839 ms, same FLOPs and "
             "DP traffic"},
    {"V014", "TP4 at MBS 4-32 within 4-6%, TP2 and TP16 at MBS 2 on trend: only this TP4 MBS-2 run is slow"},
    {"V021", "the TP8 step grows 3.3 s from MBS 4 to 2 but 0.4 s from 8 to 4 (same FLOPs per step)"},
    {"V042", "V048 (the same at MBS 3, larger bubble) takes 19,067 ms, V047 (TP4 PP8 MBS 2) 16,071 ms, this one "
             "21,890 ms"},
    {"V044", "V050/V075 (TP4/TP8 PP16 MBS 2) take 14,530 / 15,639 ms, on trend; this TP2 run 23,748 ms"},
    {"V051", "V074 (TP1 PP16 MBS 3: twice the work per micro-batch per GPU) takes 19,991 ms, this TP2 run 26,189 ms"},
    {"V081", "V074 (TP1 PP16 MBS 3: same FLOPs per GPU and micro-batch, same 16 micro-batches) takes 19,991 ms; the "
             "288 TP2 all-reduces of 201 MB this run adds take 0.3-0.6 s, not 7.2 s"},
};

static void vtrain_note(gpuecon_validate_row *row)
{
    for (size_t i = 0; i < sizeof vtrain_notes / sizeof vtrain_notes[0]; i++)
        if (strcmp(row->id, vtrain_notes[i].id) == 0)
            snprintf(row->note, sizeof row->note, "%s", vtrain_notes[i].note);
}

static void fill_row(gpuecon_validate_row *row, const run_in *in, const gpuecon_train_request *q,
                     const gpuecon_train_result *r, double published)
{
    validate_set_train(row, q, r);
    snprintf(row->what, sizeof row->what, "%s, %d x %s, %s", in->model->name, in->gpus, in->sys->gpu_name,
             gpuecon_precision_name(in->prec));
    snprintf(row->config, sizeof row->config, "TP%d PP%d VP%d CP%d DP%d MBS%d %s", in->tp, in->pp, in->vpp, in->cp,
             r->par.dp, in->mbs, in->stack ? in->stack->name : "");
    row->published = published;
    row->predicted = r->tokens_per_s_per_gpu;
    row->rel_err = published > 0 ? r->tokens_per_s_per_gpu / published - 1 : 0;
    row->fits = r->fits;
}

/* The run of a named case (*local holds an inline GPT shape, named in name[cap]). */
static int case_in(const gpuecon_catalog *cat, const vcase *v, run_in *in, gpuecon_model *local, char *name,
                   size_t cap, gpuecon_error *err)
{
    *in = (run_in){NULL, gpuecon_catalog_system(cat, v->system), v->gpus, v->seq, v->gbs, v->tp, v->pp, v->vpp,
                   v->cp, v->mbs, v->prec, v->fw, v->dp_overlap, v->dropout,
                   gpuecon_catalog_stack(cat, v->fw == FW_NEMO_2024 ? "nemo-2024" : "megatron-2021"), NULL};
    if (v->model)
        in->model = gpuecon_catalog_model(cat, v->model);
    else {
        gpt_shape(local, v->layers, v->hidden, v->heads, v->seq, 51200, name, cap);
        in->model = local;
    }
    if (!in->model || !in->sys || !in->stack)
        return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s, %s or stack %s",
                       v->model ? v->model : "(inline)", v->system,
                       v->fw == FW_NEMO_2024 ? "nemo-2024" : "megatron-2021");
    return GPUECON_OK;
}

static int run_cases(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_efficiency *tab, size_t n_eff,
                     gpuecon_validate_row *rows, size_t cap, size_t *n, gpuecon_error *err)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && *n < cap; i++) {
        const vcase *v = &cases[i];
        gpuecon_model local;
        char name[48];
        run_in in;
        int rc = case_in(cat, v, &in, &local, name, sizeof name, err);
        if (rc)
            return rc;
        gpuecon_train_request q;
        gpuecon_train_result r;
        if ((rc = predict(ctx, &in, tab, n_eff, &q, &r, err)))
            return rc;
        double pub = v->published;
        if (pub < 0)
            pub = narayanan_tokens(-pub, in.model, v->seq);
        if (v->mfu > 0) /* NeMo's MFU convention: full attention, LM head, dense peak */
            pub = gpuecon_tokens_per_s_from_mfu(v->mfu, r.model_flops_per_token, r.peak_flops);
        gpuecon_validate_row *row = validate_row_next(rows, n, v->id, v->group, v->source);
        row->fitted_on = v->fit;
        fill_row(row, &in, &q, &r, pub);
    }
    return GPUECON_OK;
}

/* The vTrain CSV: params, GPUs, global batch, micro batch, hidden, heads, layers, sequence,
 * TP, DP, PP, iteration time (ms). Run with Megatron-DeepSpeed (vTrain data/README.md),
 * activation checkpointing on and no gradient bucketing (use_checkpoint true,
 * use_gradient_bucket false in every vTrain validation config), 1F1B, through the stack
 * megatron-ds-2023: 16-bit, full recompute, unfused attention, DP not overlapped, as Narayanan's
 * larger runs, and the input-gradient all-reduce of each column-parallel linear beside its
 * weight-gradient GEMM (Megatron-DeepSpeed's async_tensor_model_parallel_allreduce default). */
/* The vTrain table, its cluster (*vsys) and stack. */
static int vtrain_setup(const gpuecon_catalog *cat, const calib_vtrain_row **rows_in, size_t *n_rows,
                        gpuecon_system *vsys, const gpuecon_stack **stack, gpuecon_error *err)
{
    *rows_in = catalog_vtrain(cat, n_rows);
    if (!*rows_in)
        return err_set(err, GPUECON_E_INTERNAL, CALIB_VTRAIN_PATH, 0, 0, "not compiled in");
    const gpuecon_system *base = gpuecon_catalog_system(cat, "hgx-a100");
    *stack = gpuecon_catalog_stack(cat, "megatron-ds-2023");
    if (!base || !*stack)
        return err_set(err, GPUECON_E_NOTFOUND, base ? "megatron-ds-2023" : "hgx-a100", 0, 0,
                       "the catalog lacks %s", base ? "stack megatron-ds-2023" : "hgx-a100");
    /* vTrain's cluster as its validation configs describe it
     * (config/validation/multi/config_val_<model>_<tp>_<dp>_<pp>_<mbs>.json): nodes of 8 A100
     * with inter_node_bandwidth 800 Gbit/s per node, 12.5 GB/s per GPU (half of a DGX A100's
     * 8 x 200 Gbit/s); NVLink as any HGX A100 */
    *vsys = *base;
    vsys->name = "a100-vtrain-cluster";
    vsys->scaleout_gbps = 800.0 / 8 / 8;
    return GPUECON_OK;
}

/* The run of one vTrain row (*m holds its GPT shape, named in name[cap]). */
static void vtrain_in(const calib_vtrain_row *row, const gpuecon_system *sys, const gpuecon_stack *stack, run_in *in,
                      gpuecon_model *m, char *name, size_t cap)
{
    const double *f = row->f;
    gpt_shape(m, (int)f[6], (int)f[4], (int)f[5], (int)f[7], 50257, name, cap); /* GPT-2 BPE */
    *in = (run_in){m, sys, (int)f[1], (int)f[7], (int)f[2], (int)f[8], (int)f[10], 1, 1, (int)f[3], GPUECON_BF16,
                   FW_MEGATRON_2021, false, true, stack, NULL};
}

static int run_vtrain(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_efficiency *tab, size_t n_eff,
                      gpuecon_validate_row *rows, size_t cap, size_t *n, gpuecon_error *err)
{
    static const char path[] = CALIB_VTRAIN_PATH;
    size_t n_rows;
    const calib_vtrain_row *rows_in;
    gpuecon_system vsys;
    const gpuecon_stack *stack = NULL;
    int rc = vtrain_setup(cat, &rows_in, &n_rows, &vsys, &stack, err);
    if (rc)
        return rc;
    int k = 0;
    for (size_t i = 0; i < n_rows && *n < cap; i++) {
        const double *f = rows_in[i].f;
        int line = rows_in[i].line;
        gpuecon_model m;
        char name[48];
        run_in in;
        vtrain_in(&rows_in[i], &vsys, stack, &in, &m, name, sizeof name);
        gpuecon_train_request q;
        gpuecon_train_result r;
        rc = predict(ctx, &in, tab, n_eff, &q, &r, err);
        if (rc) {
            snprintf(err->where, sizeof err->where, "%s", path);
            err->line = line;
            return rc;
        }
        char id[16], source[160];
        snprintf(id, sizeof id, "V%03d", ++k);
        snprintf(source, sizeof source, "vTrain (Bang et al. MICRO 2024) %s line %d", path, line);
        gpuecon_validate_row *row = validate_row_next(rows, n, id, "vtrain", source);
        row->fitted_on = true;
        double tok = f[2] * f[7] / (f[11] / 1000) / f[1];
        fill_row(row, &in, &q, &r, tok);
        snprintf(row->what, sizeof row->what, "GPT %.1fB, %d x A100, fp16", f[0], (int)f[1]);
        vtrain_note(row);
    }
    return GPUECON_OK;
}

/* The request of a mixture-of-experts case. */
static int moe_request(const gpuecon_catalog *cat, const mcase *v, const gpuecon_efficiency *tab, size_t n_eff,
                       gpuecon_train_request *q, gpuecon_error *err)
{
    gpuecon_train_request_init(q);
    q->model = gpuecon_catalog_model(cat, v->model);
    q->system = gpuecon_catalog_system(cat, v->system);
    if (!q->model || !q->system)
        return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s or %s", v->model, v->system);
    q->gpus = v->gpus, q->precision = v->prec, q->seq = v->seq, q->gbs = v->gbs;
    q->tp = v->tp ? v->tp : GPUECON_SEARCH, q->pp = v->pp ? v->pp : GPUECON_SEARCH;
    q->vpp = v->vpp ? v->vpp : GPUECON_SEARCH, q->cp = v->cp ? v->cp : GPUECON_SEARCH;
    q->ep = v->ep ? v->ep : GPUECON_SEARCH, q->etp = v->etp ? v->etp : GPUECON_SEARCH;
    q->mbs = v->mbs ? v->mbs : GPUECON_SEARCH;
    q->capacity_factor = v->cf;
    q->a2a_overlap = v->a2a < 0 ? GPUECON_SEARCH : v->a2a;
    q->cuda_graphs = v->graphs;
    q->recompute = v->rc;
    q->attn_impl = v->unfused ? GPUECON_ATTN_IMPL_UNFUSED : GPUECON_ATTN_IMPL_FLASH;
    if (v->tp)
        q->tp_overlap = v->tp_overlap && v->tp > 1, q->zero = 1;
    q->eff = pick_eff(q->system->gpu, tab, n_eff);
    return GPUECON_OK;
}

static int run_moe(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_efficiency *tab, size_t n_eff,
                   gpuecon_validate_row *rows, size_t cap, size_t *n, gpuecon_error *err)
{
    for (size_t i = 0; i < sizeof moe_cases / sizeof moe_cases[0] && *n < cap; i++) {
        const mcase *v = &moe_cases[i];
        gpuecon_train_request q;
        int rc = moe_request(cat, v, tab, n_eff, &q, err);
        if (rc)
            return rc;
        gpuecon_train_result r;
        rc = gpuecon_train_predict(ctx, &q, &r, err);
        if (rc && rc != GPUECON_E_INFEASIBLE)
            return rc;
        gpuecon_validate_row *row = validate_row_next(rows, n, v->id, "moe", v->source);
        row->fitted_on = v->fit;
        snprintf(row->what, sizeof row->what, "%s, %d x %s, %s", q.model->name, v->gpus, q.system->gpu_name,
                 gpuecon_precision_name(v->prec));
        snprintf(row->config, sizeof row->config, "TP%d PP%d VP%d EP%d ETP%d DP%d%s", r.par.tp, r.par.pp, r.par.vpp,
                 r.par.ep, r.par.etp, r.par.dp, v->tp ? "" : " (searched)");
        row->published = v->published;
        row->predicted = r.tokens_per_s_per_gpu;
        row->rel_err = r.tokens_per_s_per_gpu / v->published - 1;
        row->fits = r.fits;
        validate_set_train(row, &q, &r);
    }
    return GPUECON_OK;
}

/* The replay's description of a training request and its prediction. */
static void replay_fill(const gpuecon_train_request *q, const gpuecon_train_result *r, validate_replay *out)
{
    out->figure = r->tokens_per_s_per_gpu;
    out->system = q->system->name;
    out->stack = q->stack ? q->stack->name : "none";
    out->prec = q->precision;
    out->moe = q->model->experts > 0;
    out->measurable = true;
    validate_frac_max_eff(q->eff ? q->eff : gpuecon_efficiency_for(q->system->gpu), out->frac_max);
}

int validate_train_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id,
                          const gpuecon_calibration *cal, validate_replay *out, gpuecon_error *err)
{
    if (!ctx || !cat || !id || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "context, catalog, row and result are required");
    memset(out, 0, sizeof *out);
    gpuecon_train_request q;
    gpuecon_train_result r;
    int rc;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!validate_id_is(cases[i].id, id))
            continue;
        gpuecon_model local;
        char name[48];
        run_in in;
        if ((rc = case_in(cat, &cases[i], &in, &local, name, sizeof name, err)))
            return rc;
        in.cal = cal;
        if ((rc = predict(ctx, &in, NULL, 0, &q, &r, err)))
            return rc;
        replay_fill(&q, &r, out);
        return GPUECON_OK;
    }
    unsigned k;
    char tail;
    if (sscanf(id, "V%3u%c", &k, &tail) == 1 && k >= 1) { /* the vTrain rows are V001.. in table order */
        size_t n_rows;
        const calib_vtrain_row *rows_in;
        gpuecon_system vsys;
        const gpuecon_stack *stack = NULL;
        if ((rc = vtrain_setup(cat, &rows_in, &n_rows, &vsys, &stack, err)))
            return rc;
        if (k <= n_rows) {
            gpuecon_model m;
            char name[48];
            run_in in;
            vtrain_in(&rows_in[k - 1], &vsys, stack, &in, &m, name, sizeof name);
            in.cal = cal;
            if ((rc = predict(ctx, &in, NULL, 0, &q, &r, err)))
                return rc;
            replay_fill(&q, &r, out);
            out->system = "a100-vtrain-cluster"; /* vsys dies here; its name is this literal */
            return GPUECON_OK;
        }
    }
    for (size_t i = 0; i < sizeof moe_cases / sizeof moe_cases[0]; i++) {
        if (!validate_id_is(moe_cases[i].id, id))
            continue;
        if ((rc = moe_request(cat, &moe_cases[i], NULL, 0, &q, err)))
            return rc;
        q.calibration = cal;
        rc = gpuecon_train_predict(ctx, &q, &r, err);
        if (rc && rc != GPUECON_E_INFEASIBLE)
            return rc;
        replay_fill(&q, &r, out);
        return GPUECON_OK;
    }
    rc = validate_recipe_replay(ctx, cat, pick_eff, id, cal, out, err);
    if (rc == GPUECON_E_NOTFOUND)
        rc = validate_torchtitan_replay(ctx, cat, pick_eff, id, cal, out, err);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

const char *const gpuecon_validate_separate_sets[] = {"moe", "torchtitan", NULL};

static bool in_sets(const char *group, const char *const *sets)
{
    for (size_t i = 0; sets && sets[i]; i++)
        if (strcmp(group, sets[i]) == 0)
            return true;
    return false;
}

/* A row's error with the sign of optimism: + where the model is faster than the published run. A
 * serving group mixes throughputs (predicted/published - 1) with TPOT, a time, whose + is the model
 * slower; a time's error enters the group's signed median as published/predicted - 1, so one sign
 * means one thing across the group. */
static double oriented_err(const gpuecon_validate_row *r)
{
    return strncmp(r->metric, "TPOT ms", 7) ? r->rel_err : 1 / (1 + r->rel_err) - 1;
}

void gpuecon_validate_summarize(const gpuecon_validate_row *rows, size_t n, const char *group, bool exclude,
                                gpuecon_validate_fit fit, gpuecon_validate_summary *s)
{
    const char *one[] = {group, NULL};
    gpuecon_validate_summarize_sets(rows, n, group ? one : NULL, exclude, fit, s);
}

void gpuecon_validate_summarize_sets(const gpuecon_validate_row *rows, size_t n, const char *const *groups,
                                     bool exclude, gpuecon_validate_fit fit, gpuecon_validate_summary *s)
{
    double e[GPUECON_VALIDATE_MAX], sg[GPUECON_VALIDATE_MAX];
    size_t k = 0;
    memset(s, 0, sizeof *s);
    double sum = 0;
    for (size_t i = 0; i < n && k < GPUECON_VALIDATE_MAX; i++) {
        if ((fit == GPUECON_ROWS_FITTED && !rows[i].fitted_on) || (fit == GPUECON_ROWS_HELD_OUT && rows[i].fitted_on))
            continue;
        if (groups && in_sets(rows[i].group, groups) == exclude)
            continue;
        sg[k] = oriented_err(&rows[i]);
        e[k] = fabs(rows[i].rel_err);
        sum += e[k];
        if (e[k] > s->max_abs_err) {
            s->max_abs_err = e[k];
            snprintf(s->worst_id, sizeof s->worst_id, "%s", rows[i].id);
        }
        k++;
    }
    s->n = k;
    if (!k)
        return;
    qsort(e, k, sizeof e[0], cmp_double);
    qsort(sg, k, sizeof sg[0], cmp_double);
    s->median_abs_err = k % 2 ? e[k / 2] : (e[k / 2 - 1] + e[k / 2]) / 2;
    s->signed_median_err = k % 2 ? sg[k / 2] : (sg[k / 2 - 1] + sg[k / 2]) / 2;
    s->mean_abs_err = sum / k;
}

static bool row_in(const gpuecon_validate_row *r, const char *group, gpuecon_validate_fit fit)
{
    if ((fit == GPUECON_ROWS_FITTED && !r->fitted_on) || (fit == GPUECON_ROWS_HELD_OUT && r->fitted_on))
        return false;
    return !group || strcmp(r->group, group) == 0 || strcmp(r->cls, group) == 0;
}

/* The q-quantile of k sorted values, linear between order statistics. */
static double quantile(const double *e, size_t k, double q)
{
    if (!k)
        return 0;
    double x = q * (double)(k - 1);
    size_t i = (size_t)x;
    return i + 1 < k ? e[i] + (x - (double)i) * (e[i + 1] - e[i]) : e[k - 1];
}

double gpuecon_validate_quantile(const gpuecon_validate_row *rows, size_t n, const char *group,
                                 gpuecon_validate_fit fit, double q)
{
    double e[GPUECON_VALIDATE_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < GPUECON_VALIDATE_MAX; i++)
        if (row_in(&rows[i], group, fit))
            e[k++] = fabs(rows[i].rel_err);
    qsort(e, k, sizeof e[0], cmp_double);
    return quantile(e, k, q);
}

size_t gpuecon_validate_groups(const gpuecon_validate_row *rows, size_t n, gpuecon_validate_fit fit,
                               gpuecon_validate_group *out, size_t cap)
{
    const char *names[GPUECON_VALIDATE_MAX];
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (!row_in(&rows[i], NULL, fit) || !rows[i].cls[0])
            continue;
        size_t j = 0;
        while (j < ng && strcmp(names[j], rows[i].cls))
            j++;
        if (j == ng && ng < GPUECON_VALIDATE_MAX)
            names[ng++] = rows[i].cls;
    }
    for (size_t g = 0; g < ng && g < cap; g++) {
        double a[GPUECON_VALIDATE_MAX], sg[GPUECON_VALIDATE_MAX];
        size_t k = 0;
        for (size_t i = 0; i < n && k < GPUECON_VALIDATE_MAX; i++)
            if (row_in(&rows[i], NULL, fit) && strcmp(rows[i].cls, names[g]) == 0)
                a[k] = fabs(rows[i].rel_err), sg[k++] = oriented_err(&rows[i]);
        qsort(a, k, sizeof a[0], cmp_double);
        qsort(sg, k, sizeof sg[0], cmp_double);
        gpuecon_validate_group *o = &out[g];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", names[g]);
        o->n = k;
        o->median_abs_err = quantile(a, k, 0.5);
        o->p90_abs_err = quantile(a, k, 0.9);
        o->max_abs_err = k ? a[k - 1] : 0;
        o->signed_median_err = quantile(sg, k, 0.5);
    }
    return ng;
}

int gpuecon_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_efficiency *eff_table,
                     size_t n_eff, gpuecon_validate_row *rows, size_t cap, size_t *n,
                     gpuecon_validate_summary *sum, gpuecon_validate_summary *sum_fit, gpuecon_error *err)
{
    if (!ctx || !cat || !rows || !n)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "context, catalog, rows and count are required");
    *n = 0;
    int rc = run_cases(ctx, cat, eff_table, n_eff, rows, cap, n, err);
    if (!rc)
        rc = run_vtrain(ctx, cat, eff_table, n_eff, rows, cap, n, err);
    if (!rc)
        rc = run_moe(ctx, cat, eff_table, n_eff, rows, cap, n, err);
    if (!rc)
        rc = validate_recipe_rows(ctx, cat, pick_eff, eff_table, n_eff, -1, rows, cap, n, err);
    if (!rc)
        rc = validate_torchtitan_rows(ctx, cat, pick_eff, eff_table, n_eff, rows, cap, n, err);
    if (rc)
        return rc;
    if (sum)
        gpuecon_validate_summarize_sets(rows, *n, gpuecon_validate_separate_sets, true, GPUECON_ROWS_ALL, sum);
    if (sum_fit)
        gpuecon_validate_summarize_sets(rows, *n, gpuecon_validate_separate_sets, true, GPUECON_ROWS_FITTED, sum_fit);
    return GPUECON_OK;
}

int validate_kind(gpuecon_ctx *ctx, const gpuecon_catalog *cat, bool moe, bool vtrain, gpuecon_validate_row *rows,
                  size_t cap, size_t *n, gpuecon_error *err)
{
    *n = 0;
    int rc = moe ? run_moe(ctx, cat, NULL, 0, rows, cap, n, err) : run_cases(ctx, cat, NULL, 0, rows, cap, n, err);
    if (!rc && !moe && vtrain)
        rc = run_vtrain(ctx, cat, NULL, 0, rows, cap, n, err);
    if (!rc)
        rc = validate_recipe_rows(ctx, cat, pick_eff, NULL, 0, moe ? 1 : 0, rows, cap, n, err);
    return rc;
}
