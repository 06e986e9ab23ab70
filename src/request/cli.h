/*
 * cli.h — the request layer of the library (src/request): what the commands share. A command
 * (train, cost, compare, ...) takes its options from a request (gpuecon_request) or from a
 * command line turned into a request (gpuecon_request_from_argv), computes through the
 * public API, and writes its output (JSON, table, CSV or HTML) into an in-memory stream.
 *
 * Nothing here prints or exits: what a command line tool would print on stderr goes to
 * c->notes (in order), the last error also into c->err. Commands return the exit codes below,
 * which request.c turns into a gpuecon_status. "cli" names the shape of the input (options
 * with the command line's names), not the program.
 */
#ifndef GPUECON_CLI_H
#define GPUECON_CLI_H

#include "render/render.h"
#include "gpuecon.h"

#include <jansson.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_INFEASIBLE = 3, EXIT_CANCELED = 130 };
/* Returned by opts_parse when help was printed: the command should exit 0. */
#define EXIT_HELP (-1)
/* Returned by opts_parse in CLI_ARGV mode once the request is built: the command stops. */
#define EXIT_BUILT (-2)

/* How opts_parse finds the options: in a request's "options" object, or on a command line
 * that it turns into such an object (c->built). */
typedef enum { CLI_REQUEST, CLI_ARGV, CLI_DESCRIBE } cli_mode;

typedef struct cli {
    gpuecon_ctx *ctx;
    gpuecon_catalog *cat;
    bool cat_borrowed;          /* cat is the context's fixed catalog (config .catalog): not freed */
    out_format format;
    const char *catalog_dir;    /* --catalog DIR */
    const char *model_file;     /* --model-file strbuf */
    const gpuecon_model *file_model; /* the model loaded from --model-file */
    const char *model_text;     /* CLI_REQUEST: a model file given inline ({"text": ...}), in c->keep; or NULL */
    const char *model_label;    /* its file name ("name", default inline-model.json): errors and the model's stem */
    gpuecon_catalog *model_cat; /* where an inline model is loaded when the catalog is the context's fixed one
                                   (gpuecon serve's, read-only): this request's own, freed with it */
    json_t *inline_docs;        /* CLI_REQUEST: option name -> the text of a file given inline (cli_inline);
                                   owned by keep */
    bool format_given;
    const char *cmd;            /* subcommand name, for messages */
    cli_mode mode;
    json_t *req_opts;           /* CLI_REQUEST: the request's "options" (borrowed; may be NULL) */
    json_t *req_args;           /* CLI_REQUEST: the request's "args" (borrowed; may be NULL) */
    json_t *built;              /* CLI_ARGV: the request being built; CLI_DESCRIBE: the option
                                 * table as JSON (owned by request.c) */
    json_t *keep;               /* strings made from the request that options point into */
    strbuf *out;                /* the command's output (request.c's, through the context's allocator) */
    strbuf *notes;              /* what a terminal would show on stderr (the same) */
    gpuecon_error err;          /* the last error reported through cli_fail/cli_usage_error */
    bool oom;                   /* a table or page ran out of memory: the request fails with
                                   GPUECON_E_NOMEM and no output (request.c) */
    const struct opt *opts;     /* the command's option table once opts_parse has read it: */
    size_t nopts;               /* errors name options as it spells them (cli_spell_options) */
    json_t *plots;              /* the charts for the front end to draw (gpuecon_request_plots);
                                   NULL: the caller takes none */
    gpuecon_system power_system; /* --power-limit: the --system entry at that limit (cli_power_limit) */
    gpuecon_infer_request *capture_infer; /* set by calibrate: cmd_infer builds its request into it and stops */
    gpuecon_finetune_request *capture_finetune; /* the same for cmd_finetune */
} cli;

/* ---- opts.c: declarative options ---- */
typedef enum { O_FLAG, O_DOUBLE, O_INT, O_STR, O_CHOICE, O_LIST,
               O_PATH /* a file on this machine (its choices: the words that are not one, e.g.
                         "fixed"); refused in a request to a no_files context (gpuecon serve) */ } okind;

