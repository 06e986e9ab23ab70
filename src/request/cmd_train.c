/*
 * cmd_train.c — `gpuecon train`: the predicted training step of one job (omitted parallel
 * sizes are searched), with the breakdown of step time and memory, the cost of a run with
 * --profile/--tokens, and its plans: scaling sweeps over GPU counts (--sweep-gpus, weak by
 * default: the batch per GPU stays; --strong keeps the global batch) with an optional chart,
 * the same job on another system (--vs), the fewest GPUs for a deadline (--target-days) and
 * owning the cluster against renting it (--rent-usd-per-gpu-hour). Rendered in
 * render/train.c and render/train_plans.c.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <string.h>

/* The 80% band (docs/model.md §7.6) of prediction r of q, whose calibration match m the caller has
 * (calib_match_of): the validate rows' band set built for this one figure. 0, or the exit code of a
 * failure to build it (reported). */
static int one_band(cli *c, const gpuecon_train_request *q, const gpuecon_train_result *r, const calib_match *m,
                    gpuecon_band *out)
{
    band_set *bs = NULL;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (band_set_build(c->ctx, c->cat, &bs, &err))
        return cli_fail(c, &err);
    band_of_train(bs, q, r, m, out);
    band_set_free(bs);
    return 0;
}

/* --vs S: the same job on another system, with the collective-only ratio next to the end-to-end
 * one (SemiAnalysis, 20 Aug 2025: an all-to-all ~18x faster inside one NVL72 is ~2.5x per GPU end
 * to end for DeepSeek-V3 and Llama 4). The other system gets its own best layout (parallel sizes
 * searched) for the same model, precision and framework settings; --vs-gpus sets its GPU count,
 * and the global batch then keeps the sequences per GPU (weak scaling), as the article's
 * comparisons do. The collective ratio times one dispatch all-to-all of this job's expert group
 * and message on both systems. */
static int versus(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_train_result *mine,
                  const calib_set *set, train_vs_view *v)
{
    memset(v, 0, sizeof *v);
    v->system = req->system;
    v->mine = mine;
    int rc = cli_system(c, "--vs", a->vs, &v->other);
    if (rc)
        return rc;
    gpuecon_train_request q = *req;
    q.system = v->other;
    /* the other system's own calibration, if the overlay has one (docs/model.md §3.8) */
    q.calibration = gpuecon_catalog_calibration(c->cat, 0, q.stack ? q.stack->name : NULL, q.system->name,
                                                (int)q.precision);
    v->user_cal = q.calibration;
    q.gpus = a->vs_gpus > 0 ? a->vs_gpus : req->gpus;
    if ((long)req->gbs * q.gpus % req->gpus)
        return cli_usage_error(c, "--vs-gpus", "%d GPUs: the batch per GPU (%d sequences on %d GPUs) must stay whole",
                               q.gpus, req->gbs, req->gpus);
    q.gbs = (int)((long)req->gbs * q.gpus / req->gpus);
    q.tp = q.pp = q.vpp = q.cp = q.ep = q.etp = q.mbs = GPUECON_SEARCH;
    q.zero = q.tp_overlap = GPUECON_SEARCH;
    /* the other system's GPU generation has its own MFU cap and bands */
    if ((rc = train_cli_rank(c, set, &q)))
        return rc;
    v->gpus = q.gpus, v->gbs = q.gbs;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_train_predict(c->ctx, &q, &v->r, &err);
    if (rc && rc != GPUECON_E_INFEASIBLE) {
        sb_printf(c->notes, "gpuecon: --vs %s: ", v->other->name);
        return cli_fail(c, &err);
    }
    v->fits = rc == GPUECON_OK;
    if (v->fits) { /* its layout against the calibration set (docs/model.md §3.5), and its 80% band (§7.6) */
        calib_match_of(set, &q, &v->r, &v->calib);
        v->have_calib = true;
        if ((rc = one_band(c, &q, &v->r, &v->calib, &v->band)))
            return rc;
    }
    if (mine->moe.moe_layers > 0 && mine->par.ep * mine->par.etp > 1 && mine->moe.a2a_bytes > 0) {
        gpuecon_coll_result x, y;
        v->ep = mine->par.ep, v->etp = mine->par.etp, v->bytes = mine->moe.a2a_bytes;
        if (!gpuecon_collective(req->system, GPUECON_ALL_TO_ALL, v->ep, v->etp, v->bytes, GPUECON_ALGO_AUTO, &x, &err) &&
            !gpuecon_collective(v->other, GPUECON_ALL_TO_ALL, v->ep, v->etp, v->bytes, GPUECON_ALGO_AUTO, &y, &err)) {
            v->have_a2a = true;
            v->a2a_this = x.time_s, v->a2a_other = y.time_s;
        }
    }
    return 0;
}

