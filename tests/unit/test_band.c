/*
 * test_band.c — the 80% band engine (src/analysis/band.c, docs/model.md §7.6) on a hand-made set
 * of rows whose errors e = ln(predicted/published) are chosen, so every quantile, fallback,
 * widening and orientation is worked by hand in the comments.
 */
#include "test_util.h"
#include "analysis/band.h"

#include <string.h>

/* A held-out row of metric m with error e: published 100, predicted 100·exp(e). */
static band_row row(band_metric m, const char *arch, double e, int gpus)
{
    band_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "R%d", gpus);
    r.metric = m;
    snprintf(r.arch, sizeof r.arch, "%s", arch);
    snprintf(r.stack, sizeof r.stack, "%s", m == BAND_TRAIN_TPS ? "megatron-x" : "trtllm");
    r.prec = GPUECON_BF16;
    r.seq = 4096, r.gpus = gpus, r.batch = m == BAND_TRAIN_TPS ? 0 : 64;
    r.published = 100, r.predicted = 100 * exp(e);
    return r;
}

/* The set of n hand-made rows (band_set_from_rows must accept them). */
static band_set *set_of(gpuecon_ctx *ctx, const band_row *r, size_t n)
{
    band_set *s = NULL;
    gpuecon_error err;
    assert_int_equal(band_set_from_rows(ctx, r, n, &s, &err), GPUECON_OK);
    return s;
}

/* A serving case on hopper, trtllm, 4,096 tokens, 8 GPUs, at a load of batch requests. */
static band_case serve_case(band_metric m, double batch)
{
    band_case c = {.metric = m, .arch = "hopper", .prec = GPUECON_BF16, .stack = "trtllm", .seq = 4096, .gpus = 8,
                   .batch = batch};
    return c;
}

/* 10 hopper rows e = -0.20 .. 0.30, 3 blackwell rows 0, 0.1, 0.2, 3 TPOT rows all +0.1. */
static band_set *hand_set(gpuecon_ctx *ctx)
{
    static const double eh[] = {-0.20, -0.10, -0.05, 0, 0.02, 0.04, 0.06, 0.08, 0.10, 0.30};
    band_row r[16];
    size_t n = 0;
    for (size_t i = 0; i < 10; i++)
        r[n++] = row(BAND_TRAIN_TPS, "hopper", eh[i], 64);
    for (int i = 0; i < 3; i++)
        r[n++] = row(BAND_TRAIN_TPS, "blackwell", 0.1 * i, 32);
    for (int i = 0; i < 3; i++)
        r[n++] = row(BAND_TPOT, "hopper", 0.1, 8);
    return set_of(ctx, r, n);
}

static band_case train_case(const char *arch, int gpus)
{
    band_case c = {.metric = BAND_TRAIN_TPS, .arch = arch, .prec = GPUECON_BF16, .stack = "megatron-core-2025",
                   .seq = 4096, .gpus = gpus};
    return c;
}

/* n = 10: j = floor(0.1·11) = 1, the interval is [e(1), e(10)] = [-0.20, 0.30], mid 0.05, half 0.25.
 * published = point/exp(e): low = 1000·exp(-0.30) = 740.818, high = 1000·exp(0.20) = 1221.403. */
static void order_statistics(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    band_case c = train_case("hopper", 64);
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_true(b.set);
    assert_close(b.low, 740.818, 1e-5);
    assert_close(b.high, 1221.403, 1e-5);
    assert_near(b.level, 0.8, 1e-12);
    assert_int_equal(b.n, 10);
    assert_non_null(strstr(b.basis, "hopper-bf16-dense-megatron, n=10 held out"));
    assert_string_equal(b.extrapolating, "");
    band_set_free(s);
}

/* n = 3 (blackwell): mean 0.1, s = 0.1, t(0.90, 2) = 1.886, half = 1.886·0.1·sqrt(4/3) = 0.217776;
 * low = 1000·exp(-(0.1 + 0.217776)) = 727.77, high = 1000·exp(0.117776) = 1124.99. */
static void small_sample(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    band_case c = train_case("blackwell", 32);
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 727.77, 1e-4);
    assert_close(b.high, 1124.99, 1e-4);
    assert_int_equal(b.n, 3);
    band_set_free(s);
}

/* No ampere row: the fallback reaches the dense rows of every generation (13, j = floor(1.4) = 1:
 * [-0.20, 0.30] again), so the band equals the hopper one. */
static void fallback(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    band_case c = train_case("ampere", 32);
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 740.818, 1e-5);
    assert_close(b.high, 1221.403, 1e-5);
    assert_int_equal(b.n, 13);
    assert_non_null(strstr(b.basis, "dense, n=13"));
    band_set_free(s);
}

