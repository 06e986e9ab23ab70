/*
 * figband.c — a predicted figure's 80% band (gpuecon_band, filled by the analysis layer) as the
 * outputs show it: the JSON object next to the figure, a table cell, a quantity table's row and
 * the one-line phrase "10,337 tok/s/GPU (8,100–11,200, 80%; <basis>; extrapolating: <axes>)".
 */
#include "render/render.h"

#include <string.h>

static bool have(const gpuecon_band *b)
{
    return b && b->set;
}

json_t *figband_json(const gpuecon_band *b, double scale)
{
    if (!have(b))
        return NULL;
    json_t *j = json_object(), *ex = json_array();
    json_object_set_new(j, "low", rjson_real(b->low * scale));
    json_object_set_new(j, "high", rjson_real(b->high * scale));
    json_object_set_new(j, "level", rjson_real(b->level));
    json_object_set_new(j, "basis", json_string(b->basis));
    /* the axes, "; "-separated in the band, as a list */
    char axes[sizeof b->extrapolating];
    snprintf(axes, sizeof axes, "%s", b->extrapolating);
    char *save = NULL;
    for (char *a = strtok_r(axes, ";", &save); a; a = strtok_r(NULL, ";", &save)) {
        while (*a == ' ')
            a++;
        if (*a)
            json_array_append_new(ex, json_string(a));
    }
    json_object_set_new(j, "extrapolating", ex);
    json_object_set_new(j, "n", json_integer(b->n));
    json_object_set_new(j, "calibrated", json_boolean(b->calibrated));
    return j;
}

void figband_add(json_t *j, const char *key, const gpuecon_band *b, double scale)
{
    json_t *one = figband_json(b, scale);
    if (!one)
        return;
    json_t *bands = json_object_get(j, "band");
    if (!bands) {
        bands = json_object();
        json_object_set_new(j, "band", bands);
    }
    json_object_set_new(bands, key, one);
}

char *figband_range(char *buf, size_t cap, const gpuecon_band *b, double scale, int decimals)
{
    if (!have(b)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    char lo[48], hi[48];
    snprintf(buf, cap, "%s\u2013%s", fmt_num(lo, sizeof lo, b->low * scale, decimals),
             fmt_num(hi, sizeof hi, b->high * scale, decimals));
    return buf;
}

char *figband_basis(char *buf, size_t cap, const gpuecon_band *b)
{
    if (!have(b))
        snprintf(buf, cap, "%s", "");
    else if (b->extrapolating[0])
        snprintf(buf, cap, "%s; extrapolating: %s", b->basis, b->extrapolating);
    else
        snprintf(buf, cap, "%s", b->basis);
    return buf;
}

char *figband_phrase(char *buf, size_t cap, double point, const gpuecon_band *b, double scale, int decimals,
                     const char *unit)
{
    char v[48], r[112], basis[sizeof b->basis + sizeof b->extrapolating + 24];
    fmt_num(v, sizeof v, point, decimals);
    if (!have(b))
        snprintf(buf, cap, "%s %s", v, unit);
    else
        snprintf(buf, cap, "%s %s (%s, %.0f%%; %s)", v, unit, figband_range(r, sizeof r, b, scale, decimals),
                 b->level * 100, figband_basis(basis, sizeof basis, b));
    return buf;
}

/* The cell of a band: "low–high" on the terminal; in CSV, sep between the two numbers — the unit separator
 * that an "80% band" column's CSV splits into its two fields (table.c), or '-' in a quantity table's value. */
static void band_cell(tbl *t, const gpuecon_band *b, double scale, int decimals, char sep)
{
    char d[112], raw[64] = "";
    figband_range(d, sizeof d, b, scale, decimals);
    if (have(b))
        snprintf(raw, sizeof raw, "%.6g%c%.6g", b->low * scale, sep, b->high * scale);
    tbl_text(t, d, raw);
}

void figband_cell(tbl *t, const gpuecon_band *b, double scale, int decimals)
{
    band_cell(t, b, scale, decimals, '\x1f');
}

void figband_row(tbl *t, const gpuecon_band *b, double scale, int decimals, const char *unit)
{
    if (!have(b))
        return;
    char basis[sizeof b->basis + sizeof b->extrapolating + 24];
    tbl_row(t);
    tbl_fmt(t, "  %.0f%% band", b->level * 100);
    band_cell(t, b, scale, decimals, '-');
    tbl_str(t, unit);
    tbl_str(t, figband_basis(basis, sizeof basis, b));
}

void figband_bases(strbuf *f, const serve_bands *b, size_t n)
{
    static const char *const names[] = {"tok/s/GPU", "TPOT", "TTFT"};
    enum { MAX_SHOWN = 4 };
    for (int m = 0; m < 3; m++) {
        char seen[MAX_SHOWN][sizeof b->tps.basis + sizeof b->tps.extrapolating + 24];
        int k = 0, more = 0;
        for (size_t i = 0; i < n; i++) {
            const gpuecon_band *x = m == 0 ? &b[i].tps : m == 1 ? &b[i].tpot : &b[i].ttft;
            if (!have(x))
                continue;
            char one[sizeof seen[0]];
            figband_basis(one, sizeof one, x);
            bool dup = false;
            for (int j = 0; j < k && !dup; j++)
                dup = !strcmp(seen[j], one);
            if (dup)
                continue;
            if (k < MAX_SHOWN)
                snprintf(seen[k++], sizeof seen[0], "%s", one);
            else
                more++;
        }
        if (!k)
            continue;
        sb_printf(f, "80%% bands, %s: ", names[m]);
        for (int j = 0; j < k; j++)
            sb_printf(f, "%s%s", j ? " | " : "", seen[j]);
        if (more)
            sb_printf(f, " | and %d more (--json has each row's)", more);
        sb_putc(f, '\n');
    }
}
