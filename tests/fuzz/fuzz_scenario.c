/*
 * fuzz_scenario.c — libFuzzer harness for scenario files (gpuecon compare). The whole input is
 * a scenario; it must load or fail with a located error. A scenario that loads is then run
 * through compare without sensitivity (the models must take whatever the loader accepted).
 */
#include "fuzz_once.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *cat;
    gpuecon_error err;
    fuzz_catalog_once(&ctx, &cat); /* the catalog is read-only here */
    gpuecon_scenario *sc = NULL;
    int rc = gpuecon_scenario_load_buffer(ctx, cat, "fuzz.yaml", (const char *)data, size, &sc, &err);
    if (rc) {
        if (!err.message[0] || sc)
            __builtin_trap();
        return 0;
    }
    /* keep the work per input bounded (a unit must finish in seconds under the sanitizers):
       only small scenarios of fixed size are evaluated; sizing to a date runs many searches */
    size_t platforms = 0;
    bool small = true;
    for (size_t i = 0; i < gpuecon_scenario_count(sc); i++) {
        const gpuecon_comparison *c = gpuecon_scenario_at(sc, i);
        platforms += c->n_platforms;
        small = small && !(c->workload.target_days > 0);
        for (size_t k = 0; k < c->n_platforms; k++)
            small = small && c->platforms[k].gpus <= 1024;
    }
    if (platforms <= 4 && small) {
        /* no sensitivity and no validate bands: each would re-run models the corpus does not
           exercise, and a unit must stay within seconds */
        gpuecon_compare_options opt = {.no_sensitivity = true, .no_uncertainty = true};
        gpuecon_compare_result *r = NULL;
        if (gpuecon_compare(ctx, cat, sc, &opt, &r, &err) == GPUECON_OK && !r)
            __builtin_trap();
        gpuecon_compare_free(r);
    }
    gpuecon_scenario_free(sc);
    return 0;
}
