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
#include "model/model.h"
#include "rl.h"
#include "train.h"

#include <math.h>
#include <string.h>

static double phi(double x) { return 0.5 * erfc(-x / sqrt(2)); }

/* The lognormal of a mean and a CV; false when it is a point mass: a CV of 0, or one so small
 * (below about 1e-154) that cv² underflows and sigma would be 0 — every caller divides by sigma. */
static bool lognormal_params(double mean, double cv, double *mu, double *sigma)
{
    double s2 = cv > 0 ? log1p(cv * cv) : 0;
    *sigma = sqrt(s2);
    *mu = log(mean) - s2 / 2;
    return *sigma > 0;
}

double gpuecon_lognormal_order_stat(double mean, double cv, double k, double n)
{
    double mu, sigma, p = (k - 0.375) / (n + 0.25);
    if (!(mean > 0) || !(n >= 1) || !lognormal_params(mean, cv, &mu, &sigma))
        return mean;
    p = fmin(fmax(p, 1e-12), 1 - 1e-12);
    return exp(mu + sigma * train_inv_norm(p));
}

double gpuecon_lognormal_capped_mean(double mean, double cv, double cap)
{
    double mu, sigma;
    if (!lognormal_params(mean, cv, &mu, &sigma))
        return fmin(mean, cap);
    double lc = log(cap);
    return mean * phi((lc - mu - sigma * sigma) / sigma) + cap * (1 - phi((lc - mu) / sigma));
}

/* Survival P[X > t] of the lognormal (cv 0: a step at the mean). */
static double survival(double mean, double cv, double t)
{
    double mu, sigma;
    if (!lognormal_params(mean, cv, &mu, &sigma))
        return t < mean ? 1 : 0;
    return 1 - phi((log(t) - mu) / sigma);
}

/* Survival of the truncated length min(X, cap): none reaches the cap. */
static double survival_cap(const gpuecon_rl_request *r, double cap, double x)
{
    return x < cap ? survival(r->response_len, r->response_cv, x) : 0;
}

#define RL_MAX_SEGMENTS 4096
#define RL_SEG_BINS 128

/* Partial rollouts in steady state (docs/model.md §8.1): N new samples enter each step, each
 * decodes at most T tokens per step and carries the rest over, so a sample of length
 * x = min(X, cap) is active ceil(x/T) steps and, by Little's law, A = N·sum_k S(kT) requests run
 * per step, k steps into their response, k·T tokens already generated; this step's segment of
 * one is min(x − kT, T). */
static int partial_lengths(const gpuecon_rl_request *r, rl_lengths *L, gpuecon_error *err)
{
    double T = r->partial_tokens, cap = L->cap;
    if (r->oversample > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("partial_rollouts"), 0, 0,
                       "and " OPTION("oversample") " are alternatives: with partial rollouts no sample is dropped");
    if (T >= cap)
        return err_set(err, GPUECON_E_INPUT, OPTION("partial_rollouts"), 0, 0,
                       "%s tokens per step reach the %s-token cap: nothing would carry over; allowed below it",
                       NUM_VAL(T), NUM_VAL(cap));
    if (cap / T > RL_MAX_SEGMENTS)
        return err_set(err, GPUECON_E_INPUT, OPTION("partial_rollouts"), 0, 0,
                       "%s tokens per step cut the %s-token cap into more than %d segments; allowed at least %s",
                       NUM_VAL(T), NUM_VAL(cap), RL_MAX_SEGMENTS, NUM_VAL(ceil(cap / RL_MAX_SEGMENTS)));
    L->seg = T;
    L->submitted = L->n;
    L->gen_mean = L->kept_mean = gpuecon_lognormal_capped_mean(r->response_len, r->response_cv, cap);
    double end = gpuecon_lognormal_order_stat(r->response_len, r->response_cv, L->n, L->n);
    L->end = fmin(T, fmin(end, cap));
    double a = 0, kd = 0, m2 = 0, h = T / RL_SEG_BINS;
    for (int k = 0; k * T < cap; k++) {
        double s = k ? survival_cap(r, cap, k * T) : 1;
        a += s;
        kd += k * s;
        for (int i = 0; i < RL_SEG_BINS && s > 0; i++) { /* E[seg^2] = int 2t P(seg > t) dt */
            double t = (i + 0.5) * h;
            m2 += 2 * t * survival_cap(r, cap, k * T + t) * h;
        }
    }
    L->active_per_sample = a;
    L->requests = L->n * a;
    L->carried = T * kd / a;
    L->req_prompt = r->prompt_len + L->carried;
    L->req_output = L->gen_mean / a;
    L->req_cv = sqrt(fmax(0, m2 / a / (L->req_output * L->req_output) - 1));
    /* fresh samples share their prompt within the group; carried ones re-prefill with the new
     * weights (the engine's prefix cache is reset at the weight update) */
    L->req_hit = L->n * r->prompt_len * (r->samples - 1.0) / r->samples / (L->requests * L->req_prompt);
    return GPUECON_OK;
}

