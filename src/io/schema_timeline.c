/*
 * schema_timeline.c — throughput timelines: the dated points a scenario platform or a catalog
 * entry of data/timelines.yaml gives (one reader for both, so the two accept and refuse the
 * same text), and the field table of the catalog kind (a system x model x precision with its
 * points, docs/catalog.md "Throughput timelines").
 *
 * A point is {date, tokens_per_s_per_gpu, stage, source}: an ISO date (YYYY-MM is the month's
 * first day), a throughput in force from that date on, and its own provenance (a projection
 * stays a projection). Points come oldest first, each date once.
 */
#include "io/io.h"
#include "schema.h"
#include "model/names.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int schema_date(const yaml_doc *doc, ynode *v, const char *field, char *text, long *day, gpuecon_error *err)
{
    char buf[32] = "";
    if (!v || !yaml_scalar_copy(v, buf, sizeof buf) || !gpuecon_date_parse(buf, day))
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "%s: '%s' is not an ISO date (allowed: YYYY-MM or YYYY-MM-DD, e.g. 2025-05 or "
                          "2025-07-15)", field, buf);
    snprintf(text, 11, "%.10s", buf);
    return GPUECON_OK;
}

static int point_keys(const yaml_doc *doc, ynode *pn, gpuecon_error *err)
{
    static const char *const keys[] = {"date", "tokens_per_s_per_gpu", "stage", "source"};
    for (size_t i = 0; i < yaml_map_len(pn); i++) {
        char key[64];
        ynode *k = yaml_map_key(pn, i);
        if (!yaml_scalar_copy(k, key, sizeof key))
            return yaml_error(doc, k, err, GPUECON_E_PARSE, "keys must be short names");
        size_t j = 0;
        while (j < 4 && strcmp(keys[j], key))
            j++;
        if (j == 4) {
            const char *near = gpuecon_suggest(key, keys, 4);
            return yaml_error(doc, k, err, GPUECON_E_PARSE,
                              "unknown field '%s' of a timeline point%s%s%s (allowed: date, tokens_per_s_per_gpu, "
                              "stage, source)", key, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
    }
    return GPUECON_OK;
}

static int load_point(arena *a, const yaml_doc *doc, ynode *pn, gpuecon_source defsrc, gpuecon_timeline_point *pt,
                      gpuecon_error *err)
{
    if (yaml_type(pn) != Y_MAP)
        return yaml_error(doc, pn, err, GPUECON_E_PARSE,
                          "a timeline point is a mapping {date, tokens_per_s_per_gpu, stage, source}");
    int rc = point_keys(doc, pn, err);
    if (rc)
        return rc;
    ynode *d = yaml_map_get(pn, "date"), *t = yaml_map_get(pn, "tokens_per_s_per_gpu");
    if (!d || !t)
        return yaml_error(doc, pn, err, GPUECON_E_PARSE, "a timeline point needs 'date:' and 'tokens_per_s_per_gpu:'");
    if ((rc = schema_date(doc, d, "date", pt->date, &pt->day, err)))
        return rc;
    char buf[64] = "", *end;
    if (!yaml_scalar_copy(t, buf, sizeof buf) || !((pt->tokens_per_s_per_gpu = strtod(buf, &end)) > 0) || *end ||
        pt->tokens_per_s_per_gpu > 1e9)
        return yaml_error(doc, t, err, GPUECON_E_INPUT,
                          "tokens_per_s_per_gpu: '%s' must be a number above 0 (at most 1e9)", buf);
    pt->source = defsrc;
    ynode *st = yaml_map_get(pn, "stage"), *so = yaml_map_get(pn, "source");
    if (st && (!yaml_scalar_copy(st, buf, sizeof buf) || !schema_stage_parse(buf, &pt->source.stage)))
        return yaml_error(doc, st, err, GPUECON_E_INPUT,
                          "stage: '%s' is not allowed (allowed: datasheet, measured, publisher-reported, "
                          "projection, assumption, derived, fitted)", buf);
    if (so) {
        size_t len;
        const char *txt = yaml_scalar(so, &len);
        if (!txt || len > 512 || !(pt->source.text = arena_strndup(a, txt, len)))
            return yaml_error(doc, so, err, txt && len <= 512 ? GPUECON_E_NOMEM : GPUECON_E_PARSE,
                              txt && len <= 512 ? "out of memory" : "source: expected text (at most 512 bytes)");
    }
    return GPUECON_OK;
}

int schema_timeline_points(arena *a, const yaml_doc *doc, ynode *tl, const char *field, gpuecon_source defsrc,
                           gpuecon_timeline_point **out, size_t *nout, gpuecon_error *err)
{
    size_t n = yaml_type(tl) == Y_SEQ ? yaml_seq_len(tl) : 0;
    if (n < 1 || n > GPUECON_TIMELINE_MAX)
        return yaml_error(doc, tl, err, GPUECON_E_PARSE, "%s: a list of 1 to %d dated points", field,
                          GPUECON_TIMELINE_MAX);
    gpuecon_timeline_point *pts = arena_alloc(a, n * sizeof *pts);
    if (!pts)
        return yaml_error(doc, tl, err, GPUECON_E_NOMEM, "out of memory");
    void *it = NULL;
    for (size_t i = 0; i < n; i++) {
        ynode *pt = yaml_seq_next(tl, &it);
        int rc = load_point(a, doc, pt, defsrc, &pts[i], err);
        if (rc)
            return rc;
        if (i > 0 && pts[i].day <= pts[i - 1].day)
            return yaml_error(doc, yaml_map_get(pt, "date"), err, GPUECON_E_INPUT,
                              "%s: %s %s the previous point's %s; give the points once each, oldest first", field,
                              pts[i].date, pts[i].day == pts[i - 1].day ? "repeats" : "comes before", pts[i - 1].date);
    }
    *out = pts;
    *nout = n;
    return GPUECON_OK;
}

/* ---- the catalog kind (data/timelines.yaml) --------------------------------------------- */


#define T(f) offsetof(gpuecon_timeline, f)
static const fdesc timeline_fields[] = {
    {"name", FT_TEXT, T(name), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "catalog name", NULL},
    {"system", FT_TEXT, T(system), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "system (a name in systems.yaml)", NULL},
    {"model", FT_TEXT, T(model), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "model (a name in models.yaml)", NULL},
    {"precision", FT_ENUM, T(precision), 0, 0, 0, GPUECON_BF16, NULL, F_REQ, "", "training GEMM precision",
     names_precision},
    {"note", FT_TEXT, T(note), 0, 0, 0, 0, "", 0, "", "the conditions of the points (scale, recipe)", NULL},
};
static const char *const timeline_extra[] = {"points", NULL};

static int timeline_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                             gpuecon_error *err)
{
    gpuecon_timeline *t = e->obj;
    static const struct { const char *field; gpuecon_kind kind; } names[] = {
        {"system", GPUECON_KIND_SYSTEM}, {"model", GPUECON_KIND_MODEL}};
    for (size_t i = 0; i < 2; i++) {
        const char *v = i == 0 ? t->system : t->model;
        gpuecon_error tmp;
        if (gpuecon_catalog_find(cat, names[i].kind, v, names[i].field, NULL, &tmp))
            return yaml_error(doc, schema_node(node, names[i].field), err, GPUECON_E_INPUT, "%s: %s", names[i].field,
                              tmp.message);
    }
    ynode *pl = yaml_map_get(node, "points");
    if (!pl)
        return yaml_error(doc, node, err, GPUECON_E_PARSE,
                          "missing required field 'points' (the dated throughputs, oldest first)");
    gpuecon_timeline_point *pts;
    /* the entry's own source: and stage: (recorded on its required system field) are the
       points' defaults */
    gpuecon_source def = e->src[1];
    int rc = schema_timeline_points(catalog_arena(cat), doc, pl, "points", def, &pts, &t->n_points, err);
    if (rc)
        return rc;
    t->points = pts;
    return GPUECON_OK;
}

const kdesc schema_kind_timeline = {"timelines",
                                    "timeline",
                                    sizeof(gpuecon_timeline),
                                    offsetof(gpuecon_timeline, src),
                                    timeline_fields,
                                    sizeof timeline_fields / sizeof timeline_fields[0],
                                    timeline_validate,
                                    timeline_extra};