/* 128 GPUs > 64, the largest row: one axis, widened by half the metric's spread (13 rows: [-0.2, 0.3],
 * half 0.25) in quadrature: half = sqrt(0.25² + 0.125²) = 0.279508, mid 0.05:
 * low = 1000·exp(-0.329508) = 719.277, high = 1000·exp(0.229508) = 1257.982. */
static void widening(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    band_case c = train_case("hopper", 128);
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 719.277, 1e-5);
    assert_close(b.high, 1257.982, 1e-5);
    assert_non_null(strstr(b.extrapolating, "128 GPUs > 64"));
    /* the caller's axes replace the engine's own checks (training: calib_match) */
    const char *why[CALIB_AXIS_COUNT] = {"stack foo: no calibration row ran it"};
    c.gpus = 64, c.axes = 1u << CALIB_AXIS_STACK, c.why = why;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 719.277, 1e-5);
    assert_string_equal(b.extrapolating, "stack foo: no calibration row ran it");
    /* every axis at its longest (calib_match's texts are up to 127 bytes): the list never cuts a text, and
       what does not fit ends it "; ..." once; each axis still widens (six in quadrature: half =
       sqrt(0.25² + 6·0.125²) = 0.395285, low = 1000·exp(-0.445285) = 640.640) */
    char longest[CALIB_AXIS_COUNT][128];
    const char *whys[CALIB_AXIS_COUNT];
    for (int a = 0; a < CALIB_AXIS_COUNT; a++) {
        memset(longest[a], 'a' + a, 126);
        longest[a][126] = '.', longest[a][127] = 0;
        whys[a] = longest[a];
    }
    c.axes = (1u << CALIB_AXIS_COUNT) - 1, c.why = whys;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 640.640, 1e-5);
    size_t len = strlen(b.extrapolating);
    assert_true(len < sizeof b.extrapolating);
    assert_string_equal(b.extrapolating + len - 5, "; ...");
    int whole = 0; /* 127-byte texts: three fit in 512 with their separators, the fourth does not */
    for (int a = 0; a < CALIB_AXIS_COUNT; a++)
        whole += strstr(b.extrapolating, longest[a]) != NULL;
    assert_int_equal(whole, 3);
    assert_int_equal((int)len, 3 * 127 + 2 * 2 + 5);
    c.why = why;
    /* the caller found no axis (why given, axes 0): its word stands, 128 GPUs or not */
    c.gpus = 128, c.axes = 0;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 740.818, 1e-5);
    assert_string_equal(b.extrapolating, "");
    band_set_free(s);
}

/* A time: TPOT rows all predicted 10% high (e = 0.1, s = 0: half 0 -> the floor 0.04). The published
 * TPOT is point/exp(e): low = 20·exp(-0.14) = 17.3878 ms, high = 20·exp(-0.06) = 18.8353 ms — the
 * biased group puts the point above its own band, and low < high still. */
static void time_orientation(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    band_case c = serve_case(BAND_TPOT, 64);
    gpuecon_band b;
    band_of(s, &c, 20, &b);
    assert_close(b.low, 17.3878, 1e-4);
    assert_close(b.high, 18.8353, 1e-4);
    assert_true(b.low < b.high);
    /* TTFT, no published row: the serving errors (the 3 TPOT rows), said in extrapolating */
    c.metric = BAND_TTFT;
    band_of(s, &c, 20, &b);
    assert_true(b.low < b.high);
    assert_non_null(strstr(b.extrapolating, "no published TTFT"));
    /* fine-tuning: no row at all, the widest rule (half = max(training spread 0.25, 2·0) = 0.25) */
    c.metric = BAND_FINETUNE_TPS;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 1000 * exp(-0.25), 1e-9);
    assert_close(b.high, 1000 * exp(0.25), 1e-9);
    assert_non_null(strstr(b.basis, "widest"));
    band_set_free(s);
}

/* TTFT from the serving throughput rows alone (no TPOT, no TTFT row): three throughput rows the
 * model predicts high, e = ln 1.15, ln 1.20, ln 1.25, stand for a TTFT predicted short, e = -ln 1.15 ..
 * The n = 3 interval: mean m = -(ln 1.15 + ln 1.20 + ln 1.25)/3 = -0.181742, s = 0.041694, half =
 * t(0.9, 2)·s·sqrt(4/3) = 1.886·0.041694·1.154701 = 0.090799; the "no published TTFT" axis widens it by
 * half the serving rows' W (the same 0.090799): sqrt(0.090799² + 0.045400²) = 0.101517; published =
 * point/exp(e): low = 20·exp(0.181742 - 0.101517) = 21.6706, high = 20·exp(0.181742 + 0.101517) =
 * 26.5490 — both above the point, where a throughput predicted high puts the time (the unturned
 * errors gave 15.07-18.46: below it). */
