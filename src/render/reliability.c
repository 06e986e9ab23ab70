/*
 * reliability.c — `gpuecon reliability` rendered: goodput under failures, analytic and Monte
 * Carlo side by side, as JSON and as the table of quantities (terminal and CSV); the terminal
 * form adds where the lost time went and the failure classes.
 */
#include "render/render.h"

#include <math.h>
#include <stdio.h>

static json_t *lost_json(const gpuecon_lost_time *l)
{
    json_t *j = json_object();
    json_object_set_new(j, "detect", rjson_real(l->detect));
    json_object_set_new(j, "restart", rjson_real(l->restart));
    json_object_set_new(j, "recompute", rjson_real(l->recompute));
    json_object_set_new(j, "ckpt", rjson_real(l->ckpt));
    json_object_set_new(j, "wait", rjson_real(l->wait));
    return j;
}

static gpuecon_source tier_source(const reliability_view *v, const char *field)
{
    gpuecon_field f;
    if (gpuecon_catalog_field(v->cat, GPUECON_KIND_RELIABILITY, v->tier->name, field, &f))
        return (gpuecon_source){"", GPUECON_STAGE_ASSUMPTION};
    return f.source;
}

static json_t *classes_json(const reliability_view *v)
{
    const gpuecon_reliability_request *q = v->q;
    const gpuecon_reliability_result *r = v->r;
    json_t *a = json_array();
    for (int k = 0; k < GPUECON_FCLASS_COUNT; k++) {
        const gpuecon_fclass_params *p = &q->fclass[k];
        const char *name = gpuecon_fclass_name((gpuecon_fclass)k);
        double per_gpu_day = p->share / q->mtbi_gpu_days;
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(name));
        json_object_set_new(j, "share", rjson_real(p->share));
        json_object_set_new(j, "blast", json_string(gpuecon_blast_name((gpuecon_blast)p->blast)));
        json_object_set_new(j, "per_1000_gpu_days", rjson_real(1000 * per_gpu_day));
        json_object_set_new(j, "per_1000_node_days", rjson_real(1000 * per_gpu_day * r->node_gpus));
        json_object_set_new(j, "per_1000_domain_days", rjson_real(1000 * per_gpu_day * r->domain_gpus));
        json_object_set_new(j, "per_day", rjson_real(r->class_per_day[k]));
        json_object_set_new(j, "mttr_min_h", rjson_real(p->mttr_min_h * q->mttr_scale));
        json_object_set_new(j, "mttr_max_h", rjson_real(p->mttr_max_h * q->mttr_scale));
        json_object_set_new(j, "detect_extra_s", rjson_real(p->detect_extra_s));
        json_object_set_new(j, "restart_extra_s", rjson_real(p->restart_extra_s));
        char field[48];
        snprintf(field, sizeof field, "%s_share", name);
        json_object_set_new(j, "share_source", rjson_source(tier_source(v, field)));
        json_array_append_new(a, j);
    }
    return a;
}

static json_t *mc_json(const gpuecon_reliability_mc *m, int trials, double elapsed)
{
    json_t *j = json_object();
    json_object_set_new(j, "trials", json_integer(trials > 0 ? m->trials : 0));
    if (trials <= 0) {
        const char *keys[] = {"ettr_mean", "ettr_p10", "ettr_p50", "ettr_p90"};
        for (size_t i = 0; i < 4; i++)
            json_object_set_new(j, keys[i], json_null());
        return j;
    }
    json_object_set_new(j, "ettr_mean", rjson_real(m->ettr_mean));
    json_object_set_new(j, "ettr_sd", rjson_real(m->ettr_sd));
    json_object_set_new(j, "ettr_ci95", rjson_real(m->ettr_ci95));
    json_object_set_new(j, "ettr_p10", rjson_real(m->ettr_p10));
    json_object_set_new(j, "ettr_p50", rjson_real(m->ettr_p50));
    json_object_set_new(j, "ettr_p90", rjson_real(m->ettr_p90));
    json_object_set_new(j, "days_mean", rjson_real(m->days_mean));
    json_object_set_new(j, "days_p10", rjson_real(m->days_p10));
    json_object_set_new(j, "days_p50", rjson_real(m->days_p50));
    json_object_set_new(j, "days_p90", rjson_real(m->days_p90));
    json_object_set_new(j, "unfinished", json_integer(m->unfinished));
    json_object_set_new(j, "interruptions_per_day", rjson_real(m->interruptions_per_day));
    json_object_set_new(j, "wait_h_per_day", rjson_real(m->wait_h_per_day));
    json_object_set_new(j, "lost", lost_json(&m->lost));
    json_object_set_new(j, "events", rjson_real(m->events));
    json_object_set_new(j, "checkpoints", rjson_real(m->checkpoints));
    json_object_set_new(j, "quantile_resolution", rjson_real(m->quantile_resolution));
    rjson_run(j, m->seed, m->threads, elapsed);
    return j;
}

