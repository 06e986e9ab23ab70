/*
 * cmd_reliability.c — `gpuecon reliability`: goodput of a long training job under failures,
 * checkpoints and spares; analytic model and Monte Carlo side by side, and where the lost
 * time went (detection, restart, recomputed work, checkpoint writes, waiting for spares).
 *
 * The tier entry (data/reliability.yaml, "<system>/<tier>") gives every default; options
 * override single fields. With --profile and --tokens-per-s the effective $ per million
 * tokens includes failures and spares (with and without spare cost, as SemiAnalysis, 20 Aug 2025).
 */
#include "cli.h"
#include "model/names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const form_names[] = {"g2", "g1", "g3", NULL};
static const char *const spare_cost_names[] = {"charged", "free", NULL};

typedef struct relopts {
    const char *system, *interval, *profile;
    int tier, gpus, spd, spare_domains, trials, seed, threads, form, spare_cost;
    double mtbi, days, detect, restart, queue, write, block, drain, mttr_scale, shape, tok_s, tokens, usd_h;
    bool async, sync;
} relopts;

/* Sets the share of domain-draining classes to f, rescaling the others (--rack-drain-fraction). */
static int set_drain_fraction(cli *c, gpuecon_reliability_request *q, double f)
{
    double d = 0;
    for (int k = 0; k < GPUECON_FCLASS_COUNT; k++)
        if (q->fclass[k].blast == GPUECON_BLAST_DOMAIN)
            d += q->fclass[k].share;
    if (q->system->scaleup_gpus == q->system->gpus_per_node && f > 0)
        return cli_usage_error(c, "--rack-drain-fraction",
                               "%s's NVLink domain is one %d-GPU node, so a drain is a node "
                               "fault; allowed only 0 here",
                               q->system->name, q->system->gpus_per_node);
    if (d <= 0) { /* no drain classes yet: switch tray and backplane, half each */
        q->fclass[GPUECON_FCLASS_SWITCH].blast = GPUECON_BLAST_DOMAIN;
        q->fclass[GPUECON_FCLASS_BACKPLANE].blast = GPUECON_BLAST_DOMAIN;
        q->fclass[GPUECON_FCLASS_SWITCH].share = q->fclass[GPUECON_FCLASS_BACKPLANE].share = 1e-12;
        d = 2e-12;
    }
    if (d >= 1 && f < 1)
        return cli_usage_error(c, "--rack-drain-fraction", "every class of this tier drains the rack");
    for (int k = 0; k < GPUECON_FCLASS_COUNT; k++)
        q->fclass[k].share *= q->fclass[k].blast == GPUECON_BLAST_DOMAIN ? f / d : (1 - f) / (1 - d);
    return 0;
}

static int build_request(cli *c, const relopts *o, const opt *opts, size_t nopts,
                         const gpuecon_system *s, gpuecon_reliability_request *q,
                         const gpuecon_reliability **tier)
{
    char name[160];
    snprintf(name, sizeof name, "%s/%s", s->name, names_tier[o->tier]);
    *tier = gpuecon_catalog_reliability(c->cat, name);
    if (!*tier)
        return cli_usage_error(c, "--tier", "no reliability entry '%s' in the catalog; add one to "
                                         "reliability.yaml (e.g. like: hgx-h100/%s)",
                               name, names_tier[o->tier]);
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_reliability_request_init(q, s, *tier, o->gpus, &err))
        return cli_fail(c, &err);
