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
 * column are 1-based (0 when not applicable). Both texts are well-formed UTF-8, ready for JSON. */
typedef struct gpuecon_error {
    int code;
    char where[256];
    int line, column;
    char message[512];
} gpuecon_error;

GPUECON_API const char *gpuecon_status_name(int code);
GPUECON_API void gpuecon_error_clear(gpuecon_error *err);
/* Makes err->where and err->message well-formed UTF-8 in place: a character cut at the end is
 * dropped, each other byte of a malformed sequence becomes '?'. The library's records already
 * are; a front end that fills one itself (a parser's message may quote input bytes, a full
 * buffer may cut a character) calls this before the text goes into JSON. */
GPUECON_API void gpuecon_error_scrub(gpuecon_error *err);

/* ==== context ======================================================================= */

typedef struct gpuecon_ctx gpuecon_ctx;
typedef struct gpuecon_memo gpuecon_memo;
typedef struct gpuecon_catalog gpuecon_catalog;

/* Lua-style allocator: nsize == 0 frees ptr and returns NULL; otherwise (re)allocates. */
typedef void *(*gpuecon_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* Progress: return non-zero to cancel the running computation (it then returns
 * GPUECON_E_CANCELED). `done` and `total` are in the computation's own units. */
typedef int (*gpuecon_progress_fn)(void *ud, double done, double total);
/* Monotonic seconds from the caller's clock (the library reads none): only differences
 * are used, for the elapsed times some commands report. */
typedef double (*gpuecon_clock_fn)(void *ud);

/* Mirrored field for field by python/gpuecon/__init__.py (_Config): add fields at the end, there too. */
typedef struct gpuecon_ctx_config {
    gpuecon_alloc_fn alloc;       /* NULL: malloc/realloc/free */
    void *alloc_ud;
    uint64_t seed;                /* base seed for every randomised computation */
    int threads;                  /* 0: OpenMP default; results never depend on it */
    gpuecon_progress_fn progress; /* may be NULL */
    void *progress_ud;
    size_t max_file_bytes;        /* 0: 4 MiB; larger input files are refused */
    gpuecon_clock_fn clock;       /* may be NULL: elapsed times are then reported as 0 */
    void *clock_ud;
    double max_work_s;            /* 0: 60. A computation whose estimated work is above this many
                                     CPU-seconds (docs/cli.md "Work budget") is refused up front
                                     with GPUECON_E_INPUT, naming the estimate */
    gpuecon_memo *memo;           /* NULL: none; else training predictions are stored and reused
                                     (gpuecon_memo_new); not owned by the context */
    const gpuecon_catalog *catalog; /* NULL: each request loads the built-in catalog (plus its
                                     "catalog" and "model_file" options); else requests use this
                                     one, read-only, and refuse those options (gpuecon serve) */
} gpuecon_ctx_config;

/* The default work budget, estimated CPU-seconds (about a minute of one core). */
#define GPUECON_DEFAULT_MAX_WORK_S 60.0

/* Returns NULL only when memory is exhausted. cfg may be NULL (all defaults). */
GPUECON_API gpuecon_ctx *gpuecon_ctx_new(const gpuecon_ctx_config *cfg);
GPUECON_API void gpuecon_ctx_free(gpuecon_ctx *ctx);
GPUECON_API const gpuecon_ctx_config *gpuecon_ctx_get_config(const gpuecon_ctx *ctx);
/* Sets the work budget (max_work_s above) of an existing context; 0 restores the default.
 * Not thread-safe against a computation running on ctx. */
GPUECON_API void gpuecon_ctx_set_max_work(gpuecon_ctx *ctx, double seconds);

/* A store of training-step predictions that contexts share through their config's `memo`:
 * gpuecon_train_predict (and so gpuecon_compare) hands back a stored answer for a request equal
 * in every field — the same bits the search would find again — instead of searching. For a
 * front end that re-runs compare as one input moves (gpuecon serve's what-if controls).
 * Thread-safe. Requests name catalog entries by pointer: use one memo with one catalog, and free
 * the memo before the catalog. Holds `capacity` answers (0: 256), the oldest replaced first;
 * cancelled and out-of-memory answers are not stored. Allocates with ctx's allocator (ctx need
 * not outlive the memo). Returns NULL when memory is exhausted. */
GPUECON_API gpuecon_memo *gpuecon_memo_new(gpuecon_ctx *ctx, size_t capacity);
GPUECON_API void gpuecon_memo_free(gpuecon_memo *m);
/* Lookups answered from the store and lookups that were not, since gpuecon_memo_new. */
GPUECON_API void gpuecon_memo_stats(gpuecon_memo *m, size_t *hits, size_t *misses);

/* ==== provenance ==================================================================== */

typedef enum gpuecon_stage {
    GPUECON_STAGE_DATASHEET,
    GPUECON_STAGE_MEASURED,
    GPUECON_STAGE_PUBLISHER_REPORTED,
    GPUECON_STAGE_PROJECTION,
    GPUECON_STAGE_ASSUMPTION,
    GPUECON_STAGE_DERIVED, /* arithmetic on other sourced numbers */
    GPUECON_STAGE_FITTED,  /* fitted on the calibration runs (gpuecon validate) */
    GPUECON_STAGE_USER_INPUT, /* given by the user for this run (e.g. --usd-per-gpu-hour) */
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
    double host_link_gbps;      /* CPU-GPU link per GPU per direction, GB/s, as achievable for
                                   activation offload (NVLink-C2C and LPDDR share on Grace, PCIe
                                   on x86); 0: unknown, offload refused */
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
    GPUECON_KIND_STACK,
    GPUECON_KIND_TIMELINE,
    GPUECON_KIND_COUNT
} gpuecon_kind;

/* "gpus", "systems", "profiles", "models", "reliability", "stacks", "timelines": the file stem and
 * the YAML key. */
GPUECON_API const char *gpuecon_kind_name(gpuecon_kind kind);

/* Creates a catalog holding the built-in default (compiled into the library). */
GPUECON_API int gpuecon_catalog_new(gpuecon_ctx *ctx, gpuecon_catalog **out, gpuecon_error *err);
GPUECON_API void gpuecon_catalog_free(gpuecon_catalog *cat);

/* Loads any of gpus.yaml systems.yaml profiles.yaml models.yaml reliability.yaml stacks.yaml
 * timelines.yaml found in dir; their entries add to or replace (by name) the ones already loaded. Errors name
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
typedef struct gpuecon_stack gpuecon_stack;
GPUECON_API const gpuecon_stack *gpuecon_catalog_stack(const gpuecon_catalog *cat, const char *name);

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
    bool choice;        /* TEXT that is one of a fixed set of names (a stack's grad_reduce, a
                           dispatcher): a fact with its own source, not a name or reference */
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
    double usd_per_gpu_hour;       /* the one used: the user's price, else published, else derived */
    bool uses_published;
    double pue;                    /* PUE used in the power term */
    double it_w_per_gpu;
    bool user_price;               /* usd_per_gpu_hour is the caller's (gpuecon_tco_price) */
} gpuecon_tco;

/* Capital recovery factor r/(1−(1+r)^−L) (1/L when r = 0). */
GPUECON_API double gpuecon_crf(double rate, double life_years);
/* TCO per GPU-hour of system s under profile p.
 * pue_override > 0 replaces the profile's PUE. */
GPUECON_API int gpuecon_tco_compute(const gpuecon_profile *p, const gpuecon_system *s,
                                    double pue_override, gpuecon_tco *out, gpuecon_error *err);
/* The price of a GPU-hour: gpuecon_tco_compute's TCO, unless usd_per_gpu_hour > 0 — the
 * caller's own rate (a rental or negotiated price, --usd-per-gpu-hour) — which then is the
 * one used (user_price true, uses_published false); the profile's terms stay alongside for
 * reference, and p may then be NULL (terms 0). usd_per_gpu_hour must be at most 1000. */
GPUECON_API int gpuecon_tco_price(const gpuecon_profile *p, const gpuecon_system *s, double pue_override,
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
GPUECON_API int gpuecon_cost_compute(double usd_per_gpu_hour, double it_w_per_gpu, double pue,
                                     double tokens_per_s_per_gpu, double tokens,
                                     gpuecon_cost *out, gpuecon_error *err);

/* ==== reproduction of the published figures (src/core/reproduce.c) ==================== */

typedef struct gpuecon_repro_row {
    char id[24];          /* the set of figures: tco, gpt3-175b-h100, deepseek-v3, ... */
    char source[96];      /* the publication (docs/sources.md) */
    char what[200];
    double published, computed;
    double rel_err;       /* computed/published − 1 */
    double tolerance;     /* relative; the row is ok when |rel_err| <= tolerance */
    bool consistent;      /* false: the source contradicts itself here (see note) */
    bool ok;
    char note[240];
} gpuecon_repro_row;

/* Recomputes every arithmetic figure of SemiAnalysis's "H100 vs GB200 NVL72 Training
 * Benchmarks" (20 Aug 2025; docs/sources.md) from the catalog.
 * Writes up to cap rows and sets *n to the number written. */
GPUECON_API int gpuecon_reproduce(const gpuecon_catalog *cat, gpuecon_repro_row *rows, size_t cap,
                                  size_t *n, gpuecon_error *err);

/* ==== collectives and training (src/core/comm.c memory.c train.c moe.c search.c) ========= */

/* ---- collectives on a two-level topology (src/core/comm.c) ----
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
    double a2a_scaleout_eff; /* achievable all-to-all bandwidth per NIC / scaleout_gbps: many
                                concurrent peer flows on a fat tree (docs/model.md §4.1);
                                0 = scaleout_eff */
} gpuecon_link_model;

