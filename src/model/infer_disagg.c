/*
 * infer_disagg.c — disaggregated prefill/decode serving (docs/model.md §6.13): x prefill
 * instances of TP p and y decode instances of TP d, as DistServe (Zhong et al., OSDI 2024,
 * arXiv:2401.09670) and Splitwise (Patel et al., ISCA 2024, arXiv:2311.18677) run them.
 *
 * A prefill instance computes prompts in full batches of max_num_batched_tokens tokens (no
 * decode in its steps), so it serves nbt/t_batch prompt tokens per second. Its KV cache goes to
 * a decode instance: each of the p prefill GPUs sends its shard of the prompt's KV as one
 * point-to-point transfer, over NVLink when all instances lie in one scale-up domain and over the
 * scale-out network otherwise (the collective model's send-recv, comm.c). A decode instance
 * steps its B running sequences with no prefill riding along (ρ = 0 in S1). At a Poisson rate R
 * the deployment serves R requests/s while R stays below the least of the three capacities;
 * the mean TTFT is DistServe's M/D/1 form (§3.1: a prompt's prefill plus the Pollaczek–Khinchine
 * wait at utilisation R/capacity) plus the transfer, and the mean TPOT is the decode step at the
 * B the decode instances need to finish R requests/s, divided by E.
 *
 * With attention-DP (--attention-dp on, a MoE model) an instance of P GPUs is P attention ranks,
 * each with its own scheduler, sequences and token budget, and its experts spread over all P (the
 * aggregated model's attention-DP replica, docs/model.md §6.5): the instance's capacities are P
 * times one rank's, a rank sends a request's whole KV, and the wait is that of P x instances
 * servers. P need not split the attention heads, and may exceed the NVLink domain, as the
 * aggregated model allows (SGLang's and TensorRT-LLM's wide-EP decode instances: 72 ranks on 9
 * H100 servers in the LMSYS deployment of May 2025, 48 of a GB200 NVL72 in its June 2025 sequel).
 *
 * Key choice: each side is prepared once by the aggregated model (infer_prepare_core: memory,
 * KV pool, engine defaults, step environment) and only timed here, so the ratio search costs a
 * few step evaluations per layout.
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef infer_side side;

/* One instance of TP tp: the prefill side holds prompts only and samples one token. */
static int prep_side(const gpuecon_infer_request *base, int tp, bool prefill, side *s, gpuecon_error *err)
{
    if (base->pp > 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0,
                       "the instances of a disaggregated deployment are TP only (pipeline stages are not "
                       "modelled there); drop " OPTION("pp"));
    gpuecon_infer_request r = *base;
    r.gpus = tp;
    r.tp = tp;
    r.concurrency = 0;
    if (prefill) {
        r.output_len = 1;
        r.draft_k = 0;
        r.output_cv = 0;
    }
    int rc = infer_prepare_core(&r, &s->a, &s->e, &s->o, err);
    if (rc && err && (!strcmp(err->where, OPTION("tp")) || !err->where[0]))
        snprintf(err->where, sizeof err->where, "%s", prefill ? OPTION("prefill") : OPTION("decode"));
    if (!rc && !prefill) { /* nothing is prefilled on a decode instance: its budget carries decodes only */
        s->e.rho = 0;
        s->o.seqs_budget = infer_budget_seqs(&s->e, s->o.max_num_batched_tokens);
        s->o.max_concurrency = s->o.replicas * floor(infer_running_cap(&s->o));
    }
    return rc;
}

/* Output tokens/s of one decode instance at B sequences. */
static double decode_rate(const side *d, double B)
{
    gpuecon_infer_step st;
    infer_step(&d->e, B, 0, &st);
    return B * d->e.E / st.step_s;
}

