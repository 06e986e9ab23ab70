/*
 * request.c — the one entry point of every front end: a request {"command": "train",
 * "options": {...}, "args": [...]} runs a command and returns what `gpuecon <command>` prints
 * (JSON by default). gpuecon_request_from_argv turns a command line into such a request, so
 * the CLI is one client of it among others (Python, a web UI).
 *
 * Options keep the command line's names without the leading dashes and with inner dashes
 * as underscores ("--tokens-per-s 728" is "tokens_per_s": 728); flags are true/false; the
 * global options are "format" ("json", "table", "csv", "html"), "catalog", "model_file" and
 * "max_work" (this request's work budget).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct command {
    gpuecon_command_info info;
    int (*run)(cli *c, int argc, char **argv);
} command;

static const command commands[] = {
    {{"catalog", "list GPUs, systems, TCO profiles, models with their sources"}, cmd_catalog},
    {{"cost", "$ per 1M tokens, J/token, totals from a measured throughput"}, cmd_cost},
    {{"reproduce", "recompute the arithmetic figures of SemiAnalysis's H100 vs GB200 NVL72 article"}, cmd_reproduce},
    {{"comm", "time of one collective on a system's two-level network"}, cmd_comm},
    {{"train", "predicted training step: throughput, MFU, memory, breakdown"}, cmd_train},
    {{"search", "rank the feasible parallel configurations of a training job"}, cmd_search},
    {{"validate", "predicted vs published on the calibration set"}, cmd_validate},
    {{"reliability", "goodput of a long job under failures, checkpoints, spares"}, cmd_reliability},
    {{"infer", "serving capacity, throughput, latency and cost per token"}, cmd_infer},
    {{"finetune", "LoRA or full fine-tuning memory and speed"}, cmd_finetune},
    {{"rl", "one RL post-training step: generation, scoring, training, weight sync, cost"}, cmd_rl},
    {{"compare", "platforms side by side for a workload, with break-even"}, cmd_compare},
    {{"calibrate", "fit the model's efficiency scales to your own measured runs (RUNS.yaml)"}, cmd_calibrate},
    {{"glossary", "the terms the outputs use (ETTR, MTBI, MFU, TPOT, ...): definition, unit, where defined"},
     cmd_glossary},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

const gpuecon_command_info *gpuecon_command_at(size_t i)
{
    return i < N_COMMANDS ? &commands[i].info : NULL;
}

/* A string handed to the caller sits after this header, which says how to release it: through
 * the allocator of the context that made it, so gpuecon_free needs no context. */
typedef union handed {
    struct {
        gpuecon_alloc_fn alloc;
        void *ud;
        size_t size; /* of the whole block */
    } h;
    max_align_t align;
} handed;

/* A copy of s[0..n) for the caller (NUL-terminated), allocated through ctx; NULL when memory
 * runs out. */
static char *hand_out(gpuecon_ctx *ctx, const char *s, size_t n)
{
    const gpuecon_ctx_config *cfg = gpuecon_ctx_get_config(ctx);
    size_t size = sizeof(handed) + n + 1;
    handed *b = cfg->alloc(cfg->alloc_ud, NULL, 0, size);
    if (!b)
        return NULL;
    b->h.alloc = cfg->alloc;
    b->h.ud = cfg->alloc_ud;
    b->h.size = size;
    char *t = (char *)(b + 1);
    if (n)
        memcpy(t, s, n);
    t[n] = '\0';
    return t;
}

/* The same for a string jansson made (json_dumps), which is freed; NULL in, NULL out. */
static char *hand_out_dump(gpuecon_ctx *ctx, char *dumped)
{
    if (!dumped)
        return NULL;
    char *t = hand_out(ctx, dumped, strlen(dumped));
    free(dumped);
    return t;
}

void gpuecon_free(void *p)
{
    if (!p)
        return;
    handed *b = (handed *)p - 1;
    b->h.alloc(b->h.ud, b, b->h.size, 0);
}

static void set_error(gpuecon_error *err, int code, const char *where, const char *msg)
{
    if (!err)
        return;
    gpuecon_error_clear(err);
    err->code = code;
    snprintf(err->where, sizeof err->where, "%s", where);
    snprintf(err->message, sizeof err->message, "%s", msg);
    gpuecon_error_scrub(err); /* jansson's messages quote the request's bytes */
}

static const command *find_command(const char *name, gpuecon_error *err)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (!strcmp(commands[i].info.name, name))
            return &commands[i];
        names[i] = commands[i].info.name;
    }
    const char *near = gpuecon_suggest(name, names, N_COMMANDS);
    char msg[256];
    if (near)
        snprintf(msg, sizeof msg, "unknown command; did you mean '%s'? (gpuecon --help)", near);
    else
        snprintf(msg, sizeof msg, "unknown command (gpuecon --help lists them)");
    set_error(err, GPUECON_E_INPUT, name, msg);
    return NULL;
}

/* The run state of one command, with its two in-memory texts (allocated through the context; an
 * append that runs out of memory sets c.oom and the request fails with no output). */
