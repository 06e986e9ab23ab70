/*
 * infer_search.c — which serving configuration meets the latency targets at the best
 * throughput per GPU or the lowest cost (docs/model.md §6.12).
 *
 * Every configuration (GPU count × TP × PP × weight and KV precision × draft length × max_num_seqs
 * × max_num_batched_tokens × MoE layout: experts EP or TP-sliced inside a TP replica, or
 * attention data-parallel with experts EP) is prepared once by the analytic model
 * (memory, KV pool, step environment) and then timed at a few concurrencies: a doubling grid
 * for the Pareto frontier of tokens/s/GPU against tokens/s/user, and its operating point — the
 * given concurrency, the least that serves the given rate, or the largest whose mean TTFT and
 * TPOT meet the targets (both only grow with the load, §6.4, so bisection finds it). The best
 * few are then re-run by the request-level simulator (§6.11) and ranked by what it finds at
 * the chosen percentile; one that misses there is retried at 15% less load, twice.
 *
 * At a rate every configuration that keeps up serves the same tokens (Little's law), so on equal
 * GPUs the objective ties exactly; the tie goes to the capacity within the targets (the load it
 * could take: headroom), and capacities within 1% to the lower request latency. Configurations
 * that differ only in an engine limit that does not bind give the same answer and are kept once.
 *
 * Key choice: the analytic screen uses means and the simulator supplies the percentiles, so
 * the screen stays at microseconds per configuration and only the winners pay for a simulation.
 */
#include "analysis/analysis.h"
#include "model/infer.h"
#include "model/infer_sim.h" /* sim_closed_loop */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAND 24
#define PROMPT_CAP 512 /* the searched long_prefill_token_threshold: a quarter of the smallest budget */

typedef struct fpoint {
    double x, y; /* tokens/s/user, tokens/s/GPU */
    int gpus, tp, k, smax, nbt, cap;
    signed char w, kv, ep, dp, pp;
    double C;
} fpoint;

typedef struct search {
    gpuecon_ctx *ctx;
    const gpuecon_serve_search_request *q;
    gpuecon_serve_search_result *out;
    fpoint *pts;
    size_t npts, cap;
    gpuecon_serve_config cand[MAX_CAND]; /* ranked by better() */
    int ncand, keep;
    double closest_miss;
    bool nomem;
} search;

void gpuecon_serve_search_request_init(gpuecon_serve_search_request *r)
{
    memset(r, 0, sizeof *r);
    gpuecon_infer_request_init(&r->base);
    r->slo_percentile = 90;
    r->objective = GPUECON_SERVE_THROUGHPUT;
    r->confirm = 3;
    r->sim_requests = 4000;
    r->top = 5;
}

static int check(const gpuecon_serve_search_request *q, gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, OPTION("ttft_ms"), q->ttft_ms, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("tpot_ms"), q->tpot_ms, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("concurrency"), q->concurrency, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("max_draft"), q->max_draft, 0, 8)) ||
        (rc = err_check_range(err, OPTION("confirm"), q->confirm, 0, MAX_CAND)) ||
        (rc = err_check_range(err, OPTION("top"), q->top, 1, GPUECON_SERVE_TOP)) ||
        (rc = err_check_range(err, OPTION("sim_requests"), (double)q->sim_requests, 100, 1e7)))
        return rc;
    if (!(q->rate >= 0 && q->rate <= 1e9))
        return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0,
                       "%s requests/s is out of range; allowed above 0 up to 1e9", NUM_VAL(q->rate));
    if (q->rate > 0 && q->concurrency > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0, "give either a rate or a concurrency");
    if (!(q->slo_percentile > 0 && q->slo_percentile < 100))
        return err_set(err, GPUECON_E_INPUT, OPTION("slo_percentile"), 0, 0,
                       "%s is outside (0, 100): a percentile of the requests", NUM_VAL(q->slo_percentile));
    if (q->objective == GPUECON_SERVE_COST && !q->base.tco)
        return err_set(err, GPUECON_E_INPUT, OPTION("objective"), 0, 0, "cost needs a TCO profile (" OPTION("profile") ")");
    if (!q->base.model || !q->base.system || !q->base.system->gpu)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system are required");
    for (size_t i = 0; i < q->ngpus; i++)
        if (q->gpus[i] < 1 || q->gpus[i] > 1000000)
            return err_set(err, GPUECON_E_INPUT, OPTION("gpus"), 0, 0, "%d is out of range; allowed 1 to 1e6", q->gpus[i]);
    return GPUECON_OK;
}