static double price(const gpuecon_infer_request *r, double per_gpu)
{
    gpuecon_tco t;
    gpuecon_cost c;
    double pue = r->pue > 0 ? r->pue : r->system->pue;
    if ((!r->tco && !(r->usd_per_gpu_hour > 0)) || !(per_gpu > 0))
        return 0;
    if (gpuecon_tco_price(r->tco, r->system, r->pue, r->usd_per_gpu_hour, &t, NULL) != GPUECON_OK ||
        gpuecon_cost_compute(t.usd_per_gpu_hour, r->system->it_w_per_gpu, pue, per_gpu, 0, &c, NULL) != GPUECON_OK)
        return 0;
    return c.usd_per_mtok;
}

double infer_disagg_kv_s(const comm_link *L, const gpuecon_system *sys, bool over, const infer_arch *pa, double prompt)
{
    return comm_time(L, GPUECON_SEND_RECV, 2, over ? sys->scaleup_gpus : 1, infer_kv_resident(pa, prompt));
}

/* Capacities of a layout from its prepared sides (no rate yet). */
static void capacity(const gpuecon_disagg_request *q, const side *p, const side *d, gpuecon_disagg_result *o)
{
    const gpuecon_infer_request *r = &q->base;
    const gpuecon_system *sys = r->system;
    memset(o, 0, sizeof *o);
    o->prefill_gpus = q->prefill_instances * q->prefill_tp;
    o->decode_gpus = q->decode_instances * q->decode_tp;
    o->gpus_used = o->prefill_gpus + o->decode_gpus;
    double fresh = r->prompt_len * (1 - r->prefix_hit), nbt = p->o.max_num_batched_tokens;
    gpuecon_infer_step st;
    infer_step(&p->e, 0, nbt, &st);
    o->prefill_batch_ms = st.step_s * 1e3;
    /* replicas: 1 per instance, or its attention-DP ranks, each with its own budget and batch */
    o->prefill_capacity = q->prefill_instances * p->o.replicas * nbt / st.step_s / fresh;
    double bmax = infer_running_cap(&d->o);
    o->decode_capacity = q->decode_instances * d->o.replicas * decode_rate(d, bmax) / r->output_len;
    /* the whole prompt's KV (prefix hits included: the decode instance needs them too) */
    comm_link L;
    comm_link_init(&L, sys, NULL);
    o->kv_over_scaleout = o->gpus_used > sys->scaleup_gpus;
    o->kv_bytes_per_gpu = infer_kv_resident(&p->a, r->prompt_len);
    double t_kv = infer_disagg_kv_s(&L, sys, o->kv_over_scaleout, &p->a, r->prompt_len);
    o->kv_transfer_ms = t_kv * 1e3;
    o->transfer_capacity = t_kv > 0 ? q->prefill_instances * p->o.replicas / t_kv : INFINITY;
    o->capacity = fmin(o->prefill_capacity, fmin(o->decode_capacity, o->transfer_capacity));
    o->bound = o->capacity == o->prefill_capacity ? "prefill" : o->capacity == o->decode_capacity ? "decode" : "transfer";
    o->prefill = p->o;
    o->decode = d->o;
}

/* Latencies and throughput at rate R (< capacity). */
void infer_disagg_at_rate(const gpuecon_disagg_request *q, const side *p, const side *d, double R, gpuecon_disagg_result *o)
{
    const gpuecon_infer_request *r = &q->base;
    double fresh = r->prompt_len * (1 - r->prefix_hit), nbt = p->o.max_num_batched_tokens;
    o->rate = R;
    o->prefill_utilisation = R / o->prefill_capacity;
    /* a lone prompt, chunked by the token budget (and the long-prefill threshold: a prompt's
       tokens per step; the steps still fill the budget from several prompts, so the capacity
       stays), then the M/D/1 wait of DistServe §3.1 with the per-request service time of a
       batching instance */
    gpuecon_infer_step st;
    double alone = infer_prefill_s(&p->e, 0, fresh, r->prompt_len * r->prefix_hit, fmin(nbt, p->e.chunk_cap));
    double u = o->prefill_utilisation;
    double service = q->prefill_instances * p->o.replicas / o->prefill_capacity; /* per server */
    o->ttft_ms = (alone + u * service / (2 * (1 - u))) * 1e3 + o->kv_transfer_ms;
    /* the decode batch whose throughput finishes R requests/s (throughput rises with B) */
    double need = R * r->output_len / (q->decode_instances * d->o.replicas), lo = 0, hi = infer_running_cap(&d->o);
    for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (decode_rate(d, mid) >= need)
            hi = mid;
        else
            lo = mid;
    }
    o->decode_batch = hi;
    infer_step(&d->e, hi, 0, &st);
    o->tpot_ms = st.step_s / d->e.E * 1e3;
    o->output_tokens_per_s = R * r->output_len;
    o->output_tokens_per_s_per_gpu = o->output_tokens_per_s / o->gpus_used;
    o->usd_per_mtok = price(r, o->output_tokens_per_s_per_gpu);
}

