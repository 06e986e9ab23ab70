/*
 * compare.c — platforms side by side for one workload, end to end.
 *
 * For each platform: throughput (the scenario's measurement, else the training or serving
 * model's prediction, shown side by side), TCO per GPU-hour with PUE and electricity
 * overrides, cost and energy per token, goodput under failures and spares (reliability
 * model), the same-quality batch penalty, days, dollars and MWh. The evaluation of one
 * platform's ranked cost is a pure function of a few uncertain inputs (pstate + inputs), so
 * decide.c can move each input and find where the verdict flips.
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "io/fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const gpuecon_reliability *find_tier(const gpuecon_catalog *cat, const char *system, const char *tier)
{
    char name[160];
    snprintf(name, sizeof name, "%s/%s", system, tier ? tier : "typical");
    return gpuecon_catalog_reliability(cat, name);
}

gpuecon_source compare_profile_source(const gpuecon_profile *p, const char *system)
{
    for (size_t i = 0; i < p->n_published; i++)
        if (!strcmp(p->published_usd_per_gpu_hour[i].key, system))
            return p->published_usd_per_gpu_hour[i].source;
    return (gpuecon_source){"derived from capex (docs/model.md §2.1)", GPUECON_STAGE_DERIVED};
}

/* McCandlish et al. 2018 eq. 2.11 (gpuecon.h): the token and step factors of a batch. */
double gpuecon_batch_token_factor(double batch_tokens, double critical_batch_tokens)
{
    if (!(critical_batch_tokens > 0))
        return 1;
    return 1 + batch_tokens / critical_batch_tokens;
}

double gpuecon_batch_step_factor(double batch_tokens, double critical_batch_tokens)
{
    if (!(critical_batch_tokens > 0) || !(batch_tokens > 0))
        return 1;
    return 1 + critical_batch_tokens / batch_tokens;
}

/* The ranked cost of a platform at inputs `in` (and its parts when res is not NULL). */
double compare_rank_cost(const pstate *ps, const double *in, gpuecon_platform_result *res)
{
    /* the TCO's electricity term moves with the facility PUE and the price */
    double pue_tco = ps->pue0 + in[IN_PUE] - ps->pue_ref;
    double tco = in[IN_TCO] + ps->kw * (pue_tco * in[IN_PE] - ps->pue0 * ps->pe0);
    if (!(tco > 0) || !(in[IN_TOKS] > 0))
        return NAN;
    double raw = tco / (in[IN_TOKS] * 3600) * 1e6;
    double scale = raw / tco; /* $/Mtok per $/GPU-h */
    /* where the raw cost goes: electricity at this PUE and price; the rest of the TCO split
       like the profile's derived TCO (a published TCO carries no split of its own) */
    double parts[GPUECON_COST_PARTS] = {0};
    double power = ps->kw * pue_tco * in[IN_PE];
    double rest = ps->tco.capital_usd_per_hour + ps->tco.colo_usd_per_hour + ps->tco.fixed_usd_per_hour;
    double share = rest > 0 ? (tco - power) / rest : 0;
    parts[GPUECON_COST_CAPITAL] = ps->tco.capital_usd_per_hour * share * scale;
    parts[GPUECON_COST_COLO] = ps->tco.colo_usd_per_hour * share * scale;
    parts[GPUECON_COST_OTHER] = ps->tco.fixed_usd_per_hour * share * scale;
    parts[GPUECON_COST_POWER] = power * scale;
    double rank = raw, eff = raw, with = raw, without = raw;
    gpuecon_reliability_result rr;
    memset(&rr, 0, sizeof rr);
    if (ps->train) {
        gpuecon_reliability_request req = ps->rreq;
        req.mtbi_gpu_days = in[IN_MTBI];
        req.tokens_per_s_per_gpu = in[IN_TOKS];
        req.usd_per_mtok = raw;
        req.tokens = ps->tokens;
        gpuecon_error e;
        if (gpuecon_reliability_analytic(&req, &rr, &e) || !(rr.ettr > 0))
            return NAN;
        if (gpuecon_effective_usd_per_mtok(raw, rr.ettr, rr.charged_gpus, rr.active_gpus, &with,
                                           &without, &e))
            return NAN;
        bool charged = in[IN_SPARES] > 0.5;
        eff = charged ? with : without;
        parts[GPUECON_COST_FAILURES] = without - raw;
        parts[GPUECON_COST_SPARES] = charged ? with - without : 0;
        rank = eff * ps->token_factor;
    }
    if (res) {
        res->tco_usd_per_gpu_hour = tco;
        res->usd_per_mtok = raw;
        res->effective_usd_per_mtok = eff;
        res->effective_usd_per_mtok_with_spares = with;
        res->effective_usd_per_mtok_without_spares = without;
        res->spares_charged = in[IN_SPARES] > 0.5;
        res->rank_usd_per_mtok = rank;
        memcpy(res->cost_parts, parts, sizeof parts);
        if (ps->train) {
            res->ettr = rr.ettr;
            res->interruptions_per_day = rr.interruptions_per_day;
            res->job_mtti_h = rr.job_mtti_h;
            res->provisioned_gpus = rr.provisioned_gpus;
            res->charged_gpus = rr.charged_gpus;
            res->gpus = rr.active_gpus;
        } else {
            res->ettr = 1;
        }
    }
    return rank;
}

/* ---- throughput ---------------------------------------------------------------------------- */

