/*
 * test_validate_loo.c — validate rows predicted again with a calibration (each table's replay) and
 * the calibration test built on them (`validate --leave-one-out`, `--calibrate-on K`;
 * src/analysis/validate_loo.c, docs/model.md §3.9).
 *
 * The by-hand case: A26 and A29-fp8 are the same run (GPT-3 175B, FP8, 128 H100, TP4 PP8 VP12,
 * NeMo) published by two releases, so the model predicts one figure P for both. Given published
 * figures 1.2·P and 1.26·P (a stack 20% and 26% faster than the built-in constants), a calibration
 * on one row reproduces it (one family, fitted to a log residual below 1e-7), which moves the other
 * row's prediction to the same figure: errors 1.2/1.26 − 1 = −4.762% and 1.26/1.2 − 1 = +5.000%,
 * median 4.881%; built in, 1/1.2 − 1 = −16.667% and 1/1.26 − 1 = −20.635%, median 18.651%.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

static const gpuecon_catalog *g_cat;
static gpuecon_ctx *g_ctx;

static int setup(void **state)
{
    int rc = fixture_setup(state);
    g_cat = CAT(state);
    g_ctx = ((fixture *)*state)->ctx;
    return rc;
}

static gpuecon_validate_row *train_rows(size_t *n)
{
    gpuecon_validate_row *rows = test_malloc(GPUECON_VALIDATE_MAX * sizeof *rows);
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_validate(g_ctx, g_cat, NULL, 0, rows, GPUECON_VALIDATE_MAX, n, NULL, NULL, &err),
                     GPUECON_OK);
    return rows;
}

static const gpuecon_validate_row *find(const gpuecon_validate_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].id, id))
            return &rows[i];
    fail_msg("no row %s", id);
    return NULL;
}

/* Without a calibration every replay gives validate's own figure, bit for bit. */
static void test_replay_identity(void **state)
{
    (void)state;
    size_t n = 0;
    gpuecon_validate_row *rows = train_rows(&n);
    assert_true(n > 200);
    gpuecon_error err;
    gpuecon_error_clear(&err);
    for (size_t i = 0; i < n; i++) {
        validate_replay d;
        if (validate_train_replay(g_ctx, g_cat, rows[i].id, NULL, &d, &err))
            fail_msg("%s: %s", rows[i].id, err.message);
        if (d.figure != rows[i].predicted)
            fail_msg("%s: replay %.9g, validate %.9g", rows[i].id, d.figure, rows[i].predicted);
        assert_true(d.measurable);
    }
    validate_replay d;
    assert_int_equal(validate_train_replay(g_ctx, g_cat, "NO-SUCH-ROW", NULL, &d, &err), GPUECON_E_NOTFOUND);
    size_t fn = 0;
    gpuecon_validate_row frows[GPUECON_VALIDATE_FINETUNE_MAX];
    assert_int_equal(gpuecon_validate_finetune(g_cat, frows, GPUECON_VALIDATE_FINETUNE_MAX, &fn, &err), GPUECON_OK);
    for (size_t i = 0; i < fn; i++) {
        assert_int_equal(validate_finetune_replay(g_cat, frows[i].id, NULL, &d, &err), GPUECON_OK);
        assert_true(d.figure == frows[i].predicted);
        assert_int_equal(d.measurable, !strcmp(frows[i].metric, "tok/s")); /* ratios are not measured */
    }
    /* serving: the analytic engine rows, the disaggregated decode row, and simulated trtllm-bench rows
     * (one class each; the id of TRT-L405-B200-2048 and its neighbours are stored whole) */
    static const char *const classes[] = {"sglang-hopper-fp8-moe", "serving-blackwell-fp8-moe",
                                          "serving-blackwell-fp4-moe"};
    gpuecon_validate_row *srows = test_malloc(GPUECON_VALIDATE_SERVING_MAX * sizeof *srows);
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        size_t sn = 0;
        assert_int_equal(validate_serving_rows(g_ctx, g_cat, classes[c], true, srows, GPUECON_VALIDATE_SERVING_MAX,
                                               &sn, &err),
                         GPUECON_OK);
        assert_true(sn > 0);
        for (size_t i = 0; i < sn; i++) {
            if (validate_serving_replay(g_ctx, g_cat, srows[i].id, NULL, true, NULL, &d, &err))
                fail_msg("%s: %s", srows[i].id, err.message);
            if (d.figure != srows[i].predicted)
                fail_msg("%s: replay %.9g, validate %.9g", srows[i].id, d.figure, srows[i].predicted);
        }
    }
    test_free(srows);
    test_free(rows);
}

/* A calibration moves the figure by no more than its scale: a GEMM scale of 1.1 shortens only the
 * GEMM part of a step, so tokens/s rises by a factor in (1, 1.1]; an HBM scale of 1.2 shortens a
 * bandwidth-bound decode step, so TPOT falls by a factor in (1, 1.2]. */
