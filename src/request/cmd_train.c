/*
 * cmd_train.c — `gpuecon train`: the predicted training step of one job (omitted parallel
 * sizes are searched), with the breakdown of step time and memory, the cost of a run with
 * --profile/--tokens, and scaling sweeps over GPU counts (--sweep-gpus, weak by default:
 * the batch per GPU stays; --strong keeps the global batch) with an optional chart.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <math.h>
#include <string.h>

/* The cost of the run: raw figures at full goodput (usd_per_mtok, joules_per_token), and the
 * totals with the reliability model's goodput and spares, as compare reports them. */
static json_t *cost_json(const gpuecon_cost *k, double usd_h, const gpuecon_platform_result *run)
{
    json_t *j = json_object();
    json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(usd_h));
    json_object_set_new(j, "usd_per_mtok", rjson_real(k->usd_per_mtok));
    json_object_set_new(j, "effective_usd_per_mtok", rjson_real(run->effective_usd_per_mtok));
    json_object_set_new(j, "joules_per_token", rjson_real(k->joules_per_token));
    json_object_set_new(j, "pue", rjson_real(k->pue));
    json_object_set_new(j, "ettr", rjson_real(run->ettr));
    if (k->tokens > 0) {
        json_object_set_new(j, "tokens", rjson_real(k->tokens));
        /* GPU-hours the job pays for: charged GPUs (spares included when charged) over the days */
        json_object_set_new(j, "gpu_hours", rjson_real(run->charged_gpus * run->days_to_train * 24));
        json_object_set_new(j, "total_usd", rjson_real(run->total_usd));
        json_object_set_new(j, "energy_mwh", rjson_real(run->energy_mwh));
        json_object_set_new(j, "total_usd_at_full_goodput", rjson_real(k->total_usd));
    }
    return j;
}

static int predict(cli *c, const gpuecon_train_request *req, gpuecon_train_result *r, bool *infeasible)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_train_predict(c->ctx, req, r, &err);
    *infeasible = rc == GPUECON_E_INFEASIBLE;
    if (rc && !*infeasible)
        return cli_fail(c, &err);
    if (*infeasible)
        cli_fail(c, &err);
    return 0;
}

