/*
 * train.h — private declarations shared by the training model's files: comm.c (collectives),
 * memory.c (bytes per GPU), train_cost.c (the cost primitives: kernel, GEMM, overlap, TP
 * collectives), train.c (step time of one configuration), search.c (the configuration space)
 * and validate.c (published runs). Never installed.
 *
 * The step model is split in two so the search stays fast: train_prepare() derives what
 * depends only on the request (model, system, precision), train_layer() what depends on the
 * per-layer shape (tp, cp, mbs, recompute, tp-overlap), and train_eval() assembles a full
 * configuration (pp, vpp, dp, zero) from those in a few hundred floating-point operations,
 * with no allocation. Mixture-of-experts models (moe.c) add one level between the two:
 * moe_layer() derives the MoE layer for an expert layout (ep, etp) on top of train_layer().
 */
#ifndef GPUECON_TRAIN_H
#define GPUECON_TRAIN_H

#include "model/model.h"

/* ---- comm.c ---- */
typedef struct comm_link {
    int scaleup_gpus;
    double up_line, out_line; /* line rates, bytes/s per GPU per direction */
    double b_up, b_out;   /* achievable bytes/s per GPU per direction */
    double b_out_a2a;     /* achievable all-to-all bytes/s per NIC */
    double a_up, a_out;   /* per-hop latency, s */
    double launch_s;
} comm_link;

void comm_link_init(comm_link *L, const gpuecon_system *s, const gpuecon_link_model *lm);
/* Members of a strided group inside one scale-up domain, and domains spanned. */
void comm_placement(int scaleup_gpus, int gpus, int stride, int *per_domain, int *domains);
/* Time of one collective (GPUECON_ALGO_AUTO); 0 for an empty group or no bytes. */
double comm_time(const comm_link *L, gpuecon_coll_op op, int n, int stride, double bytes);
/* The same for a group given by its size n and members per domain g (two-strided groups
 * such as data × context parallel). */
double comm_time_g(const comm_link *L, gpuecon_coll_op op, int n, int g, double bytes);

/* ---- dispatch.c ---- */
/* One MoE dispatch on a prepared link (gpuecon_moe_dispatch without the checks). */
double comm_dispatch(const comm_link *L, const gpuecon_dispatch_request *q, gpuecon_dispatch_result *out);

/* ---- memory.c ---- */
/* Activation bytes of one layer from its shape (see memory.c): the attention half, the FFN
 * half, and their sum. */
double mem_attn_act(double h, double heads, double kv, double hd, double s, double b, double tp, bool sp,
                    gpuecon_recompute rc, gpuecon_attn_impl impl, bool dropout);
double mem_mlp_act(double h, double ffn, double mats, double s, double b, double tp, bool sp, gpuecon_recompute rc,
                   bool dropout);
double mem_layer_act(double h, double heads, double kv, double hd, double ffn, double mats, double s,
                     double b, double tp, bool sp, gpuecon_recompute rc, gpuecon_attn_impl impl,
                     bool dropout);
/* Change of one dense layer's activation bytes when FP8 linear layers save FP8 inputs
 * (Transformer Engine), <= 0 for Llama-style shapes; 0 with full recompute. */
double mem_fp8_act_delta(double h, double heads, double hd, double ffn, double s, double b, double tp, bool sp,
                         gpuecon_recompute rc);
/* Layers of pipeline stage `stage` when `layers` are split over pp·vpp chunks, the
 * remainder going to the middle chunks first (the first and last stage carry the embedding
 * and the loss). */
int mem_stage_layers(int layers, int pp, int vpp, int stage);
/* The one layer-to-stage split: chunk `chunk` (of pp·vpp) holds layers [start, start + size)
 * (mem_stage_layers and moe_stage_layers count from it). */
void mem_stage_chunk(int layers, int pp, int vpp, int chunk, int *start, int *size);
/* Micro-batch-chunks stage `stage` holds at the peak of the 1F1B / interleaved schedule,
 * expressed in units of the stage's full layer set (so stage 0 of 1F1B holds min(m, p)). */
double mem_inflight(int pp, int vpp, int microbatches, int stage);

