/*
 * report.h — the HTML report of `gpuecon compare` (report.c), the platform table (report.c) it
 * shares with the terminal and CSV output (compare.c), and the same page around one
 * command's table (`gpuecon rl --format html`).
 */
#ifndef GPUECON_REPORT_H
#define GPUECON_REPORT_H

#include "render/render.h"

/* The platforms of one comparison as a table (terminal, CSV and HTML use the same cells). */
void compare_platform_table(const gpuecon_comparison_result *cr, tbl *t);
/* Appends one self-contained HTML page (inline CSS and SVG, no scripts, no network) to out. */
void report_html(strbuf *out, const gpuecon_scenario *sc, const gpuecon_compare_result *r);

/* One command's result as a self-contained HTML page with the compare report's style: title,
 * a subtitle line (escaped), `charts` (inline SVG drawn by src/render/svg.c, or NULL) and the
 * command's table t as the terminal shows it, appended to out. */
void report_table_html(strbuf *out, const char *title, const char *subtitle, const char *charts, const tbl *t);

/* A human label for a break-even/sensitivity input name ("tco_usd_per_gpu_hour" ->
 * "TCO, $/GPU-h"); unknown names come back as given. */
const char *report_input_label(const char *input);

#endif
