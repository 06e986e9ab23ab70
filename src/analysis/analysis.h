/*
 * analysis/analysis.h — the analysis layer's private declarations: what is decided from the
 * physics. The training search and its memo, validation against published runs, the
 * reproduction of published figures, the reliability Monte Carlo, the serving configuration
 * search, the RL step's prediction, comparisons, break-even and sensitivity, timelines,
 * deadlines and the life of a cluster. Never installed.
 */
#ifndef GPUECON_ANALYSIS_H
#define GPUECON_ANALYSIS_H

#include "io/io.h"

#include <stdio.h>
#include <string.h>

/* ==== reproduction of the published figures (src/analysis/reproduce.c) ==================== */

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
int gpuecon_reproduce(const gpuecon_catalog *cat, gpuecon_repro_row *rows, size_t cap,
                                  size_t *n, gpuecon_error *err);

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
int gpuecon_train_search(gpuecon_ctx *ctx, const gpuecon_train_request *req,
                                     const gpuecon_search_options *opt, gpuecon_search_result *out,
                                     gpuecon_error *err);
void gpuecon_search_result_free(gpuecon_search_result *r);

/* ---- validation against published runs (src/analysis/validate.c) ---- */
/* What a training run was, as a point of the calibration space (calibset.c, docs/model.md §3.5):
 * filled for every training row validate predicts (validate_set_train) and, the same way, for a
 * layout train or search returns (calib_layout_of), so the two compare axis by axis. */
typedef struct gpuecon_calib_layout {
    bool set;               /* a training row with its layout (serving, fine-tuning, RL rows: false) */
    bool moe;
    char model[32], arch[20], stack[32];
    gpuecon_precision prec;
    int tp, pp, vpp, cp, ep, etp, dp, zero, gpus, seq;
    int scaleup;            /* GPUs per scale-up (NVLink) domain of the system */
    int ep_domains;         /* scale-up domains one expert-parallel group spans (MoE) */
    gpuecon_recompute rc;
    double params;          /* total parameters of the model */
    double flops_per_token; /* model FLOPs per token with causal attention counted (half of full) */
    double peak_flops;      /* and the GPU's dense peak at the precision: gpuecon_train_result.mfu_causal */
} gpuecon_calib_layout;

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
    gpuecon_calib_layout layout; /* training rows: the run as a calibration point (layout.set) */
} gpuecon_validate_row;

typedef struct gpuecon_validate_summary {
    size_t n;
    double median_abs_err, max_abs_err, mean_abs_err;
    double signed_median_err; /* + where the model is faster (a TPOT row's as published/predicted - 1) */
    char worst_id[24];
} gpuecon_validate_summary;

/* Predicts every calibration case with a known configuration (docs/model.md §3.6, and the
 * mixture-of-experts runs of §4.5, group "moe") and compares with the published throughput.
 * eff_table (n_eff rows; NULL: built-in) replaces the efficiency row of each matching arch —
 * the fitting tool (bench/fit_train.c) uses it. Writes up to cap rows (GPUECON_VALIDATE_MAX is
 * enough), sets *n; the summary covers every dense row written (the dense accuracy targets)
 * (sum_fit: the rows fitted on; either may be NULL); gpuecon_validate_summarize gives others. */
#define GPUECON_VALIDATE_MAX 320
int gpuecon_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
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
void gpuecon_validate_summarize(const gpuecon_validate_row *rows, size_t n, const char *group,
                                            bool exclude, gpuecon_validate_fit fit,
                                            gpuecon_validate_summary *out);
/* The same over the rows of any of the NULL-terminated `groups` (or every other row when
 * exclude is true). */
void gpuecon_validate_summarize_sets(const gpuecon_validate_row *rows, size_t n, const char *const *groups,
                                     bool exclude, gpuecon_validate_fit fit, gpuecon_validate_summary *out);
/* The training sets reported on their own, apart from the Megatron/NeMo dense rows the dense
 * targets cover: the MoE runs and the torchtitan runs. */
extern const char *const gpuecon_validate_separate_sets[];
/* The serving model (docs/model.md §6) against published serving figures (group "serving",
 * class "serving-<generation>-<precision>-dense"): TensorRT-LLM's max-throughput table for
 * Llama 3.1 8B FP8 on H100/H200 (held out) and the VESSL AI blog's serving figures (fitted_on where
 * a serving profile was fitted on them). Each row's published and predicted values are in the
 * unit its metric names; rel_err = predicted/published - 1. Writes the rows (cap
 * GPUECON_VALIDATE_SERVING_MAX holds every one; the table is checked against it at compile time)
 * and sets *n. Errors: GPUECON_E_INPUT (NULL arguments, or a cap below the rows selected: never
 * a silently shorter table), GPUECON_E_NOTFOUND (a catalog without the models or systems it uses). */
#define GPUECON_VALIDATE_SERVING_MAX 192
int gpuecon_validate_serving(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                                         size_t *n, gpuecon_error *err);
/* The fine-tuning model (docs/model.md §6.9) against the VESSL AI blog's LoRA training figures
 * (group "finetune", class "finetune-<generation>-<precision>"): throughputs and ratios of two
 * runs, each with its stack (fitted_on: the four rows eta_train and hf-peft-eager's host launch
 * time were fitted on). Writes up to cap rows (GPUECON_VALIDATE_FINETUNE_MAX is enough). Errors:
 * GPUECON_E_INPUT (NULL arguments, a catalog without gemma4-31b, the systems or the stacks). */
#define GPUECON_VALIDATE_FINETUNE_MAX 16
int gpuecon_validate_finetune(const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                                          size_t *n, gpuecon_error *err);
/* Accuracy of one generation x precision x dense/moe group (row.cls). */
typedef struct gpuecon_validate_group {
    char name[32];
    size_t n;
    double median_abs_err, p90_abs_err, max_abs_err;
    double signed_median_err; /* median of predicted/published - 1, a time's (TPOT) as published/
                                 predicted - 1: + is the model faster; a systematic sign shows here */
} gpuecon_validate_group;
/* The groups of the rows `fit` selects, in the order they first appear (at most cap; returns
 * how many exist). Percentiles by linear interpolation between order statistics (P90 of n
 * sorted errors: e[0.9·(n−1)]). */
size_t gpuecon_validate_groups(const gpuecon_validate_row *rows, size_t n, gpuecon_validate_fit fit,
                                           gpuecon_validate_group *out, size_t cap);
/* The q-quantile (0..1) of |rel_err| of the rows of `group` (a set name or a class, NULL: all)
 * that `fit` selects; 0 when none. */
double gpuecon_validate_quantile(const gpuecon_validate_row *rows, size_t n, const char *group,
                                             gpuecon_validate_fit fit, double q);

/* ==== the training calibration set (src/analysis/calibset.c; docs/model.md §3.5) ============ */

/* Every training row gpuecon_validate compares against, as calibration points: built by running
 * the validate tables (a row joins by being in them), a few milliseconds. Owned; calib_set_free. */
typedef struct calib_set {
    gpuecon_validate_row *rows; /* the training rows whose layout is set */
    size_t n;
    gpuecon_ctx *ctx;           /* the allocator of rows */
} calib_set;
int calib_set_build(gpuecon_ctx *ctx, const gpuecon_catalog *cat, calib_set *out, gpuecon_error *err);
void calib_set_free(calib_set *s);
/* A calibration row's published MFU with causal attention counted (model FLOPs over the dense peak
 * at its precision, gpuecon_train_result.mfu_causal): published tokens/s/GPU x FLOPs per token /
 * peak. Causal, not full attention: full-attention MFU grows with the context for the same kernels
 * (a 128K-token row would set every cap), causal counts the work done. */
