/*
 * cmd_infer_disagg.c — `gpuecon infer --prefill XxP --decode YxD [--rate R]` and
 * `--disagg-search`: a disaggregated prefill/decode deployment (gpuecon_infer_disagg,
 * docs/model.md §6.13) beside the aggregated deployment of the same GPUs at the same rate, or
 * the prefill/decode ratio and layouts that serve the most tokens/s per GPU under --ttft-ms and
 * --tpot-ms.
 *
 * With --simulate (the second half of this file), the request-level simulation of the
 * disaggregated deployment (gpuecon_infer_disagg_simulate) with the analytic prediction beside
 * it: a percentile table and a table per pool, or one JSON object (the keys of `infer
 * --simulate` plus `disaggregated`, `decode_queue_ms_*`, `prefill_pool`, `decode_pool`;
 * docs/cli.md).
 */
#include "request/cli.h"
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
    json_object_set_new(j, "rate", rjson_real(d->rate));
    json_object_set_new(j, "capacity_requests_per_s", rjson_real(d->capacity));
    json_object_set_new(j, "bound", json_string(d->bound));
    json_object_set_new(j, "prefill_capacity", rjson_real(d->prefill_capacity));
    json_object_set_new(j, "decode_capacity", rjson_real(d->decode_capacity));
    json_object_set_new(j, "transfer_capacity", rjson_real(d->transfer_capacity));
    json_object_set_new(j, "prefill_utilisation", rjson_real(d->prefill_utilisation));
    json_object_set_new(j, "prefill_batch_ms", rjson_real(d->prefill_batch_ms));
    json_object_set_new(j, "kv_network", json_string(d->kv_over_scaleout ? "scale-out" : "scale-up"));
    json_object_set_new(j, "kv_bytes_per_gpu", rjson_real(d->kv_bytes_per_gpu));
    json_object_set_new(j, "kv_transfer_ms", rjson_real(d->kv_transfer_ms));
    json_object_set_new(j, "decode_batch", rjson_real(d->decode_batch));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(d->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", rjson_real(d->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "ttft_ms", rjson_real(d->ttft_ms));
    json_object_set_new(j, "tpot_ms", rjson_real(d->tpot_ms));
    json_object_set_new(j, "usd_per_mtok", d->usd_per_mtok > 0 ? rjson_real(d->usd_per_mtok) : json_null());
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
                                                                rjson_real(ap->concurrency), "output_tokens_per_s_per_gpu",
                                                                rjson_real(ap->output_tokens_per_s_per_gpu), "ttft_ms",
                                                                rjson_real(ap->ttft_ms), "tpot_ms", rjson_real(ap->tpot_ms),
                                                                "usd_per_mtok", ap->usd_per_mtok > 0
                                                                                    ? rjson_real(ap->usd_per_mtok)
                                                                                    : json_null(),
                                                                "meets_targets", !missed[0])
                                                    : json_null());
        int rc = cli_emit_json(c, j);
        return status ? status : rc;
    }
    tbl *t = tbl_new(c->ctx, &c->oom);
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

/* ---- --simulate: the disaggregated deployment request by request ---------------------------- */

static json_t *pool_json(int instances, int tp, double busy, double kv, double running)
{
    return json_pack("{s:i, s:i, s:o, s:o, s:o}", "instances", instances, "tp", tp, "busy", rjson_real(busy), "kv_util",
                     rjson_real(kv), "mean_running", rjson_real(running));
}

