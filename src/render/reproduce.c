/*
 * reproduce.c — `gpuecon reproduce` rendered: the article's figures beside the catalog's
 * recomputation with the relative error, as JSON and as a table (terminal and CSV); the terminal
 * form adds the count within tolerance and the figures where the source contradicts itself.
 */
#include "render/render.h"

#include <math.h>

/* A figure with as many decimals as its size needs. */
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

static json_t *reproduce_json(const void *view)
{
    const reproduce_view *v = view;
    json_t *arr = json_array();
    for (size_t i = 0; i < v->n; i++) {
        const gpuecon_repro_row *r = &v->rows[i];
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
    return json_pack("{s:o, s:i, s:i, s:i}", "rows", arr, "passed", v->passed, "total", v->total, "flagged",
                     v->flagged);
}

static tbl *reproduce_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const reproduce_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    tbl_col(t, "id", 'l');
    tbl_col(t, "figure", 'l');
    tbl_col(t, "published", 'r');
    tbl_col(t, "computed", 'r');
    tbl_col(t, "error", 'r');
    tbl_col(t, "ok", 'l');
    for (size_t i = 0; i < v->n; i++) {
        const gpuecon_repro_row *r = &v->rows[i];
        tbl_row(t);
        tbl_str(t, r->id);
        tbl_str(t, r->what);
        num(t, r->published);
        num(t, r->computed);
        tbl_fmt(t, "%+.2f%%", r->rel_err * 100);
        tbl_str(t, !r->consistent ? "source inconsistent" : r->ok ? "ok" : "FAIL");
    }
    return t;
}

static void reproduce_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const reproduce_view *v = view;
    sb_printf(f, "Published figures recomputed from the catalog (%s; docs/sources.md)\n\n", v->n ? v->rows[0].source : "");
    tbl_print(t, f);
    sb_printf(f, "\n%d of %d consistent rows within tolerance (1%% unless noted); %d figures where "
               "the source contradicts itself:\n",
            v->passed, v->total, v->flagged);
    for (size_t i = 0; i < v->n; i++)
        if (!v->rows[i].consistent)
            sb_printf(f, "  %s: %s\n", v->rows[i].id, v->rows[i].note);
}

const render_kind render_reproduce = {reproduce_json, reproduce_table, reproduce_text, NULL};
