/*
 * io/io.h — the io layer's private declarations: the catalog (loading, look-ups, fields),
 * timelines, length histograms and scenarios. It reads files and may call the model to check
 * an entry; the model never reads files. Never installed.
 */
#ifndef GPUECON_IO_H
#define GPUECON_IO_H

#include "model/model.h"

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
    GPUECON_KIND_CALIBRATION, /* a user's calibrations (calibrations.yaml, `gpuecon calibrate -o`) */
    GPUECON_KIND_COUNT
} gpuecon_kind;

/* "gpus", "systems", "profiles", "models", "reliability", "stacks", "timelines", "calibrations": the file stem and
 * the YAML key. */
const char *gpuecon_kind_name(gpuecon_kind kind);

/* Loads one catalog file of the given kind (same format as the files in data/). */
int gpuecon_catalog_load_file(gpuecon_catalog *cat, gpuecon_kind kind,
                                          const char *path, gpuecon_error *err);
/* Loads a single model in the model-file format (a mapping, see docs/catalog.md) and adds it
 * to the catalog; *out (if not NULL) points at it. */
int gpuecon_catalog_load_model_file(gpuecon_catalog *cat, const char *path,
                                                const gpuecon_model **out, gpuecon_error *err);
/* Same as gpuecon_catalog_load_model_file from memory; `name` labels errors. */
int gpuecon_catalog_load_model_buffer(gpuecon_catalog *cat, const char *name, const char *buf,
                                                  size_t len, const gpuecon_model **out,
                                                  gpuecon_error *err);
/* Same as gpuecon_catalog_load_file from memory; `name` labels errors (use the file name). */
int gpuecon_catalog_load_buffer(gpuecon_catalog *cat, gpuecon_kind kind,
                                            const char *name, const char *buf, size_t len,
                                            gpuecon_error *err);

size_t gpuecon_catalog_count(const gpuecon_catalog *cat, gpuecon_kind kind);
/* Entry i of a kind in load order: built-ins in file order, a replacement keeps its place,
 * additions come last (NULL when out of range). The returned pointer is a
 * const gpuecon_gpu / gpuecon_system / ... according to kind. */
const void *gpuecon_catalog_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);
const char *gpuecon_catalog_name_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);

/* Look-ups by name. NULL when unknown. */
const gpuecon_gpu *gpuecon_catalog_gpu(const gpuecon_catalog *cat, const char *name);
const gpuecon_system *gpuecon_catalog_system(const gpuecon_catalog *cat, const char *name);
const gpuecon_profile *gpuecon_catalog_profile(const gpuecon_catalog *cat, const char *name);
const gpuecon_model *gpuecon_catalog_model(const gpuecon_catalog *cat, const char *name);
typedef struct gpuecon_stack gpuecon_stack;
const gpuecon_stack *gpuecon_catalog_stack(const gpuecon_catalog *cat, const char *name);
/* The user's calibration (calibrations.yaml of a --catalog overlay; docs/model.md §3.8) that applies to
 * a workload (0 train, 2 serve) of a stack on a system at a precision: the most specific entry whose
 * stack, system and precision each match or are unset; the later-loaded of equally specific ones.
 * NULL: none. Implemented in src/io/catalog_calibration.c. */
typedef struct gpuecon_calibration gpuecon_calibration;
const gpuecon_calibration *gpuecon_catalog_calibration(const gpuecon_catalog *cat, int workload, const char *stack,
                                                       const char *system, int precision);

/* Look-up with a helpful error: GPUECON_E_NOTFOUND with "unknown system 'hgx-h10'; did you
 * mean 'hgx-h100'?" and the list of known names. `what` names the option for err->where. */
int gpuecon_catalog_find(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name,
                                     const char *what, const void **out, gpuecon_error *err);

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
size_t gpuecon_catalog_field_count(gpuecon_kind kind);
int gpuecon_catalog_field_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i,
                                         size_t j, gpuecon_field *out);
/* Field `field` of the entry named `entry`. GPUECON_E_NOTFOUND if either is unknown. */
int gpuecon_catalog_field(const gpuecon_catalog *cat, gpuecon_kind kind, const char *entry,
                                      const char *field, gpuecon_field *out);
/* Where the entry came from ("data/gpus.yaml" for built-ins, else the path). */
const char *gpuecon_catalog_origin(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);

const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat,
                                                                   const char *name);

/* Reads a length histogram (src/io/lengths.c): lines "prompt output [weight]" (commas, spaces
 * or tabs; '#' comments; an optional header line). Errors name path:line:col: GPUECON_E_IO,
 * GPUECON_E_INPUT (a length that is not a whole number from 1 to 1e8, a weight <= 0, no bins).
 * Free with gpuecon_length_bins_free. */
int gpuecon_length_bins_load(gpuecon_ctx *ctx, const char *path, gpuecon_length_bin **bins,
                                         size_t *n, gpuecon_error *err);
