/*
 * compare_serve.c — the serving prediction of one compare platform (docs/model.md §7.1):
 * an aggregated deployment at the workload's concurrency or the largest load meeting its TPOT
 * target (gpuecon_infer), a disaggregated one (gpuecon_infer_disagg, §6.13), and with the
 * workload's `simulate: true` the request-level simulation of either (§6.11; §6.13 "Simulated")
 * for TTFT and TPOT percentiles.
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "model/infer_sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The percentiles of a simulation (rc its status) into res; a request the simulator refuses
 * leaves the means standing, and the platform's note says why. */
static int put_percentiles(int rc, const gpuecon_sim_result *o, const gpuecon_error *e, gpuecon_platform_result *res,
                           gpuecon_error *err)
{
    if (rc == GPUECON_E_INPUT || rc == GPUECON_E_INFEASIBLE) { /* not simulated: the means stand */
        size_t n = strlen(res->predicted_note);
        if (n < sizeof res->predicted_note)
            snprintf(res->predicted_note + n, sizeof res->predicted_note - n, "; not simulated (%.200s)", e->message);
        return GPUECON_OK;
    }
    if (rc) {
        if (err)
            *err = *e;
        return rc;
    }
    res->simulated = true;
    res->ttft_ms_p50 = o->ttft_ms.p50, res->ttft_ms_p90 = o->ttft_ms.p90, res->ttft_ms_p99 = o->ttft_ms.p99;
    res->tpot_ms_p50 = o->tpot_ms.p50, res->tpot_ms_p90 = o->tpot_ms.p90, res->tpot_ms_p99 = o->tpot_ms.p99;
    return GPUECON_OK;
}

/* The arrivals compare simulates: Poisson at `rate`, 4,000 requests of fixed lengths. */
static void poisson(gpuecon_sim_request *q, const gpuecon_infer_request *serve, double rate)
{
    gpuecon_sim_request_init(q);
    q->serve = *serve;
    q->arrival = GPUECON_ARRIVAL_POISSON;
    q->rate = rate;
    q->requests = 4000;
}

/* Below saturation, Poisson arrivals at the rate the mean field serves at the operating
 * concurrency (Little's law: R = X / L_out; a closed loop of fixed-length requests far below
 * saturation would stay synchronised, §6.11), 4,000 requests, fixed lengths, the context's seed
 * and threads. At saturation (the point bound by KV, max_num_seqs or the token budget, not by the
 * load) that rate is the capacity itself: an open loop there never reaches a steady state (its
 * queue, TTFT and batch depend on the run's length), so the operating concurrency runs as a closed
 * loop of that many users instead, where the simulator agrees with the mean field (§6.11), at least
 * twice the users per replica measured. The percentiles go in res. */
static int simulate(gpuecon_ctx *ctx, const gpuecon_infer_request *serve, const gpuecon_infer_result *ir,
                    gpuecon_platform_result *res, gpuecon_error *err)
{
    gpuecon_sim_request q;
    poisson(&q, serve, ir->output_tokens_per_s / serve->output_len);
    q.serve.concurrency = 0;
    double need;
    if (ir->at.binding != GPUECON_BIND_OFFERED_LOAD && !sim_closed_loop(&q, ir->at.concurrency, ir->replicas, &need)) {
        size_t n = strlen(res->predicted_note);
        snprintf(res->predicted_note + n, sizeof res->predicted_note - n,
                 "; not simulated (a closed loop of %s users needs %s requests per replica; the simulator "
                 "runs at most %s users and %s requests per replica)",
                 NUM_COUNT(fmax(ir->replicas, round(ir->at.concurrency))), NUM_COUNT(need), NUM_COUNT(SIM_MAX_USERS),
                 NUM_COUNT((double)SIM_MAX_REQUESTS));
        return GPUECON_OK;
    }
    gpuecon_sim_result o;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_infer_simulate(ctx, &q, &o, &e);
    if (rc == GPUECON_OK && o.tpot_ms.mean > 1.25 * ir->tpot_ms) {
        /* the mean field is optimistic at mid loads where steps alternate long prompt chunks and
         * decodes (docs/model.md §6.11): at its rate the simulated replicas run a larger batch */
        size_t n = strlen(res->predicted_note);
        snprintf(res->predicted_note + n, sizeof res->predicted_note - n,
                 "; simulated at that rate it runs %.0f sequences per replica (mean field %.0f) at a mean TPOT of "
                 "%.1f ms (mean field %.1f)", o.mean_running, ir->at.batch, o.tpot_ms.mean, ir->tpot_ms);
    }
    return put_percentiles(rc, &o, &e, res, err);
}

