/*
 * gpuecon.h — the one public header of libgpuecon.
 *
 * gpuecon answers: what does it cost (dollars, days, energy, risk) to train model M on
 * T tokens, or serve it at load L, on GPU platform P — and what would change the answer?
 *
 * Conventions (binding for every function below):
 *  - Errors are values. Functions return GPUECON_OK (0) or a negative gpuecon_status and,
 *    when `err` is not NULL, fill the caller-owned gpuecon_error. The library never prints,
 *    exits or aborts on bad input.
 *  - Ownership: objects returned by *_new / *_load belong to the caller and are released with
 *    the matching *_free; every *_free(NULL) is a no-op. Pointers into a catalog (entries,
 *    names, sources) stay valid until gpuecon_catalog_free().
 *  - Units are SI and appear in names: _s, _w, _j, _usd, _gib (2^30 B), _gbps (10^9 B/s),
 *    _tbps (10^12 B/s), _tflops (10^12 FLOP/s). FLOP counts are double.
 *  - Model functions are pure: no I/O, no globals; the same inputs give bit-identical outputs
 *    for any thread count.
 */
#ifndef GPUECON_H
#define GPUECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GPUECON_API __attribute__((visibility("default")))
#else
#define GPUECON_API
#endif

#define GPUECON_VERSION "0.1.0"

/* ==== status, errors ================================================================ */

typedef enum gpuecon_status {
    GPUECON_OK = 0,
    GPUECON_E_INPUT = -1,      /* a value is out of range or inconsistent */
    GPUECON_E_PARSE = -2,      /* a file is not valid YAML or not of the expected shape */
    GPUECON_E_IO = -3,         /* a file could not be read, or is too large */
    GPUECON_E_NOMEM = -4,
    GPUECON_E_NOTFOUND = -5,   /* unknown catalog name */
    GPUECON_E_INFEASIBLE = -6, /* a well-formed request that cannot be satisfied (e.g. OOM) */
    GPUECON_E_CANCELED = -7,   /* a progress callback asked to stop */
    GPUECON_E_INTERNAL = -8
} gpuecon_status;

/* Where and what. `where` is a file path or an option/field name ("" when none); line and
 * column are 1-based (0 when not applicable). */
typedef struct gpuecon_error {
    int code;
    char where[256];
    int line, column;
    char message[512];
} gpuecon_error;

GPUECON_API const char *gpuecon_status_name(int code);
GPUECON_API void gpuecon_error_clear(gpuecon_error *err);

/* ==== context ======================================================================= */

typedef struct gpuecon_ctx gpuecon_ctx;

