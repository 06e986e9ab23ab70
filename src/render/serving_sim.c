/*
 * serving_sim.c — `gpuecon infer --simulate` rendered (percentiles, throughput, goodput as JSON or
 * a latency table, terminal and CSV), and the disaggregated deployment: analytic, beside the
 * aggregated one of the same GPUs, and simulated, with the analytic prediction beside it and a
 * table per pool (the JSON of `infer --simulate` plus its pools).
 */
#include "render/render.h"

#include <stdio.h>

/* ---- --simulate -------------------------------------------------------------------------------- */

static void stat_json(json_t *j, const char *name, const gpuecon_sim_stat *s)
{
    char k[64];
    const char *sfx[] = {"mean", "p50", "p90", "p99", "at_slo"};
    double v[] = {s->mean, s->p50, s->p90, s->p99, s->at_slo};
    for (int i = 0; i < 5; i++) {
        snprintf(k, sizeof k, "%s_%s", name, sfx[i]);
        json_object_set_new(j, k, rjson_real(v[i]));
    }
}

/* The simulation's JSON object (keys in docs/cli.md). */
static json_t *sim_json(const gpuecon_sim_request *r, const gpuecon_sim_result *o, const char *arrival,
                        double elapsed, const serve_bands *b)
{
    const gpuecon_infer_result *d = &o->deploy;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->serve.model->name));
    json_object_set_new(j, "stack", json_string(gpuecon_serving_profile_label(&r->serve.profile)));
    json_object_set_new(j, "system", json_string(r->serve.system->name));
    rjson_power(j, r->serve.system);
    json_object_set_new(j, "gpus", json_integer(d->gpus));
    json_object_set_new(j, "tp", json_integer(d->tp));
    json_object_set_new(j, "replicas", json_integer(d->replicas));
    json_object_set_new(j, "arrival", json_string(arrival));
    bool open = r->arrival == GPUECON_ARRIVAL_POISSON || r->arrival == GPUECON_ARRIVAL_GAMMA;
    json_object_set_new(j, "rate", open ? rjson_real(r->rate) : json_null());
    json_object_set_new(j, "users", r->arrival == GPUECON_ARRIVAL_CLOSED ? json_integer(r->users) : json_null());
    stat_json(j, "ttft_ms", &o->ttft_ms);
    stat_json(j, "tpot_ms", &o->tpot_ms);
    stat_json(j, "itl_ms", &o->itl_ms);
    stat_json(j, "e2e_ms", &o->e2e_ms);
    stat_json(j, "queue_ms", &o->queue_ms);
    json_object_set_new(j, "slo_percentile", rjson_real(r->slo_percentile));
    json_object_set_new(j, "ttft_target_ms", r->ttft_slo_ms > 0 ? rjson_real(r->ttft_slo_ms) : json_null());
    json_object_set_new(j, "tpot_target_ms", r->tpot_slo_ms > 0 ? rjson_real(r->tpot_slo_ms) : json_null());
    json_object_set_new(j, "meets_slo", json_boolean(o->meets_slo));
    json_object_set_new(j, "overloaded", json_boolean(o->overloaded));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(o->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", rjson_real(o->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "requests_per_s", rjson_real(o->requests_per_s));
    json_object_set_new(j, "goodput_requests_per_s", rjson_real(o->goodput_requests_per_s));
    json_object_set_new(j, "preemptions", rjson_real(o->preemptions));
    json_object_set_new(j, "kv_util", rjson_real(o->kv_util));
    json_object_set_new(j, "mean_running", rjson_real(o->mean_running));
    json_object_set_new(j, "zero_wait_fraction", rjson_real(o->zero_wait_fraction));
    json_object_set_new(j, "truncated_requests", rjson_real(o->truncated));
    json_object_set_new(j, "analytic_saturated_tokens_per_s", rjson_real(d->saturated_tokens_per_s));
    json_object_set_new(j, "requests", json_integer(o->requests));
    json_object_set_new(j, "replications", json_integer(o->replications));
    json_object_set_new(j, "steps", rjson_real(o->steps));
    rjson_run(j, o->seed, o->threads, elapsed);
    if (b) { /* the headline figures' bands: throughput, mean TTFT and TPOT */
        double gpus = o->output_tokens_per_s_per_gpu > 0 ? o->output_tokens_per_s / o->output_tokens_per_s_per_gpu : 0;
        figband_add(j, "output_tokens_per_s_per_gpu", &b->tps, 1);
        if (gpus > 0)
            figband_add(j, "output_tokens_per_s", &b->tps, gpus);
        figband_add(j, "ttft_ms_mean", &b->ttft, 1);
        figband_add(j, "tpot_ms_mean", &b->tpot, 1);
    }
    return j;
}