static int single(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof,
                  const calib_set *set)
{
    gpuecon_train_result r;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_train_predict(c->ctx, req, &r, &err);
    bool infeasible = rc == GPUECON_E_INFEASIBLE;
    if (rc && !infeasible)
        return cli_fail(c, &err);
    if (infeasible)
        cli_fail(c, &err);
    int exit_code = infeasible ? EXIT_INFEASIBLE : EXIT_OK;
    /* the run as compare costs it: goodput under failures, spares, days, dollars, MWh */
    gpuecon_platform_result run;
    memset(&run, 0, sizeof run);
    /* where the layout stands against the calibration set (docs/model.md §3.5) */
    calib_match m;
    calib_match_of(set, req, &r, &m);
    train_view v = {.req = req, .r = &r, .calib = &m, .user_price = a->usd_per_gpu_hour > 0,
                    .tokens = a->tokens, .run = &run, .tier = names_tier[a->tier], .start_date = a->start_date};
    /* the 80% band of the prediction (docs/model.md §7.6) */
    gpuecon_band band;
    if (!infeasible) {
        if ((rc = one_band(c, req, &r, &m, &band)))
            return rc;
        v.band = &band;
    }
    if (prof && !infeasible) {
        v.profile = prof;
        if ((rc = train_cli_cost(c, req, prof, a->pue, a->usd_per_gpu_hour, a->tokens, r.tokens_per_s_per_gpu,
                                 &v.cost, &v.usd_per_gpu_hour)))
            return rc;
        gpuecon_run_request rq;
        train_cli_run_request(a, req, prof, r.tokens_per_s_per_gpu, &rq);
        gpuecon_error_clear(&err);
        int rrc = gpuecon_run_cost(c->ctx, c->cat, &rq, &run, &err);
        if (rrc && rrc != GPUECON_E_INFEASIBLE)
            return cli_fail(c, &err);
        if (rrc) {
            exit_code = EXIT_INFEASIBLE;
            cli_fail(c, &err);
        }
        v.run_ok = rrc == GPUECON_OK;
    }
    /* --vs: inside the JSON document; after the terminal text (which stays when it fails) */
    train_vs_view vs;
    if (a->vs && c->format == FMT_JSON) {
        if ((rc = versus(c, a, req, &r, set, &vs)))
            return rc;
        v.vs = &vs;
    }
    if ((rc = cli_render(c, &render_train, &v)))
        return rc;
    if (a->vs && c->format == FMT_TABLE &&
        ((rc = versus(c, a, req, &r, set, &vs)) || (rc = cli_render(c, &render_train_vs, &vs))))
        return rc;
    return exit_code;
}

