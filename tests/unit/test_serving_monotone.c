/*
 * test_serving_monotone.c — physics never runs backwards: for every catalog model on every
 * catalog system, at every TP degree the system's NVLink domain allows, both weight and KV
 * precisions, with and without a draft, short and long requests, the step time of a replica
 * never falls as the concurrency grows (issue 13: llama3-70b TP8 on H200 gave 9.75 ms at 12
 * requests and 6.79 ms at 16, because the all-reduce switched link efficiency at 1 MiB).
 *
 * The grid is every integer concurrency up to 128 per replica, then steps of 2% up to twice
 * the saturation point, so a jump at any message size between is caught. A rise of the step
 * time must also never be hidden by rounding: the check is exact (no tolerance) apart from
 * 1e-12 relative for floating-point summation order.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

static int sweep_one(const gpuecon_infer_request *r, long *points)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    int rc = gpuecon_infer(r, &o, &err);
    if (rc == GPUECON_E_INFEASIBLE || rc == GPUECON_E_INPUT)
        return 0; /* does not fit, or TP does not split the heads: nothing to sweep */
    if (rc)
        fail_msg("%s on %s: %s", r->model->name, r->system->name, err.message);
    double sat = o.replicas * fmin(o.seqs_admitted, o.max_num_seqs);
    double grid[1024];
    size_t n = 0;
    for (double c = 1; n < 1024 && c <= 2 * sat + o.replicas; n++)
        grid[n] = c * o.replicas, c = c < 128 ? c + 1 : c * 1.02;
    gpuecon_infer_point pts[1024];
    if (gpuecon_infer_sweep(r, grid, n, pts, &err))
        fail_msg("sweep %s on %s: %s", r->model->name, r->system->name, err.message);
    for (size_t k = 1; k < n; k++)
        if (pts[k].step.step_s < pts[k - 1].step.step_s * (1 - 1e-12))
            fail_msg("%s on %s TP %d w%d kv%d k%d L%g: step %.6f ms at %g requests, %.6f ms at %g "
                     "(comm %.6f -> %.6f ms)",
                     r->model->name, r->system->name, o.tp, (int)r->weights, (int)r->kv, r->draft_k,
                     r->prompt_len, pts[k - 1].step.step_s * 1e3, grid[k - 1], pts[k].step.step_s * 1e3,
                     grid[k], pts[k - 1].step.comm_s * 1e3, pts[k].step.comm_s * 1e3);
    *points += (long)n;
    return 1;
}

static void test_every_model_and_system(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    size_t nm = gpuecon_catalog_count(cat, GPUECON_KIND_MODEL);
    size_t ns = gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM);
    const gpuecon_precision weights[] = {GPUECON_BF16, GPUECON_FP8, GPUECON_FP4};
    const double lens[][2] = {{230, 203}, {2000, 500}};
    long points = 0;
    int configs = 0;
    for (size_t i = 0; i < nm; i++)
        for (size_t s = 0; s < ns; s++) {
            const gpuecon_system *sys = gpuecon_catalog_at(cat, GPUECON_KIND_SYSTEM, s);
            for (int tp = 1; tp <= 8 && tp <= sys->scaleup_gpus; tp *= 2)
                for (int w = 0; w < 3; w++)
                    for (int kv = 0; kv < 2; kv++)
                        for (int d = 0; d < 2; d++)
                            for (int l = 0; l < 2; l++) {
                                gpuecon_infer_request r;
                                gpuecon_infer_request_init(&r);
                                r.model = gpuecon_catalog_at(cat, GPUECON_KIND_MODEL, i);
                                r.system = sys;
                                r.gpus = 8;
                                r.tp = tp;
                                r.weights = weights[w];
                                r.kv = kv ? GPUECON_FP8 : GPUECON_BF16;
                                r.draft_k = d * 2;
                                r.acceptance = 0.7;
                                r.prompt_len = lens[l][0];
                                r.output_len = lens[l][1];
                                r.expert_parallel = (l + d) % 2 == 0;
                                /* MoE: attention-DP over the tp GPUs in a third of the cases,
                                   with an imbalanced expert load in half of those */
                                r.attention_dp = (l + d + w) % 3 == 0;
                                r.expert_imbalance = kv ? 1.3 : 0;
                                configs += sweep_one(&r, &points);
                            }
        }
    /* every model is served somewhere; the sweep is not vacuous */
    assert_true(configs >= 500);
    assert_true(points >= 100000);
}