double calib_row_mfu(const gpuecon_validate_row *row);

/* Distance between two calibration points (docs/model.md §3.5): a weighted L1 sum, one unit per
 * doubling of a size, |log2(x/y)| of TP, PP, CP, EP, sequence and total parameters, half a unit
 * per doubling of VPP and GPUs; 4 for dense vs MoE, 2 for another GPU generation, 1 for another
 * precision, 1 for another stack, 1 for ZeRO-3 against a lower stage (0.25 between lower stages),
 * 0.5 for another recompute policy. 0 only for the same run at another batch. */
double calib_distance(const gpuecon_calib_layout *a, const gpuecon_calib_layout *b);

/* The axes on which a layout lies outside the calibration set (bits of calib_match.axes). */
typedef enum calib_axis {
    CALIB_AXIS_STACK,       /* no calibration row ran this stack */
    CALIB_AXIS_FAMILY,      /* no row combines the layout's parallelisms (calib_family) */
    CALIB_AXIS_CONTEXT,     /* sequence longer than the longest calibrated run of its kind */
    CALIB_AXIS_SCALE,       /* more GPUs than the largest calibrated run */
    CALIB_AXIS_KIND,        /* no dense (MoE) row on this GPU generation */
    CALIB_AXIS_GPU_PREC,    /* no row of this GPU generation at this precision */
    CALIB_AXIS_COUNT
} calib_axis;
/* The axis's JSON key ("stack", "layout_family", "context", "scale", "model_kind", "gpu_precision"). */
const char *calib_axis_name(calib_axis a);

/* A layout family: the parallelisms a layout uses, one bit each (TP, PP, VPP, CP, EP > 1, ZeRO-3,
 * TP, TP x CP or the expert group across scale-up domains). A family is inside the calibration set
 * when one row's family holds all of its bits: some calibrated run combined those mechanisms. */
unsigned calib_family(const gpuecon_calib_layout *l);
/* The same from the sizes (inline: the search computes it for every configuration it ranks); ep_domains
 * the scale-up domains one expert group spans. Below 512. */
static inline unsigned calib_family_bits(int tp, int pp, int vpp, int cp, int ep, int zero, int scaleup,
                                         int ep_domains)
{
    unsigned f = (tp > 1) | (pp > 1) << 1 | (vpp > 1) << 2 | (cp > 1) << 3 | (ep > 1) << 4 | (zero == 3) << 5;
    if (scaleup > 0) /* TP, and TP x CP, across scale-up domains */
        f |= (unsigned)(tp > scaleup) << 6 | (unsigned)(cp > 1 && (long)tp * cp > scaleup) << 7;
    return f | (unsigned)(ep > 1 && ep_domains > 1) << 8; /* the expert group across domains */
}
/* The family's parallelisms in words ("CP + ZeRO-3"; "data parallel only" when none). */
void calib_family_text(unsigned fam, char *buf, size_t cap);
/* The factor a search ranks configuration family fam by (gpuecon_train_request.rank_band_low): 1
 * without one. */
static inline double calib_rank_factor(const gpuecon_train_request *q, unsigned fam)
{
    if (!(q->rank_band_low[0] > 0))
        return 1;
    return q->rank_family_covered[fam >> 5 & 15] >> (fam & 31) & 1u ? q->rank_band_low[0] : q->rank_band_low[1];
}

/* The best MFU ever published for a GPU generation and precision: the highest of the calibration
 * rows' (calib_row_mfu) and of the published runs calibset.c lists with their sources. */
typedef struct calib_cap {
    bool have;              /* false: nothing published for this generation, precision and model kind */
    double mfu;
    char id[24];            /* the calibration row or published run that sets it */
    char source[160];
} calib_cap;
/* The best MFU ever published for a GPU generation and precision that bounds a model of this kind:
 * a dense model's cap comes from dense runs only (an MoE run's MFU is lower for reasons a dense
 * model does not have: dispatch, imbalance, small expert GEMMs), an MoE model's from every run
 * (no MoE run has beaten the best dense MFU of its generation and precision). */
void calib_mfu_cap(const calib_set *s, const char *arch, gpuecon_precision prec, bool moe, calib_cap *out);

/* ---- band.c: the 80% band of a predicted figure (docs/model.md §7.6) ---- */
typedef enum band_metric {
    BAND_TRAIN_TPS,    /* training tokens/s/GPU (step time and MFU: the same relative band) */
    BAND_SERVE_TPS,    /* serving output tokens/s/GPU */
    BAND_TPOT,         /* time per output token, ms */
    BAND_TTFT,         /* time to first token, ms */
    BAND_FINETUNE_TPS, /* fine-tuning tokens/s */
    BAND_RL_STEP,      /* RL step time, s */
    BAND_METRICS
} band_metric;
/* What the band of one prediction depends on. */
typedef struct band_case {
    band_metric metric;
    const char *arch;             /* GPU generation ("hopper") */
    gpuecon_precision prec;       /* math precision (serving: the weights') */
    bool moe;
    const char *stack;            /* stack or engine (NULL: the command's default) */
    int seq;                      /* training sequence; serving prompt + output tokens */
    int gpus;
    double batch;                 /* serving concurrency; training global batch (0: unknown) */
    unsigned axes;                /* extrapolation axes already found (training: calib_match.axes) */
    const char *const *why;       /* their texts, indexed by calib_axis; NULL: the caller found no axes,
                                     band.c checks the case against its rows itself */
    const gpuecon_calibration *cal; /* the user's calibration applied (NULL: none) */
} band_case;
typedef struct band_set band_set;
/* The held-out errors of every validate group, once per context. */
int band_set_build(gpuecon_ctx *ctx, const gpuecon_catalog *cat, band_set **out, gpuecon_error *err);
void band_set_free(band_set *s);
/* The 80% half-width (ln units) of a prediction calibrated on `runs` measured runs whose fit left a
 * leave-one-out spread `spread` (0: fewer than two runs), where the built-in band of the same case
 * has half-width builtin_half: max(spread, builtin_half * sqrt(1 + 1/runs), the floor 0.04). */
double band_calibrated_half(double builtin_half, double spread, int runs);
/* The band of `point`, the predicted figure of case c (never fails: with no row of the metric, the
 * widest rule, said in basis). */
void band_of(const band_set *s, const band_case *c, double point, gpuecon_band *out);
/* Leave-one-out coverage of held-out rows: the share whose published figure lies inside the band
 * computed without that row, and the median width high/low of those bands. */
typedef struct band_stats {
    size_t n;
    double coverage, median_width;
} band_stats;
typedef struct band_validation {
    band_stats all, train, serve;           /* every held-out row; training; serving (throughput, TPOT) */
    struct {
        char name[40];                      /* a validate group (row.cls) */
        band_stats s;
    } groups[96];
    size_t ngroups;
} band_validation;
/* The coverage of the validate rows of sets[0..nsets) (ns[k] rows each: training, serving,
 * fine-tuning as validate computed them; the RL rows are run here), overall and by group. */
int band_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_validate_row *const *sets,
                  const size_t *ns, size_t nsets, band_validation *out, gpuecon_error *err);
/* The band of a figure derived from the banded point by a fixed ratio: figure·low/point ..
 * figure·high/point (MFU), or with inverse the reciprocal, figure·point/high .. figure·point/low
 * (step time from tokens/s). */
void band_scaled(const gpuecon_band *b, double point, double figure, bool inverse, gpuecon_band *out);

/* ---- band_cases.c: the band cases of the serving, fine-tuning and RL figures ----
 * Each fills band_case from what the figure's request names (GPU generation, precision, dense or
 * MoE, stack, lengths, GPUs, batch, the user's calibration) and asks band_of; a figure <= 0 (or
 * not finite) gets no band (set false). */
