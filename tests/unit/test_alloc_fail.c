/*
 * test_alloc_fail.c — out of memory at every allocation: for k = 1, 2, ... the context's
 * allocator fails its k-th allocation, until an operation needs fewer than k and succeeds.
 * Every failing run must return GPUECON_E_NOMEM, hand back nothing, leak nothing (ASan under
 * make test) and leave the catalog exactly as it was (each entry's address and bytes, as
 * tests/fuzz/fuzz_catalog.c checks): the built-in catalog load, a --catalog folder of one and
 * of two files, a Hugging Face --model-file, a scenario load (and one whose model_file: entries
 * load into the catalog), train, search and compare (with and without its uncertainty bands),
 * and requests rendered as a table, CSV, an HTML page and a terminal form of several tables (no part of
 * the output comes back).
 */
#include "train_util.h"
#include "../catalog_snap.h"

#include <stdlib.h>
#include <string.h>

typedef struct failer {
    long n, fail_at; /* fail_at 0: never */
} failer;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    failer *f = ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (f->fail_at > 0 && ++f->n == f->fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

static gpuecon_ctx *failing_ctx(failer *f)
{
    gpuecon_ctx_config cfg = {0};
    cfg.alloc = failing_alloc;
    cfg.alloc_ud = f;
    cfg.seed = 1;
    cfg.threads = 1;
    return gpuecon_ctx_new(&cfg);
}

static void take(const gpuecon_catalog *cat, snap *s)
{
    assert_true(snap_take(cat, s));
}

static void same(const gpuecon_catalog *cat, const snap *before, long k)
{
    snap now;
    take(cat, &now);
    if (memcmp(&now, before, sizeof now))
        fail_msg("the catalog changed after the failed allocation %ld", k);
}

/* Runs op with the k-th allocation failing for k = 1, 2, ... until it succeeds; returns the
 * number of failing runs. op returns the status; check_failed runs after each failure. */
typedef int (*op_fn)(gpuecon_ctx *ctx, void *ud);

static long every_allocation(failer *f, gpuecon_ctx *ctx, op_fn op, void *ud, const gpuecon_catalog *cat,
                             const char *what)
{
    snap before;
    if (cat)
        take(cat, &before);
    long k = 1;
    for (;; k++) {
        f->n = 0;
        f->fail_at = k;
        int rc = op(ctx, ud);
        f->fail_at = 0;
        if (rc == GPUECON_OK && f->n < k)
            break; /* needed fewer than k allocations: done */
        if (rc != GPUECON_E_NOMEM)
            fail_msg("%s: allocation %ld failed, status %d (%s), expected GPUECON_E_NOMEM", what, k, rc,
                     gpuecon_status_name(rc));
        if (cat)
            same(cat, &before, k);
    }
    print_message("%-28s %ld allocations, each failed once\n", what, k - 1);
    return k - 1;
}

/* ---- the operations ---- */

static int op_catalog_new(gpuecon_ctx *ctx, void *ud)
{
    (void)ud;
    gpuecon_catalog *cat = (gpuecon_catalog *)1;
    gpuecon_error err;
    int rc = gpuecon_catalog_new(ctx, &cat, &err);
    if (rc)
        assert_null(cat);
    gpuecon_catalog_free(rc ? NULL : cat);
    return rc;
}

typedef struct load_arg {
    gpuecon_catalog *cat;
    const char *path;
    bool model_file;
} load_arg;

static int op_load(gpuecon_ctx *ctx, void *ud)
{
    (void)ctx;
    load_arg *a = ud;
    gpuecon_error err;
    if (a->model_file) {
        const gpuecon_model *m = (const gpuecon_model *)1;
        int rc = gpuecon_catalog_load_model_file(a->cat, a->path, &m, &err);
        if (rc)
            assert_null(m);
        return rc;
    }
    return gpuecon_catalog_load_dir(a->cat, a->path, &err);
}

typedef struct run_arg {
    const gpuecon_catalog *cat;
    gpuecon_train_request req;
    const char *scenario;
    bool bands; /* compare with its uncertainty bands (the validate rows of the platform's kind) */
} run_arg;

static int op_scenario(gpuecon_ctx *ctx, void *ud)
{
    run_arg *a = ud;
    gpuecon_scenario *sc = (gpuecon_scenario *)1;
    gpuecon_error err;
    int rc = gpuecon_scenario_load(ctx, a->cat, a->scenario, &sc, &err);
    if (rc)
        assert_null(sc);
    gpuecon_scenario_free(rc ? NULL : sc);
    return rc;
}

/* A scenario whose workloads load models (model_file:) into a catalog of their own. */
static int op_scenario_models(gpuecon_ctx *ctx, void *ud)
{
    load_arg *a = ud;
    gpuecon_scenario *sc = (gpuecon_scenario *)1;
    gpuecon_error err;
    int rc = gpuecon_scenario_load_with_models(ctx, a->cat, a->path, &sc, &err);
    if (rc)
        assert_null(sc);
    gpuecon_scenario_free(rc ? NULL : sc);
    return rc;
}

static int op_train(gpuecon_ctx *ctx, void *ud)
{
    run_arg *a = ud;
    gpuecon_train_result r;
    gpuecon_error err;
    return gpuecon_train_predict(ctx, &a->req, &r, &err);
}

static int op_search(gpuecon_ctx *ctx, void *ud)
{
    run_arg *a = ud;
    gpuecon_search_options o = {.top_k = 3};
    gpuecon_search_result r;
    gpuecon_error err;
    int rc = gpuecon_train_search(ctx, &a->req, &o, &r, &err);
    if (rc == GPUECON_OK)
        gpuecon_search_result_free(&r);
    return rc;
}

static int op_compare(gpuecon_ctx *ctx, void *ud)
{
    run_arg *a = ud;
    gpuecon_error err;
    gpuecon_scenario *sc = NULL;
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL); /* the scenario loads without failures */
    assert_int_equal(gpuecon_scenario_load(plain, a->cat, a->scenario, &sc, &err), GPUECON_OK);
    /* the validate bands re-run a calibration set: quadratic under the k-th-failure loop, so only
       the bands case (a small fixture) runs them */
    gpuecon_compare_options o = {.no_uncertainty = !a->bands};
    gpuecon_compare_result *r = (gpuecon_compare_result *)1;
    int rc = gpuecon_compare(ctx, a->cat, sc, &o, &r, &err);
    if (rc)
        assert_null(r);
    else if (a->bands) { /* the band code ran to its end: each platform's nearest group of held-out rows */
        static const char *const groups[] = {"hopper-bf16-moe", "hopper-bf16-dense", "ampere-bf16-dense"};
        assert_int_equal(r->n, 3);
        for (size_t i = 0; i < 3; i++) {
            assert_true(r->cmp[i].platforms[0].band.set);
            assert_non_null(strstr(r->cmp[i].platforms[0].band.basis, groups[i]));
        }
    }
    gpuecon_compare_free(rc ? NULL : r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(plain);
    return rc;
}

/* ---- the tests ---- */

static void test_catalog_loads(void **state)
{
    (void)state;
    failer f = {0, 0};
    gpuecon_ctx *ctx = failing_ctx(&f);
    assert_non_null(ctx);
    assert_true(every_allocation(&f, ctx, op_catalog_new, NULL, NULL, "built-in catalog") > 10);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    load_arg hf = {cat, GPUECON_SOURCE_DIR "/tests/cases/hf/deepseek-v3.json", true};
    load_arg one = {cat, GPUECON_SOURCE_DIR "/tests/cases/override", false};
    load_arg two = {cat, GPUECON_SOURCE_DIR "/tests/cases/override-two", false};
    assert_true(every_allocation(&f, ctx, op_load, &hf, cat, "--model-file config.json") > 0);
    assert_true(every_allocation(&f, ctx, op_load, &one, cat, "--catalog (one file)") > 0);
    assert_true(every_allocation(&f, ctx, op_load, &two, cat, "--catalog (two files)") > 0);
    assert_int_equal(gpuecon_catalog_gpu(cat, "h100-sxm")->peak_bf16_tflops, 1234); /* loaded at last */
    load_arg sm = {cat, GPUECON_SOURCE_DIR "/tests/cases/scenarios/model-file.yaml", false};
    assert_null(gpuecon_catalog_model(cat, "meta-llama/Llama-3.1-8B"));
    assert_true(every_allocation(&f, ctx, op_scenario_models, &sm, cat, "scenario with model_file:") > 0);
    assert_non_null(gpuecon_catalog_model(cat, "meta-llama/Llama-3.1-8B")); /* loaded at last */
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* A folder whose second file is broken changes nothing: the first file's GPU is put back. */
static void test_folder_all_or_nothing(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    snap before;
    take(cat, &before);
    const gpuecon_gpu *g = gpuecon_catalog_gpu(cat, "h100-sxm");
    assert_int_equal(gpuecon_catalog_load_dir(cat, GPUECON_SOURCE_DIR "/tests/cases/override-partial", &err),
                     GPUECON_E_PARSE);
    assert_non_null(strstr(err.where, "systems.yaml"));
    same(cat, &before, 0);
    assert_ptr_equal(gpuecon_catalog_gpu(cat, "h100-sxm"), g);
    assert_int_equal(gpuecon_catalog_gpu(cat, "h100-sxm")->peak_bf16_tflops, 989);
    assert_ptr_equal(gpuecon_catalog_system(cat, "hgx-h100")->gpu, g);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

static void test_runs(void **state)
{
    failer f = {0, 0};
    gpuecon_ctx *ctx = failing_ctx(&f);
    assert_non_null(ctx);
    run_arg a;
    memset(&a, 0, sizeof a);
    a.cat = CAT(state);
    a.scenario = GPUECON_SOURCE_DIR "/data/scenarios/default.yaml";
    assert_true(every_allocation(&f, ctx, op_scenario, &a, a.cat, "scenario load") > 0);
    a.req = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    a.req.tp = 4, a.req.pp = 8, a.req.mbs = 1;
    every_allocation(&f, ctx, op_train, &a, a.cat, "train (sizes given)");
    a.req = req_for(state, "deepseek-v3", "gb200-nvl72", 256, 4096, 2048);
    assert_true(every_allocation(&f, ctx, op_train, &a, a.cat, "train (sizes searched)") > 0);
    a.req = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    assert_true(every_allocation(&f, ctx, op_search, &a, a.cat, "search") > 0);
    a.scenario = GPUECON_SOURCE_DIR "/tests/cases/scenarios/infeasible.yaml";
    assert_true(every_allocation(&f, ctx, op_compare, &a, a.cat, "compare (serve)") > 0);
    /* a small fixture: the loop is quadratic in allocations (see the file's comment) */
    a.scenario = GPUECON_SOURCE_DIR "/tests/cases/scenarios/alloc-fail.yaml";
    assert_true(every_allocation(&f, ctx, op_compare, &a, a.cat, "compare (train: timeline, predicted)") > 0);
    a.scenario = GPUECON_SOURCE_DIR "/tests/cases/scenarios/alloc-fail-bands.yaml";
    a.bands = true;
    assert_true(every_allocation(&f, ctx, op_compare, &a, a.cat, "compare (uncertainty bands)") > 0);
    gpuecon_ctx_free(ctx);
}

/* ---- requests: the rendering of tables, pages and charts fails cleanly too ---- */

static int op_request(gpuecon_ctx *ctx, void *ud)
{
    char *out = NULL, *notes = NULL;
    gpuecon_error err;
    int rc = gpuecon_request_full(ctx, ud, &out, &notes, &err);
    if (rc == GPUECON_E_NOMEM) {
        assert_null(out); /* no part of a table or page */
        assert_string_equal(err.message, "out of memory");
    }
    gpuecon_free(out);
    gpuecon_free(notes);
    return rc;
}

static void test_requests(void **state)
{
    failer f = {0, 0};
    gpuecon_ctx_config cfg = {0};
    cfg.alloc = failing_alloc;
    cfg.alloc_ud = &f;
    cfg.seed = 1;
    cfg.threads = 1;
    cfg.catalog = CAT(state); /* loaded with the plain allocator, lent read-only */
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    assert_non_null(ctx);
    static const char *const requests[] = {
        "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\", \"tokens_per_s\": 728, "
        "\"format\": \"table\"}}",
        "{\"command\": \"catalog\", \"args\": [\"systems\"], \"options\": {\"format\": \"csv\"}}",
        "{\"command\": \"compare\", \"args\": [\"" GPUECON_SOURCE_DIR "/tests/cases/scenarios/infeasible.yaml\"], "
        "\"options\": {\"format\": \"html\"}}",
        /* a terminal form that prints tables beyond its kind's (render_out) */
        "{\"command\": \"reliability\", \"options\": {\"system\": \"hgx-h100\", \"active_gpus\": 1024, "
        "\"trials\": 0, \"format\": \"table\"}}",
        /* RUNS.yaml read, each run through its command's options, the fits, the overlay text */
        "{\"command\": \"calibrate\", \"args\": [\"" GPUECON_SOURCE_DIR "/tests/cases/runs/small.yaml\"], "
        "\"options\": {\"format\": \"table\", \"out_dir\": \"unused\"}}",
    };
    const char *names[] = {"request cost (table)", "request catalog (CSV)", "request compare (HTML)",
                           "request reliability (table, three tables)", "request calibrate (table)"};
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        /* each renders a table at least: its columns and cells are allocations that can fail */
        assert_true(every_allocation(&f, ctx, op_request, (void *)requests[i], NULL, names[i]) >= 2);
    }
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_loads),
        cmocka_unit_test(test_folder_all_or_nothing),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_requests),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