#define SEEN(n) opt_seen(opts, nopts, n)
    if (SEEN("--mtbi-gpu-days"))
        q->mtbi_gpu_days = o->mtbi;
    if (SEEN("--days"))
        q->duration_s = o->days * 86400;
    if (SEEN("--detect-s"))
        q->detect_s = o->detect;
    if (SEEN("--restart-s"))
        q->restart_s = o->restart;
    if (SEEN("--queue-s"))
        q->queue_s = o->queue;
    if (SEEN("--ckpt-write-s"))
        q->ckpt_write_s = o->write;
    if (SEEN("--ckpt-block-s"))
        q->ckpt_block_s = o->block;
    if (o->async && o->sync)
        return cli_usage_error(c, "--async-ckpt", "cannot be given with --sync-ckpt");
    if (o->async || o->sync)
        q->async_ckpt = o->async;
    if (SEEN("--ckpt-interval-s")) {
        char *end;
        double v = strcmp(o->interval, "auto") == 0 ? 0 : strtod(o->interval, &end);
        if (strcmp(o->interval, "auto") && (end == o->interval || *end || !isfinite(v) || v <= 0))
            return cli_usage_error(c, "--ckpt-interval-s",
                                   "'%s' is not allowed; give seconds above 0 or auto", o->interval);
        q->ckpt_interval_s = v;
    }
    if (SEEN("--spares-per-domain"))
        q->spares_per_domain = o->spd;
    if (SEEN("--spare-domains"))
        q->spare_domains = o->spare_domains;
    if (SEEN("--mttr-scale"))
        q->mttr_scale = o->mttr_scale;
    if (SEEN("--weibull-shape"))
        q->weibull_shape = o->shape;
    if (SEEN("--rack-drain-fraction")) {
        int rc = set_drain_fraction(c, q, o->drain);
        if (rc)
            return rc;
    }
    q->form = (gpuecon_goodput_form)o->form;
    q->spare_cost = (gpuecon_spare_cost)o->spare_cost;
    q->tokens_per_s_per_gpu = o->tok_s;
    q->tokens = o->tokens;
    q->trials = o->trials;
#undef SEEN
    return 0;
}

/* ---- output ------------------------------------------------------------------------------- */

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

static gpuecon_source tier_source(cli *c, const gpuecon_reliability *tier, const char *field)
{
    gpuecon_field f;
    if (gpuecon_catalog_field(c->cat, GPUECON_KIND_RELIABILITY, tier->name, field, &f))
        return (gpuecon_source){"", GPUECON_STAGE_ASSUMPTION};
    return f.source;
}

static json_t *classes_json(cli *c, const gpuecon_reliability_request *q,
                            const gpuecon_reliability *tier, const gpuecon_reliability_result *r)
{
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
        json_object_set_new(j, "share_source", rjson_source(tier_source(c, tier, field)));
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
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
    json_object_set_new(j, "seed", json_string(seed));
    json_object_set_new(j, "threads", json_integer(m->threads));
    json_object_set_new(j, "elapsed_s", rjson_real(elapsed));
    return j;
}

typedef struct econ {
    bool have;
    const gpuecon_profile *profile;
    gpuecon_tco tco;
    gpuecon_cost cost;
} econ;

static int emit_json(cli *c, const gpuecon_reliability_request *q, const gpuecon_reliability *tier,
                     const gpuecon_reliability_result *r, const gpuecon_reliability_mc *mc,
                     double elapsed, const econ *e)
{
    json_t *j = json_object();
    json_object_set_new(j, "system", json_string(q->system->name));
    json_object_set_new(j, "tier", json_string(tier->tier));
    json_object_set_new(j, "tier_entry", json_string(tier->name));
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
    json_object_set_new(j, "formula", json_string(form_names[q->form]));
    json_object_set_new(j, "ettr", rjson_real(r->ettr));
    json_object_set_new(j, "g1", rjson_real(r->g1));
    json_object_set_new(j, "g2", rjson_real(r->g2));
    json_object_set_new(j, "g3", rjson_real(r->g3));
    json_object_set_new(j, "lost", lost_json(&r->lost));
    json_object_set_new(j, "weibull_shape", rjson_real(q->weibull_shape));
    json_object_set_new(j, "classes", classes_json(c, q, tier, r));
    json_object_set_new(j, "mtbi_source", rjson_source(tier_source(c, tier, "mtbi_gpu_days")));
    if (q->tokens_per_s_per_gpu > 0) {
        json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(q->tokens_per_s_per_gpu));
        json_object_set_new(j, "goodput_tokens_per_s", rjson_real(r->goodput_tokens_per_s));
    }
    if (e->have) {
        json_object_set_new(j, "profile", json_string(e->profile->name));
        json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(e->tco.usd_per_gpu_hour));
        if (e->tco.user_price)
            json_object_set_new(j, "tco_source", rjson_user_price());
        json_object_set_new(j, "usd_per_mtok", rjson_real(e->cost.usd_per_mtok));
        json_object_set_new(j, "spare_cost", json_string(spare_cost_names[q->spare_cost]));
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
    json_object_set_new(j, "mc", mc_json(mc, q->trials, elapsed));
    return cli_emit_json(c, j);
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

