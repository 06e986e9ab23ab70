/*
 * render/render.h — the render layer's private declarations: aligned terminal tables that also
 * print as CSV and HTML, number formatting, SVG charts, plot data. Renders the analyses'
 * results; never installed.
 */
#ifndef GPUECON_RENDER_H
#define GPUECON_RENDER_H

#include "analysis/analysis.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- table.c: a table of text cells, each with a raw (CSV) and a display form ---- */
typedef struct tbl tbl;

/* A table whose memory comes from ctx's allocator. Never NULL: when memory runs out (here or at any later cell) *oom (may be NULL) is set and the
 * table takes no more cells and prints nothing, so a request fails as a whole (request.c) rather
 * than printing half a table; the library never exits. */
tbl *tbl_new(gpuecon_ctx *ctx, bool *oom);
void tbl_free(tbl *t);
/* Adds a column; align 'l' or 'r'. Call before the first row. */
void tbl_col(tbl *t, const char *name, char align);
/* A column named by a human label on the terminal and in HTML ("80% low") and by its key in the CSV
 * header ("tokens_per_s_per_gpu_low"), as JSON names it. */
void tbl_col_key(tbl *t, const char *label, const char *key, char align);
/* Starts a new row; cells are then appended left to right. */
void tbl_row(tbl *t);
void tbl_str(tbl *t, const char *s);
/* A cell shown as display on the terminal and written as raw in CSV (a figure formatted for people,
 * unformatted in CSV). */
void tbl_text(tbl *t, const char *display, const char *raw);
/* A cell that stands for the rest of its row (a "cannot run: <why>" message): on the terminal it
 * sets no column's width and runs whole over the columns to its right, wrapped at spaces to the
 * table's width or 100 columns, whichever is wider (never cut); HTML spans those columns; CSV writes raw (NULL: display) in its own
 * column. The row takes no more cells. */
