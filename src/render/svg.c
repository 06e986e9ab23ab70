/*
 * svg.c — small self-contained SVG charts for the HTML report: horizontal bars, stacked bars,
 * a tornado (sensitivity) chart, and break-even bars. Drawn directly, so a report needs no
 * external program and no network; text is escaped; sizes adapt to the number of rows.
 */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

static void header(strbuf *b, int w, int h, const char *title)
{
    sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "role=\"img\" font-family=\"sans-serif\" font-size=\"12\"><title>",
              w, h, w, h);
    sb_escape(b, title);
    sb_printf(b, "</title><rect width=\"%d\" height=\"%d\" fill=\"white\"/>"
                 "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">",
              w, h);
    sb_escape(b, title);
    sb_printf(b, "</text>");
}

/* Left margin for row labels: about 6.6 px per character of the longest label at 12 px. */
static int label_margin(const char *const *labels, size_t n, size_t stride, int min)
{
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        const char *l = *(const char *const *)((const char *)labels + i * stride);
        size_t len = l ? strlen(l) : 0;
        longest = len > longest ? len : longest;
    }
    int m = (int)(longest * 6.6) + 16;
    return m < min ? min : m > 520 ? 520 : m;
}

static double nice_max(double v)
{
    if (!(v > 0) || !isfinite(v))
        return 1;
    double p = pow(10, floor(log10(v)));
    double m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void svg_bars(strbuf *b, const char *title, const char *unit, const svg_bar *bars, size_t n)
{
    const int left = label_margin(&bars[0].label, n, sizeof *bars, 120), width = left + 560, row = 26, top = 36;
    int h = top + (int)n * row + 30;
    double max = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(bars[i].value) && bars[i].value > max)
            max = bars[i].value;
    max = nice_max(max * 1.15);
    header(b, width, h, title);
    double span = width - left - 20;
    for (size_t i = 0; i < n; i++) {
        double v = isfinite(bars[i].value) && bars[i].value > 0 ? bars[i].value : 0;
        int y = top + (int)i * row;
        sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 16);
        sb_escape(b, bars[i].label);
        sb_printf(b, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", left, y + 4,
                  span * v / max, row - 8, palette[i % 10]);
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\">", left + span * v / max + 4, y + 16);
        if (isfinite(bars[i].value))
            sb_printf(b, "%s %s", NUM_SIG(bars[i].value, 4), unit ? unit : "");
        else
            sb_printf(b, "n/a");
        if (bars[i].note) {
            sb_printf(b, " (");
            sb_escape(b, bars[i].note);
            sb_printf(b, ")");
        }
        sb_printf(b, "</text>");
    }
    sb_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", left, top, left,
              top + (int)n * row);
    sb_printf(b, "</svg>\n");
}

void svg_stacked(strbuf *b, const char *title, const char *unit, const char *const *parts, size_t nparts,
                 const svg_stack *rows, size_t n)
{
    const int left = label_margin(&rows[0].label, n, sizeof *rows, 120), width = left + 560, row = 26, top = 36;
    int h = top + (int)n * row + 50;
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        double t = 0;
        for (size_t k = 0; k < nparts && k < SVG_MAX_PARTS; k++)
            t += rows[i].parts[k] > 0 ? rows[i].parts[k] : 0;
        if (t > max)
            max = t;
    }
    max = nice_max(max * 1.1);
    header(b, width, h, title);
    double span = width - left - 20;
    for (size_t i = 0; i < n; i++) {
        int y = top + (int)i * row;
        sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 16);
        sb_escape(b, rows[i].label);
        sb_printf(b, "</text>");
        double x = left, total = 0;
        for (size_t k = 0; k < nparts && k < SVG_MAX_PARTS; k++) {
            double v = rows[i].parts[k] > 0 ? rows[i].parts[k] : 0;
            sb_printf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", x, y + 4,
                      span * v / max, row - 8, palette[k % 10]);
            sb_escape(b, parts[k]);
            sb_printf(b, ": %s %s</title></rect>", NUM_SIG(v, 4), unit ? unit : "");
            x += span * v / max;
            total += v;
        }
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\">%s %s</text>", x + 4, y + 16, NUM_SIG(total, 4), unit ? unit : "");
    }
    int ly = top + (int)n * row + 20, lx = left;
    for (size_t k = 0; k < nparts && k < SVG_MAX_PARTS; k++) {
        sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                  lx, ly - 10, palette[k % 10], lx + 16, ly);
        sb_escape(b, parts[k]);
        sb_printf(b, "</text>");
        lx += 30 + (int)(6.6 * (double)strlen(parts[k]));
    }
    sb_printf(b, "</svg>\n");
}