static void ttft_from_throughput(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    static const double e[] = {0.139762, 0.182322, 0.223144}; /* ln 1.15, ln 1.20, ln 1.25 */
    band_row r[3];
    for (int i = 0; i < 3; i++)
        r[i] = row(BAND_SERVE_TPS, "hopper", e[i], 8);
    band_set *s = set_of(ctx, r, 3);
    band_case c = serve_case(BAND_TTFT, 64);
    gpuecon_band b;
    band_of(s, &c, 20, &b);
    assert_close(b.low, 21.6706, 1e-4);
    assert_close(b.high, 26.5490, 1e-4);
    band_set_free(s);
}

/* Serving throughput and TPOT pooled by load: two throughput rows at 8 in flight (e = 0.10, 0.20), one
 * TPOT row at 4 (e = -0.30, a time predicted short: +0.30 as a throughput error) and three saturated
 * throughput rows (e = -0.50). At 8 in flight the small-batch rows only: {0.10, 0.20, 0.30}, n = 3,
 * mean 0.2, s = 0.1, half = 1.886·0.1·sqrt(4/3) = 0.217777: tok/s 1000·exp(-0.417777) = 658.509 to
 * 1000·exp(0.017777) = 1017.935; TPOT at 20 ms, the same errors turned: 20·exp(-0.017777) = 19.6476 to
 * 20·exp(0.417777) = 30.3716 (the inverse). At saturation the three -0.50 rows: s = 0, the 0.04
 * floor: 1000·exp(0.46) = 1584.074 to 1000·exp(0.54) = 1716.007. */
static void serving_by_load(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    band_row r[6];
    r[0] = row(BAND_SERVE_TPS, "hopper", 0.10, 8), r[0].batch = 8;
    r[1] = row(BAND_SERVE_TPS, "hopper", 0.20, 8), r[1].batch = 8;
    r[2] = row(BAND_TPOT, "hopper", -0.30, 8), r[2].batch = 4;
    for (int i = 3; i < 6; i++)
        r[i] = row(BAND_SERVE_TPS, "hopper", -0.50, 8), r[i].batch = 0;
    band_set *s = set_of(ctx, r, 6);
    band_case c = serve_case(BAND_SERVE_TPS, 8);
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 658.509, 1e-5);
    assert_close(b.high, 1017.935, 1e-5);
    assert_non_null(strstr(b.basis, "small-batch"));
    c.metric = BAND_TPOT;
    band_of(s, &c, 20, &b);
    assert_close(b.low, 19.6476, 1e-5);
    assert_close(b.high, 30.3716, 1e-5);
    c.metric = BAND_SERVE_TPS, c.batch = 0;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 1584.074, 1e-5);
    assert_close(b.high, 1716.007, 1e-5);
    band_set_free(s);
}

/* A user's calibration: centred on the calibrated point, half = max(spread, built-in half ·
 * sqrt(1 + 1/runs), 0.04). The hopper case's built-in half is 0.25 (order_statistics; its mid 0.05 is
 * the bias the calibration removed). 3 runs, spread 0.1: max(0.1, 0.25·sqrt(4/3) = 0.288675) ->
 * 1000·exp(∓0.288675) = 749.256, 1334.658. */
static void calibrated(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    gpuecon_calibration cal = {.spread = 0.1, .runs = 3, .source = "runs.yaml"};
    band_case c = train_case("hopper", 64);
    c.cal = &cal;
    gpuecon_band b;
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 749.256, 1e-5);
    assert_close(b.high, 1334.658, 1e-5);
    assert_true(b.calibrated);
    assert_int_equal(b.n, 3);
    assert_string_equal(b.basis, "calibrated: 3 runs of runs.yaml; hopper-bf16-dense-megatron, n=10 held out");
    cal.spread = 0.4; /* the runs' own spread, wider: it sets the band */
    band_of(s, &c, 1000, &b);
    assert_close(b.high, 1000 * exp(0.4), 1e-12);
    cal.spread = 0, cal.runs = 1; /* one run: 0.25·sqrt(2) = 0.353553 */
    band_of(s, &c, 1000, &b);
    assert_close(b.low, 1000 * exp(-0.353553), 1e-6);
    assert_close(b.high, 1000 * exp(0.353553), 1e-6);
    /* a TPOT group of zero scatter: built-in half the floor 0.04, one run: 0.04·sqrt(2) = 0.056569 */
    band_case t = {.metric = BAND_TPOT, .arch = "hopper", .prec = GPUECON_BF16, .stack = "trtllm", .seq = 4096,
                   .gpus = 8, .batch = 64, .cal = &cal};
    band_of(s, &t, 20, &b);
    assert_close(b.low, 20 * exp(-0.056569), 1e-5);
    assert_close(b.high, 20 * exp(0.056569), 1e-5);
    assert_close(band_calibrated_half(0.01, 0, 4), 0.04, 1e-12); /* the floor */
    band_set_free(s);
}

