/*
 * test_scenario.c — scenario files: the built-in default loads, and every kind of bad input
 * is refused with path:line:col and a useful message.
 */
#include "test_util.h"

#include <string.h>

static void test_default(void **state)
{
    gpuecon_scenario *sc = NULL;
    gpuecon_error err;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    if (gpuecon_scenario_load(ctx, CAT(state), NULL, &sc, &err))
        fail_msg("%s:%d:%d: %s", err.where, err.line, err.column, err.message);
    assert_int_equal(gpuecon_scenario_count(sc), 8);
    const gpuecon_comparison *c = gpuecon_scenario_at(sc, 0);
    assert_string_equal(c->workload.model, "deepseek-v3");
    assert_int_equal(c->n_platforms, 2);
    assert_string_equal(c->platforms[1].system, "gb200-nvl72");
    assert_string_equal(c->platforms[1].profile, "hyperscaler");
    assert_string_equal(c->platforms[1].tier, "typical");
    gpuecon_field f;
    assert_int_equal(gpuecon_scenario_field(sc, 0, 1, "measured_tokens_per_s", &f), 0);
    assert_true(f.present);
    assert_close(f.number, 2138, 0);
    assert_int_equal(f.source.stage, GPUECON_STAGE_PUBLISHER_REPORTED);
    const gpuecon_comparison *serve = gpuecon_scenario_at(sc, 3);
    assert_int_equal(serve->workload.kind, GPUECON_WORKLOAD_SERVE);
    assert_int_equal(serve->platforms[0].precision, GPUECON_BF16); /* A100 override */
    assert_int_equal(serve->platforms[1].precision, GPUECON_FP8);  /* the workload's */
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

typedef struct bad {
    const char *yaml;
    int line;
    const char *msg;
} bad;

#define TRAIN_HEAD "workload:\n  kind: train\n  model: llama3-70b\n  tokens: 1e12\n  seq: 8192\n  gbs: 128\n"

static void test_bad(void **state)
{
    static const bad cases[] = {
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpu: 64\n", 9, "unknown field 'gpu'; did you mean 'gpus'?"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h10\n    gpus: 64\n", 8, "did you mean 'hgx-h100'"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 60\n    tp: 8\n", 9,
         "gpus (60) is not a multiple of tp x pp x cp (8)"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 96\n    tp: 8\n    pp: 4\n    cp: 1\n", 9,
         "does not divide over"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-a100\n    gpus: 64\n    precision: fp8\n", 10,
         "a100-80g has no fp8 tensor cores"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 64\n  - system: hgx-h100\n    gpus: 128\n", 10,
         "two platforms are called 'hgx-h100'"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 64\n    tp: 5\n", 10,
         "tp (5) must divide the model's 64 attention heads"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 64\n    ep: 8\n", 10, "ep (8) must divide the model's 0"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n", 8, "needs 'gpus:'"},
        {TRAIN_HEAD "platforms:\n  - system: hgx-h100\n    gpus: 64\n    pue: 0.5\n", 10, "pue: 0.5 is out of range"},
        {"workload:\n  kind: train\n  model: llama3-70b\n  seq: 8192\n  gbs: 8\nplatforms:\n  - system: hgx-h100\n    gpus: 8\n",
         2, "needs 'tokens:'"},
        {"workload:\n  kind: train\n  model: llama3-7b\n  tokens: 1e12\n", 3, "did you mean 'llama3-"},
        {"workload:\n  kind: serve\n  model: llama3-8b\n  prompt_len: 200000\nplatforms:\n  - system: hgx-h100\n    gpus: 8\n",
         4, "exceeds llama3-8b's context of 131072"},
        {"workload:\n  kind: train\n  model: llama3-70b\n  tokens: 1e12\n  seq: 8192\n  batch_tokens: 1000\n"
         "platforms:\n  - system: hgx-h100\n    gpus: 8\n",
         6, "batch_tokens (1,000) must be a whole multiple of seq (8192)"},
        {"workload:\n  kind: serve\n  model: llama3-70b\nplatforms:\n  - system: hgx-h100\n    gpus: 32\n    tp: 1\n"
         "    pp: 32\n",
         8, "pp (32) of a serving platform is at most 16 pipeline stages"},
        {"comparisons: []\n", 1, "must be a list of 1 to 64"},
        {"name: x\nplatform: []\n", 2, "unknown field 'platform'; did you mean 'platforms'?"},
        {TRAIN_HEAD "platforms: []\n", 7, "at least one platform"},
        {"workload: {kind: trian, model: llama3-70b}\nplatforms: [{system: hgx-h100, gpus: 8}]\n", 1,
         "'trian' is not allowed; did you mean 'train'?"},
    };
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuecon_scenario *sc = NULL;
        gpuecon_error err;
        gpuecon_error_clear(&err);
        int rc = gpuecon_scenario_load_buffer(ctx, CAT(state), "s.yaml", cases[i].yaml, strlen(cases[i].yaml),
                                              &sc, &err);
        if (rc == GPUECON_OK || err.line != cases[i].line || !strstr(err.message, cases[i].msg) ||
            strcmp(err.where, "s.yaml"))
            fail_msg("case %zu: rc %d %s:%d:%d '%s'; expected line %d '%s'", i, rc, err.where, err.line,
                     err.column, err.message, cases[i].line, cases[i].msg);
        assert_null(sc);
    }
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
