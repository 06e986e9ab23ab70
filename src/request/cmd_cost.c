/*
 * cmd_cost.c — `gpuecon cost`: the economics of a measured (or assumed) throughput.
 *
 * TCO per GPU-hour comes from the profile (published when it has a value for the system,
 * derived otherwise; both are shown). Energy uses the system's PUE (SemiAnalysis's energy tables:
 * 1.3 air, 1.1 liquid) and the TCO's electricity term the profile's (1.35), as the article does;
 * --pue sets both.
 */
#include "cli.h"

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

    cost_view v = {s, p, tok_s, tokens, t, k};
    return cli_render(c, &render_cost, &v);
}
