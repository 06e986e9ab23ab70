/*
 * cmd_infer_disagg_sim.c — `gpuecon infer --prefill XxP --decode YxD --simulate`: the
 * request-level simulation of a disaggregated deployment (gpuecon_infer_disagg_simulate,
 * docs/model.md §6.13) with the analytic prediction beside it: a percentile table and a table
 * per pool, or one JSON object (the keys of `infer --simulate` plus `disaggregated`,
 * `decode_queue_ms_*`, `prefill_pool`, `decode_pool`; docs/cli.md).
 */
#include "cmd_infer.h"

#include <string.h>

static json_t *pool_json(int instances, int tp, double busy, double kv, double running)
{
    return json_pack("{s:i, s:i, s:o, s:o, s:o}", "instances", instances, "tp", tp, "busy", cli_real(busy), "kv_util",
                     cli_real(kv), "mean_running", cli_real(running));
}

static json_t *result_json(const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o, double elapsed)
{
    const gpuecon_disagg_result *a = &o->analytic;
    json_t *j = cmd_infer_sim_json(&q->sim, &o->sim, elapsed);
    json_object_set_new(j, "tp", json_null()); /* two layouts: see prefill_pool / decode_pool */
    json_object_set_new(j, "analytic_saturated_tokens_per_s", cli_real(o->analytic_tokens_per_s));
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

static int print(cli *c, const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o, double elapsed)
{
    if (c->format == FMT_JSON)
        return cli_emit_json(c, result_json(q, o, elapsed));
    const gpuecon_disagg_result *a = &o->analytic;
    bool at = o->analytic_at_rate;
    tbl *t = tbl_new();
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
    tbl *p = tbl_new();
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
        rc = EXIT_INTERNAL;
    gpuecon_disagg_sim_result out;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    if (!rc && gpuecon_infer_disagg_simulate(ctx, &q, &out, &err))
        rc = cli_fail(c, &err);
    double elapsed = cli_now_s(c) - t0;
    if (!rc)
        rc = print(c, &q, &out, elapsed);
    gpuecon_ctx_free(ctx);
    if (q.sim.bins)
        gpuecon_length_bins_free(c->ctx, (gpuecon_length_bin *)q.sim.bins, q.sim.nbins);
    return rc;
}
