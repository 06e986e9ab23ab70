/*
 * infer.h — private declarations shared by the serving model's files (never installed).
 *
 * infer_arch.c turns a model into the sums the serving formulas need (parameters by role,
 * KV bytes and attention FLOPs per token grouped by attention window, at one TP degree);
 * infer_step.c times one engine step; infer.c does memory, capacity, throughput and latency.
 * Formula ids (P1, K3, R4, ...) are those of docs/model.md §6.
 */
#ifndef GPUECON_INFER_H
#define GPUECON_INFER_H

#include "train.h" /* comm_link, comm_dispatch: the dispatch model of docs/model.md §4.9 */

#define INFER_MAX_GROUPS 8
#define INFER_GIB 1073741824.0

/* Layers with the same attention window, summed per GPU at one TP degree. */
typedef struct infer_group {
    double window;       /* tokens kept per sequence; INFINITY for global attention */
    double kv_bytes;     /* Σ b_l: KV bytes per token of these layers (K3) */
    double attn_decode;  /* Σ attention FLOPs per (query, key) pair, decode form (R4) */
    double attn_prefill; /* same, prefill form (differs for MLA: absorbed vs expanded) */
} infer_group;

/* A model's parameters by role and its KV/attention sums at one TP degree and KV precision. */
typedef struct infer_arch {
    const gpuecon_model *m;
    int tp;
    double attn, dense_ffn, shared, router, routed; /* whole model, as gpuecon_model_params */
    double body;      /* P_body: every transformer-block linear (P1) */
    double active;    /* linears touched per token: body with top_k of the routed experts */
    double dupv;      /* P_dupv: v_proj vLLM builds as a copy of k_proj on K=V layers */
    double emb_mem;   /* embedding (+ untied LM head) held in 16-bit */
    double head;      /* LM head read per step: V·H */
    double vision, mtp;
    double expert;    /* one routed expert's weights (mats·H·I_e) */
    int moe_layers, layers;
    double lora;      /* P_lora of the adapter (LR1), 0 without one */
    int lora_modules; /* adapted modules per layer (m_lora in O2) */
    double ffn_inner; /* widest FFN activation per token (A1) */
    int ngroups;
    infer_group g[INFER_MAX_GROUPS];
    double kv_short, kv_long; /* K4 */
    bool first, last; /* pipeline stage holding the embedding / the LM head (both: whole model) */
} infer_arch;

/* Latency targets of a serving request (ms; a target <= 0 is absent and always met): whether
 * mean or percentile latencies meet them, and by how much they miss, the larger relative excess
 * (0 when met). Shared by the search, the disaggregated search and compare. */
static inline bool infer_slo_met(double ttft_target, double tpot_target, double ttft, double tpot)
{
    return (ttft_target <= 0 || ttft <= ttft_target) && (tpot_target <= 0 || tpot <= tpot_target);
}

static inline double infer_slo_miss(double ttft_target, double tpot_target, double ttft, double tpot)
{
    double m = 0;
    if (ttft_target > 0 && ttft / ttft_target - 1 > m)
        m = ttft / ttft_target - 1;
    if (tpot_target > 0 && tpot / tpot_target - 1 > m)
        m = tpot / tpot_target - 1;
    return m;
}

/* Validates TP against the heads (vLLM: TP divides the query heads; KV heads divide by TP or,
 * when fewer, are replicated, which needs TP a multiple of them). */
int infer_check_tp(const gpuecon_model *m, int tp, gpuecon_error *err);
void infer_arch_build(const gpuecon_model *m, int tp, double kv_elem_bytes, int lora_rank,
                      unsigned lora_modules, infer_arch *a);
/* Whole-model sums a stage build needs, computed once per model. */
typedef struct infer_sums {
    gpuecon_params p;
    int moe_layers;
} infer_sums;
void infer_sums_build(const gpuecon_model *m, infer_sums *t);
/* The same for layers [l0, l1) of a pipeline stage: the embedding (and vision tower) only when
 * `first`, the LM head, MTP modules and drafter only when `last` (PP11, docs/model.md §6.14). */
void infer_arch_build_range(const gpuecon_model *m, const infer_sums *t, int tp, double kv_elem_bytes,
                            int lora_rank, unsigned lora_modules, int l0, int l1, bool first, bool last,
                            infer_arch *a);
