/*
 * test_infer_size.c — serving sizing (src/analysis/infer_size.c): the fewest deployable units of
 * a system whose best configuration meets the targets at a rate.
 *
 * Properties checked: the unit is the NVLink domain (an 8-GPU HGX server, a 72-GPU NVL72 rack);
 * the answer meets the targets and every smaller whole-unit count, searched alone, does not (the
 * monotone contract, checked exhaustively on one case); the doubling-then-bisection makes exactly
 * the searches worked out by hand; a bound below the answer is infeasible with the search at the
 * bound; bad input names the option.
 */
#include "test_util.h"

#include <string.h>

static gpuecon_serve_search_request request(void **state, const char *system)
{
    gpuecon_serve_search_request q;
    gpuecon_serve_search_request_init(&q);
    q.base.model = gpuecon_catalog_model(CAT(state), "llama3-70b");
    q.base.system = gpuecon_catalog_system(CAT(state), system);
    q.base.weights = q.base.kv = GPUECON_BF16; /* fixed: the search does not reach for FP8 */
    q.fixed_weights = q.fixed_kv = true;
    q.rate = 100;
    q.ttft_ms = 1000;
    q.tpot_ms = 40;
    q.top = 1;
    return q;
}

static void test_unit(void **state)
{
    const char *name = NULL;
    assert_int_equal(gpuecon_serving_unit(gpuecon_catalog_system(CAT(state), "hgx-h100"), &name), 8);
    assert_string_equal(name, "server");
    assert_int_equal(gpuecon_serving_unit(gpuecon_catalog_system(CAT(state), "gb200-nvl72"), &name), 72);
    assert_string_equal(name, "rack"); /* 4-GPU compute trays joined by the rack's NVLink switches */
}

static void test_fewest_units(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    gpuecon_serve_search_request q = request(state, "hgx-h100");
    static gpuecon_serve_size_result z;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_size(ctx, &q, 1, 1024, &z, &err), GPUECON_OK);
    assert_true(z.feasible && z.fewer_missed);
    assert_string_equal(z.unit, "server");
    assert_int_equal(z.unit_gpus, 8);
    assert_int_equal(z.max_units, 128);
    assert_int_equal(z.gpus, 8 * z.units);
    assert_int_equal(z.search.best[0].gpus, z.gpus);
    /* one server cannot serve it: each request is (230 + 203) tokens x 2 x 70.6e9 = 6.11e13 FLOP,
     * so 100 requests/s need 6.11e15 FLOP/s, 764 TFLOP/s per GPU of 8, 77% of the H100's 989 dense
     * BF16 peak, above any serving engine's utilisation: the answer is more than one server */
    assert_true(z.units > 1);
    assert_true(z.search.best[0].ttft_ms <= 1000 && z.search.best[0].tpot_ms <= 40);
    /* every smaller count misses, each searched alone */
    static gpuecon_serve_search_result o;
    for (int k = 1; k < z.units; k++) {
        int g = 8 * k;
        gpuecon_serve_search_request one = q;
        one.gpus = &g;
        one.ngpus = 1;
        assert_int_equal(gpuecon_infer_search(ctx, &one, &o, &err), GPUECON_E_INFEASIBLE);
    }
    /* the searches: doubling 1, 2, 4, ... to the first count that meets (2^b >= units), then
     * bisection between 2^(b-1) and 2^b: b + 1 bracket searches and ceil(log2(2^(b-1))) = b - 1 more
     * at most; for 3 servers: 1, 2, 4, then 3 = 4 searches */
    int b = 0;
    while ((1 << b) < z.units)
        b++;
    assert_true(z.searches >= b + 1 && z.searches <= 2 * b);
    if (z.units == 3)
        assert_int_equal(z.searches, 4);
}

static void test_bound_below_the_answer(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    gpuecon_serve_search_request q = request(state, "hgx-h100");
    static gpuecon_serve_size_result z;
    gpuecon_error err;
    /* up to 15 GPUs holds one whole server, which misses (test_fewest_units) */
    assert_int_equal(gpuecon_infer_size(ctx, &q, 1, 15, &z, &err), GPUECON_E_INFEASIBLE);
    assert_false(z.feasible);
    assert_int_equal(z.units, 1);
    assert_int_equal(z.gpus, 8);
    assert_int_equal(z.searches, 1);
    assert_non_null(strstr(err.message, "up to 1 (8 GPUs)"));
}

static void test_bad_input(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    gpuecon_serve_search_request q = request(state, "hgx-h100");
    static gpuecon_serve_size_result z;
    gpuecon_error err;
    q.rate = 0;
    assert_int_equal(gpuecon_infer_size(ctx, &q, 1, 64, &z, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.rate");
    q.rate = 100;
    assert_int_equal(gpuecon_infer_size(ctx, &q, 9, 15, &z, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.search_gpus");
    q.slo_percentile = 100; /* the search's own checks */
    assert_int_equal(gpuecon_infer_size(ctx, &q, 1, 64, &z, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.slo_percentile");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit),
        cmocka_unit_test(test_fewest_units),
        cmocka_unit_test(test_bound_below_the_answer),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
