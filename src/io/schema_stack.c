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
static const char *const cp_comm_names[] = {"ring", "allgather", NULL};
static const char *const dispatch_names[] = {"nccl-a2a", "deepep", "hybridep", NULL};
static const char *const workload_names[] = {"train", "finetune", "serve", NULL};
static const char *const fp8_linear_names[] = {"none", "naive", "te", NULL};
static const char *const precision_names[] = {"bf16", "fp8", NULL};
/* gpuecon_attn_kernel, in its order (src/model/attn_kernel.c) */
static const char *const kernel_names[] = {"profile", "xqa", "trtllm-gen", "fa3", "flashinfer", "flashmla", "trtllm-gen-mla", NULL};
_Static_assert(sizeof kernel_names / sizeof kernel_names[0] == GPUECON_AK_COUNT + 1, "one name per attention kernel");

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
    SENUM(workload, workload_names, 0, "what the stack runs: train (train, search, compare, rl), finetune, or serve (infer)"),
    {"host_launch_us", FT_NUM, S(host_launch_us), 0, 0, 10000, 0, NULL, 0, "us",
     "fine-tuning: host time to launch one kernel (eager op: Python, dispatcher, autograd)", NULL},
    SBOOL(compiled, 0, "fine-tuning: torch.compile fuses elementwise chains"),
    SENUM(fp8_linear, fp8_linear_names, 0, "fine-tuning: FP8 linears (none, naive casts, Transformer Engine)"),
    SENUM(precision, precision_names, 0, "linear precision unless --precision (a scenario's precision:) says otherwise"),
    SENUM(fusion, fusion_names, 0, "training: elementwise kernels fused (Transformer Engine), compiled (torch.compile) or eager"),
    {"selective_recompute", FT_ENUM, S(selective_recompute), 0, 0, 0, 0, NULL, 0, "",
     "training: what selective recompute recomputes: core (the attention core, Megatron) or op (every second matmul and the elementwise ops, torchtitan)", sac_names},
    SBOOL(kv_repeat, 0, "training: grouped-query K and V copied to every query head before the attention kernel"),
    SENUM(cp_comm, cp_comm_names, 0, "training: context parallelism by ring attention or by an exposed all-gather of K and V"),
    /* serving engines (workload serve; docs/model.md §6.15) */
    {"profile", FT_TEXT, S(profile), 0, 0, 0, 0, "generic", 0, "", "serving: built-in efficiency constants (generic, vessl-gemma4, trtllm)", NULL},
    {"attn_hopper", FT_TEXT, S(attn_hopper), 0, 0, 0, 0, "", 0, "", "serving: attention kernels on Hopper (decode / prefill)", NULL},
    {"attn_blackwell", FT_TEXT, S(attn_blackwell), 0, 0, 0, 0, "", 0, "", "serving: attention kernels on Blackwell", NULL},
    {"attn_mla", FT_TEXT, S(attn_mla), 0, 0, 0, 0, "", 0, "", "serving: multi-head latent attention kernels", NULL},
    SENUM(kernel_gqa_hopper, kernel_names, 0, "serving: attention kernel priced for MHA/GQA models on Hopper (profile: the profile's constants)"),
    SENUM(kernel_gqa_blackwell, kernel_names, 0, "serving: the same on Blackwell"),
    SENUM(kernel_mla_hopper, kernel_names, 0, "serving: attention kernel priced for MLA models on Hopper"),
    SENUM(kernel_mla_blackwell, kernel_names, 0, "serving: the same on Blackwell"),
    {"moe_kernel", FT_TEXT, S(moe_kernel), 0, 0, 0, 0, "", 0, "", "serving: MoE grouped GEMM and token dispatch", NULL},
    {"kernel_us", FT_NUM, S(kernel_us), 0, 0, 100, 0, NULL, 0, "us", "serving: fixed GPU time of one kernel replayed in a CUDA graph", NULL},
    {"graph_max_bs", FT_INT, S(graph_max_bs), 0, 0, 65536, 0, NULL, 0, "", "serving: largest decode batch captured in a CUDA graph (0: none)", NULL},
    SBOOL(piecewise, 0, "serving: above the largest graph, piecewise graphs (only attention launched per layer)"),
    {"sched_us", FT_NUM, S(sched_us), 0, 0, 100000, 0, NULL, 0, "us", "serving: scheduler host time per step", NULL},
    SBOOL(overlap_sched, 0, "serving: the scheduler's host work runs beside the GPU's step"),
    SBOOL(fused_ar_norm, 0, "serving: all-reduce fused with the residual add and the next RMSNorm"),
    SBOOL(attention_dp, 0, "serving: attention data-parallel with expert-parallel MoE on offer"),
    {"ar_one_shot_tp4_kib", FT_NUM, S(ar_one_shot_tp4_kib), 0, 0, 1048576, 0, NULL, 0, "KiB", "serving: one-shot custom all-reduce up to this size at TP <= 4 (0: NCCL only)", NULL},
    {"moe_bw_frac", FT_NUM, S(moe_bw_frac), 0, 0, 1, 0, NULL, 0, "", "serving: fraction of HBM bandwidth the routed experts' grouped GEMM reaches at decode sizes (0: eta_bw)", NULL},
    {"ar_one_shot_tp8_kib", FT_NUM, S(ar_one_shot_tp8_kib), 0, 0, 1048576, 0, NULL, 0, "KiB", "serving: the same at TP 5 to 8", NULL},
};

const kdesc schema_kind_stack = {"stacks", "stack", sizeof(gpuecon_stack), offsetof(gpuecon_stack, src),
                                 stack_fields, sizeof stack_fields / sizeof stack_fields[0], NULL, NULL};
