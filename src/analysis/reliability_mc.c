/*
 * sim.c — exact discrete-event Monte Carlo of a long synchronous training job under
 * failures, repairs, spares and checkpoints (docs/model.md §5.7).
 *
 * Hardware: K job domains + S pool domains, each of nsub units (servers or trays). Every GPU
 * fails (exponential by default: one superposed Poisson stream; Weibull: a life clock per
 * unit and per domain, renewed at repair); a fault takes out a unit, a whole domain or
 * nothing (a software fault), and the failed hardware is repaired after a sampled MTTR.
 * Faults on hardware that is already down are absorbed. The job runs while all K assigned
 * domains have a active healthy units; an interrupting fault sends it through DETECT
 * (detection + queue), re-assembly (swapping unusable domains for usable pool domains,
 * WAIT-ing for repairs if there are too few) and RESTART, back to the last committed
 * checkpoint. A fault during RESTART restarts it (no new detection), as in Daly's model.
 *
 * Key choices. (1) Between events the job is deterministic, so progress, checkpoint writes
 * and commits of a run segment are computed in closed form when the segment ends: exact,
 * and the event count is set by failures, not checkpoints. (2) Which healthy units of a
 * domain are active is exchangeable, so a domain needs only its count of down units.
 * (3) Trials are folded into the statistics in trial order, a wave of WAVE trials at a time,
 * so results are bit-identical for any thread count and memory does not grow with trials;
 * quantiles come from a fixed 65,536-bin histogram of ETTR.
 */
#include "analysis/analysis.h"
#include "model/reliability.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DAY_S 86400.0
#define WAVE 256
#define NBINS 65536
#define NC GPUECON_FCLASS_COUNT

enum { RUN, DETECT, WAIT, RESTART };

#include "base/rng.h"

/* ---- a binary min-heap of (time, id) ----------------------------------------------------------- */

typedef struct hent {
    double t;
    int32_t id;
} hent;

static void heap_push(hent *h, int *n, double t, int32_t id)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) >> 1;
        if (h[p].t <= t)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i].t = t;
    h[i].id = id;
}

static void heap_sift_down(hent *h, int n, int i, hent x)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].t < h[c].t)
            c++;
        if (h[c].t >= x.t)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static hent heap_pop(hent *h, int *n)
{
    hent top = h[0];
    if (--(*n) > 0)
        heap_sift_down(h, *n, 0, h[*n]);
    return top;
}

/* ---- configuration, workspace and one trial's state ------------------------------------------------ */

typedef struct simcfg {
    const rel_model *m;
    bool weibull;
    double R;                  /* exponential: rate of all faults, every GPU and the job */
    double cum[NC];            /* class of a fault of that stream */
    double eta_unit, eta_dom;  /* Weibull scales (0: that clock does not exist) */
    double inv_shape;
    double cum_unit[NC], cum_dom[NC], cum_job[NC]; /* class of a unit / domain / job fault */
    int nunits;                /* ndom·nsub */
    double T;                  /* wall-clock end: horizon, or 50× the budget's work */
} simcfg;

typedef struct simws {
    uint16_t *down;            /* units in repair, per domain */
    uint8_t *drained, *assigned;
    int32_t *pos, *bad, *okp;  /* assigned-but-unusable and unassigned-usable domain sets */
    int nbad, nok;
    hent *rep, *clk;           /* pending repairs; Weibull life clocks */
    int nrep, nclk;
} simws;

typedef struct job {
    int phase;
    int cls;                   /* class of the fault that interrupted the job last */
    double ph_start, ph_end, run_start, run_end;
    double Pc;                 /* committed progress (at the end: all progress) */
    double t_detect, t_restart, t_wait, t_lost, t_ckpt;
    double interruptions, ckpts;
    bool done;
    double t_done;
} job;

typedef struct trial_out {
    double ettr, days, ipd, wait_h_per_day, events, ckpts;
    gpuecon_lost_time lost;
    bool finished;
} trial_out;

