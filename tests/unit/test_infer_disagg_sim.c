/*
 * test_infer_disagg_sim.c — the request-level simulation of disaggregated prefill/decode
 * deployments (src/model/infer_sim_disagg.c, docs/model.md §6.13), against results that hold
 * whatever the step model says:
 *  - one prefill instance whose token budget equals the fixed prompt runs one prompt per step
 *    of a fixed time D, so under Poisson arrivals it is an M/D/1 queue: the mean prefill wait
 *    is Pollaczek–Khinchine's ρD/(2(1−ρ)) and the share that never waits is 1 − ρ;
 *  - at low load a request's TTFT is its prefill alone (D, measured by the aggregated
 *    simulator on the prefill layout) plus its KV transfer: the collective model's send-recv
 *    of the prompt's KV shard, L_in · 80 layers · (8 KV heads / TP) · 128 · 2 (K, V) bytes at
 *    FP8 for Llama 3 70B (gpuecon_collective);
 *  - at saturation the simulated throughput is the analytic capacity (D1–D2, issue 13: 5%),
 *    prefill-bound and decode-bound;
 *  - bit-identical for any thread count; bad input names its option.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

static gpuecon_disagg_sim_request layout(void **state, const char *model, const char *system, int gpus, int x,
                                         int p, int y, int d)
{
    gpuecon_disagg_sim_request q;
    memset(&q, 0, sizeof q);
    gpuecon_sim_request_init(&q.sim);
    q.sim.serve.model = gpuecon_catalog_model(CAT(state), model);
    q.sim.serve.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(q.sim.serve.model);
    assert_non_null(q.sim.serve.system);
    q.sim.serve.gpus = gpus;
    q.sim.serve.weights = GPUECON_FP8;
    q.sim.serve.kv = GPUECON_FP8;
    q.prefill_instances = x, q.prefill_tp = p, q.decode_instances = y, q.decode_tp = d;
    return q;
}

static gpuecon_disagg_sim_result run(void **state, const gpuecon_disagg_sim_request *q)
{
    gpuecon_disagg_sim_result o;
    gpuecon_error err;
    if (gpuecon_infer_disagg_simulate(((fixture *)*state)->ctx, q, &o, &err))
        fail_msg("gpuecon_infer_disagg_simulate: %s", err.message);
    return o;
}

/* The aggregated simulator's lone request on one prefill instance: the prefill time D. */
static double lone_prefill_s(void **state, const gpuecon_disagg_sim_request *q)
{
    gpuecon_sim_request r = q->sim;
    r.serve.gpus = r.serve.tp = q->prefill_tp;
    r.serve.output_len = 1;
    r.arrival = GPUECON_ARRIVAL_POISSON;
    r.rate = 1e-3;
    r.requests = 200;
    gpuecon_sim_result o;
    gpuecon_error err;
    if (gpuecon_infer_simulate(((fixture *)*state)->ctx, &r, &o, &err))
        fail_msg("gpuecon_infer_simulate: %s", err.message);
    assert_close(o.ttft_ms.p99, o.ttft_ms.mean, 3e-3); /* nobody waited: every TTFT is D */
    return o.ttft_ms.mean / 1e3;
}

static void test_md1_prefill(void **state)
{
    gpuecon_disagg_sim_request q = layout(state, "llama3-8b", "hgx-h100", 2, 1, 1, 1, 1);
    q.sim.serve.prompt_len = 512;
    q.sim.serve.output_len = 2;
    q.sim.serve.max_num_batched_tokens = 512; /* one prompt per prefill step */
    double d = lone_prefill_s(state, &q);
    for (int i = 0; i < 2; i++) {
        double rho = i ? 0.8 : 0.5, lambda = rho / d, wq = rho * d / (2 * (1 - rho));
        q.sim.rate = lambda;
        q.sim.requests = 100000;
        q.sim.replications = 4;
        gpuecon_disagg_sim_result o = run(state, &q);
        assert_close(o.sim.queue_ms.mean / 1e3, wq, 0.03);
        assert_near(o.sim.zero_wait_fraction, 1 - rho, 0.01);
        assert_near(o.prefill_busy, rho, 0.01); /* the server's utilisation */
        assert_close(o.sim.requests_per_s, lambda, 0.01);
        assert_true(o.analytic_at_rate);
        /* the analytic model beside it: D1's service time is D, D4's TTFT is D + wait + t_kv */
        assert_close(o.analytic.prefill_utilisation, rho, 0.01);
        assert_close(o.sim.ttft_ms.mean, o.analytic.ttft_ms, 0.03);
    }
}

