/*
 * reliability.c — closed-form goodput of a long synchronous training job under failures,
 * checkpoints and spares (docs/model.md §5).
 *
 *   Λ   = G·Σ_{node,job} λ_c + K·D·Σ_{domain} λ_c      interruptions of the running job
 *   G1  = (1 − Λ·(t_d + t_r + W + τ/2 + lag)) / (1 + δ/τ) / (1 + Λ·q)          Kokolis et al.
 *   G2  = τ / [(e^{(τ+δ+w)/M} − e^{w/M})·(M + D_f)],  D_f = t_d + q + M(e^{t_r/M} − 1) + W
 *         (per-class detection and restart extras enter as their means over the classes)
 *         (Daly 2006 for a blocking write, w = 0; w = commit lag of an asynchronous write)
 *   G3  = 1 − Λ·(t_d + q + t_r + W + τ/2 + lag) − δ/τ                         SemiAnalysis
 * Waiting for hardware: with a spare pool (S ≥ 1) the job is blocked with probability
 * P_b = P[Poisson(ρ) > S] and g = (1 − P_b)·g(W = 0); without one, each fault that disables
 * a job domain makes it wait an M/G/∞ busy period, W = (Λu/Λ)·(e^{Λu·E} − 1)/Λu.
 *
 * Key choice: one checked, derived model (reliability_prepare) feeds both these formulas and
 * the Monte Carlo, so the two can only differ where the formulas approximate.
 */
#include "model/model.h"
#include "reliability.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

/* A time that does not end (a repair queue that never drains, a restart that never completes):
 * 1e18 s, 3e10 years, so that results stay finite (docs/model.md §5). */
#define REL_UNBOUNDED_S 1e18

#define DAY_S 86400.0

const char *gpuecon_fclass_name(gpuecon_fclass c)
{
    static const char *const names[GPUECON_FCLASS_COUNT] = {"gpu", "host", "network",
                                                            "software", "switch", "backplane"};
    return (unsigned)c < GPUECON_FCLASS_COUNT ? names[c] : "unknown";
}

const char *gpuecon_blast_name(gpuecon_blast b)
{
    switch (b) {
    case GPUECON_BLAST_NODE: return "node";
    case GPUECON_BLAST_DOMAIN: return "domain";
    case GPUECON_BLAST_JOB: return "job";
    }
    return "unknown";
}

/* ---- small formulas ------------------------------------------------------------------- */

double gpuecon_young_interval_s(double write_s, double mtti_s)
{
    return write_s > 0 && mtti_s > 0 ? sqrt(2 * write_s * mtti_s) : 0;
}

double gpuecon_daly_interval_s(double write_s, double mtti_s)
{
    if (!(write_s > 0) || !(mtti_s > 0))
        return 0;
    if (write_s >= 2 * mtti_s)
        return mtti_s;
    double x = write_s / (2 * mtti_s);
    return sqrt(2 * write_s * mtti_s) * (1 + sqrt(x) / 3 + x / 9) - write_s;
}

/* Sums Poisson terms away from the mode, starting at term k, until they stop mattering. */
double gpuecon_poisson_tail(double rho, int s)
{
    if (s < 0)
        return 1;
    if (!(rho > 0))
        return 0;
    if (s < rho) { /* 1 − P[X ≤ s]: sum the CDF downward from s */
        double term = exp(-rho + s * log(rho) - lgamma(s + 1.0)), cdf = 0;
        for (int k = s; k >= 0 && term > 1e-300; k--) {
            cdf += term;
            if (term < 1e-17 * cdf)
                break;
            term *= k / rho;
        }
        return cdf >= 1 ? 0 : 1 - cdf;
    }
    double term = exp(-rho + (s + 1) * log(rho) - lgamma(s + 2.0)), tail = 0;
    for (int k = s + 1; term > 0; k++) {
        tail += term;
        if (term < 1e-17 * tail)
            break;
        term *= rho / (k + 1);
    }
    return tail > 1 ? 1 : tail;
}

double gpuecon_busy_period_s(double rate_per_s, double mean_s)
{
    if (!(mean_s > 0))
        return 0;
    if (!(rate_per_s > 0))
        return mean_s;
    return fmin(expm1(rate_per_s * mean_s) / rate_per_s, REL_UNBOUNDED_S);
}

