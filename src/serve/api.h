/*
 * api.h — the JSON API of `gpuecon serve`, independent of HTTP so that tests and the fuzz
 * harness (tests/fuzz/fuzz_request.c) call it directly.
 *
 *   POST /api/v1/<command>     body {"command": "<command>" (optional), "options": {...}};
 *                              the response is the command's JSON document (as `--json`)
 *   GET  /api/v1/catalog/<kind> the catalog's entries of one kind (gpus systems profiles models
 *                              reliability), as `gpuecon catalog <kind> --json`
 *   GET  /api/v1/scenario      the scenario the server was started with, as YAML text
 *
 * Safety: bodies over max_body_bytes are refused (413), nesting deeper than max_depth (400),
 * options that would name a file on the server (catalog, model_file, output) are refused
 * (400: scenarios arrive as documents, catalogs only from the command line), and every
 * request runs in its own context whose progress callback cancels it after budget_s (503).
 * Errors are {"error": {...}} with the same fields and text as the CLI's error line.
 */
#ifndef GPUECON_SERVE_API_H
#define GPUECON_SERVE_API_H

#include "gpuecon.h"

#include <stddef.h>
#include <stdint.h>

typedef struct api_env {
    const gpuecon_catalog *cat;   /* built-in + --catalog DIR, loaded once; read-only */
    const char *scenario_name;    /* "default" or the file's base name */
    const char *scenario_yaml;    /* the text it was started with (NULL: built-in default) */
    size_t scenario_len;
    size_t max_body_bytes;        /* request bodies larger than this answer 413 */
    int max_depth;                /* JSON nesting deeper than this answers 400 */
    double budget_s;              /* work budget per request, seconds of wall time */
    double max_work_s;            /* estimated CPU-seconds a request may ask for ("max_work"); 0: 60 */
    uint64_t seed;
    int threads;                  /* per request; 0: OpenMP default */
    gpuecon_memo *memo;           /* training predictions shared by all requests (may be NULL) */
} api_env;

typedef struct api_reply {
    int status;                   /* HTTP status */
    const char *type;             /* media type */
    char *body;                   /* owned: free with api_reply_free */
    size_t len;
} api_reply;

/* Answers one request. method "GET" or "POST"; path the URL path without the query; body may
 * be NULL when len is 0. Always fills *out (status 200 or an error document); never fails. */
void api_handle(const api_env *env, const char *method, const char *path, const char *body, size_t len,
                api_reply *out);
void api_reply_free(api_reply *r);
/* An error document {"error": {...}} with the given status (for the HTTP layer's own 413/503). */
void api_reply_error(api_reply *out, int status, int code, const char *where, const char *message);

/* Maximum nesting of arrays/objects in a JSON text (strings skipped), scanning at most len
 * bytes and stopping as soon as limit is exceeded (returns limit + 1 then). */
int api_json_depth(const char *s, size_t len, int limit);

#endif
