/*
 * suggest.c — "did you mean ...?" for unknown names, options and fields.
 *
 * Damerau–Levenshtein (optimal string alignment) distance on short ASCII strings; a
 * candidate is suggested when it is within a third of the longer name's length (at least 2),
 * or when one name is a prefix of the other.
 */
#include "base/base.h"

#include <ctype.h>
#include <string.h>

size_t suggest_distance(const char *a, const char *b)
{
    enum { MAXLEN = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n > MAXLEN || m > MAXLEN)
        return (size_t)-1;
    size_t d[MAXLEN + 1][MAXLEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *gpuecon_suggest(const char *s, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t ls = strlen(s);
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        size_t lc = strlen(c);
        size_t dist = suggest_distance(s, c);
        size_t longer = ls > lc ? ls : lc;
        size_t limit = longer / 3 > 2 ? longer / 3 : 2;
        bool prefix = ls >= 2 && (strncmp(s, c, ls < lc ? ls : lc) == 0);
        if (prefix && dist > limit)
            dist = limit; /* "h100" → "hgx-h100" is not a prefix; "hgx" → "hgx-a100" is */
        if (dist <= limit && dist < best_d) {
            best = c;
            best_d = dist;
        }
    }
    if (!best) { /* a name that contains s: "h100" finds "hgx-h100" */
        for (size_t i = 0; i < n && ls >= 3; i++)
            if (strstr(candidates[i], s))
                return candidates[i];
    }
    return best;
}
