/*
 * runlog.c — reads the measured figures out of the files a user already has, for `gpuecon
 * calibrate` (RUNS.yaml `log:`): training logs of Megatron-LM (and Megatron-Bridge), NeMo and
 * torchtitan, MLPerf Inference's mlperf_log_summary.txt and nccl-tests output. The format is
 * recognised from the content. Each line shape below is the one the named project prints, at the
 * commit given:
 *
 *   Megatron-LM  megatron/training/training.py training_log(), NVIDIA/Megatron-LM@d98e8a64:
 *     " [2025-08-01 07:19:50] iteration        2/    5000 | consumed samples:          256 |
 *       elapsed time per iteration (ms): 12936.1 | throughput per GPU (TFLOP/s/GPU): 118.7 | ...
 *       global batch size:   128 | lm loss: ... |"   (one line; older versions have no timestamp and
 *     no throughput). The time is the mean over the log interval.
 *   Megatron-Bridge  src/megatron/bridge/training/utils/train_utils.py,
 *     NVIDIA-NeMo/Megatron-Bridge@067f987d: the same iteration line, and
 *     "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU" on a line of its own.
 *   NeMo 2  nemo/lightning/pytorch/callbacks/progress_printer.py (ProgressPrinter) with the
 *     TimingCallback of nemo/utils/exp_manager.py ("train_step_timing in s", "tokens_per_sec_per_gpu")
 *     and nemo/lightning/pytorch/callbacks/flops_callback.py ("TFLOPS_per_GPU"), NVIDIA/NeMo@8cfedd72:
 *     "Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | global_step: 1 |
 *      reduced_train_loss: 1.653 | train_step_timing in s: 2.505 | consumed_samples: 16"
 *     (values printed with 4 significant digits). Lightning's progress bar prints the same metrics
 *     as "train_step_timing in s=3.130" inside a tqdm bar that redraws itself with '\r'; NeMo's
 *     DLLogger JSON spells them "train_step_timing in s": 92.28. All three are read.
 *   torchtitan  torchtitan/components/metrics.py MetricsProcessor.log(), pytorch/torchtitan@b5bcd76c:
 *     "[titan] 2025-.. - root - INFO - \e[31mstep: 10  \e[32mloss:  9.8  \e[38;2;180;60;0mgrad_norm:
 *      1.2  \e[38;2;54;234;195mmemory: 33.65GiB(42.56%)  \e[34mtps: 6,782  \e[36mtflops: 392.91
 *      \e[35mmfu: 39.73%\e[39m" — ANSI colour codes, thousands separators, "mfu: N/A" under
 *     quantisation; versions before torchtitan@4d182a13 (train.py, November 2024) print "wps:" for the
 *     same tokens/s/device.
 *     Lines "validate step: ..." are validation and are not read.
 *   MLPerf Inference LoadGen  loadgen/results.cc PerformanceSummary::LogSummary(),
 *     mlcommons/inference@b66003e1: "Scenario : Server", "Result is : VALID", "Samples per second:
 *     92.1544" (Offline) / "Completed samples per second    : 81.68" (Server), "Tokens per second:"
 *     / "Completed tokens per second:" (and their "(inferred)" forms), "Mean First Token latency
 *     (ns)", "Mean Time per Output Token (ns)" (older LoadGen: "Mean Time to Output Token (ns)"),
 *     "99.00 percentile first token latency (ns)", "99.00 percentile time to output token (ns)".
 *   nccl-tests  src/util.cu (writeDeviceReport, writeResultHeader, writeBenchmarkLine*,
 *     writeResultFooter), NVIDIA/nccl-tests@a0b82b22: "# nThread 1 nGpus 8 minBytes ...",
 *     "#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:18:00] NVIDIA H100 80GB HBM3" (older:
 *     "#   Rank  0 Pid ..." / "#   Rank  0 on host ..."), the header "#  size  count  type  redop
 *     root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong", rows "%12li  %12li  %8s  %6s
 *     %6s" then "%7s  %6s  %6s" time (us), algbw, busbw (GB/s) out-of-place then in-place (numbers
 *     may be printed as "1.2e+05"), and "# Avg bus bandwidth    : 123.4".
 *   dgxc-benchmarking  common/parse_train_timing.sh and common/parse_train_timing_mbridge.sh,
 *     NVIDIA/dgxc-benchmarking@ef2f6c2: the analysis table or CSV of runs already averaged (dgxc()).
 *
 * Key choices:
 * - Training figures are medians over the report lines after the first max(1, n/5) of them (n
 *   lines), which are left out as warm-up: the first report always carries one-time costs
 *   (torchtitan logs step 1 on its own; Megatron-LM logs the first iteration on its own "to
 *   document initialization overhead"; compilation, CUDA-graph capture, NCCL communicator setup,
 *   allocator growth), and CUDA-graph capture or autotuning can land in the next few steps. The
 *   median, not the mean, so that a checkpoint save or a straggler step among the rest moves it
 *   little. At least 2 report lines are needed. docs/model.md "Measured runs read from logs".
 * - A line that names a figure but whose number does not read is an error at file:line:col; so
 *   is a figure that is not finite ("nan", "inf"), negative or above 1e15 in its printed unit.
 *   The last line is left out when no newline ends it (a log still being written ends mid-line,
 *   and a cut number would read as a wrong one).
 * - '\r' separates reports as '\n' does (tqdm redraws), "\r\n" ends a line, ANSI escape sequences
 *   are dropped before matching; columns in errors count bytes of the line as it is in the file.
 * - Where a file holds lines of several formats, the one with the most figure lines is read.
 * - nccl-tests: the first test of the file (rows up to its "# Avg bus bandwidth" line); the
 *   out-of-place columns; ranks from the device lines ("# Rank N"), else nThread x nGpus.
 */
