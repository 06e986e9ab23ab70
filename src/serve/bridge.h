/*
 * bridge.h — the one seam between the web API and the library's commands: a validated
 * request goes to gpuecon_request_full() and its answer comes back unchanged.
 */
#ifndef GPUECON_SERVE_BRIDGE_H
#define GPUECON_SERVE_BRIDGE_H

#include "api.h"

#include <jansson.h>

/* Runs `command` with `options` (a JSON object) and `args` (an array or NULL), neither
 * consumed, in ctx. On success returns GPUECON_OK with *out (malloc'd, NUL-terminated, *len
 * bytes) and *type its media type; on failure a gpuecon_status with err filled
 * (GPUECON_E_CANCELED when the work budget ran out). */
int serve_request(const api_env *env, gpuecon_ctx *ctx, const char *command, json_t *options, json_t *args,
                  char **out, size_t *len, const char **type, gpuecon_error *err);

#endif