/* Training prediction. The layout trains at the workload's batch when it can; when this many
 * GPUs cannot use it (every layout needs more sequences than the batch has) the batch doubles
 * until one can, as weak scaling does. With a critical batch size, larger batches are also
 * tried (up to 64x) and the one with the lowest cost per same-quality token kept: throughput
 * divided by McCandlish's token factor (TCO and goodput do not depend on the batch).
 * An input or infeasible status is the platform's answer (res->predicted_note says why);
 * any other status (no memory, canceled, internal) is returned, with err filled. */
static int predict_train(gpuecon_ctx *ctx, const gpuecon_workload *w, const pstate *ps, const gpuecon_model *m,
                         int gpus, gpuecon_platform_result *res, int *gbs_used, gpuecon_error *err)
{
    const gpuecon_platform *pl = ps->pl;
    const gpuecon_system *sys = ps->sys;
    gpuecon_train_request req;
    gpuecon_train_request_init(&req);
    gpuecon_train_request_apply_stack(&req, ps->stack);
    req.model = m;
    req.system = sys;
    req.gpus = gpus;
    req.precision = pl->precision;
    req.seq = w->seq;
    req.calibration = ps->user_cal;
    if (pl->tp)
        req.tp = pl->tp;
    if (pl->pp)
        req.pp = pl->pp;
    if (pl->cp)
        req.cp = pl->cp;
    if (pl->ep)
        req.ep = pl->ep;
    calib_cap cap; /* the search ranks at the generation and precision's MFU cap (docs/model.md §3.5) */
    calib_mfu_cap(ps->calib, sys->gpu && sys->gpu->arch ? sys->gpu->arch : "?", req.precision, m->experts > 0, &cap);
    req.rank_mfu_cap = ps->calib && cap.have ? cap.mfu : 0;
    if (ps->calib) { /* and at each layout's 80% band's low end, as train and search rank */
        band_set *bs = NULL;
        int brc = band_set_build(ctx, NULL, &bs, err);
        if (brc)
            return brc;
        calib_rank_band(ps->calib, bs, &req);
        band_set_free(bs);
    }
    bool explore = w->critical_batch_tokens > 0 && pl->measured_tokens_per_s <= 0;
    gpuecon_train_result tr, best;
    memset(&best, 0, sizeof best);
    gpuecon_error e, best_err;
    gpuecon_error_clear(&e);
    gpuecon_error_clear(&best_err);
    double best_value = -1;
    int best_rc = GPUECON_E_INPUT, best_gbs = w->gbs;
    for (int k = 0; k < 7; k++) {
        req.gbs = w->gbs << k;
        int rc = gpuecon_train_predict(ctx, &req, &tr, &e);
        if (rc != GPUECON_OK && rc != GPUECON_E_INPUT && rc != GPUECON_E_INFEASIBLE) {
            if (err)
                *err = e;
            return rc;
        }
        if (rc == GPUECON_E_INPUT && best_rc == GPUECON_E_INPUT) {
            best_err = e; /* keep the first reason in case no batch works */
            continue;
        }
        if (rc != GPUECON_OK) {
            if (best_rc != GPUECON_OK && rc == GPUECON_E_INFEASIBLE) {
                best_rc = rc;
                best_err = e;
                best_gbs = req.gbs;
            }
            if (best_rc == GPUECON_OK || !explore)
                break;
            continue;
        }
        double value = tr.tokens_per_s_per_gpu /
                       gpuecon_batch_token_factor((double)req.gbs * w->seq, w->critical_batch_tokens);
        if (value > best_value) {
            best_value = value;
            best = tr;
            best_rc = GPUECON_OK;
            best_gbs = req.gbs;
        }
        if (!explore)
            break;
    }
    *gbs_used = best_gbs;
    if (best_rc == GPUECON_OK) {
        res->predicted_tokens_per_s_per_gpu = best.tokens_per_s_per_gpu;
        res->par = best.par;
        snprintf(res->predicted_note, sizeof res->predicted_note,
                 "predicted layout TP%d PP%d VPP%d CP%d EP%d DP%d, micro-batch %d, recompute %s, "
                 "ZeRO %d, batch %d", best.par.tp, best.par.pp, best.par.vpp, best.par.cp, best.par.ep,
                 best.par.dp, best.par.mbs, gpuecon_parallel_recompute_name(&best.par), best.par.zero,
                 best_gbs);
        if (ps->user_cal) { /* a prediction that uses the user's calibration says so */
            size_t l = strlen(res->predicted_note);
            snprintf(res->predicted_note + l, sizeof res->predicted_note - l, "; calibrated: %s", ps->user_cal->name);
        }
        if (ps->calib) {
            req.gbs = best_gbs;
            calib_match_of(ps->calib, &req, &best, &res->calib);
            res->have_calib = true;
        }
    } else {
        res->predicted_tokens_per_s_per_gpu = NAN;
        snprintf(res->predicted_note, sizeof res->predicted_note, "no prediction: %s", best_err.message);
    }
    return GPUECON_OK;
}

/* ---- one platform --------------------------------------------------------------------------- */