/* Lua-style allocator: nsize == 0 frees ptr and returns NULL; otherwise (re)allocates. */
typedef void *(*gpuecon_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* Progress: return non-zero to cancel the running computation (it then returns
 * GPUECON_E_CANCELED). `done` and `total` are in the computation's own units. */
typedef int (*gpuecon_progress_fn)(void *ud, double done, double total);

typedef struct gpuecon_ctx_config {
    gpuecon_alloc_fn alloc;       /* NULL: malloc/realloc/free */
    void *alloc_ud;
    uint64_t seed;                /* base seed for every randomised computation */
    int threads;                  /* 0: OpenMP default; results never depend on it */
    gpuecon_progress_fn progress; /* may be NULL */
    void *progress_ud;
    size_t max_file_bytes;        /* 0: 4 MiB; larger input files are refused */
} gpuecon_ctx_config;

/* Returns NULL only when memory is exhausted. cfg may be NULL (all defaults). */
GPUECON_API gpuecon_ctx *gpuecon_ctx_new(const gpuecon_ctx_config *cfg);
GPUECON_API void gpuecon_ctx_free(gpuecon_ctx *ctx);
GPUECON_API const gpuecon_ctx_config *gpuecon_ctx_get_config(const gpuecon_ctx *ctx);

/* ==== provenance ==================================================================== */

typedef enum gpuecon_stage {
    GPUECON_STAGE_DATASHEET,
    GPUECON_STAGE_MEASURED,
    GPUECON_STAGE_PUBLISHER_REPORTED,
    GPUECON_STAGE_PROJECTION,
    GPUECON_STAGE_ASSUMPTION,
    GPUECON_STAGE_DERIVED, /* arithmetic on other sourced numbers */
    GPUECON_STAGE_FITTED,  /* calibrated on reference/calibration data */
    GPUECON_STAGE_COUNT
} gpuecon_stage;

typedef struct gpuecon_source {
    const char *text; /* citation: paper/table, datasheet, repository file */
    gpuecon_stage stage;
} gpuecon_source;

GPUECON_API const char *gpuecon_stage_name(gpuecon_stage stage);

/* ==== catalog entries ================================================================ */

typedef enum gpuecon_precision {
    GPUECON_BF16,
    GPUECON_FP8,
    GPUECON_FP4
} gpuecon_precision;

GPUECON_API const char *gpuecon_precision_name(gpuecon_precision p);
/* Bytes per element of a weight/activation stored at precision p (NVFP4: 0.5625 incl. scales). */
GPUECON_API double gpuecon_precision_bytes(gpuecon_precision p);

typedef struct gpuecon_gpu {
    const char *name;
    const char *arch;        /* ampere | hopper | blackwell | blackwell-ultra | cdna3 */
    double peak_bf16_tflops; /* dense (no 2:4 sparsity) */
    double peak_fp8_tflops;  /* 0: no FP8 tensor cores */
    double peak_fp4_tflops;  /* 0: no FP4 tensor cores */
    double hbm_gib;          /* usable capacity as the driver reports it */
    double hbm_tbps;
    double tdp_w;
    const gpuecon_source *src; /* per field; read through gpuecon_catalog_field() */
} gpuecon_gpu;

/* Dense peak in FLOP/s at precision p, or 0 when the GPU has no tensor cores for it. */
GPUECON_API double gpuecon_gpu_peak_flops(const gpuecon_gpu *gpu, gpuecon_precision p);

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
    const gpuecon_source *src;
} gpuecon_system;

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
    /* attention */
    gpuecon_attention attention;
    int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; /* MLA */
    int sliding_window;     /* 0: every layer attends globally */
    int global_every;       /* with a window: every n-th layer is global (Gemma: 6) */
    int global_kv_heads, global_head_dim;
    bool global_k_eq_v;     /* global layers share K and V (no v_proj) */
    int mtp_layers;         /* multi-token-prediction modules (DeepSeek-V3: 1) */
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
GPUECON_API void gpuecon_model_layer(const gpuecon_model *m, int i, gpuecon_layer *out);
GPUECON_API const char *gpuecon_ffn_name(gpuecon_ffn f);
/* Weight matrices in one FFN block: 2 (gelu, relu2) or 3 (swiglu, geglu). */
GPUECON_API int gpuecon_ffn_matrices(gpuecon_ffn f);

/* ==== catalog ======================================================================= */

typedef struct gpuecon_catalog gpuecon_catalog;

typedef enum gpuecon_kind {
    GPUECON_KIND_GPU,
    GPUECON_KIND_SYSTEM,
    GPUECON_KIND_PROFILE,
    GPUECON_KIND_MODEL,
    GPUECON_KIND_RELIABILITY,
    GPUECON_KIND_COUNT
} gpuecon_kind;

/* "gpus", "systems", "profiles", "models", "reliability": the file stem and the YAML key. */
GPUECON_API const char *gpuecon_kind_name(gpuecon_kind kind);

/* Creates a catalog holding the built-in default (compiled into the library). */
GPUECON_API int gpuecon_catalog_new(gpuecon_ctx *ctx, gpuecon_catalog **out, gpuecon_error *err);
GPUECON_API void gpuecon_catalog_free(gpuecon_catalog *cat);

/* Loads any of gpus.yaml systems.yaml profiles.yaml models.yaml reliability.yaml found in
 * dir; their entries add to or replace (by name) the ones already loaded. Errors name
 * path:line:col. A directory holding none of these files is an error. */
GPUECON_API int gpuecon_catalog_load_dir(gpuecon_catalog *cat, const char *dir, gpuecon_error *err);
/* Loads one catalog file of the given kind (same format as the files in data/). */
GPUECON_API int gpuecon_catalog_load_file(gpuecon_catalog *cat, gpuecon_kind kind,
                                          const char *path, gpuecon_error *err);
/* Loads a single model in the model-file format (a mapping, see docs/catalog.md) and adds it
 * to the catalog; *out (if not NULL) points at it. */
GPUECON_API int gpuecon_catalog_load_model_file(gpuecon_catalog *cat, const char *path,
                                                const gpuecon_model **out, gpuecon_error *err);