#include "io/runlog.h"
#include "yaml.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIGURE_MAX 1e15
#define MAX_NCCL_POINTS 100000

const char *runlog_format_name(runlog_format f)
{
    switch (f) {
    case RUNLOG_MEGATRON:
        return "megatron";
    case RUNLOG_NEMO:
        return "nemo";
    case RUNLOG_TORCHTITAN:
        return "torchtitan";
    case RUNLOG_MLPERF:
        return "mlperf";
    case RUNLOG_NCCL_TESTS:
        return "nccl-tests";
    case RUNLOG_UNKNOWN:
        break;
    }
    return "unknown";
}

/* ---- series of per-report values ---------------------------------------------------- */

enum {
    S_MEG_STEP,   /* Megatron iteration line, ms */
    S_MEG_TFLOPS, /* "throughput per GPU (TFLOP/s/GPU)" */
    S_MEG_GBS,
    S_MB_STEP,    /* Megatron-Bridge "Step Time : Xs" */
    S_MB_TFLOPS,  /* "GPU utilization: YMODEL_TFLOP/s/GPU" */
    S_NEMO_STEP,
    S_NEMO_TFLOPS,
    S_NEMO_TPS,
    S_NEMO_GBS,
    S_TT_TPS,
    S_TT_TFLOPS,
    S_TT_MFU,
    S_COUNT
};

typedef struct sample {
    double v;
    int line;
} sample;

typedef struct series {
    sample *x; /* one allocation, so that a failed growth leaves it whole */
    size_t n, cap;
} series;

typedef struct scan {
    gpuecon_ctx *ctx;
    const char *name;
    gpuecon_error *err;
    int line;          /* current line, 1-based */
    const char *c;     /* the current report with escapes dropped, NUL-ended */
    size_t clen;
    const int *col;    /* col[i]: 0-based byte column in the file's line of c[i] */
    series s[S_COUNT];
    /* MLPerf summary */
    bool ml_seen, ml_done, ml_valid_seen;
    int ml_lines, ml_first, ml_last;
    /* nccl-tests */
    bool nc_seen, nc_table, nc_done, nc_name_seen;
    int nc_header_ranks, nc_max_rank, nc_first, nc_last;
    runlog_nccl_point *pts;
    size_t npts, cappts;
    /* Megatron-LM arguments block */
    double seq_len, world;
    /* dgxc-benchmarking analysis table */
    double dg_unit, dg_time, dg_tflops;
    bool dg_csv, dg_done;
    int dg_a, dg_b, dg_rows, dg_line;
    runlog_format dg_fmt;
    runlog *out;
} scan;

static int oom(scan *sc)
{
    return err_set(sc->err, GPUECON_E_NOMEM, sc->name, 0, 0, "out of memory");
}

static int push(scan *sc, int id, double v)
{
    series *s = &sc->s[id];
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        sample *nx = ctx_realloc(sc->ctx, s->x, s->cap * sizeof *s->x, nc * sizeof *s->x);
        if (!nx)
            return oom(sc);
        s->x = nx;
        s->cap = nc;
    }
    s->x[s->n].v = v;
    s->x[s->n].line = sc->line;
    s->n++;
    return GPUECON_OK;
}

static void series_free(scan *sc)
{
    for (int i = 0; i < S_COUNT; i++)
        ctx_free(sc->ctx, sc->s[i].x, sc->s[i].cap * sizeof *sc->s[i].x);
    ctx_free(sc->ctx, sc->pts, sc->cappts * sizeof *sc->pts);
}

