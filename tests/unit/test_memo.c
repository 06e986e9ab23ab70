/*
 * test_memo.c — gpuecon_memo: a stored training prediction is exactly what the search finds
 * (every byte), equal requests hit and different ones miss, an infeasible answer comes back with
 * its error, the ring replaces its oldest entry, and the compare of a scenario run twice through
 * one memo gives identical results with every prediction of the second run answered by the memo.
 */
#include "test_util.h"

#include <string.h>

static gpuecon_train_request req(void **state, const char *model, int gpus)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), model);
    q.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    q.gpus = gpus, q.seq = 8192, q.gbs = 512;
    return q;
}

static gpuecon_ctx *ctx_with(gpuecon_memo *m)
{
    gpuecon_ctx_config cfg = {0};
    cfg.memo = m;
    return gpuecon_ctx_new(&cfg);
}

static void test_same_bits(void **state)
{
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL);
    gpuecon_memo *m = gpuecon_memo_new(plain, 0);
    gpuecon_ctx *ctx = ctx_with(m);
    gpuecon_train_request q = req(state, "llama3-8b", 64);
    gpuecon_train_result r0, r1, r2;
    gpuecon_error err;
    assert_int_equal(gpuecon_train_predict(plain, &q, &r0, &err), GPUECON_OK);
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r1, &err), GPUECON_OK);
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r2, &err), GPUECON_OK);
    assert_memory_equal(&r0, &r1, sizeof r0);
    assert_memory_equal(&r1, &r2, sizeof r1);
    size_t hits, misses;
    gpuecon_memo_stats(m, &hits, &misses);
    assert_int_equal(hits, 1);
    assert_int_equal(misses, 1);
    gpuecon_train_request q2 = req(state, "llama3-8b", 128); /* differs in one field */
    assert_int_equal(gpuecon_train_predict(ctx, &q2, &r2, &err), GPUECON_OK);
    gpuecon_memo_stats(m, &hits, &misses);
    assert_int_equal(misses, 2);
    gpuecon_ctx_free(ctx);
    gpuecon_memo_free(m);
    gpuecon_ctx_free(plain);
}

/* A caller that reuses one model struct with new contents (validate builds its runs' models so)
 * must not get the old answer: the key holds the model's contents, not only its address. Twice
 * the layers at the same width is twice the work per token: the throughput must fall. */
static void test_same_address_new_contents(void **state)
{
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL);
    gpuecon_memo *m = gpuecon_memo_new(plain, 0);
    gpuecon_ctx *ctx = ctx_with(m);
    gpuecon_model model = *gpuecon_catalog_model(CAT(state), "llama3-8b");
    gpuecon_train_request q = req(state, "llama3-8b", 64);
    q.model = &model;
    gpuecon_train_result a, b;
    gpuecon_error err;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &a, &err), GPUECON_OK);
    model.layers *= 2;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &b, &err), GPUECON_OK);
    assert_true(b.tokens_per_s_per_gpu < 0.75 * a.tokens_per_s_per_gpu);
    size_t hits, misses;
    gpuecon_memo_stats(m, &hits, &misses);
    assert_int_equal(hits, 0);
    assert_int_equal(misses, 2);
    gpuecon_ctx_free(ctx);
    gpuecon_memo_free(m);
    gpuecon_ctx_free(plain);
}

/* Llama 3 405B's BF16 weights alone (2 B x 405e9 = 810 GB) exceed 8 x 80 GB: infeasible. */
static void test_infeasible_kept(void **state)
{
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL);
    gpuecon_memo *m = gpuecon_memo_new(plain, 4);
    gpuecon_ctx *ctx = ctx_with(m);
    gpuecon_train_request q = req(state, "llama3-405b", 8);
    q.gbs = 8;
    gpuecon_train_result r;
    gpuecon_error e1, e2;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &e1), GPUECON_E_INFEASIBLE);
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &e2), GPUECON_E_INFEASIBLE);
    assert_string_equal(e1.message, e2.message);
    size_t hits;
    gpuecon_memo_stats(m, &hits, NULL);
    assert_int_equal(hits, 1);
    gpuecon_ctx_free(ctx);
    gpuecon_memo_free(m);
    gpuecon_ctx_free(plain);
}

static void test_ring(void **state)
{
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL);
    gpuecon_memo *m = gpuecon_memo_new(plain, 2);
    gpuecon_ctx *ctx = ctx_with(m);
    gpuecon_train_result r;
    gpuecon_error err;
    int sizes[] = {8, 16, 32, 8}; /* the fourth replaced the first: a miss */
    for (size_t i = 0; i < 4; i++) {
        gpuecon_train_request q = req(state, "llama3-8b", sizes[i]);
        assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &err), GPUECON_OK);
    }
    size_t hits, misses;
    gpuecon_memo_stats(m, &hits, &misses);
    assert_int_equal(hits, 0);
    assert_int_equal(misses, 4);
    gpuecon_train_request q = req(state, "llama3-8b", 32); /* still stored */
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &err), GPUECON_OK);
    gpuecon_memo_stats(m, &hits, NULL);
    assert_int_equal(hits, 1);
    gpuecon_ctx_free(ctx);
    gpuecon_memo_free(m);
    gpuecon_ctx_free(plain);
    gpuecon_memo_free(NULL);
}

static void test_compare_twice(void **state)
{
    gpuecon_ctx *plain = gpuecon_ctx_new(NULL);
    gpuecon_memo *m = gpuecon_memo_new(plain, 0);
    gpuecon_ctx *ctx = ctx_with(m);
    gpuecon_error err;
    gpuecon_scenario *sc = NULL;
    gpuecon_compare_result *a = NULL, *b = NULL;
    gpuecon_compare_options o = {.trials = 0, .no_sensitivity = false};
    assert_int_equal(gpuecon_scenario_load(ctx, CAT(state), NULL, &sc, &err), GPUECON_OK);
    assert_int_equal(gpuecon_compare(ctx, CAT(state), sc, &o, &a, &err), GPUECON_OK);
    size_t hits0, misses0, hits1, misses1;
    gpuecon_memo_stats(m, &hits0, &misses0);
    assert_int_equal(gpuecon_compare(ctx, CAT(state), sc, &o, &b, &err), GPUECON_OK);
    gpuecon_memo_stats(m, &hits1, &misses1);
    assert_true(misses0 > 0);
    assert_int_equal(misses1, misses0);          /* the second run searched nothing */
    assert_int_equal(hits1 - hits0, misses0 + hits0); /* every lookup of the first run answered */
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_string_equal(a->cmp[i].verdict, b->cmp[i].verdict);
        for (size_t k = 0; k < a->cmp[i].n_platforms; k++) {
            const gpuecon_platform_result *x = &a->cmp[i].platforms[k], *y = &b->cmp[i].platforms[k];
            assert_memory_equal(&x->predicted_tokens_per_s_per_gpu, &y->predicted_tokens_per_s_per_gpu, sizeof(double));
            assert_memory_equal(&x->effective_usd_per_mtok, &y->effective_usd_per_mtok, sizeof(double));
        }
    }
    gpuecon_compare_free(a);
    gpuecon_compare_free(b);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
    gpuecon_memo_free(m);
    gpuecon_ctx_free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits),
        cmocka_unit_test(test_same_address_new_contents),
        cmocka_unit_test(test_infeasible_kept),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_compare_twice),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
