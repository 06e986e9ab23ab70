/*
 * model/model.h — the model layer's private declarations: the physics. Catalog entries as the
 * model reads them (GPUs, systems, profiles, models), FLOPs and parameters, economics,
 * collectives, MoE dispatch, the training step's efficiency, memory and prediction, goodput
 * under failures (closed forms), serving (step, simulator, disaggregation), fine-tuning and the
 * RL step's types. Pure functions over structs: no I/O, no globals. Never installed.
 */
#ifndef GPUECON_MODEL_H
#define GPUECON_MODEL_H

#include "base/base.h"

/* A framework stack of the catalog (data/stacks.yaml): its fields are private to the training step. */
typedef struct gpuecon_stack gpuecon_stack;

/* ==== catalog entries ================================================================ */

typedef enum gpuecon_precision {
    GPUECON_BF16,
    GPUECON_FP8,
    GPUECON_FP4
} gpuecon_precision;

const char *gpuecon_precision_name(gpuecon_precision p);
/* Bytes per element of a weight/activation stored at precision p (NVFP4: 0.5625 incl. scales). */
double gpuecon_precision_bytes(gpuecon_precision p);

typedef struct gpuecon_gpu {
    const char *name;
    const char *arch;        /* ampere | hopper | blackwell | blackwell-ultra | cdna3 */
    double peak_bf16_tflops; /* dense (no 2:4 sparsity) */
    double peak_fp8_tflops;  /* 0: no FP8 tensor cores */
    double peak_fp4_tflops;  /* 0: no FP4 tensor cores */
    double hbm_gib;          /* usable capacity as the driver reports it */
    double hbm_tbps;
    double tdp_w;            /* board power maximum; the efficiency fractions are stated at it */
    double min_power_w;      /* lowest settable power limit (nvidia-smi's Min Power Limit); 0: unknown */
    double idle_w;           /* power that does not scale with the SM clock (idle draw); 0: unknown */
    const gpuecon_source *src; /* per field; read through gpuecon_catalog_field() */
} gpuecon_gpu;

/* Dense peak in FLOP/s at precision p, or 0 when the GPU has no tensor cores for it. */
double gpuecon_gpu_peak_flops(const gpuecon_gpu *gpu, gpuecon_precision p);

typedef struct gpuecon_system {
    const char *name;
    const char *gpu_name;
    const gpuecon_gpu *gpu;     /* resolved from gpu_name when the catalog loads */
    int gpus_per_node;          /* GPUs per server or compute tray */
    int scaleup_gpus;           /* NVLink (scale-up) domain: 8 for HGX, 72 for NVL72 */
    double scaleup_gbps;        /* per GPU, per direction */
    double scaleout_gbps;       /* per GPU, per direction (8 x 400 Gbit/s per 8 GPUs = 50) */
    double scaleup_latency_us;  /* per-hop latency (alpha) inside the domain */
    double scaleout_latency_us; /* per-hop latency across the network */
    double it_w_per_gpu;        /* all-in IT power: GPU, host, NICs, switches, storage share */
    double pue;                 /* default facility PUE for energy figures */
    const char *cooling;        /* air | liquid */
    double capex_usd_per_gpu;   /* all-in capital cost per GPU (hyperscaler pricing) */
    double host_link_gbps;      /* CPU-GPU link per GPU per direction, GB/s, as achievable for
                                   activation offload (NVLink-C2C and LPDDR share on Grace, PCIe
                                   on x86); 0: unknown, offload refused */
    double power_limit_w;       /* the GPUs' power limit; 0: the board maximum (gpu->tdp_w).
                                   it_w_per_gpu is stated at this limit */
    const gpuecon_source *src;
    double clock_factor;        /* derived, not a catalog field: the sustained tensor-core clock at
                                   power_limit_w over that at the board maximum (power.c); 1 at it */
} gpuecon_system;

/* The sustained-clock factor of GPU g under a board power limit of limit_w watts (docs/model.md
 * §9.2): the DVFS relation P = P_idle + (P_max - P_idle)·(f/f_max)^3 solved for f/f_max,
 * cbrt((limit - idle) / (tdp - idle)). 1 when limit_w is 0 or at/above tdp_w, or idle_w is
 * unknown. The compute (tensor-core) rate scales with it; HBM bandwidth does not. */
double gpuecon_power_clock_factor(const gpuecon_gpu *g, double limit_w);

/* The clock factor a step multiplies its tensor-core rates by: s->clock_factor, 1 when unset (a
 * system built outside the catalog). */
static inline double gpuecon_system_clock(const gpuecon_system *s)
{
    return s && s->clock_factor > 0 ? s->clock_factor : 1.0;
}

/* The limit a system runs its GPUs at: power_limit_w, or the board maximum when 0. */
double gpuecon_system_power_limit(const gpuecon_system *s);

/* Checks limit_w against g's settable range [min_power_w, tdp_w]: GPUECON_E_INPUT naming option
 * and the range when outside it (or when the GPU has no known minimum and limit_w < tdp_w). */
int gpuecon_power_limit_check(const gpuecon_gpu *g, double limit_w, const char *option, gpuecon_error *err);

/* *out = s when limit_w is 0; else *buf = a copy of s whose GPUs run at limit_w (power_limit_w
 * and clock_factor set, it_w_per_gpu moved by limit_w minus s's own limit: the GPU draws its
 * limit under load) and *out = buf. Errors as gpuecon_power_limit_check; *out untouched then. */
int gpuecon_system_at_power_limit(const gpuecon_system *s, double limit_w, const char *option, gpuecon_system *buf,
                                  const gpuecon_system **out, gpuecon_error *err);

/* A number keyed by a catalog name (a profile's per-system values). */
typedef struct gpuecon_keyed {
    const char *key;
    double value;
    gpuecon_source source;
} gpuecon_keyed;

typedef struct gpuecon_profile {
    const char *name;
    double rate;                    /* cost of capital r, 1/yr */
    double life_years;              /* economic life L */
    double maintenance_per_year;    /* capex-proportional opex m, 1/yr */
    double residual_value;          /* RV, fraction of capex at end of life */
    double capital_charge_per_year; /* k; 0 = CRF(r,L)·(1 − RV(1+r)^−L) + m */
    double colo_usd_per_kw_month;
    double electricity_usd_per_kwh;
    double pue;                     /* PUE in the cost (TCO) calculation */
    double fixed_usd_per_gpu_hour;
    double capex_scale;             /* multiplies a system's capex when no per-system value */
    const gpuecon_keyed *capex_usd_per_gpu; /* per-system capex overrides */
    size_t n_capex;
    const gpuecon_keyed *published_usd_per_gpu_hour; /* per-system published TCO */
    size_t n_published;
    const gpuecon_source *src;
} gpuecon_profile;

typedef enum gpuecon_ffn {
    GPUECON_FFN_GELU,   /* 2 matrices */
    GPUECON_FFN_RELU2,  /* squared ReLU, 2 matrices */
    GPUECON_FFN_SWIGLU, /* 3 matrices */
    GPUECON_FFN_GEGLU   /* gated GELU, 3 matrices */
} gpuecon_ffn;

typedef enum gpuecon_attention {
    GPUECON_ATTN_MHA,
    GPUECON_ATTN_GQA,
    GPUECON_ATTN_MLA /* multi-head latent attention (DeepSeek-V2/V3) */
} gpuecon_attention;

typedef struct gpuecon_model {
    const char *name;
    int layers, hidden, heads, kv_heads, head_dim, ffn_hidden;
    gpuecon_ffn ffn;
    int vocab;
    bool tied_embeddings;
    int max_seq;            /* longest context the model accepts */
    /* mixture of experts (experts == 0: dense) */
    int experts, top_k, expert_ffn_hidden, shared_experts, shared_ffn_hidden;
    int dense_layers;       /* leading dense layers */
    int moe_every;          /* after the dense layers, every n-th layer is MoE (1: all) */
    int routing_groups;     /* node-limited routing: expert groups (DeepSeek-V3 n_expert_groups 8; 0: none) */
    int groups_per_token;   /* groups one token may reach (n_limited_groups 4) */
    /* attention */
    gpuecon_attention attention;
    int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; /* MLA */
    int sliding_window;     /* 0: every layer attends globally */
    int global_every;       /* with a window: every n-th layer is global (Gemma: 6) */
    int global_kv_heads, global_head_dim;
    bool global_k_eq_v;     /* global layers share K and V (no v_proj) */
    int mtp_layers;         /* multi-token-prediction modules (DeepSeek-V3: 1) */
    int norms_per_layer;    /* norm modules over the hidden width per layer (2; Gemma 4: 4) */
    bool qk_norm;           /* per-head RMSNorm of q and k (Gemma 3/4, Qwen3) */
    double vision_params;   /* parameters of a vision tower served alongside (16-bit) */
    double published_params, published_active_params; /* for the consistency check */
    const gpuecon_source *src;
} gpuecon_model;

/* One layer's attention and FFN shape, after resolving sliding/global and MoE patterns. */
typedef struct gpuecon_layer {
    int kv_heads, head_dim;
    int window;    /* 0: global attention */
    bool k_eq_v;
    bool moe;
} gpuecon_layer;

/* Layer i (0-based, i < layers) of model m. */
void gpuecon_model_layer(const gpuecon_model *m, int i, gpuecon_layer *out);
const char *gpuecon_ffn_name(gpuecon_ffn f);
/* Weight matrices in one FFN block: 2 (gelu, relu2) or 3 (swiglu, geglu). */
int gpuecon_ffn_matrices(gpuecon_ffn f);

/* ==== model arithmetic (src/model/flops.c) ============================================ */

typedef struct gpuecon_params {
    double total;          /* every weight of the language model (excl. MTP and vision) */
    double active;         /* weights touched per token (routed experts: top_k of them) */
    double embedding;      /* input embedding V·h */
    double lm_head;        /* output projection V·h; 0 when tied */
    double attention;      /* all layers' attention projections */
    double dense_ffn;      /* FFN weights of dense layers */
    double routed_experts; /* all routed experts of all MoE layers */
    double shared_experts;
    double router;
    double norms;
    double mtp;            /* multi-token-prediction modules (not in total) */
    double vision;         /* vision tower (not in total) */
} gpuecon_params;

void gpuecon_model_params(const gpuecon_model *m, gpuecon_params *out);

/* How attention score/value FLOPs are counted in model FLOPs. FULL counts all s×s pairs
 * (Megatron/NeMo dense-model and PaLM convention); CAUSAL counts half (what a causal
 * flash-attention kernel executes; NeMo's DeepSeek-V3 convention). */
typedef enum gpuecon_attn_count {
    GPUECON_ATTN_COUNT_FULL,
    GPUECON_ATTN_COUNT_CAUSAL
} gpuecon_attn_count;

typedef struct gpuecon_flops {
    double matmul_params;  /* weights multiplying activations per token: active, minus the
                              input embedding, plus the LM head (tied or not) */
    double linear;         /* training FLOPs/token of those weights: 6·matmul_params */
    double attention;      /* training FLOPs/token of QK^T and AV: 6·2·s·(dqk+dv)·heads·L·c */
    double mtp;            /* MTP modules, when counted */
    double total;          /* linear + attention + mtp */
} gpuecon_flops;

/* Model FLOPs per trained token at sequence length seq (forward + backward = 3× forward). */
void gpuecon_train_flops(const gpuecon_model *m, int seq, gpuecon_attn_count count,
                                     bool include_mtp, gpuecon_flops *out);
/* Forward FLOPs per generated token at a context of `context` tokens (2 per weight plus
 * attention over the context, windows respected). */
double gpuecon_infer_flops_per_token(const gpuecon_model *m, double context);
/* MFU = tokens/s/GPU × FLOPs/token ÷ peak FLOP/s, and its inverse. */
double gpuecon_mfu(double tokens_per_s_per_gpu, double flops_per_token, double peak_flops);
double gpuecon_tokens_per_s_from_mfu(double mfu, double flops_per_token, double peak_flops);

/* ==== economics (src/model/tco.c, src/model/energy.c) ================================== */

typedef struct gpuecon_tco {
    double capex_usd;              /* per GPU, after profile overrides */
    double capital_charge_per_year;/* k */
    double capital_usd_per_hour;   /* C·k/8760 */
    double colo_usd_per_hour;      /* P_IT·c_colo·12/8760 */
    double power_usd_per_hour;     /* P_IT·PUE·p_e */
    double fixed_usd_per_hour;
    double derived_usd_per_gpu_hour;
    double published_usd_per_gpu_hour; /* 0 when the profile has none for this system */
    double usd_per_gpu_hour;       /* the one used: the user's price, else published, else derived */
    bool uses_published;
    double pue;                    /* PUE used in the power term */
    double it_w_per_gpu;
    bool user_price;               /* usd_per_gpu_hour is the caller's (gpuecon_tco_price) */
} gpuecon_tco;

/* Capital recovery factor r/(1−(1+r)^−L) (1/L when r = 0). */
double gpuecon_crf(double rate, double life_years);
/* TCO per GPU-hour of system s under profile p.
 * pue_override > 0 replaces the profile's PUE. */
int gpuecon_tco_compute(const gpuecon_profile *p, const gpuecon_system *s,
                                    double pue_override, gpuecon_tco *out, gpuecon_error *err);
/* The price of a GPU-hour: gpuecon_tco_compute's TCO, unless usd_per_gpu_hour > 0 — the
 * caller's own rate (a rental or negotiated price, --usd-per-gpu-hour) — which then is the
 * one used (user_price true, uses_published false); the profile's terms stay alongside for
 * reference, and p may then be NULL (terms 0). usd_per_gpu_hour must be at most 1000. */
int gpuecon_tco_price(const gpuecon_profile *p, const gpuecon_system *s, double pue_override,
                                  double usd_per_gpu_hour, gpuecon_tco *out, gpuecon_error *err);

typedef struct gpuecon_cost {
    double tokens_per_s_per_gpu;
    double usd_per_gpu_hour;
    double usd_per_mtok;           /* TCO/(tok/s·3600)·1e6 */
    double it_watts_per_gpu;
    double pue;
    double joules_per_token;       /* P_IT·PUE/(tok/s), utility side */
    double tokens_per_s_per_mw;    /* per MW of facility (utility) power */
    double tokens;                 /* 0 when no budget was given */
    double gpu_hours;
    double total_usd;
    double energy_mwh;
} gpuecon_cost;

/* Economics of a measured or predicted throughput. tokens may be 0 (no totals). */
int gpuecon_cost_compute(double usd_per_gpu_hour, double it_w_per_gpu, double pue,
                                     double tokens_per_s_per_gpu, double tokens,
                                     gpuecon_cost *out, gpuecon_error *err);