static void main_table(tbl *t, const gpuecon_reliability_request *q, const gpuecon_reliability_result *r,
                       const gpuecon_reliability_mc *mc, const econ *e)
{
    bool m = q->trials > 0;
    char how[160];
    tbl_col(t, "quantity", 'l');
    tbl_col(t, "analytic", 'r');
    tbl_col(t, "monte carlo", 'r');
    tbl_col(t, "unit", 'l');
    tbl_col(t, "how", 'l');
    snprintf(how, sizeof how, "Λ = faults hitting the running job (%g GPU-days MTBI); MC counts "
                              "those not absorbed", q->mtbi_gpu_days);
    row(t, "interruptions per day", r->interruptions_per_day, mc->interruptions_per_day, m, 2, "/day", how);
    row(t, "job mean time to interruption", r->job_mtti_h, NAN, false, 2, "h", "1/Λ");
    snprintf(how, sizeof how, "%s; Young %.0f s, Daly %.0f s for a %.0f s blocking write",
             r->ckpt_interval_auto ? "optimal (Daly, at least the write)" : "given",
             r->young_interval_s, r->daly_interval_s, r->ckpt_blocking_s);
    row(t, "checkpoint interval", r->ckpt_interval_s / 60, NAN, false, 1, "min", how);
    snprintf(how, sizeof how, "analytic %s (G1 %.4f, G2 %.4f, G3 %.4f); MC mean ± %.4f (95%%)",
             form_names[q->form], r->g1, r->g2, r->g3, m ? mc->ettr_ci95 : 0.0);
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
        snprintf(how, sizeof how, "P[Poisson(ρ = %.3g) > %d spare domains]", r->rho, r->spare_domains);
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
    if (e->have) {
        row(t, "$ per 1M tokens, raw", e->cost.usd_per_mtok, NAN, false, 4, "$/Mtok", "at 100% goodput");
        snprintf(how, sizeof how, "x Π / ETTR (spares %s)", spare_cost_names[q->spare_cost]);
        row(t, "$ per 1M tokens, effective", r->effective_usd_per_mtok,
            e->cost.usd_per_mtok * (q->spare_cost ? 1 : r->charged_multiplier) / mc->ettr_mean, m,
            4, "$/Mtok", how);
        row(t, "  with spare cost", r->effective_usd_per_mtok_with_spares, NAN, false, 4, "$/Mtok", "raw x Π / ETTR");
        row(t, "  without spare cost", r->effective_usd_per_mtok_without_spares, NAN, false, 4, "$/Mtok",
            "raw / ETTR (spares earn other work)");
    }
    if (q->tokens > 0)
        row(t, "days to train", r->days_to_train, mc->days_mean, m, 2, "days",
            m ? "MC: mean; P10-P90 in --json" : "budget / goodput");
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
            tbl_fmt(t, "%g-%g", p->mttr_min_h * q->mttr_scale, p->mttr_max_h * q->mttr_scale);
    }
}

static int emit_table(cli *c, const gpuecon_reliability_request *q, const gpuecon_reliability *tier,
                      const gpuecon_reliability_result *r, const gpuecon_reliability_mc *mc,
                      double elapsed, const econ *e)
{
    tbl *t1 = tbl_new(c->ctx, &c->oom), *t2 = tbl_new(c->ctx, &c->oom), *t3 = tbl_new(c->ctx, &c->oom);
    main_table(t1, q, r, mc, e);
    lost_table(t2, r, mc, q->trials > 0);
    class_table(t3, q, r);
    FILE *f = cli_out(c);
    if (f && c->format == FMT_CSV) {
        tbl_csv(t1, f);
    } else if (f) {
        fprintf(f, "%s, %s operator (%s): %d active GPUs", q->system->name, tier->tier, tier->name,
                r->active_gpus);
        if (r->active_gpus != r->requested_gpus)
            fprintf(f, " (%d requested, rounded up to whole domains)", r->requested_gpus);
        fprintf(f, " in %d domain%s of %d (%d active each) + %d spare domain%s; ", r->domains,
                r->domains == 1 ? "" : "s", r->domain_gpus, r->active_per_domain, r->spare_domains,
                r->spare_domains == 1 ? "" : "s");
        if (q->tokens > 0)
            fprintf(f, "until %.4g tokens are trained\n", q->tokens);
        else
            fprintf(f, "%.1f days\n", q->duration_s / 86400);
        fprintf(f, "MTBI %g GPU-days [%s]; detect %.0f s, restart %.0f s, %s checkpoint write %.0f s%s\n\n",
                q->mtbi_gpu_days, gpuecon_stage_name(tier_source(c, tier, "mtbi_gpu_days").stage), q->detect_s, q->restart_s,
                q->async_ckpt ? "async" : "sync", q->ckpt_write_s,
                q->weibull_shape != 1 ? " (Weibull lifetimes: MC only)" : "");
        tbl_print(t1, f);
        fputc('\n', f);
        tbl_print(t2, f);
        fputc('\n', f);
        tbl_print(t3, f);
        if (q->trials > 0)
            fprintf(f, "\nMonte Carlo: %d trials, %.3g events, seed %llu, %d threads, %.2f s\n",
                    mc->trials, mc->events, (unsigned long long)mc->seed, mc->threads, elapsed);
    }
    tbl_free(t1);
    tbl_free(t2);
    tbl_free(t3);
    if (!f)
        return EXIT_USAGE;
    cli_close_out(c, f);
    return EXIT_OK;
}