/* Σ_l b_l·min(n, W_l): KV bytes one sequence of n tokens keeps (R3 per sequence). */
double infer_kv_resident(const infer_arch *a, double n);
/* K6: R_seq(n) = Σ_l b_l·(min(n, W_l) + bs/2). */
double infer_seq_bytes(const infer_arch *a, double n, double block_size);
/* vLLM's startup check (check_enough_kv_cache_memory): bytes a request of max_model_len needs. */
double infer_startup_bytes(const infer_arch *a, double max_model_len, double block_size,
                           double max_batched_tokens);
/* Number of set bits among the seven LoRA projections. */
int infer_popcount7(unsigned bits);

/* Fine-tuning: the facts of a stack and a model that set the kernels of a step (finetune_step.c). */
typedef enum ft_fp8 { FT_FP8_NONE, FT_FP8_NAIVE, FT_FP8_TE } ft_fp8;
typedef struct ft_stack_facts {
    double host_launch_s;   /* host time to launch one kernel */
    bool compiled;          /* torch.compile: elementwise chains fused */
    int fp8_linear;         /* ft_fp8: how FP8 linears cast */
    double norms_per_layer; /* RMSNorm/LayerNorm modules over the hidden width */
    bool qk_norm;           /* per-head norms of q and k */
} ft_stack_facts;
typedef struct ft_kernel_time {
    double time_s;             /* Σ max(GPU time, host launch time) over the step's kernels */
    double kernels;            /* kernels launched per step */
    double host_bound_kernels; /* of which the host launch is longer than the GPU time */
    double bytes;              /* HBM bytes moved by them */
    double host_s;             /* kernels x host launch time */
} ft_kernel_time;
/* Times one micro-batch's kernels (forward, backward, recompute) on one GPU with GEMMs at eta of
 * the BF16 peak (FP8 GEMMs at eta x the GPU generation's gemm_fp8/gemm_bf16, calib.c). */
void finetune_kernels(const gpuecon_finetune_request *r, const ft_stack_facts *s, double eta, ft_kernel_time *out);
/* Bytes the FP8 path holds beside the BF16 ones: naive, an FP8 copy of every weight and its FP8
 * transpose outside FSDP's shards (2 B per text parameter) and the FP8 input of every converted
 * linear (adapters' included) saved for backward; te, the FP8 input of each base linear. */
double finetune_fp8_copy_bytes(const gpuecon_finetune_request *r, int fp8_linear, double text_params);

/* What one engine step of a replica depends on, fixed for a request (built by infer.c). */
typedef struct infer_env {
    const infer_arch *a;
    gpuecon_serving_profile prof;
    gpuecon_roofline roofline;
    double bw;           /* HBM B/s */
    double f_prec;       /* FLOP/s of the weight GEMMs at the weight precision (§2.2) */
    double f16;          /* BF16 FLOP/s (attention math) */
    double link_bps;     /* NVLink B/s per GPU per direction */
    double ar_latency_s; /* α_ar */
    double b_w;          /* bytes per body weight */
    int tp, ep;          /* ep > 1: experts spread whole over the TP group (EP = TP), summed by the
                            all-reduce after the MoE layer as a sliced MLP is (C3) */
    int dp;              /* > 1: attention data-parallel; this replica is one of dp GPUs whose
                            experts are spread over all dp (EP = dp), tp = 1, in lockstep */
    double imbalance;    /* busiest expert rank's tokens / mean (>= 1) */
    comm_link link;      /* the system's links, for the attention-DP dispatch (comm_dispatch) */
    double k, E;         /* draft length, expected tokens per verify step */
    double rho, hit;     /* L_in/L_out, prefix-cache hit rate */
    double l_in, nbar;   /* prompt length, mean live context */
    double budget;       /* max_num_batched_tokens: tokens one step may carry (T2) */
    bool prefill_even;   /* T1 alone: every step its share of the prefill */
    double chunk_cap;    /* a prompt's tokens per step at most (long_prefill_token_threshold; INFINITY: none) */
    double draft_read_bytes; /* per draft step, whole replica (O3) */
    double eta_c, eta_attn;  /* prof.eta_c on this GPU: GEMMs at the math precision, attention (BF16) */
    /* AK1–AK4: the stack's attention kernel on this GPU and head layout (docs/model.md §6.15) */
    int attn_kernel;         /* gpuecon_attn_kernel */
    double eta_kv;           /* decode KV reads: fraction of HBM (the kernel's, else prof.eta_kv) */
    double eta_attn_dec;     /* decode attention math: fraction of f_attn_dec (the kernel's, else eta_attn) */
    double f_attn_dec;       /* decode attention FLOP/s peak: FP8 for an FP8-math kernel on FP8 KV, else f16 */
    bool prefill_curve;      /* prefill attention at gpuecon_attn_prefill_frac by sequence length (AK3) */
    double cal_gemm;         /* the calibration's tensor-core scale (1: none), applied to the curve */
    /* pipeline parallel (infer_step.c); pp <= 1: none */
    int pp;
    int bounds_up, bounds_out;   /* stage boundaries inside a scale-up domain / across the network */
    /* the distinct stages (must stay last: build_env zeroes only what comes before) */
    struct {
        int n;                          /* distinct stage kinds */
        int count[GPUECON_INFER_MAX_PP]; /* stages of each kind */
        int first[GPUECON_INFER_MAX_PP]; /* the first stage of each kind (0-based) */
        int base[GPUECON_INFER_MAX_PP];  /* the kind whose step this one scales (itself: its own) */
        double scale[GPUECON_INFER_MAX_PP]; /* its layers / the base kind's layers */
        infer_arch st[GPUECON_INFER_MAX_PP];
    } stages;
} infer_env;