/* ---- train.c ---- */
/* What depends only on the request. */
typedef struct train_static {
    const gpuecon_model *m;
    const gpuecon_system *s;
    const gpuecon_gpu *gpu;
    gpuecon_efficiency eff;
    comm_link link;
    gpuecon_precision prec;
    int seq, gbs, gpus;
    bool sp, dp_overlap, dropout;
    bool tp_async;            /* the backward all-reduce before g1 runs beside g1's wgrad (no SP) */
    gpuecon_attn_impl attn;
    gpuecon_fusion fusion;       /* elementwise kernels: fused, compiled or eager */
    bool selective_op;           /* selective recompute per operator (torchtitan) */
    bool kv_repeat;              /* K, V repeated to every query head before attention */
    bool cp_allgather;           /* all-gather context parallelism (exposed), not the ring */
    double grad_reduce_bytes;
    /* recipe memory and kernels (docs/model.md §3.2, §3.7) */
    bool fp8_param, fp8_transpose; /* FP8-only weights; Hopper's column-wise FP8 copy */
    int optim_state_bytes;       /* Adam m and v: 4 or 2 (precision-aware optimizer) */
    double cast_bytes;           /* bytes moved per element quantized by the FP8 recipe */
    double host_bps;             /* CPU-GPU link, achievable bytes/s per direction */
    int offload;                 /* request: layers offloaded per stage, or GPUECON_SEARCH */
    double peak, peak_bf16;      /* FLOP/s the tensor cores sustain: the dense peak x the system's
                                    power-limit clock factor (power.c) */
    double peak_nominal;         /* the GPU's dense peak at the precision: MFU's denominator */
    double hbm_bps;              /* achieved bytes/s */
    double capacity, reserve;    /* bytes */
    double straggler;            /* speed_cv x E[max of gpus standard normals] */
    /* model shape, averaged over layers (dense models: exact) */
    double h, a, kv, d, f, V;
    double mats;                 /* FFN matrices: 2 or 3 */
    double keys_per_query;       /* causal keys per query token at full seq, averaged */
    double layer_params;         /* per layer, whole model (not TP-split) */
    double emb_params, head_params; /* input embedding, output layer (copy kept when tied) */
    double model_flops_per_token;   /* gpuecon_train_flops FULL */
    double model_flops_causal;
    /* attention: per-head dims of QK^T and AV; multi-head latent attention's ranks */
    bool mla;
    double dqk, dv, q_rank, kv_rank, rope;
    /* mixture of experts (moe.c); moe false for dense models */
    bool moe, eager;
    int graph_scope;                    /* GPUECON_GRAPH_* captured (with CUDA graphs on) */
    int E, topk, moe_first, moe_every, mtp;
    double fe, fs;               /* one routed expert's FFN width; all shared experts' width */
    double dense_params;         /* one dense layer: attention + FFN + norms */
    double moe_params;           /* one MoE layer without its routed experts */
    double expert_params;        /* one routed expert */
    double mtp_params;           /* one MTP module without its routed experts (2h->h projection, norms) */
    double cf, imbalance, load_cv;
    int a2a_overlap;             /* request: GPUECON_SEARCH, 0 or 1 */
    gpuecon_dispatcher dispatcher;
    bool fp8_dispatch, balanced; /* FP8 dispatch; forced-balanced routing (no imbalance) */
    bool recompute_moe;          /* request: selective recompute includes the MoE blocks */
    bool rc_moe_search;          /* search only (neither recompute nor recompute_moe given, an MoE
                                    model): selective recompute recomputes the MoE blocks too where
                                    alone it does not fit (search.c, mem_rc_moe) */
    int groups, groups_per_token;/* node-limited routing of the model */
} train_static;

/* What depends on the layer shape: one transformer layer, one micro-batch, one GPU. */
typedef struct train_layer_cost {
    int tp, cp, mbs;
    gpuecon_recompute rc;
    bool rc_moe;                        /* selective recompute covers the MoE block (moe_layer):
                                           train_layer sets the request's recompute_moe, the search
                                           its option (nothing train_layer or moe_shared derives
                                           depends on it) */
    bool tp_overlap;
    double fwd_s, bwd_s, recompute_s;   /* GPU compute incl. kernel overheads */
    double tp_s, cp_s;                  /* exposed communication */
    double hw_flops;                    /* executed FLOPs */
    double act_bytes;                   /* kept for backward */
    double work_bytes;                  /* transient working set */
    /* first and last stage extras, per micro-batch */
    double emb_s, head_s, head_flops, logits_bytes;
    double pp_msg_bytes;                /* one pipeline transfer */
    /* the attention half alone (MoE layers reuse it) */
    double attn_fwd_s, attn_bwd_s, attn_rc_s, attn_tp_s, attn_hw_flops, attn_act_bytes, attn_work_bytes;
    double attn_kernels;                /* kernels its forward launches (GEMMs, core, elementwise, TP) */
    /* MoE layer for an expert layout (moe_layer) */
    int ep, etp;
    double m_fwd_s, m_bwd_s, m_rc_s, m_tp_s, m_hw_flops, m_act_bytes, m_work_bytes;
    double m_ep_s, m_ep_ovl_s;          /* all-to-all (+ETP gathers): exposed without / with overlap */
    double m_host_s;                    /* eager host time of one layer pass (0 with CUDA graphs) */
    double mtp_extra_s;                 /* an MTP module's projection GEMM (+ its second LM head: head_s) */
    /* the MoE block's terms that no expert layout changes (moe_shared): router, shared expert */
    bool moe_shared_set;
    double moe_router_s, moe_s1_s, moe_s2_s, moe_stp_s;
    double moe_stp_fwd_s;               /* the forward's share of moe_stp_s (MoE-block recompute) */
    gpuecon_train_moe info;
} train_layer_cost;