typedef struct serve_bands {
    gpuecon_band tps;  /* output tokens/s/GPU (output tokens/s: the same relative band) */
    gpuecon_band tpot; /* ms */
    gpuecon_band ttft; /* ms */
} serve_bands;
/* One serving operating point of deployment r: weights its weight precision, gpus its GPUs,
 * concurrency the requests in the system (0: unknown), and the three predicted figures. */
void band_serving(const band_set *s, const gpuecon_infer_request *r, gpuecon_precision weights, int gpus,
                  double concurrency, double tps_per_gpu, double tpot_ms, double ttft_ms, serve_bands *out);
/* A fine-tuning run's tokens/s (its per-GPU figure has the same relative band). */
void band_finetune(const band_set *s, const gpuecon_finetune_request *r, double tokens_per_s, gpuecon_band *out);
/* An RL step's time, s. */
void band_rl(const band_set *s, const gpuecon_rl_request *r, double step_time_s, gpuecon_band *out);

/* ---- calibfit.c: fitting a calibration's scales to measured runs (docs/model.md §3.8) ----
 * The model is a callback: predict(user, row, scale, &figure) gives row's predicted figure with
 * every parameter family scaled by scale[] (gpuecon_calibration_apply_eff / _profile). The fit
 * minimises the sum of squared ln(predicted/measured) over the rows, in ln(scale), within bounds. */
#define CALIB_FIT_MAX 64
typedef int (*calib_predict_fn)(void *user, size_t row, const double scale[GPUECON_CAL_PARAMS], double *figure,
                                gpuecon_error *err);
typedef struct calib_fit {
    size_t n;                              /* rows */
    double scale[GPUECON_CAL_PARAMS];      /* fitted scales (1: not fitted) */
    bool fitted[GPUECON_CAL_PARAMS];       /* the families the rows determine, at most n of them */
    bool at_bound[GPUECON_CAL_PARAMS];     /* the fitted scale stopped at lo or hi */
    double sensitivity[GPUECON_CAL_PARAMS]; /* mean |d ln predicted / d ln scale| over the rows */
    double before[CALIB_FIT_MAX];          /* ln(predicted/measured) at scale 1, per row */
    double after[CALIB_FIT_MAX];           /* ... at the fitted scales */
    double loo[CALIB_FIT_MAX];             /* ... of row i, fitted on the others (NAN when n < 2) */
    double spread;                         /* 80% half-width of |loo| (0 when n < 2) */
    size_t worst_a, worst_b;               /* the two rows with the largest and smallest residual */
    double residual_gap;                   /* after[worst_a] - after[worst_b] (0 when n < 2) */
} calib_fit;
/* Fits the families in `allowed` (bit p: gpuecon_cal_param p) that the rows determine: in order of
 * mean sensitivity, each with a mean sensitivity of at least 0.05 and a sensitivity vector not
 * collinear (|cos| > 0.98) with one chosen before, never more than the rows. lo[p], hi[p]: the
 * bounds of scale p (physical bounds the caller derives). measured[i] > 0. n in 1..CALIB_FIT_MAX.
 * Returns the callback's error, or GPUECON_E_INPUT for a bad argument. */
int calib_fit_run(size_t n, const double *measured, calib_predict_fn predict, void *user, unsigned allowed,
                  const double lo[GPUECON_CAL_PARAMS], const double hi[GPUECON_CAL_PARAMS], calib_fit *out,
                  gpuecon_error *err);

/* ---- calibrate.c: a user's measured runs fitted group by group (gpuecon calibrate; docs/model.md §3.8) ----
 * One row per measured figure of a run; the request layer fills the request each run's command would
 * make (layout pinned). Rows are grouped by workload x stack x system x precision (a GEMM microbenchmark:
 * system x precision; nccl: the system), and each group's scales are fitted by calib_fit_run. */
typedef struct calrun_row {
    runs_command kind;
    runs_figure figure;
    double measured;             /* in the figure's unit */
    int run;                     /* 1-based run number */
    const char *file;            /* RUNS.yaml */
    int line, col;               /* of the run */
    const char *what;            /* the run in words ("llama3-8b 8xhgx-h100 tp1 pp1") */
    const char *stack;           /* the stack's name (NULL: microbenchmarks) */
    const gpuecon_system *system;
    int precision;
    gpuecon_train_request train; /* kind train, its layout pinned */
    gpuecon_infer_request infer; /* kind infer */
    gpuecon_finetune_request finetune; /* kind finetune */
    double m, n, k;              /* gemm */
    int op, gpus, stride;        /* nccl: gpuecon_coll_op, ranks, rank stride */
    double bytes;
    /* filled by calrun_fit */
    int group;
    double before, after, loo;   /* predictions: as built in, calibrated, fitted on the group's other rows
                                    (NAN: the group has one row) */
} calrun_row;

typedef struct calrun_group {
    int workload;                /* 0 train, 1 finetune, 2 serve, -1 microbenchmark (any) */
    runs_command kind;
    const char *stack;           /* NULL: any */
    const gpuecon_system *system;
    int precision;               /* -1: any */
    size_t rows[CALIB_FIT_MAX];
    size_t n;
    unsigned allowed;            /* the families the group may fit */
    double lo[GPUECON_CAL_PARAMS], hi[GPUECON_CAL_PARAMS]; /* bounds of the scales */
    double bound_value[GPUECON_CAL_PARAMS]; /* the built-in fraction (or time) the upper bound is set by */
    double base[GPUECON_CAL_PARAMS];        /* scales a microbenchmark group fixed (1: none) */
    int base_group[GPUECON_CAL_PARAMS];     /* that group (-1: none) */
    calib_fit fit;
    char name[96];               /* STACK/SYSTEM/PRECISION */
    gpuecon_calibration cal;     /* base x fitted, what the overlay writes */
    double med_before, med_after, med_loo; /* median |predicted/measured - 1| */
    bool contradiction;          /* two runs no scales within bounds reconcile */
    size_t worst_a, worst_b;     /* their rows (indices into the caller's rows) */
} calrun_group;

#define CALRUN_MAX_GROUPS 32
#define CALRUN_CONTRADICTION 0.405465108108164 /* ln 1.5 */
/* Groups the rows, fits each group (microbenchmark groups first, their scales then held fixed in
 * the training and serving groups of the same system), fills each row's before/after/loo and each
 * group's calibration (names point into the rows' strings). A group whose residual gap exceeds
 * ln 1.5 between rows of two different runs is marked a contradiction (not an error: the caller
 * decides). GPUECON_E_INPUT naming a row's file:line:col when the model cannot predict it. */
int calrun_fit(gpuecon_ctx *ctx, calrun_row *rows, size_t n, const char *source, calrun_group *groups,
               size_t *n_groups, gpuecon_error *err);
/* The predicted figure of a row under calibration c (NULL: as built in). */
int calrun_predict(gpuecon_ctx *ctx, const calrun_row *row, const gpuecon_calibration *c, double *figure,
                   gpuecon_error *err);

/* How a returned layout stands against the calibration set. */
typedef struct calib_match {
    bool have_nearest;
    char nearest_id[24], nearest_what[96], nearest_config[64];
    bool nearest_fitted;
    double distance;        /* calib_distance to the nearest row */
    unsigned axes;          /* 1 << calib_axis for each axis outside the set; 0: inside */
    char why[CALIB_AXIS_COUNT][128]; /* for each axis set: what lies outside and the calibrated limit */
    double mfu;             /* the layout's predicted MFU, causal attention counted (mfu_causal) */
    char gpu_prec[40];      /* its GPU generation and precision in words: "ampere bf16" */
    calib_cap cap;          /* for its GPU generation and precision */
    bool above_cap;         /* mfu > cap.mfu: the estimate is above anything ever published */
    double mfu_full;        /* the same with full attention (gpuecon_train_result.mfu), for the text */
    bool far_scale;         /* compute is under CALIB_COMPUTE_SHARE_MIN of the step: past where runs scale */
    char scale_warning[320]; /* why, in words: the batch per GPU and the largest non-compute shares */
} calib_match;
/* A step whose compute is under this share of it is past where published runs scale (their
 * steps are mostly compute; docs/model.md §3.5): train, search and compare warn. */
