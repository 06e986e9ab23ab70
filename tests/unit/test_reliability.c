/*
 * test_reliability.c — the analytic goodput model against hand-derived values and the
 * published reproductions TC3–TC5 of docs/model.md §5; the reliability
 * catalog (every system has three tiers, `like:` inheritance keeps provenance); bad input.
 *
 * Units: the hand-worked cases quote minutes and hours; the library takes seconds (x60, x3600).
 */
#include "test_util.h"

#include <string.h>

#define MIN 60.0
#define HOUR 3600.0
#define DAY 86400.0

static const gpuecon_system *sys(void **state, const char *name)
{
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), name);
    assert_non_null(s);
    return s;
}

/* A request on system `name` whose failures are one node-level class with MTTR U[1,4] h
 * (the hand-worked Monte Carlo topology), drains `drain` of them (half U[1,4] h, half U[8,24] h). */
static void request(void **state, gpuecon_reliability_request *q, const char *name, int gpus,
                    double mtbi, double drain)
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
    q->queue_s = 0;
    q->async_ckpt = false;
}

static gpuecon_reliability_result analytic(const gpuecon_reliability_request *q)
{
    gpuecon_reliability_result r;
    gpuecon_error err;
    int rc = gpuecon_reliability_analytic(q, &r, &err);
    if (rc)
        fail_msg("analytic: %s: %s", err.where, err.message);
    return r;
}

/* ---- formulas -------------------------------------------------------------------------------- */

/* §3.3: Llama 3 rate, M = 185.6 min; δ = 0.5/1/5 min → Young 13.6/19.3/43.1, Daly 13.3/18.6/39.8.
 * By hand, δ = 1: sqrt(2·1·185.6) = 19.267; x = 1/371.2 = 0.002694;
 * Daly = 19.267·(1 + 0.05190/3 + 0.002694/9) − 1 = 19.267·1.017600 − 1 = 18.606. */
static void test_young_daly(void **state)
{
    (void)state;
    const double M = 185.6 * MIN, d[3] = {0.5, 1, 5};
    const double young[3] = {13.6, 19.3, 43.1}, daly[3] = {13.3, 18.6, 39.8};
    for (int i = 0; i < 3; i++) {
        assert_near(gpuecon_young_interval_s(d[i] * MIN, M) / MIN, young[i], 0.05);
        assert_near(gpuecon_daly_interval_s(d[i] * MIN, M) / MIN, daly[i], 0.05);
    }
    assert_close(gpuecon_daly_interval_s(1 * MIN, M) / MIN, 18.606, 1e-3);
    /* δ ≥ 2M: Daly's interval is M */
    assert_close(gpuecon_daly_interval_s(400 * MIN, M), M, 1e-12);
    assert_true(gpuecon_young_interval_s(0, M) == 0);
}

/* §3.4 / MC-C: ρ = 256·(72·0.1/2000)·(9.25/24) = 0.35520 → P[>0] = 1 − e^−ρ = 0.29900;
 * ρ = 257·... = 0.35659 → P[>1] = 1 − e^−ρ(1 + ρ) = 0.05034.
 * ρ = 2: P[>3] = 1 − e^−2(1 + 2 + 2 + 4/3) = 1 − 0.135335·6.33333 = 0.142877. */
static void test_poisson_tail(void **state)
{
    (void)state;
    assert_close(gpuecon_poisson_tail(0.35520, 0), 0.29900, 2e-4);
    assert_close(gpuecon_poisson_tail(0.35659, 1), 0.05034, 2e-3);
    assert_close(gpuecon_poisson_tail(2, 3), 0.142877, 1e-5);
    assert_close(gpuecon_poisson_tail(2, 0), 1 - exp(-2), 1e-12);
    /* far tail: P[Poisson(1) > 10] = Σ_{k≥11} e^−1/k! = e^−1/11!·(1 + 1/12 + 1/156 + 1/2184 + ...)
     * = 9.21616e-9·1.090231 = 1.00478e-8 */
    assert_close(gpuecon_poisson_tail(1, 10), 1.00478e-8, 1e-4);
    /* large ρ: P[X ≤ λ] ≈ 1/2 + 2/(3·sqrt(2πλ)) (Ramanujan), λ = 1000 → tail 0.49159 */
    assert_near(gpuecon_poisson_tail(1000, 1000), 0.49159, 0.001);
    assert_true(gpuecon_poisson_tail(1000, 0) == 1);
    assert_true(gpuecon_poisson_tail(0, 3) == 0);
    assert_true(gpuecon_poisson_tail(5, -1) == 1);
}