static json_t *result_json(const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o, double elapsed)
{
    const gpuecon_disagg_result *a = &o->analytic;
    json_t *j = cmd_infer_sim_json(&q->sim, &o->sim, elapsed);
    json_object_set_new(j, "tp", json_null()); /* two layouts: see prefill_pool / decode_pool */
    json_object_set_new(j, "analytic_saturated_tokens_per_s", rjson_real(o->analytic_tokens_per_s));
    gpuecon_disagg_request dq = {.prefill_instances = q->prefill_instances, .prefill_tp = q->prefill_tp,
                                 .decode_instances = q->decode_instances, .decode_tp = q->decode_tp};
    json_t *d = cmd_infer_disagg_json(&dq, a);
    if (!o->analytic_at_rate) { /* closed loop, burst, or a rate at or above the capacity */
        const char *at_rate[] = {"rate", "prefill_utilisation", "decode_batch", "output_tokens_per_s",
                                 "output_tokens_per_s_per_gpu", "ttft_ms", "tpot_ms", "usd_per_mtok"};
        for (size_t i = 0; i < sizeof at_rate / sizeof at_rate[0]; i++)
            json_object_set_new(d, at_rate[i], json_null());
    }
    json_object_set_new(j, "disaggregated", d);
    json_object_set_new(j, "analytic_at_rate", json_boolean(o->analytic_at_rate));
    cmd_infer_sim_stat_json(j, "decode_queue_ms", &o->decode_queue_ms);
    json_object_set_new(j, "prefill_pool", pool_json(q->prefill_instances, q->prefill_tp, o->prefill_busy,
                                                     o->prefill_kv_util, o->prefill_running));
    json_object_set_new(j, "decode_pool", pool_json(q->decode_instances, q->decode_tp, o->decode_busy,
                                                    o->decode_kv_util, o->decode_running));
    return j;
}

static void lat_row(tbl *t, const char *name, const gpuecon_sim_stat *s, bool have, double analytic)
{
    cmd_infer_sim_stat_row(t, name, s);
    if (have)
        tbl_num(t, analytic, 2);
    else
        tbl_str(t, "-");
}

static void pool_row(tbl *t, const char *name, int x, int tp, double busy, double kv, double running,
                     const char *analytic)
{
    char lay[32];
    snprintf(lay, sizeof lay, "%d x TP%d", x, tp);
    tbl_row(t);
    tbl_str(t, name);
    tbl_str(t, lay);
    tbl_num(t, busy * 100, 1);
    tbl_num(t, kv * 100, 1);
    tbl_num(t, running, 1);
    tbl_str(t, analytic);
}

static void print_head(FILE *f, const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o, double elapsed)
{
    const gpuecon_sim_request *r = &q->sim;
    fprintf(f, "%s on %s: %dP x TP%d + %dD x TP%d (%d GPUs, KV over %s); ", r->serve.model->name,
            r->serve.system->name, q->prefill_instances, q->prefill_tp, q->decode_instances, q->decode_tp,
            o->analytic.gpus_used, o->analytic.kv_over_scaleout ? "scale-out" : "scale-up");
    if (r->arrival == GPUECON_ARRIVAL_CLOSED)
        fprintf(f, "closed loop of %d users\n", r->users);
    else if (r->arrival == GPUECON_ARRIVAL_BURST)
        fprintf(f, "all %ld requests at t = 0 (throughput over the makespan)\n", r->requests);
    else
        fprintf(f, "%s arrivals at %g requests/s\n", cmd_infer_arrival_name(r->arrival), r->rate);
    fprintf(f, "%ld measured requests (%d replication%s, seed %llu), %.2f s; round robin over each pool\n\n",
            o->sim.requests, o->sim.replications, o->sim.replications > 1 ? "s" : "",
            (unsigned long long)o->sim.seed, elapsed);
}