static int single(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof)
{
    gpuecon_train_result r;
    bool infeasible;
    int rc = predict(c, req, &r, &infeasible);
    if (rc)
        return rc;
    int exit_code = infeasible ? EXIT_INFEASIBLE : EXIT_OK;
    gpuecon_cost k = {0};
    double usd_h = 0;
    if (prof && !infeasible && (rc = train_cli_cost(c, req, prof, a->pue, a->usd_per_gpu_hour, a->tokens, r.tokens_per_s_per_gpu, &k, &usd_h)))
        return rc;
    /* the run as compare costs it: goodput under failures, spares, days, dollars, MWh */
    gpuecon_platform_result run;
    memset(&run, 0, sizeof run);
    bool run_ok = false; /* the run's figures exist (no NaN reaches the output) */
    if (prof && !infeasible) {
        gpuecon_run_request rq;
        train_cli_run_request(a, req, prof, r.tokens_per_s_per_gpu, &rq);
        gpuecon_error err;
        gpuecon_error_clear(&err);
        int rrc = gpuecon_run_cost(c->ctx, c->cat, &rq, &run, &err);
        if (rrc == GPUECON_E_INFEASIBLE)
            exit_code = EXIT_INFEASIBLE;
        if (rrc && rrc != GPUECON_E_INFEASIBLE)
            return cli_fail(c, &err);
        if (rrc)
            cli_fail(c, &err);
        run_ok = rrc == GPUECON_OK;
    }
    double days = a->tokens > 0 ? run.days_to_train : 0;
    if (c->format == FMT_JSON) {
        json_t *j = train_cli_result_json(&r);
        json_object_set_new(j, "model", json_string(req->model->name));
        json_object_set_new(j, "system", json_string(req->system->name));
        json_object_set_new(j, "gpus", json_integer(req->gpus));
        json_object_set_new(j, "precision", json_string(gpuecon_precision_name(req->precision)));
        json_object_set_new(j, "seq", json_integer(req->seq));
        json_object_set_new(j, "gbs", json_integer(req->gbs));
        if (req->stack)
            json_object_set_new(j, "stack", json_string(req->stack->name));
        if (prof && !infeasible) {
            json_t *cj = cost_json(&k, usd_h, &run);
            if (a->usd_per_gpu_hour > 0)
                json_object_set_new(cj, "tco_source", rjson_user_price());
            if (days > 0)
                json_object_set_new(cj, "days", rjson_real(days));
            json_object_set_new(j, "cost", cj);
            train_cli_run_json(j, &run, names_tier[a->tier]);
        }
        if (a->vs && (rc = train_vs(c, a, req, &r, j, NULL))) {
            json_decref(j);
            return rc;
        }
        rc = cli_emit_json(c, j);
        return rc ? rc : exit_code;
    }
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    FILE *f = cli_out(c);
    if (!f)
        return EXIT_USAGE;
    char cfg[128];
    train_cli_config(&r.par, cfg, sizeof cfg);
    if (c->format == FMT_CSV) {
        fprintf(f, "tokens_per_s_per_gpu,mfu,step_time_s,memory_gib_per_gpu,fits,tp,cp,pp,vpp,dp,mbs,recompute,zero,"
                   "tp_overlap\n%.6g,%.6g,%.6g,%.6g,%s,%d,%d,%d,%d,%d,%d,%s,%d,%d\n",
                r.tokens_per_s_per_gpu, r.mfu, r.step_time_s, r.memory_gib_per_gpu, r.fits ? "true" : "false",
                r.par.tp, r.par.cp, r.par.pp, r.par.vpp, r.par.dp, r.par.mbs, gpuecon_parallel_recompute_name(&r.par),
                r.par.zero, r.par.tp_overlap);
        cli_close_out(c, f);
        return exit_code;
    }
    fprintf(f, "%s on %d x %s (%s), %s, seq %d, global batch %d\n", req->model->name, req->gpus, req->system->name,
            req->system->gpu_name, gpuecon_precision_name(req->precision), req->seq, req->gbs);
    if (req->stack)
        fprintf(f, "stack: %s (%s)\n", req->stack->name, req->stack->framework);
    fprintf(f, "parallelism: %s, %d micro-batches, %s recompute, ZeRO-%d%s%s\n\n", cfg, r.par.microbatches,
            gpuecon_parallel_recompute_name(&r.par), r.par.zero, r.par.sequence_parallel ? ", SP" : "",
            r.par.tp_overlap ? ", TP overlap" : "");
    fprintf(f, "throughput   %.1f tokens/s/GPU (%.4g tokens/s in all)\n", r.tokens_per_s_per_gpu,
            r.tokens_per_s_per_gpu * req->gpus);
    fprintf(f, "MFU          %.1f%% (full-attention model FLOPs vs %s peak; %.1f%% counting causal attention)\n",
            100 * r.mfu, gpuecon_precision_name(req->precision), 100 * r.mfu_causal);
    fprintf(f, "step time    %.3f s\n\n", r.step_time_s);
    train_cli_print_result(c, f, &r);
    if (prof && !infeasible) {
        fprintf(f, "\ncost (%s): $%.3f per GPU-hour, $%.4f per 1M tokens, %.2f J/token",
                a->usd_per_gpu_hour > 0 ? "your rate, --usd-per-gpu-hour" : prof->name, usd_h,
                k.usd_per_mtok, k.joules_per_token);
        if (run_ok)
            fprintf(f, "\nreliability (%s tier, MTBI %.0f GPU-days): ETTR %.1f%%, %d spare GPU%s %s; effective $%.4f "
                   "per 1M tokens", names_tier[a->tier], run.mtbi_gpu_days, 100 * run.ettr,
                run.provisioned_gpus - run.gpus, run.provisioned_gpus - run.gpus == 1 ? "" : "s",
                run.spares_charged ? "charged to the job" : "earning other work", run.effective_usd_per_mtok);
        if (run_ok && a->tokens > 0)
            fprintf(f, "\n%.4g tokens: %.1f days, $%.4g, %.4g GPU-hours, %.1f MWh (failures, restarts and spares "
                       "included)", a->tokens, days, run.total_usd, run.charged_gpus * run.days_to_train * 24,
                    run.energy_mwh);
        if (run_ok && run.timeline) {
            fprintf(f, "\nfrom %s at the catalog's published software dates: %.1f tokens/s/GPU over the run "
                       "(the prediction before the first point); points used:", a->start_date, run.tokens_per_s_per_gpu);
            for (size_t i = 0; i < run.n_points_used; i++)
                fprintf(f, "%s %s %.0f (%s)", i ? "," : "", run.points_used[i].date,
                        run.points_used[i].tokens_per_s_per_gpu, gpuecon_stage_name(run.points_used[i].source.stage));
            if (!run.n_points_used)
                fprintf(f, " none (the run ends before the first)");
            if (run.uses_projection)
                fprintf(f, "\nthis result rests on a projection");
        }
        fputc('\n', f);
    }
    if (a->vs && (rc = train_vs(c, a, req, &r, NULL, f))) {
        cli_close_out(c, f);
        return rc;
    }
    cli_close_out(c, f);
    return exit_code;
}