static int check(const gpuecon_disagg_request *q, gpuecon_error *err)
{
    if (!q || !q->base.model || !q->base.system)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system are required");
    int rc;
    if ((rc = err_check_range(err, OPTION("prefill"), q->prefill_instances, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("prefill"), q->prefill_tp, 1, 1024)) ||
        (rc = err_check_range(err, OPTION("decode"), q->decode_instances, 1, 1e6)) ||
        (rc = err_check_range(err, OPTION("decode"), q->decode_tp, 1, 1024)))
        return rc;
    if (!(q->rate >= 0 && q->rate <= 1e9))
        return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0,
                       "%s requests/s is out of range; allowed above 0 up to 1B", NUM_VAL(q->rate));
    double used = (double)q->prefill_instances * q->prefill_tp + (double)q->decode_instances * q->decode_tp;
    if (used > q->base.gpus)
        return err_set(err, GPUECON_E_INPUT, OPTION("prefill"), 0, 0,
                       "%d prefill x TP %d + %d decode x TP %d need %.0f GPUs, more than the %d of " OPTION("gpus"),
                       q->prefill_instances, q->prefill_tp, q->decode_instances, q->decode_tp, used, q->base.gpus);
    return GPUECON_OK;
}

int infer_disagg_prepare(const gpuecon_disagg_request *req, infer_side *p, infer_side *d, gpuecon_disagg_result *out,
                         gpuecon_error *err)
{
    int rc = check(req, err);
    if (rc || (rc = prep_side(&req->base, req->prefill_tp, true, p, err)) ||
        (rc = prep_side(&req->base, req->decode_tp, false, d, err)))
        return rc;
    capacity(req, p, d, out);
    return GPUECON_OK;
}