static void test_low_load_ttft(void **state)
{
    gpuecon_disagg_sim_request q = layout(state, "llama3-70b", "hgx-h200", 8, 1, 4, 1, 4);
    q.sim.serve.prompt_len = 2000;
    q.sim.serve.output_len = 50;
    double d = lone_prefill_s(state, &q);
    double bytes = 2000 * 80 * (8.0 / 4) * 128 * 2 * 1;
    gpuecon_coll_result c;
    gpuecon_error err;
    assert_int_equal(gpuecon_collective(q.sim.serve.system, GPUECON_SEND_RECV, 2, 1, bytes, GPUECON_ALGO_AUTO, &c, &err),
                     GPUECON_OK);
    /* one user: one request at a time, so every TTFT is exactly D + t_kv */
    q.sim.arrival = GPUECON_ARRIVAL_CLOSED;
    q.sim.users = 1;
    q.sim.requests = 50;
    gpuecon_disagg_sim_result o = run(state, &q);
    assert_true(c.time_s > 0);
    assert_close(o.sim.ttft_ms.mean / 1e3, d + c.time_s, 1e-9);
    assert_close(o.analytic.kv_transfer_ms / 1e3, c.time_s, 1e-12);
    assert_near(o.sim.queue_ms.mean, 0, 1e-9);
    assert_near(o.decode_queue_ms.mean, 0, 1e-9); /* an idle decode instance admits at once */
    /* Poisson at 0.001/s (gaps of 1000 s against a request of under 1 s): the same within 1% */
    q.sim.arrival = GPUECON_ARRIVAL_POISSON;
    q.sim.rate = 1e-3;
    q.sim.requests = 300;
    o = run(state, &q);
    assert_close(o.sim.ttft_ms.mean / 1e3, d + c.time_s, 0.01);
    assert_close(o.sim.ttft_ms.p50 / 1e3, d + c.time_s, 3e-3); /* one histogram bin */
    assert_true(o.analytic_at_rate);
}

/* Closed loops far past the capacity: prefill-bound (2 x TP4 prefill for 1 x TP8 decode) and
 * decode-bound (3 x TP4 prefill for 1 x TP4 decode) on 16 H200. */
static void test_saturation(void **state)
{
    struct {
        int x, p, y, d, users;
        const char *bound;
    } t[] = {{2, 4, 1, 8, 2000, "prefill"}, {3, 4, 1, 4, 3000, "decode"}};
    for (int i = 0; i < 2; i++) {
        gpuecon_disagg_sim_request q = layout(state, "llama3-70b", "hgx-h200", 16, t[i].x, t[i].p, t[i].y, t[i].d);
        q.sim.serve.prompt_len = 2000;
        q.sim.serve.output_len = 500;
        q.sim.arrival = GPUECON_ARRIVAL_CLOSED;
        q.sim.users = t[i].users;
        q.sim.requests = 12000;
        q.sim.warmup = 0.5; /* the measured requests start after every user's first one */
        gpuecon_disagg_sim_result o = run(state, &q);
        assert_string_equal(o.analytic.bound, t[i].bound);
        assert_false(o.analytic_at_rate);
        assert_close(o.sim.requests_per_s, o.analytic.capacity, 0.05);
        assert_close(o.sim.output_tokens_per_s, o.analytic.capacity * 500, 0.05);
        assert_true(o.sim.preemptions == 0);
        /* the binding pool is busy all the time */
        assert_true((i == 0 ? o.prefill_busy : o.decode_busy) > 0.99);
    }
}