/* MC-B: Λu = 16,384/2,111.5 per day = 0.32331/h, E[MTTR] = 2.5 h:
 * W = (e^{0.80827} − 1)/0.32331 = 1.24417/0.32331 = 3.848 h. */
static void test_busy_period(void **state)
{
    (void)state;
    double rate = 16384 / 2111.5 / DAY;
    assert_near(gpuecon_busy_period_s(rate, 2.5 * HOUR) / HOUR, 3.848, 0.001);
    assert_close(gpuecon_busy_period_s(0, 2.5 * HOUR), 2.5 * HOUR, 1e-12);
    assert_close(gpuecon_busy_period_s(1e-12, 100), 100, 1e-6);
    assert_true(gpuecon_busy_period_s(1, 0) == 0);
}

/* ---- TC3: Llama 3 ------------------------------------------------------------------------------ */

/* 16,384 GPUs, 54 days, MTBI 2,111.5 GPU-days → 16384·54/2111.5 = 419.0 interruptions;
 * job MTTI 54·24/419 = 3.09 h; Young with δ = 1 min: 19.3 min. */
static void test_tc3_llama3(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0);
    q.duration_s = 54 * DAY;
    q.ckpt_write_s = 60;
    gpuecon_reliability_result r = analytic(&q);
    assert_close(r.interruptions, 419, 0.02);
    assert_close(r.interruptions, 419, 0.001);
    assert_near(r.job_mtti_h, 3.09, 0.005);
    assert_near(r.young_interval_s / MIN, 19.3, 0.05);
    /* r_f = 1000·8/2111.5 = 3.79 failures per 1000 node-days */
    assert_near(1000.0 * 8 / q.mtbi_gpu_days, 3.79, 0.005);

    /* ">90% effective training time": with 466 interruptions (MTBI 1,898.6), hot spares
     * (no wait), t_d 2 + t_r 8 min, δ 0: G2 at τ = 15 min → 0.901, τ = 30 min → 0.860.
     * By hand, τ = 15: M = 166.87 min; e^{15/M} − 1 = 0.094056; D_f = 2 + M(e^{8/M} − 1)
     * = 10.195; g2 = 15/(0.094056·177.06) = 0.9007. */
    request(state, &q, "hgx-h100", 16384, 1898.6, 0);
    q.detect_s = 2 * MIN;
    q.restart_s = 8 * MIN;
    q.ckpt_write_s = 0;
    q.mttr_scale = 0;
    q.spare_domains = 0;
    q.ckpt_interval_s = 15 * MIN;
    assert_near(analytic(&q).g2, 0.901, 0.001);
    q.ckpt_interval_s = 30 * MIN;
    assert_near(analytic(&q).g2, 0.860, 0.001);
}

/* ---- TC4: Meta (Kokolis et al.) ----------------------------------------------------------------- */

static void meta(void **state, gpuecon_reliability_request *q, int gpus, double mtbi, double tau_min)
{
    request(state, q, "hgx-a100", gpus, mtbi, 0);
    q->detect_s = 0;
    q->restart_s = 5 * MIN;
    q->ckpt_write_s = 0;
    q->ckpt_interval_s = tau_min * MIN;
    q->mttr_scale = 0;
    q->spare_domains = 0;
}

/* 16,000 GPUs (2,000 nodes), r_f 6.5e-3 per node-day = MTBI 1,230.8 GPU-days, u0 = 5 min:
 * Λ = 16000/1230.8 per day = 0.0090275/min. Δt = 60: 1 − 0.0090275·35 = 0.684;
 * Δt = 5: 1 − 0.0090275·7.5 = 0.932. G2 at 60 min: 0.720 (hand-worked). */