static int setup(const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi, int gpus, const char *dstack,
                 pstate *ps, gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_platform *pl = &c->platforms[pi];
    const calib_set *calib = ps->calib; /* the caller's */
    memset(ps, 0, sizeof *ps);
    ps->calib = calib;
    ps->pl = pl;
    const char *sn = pl->stack ? pl->stack : c->workload.stack ? c->workload.stack : dstack ? dstack
                                                                                          : "megatron-bridge-2026";
    if (!COMPARE_TRAIN_LIKE(c->workload.kind) && (pl->stack || c->workload.stack)) {
        /* a serve workload takes a serving engine stack (docs/model.md §6.15) */
        const char *en = pl->stack ? pl->stack : c->workload.stack;
        ps->serve_stack = gpuecon_catalog_stack(cat, en);
        if (!ps->serve_stack)
            return gpuecon_catalog_find(cat, GPUECON_KIND_STACK, en, OPTION("stack"), NULL, err);
        if (ps->serve_stack->workload != 2)
            return err_set(err, GPUECON_E_INPUT, OPTION("stack"), 0, 0,
                           "%s is a %s stack; a serve workload takes a serving engine stack (workload serve in "
                           "gpuecon catalog stacks)", en, ps->serve_stack->workload == 1 ? "fine-tuning" : "training");
        sn = dstack ? dstack : "megatron-bridge-2026";
    }
    ps->stack = gpuecon_catalog_stack(cat, sn);
    if (!ps->stack)
        return gpuecon_catalog_find(cat, GPUECON_KIND_STACK, sn, OPTION("stack"), NULL, err);
    if (ps->stack->workload != 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("stack"), 0, 0,
                       "%s is a %s stack; a %s workload takes a training stack", sn,
                       ps->stack->workload == 2 ? "serving-engine (gpuecon infer)" : "fine-tuning (gpuecon finetune)",
                       COMPARE_TRAIN_LIKE(c->workload.kind) ? "training or RL" : "serve");
    res->stack = COMPARE_TRAIN_LIKE(c->workload.kind) ? ps->stack->name
                 : ps->serve_stack                     ? ps->serve_stack->name
                                                       : "generic";
    ps->sys = gpuecon_catalog_system(cat, pl->system);
    ps->prof = gpuecon_catalog_profile(cat, pl->profile);
    ps->train = COMPARE_TRAIN_LIKE(c->workload.kind);
    /* a user's calibration (--catalog overlay): a training stack's, or for serving the engine's at the weight
       precision — unless a sizing at a rate searches the precision, when no one precision's calibration holds */
    if (ps->train)
        ps->user_cal = ps->sys ? gpuecon_catalog_calibration(cat, 0, ps->stack->name, ps->sys->name, (int)pl->precision)
                               : NULL;
    else
        ps->user_cal = ps->sys && (!(c->workload.rate > 0) || pl->precision_given)
                           ? gpuecon_catalog_calibration(cat, 2, res->stack, ps->sys->name, (int)pl->precision)
                           : NULL;
    res->user_calibration = ps->user_cal;
    if (!ps->sys || !ps->prof)
        return err_set(err, GPUECON_E_INPUT, pl->name, 0, 0, "unknown system or profile");
    int rc = gpuecon_system_at_power_limit(ps->sys, pl->power_limit_w, "power_limit_w", &ps->sys_at_limit, &ps->sys, err);
    if (rc)
        return rc;
    rc = gpuecon_tco_compute(ps->prof, ps->sys, 0, &ps->tco, err);
    if (rc)
        return rc;
    ps->kw = ps->sys->it_w_per_gpu / 1000;
    ps->pue0 = ps->tco.pue;
    ps->pe0 = ps->prof->electricity_usd_per_kwh;
    if (pl->usd_per_gpu_hour > 0 && pl->tco_usd_per_gpu_hour > 0)
        return err_set(err, GPUECON_E_INPUT, pl->name, 0, 0,
                       "usd_per_gpu_hour and tco_usd_per_gpu_hour both given; give one (the price of a GPU-hour)");
    double price = compare_platform_price(pl, NULL);
    ps->in[IN_TCO] = price > 0 ? price : ps->tco.usd_per_gpu_hour;
    ps->pue_ref = pl->pue > 0 ? ps->pue0 : ps->sys->pue;
    ps->in[IN_PUE] = pl->pue > 0 ? pl->pue : ps->sys->pue;
    ps->in[IN_PE] = pl->electricity_usd_per_kwh > 0 ? pl->electricity_usd_per_kwh : ps->pe0;
    ps->in[IN_SPARES] = pl->spares_do_other_work ? 0 : 1;
    ps->token_factor = 1;
    res->name = pl->name;
    res->system = pl->system;
    if (ps->sys->gpu && ps->sys->power_limit_w > 0 && ps->sys->power_limit_w < ps->sys->gpu->tdp_w) {
        res->power_limit_w = ps->sys->power_limit_w;
        res->clock_factor = gpuecon_system_clock(ps->sys);
    }
    res->gpus = gpus;
    res->pue = pl->pue > 0 ? pl->pue : ps->sys->pue;
    res->published_tokens_per_s_per_gpu = pl->published_tokens_per_s;
    res->feasible = true;
    return GPUECON_OK;
}

static int setup_reliability(const gpuecon_catalog *cat, pstate *ps, int gpus, gpuecon_platform_result *res,
                             gpuecon_error *err)
{
    const gpuecon_platform *pl = ps->pl;
    ps->tier = find_tier(cat, pl->system, pl->tier);
    if (!ps->tier)
        return err_set(err, GPUECON_E_INPUT, pl->name, 0, 0,
                       "no reliability tier '%s/%s' in the catalog (reliability.yaml)", pl->system, pl->tier);
    int rc = gpuecon_reliability_request_init(&ps->rreq, ps->sys, ps->tier, gpus, err);
    if (rc)
        return rc;
    if (pl->spares_per_domain >= 0)
        ps->rreq.spares_per_domain = pl->spares_per_domain;
    if (pl->spare_domains > 0)
        ps->rreq.spare_domains = pl->spare_domains;
    ps->rreq.spare_cost = pl->spares_do_other_work ? GPUECON_SPARES_FREE : GPUECON_SPARES_CHARGED;
    ps->in[IN_MTBI] = pl->mtbi_gpu_days > 0 ? pl->mtbi_gpu_days : ps->tier->mtbi_gpu_days;
    res->mtbi_gpu_days = ps->in[IN_MTBI];
    res->mtbi_source = ps->tier->src[0];
    if (ps->tier->src)
        res->mtbi_source = ps->tier->src[FIELD_RELIABILITY_MTBI_GPU_DAYS];
    if (pl->mtbi_gpu_days > 0)
        res->mtbi_source = platform_source(pl, PF_MTBI_GPU_DAYS);
    return GPUECON_OK;
}

