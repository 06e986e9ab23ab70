/*
 * infer_sim.c — one replication of one replica of a continuous-batching server, request by
 * request (docs/model.md §6.11).
 *
 * The scheduler follows vLLM V1's `Scheduler.schedule` (vllm/v1/core/sched/scheduler.py):
 * each step first serves the running requests in admission order — a decoding request takes
 * k + 1 positions (1 without speculation), a prefilling one the rest of its prompt up to the
 * step's token budget (chunked prefill, max_num_batched_tokens) — allocating the KV blocks the
 * new tokens need; when the pool is empty it preempts the newest running request (recompute:
 * its KV is dropped and it re-prefills prompt + output so far; swap: its KV goes to host
 * memory and comes back, priced on the host link). Then, if nothing was preempted, it admits
 * waiting requests first come first served while fewer than max_num_seqs run and budget and
 * blocks remain. Prefix-cache hits count as computed prompt tokens (no compute; their blocks
 * are held, which is conservative). Each step is timed by the analytic step model
 * (infer_step_batch: roofline, communication, overheads, drafts) on the batch it actually
 * holds: every decoding sequence reads its own context, every prefill chunk attends to the
 * tokens before it. A step's last prefill chunk samples the request's next token.
 *
 * Key choice: time advances step by step (an engine has no other events), and idles to the next
 * arrival when nothing waits, so one request on an empty server starts the instant it arrives
 * and a one-step-per-request server is exactly an M/D/1 or M/G/1 queue. The work per step is
 * O(running requests) with no allocation.
 */
#include "model/model.h"
#include "infer_sim.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { F_MEASURED = 1, F_STARTED = 2, F_SWAPPED = 4, F_DECODING = 8, F_DONE = 16, F_GOOD = 32 };

/* ---- distributions ---------------------------------------------------------------------- */

static double normal(rng *r)
{
    double u = rng_u01(r), v = rng_u01(r);
    return sqrt(-2 * log1p(-u)) * cos(6.283185307179586 * v);
}

/* Marsaglia & Tsang (2000); shape < 1 through Gamma(a + 1)·U^(1/a). Mean a·scale. */
static double gamma_draw(rng *r, double a, double scale)
{
    double boost = 1;
    if (a < 1) {
        boost = pow(1 - rng_u01(r), 1 / a);
        a += 1;
    }
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x = normal(r), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = 1 - rng_u01(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v * scale * boost;
    }
}

static int lognormal_len(rng *r, double mean, double cv)
{
    if (cv <= 0)
        return (int)fmax(1, round(mean));
    double s2 = log1p(cv * cv), x = exp(log(mean) - s2 / 2 + sqrt(s2) * normal(r));
    return (int)fmin(1e8, fmax(1, round(x)));
}

static void draw_lengths(sim_ws *w, int *p, int *o)
{
    const sim_cfg *c = w->c;
    const gpuecon_sim_request *q = c->req;
    if (q->lengths == GPUECON_LENGTHS_HISTOGRAM) {
        double u = rng_u01(&w->r) * c->cdf[q->nbins - 1];
        size_t lo = 0, hi = q->nbins - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        *p = (int)q->bins[lo].prompt;
        *o = (int)q->bins[lo].output;
    } else {
        bool ln = q->lengths == GPUECON_LENGTHS_LOGNORMAL;
        *p = ln ? lognormal_len(&w->r, q->serve.prompt_len, q->prompt_cv) : (int)fmax(1, round(q->serve.prompt_len));
        *o = ln ? lognormal_len(&w->r, q->serve.output_len, q->serve.output_cv) : (int)fmax(1, round(q->serve.output_len));
    }
    if (*p + *o > c->max_len || *p > c->max_prompt) { /* the engine refuses longer requests; the client caps them */
        w->out->truncated++;
        if (*p > c->max_prompt)
            *p = c->max_prompt;
        if (*p + *o > c->max_len)
            *o = c->max_len - *p;
    }
}

double sim_gap(sim_ws *w)
{
    const sim_cfg *c = w->c;
    if (c->req->arrival == GPUECON_ARRIVAL_GAMMA) /* vLLM bench: gamma(shape b, scale 1/(rate·b)) */
        return gamma_draw(&w->r, c->req->burstiness, 1 / (c->rate * c->req->burstiness));
    return rng_exp(&w->r, c->rate);
}

