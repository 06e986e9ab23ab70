/*
 * infer_sim_run.c — gpuecon_infer_simulate: checks a simulation request, prepares the
 * deployment with the analytic model (memory, KV pool, step environment), runs independent
 * replications of one replica on threads and merges them (docs/model.md §6.11).
 *
 * Key choice: replications run in waves of one per thread and are folded in replication
 * order (histogram counts are integers; the floating-point sums are added in that order), so
 * the result is bit-identical for any thread count. The router is assumed to split arrivals
 * (Poisson thinning is exact for random routing) or users evenly, so one replica is simulated
 * and its rates are multiplied by the replica count.
 */
#include "model/model.h"
#include "infer_sim.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void gpuecon_sim_request_init(gpuecon_sim_request *r)
{
    memset(r, 0, sizeof *r);
    gpuecon_infer_request_init(&r->serve);
    r->arrival = GPUECON_ARRIVAL_POISSON;
    r->burstiness = 1;
    r->lengths = GPUECON_LENGTHS_FIXED;
    r->requests = 10000;
    r->replications = 1;
    r->warmup = 0.1;
    r->preempt = GPUECON_PREEMPT_RECOMPUTE;
    r->swap_gbps = 25;
    r->slo_percentile = 90;
}

static int check_bins(const gpuecon_sim_request *r, gpuecon_error *err)
{
    if (r->nbins == 0 || !r->bins)
        return err_set(err, GPUECON_E_INPUT, OPTION("lengths"), 0, 0, "a length histogram needs at least one bin");
    for (size_t i = 0; i < r->nbins; i++) {
        const gpuecon_length_bin *b = &r->bins[i];
        if (!(b->prompt >= 1 && b->prompt <= 1e8 && b->prompt == floor(b->prompt)) ||
            !(b->output >= 1 && b->output <= 1e8 && b->output == floor(b->output)))
            return err_set(err, GPUECON_E_INPUT, OPTION("lengths"), (int)i + 1, 0,
                           "bin %zu: lengths must be whole numbers of tokens from 1 to 100M (got %s, %s)",
                           i + 1, NUM_VAL(b->prompt), NUM_VAL(b->output));
        if (!(b->weight > 0 && b->weight < 1e300))
            return err_set(err, GPUECON_E_INPUT, OPTION("lengths"), (int)i + 1, 0,
                           "bin %zu: the weight must be above 0 (got %s)", i + 1, NUM_VAL(b->weight));
    }
    return GPUECON_OK;
}

int sim_check(const gpuecon_sim_request *r, gpuecon_error *err)
{
    int rc;
    if (r->arrival == GPUECON_ARRIVAL_BURST) {
        /* no rate, no users: the requests are the whole workload */
    } else if (r->arrival == GPUECON_ARRIVAL_CLOSED) {
        if (r->users < 1 || r->users > SIM_MAX_USERS)
            return err_set(err, GPUECON_E_INPUT, OPTION("users"), 0, 0,
                           "%d is out of range; allowed 1 to %s concurrent users", r->users, NUM_BOUND(SIM_MAX_USERS));
    } else if (r->arrival == GPUECON_ARRIVAL_POISSON || r->arrival == GPUECON_ARRIVAL_GAMMA) {
        if (!(r->rate > 0 && r->rate <= 1e9))
            return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0,
                           "%s requests/s is out of range; allowed above 0 up to 1B", NUM_VAL(r->rate));
        if (r->arrival == GPUECON_ARRIVAL_GAMMA &&
            (rc = err_check_range(err, OPTION("burstiness"), r->burstiness, 1e-3, 1e3)))
            return rc;
    } else {
        return err_set(err, GPUECON_E_INPUT, OPTION("arrival"), 0, 0, "allowed: poisson, gamma, closed, burst");
    }
    if (!(r->slo_percentile > 0 && r->slo_percentile < 100))
        return err_set(err, GPUECON_E_INPUT, OPTION("slo_percentile"), 0, 0,
                       "%s is outside (0, 100): a percentile of the requests", NUM_VAL(r->slo_percentile));
    if ((rc = err_check_range(err, OPTION("requests"), (double)r->requests, 10, (double)SIM_MAX_REQUESTS)) ||
        (rc = err_check_range(err, OPTION("replications"), r->replications, 1, 10000)) ||
        (rc = err_check_range(err, OPTION("warmup"), r->warmup, 0, 0.9)) ||
        (rc = err_check_range(err, OPTION("prompt_cv"), r->prompt_cv, 0, 10)) ||
        (rc = err_check_range(err, OPTION("ttft_ms"), r->ttft_slo_ms, 0, 1e9)) ||
        (rc = err_check_range(err, OPTION("tpot_ms"), r->tpot_slo_ms, 0, 1e9)))
        return rc;
    if (r->preempt == GPUECON_PREEMPT_SWAP && (rc = err_check_range(err, OPTION("swap_gbps"), r->swap_gbps, 1e-3, 1e4)))
        return rc;
    if (r->preempt != GPUECON_PREEMPT_SWAP && r->preempt != GPUECON_PREEMPT_RECOMPUTE)
        return err_set(err, GPUECON_E_INPUT, OPTION("preempt"), 0, 0, "allowed: recompute, swap");
    if (r->lengths == GPUECON_LENGTHS_HISTOGRAM)
        return check_bins(r, err);
    if (r->lengths != GPUECON_LENGTHS_FIXED && r->lengths != GPUECON_LENGTHS_LOGNORMAL)
        return err_set(err, GPUECON_E_INPUT, OPTION("lengths"), 0, 0, "allowed: fixed, lognormal, or a histogram file");
    return GPUECON_OK;
}

