/*
 * test_calibset.c — the training calibration set (src/analysis/calibset.c, docs/model.md §3.5):
 * the distance worked by hand, layout families, the extrapolation axes on a hand-picked set,
 * the MFU cap, and on the real set (every training row of validate): a recipe that is a row
 * itself is nearest to itself at distance 0 and inside the set, Llama 3 70B on 64 A100 at
 * TP1 CP4 ZeRO-3 is above the Ampere BF16 cap, and the search ranks by the clipped estimate.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

/* A hand-made calibration point (dense unless moe is set afterwards). */
static gpuecon_calib_layout pt(const char *arch, gpuecon_precision prec, const char *stack, int tp, int pp, int vpp,
                               int cp, int zero, int seq, int gpus)
{
    gpuecon_calib_layout l;
    memset(&l, 0, sizeof l);
    l.set = true;
    snprintf(l.model, sizeof l.model, "m");
    snprintf(l.arch, sizeof l.arch, "%s", arch);
    snprintf(l.stack, sizeof l.stack, "%s", stack);
    l.prec = prec;
    l.tp = tp, l.pp = pp, l.vpp = vpp, l.cp = cp, l.ep = 1, l.etp = 1, l.zero = zero;
    l.seq = seq, l.gpus = gpus, l.scaleup = 8;
    l.dp = gpus / (tp * pp * cp);
    l.rc = GPUECON_RECOMPUTE_NONE;
    l.params = 70e9;
    return l;
}

/* The distance, term by term. */
static void test_distance(void **state)
{
    (void)state;
    gpuecon_calib_layout a = pt("hopper", GPUECON_BF16, "nemo-2024", 4, 4, 5, 2, 1, 8192, 64);
    assert_true(calib_distance(&a, &a) == 0);
    /* TP 4 -> 8: 1; sequence 8192 -> 4096: 1; GPUs 64 -> 256: 0.5 x 2 = 1; ZeRO 1 -> 3: 1;
     * BF16 -> FP8: 1; recompute none -> full: 0.5; params 70e9 -> 140e9: 1. Sum 6.5 */
    gpuecon_calib_layout b = a;
    b.tp = 8, b.seq = 4096, b.gpus = 256, b.zero = 3, b.prec = GPUECON_FP8, b.rc = GPUECON_RECOMPUTE_FULL;
    b.params = 140e9;
    assert_near(calib_distance(&a, &b), 6.5, 1e-12);
    assert_near(calib_distance(&b, &a), 6.5, 1e-12);
    /* another generation 2, another stack 1, dense vs MoE 4, VPP 5 -> 1: 0.5 x log2 5 = 1.161 */
    gpuecon_calib_layout c = a;
    snprintf(c.arch, sizeof c.arch, "ampere");
    snprintf(c.stack, sizeof c.stack, "megatron-2021");
    c.moe = true;
    c.vpp = 1;
    assert_near(calib_distance(&a, &c), 7 + 0.5 * 2.321928094887362, 1e-9);
    /* ZeRO 0 -> 1: 0.25 */
    gpuecon_calib_layout d = a;
    d.zero = 0;
    assert_near(calib_distance(&a, &d), 0.25, 1e-12);
}

static void test_family(void **state)
{
    (void)state;
    char buf[160];
    gpuecon_calib_layout a = pt("ampere", GPUECON_BF16, "s", 1, 1, 1, 4, 3, 8192, 64);
    calib_family_text(calib_family(&a), buf, sizeof buf);
    assert_string_equal(buf, "CP + ZeRO-3");
    /* TP 16 on 8-GPU domains: TP across them; TP x CP = 32 > 8 too */
    gpuecon_calib_layout b = pt("hopper", GPUECON_BF16, "s", 16, 2, 1, 2, 1, 8192, 64);
    calib_family_text(calib_family(&b), buf, sizeof buf);
    assert_string_equal(buf, "TP + PP + CP + TP across scale-up domains + TP x CP across scale-up domains");
    gpuecon_calib_layout c = pt("hopper", GPUECON_BF16, "s", 1, 1, 1, 1, 1, 8192, 64);
    calib_family_text(calib_family(&c), buf, sizeof buf);
    assert_string_equal(buf, "data parallel only");
}