/* One engine step's work, as a scheduler assembles it (per replica). */
typedef struct infer_batch {
    double seqs;                      /* sequences in the step (t_seq·seqs) */
    double dec;                       /* decode/verify positions: (k+1) per decoding sequence */
    double pre;                       /* prefill tokens */
    double kv_ctx[INFER_MAX_GROUPS];  /* Σ over decoding sequences of min(context, W_g) */
    double pre_ctx[INFER_MAX_GROUPS]; /* Σ over prefill tokens of the keys each attends to, min(·, W_g) */
    double pre_parts;                 /* prompts the prefill belongs to: a pipelined step carries each in
                                         one micro-batch (PP8); 0: spread over all of them */
} infer_batch;

/* ---- infer.c ---- */
/* Checks the request, resolves TP, builds the arch and step environment (e->a points at *a)
 * and fills the result's memory, capacity and saturation figures (not the point `at`).
 * Errors as gpuecon_infer. */
int infer_prepare(const gpuecon_infer_request *req, infer_arch *a, infer_env *e, gpuecon_infer_result *out,
                  gpuecon_error *err);
/* The same without the saturation figures (knee, saturated throughput, TTFT_0): the search's
 * per-configuration preparation. */
int infer_prepare_core(const gpuecon_infer_request *req, infer_arch *a, infer_env *e, gpuecon_infer_result *out,
                       gpuecon_error *err);

/* X1: sequences per replica whose decode positions (k+1 each) and steady-state prefill
 * (E·ρ(1−h) each) fit in a step of `budget` tokens: budget/((k+1) + E·ρ(1−h)). */
double infer_budget_seqs(const infer_env *e, double budget);
/* The most sequences a replica runs at once: min(seqs_admitted, max_num_seqs, seqs_budget). */
double infer_running_cap(const gpuecon_infer_result *o);
/* X1–X4, L1–L3 and cost at concurrency C (all replicas) of a prepared deployment. */
void infer_point(const gpuecon_infer_request *r, const infer_env *e, const gpuecon_infer_result *o,
                 double C, gpuecon_infer_point *pt);
/* The least concurrency whose output tokens/s reach `need` (Little's law: a rate x L_out),
 * bisected to 0.1% over [lo, max(replicas, max_concurrency)] (throughput only grows with the
 * load), or -1 when even the top does not; *pt is left at the last point tried. */
double infer_rate_c(const gpuecon_infer_request *r, const infer_env *e, const gpuecon_infer_result *o,
                    double need, double lo, gpuecon_infer_point *pt);

/* ---- infer_step.c, pipeline parallelism (docs/model.md §6.14) ---- */
/* Checks --pp against the model, the GPU count and the rest of the layout (errors name --pp). */
int infer_pp_check(const gpuecon_infer_request *r, gpuecon_error *err);
/* Stage s of o->pp (o->tp set). */
void infer_pp_stage(const gpuecon_infer_request *r, const gpuecon_infer_result *o, const infer_sums *t, int s,
                    infer_arch *a);
