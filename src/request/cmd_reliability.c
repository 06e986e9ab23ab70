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

/* ---- the command ------------------------------------------------------------------------------- */

/* --profile or --usd-per-gpu-hour: the TCO and $/Mtok at full goodput, into v (v->profile NULL without). */
static int economics(cli *c, const relopts *o, const gpuecon_system *s, gpuecon_reliability_request *q,
                     reliability_view *e)
{
    if (!o->profile && !(o->usd_h > 0))
        return 0;
    if (!(o->tok_s > 0))
        return cli_usage_error(c, o->profile ? "--profile" : "--usd-per-gpu-hour",
                               "needs --tokens-per-s (the throughput to price)");
    const gpuecon_profile *p;
    int rc = cli_profile(c, "--profile", o->profile ? o->profile : CLI_DEFAULT_PROFILE, &p);
    if (rc)
        return rc;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_tco_price(p, s, 0, o->usd_h, &e->tco, &err) ||
        gpuecon_cost_compute(e->tco.usd_per_gpu_hour, s->it_w_per_gpu, s->pue, o->tok_s, 0, &e->cost, &err))
        return cli_fail(c, &err);
    q->usd_per_mtok = e->cost.usd_per_mtok;
    e->profile = p;
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
        return cli_usage_error(c, "--format", "html is only for compare and rl");
    if ((rc = cli_load_catalog(c)))
        return rc;
    const gpuecon_system *s;
    if ((rc = cli_system(c, "--system", o.system, &s)))
        return rc;
    gpuecon_reliability_request q;
    reliability_view v = {.cat = c->cat, .q = &q, .formula = form_names[o.form],
                          .spare_cost = spare_cost_names[o.spare_cost]};
    if ((rc = build_request(c, &o, opts, nopts, s, &q, &v.tier)) || (rc = economics(c, &o, s, &q, &v)))
        return rc;

    gpuecon_error err;
    gpuecon_error_clear(&err);
    gpuecon_reliability_result r;
    if (gpuecon_reliability_analytic(&q, &r, &err))
        return cli_fail(c, &err);
    gpuecon_reliability_mc mc;
    if ((rc = simulate(c, &o, &q, &mc, &v.elapsed)))
        return rc;
    v.r = &r, v.mc = &mc;
    return cli_render(c, &render_reliability, &v);
}