typedef struct run {
    cli c;
    strbuf out, notes;
} run;

static int run_open(run *r, gpuecon_ctx *ctx, const command *cmd, cli_mode mode)
{
    memset(r, 0, sizeof *r);
    r->c.ctx = ctx;
    r->c.cmd = cmd->info.name;
    r->c.mode = mode;
    r->c.format = mode == CLI_REQUEST ? FMT_JSON : FMT_TABLE;
    gpuecon_error_clear(&r->c.err);
    sb_init(&r->out, ctx, &r->c.oom);
    sb_init(&r->notes, ctx, &r->c.oom);
    r->c.out = &r->out;
    r->c.notes = &r->notes;
    r->c.keep = json_array();
    return r->c.keep ? 0 : -1;
}

/* Hands the texts to *out / *notes (when not NULL) and frees them. Returns -1 when a copy for the
 * caller could not be allocated (nothing is then handed over). */
static int run_close(run *r, char **out, char **notes)
{
    int rc = 0;
    if (out && r->out.len > 0 && !(*out = hand_out(r->c.ctx, r->out.s, r->out.len)))
        rc = -1; /* no output: NULL, as documented */
    if (notes && !(*notes = hand_out(r->c.ctx, r->notes.s ? r->notes.s : "", r->notes.len)))
        rc = -1;
    if (rc && out) {
        gpuecon_free(*out);
        *out = NULL;
    }
    if (rc && notes) {
        gpuecon_free(*notes);
        *notes = NULL;
    }
    sb_free(&r->out);
    sb_free(&r->notes);
    if (!r->c.cat_borrowed)
        gpuecon_catalog_free(r->c.cat);
    gpuecon_catalog_free(r->c.model_cat);
    json_decref(r->c.keep);
    json_decref(r->c.plots);
    return rc;
}

/* The status of a command's exit code; c->err gets a record when the command left none. */
static int run_status(cli *c, int rc)
{
    if (c->oom) { /* a table or page was cut short: no output rather than part of one */
        err_set(&c->err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        return GPUECON_E_NOMEM;
    }
    if (rc == EXIT_OK || rc == EXIT_HELP)
        return GPUECON_OK;
    /* the exit code decides; a record left by an earlier, non-fatal report keeps its text */
    if (c->err.code == GPUECON_OK || gpuecon_exit_code(c->err.code) != rc)
        c->err.code = rc == EXIT_INFEASIBLE ? GPUECON_E_INFEASIBLE
                      : rc == EXIT_USAGE    ? GPUECON_E_INPUT
                                            : GPUECON_E_INTERNAL;
    return c->err.code;
}

static int request_error(gpuecon_error *err, const char *msg, const char *key)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s%s", msg, key ? key : "", key ? "' (allowed: command, options, args)" : "");
    set_error(err, GPUECON_E_INPUT, "request", buf);
    return GPUECON_E_INPUT;
}

/* Checks the request's shape: an object with "command" and optionally "options", "args". */
static int request_shape(json_t *req, const command **cmd, gpuecon_error *err)
{
    if (!json_is_object(req))
        return request_error(err, "expected a JSON object {\"command\": ..., \"options\": {...}}", NULL);
    const char *key;
    json_t *v;
    json_object_foreach(req, key, v) {
        if (strcmp(key, "command") && strcmp(key, "options") && strcmp(key, "args"))
            return request_error(err, "unknown key '", key);
    }
    json_t *name = json_object_get(req, "command");
    if (!json_is_string(name))
        return request_error(err, "\"command\" is required and must be a string", NULL);
    json_t *o = json_object_get(req, "options"), *a = json_object_get(req, "args");
    if (o && !json_is_object(o))
        return request_error(err, "\"options\" must be an object", NULL);
    if (a && !json_is_array(a))
        return request_error(err, "\"args\" must be an array of strings", NULL);
    *cmd = find_command(json_string_value(name), err);
    return *cmd ? GPUECON_OK : GPUECON_E_INPUT;
}