static bool meets(const gpuecon_serve_search_request *q, double ttft, double tpot)
{
    return infer_slo_met(q->ttft_ms, q->tpot_ms, ttft, tpot);
}

static double miss(const gpuecon_serve_search_request *q, double ttft, double tpot)
{
    return infer_slo_miss(q->ttft_ms, q->tpot_ms, ttft, tpot);
}

static void fill(gpuecon_serve_config *c, const gpuecon_infer_request *r, const gpuecon_infer_result *o,
                 const gpuecon_infer_point *p)
{
    memset(c, 0, sizeof *c);
    c->gpus = o->gpus;
    c->tp = o->attention_dp ? o->ep : o->tp; /* what the request gives back */
    c->pp = o->pp;
    c->replicas = o->replicas;
    c->attention_dp = o->attention_dp;
    c->redundant_experts = o->redundant_experts;
    c->draft_k = r->draft_k;
    c->max_num_seqs = o->max_num_seqs;
    c->max_num_batched_tokens = o->max_num_batched_tokens;
    c->long_prefill_token_threshold = r->long_prefill_token_threshold;
    c->weights = r->weights;
    c->kv = r->kv;
    c->expert_parallel = o->expert_parallel;
    c->concurrency = p->concurrency;
    c->output_tokens_per_s = p->output_tokens_per_s;
    c->output_tokens_per_s_per_gpu = p->output_tokens_per_s_per_gpu;
    c->tokens_per_s_per_user = p->tpot_ms > 0 ? 1e3 / p->tpot_ms : 0;
    c->ttft_ms = c->analytic_ttft_ms = p->ttft_ms;
    c->tpot_ms = c->analytic_tpot_ms = p->tpot_ms;
    c->e2e_ms = p->ttft_ms + (r->output_len - 1) * p->tpot_ms;
    c->usd_per_mtok = p->usd_per_mtok;
}

static void add_point(search *s, double x, double y, const gpuecon_infer_request *r, double C)
{
    if (s->npts == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        fpoint *p = ctx_realloc(s->ctx, s->pts, s->cap * sizeof *p, cap * sizeof *p);
        if (!p) {
            s->nomem = true;
            return;
        }
        s->pts = p;
        s->cap = cap;
    }
    s->pts[s->npts++] = (fpoint){x, y, r->gpus, r->tp, r->draft_k, r->max_num_seqs,
                                 r->max_num_batched_tokens, r->long_prefill_token_threshold,
                                 (signed char)r->weights, (signed char)r->kv,
                                 (signed char)r->expert_parallel, (signed char)r->attention_dp,
                                 (signed char)(r->pp > 1 ? r->pp : 1), C};
}

/* At a rate: whether c serves at least 95% of the offered tokens (a finite simulated run ends
 * with some still in flight; the analytic operating point serves all of them). */
static bool keeps_up(const gpuecon_serve_search_request *q, const gpuecon_serve_config *c)
{
    return q->rate > 0 && c->output_tokens_per_s >= 0.95 * q->rate * q->base.output_len;
}

/* The tokens/s/GPU a configuration is priced at: at a rate, one that keeps up serves what
 * arrives, the offered load, whatever a finite run measured; otherwise what it serves. $/Mtok
 * scales as 1/this (a fixed $/GPU-h, docs/model.md §2). */
static double priced_load(const gpuecon_serve_search_request *q, const gpuecon_serve_config *c)
{
    return q->rate > 0 && c->keeps_up ? q->rate * q->base.output_len / c->gpus : c->output_tokens_per_s_per_gpu;
}

/* Higher is better. At a rate, one that keeps up scores the offered load per GPU (or its cost
 * there), whatever its measured throughput. */