static void fail_platform(gpuecon_platform_result *res, const char *why)
{
    res->feasible = false;
    snprintf(res->why, sizeof res->why, "%s", why);
    double nan = NAN;
    res->tokens_per_s_per_gpu = res->usd_per_mtok = res->effective_usd_per_mtok = nan;
    res->effective_usd_per_mtok_with_spares = res->effective_usd_per_mtok_without_spares = nan;
    res->joules_per_token = res->ettr = res->days_to_train = res->total_usd = res->energy_mwh = nan;
    res->rank_usd_per_mtok = res->mfu = res->tco_usd_per_gpu_hour = nan;
}

/* An earlier platform of the comparison whose training prediction is this one's: the same
 * system, power limit, GPU count, precision and fixed sizes, predicted (not from a timeline).
 * NULL if none. */
static const gpuecon_platform_result *same_prediction(const gpuecon_comparison *c, size_t pi, int gpus,
                                                      const char *stack, const gpuecon_platform_result *earlier)
{
    const gpuecon_platform *a = &c->platforms[pi];
    for (size_t j = 0; earlier && j < pi; j++) {
        const gpuecon_platform *b = &c->platforms[j];
        const gpuecon_platform_result *r = &earlier[j];
        if (!strcmp(a->system, b->system) && a->power_limit_w == b->power_limit_w && r->gpus == gpus &&
            a->precision == b->precision && a->tp == b->tp &&
            a->pp == b->pp && a->cp == b->cp && a->ep == b->ep && !b->n_timeline && r->predicted_note[0] &&
            r->predicted_gbs > 0 && stack && r->stack && !strcmp(stack, r->stack))
            return r;
    }
    return NULL;
}

/* The throughput of a platform with a timeline (timeline.c): with a start date, the
 * equivalent constant throughput of the run over the points in force day by day (the
 * measurement, if any, before the first point); without one, the latest point that is not a
 * projection (today's software). Sets in[IN_TOKS] and the points used; true when the platform
 * failed (then res says why). */
static bool apply_timeline(pstate *ps, const gpuecon_workload *w, const gpuecon_platform *pl,
                           gpuecon_platform_result *res)
{
    const gpuecon_timeline_point *tp = pl->timeline;
    size_t n = pl->n_timeline;
    res->timeline = true;
    res->measured = true;
    bool used[GPUECON_TIMELINE_MAX] = {false};
    double before = pl->measured_tokens_per_s;
    if (w->has_start_date) {
        int k0 = timeline_in_force(tp, n, w->start_day);
        res->start_tokens_per_s_per_gpu = k0 >= 0 ? tp[k0].tokens_per_s_per_gpu : before;
        /* goodput does not depend on the throughput: evaluate it once at the start's */
        ps->in[IN_TOKS] = res->start_tokens_per_s_per_gpu;
        ps->tokens = w->tokens;
        if (!isfinite(compare_rank_cost(ps, ps->in, res))) {
            fail_platform(res, "the reliability model gives no goodput at these inputs");
            return true;
        }
        ps->in[IN_TOKS] = timeline_run(tp, n, w->start_day, before, w->tokens, res->gpus * res->ettr * 86400, used);
    } else {
        int k = -1;
        for (size_t i = 0; i < n; i++)
            if (tp[i].source.stage != GPUECON_STAGE_PROJECTION)
                k = (int)i;
        if (k < 0)
            k = 0;
        used[k] = true;
        ps->in[IN_TOKS] = res->start_tokens_per_s_per_gpu = tp[k].tokens_per_s_per_gpu;
    }
    if (!(ps->in[IN_TOKS] > 0)) {
        fail_platform(res, "no throughput is in force on the start date");
        return true;
    }
    res->n_points_used = 0;
    res->uses_projection = false;
    gpuecon_source src = {NULL, GPUECON_STAGE_MEASURED};
    for (size_t i = 0; i < n; i++)
        if (used[i]) {
            res->points_used[res->n_points_used++] = tp[i];
            if (!src.text || tp[i].source.stage == GPUECON_STAGE_PROJECTION ||
                (src.stage != GPUECON_STAGE_PROJECTION && tp[i].source.stage == GPUECON_STAGE_ASSUMPTION))
                src = tp[i].source; /* the weakest stage the run rests on */
            res->uses_projection |= tp[i].source.stage == GPUECON_STAGE_PROJECTION;
        }
    res->throughput_source = src;
    return false;
}

/* Evaluates the platform at `gpus` active GPUs. With predict false the platform's measured
 * throughput is used without running the training or serving model (gpuecon_run_cost). */