GPUECON_API void gpuecon_link_model_for(const gpuecon_system *s, gpuecon_link_model *out);

/* Time of one collective of `bytes` (nccl-tests size S, above) over a group of `gpus` ranks
 * spaced `stride` ranks apart (stride >= 1; the group must fit in the numbering, i.e. it is
 * the group of ranks r, r+stride, ...). For send-recv, gpus must be 2 and the peer is
 * `stride` ranks away. `algo` TREE is an all-reduce algorithm (across domains; inside one domain
 * it is timed as the ring); `result.algo` is RING for every other op (all-to-all and send-recv
 * are point to point; `gpuecon comm` shows them as p2p). Errors: GPUECON_E_INPUT for gpus < 1, stride < 1, bytes < 0 or not
 * finite, a system without bandwidths, TREE for an op other than all-reduce. */
GPUECON_API int gpuecon_collective(const gpuecon_system *s, gpuecon_coll_op op, int gpus, int stride,
                                   double bytes, gpuecon_coll_algo algo, gpuecon_coll_result *out,
                                   gpuecon_error *err);
/* The same with explicit link efficiencies (NULL: gpuecon_link_model_for). */
GPUECON_API int gpuecon_collective_ex(const gpuecon_system *s, const gpuecon_link_model *lm,
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
GPUECON_API const char *gpuecon_fp8_recipe_name(gpuecon_fp8_recipe r);

/* Mixture-of-experts token dispatchers (docs/model.md §4.9). */
typedef enum gpuecon_dispatcher {
    GPUECON_DISPATCH_SEARCH = -1, /* training requests only: the search tries every dispatcher
                                     the stack offers (a stack with flex_dispatcher) */
    GPUECON_DISPATCH_NCCL_A2A, /* NCCL all-to-all: top_k copies of each token, permute before */
    GPUECON_DISPATCH_DEEPEP,   /* DeepEP: one copy per destination node, NVLink forwarding */
    GPUECON_DISPATCH_HYBRIDEP  /* HybridEP: as DeepEP, TMA/IBGDA, native multi-node NVLink */
} gpuecon_dispatcher;
GPUECON_API const char *gpuecon_dispatcher_name(gpuecon_dispatcher d);

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
GPUECON_API void gpuecon_graph_scope_name(int scope, char *buf, size_t cap);

/* ---- mixture-of-experts dispatch (src/core/dispatch.c; docs/model.md §4.9) ----
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
GPUECON_API int gpuecon_moe_dispatch(const gpuecon_system *s, const gpuecon_link_model *lm,
                                     const gpuecon_dispatch_request *q, gpuecon_dispatch_result *out,
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
GPUECON_API const gpuecon_efficiency *gpuecon_efficiency_for(const gpuecon_gpu *gpu);
/* Every built-in row, for documentation and `gpuecon validate`. */
GPUECON_API const gpuecon_efficiency *gpuecon_efficiency_table(size_t *n);

/* ---- memory per GPU (src/core/memory.c) ----
 * Small functions, reusable (fine-tuning). Bytes, not GiB. */
typedef enum gpuecon_recompute {
    GPUECON_RECOMPUTE_NONE,
    GPUECON_RECOMPUTE_SELECTIVE, /* attention core (Korthikanti et al. 2022 §4.1) */
    GPUECON_RECOMPUTE_FULL       /* every layer from its input ("uniform", 1 layer) */
} gpuecon_recompute;

typedef enum gpuecon_attn_impl {
    GPUECON_ATTN_IMPL_FLASH,     /* fused flash-style kernel: no s×s scores in memory */
    GPUECON_ATTN_IMPL_UNFUSED    /* QK^T, softmax, dropout, AV as separate kernels (2021) */
} gpuecon_attn_impl;

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
    int workload;             /* 0 train (train, search, compare, rl), 1 finetune */
    double host_launch_us;    /* host time to launch one kernel (eager PyTorch op), µs */
    bool compiled;            /* torch.compile: elementwise chains fused into single kernels */
    int fp8_linear;           /* FP8 linears: 0 none (bf16 only), 1 naive casts, 2 Transformer Engine */
    int precision;            /* linear precision when none is asked: 0 bf16, 1 fp8 */
    const gpuecon_source *src;
};

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
/* The same as the recipes have it (Megatron-LM docs/user-guide/features/dist_optimizer.md;
 * docs/model.md §3.2): grads of grad_bytes (4: grad_reduce_in_fp32, 2: BF16), Adam m and v of
 * state_bytes each (4, or 2 with the precision-aware optimizer) beside the fp32 master;
 * fp8_param: FP8-only weights (1 B, no BF16 copy); transpose: Hopper keeps a column-wise FP8
 * copy too (+1 B), Blackwell reads column-wise natively. */
GPUECON_API void gpuecon_param_bytes_ex(int zero, int shards, gpuecon_precision p, int grad_bytes,
                                        int state_bytes, bool fp8_param, bool transpose,
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
    const gpuecon_efficiency *eff; /* NULL: gpuecon_efficiency_for(system->gpu) */
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
} gpuecon_train_request;

/* Copies a stack's framework facts into a request (overlaps, SP, attention, dropout, CUDA
 * graphs, gradient precision, FP8-only weights, optimizer states, FP8 recipe, dispatcher —
 * GPUECON_DISPATCH_SEARCH when the stack has the flex dispatcher);
 * tp_overlap and a2a_overlap become GPUECON_SEARCH where the stack has the overlap, 0 where
 * it lacks it. Sets req->stack. The caller applies single options afterwards. */
GPUECON_API void gpuecon_train_request_apply_stack(gpuecon_train_request *req, const gpuecon_stack *stack);

/* Fills every searchable field with GPUECON_SEARCH and the framework defaults above; the
 * caller then sets model, system, gpus, precision, seq, gbs and any fixed sizes. */
GPUECON_API void gpuecon_train_request_init(gpuecon_train_request *req);

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
GPUECON_API const char *gpuecon_parallel_recompute_name(const gpuecon_parallel *p);

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
    bool exhaustive;           /* time every configuration that fits; default false: skip the
                                  blocks whose lower bound cannot enter the top k (docs/model.md §4,
                                  docs/model.md §3.5) */
} gpuecon_search_options;

typedef struct gpuecon_search_result {
    gpuecon_train_result *best; /* n_best entries, best first; owned by the result */
    size_t n_best;
    double *usd_per_mtok;       /* parallel to best; 0 when no price was given */
    uint64_t configs_evaluated; /* every configuration considered (memory-checked) */
    uint64_t configs_feasible;  /* those that fit in memory (and were timed) */
    uint64_t configs_pruned;    /* skipped unevaluated: an optimistic bound on their throughput
                                   ranked them below the top k of their (tp, cp, pp) item */
    double elapsed_s;           /* left 0 by the library (it reads no clock); the CLI sets it */
    bool have_overflow;         /* nothing fit: least_overflow holds the nearest miss */
    gpuecon_train_result least_overflow;
} gpuecon_search_result;

/* Ranks every configuration of the space (tp, pp, vpp, cp, dp, mbs, recompute, zero,
 * tp_overlap; for MoE models also ep, etp, a2a_overlap and, with recompute searched and
 * recompute_moe false, selective recompute with the MoE blocks where selective alone does not
 * fit; fixed sizes in req restrict it) by
 * the objective. Memory is checked first and configurations that do not fit are not timed;
 * unless opt->exhaustive, blocks whose optimistic bound cannot enter the top k are skipped
 * (configs_pruned), which leaves the ranking unchanged. Runs on ctx's threads (OpenMP); the result is
 * identical for any thread count and shards merge exactly. The caller owns *out and releases
 * it with gpuecon_search_result_free (once: a copy of the struct shares its arrays). Errors as gpuecon_train_predict, except that an empty
 * feasible set is not an error here (n_best = 0, have_overflow = true). */
GPUECON_API int gpuecon_train_search(gpuecon_ctx *ctx, const gpuecon_train_request *req,
                                     const gpuecon_search_options *opt, gpuecon_search_result *out,
                                     gpuecon_error *err);
GPUECON_API void gpuecon_search_result_free(gpuecon_search_result *r);

/* ---- validation against published runs (src/core/validate.c) ---- */
typedef struct gpuecon_validate_row {
    char id[24];            /* A01..A10, A26.., V001..V109 (vTrain rows), L405-H100-N, L70-H100-N, L405-GB200-N, MTNLG-N, MoE */
    char group[16];         /* narayanan | dgxc | vtrain | seed | heldout | moe */
    char what[96];          /* model, GPUs, precision */
    char config[64];        /* TP/PP/VP/CP/DP/MBS */
    char source[160];
    double published;       /* tokens/s/GPU as published or derived from the publication */
    double predicted;
    double rel_err;         /* predicted/published - 1 */
    bool fitted_on;         /* used to fit the efficiency parameters */
    bool fits;              /* the model's memory check for the published configuration */
    char cls[40];           /* generation x precision x dense/moe: "hopper-fp8-dense" */
    char note[200];         /* a model-independent inconsistency of the published figure, if any */
    char metric[40];        /* serving rows: what published/predicted measure ("saturated output
                               tok/s", "TPOT ms at 512", ...); empty: tokens/s/GPU (training) */
} gpuecon_validate_row;