/* ---- KV pool and attention sums --------------------------------------------------------- */

double sim_seq_bytes(const sim_cfg *c, double n)
{
    double b = 0;
    for (int g = 0; g < c->ngroups; g++) {
        double w = c->window[g], t = n < w ? n : w;
        double blocks = ceil(t / c->block) + (n > w ? 1 : 0);
        b += blocks * c->group_block[g];
    }
    return b;
}

/* Tokens the blocks for n tokens cover: the next block boundary, or an earlier window edge
 * (past which a sliding-window group adds its extra block). */
static int cover(const sim_cfg *c, int n)
{
    int cap = (n + c->block - 1) / c->block * c->block;
    for (int g = 0; g < c->ngroups; g++)
        if (n <= c->window[g] && c->window[g] < cap)
            cap = (int)c->window[g];
    return cap;
}

/* ---- requests ---------------------------------------------------------------------------- */

static bool idle(const sim_eng *g)
{
    return g->nrun == 0 && g->wcount == 0;
}

void sim_enqueue(sim_ws *w, sim_eng *g, int i, double t)
{
    if (idle(g) && g->t < t)
        g->t = t; /* an idle engine starts the instant work arrives */
    w->next[i] = -1;
    if (g->wtail >= 0)
        w->next[g->wtail] = i;
    else
        g->whead = i;
    g->wtail = i;
    g->wcount++;
}

static void push_front(sim_ws *w, sim_eng *g, int i)
{
    w->next[i] = g->whead;
    g->whead = i;
    if (g->wtail < 0)
        g->wtail = i;
    g->wcount++;
}

static int pop_front(sim_ws *w, sim_eng *g)
{
    int i = g->whead;
    g->whead = w->next[i];
    if (g->whead < 0)
        g->wtail = -1;
    g->wcount--;
    return i;
}

void sim_issue(sim_ws *w, double t)
{
    long i = w->issued++;
    sreq *q = &w->q[i];
    memset(q, 0, sizeof *q);
    q->arrive = t;
    draw_lengths(w, &q->prompt, &q->output);
    q->need = q->prompt;
    if (i >= w->measure_from)
        q->flags |= F_MEASURED;
    if (i == w->measure_from)
        w->t_a = t, w->have_a = true;
    if (w->issued == w->n && w->c->req->arrival != GPUECON_ARRIVAL_BURST && !w->c->overloaded)
        w->t_b = t, w->have_b = true; /* a burst's window closes at the last finish */
    /* disaggregated: round robin over the prefill instances (docs/model.md §6.13) */
    int e = w->c->dz ? w->rr_p++ % w->c->dz->x : 0;
    sim_enqueue(w, &w->eng[e], (int)i, t);
}

static void preempt(sim_ws *w, sim_eng *g, int i)
{
    sreq *q = &w->q[i];
    g->used -= q->held;
    if (g->c->req->preempt == GPUECON_PREEMPT_SWAP) {
        g->swap_bytes += q->held;
        q->flags |= F_SWAPPED;
    } else {
        q->need = q->prompt + q->gen; /* cached prompt blocks are hit again */
        int hit = (int)floor(g->c->hit * q->prompt);
        q->done = q->ctx = hit < q->need ? hit : q->need - 1;
    }
    q->held = 0;
    q->cap = 0;
    w->out->preemptions++;
    push_front(w, g, i);
}

static void record(sim_hist *h, int m, double x)
{
    /* the bin of the last x again: the sequences one step advances mostly share their ITL, so
     * log10 runs about once per step, not per token; the same bins, the same bytes */
    int b = 0;
    if (x == h->last_x)
        b = h->last_bin;
    else if (x >= 1e-6) {
        double k = floor(log10(x * 1e6) * SIM_PER_DECADE);
        b = 1 + (k < SIM_BINS - 2 ? (int)k : SIM_BINS - 2);
    }
    h->last_x = x;
    h->last_bin = b;
    h->n[m][b]++;
    h->sum[m] += x;
    h->count[m]++;
}