/* A set of two hand-made rows: FSDP (TP1, ZeRO-3) FP8 on 8 H100, and a NeMo recipe TP4 PP4 VP5 CP2 BF16
 * on 64 H100, published 1,500 and 1,000 tokens/s/GPU. */
static gpuecon_validate_row hand_rows[2];
static calib_set hand_set(void)
{
    memset(hand_rows, 0, sizeof hand_rows);
    snprintf(hand_rows[0].id, sizeof hand_rows[0].id, "FSDP");
    hand_rows[0].layout = pt("hopper", GPUECON_FP8, "megatron-bridge-2026", 1, 1, 1, 1, 3, 8192, 8);
    hand_rows[0].published = 1500;
    snprintf(hand_rows[1].id, sizeof hand_rows[1].id, "NEMO");
    hand_rows[1].layout = pt("hopper", GPUECON_BF16, "nemo-2024", 4, 4, 5, 2, 1, 8192, 64);
    hand_rows[1].published = 1000;
    for (int i = 0; i < 2; i++) /* 4e11 FLOPs per token on a 989 TFLOP/s peak */
        hand_rows[i].layout.flops_per_token = 4e11, hand_rows[i].layout.peak_flops = 989e12;
    return (calib_set){hand_rows, 2, NULL};
}

static void test_axes(void **state)
{
    (void)state;
    calib_set s = hand_set();
    calib_match m;
    /* Llama 3 70B on 64 A100, TP1 CP4 ZeRO-3, the default stack: CP + ZeRO-3 is in neither row's
     * family ({ZeRO-3}, {TP, PP, VPP, CP}); no dense row and no BF16 row on Ampere; the stack,
     * the context (8192) and the scale (64) are within the rows' */
    gpuecon_calib_layout a = pt("ampere", GPUECON_BF16, "megatron-bridge-2026", 1, 1, 1, 4, 3, 8192, 64);
    calib_match_layout(&s, &a, 0.68, &m);
    unsigned want = 1u << CALIB_AXIS_FAMILY | 1u << CALIB_AXIS_KIND | 1u << CALIB_AXIS_GPU_PREC;
    assert_int_equal(m.axes, want);
    assert_string_equal(m.why[CALIB_AXIS_FAMILY], "layout family CP + ZeRO-3: no calibration row combines them");
    /* nearest: FSDP (generation 2, stack 0, precision 1, CP 1 -> 4: 2, GPUs 8 -> 64: 1.5; = 6.5) against
     * NEMO (generation 2, stack 1, TP 2, PP 2, VPP 0.5 log2 5 = 1.16, CP 1, ZeRO-3 1; = 10.16) */
    assert_string_equal(m.nearest_id, "FSDP");
    assert_near(m.distance, 6.5, 1e-12);
    /* the Ampere BF16 cap is MegaScale's published 55.2% (no row on Ampere): 68% is above it */
    assert_true(m.cap.have);
    assert_near(m.cap.mfu, 0.552, 1e-12);
    assert_string_equal(m.cap.id, "MegaScale-12288");
    assert_true(m.above_cap);

    /* a row's own layout: nearest at 0, inside on every axis; Hopper BF16 cap = the NEMO row's
     * 1000 x 4e11 / 989e12 = 0.40445, below the Llama 3 paper's 43%, so 0.43 */
    gpuecon_calib_layout b = hand_rows[1].layout;
    calib_match_layout(&s, &b, 0.40, &m);
    assert_int_equal(m.axes, 0);
    assert_string_equal(m.nearest_id, "NEMO");
    assert_true(m.distance == 0);
    assert_near(m.cap.mfu, 0.43, 1e-12);
    assert_false(m.above_cap);
    /* FP8 on Hopper: the FSDP row's 1500 x 4e11 / 989e12 = 0.60667 sets it */
    calib_mfu_cap(&s, "hopper", GPUECON_FP8, false, &m.cap);
    assert_near(m.cap.mfu, 1500 * 4e11 / 989e12, 1e-12);
    assert_string_equal(m.cap.id, "FSDP");
    /* nothing published for cdna3: no cap */
    calib_mfu_cap(&s, "cdna3", GPUECON_BF16, false, &m.cap);
    assert_false(m.cap.have);

    /* context 16384 > 8192, 128 GPUs > 64, another stack, MoE (no MoE row on Hopper) */
    gpuecon_calib_layout c = hand_rows[1].layout;
    c.seq = 16384, c.gpus = 128, c.moe = true;
    snprintf(c.stack, sizeof c.stack, "torchtitan");
    calib_match_layout(&s, &c, 0.3, &m);
    want = 1u << CALIB_AXIS_STACK | 1u << CALIB_AXIS_CONTEXT | 1u << CALIB_AXIS_SCALE | 1u << CALIB_AXIS_KIND;
    assert_int_equal(m.axes, want);
    assert_string_equal(m.why[CALIB_AXIS_CONTEXT], "sequence 16384 > 8192, the longest calibrated run");
    assert_string_equal(m.why[CALIB_AXIS_SCALE], "128 GPUs > 64, the largest calibrated run");
}