/* Same as gpuecon_catalog_load_model_file from memory; `name` labels errors. */
GPUECON_API int gpuecon_catalog_load_model_buffer(gpuecon_catalog *cat, const char *name, const char *buf,
                                                  size_t len, const gpuecon_model **out,
                                                  gpuecon_error *err);
/* Same as gpuecon_catalog_load_file from memory; `name` labels errors (use the file name). */
GPUECON_API int gpuecon_catalog_load_buffer(gpuecon_catalog *cat, gpuecon_kind kind,
                                            const char *name, const char *buf, size_t len,
                                            gpuecon_error *err);

GPUECON_API size_t gpuecon_catalog_count(const gpuecon_catalog *cat, gpuecon_kind kind);
/* Entry i of a kind in load order: built-ins in file order, a replacement keeps its place,
 * additions come last (NULL when out of range). The returned pointer is a
 * const gpuecon_gpu / gpuecon_system / ... according to kind. */
GPUECON_API const void *gpuecon_catalog_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);
GPUECON_API const char *gpuecon_catalog_name_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);

/* Look-ups by name. NULL when unknown. */
GPUECON_API const gpuecon_gpu *gpuecon_catalog_gpu(const gpuecon_catalog *cat, const char *name);
GPUECON_API const gpuecon_system *gpuecon_catalog_system(const gpuecon_catalog *cat, const char *name);
GPUECON_API const gpuecon_profile *gpuecon_catalog_profile(const gpuecon_catalog *cat, const char *name);
GPUECON_API const gpuecon_model *gpuecon_catalog_model(const gpuecon_catalog *cat, const char *name);

/* Look-up with a helpful error: GPUECON_E_NOTFOUND with "unknown system 'hgx-h10'; did you
 * mean 'hgx-h100'?" and the list of known names. `what` names the option for err->where. */
GPUECON_API int gpuecon_catalog_find(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name,
                                     const char *what, const void **out, gpuecon_error *err);

/* The nearest of n candidate strings to s (edit distance), or NULL if none is close. */
GPUECON_API const char *gpuecon_suggest(const char *s, const char *const *candidates, size_t n);

typedef enum gpuecon_field_type {
    GPUECON_FIELD_NUMBER,
    GPUECON_FIELD_INTEGER,
    GPUECON_FIELD_BOOL,
    GPUECON_FIELD_TEXT,
    GPUECON_FIELD_KEYED /* a map from catalog names to numbers */
} gpuecon_field_type;

/* One field of a catalog entry, with its provenance. */
typedef struct gpuecon_field {
    const char *name;
    const char *unit;   /* "" for dimensionless */
    const char *doc;
    gpuecon_field_type type;
    bool present;       /* false when the file left it out and the default applies */
    double number;      /* NUMBER, INTEGER, BOOL (0/1) */
    const char *text;   /* TEXT */
    const gpuecon_keyed *keyed; /* KEYED */
    size_t n_keyed;
    gpuecon_source source;
} gpuecon_field;

/* Number of fields of a kind (the schema), and field j of entry i. */
GPUECON_API size_t gpuecon_catalog_field_count(gpuecon_kind kind);
GPUECON_API int gpuecon_catalog_field_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i,
                                         size_t j, gpuecon_field *out);
/* Field `field` of the entry named `entry`. GPUECON_E_NOTFOUND if either is unknown. */
GPUECON_API int gpuecon_catalog_field(const gpuecon_catalog *cat, gpuecon_kind kind, const char *entry,
                                      const char *field, gpuecon_field *out);
/* Where the entry came from ("data/gpus.yaml" for built-ins, else the path). */
GPUECON_API const char *gpuecon_catalog_origin(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);

/* ==== model arithmetic (src/core/flops.c) ============================================ */

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

GPUECON_API void gpuecon_model_params(const gpuecon_model *m, gpuecon_params *out);

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
GPUECON_API void gpuecon_train_flops(const gpuecon_model *m, int seq, gpuecon_attn_count count,
                                     bool include_mtp, gpuecon_flops *out);
/* Forward FLOPs per generated token at a context of `context` tokens (2 per weight plus
 * attention over the context, windows respected). */
GPUECON_API double gpuecon_infer_flops_per_token(const gpuecon_model *m, double context);
/* MFU = tokens/s/GPU × FLOPs/token ÷ peak FLOP/s, and its inverse. */
GPUECON_API double gpuecon_mfu(double tokens_per_s_per_gpu, double flops_per_token, double peak_flops);
GPUECON_API double gpuecon_tokens_per_s_from_mfu(double mfu, double flops_per_token, double peak_flops);