static void finish(sim_ws *w, sim_eng *g, sreq *q, double t)
{
    const gpuecon_sim_request *r = w->c->req;
    g->used -= q->held;
    q->held = 0;
    w->finished++;
    w->t_end = t;
    double ttft = q->first - q->arrive, e2e = t - q->arrive;
    double tpot = q->output > 1 ? (t - q->first) / (q->output - 1) : 0;
    q->last = t; /* its finish, for the window's completions (window_count) */
    q->flags |= F_DONE;
    if ((r->ttft_slo_ms <= 0 || ttft * 1e3 <= r->ttft_slo_ms) && (r->tpot_slo_ms <= 0 || tpot * 1e3 <= r->tpot_slo_ms))
        q->flags |= F_GOOD;
    if (q->flags & F_MEASURED) {
        record(w->h, SIM_TTFT, ttft);
        record(w->h, SIM_E2E, e2e);
        if (q->output > 1)
            record(w->h, SIM_TPOT, tpot);
        w->out->measured++;
    }
    if (r->arrival == GPUECON_ARRIVAL_CLOSED && w->issued < w->n)
        sim_issue(w, t);
}

/* ---- one step ----------------------------------------------------------------------------- */

/* Tokens to schedule for request q with `budget` left (0: none fit). */
static int wanted(const sim_cfg *c, const sreq *q, int budget)
{
    if (q->done >= q->need)
        return budget >= c->k + 1 ? c->k + 1 : 0;
    int rest = q->need - q->done;
    if (c->chunk_cap > 0 && rest > c->chunk_cap) /* vLLM: 0 < long_prefill_token_threshold < num_new_tokens */
        rest = c->chunk_cap;
    return rest < budget ? rest : budget;
}

static void admit_first(sim_ws *w, sim_eng *g, sreq *q)
{
    if (g->pool == 1 && !(q->flags & F_DECODING)) { /* a decode instance admits a handed-off request */
        q->flags |= F_DECODING;
        if (q->flags & F_MEASURED)
            record(w->h, SIM_DQUEUE, g->t - q->first);
    }
    if (q->flags & F_STARTED)
        return;
    q->flags |= F_STARTED;
    int hit = (int)floor(g->c->hit * q->prompt);
    q->done = q->ctx = hit < q->prompt ? hit : q->prompt - 1;
    if (q->flags & F_MEASURED) {
        record(w->h, SIM_QUEUE, g->t - q->arrive);
        if (g->t == q->arrive)
            w->out->zero_wait++;
    }
}

/* Serves the running requests in order while budget and blocks last, preempting from the
 * back of the list when the pool is full. Returns how many, from the front, are scheduled;
 * *preempted says whether any request was pushed out. */
static int schedule(sim_ws *w, sim_eng *g, int *budget, bool *preempted)
{
    const sim_cfg *c = g->c;
    *preempted = false;
    for (int i = 0; i < g->nrun; i++) {
        sreq *q = &w->q[g->run[i]];
        int take = wanted(c, q, *budget);
        if (take == 0)
            return i; /* the rest stay running, unscheduled this step */
        g->take[i] = take;
        *budget -= take;
        if (q->ctx + take <= q->cap)
            continue; /* the held blocks have room */
        double need = sim_seq_bytes(c, q->ctx + take) - q->held;
        while (need > c->pool - g->used && g->nrun > i) {
            preempt(w, g, g->run[--g->nrun]);
            *preempted = true;
        }
        if (g->nrun == i) { /* it preempted itself */
            *budget += take;
            return i;
        }
        q->held += need;
        q->cap = cover(c, q->ctx + take);
        g->used += need;
    }
    return g->nrun;
}