void tbl_span(tbl *t, const char *display, const char *raw);
void tbl_fmt(tbl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number shown with `decimals` decimals and thousands separators; CSV gets %.10g. */
void tbl_num(tbl *t, double v, int decimals);
/* A number shown as a percentage with `decimals` decimals (v = 0.123 -> "12.3%"). */
void tbl_pct(tbl *t, double v, int decimals);
/* A row of a "quantity | value | unit | note" table: v with `decimals` decimals; note NULL: "". */
void tbl_quantity(tbl *t, const char *quantity, double v, int decimals, const char *unit, const char *note);
/* A horizontal separator row (terminal only). */
void tbl_sep(tbl *t);
void tbl_print(const tbl *t, strbuf *f);
void tbl_csv(const tbl *t, strbuf *f);

/* ---- format.c ---- */
/* v with `decimals` decimals and ',' thousands separators into buf. */
char *fmt_num(char *buf, size_t cap, double v, int decimals);
/* Engineering form: 1.2e9 -> "1.20 G" with an SI prefix, 3 significant digits. */
char *fmt_si(char *buf, size_t cap, double v, const char *unit);
/* Writes s as a CSV field (quoted when needed). */
void csv_field(strbuf *f, const char *s);

/* ---- plot.c: SVG line charts as gnuplot scripts (plot_script, below strbuf) ---- */
typedef struct plot_series {
    const char *name;
    const double *x, *y;
    size_t n;
    bool y2; /* on the right-hand axis */
} plot_series;

typedef struct plot_spec {
    const char *title, *xlabel, *ylabel, *y2label; /* y2label NULL: no second axis */
    bool logx, logy;
    int width, height; /* pixels; 0: 800 x 480 */
} plot_spec;


/* ---- svg.c: charts drawn as inline SVG ---- */

#define SVG_MAX_PARTS 8
typedef struct svg_bar {
    const char *label;
    double value;
    const char *note; /* may be NULL */
} svg_bar;
typedef struct svg_stack {
    const char *label;
    double parts[SVG_MAX_PARTS];
} svg_stack;
typedef struct svg_tornado_row {
    const char *label;
    double low, high; /* the output when the input moves down / up (NAN: not shown) */
} svg_tornado_row;

void svg_bars(strbuf *b, const char *title, const char *unit, const svg_bar *bars, size_t n);
void svg_stacked(strbuf *b, const char *title, const char *unit, const char *const *parts, size_t nparts,
                 const svg_stack *rows, size_t n);
void svg_tornado(strbuf *b, const char *title, double base, const svg_tornado_row *rows, size_t n,
                 const char *unit);
/* Ratios (value = ratio to today, label, note unused) as bars from 1 on a log2 axis that is
 * symmetric about 1, so halving and doubling look equally far; bars below 1 ("must fall") and
 * above 1 ("must rise") take one colour each, and ticks are labelled in % of today. */
void svg_ratios(strbuf *b, const char *title, const svg_bar *rows, size_t n);

/* Appends the gnuplot script that draws the chart and writes it as SVG to path (the data
 * inline): the front end runs it (gpuecon_request_plots). */
void plot_script(strbuf *b, const char *path, const plot_spec *spec, const plot_series *series, size_t n);

/* A table as an HTML <table> (escaped). */
void tbl_html(const tbl *t, strbuf *b);
/* Columns of the table (0 for a failed one). */
int tbl_ncol(const tbl *t);
/* Part of a table as an HTML <table>: its first column (the row's name) and columns [from, to),
 * so a wide table can be shown as narrower ones that fit a page. */
void tbl_html_part(const tbl *t, strbuf *b, int from, int to);

/* ---- json.c: the JSON pieces every result kind uses ---- */
/* Rounds to 10 significant digits for JSON (no 0.30000000000000004); NaN and infinities are null. */
json_t *rjson_real(double v);
/* A randomised run's "seed" (a string: JSON numbers do not hold 64 bits exactly), "threads" and
 * "elapsed_s", added to j. */
void rjson_run(json_t *j, uint64_t seed, int threads, double elapsed_s);
/* A source as JSON {"source": ..., "stage": ...}. */
json_t *rjson_source(gpuecon_source s);
/* Where a price the user gave comes from (--usd-per-gpu-hour) */
#define USER_PRICE_SOURCE "--usd-per-gpu-hour (the user's rate for this run)"
/* {"source": USER_PRICE_SOURCE, "stage": "user-input"} */
json_t *rjson_user_price(void);
/* A system whose GPUs run below their board maximum: "power_limit_w" and "clock_factor" (the
 * sustained tensor-core clock over the board maximum's) added to j; nothing otherwise. */
void rjson_power(json_t *j, const gpuecon_system *s);
/* The user's calibration a prediction used (gpuecon calibrate's overlay): {"name", "source", "runs",
 * "scales": {"gemm": {"scale", "source"}, ...}, "spread"}; null for none. JSON key "user_calibration"
 * (compare's and train's "calibration" is the published calibration set). */
json_t *rjson_user_calibration(const gpuecon_calibration *c);
/* The same in words: "NAME (gpuecon calibrate on FILE, N runs): gemm x0.933"; "" for none. */
const char *fmt_user_calibration(char *buf, size_t cap, const gpuecon_calibration *c);
/* The same for a text header: "" or "GPUs at 500 W: sustained tensor-core clock 0.880 of ...". */
const char *fmt_power(char *buf, size_t cap, const gpuecon_system *s);

/* ---- figband.c: a predicted figure's 80% band (gpuecon_band) as JSON, table cells and text ---- */
/* {"low", "high", "level", "basis", "extrapolating": [...], "n", "calibrated"}, low and high times scale (a band of
 * tokens/s/GPU shown for the tokens/s of all GPUs); NULL when b is NULL or unset. */
json_t *figband_json(const gpuecon_band *b, double scale);
/* Sets key to figband_json(b, scale) in j's "band" object (made on first use): the band sits next
 * to the figure key names. Nothing when b is NULL or unset. */
void figband_add(json_t *j, const char *key, const gpuecon_band *b, double scale);
/* "8,100–11,200" with `decimals` decimals ("-" when unset) into buf. */
char *figband_range(char *buf, size_t cap, const gpuecon_band *b, double scale, int decimals);
/* "hopper-bf16-dense, n=6 held out; extrapolating: stack not calibrated" ("" when unset). */
char *figband_basis(char *buf, size_t cap, const gpuecon_band *b);
/* "10,337 tok/s/GPU (8,100–11,200, 80%; <basis>)": the figure with its band in one phrase. */
char *figband_phrase(char *buf, size_t cap, double point, const gpuecon_band *b, double scale, int decimals,
                     const char *unit);
/* A row table's cell: figband_range on the terminal, "low-high" unformatted in CSV ("" unset). */
void figband_cell(tbl *t, const gpuecon_band *b, double scale, int decimals);
/* A quantity table's row under its figure: "  80% band | low–high | unit | basis" (none unset). */
void figband_row(tbl *t, const gpuecon_band *b, double scale, int decimals, const char *unit);
/* Below a table of serving rows (n bands each): per figure, "80% bands, TPOT: <basis>", the distinct
 * bases of its rows joined by " | " (the JSON has each row's). */
void figband_bases(strbuf *f, const serve_bands *b, size_t n);

/* ---- result kinds: each result is rendered here, once ----
 *
 * A command computes a result, gathers it with what its output names (the model, the system,
 * the options that shaped it) into a view struct declared below, and hands the view and its
 * kind to the request layer (cli_render), which picks the form by the request's format:
 *
 *   json   the JSON document, keys as docs/cli.md lists them; NULL when memory ran out.
 *   table  the result's main table, built from its column description, allocated through ctx
 *          (a failure sets *oom): --csv prints its cells unformatted, the terminal form prints
 *          it where it belongs, so the two can never disagree. NULL member: no CSV form.
 *   text   the terminal form, given that table (NULL when the kind has none); further tables
 *          it prints allocate through out.
 *   html   a page (NULL member: --format html is refused).
 *
 * The CLI, the web API and Python all receive what these write (gpuecon_request).
 */
typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_HTML } out_format;

