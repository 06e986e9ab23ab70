/*
 * cli.h — what the subcommands share: the run state, declarative option parsing, catalog
 * look-ups with exit codes, and output in table/JSON/CSV form.
 *
 * The CLI owns stderr, exit codes and terminals; it reaches the library only through
 * gpuecon.h. Exit codes: 0 success, 1 internal error, 2 usage or input error, 3 infeasible.
 */
#ifndef GPUECON_CLI_H
#define GPUECON_CLI_H

#include "emit.h"
#include "gpuecon.h"

#include <jansson.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_INFEASIBLE = 3 };
/* Returned by opts_parse when help was printed: the command should exit 0. */
#define EXIT_HELP (-1)

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_HTML } out_format;

typedef struct cli {
    gpuecon_ctx *ctx;
    gpuecon_catalog *cat;
    out_format format;
    const char *out_path;       /* -o FILE */
    const char *catalog_dir;    /* --catalog DIR */
    const char *model_file;     /* --model-file FILE */
    const gpuecon_model *file_model; /* the model loaded from --model-file */
    bool format_given;
    const char *cmd;            /* subcommand name, for messages */
    int progress_pct;           /* last percentage drawn by cli_progress, -1 when none */
} cli;

/* ---- opts.c: declarative options ---- */
typedef enum { O_FLAG, O_DOUBLE, O_INT, O_STR, O_CHOICE, O_LIST } okind;

typedef struct opt {
    const char *name;            /* "--pue" */
    okind kind;
    void *dst;                   /* bool*, double*, int*, const char**, int* (choice), int_list* */
    double lo, hi;               /* allowed range (numbers, list items) */
    const char *const *choices;  /* O_CHOICE: NULL-terminated */
    const char *metavar;         /* "F" */
    const char *help;
    bool seen;
} opt;

typedef struct int_list {
    int v[64];
    int n;
} int_list;

typedef struct cmd_usage {
    const char *synopsis; /* "cost --system S --profile P --tokens-per-s X [...]" */
    const char *about;    /* one paragraph */
    const char *example;  /* may be NULL */
} cmd_usage;

/* Parses argv[1..] of a subcommand. Global options (--json --csv --format -o --catalog
 * --model-file -h) are accepted anywhere. Positional arguments are collected into pos
 * (up to maxpos). Returns 0, EXIT_HELP after printing help, or EXIT_USAGE after printing
 * the error. */
int opts_parse(cli *c, int argc, char **argv, opt *opts, size_t nopts, const cmd_usage *usage,
               const char **pos, int maxpos, int *npos);
bool opt_seen(const opt *opts, size_t nopts, const char *name);

/* ---- common.c ---- */
/* Prints "gpuecon: where:line:col: message" and returns the exit code for err->code. */
int cli_fail(const gpuecon_error *err);
/* Prints "gpuecon: <where>: message" (printf-style) and returns EXIT_USAGE. */
int cli_usage_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_exit_code(int status);
/* Loads the catalog (built-in + --catalog + --model-file). Returns 0 or an exit code. */
int cli_load_catalog(cli *c);
/* Catalog look-ups that print a suggestion and return EXIT_USAGE on failure. */
int cli_system(cli *c, const char *option, const char *name, const gpuecon_system **out);
int cli_profile(cli *c, const char *option, const char *name, const gpuecon_profile **out);
int cli_model(cli *c, const char *option, const char *name, const gpuecon_model **out);
/* Where output goes: stdout or -o FILE. */
FILE *cli_out(cli *c);
void cli_close_out(cli *c, FILE *f);
/* Writes a JSON object to the output (and consumes the reference). Returns 0 or 1. */
int cli_emit_json(cli *c, json_t *root);
/* A source as JSON {"source": ..., "stage": ...}. */
json_t *cli_source_json(gpuecon_source s);
/* Rounds to 10 significant digits for JSON (no 0.30000000000000004). */
json_t *cli_real(double v);

/* Monotonic seconds, for elapsed times the CLI reports (the library reads no clock). */
double cli_now_s(void);

/* Progress callback for the library (ud = the cli): draws a bar on stderr when stderr is a
 * terminal, nothing otherwise. Never cancels. cli_progress_done erases the bar. */
int cli_progress(void *ud, double done, double total);
void cli_progress_done(cli *c);

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
int cmd_compare(cli *c, int argc, char **argv);

#endif