/* The issue's own case, by hand: 12 and 16 requests on one TP8 replica. */
static void test_issue_case(void **state)
{
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(CAT(state), "llama3-70b");
    r.system = gpuecon_catalog_system(CAT(state), "hgx-h200");
    r.gpus = 8;
    r.tp = 8;
    r.weights = GPUECON_FP8;
    r.kv = GPUECON_FP8;
    r.prompt_len = 2000;
    r.output_len = 500;
    double c[] = {4, 8, 12, 16, 24, 32};
    gpuecon_infer_point p[6];
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_sweep(&r, c, 6, p, &err), GPUECON_OK);
    for (int k = 1; k < 6; k++) {
        assert_true(p[k].step.step_s >= p[k - 1].step.step_s);
        assert_true(p[k].step.comm_s >= p[k - 1].step.comm_s);
    }
    /* T2: the prefill of 4 tokens per request and step comes as whole 2000-token prompts, so a
     * fraction f = 4n/2000 of the steps carry n + 2000 tokens and the rest n. Per all-reduce of
     * tokens·8192·2 B over 8 GPUs (factor 1.75) on 450 GB/s:
     * 12 requests: 196,608 B, LL 3.6 + 14·0.47 = 10.18 µs + 196608·1.75/(0.25·0.80·450e9) = 3.82 µs
     * → 14.00 µs (one-shot: 10 + 5.10 = 15.10 µs); 2012 tokens, 32,964,608 B: LL128 10.0 + 14·1.9
     * = 36.6 µs + 174.18 µs = 210.78 µs (Simple 216.24 µs). 160 all-reduces: 2.2405 and 33.725 ms;
     * f = 0.024: 0.976·2.2405 + 0.024·33.725 = 2.996 ms.
     * 16 requests: 262,144 B, LL 10.18 + 5.10 = 15.28 µs → 2.4444 ms; 2016 tokens, LL128 36.6 +
     * 174.53 = 211.13 µs → 33.780 ms; f = 0.032: 3.447 ms. */
    assert_close(p[2].step.comm_s * 1e3, 2.996, 2e-3);
    assert_close(p[3].step.comm_s * 1e3, 3.447, 2e-3);
    /* the two kinds, as the point reports them: the step is their mix */
    assert_close(p[2].prompt_step_fraction, 0.024, 1e-9);
    assert_close(p[2].prompt_chunk_tokens, 2000, 1e-12);
    assert_close(p[2].step.step_s * 1e3, 0.976 * p[2].decode_step_ms + 0.024 * p[2].prompt_step_ms, 1e-9);
    assert_true(p[2].prompt_step_ms > 5 * p[2].decode_step_ms);
}

/* The training model's collectives (comm.c: ring or tree, whichever is faster) never get
 * faster as the message grows either, for every op, group size and placement stride. */
static void test_collectives_in_bytes(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    size_t ns = gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM);
    for (size_t s = 0; s < ns; s++)
        for (int op = 0; op < GPUECON_COLL_OP_COUNT; op++)
            for (int n = 2; n <= 1024; n *= 4)
                for (int stride = 1; stride <= 16; stride *= 4) {
                    int g = op == GPUECON_SEND_RECV ? 2 : n;
                    double prev = 0;
                    for (double b = 256; b < 4e9; b *= 1.05) {
                        gpuecon_coll_result r;
                        gpuecon_error err;
                        assert_int_equal(gpuecon_collective(gpuecon_catalog_at(cat, GPUECON_KIND_SYSTEM, s),
                                                            (gpuecon_coll_op)op, g, stride, b,
                                                            GPUECON_ALGO_AUTO, &r, &err),
                                         GPUECON_OK);
                        assert_true(r.time_s >= prev);
                        prev = r.time_s;
                    }
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_model_and_system),
        cmocka_unit_test(test_issue_case),
        cmocka_unit_test(test_collectives_in_bytes),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