/* The OVERLOADED line of a simulation whose open loop is at or above saturation. */
static void overload_note(strbuf *f, const gpuecon_sim_request *r, const gpuecon_sim_result *o)
{
    if (o->overloaded)
        sb_printf(f, "OVERLOADED: %s requests/s at or above what the deployment serves; the queue grows while requests "
                "arrive, so throughput is over the makespan and the latencies grow with --requests\n", NUM_SIG(r->rate, 6));
}

/* The lines that give the simulated headline figures with their bands (none without). */
static void sim_band_lines(strbuf *f, const gpuecon_sim_result *o, const serve_bands *b)
{
    if (!b)
        return;
    char p[512];
    sb_printf(f, "output %s\n", figband_phrase(p, sizeof p, o->output_tokens_per_s_per_gpu, &b->tps, 1,
                                              o->output_tokens_per_s_per_gpu >= 100 ? 1 : 3, "tok/s/GPU"));
    sb_printf(f, "mean TTFT %s\n", figband_phrase(p, sizeof p, o->ttft_ms.mean, &b->ttft, 1, 2, "ms"));
    sb_printf(f, "mean TPOT %s\n", figband_phrase(p, sizeof p, o->tpot_ms.mean, &b->tpot, 1, 2, "ms"));
}

/* A "name mean P50 P90 P99" row. */
static void stat_row(tbl *tb, const char *name, const gpuecon_sim_stat *s)
{
    tbl_row(tb);
    tbl_str(tb, name);
    tbl_num(tb, s->mean, 2);
    tbl_num(tb, s->p50, 2);
    tbl_num(tb, s->p90, 2);
    tbl_num(tb, s->p99, 2);
}

static json_t *infer_sim_json(const void *view)
{
    const infer_sim_view *v = view;
    json_t *j = sim_json(v->request, v->result, v->arrival, v->elapsed_s, v->bands);
    json_object_set_new(j, "layout_choice", render_layout_choice_json(&v->request->serve, v->layout));
    return j;
}

static tbl *infer_sim_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_sim_result *o = ((const infer_sim_view *)view)->result;
    const serve_bands *b = ((const infer_sim_view *)view)->bands;
    tbl *tb = tbl_new(ctx, oom);
    const char *cols[] = {"latency (ms)", "mean", "P50", "P90", "P99", "mean 80% band"};
    for (int i = 0; i < (b ? 6 : 5); i++)
        tbl_col(tb, cols[i], i ? 'r' : 'l');
    stat_row(tb, "TTFT", &o->ttft_ms);
    if (b)
        figband_cell(tb, &b->ttft, 1, 2);
    stat_row(tb, "TPOT", &o->tpot_ms);
    if (b)
        figband_cell(tb, &b->tpot, 1, 2);
    stat_row(tb, "ITL", &o->itl_ms);
    if (b)
        tbl_str(tb, "");
    stat_row(tb, "E2E", &o->e2e_ms);
    if (b)
        tbl_str(tb, "");
    stat_row(tb, "queueing", &o->queue_ms);
    if (b)
        tbl_str(tb, "");
    return tb;
}