/* One configuration's outer sizes. */
typedef struct train_cfg {
    int tp, cp, pp, vpp, dp, mbs, zero;
    gpuecon_recompute rc;
    bool tp_overlap;
    int ep, etp;                 /* 1 for dense models */
    bool a2a_overlap;
    int offload;                 /* activations of this many layers per stage in host memory */
    bool rc_moe;                 /* selective recompute covers the MoE blocks (as its layer cost) */
} train_cfg;

int train_prepare(const gpuecon_train_request *req, train_static *st, gpuecon_error *err);
void train_layer(const train_static *st, int tp, int cp, int mbs, gpuecon_recompute rc,
                 bool tp_overlap, train_layer_cost *out);
/* Memory of the configuration's heaviest stage: returns total bytes; fills mem if non-NULL. */
double train_memory(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                    gpuecon_train_memory *mem);
/* Step time of the configuration; fills out (if non-NULL) completely. */
double train_eval(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                  gpuecon_train_result *out);
/* What one pipeline stage holds: layers, MoE layers among them, and parameters per GPU
 * sharded with data parallelism (dense) or with expert data parallelism (routed experts);
 * the up to three distinct stages of a configuration (first, a fullest middle one, last). */
typedef struct stage_info {
    int L, M, mtp;
    double p_dense, p_expert;
} stage_info;
typedef struct dp_group { /* one data-parallel group's traffic: per bucket and in all */
    double rs1, rs, ag1, ag, ar1, ar, agl, rsl;
} dp_group;
typedef struct stage_set {
    int n, id[3];
    stage_info si[3];
    int pmax;                    /* the stage with the most parameters (its DP traffic counts) */
    dp_group dpa, dpb;           /* its dense and routed-expert data-parallel traffic */
} stage_set;
/* The stages of c (depends on pp, vpp and the parallel sizes, not on zero or overlaps), and
 * train_memory / train_eval on them: the search derives them once per (vpp) and reuses them. */
void train_stages(const train_static *st, const train_cfg *c, stage_set *ss);
/* train_stages in two halves: what memory needs (the stages, train_memory_of) and the data-
 * parallel traffic that only train_eval_of reads, which a search fills in only for a
 * configuration that fits. */
void train_stages_layout(const train_static *st, const train_cfg *c, stage_set *ss);
void train_stages_dp(const train_static *st, const train_cfg *c, stage_set *ss);
double train_memory_of(const train_static *st, const train_layer_cost *lc, const train_cfg *c, const stage_set *ss,
                       gpuecon_train_memory *mem);
double train_eval_of(const train_static *st, const train_layer_cost *lc, const train_cfg *c, const stage_set *ss,
                     gpuecon_train_result *out);
/* The fewest layers per stage whose activations must go to host memory for c to fit
 * (c->offload ignored), 0 when it fits as is, -1 when no offload makes it fit. */
int train_offload_needed(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                         const stage_set *ss);
/* Checks the fixed sizes of a request against the model and GPU count (GPUECON_E_INPUT
 * naming the constraint). */
int train_check_request(const gpuecon_train_request *req, gpuecon_error *err);

/* ---- train_cost.c: the cost primitives (a leaf: it calls nothing of train.c, moe.c and
 * train_req.c, which build on it) ---- */
/* E[max of n standard normal draws] (Blom's approximation, Phi^-1((n - 0.375)/(n + 0.25))). */
double train_expected_max_normal(int n);
/* Inverse standard normal CDF (Acklam, |rel err| < 1.2e-9), p in (0, 1). */
double train_inv_norm(double p);
/* The GEMM efficiency of e at precision p. */
double train_gemm_eff(const gpuecon_efficiency *e, gpuecon_precision p);
/* The forward flash-attention fraction of the BF16 peak: attn_fwd where a row sets it, else
 * attn_flash (docs/model.md §3.3). */