static int evaluate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi, int gpus,
                    bool predict, const char *dstack, const gpuecon_platform_result *earlier, pstate *ps,
                    gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_workload *w = &c->workload;
    const gpuecon_platform *pl = &c->platforms[pi];
    memset(res, 0, sizeof *res);
    int rc = setup(cat, c, pi, gpus, dstack, ps, res, err);
    if (rc)
        return rc;
    const gpuecon_model *m = w->model ? gpuecon_catalog_model(cat, w->model) : NULL;
    res->tco_source = ps->tco.uses_published ? compare_profile_source(ps->prof, ps->sys->name)
                                             : (gpuecon_source){"derived from capex (docs/model.md §2.1)",
                                                                GPUECON_STAGE_DERIVED};
    platform_field price_field;
    if (compare_platform_price(pl, &price_field) > 0)
        res->tco_source = platform_source(pl, price_field);
    int gbs = w->gbs;
    if (ps->train) {
        if ((rc = setup_reliability(cat, ps, gpus, res, err)))
            return rc;
        const gpuecon_platform_result *same =
            predict && !pl->n_timeline && w->kind == GPUECON_WORKLOAD_TRAIN
                ? same_prediction(c, pi, gpus, res->stack, earlier) : NULL;
        if (w->kind == GPUECON_WORKLOAD_RL) {
            if (predict && (rc = compare_rl_predict(ctx, cat, w, pl, ps->stack, gpus, res, err)))
                return rc;
        } else if (same) { /* the same job on the same system at another tier or price: one prediction */
            res->predicted_tokens_per_s_per_gpu = same->predicted_tokens_per_s_per_gpu;
            res->par = same->par;
            memcpy(res->predicted_note, same->predicted_note, sizeof res->predicted_note);
            res->have_calib = same->have_calib;
            res->calib = same->calib;
            gbs = same->predicted_gbs;
        } else if (predict && !pl->n_timeline) { /* a timeline's published points are used as they are */
            if ((rc = predict_train(ctx, w, ps, m, gpus, res, &gbs, err)))
                return rc;
        }
        res->predicted_gbs = gbs;
    } else if (predict && (rc = compare_predict_serve(ctx, w, pl, ps->serve_stack, ps->user_cal, m, ps->sys, res,
                                                          &ps->curve, err))) {
        return rc;
    }
    if (!predict || (ps->train && pl->n_timeline > 0)) /* none made (was 0, read as "predicts 0") */
        res->predicted_tokens_per_s_per_gpu = NAN;
    if (ps->train && pl->n_timeline > 0) {
        gbs = w->gbs; /* published points are taken at the workload's batch, as a measurement */
        if (apply_timeline(ps, w, pl, res))
            return GPUECON_OK;
    } else if (pl->measured_tokens_per_s > 0) {
        ps->in[IN_TOKS] = pl->measured_tokens_per_s;
        res->measured = true;
        res->throughput_source = platform_source(pl, PF_MEASURED_TOKENS_PER_S);
        gbs = w->gbs; /* a measurement is taken at the workload's batch */
    } else if (isfinite(res->predicted_tokens_per_s_per_gpu) && res->predicted_tokens_per_s_per_gpu > 0) {
        ps->in[IN_TOKS] = res->predicted_tokens_per_s_per_gpu;
        res->throughput_source = (gpuecon_source){"gpuecon prediction (docs/model.md §3, §6)", GPUECON_STAGE_DERIVED};
    } else {
        fail_platform(res, res->predicted_note);
        return GPUECON_OK;
    }
    res->tokens_per_s_per_gpu = ps->in[IN_TOKS];
    res->joules_per_token = ps->sys->it_w_per_gpu * ps->in[IN_PUE] / ps->in[IN_TOKS];
    if (ps->train) {
        gpuecon_flops f;
        if (w->kind != GPUECON_WORKLOAD_RL) /* rl: the trainer's MFU, set by compare_rl_predict */
            res->mfu = NAN;
        if (m && w->seq > 0) {
            gpuecon_train_flops(m, w->seq, GPUECON_ATTN_COUNT_FULL, false, &f);
            res->mfu = gpuecon_mfu(ps->in[IN_TOKS], f.total, gpuecon_gpu_peak_flops(ps->sys->gpu, pl->precision));
        }
        res->batch_tokens = (double)gbs * w->seq;
        ps->token_factor = gpuecon_batch_token_factor(res->batch_tokens, w->critical_batch_tokens) /
                           gpuecon_batch_token_factor((double)w->gbs * w->seq, w->critical_batch_tokens);
        res->token_factor = ps->token_factor;
        res->tokens = (w->kind == GPUECON_WORKLOAD_RL ? w->steps * res->rl_trained_tokens_per_step : w->tokens) *
                      ps->token_factor;
        ps->tokens = res->tokens;
    } else {
        res->token_factor = 1;
        res->tokens = w->serve_tokens;
    }
    if (!isfinite(compare_rank_cost(ps, ps->in, res))) {
        fail_platform(res, "the reliability model gives no goodput at these inputs");
        return GPUECON_OK;
    }
    double cluster_tok_s = ps->in[IN_TOKS] * res->gpus * res->ettr;
    if (res->tokens > 0) {
        res->days_to_train = res->tokens / cluster_tok_s / 86400;
        res->total_usd = res->tokens / 1e6 * res->effective_usd_per_mtok;
        res->energy_mwh = res->tokens * res->joules_per_token / res->ettr / 3.6e9;
    } else {
        res->days_to_train = res->total_usd = res->energy_mwh = NAN;
    }
    if (w->kind == GPUECON_WORKLOAD_RL && w->steps > 0) {
        res->rl_usd_per_step = res->total_usd / w->steps;
        res->rl_mwh_per_step = res->energy_mwh / w->steps;
    }
    return GPUECON_OK;
}