/* Report lines left out as warm-up of n: the first max(1, n/5). */
static size_t warmup_of(size_t n)
{
    return n / 5 > 1 ? n / 5 : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of s after its warm-up; 0 (and nothing read) with fewer than 2 values. Sets the first
 * and last line used. */
static int median(scan *sc, int id, double *m, int *first, int *last)
{
    series *s = &sc->s[id];
    *m = 0;
    if (s->n < 2)
        return GPUECON_OK;
    size_t w = warmup_of(s->n), k = s->n - w;
    double *t = ctx_alloc(sc->ctx, k * sizeof *t);
    if (!t)
        return oom(sc);
    for (size_t i = 0; i < k; i++)
        t[i] = s->x[w + i].v;
    qsort(t, k, sizeof *t, cmp_double);
    *m = k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
    ctx_free(sc->ctx, t, k * sizeof *t);
    if (first && (!*first || s->x[w].line < *first))
        *first = s->x[w].line;
    if (last && s->x[s->n - 1].line > *last)
        *last = s->x[s->n - 1].line;
    return GPUECON_OK;
}

/* ---- text helpers on the current report --------------------------------------------- */

/* Offset of pat in the report at or after `from`, or -1. */
static long find(const scan *sc, size_t from, const char *pat)
{
    if (from > sc->clen)
        return -1;
    const char *p = strstr(sc->c + from, pat);
    return p ? (long)(p - sc->c) : -1;
}

static bool word_start(const scan *sc, long at)
{
    return at == 0 || !(isalnum((unsigned char)sc->c[at - 1]) || sc->c[at - 1] == '_');
}

static int bad_number(scan *sc, size_t at, size_t len, const char *what, const char *why)
{
    return err_set(sc->err, GPUECON_E_INPUT, sc->name, sc->line, sc->col[at < sc->clen ? at : sc->clen] + 1,
                   "%s: '%.*s' %s", what, (int)(len > 24 ? 24 : len), sc->c + at, why);
}

/* Reads the figure that starts at offset at (spaces skipped first): digits with an optional
 * fraction and exponent (with `commas`, ',' between groups of three digits as well); nan and inf
 * are recognised to be refused. `suffix` (or NULL): the unit that must follow it, after blanks
 * or none ("9.09s", "663.5MODEL_TFLOP/s/GPU"); otherwise what follows must not be a letter, a digit,
 * '.' or '_', nor ',' and a digit.
 * Returns GPUECON_OK with *v, or an error at the figure's column. */
static int figure(scan *sc, size_t at, const char *suffix, bool commas, const char *what, double *v)
{
    while (at < sc->clen && (sc->c[at] == ' ' || sc->c[at] == '\t'))
        at++;
    const char *c = sc->c;
    size_t n = sc->clen, i = at, digits = 0, b = 0;
    char buf[64];
    bool dot = false, exp = false, too_long = false;
    if (i < n && (c[i] == '-' || c[i] == '+'))
        buf[b++] = c[i++];
    if (i + 3 <= n && (!strncasecmp(c + i, "nan", 3) || !strncasecmp(c + i, "inf", 3))) {
        size_t e = i + 3;
        while (e < n && isalpha((unsigned char)c[e]) && e - at < 24)
            e++;
        return bad_number(sc, at, e - at, what, "is not a finite number");
    }
    for (; i < n; i++) {
        if (b + 3 >= sizeof buf) {
            too_long = true;
            break;
        }
        char ch = c[i];
        if (isdigit((unsigned char)ch)) {
            digits++;
            buf[b++] = ch;
        } else if (ch == ',' && commas && digits && !dot && !exp && i + 3 < n && isdigit((unsigned char)c[i + 1]) &&
                   isdigit((unsigned char)c[i + 2]) && isdigit((unsigned char)c[i + 3]) &&
                   (i + 4 >= n || !isdigit((unsigned char)c[i + 4]))) {
            continue; /* a thousands separator */
        } else if (ch == '.' && !dot && !exp) {
            dot = true;
            buf[b++] = ch;
        } else if ((ch == 'e' || ch == 'E') && digits && !exp && i + 1 < n &&
                   (isdigit((unsigned char)c[i + 1]) ||
                    ((c[i + 1] == '-' || c[i + 1] == '+') && i + 2 < n && isdigit((unsigned char)c[i + 2])))) {
            exp = true;
            buf[b++] = 'e';
            buf[b++] = c[++i];
        } else {
            break;
        }
    }
    buf[b] = 0;
    size_t end = i, t = i;
    bool tail_ok;
    if (suffix) {
        while (t < n && c[t] == ' ')
            t++;
        tail_ok = t + strlen(suffix) <= n && !strncmp(c + t, suffix, strlen(suffix));
    } else {
        tail_ok = end >= n || !(isalnum((unsigned char)c[end]) || c[end] == '.' || c[end] == '_');
    }
    /* "6,78x" or "1,2345": digits after a ',' that is no thousands separator */
    if (end + 1 < n && c[end] == ',' && isdigit((unsigned char)c[end + 1]))
        tail_ok = false;
    if (!digits || !tail_ok || too_long) {
        size_t e = end;
        while (e < n && !isspace((unsigned char)c[e]) && c[e] != '|' && e - at < 24)
            e++;
        return bad_number(sc, at, e > at ? e - at : 1, what,
                          suffix ? "is not a number followed by its unit" : "is not a number");
    }
    char *ep;
    double x = strtod(buf, &ep);
    if (*ep)
        return bad_number(sc, at, end - at, what, "is not a number");
    if (!isfinite(x) || x > FIGURE_MAX)
        return bad_number(sc, at, end - at, what, "is out of range (allowed 0 to 1e15)");
    if (x < 0)
        return bad_number(sc, at, end - at, what, "is negative");
    *v = x;
    return GPUECON_OK;
}

/* Finds `label` (at a word start) at or after from; then an optional '"', blanks and one of the
 * separators in seps; reads the figure after it into series id. Returns GPUECON_OK whether or not
 * the label is there (*found says); an error where the label is there and its number is not. */
static int labelled(scan *sc, size_t from, const char *label, const char *seps, const char *suffix, bool commas,
                    int id, bool *found)
{
    if (found)
        *found = false;
    long at = (long)from - 1;
    while ((at = find(sc, (size_t)at + 1, label)) >= 0) {
        if (!word_start(sc, at))
            continue;
        size_t p = (size_t)at + strlen(label);
        if (p < sc->clen && sc->c[p] == '"')
            p++;
        while (p < sc->clen && (sc->c[p] == ' ' || sc->c[p] == '\t'))
            p++;
        if (p >= sc->clen || !strchr(seps, sc->c[p]))
            continue;
        p++;
        double v;
        int rc = figure(sc, p, suffix, commas, label, &v);
        if (rc)
            return rc;
        if (found)
            *found = true;
        return push(sc, id, v);
    }
    return GPUECON_OK;
}

/* ---- training logs -------------------------------------------------------------------- */

/* Megatron-LM's arguments block (megatron/training/arguments.py _print_args at d98e8a64):
 * "  seq_length ...................................... 4096"; the first value of each is kept. */
static void megatron_arg(scan *sc, const char *key, double *dst)
{
    size_t k = strlen(key), p = 0;
    while (p < sc->clen && sc->c[p] == ' ')
        p++;
    if (*dst || p == 0 || p + k + 3 > sc->clen || strncmp(sc->c + p, key, k) || sc->c[p + k] != ' ' ||
        sc->c[p + k + 1] != '.')
        return;
    p += k + 1;
    while (p < sc->clen && sc->c[p] == '.')
        p++;
    if (p >= sc->clen || sc->c[p] != ' ')
        return;
    char *e;
    double v = strtod(sc->c + p + 1, &e);
    if (e != sc->c + p + 1 && (size_t)(e - sc->c) == sc->clen && v >= 1 && v <= 1e9 && v == floor(v))
        *dst = v;
}

static int megatron(scan *sc)
{
    megatron_arg(sc, "seq_length", &sc->seq_len);
    megatron_arg(sc, "world_size", &sc->world);
    bool step;
    int rc = labelled(sc, 0, "elapsed time per iteration (ms)", ":", NULL, false, S_MEG_STEP, &step);
    if (rc || !step) {
        if (rc)
            return rc;
        /* Megatron-Bridge: "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU" */
        if (find(sc, 0, "MODEL_TFLOP/s/GPU") < 0)
            return GPUECON_OK;
        if ((rc = labelled(sc, 0, "Step Time", ":", "s", false, S_MB_STEP, NULL)))
            return rc;
        return labelled(sc, 0, "GPU utilization", ":", "MODEL_TFLOP/s/GPU", false, S_MB_TFLOPS, NULL);
    }
    if ((rc = labelled(sc, 0, "throughput per GPU (TFLOP/s/GPU)", ":", NULL, false, S_MEG_TFLOPS, NULL)))
        return rc;
    return labelled(sc, 0, "global batch size", ":", NULL, false, S_MEG_GBS, NULL);
}

static int nemo(scan *sc)
{
    bool step;
    int rc = labelled(sc, 0, "train_step_timing in s", ":=", NULL, false, S_NEMO_STEP, &step);
    if (rc || !step)
        return rc;
    if ((rc = labelled(sc, 0, "TFLOPS_per_GPU", ":=", NULL, false, S_NEMO_TFLOPS, NULL)) ||
        (rc = labelled(sc, 0, "tokens_per_sec_per_gpu", ":=", NULL, false, S_NEMO_TPS, NULL)))
        return rc;
    return labelled(sc, 0, "global_batch_size", ":=", NULL, false, S_NEMO_GBS, NULL);
}

static int torchtitan(scan *sc)
{
    long st = -1;
    while ((st = find(sc, (size_t)(st + 1), "step:")) >= 0) {
        if (!word_start(sc, st))
            continue;
        /* "validate step:" is a validation report */
        long v = st - 1;
        while (v >= 0 && sc->c[v] == ' ')
            v--;
        if (v >= 7 && !strncmp(sc->c + v - 7, "validate", 8))
            return GPUECON_OK;
        break;
    }
    if (st < 0)
        return GPUECON_OK;
    bool tps;
    int rc = labelled(sc, (size_t)st, "tps", ":", NULL, true, S_TT_TPS, &tps);
    if (!rc && !tps)
        rc = labelled(sc, (size_t)st, "wps", ":", NULL, true, S_TT_TPS, &tps);
    if (rc || !tps)
        return rc;
    if ((rc = labelled(sc, (size_t)st, "tflops", ":", NULL, true, S_TT_TFLOPS, NULL)))
        return rc;
    long m = find(sc, (size_t)st, "mfu:");
    if (m >= 0) {
        size_t p = (size_t)m + 4;
        while (p < sc->clen && sc->c[p] == ' ')
            p++;
        if (!strncmp(sc->c + p, "N/A", 3))
            return GPUECON_OK; /* no MFU under quantisation */
        double x;
        if ((rc = figure(sc, p, "%", false, "mfu", &x)))
            return rc;
        return push(sc, S_TT_MFU, x / 100);
    }
    return GPUECON_OK;
}

/* ---- MLPerf Inference summary --------------------------------------------------------- */

static int mlperf(scan *sc)
{
    if (find(sc, 0, "MLPerf Results Summary") >= 0) {
        if (sc->ml_seen && sc->ml_lines)
            sc->ml_done = true; /* a second summary in one file: the first is read */
        sc->ml_seen = true;
        return GPUECON_OK;
    }
    if (!sc->ml_seen || sc->ml_done)
        return GPUECON_OK;
    if (find(sc, 0, "Test Parameters Used") >= 0) {
        sc->ml_done = true;
        return GPUECON_OK;
    }
    size_t a = 0;
    while (a < sc->clen && (sc->c[a] == ' ' || sc->c[a] == '\t'))
        a++;
    const char *colon = memchr(sc->c + a, ':', sc->clen - a);
    if (!colon)
        return GPUECON_OK;
    size_t k = (size_t)(colon - sc->c), ke = k;
    while (ke > a && (sc->c[ke - 1] == ' ' || sc->c[ke - 1] == '\t'))
        ke--;
    size_t klen = ke - a, vat = k + 1;
    const char *key = sc->c + a;
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(key, s, klen))
    runlog *o = sc->out;
    double x, scale = 1;
    double *dst = NULL;
    bool inferred = false;
    if (KEY("Scenario")) {
        while (vat < sc->clen && sc->c[vat] == ' ')
            vat++;
        size_t e = vat;
        while (e < sc->clen && !isspace((unsigned char)sc->c[e]))
            e++;
        snprintf(o->scenario, sizeof o->scenario, "%.*s", (int)(e - vat), sc->c + vat);
        return GPUECON_OK;
    }
    if (KEY("Result is")) {
        while (vat < sc->clen && sc->c[vat] == ' ')
            vat++;
        o->valid = !strncmp(sc->c + vat, "VALID", 5);
        sc->ml_valid_seen = true;
        return GPUECON_OK;
    }
    if (KEY("Samples per second") || KEY("Completed samples per second"))
        dst = &o->samples_per_s;
    else if (KEY("Tokens per second") || KEY("Completed tokens per second"))
        dst = &o->tokens_per_s;
    else if (KEY("Tokens per second (inferred)") || KEY("Completed tokens per second (inferred)"))
        dst = &o->tokens_per_s, inferred = true;
    else if (KEY("Mean First Token latency (ns)"))
        dst = &o->ttft_ms, scale = 1e-6;
    else if (KEY("Mean Time per Output Token (ns)") || KEY("Mean Time to Output Token (ns)"))
        dst = &o->tpot_ms, scale = 1e-6;
    else if (KEY("99.00 percentile first token latency (ns)"))
        dst = &o->ttft_p99_ms, scale = 1e-6;
    else if (KEY("99.00 percentile time to output token (ns)"))
        dst = &o->tpot_p99_ms, scale = 1e-6;
#undef KEY
    if (!dst)
        return GPUECON_OK;
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(klen < 60 ? klen : 60), key);
    int rc = figure(sc, vat, NULL, false, what, &x);
    if (rc)
        return rc;
    if (inferred && *dst > 0 && !o->tokens_inferred)
        return GPUECON_OK; /* counted tokens win over the inferred figure */
    *dst = x * scale;
    if (dst == &o->tokens_per_s)
        o->tokens_inferred = inferred;
    if (!sc->ml_first)
        sc->ml_first = sc->line;
    sc->ml_last = sc->line;
    sc->ml_lines++;
    return GPUECON_OK;
}

