/*
 * test_sim.c — the Monte Carlo against the analytic model (TC6, docs/model.md §5.8:
 * |MC − analytic| ≤ max(3·CI95, 0.005)), and its contract: bit-identical for any
 * thread count, memory independent of the trial count, cancelable, lost time adds up.
 *
 * The analytic values are themselves checked against the hand-worked hand-derived numbers in
 * test_reliability.c (MC-A G2 0.8362, MC-B 0.389, MC-C 0.7853/0.8221/0.8269, MC-D below).
 * Trial counts are modest (200, as in docs/model.md §5.8) so the test stays fast under ASan.
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define MIN 60.0
#define DAY 86400.0

static const gpuecon_system *sys(void **state, const char *name)
{
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), name);
    assert_non_null(s);
    return s;
}

/* The hand-worked topology (§4): one node-level class with MTTR U[1,4] h; `drain` of the
 * interruptions drain the domain, half U[1,4] h, half U[8,24] h. t_d 5, t_r 10, τ 30,
 * δ 0.5 min, 30 days, 200 trials. */
static void request(void **state, gpuecon_reliability_request *q, const char *name, int gpus,
                    double mtbi, double drain, int spares)
{
    char tier[64];
    snprintf(tier, sizeof tier, "%s/typical", name);
    const gpuecon_reliability *t = gpuecon_catalog_reliability(CAT(state), tier);
    assert_non_null(t);
    assert_int_equal(gpuecon_reliability_request_init(q, sys(state, name), t, gpus, NULL), GPUECON_OK);
    q->mtbi_gpu_days = mtbi;
    for (int k = 0; k < GPUECON_FCLASS_COUNT; k++)
        q->fclass[k] = (gpuecon_fclass_params){0, GPUECON_BLAST_NODE, 1, 4, 0, 0};
    q->fclass[GPUECON_FCLASS_GPU].share = 1 - drain;
    q->fclass[GPUECON_FCLASS_SWITCH] = (gpuecon_fclass_params){drain / 2, GPUECON_BLAST_DOMAIN, 1, 4, 0, 0};
    q->fclass[GPUECON_FCLASS_BACKPLANE] = (gpuecon_fclass_params){drain / 2, GPUECON_BLAST_DOMAIN, 8, 24, 0, 0};
    q->detect_s = 5 * MIN;
    q->restart_s = 10 * MIN;
    q->queue_s = 0;
    q->ckpt_interval_s = 30 * MIN;
    q->ckpt_write_s = 0.5 * MIN;
    q->async_ckpt = false;
    q->spare_domains = spares;
    q->duration_s = 30 * DAY;
    q->trials = 200;
}

static gpuecon_reliability_mc simulate(void **state, const gpuecon_reliability_request *q)
{
    gpuecon_reliability_mc mc;
    gpuecon_error err;
    if (gpuecon_reliability_simulate(((fixture *)*state)->ctx, q, &mc, &err))
        fail_msg("simulate: %s: %s", err.where, err.message);
    return mc;
}

static double analytic(const gpuecon_reliability_request *q, gpuecon_reliability_result *out)
{
    gpuecon_reliability_result r;
    gpuecon_error err;
    if (gpuecon_reliability_analytic(q, &r, &err))
        fail_msg("analytic: %s: %s", err.where, err.message);
    if (out)
        *out = r;
    return r.ettr;
}

/* TC6's acceptance rule. */
static void agrees(const char *what, const gpuecon_reliability_mc *mc, double expected)
{
    double tol = fmax(3 * mc->ettr_ci95, 0.005);
    if (!(fabs(mc->ettr_mean - expected) <= tol))
        fail_msg("%s: MC %.4f ± %.4f vs analytic %.4f (tolerance %.4f)", what, mc->ettr_mean,
                 mc->ettr_ci95, expected, tol);
    /* the lost-time split of every trial adds up to its wall time */
    const gpuecon_lost_time *l = &mc->lost;
    assert_near(mc->ettr_mean + l->detect + l->restart + l->recompute + l->ckpt + l->wait, 1, 1e-9);
    assert_true(mc->ettr_p10 <= mc->ettr_p50 && mc->ettr_p50 <= mc->ettr_p90);
    assert_true(mc->ettr_ci95 > 0 && mc->ettr_ci95 < 0.02);
}

/* MC-A: HGX, 2,048 nodes, MTBI 2,111.5, 32 hot-spare nodes: G2 0.8362 (hand-worked MC 0.8360 ± 0.0013);
 * observed interruptions fall below Λ = 7.76/day (hand-worked MC 7.52) as faults during detection
 * are absorbed. MC-B: no spares, busy period: G2 0.389 (hand-worked MC 0.3849 ± 0.0041). */
