/*
 * cmd_infer_disagg.c — `gpuecon infer --prefill XxP --decode YxD [--rate R]` and
 * `--disagg-search`: a disaggregated prefill/decode deployment (gpuecon_infer_disagg,
 * docs/model.md §6.13) beside the aggregated deployment of the same GPUs at the same rate, or
 * the prefill/decode ratio and layouts that serve the most tokens/s per GPU under --ttft-ms and
 * --tpot-ms (with --rate: the fewest GPUs serving it). The aggregated deployment beside it is the
 * configuration search's best at the same rate, targets and precisions on the fewest GPUs up to
 * --gpus (infer_aggregated_baseline), so the comparison is with the best aggregated layout, not
 * the smallest TP.
 * render/serving_sim.c renders it; --simulate runs in cmd_infer_sim.c.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <stdlib.h>

size_t cmd_infer_disagg_opts(infer_disagg_args *s, opt *out, size_t cap)
{
    opt o[] = {
        {"--prefill", O_STR, &s->prefill, 0, 0, NULL, "XxP", "disaggregated: X prefill instances of TP P (e.g. 2x4)", NULL, false},
        {"--decode", O_STR, &s->decode, 0, 0, NULL, "YxD", "disaggregated: Y decode instances of TP D (e.g. 1x8)", NULL, false},
        {"--disagg-search", O_FLAG, &s->search, 0, 0, NULL, NULL,
         "choose the prefill/decode ratio and layouts within --gpus under --ttft-ms/--tpot-ms (with --rate: the "
         "fewest GPUs serving it)", NULL, false},
    };
    size_t n = sizeof o / sizeof o[0];
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = o[i];
    return n;
}

bool cmd_infer_disagg_wanted(const infer_disagg_args *s)
{
    return s->prefill || s->decode || s->search;
}

/* "XxP": two whole numbers from 1, joined by x. */
int cmd_infer_disagg_layout(cli *c, const char *option, const char *s, int *x, int *p)
{
    char *end;
    long a = strtol(s, &end, 10), b = 0;
    bool ok = end != s && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *q = end + 1;
        b = strtol(q, &end, 10);
        ok = end != q && *end == 0;
    }
    if (!ok || a < 1 || b < 1 || a > 1000000 || b > 1024)
        return cli_usage_error(c, option, "'%.60s' is not INSTANCESxTP (whole numbers, instances 1 to 1e6, TP 1 to "
                                          "1024; e.g. 2x4)", s);
    *x = (int)a;
    *p = (int)b;
    return 0;
}

/* The aggregated deployment of configuration k at the same rate: the least concurrency whose
 * throughput serves it (Little's law), as the search's operating point. */
static bool aggregated(const gpuecon_infer_request *serve, const gpuecon_serve_config *k, double rate,
                       gpuecon_infer_result *o, gpuecon_infer_point *pt)
{
    gpuecon_infer_request r = *serve;
    r.concurrency = 0;
    r.gpus = k->gpus;
    r.tp = k->tp;
    r.pp = k->pp;
    r.weights = k->weights;
    r.kv = k->kv;
    r.draft_k = k->draft_k;
    r.expert_parallel = k->expert_parallel;
    r.attention_dp = k->attention_dp;
    r.max_num_seqs = k->max_num_seqs;
    r.max_num_batched_tokens = k->max_num_batched_tokens;
    r.long_prefill_token_threshold = k->long_prefill_token_threshold;
    gpuecon_error err;
    if (gpuecon_infer(&r, o, &err) || o->saturated_tokens_per_s < rate * r.output_len)
        return false;
    double lo = 1e-3, hi = o->max_concurrency;
    for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (gpuecon_infer_sweep(&r, &mid, 1, pt, &err))
            return false;
        if (pt->output_tokens_per_s >= rate * r.output_len)
            hi = mid;
        else
            lo = mid;
    }
    return gpuecon_infer_sweep(&r, &hi, 1, pt, &err) == GPUECON_OK;
}