typedef struct gpuecon_validate_summary {
    size_t n;
    double median_abs_err, max_abs_err, mean_abs_err;
    char worst_id[24];
} gpuecon_validate_summary;

/* Predicts every calibration case with a known configuration (docs/model.md §3.6, and the
 * mixture-of-experts runs of §4.5, group "moe") and compares with the published throughput.
 * eff_table (n_eff rows; NULL: built-in) replaces the efficiency row of each matching arch —
 * the fitting tool (bench/fit_train.c) uses it. Writes up to cap rows (GPUECON_VALIDATE_MAX is
 * enough), sets *n; the summary covers every dense row written (the dense accuracy targets)
 * (sum_fit: the rows fitted on; either may be NULL); gpuecon_validate_summarize gives others. */
#define GPUECON_VALIDATE_MAX 256
GPUECON_API int gpuecon_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                 const gpuecon_efficiency *eff_table, size_t n_eff,
                                 gpuecon_validate_row *rows, size_t cap, size_t *n,
                                 gpuecon_validate_summary *sum, gpuecon_validate_summary *sum_fit,
                                 gpuecon_error *err);
/* Which rows a summary covers, by their fitted_on flag. */
typedef enum gpuecon_validate_fit {
    GPUECON_ROWS_ALL,
    GPUECON_ROWS_FITTED,  /* the calibration set: rows the efficiencies were fitted on */
    GPUECON_ROWS_HELD_OUT /* rows never fitted on */
} gpuecon_validate_fit;
/* Summary of the rows of `group` (every row when NULL), or of every row but that group when
 * exclude is true, restricted to the rows `fit` selects. */
GPUECON_API void gpuecon_validate_summarize(const gpuecon_validate_row *rows, size_t n, const char *group,
                                            bool exclude, gpuecon_validate_fit fit,
                                            gpuecon_validate_summary *out);
/* The serving model (docs/model.md §6) against published serving figures (group "serving",
 * class "serving-<generation>-<precision>-dense"): TensorRT-LLM's max-throughput table for
 * Llama 3.1 8B FP8 on H100/H200 (held out) and the VESSL AI blog's serving figures (fitted_on where
 * a serving profile was fitted on them). Each row's published and predicted values are in the
 * unit its metric names; rel_err = predicted/published - 1. Writes up to cap rows
 * (GPUECON_VALIDATE_SERVING_MAX is enough) and sets *n. Errors: GPUECON_E_INPUT (NULL
 * arguments), GPUECON_E_NOTFOUND (a catalog without the models or systems it uses). */
#define GPUECON_VALIDATE_SERVING_MAX 96
GPUECON_API int gpuecon_validate_serving(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                                         size_t *n, gpuecon_error *err);
/* The fine-tuning model (docs/model.md §6.9) against the VESSL AI blog's LoRA training figures
 * (group "finetune", class "finetune-<generation>-<precision>"): throughputs and ratios of two
 * runs, each with its stack (fitted_on: the four rows eta_train and hf-peft-eager's host launch
 * time were fitted on). Writes up to cap rows (GPUECON_VALIDATE_FINETUNE_MAX is enough). Errors:
 * GPUECON_E_INPUT (NULL arguments, a catalog without gemma4-31b, the systems or the stacks). */
#define GPUECON_VALIDATE_FINETUNE_MAX 16
GPUECON_API int gpuecon_validate_finetune(const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                                          size_t *n, gpuecon_error *err);
/* Accuracy of one generation x precision x dense/moe group (row.cls). */
typedef struct gpuecon_validate_group {
    char name[32];
    size_t n;
    double median_abs_err, p90_abs_err, max_abs_err;
    double signed_median_err; /* median of predicted/published - 1: a systematic sign shows here */
} gpuecon_validate_group;
/* The groups of the rows `fit` selects, in the order they first appear (at most cap; returns
 * how many exist). Percentiles by linear interpolation between order statistics (P90 of n
 * sorted errors: e[0.9·(n−1)]). */
GPUECON_API size_t gpuecon_validate_groups(const gpuecon_validate_row *rows, size_t n, gpuecon_validate_fit fit,
                                           gpuecon_validate_group *out, size_t cap);
/* The q-quantile (0..1) of |rel_err| of the rows of `group` (a set name or a class, NULL: all)
 * that `fit` selects; 0 when none. */
GPUECON_API double gpuecon_validate_quantile(const gpuecon_validate_row *rows, size_t n, const char *group,
                                             gpuecon_validate_fit fit, double q);


/* ==== reliability and goodput (src/core/reliability.c sim.c) ============================= */
/*
 * A synchronous training job on G active GPUs occupies K whole NVLink domains (D GPUs each,
 * A = D − spares_per_domain of them active) plus a pool of S whole spare domains. Failures
 * come in classes; each class is a share of the job's interruptions at the tier's MTBI and
 * has a blast radius and a repair time (MTTR). The analytic model (reliability.c) gives the
 * effective training time ratio (ETTR) in closed form; the Monte Carlo (sim.c) simulates
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

GPUECON_API const char *gpuecon_fclass_name(gpuecon_fclass c); /* "gpu", "host", ... */
GPUECON_API const char *gpuecon_blast_name(gpuecon_blast b);   /* "node", "domain", "job" */

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

GPUECON_API const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat,
                                                                   const char *name);

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
 * are charged to the job, raw/ETTR when they earn other work (docs/model.md §5.6).
 * Π = provisioned_gpus/active_gpus ≥ 1 (pass the result's charged_gpus). GPUECON_E_INPUT for ettr outside (0, 1], raw < 0,
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
 * until none of its units is in repair. */
GPUECON_API double gpuecon_busy_period_s(double rate_per_s, double mean_s);

/* ==== serving and fine-tuning (src/core/infer.c finetune.c) ============================= */

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
} gpuecon_serving_profile;

GPUECON_API size_t gpuecon_serving_profile_count(void);
/* Profile i (NULL when out of range); static storage. */
GPUECON_API const gpuecon_serving_profile *gpuecon_serving_profile_at(size_t i);
/* Profile by name ("generic", "vessl-gemma4"), or NULL. */
GPUECON_API const gpuecon_serving_profile *gpuecon_serving_profile_find(const char *name);

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
                                       0: balanced) — its expert GEMMs and dispatch set the MoE layer */
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
GPUECON_API void gpuecon_infer_request_init(gpuecon_infer_request *r);

typedef enum gpuecon_binding {
    GPUECON_BIND_OFFERED_LOAD, /* fewer requests than the replica could run */
    GPUECON_BIND_KV_CAPACITY,  /* the KV cache holds no more sequences */
    GPUECON_BIND_MAX_NUM_SEQS, /* the engine's max_num_seqs */
    GPUECON_BIND_MAX_NUM_BATCHED_TOKENS /* the step's token budget carries the decode and
                                           steady-state prefill of no more sequences */
} gpuecon_binding;

GPUECON_API const char *gpuecon_binding_name(gpuecon_binding b);

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
    double usd_per_mtok;         /* output tokens; 0 without a TCO profile */
    double joules_per_token;
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
    bool startup_ok;                 /* vLLM's check at the model's own context */
    double startup_need_gib;         /* KV that check needs at the model's context */
    int max_model_len_fit;           /* largest max_model_len that passes it */
    /* performance at the requested concurrency (or at saturation) */
    gpuecon_infer_point at;
    double output_tokens_per_s, tpot_ms, ttft_ms; /* copies of at.* */
    double c_knee;               /* aggregate concurrency reaching 90% of saturated throughput */
    double saturated_tokens_per_s; /* X at C_sat */
    double ttft0_ms;             /* isolated prompt on an empty server (L4) */
    /* economics (zero without a TCO profile) */
    double usd_per_gpu_hour, usd_per_mtok, joules_per_token;
} gpuecon_infer_result;

/* Serving capacity, throughput and latency of one deployment (docs/model.md §6).
 * Errors: GPUECON_E_INPUT (bad value, TP that does not divide the heads under vLLM's
 * replication rule, a prompt longer than the model's context, acceptance outside [0, 1)),
 * GPUECON_E_INFEASIBLE (weights + reserves + one full-length request exceed the memory, or an
 * explicit max_model_len fails vLLM's startup check); *out then holds the memory figures and
 * shortfall_gb. */
GPUECON_API int gpuecon_infer(const gpuecon_infer_request *req, gpuecon_infer_result *out,
                              gpuecon_error *err);
/* The same deployment at n concurrencies (each > 0, all replicas together). */
GPUECON_API int gpuecon_infer_sweep(const gpuecon_infer_request *req, const double *concurrency,
                                    size_t n, gpuecon_infer_point *points, gpuecon_error *err);
/* A concurrency grid for a sweep: replicas × 1, 2, 4, ... up to past the saturation point.
 * Returns the number written (<= cap). */
GPUECON_API size_t gpuecon_infer_grid(const gpuecon_infer_result *r, double *out, size_t cap);

/* ---- request-level serving simulation (src/core/infer_sim.c; docs/model.md §6.11) ---- */

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
GPUECON_API void gpuecon_sim_request_init(gpuecon_sim_request *r);

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
GPUECON_API int gpuecon_infer_simulate(gpuecon_ctx *ctx, const gpuecon_sim_request *req,
                                       gpuecon_sim_result *out, gpuecon_error *err);