static void test_replay_calibrated(void **state)
{
    (void)state;
    size_t n = 0;
    gpuecon_validate_row *rows = train_rows(&n);
    const gpuecon_validate_row *a34 = find(rows, n, "A34");
    gpuecon_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.scale[GPUECON_CAL_GEMM] = 1.1;
    validate_replay d;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(validate_train_replay(g_ctx, g_cat, "A34", &cal, &d, &err), GPUECON_OK);
    assert_true(d.figure > a34->predicted && d.figure <= 1.1 * a34->predicted);
    assert_string_equal(d.stack, "nemo-2024");
    assert_string_equal(d.system, "hgx-h100");
    assert_int_equal(d.prec, GPUECON_FP8);
    validate_replay v0, v1;
    memset(&cal, 0, sizeof cal);
    cal.scale[GPUECON_CAL_HBM] = 1.2;
    assert_int_equal(validate_serving_replay(g_ctx, g_cat, "DSR1-SGL-H200-C8", NULL, true, NULL, &v0, &err), GPUECON_OK);
    assert_int_equal(validate_serving_replay(g_ctx, g_cat, "DSR1-SGL-H200-C8", &cal, true, NULL, &v1, &err), GPUECON_OK);
    assert_true(v1.figure < v0.figure && v1.figure >= v0.figure / 1.2);
    assert_true(v0.measurable);
    assert_string_equal(v0.stack, "sglang");
    /* a simulated trtllm-bench row: its recorded run re-timed under a calibration gives what simulating
     * it again gives (the schedule of a burst of fixed-length requests does not depend on time) */
    struct infer_sim_trace *tr = NULL;
    double y = 0;
    assert_int_equal(validate_serving_trace(g_ctx, g_cat, "TRT-L8-H100-5000/500", &tr, &y, &err), GPUECON_OK);
    assert_non_null(tr);
    assert_true(y > 0);
    memset(&cal, 0, sizeof cal);
    cal.scale[GPUECON_CAL_GEMM] = 1.15, cal.scale[GPUECON_CAL_KERNEL] = 0.8;
    assert_int_equal(validate_serving_replay(g_ctx, g_cat, "TRT-L8-H100-5000/500", &cal, true, tr, &v0, &err),
                     GPUECON_OK);
    assert_int_equal(validate_serving_replay(g_ctx, g_cat, "TRT-L8-H100-5000/500", &cal, true, NULL, &v1, &err),
                     GPUECON_OK);
    assert_float_equal(v0.figure, v1.figure, 1e-9 * v1.figure);
    assert_true(v1.figure > y); /* faster GEMMs and launches: more tokens/s */
    validate_serving_trace_free(g_ctx, tr);
    assert_int_equal(validate_serving_trace(g_ctx, g_cat, "DSR1-SGL-H200-C8", &tr, &y, &err), GPUECON_OK);
    assert_null(tr); /* analytic: nothing to record */
    test_free(rows);
}

/* The by-hand case of the file comment. */
static void test_loo_by_hand(void **state)
{
    (void)state;
    size_t n = 0;
    gpuecon_validate_row *rows = train_rows(&n);
    gpuecon_validate_row pick[2] = {*find(rows, n, "A26"), *find(rows, n, "A29-fp8")};
    assert_true(pick[0].predicted == pick[1].predicted); /* the same run */
    double p = pick[0].predicted;
    pick[0].published = 1.2 * p, pick[0].rel_err = 1 / 1.2 - 1;
    pick[1].published = 1.26 * p, pick[1].rel_err = 1 / 1.26 - 1;
    const gpuecon_validate_row *const sets[VALIDATE_SETS] = {pick, NULL, NULL};
    const size_t ns[VALIDATE_SETS] = {2, 0, 0};
    validate_loo l;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(validate_loo_run(g_ctx, g_cat, 1, sets, ns, &l, &err), GPUECON_OK);
    assert_int_equal(l.n, 1);
    const validate_loo_group *g = &l.groups[0];
    assert_string_equal(g->name, "nemo-2024 / hgx-h100 / fp8 / dense");
    assert_int_equal(g->rows, 2);
    assert_int_equal(g->choices, 2);
    assert_int_equal(g->predictions, 2);
    assert_true(g->evaluated);
    assert_float_equal(g->calibrated_median_abs_err, (0.2 / 4.2 + 0.05) / 2, 1e-4); /* 4.881% */
    assert_float_equal(g->calibrated_max_abs_err, 0.05, 1e-4);
    assert_float_equal(g->uncalibrated_median_abs_err, (0.2 / 1.2 + 0.26 / 1.26) / 2, 1e-9); /* 18.651% */
    assert_int_equal(l.npred, 2);
    assert_float_equal(validate_loo_class_median(&l, VALIDATE_SET_TRAIN, pick[0].cls), g->calibrated_median_abs_err,
                       1e-12);
    assert_true(isnan(validate_loo_class_median(&l, VALIDATE_SET_SERVING, pick[0].cls)));
    size_t fitted = 0;
    for (int q = 0; q < GPUECON_CAL_PARAMS; q++)
        fitted += g->fitted[q];
    assert_int_equal(fitted, 2); /* one family per one-row fit */
    /* the calibrated band of a one-row fit: both rows are fitted, so the built-in band of either has no
     * held-out row behind it (the widest rule over a spread of 0: the floor, 0.04 in ln), and one run
     * widens it by sqrt(1 + 1/1): +-0.0566. The held-out rows miss by |ln(1.26/1.2)| = 0.0488 either
     * way, inside */
    assert_float_equal(l.pred[0].band_half, VALIDATE_LOO_BAND_FLOOR * sqrt(2), 1e-12);
    assert_true(l.pred[0].in_band && l.pred[1].in_band);
    assert_float_equal(g->band_coverage, 1, 0);
    validate_loo_free(&l);
    /* published 1.2 P and 1.3 P: |ln(1.3/1.2)| = 0.0800 > 0.0566, both outside */
    pick[1].published = 1.3 * p, pick[1].rel_err = 1 / 1.3 - 1;
    assert_int_equal(validate_loo_run(g_ctx, g_cat, 1, sets, ns, &l, &err), GPUECON_OK);
    assert_float_equal(l.groups[0].band_coverage, 0, 0);
    assert_false(l.pred[0].in_band || l.pred[1].in_band);
    pick[1].published = 1.26 * p, pick[1].rel_err = 1 / 1.26 - 1;
    validate_loo_free(&l);
    /* K = 2 on two rows: no row is left to predict */
    assert_int_equal(validate_loo_run(g_ctx, g_cat, 2, sets, ns, &l, &err), GPUECON_OK);
    assert_false(l.groups[0].evaluated);
    assert_true(isnan(l.groups[0].calibrated_median_abs_err));
    assert_int_equal(l.npred, 0);
    validate_loo_free(&l);
    assert_int_equal(validate_loo_run(g_ctx, g_cat, 3, sets, ns, &l, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.where, "calibrate_on"));
    test_free(rows);
}