/* ==== economics (src/core/tco.c, src/core/energy.c) =================================== */

typedef struct gpuecon_tco {
    double capex_usd;              /* per GPU, after profile overrides */
    double capital_charge_per_year;/* k */
    double capital_usd_per_hour;   /* C·k/8760 */
    double colo_usd_per_hour;      /* P_IT·c_colo·12/8760 */
    double power_usd_per_hour;     /* P_IT·PUE·p_e */
    double fixed_usd_per_hour;
    double derived_usd_per_gpu_hour;
    double published_usd_per_gpu_hour; /* 0 when the profile has none for this system */
    double usd_per_gpu_hour;       /* the one used: published when present, else derived */
    bool uses_published;
    double pue;                    /* PUE used in the power term */
    double it_w_per_gpu;
} gpuecon_tco;

/* Capital recovery factor r/(1−(1+r)^−L) (1/L when r = 0). */
GPUECON_API double gpuecon_crf(double rate, double life_years);
/* TCO per GPU-hour of system s under profile p (reference/reliability-tco.md §1).
 * pue_override > 0 replaces the profile's PUE. */
GPUECON_API int gpuecon_tco_compute(const gpuecon_profile *p, const gpuecon_system *s,
                                    double pue_override, gpuecon_tco *out, gpuecon_error *err);

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
GPUECON_API int gpuecon_cost_compute(double usd_per_gpu_hour, double it_w_per_gpu, double pue,
                                     double tokens_per_s_per_gpu, double tokens,
                                     gpuecon_cost *out, gpuecon_error *err);

/* ==== reproduction of the published figures (src/core/reproduce.c) ==================== */

typedef struct gpuecon_repro_row {
    char id[16];          /* seed-figure id: S1, S2, ... */
    char what[200];
    double published, computed;
    double rel_err;       /* computed/published − 1 */
    double tolerance;     /* relative; the row is ok when |rel_err| <= tolerance */
    bool consistent;      /* false: the source contradicts itself here (see note) */
    bool ok;
    char note[240];
} gpuecon_repro_row;

/* Recomputes every arithmetic figure of reference/seed-figures.md S1–S8 from the catalog.
 * Writes up to cap rows and sets *n to the number written. */
GPUECON_API int gpuecon_reproduce(const gpuecon_catalog *cat, gpuecon_repro_row *rows, size_t cap,
                                  size_t *n, gpuecon_error *err);

/* ==== collectives and training (issue 3, 4) ========================================== */

/* ---- collectives on a two-level topology (src/core/comm.c) ----
 * A system has scale-up domains of system->scaleup_gpus GPUs (NVLink, scaleup_gbps per GPU per
 * direction) joined by a scale-out network (scaleout_gbps per GPU per direction, one NIC per
 * GPU, rail-optimised). Ranks are numbered domain by domain. A group is described by its size
 * and its stride: the rank distance between consecutive members (TP: 1; CP: tp; PP: tp·cp;
 * DP: tp·cp·pp, the Megatron order TP innermost, then CP, PP, DP outermost). A group inside
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
    /* all-to-all split (issue 4 builds the hierarchical MoE dispatch on it): the time of
     * the intra-domain share (NVLink) and the inter-domain share (network), which overlap;
     * time_s = max of the two plus latency. Zero for the other operations. */
    double intra_s, inter_s;
} gpuecon_coll_result;

GPUECON_API const char *gpuecon_coll_op_name(gpuecon_coll_op op);   /* "all-reduce", ... */
GPUECON_API const char *gpuecon_link_level_name(gpuecon_link_level level);
/* nccl-tests bus-bandwidth factor f(n) of an operation (1 for send-recv). */
GPUECON_API double gpuecon_busbw_factor(gpuecon_coll_op op, int gpus);

/* Achieved fraction of the link bandwidth and per-hop latency, per link level, as used by
 * every collective. gpuecon_link_model() returns the built-in values for a system
 * (docs/model.md §3.3); callers may pass their own to gpuecon_collective_ex. */
typedef struct gpuecon_link_model {
    double scaleup_eff;   /* achievable busbw / scaleup_gbps */
    double scaleout_eff;  /* achievable busbw / scaleout_gbps */
    double launch_s;      /* fixed cost of one collective call (kernel launch, setup) */
} gpuecon_link_model;

