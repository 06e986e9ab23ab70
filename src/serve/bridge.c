/*
 * bridge.c — runs one API request through the library's request interface.
 *
 * Key choice: nothing is rendered here. The request document is handed to
 * gpuecon_request_full() — the CLI's entry point, less the charts it draws — so the answer is
 * byte for byte what `gpuecon <command> --json` (or --csv, --format html) prints. The server adds only what
 * the client may not give: the scenario it was started with (compare without a "scenario").
 * The catalog comes from the context (config .catalog), loaded once from the command line.
 */
#include "bridge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* civetweb's worker threads have small stacks (Debian's build sets about 100 KiB), and the
 * library's comparison path keeps its per-platform state on the stack (hundreds of KiB under
 * ASan), so each request runs on a thread of its own with the stack a main thread would have. */
#define REQUEST_STACK_BYTES (16u << 20)

typedef struct call {
    gpuecon_ctx *ctx;
    const char *text;
    char *output, *notes;
    gpuecon_error *err;
    int st;
} call;

static void *run_call(void *p)
{
    call *c = p;
    c->st = gpuecon_request_full(c->ctx, c->text, &c->output, &c->notes, c->err);
    return NULL;
}

/* gpuecon_request_full on a thread with REQUEST_STACK_BYTES of stack (on the caller's thread
 * if one cannot be started). */
static int request_big_stack(gpuecon_ctx *ctx, const char *text, char **output, char **notes,
                             gpuecon_error *err)
{
    call c = {ctx, text, NULL, NULL, err, GPUECON_OK};
    pthread_attr_t a;
    pthread_t t;
    bool started = false;
    if (!pthread_attr_init(&a)) {
        started = !pthread_attr_setstacksize(&a, REQUEST_STACK_BYTES) && !pthread_create(&t, &a, run_call, &c);
        pthread_attr_destroy(&a);
    }
    if (started)
        pthread_join(t, NULL);
    else
        run_call(&c);
    *output = c.output;
    *notes = c.notes;
    return c.st;
}

static const char *media_type(json_t *options)
{
    json_t *f = json_object_get(options, "format");
    const char *fmt = json_is_string(f) ? json_string_value(f) : NULL;
    if (json_is_true(json_object_get(options, "help")) || (fmt && !strcmp(fmt, "table")))
        return "text/plain; charset=utf-8";
    if ((fmt && !strcmp(fmt, "csv")) || json_is_true(json_object_get(options, "csv")))
        return "text/csv; charset=utf-8";
    if (fmt && !strcmp(fmt, "html"))
        return "text/html; charset=utf-8";
    return "application/json";
}

int serve_request(const api_env *env, gpuecon_ctx *ctx, const char *command, json_t *options, json_t *args,
                  char **out, size_t *len, const char **type, gpuecon_error *err)
{
    *out = NULL;
    *len = 0;
    *type = media_type(options);
    json_t *opts = json_deep_copy(options);
    if (opts && !strcmp(command, "compare") && env->scenario_yaml && !json_object_get(opts, "scenario"))
        json_object_set_new(opts, "scenario", json_stringn(env->scenario_yaml, env->scenario_len));
    json_t *req = json_pack("{s:s, s:o}", "command", command, "options", opts);
    if (req && args)
        json_object_set(req, "args", args);
    char *text = req ? json_dumps(req, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(req);
    if (!text) {
        gpuecon_error_clear(err);
        err->code = GPUECON_E_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return GPUECON_E_NOMEM;
    }
    char *output = NULL, *notes = NULL;
    int st = request_big_stack(ctx, text, &output, &notes, err);
    free(text);
    gpuecon_free(notes);
    if (st == GPUECON_OK && !output) {
        output = NULL;
        *out = strdup("");
    } else if (st == GPUECON_OK) {
        *out = strdup(output);
    }
    gpuecon_free(output);
    if (st)
        return st;
    if (!*out) {
        err->code = GPUECON_E_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return GPUECON_E_NOMEM;
    }
    *len = strlen(*out);
    return GPUECON_OK;
}