static void set_add(int32_t *arr, int *n, int32_t *pos, int i)
{
    pos[i] = *n;
    arr[(*n)++] = i;
}

static void set_del(int32_t *arr, int *n, int32_t *pos, int i)
{
    int p = pos[i], last = arr[--(*n)];
    arr[p] = last;
    pos[last] = p;
    pos[i] = -1;
}

/* Keeps domain i in the right set after a change of its hardware or assignment. */
static void refresh(simws *w, const rel_model *m, int i)
{
    bool usable = !w->drained[i] && w->down[i] <= m->kspare, in = w->pos[i] >= 0;
    if (w->assigned[i]) {
        if (!usable && !in)
            set_add(w->bad, &w->nbad, w->pos, i);
        else if (usable && in)
            set_del(w->bad, &w->nbad, w->pos, i);
    } else {
        if (usable && !in)
            set_add(w->okp, &w->nok, w->pos, i);
        else if (!usable && in)
            set_del(w->okp, &w->nok, w->pos, i);
    }
}

static double life(rng *r, double eta, double inv_shape)
{
    return eta * pow(-log1p(-rng_u01(r)), inv_shape);
}

static int pick_class(rng *r, const double *cum)
{
    double u = rng_u01(r);
    int k = 0;
    while (k < NC - 1 && u >= cum[k])
        k++;
    return k;
}

static double mttr(rng *r, const rel_model *m, int k)
{
    return m->mttr_lo[k] + (m->mttr_hi[k] - m->mttr_lo[k]) * rng_u01(r);
}

static void reset(const simcfg *c, simws *w, rng *r)
{
    const rel_model *m = c->m;
    w->nbad = w->nok = w->nrep = w->nclk = 0;
    for (int i = 0; i < m->ndom; i++) {
        w->down[i] = 0;
        w->drained[i] = 0;
        w->assigned[i] = i < m->K;
        w->pos[i] = -1;
        if (i >= m->K)
            set_add(w->okp, &w->nok, w->pos, i);
    }
    if (!c->weibull)
        return;
    if (c->eta_unit > 0)
        for (int u = 0; u < c->nunits; u++)
            w->clk[w->nclk++] = (hent){life(r, c->eta_unit, c->inv_shape), u};
    if (c->eta_dom > 0)
        for (int i = 0; i < m->ndom; i++)
            w->clk[w->nclk++] = (hent){life(r, c->eta_dom, c->inv_shape), c->nunits + i};
    for (int i = w->nclk / 2 - 1; i >= 0; i--)
        heap_sift_down(w->clk, w->nclk, i, w->clk[i]);
}

/* ---- the job ------------------------------------------------------------------------------------- */

/* Wall time a run segment needs for p more seconds of work (cycles of τ work + δ write). */
static double wall_to(const rel_model *m, double p)
{
    if (p <= 0)
        return 0;
    double n = ceil(p / m->tau) - 1;
    if (n < 0)
        n = 0;
    return n * (m->tau + m->delta) + (p - n * m->tau);
}

/* Ends the run segment at t: progress made, writes, and what the last commit keeps. */
static void run_account(job *j, const rel_model *m, double t, bool final)
{
    double x = t - j->run_start, c = m->tau + m->delta;
    double n = floor(x / c), rem = x - n * c;
    if (rem < 0)
        rem = 0;
    double prog = n * m->tau + fmin(rem, m->tau);
    double commit = m->lag > 0 && n >= 1 && rem < m->lag ? n - 1 : n; /* async commit lag */
    j->t_ckpt += n * m->delta + fmax(0, rem - m->tau);
    j->ckpts += commit;
    if (final) {
        j->Pc += prog;
    } else {
        j->Pc += commit * m->tau;
        j->t_lost += prog - commit * m->tau;
    }
}