static void infer_sim_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const infer_sim_view *v = view;
    const gpuecon_sim_request *r = v->request;
    const gpuecon_sim_result *o = v->result;
    const gpuecon_infer_result *d = &o->deploy;
    sb_printf(f, "%s on %s, stack %s: ", r->serve.model->name, r->serve.system->name,
              gpuecon_serving_profile_label(&r->serve.profile));
    serving_deployment(f, d);
    char pw[160];
    if (*fmt_power(pw, sizeof pw, r->serve.system))
        sb_printf(f, " (%s)", pw);
    sb_printf(f, "; ");
    if (r->arrival == GPUECON_ARRIVAL_CLOSED)
        sb_printf(f, "closed loop of %d users\n", r->users);
    else if (r->arrival == GPUECON_ARRIVAL_BURST)
        sb_printf(f, "all %ld requests at t = 0 (offline benchmark; throughput over the makespan)\n", r->requests);
    else
        sb_printf(f, "%s arrivals at %s requests/s\n", v->arrival, NUM_SIG(r->rate, 6));
    sb_printf(f, "%ld measured requests (%d replication%s, seed %llu), %.2f s\n", o->requests,
            o->replications, o->replications > 1 ? "s" : "", (unsigned long long)o->seed, v->elapsed_s);
    render_layout_choice_text(f, &r->serve, v->layout);
    sb_putc(f, '\n');
    tbl_print(tb, f);
    /* whole tokens/s once there are hundreds; three digits below (a light load is not "0 tok/s") */
    sb_printf(f, "\noutput %.*f tok/s (%.*f per GPU), %s requests/s, goodput %s requests/s\n",
            o->output_tokens_per_s >= 100 ? 0 : 2, o->output_tokens_per_s,
            o->output_tokens_per_s_per_gpu >= 100 ? 1 : 3, o->output_tokens_per_s_per_gpu, NUM_SIG(o->requests_per_s, 3),
            NUM_SIG(o->goodput_requests_per_s, 3));
    sim_band_lines(f, o, v->bands);
    sb_printf(f, "KV pool %.1f%% held on average, %.1f sequences per step, %s preemptions per replica\n",
            o->kv_util * 100, o->mean_running, NUM_SIG(o->preemptions, 3));
    sb_printf(f, "analytic saturation %.0f tok/s; %s\n", d->saturated_tokens_per_s,
            r->ttft_slo_ms > 0 || r->tpot_slo_ms > 0
                ? (o->meets_slo ? "meets the targets at the percentile" : "MISSES the targets at the percentile")
                : "no latency targets");
    overload_note(f, r, o);
    if (o->truncated > 0)
        sb_printf(f, "%.0f %s cut to max_model_len %d\n", o->truncated,
                o->truncated == 1 ? "request was" : "requests were", d->max_model_len);
}

const render_kind render_infer_sim = {infer_sim_json, infer_sim_table, infer_sim_text, NULL};

/* ---- disaggregated, analytic ------------------------------------------------------------------- */

/* The analytic figures of a disaggregated deployment as a JSON object. */
static json_t *disagg_json(const gpuecon_disagg_request *q, const gpuecon_disagg_result *d, const serve_bands *b)
{
    json_t *j = json_object();
    json_object_set_new(j, "prefill", json_pack("{s:i, s:i, s:b, s:i, s:o}", "instances", q->prefill_instances, "tp",
                                                q->prefill_tp, "attention_dp", d->prefill.attention_dp,
                                                "redundant_experts", d->prefill.redundant_experts, "expert_imbalance",
                                                rjson_real(d->prefill.expert_imbalance)));
    json_object_set_new(j, "decode", json_pack("{s:i, s:i, s:b, s:i, s:o}", "instances", q->decode_instances, "tp",
                                               q->decode_tp, "attention_dp", d->decode.attention_dp, "redundant_experts",
                                               d->decode.redundant_experts, "expert_imbalance",
                                               rjson_real(d->decode.expert_imbalance)));
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
    if (b) {
        figband_add(j, "output_tokens_per_s", &b->tps, d->gpus_used);
        figband_add(j, "output_tokens_per_s_per_gpu", &b->tps, 1);
        figband_add(j, "ttft_ms", &b->ttft, 1);
        figband_add(j, "tpot_ms", &b->tpot, 1);
    }
    return j;
}

