/*
 * plot.c — SVG charts through gnuplot (an optional program, run as a child process).
 *
 * The data travel inline in the script (gnuplot's $DATA << EOD blocks), so nothing is left
 * behind. When gnuplot is missing the caller gets a clear message and no file.
 */
#include "render/render.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

bool plot_available(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int plot_svg(const char *path, const plot_spec *spec, const plot_series *series, size_t n, char *errbuf,
             size_t errcap)
{
    if (!plot_available()) {
        snprintf(errbuf, errcap, "gnuplot is not installed (Debian: apt-get install gnuplot-nox); "
                                 "the table above has the same numbers");
        return -1;
    }
    FILE *g = popen("gnuplot 2>/dev/null", "w");
    if (!g) {
        snprintf(errbuf, errcap, "cannot start gnuplot");
        return -1;
    }
    fprintf(g, "set terminal svg size %d,%d dynamic enhanced font 'sans,12' background rgb 'white'\n",
            spec->width ? spec->width : 800, spec->height ? spec->height : 480);
    fputs("set output ", g);
    quoted(g, path);
    fputs("\nset title ", g);
    quoted(g, spec->title);
    fputs("\nset xlabel ", g);
    quoted(g, spec->xlabel);
    fputs("\nset ylabel ", g);
    quoted(g, spec->ylabel);
    fputs("\nset grid\nset key top left\n", g);
    if (spec->logx)
        fputs("set logscale x 2\n", g);
    if (spec->logy)
        fputs("set logscale y 10\n", g);
    if (spec->y2label) {
        fputs("set y2label ", g);
        quoted(g, spec->y2label);
        fputs("\nset y2tics\nset ytics nomirror\n", g);
    }
    for (size_t s = 0; s < n; s++) {
        fprintf(g, "$D%zu << EOD\n", s);
        for (size_t i = 0; i < series[s].n; i++)
            fprintf(g, "%.10g %.10g\n", series[s].x[i], series[s].y[i]);
        fputs("EOD\n", g);
    }
    fputs("plot ", g);
    for (size_t s = 0; s < n; s++) {
        fprintf(g, "%s$D%zu using 1:2 with linespoints lw 2 pt 7 ps 0.6 %s title ", s ? ", " : "", s,
                series[s].y2 ? "axes x1y2" : "");
        quoted(g, series[s].name);
    }
    fputs("\nunset output\n", g);
    int st = pclose(g);
    if (st != 0) {
        snprintf(errbuf, errcap, "gnuplot failed writing %s", path);
        return -1;
    }
    return 0;
}
