/*
 * train_life.c — `gpuecon train ... --rent-usd-per-gpu-hour R`: owning the run's GPUs over the
 * cluster's life against renting them for the hours used (gpuecon_cluster_life): cost per
 * million tokens year by year and over the life, and the month from which owning wins.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <math.h>
#include <string.h>

static json_t *life_json(const gpuecon_life_result *l)
{
    json_t *j = json_object();
    json_object_set_new(j, "life_years", rjson_real(l->life_years));
    json_object_set_new(j, "utilisation", rjson_real(l->utilisation));
    json_object_set_new(j, "charged_gpus", rjson_real(l->charged_gpus));
    json_object_set_new(j, "capex_usd", rjson_real(l->capex_usd));
    json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(l->tco_usd_per_gpu_hour));
    json_object_set_new(j, "rent_usd_per_gpu_hour", rjson_real(l->rent_usd_per_gpu_hour));
    json_object_set_new(j, "own_usd_per_mtok", rjson_real(l->own_usd_per_mtok));
    json_object_set_new(j, "rent_usd_per_mtok", rjson_real(l->rent_usd_per_mtok));
    json_object_set_new(j, "tokens", rjson_real(l->tokens));
    json_object_set_new(j, "runs", rjson_real(l->runs));
    json_object_set_new(j, "breakeven_utilisation", rjson_real(l->breakeven_utilisation));
    json_object_set_new(j, "own_beats_rent_month",
                        l->own_beats_rent_month > 0 ? json_integer(l->own_beats_rent_month) : json_null());
    json_object_set_new(j, "own_pv_usd", rjson_real(l->own_pv_usd));
    json_object_set_new(j, "rent_pv_usd", rjson_real(l->rent_pv_usd));
    json_t *ys = json_array();
    for (size_t i = 0; i < l->n_years; i++)
        json_array_append_new(ys, json_pack("{s:i, s:o, s:o, s:o, s:o}", "year", l->years[i].year,
                                            "tokens_per_s_per_gpu", rjson_real(l->years[i].tokens_per_s_per_gpu),
                                            "tokens", rjson_real(l->years[i].tokens), "own_usd_per_mtok",
                                            rjson_real(l->years[i].own_usd_per_mtok), "rent_usd_per_mtok",
                                            rjson_real(l->years[i].rent_usd_per_mtok)));
    json_object_set_new(j, "years", ys);
    return j;
}

int train_life(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof)
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
    if (c->format == FMT_JSON) {
        json_t *j = json_object();
        json_object_set_new(j, "model", json_string(req->model->name));
        json_object_set_new(j, "system", json_string(req->system->name));
        json_object_set_new(j, "gpus", json_integer(req->gpus));
        json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(r.tokens_per_s_per_gpu));
        json_object_set_new(j, "life", life_json(&l));
        return cli_emit_json(c, j);
    }
    FILE *f = cli_out(c);
    if (!f)
        return EXIT_USAGE;
    fprintf(f, "%s on %d x %s (%.0f GPUs with spares), %s profile: owning for %.3g years at %.0f%% utilisation "
               "vs renting at $%.3f per GPU-hour used\n\n",
            req->model->name, req->gpus, req->system->name, l.charged_gpus, prof->name, l.life_years,
            100 * l.utilisation, l.rent_usd_per_gpu_hour);
    tbl *t = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"year", "tok/s/GPU", "tokens", "own $/Mtok", "rent $/Mtok"};
    for (size_t i = 0; i < 5; i++)
        tbl_col(t, cols[i], 'r');
    for (size_t i = 0; i < l.n_years; i++) {
        tbl_row(t);
        tbl_num(t, l.years[i].year, 0);
        tbl_num(t, l.years[i].tokens_per_s_per_gpu, 1);
        tbl_fmt(t, "%.3g", l.years[i].tokens);
        tbl_num(t, l.years[i].own_usd_per_mtok, 4);
        tbl_num(t, l.years[i].rent_usd_per_mtok, 4);
    }
    tbl_sep(t);
    tbl_row(t);
    tbl_str(t, "life");
    tbl_str(t, "");
    tbl_fmt(t, "%.3g", l.tokens);
    tbl_num(t, l.own_usd_per_mtok, 4);
    tbl_num(t, l.rent_usd_per_mtok, 4);
    tbl_print(t, f);
    tbl_free(t);
    fprintf(f, "\nowning (TCO $%.3f/GPU-h every hour) beats renting above %.0f%% utilisation; ", l.tco_usd_per_gpu_hour,
            100 * l.breakeven_utilisation);
    if (l.own_beats_rent_month > 0)
        fprintf(f, "with $%.4gM capex up front, owning has cost less than renting from month %d on (present "
                   "values at the profile's cost of capital).\n",
                l.capex_usd / 1e6, l.own_beats_rent_month);
    else
        fprintf(f, "with $%.4gM capex up front, owning never catches up within the life.\n", l.capex_usd / 1e6);
    cli_close_out(c, f);
    return EXIT_OK;
}