/* GPUs in whole scale-up domains of active GPUs (HGX: 8; NVL72: 72 less its hot spares). */
static int domain_unit(const gpuecon_catalog *cat, const gpuecon_platform *pl, const gpuecon_system *sys)
{
    const gpuecon_reliability *t = find_tier(cat, pl->system, pl->tier);
    int spares = pl->spares_per_domain >= 0 ? pl->spares_per_domain : t ? t->spares_per_domain : 0;
    int unit = sys->scaleup_gpus - spares;
    return unit > 0 ? unit : sys->scaleup_gpus;
}

/* The smallest size of the form unit·2^a or unit·3·2^a that is at least `need` GPUs: sizes a
 * parallel layout can use (data parallelism must divide a power-of-two batch), at most 50%
 * apart so a target is never overshot by more than a third. */
static long layout_size(double need, int unit)
{
    for (long m = 1; m <= 1L << 40; m *= 2) { /* 1, 2, 3, 4, 6, 8, 12, 16, 24, ... */
        if ((double)unit * m >= need)
            return unit * m;
        if (m >= 2 && (double)unit * (3 * m / 2) >= need)
            return unit * (3 * m / 2);
    }
    return -1;
}

/* Size a platform to the fastest run within budget_usd: over whole domains on the layout grid
 * (unit x 1, 2, 3, 4, 6, 8, ...) the size with the fewest days whose total (failures, restarts
 * and spares included) is within the budget, then bisected in whole domains towards the next
 * grid size. A run's dollars change slowly with its size (the same GPU-hours, more lost to
 * communication and failures as it grows) while its days fall, so the fastest within a budget
 * is where the dollars cross it. No size within it: the platform is infeasible, with the
 * cheapest size tried in its reason. */
static int size_for_budget(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi,
                           const char *dstack, const gpuecon_platform_result *earlier, pstate *ps,
                           gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_platform *pl = &c->platforms[pi];
    const double budget = c->workload.budget_usd;
    int unit = domain_unit(cat, pl, gpuecon_catalog_system(cat, pl->system));
    long best = 0, above = 0, cheapest = 0;
    double best_days = INFINITY, cheapest_usd = INFINITY;
    int over = 0, rising = 0, rc;
#define WITHIN(r) ((r)->feasible && (r)->total_usd <= budget && isfinite((r)->days_to_train))
    for (long m = 1, k = 0; k < 64; k++) { /* 1, 2, 3, 4, 6, 8, 12, ... */
        long g = k == 0 ? unit : k % 2 ? unit * (m *= 2) : unit * (3 * m / 2);
        if (g > 10000000)
            break;
        if ((rc = evaluate(ctx, cat, c, pi, (int)g, true, dstack, earlier, ps, res, err)))
            return rc;
        if (res->feasible && res->total_usd < cheapest_usd)
            cheapest_usd = res->total_usd, cheapest = g, rising = 0;
        else if (!best && cheapest && (!res->feasible || ++rising >= 2))
            break; /* nothing within it, and the dollars only grow from here */
        if (WITHIN(res) && res->days_to_train < best_days) {
            best = g, best_days = res->days_to_train, above = 0, over = 0;
        } else if (best) {
            if (!above)
                above = g;
            if (!res->feasible || ++over >= 2) /* past the batch's reach, or over the budget twice */
                break;
        }
    }
    if (!best) {
        char why[320];
        if (cheapest)
            snprintf(why, sizeof why, "no size fits the %s budget: the cheapest tried, %ld GPUs, costs %s",
                     NUM_MONEY(budget), cheapest, NUM_MONEY(cheapest_usd));
        else
            snprintf(why, sizeof why, "no size up to 10 million GPUs is feasible (%.200s)", res->why);
        if (cheapest && (rc = evaluate(ctx, cat, c, pi, (int)cheapest, true, dstack, earlier, ps, res, err)))
            return rc; /* the row shows the cheapest size */
        fail_platform(res, why);
        return GPUECON_OK;
    }
    for (long lo = best, hi = above; hi && hi - lo > unit;) { /* whole domains between two grid sizes */
        long mid = lo + (hi - lo) / unit / 2 * unit;
        if ((rc = evaluate(ctx, cat, c, pi, (int)mid, true, dstack, earlier, ps, res, err)))
            return rc;
        if (WITHIN(res) && res->days_to_train <= best_days)
            best = lo = mid, best_days = res->days_to_train;
        else
            hi = mid;
    }
#undef WITHIN
    return evaluate(ctx, cat, c, pi, (int)best, true, dstack, earlier, ps, res, err);
}

