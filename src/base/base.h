/*
 * base/base.h — the base layer's private declarations: what every layer of the library uses
 * (never installed; the library, its tests and benchmarks include it through their own
 * layer's header).
 *
 * Holds the context layout, the allocation helpers every file uses, the error-record
 * helpers, a small arena for catalog data, provenance (stages and sources), name
 * suggestions and dates. Functions here carry their file's prefix.
 */
#ifndef GPUECON_BASE_H
#define GPUECON_BASE_H

#include "gpuecon.h"

#include <stdarg.h>

/* ==== provenance ==================================================================== */

typedef enum gpuecon_stage {
    GPUECON_STAGE_DATASHEET,
    GPUECON_STAGE_MEASURED,
    GPUECON_STAGE_PUBLISHER_REPORTED,
    GPUECON_STAGE_PROJECTION,
    GPUECON_STAGE_ASSUMPTION,
    GPUECON_STAGE_DERIVED, /* arithmetic on other sourced numbers */
    GPUECON_STAGE_FITTED,  /* fitted on the calibration runs (gpuecon validate) */
    GPUECON_STAGE_USER_INPUT, /* given by the user for this run (e.g. --usd-per-gpu-hour) */
    GPUECON_STAGE_COUNT
} gpuecon_stage;

typedef struct gpuecon_source {
    const char *text; /* citation: paper/table, datasheet, repository file */
    gpuecon_stage stage;
} gpuecon_source;

const char *gpuecon_stage_name(gpuecon_stage stage);

/* The nearest of n candidate strings to s (edit distance), or NULL if none is close. */
const char *gpuecon_suggest(const char *s, const char *const *candidates, size_t n);

/* Parses an ISO date, "YYYY-MM" (the month's first day) or "YYYY-MM-DD", year >= 1970, into
 * days since 1970-01-01. false for anything else ("2025-13", "yesterday", "2025-02-30"). */
bool gpuecon_date_parse(const char *s, long *day);
/* "YYYY-MM-DD" of a day count (cap >= 11). */
void gpuecon_date_format(long day, char *buf, size_t cap);

struct gpuecon_ctx {
    gpuecon_ctx_config cfg;
};

/* ---- ctx.c: allocation through the context's allocator ---- */
void *ctx_alloc(gpuecon_ctx *ctx, size_t n);          /* zeroed; NULL on exhaustion */
void *ctx_realloc(gpuecon_ctx *ctx, void *p, size_t oldn, size_t newn);
void ctx_free(gpuecon_ctx *ctx, void *p, size_t n);

/* ---- error.c: filling a caller-owned error record (err may be NULL) ---- */
/* Where an error lies when it is one of the request's options: "options.<key>", the key as the
 * request's "options" object spells it (OPTION("tokens_per_s")). The layers below the request
 * never spell a command-line flag; the request layer writes the option as its command's option
 * table names it ("--tokens-per-s"), in where and in the message (cli_fail). */