GPUECON_API void gpuecon_link_model_for(const gpuecon_system *s, gpuecon_link_model *out);

/* Time of one collective of `bytes` (nccl-tests size S, above) over a group of `gpus` ranks
 * spaced `stride` ranks apart (stride >= 1; the group must fit in the numbering, i.e. it is
 * the group of ranks r, r+stride, ...). For send-recv, gpus must be 2 and the peer is
 * `stride` ranks away. Errors: GPUECON_E_INPUT for gpus < 1, stride < 1, bytes < 0 or not
 * finite, a system without bandwidths. */
GPUECON_API int gpuecon_collective(const gpuecon_system *s, gpuecon_coll_op op, int gpus, int stride,
                                   double bytes, gpuecon_coll_algo algo, gpuecon_coll_result *out,
                                   gpuecon_error *err);
/* The same with explicit link efficiencies (NULL: gpuecon_link_model_for). */
GPUECON_API int gpuecon_collective_ex(const gpuecon_system *s, const gpuecon_link_model *lm,
                                      gpuecon_coll_op op, int gpus, int stride, double bytes,
                                      gpuecon_coll_algo algo, gpuecon_coll_result *out,
                                      gpuecon_error *err);

/* ---- efficiency parameters of the training model (src/core/calib.c) ----
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
    gpuecon_stage stage;         /* fitted or assumption */
    const char *source;          /* which data, which document */
} gpuecon_efficiency;

/* The built-in parameters for a GPU (by arch; an unknown arch gets Hopper's row,
 * whose source says what it was fitted on). Never NULL. */
GPUECON_API const gpuecon_efficiency *gpuecon_efficiency_for(const gpuecon_gpu *gpu);
/* Every built-in row, for documentation and `gpuecon validate`. */
GPUECON_API const gpuecon_efficiency *gpuecon_efficiency_table(size_t *n);

/* ---- memory per GPU (src/core/memory.c) ----
 * Small functions, reusable by fine-tuning (issue 6). Bytes, not GiB. */
typedef enum gpuecon_recompute {
    GPUECON_RECOMPUTE_NONE,
    GPUECON_RECOMPUTE_SELECTIVE, /* attention core (Korthikanti et al. 2022 §4.1) */
    GPUECON_RECOMPUTE_FULL       /* every layer from its input ("uniform", 1 layer) */
} gpuecon_recompute;

typedef enum gpuecon_attn_impl {
    GPUECON_ATTN_IMPL_FLASH,     /* fused flash-style kernel: no s×s scores in memory */
    GPUECON_ATTN_IMPL_UNFUSED    /* QK^T, softmax, dropout, AV as separate kernels (2021) */
} gpuecon_attn_impl;

GPUECON_API const char *gpuecon_recompute_name(gpuecon_recompute r);

/* Activation bytes one transformer layer keeps for backward, per micro-batch of `mbs`
 * sequences of `seq_local` tokens (the sequence share of one context-parallel rank), with
 * tensor parallelism tp, sequence parallelism on/off and a recompute policy. Korthikanti et
 * al. 2022 Table 2, generalised to GQA, gated MLPs and flash attention (docs/model.md §3.2):
 *   no recompute, no TP:  s·b·h·(34 + 5·a·s/h)  (GPT, MHA, 4h GELU MLP, dropout, unfused)
 *   TP + SP:              s·b·h·(34 + 5·a·s/h)/t;   TP without SP: s·b·h·(10 + 24/t + 5as/(ht))
 *   selective:            the 5as/h term is dropped;  full: 2·s·b·h (/t with SP). */
GPUECON_API double gpuecon_layer_activation_bytes(const gpuecon_model *m, int layer, int seq_local,
                                                  int mbs, int tp, bool sp, gpuecon_recompute r,
                                                  gpuecon_attn_impl impl, bool dropout);
/* Bytes per parameter of weights, gradients and Adam states, with ZeRO stage `zero` (0-3)
 * sharding over `shards` ranks (data × context parallel): weights 2 (+1 FP8 copy), fp32
 * gradients 4, fp32 master + m + v 12. */
typedef struct gpuecon_param_bytes {
    double weights, grads, optimizer, fp8_copy;
} gpuecon_param_bytes;
GPUECON_API void gpuecon_param_bytes_per_param(int zero, int shards, gpuecon_precision p,
                                               gpuecon_param_bytes *out);
