/*
 * test_rl_validate.c — the RL step model against NeMo-RL v0.7's published GRPO step times
 * (`gpuecon validate --group rl`; src/analysis/rl_validate.c; docs/model.md §8.8): the issue's
 * target on every row, the fitted and held-out rows apart, and the published on-policy versus
 * one-step-off-policy pairs.
 *
 * Published figures (NVIDIA-NeMo/RL docs/about/performance-summary.md, v0.7 tables "H100 BF16"
 * and "GB200 BF16", total step time): DeepSeek-V3 on 512 H100s 81.2 s on-policy colocated and
 * 46.6 s one-step off-policy, a gap of 34.6 s; on 256 GB200s 70.7 s and 35.0 s, a gap of 35.7 s.
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

static void test_rl_target(void **state)
{
    (void)state;
    gpuecon_validate_row *rows = test_malloc(32 * sizeof *rows);
    size_t n = 0;
    gpuecon_validate_summary all, fitted, held;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_rl_validate(g_ctx, g_cat, rows, 32, &n, &all, &err), GPUECON_OK);
    assert_int_equal(n, 13);
    for (size_t i = 0; i < n; i++)
        if (!rows[i].fits)
            fail_msg("%s: no prediction: %s", rows[i].id, rows[i].note);
    /* issue 46: `validate --group rl` median |error| <= 20% over the 13 rows */
    assert_int_equal(all.n, 13);
    if (!(all.median_abs_err <= 0.20))
        fail_msg("median |error| %.3f over 13 rows, target <= 0.20", all.median_abs_err);
    /* the six DeepSeek-V3 BF16 rows chose the mechanisms (fitted); the seven others are held out */
    gpuecon_validate_summarize(rows, n, "rl", false, GPUECON_ROWS_FITTED, &fitted);
    gpuecon_validate_summarize(rows, n, "rl", false, GPUECON_ROWS_HELD_OUT, &held);
    assert_int_equal(fitted.n, 6);
    assert_int_equal(held.n, 7);
    if (!(fitted.median_abs_err <= 0.20))
        fail_msg("fitted median |error| %.3f, target <= 0.20", fitted.median_abs_err);
    /* on the fitted rows no systematic sign: a signed median within +-15% (the held-out rows are
     * all too fast, in their generation phase: docs/model.md §8.8) */
    double sm = gpuecon_validate_signed_median(rows, n, GPUECON_ROWS_FITTED);
    if (!(fabs(sm) <= 0.15))
        fail_msg("fitted signed median %+.3f, allowed within +-0.15", sm);
    /* the published pairs: on-policy slower by 34.6 s (H100) and 35.7 s (GB200); reproduced within
     * 10 s each (the step's colocated costs — refit, engine sleep and wake, swaps — against the
     * disaggregated broadcast, less what the overlap of generation with training saves) */
    gpuecon_rl_pair p[8];
    size_t np = gpuecon_rl_validate_pairs(rows, n, p, 8);
    assert_int_equal(np, 4);
    int seen = 0;
    for (size_t i = 0; i < np; i++) {
        double want = !strcmp(p[i].on, "R-H2") ? 34.6 : !strcmp(p[i].on, "R-G2") ? 35.7 : 0;
        if (want == 0)
            continue;
        seen++;
        assert_close(p[i].published_gap_s, want, 1e-9);
        if (!(fabs(p[i].predicted_gap_s - want) <= 10))
            fail_msg("%s - %s: predicted gap %.1f s, published %.1f s (allowed +-10 s)", p[i].on, p[i].off,
                     p[i].predicted_gap_s, want);
    }
    assert_int_equal(seen, 2);
    test_free(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rl_target),
    };
    return cmocka_run_group_tests_name("rl_validate", tests, setup, fixture_teardown);
}