/* Where a terminal form goes: the output text, and the allocator of any further table it prints
 * (a failed allocation sets *oom, as for the kind's table). */
typedef struct render_out {
    strbuf *f;
    gpuecon_ctx *ctx;
    bool *oom;
} render_out;

typedef struct render_kind {
    json_t *(*json)(const void *view);
    tbl *(*table)(gpuecon_ctx *ctx, bool *oom, const void *view);
    void (*text)(const render_out *out, const void *view, const tbl *t);
    void (*html)(strbuf *b, const void *view);
} render_kind;

/* -- cost.c: `gpuecon cost`, the economics of one throughput -- */
typedef struct cost_view {
    const gpuecon_system *system;
    const gpuecon_profile *profile;
    double tokens_per_s; /* per GPU, as given */
    double tokens;       /* the run's token budget; 0: none */
    gpuecon_tco tco;
    gpuecon_cost cost;
} cost_view;
extern const render_kind render_cost;

/* -- train.c, search.c: `gpuecon train` (one job, sweeps, deadlines, owning vs renting, --vs)
 *    and `gpuecon search` -- */
/* One predicted configuration as a JSON object with docs/cli.md's keys (train.c). */
json_t *train_result_json(const gpuecon_train_result *r);

/* ---- calib.c: a layout against the calibration set (calib_match), for train and search ---- */
/* The "calibration" object: nearest row and distance, extrapolates and the axes outside the set
 * with why, the MFU cap with its source, above_mfu_cap and, when above, a warning. */
json_t *calib_match_json(const calib_match *m);
/* The terminal lines: the nearest row, the axes outside the set, the MFU warning. */
void calib_match_text(strbuf *f, const calib_match *m);
/* The same in one line (and the warning's), each line after indent: compare's platforms. */
void calib_match_brief(strbuf *f, const calib_match *m, const char *indent);
/* Table columns and their cells: nearest, distance, extrapolates (axis names, "-" when none),
 * above_mfu_cap (yes/no); on the terminal "nearest row" and "above MFU cap". calib_cells with m NULL writes empty cells. */
#define CALIB_COLS 4
void calib_cols(tbl *t);
void calib_cells(tbl *t, const calib_match *m);
/* The axes outside the set as their names joined by commas ("-" when none). */
void calib_axes_text(const calib_match *m, char *buf, size_t cap);
/* ---- band.c: the 80% band of a predicted figure (gpuecon_band), for every command ---- */
/* {"low", "high", "level", "basis", "extrapolating": [...], "n", "calibrated"}; null when b is
 * NULL or unset. */