/* A disaggregated platform simulated the same way at the rate it runs at (§6.13 "Simulated"). */
static int simulate_disagg(gpuecon_ctx *ctx, const gpuecon_disagg_request *d, double rate,
                           gpuecon_platform_result *res, gpuecon_error *err)
{
    gpuecon_disagg_sim_request q = {.prefill_instances = d->prefill_instances, .prefill_tp = d->prefill_tp,
                                    .decode_instances = d->decode_instances, .decode_tp = d->decode_tp};
    poisson(&q.sim, &d->base, rate);
    gpuecon_disagg_sim_result o;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    return put_percentiles(gpuecon_infer_disagg_simulate(ctx, &q, &o, &e), &o.sim, &e, res, err);
}

/* Whether mean latencies meet the workload's targets (an absent target is met). */
static bool within(const gpuecon_workload *w, double ttft_ms, double tpot_ms)
{
    return infer_slo_met(w->ttft_ms_target, w->tpot_ms_target, ttft_ms, tpot_ms);
}

static bool has_target(const gpuecon_workload *w)
{
    return w->tpot_ms_target > 0 || w->ttft_ms_target > 0;
}

/* "TPOT <= 40 ms", "TTFT <= 2000 ms" or both, for the notes */
static void targets_text(char *b, size_t n, const gpuecon_workload *w)
{
    int k = 0;
    b[0] = 0;
    if (w->tpot_ms_target > 0)
        k = snprintf(b, n, "TPOT <= %g ms", w->tpot_ms_target);
    if (w->ttft_ms_target > 0 && k >= 0 && (size_t)k < n)
        snprintf(b + k, n - (size_t)k, "%sTTFT <= %g ms", k ? " and " : "", w->ttft_ms_target);
}

/* A disaggregated serving platform (docs/model.md §6.13): at the largest rate whose mean TPOT
 * and TTFT meet the workload's targets, else at 90% of its capacity; per GPU over all its GPUs. */
static int predict_disagg(gpuecon_ctx *ctx, const gpuecon_infer_request *base, const gpuecon_workload *w,
                          const gpuecon_platform *pl, gpuecon_platform_result *res, gpuecon_error *err)
{
    gpuecon_disagg_request q = {.base = *base, .prefill_instances = pl->prefill_instances,
                                .prefill_tp = pl->prefill_tp, .decode_instances = pl->decode_instances,
                                .decode_tp = pl->decode_tp};
    q.base.tp = 0;
    q.base.concurrency = 0;
    gpuecon_disagg_result o;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_infer_disagg(&q, &o, &e);
    bool met = true;
    if (rc == GPUECON_OK && !within(w, o.ttft_ms, o.tpot_ms)) {
        gpuecon_disagg_result o90 = o;
        double lo = 0, hi = o.rate; /* TPOT and TTFT grow with the rate */
        for (int i = 0; i < 50 && hi - lo > 1e-6 * hi; i++) {
            q.rate = 0.5 * (lo + hi);
            if (gpuecon_infer_disagg(&q, &o, &e) == GPUECON_OK && within(w, o.ttft_ms, o.tpot_ms))
                lo = q.rate;
            else
                hi = q.rate;
        }
        if (lo > 0) {
            q.rate = lo;
            rc = gpuecon_infer_disagg(&q, &o, &e);
        } else { /* not even an idle deployment meets them: a vanishing rate would price nothing */
            met = false;
            q.rate = 0;
            o = o90;
        }
    }
    if (rc != GPUECON_OK && rc != GPUECON_E_INPUT && rc != GPUECON_E_INFEASIBLE) {
        if (err)
            *err = e;
        return rc;
    }
    if (rc != GPUECON_OK) {
        res->predicted_tokens_per_s_per_gpu = NAN;
        snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: %s", e.message);
        return GPUECON_OK;
    }
    res->meets_target = met;
    res->predicted_tokens_per_s_per_gpu = o.output_tokens_per_s / pl->gpus;
    res->concurrency = o.decode_batch * q.decode_instances;
    res->output_tokens_per_s = o.output_tokens_per_s;
    res->tpot_ms = o.tpot_ms;
    res->ttft_ms = o.ttft_ms;
    res->tp = q.decode_tp;
    res->replicas = q.decode_instances;
    char t[96] = "";
    if (!met)
        targets_text(t, sizeof t, w);
    snprintf(res->predicted_note, sizeof res->predicted_note,
             "disaggregated %dP x TP%d + %dD x TP%d, %s weights, %s KV, %.3g requests/s (%s-bound at %.3g), KV over %s%s%s%s",
             q.prefill_instances, q.prefill_tp, q.decode_instances, q.decode_tp, gpuecon_precision_name(pl->precision),
             gpuecon_precision_name(pl->kv), o.rate, o.bound, o.capacity, o.kv_over_scaleout ? "scale-out" : "scale-up",
             met ? "" : "; no rate meets ", t, met ? "" : ", shown at 90% of its capacity");
    return w->simulate ? simulate_disagg(ctx, &q, o.rate, res, err) : GPUECON_OK;
}