/* ==== collectives and training (src/model/comm.c memory.c train.c moe.c) ================== */

/* ---- collectives on a two-level topology (src/model/comm.c) ----
 * A system has scale-up domains of system->scaleup_gpus GPUs (NVLink, scaleup_gbps per GPU per
 * direction) joined by a scale-out network (scaleout_gbps per GPU per direction, one NIC per
 * GPU, rail-optimised). Ranks are numbered domain by domain. A group is described by its size
 * and its stride: the rank distance between consecutive members (TP: 1; CP: tp; DP: tp·cp;
 * PP: tp·cp·dp, Megatron's order: TP innermost, then CP, DP, the pipeline stage outermost,
 * parallel_state.initialize_model_parallel / Megatron-Core tp-cp-ep-dp-pp). A group inside
 * one domain runs on NVLink; a larger one is limited by its slowest level (hierarchical).
 * Times follow the NCCL-tests alpha-beta convention (nccl-tests doc/PERFORMANCE.md):
 *   time = latency + S·f(n)/busbw, algbw = S/time, busbw = algbw·f(n),
 *   f = 2(n-1)/n all-reduce; (n-1)/n all-gather, reduce-scatter, all-to-all; 1 send-recv,
 * where S is nccl-tests' size: the full buffer (all-gather output, reduce-scatter input,
 * all-to-all per-rank send buffer, send-recv message). */
typedef enum gpuecon_coll_op {
    GPUECON_ALL_REDUCE,
    GPUECON_ALL_GATHER,
    GPUECON_REDUCE_SCATTER,
    GPUECON_ALL_TO_ALL,
    GPUECON_SEND_RECV,
    GPUECON_COLL_OP_COUNT
} gpuecon_coll_op;

typedef enum gpuecon_coll_algo {
    GPUECON_ALGO_AUTO, /* the faster of ring and tree (all-reduce only; others use ring) */
    GPUECON_ALGO_RING,
    GPUECON_ALGO_TREE
} gpuecon_coll_algo;

typedef enum gpuecon_link_level {
    GPUECON_LEVEL_LOCAL,    /* one GPU: no traffic */
    GPUECON_LEVEL_SCALEUP,  /* NVLink / xGMI inside the domain */
    GPUECON_LEVEL_SCALEOUT  /* InfiniBand / Ethernet between domains */
} gpuecon_link_level;

typedef struct gpuecon_coll_result {
    double time_s;
    double algbw_gbps;          /* S / time */
    double busbw_gbps;          /* algbw · f(n) */
    double latency_s;           /* the alpha part of time_s */
    gpuecon_link_level level;   /* the level that limits the bandwidth */
    gpuecon_coll_algo algo;     /* ring or tree, as chosen */
    int per_domain;             /* members of the group in one scale-up domain */
    int domains;                /* scale-up domains the group spans */
    /* all-to-all (docs/model.md §4.1): the time of the intra-domain share (NVLink, including the hop
     * that moves inter-domain traffic to the GPU on the destination's rail) and of the
     * inter-domain share (network), which overlap: time_s = latency + max of the two. The
     * fraction of the send buffer that stays inside the domain, (g-1)/n. Zero for the
     * other operations. */
    double intra_s, inter_s;
    double intra_fraction;
} gpuecon_coll_result;

const char *gpuecon_coll_op_name(gpuecon_coll_op op);   /* "all-reduce", ... */
const char *gpuecon_link_level_name(gpuecon_link_level level);
/* nccl-tests bus-bandwidth factor f(n) of an operation (1 for send-recv). */
double gpuecon_busbw_factor(gpuecon_coll_op op, int gpus);

/* Achieved fraction of the link bandwidth and per-hop latency, per link level, as used by
 * every collective. gpuecon_link_model() returns the built-in values for a system
 * (docs/model.md §3.3); callers may pass their own to gpuecon_collective_ex. */
typedef struct gpuecon_link_model {
    double scaleup_eff;   /* achievable busbw / scaleup_gbps */
    double scaleout_eff;  /* achievable busbw / scaleout_gbps */
    double launch_s;      /* fixed cost of one collective call (kernel launch, setup) */
    double a2a_scaleout_eff; /* achievable all-to-all bandwidth per NIC / scaleout_gbps: many
                                concurrent peer flows on a fat tree (docs/model.md §4.1);
                                0 = scaleout_eff */
} gpuecon_link_model;

void gpuecon_link_model_for(const gpuecon_system *s, gpuecon_link_model *out);

/* Time of one collective of `bytes` (nccl-tests size S, above) over a group of `gpus` ranks
 * spaced `stride` ranks apart (stride >= 1; the group must fit in the numbering, i.e. it is
 * the group of ranks r, r+stride, ...). For send-recv, gpus must be 2 and the peer is
 * `stride` ranks away. `algo` TREE is an all-reduce algorithm (across domains; inside one domain
 * it is timed as the ring); `result.algo` is RING for every other op (all-to-all and send-recv
 * are point to point; `gpuecon comm` shows them as p2p). Errors: GPUECON_E_INPUT for gpus < 1, stride < 1, bytes < 0 or not
 * finite, a system without bandwidths, TREE for an op other than all-reduce. */
int gpuecon_collective(const gpuecon_system *s, gpuecon_coll_op op, int gpus, int stride,
                                   double bytes, gpuecon_coll_algo algo, gpuecon_coll_result *out,
                                   gpuecon_error *err);
/* The same with explicit link efficiencies (NULL: gpuecon_link_model_for). */
int gpuecon_collective_ex(const gpuecon_system *s, const gpuecon_link_model *lm,
                                      gpuecon_coll_op op, int gpus, int stride, double bytes,
                                      gpuecon_coll_algo algo, gpuecon_coll_result *out,
                                      gpuecon_error *err);

/* FP8 scaling recipes of Transformer Engine (docs/model.md §3.7): what each costs in
 * quantization kernels and which GPUs run it. */
typedef enum gpuecon_fp8_recipe {
    GPUECON_FP8_DELAYED,    /* per-tensor scale from an amax history: one cast pass */
    GPUECON_FP8_TENSORWISE, /* per-tensor current scaling: amax pass + cast pass (reads twice) */
    GPUECON_FP8_MXFP8,      /* 1x32 block scales (Blackwell only): row- and column-wise casts */
    GPUECON_FP8_BLOCKWISE   /* 1x128 / 128x128 blocks (DeepSeek-V3): row- and column-wise casts */
} gpuecon_fp8_recipe;
const char *gpuecon_fp8_recipe_name(gpuecon_fp8_recipe r);

/* Mixture-of-experts token dispatchers (docs/model.md §4.9). */
typedef enum gpuecon_dispatcher {
    GPUECON_DISPATCH_SEARCH = -1, /* training requests only: the search tries every dispatcher
                                     the stack offers (a stack with flex_dispatcher) */
    GPUECON_DISPATCH_NCCL_A2A, /* NCCL all-to-all: top_k copies of each token, permute before */
    GPUECON_DISPATCH_DEEPEP,   /* DeepEP: one copy per destination node, NVLink forwarding */
    GPUECON_DISPATCH_HYBRIDEP  /* HybridEP: as DeepEP, TMA/IBGDA, native multi-node NVLink */
} gpuecon_dispatcher;
const char *gpuecon_dispatcher_name(gpuecon_dispatcher d);

/* Partial CUDA graphs of an MoE model (Megatron-Core --cuda-graph-scope with Transformer Engine's
 * graphs, docs/model.md §4.2): which parts of each layer are captured; the rest launches eagerly.
 * GPUECON_GRAPH_FULL (0) captures everything (full-iteration graphs, or a dense model's layers). */
enum {
    GPUECON_GRAPH_FULL = 0,
    GPUECON_GRAPH_ATTN = 1,            /* the attention half: norms, attention, residuals */
    GPUECON_GRAPH_MOE_ROUTER = 2,      /* the router, and the shared experts */
    GPUECON_GRAPH_MOE_PREPROCESS = 4   /* the dispatch preprocessing (needs MOE_ROUTER) */
};
/* The scope as Megatron-Core's --cuda-graph-scope names it: "off" (-1, eager), "full" (0), or the
 * captured parts as a comma list ("attn,moe_router,moe_preprocess"); writes at most cap bytes. */
void gpuecon_graph_scope_name(int scope, char *buf, size_t cap);

/* ---- mixture-of-experts dispatch (src/model/dispatch.c; docs/model.md §4.9) ----
 * One dispatch (or combine) of an expert-parallel group, as the frameworks do it. NCCL's
 * all-to-all sends top_k copies of every token (gpuecon_collective's all-to-all, the
 * load factor included). Deduplicating dispatchers (DeepEP, HybridEP) send a token once per
 * destination scale-up domain over the network (to the GPU on the same rail) and forward it
 * over NVLink to the GPUs holding its experts, each GPU once; node-limited routing (the
 * model's routing groups) caps the domains a token reaches. Bandwidths: the line rates of the
 * system times each dispatcher's achieved fraction from its published kernel benchmarks. */
typedef struct gpuecon_dispatch_request {
    gpuecon_dispatcher dispatcher;
    int ep;                   /* ranks of the expert-parallel group (>= 1) */
    int stride;               /* their spacing in the rank numbering (etp; >= 1) */
    double tokens;            /* tokens each rank routes */
    int top_k, experts;       /* routing: experts per token, routed experts (ep divides them) */
    int groups, groups_per_token; /* node-limited routing (0: none) */
    double hidden;            /* elements per token */
    double bytes_per_elem;    /* 2 (BF16), 1 + scales (FP8) */
    double load_factor;       /* busiest rank's tokens / mean (1: balanced) */
} gpuecon_dispatch_request;
typedef struct gpuecon_dispatch_result {
    double time_s;
    double inter_bytes;       /* bytes one rank sends over its NIC */
    double intra_bytes;       /* bytes one rank moves over NVLink (direct and forwarded) */
    double copies_per_token;  /* copies of a token that leave its GPU (NCCL: top_k x (n-1)/n) */
    double remote_domains;    /* expected destination domains other than its own, per token */
    double intra_fraction;    /* share of the dispatch bytes that stays in the scale-up domain */
    int domains;              /* scale-up domains the group spans */
} gpuecon_dispatch_result;
/* Time and traffic of one dispatch on system s (lm: NULL = gpuecon_link_model_for).
 * Errors: GPUECON_E_INPUT for ep < 1, stride < 1, tokens < 0, top_k outside 1..experts,
 * experts not divisible by ep, groups_per_token outside 1..groups, hidden or bytes <= 0,
 * load_factor < 1, an unknown dispatcher, a system without bandwidths. */
int gpuecon_moe_dispatch(const gpuecon_system *s, const gpuecon_link_model *lm,
                                     const gpuecon_dispatch_request *q, gpuecon_dispatch_result *out,
                                     gpuecon_error *err);

/* ---- efficiency parameters of the training model (src/model/calib.c) ----
 * The few numbers not derived from the catalog: achieved fractions of peak, fitted on the
 * calibration data or assumed, per GPU architecture (docs/model.md §3.3 lists each value with
 * the data it came from). */
typedef struct gpuecon_efficiency {
    const char *arch;            /* ampere, hopper, blackwell, blackwell-ultra, cdna3 */
    double gemm_bf16;            /* large-GEMM fraction of the dense BF16 peak */
    double gemm_fp8;             /* large-GEMM fraction of the dense FP8 peak */
    double gemm_fp4;             /* large-GEMM fraction of the dense FP4 peak */
    double attn_flash;           /* flash-attention kernel fraction of the BF16 peak */
    double hbm;                  /* achieved fraction of HBM bandwidth (elementwise, norms) */
    double kernel_s;             /* fixed time per kernel (launch, ramp, tail), seconds */
    double speed_cv;             /* GPU-to-GPU speed variability (coefficient of variation of
                                    per-GPU compute speed): a synchronous step runs at the
                                    pace of the slowest of its N GPUs */
    double scaleup_busbw;        /* achievable busbw / scaleup_gbps (NVLink, xGMI) */
    double scaleout_busbw;       /* achievable busbw / scaleout_gbps (InfiniBand, Ethernet) */
    double coll_launch_s;        /* fixed cost of one collective call */
    /* mixture of experts (docs/model.md §4.3) */
    double scaleout_a2a;         /* achievable all-to-all bandwidth per NIC / scaleout_gbps */
    double grouped_gemm;         /* grouped expert GEMMs: fraction of the dense GEMM efficiency */
    double moe_host_s;           /* eager frameworks (no CUDA graphs): host time of one MoE layer's
                                    forward; a layer pass cannot run faster than its launches */
    double moe_load_cv;          /* dropless routing: per-expert token-load coefficient of variation
                                    within a micro-batch (the same in every row: a router property) */
    double attn_fwd;             /* forward flash-attention fraction of the BF16 peak where it is
                                    measured apart (0: attn_flash); the backward runs at attn_flash */
    gpuecon_stage stage;         /* fitted or assumption */
    const char *source;          /* which data, which document */
} gpuecon_efficiency;

/* The built-in parameters for a GPU (by arch; an unknown arch gets Hopper's row,
 * whose source says what it was fitted on). Never NULL. */
const gpuecon_efficiency *gpuecon_efficiency_for(const gpuecon_gpu *gpu);
/* Every built-in row, for documentation and `gpuecon validate`. */
const gpuecon_efficiency *gpuecon_efficiency_table(size_t *n);

/* ---- the 80% band of a predicted figure (filled by src/analysis/band.c; docs/model.md §7.6) ----
 * What the published value of a run like this one would fall inside, 8 times in 10: from the held-out
 * errors of the nearest validate group, widened where the case extrapolates, centred on a user's
 * calibration where one applies. A data type only: results carry it, the analysis layer fills it. */
typedef struct gpuecon_band {
    bool set;                 /* false: no band (a figure given, not predicted) */
    double low, high;         /* the interval, in the figure's unit */
    double level;             /* 0.8 */
    char basis[160];          /* "hopper-bf16-dense, n=6 held out", or "calibrated: 3 runs of runs.yaml;
                                 hopper-bf16-dense, n=6 held out" (the group whose scatter sets the width) */
    char extrapolating[512];  /* the axes the case lies outside of, "; "-separated; "" when none; an axis that
                                 would not fit whole is left out and the list ends "; ..." (never cut mid-word) */
    int n;                    /* rows behind the width */
    bool calibrated;          /* a user calibration applies: the band is centred on the calibrated point,
                                 its width band_calibrated_half's (docs/model.md §7.6) */
} gpuecon_band;