static void test_mc_a_b(void **state)
{
    gpuecon_reliability_request q;
    gpuecon_reliability_result r;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0, 32);
    double a = analytic(&q, &r);
    gpuecon_reliability_mc mc = simulate(state, &q);
    agrees("MC-A", &mc, a);
    assert_near(mc.interruptions_per_day, 7.52, 0.15);
    assert_true(mc.interruptions_per_day < r.interruptions_per_day);
    assert_true(mc.lost.wait < 1e-6);
    assert_int_equal(mc.trials, 200);

    request(state, &q, "hgx-h100", 16384, 2111.5, 0, 0);
    a = analytic(&q, &r);
    mc = simulate(state, &q);
    agrees("MC-B", &mc, a);
    assert_true(mc.lost.wait > 0.3);
}

/* MC-C: NVL72, 256 racks x 64/72, MTBI 2,000, 10% rack drains; S = 1, 2, 4 spare racks:
 * (1 − P_b)·G2 = 0.7853, 0.8221, 0.8269. S = 0: the busy-period wait in G2. */
static void test_mc_c(void **state)
{
    const int S[4] = {0, 1, 2, 4};
    for (int i = 0; i < 4; i++) {
        gpuecon_reliability_request q;
        request(state, &q, "gb200-nvl72", 16384, 2000, 0.1, S[i]);
        double a = analytic(&q, NULL);
        gpuecon_reliability_mc mc = simulate(state, &q);
        char what[32];
        snprintf(what, sizeof what, "MC-C S=%d", S[i]);
        agrees(what, &mc, a);
    }
}

/* MC-D: HGX, t_d 5 + t_r 16.5 + τ/2 15 = 36.5 min per interruption, δ 0; MTBI 2,000/3,500/
 * 5,000 → G2 0.8138 / 0.8886 / 0.9206 (hand-worked MC 0.8128 / 0.8881 / 0.9206). */
static void test_mc_d(void **state)
{
    const double mtbi[3] = {2000, 3500, 5000}, g2[3] = {0.8138, 0.8886, 0.9206};
    for (int i = 0; i < 3; i++) {
        gpuecon_reliability_request q;
        request(state, &q, "hgx-h100", 16384, mtbi[i], 0, 32);
        q.restart_s = 16.5 * MIN;
        q.ckpt_write_s = 0;
        double a = analytic(&q, NULL);
        assert_near(a, g2[i], 0.0001);
        gpuecon_reliability_mc mc = simulate(state, &q);
        agrees("MC-D", &mc, a);
    }
}

/* Defaults of the catalog (all six classes, software faults, network MTTR, async writes):
 * still within statistical error of G2, which takes the async commit lag to first order. */
static void test_catalog_defaults(void **state)
{
    const char *tiers[3] = {"hgx-h100/best", "gb200-nvl72/typical", "gb200-nvl72/poor"};
    const char *systems[3] = {"hgx-h100", "gb200-nvl72", "gb200-nvl72"};
    for (int i = 0; i < 3; i++) {
        gpuecon_reliability_request q;
        const gpuecon_reliability *t = gpuecon_catalog_reliability(CAT(state), tiers[i]);
        assert_int_equal(gpuecon_reliability_request_init(&q, sys(state, systems[i]), t, 16384, NULL),
                         GPUECON_OK);
        q.trials = 200;
        gpuecon_reliability_result r;
        double a = analytic(&q, &r);
        gpuecon_reliability_mc mc = simulate(state, &q);
        agrees(tiers[i], &mc, a);
    }
}

/* Class-specific detection and restart (software hangs found late and restarting long): the
 * Monte Carlo takes each phase's length from the class of the fault that caused it. */
static void test_class_times(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2000, 0, 32);
    q.fclass[GPUECON_FCLASS_GPU].share = 0.6;
    q.fclass[GPUECON_FCLASS_SOFTWARE] = (gpuecon_fclass_params){0.3, GPUECON_BLAST_JOB, 0, 0, 1800, 600};
    q.fclass[GPUECON_FCLASS_HOST] = (gpuecon_fclass_params){0.1, GPUECON_BLAST_NODE, 1, 4, 0, 1200};
    double a = analytic(&q, NULL);
    gpuecon_reliability_mc mc = simulate(state, &q);
    agrees("class times", &mc, a);
    q.weibull_shape = 1.0001; /* the clock path picks job classes too */
    mc = simulate(state, &q);
    agrees("class times, Weibull 1.0001", &mc, a);
}