/* with_bands: the table has the band columns; b NULL then writes empty cells */
static void row(tbl *t, const char *name, int gpus, double rate, double x, double xg, double ttft, double tpot,
                double usd, const char *note, bool with_bands, const serve_bands *b)
{
    tbl_row(t);
    tbl_str(t, name);
    tbl_num(t, gpus, 0);
    tbl_num(t, rate, 2);
    tbl_num(t, x, 0);
    tbl_num(t, xg, 1);
    if (with_bands)
        figband_cell(t, b ? &b->tps : NULL, 1, 0);
    tbl_num(t, ttft, 1);
    if (with_bands)
        figband_cell(t, b ? &b->ttft : NULL, 1, 1);
    tbl_num(t, tpot, 2);
    if (with_bands)
        figband_cell(t, b ? &b->tpot : NULL, 1, 2);
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
        n += (size_t)snprintf(buf, cap, "TTFT %s ms", NUM_SIG(ttft_target, 6));
    if (tpot_target > 0 && ap->tpot_ms > tpot_target && n < cap)
        snprintf(buf + n, cap - n, "%sTPOT %s ms", n ? ", " : "", NUM_SIG(tpot_target, 6));
}

/* What the aggregated baseline is (the configuration search's best on the fewest GPUs serving the
 * rate) and whether the disaggregated layout was sized to a rate: added to the JSON object j. */
static void disagg_baseline_json(json_t *j, const infer_disagg_view *v)
{
    json_object_set_new(j, "sized_to_rate", json_boolean(v->sized));
    json_object_set_new(j, "aggregated_configs_evaluated", json_integer(v->aggregated_evaluated));
    json_object_set_new(j, "aggregated_ttft_target_ms", rjson_real(v->baseline_ttft_ms));
    json_object_set_new(j, "aggregated_tpot_target_ms", rjson_real(v->baseline_tpot_ms));
    json_t *a = json_object_get(j, "aggregated");
    const gpuecon_serve_config *k = v->aggregated_config;
    if (!json_is_object(a) || !k)
        return;
    json_object_set_new(a, "gpus", json_integer(k->gpus));
    json_object_set_new(a, "pp", json_integer(k->pp));
    json_object_set_new(a, "weights", json_string(gpuecon_precision_name(k->weights)));
    json_object_set_new(a, "kv", json_string(gpuecon_precision_name(k->kv)));
    json_object_set_new(a, "max_num_seqs", json_integer(k->max_num_seqs));
    json_object_set_new(a, "max_num_batched_tokens", json_integer(k->max_num_batched_tokens));
    json_object_set_new(a, "capacity_tokens_per_s_per_gpu", rjson_real(k->capacity_tokens_per_s_per_gpu));
}

static json_t *infer_disagg_json(const void *view)
{
    const infer_disagg_view *v = view;
    const gpuecon_infer_result *ao = v->aggregated;
    const gpuecon_infer_point *ap = v->aggregated_at;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(v->serve->model->name));
    json_object_set_new(j, "stack", json_string(gpuecon_serving_profile_label(&v->serve->profile)));
    json_object_set_new(j, "system", json_string(v->serve->system->name));
    rjson_power(j, v->serve->system);
    json_object_set_new(j, "gpus", json_integer(v->serve->gpus));
    json_object_set_new(j, "disaggregated", disagg_json(v->request, v->result, v->bands));
    if (v->evaluated >= 0)
        json_object_set_new(j, "layouts_evaluated", json_integer(v->evaluated));
    char missed[64] = "";
    if (ao)
        misses(missed, sizeof missed, v->ttft_target_ms, v->tpot_target_ms, ap);
    json_object_set_new(j, "aggregated", ao ? json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:b}", "tp", ao->tp,
                                                        "replicas", ao->replicas, "concurrency",
                                                        rjson_real(ap->concurrency), "output_tokens_per_s_per_gpu",
                                                        rjson_real(ap->output_tokens_per_s_per_gpu), "ttft_ms",
                                                        rjson_real(ap->ttft_ms), "tpot_ms", rjson_real(ap->tpot_ms),
                                                        "usd_per_mtok", ap->usd_per_mtok > 0
                                                                            ? rjson_real(ap->usd_per_mtok)
                                                                            : json_null(),
                                                        "meets_targets", !missed[0])
                                            : json_null());
    disagg_baseline_json(j, v);
    if (ao && v->aggregated_bands)
        figband_add(json_object_get(j, "aggregated"), "output_tokens_per_s_per_gpu", &v->aggregated_bands->tps, 1);
    if (ao && v->aggregated_bands)
        figband_add(json_object_get(j, "aggregated"), "ttft_ms", &v->aggregated_bands->ttft, 1);
    if (ao && v->aggregated_bands)
        figband_add(json_object_get(j, "aggregated"), "tpot_ms", &v->aggregated_bands->tpot, 1);
    return j;
}