/* ---- a user's calibration (src/model/calibration.c; docs/model.md §3.8) ----
 * `gpuecon calibrate` fits a few scales on a user's own measurements of one stack x system x
 * precision and writes them as an overlay catalog entry (calibrations.yaml, stage measured).
 * Each scale multiplies a family of the built-in efficiency parameters, never a datasheet value;
 * 1 leaves the family as built in. */
typedef enum gpuecon_cal_param {
    GPUECON_CAL_GEMM,   /* tensor-core fractions: training gemm_bf16/fp8/fp4, attn_flash, attn_fwd;
                           serving eta_c */
    GPUECON_CAL_HBM,    /* HBM fractions: training hbm; serving eta_bw, eta_kv, eta_moe */
    GPUECON_CAL_KERNEL, /* fixed time per kernel and host step: training kernel_s, moe_host_s;
                           serving kernel_s, launch_s, sched_s, step_overhead_s, seq_overhead_s,
                           draft_step_s (the per-layer decode cost) */
    GPUECON_CAL_COMM,   /* collective bus-bandwidth fractions: training scaleup_busbw,
                           scaleout_busbw, scaleout_a2a; serving eta_link_small, eta_link_large */
    GPUECON_CAL_PARAMS
} gpuecon_cal_param;

/* The largest fraction of a peak a calibrated fraction may reach, and the smallest. */
#define GPUECON_CAL_FRACTION_MAX 0.98
#define GPUECON_CAL_FRACTION_MIN 0.02

/* "gemm", "hbm", "kernel", "comm" (the overlay's field names without _scale). */
const char *gpuecon_cal_param_name(gpuecon_cal_param p);

typedef struct gpuecon_calibration {
    const char *name;             /* "STACK/SYSTEM/PRECISION" (gemm/ or nccl/ for a microbenchmark) */
    int workload;                 /* as gpuecon_stack.workload: 0 train, 2 serve */
    const char *stack;            /* NULL: any stack */
    const char *system;           /* NULL: any system */
    int precision;                /* gpuecon_precision; -1: any */
    double scale[GPUECON_CAL_PARAMS];        /* 1 (or 0): as built in */
    const char *scale_source[GPUECON_CAL_PARAMS]; /* the user's file and rows; NULL: not fitted */
    double spread;                /* 80% half-width of |ln(predicted/measured)| on the user's runs,
                                     leave-one-out (0: fewer than two runs) */
    int runs;                     /* measurements the scales were fitted on */
    const char *source;           /* the user's file */
    const gpuecon_source *src;    /* per field, as the catalog loaded it (calibrations.yaml); NULL when
                                     made in memory */
} gpuecon_calibration;

/* The physical bounds of a fitted scale (gpuecon calibrate and validate --leave-one-out fit within the
 * same ones). A family of fractions whose largest member is frac_max may grow until that member
 * reaches GPUECON_CAL_FRACTION_MAX (never below 1: a family at the cap as built in may still shrink),
 * and shrink to a tenth, or less far where its smallest member frac_min (0: not known) would fall
 * below GPUECON_CAL_FRACTION_MIN. A fixed time (frac_max 0) scales 0.1x to 10x. */
#define GPUECON_CAL_SCALE_MIN 0.1
#define GPUECON_CAL_SCALE_MAX 10.0
void gpuecon_calibration_bounds(double frac_max, double frac_min, double *lo, double *hi);

/* The scale of parameter p (1 when c is NULL or the scale is unset). */
double gpuecon_calibration_scale(const gpuecon_calibration *c, gpuecon_cal_param p);
/* Multiplies the link model's bandwidth fractions by c's comm scale (within the same bounds); c NULL:
 * no change. */
void gpuecon_calibration_apply_link(const gpuecon_calibration *c, gpuecon_link_model *lm);
/* Multiplies e's parameter families by c's scales; fractions stay within
 * [GPUECON_CAL_FRACTION_MIN, GPUECON_CAL_FRACTION_MAX]. c NULL: no change. */
void gpuecon_calibration_apply_eff(const gpuecon_calibration *c, gpuecon_efficiency *e);
/* A GEMM microbenchmark as the training model times a GEMM (train_gemm, docs/model.md §3.3):
 * roofline of 2·M·N·K FLOPs at the precision's dense peak × gemm efficiency against the HBM traffic
 * of its operands (input bytes of the precision, BF16 output) at the HBM fraction, plus the fixed
 * per-kernel time; the efficiency row of the system's GPU with c applied (NULL: as built in).
 * Returns the achieved TFLOP/s (0 when the GPU lacks that precision). */
double gpuecon_gemm_tflops(const gpuecon_system *s, gpuecon_precision p, const gpuecon_calibration *c, double m,
                           double n, double k);

/* ---- memory per GPU (src/model/memory.c) ----
 * Small functions, reusable (fine-tuning). Bytes, not GiB. */
typedef enum gpuecon_recompute {
    GPUECON_RECOMPUTE_NONE,
    GPUECON_RECOMPUTE_SELECTIVE, /* attention core (Korthikanti et al. 2022 §4.1) */
    GPUECON_RECOMPUTE_FULL       /* every layer from its input ("uniform", 1 layer) */
} gpuecon_recompute;

typedef enum gpuecon_attn_impl {
    GPUECON_ATTN_IMPL_FLASH,     /* fused flash-style kernel: no s×s scores in memory, at the GPU
                                    generation's attn_flash (Transformer Engine's cuDNN kernels) */
    GPUECON_ATTN_IMPL_UNFUSED,   /* QK^T, softmax, dropout, AV as separate kernels (2021) */
    GPUECON_ATTN_IMPL_FA2        /* FlashAttention-2 as PyTorch SDPA's flash backend runs it: its
                                    published fwd+bwd throughput by sequence length and head dim
                                    (train_fa2_eff, docs/model.md §3.4) */
} gpuecon_attn_impl;

/* How the elementwise work of a layer (norms, rotary embedding, activation, residual adds) is
 * launched (docs/model.md §3.4): fused kernels (Transformer Engine / Apex), torch.compile's
 * Inductor fusion (the same HBM passes), or eager PyTorch, one kernel and one HBM round trip
 * per op, norms and the rotary embedding in fp32 (torchtitan's Llama code). */
typedef enum gpuecon_fusion {
    GPUECON_FUSION_FUSED,
    GPUECON_FUSION_COMPILED,
    GPUECON_FUSION_EAGER
} gpuecon_fusion;

/* Serving attention kernels (docs/model.md §6.15 AK1–AK4; src/model/attn_kernel.c): what an engine
 * stack runs for decode and prefill attention, by GPU generation and head layout. */
typedef enum gpuecon_attn_kernel {
    GPUECON_AK_PROFILE,        /* none named: the profile's eta_kv and eta_attn */
    GPUECON_AK_XQA,            /* TensorRT-LLM XQA (Hopper GQA/MQA decode) */
    GPUECON_AK_TRTLLM_GEN,     /* TensorRT-LLM trtllm-gen FMHA (Blackwell) */
    GPUECON_AK_FA3,            /* FlashAttention 3 */
    GPUECON_AK_FLASHINFER,     /* FlashInfer paged decode / prefill */
    GPUECON_AK_FLASHMLA,       /* FlashMLA absorbed-MLA decode (Hopper) */
    GPUECON_AK_TRTLLM_GEN_MLA, /* trtllm-gen MLA decode (Blackwell; FP8 MQA with an FP8 KV cache) */
    GPUECON_AK_COUNT
} gpuecon_attn_kernel;

typedef struct gpuecon_attn_kernel_info {
    const char *name;
    double hbm;     /* decode, memory-bound: achieved fraction of HBM bandwidth reading the KV cache
                       at long context (0: the profile's eta_kv) */
    double tc;      /* decode, compute-bound (MLA's absorbed form at many query heads): fraction of the
                       dense tensor peak (0: the profile's attention efficiency) */
    bool fp8_math;  /* with an FP8 KV cache, Q is quantised too and QK^T, PV run at the FP8 rate */
    bool prefill;   /* prefill at the FlashAttention-3 curve by sequence length (AK3) */
    const char *source;
} gpuecon_attn_kernel_info;

/* The kernel's facts; NULL out of range. */
const gpuecon_attn_kernel_info *gpuecon_attn_kernel_get(int k);
/* AK3: causal prefill attention's fraction of the dense BF16 peak at a sequence length s (the
 * FlashAttention-3 paper's H100 forward figure, causal, head dim 128), log-linear between the
 * published points, flat outside them. */
double gpuecon_attn_prefill_frac(double s);

/* A framework stack (data/stacks.yaml): the framework facts that change speed or memory.
 * gpuecon_train_request_apply_stack copies them into a request; single options override. */
struct gpuecon_stack {
    const char *name;
    const char *framework;    /* what it is: framework, release, recipe family */
    int grad_reduce;          /* 0 fp32, 1 bf16, 2 by precision (fp32 for BF16 runs, bf16 for
                                 FP8/FP4): gradient buffer and DP reduction */
    bool fp8_param;           /* FP8-only weights (fp8_param_gather) with delayed/current/MXFP8 */
    int optimizer_states;     /* 0 fp32 Adam m and v, 1 bf16 (precision-aware optimizer) */
    int fp8_recipe;           /* gpuecon_fp8_recipe */
    bool tp_overlap, dp_overlap, ep_overlap; /* which overlaps exist (PP transfers: always, §3.4) */
    int attention;            /* gpuecon_attn_impl */
    bool sequence_parallel, dropout, cuda_graphs;
    int dispatcher;           /* gpuecon_dispatcher */
    bool flex_dispatcher;     /* Megatron-Core's flex dispatcher: the all-to-all, DeepEP and
                                 HybridEP are all on offer, and the search chooses among them */
    bool fp8_dispatch;        /* dispatch tokens in FP8 (combine stays BF16) */
    bool tp_async_grad;       /* without SP: each column-parallel linear's input-gradient all-reduce
                                 runs asynchronously with its weight-gradient GEMM (Megatron's
                                 async_tensor_model_parallel_allreduce) */
    /* fine-tuning stacks (gpuecon finetune --stack; docs/model.md §6.9) */
    int workload;             /* 0 train (train, search, compare, rl), 1 finetune, 2 serve (infer) */
    double host_launch_us;    /* host time to launch one kernel (eager PyTorch op), µs */
    bool compiled;            /* torch.compile: elementwise chains fused into single kernels */
    int fp8_linear;           /* FP8 linears: 0 none (bf16 only), 1 naive casts, 2 Transformer Engine */
    int precision;            /* linear precision when none is asked: 0 bf16, 1 fp8 */
    /* training kernels (docs/model.md §3.4, §3.7) */
    int fusion;               /* gpuecon_fusion */
    int selective_recompute;  /* what selective recompute recomputes: 0 the attention core
                                 (Megatron), 1 per operator (torchtitan's op SAC: every second
                                 matmul and every elementwise op, the attention kernel's output kept) */
    bool kv_repeat;           /* grouped-query K and V copied out to every query head before the
                                 attention kernel (torchtitan's repeat_kv), the output transposed
                                 back through HBM */
    int cp_comm;              /* context parallelism: 0 ring attention (K, V passed around the ring, each
                                 step hidden behind one step of the attention kernel), 1 all-gather (the
                                 whole sequence's K, V gathered before attention, exposed) */
    /* serving engine stacks (workload 2: gpuecon infer --stack; docs/model.md §6.15) */
    const char *profile;      /* the built-in efficiency constants (eta_bw, eta_kv, eta_c) it runs with */
    const char *attn_hopper;  /* decode/prefill attention kernels on Hopper, Blackwell, and for MLA */
    const char *attn_blackwell;
    const char *attn_mla;
    int kernel_gqa_hopper;    /* gpuecon_attn_kernel priced for MHA/GQA attention on Hopper ... */
    int kernel_gqa_blackwell; /* ... on Blackwell ... */
    int kernel_mla_hopper;    /* ... and for MLA on Hopper and on Blackwell (AK1) */
    int kernel_mla_blackwell;
    const char *moe_kernel;   /* MoE grouped GEMM at few tokens per expert, and the dispatch */
    double kernel_us;         /* fixed GPU time of one kernel replayed in a CUDA graph */
    int graph_max_bs;         /* largest decode batch captured in a CUDA graph */
    bool piecewise;           /* above it: piecewise graphs (attention launched eagerly) */
    double sched_us;          /* scheduler host time per step */
    bool overlap_sched;       /* the scheduler runs beside the GPU's step */
    bool fused_ar_norm;       /* all-reduce fused with the residual add and the next RMSNorm */
    bool attention_dp;        /* attention data-parallel with expert-parallel MoE on offer */
    double ar_one_shot_tp4_kib, ar_one_shot_tp8_kib; /* one-shot custom all-reduce limits (0: none) */
    double moe_bw_frac;       /* HBM fraction of the routed experts' grouped GEMM at decode (0: eta_bw) */
    const gpuecon_source *src;
};


const char *gpuecon_recompute_name(gpuecon_recompute r);

/* Activation bytes one transformer layer keeps for backward, per micro-batch of `mbs`
 * sequences of `seq_local` tokens (the sequence share of one context-parallel rank), with
 * tensor parallelism tp, sequence parallelism on/off and a recompute policy. Korthikanti et
 * al. 2022 Table 2, generalised to GQA, gated MLPs and flash attention (docs/model.md §3.2):
 *   no recompute, no TP:  s·b·h·(34 + 5·a·s/h)  (GPT, MHA, 4h GELU MLP, dropout, unfused)
 *   TP + SP:              s·b·h·(34 + 5·a·s/h)/t;   TP without SP: s·b·h·(10 + 24/t + 5as/(ht))
 *   selective:            the 5as/h term is dropped;  full: 2·s·b·h (/t with SP). */
double gpuecon_layer_activation_bytes(const gpuecon_model *m, int layer, int seq_local,
                                                  int mbs, int tp, bool sp, gpuecon_recompute r,
                                                  gpuecon_attn_impl impl, bool dropout);
/* Bytes per parameter of weights, gradients and Adam states, with ZeRO stage `zero` (0-3)
 * sharding over `shards` ranks (data × context parallel): weights 2 (+1 FP8 copy), fp32
 * gradients 4, fp32 master + m + v 12. */
typedef struct gpuecon_param_bytes {
    double weights, grads, optimizer, fp8_copy;
} gpuecon_param_bytes;
void gpuecon_param_bytes_per_param(int zero, int shards, gpuecon_precision p,
                                               gpuecon_param_bytes *out);
