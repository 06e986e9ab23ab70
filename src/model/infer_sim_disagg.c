/*
 * infer_sim_disagg.c — gpuecon_infer_disagg_simulate: a disaggregated prefill/decode deployment
 * request by request (docs/model.md §6.13).
 *
 * Each instance is an engine of the aggregated simulator (infer_sim.c: the same scheduler, KV
 * pool and step timing), on its own layout: x prefill engines whose requests leave after their
 * first token, and y decode engines that admit them once their KV has arrived. Arrivals go round
 * robin to the prefill instances and handed-off requests round robin to the decode instances, as
 * vLLM's disaggregated proxy does (examples/online_serving/disaggregated_serving/
 * disagg_proxy_demo.py, RoundRobinSchedulingPolicy over its prefill and decode cyclers). A
 * prompt's KV crosses its prefill instance's link in D3's time, one transfer at a time per
 * instance (so the links carry D3's x / t_kv requests/s); its blocks on the prefill instance are
 * released when its prefill ends.
 *
 * Key choice: a discrete-event loop over the engines' clocks, the next arrival and the next KV
 * arrival, taking the earliest (arrivals and KV arrivals before a step that starts at the same
 * instant, as the aggregated loop issues arrivals before scheduling). Each engine steps exactly
 * as the aggregated replica does, so one prefill instance whose token budget holds one prompt
 * is an M/D/1 queue, as in the aggregated case.
 */
#include "model/model.h"
#include "infer_sim.h"

#include <string.h>

static bool before(const sim_ws *w, int a, int b)
{
    double ta = w->q[a].first, tb = w->q[b].first; /* when the KV arrives */
    return ta < tb || (ta == tb && a < b);
}

