/*
 * band.c — the 80% band of a predicted figure (gpuecon_band, docs/model.md §7.6), rendered once
 * for every command: the JSON object next to the figure, the terminal's parenthesis after it and
 * the table's low/high cells.
 */
#include "render/render.h"

#include <string.h>

json_t *band_json(const gpuecon_band *b)
{
    if (!b || !b->set)
        return json_null();
    json_t *ax = json_array();
    const char *p = b->extrapolating;
    while (*p) {
        const char *e = strstr(p, "; ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        json_array_append_new(ax, json_stringn(p, len));
        p += len + (e ? 2 : 0);
    }
    return json_pack("{s:o, s:o, s:o, s:s, s:o, s:i, s:b}", "low", rjson_real(b->low), "high", rjson_real(b->high),
                     "level", rjson_real(b->level), "basis", b->basis, "extrapolating", ax, "n", b->n, "calibrated",
                     b->calibrated);
}

json_t *band_train_json(const gpuecon_band *b, const gpuecon_train_result *r)
{
    json_t *j = json_object();
    gpuecon_band s;
    json_object_set_new(j, "tokens_per_s_per_gpu", band_json(b));
    band_scaled(b, r->tokens_per_s_per_gpu, r->step_time_s, true, &s);
    json_object_set_new(j, "step_time_s", band_json(&s));
    band_scaled(b, r->tokens_per_s_per_gpu, r->mfu, false, &s);
    json_object_set_new(j, "mfu", band_json(&s));
    return j;
}

void band_text(char *buf, size_t cap, const gpuecon_band *b, double scale, int decimals)
{
    buf[0] = 0;
    if (!b || !b->set)
        return;
    char lo[32], hi[32];
    fmt_num(lo, sizeof lo, b->low * scale, decimals);
    fmt_num(hi, sizeof hi, b->high * scale, decimals);
    snprintf(buf, cap, "(%s-%s, %.0f%%; %s%s%s)", lo, hi, 100 * b->level, b->basis,
             b->extrapolating[0] ? "; extrapolating: " : "", b->extrapolating);
}

void band_cols(tbl *t, const char *key)
{
    char name[64];
    snprintf(name, sizeof name, "%s_low", key);
    tbl_col_key(t, "80% low", name, 'r'); /* the terminal's label; CSV keeps the key */
    snprintf(name, sizeof name, "%s_high", key);
    tbl_col_key(t, "80% high", name, 'r');
}

void band_cells(tbl *t, const gpuecon_band *b, int decimals)
{
    if (!b || !b->set) {
        tbl_str(t, "");
        tbl_str(t, "");
        return;
    }
    tbl_num(t, b->low, decimals);
    tbl_num(t, b->high, decimals);
}