/* ---- nccl-tests ----------------------------------------------------------------------- */

/* Whitespace-separated token i of the report: [*s, *e); false if there are fewer. */
static bool token(const scan *sc, int i, size_t *s, size_t *e)
{
    size_t p = 0;
    for (int k = 0;; k++) {
        while (p < sc->clen && isspace((unsigned char)sc->c[p]))
            p++;
        if (p >= sc->clen)
            return false;
        size_t q = p;
        while (q < sc->clen && !isspace((unsigned char)sc->c[q]))
            q++;
        if (k == i) {
            *s = p;
            *e = q;
            return true;
        }
        p = q;
    }
}

static bool whole_token(const scan *sc, size_t s, size_t e)
{
    if (s == e || e - s > 19)
        return false;
    for (size_t i = s; i < e; i++)
        if (!isdigit((unsigned char)sc->c[i]))
            return false;
    return true;
}

static int nccl(scan *sc)
{
    size_t a = 0;
    while (a < sc->clen && (sc->c[a] == ' ' || sc->c[a] == '\t'))
        a++;
    if (a < sc->clen && sc->c[a] == '#') {
        long at;
        if ((at = find(sc, a, "Collective test starting:")) >= 0) {
            sc->nc_seen = true;
            if (sc->npts) {
                sc->nc_done = true; /* a second test in one file: the first is read */
                return GPUECON_OK;
            }
            if (!sc->nc_name_seen) {
                size_t p = (size_t)at + strlen("Collective test starting:");
                while (p < sc->clen && sc->c[p] == ' ')
                    p++;
                size_t e = p;
                while (e < sc->clen && !isspace((unsigned char)sc->c[e]))
                    e++;
                snprintf(sc->out->collective, sizeof sc->out->collective, "%.*s", (int)(e - p), sc->c + p);
                sc->nc_name_seen = true;
            }
            return GPUECON_OK;
        }
        if (sc->nc_done)
            return GPUECON_OK;
        if ((at = find(sc, a, "nThread ")) >= 0) {
            sc->nc_seen = true;
            long g = find(sc, (size_t)at, "nGpus ");
            char *e1, *e2;
            long t = strtol(sc->c + at + 8, &e1, 10);
            long n = g >= 0 ? strtol(sc->c + g + 6, &e2, 10) : 0;
            if (t > 0 && n > 0 && t <= 4096 && n <= 4096)
                sc->nc_header_ranks = (int)(t * n);
            return GPUECON_OK;
        }
        size_t s, e;
        /* "#  Rank  0 Group  0 Pid ..." / "#   Rank  0 Pid ..." / "#   Rank  0 on ..." */
        if (token(sc, 1, &s, &e) && e - s == 4 && !memcmp(sc->c + s, "Rank", 4) && token(sc, 0, &s, &e) && e - s == 1) {
            size_t rs, re;
            if (token(sc, 2, &rs, &re) && whole_token(sc, rs, re)) {
                long r = strtol(sc->c + rs, NULL, 10);
                if (r >= 0 && r < 1000000 && r > sc->nc_max_rank - 1)
                    sc->nc_max_rank = (int)r + 1;
                sc->nc_seen = true;
            }
            return GPUECON_OK;
        }
        if (find(sc, a, "size") >= 0 && find(sc, a, "count") >= 0 && find(sc, a, "redop") >= 0 &&
            find(sc, a, "busbw") >= 0) {
            sc->nc_seen = sc->nc_table = true;
            return GPUECON_OK;
        }
        if ((at = find(sc, a, "Avg bus bandwidth")) >= 0 && sc->nc_seen) {
            size_t p = (size_t)at + strlen("Avg bus bandwidth");
            while (p < sc->clen && sc->c[p] == ' ')
                p++;
            if (p < sc->clen && sc->c[p] == ':') {
                double x;
                int rc = figure(sc, p + 1, NULL, false, "Avg bus bandwidth", &x);
                if (rc)
                    return rc;
                sc->out->avg_busbw_gbps = x;
            }
            if (sc->npts)
                sc->nc_done = true;
            return GPUECON_OK;
        }
        return GPUECON_OK;
    }
    if (!sc->nc_table || sc->nc_done)
        return GPUECON_OK;
    /* a row: size and count are whole numbers (other lines, e.g. NCCL INFO, are passed over) */
    size_t s0, e0, s1, e1;
    if (!token(sc, 0, &s0, &e0) || !token(sc, 1, &s1, &e1) || !whole_token(sc, s0, e0) || !whole_token(sc, s1, e1))
        return GPUECON_OK;
    runlog_nccl_point pt = {0, 0, 0, 0};
    pt.bytes = strtod(sc->c + s0, NULL);
    static const char *const col[3] = {"time (us)", "algbw (GB/s)", "busbw (GB/s)"};
    double *dst[3] = {&pt.time_us, &pt.algbw_gbps, &pt.busbw_gbps};
    for (int i = 0; i < 3; i++) {
        size_t s, e;
        if (!token(sc, 5 + i, &s, &e))
            return err_set(sc->err, GPUECON_E_INPUT, sc->name, sc->line, sc->col[sc->clen ? sc->clen - 1 : 0] + 1,
                           "nccl-tests row without its %s column; a row is: size count type redop root time "
                           "algbw busbw ...",
                           col[i]);
        int rc = figure(sc, s, NULL, false, col[i], dst[i]);
        if (rc)
            return rc;
    }
    if (sc->npts >= MAX_NCCL_POINTS)
        return err_set(sc->err, GPUECON_E_INPUT, sc->name, sc->line, 1, "more than %d nccl-tests rows",
                       MAX_NCCL_POINTS);
    if (sc->npts == sc->cappts) {
        size_t nc = sc->cappts ? sc->cappts * 2 : 32;
        runlog_nccl_point *np = ctx_realloc(sc->ctx, sc->pts, sc->cappts * sizeof *np, nc * sizeof *np);
        if (!np)
            return oom(sc);
        sc->pts = np;
        sc->cappts = nc;
    }
    sc->pts[sc->npts++] = pt;
    if (!sc->nc_first)
        sc->nc_first = sc->line;
    sc->nc_last = sc->line;
    return GPUECON_OK;
}

