/*
 * cmd_infer_disagg.c — `gpuecon infer --prefill XxP --decode YxD [--rate R]` and
 * `--disagg-search`: a disaggregated prefill/decode deployment (gpuecon_infer_disagg,
 * docs/model.md §6.13) beside the aggregated deployment of the same GPUs at the same rate, or
 * the prefill/decode ratio and layouts that serve the most tokens/s per GPU under --ttft-ms and
 * --tpot-ms.
 */
#include "cmd_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cmd_infer_disagg_opts(infer_disagg_args *s, opt *out, size_t cap)
{
    opt o[] = {
        {"--prefill", O_STR, &s->prefill, 0, 0, NULL, "XxP", "disaggregated: X prefill instances of TP P (e.g. 2x4)", NULL, false},
        {"--decode", O_STR, &s->decode, 0, 0, NULL, "YxD", "disaggregated: Y decode instances of TP D (e.g. 1x8)", NULL, false},
        {"--disagg-search", O_FLAG, &s->search, 0, 0, NULL, NULL,
         "choose the prefill/decode ratio and layouts within --gpus under --ttft-ms/--tpot-ms", NULL, false},
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

/* The aggregated deployment of the same GPUs at the same rate: the least concurrency whose
 * throughput serves it (Little's law), as the search's operating point. */
static bool aggregated(const gpuecon_infer_request *serve, double rate, gpuecon_infer_result *o, gpuecon_infer_point *pt)
{
    gpuecon_infer_request r = *serve;
    r.concurrency = 0;
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

json_t *cmd_infer_disagg_json(const gpuecon_disagg_request *q, const gpuecon_disagg_result *d)
{
    json_t *j = json_object();
    json_object_set_new(j, "prefill", json_pack("{s:i, s:i}", "instances", q->prefill_instances, "tp", q->prefill_tp));
    json_object_set_new(j, "decode", json_pack("{s:i, s:i}", "instances", q->decode_instances, "tp", q->decode_tp));
    json_object_set_new(j, "gpus_used", json_integer(d->gpus_used));
    json_object_set_new(j, "rate", cli_real(d->rate));
    json_object_set_new(j, "capacity_requests_per_s", cli_real(d->capacity));
    json_object_set_new(j, "bound", json_string(d->bound));
    json_object_set_new(j, "prefill_capacity", cli_real(d->prefill_capacity));
    json_object_set_new(j, "decode_capacity", cli_real(d->decode_capacity));
    json_object_set_new(j, "transfer_capacity", cli_real(d->transfer_capacity));
    json_object_set_new(j, "prefill_utilisation", cli_real(d->prefill_utilisation));
    json_object_set_new(j, "prefill_batch_ms", cli_real(d->prefill_batch_ms));
    json_object_set_new(j, "kv_network", json_string(d->kv_over_scaleout ? "scale-out" : "scale-up"));
    json_object_set_new(j, "kv_bytes_per_gpu", cli_real(d->kv_bytes_per_gpu));
    json_object_set_new(j, "kv_transfer_ms", cli_real(d->kv_transfer_ms));
    json_object_set_new(j, "decode_batch", cli_real(d->decode_batch));
    json_object_set_new(j, "output_tokens_per_s", cli_real(d->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", cli_real(d->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "ttft_ms", cli_real(d->ttft_ms));
    json_object_set_new(j, "tpot_ms", cli_real(d->tpot_ms));
    json_object_set_new(j, "usd_per_mtok", d->usd_per_mtok > 0 ? cli_real(d->usd_per_mtok) : json_null());
    return j;
}

static void row(tbl *t, const char *name, int gpus, double rate, double x, double xg, double ttft, double tpot,
                double usd, const char *note)
{
    tbl_row(t);
    tbl_str(t, name);
    tbl_num(t, gpus, 0);
    tbl_num(t, rate, 2);
    tbl_num(t, x, 0);
    tbl_num(t, xg, 1);
    tbl_num(t, ttft, 1);
    tbl_num(t, tpot, 2);
    if (usd > 0)
        tbl_num(t, usd, 4);
    else
        tbl_str(t, "-");
    tbl_str(t, note);
}

/* The targets (0: none) the aggregated deployment misses at the rate, as "TTFT 2000 ms, TPOT 60 ms";
 * empty when it meets both. */
static void misses(char *buf, size_t cap, double ttft_target, double tpot_target, const gpuecon_infer_point *ap)
{
    buf[0] = '\0';
    size_t n = 0;
    if (ttft_target > 0 && ap->ttft_ms > ttft_target)
        n += (size_t)snprintf(buf, cap, "TTFT %g ms", ttft_target);
    if (tpot_target > 0 && ap->tpot_ms > tpot_target && n < cap)
        snprintf(buf + n, cap - n, "%sTPOT %g ms", n ? ", " : "", tpot_target);
}

static int print(cli *c, const gpuecon_infer_request *serve, const gpuecon_disagg_request *q,
                 const gpuecon_disagg_result *d, bool agg_ok, const gpuecon_infer_result *ao,
                 const gpuecon_infer_point *ap, const infer_sim_args *sim, long evaluated, int status)
{
    char missed[64] = "";
    if (agg_ok)
        misses(missed, sizeof missed, sim->ttft_ms, sim->tpot_ms, ap);
    if (c->format == FMT_JSON) {
        json_t *j = json_object();
        json_object_set_new(j, "model", json_string(serve->model->name));
        json_object_set_new(j, "system", json_string(serve->system->name));
        json_object_set_new(j, "gpus", json_integer(serve->gpus));
        json_object_set_new(j, "disaggregated", cmd_infer_disagg_json(q, d));
        if (evaluated >= 0)
            json_object_set_new(j, "layouts_evaluated", json_integer(evaluated));
        json_object_set_new(j, "aggregated", agg_ok ? json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:b}", "tp", ao->tp,
                                                                "replicas", ao->replicas, "concurrency",
                                                                cli_real(ap->concurrency), "output_tokens_per_s_per_gpu",
                                                                cli_real(ap->output_tokens_per_s_per_gpu), "ttft_ms",
                                                                cli_real(ap->ttft_ms), "tpot_ms", cli_real(ap->tpot_ms),
                                                                "usd_per_mtok", ap->usd_per_mtok > 0
                                                                                    ? cli_real(ap->usd_per_mtok)
                                                                                    : json_null(),
                                                                "meets_targets", !missed[0])
                                                    : json_null());
        int rc = cli_emit_json(c, j);
        return status ? status : rc;
    }
    tbl *t = tbl_new();
    const char *cols[] = {"deployment", "GPUs", "requests/s", "out tok/s", "tok/s/GPU", "TTFT ms", "TPOT ms",
                          "$/Mtok", "note"};
    for (int i = 0; i < 9; i++)
        tbl_col(t, cols[i], i == 0 || i == 8 ? 'l' : 'r');
    char name[64], note[160];
    snprintf(name, sizeof name, "%dP x TP%d + %dD x TP%d", q->prefill_instances, q->prefill_tp, q->decode_instances,
             q->decode_tp);
    snprintf(note, sizeof note, "capacity %.3g req/s (%s-bound), KV %.2f ms over %s, %.0f seqs/decode", d->capacity,
             d->bound, d->kv_transfer_ms, d->kv_over_scaleout ? "scale-out" : "scale-up", d->decode_batch);
    row(t, name, d->gpus_used, d->rate, d->output_tokens_per_s, d->output_tokens_per_s_per_gpu, d->ttft_ms, d->tpot_ms,
        d->usd_per_mtok, note);
    if (agg_ok) {
        snprintf(name, sizeof name, "aggregated %d x TP%d", ao->replicas, ao->tp);
        snprintf(note, sizeof note, "%.0f in flight, bound by %s%s%s", ap->concurrency,
                 gpuecon_binding_name(ap->binding), missed[0] ? "; misses " : "", missed);
        row(t, name, ao->gpus, d->rate, ap->output_tokens_per_s, ap->output_tokens_per_s_per_gpu, ap->ttft_ms,
            ap->tpot_ms, ap->usd_per_mtok, note);
    }
    FILE *f = cli_out(c);
    if (!f) {
        tbl_free(t);
        return EXIT_USAGE;
    }
    if (c->format == FMT_CSV) {
        tbl_csv(t, f);
    } else {
        fprintf(f, "%s on %s, prompt %g / output %g tokens, %s weights, %s KV%s\n\n", serve->model->name,
                serve->system->name, serve->prompt_len, serve->output_len, gpuecon_precision_name(serve->weights),
                gpuecon_precision_name(serve->kv), evaluated >= 0 ? "; the best disaggregated layout" : "");
        tbl_print(t, f);
        if (!agg_ok)
            fprintf(f, "\nthe aggregated deployment of %d GPUs does not serve %.3g requests/s\n", serve->gpus, d->rate);
        if (evaluated >= 0)
            fprintf(f, "%ld layouts evaluated\n", evaluated);
    }
    tbl_free(t);
    cli_close_out(c, f);
    return status ? status : EXIT_OK;
}

int cmd_infer_disagg(cli *c, const opt *o, size_t n, const infer_disagg_args *s, const infer_sim_args *sim,
                     const gpuecon_infer_request *serve)
{
    if (sim->simulate)
        return cmd_infer_disagg_simulate(c, o, n, s, sim, serve);
    gpuecon_disagg_request q = {.base = *serve};
    q.base.tp = 0;
    q.base.concurrency = 0;
    if (opt_seen(o, n, "--rate") && !(sim->rate > 0))
        return cli_usage_error(c, "--rate", "%g requests/s must be above 0", sim->rate);
    if ((opt_seen(o, n, "--ttft-ms") && !(sim->ttft_ms > 0)) || (opt_seen(o, n, "--tpot-ms") && !(sim->tpot_ms > 0)))
        return cli_usage_error(c, opt_seen(o, n, "--ttft-ms") && !(sim->ttft_ms > 0) ? "--ttft-ms" : "--tpot-ms",
                               "a latency target must be above 0 ms");
    gpuecon_disagg_result d;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    long evaluated = -1;
    int rc, status = 0;
    if (s->search) {
        if (s->prefill || s->decode)
            return cli_usage_error(c, "--disagg-search", "chooses the layouts itself: not with --prefill/--decode");
        if (opt_seen(o, n, "--rate"))
            return cli_usage_error(c, "--rate", "--disagg-search finds the largest rate meeting the targets");
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
    gpuecon_infer_result ao;
    gpuecon_infer_point ap;
    bool agg = aggregated(serve, d.rate, &ao, &ap);
    return print(c, serve, &q, &d, agg, &ao, &ap, sim, evaluated, status);
}
