/*
 * rl_gen.c — the generation phase of an RL step (docs/model.md §8.1–§8.2).
 *
 * A synchronous RL step waits for its slowest sample. Response lengths are lognormal (mean R,
 * coefficient of variation cv); the step stops at the expected largest of the N submitted
 * lengths (Blom's plotting position), or with over-sampling at the N-th shortest of N(1+f),
 * and never beyond the truncation length. Key choice: the rollout batch is a closed loop of
 * requests on the serving model (gpuecon_infer): while more requests wait than the engine's
 * slots (KV capacity, max_num_seqs) hold, slots stay full at the saturated rate; the last wave
 * then drains, its running batch shrinking as responses finish, each decode step timed at the
 * TPOT of the batch still running. Long responses thus cost twice: fewer sequences fit in the
 * KV cache, and the drain runs at small batch where decode is bound by streaming the weights.
 */
#include "rl.h"
#include "train.h"

#include <math.h>
#include <string.h>

static double phi(double x) { return 0.5 * erfc(-x / sqrt(2)); }

static void lognormal_params(double mean, double cv, double *mu, double *sigma)
{
    double s2 = log1p(cv * cv);
    *sigma = sqrt(s2);
    *mu = log(mean) - s2 / 2;
}

double gpuecon_lognormal_order_stat(double mean, double cv, double k, double n)
{
    if (!(cv > 0) || !(mean > 0) || !(n >= 1))
        return mean;
    double mu, sigma, p = (k - 0.375) / (n + 0.25);
    lognormal_params(mean, cv, &mu, &sigma);
    p = fmin(fmax(p, 1e-12), 1 - 1e-12);
    return exp(mu + sigma * train_inv_norm(p));
}

double gpuecon_lognormal_capped_mean(double mean, double cv, double cap)
{
    if (!(cv > 0))
        return fmin(mean, cap);
    double mu, sigma;
    lognormal_params(mean, cv, &mu, &sigma);
    double lc = log(cap);
    return mean * phi((lc - mu - sigma * sigma) / sigma) + cap * (1 - phi((lc - mu) / sigma));
}

/* Survival P[X > t] of the lognormal (cv 0: a step at the mean). */
static double survival(double mean, double cv, double t)
{
    if (!(cv > 0))
        return t < mean ? 1 : 0;
    double mu, sigma;
    lognormal_params(mean, cv, &mu, &sigma);
    return 1 - phi((log(t) - mu) / sigma);
}

int rl_lengths_compute(const gpuecon_rl_request *r, rl_lengths *L, gpuecon_error *err)
{
    memset(L, 0, sizeof *L);
    const gpuecon_model *m = r->policy;
    double ctx = m->max_seq > 0 ? m->max_seq : 1e9;
    if (r->prompt_len + r->response_len > ctx)
        return err_set(err, GPUECON_E_INPUT, "--response-len", 0, 0,
                       "prompt %g + response %g tokens exceed %s's context of %d tokens", r->prompt_len,
                       r->response_len, m->name, m->max_seq);
    L->cap = r->max_response_len > 0 ? r->max_response_len : ctx - r->prompt_len;
    if (r->prompt_len + L->cap > ctx)
        return err_set(err, GPUECON_E_INPUT, "--max-response-len", 0, 0,
                       "prompt %g + %g tokens exceed %s's context of %d tokens", r->prompt_len, L->cap,
                       m->name, m->max_seq);
    if (L->cap < r->response_len)
        return err_set(err, GPUECON_E_INPUT, "--max-response-len", 0, 0,
                       "%g is below the mean response of %g tokens", L->cap, r->response_len);
    L->n = (double)r->prompts * r->samples;
    L->submitted = ceil(L->n * (1 + r->oversample));
    double end = gpuecon_lognormal_order_stat(r->response_len, r->response_cv, L->n, L->submitted);
    L->capped = end >= L->cap;
    L->end = fmin(end, L->cap);
    L->gen_mean = gpuecon_lognormal_capped_mean(r->response_len, r->response_cv, L->end);
    L->kept_mean = L->gen_mean;
    if (L->submitted > L->n && !L->capped && r->response_cv > 0) {
        /* the N kept are those done by `end`: E[X | X <= end] = (E[min] - end·S(end)) / F(end) */
        double s = survival(r->response_len, r->response_cv, L->end);
        if (s < 1)
            L->kept_mean = (L->gen_mean - L->end * s) / (1 - s);
    }
    return GPUECON_OK;
}