/* One aggregated layout: gpuecon_infer at the workload's concurrency, or, with a TPOT or TTFT
 * target and no concurrency, at the highest-throughput load of the sweep grid that meets them.
 * *met is false when a target was asked and no load meets it (the result is then at the lowest
 * load). */
static int serve_layout(gpuecon_infer_request *req, const gpuecon_workload *w, gpuecon_infer_result *ir, bool *met,
                        gpuecon_error *e)
{
    *met = true;
    int rc = gpuecon_infer(req, ir, e);
    if (rc != GPUECON_OK || !has_target(w))
        return rc;
    if (w->concurrency != 0) { /* the load is the workload's: it meets the targets or not */
        *met = within(w, ir->ttft_ms, ir->tpot_ms);
        return rc;
    }
    /* the largest load that meets the latency targets: TPOT and TTFT grow with concurrency */
    double c[64];
    size_t n = gpuecon_infer_grid(ir, c, 64);
    gpuecon_infer_point pts[64];
    if (!n || gpuecon_infer_sweep(req, c, n, pts, e) != GPUECON_OK)
        return rc;
    double best = 0;
    for (size_t i = 0; i < n; i++)
        if (within(w, pts[i].ttft_ms, pts[i].tpot_ms) && pts[i].output_tokens_per_s > best) {
            best = pts[i].output_tokens_per_s;
            req->concurrency = c[i];
        }
    if (best > 0)
        return gpuecon_infer(req, ir, e);
    *met = false; /* latencies grow with the load: the lowest is the closest to the targets */
    req->concurrency = c[0];
    return gpuecon_infer(req, ir, e);
}

/* The loads of the chosen layout req (its result ir) into curve where the workload has latency
 * targets: the workload's concurrency alone, or the loads of the sweep grid serve_layout chose
 * from that lie below the operating point, then the operating point. Per GPU, means, as the
 * prediction. A sweep that fails leaves the operating point alone. */
static void fill_curve(const gpuecon_infer_request *req, const gpuecon_workload *w, const gpuecon_infer_result *ir,
                       serve_curve *cv)
{
    if (!cv || !has_target(w) || ir->gpus <= 0 || !(ir->output_tokens_per_s > 0))
        return;
    double c[SERVE_CURVE_MAX - 1];
    gpuecon_infer_point pts[SERVE_CURVE_MAX - 1];
    gpuecon_error e;
    size_t n = w->concurrency != 0 ? 0 : gpuecon_infer_grid(ir, c, SERVE_CURVE_MAX - 1);
    cv->n = 0;
    if (n && gpuecon_infer_sweep(req, c, n, pts, &e) == GPUECON_OK)
        for (size_t i = 0; i < n; i++) {
            if (!(pts[i].concurrency < ir->at.concurrency * (1 - 1e-9)) || !(pts[i].output_tokens_per_s_per_gpu > 0) ||
                !isfinite(pts[i].tpot_ms) || !isfinite(pts[i].ttft_ms))
                continue;
            cv->concurrency[cv->n] = pts[i].concurrency;
            cv->toks[cv->n] = pts[i].output_tokens_per_s_per_gpu;
            cv->tpot_ms[cv->n] = pts[i].tpot_ms;
            cv->ttft_ms[cv->n] = pts[i].ttft_ms;
            cv->n++;
        }
    cv->concurrency[cv->n] = ir->at.concurrency;
    cv->toks[cv->n] = ir->output_tokens_per_s / ir->gpus;
    cv->tpot_ms[cv->n] = ir->tpot_ms;
    cv->ttft_ms[cv->n] = ir->ttft_ms;
    cv->n++;
}