static tbl *infer_disagg_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const infer_disagg_view *v = view;
    const gpuecon_disagg_request *q = v->request;
    const gpuecon_disagg_result *d = v->result;
    const gpuecon_infer_result *ao = v->aggregated;
    const gpuecon_infer_point *ap = v->aggregated_at;
    tbl *t = tbl_new(ctx, oom);
    bool wb = v->bands != NULL;
    const char *cols[] = {"deployment", "GPUs", "requests/s", "out tok/s", "tok/s/GPU", "80% band", "TTFT ms",
                          "80% band", "TPOT ms", "80% band", "$/Mtok", "note"};
    for (int i = 0; i < 12; i++)
        if (wb || (i != 5 && i != 7 && i != 9))
            tbl_col(t, cols[i], i == 0 || i == 11 ? 'l' : 'r');
    char name[64], note[256];
    /* DEP: an attention-DP instance, its GPUs attention ranks with the experts spread over them */
    snprintf(name, sizeof name, "%dP x %s%d + %dD x %s%d", q->prefill_instances, d->prefill.attention_dp ? "DEP" : "TP",
             q->prefill_tp, q->decode_instances, d->decode.attention_dp ? "DEP" : "TP", q->decode_tp);
    int n = snprintf(note, sizeof note, "capacity %s req/s (%s-bound), KV %.2f ms over %s, %.0f seqs/decode%s",
                     NUM_SIG(d->capacity, 3), d->bound, d->kv_transfer_ms, d->kv_over_scaleout ? "scale-out" : "scale-up",
                     d->decode_batch, d->decode.attention_dp ? " rank" : "");
    if (d->decode.redundant_experts > 0 && n > 0 && (size_t)n < sizeof note)
        snprintf(note + n, sizeof note - (size_t)n, "; decode experts %d + %d redundant, %d per GPU, load %.2fx",
                 d->decode.experts, d->decode.redundant_experts, d->decode.expert_slots, d->decode.expert_imbalance);
    row(t, name, d->gpus_used, d->rate, d->output_tokens_per_s, d->output_tokens_per_s_per_gpu, d->ttft_ms, d->tpot_ms,
        d->usd_per_mtok, note, wb, v->bands);
    if (ao) {
        char missed[64];
        misses(missed, sizeof missed, v->ttft_target_ms, v->tpot_target_ms, ap);
        if (ao->attention_dp)
            snprintf(name, sizeof name, "aggregated %d x DEP%d", ao->gpus / ao->ep, ao->ep);
        else if (ao->pp > 1)
            snprintf(name, sizeof name, "aggregated %d x TP%d PP%d", ao->replicas, ao->tp, ao->pp);
        else
            snprintf(name, sizeof name, "aggregated %d x TP%d", ao->replicas, ao->tp);
        snprintf(note, sizeof note, "%.0f in flight, bound by %s%s%s", ap->concurrency,
                 gpuecon_binding_name(ap->binding), missed[0] ? "; misses " : "", missed);
        row(t, name, ao->gpus, d->rate, ap->output_tokens_per_s, ap->output_tokens_per_s_per_gpu, ap->ttft_ms,
            ap->tpot_ms, ap->usd_per_mtok, note, wb, v->aggregated_bands);
    }
    return t;
}