/* The same as the recipes have it (Megatron-LM docs/user-guide/features/dist_optimizer.md;
 * docs/model.md §3.2): grads of grad_bytes (4: grad_reduce_in_fp32, 2: BF16), Adam m and v of
 * state_bytes each (4, or 2 with the precision-aware optimizer) beside the fp32 master;
 * fp8_param: FP8-only weights (1 B, no BF16 copy); transpose: Hopper keeps a column-wise FP8
 * copy too (+1 B), Blackwell reads column-wise natively. */
void gpuecon_param_bytes_ex(int zero, int shards, gpuecon_precision p, int grad_bytes,
                                        int state_bytes, bool fp8_param, bool transpose,
                                        gpuecon_param_bytes *out);
/* Micro-batches whose activations the first pipeline stage holds at peak: min(m, p) for
 * 1F1B, times (1 + (p-1)/(p·v)) with v > 1 virtual stages (Korthikanti et al. §4.2.3). */
double gpuecon_inflight_microbatches(int pp, int vpp, int microbatches);
/* Allocator and workspace reserve kept free on every GPU (CUDA context, cuBLAS and NCCL
 * workspaces, caching-allocator fragmentation), bytes; docs/model.md §3.2. */
double gpuecon_memory_reserve_bytes(const gpuecon_gpu *gpu);

/* ---- the training step (src/model/train.c; searched by src/analysis/search.c) ---- */

#define GPUECON_SEARCH (-1) /* "search this dimension" for the int fields below */

typedef struct gpuecon_train_request {
    const gpuecon_model *model;
    const gpuecon_system *system;
    int gpus;
    gpuecon_precision precision;
    int seq;                  /* tokens per sequence */
    int gbs;                  /* global batch, sequences */
    /* parallel sizes: GPUECON_SEARCH or 0 = search; otherwise fixed */
    int tp, pp, vpp, cp, ep, mbs;
    int recompute;            /* GPUECON_SEARCH or a gpuecon_recompute */
    int zero;                 /* GPUECON_SEARCH or 0..3 (FSDP = 3) */
    int tp_overlap;           /* GPUECON_SEARCH, 0 or 1 (TP communication overlapped with GEMMs) */
    /* mixture of experts (dense models: ep = etp = 1). Experts use their own layout
     * (Megatron's MoE parallel folding): ep x etp divides tp x cp x dp, the ranks of one
     * pipeline stage, which MoE jobs number tp, cp, dp innermost and pp outermost. */
    int etp;                  /* expert tensor parallel: GPUECON_SEARCH or fixed (divides the expert FFN) */
    int a2a_overlap;          /* GPUECON_SEARCH, 0 or 1: dispatch/combine hidden behind another
                                 micro-batch's compute (DualPipe, Megatron EP overlap) */
    double capacity_factor;   /* 0: dropless routing (the busiest GPU sets the pace); > 0: every
                                 expert processes exactly cf x its mean tokens (drop and pad) */
    double moe_imbalance;     /* dropless: busiest GPU's tokens / mean (>= 1); 0: derived from the
                                 per-expert load spread (docs/model.md §4.2) */
    int mtp;                  /* multi-token-prediction modules trained: -1 = the model's
                                 mtp_layers (default), 0 = none, n */
    bool cuda_graphs;         /* layers captured in CUDA graphs (default true); false: eager, each
                                 MoE layer pass is at least its host launch time */
    bool tp_async_grad;       /* without sequence parallelism and without TP overlap: the all-reduce
                                 of each column-parallel linear's input gradient (QKV, FC1) runs
                                 beside that linear's weight-gradient GEMM and only what outlasts
                                 it is exposed (Megatron async_tensor_model_parallel_allreduce);
                                 default false */
    /* framework behaviour (defaults from gpuecon_train_request_init: modern Megatron/NeMo) */
    bool sequence_parallel;   /* SP with TP > 1 (Korthikanti et al.); default true */
    bool dp_overlap;          /* DP gradient reduce and parameter gather overlapped; default true */
    bool dropout;             /* dropout masks kept (GPT-3 style); default false */
    int grad_reduce_bytes;    /* bytes per gradient in the DP reduction; 0: 4 (fp32) for bf16,
                                 2 for fp8/fp4, as the NeMo recipes do */
    gpuecon_attn_impl attn_impl; /* default flash */
    gpuecon_fusion fusion;    /* default fused */
    bool selective_op;        /* selective recompute per operator (a torchtitan stack); default false */
    bool kv_repeat;           /* K, V repeated to every query head before attention; default false */
    int cp_comm;              /* 0 ring (default), 1 all-gather context parallelism (docs/model.md §3.4) */
    const gpuecon_efficiency *eff; /* NULL: gpuecon_efficiency_for(system->gpu) */
    const gpuecon_calibration *calibration; /* a user's calibration, applied on top of eff (NULL: none) */
    /* recipe memory and kernels (docs/model.md §3.2, §3.7); defaults reproduce a stack with
     * FP32 Adam states, BF16+FP8 dual weights and delayed scaling */
    const gpuecon_stack *stack; /* the stack applied (named in outputs); NULL: none */
    bool fp8_param;           /* FP8-only weights (fp8_param_gather; FP8 runs only) */
    int optim_state_bytes;    /* 0 or 4: fp32 Adam m, v; 2: precision-aware optimizer */
    gpuecon_fp8_recipe fp8_recipe; /* default delayed */
    int offload_layers;       /* activations of N layers per pipeline stage kept in host memory
                                 (Megatron cpu_offloading_num_layers); GPUECON_SEARCH: the fewest
                                 that fit; default 0 */
    gpuecon_dispatcher dispatcher; /* MoE dispatch (default nccl-a2a); GPUECON_DISPATCH_SEARCH:
                                      each of the three, the best kept (a flex-dispatcher stack) */
    bool fp8_dispatch;        /* MoE dispatch in FP8 */
    bool balanced_routing;    /* forced-balanced routing (the published MoE benchmarks): no
                                 load imbalance applies */
    int cuda_graph_scope;     /* with cuda_graphs: GPUECON_GRAPH_FULL (default) or a mask of
                                 GPUECON_GRAPH_* captured; the routed experts (dispatch, permute,
                                 grouped GEMMs, combine) always launch eagerly then */
    bool recompute_moe;       /* with selective recompute, the MoE blocks too (Megatron
                                 recompute_modules "moe"): block forward and dispatch again in
                                 backward, only the block input kept. false with recompute left
                                 to the search: an MoE model's search recomputes the MoE blocks
                                 too where selective alone does not fit (elsewhere that only
                                 adds time); a fixed recompute is taken as given (selective:
                                 the attention core only) */
    double rank_mfu_cap;      /* > 0: the search ranks a layout by its throughput at
                                 min(causal-attention MFU, this) (the best ever published for the GPU
                                 generation and precision, docs/model.md §3.5), so a layout above
                                 it wins on nothing beyond it; the prediction itself is never
                                 capped. 0 (default): rank by the point estimate */
    double rank_band_low[2];  /* > 0: the search ranks a layout at the low end of its 80% band (docs/model.md
                                 §3.5, §7.6), its (capped) throughput times [0] where a calibration row
                                 combines the layout's parallelisms (rank_family_covered), times [1] where
                                 none does (the band widened for that extrapolation), so an untested
                                 combination cannot win on optimism alone; 0 (default): at the point */
    uint32_t rank_family_covered[16]; /* bit f (of 512): layout family f (calib_family's bits) is inside the
                                         calibration set */
} gpuecon_train_request;

/* Copies a stack's framework facts into a request (overlaps, SP, attention, dropout, CUDA
 * graphs, gradient precision, FP8-only weights, optimizer states, FP8 recipe, dispatcher —
 * GPUECON_DISPATCH_SEARCH when the stack has the flex dispatcher; the GEMM precision, BF16 or the
 * stack's FP8 default such as torchtitan's Float8 recipe);
 * tp_overlap and a2a_overlap become GPUECON_SEARCH where the stack has the overlap, 0 where
 * it lacks it. Sets req->stack. The caller applies single options afterwards. */
void gpuecon_train_request_apply_stack(gpuecon_train_request *req, const gpuecon_stack *stack);

/* Fills every searchable field with GPUECON_SEARCH and the framework defaults above; the
 * caller then sets model, system, gpus, precision, seq, gbs and any fixed sizes. */
void gpuecon_train_request_init(gpuecon_train_request *req);

typedef struct gpuecon_parallel {
    int tp, pp, vpp, cp, ep, dp, mbs;
    int etp;                  /* expert tensor parallel (1 for dense models) */
    int edp;                  /* expert data parallel: tp·cp·dp / (ep·etp) */
    bool a2a_overlap;
    int microbatches;         /* per step per data-parallel rank: gbs / (dp · mbs) */
    gpuecon_recompute recompute;
    bool recompute_moe;       /* selective recompute covers the MoE blocks too (asked or searched;
                                 false unless recompute is selective and the model is MoE) */
    int zero;
    bool tp_overlap;
    bool sequence_parallel;
    int offload_layers;       /* activations of this many layers per stage in host memory */
} gpuecon_parallel;

/* The recompute of a configuration in one word: "none", "selective", "selective+moe" (the MoE
 * blocks too) or "full". Never NULL. */
const char *gpuecon_parallel_recompute_name(const gpuecon_parallel *p);

/* Step time split; the parts add up to step_time_s. Communication is the exposed part only. */
typedef struct gpuecon_train_breakdown {
    double compute_s;     /* GEMMs, attention, elementwise, recompute of all micro-batches */
    double tp_comm_s;     /* tensor-parallel collectives not hidden behind GEMMs */
    double cp_comm_s;     /* context-parallel ring exchange not hidden behind attention */
    double ep_comm_s;     /* expert-parallel all-to-all (0 for dense models) */
    double pp_bubble_s;   /* pipeline fill and drain: the other stages' time per micro-batch, /v
                             ((p-1)/v of the stage time when stages are equal) */
    double pp_comm_s;     /* pipeline point-to-point transfers on the critical path */
    double dp_comm_s;     /* data-parallel gradient reduce / parameter gather not hidden */
    double optimizer_s;   /* Adam step over the local parameter shard */
    double straggler_s;   /* the slowest of the job's GPUs: compute x speed_cv x E[max of N] */
    double offload_s;     /* activation offload to host memory not hidden behind compute */
} gpuecon_train_breakdown;

typedef struct gpuecon_train_memory {
    double weights_gib, grads_gib, optimizer_gib, fp8_copy_gib;
    double activations_gib;   /* held for backward at the peak of the schedule */
    double transient_gib;     /* working set of one layer (recompute) and the logits */
    double reserve_gib;       /* allocator and workspace reserve */
    double total_gib;
    double capacity_gib;      /* the GPU's hbm_gib */
    bool fits;
    const char *overflow_term;/* when !fits: the largest term ("activations", ...) */
    double overflow_term_gib; /* its size */
    double overflow_gib;      /* total - capacity (> 0 when !fits) */
    int stage;                /* the pipeline stage that needs the most */
    double offloaded_gib;     /* activations kept in host memory (that stage) */
} gpuecon_train_memory;

/* What the mixture-of-experts layers of a configuration do (zero for dense models). */
typedef struct gpuecon_train_moe {
    int moe_layers;           /* MoE layers in the model (plus MTP modules trained) */
    int local_experts;        /* routed experts per GPU: experts / ep */
    double tokens_per_expert; /* rows of one local expert's GEMM per micro-batch (load factor incl.) */
    double load_factor;       /* capacity factor, or the busiest GPU's tokens / mean when dropless */
    double grouped_gemm_eff;  /* achieved fraction of peak of the expert GEMMs */
    double a2a_bytes;         /* one dispatch: bytes each GPU sends (nccl-tests size S) */
    double a2a_s;             /* time of one dispatch all-to-all */
    double a2a_intra_fraction;/* share of those bytes that stays inside the scale-up domain */
    int ep_domains;           /* scale-up domains one expert-parallel group spans */
    double a2a_total_s;       /* the layer's four all-to-alls (+ ETP gathers) per micro-batch */
    double a2a_exposed_s;     /* the part not hidden behind compute */
    gpuecon_dispatcher dispatcher; /* the dispatcher timed (the search's choice where it chose) */
    int cuda_graph_scope;     /* -1 eager; GPUECON_GRAPH_FULL or the captured mask */
    double host_s;            /* host launch time of one layer's forward and backward, the
                                 eager part (0 with full graphs): a layer pass lasts at least this */
} gpuecon_train_moe;

typedef struct gpuecon_train_result {
    double tokens_per_s_per_gpu;
    double mfu;               /* model FLOPs with FULL attention (NVIDIA/NeMo dense convention,
                                 gpuecon_train_flops) over the dense peak at the precision */
    double mfu_causal;        /* the same with causal attention counted (half) */
    double hfu;               /* FLOPs the GPUs execute, incl. recompute and causal masking */
    double model_flops_per_token;
    double peak_flops;        /* per GPU at the training precision */
    double step_time_s;
    double memory_gib_per_gpu;
    bool fits;
    gpuecon_parallel par;
    gpuecon_train_breakdown bd;
    gpuecon_train_memory mem;
    gpuecon_train_moe moe;
    int stage_layers_first, stage_layers_max, stage_layers_last; /* transformer layers */
} gpuecon_train_result;

/* Predicts one training step. Sizes left to search are searched (gpuecon_train_search with
 * top 1, objective throughput) and the best configuration is returned. Mixture-of-experts
 * models (experts > 0) add their expert layer, layout and all-to-all (docs/model.md §4;
 * result.moe, breakdown.ep_comm_s).
 * Errors: GPUECON_E_INPUT for impossible sizes, naming the constraint ("--tp: 3 does not
 * divide the 96 attention heads", "--pp: 200 is above the 126 layers", product of sizes not
 * equal to gpus, gbs not divisible by dp·mbs, "--ep: 48 does not divide the 256 routed
 * experts", "--ep: ep x etp = 64 does not divide tp x cp x dp (gpus / pp) = 32", "top_k: ... must
 * be between 1 and its 8 experts", ...); GPUECON_E_INFEASIBLE when nothing fits
 * in memory: *out then holds the configuration with the smallest overflow (fits = false,
 * mem.overflow_term and mem.overflow_gib say why) and err names that overflow. */
int gpuecon_train_predict(gpuecon_ctx *ctx, const gpuecon_train_request *req,
                                      gpuecon_train_result *out, gpuecon_error *err);

