/*
 * uncertainty.c — the uncertainty a predicted throughput carries into a comparison
 * (docs/model.md §7.5): the 80% band of the platform's predicted tokens/s/GPU (band.c, §7.6 —
 * the nearest group of held-out validate rows, widened where the platform's layout or engine
 * lies outside them), for a training platform and a serving one alike, and whether that band
 * reaches the break-even throughput, i.e. whether the prediction's own error could flip the
 * verdict. The band set is built once per comparison (a copy of the compiled rows, no validate run).
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "model/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int compare_bands_fill(gpuecon_ctx *ctx, const gpuecon_catalog *cat, compare_bands *b, gpuecon_error *err)
{
    if (b->ready)
        return GPUECON_OK;
    int rc = band_set_build(ctx, cat, &b->set, err);
    b->ready = rc == GPUECON_OK;
    return rc;
}

void compare_bands_free(gpuecon_ctx *ctx, compare_bands *b)
{
    (void)ctx;
    band_set_free(b->set);
    memset(b, 0, sizeof *b);
}

/* The band case of platform i: its GPU generation, precision, kind, stack or engine, context, GPUs
 * and concurrency; a training layout's axes from its calibration match. */
static void platform_case(const gpuecon_comparison *c, const gpuecon_model *m, const pstate *ps,
                          const gpuecon_platform_result *r, const char **why, band_case *bc)
{
    const gpuecon_workload *w = &c->workload;
    bool train = r->have_calib;
    memset(bc, 0, sizeof *bc);
    bc->metric = c->workload.kind == GPUECON_WORKLOAD_SERVE ? BAND_SERVE_TPS : BAND_TRAIN_TPS;
    bc->arch = ps->sys->gpu && ps->sys->gpu->arch ? ps->sys->gpu->arch : "?";
    bc->prec = ps->pl->precision;
    bc->moe = m && m->experts > 0;
    bc->stack = bc->metric == BAND_SERVE_TPS ? (ps->serve_stack ? ps->serve_stack->name : NULL) : r->stack;
    bc->seq = bc->metric == BAND_SERVE_TPS ? w->prompt_len + w->output_len : w->seq;
    bc->gpus = r->gpus;
    bc->batch = bc->metric == BAND_SERVE_TPS ? w->concurrency : w->gbs;
    if (train) { /* the layout against the calibration set (§3.5): its axes and their texts */
        for (int a = 0; a < CALIB_AXIS_COUNT; a++)
            why[a] = r->calib.why[a];
        bc->axes = r->calib.axes, bc->why = why;
    }
    /* a user's calibration applied to this platform's prediction (gpuecon calibrate's overlay) sets
       the band to its leave-one-out spread, as in train and infer */
    bc->cal = r->user_calibration;
}

void compare_uncertainty(const compare_bands *b, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                         gpuecon_comparison_result *cr, const pstate *ps)
{
    const gpuecon_model *m = c->workload.model ? gpuecon_catalog_model(cat, c->workload.model) : NULL;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        gpuecon_platform_result *r = &cr->platforms[i];
        memset(&r->band, 0, sizeof r->band);
        memset(&r->band_tpot, 0, sizeof r->band_tpot);
        memset(&r->band_ttft, 0, sizeof r->band_ttft);
        memset(&r->band_rl_step, 0, sizeof r->band_rl_step);
        bool kind = cr->kind == GPUECON_WORKLOAD_TRAIN || cr->kind == GPUECON_WORKLOAD_SERVE ||
                    cr->kind == GPUECON_WORKLOAD_RL;
        if (!kind || !r->feasible || r->measured || !b || !b->ready || !(r->tokens_per_s_per_gpu > 0))
            continue;
        if (cr->kind == GPUECON_WORKLOAD_RL) { /* the step time's band, as gpuecon rl gives it */
            if (!(r->rl_step_time_s > 0) || !isfinite(r->predicted_tokens_per_s_per_gpu))
                continue;
            const gpuecon_workload *w = &c->workload;
            gpuecon_rl_request q; /* what band_rl reads of the platform's RL step (compare_rl.c) */
            gpuecon_rl_request_init(&q);
            q.system = ps[i].sys, q.policy = m, q.stack = ps[i].stack, q.train_precision = ps[i].pl->precision;
            q.gpus = r->gpus, q.prompts = w->prompts, q.samples = w->samples;
            q.prompt_len = w->prompt_len, q.response_len = w->response_len;
            band_rl(b->set, &q, r->rl_step_time_s, &r->band_rl_step);
            /* trained tokens/s/GPU = tokens per step / step / GPUs: the slow end of the step is the low end */
            band_scaled(&r->band_rl_step, r->rl_step_time_s, r->tokens_per_s_per_gpu, true, &r->band);
            continue;
        }
        const char *why[CALIB_AXIS_COUNT];
        band_case bc;
        platform_case(c, m, &ps[i], r, why, &bc);
        band_of(b->set, &bc, r->tokens_per_s_per_gpu, &r->band);
        if (cr->kind != GPUECON_WORKLOAD_SERVE)
            continue;
        /* the latencies at the same operating point, as infer bands them (band_serving) */
        bc.metric = BAND_TPOT;
        if (r->tpot_ms > 0 && isfinite(r->tpot_ms))
            band_of(b->set, &bc, r->tpot_ms, &r->band_tpot);
        bc.metric = BAND_TTFT;
        if (r->ttft_ms > 0 && isfinite(r->ttft_ms))
            band_of(b->set, &bc, r->ttft_ms, &r->band_ttft);
    }
}