int gpuecon_infer_disagg(const gpuecon_disagg_request *req, gpuecon_disagg_result *out, gpuecon_error *err)
{
    if (!out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a result record is required");
    memset(out, 0, sizeof *out);
    int rc;
    side p, d;
    if ((rc = infer_disagg_prepare(req, &p, &d, out, err)))
        return rc;
    double R = req->rate > 0 ? req->rate : 0.9 * out->capacity;
    if (!(R < out->capacity))
        return err_set(err, GPUECON_E_INFEASIBLE, OPTION("rate"), 0, 0,
                       "%s requests/s is at or above what %dP%d + %dD%d serves (%s requests/s, bound by %s)",
                       NUM_VAL(R),
                       req->prefill_instances, req->prefill_tp, req->decode_instances, req->decode_tp,
                       NUM_SIG(out->capacity, 4),
                       out->bound);
    infer_disagg_at_rate(req, &p, &d, R, out);
    return GPUECON_OK;
}

static bool meets(double ttft_t, double tpot_t, const gpuecon_disagg_result *o)
{
    return infer_slo_met(ttft_t, tpot_t, o->ttft_ms, o->tpot_ms);
}

/* The largest rate of a prepared layout whose means meet the targets (both grow with R);
 * false when even a trickle misses. */
static bool best_rate(const gpuecon_disagg_request *q, const side *p, const side *d, double ttft_t, double tpot_t,
                      gpuecon_disagg_result *o)
{
    double hi = o->capacity * (1 - 1e-6), lo = hi * 1e-6;
    infer_disagg_at_rate(q, p, d, lo, o);
    if (!meets(ttft_t, tpot_t, o))
        return false;
    infer_disagg_at_rate(q, p, d, hi, o);
    if (meets(ttft_t, tpot_t, o))
        return true;
    for (int i = 0; i < 50 && hi - lo > 1e-6 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        infer_disagg_at_rate(q, p, d, mid, o);
        if (meets(ttft_t, tpot_t, o))
            lo = mid;
        else
            hi = mid;
    }
    infer_disagg_at_rate(q, p, d, lo, o);
    return true;
}

/* Whether the search tries instances of `size` GPUs: attention-DP ones (the request's choice, a MoE
 * model, more than one GPU) of whole servers (gpus_per_node; the published wide-EP instances are
 * whole servers or trays) up to all the GPUs, TP ones inside the NVLink domain that split the
 * heads. */
static bool size_ok(const gpuecon_infer_request *base, int size)
{
    const gpuecon_system *sys = base->system;
    if (base->attention_dp && base->model->experts > 0 && size > 1)
        return size % (sys->gpus_per_node > 0 ? sys->gpus_per_node : 1) == 0;
    return size <= sys->scaleup_gpus && infer_check_tp(base->model, size, NULL) == GPUECON_OK;
}

int gpuecon_infer_disagg_search(const gpuecon_infer_request *base, double ttft_ms, double tpot_ms,
                                gpuecon_disagg_request *best_req, gpuecon_disagg_result *best, long *evaluated,
                                gpuecon_error *err)
{
    if (!base || !base->model || !base->system || !best_req || !best || !evaluated)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a request, a model, a system and results are required");
    if (!(ttft_ms >= 0) || !(tpot_ms >= 0))
        return err_set(err, GPUECON_E_INPUT, ttft_ms >= 0 ? OPTION("tpot_ms") : OPTION("ttft_ms"), 0, 0, "a target must be above 0");
    memset(best, 0, sizeof *best);
    *evaluated = 0;
    int n = base->gpus;
    bool found = false;
    double top = -1;
    for (int pt = 1; pt < n; pt++) {
        side p;
        if (!size_ok(base, pt) || prep_side(base, pt, true, &p, NULL))
            continue;
        for (int dt = 1; pt + dt <= n; dt++) {
            side d;
            if (!size_ok(base, dt) || prep_side(base, dt, false, &d, NULL))
                continue;
            for (int x = 1; x * pt + dt <= n; x++)
                for (int y = 1; x * pt + y * dt <= n; y++) {
                    gpuecon_disagg_request q = {.base = *base, .prefill_instances = x, .prefill_tp = pt,
                                                .decode_instances = y, .decode_tp = dt};
                    gpuecon_disagg_result o;
                    capacity(&q, &p, &d, &o);
                    (*evaluated)++;
                    bool ok = best_rate(&q, &p, &d, ttft_ms, tpot_ms, &o);
                    double v = ok ? o.output_tokens_per_s_per_gpu : -1;
                    if ((ok && (!found || v > top)) || (!found && !ok && o.capacity > best->capacity)) {
                        if (!ok)
                            infer_disagg_at_rate(&q, &p, &d, 0.9 * o.capacity, &o);
                        *best = o;
                        *best_req = q;
                        best_req->rate = o.rate;
                        if (ok)
                            found = true, top = v;
                    }
                }
        }
    }
    if (*evaluated == 0)
        return err_set(err, GPUECON_E_INFEASIBLE, OPTION("gpus"), 0, 0,
                       "no prefill and decode instances of %s fit in %d GPUs of %s (at least two instances)",
                       base->model->name, n, base->system->name);
    if (!found)
        return err_set(err, GPUECON_E_INFEASIBLE, "", 0, 0,
                       "no disaggregated layout meets the targets; the highest-capacity one (%dP TP%d + %dD TP%d) "
                       "has TTFT %.1f ms, TPOT %.2f ms at 90%% of its capacity",
                       best_req->prefill_instances, best_req->prefill_tp, best_req->decode_instances,
                       best_req->decode_tp, best->ttft_ms, best->tpot_ms);
    return GPUECON_OK;
}

/* One sizing candidate at rate R: whether it serves R with means within the targets; *why says
 * which side to grow when it does not ('d': decode capacity or TPOT, 'p': prefill, transfer or
 * TTFT). */
static bool serves_at(const gpuecon_disagg_request *q, const side *p, const side *d, double R, double ttft_t,
                      double tpot_t, gpuecon_disagg_result *o, char *why)
{
    capacity(q, p, d, o);
    if (!(R < o->capacity)) {
        *why = o->capacity == o->decode_capacity ? 'd' : 'p';
        return false;
    }
    infer_disagg_at_rate(q, p, d, R, o);
    if (meets(ttft_t, tpot_t, o))
        return true;
    *why = tpot_t > 0 && o->tpot_ms > tpot_t ? 'd' : 'p';
    return false;
}

int gpuecon_infer_disagg_size(const gpuecon_infer_request *base, double rate, double ttft_ms, double tpot_ms,
                              gpuecon_disagg_request *best_req, gpuecon_disagg_result *best, long *evaluated,
                              gpuecon_error *err)
{
    if (!base || !base->model || !base->system || !best_req || !best || !evaluated)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a request, a model, a system and results are required");
    if (!(rate > 0) || !(rate <= 1e9))
        return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0, "%s requests/s: allowed above 0, up to 1B",
                       NUM_VAL(rate));
    if (!(ttft_ms >= 0) || !(tpot_ms >= 0))
        return err_set(err, GPUECON_E_INPUT, ttft_ms >= 0 ? OPTION("tpot_ms") : OPTION("ttft_ms"), 0, 0,
                       "a target must be above 0");
    memset(best, 0, sizeof *best);
    *evaluated = 0;
    int n = base->gpus, top = n; /* the fewest GPUs found so far (at first: all) */
    bool found = false;
    for (int pt = 1; pt < n; pt++) {
        side p;
        if (!size_ok(base, pt) || prep_side(base, pt, true, &p, NULL))
            continue;
        for (int dt = 1; pt + dt <= n; dt++) {
            side d;
            if (!size_ok(base, dt) || prep_side(base, dt, false, &d, NULL))
                continue;
            /* one instance of each: the capacities grow in proportion to the instances (D1, D2, D3),
               so fewer than R needs cannot serve it */
            gpuecon_disagg_request q = {.base = *base, .prefill_instances = 1, .prefill_tp = pt,
                                        .decode_instances = 1, .decode_tp = dt};
            gpuecon_disagg_result o;
            capacity(&q, &p, &d, &o);
            double per_p = fmin(o.prefill_capacity, o.transfer_capacity), per_d = o.decode_capacity;
            if (!(per_p > 0) || !(per_d > 0))
                continue;
            int x0 = (int)fmin(floor(rate / per_p) + 1, 1e6), y0 = (int)fmin(floor(rate / per_d) + 1, 1e6);
            for (int x = x0; x * pt + y0 * dt <= top; x++)
                for (int y = y0; x * pt + y * dt <= top; y++) {
                    q.prefill_instances = x;
                    q.decode_instances = y;
                    char why = 0;
                    (*evaluated)++;
                    bool ok = serves_at(&q, &p, &d, rate, ttft_ms, tpot_ms, &o, &why);
                    if (ok && (!found || o.gpus_used < top || o.capacity > best->capacity)) {
                        *best = o;
                        *best_req = q;
                        best_req->rate = rate;
                        top = o.gpus_used;
                        found = true;
                    }
                    if (ok || why == 'p') /* more decode instances add GPUs, not prefill */
                        break;
                }
        }
    }
    if (!found)
        return err_set(err, GPUECON_E_INFEASIBLE, OPTION("rate"), 0, 0,
                       "no disaggregated layout of up to %d GPUs (" OPTION("gpus") ") serves %s requests/s of %s "
                       "on %s with mean TTFT and TPOT within the targets; give more GPUs or a lower rate", n,
                       NUM_VAL(rate),
                       base->model->name, base->system->name);
    return GPUECON_OK;
}
