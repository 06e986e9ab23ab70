/*
 * test_decide.c — root finding for break-even values and the batch penalty, against
 * hand-derived answers.
 */
#include "analysis/decide.h"
#include "test_util.h"

/* a/x − b: root a/b. A cost that falls with throughput crosses a rival's cost there. */
static double hyperbola(double x, void *ud)
{
    double *ab = ud;
    return ab[0] / x - ab[1];
}

/* 1 − Λ·t for MTBI x: the G3 goodput difference of docs/model.md §5 */
static double g3_gap(double mtbi, void *ud)
{
    (void)ud;
    /* GB200 at 16,384 GPUs, t_loss 36.5 min, with spares 72/64 and raw cost ratio 0.656,
       against H100 at MTBI 2,000 (g_H = 0.7924): advantage 0 when
       g_G = 0.656·1.125·0.7924 = 0.58479 -> Λ·t = 0.41521 -> MTBI = 16384·36.5/(1440·0.41521) */
    double g_g = 1 - 16384 / mtbi * 36.5 / 1440;
    double g_h = 1 - 16384 / 2000.0 * 36.5 / 1440;
    return 0.656 * 1.125 * g_h / g_g - 1; /* > 0: GB200 dearer */
}

static void test_root(void **state)
{
    (void)state;
    double ab[2] = {6.0, 3.0}, r = 0;
    int evals = 0;
    assert_true(decide_root(hyperbola, ab, 1e-3, 1e3, 1e-12, &r, &evals));
    assert_close(r, 2.0, 1e-9);
    assert_true(evals < 80);
    /* no sign change in the bracket: no flip */
    assert_false(decide_root(hyperbola, ab, 3, 1e3, 1e-12, &r, NULL));
    assert_false(decide_root(hyperbola, ab, -1, 1e3, 1e-12, &r, NULL));
}

static void test_breakeven_mtbi(void **state)
{
    (void)state;
    double r = 0;
    /* G3 goes negative below ~415 GPU-days, so the bracket starts above it */
    assert_true(decide_root(g3_gap, NULL, 500, 1e5, 1e-12, &r, NULL));
    double want = 16384.0 * 36.5 / (1440 * (1 - 0.656 * 1.125 * (1 - 16384 / 2000.0 * 36.5 / 1440)));
    assert_close(r, want, 1e-9);
    /* TC5 reading: SemiAnalysis's poor GB200 tier (1,000 GPU-days) sits right at break-even */
    assert_close(r, 1000, 0.01);
}

/* McCandlish: at B = B_crit twice the minimum tokens and twice the minimum steps. */
static void test_batch_penalty(void **state)
{
    (void)state;
    assert_close(gpuecon_batch_token_factor(4e6, 4e6), 2, 1e-15);
    assert_close(gpuecon_batch_step_factor(4e6, 4e6), 2, 1e-15);
    assert_close(gpuecon_batch_token_factor(16e6, 4e6), 5, 1e-15);
    assert_close(gpuecon_batch_step_factor(16e6, 4e6), 1.25, 1e-15);
    assert_close(gpuecon_batch_token_factor(16e6, 0), 1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root),
        cmocka_unit_test(test_breakeven_mtbi),
        cmocka_unit_test(test_batch_penalty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