static json_t *reliability_json(const void *view)
{
    const reliability_view *v = view;
    const gpuecon_reliability_request *q = v->q;
    const gpuecon_reliability_result *r = v->r;
    json_t *j = json_object();
    json_object_set_new(j, "system", json_string(q->system->name));
    json_object_set_new(j, "tier", json_string(v->tier->tier));
    json_object_set_new(j, "tier_entry", json_string(v->tier->name));
    json_object_set_new(j, "requested_gpus", json_integer(r->requested_gpus));
    json_object_set_new(j, "active_gpus", json_integer(r->active_gpus));
    json_object_set_new(j, "domains", json_integer(r->domains));
    json_object_set_new(j, "domain_gpus", json_integer(r->domain_gpus));
    json_object_set_new(j, "active_per_domain", json_integer(r->active_per_domain));
    json_object_set_new(j, "spare_domains", json_integer(r->spare_domains));
    json_object_set_new(j, "spare_gpus", json_integer(r->spare_gpus));
    json_object_set_new(j, "provisioned_gpus", json_integer(r->provisioned_gpus));
    json_object_set_new(j, "provisioned_multiplier", rjson_real(r->provisioned_multiplier));
    json_object_set_new(j, "charged_gpus", rjson_real(r->charged_gpus));
    json_object_set_new(j, "charged_multiplier", rjson_real(r->charged_multiplier));
    json_object_set_new(j, "mtbi_gpu_days", rjson_real(q->mtbi_gpu_days));
    json_object_set_new(j, "days", rjson_real(q->duration_s / 86400));
    json_object_set_new(j, "interruptions_per_day", rjson_real(r->interruptions_per_day));
    json_object_set_new(j, "interruptions", rjson_real(r->interruptions));
    json_object_set_new(j, "job_mtti_h", rjson_real(r->job_mtti_h));
    json_object_set_new(j, "disabling_per_day", rjson_real(r->disabling_per_day));
    json_object_set_new(j, "detect_s", rjson_real(q->detect_s));
    json_object_set_new(j, "restart_s", rjson_real(q->restart_s));
    json_object_set_new(j, "queue_s", rjson_real(q->queue_s));
    json_object_set_new(j, "ckpt_interval_s", rjson_real(r->ckpt_interval_s));
    json_object_set_new(j, "ckpt_interval_auto", json_boolean(r->ckpt_interval_auto));
    json_object_set_new(j, "young_interval_s", rjson_real(r->young_interval_s));
    json_object_set_new(j, "daly_interval_s", rjson_real(r->daly_interval_s));
    json_object_set_new(j, "ckpt_write_s", rjson_real(q->ckpt_write_s));
    json_object_set_new(j, "async_ckpt", json_boolean(q->async_ckpt));
    json_object_set_new(j, "ckpt_blocking_s", rjson_real(r->ckpt_blocking_s));
    json_object_set_new(j, "rho", rjson_real(r->rho));
    json_object_set_new(j, "p_block", rjson_real(r->p_block));
    json_object_set_new(j, "busy_period_s", rjson_real(r->busy_period_s));
    json_object_set_new(j, "wait_per_interruption_s", rjson_real(r->wait_per_interruption_s));
    json_object_set_new(j, "formula", json_string(v->formula));
    json_object_set_new(j, "ettr", rjson_real(r->ettr));
    json_object_set_new(j, "g1", rjson_real(r->g1));
    json_object_set_new(j, "g2", rjson_real(r->g2));
    json_object_set_new(j, "g3", rjson_real(r->g3));
    json_object_set_new(j, "lost", lost_json(&r->lost));
    json_object_set_new(j, "weibull_shape", rjson_real(q->weibull_shape));
    json_object_set_new(j, "classes", classes_json(v));
    json_object_set_new(j, "mtbi_source", rjson_source(tier_source(v, "mtbi_gpu_days")));
    if (q->tokens_per_s_per_gpu > 0) {
        json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(q->tokens_per_s_per_gpu));
        json_object_set_new(j, "goodput_tokens_per_s", rjson_real(r->goodput_tokens_per_s));
    }
    if (v->profile) {
        json_object_set_new(j, "profile", json_string(v->profile->name));
        json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(v->tco.usd_per_gpu_hour));
        if (v->tco.user_price)
            json_object_set_new(j, "tco_source", rjson_user_price());
        json_object_set_new(j, "usd_per_mtok", rjson_real(v->cost.usd_per_mtok));
        json_object_set_new(j, "spare_cost", json_string(v->spare_cost));
        json_object_set_new(j, "effective_usd_per_mtok", rjson_real(r->effective_usd_per_mtok));
        json_object_set_new(j, "effective_usd_per_mtok_with_spares",
                            rjson_real(r->effective_usd_per_mtok_with_spares));
        json_object_set_new(j, "effective_usd_per_mtok_without_spares",
                            rjson_real(r->effective_usd_per_mtok_without_spares));
    }
    if (q->tokens > 0) {
        json_object_set_new(j, "tokens", rjson_real(q->tokens));
        json_object_set_new(j, "days_to_train", rjson_real(r->days_to_train));
    }
    json_object_set_new(j, "mc", mc_json(v->mc, q->trials, v->elapsed));
    return j;
}