/* The aggregated row's provenance, or the claim that no aggregated configuration serves the rate:
 * both from the configuration search, never from one fixed layout. */
static void disagg_baseline_text(strbuf *f, const infer_disagg_view *v)
{
    char tg[160], nc[32];
    bool own = !(v->ttft_target_ms > 0) || !(v->tpot_target_ms > 0);
    snprintf(tg, sizeof tg, " within TTFT %.4g ms, TPOT %.4g ms (means%s)", v->baseline_ttft_ms, v->baseline_tpot_ms,
             own ? "; a target not given is the disaggregated deployment's own" : "");
    if (!v->aggregated)
        sb_printf(f, "\nno aggregated configuration of up to %d GPUs serves %.3g requests/s%s (%s configurations "
                     "searched: TP x PP x engine limits, the same precisions)\n", v->serve->gpus, v->result->rate, tg,
                  fmt_num(nc, sizeof nc, (double)v->aggregated_evaluated, 0));
    else if (v->aggregated_config)
        sb_printf(f, "\naggregated: the search's best at %.3g requests/s%s, on the fewest GPUs up to %d (%s "
                     "configurations: TP x PP x engine limits, the same precisions; max_num_seqs %d, "
                     "max_num_batched_tokens %d)\n", v->result->rate, tg, v->serve->gpus,
                  fmt_num(nc, sizeof nc, (double)v->aggregated_evaluated, 0),
                  v->aggregated_config->max_num_seqs, v->aggregated_config->max_num_batched_tokens);
}

static void infer_disagg_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const infer_disagg_view *v = view;
    const gpuecon_infer_request *serve = v->serve;
    sb_printf(f, "%s on %s, stack %s, prompt %s / output %s tokens, %s weights, %s KV%s\n\n", serve->model->name,
            serve->system->name, gpuecon_serving_profile_label(&serve->profile), NUM_SIG(serve->prompt_len, 6),
            NUM_SIG(serve->output_len, 6), gpuecon_precision_name(serve->weights),
            gpuecon_precision_name(serve->kv), v->sized ? "; the disaggregated layout on the fewest GPUs serving the rate"
                                               : v->evaluated >= 0 ? "; the best disaggregated layout" : "");
    tbl_print(t, f);
    if (v->bands) {
        serve_bands both[2] = {*v->bands};
        if (v->aggregated_bands)
            both[1] = *v->aggregated_bands;
        figband_bases(f, both, v->aggregated_bands ? 2 : 1);
    }
    disagg_baseline_text(f, v);
    if (v->evaluated >= 0)
        sb_printf(f, "%ld layouts evaluated\n", v->evaluated);
}

const render_kind render_infer_disagg = {infer_disagg_json, infer_disagg_table, infer_disagg_text, NULL};

/* ---- disaggregated, simulated ------------------------------------------------------------------ */

static json_t *pool_json(int instances, int tp, double busy, double kv, double running)
{
    return json_pack("{s:i, s:i, s:o, s:o, s:o}", "instances", instances, "tp", tp, "busy", rjson_real(busy), "kv_util",
                     rjson_real(kv), "mean_running", rjson_real(running));
}