static double objective(const search *s, const gpuecon_serve_config *c)
{
    const gpuecon_serve_search_request *q = s->q;
    if (q->objective == GPUECON_SERVE_COST)
        return -c->usd_per_mtok;
    if (q->rate > 0 && c->keeps_up)
        return q->rate * q->base.output_len / c->gpus;
    return c->output_tokens_per_s_per_gpu;
}

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* Whether a ranks before b: the objective; equal, the capacity within the targets; within 1%
 * of each other, the lower request latency (see the file comment). */
static bool better(const search *s, const gpuecon_serve_config *a, const gpuecon_serve_config *b)
{
    double x = objective(s, a), y = objective(s, b);
    if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y)))
        return x > y;
    double ca = a->capacity_tokens_per_s_per_gpu, cb = b->capacity_tokens_per_s_per_gpu;
    if (!close_to(ca, cb, GPUECON_SERVE_CAPACITY_TIE))
        return ca > cb;
    return a->e2e_ms < b->e2e_ms;
}

/* The same layout, precisions and draft with the same outputs (within 0.2%) and a capacity
 * better() counts as equal: only an engine limit that does not bind differs. */
static bool same_answer(const gpuecon_serve_config *a, const gpuecon_serve_config *b)
{
    return a->gpus == b->gpus && a->tp == b->tp && a->pp == b->pp && a->replicas == b->replicas &&
           a->weights == b->weights && a->kv == b->kv && a->draft_k == b->draft_k &&
           a->expert_parallel == b->expert_parallel && a->attention_dp == b->attention_dp &&
           close_to(a->output_tokens_per_s_per_gpu, b->output_tokens_per_s_per_gpu, 2e-3) &&
           close_to(a->ttft_ms, b->ttft_ms, 2e-3) && close_to(a->tpot_ms, b->tpot_ms, 2e-3) &&
           close_to(a->capacity_tokens_per_s_per_gpu, b->capacity_tokens_per_s_per_gpu, GPUECON_SERVE_CAPACITY_TIE);
}

/* Keeps the best s->keep meeting configurations in better() order (full ties: first found),
 * each answer once (the first found). */
static void offer(search *s, const gpuecon_serve_config *c)
{
    for (int j = 0; j < s->ncand; j++)
        if (same_answer(&s->cand[j], c))
            return;
    int i = s->ncand;
    if (i == s->keep && !better(s, c, &s->cand[i - 1]))
        return;
    if (i == s->keep)
        i--;
    while (i > 0 && better(s, c, &s->cand[i - 1])) {
        s->cand[i] = s->cand[i - 1];
        i--;
    }
    s->cand[i] = *c;
    if (s->ncand < s->keep)
        s->ncand++;
}

/* The largest concurrency whose mean TTFT and TPOT meet the targets (both only grow with the
 * load, §6.4, so bisection finds it), or one request per replica when even that misses; *p is
 * left at the returned point. */
static double slo_c(const gpuecon_serve_search_request *q, const gpuecon_infer_request *r, const infer_env *e,
                    const gpuecon_infer_result *o, gpuecon_infer_point *p)
{
    double lo = o->replicas, hi = fmax(lo, o->max_concurrency);
    infer_point(r, e, o, lo, p);
    if (!meets(q, p->ttft_ms, p->tpot_ms))
        return lo;
    infer_point(r, e, o, hi, p);
    if (meets(q, p->ttft_ms, p->tpot_ms))
        return hi;
    for (int i = 0; i < 30 && hi - lo > 0.5; i++) {
        double mid = 0.5 * (lo + hi);
        infer_point(r, e, o, mid, p);
        if (meets(q, p->ttft_ms, p->tpot_ms))
            lo = mid;
        else
            hi = mid;
    }
    lo = floor(lo); /* still at least the replicas, which met */
    infer_point(r, e, o, lo, p);
    return lo;
}

/* tokens/s/GPU at slo_c's load, 0 when no load meets the targets. */
static double capacity_at(const gpuecon_serve_search_request *q, const gpuecon_infer_request *r, const infer_env *e,
                          const gpuecon_infer_result *o)
{
    gpuecon_infer_point p;
    slo_c(q, r, e, o, &p);
    return meets(q, p.ttft_ms, p.tpot_ms) ? p.output_tokens_per_s_per_gpu : 0;
}