static void assemble(simws *w, job *j, const rel_model *m, double t)
{
    while (w->nbad > 0 && w->nok > 0) {
        int b = w->bad[w->nbad - 1], g = w->okp[w->nok - 1];
        set_del(w->bad, &w->nbad, w->pos, b);
        set_del(w->okp, &w->nok, w->pos, g);
        w->assigned[b] = 0;
        w->assigned[g] = 1;
    }
    j->ph_start = t;
    if (w->nbad > 0) {
        j->phase = WAIT;
    } else {
        j->phase = RESTART;
        j->ph_end = t + m->t_restart + m->rst_extra[j->cls];
    }
}

static void interrupt(simws *w, job *j, const rel_model *m, double t, int k)
{
    j->interruptions++;
    j->cls = k;
    if (j->phase == RUN) {
        run_account(j, m, t, false);
        j->phase = DETECT;
        j->ph_start = t;
        j->ph_end = t + m->t_detect + m->det_extra[k];
    } else if (j->phase == RESTART) {
        j->t_restart += t - j->ph_start;
        assemble(w, j, m, t);
    }
}

/* A phase ends at t. Returns true when the job has trained its budget. */
static bool phase_end(simws *w, job *j, const rel_model *m, double t)
{
    if (j->phase == DETECT) {
        j->t_detect += t - j->ph_start;
        assemble(w, j, m, t);
    } else if (j->phase == RESTART) {
        j->t_restart += t - j->ph_start;
        j->phase = RUN;
        j->run_start = t;
        j->run_end = m->work > 0 ? t + wall_to(m, m->work - j->Pc) : INFINITY;
    } else if (j->phase == RUN) {
        run_account(j, m, t, true);
        j->Pc = m->work;
        j->done = true;
        j->t_done = t;
        return true;
    }
    return false;
}

/* ---- faults and repairs ------------------------------------------------------------------------------ */

/* Fault handlers return the class of a fault that interrupts the job, or -1. */
static int fail_unit(const simcfg *c, simws *w, rng *r, double t, int i, int k, int32_t id,
                     bool running)
{
    const rel_model *m = c->m;
    int d = w->down[i];
    bool hit = running && w->assigned[i] && rng_below(r, m->nsub - d) < m->a;
    w->down[i] = (uint16_t)(d + 1);
    heap_push(w->rep, &w->nrep, t + mttr(r, m, k), id);
    refresh(w, m, i);
    return hit ? k : -1;
}

static int fail_domain(const simcfg *c, simws *w, rng *r, double t, int i, int k, bool running)
{
    w->drained[i] = 1;
    heap_push(w->rep, &w->nrep, t + mttr(r, c->m, k), -(i + 1));
    refresh(w, c->m, i);
    return running && w->assigned[i] ? k : -1;
}

/* Exponential lifetimes: one fault of the superposed stream. */
static int fail_exp(const simcfg *c, simws *w, rng *r, double t, bool running)
{
    const rel_model *m = c->m;
    int k = pick_class(r, c->cum);
    if (m->blast[k] == GPUECON_BLAST_JOB)
        return running ? k : -1;
    int i = rng_below(r, m->ndom);
    if (w->drained[i])
        return -1;
    if (m->blast[k] == GPUECON_BLAST_DOMAIN)
        return fail_domain(c, w, r, t, i, k, running);
    if (rng_below(r, m->nsub) < w->down[i]) /* hit a unit already in repair */
        return -1;
    return fail_unit(c, w, r, t, i, k, i * m->nsub, running);
}

/* Weibull lifetimes: the earliest life clock fires. */
static int fail_weibull(const simcfg *c, simws *w, rng *r, double t, bool running)
{
    hent e = heap_pop(w->clk, &w->nclk);
    if (e.id < c->nunits) {
        int i = e.id / c->m->nsub;
        if (w->drained[i]) { /* absorbed by the drained domain; a new life */
            heap_push(w->clk, &w->nclk, t + life(r, c->eta_unit, c->inv_shape), e.id);
            return -1;
        }
        return fail_unit(c, w, r, t, i, pick_class(r, c->cum_unit), e.id, running);
    }
    int i = e.id - c->nunits;
    return fail_domain(c, w, r, t, i, pick_class(r, c->cum_dom), running);
}