/* A token budget: each trial runs until trained; days = work/ETTR. 1e12 tokens at
 * 1,000 tok/s/GPU on 16,384 GPUs = 61,035 s = 0.7064 failure-free days. */
static void test_days_to_train(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0, 32);
    q.tokens_per_s_per_gpu = 1000;
    q.tokens = 20e12; /* 14.1 failure-free days */
    gpuecon_reliability_result r;
    double a = analytic(&q, &r);
    gpuecon_reliability_mc mc = simulate(state, &q);
    agrees("budget", &mc, a);
    assert_close(r.days_to_train, 20e12 / (1000.0 * 16384) / DAY / a, 1e-12);
    assert_close(mc.days_mean, r.days_to_train, 0.01);
    assert_true(mc.days_p10 <= mc.days_p50 && mc.days_p50 <= mc.days_p90);
    /* P10 of days ↔ P90 of ETTR: both are ranks of the same trials */
    assert_close(mc.days_p10, 20e12 / (1000.0 * 16384) / DAY / mc.ettr_p90, 0.002);
    assert_int_equal(mc.unfinished, 0);
}

/* Weibull lifetimes: shape 1.0001 runs the per-unit clock machinery yet is exponential in
 * effect, so it must agree with G2; new hardware with shape 0.5 (burn-in) fails more often in
 * the first month than its mean rate says, shape 3 (wear-out) less. */
static void test_weibull(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "gb200-nvl72", 16384, 2000, 0.1, 4);
    double a = analytic(&q, NULL);
    q.weibull_shape = 1.0001;
    gpuecon_reliability_mc one = simulate(state, &q);
    agrees("Weibull 1.0001", &one, a);
    q.weibull_shape = 0.5;
    gpuecon_reliability_mc burn = simulate(state, &q);
    q.weibull_shape = 3;
    gpuecon_reliability_mc wear = simulate(state, &q);
    assert_true(burn.ettr_mean < one.ettr_mean - 0.05);
    assert_true(wear.ettr_mean > one.ettr_mean + 0.05);
    assert_true(burn.interruptions_per_day > 1.5 * one.interruptions_per_day);
}

/* Asynchronous checkpoints: little blocking time, more recompute (the commit lag). */
static void test_async(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0, 32);
    q.ckpt_write_s = 300;
    q.ckpt_interval_s = 1800;
    gpuecon_reliability_mc sync = simulate(state, &q);
    q.async_ckpt = true;
    q.ckpt_block_s = 5;
    double a = analytic(&q, NULL);
    gpuecon_reliability_mc as = simulate(state, &q);
    agrees("async", &as, a);
    assert_true(as.lost.ckpt < sync.lost.ckpt / 10);
    assert_true(as.lost.recompute > sync.lost.recompute);
}

/* Same seed: bit-identical for 1, 2 and 3 threads, in the summary and trial by trial. */
static void test_deterministic(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "gb200-nvl72", 16384, 2000, 0.1, 1);
    q.trials = 600; /* more than two waves */
    double *e[3];
    gpuecon_reliability_mc mc[3];
    for (int t = 0; t < 3; t++) {
        gpuecon_ctx_config cfg = {0};
        cfg.seed = 42;
        cfg.threads = t + 1;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        e[t] = calloc((size_t)q.trials, sizeof(double));
        q.trial_ettr = e[t];
        gpuecon_error err;
        assert_int_equal(gpuecon_reliability_simulate(ctx, &q, &mc[t], &err), GPUECON_OK);
        mc[t].threads = 0;
        gpuecon_ctx_free(ctx);
    }
    for (int t = 1; t < 3; t++) {
        assert_memory_equal(&mc[0], &mc[t], sizeof mc[0]);
        assert_memory_equal(e[0], e[t], (size_t)q.trials * sizeof(double));
    }
    /* the per-trial values average to the reported mean */
    double mean = 0;
    for (int i = 0; i < q.trials; i++)
        mean += e[1][i] / q.trials;
    assert_close(mean, mc[0].ettr_mean, 1e-12);
    for (int t = 0; t < 3; t++)
        free(e[t]);
    /* another seed, another sample */
    gpuecon_ctx_config cfg = {0};
    cfg.seed = 43;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_reliability_mc other;
    q.trial_ettr = NULL;
    assert_int_equal(gpuecon_reliability_simulate(ctx, &q, &other, NULL), GPUECON_OK);
    assert_true(other.ettr_mean != mc[0].ettr_mean);
    assert_near(other.ettr_mean, mc[0].ettr_mean, 4 * mc[0].ettr_ci95);
    gpuecon_ctx_free(ctx);
}

