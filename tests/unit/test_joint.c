/*
 * test_joint.c — compare --uncertainty N (docs/model.md §7.5): with only the throughputs
 * uncertain (measured: P90 half-width 5%; price, PUE and electricity given by the user: no
 * spread), the probability that one platform is cheapest and the percentiles of its cost are
 * those of a lognormal, derived by hand; the same seed gives the same answer for any thread
 * count; one input on one system is one draw; a predicted throughput is drawn from its 80% band.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

#define Z90 1.6448536269514722

/* Serving: the ranked cost is the raw cost, TCO / throughput, so with only the throughput
 * uncertain ln(cost) moves by -ln(factor). */
static const char *SERVE =
    "name: j\n"
    "workload: {kind: serve, model: gemma4-31b, precision: fp8, concurrency: 512}\n"
    "platforms:\n"
    "  - {name: A, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
    "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input},\n"
    "     measured_tokens_per_s: {value: 1000, source: t, stage: measured}}\n"
    "  - {name: B, system: hgx-b200, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
    "     usd_per_gpu_hour: {value: 4.0, source: t, stage: user-input},\n"
    "     measured_tokens_per_s: {value: 2100, source: t, stage: measured}}\n";

typedef struct joint_run {
    gpuecon_ctx *ctx;
    gpuecon_compare_result *r;
} joint_run;

static joint_run run(void **state, int threads, uint64_t seed, const char *yaml, int n)
{
    gpuecon_ctx_config cfg = {0};
    cfg.threads = threads;
    cfg.seed = seed;
    joint_run j = {gpuecon_ctx_new(&cfg), NULL};
    assert_non_null(j.ctx);
    gpuecon_scenario *sc = NULL;
    gpuecon_error err;
    gpuecon_compare_options opt = {.no_sensitivity = true, .uncertainty = n};
    if (gpuecon_scenario_load_buffer(j.ctx, CAT(state), "j.yaml", yaml, strlen(yaml), &sc, &err) ||
        gpuecon_compare(j.ctx, CAT(state), sc, &opt, &j.r, &err))
        fail_msg("%s:%d:%d: %s", err.where, err.line, err.column, err.message);
    gpuecon_scenario_free(sc);
    return j;
}

static void done(joint_run j)
{
    gpuecon_compare_free(j.r);
    gpuecon_ctx_free(j.ctx);
}

static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2));
}

static void test_lognormal_by_hand(void **state)
{
    const int n = 40000;
    joint_run j = run(state, 1, 42, SERVE, n);
    const gpuecon_comparison_result *cr = &j.r->cmp[0];
    assert_int_equal(cr->uncertainty_samples, n);
    const gpuecon_platform_result *a = &cr->platforms[0], *b = &cr->platforms[1];
    double s = log(1.05) / Z90; /* each throughput's log-sd */
    /* A is cheaper when ln(cA/cB) = ln(rA/rB) - (zA - zB)s < 0; zA - zB ~ N(0, 2) */
    double p_a = phi(-log(a->rank_usd_per_mtok / b->rank_usd_per_mtok) / (s * sqrt(2)));
    assert_true(p_a > 0.05 && p_a < 0.95); /* the case is not trivial */
    assert_near(a->probability_cheapest, p_a, 0.01); /* 40,000 samples: SE 0.002 */
    assert_near(a->probability_cheapest + b->probability_cheapest, 1, 1e-12);
    /* percentiles of a lognormal around the point cost: exp(±1.2816 s) */
    double z10 = 1.2815515655446004;
    assert_close(a->effective_usd_per_mtok_p50, a->effective_usd_per_mtok, 0.002);
    assert_close(a->effective_usd_per_mtok_p10, a->effective_usd_per_mtok * exp(-z10 * s), 0.002);
    assert_close(a->effective_usd_per_mtok_p90, a->effective_usd_per_mtok * exp(z10 * s), 0.002);
    assert_close(b->effective_usd_per_mtok_p90, b->effective_usd_per_mtok * exp(z10 * s), 0.002);
    done(j);
}