static int sweep(cli *c, const train_args *a, gpuecon_train_request *req, const calib_set *set)
{
    int n = a->sweep.n, base = a->gpus > 0 ? a->gpus : a->sweep.v[0];
    train_sweep_row rows[64];
    int misses = 0;
    for (int i = 0; i < n; i++) {
        train_sweep_row *w = &rows[i];
        memset(w, 0, sizeof *w);
        w->gpus = a->sweep.v[i];
        long gbs = a->strong ? req->gbs : (long)a->gbs * w->gpus / base;
        if (!a->strong && ((long)a->gbs * w->gpus) % base)
            return cli_usage_error(c, "--sweep-gpus", "%d GPUs: weak scaling needs gbs x gpus / %d to be whole "
                                   "(gbs %d); pick multiples of %d or use --strong", w->gpus, base, a->gbs, base);
        w->gbs = (int)gbs;
        gpuecon_train_request q = *req;
        q.gpus = w->gpus;
        q.gbs = w->gbs;
        gpuecon_error err;
        gpuecon_error_clear(&err);
        int rc = gpuecon_train_predict(c->ctx, &q, &w->r, &err);
        if (rc == GPUECON_OK || rc == GPUECON_E_INFEASIBLE) {
            w->ok = rc == GPUECON_OK;
            w->fits = w->ok;
            misses += !w->ok;
        } else { /* one message: "--sweep-gpus: 1 GPUs: --gpus: ..." */
            gpuecon_error e = err;
            snprintf(e.where, sizeof e.where, "--sweep-gpus");
            snprintf(e.message, sizeof e.message, "%d GPUs: %.100s%s%.380s", w->gpus, err.where,
                     err.where[0] ? ": " : "", err.message);
            return cli_fail(c, &e);
        }
    }
    if (misses) /* exit 3 says why on stderr too */
        cli_error(c, GPUECON_E_INFEASIBLE, "--sweep-gpus", "%d of the %d sizes do not fit in memory (fits: NO)",
                  misses, n);
    /* each size's layout against the calibration set (docs/model.md §3.5) */
    calib_match *m = ctx_alloc(c->ctx, (size_t)n * sizeof *m);
    if (!m)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    for (int i = 0; i < n; i++)
        if (rows[i].ok) {
            gpuecon_train_request q = *req;
            q.gpus = rows[i].gpus, q.gbs = rows[i].gbs;
            calib_match_of(set, &q, &rows[i].r, &m[i]);
        }
    /* and each size's 80% band (docs/model.md §7.6) */
    gpuecon_band bands[64];
    band_set *bs = NULL;
    gpuecon_error berr;
    gpuecon_error_clear(&berr);
    if (band_set_build(c->ctx, c->cat, &bs, &berr)) {
        ctx_free(c->ctx, m, (size_t)n * sizeof *m);
        return cli_fail(c, &berr);
    }
    for (int i = 0; i < n; i++) {
        memset(&bands[i], 0, sizeof bands[i]);
        if (rows[i].ok) {
            gpuecon_train_request q = *req;
            q.gpus = rows[i].gpus, q.gbs = rows[i].gbs;
            band_of_train(bs, &q, &rows[i].r, &m[i], &bands[i]);
        }
    }
    band_set_free(bs);
    train_sweep_view v = {req, a->strong, rows, n, m, bands};
    if (a->plot) {
        train_chart ch;
        train_plans_sweep_chart(&v, &ch);
        cli_plot(c, a->plot, &ch.spec, ch.series, ch.n, false, c->format == FMT_TABLE);
    }
    int rc = cli_render(c, &render_train_sweep, &v);
    ctx_free(c->ctx, m, (size_t)n * sizeof *m);
    return rc ? rc : misses ? EXIT_INFEASIBLE : EXIT_OK;
}

/* --target-days: the fewest GPUs that finish the token budget by the deadline, failures, restarts
 * and spares included (gpuecon_train_target), and the trade between GPUs, days and dollars around
 * the answer. */
/* The fewest GPUs that meet the deadline with the throughput at `ratio` of its prediction (the band's
 * low/point or high/point): the same search (gpuecon_train_target) at the deadline times ratio, since a run's
 * days scale as 1/throughput (its ETTR held: the failures per day do not change with the throughput).
 * 0 when no size up to the limit meets it; < 0 on an error other than infeasible (err set). */
static int gpus_at(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_run_request *run,
                   double ratio, gpuecon_error *err)
{
    gpuecon_target_result *u = ctx_alloc(c->ctx, sizeof *u);
    if (!u)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory"), -1;
    int rc = gpuecon_train_target(c->ctx, c->cat, req, run, a->target_days * ratio, a->max_gpus, u, err);
    int n = rc == GPUECON_OK && u->met ? u->gpus_needed : rc == GPUECON_E_INFEASIBLE || rc == GPUECON_OK ? 0 : -1;
    ctx_free(c->ctx, u, sizeof *u);
    return n;
}