int gpuecon_effective_usd_per_mtok(double raw_usd_per_mtok, double ettr, double provisioned_gpus,
                                   double active_gpus, double *with_spares, double *without_spares,
                                   gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, "raw $/Mtok", raw_usd_per_mtok, 0, 1e9)) ||
        (rc = err_check_range(err, "ETTR", ettr, 1e-9, 1)) ||
        (rc = err_check_range(err, "active GPUs", active_gpus, 1, 1e9)) ||
        (rc = err_check_range(err, "provisioned GPUs", provisioned_gpus, active_gpus, 1e10)))
        return rc;
    if (with_spares)
        *with_spares = raw_usd_per_mtok * (provisioned_gpus / active_gpus) / ettr;
    if (without_spares)
        *without_spares = raw_usd_per_mtok / ettr;
    return GPUECON_OK;
}

/* ---- request ---------------------------------------------------------------------------- */

int gpuecon_reliability_request_init(gpuecon_reliability_request *req, const gpuecon_system *sys,
                                     const gpuecon_reliability *tier, int active_gpus,
                                     gpuecon_error *err)
{
    if (!req)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no request");
    memset(req, 0, sizeof *req);
    if (!sys)
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0, "no system given");
    if (!tier)
        return err_set(err, GPUECON_E_INPUT, OPTION("tier"), 0, 0, "no reliability tier given");
    req->system = sys;
    req->active_gpus = active_gpus;
    req->mtbi_gpu_days = tier->mtbi_gpu_days;
    memcpy(req->fclass, tier->fclass, sizeof req->fclass);
    req->detect_s = tier->detect_s;
    req->restart_s = tier->restart_s;
    req->queue_s = tier->queue_s;
    req->ckpt_interval_s = tier->ckpt_interval_s;
    req->ckpt_write_s = tier->ckpt_write_s;
    req->async_ckpt = tier->async_ckpt;
    req->ckpt_block_s = tier->ckpt_block_s;
    req->spares_per_domain = tier->spares_per_domain;
    req->spare_domains = -1;
    req->spare_domain_pct = tier->spare_domain_pct;
    req->mttr_scale = 1;
    req->duration_s = 30 * DAY_S;
    req->weibull_shape = 1;
    req->form = GPUECON_FORM_G2;
    req->spare_cost = GPUECON_SPARES_CHARGED;
    req->trials = 1000;
    return GPUECON_OK;
}

/* ---- checking and deriving ------------------------------------------------------------------ */

static int prepare_topology(const gpuecon_reliability_request *q, rel_model *m, gpuecon_error *err)
{
    const gpuecon_system *sys = q->system;
    int rc;
    if (!sys)
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0, "no system given");
    if ((rc = err_check_range(err, OPTION("active_gpus"), q->active_gpus, 1, 1e7)))
        return rc;
    m->D = sys->scaleup_gpus;
    m->s = sys->gpus_per_node;
    if (m->s < 1 || m->D < m->s || m->D % m->s)
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0,
                       "%s: scaleup_gpus (%d) is not a multiple of gpus_per_node (%d)", sys->name,
                       m->D, m->s);
    m->nsub = m->D / m->s;
    int k = q->spares_per_domain;
    if (k < 0 || k > m->D - m->s || k % m->s)
        return err_set(err, GPUECON_E_INPUT, OPTION("spares_per_domain"), 0, 0,
                       "%d is not allowed for %s; allowed 0 to %d in steps of %d (whole "
                       "%d-GPU nodes, fewer than the %d GPUs of a domain)",
                       k, sys->name, m->D - m->s, m->s, m->s, m->D);
    m->kspare = k / m->s;
    m->a = m->nsub - m->kspare;
    int A = m->a * m->s;
    m->K = (q->active_gpus + A - 1) / A;
    m->G = m->K * A;
    m->N = q->active_gpus;
    if (q->spare_domains < 0) {
        if ((rc = err_check_range(err, "spare_domain_pct", q->spare_domain_pct, 0, 100)))
            return rc;
        m->S = (int)ceil(q->spare_domain_pct / 100 * m->K - 1e-9);
    } else {
        if (q->spare_domains > m->K)
            return err_set(err, GPUECON_E_INPUT, OPTION("spare_domains"), 0, 0,
                           "%d spare domains for a job of %d domains; allowed 0 to %d",
                           q->spare_domains, m->K, m->K);
        m->S = q->spare_domains;
    }
    m->ndom = m->K + m->S;
    return GPUECON_OK;
}

