/*
 * plot.c — SVG line charts as gnuplot scripts: the library writes the script, with the data
 * inline (gnuplot's $DATA << EOD blocks) and the SVG's path in it, and a front end runs it
 * (the gpuecon program pipes it to gnuplot, an optional program). The library itself runs no
 * program and writes no file.
 */
#include "render/render.h"

static void quoted(strbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_printf(b, "\\");
        sb_printf(b, "%c", *s);
    }
    sb_printf(b, "\"");
}

void plot_script(strbuf *b, const char *path, const plot_spec *spec, const plot_series *series, size_t n)
{
    sb_printf(b, "set terminal svg size %d,%d dynamic enhanced font 'sans,12' background rgb 'white'\n",
              spec->width ? spec->width : 800, spec->height ? spec->height : 480);
    sb_printf(b, "set output ");
    quoted(b, path);
    sb_printf(b, "\nset title ");
    quoted(b, spec->title);
    sb_printf(b, "\nset xlabel ");
    quoted(b, spec->xlabel);
    sb_printf(b, "\nset ylabel ");
    quoted(b, spec->ylabel);
    sb_printf(b, "\nset grid\nset key top left\n");
    if (spec->logx)
        sb_printf(b, "set logscale x 2\n");
    if (spec->logy)
        sb_printf(b, "set logscale y 10\n");
    if (spec->y2label) {
        sb_printf(b, "set y2label ");
        quoted(b, spec->y2label);
        sb_printf(b, "\nset y2tics\nset ytics nomirror\n");
    }
    for (size_t s = 0; s < n; s++) {
        sb_printf(b, "$D%zu << EOD\n", s);
        for (size_t i = 0; i < series[s].n; i++)
            sb_printf(b, "%.10g %.10g\n", series[s].x[i], series[s].y[i]);
        sb_printf(b, "EOD\n");
    }
    sb_printf(b, "plot ");
    for (size_t s = 0; s < n; s++) {
        sb_printf(b, "%s$D%zu using 1:2 with linespoints lw 2 pt 7 ps 0.6 %s title ", s ? ", " : "", s,
                  series[s].y2 ? "axes x1y2" : "");
        quoted(b, series[s].name);
    }
    sb_printf(b, "\nunset output\n");
}