/* How far a layout's mean latencies are above the targets (0: met). */
static double miss(const gpuecon_workload *w, const gpuecon_infer_result *o)
{
    return infer_slo_miss(w->ttft_ms_target, w->tpot_ms_target, o->ttft_ms, o->tpot_ms);
}

/* A disaggregated platform at the workload's rate (placement: disaggregated; docs/model.md §7.1): the
 * fewest GPUs whose prefill and decode pools serve the rate with mean TTFT and TPOT within the targets
 * (gpuecon_infer_disagg_size, §6.13), searched within a bound that doubles by whole units (1, 2, 4, ...
 * units up to the platform's gpus or GPUECON_SERVE_SIZE_MAX_GPUS): the first bound holding a layout gives
 * the fewest overall, since every smaller count lies within the bound before it, which held none. The
 * deployment is charged in whole units (the pools share servers or racks). The disaggregated model's
 * figures are means: a percentile target is checked on them, and the note says so. */
static int predict_sized_disagg(const gpuecon_infer_request *base, const gpuecon_workload *w,
                                const gpuecon_platform *pl, gpuecon_platform_result *res, gpuecon_error *err)
{
    const char *unit_name;
    int u = gpuecon_serving_unit(base->system, &unit_name);
    int bound = pl->gpus > 0 ? pl->gpus : GPUECON_SERVE_SIZE_MAX_GPUS;
    gpuecon_infer_request b = *base;
    b.tp = b.pp = 0;
    b.concurrency = 0;
    gpuecon_disagg_request q;
    gpuecon_disagg_result o;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    long evaluated = 0;
    int rc = GPUECON_E_INFEASIBLE, tried = 0;
    for (int g = pl->gpus > 0 ? pl->gpus : u; rc == GPUECON_E_INFEASIBLE && tried < 24; g = g * 2 > bound ? bound : g * 2) {
        long ev = 0;
        b.gpus = g;
        gpuecon_error_clear(&e);
        rc = gpuecon_infer_disagg_size(&b, w->rate, w->ttft_ms_target, w->tpot_ms_target, &q, &o, &ev, &e);
        evaluated += ev;
        tried++;
        if (g >= bound)
            break;
    }
    res->at_rate = true;
    res->unit = unit_name;
    res->unit_gpus = u;
    char t[96] = "";
    targets_text(t, sizeof t, w);
    if (rc != GPUECON_OK) {
        if (rc != GPUECON_E_INFEASIBLE && rc != GPUECON_E_INPUT) {
            if (err)
                *err = e;
            return rc;
        }
        res->predicted_tokens_per_s_per_gpu = NAN;
        snprintf(res->predicted_note, sizeof res->predicted_note,
                 "no prediction: no disaggregated layout up to %d GPUs serves %g requests/s%s%s (%ld layouts): %.300s",
                 bound, w->rate, t[0] ? " within " : "", t, evaluated, e.message);
        return GPUECON_OK;
    }
    int used = q.prefill_instances * q.prefill_tp + q.decode_instances * q.decode_tp;
    int units = (used + u - 1) / u;
    res->meets_target = true;
    res->units = pl->gpus > 0 ? 0 : units;
    res->gpus = pl->gpus > 0 ? pl->gpus : units * u;
    res->predicted_tokens_per_s_per_gpu = w->rate * w->output_len / res->gpus;
    res->output_tokens_per_s = w->rate * w->output_len;
    res->concurrency = o.decode_batch * q.decode_instances;
    res->ttft_ms = o.ttft_ms;
    res->tpot_ms = o.tpot_ms;
    res->tp = q.decode_tp;
    res->replicas = q.decode_instances;
    res->weights = b.weights;
    res->kv = b.kv;
    snprintf(res->predicted_note, sizeof res->predicted_note,
             "sized disaggregated: %d prefill x TP%d + %d decode x TP%d = %d GPUs, %s %d %s%s of %d GPUs; the fewest "
             "serving %g requests/s%s%s (%ld layouts), bound by %s; means (mean TTFT %.4g ms, TPOT %.3g ms): a P%g "
             "target is checked on the means, not simulated", q.prefill_instances, q.prefill_tp, q.decode_instances,
             q.decode_tp, used, pl->gpus > 0 ? "on the" : "charged as", pl->gpus > 0 ? pl->gpus : units,
             pl->gpus > 0 ? "GPUs given" : unit_name, pl->gpus > 0 || units == 1 ? "" : "s", u, w->rate,
             t[0] ? " within " : "", t, evaluated, o.bound, o.ttft_ms, o.tpot_ms,
             w->slo_percentile > 0 ? w->slo_percentile : 90);
    return GPUECON_OK;
}

