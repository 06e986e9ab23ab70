/*
 * lengths.c — reads a histogram of request lengths for the serving simulator: one bin per
 * line, "prompt output [weight]" separated by commas, spaces or tabs; '#' starts a comment; a
 * first line that starts with a letter is a header. Weight defaults to 1 (so a trace of
 * requests, one per line, is its own histogram).
 *
 * Key choice: every number is checked where it stands, so an error names path:line:col and
 * what is allowed (whole positive token counts, positive weights).
 */
#include "io/io.h"
#include "yaml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS 1000000

static int bad(gpuecon_error *err, const char *path, int line, int col, const char *what, const char *tok,
               size_t len)
{
    return err_set(err, GPUECON_E_INPUT, path, line, col, "%s '%.*s': allowed %s", what, (int)(len > 40 ? 40 : len),
                   tok, strcmp(what, "weight") ? "a whole number of tokens from 1 to 1e8" : "a number above 0");
}

/* Parses one field at *p; advances past it and its separators. */
static int field(const char **p, const char *end, double *v, bool whole, const char *what, const char *path,
                 int line, const char *lstart, gpuecon_error *err)
{
    const char *s = *p;
    size_t len = 0;
    while (s + len < end && !strchr(", \t\r#", s[len]))
        len++;
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return bad(err, path, line, (int)(s - lstart) + 1, what, s, len);
    memcpy(buf, s, len);
    buf[len] = 0;
    char *e;
    double x = strtod(buf, &e);
    bool ok = *e == 0 && (whole ? x >= 1 && x <= 1e8 && x == (double)(long)x : x > 0 && x < 1e300);
    if (!ok)
        return bad(err, path, line, (int)(s - lstart) + 1, what, s, len);
    *v = x;
    s += len;
    while (s < end && (*s == ',' || *s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    *p = s;
    return GPUECON_OK;
}

static int parse(const char *path, const char *buf, size_t n, gpuecon_length_bin *bins, size_t *count,
                 gpuecon_error *err)
{
    const char *p = buf, *end = buf + n;
    int line = 0;
    size_t k = 0;
    while (p < end) {
        const char *ls = p, *le = memchr(p, '\n', (size_t)(end - p));
        le = le ? le : end;
        line++;
        const char *q = ls;
        while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        bool blank = q == le || *q == '#';
        if (!blank && !(line == 1 && isalpha((unsigned char)*q))) {
            gpuecon_length_bin b = {0, 0, 1};
            int rc;
            if ((rc = field(&q, le, &b.prompt, true, "prompt length", path, line, ls, err)) ||
                (rc = field(&q, le, &b.output, true, "output length", path, line, ls, err)))
                return rc;
            if (q < le && *q != '#' && (rc = field(&q, le, &b.weight, false, "weight", path, line, ls, err)))
                return rc;
            if (q < le && *q != '#')
                return err_set(err, GPUECON_E_INPUT, path, line, (int)(q - ls) + 1,
                               "extra field; a bin is: prompt output [weight]");
            if (k >= MAX_BINS)
                return err_set(err, GPUECON_E_INPUT, path, line, 1, "more than %d bins", MAX_BINS);
            if (bins)
                bins[k] = b;
            k++;
        }
        p = le + 1;
    }
    if (k == 0)
        return err_set(err, GPUECON_E_INPUT, path, 0, 0, "no bins (lines of: prompt output [weight])");
    *count = k;
    return GPUECON_OK;
}

int gpuecon_length_bins_load_buffer(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len,
                                    gpuecon_length_bin **bins, size_t *n, gpuecon_error *err)
{
    if (!ctx || !name || (!buf && len) || !bins || !n)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a name, a buffer and outputs are required");
    *bins = NULL;
    *n = 0;
    size_t k = 0;
    int rc = parse(name, buf ? buf : "", len, NULL, &k, err);
    if (rc)
        return rc;
    *bins = ctx_alloc(ctx, k * sizeof **bins);
    if (!*bins)
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory for %zu bins", k);
    if ((rc = parse(name, buf, len, *bins, n, err))) { /* the same bytes: cannot fail, but never leak */
        ctx_free(ctx, *bins, k * sizeof **bins);
        *bins = NULL;
        *n = 0;
    }
    return rc;
}

int gpuecon_length_bins_load(gpuecon_ctx *ctx, const char *path, gpuecon_length_bin **bins, size_t *n,
                             gpuecon_error *err)
{
    if (!ctx || !path || !bins || !n)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a path and outputs are required");
    *bins = NULL;
    *n = 0;
    char *buf;
    size_t len;
    int rc = yaml_read_file(ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = gpuecon_length_bins_load_buffer(ctx, path, buf, len, bins, n, err);
    ctx_free(ctx, buf, len + 1);
    return rc;
}

void gpuecon_length_bins_free(gpuecon_ctx *ctx, gpuecon_length_bin *bins, size_t n)
{
    if (ctx && bins)
        ctx_free(ctx, bins, n * sizeof *bins);
}