static void test_tc4_meta(void **state)
{
    gpuecon_reliability_request q;
    meta(state, &q, 16000, 1230.8, 60);
    gpuecon_reliability_result r = analytic(&q);
    assert_near(r.g1, 0.684, 0.01);
    assert_near(r.g1, 0.684, 0.001);
    assert_near(r.g2, 0.720, 0.001);
    meta(state, &q, 16000, 1230.8, 5);
    assert_near(analytic(&q).g1, 0.932, 0.01);
    assert_near(analytic(&q).g1, 0.932, 0.001);

    /* MTTF at 16,384 GPUs = 1/(2048·6.5e-3) day = 1.80 h; at 131,072: 0.225 h */
    meta(state, &q, 16384, 8000 / 6.5, 60);
    assert_near(analytic(&q).job_mtti_h, 1.80, 0.005);
    meta(state, &q, 131072, 8000 / 6.5, 60);
    assert_near(analytic(&q).job_mtti_h, 0.225, 0.0005);

    /* 1,000 nodes, Δt 30, u0 5, queue 1 min: (1 − Λ·20 min)/(1 + Λ·1 min) with
     * Λ = 8000/1230.8/1440 per min: 0.90972/1.0045138 = 0.906 */
    meta(state, &q, 8000, 1230.8, 30);
    q.queue_s = 1 * MIN;
    assert_near(analytic(&q).g1, 0.906, 0.001);

    /* 12k GPUs, w = 10 s at the Young interval: 7.0 min, ETTR 0.921; w = 5 min: 38.4 min,
     * 0.740; w = 5 min at r_f 1e-3 (MTBI 8,000): 98 min, 0.898. */
    const double mtbi[3] = {1230.8, 1230.8, 8000}, w[3] = {10, 300, 300};
    const double tau[3] = {7.0, 38.4, 98}, ettr[3] = {0.921, 0.740, 0.898};
    for (int i = 0; i < 3; i++) {
        meta(state, &q, 12000, mtbi[i], 60);
        q.ckpt_write_s = w[i];
        double young = analytic(&q).young_interval_s;
        assert_near(young / MIN, tau[i], 0.05 * tau[i] / 7);
        q.ckpt_interval_s = young;
        assert_near(analytic(&q).g1, ettr[i], 0.001);
    }
}

/* ---- TC5: the SemiAnalysis advantages ----------------------------------------------------------- */

/* G3 with one t_loss = t_d 5 + t_r 16.5 + τ/2 15 = 36.5 min = 0.025347 day, δ = 0, no waits
 * (instant swaps), no separate rack drains (Λ = G/MTBI), at 16,384 active GPUs:
 *   g = 1 − 16384/MTBI·0.025347: H100 2,000/3,500/5,000 → 0.7924/0.8813/0.9169,
 *                                 GB200 1,000/2,000/3,000 → 0.5847/0.7924/0.8616.
 * A = 1 − 0.656·(g_H/g_G)·(Π_G/Π_H), Π_G = 72/64, Π_H = 1:
 *   without spare cost 11.1/27.0/30.2 %, with −0.0/17.9/21.5 % (published 11/27/30, 0/18/21). */
static double tc5_goodput(void **state, const char *name, double mtbi, double *pi)
{
    gpuecon_reliability_request q;
    request(state, &q, name, 16384, mtbi, 0);
    q.detect_s = 5 * MIN;
    q.restart_s = 16.5 * MIN;
    q.ckpt_interval_s = 30 * MIN;
    q.ckpt_write_s = 0;
    q.mttr_scale = 0;
    q.spare_domains = 0;
    q.form = GPUECON_FORM_G3;
    gpuecon_reliability_result r = analytic(&q);
    *pi = r.provisioned_multiplier;
    return r.ettr;
}

static void test_tc5_semianalysis(void **state)
{
    const double mh[3] = {2000, 3500, 5000}, mg[3] = {1000, 2000, 3000};
    const double gh[3] = {0.7924, 0.8813, 0.9169}, gg[3] = {0.5847, 0.7924, 0.8616};
    const double without[3] = {0.111, 0.270, 0.302}, with[3] = {-0.000, 0.179, 0.215};
    const double pub_without[3] = {0.11, 0.27, 0.30}, pub_with[3] = {0.00, 0.18, 0.21};
    for (int i = 0; i < 3; i++) {
        double pi_h, pi_g;
        double g_h = tc5_goodput(state, "hgx-h100", mh[i], &pi_h);
        double g_g = tc5_goodput(state, "gb200-nvl72", mg[i], &pi_g);
        assert_near(g_h, gh[i], 0.0001);
        assert_near(g_g, gg[i], 0.0001);
        assert_close(pi_h, 1, 1e-12);
        assert_close(pi_g, 72.0 / 64, 1e-12);
        /* raw $/Mtok: H100 1, GB200 0.656 (DeepSeek Jul-25: 0.307/0.468) */
        double h_with, h_without, g_with, g_without;
        assert_int_equal(gpuecon_effective_usd_per_mtok(1, g_h, 16384 * pi_h, 16384, &h_with,
                                                        &h_without, NULL), GPUECON_OK);
        assert_int_equal(gpuecon_effective_usd_per_mtok(0.656, g_g, 16384 * pi_g, 16384, &g_with,
                                                        &g_without, NULL), GPUECON_OK);
        double a_without = 1 - g_without / h_without, a_with = 1 - g_with / h_with;
        assert_near(a_without, without[i], 0.001);
        assert_near(a_with, with[i], 0.001);
        assert_near(a_without, pub_without[i], 0.02); /* within 2 points of the article */
        assert_near(a_with, pub_with[i], 0.02);
        assert_near(round(a_without * 100), pub_without[i] * 100, 1e-9); /* rounds to it */
        assert_near(round(a_with * 100) + 0.0, pub_with[i] * 100, 1e-9);
    }
}