/* Reads a length histogram (src/io/lengths.c): lines "prompt output [weight]" (commas, spaces
 * or tabs; '#' comments; an optional header line). Errors name path:line:col: GPUECON_E_IO,
 * GPUECON_E_INPUT (a length that is not a whole number from 1 to 1e8, a weight <= 0, no bins).
 * Free with gpuecon_length_bins_free. */
GPUECON_API int gpuecon_length_bins_load(gpuecon_ctx *ctx, const char *path, gpuecon_length_bin **bins,
                                         size_t *n, gpuecon_error *err);
/* The same from len bytes at buf (no terminating NUL needed); errors name `name`:line:col. */
GPUECON_API int gpuecon_length_bins_load_buffer(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len,
                                                gpuecon_length_bin **bins, size_t *n, gpuecon_error *err);
GPUECON_API void gpuecon_length_bins_free(gpuecon_ctx *ctx, gpuecon_length_bin *bins, size_t n);

/* ---- serving configuration search (src/core/infer_search.c; docs/model.md §6.12) ---- */

typedef enum gpuecon_serve_objective {
    GPUECON_SERVE_THROUGHPUT, /* max output tokens/s per GPU */
    GPUECON_SERVE_COST        /* min $ per million output tokens (needs base.tco) */
} gpuecon_serve_objective;

#define GPUECON_SERVE_TOP 16
#define GPUECON_SERVE_FRONTIER 256
/* capacities (gpuecon_serve_config) this close, relatively, rank as equal */
#define GPUECON_SERVE_CAPACITY_TIE 0.01

typedef struct gpuecon_serve_search_request {
    gpuecon_infer_request base;  /* model, system, lengths, acceptance, profile, tco, LoRA */
    const int *gpus;             /* GPU counts to try; NULL/0: base.gpus */
    size_t ngpus;
    double ttft_ms, tpot_ms;     /* targets; 0: none */
    double slo_percentile;       /* where the simulator checks the targets (90) */
    double rate;                 /* requests/s to serve, all GPUs; 0: not given */
    double concurrency;          /* requests in the system; 0: the most the targets allow */
    gpuecon_serve_objective objective;
    int max_draft;               /* draft lengths 0..max_draft when base.acceptance > 0 */
    int confirm;                 /* best configurations re-checked by the simulator (3) */
    long sim_requests;           /* requests per confirmation (4000) */
    int top;                     /* entries of best[] (5, at most GPUECON_SERVE_TOP) */
} gpuecon_serve_search_request;

typedef struct gpuecon_serve_config {
    int gpus, tp, replicas, draft_k, max_num_seqs, max_num_batched_tokens;
    int long_prefill_token_threshold;  /* a prompt's tokens per step at most (0: none) */
    int pp;                            /* pipeline stages per replica (replicas = gpus / (tp·pp)) */
    gpuecon_precision weights, kv;
    bool expert_parallel;
    bool attention_dp;                 /* tp is then the expert-parallel group, replicas = gpus */
    double concurrency;                /* requests in the system at this operating point */
    double output_tokens_per_s;        /* all GPUs */
    double output_tokens_per_s_per_gpu;
    double tokens_per_s_per_user;      /* 1000 / TPOT */
    double ttft_ms, tpot_ms;           /* analytic (means), or simulated at the percentile */
    double usd_per_mtok;
    bool simulated;                    /* ttft_ms/tpot_ms come from the simulator */
    bool meets;                        /* the targets hold */
    bool keeps_up;                     /* at a rate: serves at least 95% of the offered tokens */
    double analytic_ttft_ms, analytic_tpot_ms;
    double e2e_ms;                     /* ttft_ms + (output_len - 1)·tpot_ms: one request's latency */
    /* tokens/s/GPU at the largest load whose mean TTFT and TPOT meet the targets, by the analytic
     * model (0: none does): the headroom. At a rate every configuration that keeps up serves the
     * same tokens, so this breaks the tie (docs/model.md §6.12). Filled for best[] (without a
     * rate or a concurrency it is the operating point itself); 0 in frontier[] and closest. */
    double capacity_tokens_per_s_per_gpu;
} gpuecon_serve_config;

typedef struct gpuecon_serve_search_result {
    gpuecon_serve_config best[GPUECON_SERVE_TOP]; /* ranked by the objective */
    int nbest;
    gpuecon_serve_config frontier[GPUECON_SERVE_FRONTIER]; /* tokens/s/GPU against tokens/s/user */
    int nfrontier;
    long configs_evaluated;
    bool feasible;
    gpuecon_serve_config closest;      /* when infeasible: the least relative miss */
    double miss_ttft_ms, miss_tpot_ms; /* by how much it misses (0 where it meets) */
} gpuecon_serve_search_result;

GPUECON_API void gpuecon_serve_search_request_init(gpuecon_serve_search_request *r);
/* Searches TP (divisors of each GPU count within the NVLink domain that split the heads), PP
 * (1, 2, 4, 8, 16 dividing gpus/TP, at most the model's layers; not with attention-DP),
 * weight precision (bf16, fp8, fp4 where the GPU has FP4), KV precision, draft length,
 * max_num_seqs (64..1024), max_num_batched_tokens (2048..16384) and, for MoE, expert
 * parallelism; replicas = gpus/TP. Each configuration is timed by the analytic model at its
 * operating point: the given concurrency; or the least concurrency that serves `rate`; or the
 * largest that meets the targets. The best `confirm` are re-run by the simulator (Poisson at
 * `rate`, or a closed loop at the concurrency) and ranked by what it finds at
 * slo_percentile. At a rate the objective is the offered load per GPU, or the price of a GPU
 * serving it (keeps_up: a configuration the simulator finds serving at least 95% of it): equal
 * on equal GPUs, the tie goes to
 * the higher capacity_tokens_per_s_per_gpu, and capacities within 1% to the lower e2e_ms;
 * configurations that differ only in engine limits that do not bind (outputs within 0.2%) are
 * listed once. GPUECON_E_INFEASIBLE when no configuration meets the targets (*out then
 * holds `closest` and the misses); GPUECON_E_INPUT for a target < 0, a percentile outside
 * (0, 100), a rate < 0, the cost objective without a TCO profile. */
GPUECON_API int gpuecon_infer_search(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req,
                                     gpuecon_serve_search_result *out, gpuecon_error *err);

/* ---- disaggregated prefill/decode (src/core/infer_disagg.c; docs/model.md §6.13) ----
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
    double decode_batch;           /* sequences per decode instance at the rate */
    double output_tokens_per_s, output_tokens_per_s_per_gpu;
    double ttft_ms, tpot_ms;       /* means: prefill wait (M/D/1) + prefill + transfer; decode step / E */
    double usd_per_mtok;           /* 0 without a TCO profile or price */
    gpuecon_infer_result prefill, decode; /* each side's memory and KV capacity (one instance) */
} gpuecon_disagg_result;

/* One disaggregated deployment at a rate. Errors: GPUECON_E_INPUT (any instance count or TP < 1,
 * a TP the heads do not split or beyond the NVLink domain, instances that need more GPUs than
 * base.gpus — naming "--prefill"/"--decode" —, a rate < 0, the base request's own errors);
 * GPUECON_E_INFEASIBLE (a side that does not fit, a rate above the capacity). */
GPUECON_API int gpuecon_infer_disagg(const gpuecon_disagg_request *req, gpuecon_disagg_result *out,
                                     gpuecon_error *err);

/* The ratio: every x prefill instances of TP p and y decode instances of TP d that fit in
 * base.gpus, each at the largest rate whose mean TTFT and TPOT meet the targets (0: none), the
 * best output tokens/s per GPU into *best (and its layout into *best_req). GPUECON_E_INFEASIBLE
 * when none meets them (*best: the highest-throughput layout evaluated, if any). */
GPUECON_API int gpuecon_infer_disagg_search(const gpuecon_infer_request *base, double ttft_ms, double tpot_ms,
                                            gpuecon_disagg_request *best_req, gpuecon_disagg_result *best,
                                            long *evaluated, gpuecon_error *err);

/* Request-level simulation of a disaggregated deployment (src/core/infer_sim_disagg.c;
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
GPUECON_API int gpuecon_infer_disagg_simulate(gpuecon_ctx *ctx, const gpuecon_disagg_sim_request *req,
                                              gpuecon_disagg_sim_result *out, gpuecon_error *err);

/* KV-cache bytes per token on one GPU at tensor-parallel degree tp (K2–K4): all layers
 * (long_context false) or only the global layers (the marginal bytes past the windows). */
GPUECON_API double gpuecon_kv_bytes_per_token(const gpuecon_model *m, int tp, gpuecon_precision kv,
                                              bool long_context);
/* LoRA parameters of one adapter of rank r on the given projections (LR1). */
GPUECON_API double gpuecon_lora_params(const gpuecon_model *m, int rank, unsigned modules);
/* Distinct routed experts per MoE layer hit by `tokens` tokens under uniform routing (M1). */
GPUECON_API double gpuecon_moe_experts_touched(const gpuecon_model *m, double tokens);
/* Speculative decoding (Leviathan et al. 2023): expected tokens per verify step (SD1), the
 * per-position α implied by vLLM's draft acceptance rate (SD2), and the closed-form speedup
 * E/(1 + γk) (SD5). */
