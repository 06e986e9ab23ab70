/*
 * cmd_cost.c — `gpuecon cost`: the economics of a measured (or assumed) throughput.
 *
 * TCO per GPU-hour comes from the profile (published when it has a value for the system,
 * derived otherwise; both are shown). Energy uses the system's PUE (SemiAnalysis's energy tables:
 * 1.3 air, 1.1 liquid) and the TCO's electricity term the profile's (1.35), as the article does;
 * --pue sets both.
 */
#include "cli.h"

#include <string.h>

static json_t *tco_json(const gpuecon_tco *t, const gpuecon_profile *p, const gpuecon_system *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "used_usd_per_gpu_hour", cli_real(t->usd_per_gpu_hour));
    json_object_set_new(j, "uses_published", json_boolean(t->uses_published));
    json_object_set_new(j, "derived_usd_per_gpu_hour", cli_real(t->derived_usd_per_gpu_hour));
    json_object_set_new(j, "published_usd_per_gpu_hour",
                        t->published_usd_per_gpu_hour > 0 ? cli_real(t->published_usd_per_gpu_hour) : json_null());
    json_object_set_new(j, "capital_usd_per_hour", cli_real(t->capital_usd_per_hour));
    json_object_set_new(j, "colo_usd_per_hour", cli_real(t->colo_usd_per_hour));
    json_object_set_new(j, "power_usd_per_hour", cli_real(t->power_usd_per_hour));
    json_object_set_new(j, "fixed_usd_per_hour", cli_real(t->fixed_usd_per_hour));
    json_object_set_new(j, "capex_usd_per_gpu", cli_real(t->capex_usd));
    json_object_set_new(j, "capital_charge_per_year", cli_real(t->capital_charge_per_year));
    json_object_set_new(j, "pue", cli_real(t->pue));
    for (size_t i = 0; i < p->n_published; i++)
        if (!strcmp(p->published_usd_per_gpu_hour[i].key, s->name))
            json_object_set_new(j, "published_source",
                                cli_source_json(p->published_usd_per_gpu_hour[i].source));
    if (t->user_price)
        json_object_set_new(j, "used_source", cli_user_price_json());
    return j;
}