int gpuecon_request_plots(gpuecon_ctx *ctx, const char *request_json, char **output, char **notes, char **plots,
                          gpuecon_error *err)
{
    if (output)
        *output = NULL;
    if (notes)
        *notes = NULL;
    if (plots)
        *plots = NULL;
    gpuecon_error_clear(err);
    if (!ctx || !request_json) {
        set_error(err, GPUECON_E_INPUT, "request", "needs a context and a request");
        return GPUECON_E_INPUT;
    }
    json_error_t je;
    json_t *req = json_loads(request_json, JSON_REJECT_DUPLICATES, &je);
    if (!req) {
        set_error(err, GPUECON_E_PARSE, "request", je.text);
        if (err) {
            err->line = je.line > 0 ? je.line : 0;
            err->column = je.column > 0 ? je.column : 0;
        }
        return GPUECON_E_PARSE;
    }
    const command *cmd = NULL;
    int st = request_shape(req, &cmd, err);
    if (st) {
        json_decref(req);
        return st;
    }
    run r;
    if (run_open(&r, ctx, cmd, CLI_REQUEST) || (plots && !(r.c.plots = json_array()))) {
        run_close(&r, NULL, NULL);
        json_decref(req);
        set_error(err, GPUECON_E_NOMEM, "", "out of memory");
        return GPUECON_E_NOMEM;
    }
    r.c.req_opts = json_object_get(req, "options");
    r.c.req_args = json_object_get(req, "args");
    double budget = gpuecon_ctx_get_config(ctx)->max_work_s; /* "max_work" is per request */
    int rc = cmd->run(&r.c, 0, NULL);
    gpuecon_ctx_set_max_work(ctx, budget);
    if (plots && !r.c.oom && json_array_size(r.c.plots) > 0 &&
        !(*plots = hand_out_dump(ctx, json_dumps(r.c.plots, JSON_COMPACT))))
        r.c.oom = true;
    st = run_status(&r.c, rc);
    if (err && st)
        *err = r.c.err;
    if (run_close(&r, st == GPUECON_E_NOMEM ? NULL : output, notes) && st != GPUECON_E_NOMEM) {
        st = GPUECON_E_NOMEM;
        set_error(err, GPUECON_E_NOMEM, "", "out of memory");
    }
    if (plots && st == GPUECON_E_NOMEM) {
        gpuecon_free(*plots);
        *plots = NULL;
    }
    json_decref(req);
    return st;
}

int gpuecon_request_full(gpuecon_ctx *ctx, const char *request_json, char **output, char **notes,
                         gpuecon_error *err)
{
    return gpuecon_request_plots(ctx, request_json, output, notes, NULL, err);
}

int gpuecon_request(gpuecon_ctx *ctx, const char *request_json, char **response_json, gpuecon_error *err)
{
    return gpuecon_request_plots(ctx, request_json, response_json, NULL, NULL, err);
}

int gpuecon_request_from_argv(gpuecon_ctx *ctx, int argc, char **argv, char **request_json, gpuecon_error *err)
{
    *request_json = NULL;
    gpuecon_error_clear(err);
    if (!ctx || argc < 1 || !argv || !argv[0]) {
        set_error(err, GPUECON_E_INPUT, "", "needs a context and a command");
        return GPUECON_E_INPUT;
    }
    const command *cmd = find_command(argv[0], err);
    if (!cmd)
        return GPUECON_E_INPUT;
    run r;
    int st = GPUECON_E_NOMEM;
    if (!run_open(&r, ctx, cmd, CLI_ARGV)) {
        r.c.built = json_pack("{s:s, s:{}, s:[]}", "command", cmd->info.name, "options", "args");
        if (r.c.built) {
            double budget = gpuecon_ctx_get_config(ctx)->max_work_s; /* checked, not kept */
            int rc = cmd->run(&r.c, argc, argv);
            gpuecon_ctx_set_max_work(ctx, budget);
            if (rc == EXIT_BUILT) {
                *request_json = hand_out_dump(ctx, json_dumps(r.c.built, JSON_COMPACT | JSON_REAL_PRECISION(17)));
                st = *request_json ? GPUECON_OK : GPUECON_E_NOMEM;
            } else if (rc == EXIT_OK) {
                st = GPUECON_E_INTERNAL; /* a command that went on without its options */
            } else {
                st = run_status(&r.c, rc);
                if (err)
                    *err = r.c.err;
            }
        }
        json_decref(r.c.built);
    }
    run_close(&r, NULL, NULL);
    if (st == GPUECON_E_NOMEM && err && err->code == GPUECON_OK)
        set_error(err, GPUECON_E_NOMEM, "", "out of memory");
    return st;
}

int gpuecon_command_options(gpuecon_ctx *ctx, const char *name, char **options_json, gpuecon_error *err)
{
    *options_json = NULL;
    gpuecon_error_clear(err);
    if (!ctx || !name) {
        set_error(err, GPUECON_E_INPUT, "", "needs a context and a command");
        return GPUECON_E_INPUT;
    }
    const command *cmd = find_command(name, err);
    if (!cmd)
        return GPUECON_E_INPUT;
    run r;
    int st = GPUECON_E_NOMEM;
    if (!run_open(&r, ctx, cmd, CLI_DESCRIBE)) {
        r.c.built = json_pack("{s:s}", "command", cmd->info.name);
        char *argv[] = {(char *)cmd->info.name, NULL};
        if (r.c.built && cmd->run(&r.c, 1, argv) == EXIT_BUILT) {
            *options_json = hand_out_dump(ctx, json_dumps(r.c.built, JSON_INDENT(2) | JSON_REAL_PRECISION(17)));
            st = *options_json ? GPUECON_OK : GPUECON_E_NOMEM;
        } else if (err) {
            *err = r.c.err;
            st = r.c.err.code ? r.c.err.code : GPUECON_E_INTERNAL;
        }
        json_decref(r.c.built);
    }
    run_close(&r, NULL, NULL);
    if (st == GPUECON_E_NOMEM && err && err->code == GPUECON_OK)
        set_error(err, GPUECON_E_NOMEM, "", "out of memory");
    return st;
}