/* ==== reliability and goodput (src/model/reliability.c; Monte Carlo: src/analysis/reliability_mc.c) */
/*
 * A synchronous training job on G active GPUs occupies K whole NVLink domains (D GPUs each,
 * A = D − spares_per_domain of them active) plus a pool of S whole spare domains. Failures
 * come in classes; each class is a share of the job's interruptions at the tier's MTBI and
 * has a blast radius and a repair time (MTTR). The analytic model (reliability.c) gives the
 * effective training time ratio (ETTR) in closed form; the Monte Carlo (reliability_mc.c) simulates
 * the job exactly and is the reference where the closed forms approximate.
 * Formulas and sources: docs/model.md §5.
 */

/* Failure classes (the Llama 3 Table 5 causes grouped by what they take down). */
typedef enum gpuecon_fclass {
    GPUECON_FCLASS_GPU,       /* faulty GPU, HBM, SRAM, GSP, thermal, silent data corruption */
    GPUECON_FCLASS_HOST,      /* host maintenance, NIC, SSD, PSU, CPU, memory, chassis */
    GPUECON_FCLASS_NETWORK,   /* network switch or cable */
    GPUECON_FCLASS_SOFTWARE,  /* software bug, NCCL watchdog, dependency */
    GPUECON_FCLASS_SWITCH,    /* NVLink switch tray (drains an NVL72 rack) */
    GPUECON_FCLASS_BACKPLANE, /* NVLink copper backplane, rack-level power/cooling */
    GPUECON_FCLASS_COUNT
} gpuecon_fclass;

/* What one fault takes away from the job until it is repaired. */
typedef enum gpuecon_blast {
    GPUECON_BLAST_NODE,   /* gpus_per_node GPUs: a server on HGX, a compute tray on NVL72 */
    GPUECON_BLAST_DOMAIN, /* the whole NVLink domain: a rack on NVL72, the server on HGX */
    GPUECON_BLAST_JOB     /* no hardware: the job restarts on the same GPUs */
} gpuecon_blast;

const char *gpuecon_fclass_name(gpuecon_fclass c); /* "gpu", "host", ... */
const char *gpuecon_blast_name(gpuecon_blast b);   /* "node", "domain", "job" */

typedef struct gpuecon_fclass_params {
    double share;      /* fraction of the tier's interruptions (per active GPU at MTBI) */
    int blast;         /* gpuecon_blast */
    double mttr_min_h; /* repair time of the failed unit, uniform in [min, max] hours */
    double mttr_max_h;
    double detect_extra_s;  /* added to the tier's detection for faults of this class */
    double restart_extra_s; /* added to the tier's restart after faults of this class */
} gpuecon_fclass_params;

/* One operator tier's reliability inputs for one system (data/reliability.yaml). */
typedef struct gpuecon_reliability {
    const char *name;     /* "<system>/<tier>", e.g. "hgx-h100/typical" */
    const char *system;
    const char *tier;     /* best | typical | poor */
    const char *like;     /* entry whose values fill the fields this one leaves out (or NULL) */
    double mtbi_gpu_days; /* mean time between job interruptions per active GPU */
    double detect_s;      /* fault detection and eviction decision */
    double restart_s;     /* re-schedule, init, checkpoint load, warm-up */
    double queue_s;       /* queue time per (re)submission on a shared cluster */
    double ckpt_interval_s; /* work between checkpoints; 0: optimal (Daly) */
    double ckpt_write_s;  /* time to write one checkpoint */
    bool async_ckpt;      /* the write runs in the background after a short blocking copy */
    double ckpt_block_s;  /* with async_ckpt: the blocking part */
    int spares_per_domain;  /* GPUs of each job domain held as hot spares (NVL72: 8) */
    double spare_domain_pct; /* pool of whole spare domains, % of the job's domains */
    gpuecon_fclass_params fclass[GPUECON_FCLASS_COUNT];
    const gpuecon_source *src;
} gpuecon_reliability;

typedef enum gpuecon_goodput_form {
    GPUECON_FORM_G2, /* exact renewal (Daly 2006) with waiting: recommended, the default */
    GPUECON_FORM_G1, /* first-order, Meta/Kokolis et al. 2024 */
    GPUECON_FORM_G3  /* additive, SemiAnalysis-style: 1 − Λ·t_loss − δ/τ */
} gpuecon_goodput_form;

typedef enum gpuecon_spare_cost {
    GPUECON_SPARES_CHARGED, /* spare GPUs are paid by the job (SemiAnalysis 20 Aug 2025, "with spare cost") */
    GPUECON_SPARES_FREE     /* spare GPUs earn other work (SemiAnalysis, "without spare cost") */
} gpuecon_spare_cost;

/* Everything the analytic model and the simulator need. Fill it with
 * gpuecon_reliability_request_init, then change any field. Times in seconds. */
typedef struct gpuecon_reliability_request {
    const gpuecon_system *system; /* domain size and node (tray) size */
    int active_gpus;              /* rounded up to whole domains of active GPUs */
    double mtbi_gpu_days;
    gpuecon_fclass_params fclass[GPUECON_FCLASS_COUNT]; /* shares are normalised to sum 1 */
    double detect_s, restart_s, queue_s;
    double ckpt_interval_s;       /* 0: optimal (Daly's interval, at least the write time) */
    double ckpt_write_s;
    bool async_ckpt;
    double ckpt_block_s;
    int spares_per_domain;        /* multiple of gpus_per_node, below scaleup_gpus */
    int spare_domains;            /* pool size; -1: ceil(spare_domain_pct % of the job's domains) */
    double spare_domain_pct;
    double mttr_scale;            /* multiplies every repair time (0: instant repair) */
    double duration_s;            /* the job's wall-clock horizon (when no token budget) */
    double weibull_shape;         /* hardware lifetimes: 1 exponential, < 1 burn-in, > 1 wear-out
                                     (simulator only; the analytic forms assume 1) */
    gpuecon_goodput_form form;    /* which form gives result.ettr */
    gpuecon_spare_cost spare_cost;
    double tokens_per_s_per_gpu;  /* 0: no goodput or token budget */
    double usd_per_mtok;          /* raw $/Mtok at full goodput (0: no effective cost) */
    double tokens;                /* token budget: days to train (and the simulator runs each
                                     trial until it is trained); 0: none */
    int trials;                   /* Monte Carlo trials */
    double *trial_ettr;           /* optional, `trials` doubles: each trial's ETTR, in order */
} gpuecon_reliability_request;

/* Lost time by cause, as fractions of wall-clock time (they sum to 1 − ETTR). */
typedef struct gpuecon_lost_time {
    double detect;    /* detection, plus queue time */
    double restart;   /* restarts, including restarts hit by a failure */
    double recompute; /* work done since the last committed checkpoint, redone */
    double ckpt;      /* blocking checkpoint writes */
    double wait;      /* waiting for repaired or spare hardware */
} gpuecon_lost_time;

typedef struct gpuecon_reliability_result {
    /* topology */
    int requested_gpus, active_gpus; /* active_gpus = domains · active_per_domain */
    int domains, domain_gpus, active_per_domain, node_gpus;
    int spare_domains;
    int spare_gpus;                /* in-domain spares + pool */
    int provisioned_gpus;          /* (domains + spare_domains) · domain_gpus */
    double provisioned_multiplier; /* provisioned / active */
    double charged_gpus;           /* GPUs the job pays for when spares are charged: its domains
                                      plus the pool, or its share pct·K of a cluster-wide pool
                                      when the pool comes from spare_domain_pct (fractional) */
    double charged_multiplier;     /* Π = charged / active, used for the effective cost */
    /* failures */
    double interruptions_per_day;  /* Λ: rate of faults that interrupt the running job */
    double job_mtti_h;             /* 1/Λ */
    double class_per_day[GPUECON_FCLASS_COUNT]; /* Λ by class */
    double disabling_per_day;      /* Λu: faults that take a job domain out (need a spare) */
    double interruptions;          /* Λ · duration */
    /* checkpoints */
    double ckpt_interval_s;        /* the one used */
    bool ckpt_interval_auto;
    double young_interval_s, daly_interval_s; /* for the blocking write δ and MTTI */
    double ckpt_blocking_s;        /* δ: write (sync) or blocking copy (async) */
    double ckpt_commit_lag_s;      /* async: the write time, after which a checkpoint commits */
    /* waiting for hardware */
    double rho;                    /* mean disabled domains among job + pool (M/G/∞) */
    double p_block;                /* P[Poisson(ρ) > S] */
    double busy_period_s;          /* S = 0: M/G/∞ busy period after a disabling fault */
    double wait_per_interruption_s;/* mean, used in G1/G2/G3 when S = 0 */
    /* goodput */
    double g1, g2, g3;             /* the three forms (each with the same waiting model) */
    double ettr;                   /* the requested form */
    gpuecon_lost_time lost;        /* of the requested form */
    /* economics (0 when the request has no throughput / price / budget) */
    double goodput_tokens_per_s;   /* whole job: tok/s/GPU · active · ETTR */
    double effective_usd_per_mtok; /* per the request's spare_cost */
    double effective_usd_per_mtok_with_spares, effective_usd_per_mtok_without_spares;
    double days_to_train;
} gpuecon_reliability_result;

/* Fills req from a system and one of its tiers (tier->system should name sys) for a job of
 * active_gpus GPUs: every failure class, time, checkpoint and spare default of the tier;
 * duration 30 days, exponential lifetimes, form G2, spares charged, 1,000 trials.
 * GPUECON_E_INPUT when sys or tier is NULL. */
int gpuecon_reliability_request_init(gpuecon_reliability_request *req,
                                                 const gpuecon_system *sys,
                                                 const gpuecon_reliability *tier, int active_gpus,
                                                 gpuecon_error *err);

/* Closed-form goodput of the request (docs/model.md §5). Pure and fast (microseconds): fit
 * for root finding. GPUECON_E_INPUT names the offending option ("--detect-s", ...) and the
 * allowed range: non-positive MTBI, shares not summing to 1, an interval shorter than the
 * write time, more spares than a domain holds, GPU counts outside 1 to 10,000,000. */
int gpuecon_reliability_analytic(const gpuecon_reliability_request *req,
                                             gpuecon_reliability_result *out, gpuecon_error *err);

/* Effective $ per million tokens from a raw one (at 100% goodput): raw·Π/ETTR when spares
 * are charged to the job, raw/ETTR when they earn other work (docs/model.md §5.6).
 * Π = provisioned_gpus/active_gpus ≥ 1 (pass the result's charged_gpus). GPUECON_E_INPUT for ettr outside (0, 1], raw < 0,
 * or provisioned < active. */
int gpuecon_effective_usd_per_mtok(double raw_usd_per_mtok, double ettr,
                                               double provisioned_gpus, double active_gpus,
                                               double *with_spares, double *without_spares,
                                               gpuecon_error *err);

/* Checkpoint intervals for a blocking write of write_s seconds and a job MTTI of mtti_s:
 * Young (1974) sqrt(2·δ·M); Daly (2006) sqrt(2δM)·[1 + √(δ/2M)/3 + (δ/2M)/9] − δ for δ < 2M,
 * else M. Both 0 when write_s is 0. */
double gpuecon_young_interval_s(double write_s, double mtti_s);
double gpuecon_daly_interval_s(double write_s, double mtti_s);
/* P[Poisson(rho) > s]: the probability that more than s units are down at once. */
double gpuecon_poisson_tail(double rho, int s);
/* Mean busy period of an M/G/∞ queue with arrival rate `rate` and mean service `mean_s`:
 * (e^{rate·mean} − 1)/rate (→ mean_s as rate → 0): how long a job without spares waits
 * until none of its units is in repair. */
double gpuecon_busy_period_s(double rate_per_s, double mean_s);

/* ==== serving and fine-tuning (src/model/infer.c finetune.c) ============================= */

/* Efficiency constants of a serving engine (docs/model.md §6.7).
 * Built-in profiles: "generic" (engineering estimates) and "vessl-gemma4", whose η_kv, η_c and
 * t_d0 were fitted to the VESSL blog's own figures (MTP increments, FP8 KV, B200 throughput): agreement with those figures is
 * partly circular (fitted_to_blog is true). Copy one into a request and edit it freely. */
typedef struct gpuecon_serving_profile {
    const char *name;
    double eta_bw;           /* fraction of HBM bandwidth reached streaming weights */
    double eta_kv;           /* fraction of HBM bandwidth reached by paged-attention KV reads */
    double eta_c;            /* tensor-core utilisation of the GEMMs of a mixed batch */
    double step_overhead_s;  /* t0: fixed CPU/launch overhead per engine step */
    double seq_overhead_s;   /* t_seq: per running sequence per step (sampler, bookkeeping) */
    double lora_module_s;    /* κ_lora: per adapted module per layer per step (Punica kernels) */
    double draft_step_s;     /* t_d0: fixed cost of one draft (MTP) step */
    double eta_link_small;   /* all-reduce link efficiency for messages <= link_small_bytes */
    double eta_link_large;   /* ... and above (NCCL ring) */
    double link_small_bytes;
    double allreduce_latency_s;        /* α_ar, Hopper and later (one-shot custom all-reduce) */
    double allreduce_latency_ampere_s; /* α_ar on Ampere */
    double cuda_graph_gib;   /* CUDA-graph memory estimate in engine mode v0.21+ */
    double eta_train;        /* fine-tuning: tensor-core utilisation of training matmuls */
    bool fitted_to_blog;     /* constants fitted to the VESSL blog (docs/model.md §6.7) */
    bool kv_reserve;         /* admission reserves KV blocks for prompt + output up front and never
                                preempts (TensorRT-LLM's default GUARANTEED_NO_EVICT); false: blocks
                                as tokens arrive, preempting when they run out (vLLM) */
    bool pp_host_serial;     /* pipelined: each stage's host work for a micro-batch runs after its GPU
                                work, not beside it, and its t_seq covers every running sequence, not
                                only the micro-batch's (TensorRT-LLM's PP executor loop, docs/model.md
                                §6.14 PP7); false: the host overlaps the stages (vLLM's batch queue) */
    const char *eta_c_arch;  /* with eta_c_prec: the GPU generation and math precision eta_c was fitted
                                on; other ones scale eta_c by the training model's GEMM fractions
                                (gpuecon_efficiency_for). NULL: eta_c as given on every GPU */
    gpuecon_precision eta_c_prec;
    const char *note;        /* where the constants come from */
    /* Engine stacks (data/stacks.yaml, workload serve; docs/model.md §6.15). A profile with
       per_layer false keeps O1's lump t0 + t_seq·B; with it, t0 is replaced by the kernels the
       engine launches per layer (infer_layer.c) and its scheduler's host time per step. */
    const char *stack;       /* the stack this profile came from (NULL: a bare profile) */
    bool per_layer;          /* decode fixed cost per layer and per kernel instead of t0 */
    double kernel_s;         /* t_k: fixed GPU time of one kernel replayed in a CUDA graph */
    double launch_s;         /* t_launch: host time to launch one kernel outside a graph */
    int graph_max_bs;        /* largest decode batch captured in a CUDA graph (0: no graphs) */
    bool piecewise;          /* above graph_max_bs: piecewise graphs, only attention launched per layer */
    double sched_s;          /* scheduler host time per step (batching, inputs, outputs) */
    bool overlap_sched;      /* the scheduler's host time runs beside the GPU's step */
    bool fused_ar_norm;      /* the all-reduce kernel also adds the residual and runs the next RMSNorm */
    bool attention_dp_ok;    /* the engine runs attention data-parallel beside expert-parallel MoE */
    double ar_one_shot_tp4_bytes; /* > 0: one-shot custom all-reduce up to this size at TP <= 4 ... */
    double ar_one_shot_tp8_bytes; /* ... and at TP <= 8 (0: link_small_bytes at every TP) */
    int attn_kernels[4];     /* gpuecon_attn_kernel for GQA Hopper, GQA Blackwell, MLA Hopper, MLA
                                Blackwell (a stack's kernel_* fields; all GPUECON_AK_PROFILE otherwise) */
    double eta_moe;          /* > 0: fraction of HBM bandwidth the routed experts' grouped GEMM reaches
                                reading expert weights at decode sizes (0: eta_bw) */
    const gpuecon_calibration *calibration; /* the user's calibration applied to these constants
                                (gpuecon_calibration_apply_profile), named in outputs; NULL: none */
} gpuecon_serving_profile;

