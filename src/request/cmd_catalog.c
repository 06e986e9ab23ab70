/*
 * cmd_catalog.c — `gpuecon catalog [gpus|systems|profiles|models|reliability|stacks|timelines|calibrations] [NAME]`.
 *
 * Lists entries with their key specifications and where each number comes from (render/catalog.c).
 */
#include "cli.h"

#include <string.h>

/* The fields of one entry (its kind's name or a near one; exit 2 otherwise). */
static int one_entry(cli *c, gpuecon_kind k, const char *name)
{
    const void *obj;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_catalog_find(c->cat, k, name, "catalog", &obj, &err))
        return cli_fail(c, &err);
    size_t idx = 0;
    while (gpuecon_catalog_at(c->cat, k, idx) != obj)
        idx++;
    catalog_view v = {c->cat, k, k, idx};
    return cli_render(c, &render_catalog_entry, &v);
}

int cmd_catalog(cli *c, int argc, char **argv)
{
    static const cmd_usage usage = {
        "catalog [gpus|systems|profiles|models|reliability|stacks|timelines] [NAME]",
        "Lists the catalog (built-in, plus --catalog DIR and --model-file FILE) with key\n"
        "specifications and the source and stage of every number. With NAME, every field of\n"
        "one entry.",
        "gpuecon catalog systems --json"};
    const char *pos[2];
    int npos = 0;
    int rc = opts_parse(c, argc, argv, NULL, 0, &usage, pos, 2, &npos);
    if (rc)
        return rc;
    if ((rc = cli_load_catalog(c)))
        return rc;
    int first = 0, last = GPUECON_KIND_COUNT - 1;
    if (npos >= 1) {
        int k = 0;
        while (catalog_kind_names[k] && strcmp(catalog_kind_names[k], pos[0]))
            k++;
        if (!catalog_kind_names[k]) {
            const char *near = gpuecon_suggest(pos[0], catalog_kind_names, GPUECON_KIND_COUNT);
            return cli_usage_error(c, pos[0], "not a catalog kind%s%s%s (allowed: gpus, systems, profiles, "
                                           "models, reliability, stacks, timelines, calibrations)",
                                   near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
        first = last = k;
    }
    if (npos == 2)
        return one_entry(c, (gpuecon_kind)first, pos[1]);
    if (c->format == FMT_CSV && first != last)
        return cli_usage_error(c, "--csv", "needs one kind, e.g. gpuecon catalog gpus --csv");
    catalog_view v = {c->cat, (gpuecon_kind)first, (gpuecon_kind)last, 0};
    return cli_render(c, &render_catalog_list, &v);
}