/* K = 2 on 12 rows of one group: C(12, 2) = 66 pairs, capped at VALIDATE_LOO_CHOICES (64), each
 * predicting the other 10 rows. */
static void test_loo_pairs_cap(void **state)
{
    (void)state;
    size_t n = 0;
    gpuecon_validate_row *rows = train_rows(&n);
    gpuecon_validate_row *v = test_malloc(12 * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n && m < 12; i++)
        if (!strcmp(rows[i].group, "vtrain"))
            v[m++] = rows[i];
    assert_int_equal(m, 12);
    const gpuecon_validate_row *const sets[VALIDATE_SETS] = {v, NULL, NULL};
    const size_t ns[VALIDATE_SETS] = {12, 0, 0};
    validate_loo l;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(validate_loo_run(g_ctx, g_cat, 2, sets, ns, &l, &err), GPUECON_OK);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.groups[0].choices_all, 66);
    assert_int_equal(l.groups[0].choices, VALIDATE_LOO_CHOICES);
    assert_int_equal(l.groups[0].predictions, VALIDATE_LOO_CHOICES * 10);
    assert_string_equal(l.groups[0].system, "a100-vtrain-cluster");
    validate_loo_free(&l);
    test_free(v);
    test_free(rows);
}

/* The RL step rows replayed (rl_validate.c): without a calibration each gives validate's figure bit for
 * bit; with an HBM scale of 1.25 applied to the trainer and the generator alike the step shortens, but by
 * less than the factor (weight sync, engine sleep and wake are no family's), never below step / 1.25. */
static void test_rl_replay(void **state)
{
    (void)state;
    gpuecon_validate_row rows[32];
    size_t n = 0;
    gpuecon_validate_summary sum;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_rl_validate(g_ctx, g_cat, rows, 32, &n, &sum, &err), GPUECON_OK);
    assert_int_equal(n, 13);
    gpuecon_calibration cal = {.scale = {1, 1.25, 1, 1}, .precision = -1};
    for (size_t i = 0; i < n; i++) {
        validate_replay d;
        assert_int_equal(validate_rl_replay(g_ctx, g_cat, rows[i].id, NULL, &d, &err), GPUECON_OK);
        assert_true(d.measurable == rows[i].fits);
        if (!rows[i].fits)
            continue;
        assert_true(d.figure == rows[i].predicted);
        assert_string_equal(d.stack, "nemo-rl-0.7");
        assert_true(d.moe);
        assert_true(d.frac_max[GPUECON_CAL_HBM] > 0);
        double base = d.figure;
        assert_int_equal(validate_rl_replay(g_ctx, g_cat, rows[i].id, &cal, &d, &err), GPUECON_OK);
        assert_true(d.figure < base && d.figure > base / 1.25);
    }
    assert_int_equal(validate_rl_replay(g_ctx, g_cat, "R-X9", NULL, &(validate_replay){0}, &err), GPUECON_E_NOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_identity),
        cmocka_unit_test(test_replay_calibrated),
        cmocka_unit_test(test_loo_by_hand),
        cmocka_unit_test(test_loo_pairs_cap),
        cmocka_unit_test(test_rl_replay),
    };
    return cmocka_run_group_tests_name("validate_loo", tests, setup, fixture_teardown);
}
