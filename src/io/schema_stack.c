/*
 * schema_stack.c — field table of data/stacks.yaml: one entry per framework stack (Megatron-LM
 * 2021 ... Megatron-Bridge 2026, and the fine-tuning stacks), each field the framework fact it
 * states with its own source (docs/model.md §3.7 has the table of presets).
 */
#include "io/io.h"
#include "schema.h"

#include <stddef.h>

static const char *const prec_names[] = {"fp32", "bf16", NULL};
/* by-precision: fp32 in BF16 runs, bf16 in FP8/FP4 runs (NeMo 2.0 performance scripts) */
static const char *const grad_names[] = {"fp32", "bf16", "by-precision", NULL};
static const char *const recipe_names[] = {"delayed", "tensorwise", "mxfp8", "blockwise", NULL};
static const char *const attn_names[] = {"flash", "unfused", "fa2", NULL};
static const char *const fusion_names[] = {"fused", "compiled", "eager", NULL};
static const char *const sac_names[] = {"core", "op", NULL};
static const char *const dispatch_names[] = {"nccl-a2a", "deepep", "hybridep", NULL};
static const char *const workload_names[] = {"train", "finetune", NULL};
static const char *const fp8_linear_names[] = {"none", "naive", "te", NULL};
static const char *const precision_names[] = {"bf16", "fp8", NULL};

#define S(f) offsetof(gpuecon_stack, f)
#define SBOOL(f, def, doc) {#f, FT_BOOL, S(f), 0, 0, 1, def, NULL, 0, "", doc, NULL}
#define SENUM(f, ch, def, doc) {#f, FT_ENUM, S(f), 0, 0, 0, def, NULL, 0, "", doc, ch}

static const fdesc stack_fields[] = {
    {"name", FT_TEXT, S(name), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "catalog name", NULL},
    {"framework", FT_TEXT, S(framework), 0, 0, 0, 0, "", 0, "", "framework, release and recipe family", NULL},
    SENUM(grad_reduce, grad_names, 0, "gradient buffer and data-parallel reduction precision (by-precision: fp32 for BF16 runs, bf16 for FP8/FP4)"),
    SBOOL(fp8_param, 0, "FP8-only weights (fp8_param_gather) in FP8 runs"),
    SENUM(optimizer_states, prec_names, 0, "Adam m and v precision (bf16: precision-aware optimizer)"),
    SENUM(fp8_recipe, recipe_names, 0, "FP8 scaling recipe"),
    SBOOL(tp_overlap, 1, "tensor-parallel communication overlapped with GEMMs"),
    SBOOL(dp_overlap, 1, "data-parallel reduce and gather overlapped with compute"),
    SBOOL(ep_overlap, 0, "expert all-to-all overlapped with another micro-batch (delayed wgrad)"),
    SENUM(attention, attn_names, 0, "attention kernel"),
    SBOOL(sequence_parallel, 1, "sequence parallelism with tensor parallelism"),
    SBOOL(dropout, 0, "dropout masks kept"),
    SBOOL(cuda_graphs, 1, "layers captured in CUDA graphs"),
    SENUM(dispatcher, dispatch_names, 0, "mixture-of-experts token dispatcher"),
    SBOOL(flex_dispatcher, 0, "flex dispatcher: nccl-a2a, deepep and hybridep on offer, the search chooses"),
    SBOOL(fp8_dispatch, 0, "dispatch tokens in FP8 (combine stays BF16)"),
    SBOOL(tp_async_grad, 0, "without SP: the input-gradient all-reduce of a column-parallel linear runs beside its weight-gradient GEMM"),
    SENUM(workload, workload_names, 0, "what the stack runs: train (train, search, compare, rl) or finetune"),
    {"host_launch_us", FT_NUM, S(host_launch_us), 0, 0, 10000, 0, NULL, 0, "us",
     "fine-tuning: host time to launch one kernel (eager op: Python, dispatcher, autograd)", NULL},
    SBOOL(compiled, 0, "fine-tuning: torch.compile fuses elementwise chains"),
    SENUM(fp8_linear, fp8_linear_names, 0, "fine-tuning: FP8 linears (none, naive casts, Transformer Engine)"),
    SENUM(precision, precision_names, 0, "fine-tuning: linear precision unless --precision says otherwise"),
    SENUM(fusion, fusion_names, 0, "training: elementwise kernels fused (Transformer Engine), compiled (torch.compile) or eager"),
    {"selective_recompute", FT_ENUM, S(selective_recompute), 0, 0, 0, 0, NULL, 0, "",
     "training: what selective recompute recomputes: core (the attention core, Megatron) or op (every second matmul and the elementwise ops, torchtitan)", sac_names},
    SBOOL(kv_repeat, 0, "training: grouped-query K and V copied to every query head before the attention kernel"),
};

const kdesc schema_kind_stack = {"stacks", "stack", sizeof(gpuecon_stack), offsetof(gpuecon_stack, src),
                                 stack_fields, sizeof stack_fields / sizeof stack_fields[0], NULL, NULL};