/* Multiplies p's constants by c's scales (fractions bounded as for training) and sets
 * p->calibration = c. c NULL: no change. */
void gpuecon_calibration_apply_profile(const gpuecon_calibration *c, gpuecon_serving_profile *p);

size_t gpuecon_serving_profile_count(void);
/* Profile i (NULL when out of range); static storage. */
const gpuecon_serving_profile *gpuecon_serving_profile_at(size_t i);
/* Profile by name ("generic", "vessl-gemma4"), or NULL. */
const gpuecon_serving_profile *gpuecon_serving_profile_find(const char *name);
/* The serving profile of a serving stack (workload 2): its built-in efficiency constants
 * (stack->profile) with the stack's kernel, graph, scheduler and all-reduce mechanisms
 * (docs/model.md §6.15). Returns false when the stack is not a serving stack or names an
 * unknown profile. */
bool gpuecon_serving_profile_from_stack(const gpuecon_stack *stack, gpuecon_serving_profile *out);
/* The serving stack a profile came from, or the bare profile's name: what every serving and RL
 * output names. */
const char *gpuecon_serving_profile_label(const gpuecon_serving_profile *p);

/* Projections a LoRA adapter is attached to (bit set). */
enum {
    GPUECON_LORA_Q = 1, GPUECON_LORA_K = 2, GPUECON_LORA_V = 4, GPUECON_LORA_O = 8,
    GPUECON_LORA_GATE = 16, GPUECON_LORA_UP = 32, GPUECON_LORA_DOWN = 64,
    GPUECON_LORA_ALL = 127
};

typedef enum gpuecon_engine_mode {
    GPUECON_ENGINE_LEGACY, /* vLLM <= v0.20: utilisation 0.90, CUDA graphs in the headroom */
    GPUECON_ENGINE_V021    /* vLLM >= v0.21: utilisation 0.92, CUDA-graph memory subtracted */
} gpuecon_engine_mode;

typedef enum gpuecon_roofline {
    GPUECON_ROOFLINE_SPLIT, /* max(T_w, T_gemm) + max(T_kv, T_attn): separate kernels (default) */
    GPUECON_ROOFLINE_FUSED  /* max(T_w + T_kv, T_gemm + T_attn) */
} gpuecon_roofline;

/* How the mean field places the steady-state prefill in the steps (docs/model.md §6.4, T2). */
typedef enum gpuecon_prefill_steps {
    GPUECON_PREFILL_WHOLE, /* a prompt as one chunk of what the budget leaves, in a fraction of the
                              steps, as a greedy scheduler takes it (vLLM, TensorRT-LLM; default) */
    GPUECON_PREFILL_EVEN   /* every step its share B·E·ρ(1−h) (T1 alone: the seed's worked cases) */
} gpuecon_prefill_steps;

#define GPUECON_INFER_MAX_PP 16

typedef struct gpuecon_infer_request {
    const gpuecon_model *model;     /* required */
    const gpuecon_system *system;   /* required */
    const gpuecon_profile *tco;     /* TCO profile for $/Mtok; NULL: no cost */
    double usd_per_gpu_hour;        /* > 0: the user's price per GPU-hour instead of the profile's TCO */
    int gpus;                       /* all GPUs; replicas = gpus / (tp·pp) */
    int tp;                         /* tensor-parallel degree; 0: smallest that fits */
    int pp;                         /* pipeline stages per replica (0 or 1: none; at most
                                       GPUECON_INFER_MAX_PP and the model's layers): layers split as
                                       the training model splits them (mem_stage_chunk), weights and KV
                                       per GPU those of one stage, in-flight micro-batches over the
                                       stages (docs/model.md §6.14) */
    bool expert_parallel;           /* MoE: experts spread over the replica (EP = TP), all-to-all */
    bool attention_dp;              /* MoE: attention data-parallel over the tp GPUs of a replica (each GPU
                                       its own sequences, KV cache, attention and dense weights, a
                                       scheduler per GPU), experts EP = tp across them, dispatch and
                                       combine per MoE layer (SGLang --enable-dp-attention, TensorRT-LLM
                                       enable_attention_dp); tp may then exceed the NVLink domain */
    bool tp_across_nodes;           /* tp may exceed the NVLink domain (vLLM TP over several servers, as
                                       NeMo-RL generates DeepSeek-V3 with TP 32 on H100): the per-layer
                                       all-reduces (and the EP = TP all-to-alls) of a replica spanning
                                       domains run over the scale-out network (the collective model,
                                       docs/model.md §3.3); false: tp beyond the domain is an error */
    double expert_imbalance;        /* tokens of the busiest expert-parallel rank / the mean (>= 1;
                                       0: derived from redundant_experts and expert_load_cv, EP1–EP4)
                                       — its expert GEMMs and dispatch set the MoE layer */
    int redundant_experts;          /* MoE with EP > 1: expert replicas beyond the routed experts, placed
                                       by DeepSeek's EPLB (each GPU holds ceil((E + R)/EP) slots);
                                       < 0: the fewest that make EP divide E + R (0 where it divides E) */
    double expert_load_cv;          /* coefficient of variation of the routed experts' popularity
                                       (0: every expert alike), docs/model.md §6.5 EP2 */
    gpuecon_precision weights;      /* body linears; embedding, LM head, vision stay 16-bit */
    gpuecon_precision kv;           /* bf16 or fp8 */
    double prompt_len, output_len;  /* mean tokens per request */
    double output_cv;               /* coefficient of variation of the output length */
    double prefix_hit;              /* prefix-cache hit rate on prompt tokens, [0, 1) */
    double concurrency;             /* requests in the system, all replicas; 0: saturation */
    int draft_k;                    /* speculative / MTP draft length (0: off) */
    double acceptance;              /* per-position acceptance α in [0, 1) ... */
    bool acceptance_is_rate;        /* ... or vLLM's draft acceptance rate (E = 1 + k·rate) */
    double draft_gb;                /* drafter weights, GB; < 0: model's MTP modules or 0.9 GB */
    int lora_rank;                  /* 0: no adapter */
    unsigned lora_modules;          /* GPUECON_LORA_* bits */
    int max_loras;                  /* preallocated adapter slots (vLLM default 1) */
    gpuecon_serving_profile profile;
    gpuecon_engine_mode engine;
    gpuecon_roofline roofline;
    gpuecon_prefill_steps prefill_steps;
    double gpu_mem_util;            /* 0: engine default (0.90 / 0.92) */
    int max_num_batched_tokens;     /* 0: vLLM default (8192, or 2048 on A100 / < 70 GiB) */
    int long_prefill_token_threshold; /* > 0: a prompt gets at most this many tokens a step (vLLM's
                                       --long-prefill-token-threshold); 0: all the budget leaves */
    int max_num_seqs;               /* 0: vLLM default (1024, or 256) */
    int max_model_len;              /* 0: model's context, lowered to what fits (reported) */
    int block_size;                 /* KV block, tokens (16) */
    double activation_gib;          /* < 0: estimate (A1); >= 0: value from the vLLM log */
    double cuda_graph_gib;          /* < 0: engine default; >= 0: value from the vLLM log */
    double pue;                     /* 0: the system's PUE for energy */
} gpuecon_infer_request;

/* Defaults (docs/model.md §6.1): ShareGPT 230/203 tokens, bf16, TP 1, generic profile,
 * legacy engine, split roofline, LoRA modules all seven (rank 0: off), max_loras 1. */
void gpuecon_infer_request_init(gpuecon_infer_request *r);

typedef enum gpuecon_binding {
    GPUECON_BIND_OFFERED_LOAD, /* fewer requests than the replica could run */
    GPUECON_BIND_KV_CAPACITY,  /* the KV cache holds no more sequences */
    GPUECON_BIND_MAX_NUM_SEQS, /* the engine's max_num_seqs */
    GPUECON_BIND_MAX_NUM_BATCHED_TOKENS /* the step's token budget carries the decode and
                                           steady-state prefill of no more sequences */
} gpuecon_binding;

const char *gpuecon_binding_name(gpuecon_binding b);

/* One engine step of one replica (per GPU where bytes/FLOPs are concerned). */
typedef struct gpuecon_infer_step {
    double decode_tokens, prefill_tokens; /* n_dec = B(k+1), n_pre = B·E·ρ(1−h) (+ a chunk) */
    double weight_bytes, kv_bytes, gemm_flops, attn_flops;
    double weights_s, gemm_s, kv_s, attn_s; /* roofline terms T_w, T_cg, T_kv, T_ca */
    double model_s;                         /* combined (split or fused) */
    double overhead_s, lora_s, comm_s, draft_s;
    /* pipeline parallel (0 without): the roofline, LoRA, comm and draft terms above are summed
       over the stages one micro-batch passes; step_s is then the time between two tokens of a
       sequence: max(the pass, micro_batches x the busiest stage) */
    double p2p_s;                           /* activation sends of one pass, all boundaries */
    double stage_max_s;                     /* busiest stage per micro-batch, its send included */
    double pp_wait_s;                       /* step_s minus the pass: waiting behind other micro-batches */
    double micro_batches;                   /* in flight, min(pp, sequences) */
    /* engine stacks (per_layer profiles, docs/model.md §6.15; 0 otherwise) */
    double kernel_s;                        /* fixed GPU time of the step's kernels (t_k each) */
    double kernels;                         /* kernels the step launches or replays */
    /* attention-DP (docs/model.md §6.15 ADP1): the mean time this rank's step waits, at the MoE
       layers' collectives, for another rank's prompt chunk (0 without attention-DP) */
    double dp_wait_s;
    double step_s;
} gpuecon_infer_step;

typedef struct gpuecon_infer_point {
    double concurrency;          /* C, all replicas */
    double batch;                /* B, running sequences per replica */
    gpuecon_binding binding;
    gpuecon_infer_step step;
    /* T2 (docs/model.md §6.4): the fraction of steps that carry a prompt chunk of chunk_tokens,
       each taking prompt_step_ms, the others decode_step_ms; fraction 0 where every step carries
       prefill (or --prefill-steps even), and step is then one kind */
    double prompt_step_fraction, prompt_chunk_tokens, prompt_step_ms, decode_step_ms;
    double output_tokens_per_s;  /* aggregate over all replicas */
    double output_tokens_per_s_per_gpu;
    double total_tokens_per_s;   /* output + prompt */
    double tpot_run_ms;          /* inter-token time of a running sequence */
    double tpot_ms;              /* what a benchmark observes (preemption sharing when KV-bound) */
    double ttft_ms;
    double usd_per_mtok;         /* output tokens; 0 without a TCO profile; NaN when the cost model
                                    refuses the point's figures (gpuecon_infer_result.cost_note) */
    double joules_per_token;     /* NaN likewise */
} gpuecon_infer_point;