double train_attn_fwd_eff(const gpuecon_efficiency *e);
/* FlashAttention-2's causal forward+backward fraction of the BF16 peak at a sequence of `seq`
 * tokens per kernel call and a head dim (calib.c; A100's curve on Ampere, H100's elsewhere). */
double train_fa2_eff(const gpuecon_gpu *gpu, double head_dim, double seq);
/* A GEMM of M x K by K x N at the training precision (inputs ib bytes), on the roofline. */
double train_gemm(const train_static *st, double M, double K, double N, double ib);
/* Roofline time of one kernel: FLOPs at peak_eff FLOP/s or bytes at HBM speed, plus launch. */
double train_kernel(const train_static *st, double flops, double peak_eff, double bytes);
/* Exposed part of `comm` overlapped with `work` split into `chunks` pieces. */
double train_overlapped(double comm, double work, double chunks);
/* Exposed TP collectives around a block (attention or FFN) of one micro-batch of T tokens
 * whose two forward GEMMs take g1, g2; ag_bytes: the forward all-gather before g1. */
double train_tp_pair(const train_static *st, double T, int tp, bool overlap, gpuecon_recompute rc, double g1,
                     double g2, double ag_bytes);
/* train_tp_pair, with the forward's share of it in *fwd_out (NULL: not asked). */
double train_tp_pair_fwd(const train_static *st, double T, int tp, bool overlap, gpuecon_recompute rc, double g1,
                         double g2, double ag_bytes, double *fwd_out);

/* The same under torch.compile (PyTorch-native TP; async_tp: Inductor's micro-pipelined
 * collective matmuls): g1_mms matmuls produce g1's input gradient, out_rs_dead: the block's
 * output reduce-scatter is not recomputed, dec1/dec2 the chunked GEMMs' extra time. */
double train_tp_pair_compiled(const train_static *st, double T, int tp, bool async_tp, gpuecon_recompute rc,
                              double g1, double g2, double ag_bytes, int g1_mms, bool out_rs_dead, double dec1,
                              double dec2);
/* Extra time of an M x K x N GEMM split into `chunks` GEMMs of M/chunks rows. */
double train_gemm_chunked_extra(const train_static *st, double M, double K, double N, double ib, int chunks);

/* ---- moe.c ---- */
/* Fills the MoE fields of lc (built by train_layer for the same tp, cp, mbs, recompute) for
 * ep x etp expert parallelism; with selective recompute, lc->rc_moe says whether the MoE
 * block is recomputed too (it and moe_layer_floor read it). */
void moe_layer(const train_static *st, int ep, int etp, train_layer_cost *lc);
/* The MoE layer's activation bytes (m_act_bytes) of lc with the MoE block recomputed, as
 * moe_layer gives them with rc_moe, without deriving the rest: memory is all a search needs of
 * that twin until it fits. */
double moe_act_recomputed(const train_static *st, const train_layer_cost *lc);
/* Fills lc's layout-independent MoE terms (router and shared-expert GEMMs, their TP
 * collectives); moe_layer does so itself when they are not set yet. */
void moe_shared(const train_static *st, train_layer_cost *lc);
/* A lower bound, over every expert layout (ep, etp), of moe_layer's m_fwd_s + m_bwd_s +
 * m_rc_s + m_tp_s on lc (a train_layer cost): the search prunes a block of layouts with it
 * before deriving any of them. */
double moe_layer_floor(const train_static *st, const train_layer_cost *lc);
/* Fills the MoE part of st from the request (after the dense part). */
int moe_prepare(const gpuecon_train_request *req, train_static *st, gpuecon_error *err);
/* Checks the MoE sizes of a request (GPUECON_E_INPUT naming the constraint). */
int moe_check_request(const gpuecon_train_request *req, gpuecon_error *err);
/* MoE layers among layers [a, b) of the model (closed form of gpuecon_model_layer's pattern). */
int moe_layers_in(const train_static *st, int a, int b);
/* MoE layers held by pipeline stage `stage` (its vpp chunks, mem_stage_layers' split). */
int moe_stage_layers(const train_static *st, int pp, int vpp, int stage);
/* Busiest GPU's tokens over the mean for ep-way expert parallelism (dropless), or the
 * capacity factor. */
double moe_load_factor(const train_static *st, int ep);

#endif