static void row(tbl *t, const char *what, double analytic, double mc, bool has_mc, int dec,
                const char *unit, const char *how)
{
    tbl_row(t);
    tbl_str(t, what);
    if (isfinite(analytic))
        tbl_num(t, analytic, dec);
    else
        tbl_str(t, "");
    if (has_mc && isfinite(mc))
        tbl_num(t, mc, dec);
    else
        tbl_str(t, "");
    tbl_str(t, unit);
    tbl_str(t, how);
}

/* The quantities, analytic and Monte Carlo side by side, with how each comes about. */
static tbl *reliability_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const reliability_view *v = view;
    const gpuecon_reliability_request *q = v->q;
    const gpuecon_reliability_result *r = v->r;
    const gpuecon_reliability_mc *mc = v->mc;
    tbl *t = tbl_new(ctx, oom);
    bool m = q->trials > 0;
    char how[160];
    tbl_col(t, "quantity", 'l');
    tbl_col(t, "analytic", 'r');
    tbl_col(t, "monte carlo", 'r');
    tbl_col(t, "unit", 'l');
    tbl_col(t, "how", 'l');
    snprintf(how, sizeof how, "Λ = faults hitting the running job (%s GPU-days MTBI); MC counts "
                              "those not absorbed", NUM_SIG(q->mtbi_gpu_days, 6));
    row(t, "interruptions per day", r->interruptions_per_day, mc->interruptions_per_day, m, 2, "/day", how);
    row(t, "job mean time to interruption", r->job_mtti_h, NAN, false, 2, "h", "1/Λ");
    snprintf(how, sizeof how, "%s; Young %.0f s, Daly %.0f s for a %.0f s blocking write",
             r->ckpt_interval_auto ? "optimal (Daly, at least the write)" : "given",
             r->young_interval_s, r->daly_interval_s, r->ckpt_blocking_s);
    row(t, "checkpoint interval", r->ckpt_interval_s / 60, NAN, false, 1, "min", how);
    snprintf(how, sizeof how, "analytic %s (G1 %.4f, G2 %.4f, G3 %.4f); MC mean ± %.4f (95%%)",
             v->formula, r->g1, r->g2, r->g3, m ? mc->ettr_ci95 : 0.0);
    row(t, "ETTR (goodput)", r->ettr, mc->ettr_mean, m, 4, "", how);
    if (m) {
        snprintf(how, sizeof how, "P10 / P50 / P90 of %d trials", mc->trials);
        tbl_row(t);
        tbl_str(t, "  ETTR spread");
        tbl_str(t, "");
        tbl_fmt(t, "%.4f / %.4f / %.4f", mc->ettr_p10, mc->ettr_p50, mc->ettr_p90);
        tbl_str(t, "");
        tbl_str(t, how);
    }
    if (r->spare_domains > 0)
        snprintf(how, sizeof how, "P[Poisson(ρ = %s) > %d spare domains]", NUM_SIG(r->rho, 3), r->spare_domains);
    else
        snprintf(how, sizeof how, "no spare pool: busy period %.2f h after each of %.2f disabling faults/day",
                 r->busy_period_s / 3600, r->disabling_per_day);
    row(t, "blocked waiting for hardware", r->spare_domains > 0 ? r->p_block : r->lost.wait,
        mc->lost.wait, m, 4, "", how);
    snprintf(how, sizeof how, "(%d job + %d spare domains) x %d GPUs; %d spares",
             r->domains, r->spare_domains, r->domain_gpus, r->spare_gpus);
    row(t, "provisioned GPUs", r->provisioned_gpus, NAN, false, 0, "GPUs", how);
    row(t, "  provisioned / active", r->provisioned_multiplier, NAN, false, 4, "", "");
    row(t, "GPUs charged to the job", r->charged_gpus, NAN, false, 0, "GPUs",
        r->charged_gpus < r->provisioned_gpus ? "its share of a cluster-wide spare pool" : "all provisioned");
    row(t, "  charged / active", r->charged_multiplier, NAN, false, 4, "", "Π (effective cost)");
    if (q->tokens_per_s_per_gpu > 0)
        row(t, "goodput", r->goodput_tokens_per_s, mc->ettr_mean * q->tokens_per_s_per_gpu * r->active_gpus,
            m, 0, "tok/s", "tok/s/GPU x active GPUs x ETTR");
    if (v->profile) {
        row(t, "$ per 1M tokens, raw", v->cost.usd_per_mtok, NAN, false, 4, "$/Mtok", "at 100% goodput");
        snprintf(how, sizeof how, "x Π / ETTR (spares %s)", v->spare_cost);
        row(t, "$ per 1M tokens, effective", r->effective_usd_per_mtok,
            v->cost.usd_per_mtok * (q->spare_cost ? 1 : r->charged_multiplier) / mc->ettr_mean, m,
            4, "$/Mtok", how);
        row(t, "  with spare cost", r->effective_usd_per_mtok_with_spares, NAN, false, 4, "$/Mtok", "raw x Π / ETTR");
        row(t, "  without spare cost", r->effective_usd_per_mtok_without_spares, NAN, false, 4, "$/Mtok",
            "raw / ETTR (spares earn other work)");
    }
    if (q->tokens > 0)
        row(t, "days to train", r->days_to_train, mc->days_mean, m, 2, "days",
            m ? "MC: mean; P10-P90 in --json" : "budget / goodput");
    return t;
}