/* The operating point of one prepared configuration: see the file comment. */
static double operating_c(const search *s, const gpuecon_infer_request *r, const infer_env *e,
                          const gpuecon_infer_result *o, gpuecon_infer_point *p)
{
    const gpuecon_serve_search_request *q = s->q;
    if (q->concurrency > 0)
        return q->concurrency;
    if (q->rate > 0) /* the least concurrency whose throughput serves the rate (Little) */
        return infer_rate_c(r, e, o, q->rate * r->output_len, 1e-3, p);
    return slo_c(q, r, e, o, p);
}

/* Returns whether more pipeline stages could help: the layout does not fit, or its KV pool
 * holds fewer mean-length sequences than max_num_seqs admits (see enumerate). */
static bool evaluate(search *s, const gpuecon_infer_request *r)
{
    infer_arch a;
    infer_env e;
    gpuecon_infer_result o;
    int rc = infer_prepare_core(r, &a, &e, &o, NULL);
    if (rc != GPUECON_OK)
        return rc == GPUECON_E_INFEASIBLE;
    s->out->configs_evaluated++;
    bool kv_bound = o.seqs_admitted < o.max_num_seqs;
    gpuecon_infer_point p;
    gpuecon_serve_config c;
    for (double C = o.replicas;; C *= 2) {
        C = fmin(C, o.max_concurrency);
        infer_point(r, &e, &o, C, &p);
        add_point(s, p.tpot_ms > 0 ? 1e3 / p.tpot_ms : 0, p.output_tokens_per_s_per_gpu, r, C);
        if (C >= o.max_concurrency)
            break;
    }
    double saturated = p.output_tokens_per_s_per_gpu; /* the grid ends at saturation */
    double C = operating_c(s, r, &e, &o, &p);
    if (C < 0) { /* cannot serve the rate at all: a miss measured by the throughput short */
        infer_point(r, &e, &o, o.max_concurrency, &p);
        fill(&c, r, &o, &p);
        double m = s->q->rate * r->output_len / p.output_tokens_per_s - 1;
        if (m < s->closest_miss)
            s->closest_miss = m, s->out->closest = c;
        return kv_bound;
    }
    infer_point(r, &e, &o, C, &p);
    fill(&c, r, &o, &p);
    c.meets = meets(s->q, c.ttft_ms, c.tpot_ms);
    c.keeps_up = keeps_up(s->q, &c);
    if (c.usd_per_mtok > 0) /* the bisection stops up to 0.1% above the offered load */
        c.usd_per_mtok *= c.output_tokens_per_s_per_gpu / priced_load(s->q, &c);
    if (c.meets) {
        /* the headroom: needed here at a rate, where it ranks; it is the operating point itself
         * without a rate or a concurrency; with a concurrency, finish() adds it for display */
        if (s->q->rate > 0) {
            /* throughput only grows with the load (as operating_c assumes), so the capacity is at
             * most the saturated throughput: with that and no latency, can it enter at all? */
            gpuecon_serve_config bound = c;
            bound.capacity_tokens_per_s_per_gpu = saturated;
            bound.e2e_ms = 0;
            if (s->ncand == s->keep && !better(s, &bound, &s->cand[s->ncand - 1]))
                return kv_bound;
            c.capacity_tokens_per_s_per_gpu = capacity_at(s->q, r, &e, &o);
        } else if (!(s->q->concurrency > 0))
            c.capacity_tokens_per_s_per_gpu = c.output_tokens_per_s_per_gpu;
        offer(s, &c);
    }
    else if (miss(s->q, c.ttft_ms, c.tpot_ms) < s->closest_miss)
        s->closest_miss = miss(s->q, c.ttft_ms, c.tpot_ms), s->out->closest = c;
    return kv_bound;
}