static void heap_push(sim_ws *w, int i)
{
    long k = w->nheap++;
    while (k > 0 && before(w, i, w->heap[(k - 1) / 2])) {
        w->heap[k] = w->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    w->heap[k] = i;
}

static int heap_pop(sim_ws *w)
{
    int top = w->heap[0], last = w->heap[--w->nheap];
    long k = 0;
    for (;;) {
        long c = 2 * k + 1;
        if (c >= w->nheap)
            break;
        if (c + 1 < w->nheap && before(w, w->heap[c + 1], w->heap[c]))
            c++;
        if (!before(w, w->heap[c], last))
            break;
        w->heap[k] = w->heap[c];
        k = c;
    }
    if (w->nheap > 0)
        w->heap[k] = last;
    return top;
}

/* Request i finished its prefill on prefill engine g at t: its KV goes to a decode instance. */
static void sim_handoff(sim_ws *w, sim_eng *g, int i, double t)
{
    const sim_disagg *dz = w->c->dz;
    sreq *q = &w->q[i];
    double start = t > g->link ? t : g->link;
    double end = start + infer_disagg_kv_s(&dz->link, dz->sys, dz->over, dz->pa, q->prompt);
    g->link = end;
    /* the first token reaches the user with the hand-off: TTFT includes the transfer (D4) */
    q->first = q->last = end;
    w->next[i] = dz->x + w->rr_d++ % dz->y; /* its decode instance, until it is queued there */
    heap_push(w, i);
}

/* The engine with work whose clock is earliest (NULL: none has work). */
static sim_eng *next_engine(sim_ws *w)
{
    sim_eng *g = NULL;
    for (int e = 0; e < w->neng; e++) {
        sim_eng *h = &w->eng[e];
        if ((h->nrun > 0 || h->wcount > 0) && (!g || h->t < g->t))
            g = h;
    }
    return g;
}

static void event_loop(sim_ws *w)
{
    const gpuecon_sim_request *r = w->c->req;
    bool burst = r->arrival == GPUECON_ARRIVAL_BURST;
    bool closed = burst || r->arrival == GPUECON_ARRIVAL_CLOSED;
    if (closed)
        for (long u = 0; (burst || u < w->c->users) && w->issued < w->n; u++)
            sim_issue(w, 0);
    else
        w->next_arrival = sim_gap(w);
    while (w->finished < w->n) {
        sim_eng *g = next_engine(w);
        double ta = !closed && w->issued < w->n ? w->next_arrival : INFINITY;
        double th = w->nheap > 0 ? w->q[w->heap[0]].first : INFINITY;
        double tg = g ? g->t : INFINITY;
        if (ta < INFINITY && ta <= th && ta <= tg) {
            sim_issue(w, ta);
            w->next_arrival += sim_gap(w);
        } else if (th < INFINITY && th <= tg) {
            int i = heap_pop(w);
            sim_enqueue(w, &w->eng[w->next[i]], i, th);
        } else if (!g || !sim_eng_step(w, g)) {
            w->out->rc = GPUECON_E_INTERNAL;
            return;
        } else if (sim_canceled(w)) {
            return;
        }
    }
}

/* Runs a disaggregated replication in the prepared workspace (requests and histograms set up). */
static void sim_disagg_run(gpuecon_ctx *ctx, sim_ws *w)
{
    const sim_disagg *dz = w->c->dz;
    int ne = dz->x + dz->y, made = 0;
    w->eng = ctx_alloc(ctx, (size_t)ne * sizeof *w->eng);
    w->heap = ctx_alloc(ctx, (size_t)w->n * sizeof *w->heap);
    bool ok = w->eng && w->heap;
    for (; ok && made < ne; made++)
        ok = sim_eng_init(ctx, &w->eng[made], made < dz->x ? &dz->pre : &dz->dec, made < dz->x ? 0 : 1,
                          made < dz->x);
    w->neng = ne;
    if (ok)
        event_loop(w);
    else
        w->out->rc = GPUECON_E_NOMEM;
    for (int e = 0; w->eng && e < made; e++)
        sim_eng_free(ctx, &w->eng[e]);
    ctx_free(ctx, w->eng, (size_t)ne * sizeof *w->eng);
    ctx_free(ctx, w->heap, (size_t)w->n * sizeof *w->heap);
}

/* Both pools' cfgs from the prepared sides; lengths capped by both pools. */
static int build(const gpuecon_disagg_sim_request *req, gpuecon_sim_request *pre_req, const infer_side *p,
                 const infer_side *d, const gpuecon_disagg_result *an, sim_disagg *dz, gpuecon_error *err)
{
    memset(dz, 0, sizeof *dz);
    *pre_req = req->sim;
    pre_req->serve.draft_k = 0; /* a prefill instance samples one token, no drafts */
    int rc;
    if ((rc = sim_build_cfg(pre_req, &p->a, &p->e, &p->o, &dz->pre, err)) ||
        (rc = sim_build_cfg(&req->sim, &d->a, &d->e, &d->o, &dz->dec, err)))
        return rc;
    dz->handoff = sim_handoff;
    dz->run = sim_disagg_run;
    dz->x = req->prefill_instances;
    dz->y = req->decode_instances;
    dz->sys = req->sim.serve.system;
    dz->pa = &p->a;
    dz->over = an->kv_over_scaleout;
    comm_link_init(&dz->link, dz->sys, NULL);
    dz->pre.dz = dz->dec.dz = dz;
    int lo = dz->pre.max_len < dz->dec.max_len ? dz->pre.max_len : dz->dec.max_len;
    dz->pre.max_len = dz->dec.max_len; /* prompt + output on a decode instance */
    dz->pre.max_prompt = lo - 1;       /* the prompt and its first token on both */
    return GPUECON_OK;
}

static void pools(const sim_rep *s, const sim_disagg *dz, gpuecon_disagg_sim_result *out)
{
    double win = s->window_s, x = dz->x, y = dz->y;
    if (!(win > 0))
        return;
    out->prefill_busy = s->busy[0] / (x * win);
    out->decode_busy = s->busy[1] / (y * win);
    out->prefill_kv_util = s->pool_kv[0] / (x * win);
    out->decode_kv_util = s->pool_kv[1] / (y * win);
    out->prefill_running = s->pool_run[0] / (x * win);
    out->decode_running = s->pool_run[1] / (y * win);
    out->sim.kv_util = out->decode_kv_util;
    out->sim.mean_running = out->decode_running;
}

static int simulate(gpuecon_ctx *ctx, const gpuecon_disagg_sim_request *req, infer_side *sd,
                    gpuecon_disagg_sim_result *out, gpuecon_error *err)
{
    gpuecon_disagg_request q = {.base = req->sim.serve, .prefill_instances = req->prefill_instances,
                                .prefill_tp = req->prefill_tp, .decode_instances = req->decode_instances,
                                .decode_tp = req->decode_tp};
    q.base.tp = 0;
    q.base.concurrency = 0;
    int rc = sim_mean_lengths(&req->sim, &q.base, err); /* the analytic model at a histogram's means */
    if (rc || (rc = infer_disagg_prepare(&q, &sd[0], &sd[1], &out->analytic, err)))
        return rc;
    out->analytic_tokens_per_s = out->analytic.capacity * q.base.output_len;
    const gpuecon_sim_request *r = &req->sim;
    bool open = r->arrival == GPUECON_ARRIVAL_POISSON || r->arrival == GPUECON_ARRIVAL_GAMMA;
    if (open && r->rate < out->analytic.capacity) {
        infer_disagg_at_rate(&q, &sd[0], &sd[1], r->rate, &out->analytic);
        out->analytic_at_rate = true;
    }
    gpuecon_sim_request pre_req;
    sim_disagg dz;
    if ((rc = build(req, &pre_req, &sd[0], &sd[1], &out->analytic, &dz, err)))
        return rc;
    dz.pre.overloaded = open && !(r->rate < out->analytic.capacity); /* as the aggregated one */
    /* the work: the decode instances' batch at the rate (past it, or closed: their saturation) */
    double batch = out->analytic_at_rate ? out->analytic.decode_batch : sd[1].o.max_concurrency / sd[1].o.replicas;
    gpuecon_sim_request wq = *r;
    wq.serve.output_len = q.base.output_len;
    if ((rc = sim_check_work(ctx, &wq, batch, sd[1].o.alpha, err)))
        return rc;
    if ((rc = sim_cdf(ctx, &dz.pre, err)))
        return rc;
    out->sim.deploy = sd[1].o;
    out->sim.deploy.gpus = out->analytic.gpus_used;
    out->sim.deploy.replicas = 1;
    out->sim.replications = r->replications;
    out->sim.overloaded = dz.pre.overloaded;
    sim_rep sum;
    rc = sim_run_waves(ctx, &dz.pre, &out->sim, &sum, &out->decode_queue_ms, err);
    if (!rc)
        pools(&sum, &dz, out);
    sim_cdf_free(ctx, &dz.pre);
    return rc;
}

int gpuecon_infer_disagg_simulate(gpuecon_ctx *ctx, const gpuecon_disagg_sim_request *req,
                                  gpuecon_disagg_sim_result *out, gpuecon_error *err)
{
    if (!ctx || !req || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a request and a result are required");
    memset(out, 0, sizeof *out);
    int rc = sim_check(&req->sim, err);
    if (rc)
        return rc;
    if (!req->sim.serve.model || !req->sim.serve.system)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system are required");
    if (req->sim.serve.attention_dp && req->sim.serve.model->experts > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("attention_dp"), 0, 0,
                       "the simulator runs a disaggregated instance as one scheduler, an attention-DP instance has one "
                       "per GPU: drop --simulate for the analytic model, or " OPTION("attention_dp") " off");
    /* the event loop scans the instances for the next step (O(x + y) per event) */
    if ((double)req->prefill_instances + req->decode_instances > SIM_MAX_INSTANCES)
        return err_set(err, GPUECON_E_INPUT, req->prefill_instances > req->decode_instances ? OPTION("prefill") : OPTION("decode"),
                       0, 0, "%d prefill + %d decode instances: the simulator runs at most %d in all (the router "
                       "splits evenly, so a slice of the deployment shows its latencies)",
                       req->prefill_instances, req->decode_instances, SIM_MAX_INSTANCES);
    infer_side *sd = ctx_alloc(ctx, 2 * sizeof *sd); /* large: kept off the stack */
    if (!sd)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for the deployment");
    rc = simulate(ctx, req, sd, out, err);
    ctx_free(ctx, sd, 2 * sizeof *sd);
    return rc;
}