typedef struct opt {
    const char *name;            /* "--pue" */
    okind kind;
    void *dst;                   /* bool*, double*, int*, const char**, int* (choice), int_list* */
    double lo, hi;               /* allowed range (numbers, list items) */
    const char *const *choices;  /* O_CHOICE: NULL-terminated */
    const char *metavar;         /* "F" */
    const char *help;
    const char *required;        /* NULL: optional; else why, as "is required (<why>)" (opts_require) */
    bool seen;
} opt;

typedef struct int_list {
    int v[64];
    int n;
    int range_lo, range_hi; /* the list was one range "A-B" (expanded in v): A and B; else 0, 0 */
} int_list;

typedef struct cmd_usage {
    const char *synopsis; /* "cost --system S --profile P --tokens-per-s X [...]" */
    const char *about;    /* one paragraph */
    const char *example;  /* may be NULL */
} cmd_usage;

/* Reads a command's options. CLI_REQUEST: from c->req_opts / c->req_args (JSON values of the
 * option's type, or strings in the command line's syntax). CLI_ARGV: from argv[1..] — global
 * options (--json --csv --format --catalog --model-file -h) anywhere — building c->built and
 * returning EXIT_BUILT. Positional arguments are collected into pos (up to maxpos). Returns 0,
 * EXIT_HELP after writing help to the output, EXIT_BUILT, or EXIT_USAGE with c->err set. */
/* The first option of the table (in its order) whose `required` is set and that was not given:
 * "<option>: is required (<why>)", exit 2; 0 when all were. */
int opts_require(cli *c, const opt *opts, size_t nopts);
int opts_parse(cli *c, int argc, char **argv, opt *opts, size_t nopts, const cmd_usage *usage,
               const char **pos, int maxpos, int *npos);
bool opt_seen(const opt *opts, size_t nopts, const char *name);
/* The text of a file option given inline in a request ({"text": "...", "name": "..."}, at most CLI_INLINE_MAX
 * bytes), with its length and the name errors quote; NULL when the option named a file or a word instead. Only
 * options that read a file take text inline (--lengths, and the global --model-file): a request to gpuecon serve
 * names no file, so this is how it sends one. */
#define CLI_INLINE_MAX (1024 * 1024)
const char *cli_inline(const cli *c, const char *option, size_t *len, const char **label);

/* ---- common.c ---- */
/* Records err in c->err, writes "gpuecon: where:line:col: message" to c->notes and returns
 * the exit code for err->code. */
int cli_fail(cli *c, const gpuecon_error *err);
/* Rewrites, in place, each option a lower layer names as OPTION("key") ("options.key", at
 * the start of a word) as the command's option table spells it ("--key" with '-' for '_' when
 * the table lacks it). cli_fail applies it to where and message; a command that copies a lower
 * layer's error into its output applies it first. */
void cli_spell_options(const cli *c, char *s, size_t cap);
/* The same over the notes of a platform's result that may quote a lower layer's error (why,
 * predicted_note, life_why, the trade rows' why), before it is rendered. */
void cli_spell_platform(const cli *c, gpuecon_platform_result *p);
/* Records an input error (where = option or argument, message printf-style) and writes
 * "gpuecon: <where>: message" to c->notes. Returns EXIT_USAGE. */