static void lost_table(tbl *t, const gpuecon_reliability_result *r, const gpuecon_reliability_mc *mc,
                       bool m)
{
    tbl_col(t, "where the time went", 'l');
    tbl_col(t, "analytic", 'r');
    tbl_col(t, "monte carlo", 'r');
    tbl_col(t, "h/day", 'r');
    const char *names[] = {"useful work (ETTR)", "detection (+ queue)", "restart", "recomputed work",
                           "checkpoint writes", "waiting for spares"};
    double a[6] = {r->ettr, r->lost.detect, r->lost.restart, r->lost.recompute, r->lost.ckpt, r->lost.wait};
    double b[6] = {mc->ettr_mean, mc->lost.detect, mc->lost.restart, mc->lost.recompute, mc->lost.ckpt,
                   mc->lost.wait};
    for (int i = 0; i < 6; i++) {
        tbl_row(t);
        tbl_str(t, names[i]);
        tbl_pct(t, a[i], 1);
        if (m)
            tbl_pct(t, b[i], 1);
        else
            tbl_str(t, "");
        tbl_num(t, a[i] * 24, 2);
    }
}

static void class_table(tbl *t, const gpuecon_reliability_request *q, const gpuecon_reliability_result *r)
{
    tbl_col(t, "failure class", 'l');
    tbl_col(t, "share", 'r');
    tbl_col(t, "blast", 'l');
    tbl_col(t, "per day (job)", 'r');
    tbl_col(t, "per 1000 GPU-days", 'r');
    tbl_col(t, "per 1000 node-days", 'r');
    tbl_col(t, "per 1000 domain-days", 'r');
    tbl_col(t, "repair (h)", 'l');
    for (int k = 0; k < GPUECON_FCLASS_COUNT; k++) {
        const gpuecon_fclass_params *p = &q->fclass[k];
        double per = 1000 * p->share / q->mtbi_gpu_days;
        tbl_row(t);
        tbl_str(t, gpuecon_fclass_name((gpuecon_fclass)k));
        tbl_pct(t, p->share, 1);
        tbl_str(t, gpuecon_blast_name((gpuecon_blast)p->blast));
        tbl_num(t, r->class_per_day[k], 2);
        tbl_num(t, per, 3);
        tbl_num(t, per * r->node_gpus, 3);
        tbl_num(t, per * r->domain_gpus, 3);
        if (p->blast == GPUECON_BLAST_JOB)
            tbl_str(t, "-");
        else
            tbl_fmt(t, "%s-%s", NUM_SIG(p->mttr_min_h * q->mttr_scale, 6), NUM_SIG(p->mttr_max_h * q->mttr_scale, 6));
    }
}

