/*
 * gpuecon.h — the one public header of libgpuecon: the request contract.
 *
 * A front end (the gpuecon program, the web server, the Python module, an embedding host)
 * makes a context, optionally a catalog and a memo, and runs requests: JSON documents in, JSON
 * (or table, CSV, HTML) text out. The engine behind it (the physics, the analyses, the
 * renderers) is private to the library; docs/architecture.md maps it.
 *
 * gpuecon answers: what does it cost (dollars, days, energy, risk) to train model M on
 * T tokens, or serve it at load L, on GPU platform P — and what would change the answer?
 *
 * Conventions (binding for every function below):
 *  - Errors are values. Functions return GPUECON_OK (0) or a negative gpuecon_status and,
 *    when `err` is not NULL, fill the caller-owned gpuecon_error. The library never prints,
 *    exits or aborts on bad input.
 *  - Ownership: objects returned by *_new / *_load belong to the caller and are released with
 *    the matching *_free; every *_free(NULL) is a no-op. Strings the request functions return
 *    are released with gpuecon_free.
 *  - Results do not depend on the thread count: the same request gives the same bytes (elapsed
 *    times aside) for any `threads`.
 */
#ifndef GPUECON_H
#define GPUECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GPUECON_API __attribute__((visibility("default")))
#else
#define GPUECON_API
#endif

#define GPUECON_VERSION "0.2.0"

/* ==== status, errors ================================================================ */

typedef enum gpuecon_status {
    GPUECON_OK = 0,
    GPUECON_E_INPUT = -1,      /* a value is out of range or inconsistent */
    GPUECON_E_PARSE = -2,      /* a file is not valid YAML or not of the expected shape */
    GPUECON_E_IO = -3,         /* a file could not be read, or is too large */
    GPUECON_E_NOMEM = -4,
    GPUECON_E_NOTFOUND = -5,   /* unknown catalog name */
    GPUECON_E_INFEASIBLE = -6, /* a well-formed request that cannot be satisfied (e.g. OOM) */
    GPUECON_E_CANCELED = -7,   /* a progress callback asked to stop */
    GPUECON_E_INTERNAL = -8
} gpuecon_status;

/* Where and what. `where` is a file path or an option/field name ("" when none); line and
 * column are 1-based (0 when not applicable). Both texts are well-formed UTF-8, ready for JSON. */
typedef struct gpuecon_error {
    int code;
    char where[256];
    int line, column;
    char message[512];
} gpuecon_error;

GPUECON_API const char *gpuecon_status_name(int code);
GPUECON_API void gpuecon_error_clear(gpuecon_error *err);
/* Makes err->where and err->message well-formed UTF-8 in place: a character cut at the end is
 * dropped, each other byte of a malformed sequence becomes '?'. The library's records already
 * are; a front end that fills one itself (a parser's message may quote input bytes, a full
 * buffer may cut a character) calls this before the text goes into JSON. */
GPUECON_API void gpuecon_error_scrub(gpuecon_error *err);
/* The error line every front end shows, "gpuecon: <where>:<line>:<col>: <message>" (where and
 * position as far as known; the status's name when there is no message), into buf (cut to cap
 * bytes, always terminated). GPUECON_ERROR_LINE_MAX bytes always suffice. */
#define GPUECON_ERROR_LINE_MAX 1024
GPUECON_API void gpuecon_error_format(const gpuecon_error *err, char *buf, size_t cap);

/* ==== context ======================================================================= */

typedef struct gpuecon_ctx gpuecon_ctx;
typedef struct gpuecon_memo gpuecon_memo;
typedef struct gpuecon_catalog gpuecon_catalog;