json_t *band_json(const gpuecon_band *b);
/* A training prediction's "band" object: tokens_per_s_per_gpu (b), step_time_s and mfu (derived). */
json_t *band_train_json(const gpuecon_band *b, const gpuecon_train_result *r);
/* "(8,100-11,200, 80%; hopper-bf16-dense, n=6 held out; extrapolating: ...)" with the bounds times
 * scale at decimals; "" when unset. */
void band_text(char *buf, size_t cap, const gpuecon_band *b, double scale, int decimals);
/* Table columns <key>_low and <key>_high ("80% low", "80% high" on the terminal), and their cells
 * (empty when unset). */
void band_cols(tbl *t, const char *key);
void band_cells(tbl *t, const gpuecon_band *b, int decimals);
/* "tp 4 cp 1 pp 8 vpp 12 dp 4 mbs 1" (train.c) */
void train_config(const gpuecon_parallel *p, char *buf, size_t cap);
/* The run's reliability and totals as keys added to j (train.c): ettr tier mtbi_gpu_days ...
 * days_to_train total_usd energy_mwh, and with a start date the timeline points used. */
void train_run_json(json_t *j, const gpuecon_platform_result *r, const char *tier);

/* train --vs S: the same job on system S, its own best layout, beside this one's (train.c); the
 * request prints it after train's text (JSON: the "vs" object of train_view). */
typedef struct train_vs_view {
    const gpuecon_system *system; /* this job's */
    const gpuecon_train_result *mine;
    const gpuecon_system *other;
    int gpus, gbs; /* on the other system */
    gpuecon_train_result r;
    bool fits;
    bool have_a2a; /* an MoE expert group: one dispatch all-to-all timed on both systems */
    int ep, etp;
    double bytes, a2a_this, a2a_other; /* one dispatch, s */
    bool have_calib;
    calib_match calib; /* the other system's layout against the calibration set (when it fits) */
    gpuecon_band band; /* the 80% band of its tokens/s/GPU (docs/model.md §7.6; unset when it does not fit) */
    const gpuecon_calibration *user_cal; /* the user's calibration of the other system (NULL: none) */
} train_vs_view;
extern const render_kind render_train_vs;

/* train, one job (train.c): the prediction, and with a price the cost and the run. The table is
 * the step-time breakdown; the text form adds the memory table. */
typedef struct train_view {
    const gpuecon_train_request *req;
    const gpuecon_train_result *r;
    const calib_match *calib;       /* the layout against the calibration set; NULL: not known */
    const gpuecon_profile *profile; /* NULL: no cost (none asked for, or nothing fits) */
    bool user_price;                /* --usd-per-gpu-hour */
    double usd_per_gpu_hour, tokens;
    gpuecon_cost cost;
    const gpuecon_platform_result *run;
    bool run_ok; /* the run's figures exist */
    const char *tier, *start_date;
    const train_vs_view *vs; /* JSON: the "vs" object; NULL: none */
    const gpuecon_band *band; /* the 80% band of tokens_per_s_per_gpu (docs/model.md §7.6); NULL: none */
} train_view;
extern const render_kind render_train;

/* train --sweep-gpus (train_plans.c): one row per GPU count. */
typedef struct train_sweep_row {
    int gpus, gbs;
    bool ok, fits;
    gpuecon_train_result r;
} train_sweep_row;
typedef struct train_sweep_view {
    const gpuecon_train_request *req;
    bool strong; /* the global batch kept (else the batch per GPU) */
    const train_sweep_row *rows;
    int n;
    const calib_match *calib; /* n of them, parallel to rows (those not ok unset); NULL: none */
    const gpuecon_band *bands; /* each row's 80% band of tokens/s/GPU, parallel (unset: not ok); NULL: none */
} train_sweep_view;
extern const render_kind render_train_sweep;

/* train --target-days (train_plans.c): the fewest GPUs and the trade table around them. */
typedef struct train_target_view {
    const gpuecon_train_request *req;
    double tokens, target_days;
    const char *tier;
    const gpuecon_target_result *t;
    const gpuecon_band *band;  /* the 80% band of the answer's tok/s/GPU (NULL: none) */
    int gpus_at_low, gpus_at_high; /* the fewest GPUs meeting the deadline with the throughput at the band's
                                      low and high end (0: no size up to the limit) */
} train_target_view;
extern const render_kind render_train_target;

