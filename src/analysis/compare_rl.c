/*
 * compare_rl.c — RL post-training workloads in `compare` (kind: rl; docs/model.md §8.9).
 *
 * A platform's RL step comes from rl_step (rl.c); compare then costs it as a training run
 * whose tokens are the trained tokens (TCO, goodput under failures and spares for the tier, MWh,
 * break-even, sensitivity), so an RL comparison ranks by effective $ per million trained tokens.
 * Key choice: the verdict names the deciding term by attributing the two best platforms' cost
 * difference to the phases of the step — each phase's GPU-seconds per trained token — and says
 * where the claim that rack-scale NVLink (NVL72) wins RL fails: when the cheapest platform is not
 * a rack-scale one, or wins on a term (the latency-bound tail, the training step) that does
 * not depend on the NVLink domain.
 */
#include "analysis/analysis.h"
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int compare_rl_predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_workload *w,
                       const gpuecon_platform *pl, const gpuecon_stack *stack, int gpus,
                       gpuecon_platform_result *res, gpuecon_error *err)
{
    gpuecon_rl_request r;
    gpuecon_rl_request_init(&r);
    rl_default_engine(cat, &r);
    r.policy = gpuecon_catalog_model(cat, w->model);
    r.reference = r.policy;
    r.system = gpuecon_catalog_system(cat, pl->system);
    gpuecon_system at_limit;
    int lrc = gpuecon_system_at_power_limit(r.system, pl->power_limit_w, "power_limit_w", &at_limit, &r.system, err);
    if (lrc)
        return lrc;
    r.stack = stack;
    r.gpus = gpus;
    r.placement = (gpuecon_rl_placement)pl->placement;
    r.off_policy = pl->off_policy;
    r.gen_gpus = pl->gen_gpus;
    r.prompts = w->prompts;
    r.samples = w->samples;
    r.prompt_len = w->prompt_len;
    r.response_len = w->response_len;
    r.response_cv = w->response_cv;
    r.max_response_len = w->max_response_len;
    r.oversample = w->oversample;
    r.partial_tokens = w->partial_rollouts;
    r.gen_weights = w->gen_weights;
    r.kv = pl->kv;
    r.train_precision = pl->precision;
    r.sync_fp8 = w->sync_fp8;
    /* a user's calibrations (--catalog overlay), as gpuecon rl applies them: the trainer's and the engine's */
    rl_user_calibrations(cat, pl->system, &r);
    gpuecon_rl_result *o = ctx_alloc(ctx, sizeof *o);
    if (!o)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = rl_step(ctx, &r, o, &e);
    if (rc == GPUECON_E_INPUT || rc == GPUECON_E_INFEASIBLE) {
        res->predicted_tokens_per_s_per_gpu = NAN;
        snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: %s", e.message);
        rc = GPUECON_OK;
    } else if (rc) {
        if (err)
            *err = e;
    } else {
        res->predicted_tokens_per_s_per_gpu = o->trained_tokens_per_s / gpus;
        res->mfu = o->train.mfu;
        res->par = o->train.par;
        res->rl_step_time_s = o->step_time_s;
        res->rl_trained_tokens_per_step = o->trained_tokens;
        res->rl_bd = o->bd;
        res->rl_placement = r.placement;
        res->rl_off_policy = r.off_policy;
        res->rl_gen_gpus = o->gen_gpus;
        res->rl_gen_attention_dp = o->gen.attention_dp;
        res->rl_gen_tp = o->gen.attention_dp ? o->gen.ep : o->gen.tp;
        res->rl_generation_s = o->generation_s;
        res->rl_scoring_s = o->scoring_s;
        res->rl_training_s = o->training_s;
        res->rl_weight_sync_s = o->weight_sync_s;
        res->rl_swap_s = o->swap_s;
        res->rl_gen_drain_s = o->gen_drain_s;
        res->rl_response_end = o->response_end;
        res->rl_gen_max_concurrency = o->gen.max_concurrency;
        snprintf(res->predicted_note, sizeof res->predicted_note,
                 "%s%s, step %.1f s: generation %.1f s (%d GPUs, %s %d, on %s; tail %.1f s to %.0f tokens), "
                 "scoring %.1f s, training %.1f s, sync %.2f s, swap %.2f s",
                 gpuecon_rl_placement_name(r.placement), r.off_policy ? " one-step off-policy" : "",
                 o->step_time_s, o->generation_s, o->gen_gpus, o->gen.attention_dp ? "attention-DP EP" : "TP",
                 res->rl_gen_tp, gpuecon_serving_profile_label(&r.serving),
                 o->gen_drain_s, o->response_end,
                 o->scoring_s, o->training_s, o->weight_sync_s, o->swap_s);
        if (r.train_calibration) { /* a prediction that uses the user's calibrations says so */
            size_t l = strlen(res->predicted_note);
            snprintf(res->predicted_note + l, sizeof res->predicted_note - l, "; trainer calibrated: %s",
                     r.train_calibration->name);
        }
        if (r.serving.calibration) {
            size_t l = strlen(res->predicted_note);
            snprintf(res->predicted_note + l, sizeof res->predicted_note - l, "; generator calibrated: %s",
                     r.serving.calibration->name);
        }
    }
    ctx_free(ctx, o, sizeof *o);
    return rc;
}

/* An NVLink domain beyond one server (NVL72), as the tier analysis counts it. */
static bool rack_scale(const pstate *ps)
{
    return ps->sys->scaleup_gpus > ps->sys->gpus_per_node;
}