/* The same seed: bit-identical for 1 and 4 threads; another seed: another draw. */
static void test_seeded(void **state)
{
    joint_run r1 = run(state, 1, 7, SERVE, 3000), r4 = run(state, 4, 7, SERVE, 3000), r9 = run(state, 1, 9, SERVE, 3000);
    const gpuecon_platform_result *p1 = &r1.r->cmp[0].platforms[0], *p4 = &r4.r->cmp[0].platforms[0],
                                  *p9 = &r9.r->cmp[0].platforms[0];
    assert_true(p1->probability_cheapest == p4->probability_cheapest);
    assert_true(p1->effective_usd_per_mtok_p10 == p4->effective_usd_per_mtok_p10);
    assert_true(p1->effective_usd_per_mtok_p90 == p4->effective_usd_per_mtok_p90);
    assert_true(p1->effective_usd_per_mtok_p10 != p9->effective_usd_per_mtok_p10);
    done(r1);
    done(r4);
    done(r9);
}

/* One system, one measurement at two prices: the throughput is one draw, so the cheaper
 * price wins every sample; and a range outside 0..1,000,000 is an input error. */
static void test_shared_draw_and_range(void **state)
{
    static const char *TWO =
        "name: s\n"
        "workload: {kind: serve, model: gemma4-31b, precision: fp8, concurrency: 512}\n"
        "platforms:\n"
        "  - {name: cheap, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
        "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input},\n"
        "     measured_tokens_per_s: {value: 1000, source: t, stage: measured}}\n"
        "  - {name: dear, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
        "     usd_per_gpu_hour: {value: 2.02, source: t, stage: user-input},\n"
        "     measured_tokens_per_s: {value: 1000, source: t, stage: measured}}\n";
    joint_run j = run(state, 1, 1, TWO, 2000);
    assert_near(j.r->cmp[0].platforms[0].probability_cheapest, 1, 0);
    done(j);
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_scenario_load_buffer(ctx, CAT(state), "s.yaml", TWO, strlen(TWO), &sc, &err), 0);
    gpuecon_compare_options opt = {.no_sensitivity = true, .uncertainty = -1};
    gpuecon_compare_result *bad = NULL;
    assert_int_equal(gpuecon_compare(ctx, CAT(state), sc, &opt, &bad, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.uncertainty");
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* A predicted serving throughput is drawn from its 80% band (docs/model.md §7.6): lognormal with the
 * band's low and high as its 10th and 90th percentiles. With the price, PUE and electricity given,
 * the serving cost is TCO / throughput, so the cost's P10 is cost·T/high and its P90 cost·T/low (T the
 * predicted throughput the cost was computed at). */
static void test_band_draws(void **state)
{
    static const char *PRED =
        "name: p\n"
        "workload: {kind: serve, model: gemma4-31b, precision: fp8, concurrency: 512}\n"
        "platforms:\n"
        "  - {name: A, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
        "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input}}\n"
        "  - {name: B, system: hgx-b200, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"
        "     usd_per_gpu_hour: {value: 4.0, source: t, stage: user-input},\n"
        "     measured_tokens_per_s: {value: 2100, source: t, stage: measured}}\n";
    const int n = 40000;
    joint_run j = run(state, 1, 42, PRED, n);
    const gpuecon_platform_result *a = &j.r->cmp[0].platforms[0], *b = &j.r->cmp[0].platforms[1];
    assert_true(a->band.set);
    assert_false(b->band.set); /* measured: no band */
    assert_true(a->band.low < a->tokens_per_s_per_gpu * 1.5 && a->band.low < a->band.high);
    double t = a->tokens_per_s_per_gpu, c = a->effective_usd_per_mtok;
    assert_close(a->effective_usd_per_mtok_p10, c * t / a->band.high, 0.005); /* 40,000 samples */
    assert_close(a->effective_usd_per_mtok_p90, c * t / a->band.low, 0.005);
    done(j);
}

/* A serving platform's TPOT is drawn from its own 80% band (docs/model.md §7.5): lognormal with the
 * band's low and high as its 10th and 90th percentiles. At the workload's concurrency the load is
 * fixed, so a target at the band's high end is met in 90% of the samples, one at its geometric middle
 * in half, and never at a lower load. */
#define LAT                                                                                        \
    "name: l\n"                                                                                     \
    "workload: {kind: serve, model: gemma4-31b, precision: fp8, %s tpot_ms_target: %.17g}\n"        \
    "platforms:\n"                                                                                  \
    "  - {name: A, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"    \
    "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input}}\n"

static joint_run run_lat(void **state, const char *load, double target, int n)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, LAT, load, target);
    return run(state, 1, 5, yaml, n);
}

