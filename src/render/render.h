/*
 * render/render.h — the render layer's private declarations: aligned terminal tables that also
 * print as CSV and HTML, number formatting, SVG charts, plot data. Renders the analyses'
 * results; never installed.
 */
#ifndef GPUECON_RENDER_H
#define GPUECON_RENDER_H

#include "analysis/analysis.h"

#include <jansson.h>
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
/* Starts a new row; cells are then appended left to right. */
void tbl_row(tbl *t);
void tbl_str(tbl *t, const char *s);
void tbl_fmt(tbl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number shown with `decimals` decimals and thousands separators; CSV gets %.10g. */
void tbl_num(tbl *t, double v, int decimals);
/* A number shown as a percentage with `decimals` decimals (v = 0.123 -> "12.3%"). */
void tbl_pct(tbl *t, double v, int decimals);
/* A horizontal separator row (terminal only). */
void tbl_sep(tbl *t);
void tbl_print(const tbl *t, FILE *f);
void tbl_csv(const tbl *t, FILE *f);

/* ---- format.c ---- */
/* v with `decimals` decimals and ',' thousands separators into buf. */
char *fmt_num(char *buf, size_t cap, double v, int decimals);
/* Engineering form: 1.2e9 -> "1.20 G" with an SI prefix, 3 significant digits. */
char *fmt_si(char *buf, size_t cap, double v, const char *unit);
/* Writes s as a CSV field (quoted when needed). */
void csv_field(FILE *f, const char *s);

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


/* ---- svg.c: a growable string, and charts drawn as inline SVG ---- */
typedef struct strbuf {
    char *s;
    size_t len, cap;
    gpuecon_ctx *ctx; /* every allocation goes through its allocator */
    bool *oom; /* the caller's flag, set when an append runs out of memory (the text is then
                  cut short); may be NULL */
} strbuf;

void sb_init(strbuf *b, gpuecon_ctx *ctx, bool *oom);
void sb_free(strbuf *b);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s with <, >, &, " and ' escaped for HTML/XML. */
void sb_escape(strbuf *b, const char *s);

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

/* ---- json.c: the JSON pieces every result kind uses ---- */
/* Rounds to 10 significant digits for JSON (no 0.30000000000000004); NaN and infinities are null. */
json_t *rjson_real(double v);
/* A source as JSON {"source": ..., "stage": ...}. */
json_t *rjson_source(gpuecon_source s);
/* Where a price the user gave comes from (--usd-per-gpu-hour) */
#define USER_PRICE_SOURCE "--usd-per-gpu-hour (the user's rate for this run)"
/* {"source": USER_PRICE_SOURCE, "stage": "user-input"} */
json_t *rjson_user_price(void);

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
 *   text   the terminal form, given that table (NULL when the kind has none).
 *   html   a page (NULL member: --format html is refused).
 *
 * The CLI, the web API and Python all receive what these write (gpuecon_request).
 */
typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_HTML } out_format;

typedef struct render_kind {
    json_t *(*json)(const void *view);
    tbl *(*table)(gpuecon_ctx *ctx, bool *oom, const void *view);
    void (*text)(FILE *f, const void *view, const tbl *t);
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



/* -- serving.c, finetune.c: `gpuecon infer` (one deployment, search, simulation,
 *    disaggregated) and `gpuecon finetune` -- */



/* -- compare.c, rl.c, reproduce.c, catalog.c -- */



/* -- validate.c, reliability.c, comm.c -- */

/* validate.c: `gpuecon validate`, the models against published figures. One view, three kinds:
 * the whole report (its table the training rows), and the serving or fine-tuning section alone
 * (--group naming that set or a class of its rows; its table those rows); the JSON of each is
 * the whole report. */
typedef struct validate_view {
    gpuecon_ctx *ctx;
    bool *oom;          /* the terminal form's further tables allocate through ctx, as the table */
    const char *group;  /* --group: the training and serving rows and groups listed; NULL: all */
    /* training (gpuecon_validate) */
    const gpuecon_validate_row *rows;
    size_t n;
    gpuecon_validate_summary all, fit;
    gpuecon_validate_summary moe, moe_fit;
    gpuecon_validate_summary held; /* dense rows held out of the fit (seed, heldout, recipes) */
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
} validate_view;
extern const render_kind render_validate, render_validate_serving, render_validate_finetune;

/* `gpuecon validate --group rl`: the RL step model against published step times */
typedef struct validate_rl_view {
    const gpuecon_validate_row *rows;
    size_t n;
    gpuecon_validate_summary summary;
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
    gpuecon_ctx *ctx;
    bool *oom;                   /* the terminal form's further tables allocate through ctx, as the table */
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




#endif
