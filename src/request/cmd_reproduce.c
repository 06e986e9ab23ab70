/*
 * cmd_reproduce.c — `gpuecon reproduce`: every arithmetic figure of SemiAnalysis's article
 * recomputed from the catalog, with the relative error, and the source's own contradictions
 * shown as such. Exits 0 only when every consistent row is within its tolerance.
 */
#include "cli.h"

#include <math.h>

#define MAX_ROWS 96

static void num(tbl *t, double v)
{
    double a = fabs(v);
    if (a >= 1e5)
        tbl_num(t, v, 0);
    else if (a >= 100)
        tbl_num(t, v, 1);
    else if (a >= 1)
        tbl_num(t, v, 3);
    else
        tbl_num(t, v, 4);
}

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
    int exit_code = passed == total ? EXIT_OK : EXIT_INTERNAL;

    if (c->format == FMT_JSON) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++) {
            const gpuecon_repro_row *r = &rows[i];
            json_t *o = json_object();
            json_object_set_new(o, "id", json_string(r->id));
            json_object_set_new(o, "source", json_string(r->source));
            json_object_set_new(o, "what", json_string(r->what));
            json_object_set_new(o, "published", rjson_real(r->published));
            json_object_set_new(o, "computed", rjson_real(r->computed));
            json_object_set_new(o, "rel_err", rjson_real(r->rel_err));
            json_object_set_new(o, "tolerance", rjson_real(r->tolerance));
            json_object_set_new(o, "consistent", json_boolean(r->consistent));
            json_object_set_new(o, "ok", json_boolean(r->ok));
            json_object_set_new(o, "note", json_string(r->note));
            json_array_append_new(arr, o);
        }
        json_t *j = json_pack("{s:o, s:i, s:i, s:i}", "rows", arr, "passed", passed, "total", total,
                              "flagged", flagged);
        rc = cli_emit_json(c, j);
        return rc ? rc : exit_code;
    }
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    tbl *t = tbl_new(c->ctx, &c->oom);
    tbl_col(t, "id", 'l');
    tbl_col(t, "figure", 'l');
    tbl_col(t, "published", 'r');
    tbl_col(t, "computed", 'r');
    tbl_col(t, "error", 'r');
    tbl_col(t, "ok", 'l');
    for (size_t i = 0; i < n; i++) {
        const gpuecon_repro_row *r = &rows[i];
        tbl_row(t);
        tbl_str(t, r->id);
        tbl_str(t, r->what);
        num(t, r->published);
        num(t, r->computed);
        tbl_fmt(t, "%+.2f%%", r->rel_err * 100);
        tbl_str(t, !r->consistent ? "source inconsistent" : r->ok ? "ok" : "FAIL");
    }
    FILE *f = cli_out(c);
    if (!f) {
        tbl_free(t);
        return EXIT_USAGE;
    }
    if (c->format == FMT_CSV) {
        tbl_csv(t, f);
    } else {
        fprintf(f, "Published figures recomputed from the catalog (%s; docs/sources.md)\n\n",
                n ? rows[0].source : "");
        tbl_print(t, f);
        fprintf(f, "\n%d of %d consistent rows within tolerance (1%% unless noted); %d figures where "
                   "the source contradicts itself:\n",
                passed, total, flagged);
        for (size_t i = 0; i < n; i++)
            if (!rows[i].consistent)
                fprintf(f, "  %s: %s\n", rows[i].id, rows[i].note);
    }
    tbl_free(t);
    cli_close_out(c, f);
    return exit_code;
}
