/*
 * api.c — the JSON API of `gpuecon serve` (routes and safety checks; see api.h).
 *
 * Key choice: everything a request may do is decided here, before any command runs: the body
 * size, the JSON nesting depth and the shape of the request document; options that would name a
 * file on the server are refused by the library (gpuecon_ctx_config.no_files). The command itself
 * runs through serve_request() (bridge.c) in a context of its own whose progress callback enforces
 * the work budget.
 */
#include "api.h"
#include "assets.h"
#include "bridge.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kinds[] = {"gpus", "systems", "profiles", "models", "reliability", "stacks", "timelines",
                                    "calibrations", NULL};
void api_reply_free(api_reply *r)
{
    if (r) {
        free(r->body);
        r->body = NULL;
        r->len = 0;
    }
}

static void reply_json(api_reply *out, int status, json_t *j)
{
    out->status = status;
    out->type = "application/json";
    out->body = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    out->len = out->body ? strlen(out->body) : 0;
    if (!out->body) {
        out->status = 500;
        out->type = "text/plain; charset=utf-8";
        out->body = strdup("out of memory\n");
        out->len = out->body ? strlen(out->body) : 0;
    }
    json_decref(j);
}

static void reply_err(api_reply *out, int status, const gpuecon_error *err)
{
    /* JSON strings must be UTF-8, and a message may quote the request's bytes (jansson's
     * "invalid escape near '...'" cut inside a character: found by fuzz_request) */
    gpuecon_error copy = *err, *e = &copy;
    gpuecon_error_scrub(e);
    char text[GPUECON_ERROR_LINE_MAX];
    gpuecon_error_format(e, text, sizeof text);
    json_t *rec = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "status", gpuecon_status_name(e->code), "where",
                            e->where, "line", e->line, "column", e->column, "message", e->message, "text", text);
    json_object_set_new(rec, "exit_code", json_integer(gpuecon_exit_code(e->code)));
    reply_json(out, status, json_pack("{s:o}", "error", rec));
}

void api_reply_error(api_reply *out, int status, int code, const char *where, const char *message)
{
    gpuecon_error e;
    gpuecon_error_clear(&e);
    e.code = code;
    snprintf(e.where, sizeof e.where, "%s", where ? where : "");
    snprintf(e.message, sizeof e.message, "%s", message);
    reply_err(out, status, &e);
}

int api_json_depth(const char *s, size_t len, int limit)
{
    int depth = 0, max = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max && (max = depth) > limit)
                return limit + 1;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return max;
}

/* Wall-clock budget of one request, checked from the library's progress callback. */
typedef struct budget {
    double deadline;
} budget;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double clock_s(void *ud)
{
    (void)ud;
    return now_s();
}

static int budget_progress(void *ud, double done, double total)
{
    (void)done;
    (void)total;
    const budget *b = ud;
    return now_s() > b->deadline;
}

static int status_of(int code)
{
    switch (code) {
    case GPUECON_E_CANCELED: return 503;
    case GPUECON_E_INFEASIBLE: return 422;
    case GPUECON_E_NOMEM:
    case GPUECON_E_INTERNAL: return 500;
    default: return 400;
    }
}

static bool valid_command_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] >= 'a' && s[i] <= 'z') && s[i] != '-')
            return false;
    return true;
}

/* Checks the request document; fills *opts (borrowed, or NULL for none) and *args (borrowed or
 * NULL). Returns false with *out set when the request is refused. */
static bool check_request(json_t *root, const char *command, json_t **opts, json_t **args, api_reply *out)
{
    char msg[400];
    *opts = *args = NULL;
    if (!json_is_object(root)) {
        api_reply_error(out, 400, GPUECON_E_PARSE, "request", "must be a JSON object {\"options\": {...}}");
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "command") && strcmp(key, "options") && strcmp(key, "args")) {
            snprintf(msg, sizeof msg, "unknown key '%.64s'; allowed: command, options, args", key);
            api_reply_error(out, 400, GPUECON_E_INPUT, "request", msg);
            return false;
        }
    }
    json_t *cmd = json_object_get(root, "command");
    if (cmd && (!json_is_string(cmd) || strcmp(json_string_value(cmd), command))) {
        snprintf(msg, sizeof msg, "must be the string \"%s\" (the command in the URL) or absent", command);
        api_reply_error(out, 400, GPUECON_E_INPUT, "request.command", msg);
        return false;
    }
    *opts = json_object_get(root, "options");
    if (*opts && !json_is_object(*opts)) {
        api_reply_error(out, 400, GPUECON_E_INPUT, "request.options", "must be an object of option names");
        return false;
    }
    *args = json_object_get(root, "args");
    if (*args && strcmp(command, "catalog")) {
        /* compare's only argument is a scenario file: documents travel as options.scenario */
        api_reply_error(out, 400, GPUECON_E_INPUT, "request.args",
                        "names a file on the server, which the web API never reads; send the scenario document "
                        "as options.scenario (YAML text or a JSON object)");
        return false;
    }
    /* options that name a file are refused by the library itself (a no_files context: an allow list by
       option kind, so a new file option cannot slip past a list of names here) */
    return true;
}