/* Micro-batches whose activations the first pipeline stage holds at peak: min(m, p) for
 * 1F1B, times (1 + (p-1)/(p·v)) with v > 1 virtual stages (Korthikanti et al. §4.2.3). */
GPUECON_API double gpuecon_inflight_microbatches(int pp, int vpp, int microbatches);
/* Allocator and workspace reserve kept free on every GPU (CUDA context, cuBLAS and NCCL
 * workspaces, caching-allocator fragmentation), bytes; docs/model.md §3.2. */
GPUECON_API double gpuecon_memory_reserve_bytes(const gpuecon_gpu *gpu);

/* ---- the training step (src/core/train.c) and the search (src/core/search.c) ---- */

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
    /* framework behaviour (defaults from gpuecon_train_request_init: modern Megatron/NeMo) */
    bool sequence_parallel;   /* SP with TP > 1 (Korthikanti et al.); default true */
    bool dp_overlap;          /* DP gradient reduce and parameter gather overlapped; default true */
    bool dropout;             /* dropout masks kept (GPT-3 style); default false */
    int grad_reduce_bytes;    /* bytes per gradient in the DP reduction; 0: 4 (fp32) for bf16,
                                 2 for fp8/fp4, as the NeMo recipes do */
    gpuecon_attn_impl attn_impl; /* default flash */
    const gpuecon_efficiency *eff; /* NULL: gpuecon_efficiency_for(system->gpu) */
} gpuecon_train_request;

/* Fills every searchable field with GPUECON_SEARCH and the framework defaults above; the
 * caller then sets model, system, gpus, precision, seq, gbs and any fixed sizes. */
GPUECON_API void gpuecon_train_request_init(gpuecon_train_request *req);

typedef struct gpuecon_parallel {
    int tp, pp, vpp, cp, ep, dp, mbs;
    int microbatches;         /* per step per data-parallel rank: gbs / (dp · mbs) */
    gpuecon_recompute recompute;
    int zero;
    bool tp_overlap;
    bool sequence_parallel;
} gpuecon_parallel;

/* Step time split; the parts add up to step_time_s. Communication is the exposed part only. */
typedef struct gpuecon_train_breakdown {
    double compute_s;     /* GEMMs, attention, elementwise, recompute of all micro-batches */
    double tp_comm_s;     /* tensor-parallel collectives not hidden behind GEMMs */
    double cp_comm_s;     /* context-parallel ring exchange not hidden behind attention */
    double ep_comm_s;     /* expert-parallel all-to-all (issue 4; 0 for dense models) */
    double pp_bubble_s;   /* pipeline fill and drain: (p-1)/v of a micro-batch's stage time */
    double pp_comm_s;     /* pipeline point-to-point transfers on the critical path */
    double dp_comm_s;     /* data-parallel gradient reduce / parameter gather not hidden */
    double optimizer_s;   /* Adam step over the local parameter shard */
    double straggler_s;   /* the slowest of the job's GPUs: compute x speed_cv x E[max of N] */
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
} gpuecon_train_memory;

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
    int stage_layers_first, stage_layers_max, stage_layers_last; /* transformer layers */
} gpuecon_train_result;

/* Predicts one training step. Sizes left to search are searched (gpuecon_train_search with
 * top 1, objective throughput) and the best configuration is returned.
 * Errors: GPUECON_E_INPUT for impossible sizes, naming the constraint ("--tp: 3 does not
 * divide the 96 attention heads", "--pp: 200 is above the 126 layers", product of sizes not
 * equal to gpus, gbs not divisible by dp·mbs, ...); GPUECON_E_INFEASIBLE when nothing fits
 * in memory: *out then holds the configuration with the smallest overflow (fits = false,
 * mem.overflow_term and mem.overflow_gib say why) and err names that overflow. */
GPUECON_API int gpuecon_train_predict(gpuecon_ctx *ctx, const gpuecon_train_request *req,
                                      gpuecon_train_result *out, gpuecon_error *err);

typedef enum gpuecon_objective {
    GPUECON_OBJECTIVE_THROUGHPUT, /* tokens/s/GPU, highest first */
    GPUECON_OBJECTIVE_COST        /* $ per 1M tokens, lowest first (needs usd_per_gpu_hour) */
} gpuecon_objective;