int sim_build_cfg(const gpuecon_sim_request *r, const infer_arch *a, const infer_env *e,
                  const gpuecon_infer_result *o, sim_cfg *c, gpuecon_error *err)
{
    memset(c, 0, sizeof *c);
    c->e = e;
    c->req = r;
    c->pool = o->kv_avail_gib * INFER_GIB;
    c->ngroups = a->ngroups;
    c->block = o->block_size;
    for (int g = 0; g < a->ngroups; g++) {
        c->window[g] = a->g[g].window;
        c->group_block[g] = a->g[g].kv_bytes * o->block_size;
    }
    c->max_seqs = o->max_num_seqs;
    c->budget = o->max_num_batched_tokens;
    c->chunk_cap = r->serve.long_prefill_token_threshold;
    c->k = r->serve.draft_k;
    c->alpha = o->alpha;
    c->hit = r->serve.prefix_hit;
    c->reserve = e->prof.kv_reserve;
    if (c->budget < c->k + 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_num_batched_tokens"), 0, 0,
                       "%d cannot hold one verify step of %d positions", c->budget, c->k + 1);
    /* the longest request the engine takes: max_model_len and what the pool holds alone */
    double lo = 2, hi = o->max_model_len, extra = c->reserve ? c->k : 0; /* a reservation holds k more */
    if (sim_seq_bytes(c, hi + extra) > c->pool) {
        while (hi - lo > 1) {
            double mid = floor((lo + hi) / 2);
            if (sim_seq_bytes(c, mid + extra) <= c->pool)
                lo = mid;
            else
                hi = mid;
        }
        hi = lo;
    }
    c->max_len = (int)hi;
    c->max_prompt = c->max_len - 1;
    if (r->arrival == GPUECON_ARRIVAL_BURST) {
        c->users = 0;
    } else if (r->arrival == GPUECON_ARRIVAL_CLOSED) {
        if (r->users < o->replicas)
            return err_set(err, GPUECON_E_INPUT, OPTION("users"), 0, 0,
                           "%d users cannot keep %d replicas busy; give at least one per replica",
                           r->users, o->replicas);
        c->users = (int)lround((double)r->users / o->replicas);
        /* The first `users` requests all start together at t = 0; a run that is little more
         * than that start measures nothing of the loop. */
        if (r->requests < 2L * c->users)
            return err_set(err, GPUECON_E_INPUT, OPTION("requests"), 0, 0,
                           "%ld requests cannot measure a closed loop of %d users per replica: its first %d "
                           "all start at t = 0; give at least %ld",
                           (long)r->requests, c->users, c->users, 2L * c->users);
    } else {
        c->rate = r->rate / o->replicas;
    }
    return GPUECON_OK;
}