static int prepare_failures(const gpuecon_reliability_request *q, rel_model *m, gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, OPTION("mtbi_gpu_days"), q->mtbi_gpu_days, 1e-3, 1e7)) ||
        (rc = err_check_range(err, OPTION("mttr_scale"), q->mttr_scale, 0, 100)) ||
        (rc = err_check_range(err, OPTION("weibull_shape"), q->weibull_shape, 0.1, 10)))
        return rc;
    double sum = 0;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++) {
        const gpuecon_fclass_params *p = &q->fclass[c];
        char what[48];
        snprintf(what, sizeof what, "%s failure share", gpuecon_fclass_name((gpuecon_fclass)c));
        if ((rc = err_check_range(err, what, p->share, 0, 1)))
            return rc;
        snprintf(what, sizeof what, "%s repair time (h)", gpuecon_fclass_name((gpuecon_fclass)c));
        if ((rc = err_check_range(err, what, p->mttr_min_h, 0, 8760)) ||
            (rc = err_check_range(err, what, p->mttr_max_h, p->mttr_min_h, 8760)))
            return rc;
        snprintf(what, sizeof what, "%s extra detection/restart (s)",
                 gpuecon_fclass_name((gpuecon_fclass)c));
        if ((rc = err_check_range(err, what, p->detect_extra_s, 0, 1e6)) ||
            (rc = err_check_range(err, what, p->restart_extra_s, 0, 1e6)))
            return rc;
        if (p->blast < GPUECON_BLAST_NODE || p->blast > GPUECON_BLAST_JOB)
            return err_set(err, GPUECON_E_INPUT, "blast", 0, 0, "%d is not a blast radius", p->blast);
        sum += p->share;
    }
    if (fabs(sum - 1) > 0.01)
        return err_set(err, GPUECON_E_INPUT, "failure shares", 0, 0,
                       "the class shares sum to %s; they must sum to 1", NUM_VAL(sum));
    double lam = 1 / (q->mtbi_gpu_days * DAY_S);
    double ru = 0, rd = 0, eu = 0, ed = 0;
    m->lam_job = 0;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++) {
        m->share[c] = q->fclass[c].share / sum;
        m->blast[c] = q->fclass[c].blast;
        m->lam_gpu[c] = m->share[c] * lam;
        m->mttr_lo[c] = q->fclass[c].mttr_min_h * 3600 * q->mttr_scale;
        m->mttr_hi[c] = q->fclass[c].mttr_max_h * 3600 * q->mttr_scale;
        m->det_extra[c] = q->fclass[c].detect_extra_s;
        m->rst_extra[c] = q->fclass[c].restart_extra_s;
        double mean = (m->mttr_lo[c] + m->mttr_hi[c]) / 2;
        if (m->blast[c] == GPUECON_BLAST_NODE) {
            ru += m->s * m->lam_gpu[c];
            eu += m->s * m->lam_gpu[c] * mean;
        } else if (m->blast[c] == GPUECON_BLAST_DOMAIN) {
            rd += m->D * m->lam_gpu[c];
            ed += m->D * m->lam_gpu[c] * mean;
        } else {
            m->lam_job += m->G * m->lam_gpu[c];
        }
    }
    m->lam_unit = ru;
    m->lam_dom = rd;
    m->mttr_unit = ru > 0 ? eu / ru : 0;
    m->mttr_dom = rd > 0 ? ed / rd : 0;
    m->Lambda = (double)m->K * m->a * ru + (double)m->K * rd + m->lam_job;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++)
        m->p_int[c] = m->lam_gpu[c] * (m->blast[c] == GPUECON_BLAST_DOMAIN ? (double)m->K * m->D : m->G) /
                      m->Lambda;
    m->weibull_shape = q->weibull_shape;
    return GPUECON_OK;
}