int compare_platform(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi,
                     const char *dstack, const gpuecon_platform_result *earlier, pstate *ps,
                     gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_platform *pl = &c->platforms[pi];
    const gpuecon_workload *w = &c->workload;
    if (pl->gpus > 0 || w->kind != GPUECON_WORKLOAD_TRAIN || !(w->target_days > 0 || w->budget_usd > 0))
        return evaluate(ctx, cat, c, pi, pl->gpus, true, dstack, earlier, ps, res, err);
    if (w->budget_usd > 0) /* the fastest size within the budget (the deadline is then a flag) */
        return size_for_budget(ctx, cat, c, pi, dstack, earlier, ps, res, err);
    /* Size the platform to finish within target_days: the smallest number of whole domains whose
       goodput trains the (same-quality) tokens in time. Throughput, goodput and the batch change
       slowly with size, so a few fixed-point steps from a first guess converge. */
    const gpuecon_system *sys = gpuecon_catalog_system(cat, pl->system);
    int unit = domain_unit(cat, pl, sys), gpus = unit * (1024 / unit > 0 ? 1024 / unit : 1);
    int rc = GPUECON_OK, best = 0;
    for (int it = 0; it < 16; it++) {
        if ((rc = evaluate(ctx, cat, c, pi, gpus, true, dstack, earlier, ps, res, err)) || !res->feasible)
            return rc;
        bool meets = res->days_to_train <= w->target_days * (1 + 1e-9);
        if (meets && (best == 0 || gpus < best))
            best = gpus;
        long sized = layout_size(gpus * res->days_to_train / w->target_days, unit);
        if (sized < 0 || sized > 10000000)
            return err_set(err, GPUECON_E_INFEASIBLE, pl->name, 0, 0,
                           "finishing in %s days would need more than 10 million GPUs", NUM_VAL(w->target_days));
        int next = (int)sized;
        if (meets && next >= gpus)
            return GPUECON_OK; /* converged: this size meets the target and no smaller one should */
        if (next == gpus || (best && next >= best))
            break;
        gpus = next;
    }
    /* oscillating between sizes: settle on the smallest one that met the target */
    if (best && gpus != best)
        rc = evaluate(ctx, cat, c, pi, best, true, dstack, earlier, ps, res, err);
    return rc;
}

int compare_monte_carlo(gpuecon_ctx *ctx, const pstate *ps, int trials, gpuecon_platform_result *res,
                        gpuecon_error *err)
{
    if (!ps->train || !res->feasible || trials <= 0)
        return GPUECON_OK;
    gpuecon_reliability_request req = ps->rreq;
    req.mtbi_gpu_days = ps->in[IN_MTBI];
    req.tokens_per_s_per_gpu = ps->in[IN_TOKS];
    req.usd_per_mtok = res->usd_per_mtok;
    req.tokens = res->tokens;
    req.trials = trials;
    int rc = gpuecon_reliability_simulate(ctx, &req, &res->mc_result, err);
    if (rc == GPUECON_OK)
        res->mc = true;
    return rc;
}

/* ---- one run of a known throughput (train --tokens, the target-days search) ---------------- */

void gpuecon_run_request_init(gpuecon_run_request *r)
{
    memset(r, 0, sizeof *r);
    r->tier = "typical";
    r->spares_per_domain = -1;
    r->precision = GPUECON_BF16;
    r->throughput_source = (gpuecon_source){"gpuecon prediction (docs/model.md §3, §6)", GPUECON_STAGE_DERIVED};
}

double compare_platform_price(const gpuecon_platform *pl, platform_field *field)
{
    bool own = pl->usd_per_gpu_hour > 0;
    if (field)
        *field = own ? PF_USD_PER_GPU_HOUR : PF_TCO_USD_PER_GPU_HOUR;
    return own ? pl->usd_per_gpu_hour : pl->tco_usd_per_gpu_hour;
}