typedef struct gpuecon_infer_result {
    int gpus, tp, replicas;         /* attention_dp: tp 1, replicas = gpus (one scheduler each) */
    int pp;                         /* pipeline stages per replica (1: none) */
    int pp_stage;                   /* the stage whose KV pool binds (memory figures are its own) */
    int stage_layers_min, stage_layers_max; /* layers per stage */
    bool expert_parallel;
    bool attention_dp;
    int ep;                         /* attention_dp: GPUs the experts are spread over (the request's tp) */
    double expert_imbalance;        /* the load factor used (1: balanced) */
    int experts;                    /* the model's routed experts (0: dense) */
    int redundant_experts;          /* expert replicas used (EP > 1; 0 otherwise) */
    bool redundant_default;         /* ... chosen by default (EP does not divide the experts) */
    int expert_slots;               /* routed-expert slots on the busiest GPU: ceil((E + R)/EP) */
    double expert_imbalance_plain;  /* the load factor the same layout has without redundant experts */
    bool expert_imbalance_given;    /* the load factor is the request's, not derived */
    /* workload and engine */
    double prompt_len, output_len, mean_context; /* n̄ = L_in + L_out(1 + cv²)/2 */
    double expected_tokens;      /* E per verify step (1 without speculation) */
    double alpha;                /* per-position acceptance used */
    double gpu_mem_util;
    int max_num_batched_tokens, max_num_seqs, max_model_len, block_size;
    bool max_model_len_lowered;  /* the model's context did not fit; lowered (vLLM would refuse) */
    /* parameters */
    double body_params, dup_v_params, embedding_params, lora_params, draft_bytes;
    /* memory per GPU (GiB) */
    double hbm_gib, requested_gib, weights_gib, lora_gib, draft_gib, vision_gib;
    double activation_gib, cuda_graph_gib, kv_avail_gib;
    bool fits;
    double shortfall_gb;         /* > 0: GB per GPU missing for one full-length request */
    /* KV cache */
    double kv_bytes_per_token;       /* per GPU, contexts within every window (K4 short) */
    double kv_bytes_per_token_long;  /* per GPU, marginal bytes past the windows */
    double kv_capacity_tokens;       /* tokens one replica holds (vLLM "GPU KV cache size") */
    double kv_blocks;                /* block ids of block_size tokens (all layers) */
    double seq_bytes;                /* R_seq(n̄) per GPU */
    double seqs_at_mean, seqs_at_full, seqs_at_max_model_len; /* B_kv per replica */
    double seqs_admitted;            /* B_kv the scheduler runs: seqs_at_mean, or seqs_at_full when
                                        admission reserves prompt + output (profile kv_reserve) */
    double seqs_budget;              /* B_bt: sequences whose decode positions and steady-state prefill
                                        one step's max_num_batched_tokens carries,
                                        N_bt/((k+1) + E·ρ(1−h)) (X1) */
    double max_concurrency;          /* C_sat = replicas · min(seqs_admitted, max_num_seqs, seqs_budget) */
    double eta_c, eta_attn;          /* the profile's eta_c on this GPU and precision: GEMMs, attention */
    int attn_kernel;                 /* gpuecon_attn_kernel priced on this GPU and head layout (AK1) */
    double eta_kv;                   /* decode KV reads: fraction of HBM (the kernel's or the profile's) */
    double eta_attn_decode;          /* decode attention math, as a fraction of the BF16 peak (above 1 /
                                        2 of it for an FP8-math kernel reaching more than the BF16 peak) */
    bool attn_decode_fp8;            /* decode attention math at the FP8 rate (FP8 KV, FP8 MQA) */
    bool startup_ok;                 /* vLLM's check at the model's own context */
    double startup_need_gib;         /* KV that check needs at the model's context */
    int max_model_len_fit;           /* largest max_model_len that passes it */
    /* performance at the requested concurrency (or at saturation) */
    gpuecon_infer_point at;
    double output_tokens_per_s, tpot_ms, ttft_ms; /* copies of at.* */
    double c_knee;               /* aggregate concurrency reaching 90% of saturated throughput */
    double saturated_tokens_per_s; /* X at C_sat */
    double ttft0_ms;             /* isolated prompt on an empty server (L4) */
    /* economics (zero without a TCO profile; NaN, with cost_note, when the cost model refuses the
       figures: a throughput below its range, a derived TCO out of range) */
    double usd_per_gpu_hour, usd_per_mtok, joules_per_token;
    char cost_note[200];         /* why the headline point has no cost ("" when it has one) */
} gpuecon_infer_result;

/* Serving capacity, throughput and latency of one deployment (docs/model.md §6).
 * Errors: GPUECON_E_INPUT (bad value, TP that does not divide the heads under vLLM's
 * replication rule, a prompt longer than the model's context, acceptance outside [0, 1)),
 * GPUECON_E_INFEASIBLE (weights + reserves + one full-length request exceed the memory, or an
 * explicit max_model_len fails vLLM's startup check); *out then holds the memory figures and
 * shortfall_gb. */
int gpuecon_infer(const gpuecon_infer_request *req, gpuecon_infer_result *out,
                              gpuecon_error *err);
/* The same deployment at n concurrencies (each > 0, all replicas together). */
int gpuecon_infer_sweep(const gpuecon_infer_request *req, const double *concurrency,
                                    size_t n, gpuecon_infer_point *points, gpuecon_error *err);
/* A concurrency grid for a sweep: replicas × 1, 2, 4, ... up to past the saturation point.
 * Returns the number written (<= cap). */
size_t gpuecon_infer_grid(const gpuecon_infer_result *r, double *out, size_t cap);

/* ---- request-level serving simulation (src/model/infer_sim.c; docs/model.md §6.11) ---- */

typedef enum gpuecon_arrival {
    GPUECON_ARRIVAL_POISSON, /* exponential gaps at `rate` */
    GPUECON_ARRIVAL_GAMMA,   /* gamma gaps of shape `burstiness` (vLLM bench --burstiness; < 1 burstier) */
    GPUECON_ARRIVAL_CLOSED,  /* `users` each send the next request when the last one finishes */
    GPUECON_ARRIVAL_BURST    /* every request at t = 0; throughput over the makespan (an offline
                                benchmark: trtllm-bench throughput, vLLM benchmark_throughput.py) */
} gpuecon_arrival;

typedef enum gpuecon_lengths {
    GPUECON_LENGTHS_FIXED,     /* prompt_len / output_len of the serving request, every request */
    GPUECON_LENGTHS_LOGNORMAL, /* lognormal with those means and prompt_cv / the request's output_cv */
    GPUECON_LENGTHS_HISTOGRAM  /* drawn from bins[] by weight */
} gpuecon_lengths;

typedef enum gpuecon_preempt {
    GPUECON_PREEMPT_RECOMPUTE, /* vLLM V1: drop the KV, re-prefill prompt + output so far */
    GPUECON_PREEMPT_SWAP       /* copy the KV to host memory and back (swap_gbps per GPU) */
} gpuecon_preempt;

typedef struct gpuecon_length_bin {
    double prompt, output; /* tokens, positive integers */
    double weight;         /* > 0 (a count or a probability) */
} gpuecon_length_bin;

typedef struct gpuecon_sim_request {
    gpuecon_infer_request serve;  /* the deployment; prompt_len/output_len are the length means */
    gpuecon_arrival arrival;
    double rate;                  /* requests/s, all replicas (Poisson, gamma) */
    double burstiness;            /* gamma shape; 1 = Poisson */
    int users;                    /* closed loop: users, all replicas (split evenly) */
    gpuecon_lengths lengths;
    double prompt_cv;             /* lognormal prompt CV (output: serve.output_cv) */
    const gpuecon_length_bin *bins;
    size_t nbins;
    long requests;                /* requests per replication, per replica simulated */
    int replications;             /* independent replications (threads run them) */
    double warmup;                /* fraction of each replication's first requests not measured */
    gpuecon_preempt preempt;
    double swap_gbps;             /* host link per GPU for swap (GB/s) */
    double ttft_slo_ms, tpot_slo_ms; /* goodput targets; 0: none */
    double slo_percentile;        /* percentile the targets apply to in `meets_slo` (e.g. 90) */
} gpuecon_sim_request;

/* 10,000 requests, 1 replication, warm-up 0.1, recompute, swap 25 GB/s (PCIe Gen4 x16 in
 * practice), Poisson at 0 (must be set) or closed loop, fixed lengths, slo_percentile 90. */
void gpuecon_sim_request_init(gpuecon_sim_request *r);

typedef struct gpuecon_sim_stat {
    double mean, p50, p90, p99, at_slo; /* at_slo: at the request's slo_percentile */
} gpuecon_sim_stat;

typedef struct gpuecon_sim_result {
    gpuecon_infer_result deploy;  /* the analytic figures of the deployment */
    long requests;                /* measured requests, all replications (one replica's) */
    int replications, threads;
    uint64_t seed;
    double window_s;              /* measured simulated seconds per replication (mean) */
    gpuecon_sim_stat ttft_ms, tpot_ms, itl_ms, e2e_ms, queue_ms;
    double output_tokens_per_s;   /* all replicas */
    double output_tokens_per_s_per_gpu;
    double requests_per_s, goodput_requests_per_s; /* all replicas; goodput: both targets met */
    double zero_wait_fraction;    /* requests scheduled the instant they arrived */
    double kv_util;               /* time-mean fraction of the KV pool held */
    double mean_running;          /* time-mean sequences per step */
    double preemptions;           /* per replication and replica */
    double steps;                 /* engine steps per replication */
    double truncated;             /* requests whose drawn lengths were cut to max_model_len */
    bool meets_slo;               /* ttft and tpot at slo_percentile within the targets */
    /* an open loop at or above the analytic saturation (rate x output_len >= the deployment's
     * saturated tokens/s; disaggregated: its capacity): the queue grows while requests arrive,
     * so throughput and requests/s are measured over the makespan, as for a burst, and the
     * latencies grow with the number of requests */
    bool overloaded;
} gpuecon_sim_result;

/* Simulates a continuous-batching scheduler like vLLM V1's on one replica (the router splits
 * arrivals or users evenly over the replicas; aggregates are scaled back): max_num_seqs,
 * a token budget per step with chunked prefill, paged KV blocks with preemption, prefix-cache
 * hits skipping prompt compute; every step timed by the analytic step model (docs/model.md §6.4, S1). Replications
 * run on ctx's threads, each with xoshiro256** seeded from (ctx seed, replication): the
 * result is bit-identical for any thread count. Errors as gpuecon_infer, plus
 * GPUECON_E_INPUT for a rate <= 0, users < replicas, a burstiness <= 0, a percentile outside
 * (0, 100), bins with non-positive or non-integer lengths or weights, GPUECON_E_NOMEM,
 * GPUECON_E_CANCELED (progress callback, in replications). */
int gpuecon_infer_simulate(gpuecon_ctx *ctx, const gpuecon_sim_request *req,
                                       gpuecon_sim_result *out, gpuecon_error *err);
/* ---- disaggregated prefill/decode (src/model/infer_disagg.c; docs/model.md §6.13) ----
 * x prefill instances of TP p and y decode instances of TP d (DistServe, Splitwise): prompts
 * are computed on the prefill instances in full token-budget batches, their KV sent to a decode
 * instance over NVLink when every instance lies in one scale-up domain and over the scale-out
 * network otherwise, and decoded there without prefill interference. */
typedef struct gpuecon_disagg_request {
    gpuecon_infer_request base;    /* model, system, precisions, lengths, engine; gpus: the GPUs available */
    int prefill_instances, prefill_tp;
    int decode_instances, decode_tp;
    double rate;                   /* requests/s; 0: 90% of the deployment's capacity */
} gpuecon_disagg_request;

typedef struct gpuecon_disagg_result {
    int gpus_used, prefill_gpus, decode_gpus;
    bool kv_over_scaleout;         /* the KV transfer crosses the scale-out network */
    double kv_bytes_per_gpu;       /* one request's KV each prefill GPU sends */
    double kv_transfer_ms;         /* one request, its prefill GPUs sending in parallel */
    double prefill_batch_ms;       /* one prefill step of max_num_batched_tokens tokens */
    double prefill_capacity;       /* requests/s all prefill instances compute */
    double decode_capacity;        /* requests/s all decode instances finish at saturation */
    double transfer_capacity;      /* requests/s the prefill GPUs' links carry */
    double capacity;               /* the least of the three */
    const char *bound;             /* "prefill", "decode" or "transfer" */
    double rate, prefill_utilisation;
    double decode_batch;           /* sequences per decode instance (attention-DP: per rank) at the rate */
    double output_tokens_per_s, output_tokens_per_s_per_gpu;
    double ttft_ms, tpot_ms;       /* means: prefill wait (M/D/1) + prefill + transfer; decode step / E */
    double usd_per_mtok;           /* 0 without a TCO profile or price */
    gpuecon_infer_result prefill, decode; /* each side's memory and KV capacity (one instance) */
} gpuecon_disagg_result;

/* One disaggregated deployment at a rate. Errors: GPUECON_E_INPUT (any instance count or TP < 1,
 * a TP the heads do not split or beyond the NVLink domain, instances that need more GPUs than
 * base.gpus — naming "--prefill"/"--decode" —, a rate < 0, the base request's own errors);
 * GPUECON_E_INFEASIBLE (a side that does not fit, a rate above the capacity). */
int gpuecon_infer_disagg(const gpuecon_disagg_request *req, gpuecon_disagg_result *out,
                                     gpuecon_error *err);

/* The ratio: every x prefill instances of TP p and y decode instances of TP d that fit in
 * base.gpus, each at the largest rate whose mean TTFT and TPOT meet the targets (0: none), the
 * best output tokens/s per GPU into *best (and its layout into *best_req). GPUECON_E_INFEASIBLE
 * when none meets them (*best: the highest-throughput layout evaluated, if any). */
int gpuecon_infer_disagg_search(const gpuecon_infer_request *base, double ttft_ms, double tpot_ms,
                                            gpuecon_disagg_request *best_req, gpuecon_disagg_result *best,
                                            long *evaluated, gpuecon_error *err);

/* The sizing at a rate: the x prefill instances of TP p and y decode instances of TP d (as
 * gpuecon_infer_disagg_search tries them, within base.gpus) that serve `rate` requests/s with
 * mean TTFT and TPOT within the targets (0: none) on the fewest GPUs, the larger capacity
 * breaking a tie, into *best (*best_req: its layout, rate = `rate`). GPUECON_E_INPUT (naming
 * "rate") for a rate outside (0, 1e9]; GPUECON_E_INFEASIBLE (naming "rate") when no layout does. */
int gpuecon_infer_disagg_size(const gpuecon_infer_request *base, double rate, double ttft_ms, double tpot_ms,
                              gpuecon_disagg_request *best_req, gpuecon_disagg_result *best, long *evaluated,
                              gpuecon_error *err);

/* Request-level simulation of a disaggregated deployment (src/model/infer_sim_disagg.c;
 * docs/model.md §6.13). */
typedef struct gpuecon_disagg_sim_request {
    gpuecon_sim_request sim;       /* arrivals, lengths, targets; sim.serve: model, system, engine, gpus available */
    int prefill_instances, prefill_tp;
    int decode_instances, decode_tp;
} gpuecon_disagg_sim_request;

typedef struct gpuecon_disagg_sim_result {
    gpuecon_sim_result sim;        /* the whole deployment (deploy: one decode instance's figures with
                                      gpus = all GPUs used, replicas 1); ttft_ms includes the KV
                                      transfer; queue_ms: arrival → prefill start; kv_util and
                                      mean_running: per decode instance */
    gpuecon_disagg_result analytic; /* layout and capacities; latencies at sim.rate when analytic_at_rate */
    bool analytic_at_rate;         /* Poisson or gamma arrivals below the analytic capacity */
    double analytic_tokens_per_s;  /* capacity × mean output (a histogram's means for its lengths) */
    gpuecon_sim_stat decode_queue_ms; /* KV arrival at a decode instance → admission there */
    double prefill_busy, decode_busy;       /* time-mean fraction of instances stepping */
    double prefill_kv_util, decode_kv_util; /* time-mean fraction of an instance's KV pool held */
    double prefill_running, decode_running; /* time-mean sequences per instance */
} gpuecon_disagg_sim_result;