static void test_latency_draws_fixed_load(void **state)
{
    const int n = 40000; /* a share's standard error at most 0.0025 */
    joint_run j = run_lat(state, "concurrency: 64,", 1e6, n);
    const gpuecon_platform_result *a = &j.r->cmp[0].platforms[0];
    assert_true(a->band_tpot.set && a->band_tpot.low < a->tpot_ms && a->tpot_ms < a->band_tpot.high);
    double lo = a->band_tpot.low, hi = a->band_tpot.high;
    assert_near(a->probability_meets_target, 1, 0);
    done(j);
    j = run_lat(state, "concurrency: 64,", hi, n);
    a = &j.r->cmp[0].platforms[0];
    assert_near(a->probability_meets_target, 0.9, 0.01);
    assert_near(a->probability_lower_load, 0, 0);
    done(j);
    j = run_lat(state, "concurrency: 64,", sqrt(lo * hi), n);
    assert_near(j.r->cmp[0].platforms[0].probability_meets_target, 0.5, 0.01);
    done(j);
    j = run_lat(state, "concurrency: 64,", lo, n);
    assert_near(j.r->cmp[0].platforms[0].probability_meets_target, 0.1, 0.01);
    done(j);
}

/* A platform drawn slower serves more slowly in every figure: its TPOT moves against its throughput,
 * with the same deviate. A (predicted, at a fixed load, the target at its TPOT band's middle) meets
 * the target exactly in the samples where it is drawn faster than the middle (z > 0); B (measured,
 * no spread) meets it always, so A is cheapest only where it meets it and costs less than B:
 * P = 1 - Phi(max(0, z_c)), z_c the deviate at which the two cost the same. With the TPOT drawn
 * along the throughput instead, A would meet it when slow and win in Phi(0) - Phi(z_c). */
static void test_latency_moves_with_throughput(void **state)
{
    char yaml[1024];
#define TWO_LAT                                                                                    \
    "name: c\n"                                                                                     \
    "workload: {kind: serve, model: gemma4-31b, precision: fp8, concurrency: 64, tpot_ms_target: %.17g}\n" \
    "platforms:\n"                                                                                  \
    "  - {name: A, system: hgx-h100, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"    \
    "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input}}\n"                          \
    "  - {name: B, system: hgx-b200, gpus: 8, tp: 1, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"    \
    "     usd_per_gpu_hour: {value: 2.0, source: t, stage: user-input},\n"                          \
    "     measured_tokens_per_s: {value: %.17g, source: t, stage: user-input}}\n"
    snprintf(yaml, sizeof yaml, TWO_LAT, 1e6, 1.0);
    joint_run j = run(state, 1, 3, yaml, 10);
    const gpuecon_platform_result *a = &j.r->cmp[0].platforms[0];
    double mid = sqrt(a->band_tpot.low * a->band_tpot.high), t = a->tokens_per_s_per_gpu;
    double sigma = log(a->band.high / a->band.low) / (2 * 1.2815515655446004);
    double centre = sqrt(a->band.low * a->band.high) / t;
    done(j);
    /* B at the throughput A reaches at z = -1 (cost ratio 1 there: z_c = -1) */
    snprintf(yaml, sizeof yaml, TWO_LAT, mid, t * centre * exp(-sigma));
    j = run(state, 1, 3, yaml, 40000);
    a = &j.r->cmp[0].platforms[0];
    const gpuecon_platform_result *b = &j.r->cmp[0].platforms[1];
    assert_true(b->meets_target && b->measured);
    double z_c = log(a->rank_usd_per_mtok / (centre * b->rank_usd_per_mtok)) / sigma;
    assert_true(z_c < -0.8 && z_c > -1.2); /* about -1: B's power and so its electricity differ from A's */
    assert_near(a->probability_meets_target, 0.5, 0.01);
    assert_near(a->probability_cheapest, 1 - phi(fmax(0, z_c)), 0.01); /* along: phi(0) - phi(z_c), about 0.34 */
    done(j);
}