/* The request train builds for a fixed layout on the catalog's stack. */
static gpuecon_train_request request(void **state, const char *stack, const char *model, const char *system, int gpus,
                                     gpuecon_precision prec, int seq, int gbs, int tp, int pp, int vpp, int cp, int zero)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    gpuecon_train_request_apply_stack(&q, gpuecon_catalog_stack(CAT(state), stack));
    q.model = gpuecon_catalog_model(CAT(state), model);
    q.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(q.model);
    assert_non_null(q.system);
    q.gpus = gpus, q.precision = prec, q.seq = seq, q.gbs = gbs;
    q.tp = tp, q.pp = pp, q.vpp = vpp, q.cp = cp, q.mbs = 1, q.zero = zero;
    q.recompute = GPUECON_RECOMPUTE_NONE;
    return q;
}

static void test_real_set(void **state)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    calib_set s;
    gpuecon_error err;
    if (calib_set_build(ctx, CAT(state), &s, &err))
        fail_msg("calibration set: %s", err.message);
    /* every training row of validate joins (its layout filled by validate_set_train): the set has
     * as many rows as validate's training rows */
    static gpuecon_validate_row rows[GPUECON_VALIDATE_MAX];
    size_t n = 0;
    assert_int_equal(gpuecon_validate(ctx, CAT(state), NULL, 0, rows, GPUECON_VALIDATE_MAX, &n, NULL, NULL, &err), 0);
    for (size_t i = 0; i < n; i++)
        if (!rows[i].layout.set)
            fail_msg("validate row %s has no calibration layout (call validate_set_train)", rows[i].id);
    assert_int_equal(s.n, n);
    assert_true(s.n > 150);

    /* A31, the Llama 3.1 70B BF16 recipe on 64 H100 (TP4 PP4 VP5 CP2, nemo-2024), asked as train
     * would: nearest to itself at distance 0, inside the set */
    gpuecon_train_request q =
        request(state, "nemo-2024", "llama3-70b", "hgx-h100", 64, GPUECON_BF16, 8192, 128, 4, 4, 5, 2, 1);
    gpuecon_train_result r;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &err), 0);
    calib_match m;
    calib_match_of(&s, &q, &r, &m);
    assert_string_equal(m.nearest_id, "A31");
    assert_true(m.distance == 0);
    assert_int_equal(m.axes, 0);

    /* Llama 3 70B BF16 on 64 A100, TP1 CP4 ZeRO-3 (the layout examples/sweep_platforms.py found at
     * 72.9% MFU): its causal MFU is above the Ampere BF16 cap, MegaScale's 55.2% (Narayanan's
     * 163 TFLOP/s of 312 counts recompute: 52% of peak as hardware FLOPs, below it) */
    q = request(state, "megatron-bridge-2026", "llama3-70b", "hgx-a100", 64, GPUECON_BF16, 8192, 512, 1, 1, 1, 4, 3);
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r, &err), 0);
    calib_match_of(&s, &q, &r, &m);
    assert_string_equal(m.cap.id, "MegaScale-12288");
    assert_near(m.cap.mfu, 0.552, 1e-12);
    assert_true(r.mfu_causal > 0.552);
    assert_true(m.above_cap);
    assert_near(m.mfu, r.mfu_causal, 1e-12);

    /* the search ranks by min(causal MFU, cap): the kept layouts' clipped MFUs never rise down the
     * list, and at least one is above the cap (else this proves nothing); those above it tie at it
     * and come smaller estimate first */
    q.tp = q.cp = q.pp = q.vpp = q.mbs = q.zero = GPUECON_SEARCH;
    q.recompute = GPUECON_SEARCH;
    q.rank_mfu_cap = m.cap.mfu;
    gpuecon_search_options o = {.top_k = 20};
    gpuecon_search_result sr;
    assert_int_equal(gpuecon_train_search(ctx, &q, &o, &sr, &err), 0);
    bool above = false;
    for (size_t i = 0; i < sr.n_best; i++) {
        double a = sr.best[i].mfu_causal < q.rank_mfu_cap ? sr.best[i].mfu_causal : q.rank_mfu_cap;
        above |= sr.best[i].mfu_causal > q.rank_mfu_cap;
        if (i) {
            double p = sr.best[i - 1].mfu_causal < q.rank_mfu_cap ? sr.best[i - 1].mfu_causal : q.rank_mfu_cap;
            assert_true(p >= a * (1 - 1e-12));
            if (sr.best[i].mfu_causal > q.rank_mfu_cap && sr.best[i - 1].mfu_causal > q.rank_mfu_cap)
                assert_true(sr.best[i - 1].mfu_causal <= sr.best[i].mfu_causal * (1 + 1e-12));
        }
    }
    assert_true(above);
    gpuecon_search_result_free(&sr);
    calib_set_free(&s);
    gpuecon_ctx_free(ctx);
}

