/*
 * train_target.c — `gpuecon train --target-days D`: the fewest GPUs that finish the token
 * budget by the deadline, failures, restarts and spares included (gpuecon_train_target), the
 * trade between GPUs, days and dollars around the answer, and an optional chart of it.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <math.h>
#include <string.h>

static json_t *row_json(const gpuecon_target_row *r, double days)
{
    json_t *j = json_object();
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "ok", json_boolean(r->ok));
    if (!r->ok) {
        json_object_set_new(j, "why", json_string(r->why));
        return j;
    }
    json_object_set_new(j, "provisioned_gpus", json_integer(r->provisioned_gpus));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(r->tokens_per_s_per_gpu));
    json_object_set_new(j, "ettr", rjson_real(r->ettr));
    json_object_set_new(j, "days_to_train", rjson_real(r->days_to_train));
    json_object_set_new(j, "total_usd", rjson_real(r->total_usd));
    json_object_set_new(j, "energy_mwh", rjson_real(r->energy_mwh));
    json_object_set_new(j, "meets_target", json_boolean(r->days_to_train <= days));
    json_object_set_new(j, "parallelism", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "tp", r->par.tp, "pp",
                                                    r->par.pp, "cp", r->par.cp, "ep", r->par.ep, "dp", r->par.dp,
                                                    "mbs", r->par.mbs));
    return j;
}

static void plot(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_target_result *t)
{
    double x[GPUECON_TARGET_ROWS], y[GPUECON_TARGET_ROWS], y2[GPUECON_TARGET_ROWS], dx[2], dy[2];
    size_t k = 0;
    for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i].ok) {
            x[k] = t->rows[i].gpus;
            y[k] = t->rows[i].days_to_train;
            y2[k] = t->rows[i].total_usd / 1e6;
            k++;
        }
    if (k == 0)
        return;
    dx[0] = x[0];
    dx[1] = x[k - 1];
    dy[0] = dy[1] = t->target_days;
    char title[200];
    snprintf(title, sizeof title, "%s on %s, %s: GPUs, days and dollars (deadline %g days)", req->model->name,
             req->system->name, gpuecon_precision_name(req->precision), t->target_days);
    plot_series s[3] = {{"days to train", x, y, k, false}, {"deadline", dx, dy, 2, false}, {"total $M", x, y2, k, true}};
    plot_spec spec = {title, "active GPUs", "days (failures and spares included)", "$M", false, false, 0, 0};
    cli_plot(c, a->plot, &spec, s, 3, false, true);
}

static void print_table(cli *c, FILE *f, const gpuecon_target_result *t)
{
    tbl *tb = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"GPUs", "provisioned", "tp", "pp", "cp", "ep", "dp", "tok/s/GPU", "ETTR", "days", "$M",
                          "MWh", "deadline"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        tbl_col(tb, cols[i], i == 12 ? 'l' : 'r');
    for (size_t i = 0; i < t->n_rows; i++) {
        const gpuecon_target_row *r = &t->rows[i];
        tbl_row(tb);
        tbl_num(tb, r->gpus, 0);
        if (!r->ok) {
            tbl_fmt(tb, "cannot run: %.36s", r->why);
            continue;
        }
        tbl_num(tb, r->provisioned_gpus, 0);
        int v[] = {r->par.tp, r->par.pp, r->par.cp, r->par.ep, r->par.dp};
        for (int k = 0; k < 5; k++)
            tbl_num(tb, v[k], 0);
        tbl_num(tb, r->tokens_per_s_per_gpu, 1);
        tbl_pct(tb, r->ettr, 1);
        tbl_num(tb, r->days_to_train, 1);
        tbl_num(tb, r->total_usd / 1e6, 3);
        tbl_num(tb, r->energy_mwh, 0);
        tbl_str(tb, r->days_to_train <= t->target_days ? (r->gpus == t->gpus_needed ? "meets (fewest)" : "meets")
                                                       : "misses");
    }
    tbl_print(tb, f);
    tbl_free(tb);
}

int train_target(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof)
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
    if (a->plot)
        plot(c, a, req, t);
    const gpuecon_platform_result *p = &t->run;
    if (c->format == FMT_JSON) {
        json_t *j = json_object();
        json_object_set_new(j, "model", json_string(req->model->name));
        json_object_set_new(j, "system", json_string(req->system->name));
        json_object_set_new(j, "precision", json_string(gpuecon_precision_name(req->precision)));
        json_object_set_new(j, "tokens", rjson_real(a->tokens));
        json_object_set_new(j, "target_days", rjson_real(a->target_days));
        json_object_set_new(j, "met", json_boolean(t->met));
        json_object_set_new(j, "unit", json_integer(t->unit));
        json_object_set_new(j, "gpus_needed", t->met ? json_integer(t->gpus_needed) : json_null());
        if (!t->met) {
            json_object_set_new(j, "nearest_gpus", t->nearest_gpus ? json_integer(t->nearest_gpus) : json_null());
            json_object_set_new(j, "nearest_days", t->nearest_gpus ? rjson_real(t->nearest_days) : json_null());
        }
        if (t->met || t->nearest_gpus) {
            train_cli_run_json(j, p, names_tier[a->tier]);
            json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(p->tokens_per_s_per_gpu));
            json_object_set_new(j, "train", train_cli_result_json(&t->train));
        }
        json_t *rows = json_array();
        for (size_t i = 0; i < t->n_rows; i++)
            json_array_append_new(rows, row_json(&t->rows[i], t->target_days));
        json_object_set_new(j, "trade", rows);
        json_object_set_new(j, "evaluations", json_integer(t->evaluations));
        ctx_free(c->ctx, t, sizeof *t);
        rc = cli_emit_json(c, j);
        return rc ? rc : exit_code;
    }
    FILE *f = cli_out(c);
    if (!f) {
        ctx_free(c->ctx, t, sizeof *t);
        return EXIT_USAGE;
    }
    fprintf(f, "%s on %s, %s: %.4g tokens within %g days (%s tier; failures, restarts and spares included)\n",
            req->model->name, req->system->name, gpuecon_precision_name(req->precision), a->tokens, a->target_days,
            names_tier[a->tier]);
    if (t->met)
        fprintf(f, "GPUs needed  %d active (%d per domain; %d provisioned with spares): %.1f days, $%.4gM, %.0f MWh, "
                   "ETTR %.1f%%\n",
                t->gpus_needed, t->unit, p->provisioned_gpus, p->days_to_train, p->total_usd / 1e6, p->energy_mwh,
                100 * p->ettr);
    else if (t->nearest_gpus)
        fprintf(f, "no size meets it; the nearest miss is %d GPUs in %.1f days\n", t->nearest_gpus, t->nearest_days);
    else
        fprintf(f, "no size can run this job: %s\n", t->why);
    fputc('\n', f);
    print_table(c, f, t);
    ctx_free(c->ctx, t, sizeof *t);
    cli_close_out(c, f);
    return exit_code;
}