/* train --rent-usd-per-gpu-hour (train_plans.c): owning the cluster over its life vs renting. */
typedef struct train_life_view {
    const gpuecon_train_request *req;
    const gpuecon_profile *profile;
    double tokens_per_s_per_gpu;
    const gpuecon_life_result *l;
    const gpuecon_band *band; /* the 80% band of tokens_per_s_per_gpu (NULL: none) */
} train_life_view;
extern const render_kind render_train_life;

/* Charts of a sweep (tokens/s/GPU and MFU by GPUs) and of a deadline (days and $M by GPUs, the
 * deadline drawn), data inline (train_plans.c); n 0: nothing to draw. */
typedef struct train_chart {
    char title[200];
    double x[64], y[64], y2[64], dx[2], dy[2];
    plot_spec spec;
    plot_series series[3];
    size_t n;
} train_chart;
void train_plans_sweep_chart(const train_sweep_view *v, train_chart *ch);
void train_plans_target_chart(const train_target_view *v, train_chart *ch);

/* search (search.c): the top configurations, ranked. */
typedef struct search_view {
    const gpuecon_train_request *req;
    const gpuecon_search_result *r;
    const gpuecon_search_options *o;
    const calib_match *calib; /* r->n_best of them, parallel to r->best; NULL: not known */
    const gpuecon_band *bands; /* the 80% band of each row's tokens/s/GPU, parallel; NULL: none */
} search_view;
extern const render_kind render_search;

/* -- serving.c, finetune.c: `gpuecon infer` (one deployment, search, simulation,
 *    disaggregated) and `gpuecon finetune` -- */
/* "8 GPUs = 2 replicas x TP 2 x PP 2 (experts EP)": the deployment as every serving header names it. */
void serving_deployment(strbuf *f, const gpuecon_infer_result *o);

/* One deployment at one concurrency (serving.c). */
typedef struct infer_view {
    const gpuecon_infer_request *request;
    const gpuecon_infer_result *result;
    const char *reason; /* an infeasible request's message, JSON "reason" (the JSON says why); NULL: none */
    const serve_bands *bands; /* of result->at (and the headline copies); NULL: none */
    const infer_layout_choice *layout; /* how the layout was chosen when none was given; NULL: given */
} infer_view;
extern const render_kind render_infer;

/* How infer chose its layout when none was given (infer_layout_choose; serving.c): the text line
 * ("layout: ...", nothing when l is NULL) and the JSON layout_choice (null when l is NULL). */
void render_layout_choice_text(strbuf *f, const gpuecon_infer_request *r, const infer_layout_choice *l);
json_t *render_layout_choice_json(const gpuecon_infer_request *r, const infer_layout_choice *l);

/* --sweep: the deployment at each concurrency (serving.c). */
typedef struct infer_sweep_view {
    const gpuecon_infer_request *request;
    const gpuecon_infer_result *result;
    const double *concurrency;
    const gpuecon_infer_point *points; /* at each concurrency */
    size_t n;
    const serve_bands *bands; /* n of them, parallel to points; NULL: none */
    const serve_bands *at_bands; /* of result->at (the headline figures); NULL: none */
    const infer_layout_choice *layout; /* how the layout was chosen when none was given; NULL: given */
} infer_sweep_view;
extern const render_kind render_infer_sweep;

/* --search: the ranked best, why the runner-up lost, the Pareto frontier (serving_search.c). */
typedef struct infer_search_view {
    const gpuecon_serve_search_request *request;
    const gpuecon_serve_search_result *result;
    const char *objective; /* its name */
    double elapsed_s;
    /* the bands of best[], frontier[] (parallel to them) and closest; NULL: none */
    const serve_bands *best_bands, *frontier_bands, *closest_bands;
    const gpuecon_serve_size_result *sizing; /* sized to the fewest units at the rate; NULL: not sized */
} infer_search_view;
extern const render_kind render_infer_search;