typedef struct sweep_row {
    int gpus, gbs;
    bool ok, fits;
    gpuecon_train_result r;
} sweep_row;

static void sweep_plot(cli *c, const train_args *a, const gpuecon_train_request *req, const sweep_row *rows, int n)
{
    double x[64], y[64], y2[64];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].ok) {
            x[k] = rows[i].gpus;
            y[k] = rows[i].r.tokens_per_s_per_gpu;
            y2[k] = 100 * rows[i].r.mfu;
            k++;
        }
    char title[200];
    snprintf(title, sizeof title, "%s on %s, %s, %s scaling", req->model->name, req->system->name,
             gpuecon_precision_name(req->precision), a->strong ? "strong" : "weak");
    plot_series s[2] = {{"tokens/s/GPU", x, y, (size_t)k, false}, {"MFU (%)", x, y2, (size_t)k, true}};
    plot_spec spec = {title, "GPUs", "tokens/s per GPU", "MFU (%)", true, false, 0, 0};
    cli_plot(c, a->plot, &spec, s, 2, false, c->format == FMT_TABLE);
}

static int sweep_table(cli *c, const train_args *a, const gpuecon_train_request *req, const sweep_row *rows, int n)
{
    tbl *t = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"GPUs", "gbs", "tp", "cp", "pp", "vpp", "dp", "mbs", "tok/s/GPU", "MFU", "step s",
                          "exposed comm s", "bubble s", "GiB/GPU", "fits"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        tbl_col(t, cols[i], i == 14 ? 'l' : 'r');
    for (int i = 0; i < n; i++) {
        const gpuecon_train_result *r = &rows[i].r;
        const gpuecon_train_breakdown *b = &r->bd;
        tbl_row(t);
        tbl_num(t, rows[i].gpus, 0);
        tbl_num(t, rows[i].gbs, 0);
        int v[] = {r->par.tp, r->par.cp, r->par.pp, r->par.vpp, r->par.dp, r->par.mbs};
        for (int k = 0; k < 6; k++)
            tbl_num(t, v[k], 0);
        tbl_num(t, r->tokens_per_s_per_gpu, 1);
        tbl_pct(t, r->mfu, 1);
        tbl_num(t, r->step_time_s, 3);
        tbl_num(t, b->tp_comm_s + b->cp_comm_s + b->pp_comm_s + b->dp_comm_s, 3);
        tbl_num(t, b->pp_bubble_s, 3);
        tbl_num(t, r->memory_gib_per_gpu, 1);
        tbl_str(t, rows[i].fits ? "yes" : "NO");
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, t, &f);
    if (!f)
        return done;
    fprintf(f, "%s on %s, %s, seq %d, %s scaling (%s)\n\n", req->model->name, req->system->name,
            gpuecon_precision_name(req->precision), req->seq, a->strong ? "strong" : "weak",
            a->strong ? "global batch fixed" : "batch per GPU fixed");
    tbl_print(t, f);
    if (n >= 2 && rows[0].ok && rows[n - 1].ok)
        fprintf(f, "\n%d -> %d GPUs: tokens/s/GPU %+.1f%%, MFU %.1f%% -> %.1f%%\n", rows[0].gpus,
                rows[n - 1].gpus, 100 * (rows[n - 1].r.tokens_per_s_per_gpu / rows[0].r.tokens_per_s_per_gpu - 1),
                100 * rows[0].r.mfu, 100 * rows[n - 1].r.mfu);
    return cli_table_done(c, t, f);
}