/* The same from len bytes at buf (no terminating NUL needed); errors name `name`:line:col. */
int gpuecon_length_bins_load_buffer(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len,
                                                gpuecon_length_bin **bins, size_t *n, gpuecon_error *err);
void gpuecon_length_bins_free(gpuecon_ctx *ctx, gpuecon_length_bin *bins, size_t n);

/* ==== scenarios (src/io/scenario.c; compared in src/analysis/compare.c, decide.c) ========= */

/* ---- throughput timelines of the catalog (src/io/schema_timeline.c; dates: src/base/date.c) ---- */

/* One dated throughput: in force from `day` on (a software release), until the next point. */
typedef struct gpuecon_timeline_point {
    long day;                     /* days since 1970-01-01 (UTC) */
    char date[11];                /* as written: "2025-05" (its first day) or "2025-05-14" */
    double tokens_per_s_per_gpu;
    gpuecon_source source;        /* a projection stays a projection */
} gpuecon_timeline_point;

#define GPUECON_TIMELINE_MAX 32

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
const gpuecon_timeline *gpuecon_catalog_timeline(const gpuecon_catalog *cat, const char *name);
/* The timeline of system x model x precision (the one loaded last when several match), or NULL. */
const gpuecon_timeline *gpuecon_catalog_timeline_for(const gpuecon_catalog *cat, const char *system,
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
    double rate;                  /* serving: requests/s to serve; > 0: each platform without gpus is
                                     sized to the fewest units meeting the targets (docs/model.md §7.1) */
    double slo_percentile;        /* serving at a rate: where the targets are checked (default 90) */
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
    double power_limit_w;         /* the GPUs' power limit (0: the system's; docs/model.md §9.2) */
    bool precision_given, kv_given; /* serving at a rate: the platform or the workload fixed it (else searched) */
    const gpuecon_source *src;
} gpuecon_platform;

typedef struct gpuecon_comparison {
    const char *name, *title;
    gpuecon_workload workload;
    const gpuecon_platform *platforms;
    size_t n_platforms;
} gpuecon_comparison;

/* Loads a scenario file (docs/scenarios.md). path NULL: the built-in default scenario.
 * Names are checked against the catalog; errors name path:line:col. The catalog is only read: a
 * workload's model_file: is refused (gpuecon_scenario_load_with_models reads it). */
int gpuecon_scenario_load(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *path,
                                      gpuecon_scenario **out, gpuecon_error *err);
/* Same as gpuecon_scenario_load, and each workload's model_file: (a Hugging Face config.json or
 * a model file, relative to the scenario file's folder) is loaded into cat as
 * gpuecon_catalog_load_model_file does; on any error cat is left as it was. */
int gpuecon_scenario_load_with_models(gpuecon_ctx *ctx, gpuecon_catalog *cat, const char *path,
                                                  gpuecon_scenario **out, gpuecon_error *err);
const char *gpuecon_scenario_name(const gpuecon_scenario *sc);
const char *gpuecon_scenario_title(const gpuecon_scenario *sc);
size_t gpuecon_scenario_count(const gpuecon_scenario *sc);
const gpuecon_comparison *gpuecon_scenario_at(const gpuecon_scenario *sc, size_t i);

/* ---- the vTrain calibration runs (Bang et al. MICRO 2024), compiled in from data/: parsed when
 * the catalog is made (catalog.c), read by validate.c through the catalog ---- */
#define CALIB_VTRAIN_PATH "data/calibration/vtrain-a100-multinode.csv"
typedef struct calib_vtrain_row {
    /* params (B), GPUs, global batch, micro batch, hidden, heads, layers, sequence, TP, DP, PP,
       iteration time (ms): the CSV's columns */
    double f[12];
    int line; /* in the CSV */
} calib_vtrain_row;
/* The catalog's vTrain rows in file order (*n of them); NULL when the CSV is not compiled in. */
const calib_vtrain_row *catalog_vtrain(const gpuecon_catalog *cat, size_t *n);
/* Bit j: field j of the named entry of a kind was in its file (0 for an unknown entry). */
uint64_t catalog_present(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name);

/* A scenario platform's fields in the order of scenario.c's table (platform_fields[], whose
 * rows are indexed by these), so that provenance is looked up by a name the compiler checks. */