int cmd_infer_disagg(cli *c, const opt *o, size_t n, const infer_disagg_args *s, const infer_sim_args *sim,
                     const gpuecon_infer_request *serve)
{
    gpuecon_disagg_request q = {.base = *serve};
    q.base.tp = 0;
    q.base.concurrency = 0;
    int rc = cmd_infer_check_targets(c, o, n, sim), status = 0;
    if (rc)
        return rc;
    gpuecon_disagg_result d;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    long evaluated = -1;
    if (s->search) {
        if (s->prefill || s->decode)
            return cli_usage_error(c, "--disagg-search", "chooses the layouts itself: not with --prefill/--decode");
        if (opt_seen(o, n, "--rate")) { /* the fewest GPUs serving the rate */
            if (!(sim->rate > 0))
                return cli_usage_error(c, "--rate", "%g must be above 0 (requests/s)", sim->rate);
            rc = gpuecon_infer_disagg_size(&q.base, sim->rate, sim->ttft_ms, sim->tpot_ms, &q, &d, &evaluated, &err);
            if (rc)
                return cli_fail(c, &err);
        } else
            rc = gpuecon_infer_disagg_search(&q.base, sim->ttft_ms, sim->tpot_ms, &q, &d, &evaluated, &err);
        if (rc && (rc != GPUECON_E_INFEASIBLE || evaluated <= 0))
            return cli_fail(c, &err);
        if (rc)
            status = cli_fail(c, &err);
    } else {
        if (!s->prefill || !s->decode)
            return cli_usage_error(c, s->prefill ? "--decode" : "--prefill", "a disaggregated deployment needs both "
                                                                           "--prefill XxP and --decode YxD");
        if ((rc = cmd_infer_disagg_layout(c, "--prefill", s->prefill, &q.prefill_instances, &q.prefill_tp)) ||
            (rc = cmd_infer_disagg_layout(c, "--decode", s->decode, &q.decode_instances, &q.decode_tp)))
            return rc;
        q.rate = opt_seen(o, n, "--rate") ? sim->rate : 0;
        if ((rc = gpuecon_infer_disagg(&q, &d, &err)))
            return cli_fail(c, &err);
    }
    /* the best aggregated configuration at the same rate, targets and precisions, on the fewest GPUs
     * up to --gpus; without a target, at mean latencies no worse than the disaggregated deployment's
     * own (else the fewest GPUs would buy their count with latency) */
    double ttft_t = sim->ttft_ms > 0 ? sim->ttft_ms : d.ttft_ms, tpot_t = sim->tpot_ms > 0 ? sim->tpot_ms : d.tpot_ms;
    gpuecon_infer_result ao;
    gpuecon_infer_point ap;
    gpuecon_serve_config k;
    long agg_evaluated = 0;
    /* analytic only (no simulator checks): the command's own context serves */
    bool agg = d.rate > 0 &&
               infer_aggregated_baseline(c->ctx, serve, d.rate, ttft_t, tpot_t, serve->gpus, &k, &agg_evaluated,
                                         NULL) == GPUECON_OK &&
               aggregated(serve, &k, d.rate, &ao, &ap);
    band_set *bs;
    if ((rc = cmd_band_set(c, &bs)))
        return rc;
    serve_bands db, ab;
    band_serving(bs, serve, serve->weights, d.gpus_used, d.decode_batch * q.decode_instances,
                 d.output_tokens_per_s_per_gpu, d.tpot_ms, d.ttft_ms, &db);
    if (agg)
        band_serving(bs, serve, serve->weights, ao.gpus, ap.concurrency, ap.output_tokens_per_s_per_gpu, ap.tpot_ms,
                     ap.ttft_ms, &ab);
    infer_disagg_view v = {serve, &q, &d, agg ? &ao : NULL, &ap, sim->ttft_ms, sim->tpot_ms, evaluated,
                           bs ? &db : NULL, bs && agg ? &ab : NULL, agg ? &k : NULL, agg_evaluated,
                           s->search && opt_seen(o, n, "--rate"), ttft_t, tpot_t};
    int out = cli_render(c, &render_infer_disagg, &v);
    if (bs)
        band_set_free(bs);
    return status ? status : out;
}
