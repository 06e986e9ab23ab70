/*
 * cmd_compare.c — `gpuecon compare [SCENARIO.yaml]`: the main job. Platforms side by side
 * for each workload of a scenario, with reliability, energy, the verdict, what would change
 * it (break-even and sensitivity) and the provenance of every input the verdict rests on.
 * Terminal tables by default; --json, --csv, and --format html -o report.html (render/compare.c,
 * render/report.c).
 */
#include "cli.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* compare --trade --plot: days (left) and $M (right) by GPUs for each platform of the first
 * training comparison, with its deadline and budget drawn. */
static void trade_plot(cli *c, const char *path, const gpuecon_scenario *sc, const gpuecon_compare_result *r)
{
    for (size_t k = 0; k < r->n; k++) {
        const gpuecon_comparison_result *cr = &r->cmp[k];
        const gpuecon_workload *w = &gpuecon_scenario_at(sc, k)->workload;
        if (cr->kind != GPUECON_WORKLOAD_TRAIN)
            continue;
        enum { MAXS = 2 * 16 + 2 };
        double x[MAXS][GPUECON_TARGET_ROWS], y[MAXS][GPUECON_TARGET_ROWS];
        plot_series s[MAXS];
        char names[MAXS][96];
        size_t ns = 0;
        double xmin = INFINITY, xmax = 0;
        for (size_t i = 0; i < cr->n_platforms && ns + 2 <= 32; i++) {
            const gpuecon_platform_result *p = &cr->platforms[i];
            size_t n = 0;
            for (size_t j = 0; j < p->n_trade; j++)
                if (p->trade[j].ok) {
                    x[ns][n] = x[ns + 1][n] = p->trade[j].gpus;
                    y[ns][n] = p->trade[j].days_to_train;
                    y[ns + 1][n] = p->trade[j].total_usd / 1e6;
                    xmin = fmin(xmin, p->trade[j].gpus);
                    xmax = fmax(xmax, p->trade[j].gpus);
                    n++;
                }
            if (!n)
                continue;
            snprintf(names[ns], sizeof names[ns], "%s days", p->name);
            snprintf(names[ns + 1], sizeof names[ns + 1], "%s $M", p->name);
            s[ns] = (plot_series){names[ns], x[ns], y[ns], n, false};
            s[ns + 1] = (plot_series){names[ns + 1], x[ns + 1], y[ns + 1], n, true};
            ns += 2;
        }
        if (!ns)
            return;
        if (w->target_days > 0) {
            x[ns][0] = xmin, x[ns][1] = xmax, y[ns][0] = y[ns][1] = w->target_days;
            s[ns] = (plot_series){"deadline (days)", x[ns], y[ns], 2, false};
            ns++;
        }
        if (w->budget_usd > 0) {
            x[ns][0] = xmin, x[ns][1] = xmax, y[ns][0] = y[ns][1] = w->budget_usd / 1e6;
            s[ns] = (plot_series){"budget ($M)", x[ns], y[ns], 2, true};
            ns++;
        }
        plot_spec spec = {cr->title ? cr->title : cr->name, "active GPUs", "days to train (failures and spares included)",
                          "total $M", true, false, 0, 0};
        cli_plot(c, path, &spec, s, ns, false, true);
        return;
    }
}