#define CALIB_COMPUTE_SHARE_MIN 0.35
/* The nearest calibration row to layout (q, r) and its extrapolation axes and MFU flag. Pure. */
void calib_match_of(const calib_set *s, const gpuecon_train_request *q, const gpuecon_train_result *r,
                    calib_match *out);
/* The same against a layout point (what the unit tests pick by hand). */
void calib_match_layout(const calib_set *s, const gpuecon_calib_layout *l, double mfu, calib_match *out);
/* (band.c) */ /* The band of a training prediction's tokens/s/GPU: its case from request q and result r, the
 * extrapolation axes and their texts from m (calib_match_of of the same layout; NULL: the band's own
 * checks), the user's calibration from q->calibration. */
void band_of_train(const band_set *s, const gpuecon_train_request *q, const gpuecon_train_result *r,
                   const calib_match *m, gpuecon_band *out);
/* The search's ranking at the band's low end (docs/model.md §3.5): sets q->rank_band_low (the 80% band's
 * low end over the point of a layout of q whose family a row of s combines, and of one none does: the
 * only axis on which one search's layouts differ) and q->rank_family_covered, from the calibration set
 * s and the band set b (NULL either: both left 0, ranking at the point). Pure, microseconds. */
void calib_rank_band(const calib_set *s, const band_set *b, gpuecon_train_request *q);



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

/* Discrete-event Monte Carlo of the whole job, req->trials independent trials. Trial i uses
 * xoshiro256** seeded by splitmix64 from (ctx seed, i); trials run on OpenMP threads
 * (ctx threads; 0: default) and the result is bit-identical for any thread count. Calls
 * ctx's progress callback (done, total in trials) from the calling thread; a non-zero
 * return stops it with GPUECON_E_CANCELED. Memory is bounded by the topology and the
 * thread count, never the trial count. Errors as gpuecon_reliability_analytic, plus
 * GPUECON_E_NOMEM. */
int gpuecon_reliability_simulate(gpuecon_ctx *ctx, const gpuecon_reliability_request *req,
                                             gpuecon_reliability_mc *out, gpuecon_error *err);

/* ---- serving configuration search (src/analysis/infer_search.c; docs/model.md §6.12) ---- */

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
    bool fixed_weights, fixed_kv; /* base.weights / base.kv are constraints (the user gave them), not
                                     searched: a comparison of "H100 FP8" with "B200" must not hand
                                     the B200 FP4 on its own */
} gpuecon_serve_search_request;

typedef struct gpuecon_serve_config {
    int gpus, tp, replicas, draft_k, max_num_seqs, max_num_batched_tokens;
    int long_prefill_token_threshold;  /* a prompt's tokens per step at most (0: none) */
    int pp;                            /* pipeline stages per replica (replicas = gpus / (tp·pp)) */
    gpuecon_precision weights, kv;
    bool expert_parallel;
    bool attention_dp;                 /* tp is then the expert-parallel group, replicas = gpus */
    int redundant_experts;             /* expert replicas beyond the routed experts (docs/model.md §6.5 EP1) */
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

void gpuecon_serve_search_request_init(gpuecon_serve_search_request *r);
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
int gpuecon_infer_search(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req,
                                     gpuecon_serve_search_result *out, gpuecon_error *err);

/* ---- serving sizing (infer_size.c; docs/model.md §6.12, "Sizing at a rate") ---------------- */

/* The deployable unit of a system for serving: its NVLink (scale-up) domain, the GPUs bought,
 * placed and wired together (the 8-GPU server of an HGX; the 72-GPU rack of an NVL72, whose
 * compute trays reach each other only through the rack's NVLink switch trays). *name, when not
 * NULL: "server", "rack" (a domain of several nodes) or "GPU" (a one-GPU domain). */
int gpuecon_serving_unit(const gpuecon_system *sys, const char **name);

#define GPUECON_SERVE_SIZE_MAX_GPUS 4096 /* the default bound of a sizing: 512 HGX servers, 56 NVL72 racks */

typedef struct gpuecon_serve_size_result {
    gpuecon_serve_search_result search; /* the search at `gpus` (met), or at the bound (the closest) */
    const char *unit;                   /* "server", "rack", "GPU" */
    int unit_gpus;                      /* GPUs per unit */
    int units, gpus;                    /* the answer (when !feasible: the bound) */
    int max_units;                      /* the bound searched */
    int searches;                       /* GPU counts searched */
    bool feasible;                      /* some count up to the bound meets the targets */
    bool fewer_missed;                  /* units - 1 was searched and missed (false at the smallest) */
} gpuecon_serve_size_result;

/* The fewest whole units (gpuecon_serving_unit) between min_gpus (rounded up to a unit, at least
 * one) and max_gpus (rounded down) whose best configuration (gpuecon_infer_search at that count
 * alone, req->gpus ignored) meets the targets at req->rate. Counts are bracketed by doubling from
 * the smallest, then bisected on units: about 2·log2(units) searches.
 * Contract (an assumption, docs/model.md §6.12): feasibility is monotone in the unit count — a
 * configuration meeting the targets on k units has replicas that fit a unit (TP·PP dividing it),
 * and on k+1 units the same replicas, one unit's more of them, share the same rate, so each sees
 * less load and its TTFT and TPOT do not grow (§6.4). Layouts whose replica spans several units
 * (attention-DP past one NVLink domain, pipelines across servers) may break it; a count between
 * two searched ones is then not tried. GPUECON_E_INFEASIBLE when no count up to the bound meets
 * them (*out holds the search at the bound); GPUECON_E_INPUT for a rate <= 0, a bound holding no
 * whole unit, and what gpuecon_infer_search refuses. */
int gpuecon_infer_size(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req, int min_gpus, int max_gpus,
                       gpuecon_serve_size_result *out, gpuecon_error *err);

/* ---- default serving layouts (src/analysis/infer_layout.c; docs/model.md §6.12) ---- */

typedef struct infer_layout_eval {
    int tp, pp, replicas;
    double metric;                      /* what ranks: tokens/s/GPU at the load, at a rate the capacity */
    double output_tokens_per_s_per_gpu; /* at the load */
    double ttft_ms, tpot_ms, e2e_ms;    /* analytic means at the load */
    bool meets;                         /* the targets given (none: true) */
} infer_layout_eval;

typedef struct infer_layout_choice {
    infer_layout_eval chosen;
    infer_layout_eval smallest; /* the smallest TP that fits, unpipelined (the former default) */
    bool has_smallest;          /* it fits (and, at a rate, serves it): `smallest` holds its figures */
    bool smallest_fits;         /* it fits (at a rate it may not serve it) */
    int evaluated;              /* layouts that fit (and serve the rate) */
    double rate;                /* the load was a rate (requests/s); 0: a concurrency or saturation */
    double concurrency;         /* the load was this concurrency; 0: saturation (or the rate) */
} infer_layout_choice;

/* infer's layout when the user gives neither TP nor PP: every TP (dividing req->gpus, inside
 * the NVLink domain, splitting the heads; attention-DP: any divisor) × PP (1, 2, 4, ... dividing
 * gpus/TP, not with attention-DP or a draft) with the rest of *req kept, each timed by the
 * analytic model at req->concurrency (0: its saturation) or, with rate > 0, at the least load
 * serving it. Layouts whose mean TTFT and TPOT meet the targets (0: none) rank first, then by
 * output tokens/s per GPU at the load (at a rate: at saturation, the headroom), values within
 * GPUECON_SERVE_CAPACITY_TIE going to the lower request latency. GPUECON_E_INFEASIBLE when no
 * layout fits (or serves the rate). */
int infer_layout_choose(const gpuecon_infer_request *req, double rate, double ttft_ms, double tpot_ms,
                        infer_layout_choice *out, gpuecon_error *err);

/* The aggregated deployment a disaggregated one is compared with: gpuecon_infer_search at
 * `rate` under the targets, the precisions of *base fixed, analytic (no simulator checks, as
 * the disaggregated figures), on 1, 2, ... max_gpus GPUs, the first count with a configuration
 * meeting the targets (the fewest GPUs) giving *out. *evaluated: configurations timed.
 * GPUECON_E_INFEASIBLE (naming "rate") when none does. */
int infer_aggregated_baseline(gpuecon_ctx *ctx, const gpuecon_infer_request *base, double rate, double ttft_ms,
                              double tpot_ms, int max_gpus, gpuecon_serve_config *out, long *evaluated,
                              gpuecon_error *err);

const char *gpuecon_rl_placement_name(gpuecon_rl_placement p); /* "colocated", ... */

/* GRPO defaults: 1 epoch, 1 mini-batch, cv 0.6, no oversampling, bf16 everywhere, offload on,
 * synchronous, colocated, the generic serving profile, 1000 steps, tier typical. */
void gpuecon_rl_request_init(gpuecon_rl_request *r);

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
int gpuecon_rl_predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_rl_request *req,
                                   gpuecon_rl_result *out, gpuecon_error *err);