/* GPU-seconds per million trained tokens spent in each phase (the GPU-time breakdown x GPUs). */
static double phase_cost(const gpuecon_platform_result *p, double out[6])
{
    const gpuecon_rl_breakdown *b = &p->rl_bd;
    double k = p->gpus / p->rl_trained_tokens_per_step * 1e6, sum = 0;
    double v[6] = {b->generation_s, b->scoring_s, b->training_s, b->weight_sync_s, b->swap_s, b->idle_s};
    for (int i = 0; i < 6; i++)
        sum += out[i] = v[i] * k;
    return sum;
}

/* The best feasible rack-scale and plain-server platforms (NULL when a kind has none). */
static void best_of_kinds(const gpuecon_comparison_result *cr, const pstate *ps, const gpuecon_platform_result **rack,
                          const gpuecon_platform_result **plain)
{
    *rack = *plain = NULL;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (!p->feasible || !isfinite(p->rank_usd_per_mtok))
            continue;
        const gpuecon_platform_result **slot = rack_scale(&ps[i]) ? rack : plain;
        if (!*slot || p->rank_usd_per_mtok < (*slot)->rank_usd_per_mtok)
            *slot = p;
    }
}

void compare_rl_verdict(gpuecon_comparison_result *cr, const pstate *ps)
{
    static const char *const names[6] = {"generation", "scoring", "training", "weight sync", "the offload swap",
                                          "idle pools"};
    if (cr->cheapest < 0)
        return;
    size_t n = strlen(cr->verdict), cap = sizeof cr->verdict;
    const gpuecon_platform_result *rack, *plain;
    best_of_kinds(cr, ps, &rack, &plain);
    for (size_t i = 0; i < cr->n_platforms && n < cap; i++)
        if (!cr->platforms[i].feasible)
            n += (size_t)snprintf(cr->verdict + n, cap - n, " %s cannot run it.", cr->platforms[i].name);
    if (!rack || !plain || n >= cap)
        return;
    /* rack/plain cost = GPU-seconds per token x price per GPU-hour x failures and spares */
    double a[6], b[6], ga = phase_cost(rack, a), gb = phase_cost(plain, b);
    double cost = rack->rank_usd_per_mtok / plain->rank_usd_per_mtok, tratio = ga / gb;
    double price = rack->tco_usd_per_gpu_hour / plain->tco_usd_per_gpu_hour, rest = cost / (tratio * price);
    int k = 0;
    for (int i = 1; i < 6; i++)
        if (fabs(a[i] - b[i]) > fabs(a[k] - b[k]))
            k = i;
    double f[3] = {fabs(log(tratio)), fabs(log(price)), fabs(log(rest))};
    int d = f[0] >= f[1] && f[0] >= f[2] ? 0 : f[1] >= f[2] ? 1 : 2;
    char term[160];
    if (d == 0)
        snprintf(term, sizeof term, "the GPU-seconds, through %s (%.0f vs %.0f GPU-s per 1M trained tokens)", names[k],
                 a[k], b[k]);
    else
        snprintf(term, sizeof term, "%s", d == 1 ? "the price per GPU-hour" : "failures and spares");
    /* the difference in the one framing ("N% below", from the cheaper side); its factors as ratios, since
       they multiply: rack/plain cost = GPU-seconds x price x failures and spares */
    n += (size_t)snprintf(cr->verdict + n, cap - n,
                          " Rack-scale vs plain servers: %s is %s %s per trained token; %s's cost over %s's = %.2fx "
                          "the GPU-seconds (%s %.0f vs %.0f s: the step waits on the slowest response, %.0f tokens) x "
                          "%.2fx the price per GPU-hour x %.2fx for failures and spares (ETTR %.3f vs %.3f); the "
                          "deciding term is %s.",
                          cost >= 1 ? plain->name : rack->name,
                          NUM_BELOW(rack->rank_usd_per_mtok, plain->rank_usd_per_mtok),
                          cost >= 1 ? rack->name : plain->name, rack->name, plain->name, tratio, names[0],
                          rack->rl_generation_s, plain->rl_generation_s, rack->rl_response_end, price, rest, rack->ettr,
                          plain->ettr, term);
    if (n >= cap)
        return;
    if (cost >= 1 && rack->rl_gen_drain_s > 0.5 * rack->rl_step_time_s)
        snprintf(cr->verdict + n, cap - n,
                 " The claim that NVL72 regains the lead for RL fails here: the step is set by the tail of the "
                 "longest response (%.0f of its %.0f s), decoded a few sequences per GPU, which the 72-GPU NVLink "
                 "domain shortens only %.2fx, so its %.2fx speed does not pay for its price.", rack->rl_gen_drain_s,
                 rack->rl_step_time_s, plain->rl_gen_drain_s / rack->rl_gen_drain_s, 1 / tratio);
    else if (cost >= 1)
        snprintf(cr->verdict + n, cap - n,
                 " The claim that NVL72 regains the lead for RL fails here: its %.2fx speed does not pay for its "
                 "price.", 1 / tratio);
    else if (d == 0 && (k == 0 || k == 3))
        snprintf(cr->verdict + n, cap - n,
                 " The claim holds here, through %s: the 72-GPU NVLink domain holds bigger generator replicas and "
                 "keeps the weight push on NVLink.", names[k]);
    else
        snprintf(cr->verdict + n, cap - n, " The claim holds here, but through %s, not the NVLink domain.", term);
}
