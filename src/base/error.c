/*
 * error.c — error records, the names of status codes and stages, and well-formed UTF-8 text.
 *
 * The library reports every failure as a value plus a caller-owned gpuecon_error; the
 * front end decides how to show it (the CLI prints "gpuecon: where:line:col: message").
 */
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gpuecon_status_name(int code)
{
    switch (code) {
    case GPUECON_OK: return "ok";
    case GPUECON_E_INPUT: return "invalid input";
    case GPUECON_E_PARSE: return "parse error";
    case GPUECON_E_IO: return "i/o error";
    case GPUECON_E_NOMEM: return "out of memory";
    case GPUECON_E_NOTFOUND: return "not found";
    case GPUECON_E_INFEASIBLE: return "infeasible";
    case GPUECON_E_CANCELED: return "canceled";
    default: return "internal error";
    }
}

void gpuecon_error_clear(gpuecon_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

/* RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. Used on YAML text before
 * libfyaml sees it (src/io/yaml.c) and by text_utf8_scrub. */
size_t text_utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            min = 0x10000;
        } else {
            return i;
        }
        unsigned cp = c & (0x3F >> n);
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return len;
}

void text_utf8_scrub(char *s)
{
    size_t len = strlen(s), i = 0;
    /* a character cut by a full buffer at the end is dropped: the lead byte of the last (up
     * to 3) bytes, all after it continuation bytes, fewer than the lead byte announces */
    for (size_t k = 1; k <= 3 && k <= len; k++) {
        unsigned c = (unsigned char)s[len - k];
        if ((c & 0xC0) == 0x80)
            continue;
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (need > k)
            s[len -= k] = '\0';
        break;
    }
    while ((i += text_utf8_invalid_at((const unsigned char *)s + i, len - i)) < len)
        s[i++] = '?';
}

void gpuecon_error_scrub(gpuecon_error *err)
{
    if (err) {
        err->where[sizeof err->where - 1] = err->message[sizeof err->message - 1] = '\0';
        text_utf8_scrub(err->where);
        text_utf8_scrub(err->message);
    }
}

int err_vset(gpuecon_error *err, int code, const char *where, int line, int col,
             const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    err->line = line;
    err->column = col;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    gpuecon_error_scrub(err);
    return code;
}

int err_set(gpuecon_error *err, int code, const char *where, int line, int col,
            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, code, where, line, col, fmt, ap);
    va_end(ap);
    return code;
}

int err_check_range(gpuecon_error *err, const char *what, double v, double lo, double hi)
{
    if (isnan(v) || isinf(v))
        return err_set(err, GPUECON_E_INPUT, what, 0, 0,
                       "%g is not a finite number; allowed %s to %s", v, NUM_BOUND(lo), NUM_BOUND(hi));
    if (v < lo || v > hi)
        return err_set(err, GPUECON_E_INPUT, what, 0, 0, "%s is out of range; allowed %s to %s", NUM_BOUND(v),
                       NUM_BOUND(lo), NUM_BOUND(hi));
    return GPUECON_OK;
}

const char *gpuecon_stage_name(gpuecon_stage stage)
{
    static const char *const names[GPUECON_STAGE_COUNT] = {
        "datasheet", "measured", "publisher-reported", "projection",
        "assumption", "derived", "fitted", "user-input"};
    return (unsigned)stage < GPUECON_STAGE_COUNT ? names[stage] : "unknown";
}

int gpuecon_exit_code(int status)
{
    switch (status) {
    case GPUECON_OK: return 0;
    case GPUECON_E_INPUT:
    case GPUECON_E_PARSE:
    case GPUECON_E_IO:
    case GPUECON_E_NOTFOUND: return 2;
    case GPUECON_E_INFEASIBLE: return 3;
    case GPUECON_E_CANCELED: return 130;
    default: return 1;
    }
}

void gpuecon_error_format(const gpuecon_error *e, char *buf, size_t cap)
{
    if (!buf || !cap)
        return;
    if (e->where[0] && e->line > 0)
        snprintf(buf, cap, "gpuecon: %s:%d:%d: %s", e->where, e->line, e->column, e->message);
    else if (e->where[0])
        snprintf(buf, cap, "gpuecon: %s: %s", e->where, e->message);
    else
        snprintf(buf, cap, "gpuecon: %s", e->message[0] ? e->message : gpuecon_status_name(e->code));
}
