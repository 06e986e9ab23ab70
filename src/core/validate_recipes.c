/*
 * validate_recipes.c — the NeMo / Megatron-Bridge performance-summary runs and the MoE runs
 * of 2024–26 (calibration §A.5: A41, A43, A44, A49, A50, A53, A66, A67), each predicted with
 * its published layout and its framework stack (data/stacks.yaml, docs/model.md §3.7), read
 * from the recipe, never tuned. NVIDIA publishes tokens/s/GPU for the dense rows and model
 * TFLOP/s/GPU for the MoE ones; the latter convert with the model's FLOPs per token with
 * causal attention and the MTP modules counted (Megatron-Bridge flops_formulas, docs/model.md
 * §3.6).
 */
#include "train.h"

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
    bool serial;              /* the published command sets A2A_OVERLAP=0 and no --cuda-graph-impl: the
                                 EP all-to-all is not overlapped and kernels launch eagerly */
    bool recompute_moe;       /* the published command recomputes the MoE layers too (A67's
                                 --recompute-modules layernorm moe) */
} rcase;

#define NEMO2407 "NVIDIA/NeMo docs/source/performance/performance_summary.md @8e3d65dc (NeMo 24.07)"
#define MB2511 "Megatron-Bridge docs/performance-summary-archive.md §25.11 DGX-H100"
#define MB2606 "Megatron-Bridge docs/performance-summary-archive.md §26.06"
#define DSV3GB "Megatron-LM docs/discussions/deepseek-v3-gb200-optimization @eb0783b6 (HybridEP, CUDA graphs)"
#define QWEN "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @020b8136 (DeepEP, forced balance)"
#define FP8D GPUECON_FP8_DELAYED
#define FP8T GPUECON_FP8_TENSORWISE
#define MX GPUECON_FP8_MXFP8
#define RN GPUECON_RECOMPUTE_NONE
#define RS GPUECON_RECOMPUTE_SELECTIVE
#define NA GPUECON_DISPATCH_NCCL_A2A

static const rcase rcases[] = {
    {"A41", NEMO2407, "gpt3-175b", "hgx-h100", "nemo-2024", 128, GPUECON_FP8, FP8D, 2048, 256, 4, 8, 6, 1, 1, 1, RN,
     1, true, false, NA, 716, false, false, false},
    {"A43", NEMO2407, "llama3-70b", "hgx-h100", "nemo-2024", 64, GPUECON_FP8, FP8D, 8192, 128, 4, 4, 5, 2, 1, 1, RN,
     1, false, false, NA, 1524, false, false, false},
    {"A44", NEMO2407, "llama3-8b", "hgx-h100", "nemo-2024", 8, GPUECON_FP8, FP8D, 8192, 128, 1, 1, 1, 2, 1, 1, RN, 1,
     false, false, NA, 12273, false, false, false},
    {"A49", MB2511 " (FSDP)", "llama3-8b", "hgx-h100", "megatron-bridge-2026", 8, GPUECON_FP8, FP8T, 8192, 128, 1, 1,
     1, 1, 1, 1, RN, 3, false, false, NA, 14451, false, false, false},
    {"A50", MB2511, "llama3-70b", "hgx-h100", "megatron-bridge-2026", 64, GPUECON_FP8, FP8T, 8192, 128, 4, 8, 5, 1, 1,
     1, RN, 1, false, false, NA, 1602, false, false, false},
    {"A53-GB300", MB2606 " (NVFP4)", "llama3-405b", "gb300-nvl72", "megatron-bridge-2026", 256, GPUECON_FP4, MX,
     8192, 1536, 4, 8, 4, 1, 1, 1, RN, 1, false, false, NA, 1413, false, false, false},
    {"A53-GB200", MB2606 " (NVFP4)", "llama3-405b", "gb200-nvl72", "megatron-bridge-2026", 256, GPUECON_FP4, MX,
     8192, 1536, 4, 16, 8, 1, 1, 1, RN, 1, false, false, NA, 1166, false, false, false},
    {"A66", DSV3GB, "deepseek-v3", "gb200-nvl72", "megatron-bridge-2026", 256, GPUECON_FP8, MX, 4096, 2048, 1, 8, 4,
     1, 32, 1, RS, 1, false, true, GPUECON_DISPATCH_HYBRIDEP, -970.01, false, false, false},
    {"A67-16K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 16384, 256, 4,
     8, 4, 1, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -295, false, true, true},
    {"A67-32K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 32768, 256, 4,
     8, 4, 2, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -335, false, true, true},
    {"A67-64K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 65536, 256, 4,
     8, 4, 4, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -368, false, true, true},
    {"A67-128K", QWEN, "qwen3-235b-a22b", "hgx-h100", "megatron-bridge-2026", 256, GPUECON_BF16, FP8D, 131072, 256,
     4, 8, 4, 8, 8, 1, RS, 1, false, false, GPUECON_DISPATCH_DEEPEP, -389, false, true, true},
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
    if (v->serial) { /* A67's long-context command: A2A_OVERLAP=0, no --cuda-graph-impl */
        q->a2a_overlap = 0;
        q->cuda_graphs = false;
    }
    q->offload_layers = 0;
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
        gpuecon_validate_row *row = &rows[(*n)++];
        memset(row, 0, sizeof *row);
        snprintf(row->id, sizeof row->id, "%s", v->id);
        snprintf(row->group, sizeof row->group, "%s", q.model->experts > 0 ? "moe" : "recipes");
        snprintf(row->source, sizeof row->source, "%s", v->source);
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
        validate_set_class(row, q.system->gpu, v->prec, q.model->experts > 0);
    }
    return GPUECON_OK;
}