/* Every precision, draft, engine limit and MoE layout of one TP degree, each unpipelined and
 * then over 2, 4, 8, 16 stages where they divide the GPUs. A configuration is pipelined further
 * only while the last one did not fit or its KV pool bound before max_num_seqs: otherwise more
 * stages add sends and bubbles and halve the sequences per GPU that max_num_seqs admits, while
 * each GPU still reads its share of the weights once per micro-batch as before — no better in
 * throughput per GPU or in latency than the same GPUs unpipelined at a lower load, which the
 * search also tries. */
static void enumerate_tp(search *s, int gpus, int tp, bool tp_ok, int m0, int m1)
{
    const gpuecon_serve_search_request *q = s->q;
    const gpuecon_precision ws[] = {GPUECON_BF16, GPUECON_FP8, GPUECON_FP4};
    const int seqs[] = {64, 128, 256, 512, 1024}, nbt[] = {2048, 4096, 8192, 16384};
    bool fp4 = gpuecon_gpu_peak_flops(q->base.system->gpu, GPUECON_FP4) > 0;
    int kmax = q->base.acceptance > 0 ? q->max_draft : 0;
    /* the prompt's chunk per step: the request's cap (0: none), and, where prompts are longer,
     * vLLM's long_prefill_token_threshold at PROMPT_CAP, which trades TTFT for TPOT (§6.4 T2) */
    int caps[2] = {q->base.long_prefill_token_threshold, PROMPT_CAP}, ncap = 1;
    if (caps[0] == 0 && q->base.prompt_len * (1 - q->base.prefix_hit) > PROMPT_CAP)
        ncap = 2;
    for (int w = 0; w < (fp4 ? 3 : 2); w++)
        for (int kv = 0; kv < 2; kv++)
            for (int k = 0; k <= kmax; k++) {
                if ((q->fixed_weights && ws[w] != q->base.weights) ||
                    (q->fixed_kv && (kv ? GPUECON_FP8 : GPUECON_BF16) != q->base.kv))
                    break; /* a precision the user fixed: only its own is tried */
                for (int ep = m0; ep < m1; ep++)
                    for (int i = 0; i < 5; i++)
                        for (int j = 0; j < 4 * ncap; j++) {
                            gpuecon_infer_request r = q->base;
                            r.long_prefill_token_threshold = caps[j / 4];
                            r.gpus = gpus;
                            r.tp = tp;
                            r.weights = ws[w];
                            r.kv = kv ? GPUECON_FP8 : GPUECON_BF16;
                            r.draft_k = k;
                            r.expert_parallel = ep != 1;
                            r.attention_dp = ep == 2;
                            r.max_num_seqs = seqs[i];
                            r.max_num_batched_tokens = nbt[j % 4];
                            r.concurrency = 0;
                            bool more = true;
                            for (int pp = 1; more && pp <= GPUECON_INFER_MAX_PP && pp <= q->base.model->layers;
                                 pp *= 2) {
                                /* attention-DP is not pipelined, nor is a drafted model: neither
                                 * engine serves one (TensorRT-LLM's PP executor refuses drafting;
                                 * vLLM fails to start it, issues #14117, #49355, #57755) */
                                if ((gpus / tp) % pp || (pp > 1 && (!tp_ok || r.attention_dp || r.draft_k > 0)))
                                    break;
                                r.pp = pp;
                                more = evaluate(s, &r);
                            }
                        }
            }
}

static void enumerate(search *s, int gpus)
{
    const gpuecon_serve_search_request *q = s->q;
    const gpuecon_system *sys = q->base.system;
    bool moe = q->base.model->experts > 0;
    /* MoE layouts: experts EP inside a TP replica, TP-sliced experts, or attention data-parallel
     * over tp GPUs with experts EP across them (the only one past the NVLink domain) */
    for (int tp = 1; tp <= gpus; tp++) {
        bool tp_ok = tp <= sys->scaleup_gpus && infer_check_tp(q->base.model, tp, NULL) == GPUECON_OK;
        bool dp_ok = moe && tp > 1; /* EP need not divide the experts: redundant ones even the slots (EP1) */
        if (gpus % tp || (!tp_ok && !dp_ok))
            continue;
        int m0 = tp_ok ? 0 : 2, m1 = dp_ok ? 3 : moe && tp > 1 ? 2 : 1;
        enumerate_tp(s, gpus, tp, tp_ok, m0, m1);
    }
}