/* --simulate: percentiles, throughput, goodput (serving_sim.c). */
typedef struct infer_sim_view {
    const gpuecon_sim_request *request;
    const gpuecon_sim_result *result;
    const char *arrival; /* the arrival process's name */
    double elapsed_s;
    const serve_bands *bands; /* of the simulated output tokens/s/GPU, mean TPOT and TTFT; NULL: none */
    const infer_layout_choice *layout; /* how the layout was chosen when none was given; NULL: given */
} infer_sim_view;
extern const render_kind render_infer_sim;

/* --prefill/--decode or --disagg-search: the disaggregated deployment beside the aggregated one of
 * the same GPUs at the same rate (serving_sim.c). */
typedef struct infer_disagg_view {
    const gpuecon_infer_request *serve;
    const gpuecon_disagg_request *request;
    const gpuecon_disagg_result *result;
    const gpuecon_infer_result *aggregated; /* NULL: the aggregated deployment does not serve the rate */
    const gpuecon_infer_point *aggregated_at;
    double ttft_target_ms, tpot_target_ms;  /* 0: none */
    long evaluated;                         /* layouts --disagg-search evaluated; -1: no search */
    const serve_bands *bands, *aggregated_bands; /* of result's and aggregated_at's figures; NULL: none */
    const gpuecon_serve_config *aggregated_config; /* the search's best aggregated configuration; NULL: none */
    long aggregated_evaluated;              /* configurations the aggregated search timed */
    bool sized;                             /* --disagg-search --rate: the fewest GPUs serving the rate */
    double baseline_ttft_ms, baseline_tpot_ms; /* the aggregated search's targets: the given ones, else
                                                  the disaggregated deployment's mean latencies */
} infer_disagg_view;
extern const render_kind render_infer_disagg;

/* --prefill/--decode --simulate: the simulation with the analytic prediction beside it and a
 * table per pool (serving_sim.c). */
typedef struct infer_disagg_sim_view {
    const gpuecon_disagg_sim_request *request;
    const gpuecon_disagg_sim_result *result;
    const char *arrival; /* the arrival process's name */
    double elapsed_s;
    const serve_bands *bands; /* of the simulated output tokens/s/GPU, mean TPOT and TTFT; NULL: none */
} infer_disagg_sim_view;
extern const render_kind render_infer_disagg_sim;

/* `gpuecon finetune` (finetune.c). */
typedef struct finetune_view {
    const gpuecon_finetune_request *request;
    const gpuecon_finetune_result *result;
    const char *method, *strategy; /* their names */
    double matmul_params;          /* P, the model's matmul weights: FLOPs per token are shown as x P */
    /* --compare: DDP, DDP + checkpointing, FSDP, FSDP + checkpointing; NULL: the one result */
    const gpuecon_finetune_result *compare;
    const gpuecon_band *band;          /* of result's tokens/s; NULL: none */
    const gpuecon_band *compare_bands; /* --compare: of each of the four tokens/s; NULL: none */
} finetune_view;
extern const render_kind render_finetune;


/* -- compare.c, rl.c, reproduce.c, catalog.c -- */
/* `gpuecon compare`: a scenario's comparisons. The CSV table is every platform, one row each;
 * the terminal form prints a table per comparison; the HTML page is report.c's. */
typedef struct compare_view {
    const gpuecon_scenario *scenario;
    const gpuecon_compare_result *result;
    double elapsed_s;
    bool summary_only; /* --summary: the terminal form is the summary alone (summary.c) */
} compare_view;
extern const render_kind render_compare;

/* summary.c: compare's first screen, one line per comparison (docs/cli.md, "The summary"). */
typedef struct compare_summary {
    const char *name, *title;
    const char *cheapest, *runner_up;            /* NULL: none */
    double cheapest_usd_per_mtok, runner_up_usd_per_mtok; /* the ranked (effective) costs; NaN: none */
    double below;                                /* 1 - cheapest / runner-up; NaN: no runner-up */
    char difference[32];                         /* "20% below" (num_below); "" without a runner-up */
    int flip;                                    /* index in breakeven[] (gpuecon_nearest_flip); -1: none */
    char flip_text[400];                         /* "flips if GB200 NVL72's TCO rises above $2.940/GPU-h (today $2.360/GPU-h)" */
    bool by_tier;                                /* operator tiers compared: text gives the winner at each tier */
    char text[1200];                             /* the whole line after the title */
} compare_summary;
void compare_summary_of(const gpuecon_comparison_result *cr, compare_summary *s);
/* "summary (...):" and one "  - <title>: <text>." line per comparison. */
void compare_summary_text(strbuf *f, const gpuecon_compare_result *r);
/* The JSON "summary" array: per comparison comparison, title, cheapest, cheapest_usd_per_mtok, runner_up,
 * runner_up_usd_per_mtok, below, difference, flip {platform, input, label, current, breakeven, unit} or null,
 * flip_text, by_tier, text. */
