/*
 * core.h — private declarations shared by the library's files (never installed).
 *
 * Holds the context layout, the allocation helpers every file uses, the error-record
 * helpers, and a small arena for catalog data. Functions here carry their file's prefix.
 */
#ifndef GPUECON_CORE_H
#define GPUECON_CORE_H

#include "gpuecon.h"

#include <stdarg.h>

/* ---- the vTrain calibration runs (Bang et al. MICRO 2024), compiled in from data/: parsed when
 * the catalog is made (catalog.c), read by validate.c through the catalog ---- */
#define CALIB_VTRAIN_PATH "data/calibration/vtrain-a100-multinode.csv"
typedef struct calib_vtrain_row {
    /* params (B), GPUs, global batch, micro batch, hidden, heads, layers, sequence, TP, DP, PP,
       iteration time (ms): the CSV's columns */
    double f[12];
    int line; /* in the CSV */
} calib_vtrain_row;
/* The catalog's vTrain rows in file order (*n of them); NULL when the CSV is not compiled in. */
const calib_vtrain_row *catalog_vtrain(const gpuecon_catalog *cat, size_t *n);

struct gpuecon_ctx {
    gpuecon_ctx_config cfg;
};

/* ---- ctx.c: allocation through the context's allocator ---- */
void *ctx_alloc(gpuecon_ctx *ctx, size_t n);          /* zeroed; NULL on exhaustion */
void *ctx_realloc(gpuecon_ctx *ctx, void *p, size_t oldn, size_t newn);
void ctx_free(gpuecon_ctx *ctx, void *p, size_t n);

/* ---- error.c: filling a caller-owned error record (err may be NULL) ---- */
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

/* ---- flops.c ---- */
/* Attention projection weights of layer l (q, k, v, o; MLA's low-rank projections). */
double flops_attention_params(const gpuecon_model *m, const gpuecon_layer *l);

/* ---- timeline.c ---- */
/* Index of the point in force on `day` (the latest dated on or before it), or -1. */
int timeline_in_force(const gpuecon_timeline_point *p, size_t n, long day);
/* Throughput on `day`, interpolated linearly between points; `before` (if > 0, else the
 * first point's) before the first point; the last point's after it. */
double timeline_interp(const gpuecon_timeline_point *p, size_t n, long day, double before);
/* A run of `tokens` from day `start`, at cluster_per_tok tokens per day per tokens/s/GPU
 * (GPUs · ETTR · 86400), using the point in force each day (`before` ahead of the first):
 * returns the equivalent constant throughput (tokens-weighted harmonic mean) and marks the
 * points used; NaN when no throughput is in force at the start. */
double timeline_run(const gpuecon_timeline_point *p, size_t n, long start, double before, double tokens,
                    double cluster_per_tok, bool *used);

/* ---- memo.c: stored training predictions (gpuecon_memo); thread-safe ---- */
/* Copies a stored answer to *rc, *res and err (may be NULL); false when there is none. */
bool memo_get(gpuecon_memo *m, const gpuecon_train_request *req, int *rc, gpuecon_train_result *res,
              gpuecon_error *err);
/* Stores an answer (not a cancelled or out-of-memory one), replacing the oldest when full. */
void memo_put(gpuecon_memo *m, const gpuecon_train_request *req, int rc, const gpuecon_train_result *res,
              const gpuecon_error *err);

/* ---- suggest.c ---- */
size_t suggest_distance(const char *a, const char *b);

#endif