static int prepare_job(const gpuecon_reliability_request *q, rel_model *m, gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, OPTION("detect_s"), q->detect_s, 0, 1e6)) ||
        (rc = err_check_range(err, OPTION("restart_s"), q->restart_s, 0, 1e6)) ||
        (rc = err_check_range(err, OPTION("queue_s"), q->queue_s, 0, 1e6)) ||
        (rc = err_check_range(err, OPTION("ckpt_write_s"), q->ckpt_write_s, 0, 1e6)) ||
        (rc = err_check_range(err, OPTION("days"), q->duration_s / DAY_S, 0.01, 3650)) ||
        (rc = err_check_range(err, OPTION("tokens_per_s"), q->tokens_per_s_per_gpu, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("tokens"), q->tokens, 0, 1e18)) ||
        (rc = err_check_range(err, "raw $/Mtok", q->usd_per_mtok, 0, 1e9)))
        return rc;
    if (q->async_ckpt && (rc = err_check_range(err, OPTION("ckpt_block_s"), q->ckpt_block_s, 0, q->ckpt_write_s)))
        return rc;
    if ((unsigned)q->form > GPUECON_FORM_G3 || (unsigned)q->spare_cost > GPUECON_SPARES_FREE)
        return err_set(err, GPUECON_E_INPUT, OPTION("formula"), 0, 0, "unknown goodput form or spare cost");
    m->t_detect_only = q->detect_s;
    m->t_queue = q->queue_s;
    m->t_detect = q->detect_s + q->queue_s;
    m->t_restart = q->restart_s;
    m->delta = q->async_ckpt ? q->ckpt_block_s : q->ckpt_write_s;
    m->lag = q->async_ckpt ? q->ckpt_write_s : 0;
    m->tau_auto = q->ckpt_interval_s == 0;
    if (m->tau_auto) {
        if (!(q->ckpt_write_s > 0))
            return err_set(err, GPUECON_E_INPUT, OPTION("ckpt_interval_s"), 0, 0,
                           "auto needs a checkpoint write time above 0 (" OPTION("ckpt_write_s") "), or give "
                           "an interval");
        double tau = gpuecon_daly_interval_s(m->delta, 1 / m->Lambda);
        m->tau = tau > q->ckpt_write_s ? tau : q->ckpt_write_s;
    } else {
        if (q->ckpt_interval_s < q->ckpt_write_s || q->ckpt_interval_s <= 0 ||
            q->ckpt_interval_s > 1e7)
            return err_set(err, GPUECON_E_INPUT, OPTION("ckpt_interval_s"), 0, 0,
                           "%s s is not allowed; allowed %s to 10M s (at least the checkpoint "
                           "write time, and above 0) or auto",
                           NUM_BOUND(q->ckpt_interval_s), NUM_BOUND(q->ckpt_write_s > 0 ? q->ckpt_write_s : 1));
        m->tau = q->ckpt_interval_s;
    }
    m->horizon = q->duration_s;
    m->work = q->tokens > 0 && q->tokens_per_s_per_gpu > 0
                  ? q->tokens / (q->tokens_per_s_per_gpu * m->N)
                  : 0;
    if (m->work > 3650 * DAY_S * 10)
        return err_set(err, GPUECON_E_INPUT, OPTION("tokens"), 0, 0,
                       "%s tokens take %.0f failure-free days on %d GPUs; allowed up to 36,500", NUM_COUNT(q->tokens),
                       m->work / DAY_S, m->N);
    return GPUECON_OK;
}

int reliability_prepare(const gpuecon_reliability_request *req, rel_model *m, gpuecon_error *err)
{
    memset(m, 0, sizeof *m);
    if (!req)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no request");
    int rc;
    if ((rc = prepare_topology(req, m, err)) || (rc = prepare_failures(req, m, err)) ||
        (rc = prepare_job(req, m, err)))
        return rc;
    return GPUECON_OK;
}

/* ---- the goodput forms ------------------------------------------------------------------------ */

/* Mean detection and restart over the classes of the interrupting fault. A fault during a
 * restart starts the restart of its own class: with R_c = t_r + extra_c, b_c = 1 − e^{−R_c/M},
 * the expected restart time is T = Σ p_c·M·b_c / (1 − Σ p_c·b_c) (= M(e^{R/M} − 1) for one
 * class). First order (G1, G3): the plain means. */
static void class_means(const rel_model *m, double M, double *detect, double *restart,
                        double *restart1)
{
    double num = 0, pb = 0;
    *detect = m->t_detect_only;
    *restart1 = m->t_restart;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++) {
        double b = M > 0 ? -expm1(-(m->t_restart + m->rst_extra[c]) / M) : 0;
        num += m->p_int[c] * M * b;
        pb += m->p_int[c] * b;
        *detect += m->p_int[c] * m->det_extra[c];
        *restart1 += m->p_int[c] * m->rst_extra[c];
    }
    /* pb → 1: a restart almost never completes; capped so that no infinity reaches a result */
    *restart = pb < 1 ? fmin(num / (1 - pb), REL_UNBOUNDED_S) : REL_UNBOUNDED_S;
}