/* Adds a stage to e->stages under its step-time content (the embedding and vision tower, which
 * no step reads, set aside), so the first stage and the middle ones share one kind. */
void infer_pp_add_stage(infer_env *e, const infer_arch *a, int s);
/* The point-to-point terms of e (after build_env). */
void infer_pp_env(const gpuecon_infer_request *r, const gpuecon_infer_result *o, infer_env *e);
/* One engine step of a pipelined replica: micro-batches over the stages (PP1-PP6). */
void infer_pp_step(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s);

/* ---- infer_step.c ---- */
/* S1 of one stage (or of the whole model when pp <= 1) for an explicit batch. */
void infer_step_stage(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s);
/* S1 for an explicit batch (the simulator's steps); the draft cost only when something decodes. */
void infer_step_batch(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s);

/* ---- infer_sim_trace.c: a simulated run timed again under other step constants ----
 * Where the schedule does not depend on time — every request queued at once (a burst) with fixed
 * lengths, no speculative draft, one aggregated replica, one replication, no warmup — which requests
 * each step holds is decided by the batch and token limits and the KV pool alone, so the run's
 * throughput under other step constants (a calibrated profile) is its output tokens over the sum of
 * its steps timed again. validate --leave-one-out re-times a trtllm-bench row this way instead of
 * simulating it again (the same steps, the same sums: bit-identical under the constants it ran). */
typedef struct infer_sim_trace {
    infer_batch *b;         /* the steps, in order */
    double *swap;           /* bytes swapped in ahead of each step */
    size_t n, cap;
    bool ok;                /* recorded: the schedule does not depend on time and memory sufficed */
    gpuecon_ctx *ctx;
    double tokens;          /* output tokens of the replica */
    int replicas;
    /* what decided the schedule, to check a re-timed request keeps it */
    double pool, window[INFER_MAX_GROUPS], group_block[INFER_MAX_GROUPS];
    int ngroups, block, max_seqs, budget, max_len, chunk_cap;
    bool reserve;
    double figure;          /* the simulation's output tokens/s, all replicas */
} infer_sim_trace;
/* gpuecon_infer_simulate, recording the steps into *t when the schedule does not depend on time
 * (t->ok; else the run is simulated as usual and t->ok is false). infer_sim_trace_free releases t. */
int infer_simulate_traced(gpuecon_ctx *ctx, const gpuecon_sim_request *req, gpuecon_sim_result *out,
                          infer_sim_trace *t, gpuecon_error *err);
/* The output tokens/s of t's run under req's step constants (req: t's request with another profile).
 * *same false (and *tokens_per_s 0) when req's deployment would schedule differently (other limits
 * or KV pool): the caller simulates instead. */
int infer_sim_retime(const infer_sim_trace *t, const gpuecon_sim_request *req, double *tokens_per_s, bool *same,
                     gpuecon_error *err);
void infer_sim_trace_free(infer_sim_trace *t);
/* S1 for B running sequences per replica; `chunk` extra prefill tokens ride along (L3). */
void infer_step(const infer_env *e, double B, double chunk, gpuecon_infer_step *s);
/* infer_step, and where T2 mixes two kinds of step, the fraction *n of steps with a prompt
 * chunk of *c tokens and the two steps' times (all 0 where the step is one kind) */
void infer_step_mix(const infer_env *e, double B, double chunk, gpuecon_infer_step *s, double *n, double *c,
                    double *t_prompt, double *t_decode);
/* Attention-DP: one dispatch (combine: false) of `tokens` tokens per rank over the dp ranks. */
double infer_dp_dispatch_s(const infer_env *e, double tokens, bool dispatch);
/* C1: one all-reduce of `bytes` across the TP group (0 when TP = 1). */
double infer_allreduce_s(const infer_env *e, double bytes);
/* Σ_{j = s+1}^{s+n} min(j, W): attention pairs of n prompt tokens after s earlier ones. */
double infer_pairs(double s, double n, double w);
/* L3: time of the ceil(fresh/chunk) steps that prefill `fresh` tokens of one prompt after
 * `cached` ones (prefix-cache hits), `chunk` per step and the rest in the last, each beside
 * `others` (>= 0) running sequences of the mean field (through every stage when pipelined). */