/* ---- memory and cancellation through the context ------------------------------------------------ */

typedef struct counter {
    size_t now, peak;
    int calls;
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    counter *c = ud;
    c->now += nsize;
    c->now -= ptr ? osize : 0;
    if (c->now > c->peak)
        c->peak = c->now;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

static size_t peak_for(void **state, int trials)
{
    counter c = {0};
    gpuecon_ctx_config cfg = {0};
    cfg.alloc = counting_alloc;
    cfg.alloc_ud = &c;
    cfg.threads = 2;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    size_t before = c.now;
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 8192, 2111.5, 0, 16);
    q.duration_s = 3 * DAY;
    q.trials = trials;
    gpuecon_reliability_mc mc;
    assert_int_equal(gpuecon_reliability_simulate(ctx, &q, &mc, NULL), GPUECON_OK);
    assert_int_equal(c.now, before); /* everything it allocated is freed */
    gpuecon_ctx_free(ctx);
    return c.peak;
}

static void test_memory_bounded(void **state)
{
    size_t small = peak_for(state, 10), large = peak_for(state, 3000);
    assert_true(small > 0);
    assert_int_equal(small, large);
}

/* A size-tracking allocator (issue 14, item 8): remembers the size of every block it hands
 * out, fails the fail_at-th allocation, and counts every free or resize whose old size is not
 * the size it allocated. */
typedef struct tracker {
    void *ptr[256];
    size_t size[256];
    int n, allocs, fail_at, mismatches;
} tracker;

static void *tracking_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    tracker *t = ud;
    if (ptr) {
        int i = 0;
        while (i < t->n && t->ptr[i] != ptr)
            i++;
        if (i == t->n || t->size[i] != osize)
            t->mismatches++;
        if (i < t->n) {
            t->ptr[i] = t->ptr[t->n - 1], t->size[i] = t->size[t->n - 1];
            t->n--;
        }
    }
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (!ptr && ++t->allocs == t->fail_at)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p && t->n < 256)
        t->ptr[t->n] = p, t->size[t->n++] = nsize;
    return p;
}

static void test_failed_allocation_frees_matching_sizes(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 1024, 2111.5, 0, 16);
    q.duration_s = 2 * DAY;
    q.trials = 8;
    int failures = 0;
    for (int k = 1; k <= 40; k++) {
        tracker t = {0};
        gpuecon_ctx_config cfg = {0};
        cfg.alloc = tracking_alloc;
        cfg.alloc_ud = &t;
        cfg.threads = 2;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        assert_non_null(ctx);
        t.fail_at = t.allocs + k; /* the k-th allocation of the simulation fails */
        gpuecon_reliability_mc mc;
        gpuecon_error err;
        int rc = gpuecon_reliability_simulate(ctx, &q, &mc, &err);
        assert_true(rc == GPUECON_OK || rc == GPUECON_E_NOMEM);
        failures += rc == GPUECON_E_NOMEM;
        gpuecon_ctx_free(ctx);
        assert_int_equal(t.mismatches, 0);
        assert_int_equal(t.n, 0); /* everything was freed */
    }
    assert_true(failures >= 5); /* the workspaces, slots and histogram each failed once */
}

static int cancel_after_first(void *ud, double done, double total)
{
    int *calls = ud;
    (*calls)++;
    assert_true(done > 0 && done <= total);
    return done >= 256;
}

static void test_cancel(void **state)
{
    int calls = 0;
    gpuecon_ctx_config cfg = {0};
    cfg.progress = cancel_after_first;
    cfg.progress_ud = &calls;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 8192, 2111.5, 0, 16);
    q.duration_s = 2 * DAY;
    q.trials = 2000;
    gpuecon_reliability_mc mc;
    gpuecon_error err;
    assert_int_equal(gpuecon_reliability_simulate(ctx, &q, &mc, &err), GPUECON_E_CANCELED);
    assert_int_equal(calls, 1);
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mc_a_b),
        cmocka_unit_test(test_mc_c),
        cmocka_unit_test(test_mc_d),
        cmocka_unit_test(test_catalog_defaults),
        cmocka_unit_test(test_class_times),
        cmocka_unit_test(test_days_to_train),
        cmocka_unit_test(test_weibull),
        cmocka_unit_test(test_async),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_failed_allocation_frees_matching_sizes),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