/* Simulates x prefill and y decode instances request by request: arrivals go round robin to the
 * prefill instances (vLLM's disaggregated proxy), each runs the simulator's scheduler on its own
 * layout with no decode (a prompt leaves after its first token); its KV then crosses the
 * instance's link (D3, one transfer at a time) and, round robin, joins a decode instance's
 * waiting queue, admitted and decoded by the same scheduler. Replications on ctx's threads,
 * bit-identical for any thread count. Errors as gpuecon_infer_simulate and gpuecon_infer_disagg,
 * and GPUECON_E_INPUT for more than 1024 instances in all (naming "--prefill" or "--decode"). */
int gpuecon_infer_disagg_simulate(gpuecon_ctx *ctx, const gpuecon_disagg_sim_request *req,
                                              gpuecon_disagg_sim_result *out, gpuecon_error *err);

/* KV-cache bytes per token on one GPU at tensor-parallel degree tp (K2–K4): all layers
 * (long_context false) or only the global layers (the marginal bytes past the windows). */
double gpuecon_kv_bytes_per_token(const gpuecon_model *m, int tp, gpuecon_precision kv,
                                              bool long_context);
/* LoRA parameters of one adapter of rank r on the given projections (LR1). */
double gpuecon_lora_params(const gpuecon_model *m, int rank, unsigned modules);
/* Distinct routed experts per MoE layer hit by `tokens` tokens under uniform routing (M1). */
double gpuecon_moe_experts_touched(const gpuecon_model *m, double tokens);
/* Speculative decoding (Leviathan et al. 2023): expected tokens per verify step (SD1), the
 * per-position α implied by vLLM's draft acceptance rate (SD2), and the closed-form speedup
 * E/(1 + γk) (SD5). */
double gpuecon_spec_expected_tokens(double alpha, int k);
double gpuecon_spec_alpha_from_rate(double rate, int k);
double gpuecon_spec_speedup(double alpha, int k, double gamma);

typedef enum gpuecon_ft_method { GPUECON_FT_LORA, GPUECON_FT_FULL } gpuecon_ft_method;
typedef enum gpuecon_ft_strategy { GPUECON_FT_DDP, GPUECON_FT_FSDP } gpuecon_ft_strategy;

typedef struct gpuecon_finetune_request {
    const gpuecon_model *model;   /* required */
    const gpuecon_system *system; /* required */
    const gpuecon_profile *tco;   /* NULL: no cost */
    double usd_per_gpu_hour;      /* > 0: the user's price per GPU-hour instead of the profile's TCO */
    int gpus;
    gpuecon_ft_method method;
    int lora_rank;                /* LoRA only */
    double lora_alpha;            /* LoRA scaling α/r: changes neither memory nor speed */
    unsigned lora_modules;        /* GPUECON_LORA_* bits */
    gpuecon_ft_strategy strategy; /* DDP: full replica per GPU; FSDP: FULL_SHARD (ZeRO-3) */
    bool recompute;               /* full activation checkpointing per layer */
    int mbs;                      /* sequences per micro-batch per GPU */
    int seq;                      /* tokens per sequence (packed) */
    gpuecon_precision precision;  /* matmul precision (bf16, fp8); master state stays as stated */
    bool vision;                  /* load the vision tower too (multimodal checkpoint) */
    double efficiency;            /* η_train override; 0: the profile's */
    gpuecon_serving_profile profile;
    double pue;                   /* 0: the system's */
    const gpuecon_stack *stack;   /* fine-tuning stack (workload 1); NULL: every kernel fused, no host cost */
    const gpuecon_calibration *calibration; /* a user's calibration (gpuecon calibrate; NULL: none): its GEMM
                                     scale on the profile's eta_train (not on an explicit efficiency), HBM on
                                     the HBM fraction, kernel on the stack's host launch time, comm on the
                                     collectives' bandwidth fractions */
} gpuecon_finetune_request;

/* Defaults: LoRA rank 16, alpha 32, all seven projections, FSDP, no recompute, micro-batch 2,
 * sequence 2048, bf16, vision tower loaded when the model has one, generic profile. */
void gpuecon_finetune_request_init(gpuecon_finetune_request *r);

typedef struct gpuecon_finetune_result {
    double trainable_params, frozen_params;
    /* memory per GPU, GiB */
    double weights_gib, grads_gib, optimizer_gib, states_gib; /* states = the three above */
    double activations_gib, logits_gib, buffers_gib, memory_gib_per_gpu, hbm_gib;
    bool fits;
    double shortfall_gb;
    /* speed */
    double model_flops_per_token;    /* without recompute: ≈ 4·P (LoRA) or 6·P (full) + attention */
    double flops_per_token;          /* executed, recompute included */
    double tokens_per_step;          /* all GPUs, one micro-batch each */
    double compute_s, comm_s, step_s;
    double kernels;                  /* kernels launched per step per GPU (stack inventory) */
    double host_bound_kernels;       /* of which their host launch outlasts their GPU time */
    double host_s;                   /* kernels x the stack's host launch time */
    double fp8_copies_gib;           /* FP8 weight and input copies the stack's FP8 path holds */
    double tokens_per_s, tokens_per_s_per_gpu, mfu;
    double usd_per_gpu_hour, usd_per_mtok, joules_per_token; /* NaN with cost_note: not priced */
    char cost_note[200];             /* why there is no cost ("" when priced or no TCO asked for) */
} gpuecon_finetune_result;

/* Memory per GPU and speed of LoRA or full fine-tuning (docs/model.md §6.9). Errors:
 * GPUECON_E_INPUT for bad values; GPUECON_E_INFEASIBLE when it does not fit (the result is
 * still filled, fits = false, shortfall_gb > 0). */
int gpuecon_finetune(const gpuecon_finetune_request *req, gpuecon_finetune_result *out,
                                 gpuecon_error *err);

/* ==== reinforcement-learning post-training (src/model/rl_gen.c; the step: src/analysis/rl.c; docs/model.md §8) */

typedef enum gpuecon_rl_placement {
    GPUECON_RL_COLOCATED,    /* the same GPUs alternate generation and training (memory swap) */
    GPUECON_RL_DISAGGREGATED /* a generator pool and a trainer pool, weights pushed between them */
} gpuecon_rl_placement;

/* One synchronous (or one-step off-policy) RL step of PPO/GRPO style: P prompts x K samples
 * generated by a vLLM-like engine, scored by forward passes, trained on, and the new weights
 * pushed to the generators. Fill with gpuecon_rl_request_init, then set the pointers and
 * sizes. Lengths are tokens. */
typedef struct gpuecon_rl_request {
    const gpuecon_model *policy;      /* required: generated, trained and synced */
    const gpuecon_model *reference;   /* KL reference forward (NULL: none) */
    bool old_logprobs;                /* recompute the policy's log-probs before training (default
                                         true); false: the ratio is taken as 1 and the pass skipped
                                         (NeMo-RL force_on_policy_ratio; one optimizer step a batch) */
    const gpuecon_model *reward;      /* reward-model forward (NULL: a rule-based verifier) */
    const gpuecon_model *critic;      /* PPO value model: forward and trained (NULL: GRPO) */
    const gpuecon_system *system;     /* required */
    const gpuecon_stack *stack;       /* training stack (NULL: request defaults) */
    const gpuecon_calibration *train_calibration; /* a user's calibration of the trainer's stack x system x
                                         train precision (gpuecon calibrate; NULL: none); the generator's
                                         is applied to `serving` (its profile's calibration) */
    int gpus;                         /* all GPUs of the job */
    gpuecon_rl_placement placement;
    int gen_gpus;                     /* disaggregated: generator pool; 0: searched */
    int gen_tp;                       /* generator TP (EP = TP for MoE), inside the NVLink domain or
                                         over several (scale-out all-reduces); with gen_attention_dp
                                         the GPUs of one attention-DP replica; 0: the fastest */
    bool gen_attention_dp;            /* MoE: the generator runs attention data-parallel with the
                                         experts EP = gen_tp wide (any number of domains); false:
                                         the search tries both kinds */
    int off_policy;                   /* 0: synchronous; 1: generation of step n+1 overlaps the
                                         training of step n (disaggregated only) */
    int prompts, samples;             /* per step; samples = the GRPO group size */
    double prompt_len, response_len;  /* means */
    double response_cv;               /* coefficient of variation of the response length (lognormal) */
    double max_response_len;          /* truncation; 0: the model's context minus the prompt */
    double oversample;                /* f >= 0: submit N(1+f) samples, stop at the first N done */
    double partial_tokens;            /* > 0: partial rollouts — each sample decodes at most this many
                                         tokens per step, the unfinished carry over to the next step
                                         (Kimi k1.5 §2.6.2; steady state); 0: off */
    gpuecon_precision gen_weights, kv, train_precision;
    bool sync_fp8;                    /* weights pushed in FP8 (1 B/param) instead of BF16 */
    bool offload;                     /* colocated: trainer states to host memory while generating
                                         (default true); false: they stay and shrink the KV cache */
    int engine_sleep;                 /* colocated: the engine's sleep level between generations
                                         (vLLM LLM.sleep; default 1, as NeMo-RL calls it): 1 backs
                                         its weights up in fresh pinned host memory and restores
                                         them on wake; 2 discards them (the refit rewrites them) */
    int epochs, minibatches;          /* PPO epochs over the batch; optimizer steps per epoch */
    int train_tp, train_pp, train_cp, train_ep, train_mbs; /* the policy trainer's sizes (0: searched) */
    bool train_full_recompute;        /* the policy trainer recomputes every layer (Megatron
                                         activation checkpointing; false: searched) */
    gpuecon_serving_profile serving;  /* engine constants (default "generic") */
    /* economics: profile NULL and usd_per_gpu_hour 0: no cost */
    const char *profile, *tier;       /* catalog names; tier NULL: typical */
    double usd_per_gpu_hour, pue;
    long steps;                       /* steps of the run, for totals (default 1000) */
} gpuecon_rl_request;

/* The step split so that the parts sum to step_time_s: each phase's duration weighted by the
 * share of the job's GPUs that run it (colocated: every GPU runs every phase, so these are the
 * phase durations), idle_s the rest (pools waiting on each other). */
typedef struct gpuecon_rl_breakdown {
    double generation_s, scoring_s, training_s, weight_sync_s, swap_s, idle_s;
} gpuecon_rl_breakdown;

typedef struct gpuecon_rl_pool {
    const char *role;                 /* "colocated", "generator", "trainer" */
    int gpus;
    double generation_s, scoring_s, training_s, weight_sync_s, swap_s; /* durations on this pool */
    double busy_s, idle_s;            /* busy + idle = step_time_s */
    double utilisation;               /* busy_s / step_time_s */
} gpuecon_rl_pool;

typedef struct gpuecon_rl_result {
    double step_time_s;
    gpuecon_rl_breakdown bd;
    gpuecon_rl_pool pools[2];
    int npools;
    int gen_gpus, train_gpus;
    int splits_evaluated;             /* generator pool sizes tried (1 when fixed or colocated) */
    /* generation */
    gpuecon_infer_result gen;         /* the generator deployment at its saturation point */
    double samples_submitted;         /* N(1+f) */
    double response_end;              /* length at which the step stops waiting: the expected
                                         maximum of N lognormal lengths (Blom), or the N-th of
                                         N(1+f), capped at max_response_len */
    bool response_capped;             /* the cap set response_end */
    double max_response_len;
    double gen_mean_response;         /* E[min(X, response_end)]: tokens each sample generates
                                         (partial rollouts: E[min(X, cap)] over its steps) */
    double gen_requests;              /* serving requests per step: N(1+f), or with partial rollouts
                                         the active samples A = N·sum_k S(kT), new and carried */
    double carried_tokens;            /* partial rollouts: mean tokens a request already holds */
    double kept_mean_response;        /* mean response of the samples trained on */
    double gen_bulk_s, gen_drain_s, generation_s; /* slots full; the last wave drains; sum */
    double gen_tokens_per_s_saturated;
    /* scoring (forward passes on the trainer GPUs: old log-probs, reference, reward, critic) */
    double scoring_flops, scoring_s;
    double scoring_a2a_s;             /* of scoring_s: MoE dispatch + combine of the forward passes in
                                         the trainer's layout (policy, a reference that is the policy,
                                         critic) */
    int scoring_models;
    /* training */
    gpuecon_train_result train, critic_train;
    int train_seq, train_gbs, optimizer_steps;
    double training_s;
    /* weight sync */
    double sync_bytes;                /* policy parameters x bytes per pushed weight */
    double sync_recv_bytes_per_gpu;   /* what one generator GPU receives */
    double sync_send_bytes_per_gpu;   /* what one trainer GPU sends (disaggregated) */
    gpuecon_link_level sync_level;    /* NVLink (scale-up) or network */
    double sync_gbps;                 /* achievable bandwidth per GPU used, GB/s */
    double weight_sync_s;
    double swap_bytes_per_gpu, swap_s;/* colocated: all of the four below */
    double trainer_swap_s;            /* trainer states out and back in (offload on) */
    double reference_swap_s;          /* the reference policy's weights swapped in and the policy's
                                         out and back, per step (NeMo-RL's use_reference_model) */
    double engine_weight_bytes_per_gpu; /* the generator shard the engine sleeps and wakes */
    double engine_sleep_s, engine_wake_s; /* its backup to pinned host memory, and restore */
    double refit_s;                   /* the refit's software path over the whole model (colocated:
                                         gather and CUDA-IPC buckets; disaggregated: gather and
                                         load); weight_sync_s is the longer of it and the bytes' move */
    /* throughput */
    double generated_tokens, response_tokens, trained_tokens; /* per step; trained = N(L + kept) */
    double generated_tokens_per_s, trained_tokens_per_s;      /* whole job */
    /* economics (costed false: NaN) */
    bool costed;
    double usd_per_gpu_hour, ettr, usd_per_step, usd_per_mtok_trained, raw_usd_per_mtok_trained;
    double mwh_per_step, mwh_per_mtok_trained;
    double run_days, run_usd, run_mwh;
    int provisioned_gpus;
} gpuecon_rl_result;

/* Expected largest of n lognormal draws of mean `mean` and coefficient of variation cv (Blom's
 * plotting position (n − 0.375)/(n + 0.25)); its order-statistic generalisation: the k-th
 * smallest of n is at (k − 0.375)/(n + 0.25). Returns mean when cv = 0. */
double gpuecon_lognormal_order_stat(double mean, double cv, double k, double n);
/* E[min(X, cap)] of that lognormal (the mean of a truncated response). */
double gpuecon_lognormal_capped_mean(double mean, double cv, double cap);

/* ---- flops.c ---- */
/* Attention projection weights of layer l (q, k, v, o; MLA's low-rank projections). */
double flops_attention_params(const gpuecon_model *m, const gpuecon_layer *l);

#endif
