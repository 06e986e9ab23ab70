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

/* ==== reliability and goodput (issue 5) ============================================== */
/*
 * A synchronous training job on G active GPUs occupies K whole NVLink domains (D GPUs each,
 * A = D − spares_per_domain of them active) plus a pool of S whole spare domains. Failures
 * come in classes; each class is a share of the job's interruptions at the tier's MTBI and
 * has a blast radius and a repair time (MTTR). The analytic model (reliability.c) gives the
 * effective training time ratio (ETTR) in closed form; the Monte Carlo (sim.c) simulates
 * the job exactly and is the reference where the closed forms approximate.
 * Formulas and sources: docs/model.md §5 and reference/reliability-tco.md §3–4.
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

GPUECON_API const char *gpuecon_fclass_name(gpuecon_fclass c); /* "gpu", "host", ... */
GPUECON_API const char *gpuecon_blast_name(gpuecon_blast b);   /* "node", "domain", "job" */

typedef struct gpuecon_fclass_params {
    double share;      /* fraction of the tier's interruptions (per active GPU at MTBI) */
    int blast;         /* gpuecon_blast */
    double mttr_min_h; /* repair time of the failed unit, uniform in [min, max] hours */
    double mttr_max_h;
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

GPUECON_API const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat,
                                                                   const char *name);

typedef enum gpuecon_goodput_form {
    GPUECON_FORM_G2, /* exact renewal (Daly 2006) with waiting: recommended, the default */
    GPUECON_FORM_G1, /* first-order, Meta/Kokolis et al. 2024 */
    GPUECON_FORM_G3  /* additive, SemiAnalysis-style: 1 − Λ·t_loss − δ/τ */
} gpuecon_goodput_form;

typedef enum gpuecon_spare_cost {
    GPUECON_SPARES_CHARGED, /* spare GPUs are paid by the job (S10 "with spare cost") */
    GPUECON_SPARES_FREE     /* spare GPUs earn other work (S10 "without spare cost") */
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
    double provisioned_multiplier; /* Π = provisioned / active */
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

/* Monte Carlo summary. Quantiles come from a fixed 65,536-bin histogram of ETTR on [0, 1]
 * (nearest rank, bin centre: resolution 1/65,536), so memory does not grow with trials. */
typedef struct gpuecon_reliability_mc {
    int trials;
    double ettr_mean, ettr_sd, ettr_ci95; /* ci95 = 1.96·sd/√trials */
    double ettr_p10, ettr_p50, ettr_p90;
    double days_mean, days_p10, days_p50, days_p90; /* days to train; NaN without a budget */
    int unfinished;                /* trials that had not trained the budget at 50× its time */
    double interruptions_per_day;  /* observed (faults during detection/wait are absorbed) */
    double wait_h_per_day;
    gpuecon_lost_time lost;        /* means over trials */
    double events;                 /* failures, repairs and job transitions processed */
    double checkpoints;            /* committed, all trials */
    double quantile_resolution;
    uint64_t seed;
    int threads;
} gpuecon_reliability_mc;

/* Fills req from a system and one of its tiers (tier->system should name sys) for a job of
 * active_gpus GPUs: every failure class, time, checkpoint and spare default of the tier;
 * duration 30 days, exponential lifetimes, form G2, spares charged, 1,000 trials.
 * GPUECON_E_INPUT when sys or tier is NULL. */
GPUECON_API int gpuecon_reliability_request_init(gpuecon_reliability_request *req,
                                                 const gpuecon_system *sys,
                                                 const gpuecon_reliability *tier, int active_gpus,
                                                 gpuecon_error *err);

/* Closed-form goodput of the request (docs/model.md §5). Pure and fast (microseconds): fit
 * for root finding. GPUECON_E_INPUT names the offending option ("--detect-s", ...) and the
 * allowed range: non-positive MTBI, shares not summing to 1, an interval shorter than the
 * write time, more spares than a domain holds, GPU counts outside 1 to 10,000,000. */
GPUECON_API int gpuecon_reliability_analytic(const gpuecon_reliability_request *req,
                                             gpuecon_reliability_result *out, gpuecon_error *err);

/* Discrete-event Monte Carlo of the whole job, req->trials independent trials. Trial i uses
 * xoshiro256** seeded by splitmix64 from (ctx seed, i); trials run on OpenMP threads
 * (ctx threads; 0: default) and the result is bit-identical for any thread count. Calls
 * ctx's progress callback (done, total in trials) from the calling thread; a non-zero
 * return stops it with GPUECON_E_CANCELED. Memory is bounded by the topology and the
 * thread count, never the trial count. Errors as gpuecon_reliability_analytic, plus
 * GPUECON_E_NOMEM. */
GPUECON_API int gpuecon_reliability_simulate(gpuecon_ctx *ctx, const gpuecon_reliability_request *req,
                                             gpuecon_reliability_mc *out, gpuecon_error *err);

/* Effective $ per million tokens from a raw one (at 100% goodput): raw·Π/ETTR when spares
 * are charged to the job, raw/ETTR when they earn other work (reliability-tco.md §3.6, S10).
 * Π = provisioned_gpus/active_gpus ≥ 1. GPUECON_E_INPUT for ettr outside (0, 1], raw < 0,
 * or provisioned < active. */
GPUECON_API int gpuecon_effective_usd_per_mtok(double raw_usd_per_mtok, double ettr,
                                               double provisioned_gpus, double active_gpus,
                                               double *with_spares, double *without_spares,
                                               gpuecon_error *err);

/* Checkpoint intervals for a blocking write of write_s seconds and a job MTTI of mtti_s:
 * Young (1974) sqrt(2·δ·M); Daly (2006) sqrt(2δM)·[1 + √(δ/2M)/3 + (δ/2M)/9] − δ for δ < 2M,
 * else M. Both 0 when write_s is 0. */
GPUECON_API double gpuecon_young_interval_s(double write_s, double mtti_s);
GPUECON_API double gpuecon_daly_interval_s(double write_s, double mtti_s);
/* P[Poisson(rho) > s]: the probability that more than s units are down at once. */
GPUECON_API double gpuecon_poisson_tail(double rho, int s);
/* Mean busy period of an M/G/∞ queue with arrival rate `rate` and mean service `mean_s`:
 * (e^{rate·mean} − 1)/rate (→ mean_s as rate → 0): how long a job without spares waits
 * until none of its units is in repair (reliability-tco.md §3.4). */
GPUECON_API double gpuecon_busy_period_s(double rate_per_s, double mean_s);

/* ==== serving and fine-tuning (issue 6) ============================================== */

/* ==== compare, break-even, sensitivity (issue 7) ===================================== */

#ifdef __cplusplus
}
#endif
#endif /* GPUECON_H */