/* The step alone (rl.c): gpuecon_rl_predict without the cost, whose fields are NaN and costed
 * false (compare prices each platform itself). Same errors. */
int rl_step(gpuecon_ctx *ctx, const gpuecon_rl_request *req, gpuecon_rl_result *out, gpuecon_error *err);
/* The RL step model against published GRPO step times (src/analysis/rl_validate.c; docs/model.md
 * §8.8): rows in gpuecon_validate's format whose published and predicted are step times in seconds
 * (group "rl"; a row the model cannot run is "rl-no-fit", fits false, predicted 0, its reason in
 * note, and left out of *summary); fitted_on marks the rows that informed a choice of §8.5.
 * Writes up to cap rows (gpuecon_rl_validate_count() is enough). Errors: GPUECON_E_INPUT for NULL
 * arguments, NOMEM. */
size_t gpuecon_rl_validate_count(void);
/* The training stack the rows run (NeMo-RL's own Megatron settings), for outputs to name. */
const char *gpuecon_rl_validate_stack(void);
/* The serving engine stack an RL step generates with unless one is given: vLLM, the generator of
 * NeMo-RL, veRL and OpenRLHF (docs/model.md §8.2). */
#define GPUECON_RL_GEN_STACK "vllm-v1"
/* Puts r's generator on GPUECON_RL_GEN_STACK from cat; a catalog without that engine leaves the
 * generic profile gpuecon_rl_request_init set. */
void rl_default_engine(const gpuecon_catalog *cat, gpuecon_rl_request *r);
/* A user's calibrations from cat's overlay (gpuecon calibrate; docs/model.md §3.8) into r: the trainer's
 * (r->stack x system x r->train_precision) as r->train_calibration, and the generator engine's (its profile x
 * system x r->gen_weights) applied to r->serving. system: the catalog system's name. None found: unchanged. */
void rl_user_calibrations(const gpuecon_catalog *cat, const char *system, gpuecon_rl_request *r);
int gpuecon_rl_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows,
                                    size_t cap, size_t *n, gpuecon_validate_summary *summary, gpuecon_error *err);
/* One published on-policy / one-step-off-policy pair of the RL rows (same model, system and GPU
 * count): the step-time gap, on minus off, published and predicted. */
typedef struct gpuecon_rl_pair {
    char on[24], off[24];
    double published_gap_s, predicted_gap_s;
} gpuecon_rl_pair;
/* The pairs among rows (from gpuecon_rl_validate) whose both rows were predicted; returns how many
 * (at most cap) were written. */
size_t gpuecon_rl_validate_pairs(const gpuecon_validate_row *rows, size_t n, gpuecon_rl_pair *out, size_t cap);
/* Median of the signed errors (rel_err) of the rows `fit` selects that fit; 0 when none. */
double gpuecon_validate_signed_median(const gpuecon_validate_row *rows, size_t n, gpuecon_validate_fit fit);
/* Same quality, not just same tokens (McCandlish et al. 2018, "An Empirical Model of
 * Large-Batch Training", eq. 2.11): training at batch B (tokens) needs E = E_min·(1 + B/B_crit)
 * tokens and S = S_min·(1 + B_crit/B) steps. These return the factors (1 + B/B_crit) and
 * (1 + B_crit/B); both are 1 when critical_batch_tokens <= 0 (no penalty). */
double gpuecon_batch_token_factor(double batch_tokens, double critical_batch_tokens);
double gpuecon_batch_step_factor(double batch_tokens, double critical_batch_tokens);

/* ---- comparing platforms (src/analysis/compare.c, decide.c) ---- */