GPUECON_API double gpuecon_spec_expected_tokens(double alpha, int k);
GPUECON_API double gpuecon_spec_alpha_from_rate(double rate, int k);
GPUECON_API double gpuecon_spec_speedup(double alpha, int k, double gamma);

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
} gpuecon_finetune_request;

/* Defaults: LoRA rank 16, alpha 32, all seven projections, FSDP, no recompute, micro-batch 2,
 * sequence 2048, bf16, vision tower loaded when the model has one, generic profile. */
GPUECON_API void gpuecon_finetune_request_init(gpuecon_finetune_request *r);

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
    double usd_per_gpu_hour, usd_per_mtok, joules_per_token;
} gpuecon_finetune_result;

/* Memory per GPU and speed of LoRA or full fine-tuning (docs/model.md §6.9). Errors:
 * GPUECON_E_INPUT for bad values; GPUECON_E_INFEASIBLE when it does not fit (the result is
 * still filled, fits = false, shortfall_gb > 0). */
GPUECON_API int gpuecon_finetune(const gpuecon_finetune_request *req, gpuecon_finetune_result *out,
                                 gpuecon_error *err);

/* ==== reinforcement-learning post-training (src/core/rl.c rl_gen.c; docs/model.md §8) ===== */

typedef enum gpuecon_rl_placement {
    GPUECON_RL_COLOCATED,    /* the same GPUs alternate generation and training (memory swap) */
    GPUECON_RL_DISAGGREGATED /* a generator pool and a trainer pool, weights pushed between them */
} gpuecon_rl_placement;

GPUECON_API const char *gpuecon_rl_placement_name(gpuecon_rl_placement p); /* "colocated", ... */

/* One synchronous (or one-step off-policy) RL step of PPO/GRPO style: P prompts x K samples
 * generated by a vLLM-like engine, scored by forward passes, trained on, and the new weights
 * pushed to the generators. Fill with gpuecon_rl_request_init, then set the pointers and
 * sizes. Lengths are tokens. */
typedef struct gpuecon_rl_request {
    const gpuecon_model *policy;      /* required: generated, trained and synced */
    const gpuecon_model *reference;   /* KL reference forward (NULL: none) */
    const gpuecon_model *reward;      /* reward-model forward (NULL: a rule-based verifier) */
    const gpuecon_model *critic;      /* PPO value model: forward and trained (NULL: GRPO) */
    const gpuecon_system *system;     /* required */
    const gpuecon_stack *stack;       /* training stack (NULL: request defaults) */
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

/* GRPO defaults: 1 epoch, 1 mini-batch, cv 0.6, no oversampling, bf16 everywhere, offload on,
 * synchronous, colocated, the generic serving profile, 1000 steps, tier typical. */
GPUECON_API void gpuecon_rl_request_init(gpuecon_rl_request *r);

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
    double swap_bytes_per_gpu, swap_s;/* colocated with offload: trainer states out and back in */
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

/* Predicts one RL step (docs/model.md §8). Generation runs through gpuecon_infer on the
 * generator GPUs (TP searched unless fixed) as a closed loop of N(1+f) requests: slots full
 * at the saturated rate until the queue empties, then the last wave drains, each running
 * sequence a lognormal length, at the TPOT of the shrinking batch, until response_end.
 * Scoring: forward FLOPs of each scoring model over N(L + kept) tokens at the serving
 * profile's GEMM efficiency. Training: gpuecon_train_predict (layout searched) on N sequences
 * of L + kept tokens, epochs x minibatches optimizer steps (and the critic's). Weight sync:
 * colocated, each GPU gathers the generator shard it lacks over NVLink or the network;
 * disaggregated, a pipelined broadcast from the trainer shards to every generator GPU.
 * Disaggregated without gen_gpus: every split in whole nodes is tried, the fastest kept.
 * Errors: GPUECON_E_INPUT naming the option (--samples <= 0, --prompt-len + --response-len
 * beyond the model's context, --off-policy with colocated placement, --gen-gpus leaving a pool
 * that cannot hold its model, sizes out of range); GPUECON_E_INFEASIBLE when no split or no
 * layout fits (err says which pool). ctx: threads and memo for the training search; cat: for
 * the cost (gpuecon_run_cost). */
GPUECON_API int gpuecon_rl_predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_rl_request *req,
                                   gpuecon_rl_result *out, gpuecon_error *err);
/* The RL step model against published GRPO step times, fitted on nothing (src/core/rl_validate.c;
 * docs/model.md §8.8): rows in gpuecon_validate's format whose published and predicted are step
 * times in seconds (group "rl"; a row the model cannot run is "rl-no-fit", fits false, predicted
 * 0, its reason in note, and left out of *summary). Writes up to cap rows
 * (gpuecon_rl_validate_count() is enough). Errors: GPUECON_E_INPUT for NULL arguments, NOMEM. */
GPUECON_API size_t gpuecon_rl_validate_count(void);
GPUECON_API int gpuecon_rl_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows,
                                    size_t cap, size_t *n, gpuecon_validate_summary *summary, gpuecon_error *err);
/* Expected largest of n lognormal draws of mean `mean` and coefficient of variation cv (Blom's
 * plotting position (n − 0.375)/(n + 0.25)); its order-statistic generalisation: the k-th
 * smallest of n is at (k − 0.375)/(n + 0.25). Returns mean when cv = 0. */
GPUECON_API double gpuecon_lognormal_order_stat(double mean, double cv, double k, double n);
/* E[min(X, cap)] of that lognormal (the mean of a truncated response). */
GPUECON_API double gpuecon_lognormal_capped_mean(double mean, double cv, double cap);

/* ==== scenarios, compare, break-even, sensitivity (src/io/scenario.c, compare.c, decide.c) = */

/* ---- dates and throughput timelines (src/core/timeline.c) ---- */

/* One dated throughput: in force from `day` on (a software release), until the next point. */
typedef struct gpuecon_timeline_point {
    long day;                     /* days since 1970-01-01 (UTC) */
    char date[11];                /* as written: "2025-05" (its first day) or "2025-05-14" */
    double tokens_per_s_per_gpu;
    gpuecon_source source;        /* a projection stays a projection */
} gpuecon_timeline_point;

#define GPUECON_TIMELINE_MAX 32

/* Parses an ISO date, "YYYY-MM" (the month's first day) or "YYYY-MM-DD", year >= 1970, into
 * days since 1970-01-01. false for anything else ("2025-13", "yesterday", "2025-02-30"). */
GPUECON_API bool gpuecon_date_parse(const char *s, long *day);
/* "YYYY-MM-DD" of a day count (cap >= 11). */
GPUECON_API void gpuecon_date_format(long day, char *buf, size_t cap);

/* A throughput timeline of the catalog (data/timelines.yaml, docs/catalog.md): the dated
 * throughputs of one system x model x precision, each point with its own stage and source.
 * Scenarios name it (throughput_timeline: NAME) or pick it up by system, model and precision
 * when a run has a start_date; train --start-date uses it. */
typedef struct gpuecon_timeline {
    const char *name;
    const char *system, *model;   /* catalog names */
    gpuecon_precision precision;
    const char *note;             /* the conditions of the points (scale, recipe), may be "" */
    const gpuecon_timeline_point *points; /* strictly increasing dates, 1 to GPUECON_TIMELINE_MAX */
    size_t n_points;
    const gpuecon_source *src;
} gpuecon_timeline;

/* A timeline by name; NULL when unknown. */
GPUECON_API const gpuecon_timeline *gpuecon_catalog_timeline(const gpuecon_catalog *cat, const char *name);
/* The timeline of system x model x precision (the one loaded last when several match), or NULL. */
GPUECON_API const gpuecon_timeline *gpuecon_catalog_timeline_for(const gpuecon_catalog *cat, const char *system,
                                                                 const char *model, gpuecon_precision precision);

typedef enum gpuecon_workload_kind {
    GPUECON_WORKLOAD_TRAIN,
    GPUECON_WORKLOAD_SERVE,
    GPUECON_WORKLOAD_RL       /* RL post-training steps (gpuecon_rl_predict; docs/model.md §8.9) */
} gpuecon_workload_kind;

/* What has to be done: train a model on a token budget, or serve it at a load. */
typedef struct gpuecon_workload {
    gpuecon_workload_kind kind;
    const char *model;
    gpuecon_precision precision;  /* training GEMMs; serving weights */
    /* training */
    double tokens;                /* token budget at the reference batch */
    int seq;
    int gbs;                      /* global batch in sequences (the reference batch) */
    double batch_tokens;          /* alternative to gbs: tokens per global batch */
    double critical_batch_tokens; /* McCandlish B_crit in tokens; 0: no batch penalty */
    double target_days;           /* 0: platforms give their GPU count */
    /* serving */
    int prompt_len, output_len;
    int concurrency;              /* sequences in flight per deployment; 0: best under the target */
    double tpot_ms_target;        /* latency target per output token; 0: none */
    double ttft_ms_target;        /* latency target to the first token (mean); 0: none */
    gpuecon_precision kv;         /* KV-cache precision */
    double serve_tokens;          /* output tokens to serve, for totals; 0: none */
    const char *stack;            /* training framework stack (data/stacks.yaml); NULL: the default */
    bool simulate;                /* serving: also simulate each aggregated platform (percentiles) */
    double budget_usd;            /* training: the most the run may cost; 0: none */
    /* RL post-training (kind rl): prompt_len above, and */
    int prompts, samples;         /* per step */
    int response_len;             /* mean response tokens */
    double response_cv, max_response_len, oversample;
    double partial_rollouts;      /* tokens per sample per step (0: off; gpuecon_rl_request.partial_tokens) */
    gpuecon_precision gen_weights;/* generator weights (precision: training) */
    bool sync_fp8;
    int placement, off_policy;    /* defaults for the platforms (gpuecon_rl_placement) */
    int steps;                    /* RL steps of the run (tokens = steps x trained tokens per step) */
    bool has_start_date;          /* the run starts on start_day: timelines apply day by day */
    long start_day;
    char start_date[11];
    const gpuecon_source *src;
} gpuecon_workload;