/* ---- waiting for hardware (MC-B, MC-C analytic columns of §4) -------------------------------------- */

static void mc_c(void **state, gpuecon_reliability_request *q, int spares)
{
    request(state, q, "gb200-nvl72", 16384, 2000, 0.1);
    q->detect_s = 5 * MIN;
    q->restart_s = 10 * MIN;
    q->ckpt_interval_s = 30 * MIN;
    q->ckpt_write_s = 0.5 * MIN;
    q->spare_domains = spares;
}

/* MC-C: 256 racks (64 of 72 active), Λ = 256·(0.9·64 + 0.1·72)/2000 = 8.2944/day,
 * M = 173.61 min; g2(W=0) = 30/[(e^{30.5/M} − 1)(M + 5 + M(e^{10/M} − 1))] = 0.8269.
 * P_b 0.299 / 0.0503 / 0.0059 for S = 0/1/2 → (1 − P_b)·g2 = 0.7853 (S=1), 0.8221 (S=2). */
static void test_mc_c_analytic(void **state)
{
    gpuecon_reliability_request q;
    const int S[4] = {0, 1, 2, 4};
    const double pb[4] = {0.299, 0.0503, 0.0059, 0}, g[4] = {0, 0.7853, 0.8221, 0.8269};
    for (int i = 0; i < 4; i++) {
        mc_c(state, &q, S[i]);
        gpuecon_reliability_result r = analytic(&q);
        assert_int_equal(r.domains, 256);
        assert_close(r.interruptions_per_day, 8.2944, 1e-6);
        assert_near(r.p_block, pb[i], 0.0005);
        if (S[i] > 0)
            assert_near(r.ettr, g[i], 0.0005);
        /* Π = 72/64·(K+S)/K: 1.125 at S = 0, 1.1426 at S = 4 (§3.4) */
        assert_close(r.provisioned_multiplier, 72.0 / 64 * (256 + S[i]) / 256, 1e-12);
        assert_int_equal(r.spare_gpus, 256 * 8 + S[i] * 72);
    }
    /* S = 0: rack drains wait a busy period. Λu = 256·7.2/2000 per day = 0.0384/h,
     * E = 9.25 h: B = (e^{0.3552} − 1)/0.0384 = 11.106 h; per interruption W = (7.2/64.8)·B. */
    mc_c(state, &q, 0);
    gpuecon_reliability_result r = analytic(&q);
    assert_near(r.busy_period_s / HOUR, 11.106, 0.005);
    assert_near(r.wait_per_interruption_s / HOUR, 11.106 * 7.2 / 64.8, 0.001);
}

/* MC-B: HGX, 2,048 nodes, no spares, node MTTR U[1,4] h: W = 3.848 h → G2 0.389 (§4). */
static void test_mc_b_analytic(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0);
    q.detect_s = 5 * MIN;
    q.restart_s = 10 * MIN;
    q.ckpt_interval_s = 30 * MIN;
    q.ckpt_write_s = 0.5 * MIN;
    q.spare_domains = 0;
    gpuecon_reliability_result r = analytic(&q);
    assert_near(r.wait_per_interruption_s / HOUR, 3.848, 0.001);
    assert_near(r.g2, 0.389, 0.001);
    /* the lost-time split adds up */
    const gpuecon_lost_time *l = &r.lost;
    assert_close(r.ettr + l->detect + l->restart + l->recompute + l->ckpt + l->wait, 1, 1e-12);
    assert_true(l->wait > 0.4);
    /* MC-A (32 spare nodes): no wait, G2 0.8362, G1 0.8246 */
    q.spare_domains = 32;
    r = analytic(&q);
    assert_near(r.g2, 0.8362, 0.0001);
    assert_near(r.g1, 0.8246, 0.0001);
    assert_true(r.p_block < 1e-20);
    assert_close(r.ettr + r.lost.detect + r.lost.restart + r.lost.recompute + r.lost.ckpt + r.lost.wait,
                 1, 1e-12);
}