static int by_x_desc(const void *a, const void *b)
{
    const fpoint *p = a, *q = b;
    return (p->x < q->x) - (p->x > q->x);
}

/* Upper-right Pareto set of (tokens/s/user, tokens/s/GPU), at most GPUECON_SERVE_FRONTIER
 * points (evenly thinned when longer); each point's configuration is re-timed to fill it. */
static void frontier(search *s)
{
    qsort(s->pts, s->npts, sizeof *s->pts, by_x_desc);
    size_t n = 0;
    double ymax = -1;
    for (size_t i = 0; i < s->npts; i++)
        if (s->pts[i].y > ymax) {
            ymax = s->pts[i].y;
            s->pts[n++] = s->pts[i];
        }
    size_t step = (n + GPUECON_SERVE_FRONTIER - 1) / GPUECON_SERVE_FRONTIER;
    step = step ? step : 1;
    int k = 0;
    for (size_t i = 0; i < n && k < GPUECON_SERVE_FRONTIER; i += step) {
        const fpoint *f = &s->pts[i];
        gpuecon_infer_request r = s->q->base;
        r.gpus = f->gpus;
        r.tp = f->tp;
        r.draft_k = f->k;
        r.max_num_seqs = f->smax;
        r.max_num_batched_tokens = f->nbt;
        r.long_prefill_token_threshold = f->cap;
        r.weights = (gpuecon_precision)f->w;
        r.kv = (gpuecon_precision)f->kv;
        r.expert_parallel = f->ep;
        r.attention_dp = f->dp;
        r.pp = f->pp;
        infer_arch a;
        infer_env e;
        gpuecon_infer_result o;
        gpuecon_infer_point p;
        if (infer_prepare_core(&r, &a, &e, &o, NULL) != GPUECON_OK)
            continue;
        infer_point(&r, &e, &o, f->C, &p);
        fill(&s->out->frontier[k++], &r, &o, &p);
    }
    s->out->nfrontier = k;
}

/* The request that gives configuration c (the search's base with c's choices). */
static void request_of(const search *s, const gpuecon_serve_config *c, gpuecon_infer_request *r)
{
    *r = s->q->base;
    r->gpus = c->gpus;
    r->tp = c->tp;
    r->weights = c->weights;
    r->kv = c->kv;
    r->draft_k = c->draft_k;
    r->expert_parallel = c->expert_parallel;
    r->attention_dp = c->attention_dp;
    r->pp = c->pp;
    r->max_num_seqs = c->max_num_seqs;
    r->max_num_batched_tokens = c->max_num_batched_tokens;
    r->long_prefill_token_threshold = c->long_prefill_token_threshold;
}

/* capacity_at for a configuration the screen kept (0 if it no longer prepares). */
static double capacity_of(const search *s, const gpuecon_serve_config *c)
{
    gpuecon_infer_request r;
    request_of(s, c, &r);
    r.concurrency = 0;
    infer_arch a;
    infer_env e;
    gpuecon_infer_result o;
    if (infer_prepare_core(&r, &a, &e, &o, NULL) != GPUECON_OK)
        return 0;
    return capacity_at(s->q, &r, &e, &o);
}

/* Re-runs one candidate in the simulator; backs off the load when it misses, and when a closed
 * loop thrashes: the screen puts the operating point of an unconstrained search at the KV pool's
 * mean-field capacity, where the running contexts overflow the pool about half the time, and a
 * simulated run that preempts and serves under THRASH of the screen's tokens/s was past what the
 * scheduler sustains. Of the attempts that meet the targets the one serving most is kept (on one
 * configuration its cost ranks the same: fixed $/GPU-h over the tokens served); if none meets,
 * the last, at the lowest load. A fixed rate or concurrency is the user's load and is not moved. */
