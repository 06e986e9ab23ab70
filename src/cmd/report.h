/*
 * report.h — the HTML report of `gpuecon compare` (report.c), and the platform table (report.c)
 * it shares with the terminal and CSV output (cmd_compare.c).
 */
#ifndef GPUECON_REPORT_H
#define GPUECON_REPORT_H

#include "cli.h"

/* The platforms of one comparison as a table (terminal, CSV and HTML use the same cells). */
void compare_platform_table(const gpuecon_comparison_result *cr, tbl *t);
/* Writes one self-contained HTML file (inline CSS and SVG, no scripts, no network) to -o FILE
 * (or stdout). Returns an exit code. */
int report_html(cli *c, const gpuecon_scenario *sc, const gpuecon_compare_result *r);

/* A human label for a break-even/sensitivity input name ("tco_usd_per_gpu_hour" ->
 * "TCO, $/GPU-h"); unknown names come back as given. */
const char *report_input_label(const char *input);

#endif
