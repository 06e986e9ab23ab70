/*
 * format.c — human-friendly numbers for terminal output (JSON and CSV keep full precision): fixed
 * decimals and SI prefixes over base/numfmt.c, the power-limit phrase, CSV fields.
 */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *fmt_power(char *buf, size_t cap, const gpuecon_system *s)
{
    if (!s || !(s->power_limit_w > 0) || !s->gpu || s->power_limit_w >= s->gpu->tdp_w)
        return "";
    snprintf(buf, cap, "GPUs at %.0f W: sustained tensor-core clock %.3f of the %.0f W board maximum's", s->power_limit_w,
             gpuecon_system_clock(s), s->gpu->tdp_w);
    return buf;
}

char *fmt_num(char *buf, size_t cap, double v, int decimals)
{
    return num_fixed(buf, cap, v, decimals); /* base/numfmt.c: the one formatter of human output */
}

char *fmt_si(char *buf, size_t cap, double v, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = fabs(v);
    while (a >= 1000 && i < 6) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    int dec = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    snprintf(buf, cap, "%.*f %s%s", dec, v, pre[i], unit ? unit : "");
    return buf;
}

/* Whether a field would be read as a formula by a spreadsheet (=, +, -, @, tab or CR first) and is
 * not a plain number or percentage (OWASP, "CSV Injection"): "-5" and "+1.6%" stay numbers. */
static bool csv_formula(const char *s)
{
    if (!strchr("=+-@\t\r", s[0]) || !s[0] || (strchr("+-", s[0]) && !s[1])) /* a lone "-": "none" */
        return false;
    char *end;
    (void)strtod(s, &end);
    if (end != s && *end == '%') /* "+1.6%": a percentage is a number to a spreadsheet too */
        end++;
    return end == s || *end || !strchr("+-", s[0]);
}

void csv_field(strbuf *f, const char *s)
{
    if (csv_formula(s)) { /* neutralised: quoted, with a leading apostrophe the spreadsheet shows as text */
        sb_puts(f, "\"'");
        for (; *s; s++) {
            if (*s == '"')
                sb_putc(f, '"');
            sb_putc(f, *s);
        }
        sb_putc(f, '"');
        return;
    }
    if (!strpbrk(s, ",\"\n\r")) {
        sb_puts(f, s);
        return;
    }
    sb_putc(f, '"');
    for (; *s; s++) {
        if (*s == '"')
            sb_putc(f, '"');
        sb_putc(f, *s);
    }
    sb_putc(f, '"');
}