json_t *compare_summary_json(const gpuecon_compare_result *r);

/* `gpuecon rl`: one RL step (the HTML page: the table with where the step goes per pool). */
typedef struct rl_view {
    const gpuecon_rl_request *request;
    const gpuecon_rl_result *result;
    const gpuecon_band *band; /* of the step time; NULL: none */
} rl_view;
extern const render_kind render_rl;
/* The JSON of a request that nothing fits: model, system, "fits": false, where and reason. */
json_t *rl_unfit_json(const gpuecon_rl_request *r, const gpuecon_error *err);

/* `gpuecon reproduce`: the article's figures recomputed; passed of total consistent rows,
 * flagged the rows where the source contradicts itself. */
typedef struct reproduce_view {
    const gpuecon_repro_row *rows;
    size_t n;
    int passed, total, flagged;
} reproduce_view;
extern const render_kind render_reproduce;

/* `gpuecon catalog`: the listing of the kinds first..last (CSV: the table of first), or the
 * fields of one entry (entry, of kind first). */
typedef struct catalog_view {
    const gpuecon_catalog *cat;
    gpuecon_kind first, last;
    size_t entry;
} catalog_view;
extern const render_kind render_catalog_list, render_catalog_entry;
/* The kinds as the listing names them ("gpus", "systems", ...), in gpuecon_kind order, NULL-ended. */
extern const char *const catalog_kind_names[];

/* -- glossary.c: `gpuecon help terms`, the terms the outputs use (the README's glossary is the same
 *    table: tests/unit/test_words.c) -- */
typedef struct glossary_term {
    const char *term, *definition, *unit, *where; /* where: "docs/model.md §5.4" */
} glossary_term;
size_t glossary_count(void);
const glossary_term *glossary_at(size_t i); /* NULL past the end */
extern const render_kind render_terms;    /* no view: JSON {"terms": [{term, definition, unit, defined_in}]} */

/* -- validate.c, reliability.c, comm.c -- */

/* validate.c: `gpuecon validate`, the models against published figures. One view, three kinds:
 * the whole report (its table the training rows), and the serving or fine-tuning section alone
 * (--group naming that set or a class of its rows; its table those rows); the JSON of each is
 * the whole report. */
typedef struct validate_view {
    const char *group;  /* --group: the training and serving rows and groups listed; NULL: all */
    bool training_only; /* --group names a training set: the JSON has no serving or finetune key */
    /* training (gpuecon_validate) */
    const gpuecon_validate_row *rows;
    size_t n;
    gpuecon_validate_summary all, fit;
    gpuecon_validate_summary moe, moe_fit;
    gpuecon_validate_summary held; /* dense rows held out of the fit (seed, heldout, recipes) */
    gpuecon_validate_summary tt_fit, tt_held; /* the torchtitan runs, fitted and held out */
    gpuecon_validate_group groups[48];
    size_t ngroups;
    double vtrain_p95;
    /* serving (gpuecon_validate_serving) */
    const gpuecon_validate_row *srows;
    size_t sn;
    gpuecon_validate_summary s_all, s_held;
    gpuecon_validate_group sgroups[16];
    size_t nsgroups;
    /* fine-tuning (gpuecon_validate_finetune) */
    const gpuecon_validate_row *frows;
    size_t fn;
    gpuecon_validate_summary f_all, f_held;
    gpuecon_validate_group fgroups[8];
    size_t nfgroups;
    /* --leave-one-out / --calibrate-on K: the calibration test (validate_loo.c); NULL: not asked */
    const validate_loo *loo;
    const band_validation *band; /* the 80% bands' leave-one-out coverage (validate_band.c); NULL: none */
} validate_view;
/* validate_band.c: band_coverage, band_median_width on each group of j, and j's "band" summary */
void validate_band_json(json_t *j, const band_validation *b);
void validate_band_text(strbuf *f, const band_validation *b);
extern const render_kind render_validate, render_validate_serving, render_validate_finetune;
/* validate_loo.c (render): the calibration test in the validate report. A groups[] entry of set `set`
 * gains calibrated_median_abs_err (null: no held-out prediction in it); the report gains
 * leave_one_out; the text its table. */