static json_t *infer_disagg_sim_json(const void *view)
{
    const infer_disagg_sim_view *v = view;
    const gpuecon_disagg_sim_request *q = v->request;
    const gpuecon_disagg_sim_result *o = v->result;
    const gpuecon_disagg_result *a = &o->analytic;
    json_t *j = sim_json(&q->sim, &o->sim, v->arrival, v->elapsed_s, v->bands);
    json_object_set_new(j, "tp", json_null()); /* two layouts: see prefill_pool / decode_pool */
    json_object_set_new(j, "analytic_saturated_tokens_per_s", rjson_real(o->analytic_tokens_per_s));
    gpuecon_disagg_request dq = {.prefill_instances = q->prefill_instances, .prefill_tp = q->prefill_tp,
                                 .decode_instances = q->decode_instances, .decode_tp = q->decode_tp};
    json_t *d = disagg_json(&dq, a, NULL);
    if (!o->analytic_at_rate) { /* closed loop, burst, or a rate at or above the capacity */
        const char *at_rate[] = {"rate", "prefill_utilisation", "decode_batch", "output_tokens_per_s",
                                 "output_tokens_per_s_per_gpu", "ttft_ms", "tpot_ms", "usd_per_mtok"};
        for (size_t i = 0; i < sizeof at_rate / sizeof at_rate[0]; i++)
            json_object_set_new(d, at_rate[i], json_null());
    }
    json_object_set_new(j, "disaggregated", d);
    json_object_set_new(j, "analytic_at_rate", json_boolean(o->analytic_at_rate));
    stat_json(j, "decode_queue_ms", &o->decode_queue_ms);
    json_object_set_new(j, "prefill_pool", pool_json(q->prefill_instances, q->prefill_tp, o->prefill_busy,
                                                     o->prefill_kv_util, o->prefill_running));
    json_object_set_new(j, "decode_pool", pool_json(q->decode_instances, q->decode_tp, o->decode_busy,
                                                    o->decode_kv_util, o->decode_running));
    return j;
}

/* with_band: the table has the band column, b its cell (NULL: empty) */
static void lat_row(tbl *t, const char *name, const gpuecon_sim_stat *s, bool have, double analytic, bool with_band,
                    const gpuecon_band *b)
{
    stat_row(t, name, s);
    if (have)
        tbl_num(t, analytic, 2);
    else
        tbl_str(t, "-");
    if (with_band && b)
        figband_cell(t, b, 1, 2);
    else if (with_band)
        tbl_str(t, "");
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

static void print_head(strbuf *f, const gpuecon_disagg_sim_request *q, const gpuecon_disagg_sim_result *o,
                       const char *arrival, double elapsed)
{
    const gpuecon_sim_request *r = &q->sim;
    sb_printf(f, "%s on %s, stack %s: %dP x TP%d + %dD x TP%d (%d GPUs, KV over %s); ", r->serve.model->name,
            r->serve.system->name, gpuecon_serving_profile_label(&r->serve.profile), q->prefill_instances, q->prefill_tp, q->decode_instances, q->decode_tp,
            o->analytic.gpus_used, o->analytic.kv_over_scaleout ? "scale-out" : "scale-up");
    if (r->arrival == GPUECON_ARRIVAL_CLOSED)
        sb_printf(f, "closed loop of %d users\n", r->users);
    else if (r->arrival == GPUECON_ARRIVAL_BURST)
        sb_printf(f, "all %ld requests at t = 0 (throughput over the makespan)\n", r->requests);
    else
        sb_printf(f, "%s arrivals at %s requests/s\n", arrival, NUM_SIG(r->rate, 6));
    sb_printf(f, "%ld measured requests (%d replication%s, seed %llu), %.2f s; round robin over each pool\n\n",
            o->sim.requests, o->sim.replications, o->sim.replications > 1 ? "s" : "",
            (unsigned long long)o->sim.seed, elapsed);
}

static tbl *infer_disagg_sim_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_disagg_sim_result *o = ((const infer_disagg_sim_view *)view)->result;
    const serve_bands *b = ((const infer_disagg_sim_view *)view)->bands;
    const gpuecon_disagg_result *a = &o->analytic;
    bool at = o->analytic_at_rate, wb = b != NULL;
    tbl *t = tbl_new(ctx, oom);
    const char *cols[] = {"latency (ms)", "mean", "P50", "P90", "P99", "analytic mean", "mean 80% band"};
    for (int i = 0; i < (wb ? 7 : 6); i++)
        tbl_col(t, cols[i], i ? 'r' : 'l');
    lat_row(t, "TTFT (with KV transfer)", &o->sim.ttft_ms, at, a->ttft_ms, wb, b ? &b->ttft : NULL);
    lat_row(t, "TPOT", &o->sim.tpot_ms, at, a->tpot_ms, wb, b ? &b->tpot : NULL);
    lat_row(t, "ITL", &o->sim.itl_ms, false, 0, wb, NULL);
    lat_row(t, "E2E", &o->sim.e2e_ms, false, 0, wb, NULL);
    lat_row(t, "prefill queue", &o->sim.queue_ms, false, 0, wb, NULL);
    lat_row(t, "decode admission", &o->decode_queue_ms, false, 0, wb, NULL);
    return t;
}