static void fold(gpuecon_sim_result *out, sim_rep *sum, sim_hist *tot, const sim_rep *r, const sim_hist *h)
{
    sum->window_s += r->window_s;
    sum->tokens += r->tokens;
    sum->measured += r->measured;
    sum->done += r->done;
    sum->good += r->good;
    sum->zero_wait += r->zero_wait;
    sum->kv_time += r->kv_time;
    sum->run_time += r->run_time;
    sum->preemptions += r->preemptions;
    sum->steps += r->steps;
    sum->truncated += r->truncated;
    for (int p = 0; p < 2; p++) {
        sum->busy[p] += r->busy[p];
        sum->pool_kv[p] += r->pool_kv[p];
        sum->pool_run[p] += r->pool_run[p];
    }
    for (int m = 0; m < SIM_METRICS; m++) {
        for (int b = 0; b < SIM_BINS; b++)
            tot->n[m][b] += h->n[m][b];
        tot->sum[m] += h->sum[m];
        tot->count[m] += h->count[m];
    }
    out->requests += (long)r->measured;
}

static void stat(const sim_hist *h, int m, double pct, gpuecon_sim_stat *s)
{
    s->mean = h->count[m] ? h->sum[m] / (double)h->count[m] * 1e3 : 0;
    s->p50 = sim_hist_quantile(h, m, 50) * 1e3;
    s->p90 = sim_hist_quantile(h, m, 90) * 1e3;
    s->p99 = sim_hist_quantile(h, m, 99) * 1e3;
    s->at_slo = sim_hist_quantile(h, m, pct) * 1e3;
}

static void summarise(const gpuecon_sim_request *r, const sim_rep *s, const sim_hist *h, gpuecon_sim_result *o)
{
    double nrep = o->deploy.replicas, reps = r->replications, win = s->window_s;
    o->window_s = win / reps;
    stat(h, SIM_TTFT, r->slo_percentile, &o->ttft_ms);
    stat(h, SIM_TPOT, r->slo_percentile, &o->tpot_ms);
    stat(h, SIM_ITL, r->slo_percentile, &o->itl_ms);
    stat(h, SIM_E2E, r->slo_percentile, &o->e2e_ms);
    stat(h, SIM_QUEUE, r->slo_percentile, &o->queue_ms);
    if (win > 0) {
        o->output_tokens_per_s = nrep * s->tokens / win;
        o->requests_per_s = nrep * s->done / win;
        o->goodput_requests_per_s = nrep * s->good / win;
        o->kv_util = s->kv_time / win;
        o->mean_running = s->run_time / win;
    }
    o->output_tokens_per_s_per_gpu = o->output_tokens_per_s / o->deploy.gpus;
    o->zero_wait_fraction = s->measured > 0 ? s->zero_wait / s->measured : 0;
    o->preemptions = s->preemptions / reps;
    o->steps = s->steps / reps;
    o->truncated = s->truncated;
    o->meets_slo = (r->ttft_slo_ms <= 0 || o->ttft_ms.at_slo <= r->ttft_slo_ms) &&
                   (r->tpot_slo_ms <= 0 || o->tpot_ms.at_slo <= r->tpot_slo_ms);
}

int sim_run_waves(gpuecon_ctx *ctx, const sim_cfg *c, gpuecon_sim_result *out, sim_rep *sum_out,
                  gpuecon_sim_stat *dqueue, gpuecon_error *err)
{
    const gpuecon_sim_request *r = c->req;
    int nt = 1;
#ifdef _OPENMP
    nt = ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
#endif
    nt = nt < 1 ? 1 : nt > r->replications ? r->replications : nt;
    sim_rep *reps = ctx_alloc(ctx, (size_t)nt * sizeof *reps);
    sim_hist *hs = ctx_alloc(ctx, (size_t)(nt + 1) * sizeof *hs);
    int rc = reps && hs ? GPUECON_OK : GPUECON_E_NOMEM;
    sim_rep sum;
    memset(&sum, 0, sizeof sum);
    uint64_t seed = ctx->cfg.seed;
    for (int base = 0; rc == GPUECON_OK && base < r->replications; base += nt) {
        int nw = r->replications - base < nt ? r->replications - base : nt;
        atomic_int stop = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (int i = 0; i < nw; i++)
            sim_replicate(ctx, c, seed, base + i, nt == 1, nt > 1 ? &stop : NULL, &reps[i], &hs[i + 1]);
        for (int i = 0; i < nw && rc == GPUECON_OK; i++) {
            rc = reps[i].rc;
            fold(out, &sum, &hs[0], &reps[i], &hs[i + 1]);
        }
        /* in requests, as sim_canceled reports inside a lone replication */
        if (rc == GPUECON_OK && ctx->cfg.progress &&
            ctx->cfg.progress(ctx->cfg.progress_ud, (double)(base + nw) * (double)r->requests,
                              (double)r->replications * (double)r->requests))
            rc = GPUECON_E_CANCELED;
    }
    if (rc == GPUECON_OK) {
        summarise(r, &sum, &hs[0], out);
        if (dqueue)
            stat(&hs[0], SIM_DQUEUE, r->slo_percentile, dqueue);
    }
    if (sum_out)
        *sum_out = sum;
    out->threads = nt;
    out->seed = seed;
    ctx_free(ctx, reps, (size_t)nt * sizeof *reps);
    ctx_free(ctx, hs, (size_t)(nt + 1) * sizeof *hs);
    if (rc == GPUECON_E_NOMEM)
        return err_set(err, rc, "", 0, 0, "out of memory for %ld simulated requests", r->requests);
    if (rc == GPUECON_E_CANCELED)
        return err_set(err, rc, "", 0, 0, "simulation canceled");
    if (rc)
        return err_set(err, GPUECON_E_INTERNAL, "", 0, 0, "the scheduler stalled (no request could be scheduled)");
    return GPUECON_OK;
}