static void test_deterministic(void **state)
{
    gpuecon_disagg_sim_request q = layout(state, "llama3-70b", "hgx-h200", 16, 2, 4, 2, 4);
    q.sim.rate = 8;
    q.sim.requests = 2000;
    q.sim.replications = 3;
    q.sim.lengths = GPUECON_LENGTHS_LOGNORMAL;
    q.sim.prompt_cv = 1;
    q.sim.serve.output_cv = 1;
    gpuecon_ctx_config cfg = {0};
    gpuecon_disagg_sim_result o[3];
    gpuecon_error err;
    for (int i = 0; i < 3; i++) {
        cfg.threads = i == 0 ? 1 : 3;
        cfg.seed = i == 2 ? 7 : 0;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        assert_int_equal(gpuecon_infer_disagg_simulate(ctx, &q, &o[i], &err), GPUECON_OK);
        gpuecon_ctx_free(ctx);
        o[i].sim.threads = 0;
    }
    assert_memory_equal(&o[0], &o[1], sizeof o[0]);
    assert_true(o[2].sim.ttft_ms.mean != o[0].sim.ttft_ms.mean);
}

static void expect_input(void **state, const gpuecon_disagg_sim_request *q, const char *where)
{
    gpuecon_disagg_sim_result o;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_disagg_simulate(((fixture *)*state)->ctx, q, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, where);
}

/* The long-prefill threshold on the prefill instances (docs/model.md §6.13): Llama 3 70B FP8 on
 * 16 H100 as 2 prefill x TP4 + 2 decode x TP4, 4000/300 tokens at 2 requests/s. A cap of 512
 * tokens per step makes a lone prompt take 8 steps instead of one budget's worth, so TTFT grows
 * in the analytic model and in the simulator alike, and the two stay within 15%. */
static void test_prefill_cap(void **state)
{
    gpuecon_disagg_sim_request q = layout(state, "llama3-70b", "hgx-h100", 16, 2, 4, 2, 4);
    q.sim.serve.prompt_len = 4000;
    q.sim.serve.output_len = 300;
    q.sim.arrival = GPUECON_ARRIVAL_POISSON;
    q.sim.rate = 2;
    q.sim.requests = 3000;
    double ttft[2];
    for (int i = 0; i < 2; i++) {
        q.sim.serve.long_prefill_token_threshold = i ? 512 : 0;
        gpuecon_disagg_sim_result o = run(state, &q);
        assert_true(o.analytic_at_rate);
        assert_close(o.analytic.ttft_ms, o.sim.ttft_ms.mean, 0.15);
        ttft[i] = o.analytic.ttft_ms;
    }
    assert_true(ttft[1] > 1.05 * ttft[0]);
}

static void test_bad_input(void **state)
{
    gpuecon_disagg_sim_request q = layout(state, "llama3-70b", "hgx-h200", 8, 2, 4, 1, 4);
    q.sim.rate = 1;
    expect_input(state, &q, "options.prefill"); /* 12 GPUs of 8 */
    q.prefill_instances = 1;
    q.sim.rate = 0;
    expect_input(state, &q, "options.rate");
    q.sim.rate = 1;
    q.sim.slo_percentile = 100;
    expect_input(state, &q, "options.slo_percentile");
    q.sim.slo_percentile = 90;
    q.decode_tp = 3; /* 64 query heads do not split over 3 */
    expect_input(state, &q, "options.decode");
    q.decode_tp = 4;
    q.sim.serve.gpus = 5000;
    q.prefill_instances = 1000; /* 1,000 + 100 instances: over the simulator's 1,024 */
    q.prefill_tp = 1;
    q.decode_instances = 100;
    expect_input(state, &q, "options.prefill");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md1_prefill),   cmocka_unit_test(test_low_load_ttft),
        cmocka_unit_test(test_saturation),    cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_input),          cmocka_unit_test(test_prefill_cap),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