static void repair(const simcfg *c, simws *w, rng *r, double t)
{
    hent e = heap_pop(w->rep, &w->nrep);
    int i;
    if (e.id >= 0) {
        i = e.id / c->m->nsub;
        w->down[i]--;
        if (c->weibull)
            heap_push(w->clk, &w->nclk, t + life(r, c->eta_unit, c->inv_shape), e.id);
    } else {
        i = -e.id - 1;
        w->drained[i] = 0;
        if (c->weibull)
            heap_push(w->clk, &w->nclk, t + life(r, c->eta_dom, c->inv_shape), c->nunits + i);
    }
    refresh(w, c->m, i);
}

/* ---- one trial ------------------------------------------------------------------------------------------ */

static void finish(const rel_model *m, job *j, double T, double events, trial_out *o)
{
    double wall = j->done ? j->t_done : T;
    if (!j->done) {
        if (j->phase == RUN)
            run_account(j, m, T, true);
        else if (j->phase == DETECT)
            j->t_detect += T - j->ph_start;
        else if (j->phase == RESTART)
            j->t_restart += T - j->ph_start;
        else
            j->t_wait += T - j->ph_start;
    }
    o->ettr = j->Pc / wall;
    o->finished = m->work <= 0 || j->done;
    o->days = m->work > 0 ? (o->ettr > 0 ? m->work / o->ettr / DAY_S : INFINITY) : wall / DAY_S;
    o->ipd = j->interruptions / (wall / DAY_S);
    o->wait_h_per_day = j->t_wait / 3600 / (wall / DAY_S);
    o->lost = (gpuecon_lost_time){j->t_detect / wall, j->t_restart / wall, j->t_lost / wall,
                                  j->t_ckpt / wall, j->t_wait / wall};
    o->events = events;
    o->ckpts = j->ckpts;
}

static void run_trial(const simcfg *c, simws *w, uint64_t seed, int trial, trial_out *o)
{
    const rel_model *m = c->m;
    rng r;
    rng_seed(&r, seed, (uint64_t)trial);
    reset(c, w, &r);
    job j;
    memset(&j, 0, sizeof j);
    j.phase = RUN;
    j.run_end = m->work > 0 ? wall_to(m, m->work) : INFINITY;
    double next_f = c->weibull ? INFINITY : rng_exp(&r, c->R);
    double next_sw = c->weibull && m->lam_job > 0 ? rng_exp(&r, m->lam_job) : INFINITY;
    double events = 0;
    for (;;) {
        double tc = c->weibull && w->nclk ? w->clk[0].t : INFINITY;
        double tf = c->weibull ? fmin(tc, next_sw) : next_f;
        double tr = w->nrep ? w->rep[0].t : INFINITY;
        double tp = j.phase == RUN ? j.run_end : j.phase == WAIT ? INFINITY : j.ph_end;
        double t = fmin(fmin(tf, tr), tp);
        if (t >= c->T)
            break;
        events++;
        if (tp == t) {
            if (phase_end(w, &j, m, t))
                break;
        } else if (tr == t) {
            repair(c, w, &r, t);
            if (j.phase == WAIT) {
                j.t_wait += t - j.ph_start;
                assemble(w, &j, m, t);
            }
        } else {
            bool running = j.phase == RUN || j.phase == RESTART;
            int hit;
            if (!c->weibull) {
                next_f = t + rng_exp(&r, c->R);
                hit = fail_exp(c, w, &r, t, running);
            } else if (next_sw == t) {
                next_sw = t + rng_exp(&r, m->lam_job);
                hit = running ? pick_class(&r, c->cum_job) : -1;
            } else {
                hit = fail_weibull(c, w, &r, t, running);
            }
            if (hit >= 0)
                interrupt(w, &j, m, t, hit);
        }
    }
    finish(m, &j, c->T, events, o);
}

/* ---- many trials ---------------------------------------------------------------------------------------- */