/* G2 and its lost-time split per committed checkpoint. Synchronous: n_f = e^{(τ+δ)/M} − 1
 * failures per segment, each costing D_f plus the attempt it destroyed (on average
 * M − (τ+δ)/n_f). Asynchronous with commit lag w ≤ τ: after a commit the job is already w
 * into the next segment, so the first attempt needs τ+δ without failure and every attempt
 * after a failure τ+δ+w; then n_f = e^{(τ+δ+w)/M} − e^{w/M} and the time per commit is
 * n_f·(M + D_f), which is Daly's form when w = 0. */
static double form_g2(const rel_model *m, double W, gpuecon_lost_time *lost)
{
    double M = 1 / m->Lambda, detect, restart, r1;
    class_means(m, M, &detect, &restart, &r1);
    double nf = expm1((m->tau + m->delta + m->lag) / M) - expm1(m->lag / M);
    double Df = detect + m->t_queue + restart + W;
    double seg = nf * (M + Df), per = M + Df;
    /* the per-failure shares with nf cancelled, so that nf = ∞ (e^{(τ+δ)/M} past the range of
       a double: the segment never completes) gives the limits, not ∞/∞ */
    lost->detect = (detect + m->t_queue) / per;
    lost->restart = restart / per;
    lost->wait = W / per;
    lost->ckpt = m->delta / seg;
    lost->recompute = M / per - (m->tau + m->delta) / seg;
    return m->tau / seg;
}

/* G1 (Kokolis et al.): a·b·(1 − Λ·U) with a = 1/(1 + Λq), b = 1/(1 + δ/τ). */
static double form_g1(const rel_model *m, double W, gpuecon_lost_time *lost)
{
    double L = m->Lambda, a = 1 / (1 + L * m->t_queue), b = 1 / (1 + m->delta / m->tau);
    double detect, restart, r1;
    class_means(m, 0, &detect, &restart, &r1);
    double terms[4] = {detect, r1, m->tau / 2 + m->lag, W};
    double U = terms[0] + terms[1] + terms[2] + terms[3];
    double scale = L * U > 1 ? 1 / (L * U) : 1; /* past Λ·U = 1 the form says 0 */
    double f = a * b * L * scale;
    lost->detect = (1 - a) + f * terms[0];
    lost->restart = f * terms[1];
    lost->recompute = f * terms[2];
    lost->wait = f * terms[3];
    lost->ckpt = a * (1 - b);
    return a * b * (1 - L * U * scale);
}

/* G3 (SemiAnalysis-style): 1 − Λ·t_loss − δ/τ. */
static double form_g3(const rel_model *m, double W, gpuecon_lost_time *lost)
{
    double L = m->Lambda, detect, restart, r1;
    class_means(m, 0, &detect, &restart, &r1);
    double terms[5] = {detect + m->t_queue, r1, m->tau / 2 + m->lag, W, 0};
    terms[4] = m->delta / m->tau / L; /* so that L·terms[4] = δ/τ */
    double total = L * (terms[0] + terms[1] + terms[2] + terms[3] + terms[4]);
    double scale = total > 1 ? 1 / total : 1;
    lost->detect = L * terms[0] * scale;
    lost->restart = L * terms[1] * scale;
    lost->recompute = L * terms[2] * scale;
    lost->wait = L * terms[3] * scale;
    lost->ckpt = L * terms[4] * scale;
    return 1 - total * scale;
}

/* Waiting for hardware (docs/model.md §5.5). */
static void waiting(const rel_model *m, gpuecon_reliability_result *r)
{
    double rho_u = m->lam_unit * m->mttr_unit, rho_d = m->lam_dom * m->mttr_dom;
    /* mean disabled-domain equivalents per domain: drains, plus (no in-domain spares) every
     * unit in repair, or (with k spares) the chance that more than k units are down */
    double per_dom = rho_d + (m->kspare == 0 ? m->nsub * rho_u
                                             : gpuecon_poisson_tail(m->nsub * rho_u, m->kspare));
    r->rho = m->ndom * per_dom;
    r->p_block = gpuecon_poisson_tail(r->rho, m->S);
    /* faults that disable a job domain: drains, and active-unit faults finding no spare */
    double unit_dis = m->kspare == 0 ? 1 : gpuecon_poisson_tail((m->nsub - 1) * rho_u, m->kspare - 1);
    double rate_d = (double)m->K * m->lam_dom, rate_u = (double)m->K * m->a * m->lam_unit * unit_dis;
    double Lu = rate_d + rate_u;
    double E = Lu > 0 ? (rate_d * m->mttr_dom + rate_u * m->mttr_unit) / Lu : 0;
    r->disabling_per_day = Lu * DAY_S;
    r->busy_period_s = gpuecon_busy_period_s(Lu, E);
    r->wait_per_interruption_s = m->S == 0 && Lu > 0 ? Lu / m->Lambda * r->busy_period_s : 0;
}