/* The family of result r's layout, as calib_family finds it for train's output. */
static unsigned family_of_result(const gpuecon_train_request *q, const gpuecon_train_result *r)
{
    gpuecon_calib_layout l;
    calib_layout_of(q, r, &l);
    return calib_family(&l);
}

/* The search ranks each layout at its 80% band's low end (docs/model.md §3.5): calib_rank_band's two
 * factors are the band's low end over the point of a layout whose family a calibration row combines
 * and, lower, of one none does (each equal to band_of_train's for the layout), and the band-ranked
 * search's best keys are, in order, those of the point-ranked search's layouts re-keyed by hand at
 * min(throughput, MFU cap) x their family's factor. Llama 3 70B BF16 on 64 H100 with torchtitan
 * (seq 8192, batch 64): the point's best five are all TP x CP x PP (interleaved) x ZeRO-3, which no
 * row combines; at the low end a TP2 CP2 ZeRO-3 layout, torchtitan's own, wins. */
static void test_band_ranking(void **state)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    calib_set s;
    band_set *b = NULL;
    gpuecon_error err;
    assert_int_equal(calib_set_build(ctx, CAT(state), &s, &err), 0);
    assert_int_equal(band_set_build(ctx, CAT(state), &b, &err), 0);
    gpuecon_train_request q =
        request(state, "torchtitan-2024-eager", "llama3-70b", "hgx-h100", 64, GPUECON_BF16, 8192, 64, 1, 1, 1, 1, 1);
    q.tp = q.cp = q.pp = q.vpp = q.mbs = q.zero = GPUECON_SEARCH;
    q.recompute = GPUECON_SEARCH;
    calib_cap cap; /* as train ranks: at the MFU cap too */
    calib_mfu_cap(&s, "hopper", GPUECON_BF16, false, &cap);
    q.rank_mfu_cap = cap.have ? cap.mfu : 0;
    gpuecon_train_request qb = q;
    calib_rank_band(&s, b, &qb);
    assert_true(qb.rank_band_low[0] > 0 && qb.rank_band_low[1] > 0);
    assert_true(qb.rank_band_low[1] < qb.rank_band_low[0]); /* a family outside the set: a wider band */

    /* the point-ranked search, deep enough that nothing below it can reach the band-ranked best 5 */
    gpuecon_search_options o = {.top_k = 400};
    gpuecon_search_result sp, sb;
    assert_int_equal(gpuecon_train_search(ctx, &q, &o, &sp, &err), 0);
    o.top_k = 5;
    assert_int_equal(gpuecon_train_search(ctx, &qb, &o, &sb, &err), 0);
    assert_int_equal(sb.n_best, 5);
    double capt = q.rank_mfu_cap > 0 ? q.rank_mfu_cap : INFINITY;
    double key[400];
    size_t n = sp.n_best, out = 0;
    assert_true(n > 5);
    for (size_t i = 0; i < n; i++) {
        const gpuecon_train_result *x = &sp.best[i];
        double t = x->tokens_per_s_per_gpu * (x->mfu_causal > capt ? capt / x->mfu_causal : 1);
        unsigned fam = family_of_result(&q, x);
        key[i] = t * calib_rank_factor(&qb, fam);
        out += i < 5 && !(qb.rank_family_covered[fam >> 5] >> (fam & 31) & 1u);
        /* the factor is the band's own: band_of_train with the layout's calibration match */
        if (i < 5) {
            calib_match m;
            calib_match_of(&s, &q, x, &m);
            gpuecon_band bd;
            band_of_train(b, &qb, x, &m, &bd);
            assert_near(bd.low / x->tokens_per_s_per_gpu, calib_rank_factor(&qb, fam), 1e-9);
        }
    }
    assert_true(out > 0); /* the point's best 5 hold a family no row combines: the case is not trivial */
    /* a layout below the 400th by the clipped point ranks at most there x the larger factor */
    const gpuecon_train_result *last = &sp.best[n - 1];
    double beyond = last->tokens_per_s_per_gpu * (last->mfu_causal > capt ? capt / last->mfu_causal : 1) *
                    fmax(qb.rank_band_low[0], qb.rank_band_low[1]);
    for (size_t i = 1; i < n; i++) /* the keys by hand, best first */
        for (size_t j = i; j > 0 && key[j] > key[j - 1]; j--) {
            double t = key[j];
            key[j] = key[j - 1], key[j - 1] = t;
        }
    bool moved = false;
    for (size_t i = 0; i < 5; i++) {
        const gpuecon_train_result *x = &sb.best[i];
        double t = x->tokens_per_s_per_gpu * (x->mfu_causal > capt ? capt / x->mfu_causal : 1);
        double k = t * calib_rank_factor(&qb, family_of_result(&qb, x));
        assert_near(k, key[i], 1e-9 * key[i]);
        assert_true(k > beyond);
        moved |= fabs(x->tokens_per_s_per_gpu - sp.best[i].tokens_per_s_per_gpu) > 1e-9 ||
                 family_of_result(&qb, x) != family_of_result(&q, &sp.best[i]);
    }
    assert_true(moved); /* the band changed the ranking */
    const gpuecon_parallel *w = &sb.best[0].par;
    assert_true(w->tp == 2 && w->cp == 2 && w->pp == 1 && w->zero == 3);
    gpuecon_search_result_free(&sp);
    gpuecon_search_result_free(&sb);
    band_set_free(b);
    calib_set_free(&s);
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_family),
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_real_set),
        cmocka_unit_test(test_band_ranking),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