/* ---- the command ------------------------------------------------------------------------------- */

static int economics(cli *c, const relopts *o, const gpuecon_system *s, gpuecon_reliability_request *q,
                     econ *e)
{
    memset(e, 0, sizeof *e);
    if (!o->profile && !(o->usd_h > 0))
        return 0;
    if (!(o->tok_s > 0))
        return cli_usage_error(c, o->profile ? "--profile" : "--usd-per-gpu-hour",
                               "needs --tokens-per-s (the throughput to price)");
    int rc = cli_profile(c, "--profile", o->profile ? o->profile : CLI_DEFAULT_PROFILE, &e->profile);
    if (rc)
        return rc;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_tco_price(e->profile, s, 0, o->usd_h, &e->tco, &err) ||
        gpuecon_cost_compute(e->tco.usd_per_gpu_hour, s->it_w_per_gpu, s->pue, o->tok_s, 0, &e->cost, &err))
        return cli_fail(c, &err);
    q->usd_per_mtok = e->cost.usd_per_mtok;
    e->have = true;
    return 0;
}

/* The Monte Carlo on a context with the command's seed and thread count (same callbacks). */
static int simulate(cli *c, const relopts *o, const gpuecon_reliability_request *q,
                    gpuecon_reliability_mc *mc, double *elapsed)
{
    memset(mc, 0, sizeof *mc);
    if (q->trials <= 0)
        return 0;
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    if (o->seed >= 0)
        cfg.seed = (uint64_t)o->seed;
    cfg.threads = o->threads;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    if (!ctx)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    int rc = gpuecon_reliability_simulate(ctx, q, mc, &err);
    *elapsed = cli_now_s(c) - t0;
    gpuecon_ctx_free(ctx);
    return rc ? cli_fail(c, &err) : 0;
}