static void cumulate(double *cum, const double *rate)
{
    double total = 0, run = 0;
    int last = 0;
    for (int k = 0; k < NC; k++) {
        total += rate[k];
        if (rate[k] > 0)
            last = k;
    }
    for (int k = 0; k < NC; k++) {
        run += rate[k];
        cum[k] = k >= last || total <= 0 ? 1.0 : run / total;
    }
}

static void build_cfg(const rel_model *m, simcfg *c)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->weibull = m->weibull_shape != 1;
    c->nunits = m->ndom * m->nsub;
    c->T = m->work > 0 ? 50 * m->work : m->horizon;
    double all[NC], unit[NC], dom[NC], jobc[NC];
    double gpus = (double)m->ndom * m->D;
    for (int k = 0; k < NC; k++) {
        bool per_job = m->blast[k] == GPUECON_BLAST_JOB;
        all[k] = m->lam_gpu[k] * (per_job ? m->G : gpus);
        unit[k] = m->blast[k] == GPUECON_BLAST_NODE ? m->lam_gpu[k] : 0;
        dom[k] = m->blast[k] == GPUECON_BLAST_DOMAIN ? m->lam_gpu[k] : 0;
        jobc[k] = per_job ? m->lam_gpu[k] : 0;
        c->R += all[k];
    }
    cumulate(c->cum, all);
    cumulate(c->cum_unit, unit);
    cumulate(c->cum_dom, dom);
    cumulate(c->cum_job, jobc);
    double g = tgamma(1 + 1 / m->weibull_shape);
    c->inv_shape = 1 / m->weibull_shape;
    c->eta_unit = m->lam_unit > 0 ? 1 / (m->lam_unit * g) : 0;
    c->eta_dom = m->lam_dom > 0 ? 1 / (m->lam_dom * g) : 0;
}

typedef struct simmem {
    gpuecon_ctx *ctx;
    simws *ws;
    int nws;
    size_t ndom, nent;
    trial_out *slots;
    uint32_t *hist;
} simmem;

static void mem_free(simmem *a)
{
    for (int t = 0; a->ws && t < a->nws; t++) {
        simws *w = &a->ws[t];
        ctx_free(a->ctx, w->down, a->ndom * sizeof *w->down);
        ctx_free(a->ctx, w->drained, a->ndom);
        ctx_free(a->ctx, w->assigned, a->ndom);
        ctx_free(a->ctx, w->pos, a->ndom * sizeof *w->pos);
        ctx_free(a->ctx, w->bad, a->ndom * sizeof *w->bad);
        ctx_free(a->ctx, w->okp, a->ndom * sizeof *w->okp);
        ctx_free(a->ctx, w->rep, a->nent * sizeof *w->rep);
        ctx_free(a->ctx, w->clk, a->nent * sizeof *w->clk);
    }
    ctx_free(a->ctx, a->ws, (size_t)a->nws * sizeof *a->ws);
    ctx_free(a->ctx, a->slots, WAVE * sizeof *a->slots);
    ctx_free(a->ctx, a->hist, NBINS * sizeof *a->hist);
}

static bool mem_alloc(simmem *a, gpuecon_ctx *ctx, const simcfg *c, int nws)
{
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    a->ndom = (size_t)c->m->ndom;
    a->nent = (size_t)c->nunits + a->ndom; /* at most one pending repair / clock each */
    a->slots = ctx_alloc(ctx, WAVE * sizeof *a->slots);
    a->hist = ctx_alloc(ctx, NBINS * sizeof *a->hist);
    a->ws = ctx_alloc(ctx, (size_t)nws * sizeof *a->ws);
    if (a->ws) /* recorded at once: mem_free must free what was allocated, with its size */
        a->nws = nws;
    if (!a->slots || !a->hist || !a->ws)
        return false;
    for (int t = 0; t < nws; t++) {
        simws *w = &a->ws[t];
        w->down = ctx_alloc(ctx, a->ndom * sizeof *w->down);
        w->drained = ctx_alloc(ctx, a->ndom);
        w->assigned = ctx_alloc(ctx, a->ndom);
        w->pos = ctx_alloc(ctx, a->ndom * sizeof *w->pos);
        w->bad = ctx_alloc(ctx, a->ndom * sizeof *w->bad);
        w->okp = ctx_alloc(ctx, a->ndom * sizeof *w->okp);
        w->rep = ctx_alloc(ctx, a->nent * sizeof *w->rep);
        w->clk = c->weibull ? ctx_alloc(ctx, a->nent * sizeof *w->clk) : NULL;
        if (!w->down || !w->drained || !w->assigned || !w->pos || !w->bad || !w->okp ||
            !w->rep || (c->weibull && !w->clk))
            return false;
    }
    return true;
}