double rl_running(const gpuecon_rl_request *r, const rl_lengths *L, double t)
{
    if (!(L->seg > 0))
        return survival(r->response_len, r->response_cv, t);
    double n = 0;
    for (int k = 0; k * L->seg < L->cap; k++)
        n += survival_cap(r, L->cap, k * L->seg + t);
    return n / L->active_per_sample;
}

int rl_lengths_compute(const gpuecon_rl_request *r, rl_lengths *L, gpuecon_error *err)
{
    memset(L, 0, sizeof *L);
    const gpuecon_model *m = r->policy;
    double ctx = m->max_seq > 0 ? m->max_seq : 1e9;
    if (r->prompt_len + r->response_len > ctx)
        return err_set(err, GPUECON_E_INPUT, OPTION("response_len"), 0, 0,
                       "prompt %s + response %s tokens exceed %s's context of %d tokens", NUM_VAL(r->prompt_len),
                       NUM_VAL(r->response_len), m->name, m->max_seq);
    L->cap = r->max_response_len > 0 ? r->max_response_len : ctx - r->prompt_len;
    if (r->prompt_len + L->cap > ctx)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_response_len"), 0, 0,
                       "prompt %s + %s tokens exceed %s's context of %d tokens", NUM_VAL(r->prompt_len),
                       NUM_VAL(L->cap), m->name, m->max_seq);
    if (L->cap < r->response_len)
        return err_set(err, GPUECON_E_INPUT, OPTION("max_response_len"), 0, 0,
                       "%s is below the mean response of %s tokens", NUM_VAL(L->cap), NUM_VAL(r->response_len));
    L->n = (double)r->prompts * r->samples;
    if (r->partial_tokens > 0)
        return partial_lengths(r, L, err);
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
    L->requests = L->submitted;
    L->active_per_sample = 1;
    L->req_prompt = r->prompt_len;
    L->req_output = r->response_len;
    L->req_cv = r->response_cv;
    /* the K samples of a prompt share its prefix (vLLM prefix caching, on in veRL/NeMo-RL) */
    L->req_hit = (r->samples - 1.0) / r->samples;
    return GPUECON_OK;
}

static void infer_request(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, rl_layout lay,
                          double mem_util, gpuecon_infer_request *q)
{
    gpuecon_infer_request_init(q);
    q->model = r->policy;
    q->system = r->system;
    q->gpus = gpus;
    q->tp = lay.tp;
    q->expert_parallel = true;
    q->attention_dp = lay.dp;
    q->tp_across_nodes = true;
    q->weights = r->gen_weights;
    q->kv = r->kv;
    q->prompt_len = L->req_prompt;
    q->output_len = L->req_output;
    q->output_cv = L->req_cv;
    q->prefix_hit = fmin(0.99, L->req_hit);
    q->profile = r->serving;
    q->gpu_mem_util = mem_util;
    q->max_model_len = (int)ceil(r->prompt_len + L->cap);
    if (r->policy->max_seq > 0 && q->max_model_len > r->policy->max_seq)
        q->max_model_len = r->policy->max_seq;
}

#define RL_DRAIN_BINS 64
#define RL_MAX_LAYOUTS 64

/* Bulk and drain of one deployment (docs/model.md §8.2); *drain = INFINITY, skipped, when even
 * the whole drain at its smallest batch (TPOT grows with the batch, §6.4) reaches `best`. */
static int gen_time(const gpuecon_infer_request *q, const gpuecon_infer_result *g, const gpuecon_rl_request *r,
                    const rl_lengths *L, double best, double *bulk, double *drain, gpuecon_error *err)
{
    double csat = g->max_concurrency;
    if (!(csat >= 1))
        return err_set(err, GPUECON_E_INFEASIBLE, OPTION("gpus"), 0, 0, "the generator's KV cache holds no sequence");
    double per_req = L->submitted * L->gen_mean / L->requests; /* generated tokens per request */
    *bulk = L->requests > csat ? (L->requests - csat) * per_req / g->saturated_tokens_per_s : 0;
    double n0 = fmin(L->requests, csat), conc[RL_DRAIN_BINS];
    for (int i = 0; i < RL_DRAIN_BINS; i++) {
        double t = (i + 0.5) / RL_DRAIN_BINS * L->end;
        conc[i] = fmax(n0 * rl_running(r, L, t), g->replicas);
    }
    gpuecon_infer_point pt[RL_DRAIN_BINS];
    int rc = gpuecon_infer_sweep(q, &conc[RL_DRAIN_BINS - 1], 1, pt, err);
    if (rc)
        return rc;
    if (*bulk + L->end * pt[0].tpot_run_ms * 1e-3 >= best) {
        *drain = INFINITY;
        return GPUECON_OK;
    }
    rc = gpuecon_infer_sweep(q, conc, RL_DRAIN_BINS, pt, err);
    if (rc)
        return rc;
    *drain = 0;
    for (int i = 0; i < RL_DRAIN_BINS; i++)
        *drain += L->end / RL_DRAIN_BINS * pt[i].tpot_run_ms * 1e-3;
    return GPUECON_OK;
}

