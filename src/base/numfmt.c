/*
 * numfmt.c — numbers written for people: the one formatter of every human output (terminal
 * tables, verdicts, break-evens, notes). Never scientific notation, thousands separated by ',',
 * money with a dollar sign, and one framing of a difference between two costs ("20% below").
 * JSON and CSV keep full precision and do not come through here.
 */
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The digits of |v| printed "%.*f" with ',' between thousands, a leading '-' when v < 0 and the
 * printed figure is not zero ("-0.00" never), trailing zeros after the point dropped when trim. */
static char *grouped(char *buf, size_t cap, double v, int decimals, bool trim)
{
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%.*f", decimals, fabs(v));
    if (trim && strchr(tmp, '.')) {
        size_t n = strlen(tmp);
        while (tmp[n - 1] == '0')
            tmp[--n] = '\0';
        if (tmp[n - 1] == '.')
            tmp[--n] = '\0';
    }
    bool zero = strspn(tmp, "0.") == strlen(tmp);
    char *dot = strchr(tmp, '.');
    size_t intlen = dot ? (size_t)(dot - tmp) : strlen(tmp);
    char out[560];
    size_t o = 0;
    if (v < 0 && !zero)
        out[o++] = '-';
    for (size_t i = 0; i < intlen && o + 2 < sizeof out; i++) {
        out[o++] = tmp[i];
        size_t left = intlen - i - 1;
        if (left > 0 && left % 3 == 0)
            out[o++] = ',';
    }
    out[o] = '\0';
    snprintf(buf, cap, "%s%s", out, dot ? dot : "");
    return buf;
}

char *num_fixed(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "n/a" : v > 0 ? "inf" : "-inf");
        return buf;
    }
    return grouped(buf, cap, v, decimals < 0 ? 0 : decimals > 15 ? 15 : decimals, false);
}

/* The decimals that show v to sig significant digits (0 for a whole number of more digits). */
static int sig_decimals(double v, int sig)
{
    if (v == 0)
        return 0;
    double a = fabs(v);
    int e = (int)floor(log10(a));
    /* rounding may carry into the next power of ten (9.9996 at 4 digits is 10.00) */
    double step = pow(10, e - sig + 1);
    if (round(a / step) * step >= pow(10, e + 1))
        e++;
    int d = sig - 1 - e;
    return d < 0 ? 0 : d > 15 ? 15 : d;
}

char *num_sig(char *buf, size_t cap, double v, int sig)
{
    if (!isfinite(v))
        return num_fixed(buf, cap, v, 0);
    if (sig < 1)
        sig = 1;
    double a = fabs(v);
    int e = a > 0 ? (int)floor(log10(a)) : 0;
    if (e >= sig) { /* a whole number: its digits past the significant ones are zeros (82,657 -> 82,660) */
        double step = pow(10, e - sig + 1);
        v = round(v / step) * step;
    }
    return grouped(buf, cap, v, sig_decimals(v, sig), true);
}

char *num_count(char *buf, size_t cap, double v)
{
    static const struct { double at; const char *suffix; } scale[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
    char n[96];
    for (size_t i = 0; isfinite(v) && i < sizeof scale / sizeof scale[0]; i++)
        if (fabs(v) >= scale[i].at) {
            snprintf(buf, cap, "%s%s", num_sig(n, sizeof n, v / scale[i].at, 3), scale[i].suffix);
            return buf;
        }
    return num_sig(buf, cap, v, 4);
}

char *num_value(char *buf, size_t cap, double v)
{
    if (v == 0 || (isfinite(v) && fabs(v) >= 1e-6 && fabs(v) < 1e15))
        return num_sig(buf, cap, v, 6);
    snprintf(buf, cap, "%g", v); /* beyond any sensible figure (or not finite): as printf writes it */
    return buf;
}

char *num_bound(char *buf, size_t cap, double v)
{
    if (isfinite(v) && (fabs(v) >= 1e21 || (v != 0 && fabs(v) < 1e-9))) { /* no limit is this far out: a value */
        snprintf(buf, cap, "%g", v);
        return buf;
    }
    static const struct { double at; const char *suffix; } scale[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
    char n[96];
    for (size_t i = 0; isfinite(v) && i < sizeof scale / sizeof scale[0]; i++)
        if (fabs(v) >= scale[i].at) {
            double x = v / scale[i].at;
            if (fabs(x * 100 - round(x * 100)) > 1e-9 * fabs(x * 100)) /* not round: every digit (4,194,304) */
                break;
            snprintf(buf, cap, "%s%s", num_sig(n, sizeof n, x, 10), scale[i].suffix);
            return buf;
        }
    return num_sig(buf, cap, v, 15);
}

char *num_money(char *buf, size_t cap, double usd)
{
    char n[96];
    if (!isfinite(usd))
        return num_fixed(buf, cap, usd, 0);
    double a = fabs(usd);
    const char *sign = usd < 0 ? "-" : "";
    if (a >= 1e6)
        snprintf(buf, cap, "%s$%sM", sign, grouped(n, sizeof n, a / 1e6, a >= 1e8 ? 0 : sig_decimals(a / 1e6, 3), false));
    else if (a >= 1e4)
        snprintf(buf, cap, "%s$%sk", sign, grouped(n, sizeof n, a / 1e3, sig_decimals(a / 1e3, 3), false));
    else if (a >= 100)
        snprintf(buf, cap, "%s$%s", sign, grouped(n, sizeof n, a, 0, false));
    else
        snprintf(buf, cap, "%s$%s", sign, grouped(n, sizeof n, a, sig_decimals(a, 4), false));
    return buf;
}

char *num_below(char *buf, size_t cap, double cheaper, double dearer)
{
    double lo = fmin(cheaper, dearer), hi = fmax(cheaper, dearer); /* always the cheaper's side */
    double below = 100 * (1 - lo / hi);
    if (!isfinite(below)) {
        snprintf(buf, cap, "n/a");
        return buf;
    }
    snprintf(buf, cap, "%.*f%% below", below < 9.95 ? 1 : 0, below);
    return buf;
}