void render_loo_group_json(json_t *group, const validate_loo *l, int set);
json_t *render_loo_json(const validate_loo *l);
void render_loo_text(const render_out *out, const validate_loo *l);

/* `gpuecon validate --group rl`: the RL step model against published step times */
typedef struct validate_rl_view {
    const gpuecon_validate_row *rows;
    size_t n;
    const char *stack;                                /* the trainer's stack the rows run */
    const char *gen_stack;                            /* the serving engine stack they generate with */
    gpuecon_validate_summary summary, fitted, held;   /* every row; the fitted; the held out */
    double signed_median, signed_fitted, signed_held; /* median signed error of each */
    gpuecon_rl_pair pairs[8];                         /* on- vs one-step-off-policy gaps */
    size_t npairs;
    const validate_loo *loo;                          /* --leave-one-out / --calibrate-on K; NULL: none */
} validate_rl_view;
extern const render_kind render_validate_rl;

/* comm.c: `gpuecon comm`, one collective or the nccl-tests size sweep, with --vs a second system */
typedef struct comm_view {
    const gpuecon_system *system, *vs; /* vs NULL: no --vs */
    int op;                            /* gpuecon_coll_op */
    const char *op_name;
    int gpus, stride;
    bool sweep;
    const double *sizes;                    /* bytes, n of them */
    const gpuecon_coll_result *res, *vres; /* on system and on vs (NULL without --vs), per size */
    int n;
    gpuecon_link_model lm; /* system's: gpuecon_link_model_for */
} comm_view;
extern const render_kind render_comm;

/* reliability.c: `gpuecon reliability`, goodput under failures (analytic and Monte Carlo) */
typedef struct reliability_view {
    const gpuecon_catalog *cat; /* where the tier's sources are looked up */
    const gpuecon_reliability_request *q;
    const gpuecon_reliability *tier;
    const gpuecon_reliability_result *r;
    const gpuecon_reliability_mc *mc; /* all zero when q->trials is 0 */
    double elapsed;                   /* the Monte Carlo's seconds */
    const char *formula, *spare_cost; /* the names of q->form and q->spare_cost */
    const gpuecon_profile *profile;   /* NULL: not priced (no --profile or --usd-per-gpu-hour) */
    gpuecon_tco tco;
    gpuecon_cost cost; /* at full goodput */
} reliability_view;
extern const render_kind render_reliability;

/* calibrate.c: `gpuecon calibrate`, a user's runs before and after the fit, the fitted scales per group,
 * the predictions it changes most and the overlay written (docs/cli.md) */
typedef struct calibrate_layout { /* a training group's job with its layout searched, before and after */
    int group;
    const char *what;                 /* the job: its first run's model, GPUs, system */
    bool ok;                          /* both searches found a layout that fits */
    gpuecon_parallel before, after;   /* the best layouts */
    double before_tok_s, after_tok_s; /* their tokens/s/GPU */
} calibrate_layout;
typedef struct calibrate_view {
    const char *file;                /* RUNS.yaml */
    const calrun_row *rows;
    size_t n_rows;
    const calrun_group *groups;
    size_t n_groups;
    const size_t *changes;           /* row indices, largest |ln(after/before)| first */
    size_t n_changes;
    const char *const *warnings;     /* a fit that hit a bound, a log sweep the model does not follow */
    size_t n_warnings;
    const calibrate_layout *layouts; /* per training group */
    size_t n_layouts;
    const char *overlay_path;        /* DIR/calibrations.yaml handed to the front end; NULL: none asked */
    const char *overlay_yaml;        /* its text */
} calibrate_view;
/* The unit of a figure ("tokens/s/GPU", "s", "ms", "TFLOP/s", "GB/s"). */
const char *calibrate_unit(runs_figure f);
extern const render_kind render_calibrate;

#endif