/* The generator layouts tried (docs/model.md §8.2): TP t dividing the pool inside the NVLink
 * domain; TP over whole domains (t a multiple of the domain, vLLM across servers); for a MoE
 * model attention-DP with EP = t over any t dividing the pool (with the redundant experts of
 * docs/model.md §6.5 EP1 where t does not divide the routed experts). --gen-tp
 * fixes t, --gen-attention-dp the kind. Returns the number written. */
static int gen_layouts(const gpuecon_rl_request *r, int gpus, rl_layout *out)
{
    int n = 0, up = r->system->scaleup_gpus > 0 ? r->system->scaleup_gpus : 1, e = r->policy->experts;
    int lo = r->gen_tp > 0 ? r->gen_tp : 1, hi = r->gen_tp > 0 ? r->gen_tp : gpus;
    for (int t = lo; t <= hi && n < RL_MAX_LAYOUTS - 1; t++) {
        if (r->gen_tp == 0 && gpus % t)
            continue;
        bool tp_ok = r->gen_tp > 0 || t <= up || t % up == 0;
        if (!r->gen_attention_dp && tp_ok)
            out[n++] = (rl_layout){.tp = t, .dp = false};
        if (e > 0 && t > 1 && (r->gen_tp > 0 ? r->gen_attention_dp : true)) /* EP need not divide E (EP1) */
            out[n++] = (rl_layout){.tp = t, .dp = true};
    }
    return n;
}

int rl_generation(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, double mem_util,
                  gpuecon_rl_result *o, gpuecon_error *err)
{
    rl_layout lay[RL_MAX_LAYOUTS];
    int nl = gen_layouts(r, gpus, lay), rc = GPUECON_E_INFEASIBLE;
    bool found = false;
    gpuecon_error last;
    gpuecon_error_clear(&last);
    err_set(&last, GPUECON_E_INFEASIBLE, OPTION("gen_tp"), 0, 0, "no TP degree dividing %d GPUs splits %s's heads",
            gpus, r->policy->name);
    bool memory = false; /* `last` holds a layout that ran out of memory: more telling than a TP
                            that does not divide the heads */
    int up = r->system->scaleup_gpus;
    /* TP over several domains pays the network on every all-reduce: tried only when no layout
     * inside a domain (or attention-DP) holds the model, or when --gen-tp asks for it */
    for (int k = 0; k < 2 * nl; k++) {
        int i = k % nl;
        bool cross = !lay[i].dp && lay[i].tp > up;
        if (cross != (k >= nl) || (k >= nl && found))
            continue;
        gpuecon_infer_request q;
        gpuecon_infer_result g;
        gpuecon_error e1;
        gpuecon_error_clear(&e1);
        infer_request(r, L, gpus, lay[i], mem_util, &q);
        double bulk = 0, drain = 0;
        int e = gpuecon_infer(&q, &g, &e1);
        if (!e)
            e = gen_time(&q, &g, r, L, found ? o->generation_s : INFINITY, &bulk, &drain, &e1);
        if (e == GPUECON_E_INPUT && r->gen_tp > 0)
            return err_set(err, e, OPTION("gen_tp"), 0, 0, "%s", e1.message);
        if (e) {
            if (e == GPUECON_E_INFEASIBLE || !memory)
                last = e1;
            memory = memory || e == GPUECON_E_INFEASIBLE;
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
    if (!strcmp(last.where, OPTION("max_model_len"))) /* not an rl option: its context is prompt + response */
        return err_set(err, rc, OPTION("max_response_len"), 0, 0,
                       "generator pool of %d GPUs: a context of prompt plus the longest response does not fit "
                       "its KV cache (vLLM's max_model_len check): %s; lower " OPTION("max_response_len") " or add GPUs",
                       gpus, last.message);
    return err_set(err, rc, last.where, 0, 0, "generator pool of %d GPUs: %s", gpus, last.message);
}