/* ---- dgxc-benchmarking analysis ------------------------------------------------------- */

/* The table or CSV that NVIDIA/dgxc-benchmarking's common/parse_train_timing.sh (NeMo: seconds,
 * TFLOPS_per_GPU) and common/parse_train_timing_mbridge.sh (Megatron-Bridge: ms, MODEL_TFLOP/s/GPU)
 * print at ef2f6c2: "Train Step Timing and TFLOPS Analysis (iterations 35-44)" /
 * "Elapsed Time (ms) and MODEL_TFLOPS/GPU Analysis (iterations 35-44)", then one row per run,
 * "%-90s %8s %13s %12s %19s %18s": experiment, status, time mean, time std, TFLOPS mean, TFLOPS std;
 * or the CSV "filename,status,time_mean_seconds|time_mean_ms,...". Means over the iterations named
 * (zero-indexed; the CSV does not name them: the scripts' 35-44). One run per file. */
static int dgxc_row(scan *sc, size_t ts, size_t te, size_t fs, size_t fe)
{
    if (sc->dg_rows)
        return err_set(sc->err, GPUECON_E_INPUT, sc->name, sc->line, 1,
                       "a dgxc-benchmarking analysis of several runs; keep the row of the run this entry measured");
    size_t keep = sc->clen;
    double t, f = 0;
    sc->clen = te; /* a CSV field ends at its comma */
    int rc = figure(sc, ts, NULL, false, "time mean", &t);
    sc->clen = keep;
    if (rc)
        return rc;
    bool none = (fe - fs == 1 && sc->c[fs] == '-') || (fe - fs == 3 && !memcmp(sc->c + fs, "N/A", 3)) || fe == fs;
    if (!none) {
        sc->clen = fe;
        rc = figure(sc, fs, NULL, false, "TFLOPS mean", &f);
        sc->clen = keep;
        if (rc)
            return rc;
    }
    sc->dg_time = t * sc->dg_unit;
    sc->dg_tflops = f;
    sc->dg_rows = 1;
    sc->dg_line = sc->line;
    return GPUECON_OK;
}