static void infer_request(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, int tp, double mem_util,
                          gpuecon_infer_request *q)
{
    gpuecon_infer_request_init(q);
    q->model = r->policy;
    q->system = r->system;
    q->gpus = gpus;
    q->tp = tp;
    q->expert_parallel = true;
    q->weights = r->gen_weights;
    q->kv = r->kv;
    q->prompt_len = r->prompt_len;
    q->output_len = r->response_len;
    q->output_cv = r->response_cv;
    /* the K samples of a prompt share its prefix (vLLM prefix caching, on in veRL/NeMo-RL) */
    q->prefix_hit = fmin(0.99, (r->samples - 1.0) / r->samples);
    q->profile = r->serving;
    q->gpu_mem_util = mem_util;
    q->max_model_len = (int)ceil(r->prompt_len + L->cap);
    if (r->policy->max_seq > 0 && q->max_model_len > r->policy->max_seq)
        q->max_model_len = r->policy->max_seq;
}

#define RL_DRAIN_BINS 64

/* Bulk and drain of one deployment (docs/model.md §8.2). */
static int gen_time(const gpuecon_infer_request *q, const gpuecon_infer_result *g, const gpuecon_rl_request *r,
                    const rl_lengths *L, double *bulk, double *drain, gpuecon_error *err)
{
    double csat = g->max_concurrency;
    if (!(csat >= 1))
        return err_set(err, GPUECON_E_INFEASIBLE, "--gpus", 0, 0, "the generator's KV cache holds no sequence");
    *bulk = L->submitted > csat ? (L->submitted - csat) * L->gen_mean / g->saturated_tokens_per_s : 0;
    double n0 = fmin(L->submitted, csat), conc[RL_DRAIN_BINS];
    for (int i = 0; i < RL_DRAIN_BINS; i++) {
        double t = (i + 0.5) / RL_DRAIN_BINS * L->end;
        conc[i] = fmax(n0 * survival(r->response_len, r->response_cv, t), g->replicas);
    }
    gpuecon_infer_point pt[RL_DRAIN_BINS];
    int rc = gpuecon_infer_sweep(q, conc, RL_DRAIN_BINS, pt, err);
    if (rc)
        return rc;
    *drain = 0;
    for (int i = 0; i < RL_DRAIN_BINS; i++)
        *drain += L->end / RL_DRAIN_BINS * pt[i].tpot_run_ms * 1e-3;
    return GPUECON_OK;
}

int rl_generation(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, double mem_util,
                  gpuecon_rl_result *o, gpuecon_error *err)
{
    int limit = gpus < r->system->scaleup_gpus ? gpus : r->system->scaleup_gpus, rc = GPUECON_E_INFEASIBLE;
    bool found = false;
    gpuecon_error last;
    gpuecon_error_clear(&last);
    err_set(&last, GPUECON_E_INFEASIBLE, "--gen-tp", 0, 0, "no TP degree dividing %d GPUs splits %s's heads",
            gpus, r->policy->name);
    for (int tp = r->gen_tp > 0 ? r->gen_tp : 1; tp <= (r->gen_tp > 0 ? r->gen_tp : limit); tp++) {
        if (gpus % tp)
            continue;
        gpuecon_infer_request q;
        gpuecon_infer_result g;
        infer_request(r, L, gpus, tp, mem_util, &q);
        double bulk = 0, drain = 0;
        int e = gpuecon_infer(&q, &g, &last);
        if (!e)
            e = gen_time(&q, &g, r, L, &bulk, &drain, &last);
        if (e == GPUECON_E_INPUT && r->gen_tp > 0)
            return err_set(err, e, "--gen-tp", 0, 0, "%s", last.message);
        if (e) {
            rc = e == GPUECON_E_INPUT || e == GPUECON_E_INFEASIBLE ? GPUECON_E_INFEASIBLE : e;
            continue;
        }
        if (!found || bulk + drain < o->generation_s) {
            o->gen = g;
            o->gen_bulk_s = bulk;
            o->gen_drain_s = drain;
            o->generation_s = bulk + drain;
            o->gen_tokens_per_s_saturated = g.saturated_tokens_per_s;
        }
        found = true;
    }
    if (found)
        return GPUECON_OK;
    if (!strcmp(last.where, "--max-model-len")) /* not an rl option: its context is prompt + response */
        return err_set(err, rc, "--max-response-len", 0, 0,
                       "generator pool of %d GPUs: a context of prompt plus the longest response does not fit "
                       "its KV cache (vLLM's max_model_len check): %s; lower --max-response-len or add GPUs",
                       gpus, last.message);
    return err_set(err, rc, last.where, 0, 0, "generator pool of %d GPUs: %s", gpus, last.message);
}