/* One platform to compare: a system, its size, its economics and reliability, and optionally
 * a measured throughput that replaces the prediction. Zero/NULL fields take defaults. */
typedef struct gpuecon_platform {
    const char *name;             /* label; default: the system name */
    const char *system;
    int gpus;                     /* active GPUs (training) or GPUs deployed (serving) */
    const char *profile;          /* TCO profile; default hyperscaler */
    const char *tier;             /* operator tier best|typical|poor; default typical */
    double pue;                   /* facility PUE override */
    double electricity_usd_per_kwh; /* price override */
    double tco_usd_per_gpu_hour;  /* TCO override (older spelling of usd_per_gpu_hour) */
    double usd_per_gpu_hour;      /* the user's price per GPU-hour (rental or negotiated) */
    double measured_tokens_per_s; /* per GPU; replaces the prediction (see src[]) */
    double mtbi_gpu_days;         /* reliability override */
    int spares_per_domain;        /* -1: system default */
    int spare_domains;            /* spare nodes/racks in the pool */
    bool spares_do_other_work;    /* spare GPUs earn elsewhere (not charged to the job) */
    int tp, pp, cp, ep;           /* parallel sizes; 0: searched (training) / chosen (serving) */
    int prefill_instances, prefill_tp; /* serving: disaggregated prefill/decode (all four, or none); */
    int decode_instances, decode_tp;   /* x·prefill_tp + y·decode_tp <= gpus (docs/model.md §6.13) */
    int max_num_seqs, max_num_batched_tokens; /* serving engine limits (0: vLLM's defaults) */
    int long_prefill_token_threshold;  /* serving: a prompt's tokens per step at most (0: none) */
    gpuecon_precision precision;  /* override of the workload's precision (e.g. bf16 on A100) */
    gpuecon_precision kv;         /* serving: KV precision override */
    double published_tokens_per_s;/* per GPU, shown beside the prediction, not used */
    const char *stack;            /* framework stack on this platform; NULL: the workload's */
    int placement, off_policy;    /* RL: -1 = the workload's */
    int gen_gpus;                 /* RL disaggregated: generator pool (0: searched) */
    const gpuecon_timeline_point *timeline; /* dated throughputs, strictly increasing dates */
    size_t n_timeline;
    /* owning vs renting over the cluster's life (training; all 0: not asked) */
    double rent_usd_per_gpu_hour, life_years, utilisation, workloads_per_year;
    const gpuecon_source *src;
} gpuecon_platform;

typedef struct gpuecon_comparison {
    const char *name, *title;
    gpuecon_workload workload;
    const gpuecon_platform *platforms;
    size_t n_platforms;
} gpuecon_comparison;

typedef struct gpuecon_scenario gpuecon_scenario;

/* Loads a scenario file (docs/scenarios.md). path NULL: the built-in default scenario.
 * Names are checked against the catalog; errors name path:line:col. The catalog is only read: a
 * workload's model_file: is refused (gpuecon_scenario_load_with_models reads it). */
GPUECON_API int gpuecon_scenario_load(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *path,
                                      gpuecon_scenario **out, gpuecon_error *err);
/* Same as gpuecon_scenario_load, and each workload's model_file: (a Hugging Face config.json or
 * a model file, relative to the scenario file's folder) is loaded into cat as
 * gpuecon_catalog_load_model_file does; on any error cat is left as it was. */
GPUECON_API int gpuecon_scenario_load_with_models(gpuecon_ctx *ctx, gpuecon_catalog *cat, const char *path,
                                                  gpuecon_scenario **out, gpuecon_error *err);
/* A scenario document as text; `name` labels errors. Text names no files: model_file: is
 * refused (requests and gpuecon serve pass scenarios this way). */
GPUECON_API int gpuecon_scenario_load_buffer(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                             const char *name, const char *buf, size_t len,
                                             gpuecon_scenario **out, gpuecon_error *err);
GPUECON_API void gpuecon_scenario_free(gpuecon_scenario *sc);
GPUECON_API const char *gpuecon_scenario_name(const gpuecon_scenario *sc);
GPUECON_API const char *gpuecon_scenario_title(const gpuecon_scenario *sc);
GPUECON_API size_t gpuecon_scenario_count(const gpuecon_scenario *sc);
GPUECON_API const gpuecon_comparison *gpuecon_scenario_at(const gpuecon_scenario *sc, size_t i);
/* Same quality, not just same tokens (McCandlish et al. 2018, "An Empirical Model of
 * Large-Batch Training", eq. 2.11): training at batch B (tokens) needs E = E_min·(1 + B/B_crit)
 * tokens and S = S_min·(1 + B_crit/B) steps. These return the factors (1 + B/B_crit) and
 * (1 + B_crit/B); both are 1 when critical_batch_tokens <= 0 (no penalty). */
GPUECON_API double gpuecon_batch_token_factor(double batch_tokens, double critical_batch_tokens);
GPUECON_API double gpuecon_batch_step_factor(double batch_tokens, double critical_batch_tokens);

/* ---- comparing platforms (src/core/compare.c, decide.c) ---- */

typedef struct gpuecon_compare_options {
    int trials;              /* Monte Carlo trials per training platform; 0: analytic only */
    bool no_sensitivity;     /* skip break-even and sensitivity */
    double step;             /* sensitivity step, relative; 0: 0.20 */
    const char *stack;       /* stack of workloads and platforms that name none; NULL:
                                megatron-bridge-2026 (docs/model.md §3.7) */
    bool no_uncertainty;     /* skip the validate bands of predicted throughputs (docs/model.md §7.5) */
    bool trade;              /* training: each platform also at the sizes around its own (trade[]) */
    int uncertainty;         /* joint samples of every uncertain input (docs/model.md §7.5): the
                                probability each platform is cheapest and the P10/P50/P90 of its
                                effective $/Mtok; 0: none; at most 1,000,000 */
} gpuecon_compare_options;

/* Cost of one million tokens split by where it goes (training: effective; serving: raw).
 * Electricity is computed at the platform's PUE and price; the rest of the TCO is split in the
 * proportions of the profile's derived TCO (a published TCO has no split of its own). */
enum {
    GPUECON_COST_CAPITAL,   /* capex recovery and capex-proportional opex */
    GPUECON_COST_COLO,      /* data-hall rent */
    GPUECON_COST_POWER,     /* electricity */
    GPUECON_COST_OTHER,     /* fixed $/GPU-h (staff, licences, support) */
    GPUECON_COST_FAILURES,  /* work lost to failures: raw·(1/ETTR − 1) */
    GPUECON_COST_SPARES,    /* spare GPUs charged to the job */
    GPUECON_COST_PARTS
};