/* The k-th smallest ETTR (1-based) as its bin's centre. */
static double hist_rank(const uint32_t *h, long long k)
{
    long long cum = 0;
    for (int b = 0; b < NBINS; b++) {
        cum += h[b];
        if (cum >= k)
            return (b + 0.5) / NBINS;
    }
    return 1;
}

/* Running sums, added in trial order (so the floating-point result never depends on threads). */
typedef struct acc {
    long long n;
    double mean, m2, days, ipd, wait, events, ckpts;
    gpuecon_lost_time lost;
    int unfinished;
} acc;

static void fold(acc *s, const trial_out *o, uint32_t *hist, double *trial_ettr)
{
    s->n++;
    double d = o->ettr - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (o->ettr - s->mean);
    s->days += o->days;
    s->ipd += o->ipd;
    s->wait += o->wait_h_per_day;
    s->events += o->events;
    s->ckpts += o->ckpts;
    s->lost.detect += o->lost.detect;
    s->lost.restart += o->lost.restart;
    s->lost.recompute += o->lost.recompute;
    s->lost.ckpt += o->lost.ckpt;
    s->lost.wait += o->lost.wait;
    s->unfinished += !o->finished;
    int b = (int)(o->ettr * NBINS);
    hist[b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b]++;
    if (trial_ettr)
        trial_ettr[s->n - 1] = o->ettr;
}

static void summarise(const acc *s, const uint32_t *hist, const rel_model *m,
                      gpuecon_reliability_mc *out)
{
    double n = (double)s->n;
    long long k[3];
    const double q[3] = {0.10, 0.50, 0.90};
    for (int i = 0; i < 3; i++) {
        k[i] = (long long)ceil(q[i] * n - 1e-9);
        if (k[i] < 1)
            k[i] = 1;
    }
    out->trials = (int)s->n;
    out->ettr_mean = s->mean;
    out->ettr_sd = s->n > 1 ? sqrt(s->m2 / (n - 1)) : 0;
    out->ettr_ci95 = 1.96 * out->ettr_sd / sqrt(n);
    out->ettr_p10 = hist_rank(hist, k[0]);
    out->ettr_p50 = hist_rank(hist, k[1]);
    out->ettr_p90 = hist_rank(hist, k[2]);
    if (m->work > 0) { /* the k-th smallest days is the (n − k + 1)-th smallest ETTR */
        double *days[3] = {&out->days_p10, &out->days_p50, &out->days_p90};
        for (int i = 0; i < 3; i++)
            *days[i] = m->work / hist_rank(hist, s->n - k[i] + 1) / DAY_S;
        out->days_mean = s->days / n;
    } else {
        out->days_mean = out->days_p10 = out->days_p50 = out->days_p90 = NAN;
    }
    out->unfinished = s->unfinished;
    out->interruptions_per_day = s->ipd / n;
    out->wait_h_per_day = s->wait / n;
    out->lost = (gpuecon_lost_time){s->lost.detect / n, s->lost.restart / n, s->lost.recompute / n,
                                    s->lost.ckpt / n, s->lost.wait / n};
    out->events = s->events;
    out->checkpoints = s->ckpts;
    out->quantile_resolution = 1.0 / NBINS;
}

