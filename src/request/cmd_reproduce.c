/*
 * cmd_reproduce.c — `gpuecon reproduce`: every arithmetic figure of SemiAnalysis's article
 * recomputed from the catalog, with the relative error, and the source's own contradictions
 * shown as such. Exits 0 only when every consistent row is within its tolerance.
 */
#include "cli.h"

#define MAX_ROWS 96

int cmd_reproduce(cli *c, int argc, char **argv)
{
    static const cmd_usage usage = {
        "reproduce",
        "Recomputes the arithmetic figures of SemiAnalysis's \"H100 vs GB200 NVL72 Training\n"
        "Benchmarks\" (20 Aug 2025; docs/sources.md): TCO per GPU-hour, cost per 1M tokens,\n"
        "J/token, MFU, throughput and perf-per-TCO ratios, run totals. Rows where the source\n"
        "contradicts itself are flagged, not counted.",
        "gpuecon reproduce --json"};
    int rc = opts_parse(c, argc, argv, NULL, 0, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = cli_load_catalog(c)))
        return rc;
    gpuecon_repro_row rows[MAX_ROWS];
    size_t n = 0;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_reproduce(c->cat, rows, MAX_ROWS, &n, &err))
        return cli_fail(c, &err);
    int passed = 0, total = 0, flagged = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].consistent) {
            flagged++;
            continue;
        }
        total++;
        passed += rows[i].ok;
    }
    reproduce_view v = {rows, n, passed, total, flagged};
    rc = cli_render(c, &render_reproduce, &v);
    return rc ? rc : passed == total ? EXIT_OK : EXIT_INTERNAL;
}