int cli_usage_error(cli *c, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with a status of the caller's choice (e.g. GPUECON_E_INFEASIBLE); returns its exit code. */
int cli_error(cli *c, int status, const char *where, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Loads the catalog (built-in + --catalog + --model-file). Returns 0 or an exit code. */
int cli_load_catalog(cli *c);
/* Catalog look-ups that print a suggestion and return EXIT_USAGE on failure. */
int cli_system(cli *c, const char *option, const char *name, const gpuecon_system **out);
/* --power-limit W: *sys becomes the system with its GPUs at W watts (c->power_system), which
 * lowers the sustained tensor-core clock and the IT power (docs/model.md §9.2). Exit 2 naming
 * option and the GPU's settable range when W is outside it. */
int cli_power_limit(cli *c, const char *option, double watts, const gpuecon_system **sys);
#define CLI_HELP_POWER_LIMIT                                                                                \
    "GPU power limit in watts, within the GPU's min_power_w..tdp_w (default: the system's, else the board " \
    "maximum): lowers the sustained tensor-core clock (gpuecon catalog gpus)"
int cli_profile(cli *c, const char *option, const char *name, const gpuecon_profile **out);
/* A framework stack from data/stacks.yaml (unknown: exit 2 with the nearest names). */
/* A stack by name that runs `workload` (0 training, 1 fine-tuning); the other kind is a usage
 * error listing the stacks of this one. */
int cli_stack(cli *c, const char *option, const char *name, int workload, const gpuecon_stack **out);
#define CLI_DEFAULT_STACK "megatron-bridge-2026"
int cli_model(cli *c, const char *option, const char *name, const gpuecon_model **out);
/* Hands a chart to the front end (--plot FILE.svg): its gnuplot script into c->plots, with
 * whether a failure to draw it fails the request (`required`) and whether drawing it is
 * announced ("gpuecon: wrote FILE"). Without c->plots, a note says it is not drawn. Returns
 * EXIT_OK, or the exit code of an out-of-memory error. */
int cli_plot(cli *c, const char *path, const plot_spec *spec, const plot_series *series, size_t n, bool required,
             bool announce);
/* Writes a JSON object to the output (and consumes the reference). Returns 0 or 1. */
int cli_emit_json(cli *c, json_t *root);
/* Writes view in the request's format through its result kind's renderer (render.h): JSON,
 * the table as CSV, the terminal text, or the HTML page; a form the kind lacks is refused
 * ("--format: html is only for compare and rl", exit 2). Returns EXIT_OK or an exit code. */
int cli_render(cli *c, const render_kind *kind, const void *view);
/* The profile a command prices with when it is asked for a cost without --profile. */
#define CLI_DEFAULT_PROFILE "hyperscaler"
/* The option every pricing command carries, and the provenance of its value. */
#define CLI_OPT_USD_PER_GPU_HOUR(dst)                                                              \
    {"--usd-per-gpu-hour", O_DOUBLE, (dst), 0.001, 1000, NULL, "X",                                \
     "your price per GPU-hour (rental or negotiated); replaces the profile's TCO", NULL, false}
/* The rows that several commands share, spelled once. */
#define CLI_WHY_SYSTEM "gpuecon catalog systems lists them"
#define CLI_OPT_SYSTEM(dst)                                                                         \
    {"--system", O_STR, (dst), 0, 0, NULL, "S", "system (gpuecon catalog systems)", CLI_WHY_SYSTEM, false}
#define CLI_OPT_PROFILE(dst)                                                                        \
    {"--profile", O_STR, (dst), 0, 0, NULL, "P", "TCO profile (default hyperscaler)", NULL, false}
#define CLI_OPT_PUE(dst)                                                                            \
    {"--pue", O_DOUBLE, (dst), 1, 3, NULL, "F", "facility PUE (default: the system's)", NULL, false}
#define CLI_OPT_SEED(dst)                                                                           \
    {"--seed", O_INT, (dst), 0, 2147483647, NULL, "S", "Monte Carlo seed", NULL, false}
/* The serving efficiency profiles for option help, spelled once (the table is
 * src/model/infer_arch.c profiles[]; an unknown name's error lists it from there). */
#define CLI_SERVING_PROFILES "trtllm | vllm-v1 | sglang | generic | vessl-gemma4"

/* Seconds from the context's clock callback (gpuecon_ctx_config.clock), 0 without one: the
 * library reads no clock itself. Only differences are meaningful. */
double cli_now_s(const cli *c);

/* ---- subcommands (one file each: cmd_<name>.c) ---- */
int cmd_catalog(cli *c, int argc, char **argv);
int cmd_cost(cli *c, int argc, char **argv);
int cmd_reproduce(cli *c, int argc, char **argv);
int cmd_comm(cli *c, int argc, char **argv);
int cmd_train(cli *c, int argc, char **argv);
int cmd_search(cli *c, int argc, char **argv);
int cmd_validate(cli *c, int argc, char **argv);
int cmd_reliability(cli *c, int argc, char **argv);
int cmd_infer(cli *c, int argc, char **argv);
int cmd_finetune(cli *c, int argc, char **argv);
int cmd_rl(cli *c, int argc, char **argv);
int cmd_compare(cli *c, int argc, char **argv);
int cmd_calibrate(cli *c, int argc, char **argv);
int cmd_glossary(cli *c, int argc, char **argv);

#endif