static void infer_disagg_sim_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const infer_disagg_sim_view *v = view;
    const gpuecon_disagg_sim_request *q = v->request;
    const gpuecon_disagg_sim_result *o = v->result;
    const gpuecon_disagg_result *a = &o->analytic;
    bool at = o->analytic_at_rate;
    print_head(f, q, o, v->arrival, v->elapsed_s);
    tbl_print(t, f);
    tbl *p = tbl_new(out->ctx, out->oom);
    const char *pc[] = {"pool", "instances", "busy %", "KV held %", "seqs/instance", "analytic"};
    for (int i = 0; i < 6; i++)
        tbl_col(p, pc[i], i == 0 || i == 1 || i == 5 ? 'l' : 'r');
    char an[96];
    if (at)
        snprintf(an, sizeof an, "capacity %s req/s, utilisation %.0f%%", NUM_SIG(a->prefill_capacity, 3),
                 a->prefill_utilisation * 100);
    else
        snprintf(an, sizeof an, "capacity %s req/s", NUM_SIG(a->prefill_capacity, 3));
    pool_row(p, "prefill", q->prefill_instances, q->prefill_tp, o->prefill_busy, o->prefill_kv_util,
             o->prefill_running, an);
    snprintf(an, sizeof an, "capacity %s req/s", NUM_SIG(a->decode_capacity, 3));
    if (at)
        snprintf(an, sizeof an, "capacity %s req/s, %.1f seqs/instance", NUM_SIG(a->decode_capacity, 3), a->decode_batch);
    pool_row(p, "decode", q->decode_instances, q->decode_tp, o->decode_busy, o->decode_kv_util, o->decode_running,
             an);
    sb_putc(f, '\n');
    tbl_print(p, f);
    tbl_free(p);
    sb_printf(f, "\noutput %.0f tok/s (%.1f per GPU; analytic capacity %.0f tok/s), %s requests/s, goodput %s "
               "requests/s, %s preemptions\n",
            o->sim.output_tokens_per_s, o->sim.output_tokens_per_s_per_gpu, o->analytic_tokens_per_s,
            NUM_SIG(o->sim.requests_per_s, 3), NUM_SIG(o->sim.goodput_requests_per_s, 3), NUM_SIG(o->sim.preemptions, 3));
    sim_band_lines(f, &o->sim, v->bands);
    sb_printf(f, "analytic (mean lengths): capacity %s requests/s (%s-bound; the links carry %s requests/s), KV "
               "%.2f ms per request\n",
            NUM_SIG(a->capacity, 4), a->bound, NUM_SIG(a->transfer_capacity, 3), a->kv_transfer_ms);
    if (q->sim.ttft_slo_ms > 0 || q->sim.tpot_slo_ms > 0)
        sb_printf(f, "%s the targets at P%s\n", o->sim.meets_slo ? "meets" : "MISSES", NUM_SIG(q->sim.slo_percentile, 6));
    overload_note(f, &q->sim, &o->sim);
    if (o->sim.truncated > 0)
        sb_printf(f, "%.0f requests were cut to what both pools hold\n", o->sim.truncated);
}

const render_kind render_infer_disagg_sim = {infer_disagg_sim_json, infer_disagg_sim_table, infer_disagg_sim_text,
                                             NULL};