double infer_prefill_s(const infer_env *e, double others, double fresh, double cached, double chunk);
/* L4: an isolated prompt on an empty server, chunked by the token budget `budget`. */
double infer_ttft0_s(const infer_env *e, double budget);

/* ---- infer_eplb.c (docs/model.md §6.5, EP1–EP4) ---- */
/* EP1: the redundant experts a deployment gets by default: the fewest R >= 0 for which EP divides
 * E + R (0 where EP divides E, or without experts or expert parallelism). */
int infer_redundant_default(int experts, int ep);
/* Routed-expert slots on the busiest GPU: ceil((E + R)/EP) (E without expert parallelism). */
int infer_expert_slots(int experts, int redundant, int ep);
/* The busiest expert-parallel rank's routed tokens over the mean rank's (>= 1) for E experts of
 * popularity coefficient of variation load_cv over EP ranks: with R > 0 redundant experts placed
 * by DeepSeek's EPLB (EP4), without them by index (EP3). 1 where EP <= 1; EP, E + R at most 1024. */
double infer_expert_imbalance(int experts, int ep, int redundant, double load_cv);
/* ---- infer_layer.c (docs/model.md §6.15) ---- */
/* Kernels a step of e's stage replays in a CUDA graph, and the launches it takes from the host
 * outside one (piecewise: two a layer). */
void infer_layer_kernels(const infer_env *e, double *graph_kernels, double *eager_launches);
/* O4 for a per_layer profile: fills s->kernels and s->kernel_s (kernels x t_k) and returns the
 * host time the step adds beyond `gpu_s` + kernel_s (host launches outside a graph, the
 * scheduler; hidden by an overlap scheduler while the GPU is busy). Non-decreasing in the batch. */
double infer_layer_step(const infer_env *e, const infer_batch *b, double gpu_s, gpuecon_infer_step *s);
/* O6 for a per_layer profile: the busiest expert-parallel rank's routed-expert weight reads over the
 * mean in a step of `tokens` tokens per rank (>= 1; 1 without expert parallelism or a stack). */
double infer_layer_ep_straggler(const infer_env *e, double tokens);

/* ---- infer_disagg.c (docs/model.md §6.13) ---- */
/* One side of a disaggregated deployment: an instance prepared by the aggregated model (e.a
 * points at a, so a side is never copied). */
typedef struct infer_side {
    infer_arch a;
    infer_env e;
    gpuecon_infer_result o;
} infer_side;
/* Checks the request, prepares the prefill side p and the decode side d and fills out's layout,
 * transfer and capacities (D1–D3), not the latencies. Errors as gpuecon_infer_disagg. */
int infer_disagg_prepare(const gpuecon_disagg_request *req, infer_side *p, infer_side *d, gpuecon_disagg_result *out,
                         gpuecon_error *err);
/* D4 at rate R (0 < R < out->capacity) of a prepared deployment. */
void infer_disagg_at_rate(const gpuecon_disagg_request *q, const infer_side *p, const infer_side *d, double R,
                          gpuecon_disagg_result *o);
/* D3: seconds one request's KV of `prompt` tokens takes from its prefill instance (each GPU
 * sends its shard; over the scale-out network when `over`). */
double infer_disagg_kv_s(const comm_link *L, const gpuecon_system *sys, bool over, const infer_arch *pa, double prompt);

/* ---- validate_serving.c ---- */
/* trtllm-bench's default max_batch_size and max_num_tokens for a TP group of `tp` GPUs at fixed
 * ISL/OSL and a KV fraction (tensorrt_llm/bench/build/tuning.py; docs/model.md §6.8). */
void infer_trtllm_bench_limits(const gpuecon_model *m, const gpuecon_system *s, int tp, gpuecon_precision w,
                               gpuecon_precision kv, double isl, double osl, double kv_fraction, int *max_bs,
                               int *max_tokens);
/* The same for a replica of TP x PP GPUs (calc_engine_setting counts all tp·pp GPUs, finetune_setting
 * divides the requests by pp): the limits of one micro-batch. */
void infer_trtllm_bench_limits_pp(const gpuecon_model *m, const gpuecon_system *s, int tp, int pp,
                                  gpuecon_precision w, gpuecon_precision kv, double isl, double osl,
                                  double kv_fraction, int *max_bs, int *max_tokens);

#endif
