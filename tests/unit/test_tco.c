/*
 * test_tco.c — TCO per GPU-hour (docs/model.md §5, test case TC2) and cost/energy per
 * token (§2, TC1). Expected values are the hand-worked hand arithmetic.
 */
#include "test_util.h"

static const gpuecon_system *sys(void **state, const char *n)
{
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), n);
    assert_non_null(s);
    return s;
}

static const gpuecon_profile *prof(void **state, const char *n)
{
    const gpuecon_profile *p = gpuecon_catalog_profile(CAT(state), n);
    assert_non_null(p);
    return p;
}

/* CRF reference values printed in §1.2. */
static void test_crf(void **state)
{
    (void)state;
    assert_near(gpuecon_crf(0.08, 5), 0.2505, 5e-5);
    assert_near(gpuecon_crf(0.10, 5), 0.2638, 5e-5);
    assert_near(gpuecon_crf(0.13, 5), 0.2843, 5e-5);
    assert_near(gpuecon_crf(0.08, 4), 0.3019, 5e-5);
    assert_near(gpuecon_crf(0.13, 4), 0.3362, 5e-5);
    assert_near(gpuecon_crf(0.13, 3), 0.4235, 5e-5);
    assert_near(gpuecon_crf(0.08, 6), 0.2163, 5e-5);
    assert_close(gpuecon_crf(0, 4), 0.25, 1e-15);
}

/* TC2 defaults: H100 $1.443 (capital 1.036 + colo 0.245 + power 0.162), GB200 $2.353;
 * neocloud $1.949 / $3.017. k = 0.2905 (hyperscaler), 0.3662 (neocloud). */
static void test_tc2_defaults(void **state)
{
    gpuecon_tco t;
    gpuecon_error err;
    assert_int_equal(gpuecon_tco_compute(prof(state, "hyperscaler"), sys(state, "hgx-h100"), 0, &t, &err), 0);
    assert_near(t.capital_charge_per_year, 0.2905, 5e-5);
    assert_near(t.capital_usd_per_hour, 1.036, 5e-4);
    assert_near(t.colo_usd_per_hour, 0.245, 5e-4);
    assert_close(t.power_usd_per_hour, 1.375 * 1.35 * 0.087, 1e-12); /* the hand-worked value prints 0.162 */
    assert_near(t.derived_usd_per_gpu_hour, 1.443, 5e-4);
    assert_true(t.uses_published);
    assert_close(t.usd_per_gpu_hour, 1.42, 1e-12);
    assert_int_equal(gpuecon_tco_compute(prof(state, "hyperscaler"), sys(state, "gb200-nvl72"), 0, &t, &err), 0);
    assert_near(t.derived_usd_per_gpu_hour, 2.353, 5e-4);
    assert_int_equal(gpuecon_tco_compute(prof(state, "neocloud"), sys(state, "hgx-h100"), 0, &t, &err), 0);
    assert_near(t.capital_charge_per_year, 0.3662, 5e-5);
    assert_near(t.derived_usd_per_gpu_hour, 1.949, 5e-4);
    assert_int_equal(gpuecon_tco_compute(prof(state, "neocloud"), sys(state, "gb200-nvl72"), 0, &t, &err), 0);
    assert_near(t.derived_usd_per_gpu_hour, 3.017, 5e-4);
}

/* TC2 exact sets: k 0.3197, colo 62.7 -> 1.420 / 2.360; k 0.4137, colo 45.9 -> 1.948 / 3.060. */
static void test_tc2_exact(void **state)
{
    gpuecon_tco t;
    gpuecon_error err;
    const char *p[] = {"hyperscaler-fit", "hyperscaler-fit", "neocloud-fit", "neocloud-fit"};
    const char *s[] = {"hgx-h100", "gb200-nvl72", "hgx-h100", "gb200-nvl72"};
    double want[] = {1.420, 2.360, 1.948, 3.060};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(gpuecon_tco_compute(prof(state, p[i]), sys(state, s[i]), 0, &t, &err), 0);
        assert_close(t.derived_usd_per_gpu_hour, want[i], 0.001);
        assert_false(t.uses_published);
    }
}

/* Sensitivity of §1.3: PUE +0.1 -> +$0.012/h on H100 hyperscaler (1.375 kW x 0.1 x $0.087). */
static void test_pue_override(void **state)
{
    gpuecon_tco a, b;
    gpuecon_error err;
    assert_int_equal(gpuecon_tco_compute(prof(state, "hyperscaler"), sys(state, "hgx-h100"), 1.35, &a, &err), 0);
    assert_int_equal(gpuecon_tco_compute(prof(state, "hyperscaler"), sys(state, "hgx-h100"), 1.45, &b, &err), 0);
    assert_near(b.derived_usd_per_gpu_hour - a.derived_usd_per_gpu_hour, 1.375 * 0.1 * 0.087, 1e-12);
    assert_int_equal(gpuecon_tco_compute(prof(state, "hyperscaler"), sys(state, "hgx-h100"), 0.9, &a, &err),
                     GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.pue");
}

/* TC1: $0.542/M and 2.456 J at 727.8 tok/s; GB200 $0.307/M and 0.971 J at 2,135.4;
 * H100 405B: 202.3 tok/s -> $1.95/M, 8.84 J; DeepSeek H100 842.8 -> $0.468, 2.12 J. */
static void test_tc1(void **state)
{
    (void)state;
    gpuecon_cost c;
    gpuecon_error err;
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, 727.8, 0, &c, &err), 0);
    assert_close(c.usd_per_mtok, 0.542, 0.001);
    assert_close(c.joules_per_token, 2.456, 0.001);
    assert_int_equal(gpuecon_cost_compute(2.36, 1885, 1.1, 2135.4, 0, &c, &err), 0);
    assert_close(c.usd_per_mtok, 0.307, 0.001);
    assert_close(c.joules_per_token, 0.971, 0.001);
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, 202.3, 15e12, &c, &err), 0);
    assert_close(c.usd_per_mtok, 1.95, 0.001);
    assert_close(c.joules_per_token, 8.84, 0.001);
    /* 15T tokens: $1.95/M x 15e6 M = $29.25M; 15e12 x 8.836 J / 3.6e9 J/MWh = 36,816 MWh */
    assert_close(c.total_usd, 15e12 / 202.3 / 3600 * 1.42, 1e-12);
    assert_close(c.energy_mwh, 15e12 * 1375 * 1.3 / 202.3 / 3.6e9, 1e-12);
    /* tokens per MW: 1e6 W / (1375 x 1.3) x 202.3 */
    assert_close(c.tokens_per_s_per_mw, 1e6 / 1787.5 * 202.3, 1e-12);
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, 842.8, 0, &c, &err), 0);
    assert_close(c.usd_per_mtok, 0.468, 0.001);
    assert_close(c.joules_per_token, 2.12, 0.002);
}

static void test_cost_bad_input(void **state)
{
    (void)state;
    gpuecon_cost c;
    gpuecon_error err;
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, 0, 0, &c, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.tokens_per_s");
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, NAN, 0, &c, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 0.99, 100, 0, &c, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_cost_compute(-1, 1375, 1.3, 100, 0, &c, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_cost_compute(1.42, 1375, 1.3, 100, -5, &c, &err), GPUECON_E_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crf),          cmocka_unit_test(test_tc2_defaults),
        cmocka_unit_test(test_tc2_exact),    cmocka_unit_test(test_pue_override),
        cmocka_unit_test(test_tc1),          cmocka_unit_test(test_cost_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