/* Admits waiting requests first come first served (after every running one got its share). */
static void admit(sim_ws *w, sim_eng *g, int *budget)
{
    const sim_cfg *c = g->c;
    while (g->wcount > 0 && g->nrun < c->max_seqs && *budget > 0) {
        int i = g->whead;
        sreq *q = &w->q[i];
        sreq probe = *q;
        if (!(q->flags & F_STARTED)) {
            int hit = (int)floor(c->hit * q->prompt);
            probe.done = probe.ctx = hit < q->prompt ? hit : q->prompt - 1;
        }
        int take = wanted(c, &probe, *budget);
        /* A2: a reserving scheduler admits only what it can run to the end (a prefill
           instance's end is the first token) */
        int upto = c->reserve ? q->prompt + (g->prefill ? 1 : q->output) + c->k : probe.ctx + take;
        double need = take > 0 ? sim_seq_bytes(c, upto) : 0;
        if (take == 0 || need > c->pool - g->used)
            break;
        pop_front(w, g);
        admit_first(w, g, q);
        if (q->flags & F_SWAPPED) {
            g->swap_bytes += sim_seq_bytes(c, q->ctx);
            q->flags &= ~F_SWAPPED;
        }
        q->held = need;
        q->cap = cover(c, upto);
        g->used += need;
        g->take[g->nrun] = take;
        g->run[g->nrun++] = i;
        *budget -= take;
    }
}

static int accepted(sim_ws *w, const sim_cfg *c)
{
    int a = 1;
    while (a <= c->k && rng_u01(&w->r) < c->alpha)
        a++;
    return a;
}

/* Adds the part of a step inside the measurement window. */
static void window_add(sim_ws *w, sim_eng *g, double t0, double t1, double tokens, double running, double used)
{
    if (!w->have_a)
        return;
    double lo = fmax(t0, w->t_a), hi = w->have_b ? fmin(t1, w->t_b) : t1;
    if (hi <= lo)
        return;
    double f = t1 > t0 ? (hi - lo) / (t1 - t0) : 0;
    w->out->tokens += tokens * f;
    w->out->busy[g->pool] += hi - lo;
    w->out->pool_kv[g->pool] += (hi - lo) * used / g->c->pool;
    w->out->pool_run[g->pool] += (hi - lo) * running;
}

/* One step into a trace (infer_sim_trace.c re-times it). */
bool sim_trace_add(infer_sim_trace *t, const infer_batch *b, double swap_bytes)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        infer_batch *nb = ctx_alloc(t->ctx, cap * sizeof *nb);
        double *ns = ctx_alloc(t->ctx, cap * sizeof *ns);
        if (!nb || !ns) {
            ctx_free(t->ctx, nb, cap * sizeof *nb);
            ctx_free(t->ctx, ns, cap * sizeof *ns);
            return false;
        }
        if (t->n) {
            memcpy(nb, t->b, t->n * sizeof *nb);
            memcpy(ns, t->swap, t->n * sizeof *ns);
        }
        ctx_free(t->ctx, t->b, t->cap * sizeof *t->b);
        ctx_free(t->ctx, t->swap, t->cap * sizeof *t->swap);
        t->b = nb, t->swap = ns, t->cap = cap;
    }
    t->b[t->n] = *b;
    t->swap[t->n++] = swap_bytes;
    return true;
}

static double batch_time(sim_ws *w, sim_eng *g, int nsched)
{
    const sim_cfg *c = g->c;
    infer_batch b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < nsched; i++) {
        const sreq *q = &w->q[g->run[i]];
        b.seqs++;
        if (q->done >= q->need) {
            b.dec += c->k + 1;
            for (int k = 0; k < c->ngroups; k++)
                b.kv_ctx[k] += q->ctx < c->window[k] ? q->ctx : c->window[k];
        } else {
            b.pre += g->take[i];
            b.pre_parts++;
            for (int k = 0; k < c->ngroups; k++)
                b.pre_ctx[k] += infer_pairs(q->ctx, g->take[i], c->window[k]);
        }
    }
    gpuecon_infer_step s;
    infer_step_batch(c->e, &b, &s);
    if (c->trace && c->trace->ok)
        c->trace->ok = sim_trace_add(c->trace, &b, g->swap_bytes);
    double dt = s.step_s + g->swap_bytes / (c->req->swap_gbps * 1e9);
    g->swap_bytes = 0;
    return dt;
}

/* Times the scheduled batch [0, nsched), advances the clock and applies what it produced:
 * prefill progress, sampled tokens (a draft run accepts a geometric prefix), finishes; a
 * prefill instance hands a request with tokens still to come to a decode instance. */