static int dgxc(scan *sc)
{
    static const char *const head[2] = {"Train Step Timing and TFLOPS Analysis (iterations ",
                                        "Elapsed Time (ms) and MODEL_TFLOPS/GPU Analysis (iterations "};
    for (int k = 0; k < 2; k++) {
        long at = find(sc, 0, head[k]);
        if (at < 0)
            continue;
        char *e;
        long a = strtol(sc->c + at + strlen(head[k]), &e, 10), b = *e == '-' ? strtol(e + 1, NULL, 10) : -1;
        if (a < 0 || b < a || b > 100000000)
            return GPUECON_OK;
        sc->dg_unit = k ? 1e-3 : 1;
        sc->dg_fmt = k ? RUNLOG_MEGATRON : RUNLOG_NEMO;
        sc->dg_a = (int)a;
        sc->dg_b = (int)b;
        sc->dg_csv = sc->dg_done = false;
        return GPUECON_OK;
    }
    static const char csv_s[] = "filename,status,time_mean_seconds,", csv_ms[] = "filename,status,time_mean_ms,";
    if (!strncmp(sc->c, csv_s, sizeof csv_s - 1) || !strncmp(sc->c, csv_ms, sizeof csv_ms - 1)) {
        bool ms = !strncmp(sc->c, csv_ms, sizeof csv_ms - 1);
        sc->dg_unit = ms ? 1e-3 : 1;
        sc->dg_fmt = ms ? RUNLOG_MEGATRON : RUNLOG_NEMO;
        sc->dg_a = 35; /* the scripts' MIN_ITERATION and MAX_ITERATION */
        sc->dg_b = 44;
        sc->dg_csv = true;
        sc->dg_done = false;
        return GPUECON_OK;
    }
    if (!sc->dg_unit || sc->dg_done)
        return GPUECON_OK;
    if (sc->dg_csv) {
        /* filename,status,time_mean,time_std,tflops_mean,tflops_std,max_iteration */
        size_t f[8], n = 0, p = 0;
        f[n++] = 0;
        for (; p < sc->clen && n < 8; p++)
            if (sc->c[p] == ',')
                f[n++] = p + 1;
        if (n < 6 || sc->clen < f[1] + 8 || strncmp(sc->c + f[1], "Success,", 8))
            return GPUECON_OK;
        return dgxc_row(sc, f[2], f[3] - 1, f[4], f[5] - 1);
    }
    if (find(sc, 0, "Summary:") == 0) {
        sc->dg_done = true;
        return GPUECON_OK;
    }
    /* the last five whitespace-separated tokens: status, time mean, time std, TFLOPS mean and std */
    size_t ts[5], te[5];
    int got = 0;
    size_t q = sc->clen;
    while (got < 5) {
        while (q > 0 && isspace((unsigned char)sc->c[q - 1]))
            q--;
        if (q == 0)
            break;
        size_t e = q;
        while (q > 0 && !isspace((unsigned char)sc->c[q - 1]))
            q--;
        ts[4 - got] = q;
        te[4 - got] = e;
        got++;
    }
    if (got < 5 || q == 0 || te[0] - ts[0] != 7 || strncmp(sc->c + ts[0], "Success", 7))
        return GPUECON_OK;
    return dgxc_row(sc, ts[1], te[1], ts[3], te[3]);
}

