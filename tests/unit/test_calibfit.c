/*
 * test_calibfit.c — the calibration fit (src/analysis/calibfit.c, docs/model.md §3.8) on a
 * step model worked by hand, and the scales applied to the efficiency parameters
 * (src/model/calibration.c).
 *
 * The synthetic model: run i's step takes t_i = c_i / g + m_i / h + k_i · k seconds (GEMM work at a
 * GEMM scale g, HBM work at an HBM scale h, kernels at a per-kernel time scale k) and the figure is
 * 1 / t_i. Measurements are made at known scales, so the fit must find them.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

typedef struct synth {
    double c[8], m[8], k[8];
    int calls;
} synth;

static int synth_predict(void *user, size_t row, const double s[GPUECON_CAL_PARAMS], double *f, gpuecon_error *err)
{
    (void)err;
    synth *y = user;
    y->calls++;
    double t = y->c[row] / s[GPUECON_CAL_GEMM] + y->m[row] / s[GPUECON_CAL_HBM] + y->k[row] * s[GPUECON_CAL_KERNEL];
    *f = 1 / t;
    return GPUECON_OK;
}

static const double lo[GPUECON_CAL_PARAMS] = {0.25, 0.25, 0.1, 0.25}, hi[GPUECON_CAL_PARAMS] = {1.6, 1.2, 10, 1.5};
#define ALL ((1u << GPUECON_CAL_PARAMS) - 1)

/* One run, GEMM-bound (c = 0.8 s of 1 s): only the GEMM scale is fitted, and it is exact.
 * Measured at g = 0.8: t = 0.8/0.8 + 0.15 + 0.05 = 1.2 s, figure 1/1.2. */
static void test_one_run(void **state)
{
    (void)state;
    synth y = {{0.8}, {0.15}, {0.05}, 0};
    double meas[1] = {1 / 1.2};
    calib_fit f;
    gpuecon_error err = {0};
    assert_int_equal(calib_fit_run(1, meas, synth_predict, &y, ALL, lo, hi, &f, &err), GPUECON_OK);
    assert_true(f.fitted[GPUECON_CAL_GEMM]);
    assert_false(f.fitted[GPUECON_CAL_HBM] || f.fitted[GPUECON_CAL_KERNEL] || f.fitted[GPUECON_CAL_COMM]);
    assert_near(f.scale[GPUECON_CAL_GEMM], 0.8, 1e-4);
    assert_near(f.scale[GPUECON_CAL_HBM], 1, 0);
    /* before: ln(1/1.0 / (1/1.2)) = ln 1.2; after: 0 */
    assert_near(f.before[0], log(1.2), 1e-12);
    assert_near(f.after[0], 0, 1e-5);
    assert_true(isnan(f.loo[0]));
    assert_near(f.spread, 0, 0);
    /* the sensitivity at scale 1 is the GEMM share of the step, 0.8 (to the 5% finite step) */
    assert_near(f.sensitivity[GPUECON_CAL_GEMM], 0.8, 0.03);
}

/* Three runs of different mixes, measured at g = 0.7, h = 0.9, k = 2: three families fitted, exact;
 * the COMM family moves nothing and is never fitted; leave-one-out is exact too only if the two
 * remaining runs determine the two most sensitive families — so the spread is reported, not zero. */
static void test_three_runs(void **state)
{
    (void)state;
    synth y = {{0.8, 0.2, 0.3}, {0.1, 0.7, 0.2}, {0.1, 0.1, 0.5}, 0};
    double meas[3];
    for (int i = 0; i < 3; i++)
        meas[i] = 1 / (y.c[i] / 0.7 + y.m[i] / 0.9 + y.k[i] * 2);
    calib_fit f;
    gpuecon_error err = {0};
    assert_int_equal(calib_fit_run(3, meas, synth_predict, &y, ALL, lo, hi, &f, &err), GPUECON_OK);
    assert_true(f.fitted[GPUECON_CAL_GEMM] && f.fitted[GPUECON_CAL_HBM] && f.fitted[GPUECON_CAL_KERNEL]);
    assert_false(f.fitted[GPUECON_CAL_COMM]);
    assert_near(f.scale[GPUECON_CAL_GEMM], 0.7, 1e-3);
    assert_near(f.scale[GPUECON_CAL_HBM], 0.9, 1e-3);
    assert_near(f.scale[GPUECON_CAL_KERNEL], 2, 2e-3);
    for (int i = 0; i < 3; i++) {
        assert_near(f.after[i], 0, 1e-5);
        assert_false(isnan(f.loo[i]));
    }
    /* the spread is the 80% point of |loo| by linear interpolation: sorted a0 <= a1 <= a2, position
     * 0.8 x (3 - 1) = 1.6, so a1 + 0.6 (a2 - a1); two runs fit at most two of the three families the
     * truth moves, so the left-out runs miss and the spread is not 0 */
    double a[3] = {fabs(f.loo[0]), fabs(f.loo[1]), fabs(f.loo[2])};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (a[j] < a[i]) {
                double t = a[i];
                a[i] = a[j], a[j] = t;
            }
    assert_near(f.spread, a[1] + 0.6 * (a[2] - a[1]), 1e-12);
    assert_true(f.spread > 1e-3);
}