typedef enum platform_field {
    PF_NAME, PF_SYSTEM, PF_GPUS, PF_PROFILE, PF_TIER, PF_PUE, PF_ELECTRICITY_USD_PER_KWH,
    PF_TCO_USD_PER_GPU_HOUR, PF_USD_PER_GPU_HOUR, PF_MEASURED_TOKENS_PER_S, PF_MTBI_GPU_DAYS,
    PF_SPARES_PER_DOMAIN, PF_SPARE_DOMAINS, PF_SPARES_DO_OTHER_WORK, PF_TP, PF_PP, PF_CP, PF_EP,
    PF_PRECISION, PF_KV, PF_RENT_USD_PER_GPU_HOUR, PF_LIFE_YEARS, PF_UTILISATION,
    PF_WORKLOADS_PER_YEAR, PF_PUBLISHED_TOKENS_PER_S, PF_STACK, PF_PREFILL_INSTANCES, PF_PREFILL_TP,
    PF_DECODE_INSTANCES, PF_DECODE_TP, PF_PLACEMENT, PF_OFF_POLICY, PF_GEN_GPUS, PF_MAX_NUM_SEQS,
    PF_MAX_NUM_BATCHED_TOKENS, PF_LONG_PREFILL_TOKEN_THRESHOLD, PF_POWER_LIMIT_W, PF_COUNT
} platform_field;

/* Provenance of a workload or platform field ("measured_tokens_per_s", ...). */
int gpuecon_scenario_field(const gpuecon_scenario *sc, size_t comparison, int platform,
                                       const char *field, gpuecon_field *out);

/* ==== RUNS.yaml: a user's measured runs for `gpuecon calibrate` (src/io/runs.c; docs/cli.md) ====
 * runs: a list; each run a mapping of `command:` (train, infer, gemm, nccl), the command's options by
 * their command-line names without dashes (kept as text for the request layer to read through the
 * command's own option table), and either `measured:` (figures keyed by their JSON names, each in the
 * unit its key names or a string carrying its own unit) or `log: FILE` (relative to RUNS.yaml). */
typedef enum runs_command { RUNS_TRAIN, RUNS_INFER, RUNS_GEMM, RUNS_NCCL, RUNS_FINETUNE, RUNS_COMMANDS } runs_command;
typedef enum runs_figure {
    RUNS_TOKENS_PER_S_PER_GPU,        /* training tokens/s per GPU */
    RUNS_STEP_TIME_S,                 /* training step time, s */
    RUNS_OUTPUT_TOKENS_PER_S_PER_GPU, /* serving output tokens/s per GPU */
    RUNS_TPOT_MS,                     /* serving time per output token, ms */
    RUNS_TTFT_MS,                     /* serving time to first token, ms */
    RUNS_TFLOPS,                      /* gemm: achieved TFLOP/s */
    RUNS_BUSBW_GBPS,                  /* nccl: bus bandwidth, GB/s as nccl-tests prints it */
    RUNS_TOKENS_PER_S,                /* finetune: tokens/s of the whole job (its JSON's tokens_per_s) */
    RUNS_STEP_S,                      /* finetune: step time, s (its JSON's step_s) */
    RUNS_FIGURES
} runs_figure;
/* "train", ...; "tokens_per_s_per_gpu", ... (the JSON names). */
const char *runs_command_name(runs_command c);
const char *runs_figure_name(runs_figure f);

typedef struct runs_option {
    const char *key;  /* as written: "prompt-len" */
    const char *text; /* the scalar's text; a list's items joined by commas */
    bool is_bool;     /* a YAML true/false */
    int line, col;    /* of the key */
} runs_option;

typedef struct runs_value {
    runs_figure figure;
    double value;     /* in the figure's unit (s, ms, tokens/s, TFLOP/s, GB/s) */
    double bytes;     /* nccl: the message size of a busbw point read from a log (0: the run's bytes option) */
    bool whole_system; /* a log's throughput of all the run's GPUs (MLPerf): the caller divides by them */
    int line, col;    /* of the value (for a log: the log's line, col 1) */
    const char *file; /* the file the value was read from (RUNS.yaml or the log) */
} runs_value;

typedef struct runs_entry {
    int index;                 /* 1-based position in runs: */
    int line, col;             /* of the run's mapping */
    runs_command command;
    runs_option *opts;
    size_t n_opts;
    runs_value *values;        /* at least one */
    size_t n_values;
    const char *log;           /* the log's path as resolved (NULL: measured:) */
    const char *log_format;    /* runlog_format_name of the log read */
} runs_entry;

typedef struct runs_file {
    const char *path;
    runs_entry *runs;
    size_t n;
    arena a; /* everything above */
} runs_file;

/* Reads RUNS.yaml (FIFO-safe, size-capped like every input file). Every error names
 * path:line:col with what is allowed (GPUECON_E_PARSE for YAML, GPUECON_E_INPUT for a value). */
int runs_read(gpuecon_ctx *ctx, const char *path, runs_file *out, gpuecon_error *err);
/* The same from memory; `name` labels errors and anchors relative log paths. */
int runs_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runs_file *out, gpuecon_error *err);
/* A document that came without a file (a request's options.runs, the web API): the same, except that it
 * reads no file: a `log:` is refused at its line. */
int runs_parse_text(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runs_file *out,
                    gpuecon_error *err);
void runs_free(runs_file *f);
/* The option `key` of a run (dashes and underscores alike), or NULL. */
const runs_option *runs_option_get(const runs_entry *r, const char *key);

#endif