/* A platform at the workload's rate (docs/model.md §7.1, serving sizing): without gpus, the fewest
 * units (gpuecon_serving_unit) whose best configuration meets the targets at the workload's
 * percentile (gpuecon_infer_size: layout, precisions within what was given, engine limits,
 * confirmed by the simulator); with gpus, the search at that count. A platform that keeps up
 * serves what arrives, so it is priced at the offered load per GPU, rate x output_len / GPUs
 * ($/Mtok = GPUs x $/GPU-h / (tokens/h) x 1e6). None up to the bound: no prediction, and the note
 * says to what count it was searched and by how much the closest missed. */
static int predict_sized(gpuecon_ctx *ctx, const gpuecon_infer_request *base, const gpuecon_workload *w,
                         const gpuecon_platform *pl, gpuecon_platform_result *res, gpuecon_error *err)
{
    gpuecon_serve_search_request q;
    gpuecon_serve_search_request_init(&q);
    q.base = *base;
    q.base.tp = q.base.pp = 0;
    q.base.concurrency = 0;
    q.ttft_ms = w->ttft_ms_target;
    q.tpot_ms = w->tpot_ms_target;
    q.slo_percentile = w->slo_percentile > 0 ? w->slo_percentile : 90;
    q.rate = w->rate;
    q.top = 1;
    q.fixed_weights = pl->precision_given;
    q.fixed_kv = pl->kv_given;
    gpuecon_serve_size_result *z = ctx_alloc(ctx, sizeof *z);
    if (!z)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for the sizing search");
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc;
    if (pl->gpus > 0) {
        memset(z, 0, sizeof *z);
        q.gpus = &pl->gpus;
        q.ngpus = 1;
        z->unit_gpus = gpuecon_serving_unit(base->system, &z->unit);
        z->gpus = pl->gpus;
        rc = gpuecon_infer_search(ctx, &q, &z->search, &e);
    } else {
        rc = gpuecon_infer_size(ctx, &q, 1, GPUECON_SERVE_SIZE_MAX_GPUS, z, &e);
    }
    res->at_rate = true;
    res->unit = z->unit;
    res->unit_gpus = z->unit_gpus;
    res->units = pl->gpus > 0 ? 0 : z->units;
    res->fewer_units_missed = z->fewer_missed;
    res->gpus = z->gpus;
    char t[96] = "";
    targets_text(t, sizeof t, w);
    if (rc == GPUECON_OK) {
        const gpuecon_serve_config *b = &z->search.best[0];
        res->meets_target = true;
        res->gpus = b->gpus;
        res->predicted_tokens_per_s_per_gpu = w->rate * w->output_len / b->gpus;
        res->output_tokens_per_s = w->rate * w->output_len;
        res->concurrency = b->concurrency;
        res->ttft_ms = b->ttft_ms;
        res->tpot_ms = b->tpot_ms;
        res->tp = b->tp;
        res->pp = b->pp > 1 ? b->pp : 1;
        res->replicas = b->replicas;
        res->weights = b->weights;
        res->kv = b->kv;
        char sized[200];
        if (pl->gpus > 0)
            snprintf(sized, sizeof sized, "searched on the %d GPUs given", pl->gpus);
        else
            snprintf(sized, sizeof sized, "sized: %d %s%s of %d GPUs, the fewest meeting %s at P%g%s", z->units,
                     z->unit, z->units == 1 ? "" : "s", z->unit_gpus, t[0] ? t : "the rate", q.slo_percentile,
                     z->fewer_missed ? "" : " (the smallest searched)");
        snprintf(res->predicted_note, sizeof res->predicted_note,
                 "%s; %d x %s%d%s%.0d, %s weights, %s KV, max_num_seqs %d, at %g requests/s: TTFT %.4g ms, TPOT %.3g "
                 "ms (%s)%s", sized, b->replicas, b->attention_dp ? "DP+EP" : "TP", b->tp, b->pp > 1 ? " x PP" : "",
                 b->pp > 1 ? b->pp : 0, gpuecon_precision_name(b->weights), gpuecon_precision_name(b->kv),
                 b->max_num_seqs, w->rate, b->ttft_ms, b->tpot_ms,
                 b->simulated ? "simulated, at the percentile" : "mean field, not simulated",
                 pl->precision_given && pl->kv_given ? ""
                 : pl->precision_given ? "; the KV precision chosen by the search (kv: fixes it)"
                 : pl->kv_given        ? "; the weight precision chosen by the search (precision: fixes it)"
                                       : "; precisions chosen by the search (precision: and kv: fix them)");
    } else if (rc == GPUECON_E_INFEASIBLE || rc == GPUECON_E_INPUT) {
        res->predicted_tokens_per_s_per_gpu = NAN;
        if (pl->gpus > 0)
            snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: on the %d GPUs given, %.400s",
                     pl->gpus, e.message);
        else
            snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: %.500s", e.message);
        rc = GPUECON_OK;
    } else if (err) {
        *err = e;
    }
    ctx_free(ctx, z, sizeof *z);
    return rc;
}

