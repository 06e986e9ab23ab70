/*
 * calib.c — a returned layout against the training calibration set (calib_match,
 * docs/model.md §3.5), rendered once for train and search: the JSON "calibration" object, the
 * terminal lines and the table cells.
 */
#include "render/render.h"

#include <string.h>

void calib_axes_text(const calib_match *m, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = 0;
    for (int a = 0; a < CALIB_AXIS_COUNT; a++)
        if (m->axes & 1u << a) {
            int w = snprintf(buf + k, cap - k, "%s%s", k ? "," : "", calib_axis_name((calib_axis)a));
            if (w < 0 || (size_t)w >= cap - k)
                break;
            k += (size_t)w;
        }
    if (!k)
        snprintf(buf, cap, "-");
}

/* "MFU 72.9% is above 55.2%, the best ever published for ampere bf16 (MegaScale-12288): ...". */
static void warning_text(const calib_match *m, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "MFU %.2f%% (causal attention counted) is above %.2f%%, the best ever published for %s (%s): an "
             "optimistic estimate, ranked at the cap",
             100 * m->mfu, 100 * m->cap.mfu, m->gpu_prec, m->cap.id);
}

json_t *calib_match_json(const calib_match *m)
{
    json_t *j = json_object();
    if (m->have_nearest)
        json_object_set_new(j, "nearest",
                            json_pack("{s:s, s:s, s:s, s:o, s:b}", "id", m->nearest_id, "what", m->nearest_what,
                                      "config", m->nearest_config, "distance", rjson_real(m->distance),
                                      "fitted_on", m->nearest_fitted));
    else
        json_object_set_new(j, "nearest", json_null());
    json_object_set_new(j, "extrapolates", json_boolean(m->axes != 0));
    json_t *ax = json_object();
    for (int a = 0; a < CALIB_AXIS_COUNT; a++)
        if (m->axes & 1u << a)
            json_object_set_new(ax, calib_axis_name((calib_axis)a), json_string(m->why[a]));
    json_object_set_new(j, "axes", ax);
    if (m->cap.have)
        json_object_set_new(j, "mfu_cap", json_pack("{s:o, s:s, s:s}", "mfu", rjson_real(m->cap.mfu), "id", m->cap.id,
                                                    "source", m->cap.source));
    else
        json_object_set_new(j, "mfu_cap", json_null());
    json_object_set_new(j, "above_mfu_cap", json_boolean(m->above_cap));
    json_object_set_new(j, "scale_warning", m->far_scale ? json_string(m->scale_warning) : json_null());
    if (m->above_cap) {
        char w[256];
        warning_text(m, w, sizeof w);
        json_object_set_new(j, "warning", json_string(w));
    }
    return j;
}

void calib_match_text(strbuf *f, const calib_match *m)
{
    if (m->have_nearest)
        sb_printf(f, "calibration  nearest row %s (%s; %s), distance %.2f, %s\n", m->nearest_id, m->nearest_what,
                  m->nearest_config, m->distance, m->nearest_fitted ? "fitted on" : "held out");
    if (!m->axes)
        sb_printf(f, "             inside the calibration set on every axis\n");
    for (int a = 0; a < CALIB_AXIS_COUNT; a++)
        if (m->axes & 1u << a)
            sb_printf(f, "             extrapolates: %s\n", m->why[a]);
    if (m->cap.have)
        sb_printf(f, "             MFU cap %.1f%%, causal attention counted (%s: %s)\n", 100 * m->cap.mfu, m->cap.id,
                  m->cap.source);
    if (m->far_scale)
        sb_printf(f, "warning: %s\n", m->scale_warning);
    if (m->above_cap) {
        char w[256];
        warning_text(m, w, sizeof w);
        sb_printf(f, "warning: %s\n", w);
    }
}

void calib_cols(tbl *t)
{
    tbl_col_key(t, "nearest row", "nearest", 'l'); /* the terminal's labels; CSV keeps the keys */
    tbl_col(t, "distance", 'r');
    tbl_col(t, "extrapolates", 'l');
    tbl_col_key(t, "above MFU cap", "above_mfu_cap", 'l');
}

void calib_cells(tbl *t, const calib_match *m)
{
    if (!m) {
        for (int i = 0; i < CALIB_COLS; i++)
            tbl_str(t, "");
        return;
    }
    char ax[128];
    calib_axes_text(m, ax, sizeof ax);
    tbl_str(t, m->have_nearest ? m->nearest_id : "");
    tbl_num(t, m->distance, 2);
    tbl_str(t, ax);
    tbl_str(t, m->above_cap ? "yes" : "no");
}

void calib_match_brief(strbuf *f, const calib_match *m, const char *indent)
{
    char ax[128];
    calib_axes_text(m, ax, sizeof ax);
    if (m->have_nearest)
        sb_printf(f, "%scalibration: nearest row %s, distance %.2f; %s%s\n", indent, m->nearest_id, m->distance,
                  m->axes ? "extrapolates: " : "inside the calibration set", m->axes ? ax : "");
    if (m->above_cap) {
        char w[256];
        warning_text(m, w, sizeof w);
        sb_printf(f, "%swarning: %s\n", indent, w);
    }
}