typedef struct gpuecon_search_options {
    int top_k;                 /* configurations kept (1 .. 10000); 0 = 10 */
    gpuecon_objective objective;
    double usd_per_gpu_hour;   /* for GPUECON_OBJECTIVE_COST and usd_per_mtok in results */
    int shard_index, shard_count; /* evaluate shard k of n (0 <= k < n); 0/0 = everything */
} gpuecon_search_options;

typedef struct gpuecon_search_result {
    gpuecon_train_result *best; /* n_best entries, best first; owned by the result */
    size_t n_best;
    double *usd_per_mtok;       /* parallel to best; 0 when no price was given */
    uint64_t configs_evaluated; /* every configuration considered (memory-checked) */
    uint64_t configs_feasible;  /* those that fit in memory (and were timed) */
    double elapsed_s;           /* left 0 by the library (it reads no clock); the CLI sets it */
    bool have_overflow;         /* nothing fit: least_overflow holds the nearest miss */
    gpuecon_train_result least_overflow;
    gpuecon_ctx *ctx_;          /* private: for gpuecon_search_result_free */
} gpuecon_search_result;

/* Ranks every configuration of the space (tp, pp, vpp, cp, dp, mbs, recompute, zero,
 * tp_overlap; fixed sizes in req restrict it) by the objective. Memory is checked first and
 * configurations that do not fit are not timed. Runs on ctx's threads (OpenMP); the result is
 * identical for any thread count and shards merge exactly. The caller owns *out and releases
 * it with gpuecon_search_result_free. Errors as gpuecon_train_predict, except that an empty
 * feasible set is not an error here (n_best = 0, have_overflow = true). */
GPUECON_API int gpuecon_train_search(gpuecon_ctx *ctx, const gpuecon_train_request *req,
                                     const gpuecon_search_options *opt, gpuecon_search_result *out,
                                     gpuecon_error *err);
GPUECON_API void gpuecon_search_result_free(gpuecon_search_result *r);

/* ---- validation against published runs (src/core/validate.c) ---- */
typedef struct gpuecon_validate_row {
    char id[24];            /* A01..A10, A26.., V001..V109 (vTrain rows), S3/S4 */
    char group[16];         /* narayanan | dgxc | vtrain | seed */
    char what[96];          /* model, GPUs, precision */
    char config[64];        /* TP/PP/VP/CP/DP/MBS */
    char source[160];
    double published;       /* tokens/s/GPU as published or derived from the publication */
    double predicted;
    double rel_err;         /* predicted/published - 1 */
    bool fitted_on;         /* used to fit the efficiency parameters */
    bool fits;              /* the model's memory check for the published configuration */
} gpuecon_validate_row;

typedef struct gpuecon_validate_summary {
    size_t n;
    double median_abs_err, max_abs_err, mean_abs_err;
    char worst_id[24];
} gpuecon_validate_summary;

/* Predicts every calibration case with a known configuration (docs/model.md §3.6) and
 * compares with the published throughput. eff_table (n_eff rows; NULL: built-in) replaces
 * the efficiency row of each matching arch — the fitting tool (bench/fit_train.c) uses it.
 * Writes up to cap rows (GPUECON_VALIDATE_MAX is enough), sets *n; the summary covers every
 * row written (sum_fit: the rows fitted on; either may be NULL). */
#define GPUECON_VALIDATE_MAX 160
GPUECON_API int gpuecon_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                 const gpuecon_efficiency *eff_table, size_t n_eff,
                                 gpuecon_validate_row *rows, size_t cap, size_t *n,
                                 gpuecon_validate_summary *sum, gpuecon_validate_summary *sum_fit,
                                 gpuecon_error *err);


/* ==== reliability and goodput (issue 5) ============================================== */

/* One operator tier's reliability inputs for one system (data/reliability.yaml). */
typedef struct gpuecon_reliability {
    const char *name;     /* "<system>/<tier>", e.g. "hgx-h100/typical" */
    const char *system;
    const char *tier;     /* best | typical | poor */
    double mtbi_gpu_days; /* mean time between job interruptions per active GPU */
    const gpuecon_source *src;
} gpuecon_reliability;

GPUECON_API const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat,
                                                                   const char *name);

/* ==== serving and fine-tuning (issue 6) ============================================== */

/* ==== compare, break-even, sensitivity (issue 7) ===================================== */

#ifdef __cplusplus
}
#endif
#endif /* GPUECON_H */