typedef struct gpuecon_platform_result {
    const char *name, *system;
    bool feasible;              /* false: see why; the numbers below are then NaN */
    char why[560];
    int gpus;                   /* active GPUs (training) / GPUs deployed (serving) */
    /* throughput */
    double tokens_per_s_per_gpu;          /* the one used */
    bool measured;                        /* a scenario measurement replaced the prediction */
    gpuecon_source throughput_source;
    double predicted_tokens_per_s_per_gpu;/* NaN when the model could not predict */
    char predicted_note[560];             /* layout, or why there is no prediction */
    double published_tokens_per_s_per_gpu;/* shown for reference; 0 when none */
    double mfu;                           /* at the used throughput (training) */
    gpuecon_parallel par;                 /* of the prediction (training) */
    const char *stack;                    /* the framework stack of the prediction (training) */
    double throughput_p90_rel;            /* predicted throughput's band: P90 |error| of the nearest
                                             validate group (0 when measured or serving) */
    char throughput_group[32];            /* that group, "hopper-bf16-moe" (* where widened) */
    /* with options.uncertainty: share of the joint samples in which this platform is cheapest
       (ranked cost), and the P10/P50/P90 of its effective $/Mtok over them */
    double probability_cheapest;
    double effective_usd_per_mtok_p10, effective_usd_per_mtok_p50, effective_usd_per_mtok_p90;
    int predicted_gbs;                    /* the batch (sequences) of the prediction (training) */
    /* economics */
    double tco_usd_per_gpu_hour;          /* after PUE and electricity overrides */
    gpuecon_source tco_source;
    double usd_per_mtok;                  /* at 100% goodput */
    double joules_per_token, pue;
    double cost_parts[GPUECON_COST_PARTS];/* $ per 1M tokens by cause: sum = effective $/Mtok */
    /* reliability (training) */
    double ettr, interruptions_per_day, job_mtti_h;
    int provisioned_gpus;
    double charged_gpus;                  /* what the job pays for with spares charged */
    double mtbi_gpu_days;
    gpuecon_source mtbi_source;
    bool spares_charged;
    double effective_usd_per_mtok;        /* with or without spare cost, as the platform says */
    double effective_usd_per_mtok_with_spares, effective_usd_per_mtok_without_spares;
    bool mc;                              /* Monte Carlo ran */
    gpuecon_reliability_mc mc_result;
    /* same quality (McCandlish): the batch this layout trains at and the tokens it needs */
    double batch_tokens, token_factor, tokens;
    /* totals */
    double days_to_train;                 /* serving: days to serve the workload's tokens */
    double total_usd, energy_mwh;
    double rank_usd_per_mtok;             /* what the ranking compares: effective $/Mtok × the
                                             batch token factor (training); raw $/Mtok (serving) */
    /* serving */
    double concurrency, output_tokens_per_s, tpot_ms, ttft_ms;
    int tp, replicas;
    bool simulated;                       /* the workload's simulate: the percentiles below are set */
    double ttft_ms_p50, ttft_ms_p90, ttft_ms_p99, tpot_ms_p50, tpot_ms_p90, tpot_ms_p99;
    /* RL post-training (kind rl): one step on this platform */
    double rl_step_time_s, rl_trained_tokens_per_step, rl_usd_per_step, rl_mwh_per_step;
    gpuecon_rl_breakdown rl_bd;
    int rl_placement, rl_off_policy, rl_gen_gpus, rl_gen_tp; /* rl_gen_tp: EP under attention-DP */
    bool rl_gen_attention_dp;
    double rl_generation_s, rl_scoring_s, rl_training_s, rl_weight_sync_s, rl_swap_s; /* durations */
    double rl_gen_drain_s, rl_response_end, rl_gen_max_concurrency;
    /* throughput timeline (training): the points the run used (indices into the platform's
       timeline), whether one is a projection, and the date this platform's lead would vanish
       if the rival's software kept improving at its published pace ("" when not computed) */
    bool timeline;
    gpuecon_timeline_point points_used[GPUECON_TIMELINE_MAX];
    size_t n_points_used;
    bool uses_projection;
    double start_tokens_per_s_per_gpu;    /* in force on the start date */
    char advantage_vanishes_date[11];
    /* deadline and budget (training); meets_target also: a serving platform's operating load
       meets the workload's mean TPOT and TTFT targets (ranked before those that miss) */
    bool meets_target, within_budget;
    /* owning vs renting over the cluster's life (training, with rent_usd_per_gpu_hour) */
    bool life;
    char life_why[200];                   /* not empty: why it could not be computed */
    struct gpuecon_life_result *life_result; /* owned by the compare result */
    /* with options.trade: the GPUs / days / dollars trade, the 1-2-3 grid of whole domains
       from about a quarter to four times the platform's size (owned by the compare result) */
    struct gpuecon_target_row *trade;
    size_t n_trade;
} gpuecon_platform_result;

/* The value of one uncertain input at which the ranking between the two best platforms flips. */
typedef struct gpuecon_breakeven {
    int platform;             /* index into platforms */
    int rival;
    const char *input;        /* mtbi_gpu_days, tco_usd_per_gpu_hour, tokens_per_s_per_gpu, pue,
                                 electricity_usd_per_kwh, spare_policy */
    const char *unit;
    double current, value;    /* value: NaN when no flip within a factor of 100 */
    bool found;
    double ratio;             /* value / current */
    gpuecon_source source;    /* of the current value */
    char text[360];
} gpuecon_breakeven;

/* The human label of a compare input or scenario field ("tco_usd_per_gpu_hour" -> "TCO,
 * $/GPU-h"): the one table the report, the JSON (breakeven[].label, sensitivity[].label) and
 * gpuecon serve's page all read. The name itself when it has no label; never NULL. */
GPUECON_API const char *gpuecon_input_label(const char *input);
/* Entry i of that table (name and label), for front ends that show them all; false past the end. */
GPUECON_API bool gpuecon_input_label_at(size_t i, const char **input, const char **label);

/* One input moved down and up: the cost ratio (cheapest / runner-up) at each end. */
typedef struct gpuecon_sensitivity {
    int platform;
    const char *input;
    double low, high;         /* the input's two values */
    double ratio_low, ratio_high, swing; /* swing = |ratio_high − ratio_low| */
    const char *range;        /* "±20%" or where a documented range came from */
    gpuecon_source source;
} gpuecon_sensitivity;

typedef struct gpuecon_comparison_result {
    const char *name, *title;
    gpuecon_workload_kind kind;
    gpuecon_platform_result *platforms;
    size_t n_platforms;
    int cheapest, fastest, runner_up; /* -1 when none */
    double base_ratio;        /* cheapest's ranked cost / runner-up's */
    char verdict[1200];
    char caveats[1200];       /* inputs the verdict rests on that are projections/assumptions */
    bool batch_penalty;       /* the workload gave a critical batch */
    gpuecon_breakeven *breakeven;
    size_t n_breakeven;
    gpuecon_sensitivity *sensitivity;
    size_t n_sensitivity;
    /* timelines: at each point date of the two best platforms, the leader's performance per
       TCO over the other's (raw: at full goodput, as the published ratios are; effective:
       the ranked cost with failures and spares), and whether a point there is a projection */
    struct {
        char date[11];
        double perf_per_tco, effective_ratio;
        bool projection;
    } series[2 * GPUECON_TIMELINE_MAX];
    size_t n_series;
    int series_leader, series_other; /* platform indices of the ratio */
    /* timelines: the first date from which the runner-up (at the evaluation) and the cheapest
       swap places, throughputs interpolated between points ("" = none: JSON null) */
    char breakeven_date[11];
    char timeline_text[600];
    /* deadline and budget: the fastest platform within budget_usd (-1: none or no budget) */
    int fastest_within_budget;
    /* operator tiers (training, platforms at two or more tiers, both kinds of system): the
       cheapest platform at each tier (best, typical, poor; -1 when the tier has none), whether
       it is rack-scale (NVLink domain beyond one server: NVL72), and the first tier at which
       the cheapest kind of system changes from the best tier's ("" = no flip: JSON null) */
    int tier_cheapest[3];
    bool tier_rack_scale[3];
    bool tier_analysis;
    char flip_tier[8];
    char tier_text[400];
    int uncertainty_samples;  /* joint samples drawn (options.uncertainty; 0: none) */
} gpuecon_comparison_result;

typedef struct gpuecon_compare_result {
    gpuecon_comparison_result *cmp;
    size_t n;
} gpuecon_compare_result;

/* Evaluates every platform of every comparison end to end (throughput from the training or
 * serving model unless measured; TCO; energy; reliability; same-quality batch penalty;
 * totals), ranks them, and finds break-even values and sensitivities. A platform that cannot
 * run the workload (does not fit, no prediction and no measurement) is reported with
 * feasible = false, not as an error. Progress (Monte Carlo) goes to ctx's callback. A search
 * that recurs within the call (the same system, model, size and stack in several comparisons)
 * runs once: the call keeps its own gpuecon_memo when ctx's config has none (the same answers,
 * bit for bit). The caller frees *out with gpuecon_compare_free. */
GPUECON_API int gpuecon_compare(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_scenario *sc,
                                const gpuecon_compare_options *opt, gpuecon_compare_result **out,
                                gpuecon_error *err);
GPUECON_API void gpuecon_compare_free(gpuecon_compare_result *r);

/* One training run at a known throughput, costed exactly as compare costs a platform: TCO at
 * the facility PUE, goodput (ETTR) of the reliability model for the system and operator tier,
 * spares charged or not, days, dollars and MWh (src/core/compare.c). Fill it with
 * gpuecon_run_request_init, then set system, profile, gpus, tokens_per_s_per_gpu, tokens. */
typedef struct gpuecon_run_request {
    const char *system, *profile; /* catalog names (required) */
    const char *tier;             /* best | typical | poor (default typical) */
    const char *model;            /* catalog model, for MFU only (NULL: MFU NaN) */
    int seq;                      /* sequence length, for MFU only */
    gpuecon_precision precision;  /* for MFU only (default bf16) */
    int gpus;                     /* active GPUs: rounded up to whole domains of active GPUs */
    double tokens_per_s_per_gpu;  /* at full goodput (a prediction or a measurement) */
    gpuecon_source throughput_source;
    double tokens;                /* token budget; 0: no totals (days, $, MWh are NaN) */
    double pue;                   /* facility PUE; 0: the system's */
    double electricity_usd_per_kwh; /* 0: the profile's */
    double mtbi_gpu_days;         /* 0: the tier's */
    int spares_per_domain;        /* -1: the tier's */
    int spare_domains;            /* 0: the tier's pool */
    bool spares_do_other_work;    /* spares not charged to the job */
    double usd_per_gpu_hour;      /* > 0: the user's price per GPU-hour, replacing the profile's TCO */
    const char *start_date;       /* NULL: none; "YYYY-MM[-DD]": the run starts then, and the catalog's
                                     timeline of system x model x precision applies day by day from
                                     its first point (tokens_per_s_per_gpu before it) */
} gpuecon_run_request;