/* Economics: 1,000 tok/s/GPU, 1e12 tokens on 16,384 GPUs = 61,035 s of work; days = work/ETTR. */
static void test_economics(void **state)
{
    gpuecon_reliability_request q;
    mc_c(state, &q, 4);
    q.tokens_per_s_per_gpu = 1000;
    q.tokens = 1e12;
    q.usd_per_mtok = 0.307;
    gpuecon_reliability_result r = analytic(&q);
    assert_close(r.goodput_tokens_per_s, 1000.0 * 16384 * r.ettr, 1e-12);
    assert_close(r.days_to_train, 1e12 / (1000.0 * 16384) / r.ettr / DAY, 1e-12);
    assert_close(r.effective_usd_per_mtok_with_spares, 0.307 * (256 + 4) * 72.0 / 16384 / r.ettr, 1e-12);
    assert_close(r.effective_usd_per_mtok_without_spares, 0.307 / r.ettr, 1e-12);
    assert_close(r.effective_usd_per_mtok, r.effective_usd_per_mtok_with_spares, 0);
    q.spare_cost = GPUECON_SPARES_FREE;
    assert_close(analytic(&q).effective_usd_per_mtok, r.effective_usd_per_mtok_without_spares, 0);
    /* the helper's errors */
    gpuecon_error err;
    double a, b;
    assert_int_equal(gpuecon_effective_usd_per_mtok(1, 0, 10, 10, &a, &b, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_effective_usd_per_mtok(1, 0.9, 9, 10, &a, &b, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_effective_usd_per_mtok(-1, 0.9, 10, 10, &a, &b, &err), GPUECON_E_INPUT);
}

/* Checkpoints: auto is Daly's interval for the blocking part; async adds the write time to
 * the work lost per failure and blocks only for the copy. */
/* A pool sized as a share of the job is a share of a cluster-wide pool: a 2-rack NVL72 job at
 * 2% is provisioned a whole spare rack (availability) but charged 0.04 of one:
 * charged = (2 + 0.02·2)·72 = 146.88 GPUs for 128 active (Π = 1.1475); an explicit pool of
 * 1 rack is charged whole: 3·72 = 216 (Π = 1.6875). */
static void test_pool_share(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "gb200-nvl72", 128, 2000, 0.1);
    q.spare_domains = -1;
    q.spare_domain_pct = 2;
    gpuecon_reliability_result r = analytic(&q);
    assert_int_equal(r.spare_domains, 1);
    assert_int_equal(r.provisioned_gpus, 216);
    assert_close(r.charged_gpus, 146.88, 1e-12);
    assert_close(r.charged_multiplier, 146.88 / 128, 1e-12);
    q.spare_domains = 1;
    r = analytic(&q);
    assert_close(r.charged_gpus, 216, 1e-12);
    assert_close(r.charged_multiplier, 216.0 / 128, 1e-12);
}

static void test_checkpoint_policy(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 2111.5, 0);
    q.ckpt_interval_s = 0;
    q.ckpt_write_s = 60;
    gpuecon_reliability_result r = analytic(&q);
    assert_true(r.ckpt_interval_auto);
    assert_close(r.ckpt_interval_s, gpuecon_daly_interval_s(60, r.job_mtti_h * HOUR), 1e-12);
    assert_near(r.ckpt_interval_s / MIN, 18.6, 0.05); /* §3.3, δ = 1 min */
    q.async_ckpt = true;
    q.ckpt_block_s = 5;
    gpuecon_reliability_result a = analytic(&q);
    assert_close(a.ckpt_blocking_s, 5, 0);
    assert_close(a.ckpt_commit_lag_s, 60, 0);
    assert_true(a.ckpt_interval_s >= 60);
    assert_true(a.lost.ckpt < r.lost.ckpt);
    /* auto with a 5 s blocking copy and a 600 s write: the interval is the write time */
    q.ckpt_write_s = 600;
    assert_close(analytic(&q).ckpt_interval_s, 600, 0);
}

/* Per-class detection and restart. M = 3,600 s (16,384 GPUs, MTBI 682.67 GPU-days), half the
 * interruptions are GPU faults (tier times: t_d 300 s, t_r 600 s), half software hangs found
 * 600 s later and restarting 1,200 s longer. A fault during a restart restarts it with its own
 * class: b_A = 1 − e^{−600/3600} = 0.153518, b_B = 1 − e^{−1800/3600} = 0.393469,
 * T = 0.5·3600·(b_A + b_B)/(1 − 0.5·(b_A + b_B)) = 1355.22 s; mean detection 600 s;
 * τ 1,800, δ 30: n_f = e^{1830/3600} − 1 = 0.662518, g2 = 1800/(n_f·(3600 + 600 + 1355.22))
 * = 0.48907. G1 = (1 − (600 + 600 + 600 + 900)/3600)/(1 + 30/1800) = 0.24590. */