/* ---- the scan ------------------------------------------------------------------------- */

/* Copies raw[0..n) into sc's report buffer without its escape sequences (ESC '[' parameters,
 * intermediates, one final byte; ESC and one byte otherwise) and NUL bytes as '?'; col[] keeps
 * each byte's column in the line (base: the report's offset in its line). */
static void clean(char *c, int *col, const char *raw, size_t n, int base, size_t *clen)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)raw[i];
        if (ch == 0x1b) {
            if (i + 1 < n && raw[i + 1] == '[') {
                i += 2;
                while (i < n && (unsigned char)raw[i] >= 0x20 && (unsigned char)raw[i] <= 0x3f)
                    i++;
                /* i is at the final byte (or the end) */
            } else {
                i++;
            }
            continue;
        }
        c[k] = ch ? (char)ch : '?';
        col[k] = base + (int)i;
        k++;
    }
    c[k] = 0;
    col[k] = base + (int)n;
    *clen = k;
}

static int report(scan *sc)
{
    int rc;
    if ((rc = megatron(sc)) || (rc = nemo(sc)) || (rc = torchtitan(sc)) || (rc = mlperf(sc)) || (rc = nccl(sc)) ||
        (rc = dgxc(sc)))
        return rc;
    return GPUECON_OK;
}

static const char LOOKED_FOR[] =
    "looked for Megatron-LM 'elapsed time per iteration (ms): X', Megatron-Bridge 'Step Time : Xs', NeMo "
    "'train_step_timing in s: X', torchtitan 'step: N ... tps: X', an MLPerf 'MLPerf Results Summary' with "
    "'Samples per second', 'Tokens per second' or token latencies, and nccl-tests rows under '# size count "
    "type redop root time algbw busbw', and a dgxc-benchmarking 'Train Step Timing and TFLOPS Analysis' row";

static int finish_training(scan *sc, runlog_format f, int primary, size_t n, const char *what)
{
    runlog *o = sc->out;
    if (n < 2)
        return err_set(sc->err, GPUECON_E_INPUT, sc->name, sc->s[primary].n ? sc->s[primary].x[0].line : 0, 0,
                       "%zu %s line; the first report is left out as warm-up, so at least 2 are needed", n,
                       what);
    o->format = f;
    o->steps = (int)(n - warmup_of(n));
    o->warmup = (int)warmup_of(n);
    return GPUECON_OK;
}