GPUECON_API void gpuecon_run_request_init(gpuecon_run_request *r);
/* Fills out (the same record compare fills per platform: ettr, provisioned_gpus,
 * effective_usd_per_mtok, days_to_train, total_usd, energy_mwh, ...). GPUECON_E_INPUT names
 * the offending option (--system, --profile, --tier, --gpus, --pue, --mtbi-gpu-days, --tokens,
 * --start-date: not an ISO date, or no catalog timeline for the system, model and precision);
 * GPUECON_E_INFEASIBLE when the reliability model leaves no goodput (out->why says so). */
GPUECON_API int gpuecon_run_cost(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_run_request *req,
                                 gpuecon_platform_result *out, gpuecon_error *err);

/* ---- deadlines: the fewest GPUs that finish by a date (src/core/target.c) ---- */

/* One size of the GPUs / days / dollars trade. */
typedef struct gpuecon_target_row {
    int gpus;                     /* active GPUs */
    bool ok;                      /* false: this size cannot run the job (why) */
    char why[200];
    double tokens_per_s_per_gpu, ettr, days_to_train, total_usd, energy_mwh;
    int provisioned_gpus;         /* with hot spares and spare nodes/racks */
    gpuecon_parallel par;         /* the layout the search picked at this size */
} gpuecon_target_row;

#define GPUECON_TARGET_ROWS 24

typedef struct gpuecon_target_result {
    bool met;                     /* a size up to the limit meets the deadline */
    int gpus_needed;              /* the fewest active GPUs that do (0 when none) */
    int unit;                     /* granularity: active GPUs per scale-up domain */
    double target_days;
    int nearest_gpus;             /* not met: the fastest size tried */
    double nearest_days;
    char why[200];                /* not met and no size runs: the reason */
    gpuecon_train_result train;   /* at gpus_needed (or the nearest miss) */
    gpuecon_platform_result run;  /* its days, dollars, MWh, ETTR, spares */
    gpuecon_target_row rows[GPUECON_TARGET_ROWS]; /* the trade table around the answer, by GPUs */
    size_t n_rows;
    int evaluations;              /* sizes predicted */
} gpuecon_target_result;

/* Active GPUs per scale-up domain for the run's system and tier (HGX: 8; NVL72: 72 less the
 * tier's hot spares, 64), the granularity of gpuecon_train_target; < 0 on error. */
GPUECON_API int gpuecon_target_unit(const gpuecon_catalog *cat, const gpuecon_run_request *run,
                                    gpuecon_error *err);
/* The fewest active GPUs, in whole domains of gpuecon_target_unit, whose run (treq at that
 * size: the layout search picks the layout; rreq: profile, tier, tokens, ...) finishes within
 * target_days including failures, restarts and spares (gpuecon_run_cost). The result is
 * checked: gpus_needed meets the deadline and gpus_needed − unit does not. Sizes up to
 * max_gpus (0: 1,000,000). GPUECON_E_INPUT for a deadline <= 0 or no token budget;
 * GPUECON_E_INFEASIBLE when no size meets it (out->nearest_gpus/nearest_days: the fastest tried;
 * out->rows still holds the trade table). */
GPUECON_API int gpuecon_train_target(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                     const gpuecon_train_request *treq, const gpuecon_run_request *rreq,
                                     double target_days, int max_gpus, gpuecon_target_result *out,
                                     gpuecon_error *err);

/* ---- the life of an owned cluster (src/core/life.c) ---- */

#define GPUECON_LIFE_YEARS 30

typedef struct gpuecon_life_request {
    gpuecon_run_request run;      /* the workload run (system, profile, tier, GPUs, tokens, tok/s) */
    double life_years;            /* 0: the profile's economic life */
    double utilisation;           /* share of the hours the cluster trains; 0: from workloads_per_year, else 1 */
    double workloads_per_year;    /* runs of run.tokens a year (sets the utilisation); 0: none */
    double rent_usd_per_gpu_hour; /* renting the same GPUs, per hour used (required) */
    const gpuecon_timeline_point *timeline; /* optional: throughput improvements, year by year */
    size_t n_timeline;
    bool has_start;               /* the cluster's first day (else the timeline's first point) */
    long start_day;
} gpuecon_life_request;

typedef struct gpuecon_life_year {
    int year;                     /* 1, 2, ... */
    double tokens_per_s_per_gpu;  /* in force at the start of the year */
    double tokens;                /* trained that year */
    double own_usd_per_mtok, rent_usd_per_mtok;
} gpuecon_life_year;

typedef struct gpuecon_life_result {
    double life_years, utilisation;
    int gpus;                     /* active */
    double charged_gpus;          /* with spares: owned (or rented) alike */
    double ettr;
    double capex_usd;             /* paid up front for the charged GPUs */
    double tco_usd_per_gpu_hour, rent_usd_per_gpu_hour;
    double own_usd_per_mtok, rent_usd_per_mtok; /* over the life */
    double tokens, runs;          /* trained over the life; runs of run.tokens */
    double breakeven_utilisation; /* owning's TCO / rent: above it owning is cheaper (levelised) */
    int own_beats_rent_month;     /* first month where renting has cost more (present values); -1: never in the life */
    double own_pv_usd, rent_pv_usd; /* present values at the end of the life */
    gpuecon_life_year years[GPUECON_LIFE_YEARS];
    size_t n_years;
} gpuecon_life_result;

GPUECON_API void gpuecon_life_request_init(gpuecon_life_request *r);
/* Cost per million tokens of owning the run's GPUs over life_years (the TCO for every hour,
 * the timeline's throughput in force at the start of each year) against renting them at
 * rent_usd_per_gpu_hour for the hours used; and the month from which owning has cost less
 * (capex up front, then colo, fixed, maintenance every month and electricity for the hours
 * used, against rent, both discounted monthly at the profile's rate). GPUECON_E_INPUT names
 * the option out of range; GPUECON_E_INFEASIBLE when the workloads do not fit in a year. */
GPUECON_API int gpuecon_cluster_life(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_life_request *q,
                                     gpuecon_life_result *out, gpuecon_error *err);

/* Provenance of a workload or platform field ("measured_tokens_per_s", ...). */
GPUECON_API int gpuecon_scenario_field(const gpuecon_scenario *sc, size_t comparison, int platform,
                                       const char *field, gpuecon_field *out);

/* ==== requests: one entry point for every front end (src/cmd/request.c) ============== */

/* A request is a JSON object
 *   {"command": "train", "options": {"model": "llama3-70b", "gpus": 512, ...}, "args": [...]}
 * with the command line's option names less the leading dashes, inner dashes as underscores
 * ("--tokens-per-s" is "tokens_per_s"); numbers as JSON numbers (or strings in the command
 * line's syntax: "15T", "64,128,...,1024"), flags as true/false, lists as arrays; "args"
 * holds the positional arguments (catalog's kind and name, compare's scenario file). Global
 * options: "format" ("json" by default, "table", "csv", "html"), "catalog" (a directory),
 * "model_file", "max_work" (the work budget of this request, CPU-seconds), "help". docs/api/
 * has the JSON Schemas of requests and responses. */
typedef struct gpuecon_command_info {
    const char *name;    /* "train" */
    const char *summary; /* one line */
} gpuecon_command_info;

/* The i-th command (0-based), NULL past the last. */
GPUECON_API const gpuecon_command_info *gpuecon_command_at(size_t i);

/* Runs a request. *response_json gets what `gpuecon <command> --json` prints (byte for byte,
 * elapsed times aside), or the table/CSV/HTML text for another "format", or the help text for
 * "help": true; release it with gpuecon_free. Returns GPUECON_OK, or a negative status with
 * err filled (where: the option as the command line spells it, e.g. "--gpus", or "request"
 * for the request's own shape; line/column for JSON syntax errors). Some failures still come
 * with a response (an infeasible training job returns its nearest miss with
 * GPUECON_E_INFEASIBLE); *response_json is NULL otherwise. */
GPUECON_API int gpuecon_request(gpuecon_ctx *ctx, const char *request_json, char **response_json,
                                gpuecon_error *err);
/* The same, with *notes (may be NULL) receiving what a command line would show on stderr
 * (errors and warnings, one "gpuecon: ..." line each; "" when none); free with gpuecon_free. */
GPUECON_API int gpuecon_request_full(gpuecon_ctx *ctx, const char *request_json, char **output, char **notes,
                                     gpuecon_error *err);
/* Turns a command line (argv[0] = the command, then its options and arguments, without -o)
 * into a request, checking every option as gpuecon_request would and with the same error
 * records. *request_json (release with gpuecon_free) is compact JSON. */
GPUECON_API int gpuecon_request_from_argv(gpuecon_ctx *ctx, int argc, char **argv, char **request_json,
                                          gpuecon_error *err);
/* A command's options as JSON: {"command": ..., "options": [{"name": "tokens_per_s", "option":
 * "--tokens-per-s", "kind": "flag|number|integer|string|choice|list", "help": ..., "minimum",
 * "maximum" (numbers, lists), "choices" (choice)}, ...], "positional": N} — for front ends that
 * build forms or check arguments, and for docs/api/request.schema.json. The global options
 * (format, catalog, model_file, help) are not listed. Free with gpuecon_free. */
GPUECON_API int gpuecon_command_options(gpuecon_ctx *ctx, const char *name, char **options_json,
                                        gpuecon_error *err);
/* Releases a string returned by the request functions. NULL is a no-op. */
GPUECON_API void gpuecon_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* GPUECON_H */