static void run_step(sim_ws *w, sim_eng *g, int nsched)
{
    double t0 = g->t, t1 = t0 + batch_time(w, g, nsched), used = g->used, tokens = 0;
    w->out->steps++;
    g->t = t1;
    int keep = 0, nrun = g->nrun;
    for (int i = 0; i < nrun; i++) {
        int id = g->run[i];
        sreq *q = &w->q[id];
        int emit = 0;
        if (i < nsched) {
            if (q->done < q->need) {
                q->done += g->take[i];
                q->ctx += g->take[i];
                emit = q->done >= q->need;
            } else {
                emit = accepted(w, g->c);
                q->ctx += emit;
            }
        }
        if (emit > 0) {
            emit = emit < q->output - q->gen ? emit : q->output - q->gen;
            if (q->gen == 0)
                q->first = t1;
            else if (q->flags & F_MEASURED)
                record(w->h, SIM_ITL, t1 - q->last);
            q->last = t1;
            q->gen += emit;
            tokens += emit;
        }
        if (q->gen >= q->output) {
            finish(w, g, q, t1); /* may re-issue into a waiting queue, never into run[] */
            continue;
        }
        if (g->prefill && q->gen > 0) {
            g->used -= q->held;
            q->held = 0;
            q->cap = 0;
            w->c->dz->handoff(w, g, id, t1); /* a prefill engine is a disaggregated one */
            continue;
        }
        g->run[keep++] = id;
    }
    g->nrun = keep;
    window_add(w, g, t0, t1, tokens, nsched, used);
}

bool sim_eng_step(sim_ws *w, sim_eng *g)
{
    int budget = g->c->budget;
    bool preempted;
    int nsched = schedule(w, g, &budget, &preempted);
    if (!preempted && nsched == g->nrun)
        admit(w, g, &budget), nsched = g->nrun;
    if (nsched == 0) /* cannot happen: lengths are capped to what the pool holds */
        return false;
    run_step(w, g, nsched);
    return true;
}

bool sim_eng_init(gpuecon_ctx *ctx, sim_eng *g, const sim_cfg *c, int pool, bool prefill)
{
    memset(g, 0, sizeof *g);
    g->c = c;
    g->pool = pool;
    g->prefill = prefill;
    g->whead = g->wtail = -1;
    g->run = ctx_alloc(ctx, (size_t)c->max_seqs * sizeof *g->run);
    g->take = ctx_alloc(ctx, (size_t)c->max_seqs * sizeof *g->take);
    return g->run && g->take;
}

void sim_eng_free(gpuecon_ctx *ctx, sim_eng *g)
{
    ctx_free(ctx, g->run, (size_t)g->c->max_seqs * sizeof *g->run);
    ctx_free(ctx, g->take, (size_t)g->c->max_seqs * sizeof *g->take);
}

/* One aggregated replica: time advances step by step and idles to the next arrival. */
static void run_aggregated(sim_ws *w)
{
    const sim_cfg *c = w->c;
    sim_eng *g = &w->eng[0];
    bool burst = c->req->arrival == GPUECON_ARRIVAL_BURST;
    bool closed = burst || c->req->arrival == GPUECON_ARRIVAL_CLOSED;
    if (closed)
        for (long u = 0; (burst || u < c->users) && w->issued < w->n; u++)
            sim_issue(w, 0);
    else
        w->next_arrival = sim_gap(w);
    while (w->finished < w->n) {
        while (!closed && w->issued < w->n && w->next_arrival <= g->t) {
            sim_issue(w, w->next_arrival);
            w->next_arrival += sim_gap(w);
        }
        if (idle(g)) { /* idle until the next arrival */
            g->t = w->next_arrival;
            continue;
        }
        if (!sim_eng_step(w, g)) {
            w->out->rc = GPUECON_E_INTERNAL;
            break;
        }
        if (sim_canceled(w))
            break;
    }
}

/* The requests that finished inside the measurement window, and those of them that met the SLO:
 * throughput and goodput count completions over the same window as the tokens (window_add), so
 * requests/s x output length = tokens/s for fixed lengths in steady state, and exactly for a
 * burst (its window holds every request and token). Counting the measured requests instead
 * under-read a burst by its warmup share. A short closed loop is still a start-up transient,
 * and reads low on both counts (docs/model.md §6.11). */