static int target(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof,
                  const calib_set *set)
{
    if (!prof || !(a->tokens > 0))
        return cli_usage_error(c, "--target-days", "needs --profile P and --tokens T (the budget to finish)");
    gpuecon_run_request run;
    train_cli_run_request(a, req, prof, 1, &run);
    gpuecon_target_result *t = ctx_alloc(c->ctx, sizeof *t);
    if (!t)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_train_target(c->ctx, c->cat, req, &run, a->target_days, a->max_gpus, t, &err);
    if (rc && rc != GPUECON_E_INFEASIBLE) {
        ctx_free(c->ctx, t, sizeof *t);
        return cli_fail(c, &err);
    }
    int exit_code = rc ? EXIT_INFEASIBLE : EXIT_OK;
    if (rc)
        cli_fail(c, &err);
    cli_spell_options(c, t->why, sizeof t->why);
    for (size_t i = 0; i < t->n_rows; i++)
        cli_spell_options(c, t->rows[i].why, sizeof t->rows[i].why);
    cli_spell_platform(c, &t->run);
    train_target_view v = {req, a->tokens, a->target_days, names_tier[a->tier], t, NULL, 0, 0};
    /* the answer's 80% band (docs/model.md §7.6), and what it means for the size: the fewest GPUs of the
       trade table that still meet the deadline at the band's low end, and at its high end */
    gpuecon_band band;
    if (t->met || t->nearest_gpus) {
        gpuecon_train_request q = *req;
        q.gpus = t->met ? t->gpus_needed : t->nearest_gpus;
        calib_match m;
        calib_match_of(set, &q, &t->train, &m);
        if ((rc = one_band(c, &q, &t->train, &m, &band))) {
            ctx_free(c->ctx, t, sizeof *t);
            return rc;
        }
        gpuecon_error berr;
        double point = t->train.tokens_per_s_per_gpu;
        if (band.set && point > 0) {
            v.band = &band;
            gpuecon_error_clear(&berr);
            if ((v.gpus_at_low = gpus_at(c, a, req, &run, band.low / point, &berr)) < 0 ||
                (v.gpus_at_high = gpus_at(c, a, req, &run, band.high / point, &berr)) < 0) {
                ctx_free(c->ctx, t, sizeof *t);
                return cli_fail(c, &berr);
            }
        }
    }
    if (a->plot) {
        train_chart ch;
        train_plans_target_chart(&v, &ch);
        if (ch.n)
            cli_plot(c, a->plot, &ch.spec, ch.series, ch.n, false, true);
    }
    rc = cli_render(c, &render_train_target, &v);
    ctx_free(c->ctx, t, sizeof *t);
    return rc ? rc : exit_code;
}

/* --rent-usd-per-gpu-hour R: owning the run's GPUs over the cluster's life against renting them
 * for the hours used (gpuecon_cluster_life). */
static int own_rent(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof,
                    const calib_set *set)
{
    if (!prof || !(a->tokens > 0))
        return cli_usage_error(c, "--rent-usd-per-gpu-hour", "needs --profile P and --tokens T (the workload)");
    gpuecon_train_result r;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_train_predict(c->ctx, req, &r, &err);
    if (rc) {
        int code = cli_fail(c, &err);
        return rc == GPUECON_E_INFEASIBLE ? EXIT_INFEASIBLE : code;
    }
    gpuecon_life_request q;
    gpuecon_life_request_init(&q);
    train_cli_run_request(a, req, prof, r.tokens_per_s_per_gpu, &q.run);
    q.life_years = a->life_years;
    q.utilisation = a->utilisation;
    q.workloads_per_year = a->workloads_per_year;
    q.rent_usd_per_gpu_hour = a->rent_usd_per_gpu_hour;
    gpuecon_life_result l;
    if ((rc = gpuecon_cluster_life(c->ctx, c->cat, &q, &l, &err))) {
        int code = cli_fail(c, &err);
        return rc == GPUECON_E_INFEASIBLE ? EXIT_INFEASIBLE : code;
    }
    train_life_view v = {req, prof, r.tokens_per_s_per_gpu, &l, NULL};
    calib_match m; /* the prediction's 80% band (docs/model.md §7.6) */
    calib_match_of(set, req, &r, &m);
    gpuecon_band band;
    if ((rc = one_band(c, req, &r, &m, &band)))
        return rc;
    if (band.set)
        v.band = &band;
    return cli_render(c, &render_train_life, &v);
}