#define OPTION(key) "options." key
#define OPTION_PREFIX "options."
int err_set(gpuecon_error *err, int code, const char *where, int line, int col,
            const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int err_vset(gpuecon_error *err, int code, const char *where, int line, int col,
             const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* Offset of the first byte of s[0..len) that is not well-formed UTF-8 (RFC 3629), or len. */
size_t text_utf8_invalid_at(const unsigned char *s, size_t len);
/* Makes a NUL-terminated string well-formed UTF-8 in place: a character cut at the end (a full
 * buffer) is dropped, each other byte of a malformed sequence becomes '?'. Error records and
 * the texts of comparison results pass through it, so every front end can put them in JSON
 * and HTML (an error may quote input bytes; a verdict may cut a platform's name). */
void text_utf8_scrub(char *s);
/* Range check of a named input: GPUECON_OK or GPUECON_E_INPUT with "<what>: v is ..." */
int err_check_range(gpuecon_error *err, const char *what, double v, double lo, double hi);

/* ---- strbuf.c: a growable string through the context's allocator ---- */
typedef struct strbuf {
    char *s;
    size_t len, cap;
    gpuecon_ctx *ctx; /* every allocation goes through its allocator */
    bool *oom; /* the caller's flag, set when an append runs out of memory (the text is then
                  cut short); may be NULL */
} strbuf;

void sb_init(strbuf *b, gpuecon_ctx *ctx, bool *oom);
void sb_free(strbuf *b);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void sb_write(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_putc(strbuf *b, char c);
/* Appends s with <, >, &, " and ' escaped for HTML/XML. */
void sb_escape(strbuf *b, const char *s);

/* ---- arena.c: bump allocation for long-lived catalog data ---- */
typedef struct arena_chunk arena_chunk;
typedef struct arena {
    gpuecon_ctx *ctx;
    arena_chunk *head;
} arena;
void arena_init(arena *a, gpuecon_ctx *ctx);
void *arena_alloc(arena *a, size_t n);                /* zeroed, 16-byte aligned */
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

/* ---- numfmt.c: numbers for people, the one formatter of every human output (never scientific
 * notation; JSON and CSV keep full precision). Each writes into buf and returns it; NaN is "n/a". ---- */
/* v with `decimals` decimals and ',' between thousands: 10760.4 at 0 -> "10,760". */
char *num_fixed(char *buf, size_t cap, double v, int decimals);
/* v to `sig` significant digits, trailing zeros after the point dropped: 82657 at 4 -> "82,660",
 * 0.091794 -> "0.09179", 1e-7 at 2 -> "0.0000001", 2000 -> "2,000". */
char *num_sig(char *buf, size_t cap, double v, int sig);
/* A count of things (tokens, parameters, events): "15T", "8.03B", "41.9M" (3 significant digits,
 * T/B/M for 10^12/10^9/10^6), under a million as num_sig at 4 digits ("10,600"). */
char *num_count(char *buf, size_t cap, double v);
/* A value a message quotes (an input, a derived figure): 6 significant digits without an exponent from 1e-6
 * to 1e15 ("16,384", "0.0125", "1,000,000,000"), printf's %g beyond (or "nan", "inf"). */
char *num_value(char *buf, size_t cap, double v);
/* A limit as a message states it, exact and without an exponent: "16,384", "0.001", "10M", "1B", "-1B",
 * "2.5M", "1,000,000T" (T/B/M from 10^6 up when the value is round there, else every digit: "4,194,304");
 * a value beyond any limit (1e21 and up, or below 1e-9) as printf's %g. */
char *num_bound(char *buf, size_t cap, double v);
/* Dollars: "$0.5753", "$2.253" (4 significant digits under $100), "$1,234", "$86.8k", "$8.51M",
 * "$359M" (3 significant digits in thousands or millions). */
char *num_money(char *buf, size_t cap, double usd);
/* The one framing of a difference between two costs, from the cheaper side: "20% below" is
 * 100 x (1 - cheaper/dearer), one decimal under 10% ("5.9% below"); the two are taken in either
 * order (the smaller is the cheaper). docs/cli.md, "Numbers and differences". */
char *num_below(char *buf, size_t cap, double cheaper, double dearer);
/* The same as a printf argument, in a buffer that lives until the end of the enclosing block (a
 * compound literal): sb_printf(f, "%s tokens/s", NUM_SIG(x, 4)). */
#define NUM_BUF 96
#define NUM_FIXED(v, decimals) num_fixed((char[NUM_BUF]){0}, NUM_BUF, (v), (decimals))
#define NUM_SIG(v, sig) num_sig((char[NUM_BUF]){0}, NUM_BUF, (v), (sig))
#define NUM_COUNT(v) num_count((char[NUM_BUF]){0}, NUM_BUF, (v))
#define NUM_MONEY(v) num_money((char[NUM_BUF]){0}, NUM_BUF, (v))
#define NUM_BOUND(v) num_bound((char[NUM_BUF]){0}, NUM_BUF, (v))
#define NUM_VAL(v) num_value((char[NUM_BUF]){0}, NUM_BUF, (v))
#define NUM_BELOW(cheaper, dearer) num_below((char[NUM_BUF]){0}, NUM_BUF, (cheaper), (dearer))

/* ---- suggest.c ---- */
size_t suggest_distance(const char *a, const char *b);

#endif