int sim_cdf(gpuecon_ctx *ctx, sim_cfg *c, gpuecon_error *err)
{
    const gpuecon_sim_request *r = c->req;
    if (r->lengths != GPUECON_LENGTHS_HISTOGRAM)
        return GPUECON_OK;
    c->cdf = ctx_alloc(ctx, r->nbins * sizeof *c->cdf);
    if (!c->cdf)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for the length histogram");
    double cum = 0;
    for (size_t i = 0; i < r->nbins; i++)
        c->cdf[i] = cum += r->bins[i].weight;
    return GPUECON_OK;
}

void sim_cdf_free(gpuecon_ctx *ctx, sim_cfg *c)
{
    if (c->cdf)
        ctx_free(ctx, c->cdf, c->req->nbins * sizeof *c->cdf);
    c->cdf = NULL;
}

double sim_work_s(const gpuecon_sim_request *r, double batch, double alpha)
{
    double b = batch > 1 ? batch : 1;
    /* a draft of k accepted position by position with probability alpha yields
     * (1 - alpha^(k+1)) / (1 - alpha) tokens per sequence and step (Leviathan et al. 2023) */
    int k = r->serve.draft_k > 0 ? r->serve.draft_k : 0;
    double tau = k > 0 && alpha > 0 && alpha < 1 ? (1 - pow(alpha, k + 1)) / (1 - alpha) : 1;
    /* per request; per step it takes part in, its share of the step and 1/B of the step itself */
    double per = SIM_WORK_REQ + r->serve.output_len / tau * (SIM_WORK_SEQ + SIM_WORK_STEP / b);
    return (double)r->requests * r->replications * per;
}

bool sim_closed_loop(gpuecon_sim_request *q, double users, int replicas, double *need)
{
    double u = fmax(replicas, round(users));
    double n = fmax((double)q->requests, 2 * round(u / replicas));
    if (need)
        *need = n;
    if (n > (double)SIM_MAX_REQUESTS || u > SIM_MAX_USERS)
        return false;
    q->arrival = GPUECON_ARRIVAL_CLOSED;
    q->rate = 0;
    q->users = (int)u;
    q->requests = (long)n;
    return true;
}

int sim_check_work(gpuecon_ctx *ctx, const gpuecon_sim_request *r, double batch, double alpha, gpuecon_error *err)
{
    double work = sim_work_s(r, batch, alpha);
    if (!(work > ctx->cfg.max_work_s))
        return GPUECON_OK;
    return err_set(err, GPUECON_E_INPUT, r->replications > 1 ? OPTION("replications") : OPTION("requests"), 0, 0,
                   "the simulation would take about %s CPU-seconds (%ld requests x %d replication%s of %s output "
                   "tokens at about %s sequences a step), above the work budget of %s s; use fewer requests or "
                   "replications, or raise the budget with " OPTION("max_work"), NUM_SIG(work, 2), r->requests,
                   r->replications, r->replications > 1 ? "s" : "", NUM_VAL(r->serve.output_len),
                   NUM_SIG(batch > 1 ? batch : 1, 3), NUM_VAL(ctx->cfg.max_work_s));
}

/* The mean running batch per replica a run of r on o will see, for its work estimate: the
 * saturated one for a burst or past saturation, the users for a closed loop, else the mean
 * field's concurrency that serves the rate (Little's law, as infer --search's operating point). */