static void window_count(sim_ws *w, bool burst)
{
    if (!w->have_a || !(burst || w->have_b))
        return; /* no window */
    for (long i = 0; i < w->issued; i++) {
        const sreq *q = &w->q[i];
        if ((q->flags & F_DONE) && q->last > w->t_a && (burst || q->last <= w->t_b)) {
            w->out->done++;
            if (q->flags & F_GOOD)
                w->out->good++;
        }
    }
}

/* Every 65,536 engine steps: whether to stop. A lone replication reports its progress; in a wave
 * of parallel replications the caller's thread (OpenMP thread 0) reports for the wave, and a
 * cancel it gets is shared through w->stop, so Ctrl-C stops every replication within steps, not
 * at the end of the wave (which took 81 s with --replications). */
bool sim_canceled(sim_ws *w)
{
    if (++w->ticks & 0xFFFF)
        return false;
    if (w->stop && atomic_load_explicit(w->stop, memory_order_relaxed)) {
        w->out->rc = GPUECON_E_CANCELED;
        return true;
    }
    bool reporter = w->report;
#ifdef _OPENMP
    reporter = reporter || (w->stop && omp_get_thread_num() == 0);
#endif
    const gpuecon_ctx_config *cfg = &w->ctx->cfg;
    if (reporter && cfg->progress && cfg->progress(cfg->progress_ud, w->done0 + (double)w->finished, w->total)) {
        if (w->stop)
            atomic_store_explicit(w->stop, 1, memory_order_relaxed);
        w->out->rc = GPUECON_E_CANCELED;
        return true;
    }
    return false;
}

void sim_replicate(gpuecon_ctx *ctx, const sim_cfg *c, uint64_t seed, int rep, bool report, atomic_int *stop,
                   sim_rep *out, sim_hist *h)
{
    memset(out, 0, sizeof *out);
    memset(h, 0, sizeof *h);
    sim_ws w;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.out = out;
    w.ctx = ctx;
    w.report = report;
    w.stop = stop;
    w.done0 = (double)rep * (double)c->req->requests;
    w.total = (double)c->req->replications * (double)c->req->requests;
    w.h = h;
    w.n = c->req->requests;
    w.measure_from = (long)floor(c->req->warmup * (double)w.n);
    rng_seed(&w.r, seed, (uint64_t)rep);
    w.q = ctx_alloc(ctx, (size_t)w.n * sizeof *w.q);
    w.next = ctx_alloc(ctx, (size_t)w.n * sizeof *w.next);
    sim_eng one;
    if (!w.q || !w.next) {
        out->rc = GPUECON_E_NOMEM;
    } else if (c->dz) {
        c->dz->run(ctx, &w);
    } else {
        w.eng = &one;
        w.neng = 1;
        if (sim_eng_init(ctx, &one, c, 0, false))
            run_aggregated(&w);
        else
            out->rc = GPUECON_E_NOMEM;
        sim_eng_free(ctx, &one);
    }
    bool makespan = c->req->arrival == GPUECON_ARRIVAL_BURST || c->overloaded;
    if (w.q && w.next)
        window_count(&w, makespan);
    if (makespan)
        out->window_s = w.have_a ? w.t_end - w.t_a : 0; /* the makespan */
    else
        out->window_s = w.have_a && w.have_b ? w.t_b - w.t_a : 0;
    out->kv_time = out->pool_kv[c->dz ? 1 : 0];
    out->run_time = out->pool_run[c->dz ? 1 : 0];
    ctx_free(ctx, w.q, (size_t)w.n * sizeof *w.q);
    ctx_free(ctx, w.next, (size_t)w.n * sizeof *w.next);
}

double sim_hist_quantile(const sim_hist *h, int m, double q)
{
    uint64_t n = h->count[m];
    if (n == 0)
        return 0;
    double target = q / 100 * (double)n, cum = 0;
    for (int b = 0; b < SIM_BINS; b++) {
        cum += (double)h->n[m][b];
        if (cum >= target && h->n[m][b] > 0)
            return b == 0 ? 0 : 1e-6 * pow(10, (b - 0.5) / SIM_PER_DECADE);
    }
    return 1e-6 * pow(10, (double)SIM_DECADES);
}