#define THRASH 0.90
static int confirm(search *s, gpuecon_serve_config *c, gpuecon_error *err)
{
    const gpuecon_serve_search_request *q = s->q;
    gpuecon_sim_request r;
    gpuecon_sim_request_init(&r);
    request_of(s, c, &r.serve);
    r.lengths = q->base.output_cv > 0 ? GPUECON_LENGTHS_LOGNORMAL : GPUECON_LENGTHS_FIXED;
    r.requests = q->sim_requests;
    r.ttft_slo_ms = q->ttft_ms;
    r.tpot_slo_ms = q->tpot_ms;
    r.slo_percentile = q->slo_percentile;
    double users = c->concurrency, screen = c->output_tokens_per_s_per_gpu;
    gpuecon_serve_config best = *c;
    for (int attempt = 0; attempt < 3; attempt++) {
        if (q->rate > 0) {
            r.arrival = GPUECON_ARRIVAL_POISSON;
            r.rate = q->rate;
        } else {
            r.requests = q->sim_requests;
            if (!sim_closed_loop(&r, users, c->replicas, NULL))
                /* the GPU count made it so (confirming is on by default, so --confirm was once
                   blamed though never given) */
                return err_set(err, GPUECON_E_INPUT, OPTION("search_gpus"), 0, 0,
                               "%d GPUs at a concurrency of %.0f make a closed loop beyond the simulator that "
                               "confirms the best configurations (at most %s users, %s requests per replica); "
                               "search fewer GPUs, or skip the simulator with " OPTION("confirm") " 0",
                               c->gpus, users, NUM_VAL(SIM_MAX_USERS), NUM_VAL((double)SIM_MAX_REQUESTS));
        }
        gpuecon_sim_result o;
        int rc = gpuecon_infer_simulate(s->ctx, &r, &o, err);
        if (rc)
            return rc;
        gpuecon_serve_config t = *c;
        t.simulated = true;
        t.ttft_ms = o.ttft_ms.at_slo;
        t.tpot_ms = o.tpot_ms.at_slo;
        t.e2e_ms = t.ttft_ms + (q->base.output_len - 1) * t.tpot_ms;
        t.output_tokens_per_s = o.output_tokens_per_s;
        t.output_tokens_per_s_per_gpu = o.output_tokens_per_s_per_gpu;
        t.tokens_per_s_per_user = t.tpot_ms > 0 ? 1e3 / t.tpot_ms : 0;
        t.concurrency = q->rate > 0 ? o.mean_running * c->replicas : r.users;
        t.meets = meets(q, t.ttft_ms, t.tpot_ms);
        t.keeps_up = keeps_up(q, &t);
        if (attempt == 0 || (t.meets ? !best.meets || t.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu
                                     : !best.meets))
            best = t;
        bool thrash = o.preemptions > 0 && t.output_tokens_per_s_per_gpu < THRASH * screen;
        if ((t.meets && !thrash) || q->rate > 0 || q->concurrency > 0 || r.users <= c->replicas)
            break;
        users *= 0.85;
    }
    *c = best;
    return GPUECON_OK;
}

/* Confirms candidates in rank order with the simulator (at most 2·confirm runs); those that
 * still meet the targets are ranked by what the simulator found, then unconfirmed ones. Past
 * the first `confirm` answers, a candidate whose screen figures beat the worst confirmed answer
 * is confirmed too while runs remain: the mean field can be optimistic (a full KV pool, steps
 * that alternate prompt chunks and decodes), and an unconfirmed row listed below a confirmed one
 * it seems to beat would read as a contradiction. */