/* One latency clause of the cheapest serving platform: its band against the workload's target,
 * in four cases (the band within it; only its high end past it; the point past it but not the low
 * end; the whole band past it). */
static size_t latency_clause(char *v, size_t n, size_t cap, const char *name, const char *what,
                             const gpuecon_band *b, double point, double target)
{
    if (!b->set || !(target > 0) || n >= cap)
        return n;
    const char *pre, *post;
    if (b->high <= target)
        pre = "within", post = " across the band";
    else if (point <= target)
        pre = "its high end above", post = ": the prediction's own uncertainty could make it miss";
    else if (b->low <= target)
        pre = "above", post = ", its low end within it: it meets the target only if the prediction is pessimistic";
    else
        pre = "above", post = " across the whole band";
    return n + (size_t)snprintf(v + n, cap - n,
                                " At its load %s's %s is predicted %.1f ms (%.1f-%.1f ms, 80%% band; %s), %s the %g ms "
                                "target%s.",
                                name, what, point, b->low, b->high, b->basis, pre, target, post);
}

/* Whether the band of platform p reaches its throughput break-even against the rival. */
static const gpuecon_breakeven *toks_breakeven(const gpuecon_comparison_result *cr, int p)
{
    for (size_t i = 0; i < cr->n_breakeven; i++)
        if (cr->breakeven[i].platform == p && !strcmp(cr->breakeven[i].input, "tokens_per_s_per_gpu"))
            return &cr->breakeven[i];
    return NULL;
}

void compare_uncertainty_verdict(gpuecon_comparison_result *cr, const gpuecon_workload *wl)
{
    int who[2] = {cr->cheapest, cr->runner_up};
    size_t n = strlen(cr->verdict), cap = sizeof cr->verdict;
    for (int w = 0; w < 2 && n < cap; w++) {
        if (who[w] < 0)
            continue;
        const gpuecon_platform_result *r = &cr->platforms[who[w]];
        const gpuecon_band *b = &r->band;
        if (!b->set)
            continue;
        const gpuecon_breakeven *be = toks_breakeven(cr, who[w]);
        if (!be || !be->found) {
            n += (size_t)snprintf(cr->verdict + n, cap - n,
                                  " %s's throughput is predicted %.0f-%.0f tok/s/GPU (80%% band; %s).", r->name,
                                  b->low, b->high, b->basis);
            continue;
        }
        /* the cheapest loses its place if its throughput can fall to the break-even; the runner-up
           takes it if its throughput can rise to it */
        bool flips = w == 0 ? b->low <= be->value : b->high >= be->value;
        /* the cheapest's band reaches down to its break-even or stays above it; the runner-up's
           reaches up to its own or stays short of it */
        const char *where = w == 0 ? (flips ? "reaching down to" : "staying above")
                                   : (flips ? "reaching" : "short of");
        n += (size_t)snprintf(cr->verdict + n, cap - n,
                              " %s's throughput is predicted %.0f-%.0f tok/s/GPU (80%% band; %s), %s the "
                              "break-even %.0f, so the prediction's own uncertainty %s flip the verdict.",
                              r->name, b->low, b->high, b->basis, where, be->value, flips ? "could" : "cannot");
    }
    if (cr->kind == GPUECON_WORKLOAD_SERVE && wl && cr->cheapest >= 0 && n < cap) {
        const gpuecon_platform_result *r = &cr->platforms[cr->cheapest];
        n = latency_clause(cr->verdict, n, cap, r->name, "TPOT", &r->band_tpot, r->tpot_ms, wl->tpot_ms_target);
        n = latency_clause(cr->verdict, n, cap, r->name, "TTFT", &r->band_ttft, r->ttft_ms, wl->ttft_ms_target);
    }
}