typedef struct gpuecon_compare_options {
    int trials;              /* Monte Carlo trials per training platform; 0: analytic only */
    bool no_sensitivity;     /* skip break-even and sensitivity */
    double step;             /* sensitivity step, relative; 0: 0.20 */
    const char *stack;       /* stack of workloads and platforms that name none; NULL:
                                megatron-bridge-2026 (docs/model.md §3.7) */
    bool no_uncertainty;     /* skip the validate bands of predicted throughputs (docs/model.md §7.5) */
    bool trade;              /* training: each platform also at the sizes around its own (trade[]) */
    const calib_set *calib;  /* training: the calibration set that ranks each searched layout at its
                                MFU cap and sets each against it (docs/model.md §3.5); NULL: neither */
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
    double power_limit_w;       /* the GPUs' power limit when below the board maximum; 0: none */
    double clock_factor;        /* the sustained tensor-core clock at it over the board maximum's */
    bool feasible;              /* false: see why; the numbers below are then NaN */
    char why[560];
    int gpus;                   /* active GPUs (training) / GPUs deployed (serving) */
    /* throughput */
    double tokens_per_s_per_gpu;          /* the one used */
    bool measured;                        /* a scenario measurement replaced the prediction */
    gpuecon_source throughput_source;
    double predicted_tokens_per_s_per_gpu;/* NaN when the model could not predict */
    const gpuecon_calibration *user_calibration; /* the user's calibration the prediction used (NULL: none) */
    char predicted_note[560];             /* layout, or why there is no prediction */
    bool have_calib;                      /* training, predicted: calib holds where the layout stands */
    calib_match calib;                    /* against the training calibration set (docs/model.md §3.5) */
    double published_tokens_per_s_per_gpu;/* shown for reference; 0 when none */
    double mfu;                           /* at the used throughput (training) */
    gpuecon_parallel par;                 /* of the prediction (training) */
    const char *stack;                    /* the framework stack of the prediction (training) */
    gpuecon_band band;                    /* the 80% band of a predicted tokens_per_s_per_gpu (training
                                             or serving; docs/model.md §7.6); unset when measured */
    gpuecon_band band_tpot, band_ttft;    /* serving, predicted: the 80% bands of tpot_ms and ttft_ms at
                                             the operating load (§7.6); unset otherwise */
    gpuecon_band band_rl_step;            /* rl, predicted: the 80% band of rl_step_time_s (the RL rows'
                                             held-out errors, §7.6), band its inverse; unset otherwise */
    /* with options.uncertainty: share of the joint samples in which this platform is cheapest
       (ranked cost), and the P10/P50/P90 of its effective $/Mtok over them */
    double probability_cheapest;
    double probability_meets_target;      /* serving with latency targets, training with target_days: share of
                                             the samples in which it meets them (docs/model.md §7.5); NaN
                                             otherwise */
    double probability_lower_load;        /* serving: the share met only below the operating load; NaN otherwise */
    double probability_within_budget;     /* training with budget_usd: the share whose total fits it; NaN
                                             otherwise */
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
    /* serving at the workload's rate (docs/model.md §7.1): sized to the fewest units meeting the
       targets (gpus = units x unit_gpus), or searched at the platform's gpus (units 0) */
    bool at_rate;
    const char *unit;                     /* "server", "rack", "GPU" */
    int units, unit_gpus, pp;
    bool fewer_units_missed;              /* units - 1 were searched and missed */
    gpuecon_precision weights, kv;        /* the configuration's (searched within what was given) */
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
const char *gpuecon_input_label(const char *input);
/* Entry i of that table (name and label), for front ends that show them all; false past the end. */
bool gpuecon_input_label_at(size_t i, const char **input, const char **label);

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
    char verdict[2048];
    char caveats[1200];       /* inputs the verdict rests on that are projections/assumptions */
    bool batch_penalty;       /* the workload gave a critical batch */
    gpuecon_breakeven *breakeven;
    size_t n_breakeven;
    gpuecon_sensitivity *sensitivity;
    size_t n_sensitivity;
    /* timelines: at each point date of the two best platforms on which both are rated, the
       leader's performance per TCO over the other's with the software in force that day (raw:
       at full goodput, as the published ratios are; effective: the ranked cost with failures
       and spares), and whether a point there is a projection */
    struct {
        char date[11];
        double perf_per_tco, effective_ratio;
        bool projection;
    } series[2 * GPUECON_TIMELINE_MAX];
    size_t n_series;
    int series_leader, series_other; /* platform indices of the ratio */
    /* timelines: the first start date from which a run of the workload is cheaper on the leader
       (the platform cheaper for a run starting on the last point date) than on the other, each
       throughput in force from its point's date until the next (timeline.c; "" = the leader is
       cheaper on every date both are rated: JSON null) */
    char breakeven_date[11];
    char timeline_text[1000];
    /* deadline and budget: the fastest platform within budget_usd (-1: none or no budget) */
    int fastest_within_budget;
    /* operator tiers (training, platforms at two or more tiers, both kinds of system): the
       cheapest platform at each tier (best, typical, poor; -1 when the tier has none), whether
       it is rack-scale (NVLink domain beyond one server: NVL72), and the first tier at which
       the cheapest kind of system changes from the best tier's ("" = no flip: JSON null) */
    int tier_cheapest[3];
    int tier_runner_up[3];    /* the cheapest other system at the tier (-1: none) */
    int tier_fastest[3];      /* fewest days at the tier (-1: none) */
    bool tiered;              /* platforms at two or more tiers, two systems at one: rivals are
                                 other systems at the same tier (tiers.c) */
    bool tier_rack_scale[3];
    bool tier_analysis;
    char flip_tier[8];
    char tier_text[400];
    int uncertainty_samples;  /* joint samples drawn (options.uncertainty; 0: none) */
} gpuecon_comparison_result;

/* What would flip a comparison soonest: the index in cr->breakeven of the found break-even of a
 * numeric input (MTBI, TCO, throughput, PUE, electricity) nearest today's value, |ln(value /
 * current)| smallest (the first of equals), else of a spares policy that flips it; -1 when no
 * single input flips it (or nothing was analysed). The summary's "what would flip it". */
int gpuecon_nearest_flip(const gpuecon_comparison_result *cr);

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
int gpuecon_compare(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_scenario *sc,
                                const gpuecon_compare_options *opt, gpuecon_compare_result **out,
                                gpuecon_error *err);
void gpuecon_compare_free(gpuecon_compare_result *r);

/* One training run at a known throughput, costed exactly as compare costs a platform: TCO at
 * the facility PUE, goodput (ETTR) of the reliability model for the system and operator tier,
 * spares charged or not, days, dollars and MWh (src/analysis/compare.c). Fill it with
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

void gpuecon_run_request_init(gpuecon_run_request *r);
/* Fills out (the same record compare fills per platform: ettr, provisioned_gpus,
 * effective_usd_per_mtok, days_to_train, total_usd, energy_mwh, ...). GPUECON_E_INPUT names
 * the offending option (--system, --profile, --tier, --gpus, --pue, --mtbi-gpu-days, --tokens,
 * --start-date: not an ISO date, or no catalog timeline for the system, model and precision);
 * GPUECON_E_INFEASIBLE when the reliability model leaves no goodput (out->why says so). */
int gpuecon_run_cost(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_run_request *req,
                                 gpuecon_platform_result *out, gpuecon_error *err);

/* ---- deadlines: the fewest GPUs that finish by a date (src/analysis/target.c) ---- */

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
int gpuecon_target_unit(const gpuecon_catalog *cat, const gpuecon_run_request *run,
                                    gpuecon_error *err);
/* The fewest active GPUs, in whole domains of gpuecon_target_unit, whose run (treq at that
 * size: the layout search picks the layout; rreq: profile, tier, tokens, ...) finishes within
 * target_days including failures, restarts and spares (gpuecon_run_cost). The result is
 * checked: gpus_needed meets the deadline and gpus_needed − unit does not. Sizes up to
 * max_gpus (0: 1,000,000). GPUECON_E_INPUT for a deadline <= 0 or no token budget;
 * GPUECON_E_INFEASIBLE when no size meets it (out->nearest_gpus/nearest_days: the fastest tried;
 * out->rows still holds the trade table). */
int gpuecon_train_target(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                     const gpuecon_train_request *treq, const gpuecon_run_request *rreq,
                                     double target_days, int max_gpus, gpuecon_target_result *out,
                                     gpuecon_error *err);

/* ---- the life of an owned cluster (src/analysis/life.c) ---- */

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

void gpuecon_life_request_init(gpuecon_life_request *r);
/* Cost per million tokens of owning the run's GPUs over life_years (the TCO for every hour,
 * the timeline's throughput in force at the start of each year) against renting them at
 * rent_usd_per_gpu_hour for the hours used; and the month from which owning has cost less
 * (capex up front, then colo, fixed, maintenance every month and electricity for the hours
 * used, against rent, both discounted monthly at the profile's rate). GPUECON_E_INPUT names
 * the option out of range; GPUECON_E_INFEASIBLE when the workloads do not fit in a year. */
int gpuecon_cluster_life(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_life_request *q,
                                     gpuecon_life_result *out, gpuecon_error *err);

/* ---- timeline.c ---- */
/* Index of the point in force on `day` (the latest dated on or before it), or -1. */
int timeline_in_force(const gpuecon_timeline_point *p, size_t n, long day);
/* A run of `tokens` from day `start`, at cluster_per_tok tokens per day per tokens/s/GPU
 * (GPUs · ETTR · 86400), using the point in force each day (`before` ahead of the first):
 * returns the equivalent constant throughput (tokens-weighted harmonic mean) and marks the
 * points used; NaN when no throughput is in force at the start. */
double timeline_run(const gpuecon_timeline_point *p, size_t n, long start, double before, double tokens,
                    double cluster_per_tok, bool *used);