static int serve_unsized(gpuecon_ctx *ctx, gpuecon_infer_request *reqp, const gpuecon_workload *w,
                         const gpuecon_platform *pl, const gpuecon_model *m, const gpuecon_system *sys,
                         gpuecon_platform_result *res, serve_curve *curve, gpuecon_error *err);

int compare_predict_serve(gpuecon_ctx *ctx, const gpuecon_workload *w, const gpuecon_platform *pl,
                          const gpuecon_stack *stack, const gpuecon_calibration *cal, const gpuecon_model *m,
                          const gpuecon_system *sys, gpuecon_platform_result *res, serve_curve *curve,
                          gpuecon_error *err)
{
    if (curve)
        curve->n = 0;
    gpuecon_infer_request req;
    gpuecon_infer_request_init(&req);
    req.model = m;
    req.system = sys;
    req.gpus = pl->gpus;
    req.tp = pl->tp;
    req.pp = pl->pp; /* pipeline stages of a serving platform (docs/model.md §6.14) */
    req.weights = pl->precision;
    req.kv = pl->kv;
    req.max_num_seqs = pl->max_num_seqs;
    req.max_num_batched_tokens = pl->max_num_batched_tokens;
    req.long_prefill_token_threshold = pl->long_prefill_token_threshold;
    req.prompt_len = w->prompt_len;
    req.output_len = w->output_len;
    req.concurrency = w->concurrency;
    if (stack && !gpuecon_serving_profile_from_stack(stack, &req.profile))
        return err_set(err, GPUECON_E_INPUT, OPTION("stack"), 0, 0, "%s names an unknown efficiency profile", stack->name);
    gpuecon_calibration_apply_profile(cal, &req.profile); /* NULL: none */
    int prc = w->rate > 0 && pl->placement == GPUECON_RL_DISAGGREGATED ? predict_sized_disagg(&req, w, pl, res, err)
              : w->rate > 0 ? predict_sized(ctx, &req, w, pl, res, err)
                            : serve_unsized(ctx, &req, w, pl, m, sys, res, curve, err);
    if (prc == GPUECON_OK && cal && isfinite(res->predicted_tokens_per_s_per_gpu)) { /* it says so, as training does */
        size_t l = strlen(res->predicted_note);
        snprintf(res->predicted_note + l, sizeof res->predicted_note - l, "; calibrated: %s", cal->name);
    }
    return prc;
}