/* Allowed families only: with GEMM alone allowed, three runs give one fitted family; and a
 * measurement that needs g = 2 stops at the bound 1.6 and says so. */
static void test_allowed_and_bound(void **state)
{
    (void)state;
    synth y = {{0.9}, {0.05}, {0.05}, 0};
    double meas[1] = {1 / (0.9 / 2 + 0.1)};
    calib_fit f;
    gpuecon_error err = {0};
    assert_int_equal(calib_fit_run(1, meas, synth_predict, &y, 1u << GPUECON_CAL_GEMM, lo, hi, &f, &err), GPUECON_OK);
    assert_true(f.fitted[GPUECON_CAL_GEMM]);
    assert_true(f.at_bound[GPUECON_CAL_GEMM]);
    assert_near(f.scale[GPUECON_CAL_GEMM], 1.6, 1e-9);
    /* at the bound the step is 0.9/1.6 + 0.1 = 0.6625 s against 0.55 s measured */
    assert_near(f.after[0], log(0.55 / 0.6625), 1e-6);
}

/* Two runs of the same mix measured 2x apart: one family fitted (the vectors are parallel), the
 * residuals split the difference, and the gap between them is ln 2. */
static void test_contradiction(void **state)
{
    (void)state;
    synth y = {{0.8, 0.8}, {0.1, 0.1}, {0.1, 0.1}, 0};
    double meas[2] = {1.0, 0.5};
    calib_fit f;
    gpuecon_error err = {0};
    assert_int_equal(calib_fit_run(2, meas, synth_predict, &y, ALL, lo, hi, &f, &err), GPUECON_OK);
    int nfit = 0;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        nfit += f.fitted[p];
    assert_int_equal(nfit, 1);
    assert_near(f.residual_gap, log(2), 1e-6);
    assert_int_equal(f.worst_a, 1);
    assert_int_equal(f.worst_b, 0);
}

/* Bad arguments: no rows, a non-positive measurement. */
static void test_bad(void **state)
{
    (void)state;
    synth y = {{1}, {0}, {0}, 0};
    double meas[1] = {0};
    calib_fit f;
    gpuecon_error err = {0};
    assert_int_equal(calib_fit_run(0, meas, synth_predict, &y, ALL, lo, hi, &f, &err), GPUECON_E_INPUT);
    assert_int_equal(calib_fit_run(1, meas, synth_predict, &y, ALL, lo, hi, &f, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "positive"));
}

/* The scales on the efficiency row: fractions multiplied and capped at 0.98, times multiplied,
 * zero (no unit) kept zero. */
static void test_apply(void **state)
{
    (void)state;
    gpuecon_efficiency e = {.gemm_bf16 = 0.6, .gemm_fp8 = 0.5, .gemm_fp4 = 0, .attn_flash = 0.6, .hbm = 0.85,
                            .kernel_s = 3e-6, .scaleup_busbw = 0.8, .scaleout_busbw = 0.9, .scaleout_a2a = 0.6};
    gpuecon_calibration c = {.scale = {1.5, 0.5, 2, 1.25}};
    gpuecon_calibration_apply_eff(&c, &e);
    assert_near(e.gemm_bf16, 0.9, 1e-12);
    assert_near(e.gemm_fp8, 0.75, 1e-12);
    assert_near(e.gemm_fp4, 0, 0);
    assert_near(e.attn_flash, 0.9, 1e-12);
    assert_near(e.hbm, 0.425, 1e-12);
    assert_near(e.kernel_s, 6e-6, 1e-18);
    assert_near(e.scaleup_busbw, 0.98, 1e-12); /* 1.0 capped */
    assert_near(e.scaleout_busbw, 0.98, 1e-12);
    assert_near(e.scaleout_a2a, 0.75, 1e-12);
    gpuecon_serving_profile p = {.eta_bw = 0.8, .eta_kv = 0.7, .eta_c = 0.5, .kernel_s = 2e-6, .sched_s = 1e-4};
    gpuecon_calibration_apply_profile(&c, &p);
    assert_near(p.eta_c, 0.75, 1e-12);
    assert_near(p.eta_bw, 0.4, 1e-12);
    assert_near(p.eta_kv, 0.35, 1e-12);
    assert_near(p.kernel_s, 4e-6, 1e-18);
    assert_near(p.sched_s, 2e-4, 1e-18);
    assert_ptr_equal(p.calibration, &c);
    assert_near(gpuecon_calibration_scale(NULL, GPUECON_CAL_GEMM), 1, 0);
    assert_string_equal(gpuecon_cal_param_name(GPUECON_CAL_KERNEL), "kernel");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_run),   cmocka_unit_test(test_three_runs), cmocka_unit_test(test_allowed_and_bound),
        cmocka_unit_test(test_contradiction), cmocka_unit_test(test_bad),  cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