static void run_command(const api_env *env, const char *command, json_t *opts, json_t *args, api_reply *out)
{
    budget b = {now_s() + env->budget_s};
    gpuecon_ctx_config cfg = {0};
    cfg.max_work_s = env->max_work_s;
    cfg.no_files = true;
    /* a request's "max_work" may lower the budget, never raise it; the library parses it (a
       second parser here once read "1k" as 1 while the library read 1000) */
    cfg.max_work_limit_s = env->max_work_s > 0 ? env->max_work_s : GPUECON_DEFAULT_MAX_WORK_S;
    cfg.seed = env->seed;
    cfg.threads = env->threads;
    cfg.memo = env->memo;
    cfg.catalog = env->cat;
    cfg.clock = clock_s; /* the front end owns the clock: elapsed_s as the CLI reports it */
    cfg.progress = budget_progress;
    cfg.progress_ud = &b;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    if (!ctx) {
        api_reply_error(out, 500, GPUECON_E_NOMEM, "", "out of memory");
        return;
    }
    gpuecon_error err;
    gpuecon_error_clear(&err);
    char *body = NULL;
    size_t len = 0;
    const char *type = NULL;
    int rc = serve_request(env, ctx, command, opts, args, &body, &len, &type, &err);
    gpuecon_ctx_free(ctx);
    if (rc) {
        free(body);
        if (rc == GPUECON_E_CANCELED && !err.message[0])
            snprintf(err.message, sizeof err.message, "canceled");
        if (rc == GPUECON_E_CANCELED) {
            err.code = rc;
            snprintf(err.message, sizeof err.message,
                     "stopped after the server's work budget of %g s per request (gpuecon serve --budget-s)",
                     env->budget_s);
        }
        reply_err(out, status_of(rc), &err);
        return;
    }
    out->status = 200;
    out->type = type;
    out->body = body;
    out->len = len;
}

static void post_command(const api_env *env, const char *command, const char *body, size_t len, api_reply *out)
{
    char msg[200];
    if (len > env->max_body_bytes) {
        snprintf(msg, sizeof msg, "request body of %zu bytes is over the limit of %zu", len, env->max_body_bytes);
        api_reply_error(out, 413, GPUECON_E_INPUT, "request", msg);
        return;
    }
    if (api_json_depth(body ? body : "", len, env->max_depth) > env->max_depth) {
        snprintf(msg, sizeof msg, "nested deeper than %d levels", env->max_depth);
        api_reply_error(out, 400, GPUECON_E_INPUT, "request", msg);
        return;
    }
    json_error_t je;
    json_t *root = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        gpuecon_error e;
        gpuecon_error_clear(&e);
        e.code = GPUECON_E_PARSE;
        snprintf(e.where, sizeof e.where, "request");
        e.line = je.line > 0 ? je.line : 0;
        e.column = je.line > 0 ? je.column : 0;
        snprintf(e.message, sizeof e.message, "not valid JSON: %s", je.text);
        reply_err(out, 400, &e);
        return;
    }
    json_t *opts, *args;
    if (check_request(root, command, &opts, &args, out)) {
        json_t *empty = opts ? NULL : json_object();
        run_command(env, command, opts ? opts : empty, args, out);
        json_decref(empty);
    }
    json_decref(root);
}

static void get_scenario(const api_env *env, api_reply *out)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(env->scenario_name));
    json_object_set_new(j, "builtin", json_boolean(!env->scenario_yaml));
    const char *text = env->scenario_yaml;
    size_t n = env->scenario_len;
    for (const serve_asset *a = serve_assets; !text && a->path; a++)
        if (!strcmp(a->path, "/scenarios/default.yaml")) {
            text = a->data;
            n = a->size;
        }
    json_object_set_new(j, "yaml", json_stringn(text ? text : "", text ? n : 0));
    reply_json(out, 200, j);
}

void api_handle(const api_env *env, const char *method, const char *path, const char *body, size_t len,
                api_reply *out)
{
    memset(out, 0, sizeof *out);
    static const char prefix[] = "/api/v1/";
    char msg[300];
    if (strncmp(path, prefix, sizeof prefix - 1)) {
        api_reply_error(out, 404, GPUECON_E_NOTFOUND, path, "no such API path; the API lives under /api/v1/");
        return;
    }
    const char *rest = path + sizeof prefix - 1;
    bool get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
    if (!strcmp(rest, "scenario") && get) {
        get_scenario(env, out);
        return;
    }
    if (!strncmp(rest, "catalog/", 8) && get) {
        const char *kind = rest + 8;
        for (size_t i = 0; kinds[i]; i++)
            if (!strcmp(kind, kinds[i])) {
                json_t *o = json_object(), *a = json_pack("[s]", kind);
                run_command(env, "catalog", o, a, out);
                json_decref(o);
                json_decref(a);
                return;
            }
        snprintf(msg, sizeof msg,
                 "unknown catalog kind '%.40s'; allowed: gpus systems profiles models reliability stacks timelines "
                 "calibrations",
                 kind);
        api_reply_error(out, 404, GPUECON_E_NOTFOUND, "path", msg);
        return;
    }
    if (post && valid_command_name(rest)) {
        post_command(env, rest, body, len, out);
        return;
    }
    if (!get && !post) {
        snprintf(msg, sizeof msg, "method %.16s is not allowed; use GET or POST", method);
        api_reply_error(out, 405, GPUECON_E_INPUT, "method", msg);
        return;
    }
    snprintf(msg, sizeof msg,
             "no such API path for %s; POST /api/v1/<command>, GET /api/v1/catalog/<kind>, GET /api/v1/scenario",
             method);
    api_reply_error(out, 404, GPUECON_E_NOTFOUND, path, msg);
}