static int finish(search *s, gpuecon_error *err)
{
    const gpuecon_serve_search_request *q = s->q;
    gpuecon_serve_search_result *out = s->out;
    int k = 0, runs = 0, nconf = 0; /* nconf: the confirmed answers listed, which lead the list */
    for (int i = 0; i < s->ncand && k < q->top; i++) {
        gpuecon_serve_config c = s->cand[i];
        if (q->concurrency > 0) /* shown beside the fixed load (evaluate skips it there) */
            c.capacity_tokens_per_s_per_gpu = capacity_of(s, &c);
        if (runs < 2 * q->confirm &&
            (nconf < q->confirm || (nconf > 0 && better(s, &c, &out->best[nconf - 1])))) {
            double usd_rate = c.usd_per_mtok * priced_load(q, &c); /* $/GPU-s, up to units */
            int rc = confirm(s, &c, err);
            if (rc)
                return rc;
            runs++;
            if (usd_rate > 0 && priced_load(q, &c) > 0)
                c.usd_per_mtok = usd_rate / priced_load(q, &c);
            if (!c.meets) {
                double m = miss(q, c.ttft_ms, c.tpot_ms);
                if (m < s->closest_miss)
                    s->closest_miss = m, out->closest = c;
                continue;
            }
            /* two engine limits that differed in the screen can simulate alike (the same users,
             * neither limit binding): the answer is listed once and frees its confirmation */
            bool seen = false;
            for (int j = 0; j < k && !seen; j++)
                seen = out->best[j].simulated && same_answer(&out->best[j], &c);
            if (seen)
                continue;
            nconf++;
        }
        /* insert in better() order among the simulated ones; unconfirmed ones stay after them */
        int j = k++;
        while (j > 0 && c.simulated && (!out->best[j - 1].simulated || better(s, &c, &out->best[j - 1]))) {
            out->best[j] = out->best[j - 1];
            j--;
        }
        out->best[j] = c;
    }
    out->nbest = k;
    out->feasible = k > 0;
    if (!out->feasible) {
        for (int i = 0; i < nconf; i++) { /* confirmed misses can be the closest too */
            double m = miss(q, s->cand[i].ttft_ms, s->cand[i].tpot_ms);
            if (m < s->closest_miss)
                s->closest_miss = m, out->closest = s->cand[i];
        }
        out->miss_ttft_ms = q->ttft_ms > 0 ? fmax(0, out->closest.ttft_ms - q->ttft_ms) : 0;
        out->miss_tpot_ms = q->tpot_ms > 0 ? fmax(0, out->closest.tpot_ms - q->tpot_ms) : 0;
        if (q->rate > 0 && out->miss_ttft_ms == 0 && out->miss_tpot_ms == 0)
            return err_set(err, GPUECON_E_INFEASIBLE, OPTION("rate"), 0, 0,
                           "no configuration serves %s requests/s; the closest (TP %d x PP %d, %d replicas) "
                           "reaches %s requests/s", NUM_VAL(q->rate), out->closest.tp, out->closest.pp,
                           out->closest.replicas, NUM_SIG(out->closest.output_tokens_per_s / q->base.output_len, 3));
        return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                       "no configuration meets the targets; the closest (TP %d x PP %d x %d replicas, %s "
                       "weights, %s KV, draft %d) has TTFT %.1f ms, TPOT %.2f ms: %.1f ms and %.2f ms over",
                       out->closest.tp, out->closest.pp, out->closest.replicas, gpuecon_precision_name(out->closest.weights),
                       gpuecon_precision_name(out->closest.kv), out->closest.draft_k, out->closest.ttft_ms,
                       out->closest.tpot_ms, out->miss_ttft_ms, out->miss_tpot_ms);
    }
    return GPUECON_OK;
}

int gpuecon_infer_search(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req,
                         gpuecon_serve_search_result *out, gpuecon_error *err)
{
    if (!ctx || !req || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a request and a result are required");
    memset(out, 0, sizeof *out);
    int rc = check(req, err);
    if (rc)
        return rc;
    search s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.q = req;
    s.out = out;
    s.keep = req->top > req->confirm ? req->top : req->confirm;
    s.keep = s.keep + req->confirm < MAX_CAND ? s.keep + req->confirm : MAX_CAND;
    s.closest_miss = INFINITY;
    if (req->ngpus == 0)
        enumerate(&s, req->base.gpus);
    for (size_t i = 0; i < req->ngpus; i++)
        enumerate(&s, req->gpus[i]);
    if (s.nomem)
        rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for the frontier");
    else if (out->configs_evaluated == 0)
        rc = err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0, "%s fits on %s in no configuration searched",
                     req->base.model->name, req->base.system->name);
    else {
        frontier(&s);
        rc = finish(&s, err);
    }
    ctx_free(ctx, s.pts, s.cap * sizeof *s.pts);
    return rc;
}