/* compare_predict_serve without a rate: the given layout, or the TP serving the most. */
static int serve_unsized(gpuecon_ctx *ctx, gpuecon_infer_request *reqp, const gpuecon_workload *w,
                         const gpuecon_platform *pl, const gpuecon_model *m, const gpuecon_system *sys,
                         gpuecon_platform_result *res, serve_curve *curve, gpuecon_error *err)
{
    gpuecon_infer_request req = *reqp;
    if (pl->prefill_instances > 0)
        return predict_disagg(ctx, &req, w, pl, res, err);
    gpuecon_infer_result ir;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    bool met = true;
    int rc = GPUECON_E_INFEASIBLE, tried = 0;
    if (pl->tp > 0)
        rc = serve_layout(&req, w, &ir, &met, &e);
    else {
        /* TP not given: every TP inside the NVLink domain with TP x PP dividing the GPUs is tried
         * and the one serving most output tokens/s wins (on one platform the cost per token ranks
         * the same), a layout meeting the latency targets before one that does not, and among
         * layouts that meet none the least miss; ties go to the smaller TP. The smallest TP that
         * fits alone starved a 70B model's KV pool on 80 GB GPUs. */
        int pp = pl->pp > 0 ? pl->pp : 1;
        gpuecon_infer_request base = req;
        for (int tp = 1; tp <= pl->gpus && tp <= sys->scaleup_gpus; tp++) {
            if (pl->gpus % (tp * pp) || infer_check_tp(m, tp, NULL) != GPUECON_OK)
                continue;
            gpuecon_infer_request r2 = base;
            r2.tp = tp;
            gpuecon_infer_result o2;
            gpuecon_error e2;
            bool met2;
            if (serve_layout(&r2, w, &o2, &met2, &e2) != GPUECON_OK)
                continue;
            bool better = !tried++ || (met2 && met ? o2.output_tokens_per_s > ir.output_tokens_per_s * (1 + 1e-9)
                                                   : met2 || (!met && miss(w, &o2) < miss(w, &ir) - 1e-9));
            if (better) {
                rc = GPUECON_OK;
                req = r2;
                ir = o2;
                met = met2;
            }
        }
        if (!tried) /* no TP fits: the smallest-TP resolution names why */
            rc = serve_layout(&req, w, &ir, &met, &e);
    }
    if (rc == GPUECON_OK && !met) {
        char t[96];
        targets_text(t, sizeof t, w);
        if (w->concurrency != 0)
            snprintf(res->predicted_note, sizeof res->predicted_note, "misses %s at %d in flight (TPOT %.3g ms, TTFT %.4g ms)",
                     t, (int)w->concurrency, ir.tpot_ms, ir.ttft_ms);
        else
            snprintf(res->predicted_note, sizeof res->predicted_note, "no load meets %s; shown at the lowest load", t);
    }
    res->meets_target = rc == GPUECON_OK && met;
    if (rc != GPUECON_OK && rc != GPUECON_E_INPUT && rc != GPUECON_E_INFEASIBLE) {
        if (err)
            *err = e;
        return rc;
    }
    if (rc != GPUECON_OK) {
        res->predicted_tokens_per_s_per_gpu = NAN;
        snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: %s", e.message);
        return GPUECON_OK;
    }
    res->predicted_tokens_per_s_per_gpu = ir.output_tokens_per_s / ir.gpus;
    res->concurrency = ir.at.concurrency;
    res->output_tokens_per_s = ir.output_tokens_per_s;
    res->tpot_ms = ir.tpot_ms;
    res->ttft_ms = ir.ttft_ms;
    res->tp = ir.tp;
    res->replicas = ir.replicas;
    fill_curve(&req, w, &ir, curve);
    if (!res->predicted_note[0])
        snprintf(res->predicted_note, sizeof res->predicted_note, "%d x TP%d%s%.0d, %s weights, %s KV, %.0f in flight%s%s",
                 ir.replicas, ir.tp, ir.pp > 1 ? " x PP" : "", ir.pp > 1 ? ir.pp : 0,
                 gpuecon_precision_name(pl->precision), gpuecon_precision_name(pl->kv), ir.at.concurrency,
                 /* named where it binds: a limit the workload's lengths, not the memory, set */
                 ir.at.binding == GPUECON_BIND_MAX_NUM_BATCHED_TOKENS ? ", bound by max_num_batched_tokens" : "",
                 tried > 1 ? "; TP chosen for throughput" : "");
    return w->simulate ? simulate(ctx, &req, &ir, res, err) : GPUECON_OK;
}