int cmd_compare(cli *c, int argc, char **argv)
{
    int trials = 0, seed = -1, unc = 0;
    bool no_sens = false, trade = false, summary = false;
    const char *doc = NULL, *stack = NULL, *plot = NULL;
    opt opts[] = {
        {"--stack", O_STR, &stack, 0, 0, NULL, "NAME",
         "framework stack of platforms whose scenario names none (default " CLI_DEFAULT_STACK ")", NULL, false},
        {"--scenario", O_STR, &doc, 0, 0, NULL, "YAML", "the scenario document itself instead of a file (requests: text or a JSON object)", NULL, false},
        {"--trials", O_INT, &trials, 0, 1000000, NULL, "T", "Monte Carlo trials per training platform (0: analytic)", NULL, false},
        CLI_OPT_SEED(&seed),
        {"--uncertainty", O_INT, &unc, 0, 1000000, NULL, "N",
         "sample every uncertain input together N times: probability each platform is cheapest, P10/P50/P90 of "
         "its effective $/Mtok (seeded by --seed)", NULL, false},
        {"--no-sensitivity", O_FLAG, &no_sens, 0, 0, NULL, NULL, "skip break-even and sensitivity", NULL, false},
        {"--summary", O_FLAG, &summary, 0, 0, NULL, NULL,
         "print only the first screen: per comparison the cheapest, by how much, what would flip it (JSON: the "
         "whole document, whose \"summary\" array has the same fields)", NULL, false},
        {"--trade", O_FLAG, &trade, 0, 0, NULL, NULL,
         "training: each platform also at the sizes around its own (GPUs, days, dollars)", NULL, false},
        {"--plot", O_PATH, &plot, 0, 0, NULL, "FILE.svg", "with --trade: chart of days and dollars by GPUs "
         "(first training comparison; deadline and budget drawn; needs gnuplot)", NULL, false},
    };
    static const cmd_usage usage = {
        "compare [SCENARIO.yaml] [--format table|json|csv|html] [-o FILE] [--trials T] [--uncertainty N]",
        "Compares platforms end to end for each workload of a scenario (default: the built-in\n"
        "one from the seed documents): throughput, $ per 1M tokens, J/token, goodput under\n"
        "failures and spares, days, total $ and MWh; the verdict, the break-even value of each\n"
        "uncertain input, a sensitivity table, and the provenance of what the verdict rests on.\n"
        "Scenario format: docs/scenarios.md.",
        "gpuecon compare data/scenarios/default.yaml --format html -o report.html"};
    const char *pos[1];
    int npos = 0;
    int rc = opts_parse(c, argc, argv, opts, sizeof opts / sizeof opts[0], &usage, pos, 1, &npos);
    if (rc)
        return rc;
    if ((rc = cli_load_catalog(c)))
        return rc;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    if (seed >= 0)
        cfg.seed = (uint64_t)seed;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    if (!ctx)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_scenario *sc = NULL;
    gpuecon_compare_result *r = NULL;
    double t0 = cli_now_s(c);
    gpuecon_compare_options o = {
        .trials = trials, .no_sensitivity = no_sens, .stack = stack, .trade = trade, .uncertainty = unc};
    if (plot && !trade) {
        gpuecon_ctx_free(ctx);
        return cli_usage_error(c, "--plot", "charts the trade: give --trade too");
    }
    if (doc && npos) {
        gpuecon_ctx_free(ctx);
        return cli_usage_error(c, "--scenario", "give the scenario inline or as a file, not both");
    }
    if (doc && !strpbrk(doc, ":\n{") && access(doc, F_OK) == 0) { /* a path given where the text goes */
        gpuecon_ctx_free(ctx);
        return cli_usage_error(c, "--scenario", "takes the scenario document itself; '%s' is a file: "
                               "give it as 'gpuecon compare %s'", doc, doc);
    }
    int lrc = doc ? gpuecon_scenario_load_buffer(ctx, c->cat, "scenario", doc, strlen(doc), &sc, &err)
                  : c->cat_borrowed ? gpuecon_scenario_load(ctx, c->cat, npos ? pos[0] : NULL, &sc, &err)
                                    : gpuecon_scenario_load_with_models(ctx, c->cat, npos ? pos[0] : NULL, &sc, &err);
    /* the training calibration set: each searched layout ranked at its MFU cap and set against the
     * set (docs/model.md §3.5); the results keep their matches, the set goes after the comparison */
    calib_set set = {0};
    if (!lrc && (lrc = calib_set_build(ctx, c->cat, &set, &err)) == GPUECON_OK)
        o.calib = &set;
    if (lrc || gpuecon_compare(ctx, c->cat, sc, &o, &r, &err)) {
        calib_set_free(&set);
        gpuecon_scenario_free(sc);
        gpuecon_ctx_free(ctx);
        return cli_fail(c, &err);
    }
    calib_set_free(&set);
    double elapsed = cli_now_s(c) - t0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->cmp[i].n_platforms; j++)
            cli_spell_platform(c, &r->cmp[i].platforms[j]);
    if (plot)
        trade_plot(c, plot, sc, r);
    size_t unranked = 0; /* comparisons where no platform is feasible: exit 3 (README) */
    for (size_t i = 0; i < r->n; i++)
        unranked += r->cmp[i].cheapest < 0;
    compare_view v = {sc, r, elapsed, summary};
    rc = cli_render(c, &render_compare, &v);
    for (size_t i = 0; i < r->n && rc == EXIT_OK; i++)
        if (r->cmp[i].cheapest < 0)
            rc = cli_error(c, GPUECON_E_INFEASIBLE, r->cmp[i].name, "no platform is feasible (%zu of %zu "
                           "comparisons have one)", r->n - unranked, r->n);
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
    return rc;
}