static void economics(const gpuecon_reliability_request *q, const rel_model *m,
                      gpuecon_reliability_result *r)
{
    if (q->tokens_per_s_per_gpu > 0)
        r->goodput_tokens_per_s = q->tokens_per_s_per_gpu * m->N * r->ettr;
    if (q->usd_per_mtok > 0 && r->ettr > 0) {
        r->effective_usd_per_mtok_with_spares = q->usd_per_mtok * r->charged_multiplier / r->ettr;
        r->effective_usd_per_mtok_without_spares = q->usd_per_mtok / r->ettr;
        r->effective_usd_per_mtok = q->spare_cost == GPUECON_SPARES_FREE
                                        ? r->effective_usd_per_mtok_without_spares
                                        : r->effective_usd_per_mtok_with_spares;
    }
    if (m->work > 0)
        r->days_to_train = fmin(r->ettr > 0 ? m->work / r->ettr : REL_UNBOUNDED_S, REL_UNBOUNDED_S) / DAY_S;
}

int gpuecon_reliability_analytic(const gpuecon_reliability_request *req,
                                 gpuecon_reliability_result *out, gpuecon_error *err)
{
    rel_model m;
    int rc = reliability_prepare(req, &m, err);
    if (rc)
        return rc;
    gpuecon_reliability_result *r = out;
    memset(r, 0, sizeof *r);
    r->requested_gpus = req->active_gpus;
    r->active_gpus = m.N; /* what the user wrote: 72 on an NVL72 stays 72, its rack's idle slots are spares */
    r->domains = m.K;
    r->domain_gpus = m.D;
    r->active_per_domain = m.a * m.s;
    r->node_gpus = m.s;
    r->spare_domains = m.S;
    r->provisioned_gpus = m.ndom * m.D;
    r->spare_gpus = r->provisioned_gpus - m.N;
    r->provisioned_multiplier = (double)r->provisioned_gpus / m.N;
    /* a pool sized as a share of the job (spare_domains -1) is a cluster-wide pool the job
       shares: the job is charged its share, not the whole racks the share rounds up to */
    double pool = req->spare_domains < 0 ? req->spare_domain_pct / 100 * m.K : m.S;
    r->charged_gpus = (m.K + pool) * m.D;
    r->charged_multiplier = r->charged_gpus / m.N;
    r->interruptions_per_day = m.Lambda * DAY_S;
    r->job_mtti_h = 1 / m.Lambda / 3600;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++)
        r->class_per_day[c] = m.lam_gpu[c] * DAY_S *
                              (m.blast[c] == GPUECON_BLAST_DOMAIN ? (double)m.K * m.D : m.G);
    r->ckpt_interval_s = m.tau;
    r->ckpt_interval_auto = m.tau_auto;
    r->young_interval_s = gpuecon_young_interval_s(m.delta, 1 / m.Lambda);
    r->daly_interval_s = gpuecon_daly_interval_s(m.delta, 1 / m.Lambda);
    r->ckpt_blocking_s = m.delta;
    r->ckpt_commit_lag_s = m.lag;
    waiting(&m, r);

    double W = r->wait_per_interruption_s, keep = m.S > 0 ? 1 - r->p_block : 1;
    gpuecon_lost_time l[3];
    double g[3] = {form_g2(&m, W, &l[0]), form_g1(&m, W, &l[1]), form_g3(&m, W, &l[2])};
    r->g2 = keep * g[0];
    r->g1 = keep * g[1];
    r->g3 = keep * g[2];
    int f = req->form == GPUECON_FORM_G1 ? 1 : req->form == GPUECON_FORM_G3 ? 2 : 0;
    r->ettr = keep * g[f];
    r->lost.detect = keep * l[f].detect;
    r->lost.restart = keep * l[f].restart;
    r->lost.recompute = keep * l[f].recompute;
    r->lost.ckpt = keep * l[f].ckpt;
    r->lost.wait = keep * l[f].wait + (1 - keep);
    double span = m.work > 0 && r->ettr > 0 ? m.work / r->ettr : m.horizon;
    r->interruptions = m.Lambda * span;
    economics(req, &m, r);
    return GPUECON_OK;
}