/* Lua-style allocator: nsize == 0 frees ptr and returns NULL; otherwise (re)allocates. */
typedef void *(*gpuecon_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* Progress: return non-zero to cancel the running computation (it then returns
 * GPUECON_E_CANCELED). `done` and `total` are in the computation's own units. */
typedef int (*gpuecon_progress_fn)(void *ud, double done, double total);
/* Monotonic seconds from the caller's clock (the library reads none): only differences
 * are used, for the elapsed times some commands report. */
typedef double (*gpuecon_clock_fn)(void *ud);

/* Mirrored field for field by python/gpuecon/_core.py (_Config): add fields at the end, there too. */
typedef struct gpuecon_ctx_config {
    gpuecon_alloc_fn alloc;       /* NULL: malloc/realloc/free */
    void *alloc_ud;
    uint64_t seed;                /* base seed for every randomised computation; 0:
                                     GPUECON_DEFAULT_SEED */
    int threads;                  /* 0: OpenMP default; results never depend on it */
    gpuecon_progress_fn progress; /* may be NULL */
    void *progress_ud;
    size_t max_file_bytes;        /* 0: 4 MiB; larger input files are refused */
    gpuecon_clock_fn clock;       /* may be NULL: elapsed times are then reported as 0 */
    void *clock_ud;
    double max_work_s;            /* 0: 60. A computation whose estimated work is above this many
                                     CPU-seconds (docs/cli.md "Work budget") is refused up front
                                     with GPUECON_E_INPUT, naming the estimate */
    gpuecon_memo *memo;           /* NULL: none; else training predictions are stored and reused
                                     (gpuecon_memo_new); not owned by the context */
    const gpuecon_catalog *catalog; /* NULL: each request loads the built-in catalog (plus its
                                     "catalog" and "model_file" options); else requests use this
                                     one, read-only, and refuse those options (gpuecon serve) */
    bool no_files;                /* requests may not name a file or folder on this machine: every
                                     option whose kind is "path" (gpuecon_command_options), the
                                     global file options (catalog, model_file) and positional
                                     arguments are refused with GPUECON_E_INPUT (gpuecon serve
                                     sets it; an allow list by kind, not a deny list by name) */
    double max_work_limit_s;      /* 0: none. A request's "max_work" above this many CPU-seconds is
                                     refused (GPUECON_E_INPUT, naming the limit), read by the
                                     library's own number parser: what a server sets so that a
                                     client may lower its budget, never raise it */
} gpuecon_ctx_config;

/* The seed of a context whose config leaves it 0: every front end's (the gpuecon program, gpuecon
 * serve, Python), so their Monte Carlo answers agree. */
#define GPUECON_DEFAULT_SEED 0x9e3779b97f4a7c15ULL

/* The default work budget, estimated CPU-seconds (about a minute of one core). */
#define GPUECON_DEFAULT_MAX_WORK_S 60.0

/* Returns NULL only when memory is exhausted. cfg may be NULL (all defaults). */
GPUECON_API gpuecon_ctx *gpuecon_ctx_new(const gpuecon_ctx_config *cfg);
GPUECON_API void gpuecon_ctx_free(gpuecon_ctx *ctx);
GPUECON_API const gpuecon_ctx_config *gpuecon_ctx_get_config(const gpuecon_ctx *ctx);
/* Sets the work budget (max_work_s above) of an existing context; 0 restores the default.
 * Not thread-safe against a computation running on ctx. */
GPUECON_API void gpuecon_ctx_set_max_work(gpuecon_ctx *ctx, double seconds);

/* A store of training-step predictions that contexts share through their config's `memo`:
 * a training prediction inside a request (train, search, compare, ...) hands back a stored answer
 * for a prediction equal in every field — the same bits the search would find again — instead
 * of searching. For a
 * front end that re-runs compare as one input moves (gpuecon serve's what-if controls).
 * Thread-safe. Requests name catalog entries by pointer: use one memo with one catalog, and free
 * the memo before the catalog. Holds `capacity` answers (0: 256), the oldest replaced first;
 * cancelled and out-of-memory answers are not stored. Allocates with ctx's allocator (ctx need
 * not outlive the memo). Returns NULL when memory is exhausted. */
GPUECON_API gpuecon_memo *gpuecon_memo_new(gpuecon_ctx *ctx, size_t capacity);
GPUECON_API void gpuecon_memo_free(gpuecon_memo *m);
/* Lookups answered from the store and lookups that were not, since gpuecon_memo_new. */
GPUECON_API void gpuecon_memo_stats(gpuecon_memo *m, size_t *hits, size_t *misses);

/* Creates a catalog holding the built-in default (compiled into the library). */
GPUECON_API int gpuecon_catalog_new(gpuecon_ctx *ctx, gpuecon_catalog **out, gpuecon_error *err);
GPUECON_API void gpuecon_catalog_free(gpuecon_catalog *cat);

/* Loads any of gpus.yaml systems.yaml profiles.yaml models.yaml reliability.yaml stacks.yaml
 * timelines.yaml calibrations.yaml found in dir; their entries add to or replace (by name) the ones already loaded. Errors name
 * path:line:col. A directory holding none of these files is an error. */
GPUECON_API int gpuecon_catalog_load_dir(gpuecon_catalog *cat, const char *dir, gpuecon_error *err);
typedef struct gpuecon_scenario gpuecon_scenario;

/* A scenario document as text; `name` labels errors. Text names no files: model_file: is
 * refused (requests and gpuecon serve pass scenarios this way). */
GPUECON_API int gpuecon_scenario_load_buffer(gpuecon_ctx *ctx, const gpuecon_catalog *cat,
                                             const char *name, const char *buf, size_t len,
                                             gpuecon_scenario **out, gpuecon_error *err);
GPUECON_API void gpuecon_scenario_free(gpuecon_scenario *sc);

/* ==== requests: one entry point for every front end (src/request/request.c) ========== */

/* A request is a JSON object
 *   {"command": "train", "options": {"model": "llama3-70b", "gpus": 512, ...}, "args": [...]}
 * with the command line's option names less the leading dashes, inner dashes as underscores
 * ("--tokens-per-s" is "tokens_per_s"); numbers as JSON numbers (or strings in the command
 * line's syntax: "15T", "64,128,...,1024"), flags as true/false, lists as arrays; "args"
 * holds the positional arguments (catalog's kind and name, compare's scenario file). Global
 * options: "format" ("json" by default, "table", "csv", "html"), "catalog" (a directory),
 * "model_file", "max_work" (the work budget of this request, CPU-seconds), "help". docs/api/
 * has the JSON Schemas of requests and responses. */
typedef struct gpuecon_command_info {
    const char *name;    /* "train" */
    const char *summary; /* one line */
} gpuecon_command_info;

/* The i-th command (0-based), NULL past the last. */
GPUECON_API const gpuecon_command_info *gpuecon_command_at(size_t i);

/* Runs a request. *response_json gets what `gpuecon <command> --json` prints (byte for byte,
 * elapsed times aside), or the table/CSV/HTML text for another "format", or the help text for
 * "help": true; release it with gpuecon_free. Returns GPUECON_OK, or a negative status with
 * err filled (where: the option as the command line spells it, e.g. "--gpus", or "request"
 * for the request's own shape; line/column for JSON syntax errors). Some failures still come
 * with a response (an infeasible training job returns its nearest miss with
 * GPUECON_E_INFEASIBLE); *response_json is NULL otherwise. */
GPUECON_API int gpuecon_request(gpuecon_ctx *ctx, const char *request_json, char **response_json,
                                gpuecon_error *err);
/* The same, with *notes (may be NULL) receiving what a command line would show on stderr
 * (errors and warnings, one "gpuecon: ..." line each; "" when none); free with gpuecon_free. */
GPUECON_API int gpuecon_request_full(gpuecon_ctx *ctx, const char *request_json, char **output, char **notes,
                                     gpuecon_error *err);
/* The same, with *plots (may be NULL) receiving the charts the request asks for (--plot FILE.svg)
 * as a JSON array, NULL when there are none: [{"path": "sweep.svg", "gnuplot": "<script>",
 * "required": false, "announce": true}]. The library runs no program and writes no file: a front
 * end runs each script through gnuplot (on its standard input), which writes the SVG at path.
 * When it cannot, a required chart fails the request (the gpuecon program exits 2 with
 * "gpuecon: --plot: <why>" and prints nothing else), any other is a note; a chart drawn with
 * "announce" gets the note "gpuecon: wrote <path>". An entry with "text" instead of "gnuplot" is a file
 * to write as it is (calibrate's overlay, {"path", "text", "dir", "required", "announce"}: the front end
 * makes the folder "dir" first). Without plots (gpuecon_request_full) no chart
 * is drawn and a note says so. Free *plots with gpuecon_free. */
GPUECON_API int gpuecon_request_plots(gpuecon_ctx *ctx, const char *request_json, char **output, char **notes,
                                      char **plots, gpuecon_error *err);
/* Turns a command line (argv[0] = the command, then its options and arguments, without -o)
 * into a request, checking every option as gpuecon_request would and with the same error
 * records. *request_json (release with gpuecon_free) is compact JSON. */
GPUECON_API int gpuecon_request_from_argv(gpuecon_ctx *ctx, int argc, char **argv, char **request_json,
                                          gpuecon_error *err);
/* A command's options as JSON: {"command": ..., "options": [{"name": "tokens_per_s", "option":
 * "--tokens-per-s", "kind": "flag|number|integer|string|choice|list", "help": ..., "minimum",
 * "maximum" (numbers, lists), "choices" (choice)}, ...], "positional": N} — for front ends that
 * build forms or check arguments, and for docs/api/request.schema.json. The global options
 * (format, catalog, model_file, help) are not listed. Free with gpuecon_free. */
GPUECON_API int gpuecon_command_options(gpuecon_ctx *ctx, const char *name, char **options_json,
                                        gpuecon_error *err);
/* The process exit code of a status, the command-line contract's (docs/cli.md): 0 for
 * GPUECON_OK; 2 for a usage or input error (GPUECON_E_INPUT, _PARSE, _IO, _NOTFOUND); 3 for an
 * infeasible request; 130 for a cancelled one (as a shell reports SIGINT); 1 otherwise. */
GPUECON_API int gpuecon_exit_code(int status);
/* Releases a string returned by the request functions, through the allocator of the context that
 * made it (which must still be callable; the context itself may be gone). NULL is a no-op. */
GPUECON_API void gpuecon_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* GPUECON_H */

