/*
 * date.c — ISO dates as day counts: "YYYY-MM" (the month's first day) or "YYYY-MM-DD" to days
 * since 1970-01-01 and back, in the proleptic Gregorian calendar (Hinnant's days_from_civil and
 * civil_from_days, "chrono-Compatible Low-Level Date Algorithms"). The catalog's timelines, the
 * scenarios' start dates and the comparisons' break-even dates all go through here.
 */
#include "base/base.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static long days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

static bool leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool gpuecon_date_parse(const char *s, long *day)
{
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    size_t n = s ? strlen(s) : 0;
    if (n != 7 && n != 10)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((i == 4 || i == 7) ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    long y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    unsigned m = (unsigned)((s[5] - '0') * 10 + (s[6] - '0')), d = 1;
    if (n == 10)
        d = (unsigned)((s[8] - '0') * 10 + (s[9] - '0'));
    if (y < 1970 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
        return false;
    *day = days_from_civil(y, m, d);
    return true;
}

void gpuecon_date_format(long day, char *buf, size_t cap)
{
    /* civil_from_days (Hinnant) */
    long z = day + 719468;
    long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long y = (long)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    snprintf(buf, cap, "%04ld-%02u-%02u", y + (m <= 2), m, d);
}