static void test_class_times(void **state)
{
    gpuecon_reliability_request q;
    request(state, &q, "hgx-h100", 16384, 16384.0 * 3600 / 86400, 0);
    q.fclass[GPUECON_FCLASS_GPU].share = 0.5;
    q.fclass[GPUECON_FCLASS_SOFTWARE] =
        (gpuecon_fclass_params){0.5, GPUECON_BLAST_JOB, 0, 0, 600, 1200};
    q.detect_s = 300;
    q.restart_s = 600;
    q.ckpt_interval_s = 1800;
    q.ckpt_write_s = 30;
    q.spare_domains = 64;
    gpuecon_reliability_result r = analytic(&q);
    assert_close(r.job_mtti_h, 1, 1e-12);
    assert_close(r.g2, 0.48907, 1e-4);
    assert_close(r.g1, 0.24590, 1e-4);
    assert_close(r.ettr + r.lost.detect + r.lost.restart + r.lost.recompute + r.lost.ckpt + r.lost.wait,
                 1, 1e-12);
    /* one class: the mixed form reduces to M(e^{R/M} − 1) */
    q.fclass[GPUECON_FCLASS_SOFTWARE].detect_extra_s = 0;
    q.fclass[GPUECON_FCLASS_SOFTWARE].restart_extra_s = 0;
    double nf = expm1(1830.0 / 3600), Df = 300 + 3600 * expm1(600.0 / 3600);
    assert_close(analytic(&q).g2, 1800 / (nf * (3600 + Df)), 1e-12);
    /* bad extras name the class */
    gpuecon_error err;
    q.fclass[GPUECON_FCLASS_HOST].restart_extra_s = -1;
    assert_int_equal(gpuecon_reliability_analytic(&q, &r, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "host extra detection/restart (s)");
}

/* ---- bad input ------------------------------------------------------------------------------------ */

static void expect_bad(const gpuecon_reliability_request *q, const char *where)
{
    gpuecon_reliability_result r;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_reliability_analytic(q, &r, &err), GPUECON_E_INPUT);
    if (strcmp(err.where, where) != 0)
        fail_msg("error names '%s' (%s), expected '%s'", err.where, err.message, where);
    assert_true(strlen(err.message) > 10);
}

