/*
 * fuzz_request.c — libFuzzer harness for the web API's request documents (gpuecon serve).
 * The first byte picks the route (POST compare, POST catalog, POST an unknown command, GET a
 * catalog kind, GET the scenario, DELETE, POST infer); the rest is the request body. Every answer must be a known
 * status with a body, and every refusal a JSON {"error": {...}} with a message. The work budget
 * (0.25 s through the progress callback) keeps each input short, as it keeps a server's requests.
 */
#include "serve/api.h"
#include "fuzz_once.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *cat;
    fuzz_catalog_once(&ctx, &cat); /* the catalog is read-only here, as in the server */
    static const char *const routes[][2] = {
        {"POST", "/api/v1/compare"}, {"POST", "/api/v1/catalog"}, {"POST", "/api/v1/no-such-command"},
        {"GET", "/api/v1/catalog/models"}, {"GET", "/api/v1/scenario"}, {"DELETE", "/api/v1/compare"},
        {"POST", "/api/v1/infer"}, /* files inline: lengths and model_file as {"text": ...} */
    };
    if (size < 1)
        return 0;
    size_t r = data[0] % (sizeof routes / sizeof routes[0]);
    api_env env;
    memset(&env, 0, sizeof env);
    env.cat = cat;
    env.scenario_name = "default";
    env.max_body_bytes = 64 * 1024;
    env.max_depth = 32;
    env.budget_s = 0.25;
    env.max_work_s = 2; /* a request may not raise it (serve --max-work) */
    env.seed = 1;
    env.threads = 1;
    api_reply rep;
    api_handle(&env, routes[r][0], routes[r][1], (const char *)data + 1, size - 1, &rep);
    static const int known[] = {200, 400, 404, 405, 413, 422, 503};
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= rep.status == known[i];
    if (!ok || !rep.body || !rep.type)
        __builtin_trap();
    if (rep.status != 200) {
        json_error_t je;
        json_t *j = json_loadb(rep.body, rep.len, 0, &je);
        json_t *e = json_object_get(j, "error");
        const char *msg = json_string_value(json_object_get(e, "message"));
        if (!msg || !msg[0])
            __builtin_trap();
        json_decref(j);
    }
    api_reply_free(&rep);
    return 0;
}