int cmd_train(cli *c, int argc, char **argv)
{
    train_args a;
    opt opts[TRAIN_MAX_OPTS];
    size_t n = train_cli_opts(&a, opts, false);
    static const cmd_usage usage = {
        "train --model M --system S --gpus N --seq L --gbs B [--precision bf16|fp8|fp4] [--mbs --tp --pp --vpp\n"
        "       --cp --ep --recompute none|selective|full --zero 0..3] [--profile P --usd-per-gpu-hour X --tokens T]\n"
        "       [--etp N --a2a-overlap on|off --capacity-factor F --imbalance F --mtp N --cuda-graphs on|off]\n"
        "       [--tier best|typical|poor --mtbi-gpu-days D] [--target-days D [--max-gpus N] [--plot FILE.svg]]\n"
        "       [--rent-usd-per-gpu-hour R [--life-years L] [--utilisation U | --workloads-per-year W]]\n"
        "       [--sweep-gpus LIST [--strong] [--plot FILE.svg]] [--vs S [--vs-gpus N]]",
        "Predicted training step of a dense or mixture-of-experts transformer: tokens/s/GPU, MFU,\n"
        "step time with its breakdown (compute, exposed communication incl. the expert all-to-all,\n"
        "pipeline bubble) and memory per GPU. Sizes left out are searched and the fastest\n"
        "configuration that fits is shown. --vs S runs the same job on system S and sets the\n"
        "end-to-end ratio beside the all-to-all-only one. Exit 3 when nothing fits (the output\n"
        "then shows the nearest miss). --target-days D: the fewest GPUs, in whole nodes or racks, that\n"
        "train --tokens within D days with failures, restarts and spares (exit 3 with the nearest miss).",
        "gpuecon train --model gpt3-175b --system hgx-h100 --gpus 128 --precision fp8 --seq 2048 --gbs 256 "
        "--tp 4 --pp 8 --vpp 12 --mbs 1"};
    int rc = opts_parse(c, argc, argv, opts, n, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    gpuecon_train_request req;
    const gpuecon_profile *prof;
    if ((rc = train_cli_request(c, &a, opts, n, &req, &prof)))
        return rc;
    if (a.plot && !a.sweep.n && !(a.target_days > 0))
        return cli_usage_error(c, "--plot", "charts a sweep or a deadline: give --sweep-gpus or --target-days too");
    if (a.target_days > 0 && (a.sweep.n || a.vs))
        return cli_usage_error(c, "--target-days", "sizes one job: leave out --sweep-gpus and --vs");
    if ((a.life_years > 0 || a.utilisation > 0 || a.workloads_per_year > 0) && !(a.rent_usd_per_gpu_hour > 0))
        return cli_usage_error(c, a.life_years > 0 ? "--life-years" : a.utilisation > 0 ? "--utilisation"
                                                                                         : "--workloads-per-year",
                               "compares owning with renting: give --rent-usd-per-gpu-hour R too");
    if (a.rent_usd_per_gpu_hour > 0 && (a.target_days > 0 || a.sweep.n || a.vs))
        return cli_usage_error(c, "--rent-usd-per-gpu-hour", "prices one job's cluster: leave out --target-days, "
                               "--sweep-gpus and --vs");
    if (a.max_gpus && !(a.target_days > 0))
        return cli_usage_error(c, "--max-gpus", "bounds the --target-days search: give --target-days too");
    if (a.sweep.n && (opt_seen(opts, n, "--tier") || opt_seen(opts, n, "--mtbi-gpu-days")))
        return cli_usage_error(c, opt_seen(opts, n, "--tier") ? "--tier" : "--mtbi-gpu-days",
                               "prices one run's failures and spares; a --sweep-gpus table has no run to price "
                               "(give --gpus N and --tokens T)");
    if (a.vs && a.sweep.n)
        return cli_usage_error(c, "--vs", "compares one job, not a sweep (leave out --sweep-gpus)");
    if (a.vs_gpus && !a.vs)
        return cli_usage_error(c, "--vs-gpus", "needs --vs S (the system to compare with)");
    calib_set set; /* and the search's MFU cap (req.rank_mfu_cap) for every form below */
    if ((rc = train_cli_calibration(c, &req, &set)))
        return rc;
    gpuecon_ctx *saved;
    if ((rc = train_cli_threads(c, a.threads, &saved))) {
        calib_set_free(&set);
        return rc;
    }
    if (req.calibration && (a.rent_usd_per_gpu_hour > 0 || a.target_days > 0 || a.sweep.n)) {
        char ucal[400]; /* these forms' outputs do not carry it: a note says the predictions use it */
        sb_printf(c->notes, "gpuecon: calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, req.calibration));
    }
    rc = a.rent_usd_per_gpu_hour > 0 ? own_rent(c, &a, &req, prof, &set)
         : a.target_days > 0         ? target(c, &a, &req, prof, &set)
         : a.sweep.n                 ? sweep(c, &a, &req, &set)
                                     : single(c, &a, &req, prof, &set);
    train_cli_threads_end(c, saved);
    calib_set_free(&set);
    return rc;
}