static int sweep(cli *c, const train_args *a, gpuecon_train_request *req)
{
    int n = a->sweep.n, base = a->gpus > 0 ? a->gpus : a->sweep.v[0];
    sweep_row rows[64];
    int worst = EXIT_OK;
    for (int i = 0; i < n; i++) {
        sweep_row *w = &rows[i];
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
            if (!w->ok)
                worst = EXIT_INFEASIBLE;
        } else { /* one message: "--sweep-gpus: 1 GPUs: --gpus: ..." */
            gpuecon_error e = err;
            snprintf(e.where, sizeof e.where, "--sweep-gpus");
            snprintf(e.message, sizeof e.message, "%d GPUs: %.100s%s%.380s", w->gpus, err.where,
                     err.where[0] ? ": " : "", err.message);
            return cli_fail(c, &e);
        }
    }
    int misses = 0;
    for (int i = 0; i < n; i++)
        misses += !rows[i].ok;
    if (misses) /* exit 3 says why on stderr too */
        cli_error(c, GPUECON_E_INFEASIBLE, "--sweep-gpus", "%d of the %d sizes do not fit in memory (fits: NO)",
                  misses, n);
    if (a->plot)
        sweep_plot(c, a, req, rows, n);
    if (c->format == FMT_JSON) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++) {
            json_t *j = train_cli_result_json(&rows[i].r);
            json_object_set_new(j, "gpus", json_integer(rows[i].gpus));
            json_object_set_new(j, "gbs", json_integer(rows[i].gbs));
            json_array_append_new(arr, j);
        }
        json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:o}", "model", req->model->name, "system", req->system->name,
                                 "precision", gpuecon_precision_name(req->precision), "scaling",
                                 a->strong ? "strong" : "weak", "rows", arr);
        int rc = cli_emit_json(c, root);
        return rc ? rc : worst;
    }
    int rc = sweep_table(c, a, req, rows, n);
    return rc ? rc : worst;
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
    if (a.vs && a.sweep.n)
        return cli_usage_error(c, "--vs", "compares one job, not a sweep (leave out --sweep-gpus)");
    if (a.vs_gpus && !a.vs)
        return cli_usage_error(c, "--vs-gpus", "needs --vs S (the system to compare with)");
    if (a.threads > 0) {
        gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
        cfg.threads = a.threads;
        gpuecon_ctx *nc = gpuecon_ctx_new(&cfg);
        if (!nc)
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
        gpuecon_ctx *old = c->ctx;
        c->ctx = nc;
        rc = a.rent_usd_per_gpu_hour > 0 ? train_life(c, &a, &req, prof)
             : a.target_days > 0 ? train_target(c, &a, &req, prof)
             : a.sweep.n       ? sweep(c, &a, &req)
                               : single(c, &a, &req, prof);
        c->ctx = old;
        gpuecon_ctx_free(nc);
        return rc;
    }
    if (a.rent_usd_per_gpu_hour > 0)
        return train_life(c, &a, &req, prof);
    if (a.target_days > 0)
        return train_target(c, &a, &req, prof);
    return a.sweep.n ? sweep(c, &a, &req) : single(c, &a, &req, prof);
}
