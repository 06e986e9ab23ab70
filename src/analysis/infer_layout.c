/*
 * infer_layout.c — the serving layouts gpuecon chooses when the user gives none
 * (docs/model.md §6.12, "Default layouts"):
 *
 *  - infer_layout_choose: `infer` without --tp and --pp. Every TP × PP the GPUs allow (the
 *    search's layouts, everything else of the request kept) is timed by the analytic model at
 *    the request's load, and the one serving the most output tokens/s per GPU there is taken;
 *    at a rate, where every layout that keeps up serves the same tokens, the one with the most
 *    capacity (tokens/s/GPU at its saturation) is. Formerly the smallest TP that fits was taken,
 *    which on a model that barely fits leaves almost no KV cache (Llama 3 70B FP8 on 8 H100:
 *    TP 1 with 1.2 GiB of KV per GPU).
 *  - infer_aggregated_baseline: the aggregated deployment a disaggregated one is compared
 *    with — the configuration search (§6.12) at the same rate, targets and precisions, on the
 *    fewest GPUs up to those the disaggregated search had.
 */
#include "analysis/analysis.h"
#include "model/infer.h"

#include <math.h>
#include <string.h>

/* Whether a evaluated layout beats b: meeting the targets first, then the metric, metrics within
 * GPUECON_SERVE_CAPACITY_TIE (relatively) going to the lower request latency. */
static bool layout_better(const infer_layout_eval *a, const infer_layout_eval *b)
{
    if (a->meets != b->meets)
        return a->meets;
    double hi = fmax(a->metric, b->metric);
    if (hi > 0 && fabs(a->metric - b->metric) > GPUECON_SERVE_CAPACITY_TIE * hi)
        return a->metric > b->metric;
    return a->e2e_ms < b->e2e_ms;
}

/* One layout at the request's load; false when it does not fit or cannot serve the rate. */
static bool layout_eval(const gpuecon_infer_request *r, double rate, double ttft_ms, double tpot_ms,
                        infer_layout_eval *out)
{
    gpuecon_infer_result o;
    gpuecon_infer_point p;
    if (rate > 0) {
        infer_arch a;
        infer_env e;
        gpuecon_infer_point sat;
        if (infer_prepare_core(r, &a, &e, &o, NULL) != GPUECON_OK)
            return false;
        infer_point(r, &e, &o, o.max_concurrency, &sat);
        double need = rate * r->output_len;
        if (!(sat.output_tokens_per_s >= need) || infer_rate_c(r, &e, &o, need, 1e-3, &p) < 0)
            return false;
        out->metric = sat.output_tokens_per_s_per_gpu; /* the same tokens at the rate: the headroom ranks */
    } else { /* exactly what infer shows for this layout */
        if (gpuecon_infer(r, &o, NULL) != GPUECON_OK)
            return false;
        p = o.at;
        out->metric = p.output_tokens_per_s_per_gpu;
    }
    out->tp = r->tp;
    out->pp = r->pp;
    out->replicas = o.replicas;
    out->output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu;
    out->ttft_ms = p.ttft_ms;
    out->tpot_ms = p.tpot_ms;
    out->e2e_ms = p.ttft_ms + (r->output_len - 1) * p.tpot_ms;
    out->meets = infer_slo_met(ttft_ms, tpot_ms, p.ttft_ms, p.tpot_ms);
    return true;
}

int infer_layout_choose(const gpuecon_infer_request *req, double rate, double ttft_ms, double tpot_ms,
                        infer_layout_choice *out, gpuecon_error *err)
{
    if (!req || !req->model || !req->system || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a request, a model, a system and a result are required");
    memset(out, 0, sizeof *out);
    out->rate = rate;
    out->concurrency = rate > 0 ? 0 : req->concurrency;
    /* the former default: the smallest TP that fits, unpipelined (gpuecon_infer with tp 0) */
    gpuecon_infer_request r = *req;
    r.tp = 0;
    r.pp = 1;
    gpuecon_infer_result o0;
    if (gpuecon_infer(&r, &o0, NULL) == GPUECON_OK) {
        r.tp = o0.attention_dp ? o0.ep : o0.tp;
        out->smallest_fits = true;
        out->has_smallest = layout_eval(&r, rate, ttft_ms, tpot_ms, &out->smallest);
    }
    const gpuecon_system *sys = req->system;
    bool dp = req->attention_dp && req->model->experts > 0;
    int tmax = dp ? req->gpus : (req->gpus < sys->scaleup_gpus ? req->gpus : sys->scaleup_gpus);
    for (int tp = 1; tp <= tmax; tp++) {
        if (req->gpus % tp || (!(dp && tp > 1) && infer_check_tp(req->model, tp, NULL) != GPUECON_OK))
            continue;
        /* attention-DP and drafted models are not pipelined (as the search: neither engine serves one) */
        for (int pp = 1; pp <= GPUECON_INFER_MAX_PP && pp <= req->model->layers; pp *= 2) {
            if ((req->gpus / tp) % pp || (pp > 1 && ((dp && tp > 1) || req->draft_k > 0)))
                break;
            r = *req;
            r.tp = tp;
            r.pp = pp;
            infer_layout_eval v;
            if (!layout_eval(&r, rate, ttft_ms, tpot_ms, &v))
                continue;
            out->evaluated++;
            if (out->evaluated == 1 || layout_better(&v, &out->chosen))
                out->chosen = v;
        }
    }
    if (out->evaluated == 0)
        return GPUECON_E_INFEASIBLE; /* the caller runs the request as given and reports its own error */
    return GPUECON_OK;
}

int infer_aggregated_baseline(gpuecon_ctx *ctx, const gpuecon_infer_request *base, double rate, double ttft_ms,
                              double tpot_ms, int max_gpus, gpuecon_serve_config *out, long *evaluated,
                              gpuecon_error *err)
{
    if (!ctx || !base || !out || !evaluated || !(rate > 0) || max_gpus < 1)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a request, a rate above 0 and GPUs are required");
    memset(out, 0, sizeof *out);
    *evaluated = 0;
    gpuecon_serve_search_request q;
    gpuecon_serve_search_request_init(&q);
    q.base = *base;
    q.base.concurrency = 0;
    q.ttft_ms = ttft_ms;
    q.tpot_ms = tpot_ms;
    q.rate = rate;
    q.confirm = 0; /* the disaggregated figures are the analytic means: so are these */
    q.top = 1;
    q.max_draft = base->draft_k;
    q.fixed_weights = q.fixed_kv = true; /* the disaggregated deployment's precisions */
    /* the fewest GPUs first: at a rate the search's objective is the offered load per GPU, so the
     * first count with a configuration meeting the targets is the best one */
    for (int g = 1; g <= max_gpus; g++) {
        q.gpus = &g;
        q.ngpus = 1;
        gpuecon_serve_search_result res;
        int rc = gpuecon_infer_search(ctx, &q, &res, NULL);
        *evaluated += res.configs_evaluated;
        if (rc == GPUECON_OK && res.feasible) {
            *out = res.best[0];
            return GPUECON_OK;
        }
        if (rc != GPUECON_OK && rc != GPUECON_E_INFEASIBLE)
            return err_set(err, rc, "", 0, 0, "the aggregated search failed");
    }
    return err_set(err, GPUECON_E_INFEASIBLE, OPTION("rate"), 0, 0,
                   "no aggregated configuration of up to %d GPUs serves %s requests/s within the targets", max_gpus,
                   NUM_VAL(rate));
}