/* The fitted floor: 3 held-out ampere rows e = 0, 0.01, 0.02 (mean 0.01, s 0.01: half 1.886·0.01·
 * sqrt(4/3) = 0.021778) and 3 fitted rows of the same group e = -0.3, 0, 0.3 (s 0.3: half 0.653330).
 * The fitted rows' wider interval sets the width about the held-out centre 0.01:
 * low = 1000·exp(-0.663330) = 515.133, high = 1000·exp(0.643330) = 1902.806. With fitted rows that
 * scatter less (e = -0.001, 0, 0.001) the held-out interval stands, raised to the floor 0.04:
 * 1000·exp(-0.05) = 951.229, 1000·exp(0.03) = 1030.455. */
static void fitted_floor(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    static const double held[] = {0, 0.01, 0.02}, fit[2][3] = {{-0.3, 0, 0.3}, {-0.001, 0, 0.001}};
    static const double want[2][2] = {{515.133, 1902.806}, {951.229, 1030.455}};
    for (int t = 0; t < 2; t++) {
        band_row r[6];
        for (int i = 0; i < 3; i++) {
            r[i] = row(BAND_TRAIN_TPS, "ampere", held[i], 32);
            r[3 + i] = row(BAND_TRAIN_TPS, "ampere", fit[t][i], 32);
            r[3 + i].fitted = true;
        }
        band_set *s = NULL;
        gpuecon_error err;
        assert_int_equal(band_set_from_rows(ctx, r, 6, &s, &err), GPUECON_OK);
        band_case c = train_case("ampere", 32);
        gpuecon_band b;
        band_of(s, &c, 1000, &b);
        assert_close(b.low, want[t][0], 1e-5);
        assert_close(b.high, want[t][1], 1e-5);
        assert_int_equal(b.n, 3);
        band_set_free(s);
    }
}

/* Leave-one-out: hopper row e = 0.30 left out, its group holds 9 rows (j = 1: [-0.20, 0.10], mid
 * -0.05, half 0.15): its published 100 against predicted 100·exp(0.3) = 134.99 gives the band
 * [134.99·exp(-0.10), 134.99·exp(0.20)] = [122.14, 164.87], which misses 100. */
static void leave_one_out(void **state)
{
    band_set *s = hand_set(((fixture *)*state)->ctx);
    gpuecon_band b;
    band_of_row_loo(s, 9, &b);
    assert_close(b.low, 122.14, 1e-4);
    assert_close(b.high, 164.87, 1e-4);
    assert_false(band_contains(&b, 100));
    band_set_free(s);
}

/* A serving validate row read back as a band row. */
static void serving_row(void **state)
{
    gpuecon_validate_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "X");
    snprintf(r.group, sizeof r.group, "serving");
    snprintf(r.what, sizeof r.what, "llama3-70b, 2 x h100-sxm, fp8/fp8 KV, 1000/1000");
    snprintf(r.metric, sizeof r.metric, "TPOT ms at 64");
    snprintf(r.config, sizeof r.config, "TP2 x 1, sglang");
    r.published = 10, r.predicted = 11, r.fits = true;
    band_row b;
    assert_true(band_row_of(CAT(state), &r, &b));
    assert_int_equal(b.metric, BAND_TPOT);
    assert_string_equal(b.arch, "hopper");
    assert_int_equal(b.prec, GPUECON_FP8);
    assert_int_equal(b.gpus, 2);
    assert_int_equal(b.seq, 2000);
    assert_near(b.batch, 64, 0);
    assert_string_equal(b.stack, "sglang");
    assert_false(b.moe);
    snprintf(r.metric, sizeof r.metric, "KV GB per GPU"); /* no band metric */
    assert_false(band_row_of(CAT(state), &r, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_statistics), cmocka_unit_test(small_sample), cmocka_unit_test(fallback),
        cmocka_unit_test(widening),         cmocka_unit_test(time_orientation), cmocka_unit_test(calibrated),
        cmocka_unit_test(leave_one_out),    cmocka_unit_test(serving_row),
        cmocka_unit_test(fitted_floor),     cmocka_unit_test(ttft_from_throughput),
        cmocka_unit_test(serving_by_load),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