int gpuecon_run_cost(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_run_request *req,
                     gpuecon_platform_result *out, gpuecon_error *err)
{
    if (!ctx || !cat || !req || !out)
        return err_set(err, GPUECON_E_INPUT, "run", 0, 0, "context, catalog, request and result are required");
    int rc;
    if ((rc = gpuecon_catalog_find(cat, GPUECON_KIND_SYSTEM, req->system, OPTION("system"), NULL, err)) ||
        (rc = gpuecon_catalog_find(cat, GPUECON_KIND_PROFILE, req->profile, OPTION("profile"), NULL, err)))
        return rc;
    if (req->gpus < 1 || req->gpus > 10000000)
        return err_set(err, GPUECON_E_INPUT, OPTION("gpus"), 0, 0, "%d is out of range; allowed 1 to 10,000,000", req->gpus);
    if (!(req->tokens_per_s_per_gpu > 0) || !isfinite(req->tokens_per_s_per_gpu))
        return err_set(err, GPUECON_E_INPUT, "tokens_per_s_per_gpu", 0, 0, "must be a positive number");
    if (!(req->tokens >= 0) || !isfinite(req->tokens))
        return err_set(err, GPUECON_E_INPUT, OPTION("tokens"), 0, 0, "must be a positive number (or 0: no totals)");
    if (req->pue != 0 && !(req->pue >= 1 && req->pue <= 3))
        return err_set(err, GPUECON_E_INPUT, OPTION("pue"), 0, 0,
                       "%s is out of range; allowed 1 to 3", NUM_VAL(req->pue));
    if (req->mtbi_gpu_days != 0 && !(req->mtbi_gpu_days >= 1 && req->mtbi_gpu_days <= 1e7))
        return err_set(err, GPUECON_E_INPUT, OPTION("mtbi_gpu_days"), 0, 0,
                       "%s is out of range; allowed 1 to 1e7", NUM_VAL(req->mtbi_gpu_days));
    if (req->usd_per_gpu_hour != 0 && !(req->usd_per_gpu_hour >= 0.001 && req->usd_per_gpu_hour <= 1000))
        return err_set(err, GPUECON_E_INPUT, OPTION("usd_per_gpu_hour"), 0, 0,
                       "%s is out of range; allowed 0.001 to 1000",
                       NUM_VAL(req->usd_per_gpu_hour));
    const char *tier = req->tier ? req->tier : "typical";
    if (!find_tier(cat, req->system, tier))
        return err_set(err, GPUECON_E_INPUT, OPTION("tier"), 0, 0,
                       "no reliability tier '%s/%s' in the catalog; allowed best, typical, poor", req->system, tier);
    long start = 0;
    const gpuecon_timeline *tl = NULL;
    if (req->start_date) {
        if (!gpuecon_date_parse(req->start_date, &start))
            return err_set(err, GPUECON_E_INPUT, OPTION("start_date"), 0, 0,
                           "'%.40s' is not an ISO date (allowed: YYYY-MM or YYYY-MM-DD, e.g. 2025-05 or 2025-07-15)",
                           req->start_date);
        if (!(tl = gpuecon_catalog_timeline_for(cat, req->system, req->model, req->precision)))
            return err_set(err, GPUECON_E_INPUT, OPTION("start_date"), 0, 0,
                           "the catalog has no throughput timeline of %s on %s in %s ('gpuecon catalog timelines' "
                           "lists them; " OPTION("catalog") " DIR adds a timelines.yaml)", req->model ? req->model : "(no model)",
                           req->system, gpuecon_precision_name(req->precision));
    }
    gpuecon_platform pl;
    memset(&pl, 0, sizeof pl);
    pl.name = pl.system = req->system;
    pl.gpus = req->gpus;
    pl.profile = req->profile;
    pl.tier = tier;
    pl.pue = req->pue;
    pl.electricity_usd_per_kwh = req->electricity_usd_per_kwh;
    pl.measured_tokens_per_s = req->tokens_per_s_per_gpu;
    pl.mtbi_gpu_days = req->mtbi_gpu_days;
    pl.spares_per_domain = req->spares_per_domain;
    pl.spare_domains = req->spare_domains;
    pl.spares_do_other_work = req->spares_do_other_work;
    pl.precision = req->precision;
    pl.usd_per_gpu_hour = req->usd_per_gpu_hour;
    gpuecon_comparison c;
    memset(&c, 0, sizeof c);
    c.name = "run";
    c.workload.kind = GPUECON_WORKLOAD_TRAIN;
    c.workload.model = req->model;
    c.workload.precision = req->precision;
    c.workload.tokens = req->tokens;
    c.workload.seq = req->seq;
    c.workload.gbs = 1;
    if (tl) { /* the given throughput until the timeline's first point, its points from then on */
        pl.timeline = tl->points;
        pl.n_timeline = tl->n_points;
        c.workload.has_start_date = true;
        c.workload.start_day = start;
        snprintf(c.workload.start_date, sizeof c.workload.start_date, "%.10s", req->start_date);
    }
    c.platforms = &pl;
    c.n_platforms = 1;
    pstate ps = {.calib = NULL};
    if ((rc = evaluate(ctx, cat, &c, 0, req->gpus, false, NULL, NULL, &ps, out, err)))
        return rc;
    out->name = out->system = cat ? gpuecon_catalog_system(cat, req->system)->name : req->system;
    out->measured = false;
    if (!tl || !out->n_points_used) /* a run wholly before the timeline rests on the given throughput */
        out->throughput_source = req->throughput_source;
    if (req->mtbi_gpu_days > 0)
        out->mtbi_source = (gpuecon_source){"given with the request (--mtbi-gpu-days)", GPUECON_STAGE_ASSUMPTION};
    if (req->usd_per_gpu_hour > 0)
        out->tco_source = (gpuecon_source){"given with the request (--usd-per-gpu-hour)", GPUECON_STAGE_USER_INPUT};
    if (!out->feasible)
        return err_set(err, GPUECON_E_INFEASIBLE, req->system, 0, 0, "%s", out->why);
    return GPUECON_OK;
}

int compare_trade(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi,
                  const calib_set *calib, gpuecon_platform_result *res, gpuecon_error *err)
{
    const gpuecon_platform *pl = &c->platforms[pi];
    if (c->workload.kind != GPUECON_WORKLOAD_TRAIN || !res->feasible || res->gpus <= 0)
        return GPUECON_OK;
    const gpuecon_system *sys = gpuecon_catalog_system(cat, pl->system);
    int unit = domain_unit(cat, pl, sys);
    long sizes[GPUECON_TARGET_ROWS];
    size_t n = 0;
    for (int k = 0; k < 64 && n < GPUECON_TARGET_ROWS; k++) { /* unit x 1, 2, 3, 4, 6, 8, 12, ... */
        long m = 1L << ((k + 1) / 2), g = k == 0 ? unit : k % 2 ? unit * m : unit * 3 * (m / 2);
        if (g > 4L * res->gpus || g > 10000000)
            break;
        if (4 * g >= res->gpus)
            sizes[n++] = g;
    }
    res->trade = ctx_alloc(ctx, (n ? n : 1) * sizeof *res->trade);
    if (!res->trade)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    res->n_trade = n;
    for (size_t i = 0; i < n; i++) {
        gpuecon_target_row *row = &res->trade[i];
        memset(row, 0, sizeof *row);
        row->gpus = (int)sizes[i];
        pstate ps = {.calib = calib};
        gpuecon_platform_result *r = ctx_alloc(ctx, sizeof *r);
        if (!r)
            return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
        int rc = evaluate(ctx, cat, c, pi, row->gpus, true, res->stack, NULL, &ps, r, err);
        if (rc == GPUECON_OK && r->feasible) {
            row->ok = true;
            row->tokens_per_s_per_gpu = r->tokens_per_s_per_gpu;
            row->ettr = r->ettr;
            row->days_to_train = r->days_to_train;
            row->total_usd = r->total_usd;
            row->energy_mwh = r->energy_mwh;
            row->provisioned_gpus = r->provisioned_gpus;
            row->par = r->par;
        } else if (rc == GPUECON_OK) {
            snprintf(row->why, sizeof row->why, "%.199s", r->why);
        }
        ctx_free(ctx, r, sizeof *r);
        if (rc)
            return rc;
    }
    return GPUECON_OK;
}