static double sim_batch(const gpuecon_sim_request *r, const infer_env *e, const gpuecon_infer_result *o,
                        const sim_cfg *c)
{
    double bsat = o->max_concurrency / o->replicas;
    if (r->arrival == GPUECON_ARRIVAL_BURST || c->overloaded)
        return bsat;
    if (r->arrival == GPUECON_ARRIVAL_CLOSED)
        return fmin(bsat, c->users);
    gpuecon_infer_point p; /* not overloaded, so the rate is served below the top */
    double C = infer_rate_c(&r->serve, e, o, r->rate * r->serve.output_len, 0, &p);
    return C > 0 ? fmin(bsat, C / o->replicas) : bsat;
}

int sim_mean_lengths(const gpuecon_sim_request *r, gpuecon_infer_request *serve, gpuecon_error *err)
{
    if (r->lengths != GPUECON_LENGTHS_HISTOGRAM)
        return GPUECON_OK;
    double w = 0, pl = 0, ol = 0;
    for (size_t i = 0; i < r->nbins; i++)
        w += r->bins[i].weight, pl += r->bins[i].weight * r->bins[i].prompt, ol += r->bins[i].weight * r->bins[i].output;
    serve->prompt_len = pl / w;
    serve->output_len = ol / w;
    const gpuecon_model *m = serve->model;
    if (m && m->max_seq > 0 && serve->prompt_len + serve->output_len > m->max_seq)
        return err_set(err, GPUECON_E_INPUT, OPTION("lengths"), 0, 0,
                       "the histogram's mean request, prompt %.0f + output %.0f tokens, exceeds %s's context of "
                       "%d tokens (a longer bin is cut to the context; the mean must fit)",
                       serve->prompt_len, serve->output_len, m->name, m->max_seq);
    return GPUECON_OK;
}

int gpuecon_infer_simulate(gpuecon_ctx *ctx, const gpuecon_sim_request *req0, gpuecon_sim_result *out,
                           gpuecon_error *err)
{
    return sim_simulate(ctx, req0, out, NULL, err);
}

int sim_simulate(gpuecon_ctx *ctx, const gpuecon_sim_request *req0, gpuecon_sim_result *out, infer_sim_trace *trace,
                 gpuecon_error *err)
{
    if (!ctx || !req0 || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a request and a result are required");
    memset(out, 0, sizeof *out);
    int rc = sim_check(req0, err);
    if (rc)
        return rc;
    gpuecon_sim_request q = *req0, *req = &q;
    if ((rc = sim_mean_lengths(req0, &q.serve, err))) /* the analytic model at a histogram's means */
        return rc;
    infer_arch a;
    infer_env e;
    if ((rc = infer_prepare(&req->serve, &a, &e, &out->deploy, err)))
        return rc;
    sim_cfg c;
    if ((rc = sim_build_cfg(req, &a, &e, &out->deploy, &c, err)))
        return rc;
    /* past saturation the queue grows while requests arrive: the arrivals' span, the usual
     * window, would hold the ramp and no completions (docs/model.md §6.11) */
    c.overloaded = (req->arrival == GPUECON_ARRIVAL_POISSON || req->arrival == GPUECON_ARRIVAL_GAMMA) &&
                   req->rate * req->serve.output_len >= out->deploy.saturated_tokens_per_s;
    double batch = sim_batch(req, &e, &out->deploy, &c);
    if ((rc = sim_check_work(ctx, req, batch, out->deploy.alpha, err)))
        return rc;
    if ((rc = sim_cdf(ctx, &c, err)))
        return rc;
    out->replications = req->replications;
    out->overloaded = c.overloaded;
    sim_rep sum;
    if (trace) { /* the schedule's inputs (infer_sim_trace.c checks when a trace is wanted) */
        c.trace = trace;
        trace->pool = c.pool, trace->ngroups = c.ngroups, trace->block = c.block, trace->max_seqs = c.max_seqs;
        trace->budget = c.budget, trace->max_len = c.max_len, trace->chunk_cap = c.chunk_cap;
        trace->reserve = c.reserve;
        for (int g = 0; g < INFER_MAX_GROUPS; g++)
            trace->window[g] = g < c.ngroups ? c.window[g] : 0, trace->group_block[g] = g < c.ngroups ? c.group_block[g] : 0;
        trace->replicas = out->deploy.replicas;
    }
    rc = sim_run_waves(ctx, &c, out, trace ? &sum : NULL, NULL, err);
    if (trace) {
        trace->tokens = sum.tokens;
        trace->figure = out->output_tokens_per_s;
    }
    sim_cdf_free(ctx, &c);
    return rc;
}