/* ---- memo.c: stored training predictions (gpuecon_memo); thread-safe ---- */
/* Copies a stored answer to *rc, *res and err (may be NULL); false when there is none. */
bool memo_get(gpuecon_memo *m, const gpuecon_train_request *req, int *rc, gpuecon_train_result *res,
              gpuecon_error *err);
/* Stores an answer (not a cancelled or out-of-memory one), replacing the oldest when full. */
void memo_put(gpuecon_memo *m, const gpuecon_train_request *req, int rc, const gpuecon_train_result *res,
              const gpuecon_error *err);

/* ---- validate.c, validate_recipes.c ---- */
typedef const gpuecon_efficiency *(*validate_pick_fn)(const gpuecon_gpu *gpu, const gpuecon_efficiency *tab,
                                                      size_t n);
/* gpuecon_validate_serving's rows of `group` only (the set "serving" or one class such as
 * "serving-hopper-fp8"; NULL: every row), so `validate --group` simulates no other row. Without
 * predict_rows nothing is simulated: the rows carry their ids, deployments and classes, with
 * predicted 0 (what naming the groups needs). */
int validate_serving_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *group, bool predict_rows,
                          gpuecon_validate_row *rows, size_t cap, size_t *n, gpuecon_error *err);
/* The calibration point of a training request and its prediction (the layout from r->par, the
 * rest from q): what validate stores in each training row and what a returned layout is
 * compared with. Pure; q->model and q->system must be set. */
void calib_layout_of(const gpuecon_train_request *q, const gpuecon_train_result *r, gpuecon_calib_layout *out);
/* Every training row calls this once its request is predicted: row->cls and row->layout. A new
 * table of training rows that calls it joins the calibration set (calibset.c) with nothing else
 * to change; the calibset unit test checks that every training row has its layout. */
void validate_set_train(gpuecon_validate_row *row, const gpuecon_train_request *q, const gpuecon_train_result *r);
/* Appends a row to rows[0, *n): zeroed, with its id, set (group) and source; *n advances. The
 * caller has checked the capacity. */
static inline gpuecon_validate_row *validate_row_next(gpuecon_validate_row *rows, size_t *n, const char *id,
                                                      const char *group, const char *source)
{
    gpuecon_validate_row *row = &rows[(*n)++];
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", id);
    snprintf(row->group, sizeof row->group, "%s", group);
    snprintf(row->source, sizeof row->source, "%s", source);
    return row;
}
/* Sets row->cls from the GPU generation, precision and dense/moe ("hopper-fp8-moe"). A training
 * row calls validate_set_train instead, which sets this and files its calibration point. */
static inline void validate_set_class(gpuecon_validate_row *row, const gpuecon_gpu *gpu, gpuecon_precision p,
                                      bool moe)
{
    snprintf(row->cls, sizeof row->cls, "%s-%s-%s", gpu && gpu->arch ? gpu->arch : "?", gpuecon_precision_name(p),
             moe ? "moe" : "dense");
}
/* The 2024-26 recipe runs (calibration A41-A67), each with its stack; kind -1 every row, 0 the
 * dense ones, 1 the MoE ones. */
int validate_recipe_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick,
                         const gpuecon_efficiency *tab, size_t n_eff, int kind, gpuecon_validate_row *rows,
                         size_t cap, size_t *n, gpuecon_error *err);
/* gpuecon_validate's rows of one kind only (dense: the named cases, vTrain when `vtrain`, the
 * dense recipe rows; moe: the MoE cases and recipe rows), built-in efficiencies: what compare's
 * uncertainty bands need, at a fraction of the cost. */
/* torchtitan's published runs (src/analysis/validate_torchtitan.c; set "torchtitan", classes
 * "torchtitan-<generation>-<precision>"), each through its torchtitan stack. */
size_t validate_torchtitan_count(void);
int validate_torchtitan_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick,
                             const gpuecon_efficiency *tab, size_t n_eff, gpuecon_validate_row *rows, size_t cap,
                             size_t *n, gpuecon_error *err);
int validate_kind(gpuecon_ctx *ctx, const gpuecon_catalog *cat, bool moe, bool vtrain, gpuecon_validate_row *rows,
                  size_t cap, size_t *n, gpuecon_error *err);

/* ---- one validate row predicted again with a candidate calibration (validate --leave-one-out) ----
 * Each table's replay builds the row's request exactly as its table loop does (the same function),
 * applies the calibration (training: the request's `calibration`; serving and fine-tuning: the
 * profile through gpuecon_calibration_apply_profile) and predicts the row's figure. With cal NULL the
 * figure is the row's `predicted`, bit for bit. */
typedef struct validate_replay {
    double figure;          /* the row's predicted figure, in its metric's unit */
    const char *system;     /* the system the row ran on (a catalog name, or the table's own cluster) */
    const char *stack;      /* its framework stack or serving engine (profile) */
    gpuecon_precision prec; /* math precision (serving: the weights') */
    bool moe;
    bool measurable;        /* a figure a user measures on one deployment (tokens/s, TPOT, step time): not
                               a ratio of two runs, a memory or a count, which no calibration moves */
    double frac_max[GPUECON_CAL_PARAMS]; /* the largest built-in fraction of each family of fractions
                               (gemm, hbm, comm) the row runs with: what bounds its scale (0: none) */
} validate_replay;
/* frac_max of an efficiency row (training) or a serving profile (serving, fine-tuning). */
static inline void validate_frac_max_eff(const gpuecon_efficiency *e, double m[GPUECON_CAL_PARAMS])
{
    memset(m, 0, GPUECON_CAL_PARAMS * sizeof m[0]);
    if (!e)
        return;
    double g = e->gemm_bf16 > e->gemm_fp8 ? e->gemm_bf16 : e->gemm_fp8;
    g = g > e->gemm_fp4 ? g : e->gemm_fp4;
    g = g > e->attn_flash ? g : e->attn_flash;
    m[GPUECON_CAL_GEMM] = g > e->attn_fwd ? g : e->attn_fwd;
    m[GPUECON_CAL_HBM] = e->hbm;
    double c = e->scaleup_busbw > e->scaleout_busbw ? e->scaleup_busbw : e->scaleout_busbw;
    m[GPUECON_CAL_COMM] = c > e->scaleout_a2a ? c : e->scaleout_a2a;
}
static inline void validate_frac_max_profile(const gpuecon_serving_profile *p, double m[GPUECON_CAL_PARAMS])
{
    memset(m, 0, GPUECON_CAL_PARAMS * sizeof m[0]);
    if (!p)
        return;
    m[GPUECON_CAL_GEMM] = p->eta_c > p->eta_train ? p->eta_c : p->eta_train;
    double h = p->eta_bw > p->eta_kv ? p->eta_bw : p->eta_kv;
    m[GPUECON_CAL_HBM] = h > p->eta_moe ? h : p->eta_moe;
    m[GPUECON_CAL_COMM] = p->eta_link_small > p->eta_link_large ? p->eta_link_small : p->eta_link_large;
}
/* Whether a table's case id is a row's id as stored (validate_row_next keeps sizeof row->id - 1 chars). */
static inline bool validate_id_is(const char *case_id, const char *row_id)
{
    size_t cap = sizeof(((gpuecon_validate_row *)0)->id) - 1;
    return strncmp(case_id, row_id, cap) == 0 && strlen(row_id) == (strlen(case_id) < cap ? strlen(case_id) : cap);
}
/* A training row of gpuecon_validate by id (built-in efficiencies). GPUECON_E_NOTFOUND: no such row. */
int validate_train_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id,
                          const gpuecon_calibration *cal, validate_replay *out, gpuecon_error *err);
int validate_recipe_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick, const char *id,
                           const gpuecon_calibration *cal, validate_replay *out, gpuecon_error *err);