int cmd_cost(cli *c, int argc, char **argv)
{
    const char *system = NULL, *profile = "hyperscaler";
    double tok_s = 0, pue = 0, tokens = 0, usd_h = 0;
    opt opts[] = {
        CLI_OPT_SYSTEM(&system),
        CLI_OPT_PROFILE(&profile),
        {"--tokens-per-s", O_DOUBLE, &tok_s, 1e-3, 1e9, NULL, "X", "throughput per GPU, tokens/s", "a throughput per GPU, tokens/s", false},
        {"--pue", O_DOUBLE, &pue, 1, 3, NULL, "F", "facility PUE (default: system's for energy, profile's for TCO)", NULL, false},
        {"--tokens", O_DOUBLE, &tokens, 1, 1e18, NULL, "N", "token budget for totals (15e12, 15T)", NULL, false},
        CLI_OPT_USD_PER_GPU_HOUR(&usd_h),
    };
    static const cmd_usage usage = {
        "cost --system S [--profile P | --usd-per-gpu-hour X] --tokens-per-s X [--pue F] [--tokens N]",
        "Cost and energy of a throughput: TCO per GPU-hour (published and derived, or your own\n"
        "rate with --usd-per-gpu-hour), $ per 1M tokens, utility J/token, tokens/s per MW, and\n"
        "with --tokens the GPU-hours, total $ and MWh of a run.",
        "gpuecon cost --system hgx-h100 --profile hyperscaler --tokens-per-s 728 --pue 1.3"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)) || (rc = cli_load_catalog(c)))
        return rc;
    const gpuecon_system *s;
    const gpuecon_profile *p;
    if ((rc = cli_system(c, "--system", system, &s)) || (rc = cli_profile(c, "--profile", profile, &p)))
        return rc;

    gpuecon_error err;
    gpuecon_error_clear(&err);
    gpuecon_tco t;
    gpuecon_cost k;
    double energy_pue = pue > 0 ? pue : s->pue;
    if (gpuecon_tco_price(p, s, pue, usd_h, &t, &err) ||
        gpuecon_cost_compute(t.usd_per_gpu_hour, s->it_w_per_gpu, energy_pue, tok_s, tokens, &k, &err))
        return cli_fail(c, &err);

    if (c->format == FMT_JSON) {
        json_t *j = json_object();
        json_object_set_new(j, "system", json_string(s->name));
        json_object_set_new(j, "profile", json_string(p->name));
        json_object_set_new(j, "tokens_per_s_per_gpu", cli_real(tok_s));
        json_object_set_new(j, "tco_usd_per_gpu_hour", cli_real(t.usd_per_gpu_hour));
        json_object_set_new(j, "usd_per_mtok", cli_real(k.usd_per_mtok));
        json_object_set_new(j, "joules_per_token", cli_real(k.joules_per_token));
        json_object_set_new(j, "it_watts_per_gpu", cli_real(k.it_watts_per_gpu));
        json_object_set_new(j, "pue", cli_real(k.pue));
        json_object_set_new(j, "tokens_per_s_per_mw", cli_real(k.tokens_per_s_per_mw));
        json_object_set_new(j, "tco", tco_json(&t, p, s));
        if (tokens > 0) {
            json_object_set_new(j, "tokens", cli_real(tokens));
            json_object_set_new(j, "gpu_hours", cli_real(k.gpu_hours));
            json_object_set_new(j, "total_usd", cli_real(k.total_usd));
            json_object_set_new(j, "energy_mwh", cli_real(k.energy_mwh));
        }
        return cli_emit_json(c, j);
    }
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");

    tbl *tb = tbl_new(c->ctx, &c->oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "how", 'l');
    tbl_row(tb);
    tbl_str(tb, "TCO per GPU-hour (used)");
    tbl_num(tb, t.usd_per_gpu_hour, 3);
    tbl_str(tb, "$/GPU-h");
    tbl_str(tb, t.user_price       ? "your rate (--usd-per-gpu-hour)"
                : t.uses_published ? "published by the profile"
                                   : "derived (no published value)");
    tbl_row(tb);
    tbl_str(tb, "  derived from capex");
    tbl_num(tb, t.derived_usd_per_gpu_hour, 3);
    tbl_str(tb, "$/GPU-h");
    tbl_fmt(tb, "capital %.3f + colo %.3f + power %.3f + fixed %.3f", t.capital_usd_per_hour,
            t.colo_usd_per_hour, t.power_usd_per_hour, t.fixed_usd_per_hour);
    tbl_row(tb);
    tbl_str(tb, "$ per 1M tokens");
    tbl_num(tb, k.usd_per_mtok, 4);
    tbl_str(tb, "$/Mtok");
    tbl_str(tb, "TCO / (tok/s x 3600) x 1e6");
    tbl_row(tb);
    tbl_str(tb, "energy per token");
    tbl_num(tb, k.joules_per_token, 3);
    tbl_str(tb, "J");
    tbl_fmt(tb, "%.0f W IT x PUE %.2f / tok/s", k.it_watts_per_gpu, k.pue);
    tbl_row(tb);
    tbl_str(tb, "tokens/s per MW of facility");
    tbl_num(tb, k.tokens_per_s_per_mw, 0);
    tbl_str(tb, "tok/s/MW");
    tbl_str(tb, "");
    if (tokens > 0) {
        char b[64];
        tbl_row(tb);
        tbl_str(tb, "tokens");
        tbl_num(tb, tokens, 0);
        tbl_str(tb, "");
        tbl_fmt(tb, "%s tokens", fmt_si(b, sizeof b, tokens, ""));
        tbl_row(tb);
        tbl_str(tb, "GPU-hours");
        tbl_num(tb, k.gpu_hours, 0);
        tbl_str(tb, "GPU-h");
        tbl_str(tb, "");
        tbl_row(tb);
        tbl_str(tb, "total cost");
        tbl_num(tb, k.total_usd, 0);
        tbl_str(tb, "$");
        tbl_fmt(tb, "$%s", fmt_si(b, sizeof b, k.total_usd, ""));
        tbl_row(tb);
        tbl_str(tb, "energy");
        tbl_num(tb, k.energy_mwh, 1);
        tbl_str(tb, "MWh");
        tbl_str(tb, "utility side");
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    fprintf(f, "%s on %s (%s x %d), %s profile, %g tokens/s/GPU\n\n", s->name, s->gpu_name,
            s->cooling, s->scaleup_gpus, p->name, tok_s);
    tbl_print(tb, f);
    return cli_table_done(c, tb, f);
}
