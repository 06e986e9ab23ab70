/*
 * error.c — error records and the names of status codes and enums.
 *
 * The library reports every failure as a value plus a caller-owned gpuecon_error; the
 * front end decides how to show it (the CLI prints "gpuecon: where:line:col: message").
 */
#include "core.h"
#include "names.h"

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
                       "%g is not a finite number; allowed %g to %g", v, lo, hi);
    if (v < lo || v > hi)
        return err_set(err, GPUECON_E_INPUT, what, 0, 0, "%g is out of range; allowed %g to %g",
                       v, lo, hi);
    return GPUECON_OK;
}

const char *gpuecon_stage_name(gpuecon_stage stage)
{
    static const char *const names[GPUECON_STAGE_COUNT] = {
        "datasheet", "measured", "publisher-reported", "projection",
        "assumption", "derived", "fitted", "user-input"};
    return (unsigned)stage < GPUECON_STAGE_COUNT ? names[stage] : "unknown";
}

const char *const names_precision[] = {"bf16", "fp8", "fp4", NULL};
const char *const names_precision_no_fp4[] = {"bf16", "fp8", NULL};
const char *const names_tier[] = {"best", "typical", "poor", NULL};

const char *gpuecon_precision_name(gpuecon_precision p)
{
    return (unsigned)p <= GPUECON_FP4 ? names_precision[p] : "unknown";
}

double gpuecon_precision_bytes(gpuecon_precision p)
{
    switch (p) {
    case GPUECON_BF16: return 2.0;
    case GPUECON_FP8: return 1.0;
    case GPUECON_FP4: return 0.5625; /* NVFP4: 4 bits + one FP8 scale per 16 elements */
    }
    return 2.0;
}

const char *gpuecon_ffn_name(gpuecon_ffn f)
{
    switch (f) {
    case GPUECON_FFN_GELU: return "gelu";
    case GPUECON_FFN_RELU2: return "relu2";
    case GPUECON_FFN_SWIGLU: return "swiglu";
    case GPUECON_FFN_GEGLU: return "geglu";
    }
    return "unknown";
}

int gpuecon_ffn_matrices(gpuecon_ffn f)
{
    return (f == GPUECON_FFN_SWIGLU || f == GPUECON_FFN_GEGLU) ? 3 : 2;
}