static int sim_print(cli *c, const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o, double elapsed)
{
    if (c->format == FMT_JSON)
        return cli_emit_json(c, result_json(q, o, elapsed));
    const gpuecon_disagg_result *a = &o->analytic;
    bool at = o->analytic_at_rate;
    tbl *t = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"latency (ms)", "mean", "P50", "P90", "P99", "analytic mean"};
    for (int i = 0; i < 6; i++)
        tbl_col(t, cols[i], i ? 'r' : 'l');
    lat_row(t, "TTFT (with KV transfer)", &o->sim.ttft_ms, at, a->ttft_ms);
    lat_row(t, "TPOT", &o->sim.tpot_ms, at, a->tpot_ms);
    lat_row(t, "ITL", &o->sim.itl_ms, false, 0);
    lat_row(t, "E2E", &o->sim.e2e_ms, false, 0);
    lat_row(t, "prefill queue", &o->sim.queue_ms, false, 0);
    lat_row(t, "decode admission", &o->decode_queue_ms, false, 0);
    FILE *f = NULL;
    int done = cli_table_begin(c, t, &f);
    if (!f)
        return done;
    print_head(f, q, o, elapsed);
    tbl_print(t, f);
    tbl *p = tbl_new(c->ctx, &c->oom);
    const char *pc[] = {"pool", "instances", "busy %", "KV held %", "seqs/instance", "analytic"};
    for (int i = 0; i < 6; i++)
        tbl_col(p, pc[i], i == 0 || i == 1 || i == 5 ? 'l' : 'r');
    char an[96];
    if (at)
        snprintf(an, sizeof an, "capacity %.3g req/s, utilisation %.0f%%", a->prefill_capacity,
                 a->prefill_utilisation * 100);
    else
        snprintf(an, sizeof an, "capacity %.3g req/s", a->prefill_capacity);
    pool_row(p, "prefill", q->prefill_instances, q->prefill_tp, o->prefill_busy, o->prefill_kv_util,
             o->prefill_running, an);
    snprintf(an, sizeof an, "capacity %.3g req/s", a->decode_capacity);
    if (at)
        snprintf(an, sizeof an, "capacity %.3g req/s, %.1f seqs/instance", a->decode_capacity, a->decode_batch);
    pool_row(p, "decode", q->decode_instances, q->decode_tp, o->decode_busy, o->decode_kv_util, o->decode_running,
             an);
    fputc('\n', f);
    tbl_print(p, f);
    tbl_free(p);
    fprintf(f, "\noutput %.0f tok/s (%.1f per GPU; analytic capacity %.0f tok/s), %.3g requests/s, goodput %.3g requests/s, %.3g preemptions\n",
            o->sim.output_tokens_per_s, o->sim.output_tokens_per_s_per_gpu, o->analytic_tokens_per_s, o->sim.requests_per_s,
            o->sim.goodput_requests_per_s, o->sim.preemptions);
    fprintf(f, "analytic (mean lengths): capacity %.4g requests/s (%s-bound; the links carry %.3g requests/s), KV %.2f ms per request\n",
            a->capacity, a->bound, a->transfer_capacity, a->kv_transfer_ms);
    if (q->sim.ttft_slo_ms > 0 || q->sim.tpot_slo_ms > 0)
        fprintf(f, "%s the targets at P%g\n", o->sim.meets_slo ? "meets" : "MISSES", q->sim.slo_percentile);
    cmd_infer_sim_overload_note(f, &q->sim, &o->sim);
    if (o->sim.truncated > 0)
        fprintf(f, "%.0f requests were cut to what both pools hold\n", o->sim.truncated);
    return cli_table_done(c, t, f);
}

int cmd_infer_disagg_simulate(cli *c, const opt *o, size_t n, const infer_disagg_args *s, const infer_sim_args *sim,
                              const gpuecon_infer_request *serve)
{
    if (!s->prefill || !s->decode)
        return cli_usage_error(c, s->prefill ? "--decode" : "--prefill", "a disaggregated deployment needs both "
                                                                       "--prefill XxP and --decode YxD");
    gpuecon_disagg_sim_request q;
    memset(&q, 0, sizeof q);
    int rc;
    if ((rc = cmd_infer_disagg_layout(c, "--prefill", s->prefill, &q.prefill_instances, &q.prefill_tp)) ||
        (rc = cmd_infer_disagg_layout(c, "--decode", s->decode, &q.decode_instances, &q.decode_tp)) ||
        (rc = cmd_infer_sim_build(c, o, n, sim, serve, &q.sim)))
        return rc;
    gpuecon_ctx *ctx = cmd_infer_sim_ctx(c, sim);
    if (!ctx)
        rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_disagg_sim_result out;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    if (!rc && gpuecon_infer_disagg_simulate(ctx, &q, &out, &err))
        rc = cli_fail(c, &err);
    double elapsed = cli_now_s(c) - t0;
    if (!rc)
        rc = sim_print(c, &q, &out, elapsed);
    gpuecon_ctx_free(ctx);
    if (q.sim.bins)
        gpuecon_length_bins_free(c->ctx, (gpuecon_length_bin *)q.sim.bins, q.sim.nbins);
    return rc;
}