/* Estimated CPU-seconds of a simulation (docs/cli.md "Work budget"): the workspaces are
 * allocated once (~110 ns a unit), each trial resets them (~4 ns a unit) and handles its events
 * at ~25 ns each while the units fit in cache, more as they outgrow it (~165 ns at 1.25M units).
 * Fitted on Release builds, one core of the 2-core EPYC of docs/benchmarks.md, within a factor
 * 1.5 from 8 to 10M GPUs. */
static double sim_work_s(const simcfg *c, double events_per_trial, int trials)
{
    double u = c->nunits;
    return 1.1e-7 * u + trials * (4e-9 * u + events_per_trial * 2.5e-8 * (1 + u / 2e5));
}

int gpuecon_reliability_simulate(gpuecon_ctx *ctx, const gpuecon_reliability_request *req,
                                 gpuecon_reliability_mc *out, gpuecon_error *err)
{
    if (!ctx || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no context or output");
    rel_model m;
    int rc = reliability_prepare(req, &m, err);
    if (rc || (rc = err_check_range(err, OPTION("trials"), req->trials, 1, 1e8)))
        return rc;
    if ((double)m.ndom * m.nsub > 2e8)
        return err_set(err, GPUECON_E_INPUT, OPTION("active_gpus"), 0, 0, "too many units to simulate");
    simcfg c;
    build_cfg(&m, &c);
    /* each fault brings a repair, each interruption up to three job transitions */
    double per_trial = (2 * c.R + 3 * m.Lambda) * c.T;
    if (per_trial > 1e9)
        return err_set(err, GPUECON_E_INPUT, m.work > 0 ? OPTION("tokens") : OPTION("days"), 0, 0,
                       "one trial would simulate about %s events (%.0f faults a day for %.0f "
                       "days); at most 1e9: shorten the job or raise " OPTION("mtbi_gpu_days"), NUM_SIG(per_trial, 2),
                       c.R * DAY_S, c.T / DAY_S);
    double work = sim_work_s(&c, per_trial, req->trials);
    if (work > ctx->cfg.max_work_s)
        return err_set(err, GPUECON_E_INPUT, req->trials > 1 ? OPTION("trials") : m.work > 0 ? OPTION("tokens") : OPTION("days"),
                       0, 0, "the simulation would take about %s CPU-seconds (%d trials of about %s "
                       "events on %d units), above the work budget of %s s; use fewer trials or a "
                       "shorter job, or raise the budget with " OPTION("max_work"), NUM_SIG(work, 2), req->trials,
                       NUM_SIG(per_trial, 2),
                       c.nunits, NUM_VAL(ctx->cfg.max_work_s));
    int nt = 1;
#ifdef _OPENMP
    nt = ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
#endif
    nt = nt < 1 ? 1 : nt > WAVE ? WAVE : nt > req->trials ? req->trials : nt;
    simmem mem;
    if (!mem_alloc(&mem, ctx, &c, nt)) {
        mem_free(&mem);
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for %d simulation workspaces", nt);
    }
    memset(out, 0, sizeof *out);
    acc s;
    memset(&s, 0, sizeof s);
    uint64_t seed = ctx->cfg.seed;
    for (int base = 0; base < req->trials; base += WAVE) {
        int nw = req->trials - base < WAVE ? req->trials - base : WAVE;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (int i = 0; i < nw; i++) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            run_trial(&c, &mem.ws[tid], seed, base + i, &mem.slots[i]);
        }
        for (int i = 0; i < nw; i++)
            fold(&s, &mem.slots[i], mem.hist, req->trial_ettr);
        if (ctx->cfg.progress && ctx->cfg.progress(ctx->cfg.progress_ud, base + nw, req->trials)) {
            mem_free(&mem);
            return err_set(err, GPUECON_E_CANCELED, "", 0, 0, "simulation canceled after %d of %d trials",
                           base + nw, req->trials);
        }
    }
    summarise(&s, mem.hist, &m, out);
    out->seed = seed;
    out->threads = nt;
    mem_free(&mem);
    return GPUECON_OK;
}