static int finish(scan *sc)
{
    runlog *o = sc->out;
    size_t n_meg = sc->s[S_MEG_STEP].n > sc->s[S_MB_STEP].n ? sc->s[S_MEG_STEP].n : sc->s[S_MB_STEP].n;
    size_t count[6] = {0};
    count[RUNLOG_MEGATRON] = n_meg;
    count[RUNLOG_NEMO] = sc->s[S_NEMO_STEP].n;
    count[RUNLOG_TORCHTITAN] = sc->s[S_TT_TPS].n;
    count[RUNLOG_MLPERF] = (size_t)sc->ml_lines;
    count[RUNLOG_NCCL_TESTS] = sc->npts;
    runlog_format f = RUNLOG_UNKNOWN;
    for (int i = RUNLOG_MEGATRON; i <= RUNLOG_NCCL_TESTS; i++)
        if (count[i] > count[f])
            f = (runlog_format)i;
    int rc = GPUECON_OK, first = 0, last = 0;
    if (f == RUNLOG_UNKNOWN && sc->dg_rows) {
        /* a dgxc-benchmarking analysis: the means it printed, over the iterations it names */
        o->format = sc->dg_fmt;
        o->step_time_s = sc->dg_time;
        o->tflops_per_gpu = sc->dg_tflops;
        o->steps = sc->dg_b - sc->dg_a + 1;
        o->warmup = sc->dg_a;
        o->line = o->last_line = sc->dg_line;
        return GPUECON_OK;
    }
    switch (f) {
    case RUNLOG_UNKNOWN:
        return err_set(sc->err, GPUECON_E_INPUT, sc->name, 0, 0, "no figure of a known log format; %s", LOOKED_FOR);
    case RUNLOG_MEGATRON: {
        bool it = sc->s[S_MEG_STEP].n >= sc->s[S_MB_STEP].n;
        if ((rc = finish_training(sc, f, it ? S_MEG_STEP : S_MB_STEP, n_meg,
                                  it ? "Megatron-LM 'elapsed time per iteration (ms)'"
                                     : "Megatron-Bridge 'Step Time'")))
            return rc;
        double ms;
        if ((rc = median(sc, it ? S_MEG_STEP : S_MB_STEP, &ms, &first, &last)))
            return rc;
        o->step_time_s = it ? ms / 1000 : ms;
        if ((rc = median(sc, S_MEG_TFLOPS, &o->tflops_per_gpu, &first, &last)))
            return rc;
        if (o->tflops_per_gpu == 0 && (rc = median(sc, S_MB_TFLOPS, &o->tflops_per_gpu, &first, &last)))
            return rc;
        if ((rc = median(sc, S_MEG_GBS, &o->global_batch, NULL, NULL)))
            return rc;
        o->seq_len = sc->seq_len;
        o->ranks = (int)sc->world;
        /* derived: every sample of a Megatron-LM GPT batch is seq_length tokens */
        if (o->global_batch > 0 && o->seq_len > 0 && o->ranks > 0 && o->step_time_s > 0) {
            double tok = o->global_batch * o->seq_len / (o->step_time_s * o->ranks);
            if (tok <= FIGURE_MAX) {
                o->tokens_per_s_per_gpu = tok;
                o->tokens_derived = true;
            }
        }
        break;
    }
    case RUNLOG_NEMO:
        if ((rc = finish_training(sc, f, S_NEMO_STEP, count[f], "NeMo 'train_step_timing in s'")) ||
            (rc = median(sc, S_NEMO_STEP, &o->step_time_s, &first, &last)) ||
            (rc = median(sc, S_NEMO_TFLOPS, &o->tflops_per_gpu, &first, &last)) ||
            (rc = median(sc, S_NEMO_TPS, &o->tokens_per_s_per_gpu, &first, &last)))
            return rc;
        rc = median(sc, S_NEMO_GBS, &o->global_batch, NULL, NULL);
        break;
    case RUNLOG_TORCHTITAN:
        if ((rc = finish_training(sc, f, S_TT_TPS, count[f], "torchtitan 'step: ... tps:'")) ||
            (rc = median(sc, S_TT_TPS, &o->tokens_per_s_per_gpu, &first, &last)) ||
            (rc = median(sc, S_TT_TFLOPS, &o->tflops_per_gpu, &first, &last)))
            return rc;
        rc = median(sc, S_TT_MFU, &o->mfu, &first, &last);
        break;
    case RUNLOG_MLPERF:
        o->format = f;
        first = sc->ml_first;
        last = sc->ml_last;
        break;
    case RUNLOG_NCCL_TESTS:
        o->format = f;
        o->points = ctx_alloc(sc->ctx, sc->npts * sizeof *o->points);
        if (!o->points)
            return oom(sc);
        memcpy(o->points, sc->pts, sc->npts * sizeof *o->points);
        o->n_points = sc->npts;
        o->ranks = sc->nc_max_rank > 0 ? sc->nc_max_rank : sc->nc_header_ranks;
        first = sc->nc_first;
        last = sc->nc_last;
        break;
    }
    o->line = first;
    o->last_line = last;
    return rc;
}

int runlog_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runlog *out, gpuecon_error *err)
{
    if (!ctx || !name || (!buf && len) || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a name, a buffer and an output are required");
    memset(out, 0, sizeof *out);
    if (len > ctx->cfg.max_file_bytes)
        return err_set(err, GPUECON_E_INPUT, name, 0, 0, "log is larger than the %zu-byte limit for input files",
                       ctx->cfg.max_file_bytes);
    if (len >= (size_t)1 << 30)
        return err_set(err, GPUECON_E_INPUT, name, 0, 0, "log is larger than 1 GiB");
    /* the longest line (the report buffers' size) */
    size_t maxl = 0, cur = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n') {
            cur = 0;
        } else if (++cur > maxl) {
            maxl = cur;
        }
    }
    scan sc;
    memset(&sc, 0, sizeof sc);
    sc.ctx = ctx;
    sc.name = name;
    sc.err = err;
    sc.out = out;
    char *c = ctx_alloc(ctx, maxl + 1);
    int *col = ctx_alloc(ctx, (maxl + 1) * sizeof *col);
    int rc = GPUECON_OK;
    if (!c || !col) {
        rc = oom(&sc);
        goto done;
    }
    sc.c = c;
    sc.col = col;
    const char *p = buf, *end = buf + len;
    while (p < end && !rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* an unterminated last line: still being written */
        sc.line++;
        const char *le = nl;
        if (le > p && le[-1] == '\r')
            le--;
        /* reports separated by '\r' (progress bars redraw) */
        for (const char *r = p; r <= le && !rc;) {
            const char *re = memchr(r, '\r', (size_t)(le - r));
            re = re ? re : le;
            clean(c, col, r, (size_t)(re - r), (int)(r - p), &sc.clen);
            if (sc.clen)
                rc = report(&sc);
            r = re + 1;
        }
        p = nl + 1;
    }
    if (!rc)
        rc = finish(&sc);
done:
    ctx_free(ctx, c, maxl + 1);
    ctx_free(ctx, col, (maxl + 1) * sizeof *col);
    series_free(&sc);
    if (rc) {
        runlog_free(ctx, out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

int runlog_read(gpuecon_ctx *ctx, const char *path, runlog *out, gpuecon_error *err)
{
    if (!ctx || !path || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a path and an output are required");
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = yaml_read_file(ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = runlog_parse(ctx, path, buf, len, out, err);
    ctx_free(ctx, buf, len + 1);
    return rc;
}

void runlog_free(gpuecon_ctx *ctx, runlog *log)
{
    if (!ctx || !log)
        return;
    if (log->points)
        ctx_free(ctx, log->points, log->n_points * sizeof *log->points);
    log->points = NULL;
    log->n_points = 0;
}