int validate_torchtitan_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, validate_pick_fn pick, const char *id,
                               const gpuecon_calibration *cal, validate_replay *out, gpuecon_error *err);
/* A serving row of gpuecon_validate_serving by id; GPUECON_E_NOTFOUND: none. Without `predict` only
 * the description (figure 0): the benchmark rows are simulated, a few hundredths of a second each. */
struct infer_sim_trace;
int validate_serving_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id,
                            const gpuecon_calibration *cal, bool predict, const struct infer_sim_trace *trace,
                            validate_replay *out, gpuecon_error *err);
/* A simulated (trtllm-bench) serving row run once with its steps recorded, for validate_serving_replay's
 * `trace` (NULL there: simulate): with a calibration the row is then re-timed, not simulated again,
 * wherever the calibrated deployment schedules alike (model/infer.h: infer_sim_trace). *out NULL (not an
 * error) when the row is not simulated, or when re-timing the recorded run under the built-in constants
 * does not give its simulated figure bit for bit. *figure: the simulated figure (0: not simulated).
 * Owned: validate_serving_trace_free. */
int validate_serving_trace(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id, struct infer_sim_trace **out,
                           double *figure, gpuecon_error *err);
void validate_serving_trace_free(gpuecon_ctx *ctx, struct infer_sim_trace *t);
/* A fine-tuning row of gpuecon_validate_finetune by id; GPUECON_E_NOTFOUND: none. */
int validate_finetune_replay(const gpuecon_catalog *cat, const char *id, const gpuecon_calibration *cal,
                             validate_replay *out, gpuecon_error *err);

/* An RL row of gpuecon_rl_validate by id (rl_validate.c): its step time with cal applied to the trainer
 * (train_calibration) and to the generator's profile alike. GPUECON_E_NOTFOUND: none. */
int validate_rl_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id, const gpuecon_calibration *cal,
                       validate_replay *out, gpuecon_error *err);

/* ---- validate_loo.c: calibration on K rows of a group, tested on the group's other rows ----
 * (docs/model.md §3.9, `validate --leave-one-out`, `--calibrate-on K`). A group is the rows that
 * share stack, system, precision and dense/MoE, whose figure a user measures (validate_replay.measurable;
 * training tokens/s/GPU, serving throughput and TPOT mixed: the fit works in log error). For every
 * choice of K rows of a group with more than K rows (K = 1: every row; K = 2: every pair, at most
 * VALIDATE_LOO_CHOICES evenly spaced in lexicographic order), calib_fit_run fits the families those
 * rows determine within validate_loo_bounds, and every other row of the group is predicted with the
 * fitted calibration. */
#define VALIDATE_LOO_K_MAX 2
/* The narrowest band half-width, ln units (band.c's BAND_FLOOR: one configuration published twice). */
#define VALIDATE_LOO_BAND_FLOOR 0.04
#define VALIDATE_LOO_CHOICES 64
enum { VALIDATE_SET_TRAIN, VALIDATE_SET_SERVING, VALIDATE_SET_FINETUNE, VALIDATE_SET_RL, VALIDATE_SETS };
typedef struct validate_loo_group {
    char name[96];              /* "stack / system / precision / dense|moe" */
    char stack[32], system[32];
    gpuecon_precision prec;
    bool moe;
    int set;                    /* VALIDATE_SET_*: the rows' set */
    size_t rows;                /* its measurable rows */
    size_t fitted_rows;         /* of which the built-in constants were fitted on (fitted_on) */
    size_t choices, choices_all; /* calibration sets tried, and how many exist */
    size_t predictions;         /* held-out predictions made */
    bool evaluated;             /* rows > K */
    double calibrated_median_abs_err;   /* median |predicted/published - 1| of every held-out prediction
                                           (NAN when not evaluated) */
    double calibrated_max_abs_err;
    double uncalibrated_median_abs_err; /* the group's rows with the built-in constants */
    size_t fitted[GPUECON_CAL_PARAMS];  /* fits that fitted each family */
    size_t at_bound;            /* fits in which a fitted family stopped at a bound */
    double band_coverage;       /* share of the held-out predictions whose published figure lies inside the
                                   calibrated band, prediction x exp(+-band_calibrated_half(the row's built-in
                                   band half-width without it, the fit's leave-one-out spread, K)) as band.c
                                   gives a calibrated prediction (NAN: not evaluated) */
    double movable_share;       /* mean over the fits of sum_p |d ln figure / d ln scale_p| on the calibration
                                   rows, as built in: for a time or a rate made of parts each moved by one
                                   family, the share of it the families move (the rest, e.g. an RL step's
                                   fixed waits, no calibration reaches); NAN: not evaluated */
    double movable_min, movable_max; /* the smallest and largest of those sums over the fits */
} validate_loo_group;
typedef struct validate_loo_pred {
    size_t group;               /* index into groups */
    const gpuecon_validate_row *row; /* the held-out row */
    double abs_err;             /* |predicted with the calibration / published - 1| */
    bool in_band;               /* the published figure inside the calibrated band */
    double band_half;           /* that band's half-width, ln units */
} validate_loo_pred;
typedef struct validate_loo_summary {
    size_t groups;
    double calibrated, built_in; /* NAN: no group */
} validate_loo_summary;
typedef struct validate_loo {
    int k;
    validate_loo_group *groups;
    size_t n;
    validate_loo_pred *pred;    /* every held-out prediction, by group then choice */
    size_t npred;
    double lo[GPUECON_CAL_PARAMS], hi[GPUECON_CAL_PARAMS]; /* the widest bounds of the scales (each
                                                                 fit: validate_loo_bounds of its rows) */
    size_t evaluated;           /* groups with more than K rows */
    double median_abs_err;      /* over every held-out prediction of every group (NAN: none) */
    /* medians of the evaluated groups' medians, calibrated and built in: every group, the groups none of
     * whose rows the built-in constants were fitted on (held out), and the others (fitted) */
    validate_loo_summary all, held, fitted;
    gpuecon_ctx *ctx;
} validate_loo;
/* The bounds of each family's scale in a fit on rows whose largest built-in fractions are frac_max (the
 * rule `gpuecon calibrate` states, restated in docs/model.md §3.9): a family of fractions from a tenth of the built-in
 * values up to where its largest member reaches GPUECON_CAL_FRACTION_MAX of the peak; fixed times 0.1x to
 * 10x. frac_max NULL: the fraction families' upper bound is left at 10 (the clamp in apply_eff/_profile
 * still holds each fraction under GPUECON_CAL_FRACTION_MAX). */
void validate_loo_bounds(const double *frac_max, double lo[GPUECON_CAL_PARAMS], double hi[GPUECON_CAL_PARAMS]);
/* Runs the leave-K-in test on the rows of the three sets (rows[s], n[s]; validate's rows as predicted, n
 * may be 0). k in 1..VALIDATE_LOO_K_MAX. Runs on ctx's threads; the result is the same for any thread
 * count. The caller owns *out (validate_loo_free). Errors: GPUECON_E_INPUT (k), the replays' errors,
 * GPUECON_E_INTERNAL when a row re-predicted without calibration differs from validate's prediction. */
int validate_loo_run(gpuecon_ctx *ctx, const gpuecon_catalog *cat, int k,
                     const gpuecon_validate_row *const rows[VALIDATE_SETS], const size_t n[VALIDATE_SETS],
                     validate_loo *out, gpuecon_error *err);
void validate_loo_free(validate_loo *l);
/* The median |error| of the held-out predictions of the rows of validate class `cls` in set `set`
 * (NAN: none): the calibrated figure of a groups[] entry. */
double validate_loo_class_median(const validate_loo *l, int set, const char *cls);


#endif