/* Training: the days and the run's total follow the throughput's draw (lognormal from its 80% band,
 * every other input given by the user: no spread), so with days d at the point and target T the
 * deadline is met where ln(d/T) - ln(centre) - sigma z <= 0, z >= (ln(d/T) - ln centre)/sigma, and
 * the budget B likewise with the total for d. */
#define TRAIN_DL                                                                                   \
    "name: d\n"                                                                                     \
    "workload: {kind: train, model: llama3-70b, precision: fp8, seq: 8192, gbs: 512, tokens: 1.0e12,\n" \
    "           target_days: %.17g, budget_usd: %.17g}\n"                                           \
    "platforms:\n"                                                                                  \
    "  - {name: A, system: hgx-b200, gpus: 256, pue: 1.3, electricity_usd_per_kwh: 0.08,\n"         \
    "     usd_per_gpu_hour: {value: 3.0, source: t, stage: user-input},\n"                          \
    "     mtbi_gpu_days: {value: 2000, source: t, stage: user-input}}\n"

static void test_deadline_and_budget(void **state)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, TRAIN_DL, 1000.0, 1e12);
    joint_run j = run(state, 1, 11, yaml, 10);
    const gpuecon_platform_result *a = &j.r->cmp[0].platforms[0];
    assert_true(a->band.set && a->feasible);
    double days = a->days_to_train, total = a->total_usd, t = a->tokens_per_s_per_gpu;
    double sigma = log(a->band.high / a->band.low) / (2 * 1.2815515655446004);
    double centre = sqrt(a->band.low * a->band.high) / t;
    done(j);
    double T = days * 1.04, B = total * 0.98;
    snprintf(yaml, sizeof yaml, TRAIN_DL, T, B);
    j = run(state, 1, 11, yaml, 40000);
    a = &j.r->cmp[0].platforms[0];
    double p_days = 1 - phi((log(days / T) - log(centre)) / sigma), p_usd = 1 - phi((log(total / B) - log(centre)) / sigma);
    assert_true(p_days > 0.55 && p_days < 0.95 && p_usd > 0.05 && p_usd < 0.45); /* not trivial */
    assert_near(a->probability_meets_target, p_days, 0.01);
    assert_near(a->probability_within_budget, p_usd, 0.01);
    assert_true(isnan(a->probability_lower_load));
    done(j);
}

/* Without a concurrency the load is the largest of the sweep that meets the target; a sample drawing
 * the TPOT above the target at that load runs at a lower one (as often as the band puts the TPOT
 * there: Phi(-ln(T / middle) / sigma)) and pays for it in throughput, so its cost's P90 lies above
 * the throughput band's alone (cost x T / low). */
static void test_latency_draws_lower_load(void **state)
{
    const int n = 40000;
    joint_run j = run_lat(state, "", 30, n);
    const gpuecon_platform_result *a = &j.r->cmp[0].platforms[0];
    assert_true(a->feasible && a->meets_target && a->band_tpot.set && a->tpot_ms <= 30);
    double lo = a->band_tpot.low, hi = a->band_tpot.high;
    double sigma = log(hi / lo) / (2 * 1.2815515655446004), mid = sqrt(lo * hi);
    double p_low = phi(-log(30 / mid) / sigma);
    assert_true(p_low > 0.02 && p_low < 0.98); /* the case is not trivial */
    assert_near(a->probability_lower_load, p_low, 0.01);
    assert_true(a->probability_meets_target > 0.99); /* the lowest load of the sweep meets it */
    assert_true(a->effective_usd_per_mtok_p90 >
                a->effective_usd_per_mtok * a->tokens_per_s_per_gpu / a->band.low * 1.001);
    done(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lognormal_by_hand),
        cmocka_unit_test(test_band_draws),
        cmocka_unit_test(test_latency_draws_fixed_load),
        cmocka_unit_test(test_latency_draws_lower_load),
        cmocka_unit_test(test_latency_moves_with_throughput),
        cmocka_unit_test(test_deadline_and_budget),
        cmocka_unit_test(test_seeded),
        cmocka_unit_test(test_shared_draw_and_range),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