int cmd_reliability(cli *c, int argc, char **argv)
{
    relopts o = {.tier = 1, .trials = 1000, .seed = -1};
    opt opts[] = {
        CLI_OPT_SYSTEM(&o.system),
        {"--active-gpus", O_INT, &o.gpus, 1, 1e7, NULL, "N", "GPUs doing the job's work", "the GPUs doing the job's work", false},
        {"--tier", O_CHOICE, &o.tier, 0, 0, names_tier, "T", "operator tier (default typical)", NULL, false},
        {"--mtbi-gpu-days", O_DOUBLE, &o.mtbi, 1e-3, 1e7, NULL, "X", "MTBI per active GPU (overrides the tier)", NULL, false},
        {"--days", O_DOUBLE, &o.days, 0.01, 3650, NULL, "D", "job length, wall-clock days (default 30)", NULL, false},
        {"--detect-s", O_DOUBLE, &o.detect, 0, 1e6, NULL, "S", "fault detection time", NULL, false},
        {"--restart-s", O_DOUBLE, &o.restart, 0, 1e6, NULL, "R", "restart time (schedule, init, load)", NULL, false},
        {"--queue-s", O_DOUBLE, &o.queue, 0, 1e6, NULL, "Q", "queue time per resubmission", NULL, false},
        {"--ckpt-write-s", O_DOUBLE, &o.write, 0, 1e6, NULL, "W", "checkpoint write time", NULL, false},
        {"--ckpt-interval-s", O_STR, &o.interval, 0, 0, NULL, "I|auto", "work between checkpoints (auto: Daly)", NULL, false},
        {"--async-ckpt", O_FLAG, &o.async, 0, 0, NULL, NULL, "write checkpoints in the background", NULL, false},
        {"--sync-ckpt", O_FLAG, &o.sync, 0, 0, NULL, NULL, "blocking checkpoint writes", NULL, false},
        {"--ckpt-block-s", O_DOUBLE, &o.block, 0, 1e6, NULL, "B", "blocking part of an async checkpoint", NULL, false},
        {"--spares-per-domain", O_INT, &o.spd, 0, 1151, NULL, "K", "hot-spare GPUs in each job domain (NVL72: 8)", NULL, false},
        {"--spare-domains", O_INT, &o.spare_domains, 0, 1e7, NULL, "M", "pool of whole spare domains (default: tier %)", NULL, false},
        {"--rack-drain-fraction", O_DOUBLE, &o.drain, 0, 1, NULL, "F", "share of interruptions that drain a domain", NULL, false},
        {"--mttr-scale", O_DOUBLE, &o.mttr_scale, 0, 100, NULL, "F", "multiply every repair time (0: instant)", NULL, false},
        {"--weibull-shape", O_DOUBLE, &o.shape, 0.1, 10, NULL, "K", "hardware lifetimes (1: exponential; MC only)", NULL, false},
        {"--formula", O_CHOICE, &o.form, 0, 0, form_names, "G", "analytic form reported as ettr (default g2)", NULL, false},
        {"--trials", O_INT, &o.trials, 0, 1e8, NULL, "T", "Monte Carlo trials (0: none; default 1000)", NULL, false},
        CLI_OPT_SEED(&o.seed),
        {"--threads", O_INT, &o.threads, 0, 1024, NULL, "N", "threads (0: all; results never depend on it)", NULL, false},
        {"--profile", O_STR, &o.profile, 0, 0, NULL, "P",
         "TCO profile for the effective $/Mtok (default " CLI_DEFAULT_PROFILE " with --usd-per-gpu-hour)", NULL, false},
        CLI_OPT_USD_PER_GPU_HOUR(&o.usd_h),
        {"--tokens-per-s", O_DOUBLE, &o.tok_s, 1e-3, 1e9, NULL, "X", "throughput per GPU at full goodput", NULL, false},
        {"--tokens", O_DOUBLE, &o.tokens, 1, 1e18, NULL, "N", "token budget: days to train (needs --tokens-per-s)", NULL, false},
        {"--spare-cost", O_CHOICE, &o.spare_cost, 0, 0, spare_cost_names, "C", "spares charged to the job or free", NULL, false},
    };
    static const cmd_usage usage = {
        "reliability --system S --active-gpus N [--tier best|typical|poor] [--mtbi-gpu-days X] "
        "[--days D] [...]",
        "Goodput of a long synchronous training job under failures: interruptions per day,\n"
        "job MTTI, the optimal checkpoint interval, ETTR by three analytic forms and by an\n"
        "exact Monte Carlo (P10/P50/P90), where the lost time went, spare GPUs, and with\n"
        "--profile and --tokens-per-s the effective $ per 1M tokens with and without spare cost.",
        "gpuecon reliability --system gb200-nvl72 --active-gpus 16384 --tier typical"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)))
        return rc;
    if (o.tokens > 0 && !(o.tok_s > 0))
        return cli_usage_error(c, "--tokens", "needs --tokens-per-s (to turn tokens into work)");
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    if ((rc = cli_load_catalog(c)))
        return rc;
    const gpuecon_system *s;
    if ((rc = cli_system(c, "--system", o.system, &s)))
        return rc;
    gpuecon_reliability_request q;
    const gpuecon_reliability *tier;
    econ e;
    if ((rc = build_request(c, &o, opts, nopts, s, &q, &tier)) || (rc = economics(c, &o, s, &q, &e)))
        return rc;

    gpuecon_error err;
    gpuecon_error_clear(&err);
    gpuecon_reliability_result r;
    if (gpuecon_reliability_analytic(&q, &r, &err))
        return cli_fail(c, &err);
    gpuecon_reliability_mc mc;
    double elapsed = 0;
    if ((rc = simulate(c, &o, &q, &mc, &elapsed)))
        return rc;
    if (c->format == FMT_JSON)
        return emit_json(c, &q, tier, &r, &mc, elapsed, &e);
    return emit_table(c, &q, tier, &r, &mc, elapsed, &e);
}