static void test_bad_input(void **state)
{
    gpuecon_reliability_request q, b;
    request(state, &q, "gb200-nvl72", 16384, 2000, 0.1);
    analytic(&q);
    b = q, b.mtbi_gpu_days = 0, expect_bad(&b, "options.mtbi_gpu_days");
    b = q, b.mtbi_gpu_days = -5, expect_bad(&b, "options.mtbi_gpu_days");
    b = q, b.active_gpus = 0, expect_bad(&b, "options.active_gpus");
    b = q, b.active_gpus = 20000000, expect_bad(&b, "options.active_gpus");
    b = q, b.ckpt_write_s = 120, b.ckpt_interval_s = 60, expect_bad(&b, "options.ckpt_interval_s");
    b = q, b.ckpt_write_s = 0, b.ckpt_interval_s = 0, expect_bad(&b, "options.ckpt_interval_s");
    b = q, b.spares_per_domain = 72, expect_bad(&b, "options.spares_per_domain");
    b = q, b.spares_per_domain = 6, expect_bad(&b, "options.spares_per_domain"); /* not whole trays */
    b = q, b.spares_per_domain = -4, expect_bad(&b, "options.spares_per_domain");
    b = q, b.spare_domains = 257, expect_bad(&b, "options.spare_domains");
    b = q, b.detect_s = -1, expect_bad(&b, "options.detect_s");
    b = q, b.restart_s = NAN, expect_bad(&b, "options.restart_s");
    b = q, b.duration_s = 0, expect_bad(&b, "options.days");
    b = q, b.weibull_shape = 0, expect_bad(&b, "options.weibull_shape");
    b = q, b.mttr_scale = -1, expect_bad(&b, "options.mttr_scale");
    b = q, b.async_ckpt = true, b.ckpt_block_s = 100, b.ckpt_write_s = 60, expect_bad(&b, "options.ckpt_block_s");
    b = q, b.fclass[0].share = 0.5, expect_bad(&b, "failure shares");
    b = q, b.fclass[0].mttr_max_h = 0.5, expect_bad(&b, "gpu repair time (h)");
    b = q, b.tokens = -1, expect_bad(&b, "options.tokens");
    b = q, b.system = NULL, expect_bad(&b, "options.system");
    /* HGX has no in-domain spares: the 8-GPU server is the domain */
    request(state, &q, "hgx-h100", 16384, 2000, 0);
    b = q, b.spares_per_domain = 8, expect_bad(&b, "options.spares_per_domain");
    /* rounding up to whole domains: 1,000 GPUs on NVL72 take 16 racks of 64 active slots; the job
     * stays the 1,000 GPUs written (it once became 1,024 active GPUs, and its days came from 1,024
     * GPUs' throughput), the 24 idle slots count as spares beside the in-rack ones:
     * spares = provisioned - 1000, work = tokens / (tok/s/GPU x 1000) */
    request(state, &q, "gb200-nvl72", 1000, 2000, 0.1);
    gpuecon_reliability_result r = analytic(&q);
    assert_int_equal(r.active_gpus, 1000);
    assert_int_equal(r.requested_gpus, 1000);
    assert_int_equal(r.domains, 16);
    assert_int_equal(r.spare_gpus, r.provisioned_gpus - 1000);
    {
        /* 72 GPUs on NVL72 (64 active slots per rack): 2 racks, the job 72 GPUs. At 2,462 tok/s/GPU
         * 1e12 tokens take 1e12 / (72 x 2462) / 86400 = 65.29 days before failures; the ETTR can only
         * add to that (it once gave 37 days: 128 GPUs' worth of throughput) */
        gpuecon_reliability_request q72 = q;
        request(state, &q72, "gb200-nvl72", 72, 2000, 0.1);
        q72.tokens = 1e12, q72.tokens_per_s_per_gpu = 2462;
        gpuecon_reliability_result r72 = analytic(&q72);
        assert_int_equal(r72.active_gpus, 72);
        assert_int_equal(r72.domains, 2);
        assert_true(r72.days_to_train >= 65.29);
        assert_near(r72.days_to_train * r72.ettr, 1e12 / (72.0 * 2462) / 86400, 1e-6);
    }
    gpuecon_reliability_mc mc;
    gpuecon_error err;
    q.trials = 0;
    assert_int_equal(gpuecon_reliability_simulate(((fixture *)*state)->ctx, &q, &mc, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.trials");
}

/* ---- the catalog ----------------------------------------------------------------------------------- */

/* Every system has best/typical/poor; shares sum to 1; MTBI best ≥ typical ≥ poor; every MTBI and
 * share carries a source that is not the schema default. */
static void test_catalog_tiers(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    size_t n = gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM);
    assert_true(n >= 8);
    for (size_t i = 0; i < n; i++) {
        const gpuecon_system *s = gpuecon_catalog_at(cat, GPUECON_KIND_SYSTEM, i);
        double mtbi[3];
        const char *tiers[3] = {"best", "typical", "poor"};
        for (int t = 0; t < 3; t++) {
            char name[128];
            snprintf(name, sizeof name, "%s/%s", s->name, tiers[t]);
            const gpuecon_reliability *r = gpuecon_catalog_reliability(cat, name);
            if (!r)
                fail_msg("no reliability entry %s", name);
            mtbi[t] = r->mtbi_gpu_days;
            double sum = 0;
            for (int k = 0; k < GPUECON_FCLASS_COUNT; k++)
                sum += r->fclass[k].share;
            assert_near(sum, 1, 1e-4);
            gpuecon_field f;
            const char *fields[] = {"mtbi_gpu_days", "gpu_share", "detect_s", "restart_s",
                                    "spares_per_domain", "backplane_share", "software_detect_extra_s",
                                    "backplane_restart_extra_s", "network_mttr_max_h"};
            for (size_t j = 0; j < 9; j++) {
                assert_int_equal(gpuecon_catalog_field(cat, GPUECON_KIND_RELIABILITY, name, fields[j], &f),
                                 GPUECON_OK);
                if (!f.present || !f.source.text || strstr(f.source.text, "default"))
                    fail_msg("%s: %s has no source of its own", name, fields[j]);
            }
            gpuecon_reliability_request q;
            assert_int_equal(gpuecon_reliability_request_init(&q, s, r, 4096, NULL), GPUECON_OK);
            analytic(&q);
        }
        assert_true(mtbi[0] >= mtbi[1] && mtbi[1] >= mtbi[2]);
    }
    /* NVL72 keeps 8 in-rack spares and drains the rack on 10% of interruptions */
    const gpuecon_reliability *g = gpuecon_catalog_reliability(cat, "gb300-nvl72/best");
    assert_int_equal(g->spares_per_domain, 8);
    assert_near(g->fclass[GPUECON_FCLASS_SWITCH].share + g->fclass[GPUECON_FCLASS_BACKPLANE].share, 0.1, 1e-9);
    assert_near(g->mtbi_gpu_days, 3000, 0);
    assert_near(g->detect_s, 300, 0); /* from gb200-nvl72/best */
    gpuecon_field f;
    gpuecon_catalog_field(cat, GPUECON_KIND_RELIABILITY, "gb300-nvl72/best", "mtbi_gpu_days", &f);
    assert_int_equal(f.source.stage, GPUECON_STAGE_PROJECTION);
    gpuecon_catalog_field(cat, GPUECON_KIND_RELIABILITY, "gb300-nvl72/best", "backplane_mttr_max_h", &f);
    assert_int_equal(f.source.stage, GPUECON_STAGE_PUBLISHER_REPORTED);
    assert_near(f.number, 24, 0);
}

static int load(void **state, const char *yaml, gpuecon_error *err)
{
    return gpuecon_catalog_load_buffer(CAT(state), GPUECON_KIND_RELIABILITY, "rel.yaml", yaml,
                                       strlen(yaml), err);
}

static void test_catalog_like(void **state)
{
    gpuecon_error err;
    /* like: a built-in entry; only the MTBI changes */
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - name: hgx-h100/mine\n"
                          "    like: hgx-h100/best\n"
                          "    system: hgx-h100\n"
                          "    tier: best\n"
                          "    mtbi_gpu_days: 4200\n"
                          "  - name: hgx-h100/mine2\n"
                          "    like: hgx-h100/mine\n"
                          "    system: hgx-h100\n"
                          "    tier: best\n"
                          "    mtbi_gpu_days: 4300\n"
                          "    detect_s: 123\n",
                          &err),
                     GPUECON_OK);
    const gpuecon_reliability *r = gpuecon_catalog_reliability(CAT(state), "hgx-h100/mine2");
    assert_non_null(r);
    assert_near(r->detect_s, 123, 0);
    assert_near(r->restart_s, 600, 0); /* hgx-h100/best */
    assert_true(r->async_ckpt);
    gpuecon_field f;
    gpuecon_catalog_field(CAT(state), GPUECON_KIND_RELIABILITY, "hgx-h100/mine2", "gpu_share", &f);
    assert_non_null(strstr(f.source.text, "Llama 3 Table 5"));
    /* errors point into the file */
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - name: x/typical\n"
                          "    like: nowhere/typical\n"
                          "    system: hgx-h100\n"
                          "    tier: typical\n"
                          "    mtbi_gpu_days: 1000\n",
                          &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "nowhere/typical"));
    /* an entry's name is never inherited: like: without name: is refused at the entry (it crashed the
       commit before, the entry's name read as NULL while like: had copied the built-in's; fuzz_catalog,
       tests/fuzz/corpus/crash-reliability-like-without-name.bin), from the catalog or from earlier in
       the file */
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - like: hgx-h100/poor\n"
                          "    system: hgx-h100\n"
                          "    tier: poor\n",
                          &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "missing required field 'name'"));
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - {name: y/poor, like: hgx-h100/poor, system: hgx-h100, tier: poor}\n"
                          "  - {like: y/poor, mtbi_gpu_days: 900}\n",
                          &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "missing required field 'name'"));
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - name: x/typical\n"
                          "    system: gb200-nvl72\n"
                          "    tier: typical\n"
                          "    mtbi_gpu_days: 1000\n"
                          "    spares_per_domain: 6\n",
                          &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 6);
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - name: x/typical\n"
                          "    system: hgx-h100\n"
                          "    tier: typical\n"
                          "    mtbi_gpu_days: 1000\n"
                          "    gpu_share: 0.9\n",
                          &err),
                     GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "sum"));
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - name: x/typical\n"
                          "    system: hgx-h100\n"
                          "    tier: typical\n"
                          "    mtbi_gpu_days: 1000\n"
                          "    gpu_blast: rack\n",
                          &err),
                     GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "allowed: node, domain, job"));
    /* a chain deeper than four links is refused */
    assert_int_equal(load(state,
                          "reliability:\n"
                          "  - {name: a/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n"
                          "  - {name: b/typical, like: a/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n"
                          "  - {name: c/typical, like: b/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n"
                          "  - {name: d/typical, like: c/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n"
                          "  - {name: e/typical, like: d/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n"
                          "  - {name: f/typical, like: e/typical, system: hgx-h100, tier: typical, mtbi_gpu_days: 1}\n",
                          &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 7);
    assert_null(gpuecon_catalog_reliability(CAT(state), "a/typical")); /* all or nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_poisson_tail),
        cmocka_unit_test(test_busy_period),
        cmocka_unit_test(test_tc3_llama3),
        cmocka_unit_test(test_tc4_meta),
        cmocka_unit_test(test_tc5_semianalysis),
        cmocka_unit_test(test_mc_c_analytic),
        cmocka_unit_test(test_mc_b_analytic),
        cmocka_unit_test(test_economics),
        cmocka_unit_test(test_checkpoint_policy),
        cmocka_unit_test(test_pool_share),
        cmocka_unit_test(test_class_times),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_catalog_tiers),
        cmocka_unit_test(test_catalog_like),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