/* The job in two lines, the quantities (t), where the time went and the failure classes. */
static void reliability_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const reliability_view *v = view;
    const gpuecon_reliability_request *q = v->q;
    const gpuecon_reliability_result *r = v->r;
    const gpuecon_reliability_mc *mc = v->mc;
    tbl *lost = tbl_new(out->ctx, out->oom), *classes = tbl_new(out->ctx, out->oom);
    lost_table(lost, r, mc, q->trials > 0);
    class_table(classes, q, r);
    sb_printf(f, "%s, %s operator (%s): %d active GPUs", q->system->name, v->tier->tier, v->tier->name, r->active_gpus);
    int slots = r->domains * r->active_per_domain;
    if (slots > r->active_gpus) /* whole domains: the idle slots are spares, the job stays as written */
        sb_printf(f, " (whole domains hold %d active slots: %d idle, counted as spares)", slots, slots - r->active_gpus);
    sb_printf(f, " in %d domain%s of %d (%d active each) + %d spare domain%s; ", r->domains, r->domains == 1 ? "" : "s",
            r->domain_gpus, r->active_per_domain, r->spare_domains, r->spare_domains == 1 ? "" : "s");
    if (q->tokens > 0)
        sb_printf(f, "until %s tokens are trained\n", NUM_COUNT(q->tokens));
    else
        sb_printf(f, "%.1f days\n", q->duration_s / 86400);
    sb_printf(f, "MTBI %s GPU-days [%s]; detect %.0f s, restart %.0f s, %s checkpoint write %.0f s%s\n\n",
            NUM_SIG(q->mtbi_gpu_days, 6), gpuecon_stage_name(tier_source(v, "mtbi_gpu_days").stage), q->detect_s, q->restart_s,
            q->async_ckpt ? "async" : "sync", q->ckpt_write_s,
            q->weibull_shape != 1 ? " (Weibull lifetimes: MC only)" : "");
    tbl_print(t, f);
    sb_putc(f, '\n');
    tbl_print(lost, f);
    sb_putc(f, '\n');
    tbl_print(classes, f);
    if (q->trials > 0)
        sb_printf(f, "\nMonte Carlo: %d trials, %s events, seed %llu, %d threads, %.2f s\n", mc->trials,
                NUM_COUNT(mc->events),
                (unsigned long long)mc->seed, mc->threads, v->elapsed);
    tbl_free(lost);
    tbl_free(classes);
}

const render_kind render_reliability = {reliability_json, reliability_table, reliability_text, NULL};