void svg_tornado(strbuf *b, const char *title, double base, const svg_tornado_row *rows, size_t n,
                 const char *unit)
{
    const int left = label_margin(&rows[0].label, n, sizeof *rows, 120), width = left + 480, row = 26, top = 44;
    int h = top + (int)n * row + 30;
    double lo = base, hi = base;
    for (size_t i = 0; i < n; i++) {
        double v[2] = {rows[i].low, rows[i].high};
        for (int k = 0; k < 2; k++)
            if (isfinite(v[k])) {
                lo = v[k] < lo ? v[k] : lo;
                hi = v[k] > hi ? v[k] : hi;
            }
    }
    double pad = (hi - lo) * 0.1 + 1e-9;
    lo -= pad;
    hi += pad;
    double span = width - left - 30;
#define XPOS(v) (left + span * ((v)-lo) / (hi - lo))
    header(b, width, h, title);
    sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">base %s %s</text>", XPOS(base), top - 6,
              NUM_SIG(base, 4), unit ? unit : "");
    sb_printf(b, "<text x=\"%d\" y=\"%d\" fill=\"#555\">blue: the input at its low end; red: at its high end</text>",
              width - 330, 20);
    for (size_t i = 0; i < n; i++) {
        int y = top + (int)i * row;
        sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 16);
        sb_escape(b, rows[i].label);
        sb_printf(b, "</text>");
        double v[2] = {rows[i].low, rows[i].high};
        const char *color[2] = {"#4e79a7", "#e15759"};
        for (int k = 0; k < 2; k++) {
            if (!isfinite(v[k]))
                continue;
            double x0 = XPOS(v[k] < base ? v[k] : base), x1 = XPOS(v[k] < base ? base : v[k]);
            sb_printf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s"
                         "</title></rect>",
                      x0, y + 4, x1 - x0 > 0.5 ? x1 - x0 : 0.5, row - 8, color[k], k ? "input +" : "input -",
                      NUM_SIG(v[k], 4));
        }
    }
    sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>", XPOS(base), top,
              XPOS(base), top + (int)n * row);
#undef XPOS
    sb_printf(b, "</svg>\n");
}

/* x of ratio r on a log2 axis from 2^-e to 2^e over [left, left + span]. */
static double ratio_x(double r, int e, int left, double span)
{
    return left + span * (log2(r) + e) / (2.0 * e);
}

void svg_ratios(strbuf *b, const char *title, const svg_bar *rows, size_t n)
{
    const int left = label_margin(&rows[0].label, n, sizeof *rows, 120), width = left + 600, row = 26, top = 50;
    int h = top + (int)n * row + 36;
    double ext = 1;
    for (size_t i = 0; i < n; i++)
        if (rows[i].value > 0 && isfinite(rows[i].value) && fabs(log2(rows[i].value)) > ext)
            ext = fabs(log2(rows[i].value));
    int e = (int)ceil(ext * 1.15);
    e = e < 1 ? 1 : e > 8 ? 8 : e;
    double span = width - left - 130;
    header(b, width, h, title);
    static const char *const fall = "#e15759", *const rise = "#4e79a7";
    sb_printf(b, "<rect x=\"%d\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"38\">must fall"
                 "</text><rect x=\"%d\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"38\">"
                 "must rise</text>",
              left, fall, left + 16, left + 100, rise, left + 116);
    int axis = top + (int)n * row;
    for (int k = -e; k <= e; k++) {
        double x = ratio_x(pow(2, k), e, left, span);
        sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>", x, top, x, axis,
                  k ? "#ddd" : "#333");
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s%%</text>", x, axis + 16,
                  NUM_SIG(100 * pow(2, k), 4));
    }
    for (size_t i = 0; i < n; i++) {
        int y = top + (int)i * row;
        double r = rows[i].value;
        sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 16);
        sb_escape(b, rows[i].label);
        sb_printf(b, "</text>");
        if (!(r > 0) || !isfinite(r))
            continue;
        double rc = fmin(fmax(r, pow(2, -e)), pow(2, e));
        double x0 = ratio_x(1, e, left, span), x1 = ratio_x(rc, e, left, span);
        double lo = fmin(x0, x1), w = fabs(x1 - x0);
        sb_printf(b, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", lo, y + 4,
                  w > 0.5 ? w : 0.5, row - 8, r < 1 ? fall : rise);
        sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s%%</text>", r < 1 ? lo - 4 : lo + w + 4,
                  y + 16, r < 1 ? "end" : "start", NUM_SIG(100 * r, 4));
    }
    sb_printf(b, "</svg>\n");
}
