/*
 * runs.c — reads RUNS.yaml, the user's own measured runs for `gpuecon calibrate` (docs/cli.md):
 *
 *   runs:
 *     - command: train                 # train | infer | finetune | gemm | nccl
 *       model: llama3-8b               # the command's options, by their command-line names
 *       system: hgx-h100
 *       measured: {tokens_per_s_per_gpu: 5800}   # or: log: train.log (relative to this file)
 *
 * A figure's unit: a number under a key that names its unit (step_time_s: 1.23) is in that unit; a
 * string carries its own ("850 ms"); a number under a key without one (step_time: 1.23) is refused
 * naming the units allowed. Options stay text: the request layer reads them through the command's
 * own option table, so their names and checks are exactly the command line's. Key choice: every
 * error names path:line:col of the node at fault and what is allowed.
 */
#include "io/io.h"
#include "io/runlog.h"
#include "yaml.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS_MAX 64
#define RUNS_MAX_OPTS 64
#define RUNS_MAX_LOG_POINTS 48

static const char *const command_names[RUNS_COMMANDS] = {"train", "infer", "gemm", "nccl", "finetune"};
static const char *const figure_names[RUNS_FIGURES] = {
    "tokens_per_s_per_gpu", "step_time_s", "output_tokens_per_s_per_gpu", "tpot_ms", "ttft_ms", "tflops",
    "busbw_gbps", "tokens_per_s", "step_s"};

const char *runs_command_name(runs_command c)
{
    return (unsigned)c < RUNS_COMMANDS ? command_names[c] : "?";
}

const char *runs_figure_name(runs_figure f)
{
    return (unsigned)f < RUNS_FIGURES ? figure_names[f] : "?";
}

/* The figures each command measures. */
static bool figure_of(runs_command c, runs_figure f)
{
    switch (c) {
    case RUNS_TRAIN: return f == RUNS_TOKENS_PER_S_PER_GPU || f == RUNS_STEP_TIME_S;
    case RUNS_INFER: return f == RUNS_OUTPUT_TOKENS_PER_S_PER_GPU || f == RUNS_TPOT_MS || f == RUNS_TTFT_MS;
    case RUNS_GEMM: return f == RUNS_TFLOPS;
    case RUNS_NCCL: return f == RUNS_BUSBW_GBPS;
    case RUNS_FINETUNE: return f == RUNS_TOKENS_PER_S || f == RUNS_TOKENS_PER_S_PER_GPU || f == RUNS_STEP_S;
    default: return false;
    }
}

static const char *figures_of(runs_command c)
{
    switch (c) {
    case RUNS_TRAIN: return "tokens_per_s_per_gpu, step_time_s (or step_time: \"850 ms\")";
    case RUNS_INFER: return "output_tokens_per_s_per_gpu, tpot_ms, ttft_ms (or tpot: \"12 ms\")";
    case RUNS_GEMM: return "tflops";
    case RUNS_FINETUNE: return "tokens_per_s, tokens_per_s_per_gpu, step_s (or step: \"7.8 s\")";
    default: return "busbw_gbps";
    }
}

/* A measured key: its figure, and the unit a plain number under it is in (1: the figure's own unit;
 * 0: none, the value must be a string with a unit). */
typedef struct fkey {
    const char *key;
    runs_figure figure;
    double unit; /* the key's unit in the figure's unit */
} fkey;

static const fkey fkeys[] = {
    {"tokens_per_s_per_gpu", RUNS_TOKENS_PER_S_PER_GPU, 1},
    {"step_time_s", RUNS_STEP_TIME_S, 1},
    {"step_time_ms", RUNS_STEP_TIME_S, 1e-3},
    {"step_time", RUNS_STEP_TIME_S, 0},
    {"output_tokens_per_s_per_gpu", RUNS_OUTPUT_TOKENS_PER_S_PER_GPU, 1},
    {"tpot_ms", RUNS_TPOT_MS, 1},
    {"tpot_s", RUNS_TPOT_MS, 1e3},
    {"tpot", RUNS_TPOT_MS, 0},
    {"ttft_ms", RUNS_TTFT_MS, 1},
    {"ttft_s", RUNS_TTFT_MS, 1e3},
    {"ttft", RUNS_TTFT_MS, 0},
    {"tflops", RUNS_TFLOPS, 1},
    {"busbw_gbps", RUNS_BUSBW_GBPS, 1},
    {"tokens_per_s", RUNS_TOKENS_PER_S, 1},
    {"step_s", RUNS_STEP_S, 1},
    {"step_ms", RUNS_STEP_S, 1e-3},
    {"step", RUNS_STEP_S, 0},
};
#define N_FKEYS (sizeof fkeys / sizeof fkeys[0])

static bool is_time(runs_figure f)
{
    return f == RUNS_STEP_TIME_S || f == RUNS_STEP_S || f == RUNS_TPOT_MS || f == RUNS_TTFT_MS;
}

/* A decimal number, all of s (blanks around it allowed): false otherwise. */
static bool number(const char *s, double *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s || !(isdigit((unsigned char)*s) || *s == '.' || *s == '+' || *s == '-'))
        return false;
    char *end;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* "850 ms", "0.85s", "850 us": the value in seconds; false when the text is no number with a time unit. */
static bool time_text(const char *s, double *sec)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s || !(isdigit((unsigned char)*s) || *s == '.'))
        return false;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    static const struct {
        const char *u;
        double mult;
    } units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}};
    size_t n = strlen(end);
    while (n > 0 && isspace((unsigned char)end[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (n == strlen(units[i].u) && !strncmp(end, units[i].u, n) && isfinite(v)) {
            *sec = v * units[i].mult;
            return true;
        }
    return false;
}

/* A plain (unquoted) scalar that YAML reads as a number: its text parses as one. */
static int figure_value(const yaml_doc *doc, ynode *k, ynode *v, runs_command cmd, runs_value *out,
                        gpuecon_error *err)
{
    char key[64], text[96];
    if (!yaml_scalar_copy(k, key, sizeof key))
        return yaml_error(doc, k, err, GPUECON_E_PARSE, "a measured figure's name must be a short text");
    const fkey *fk = NULL;
    for (size_t i = 0; i < N_FKEYS && !fk; i++)
        if (!strcmp(fkeys[i].key, key))
            fk = &fkeys[i];
    if (!fk) {
        const char *names[N_FKEYS];
        for (size_t i = 0; i < N_FKEYS; i++)
            names[i] = fkeys[i].key;
        const char *near = gpuecon_suggest(key, names, N_FKEYS);
        return yaml_error(doc, k, err, GPUECON_E_INPUT, "measured: '%s' is not a figure%s%s%s (a %s run measures: %s)",
                          key, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                          command_names[cmd], figures_of(cmd));
    }
    if (!figure_of(cmd, fk->figure))
        return yaml_error(doc, k, err, GPUECON_E_INPUT, "measured: %s is not what a %s run measures (allowed: %s)", key,
                          command_names[cmd], figures_of(cmd));
    if (!v || yaml_type(v) != Y_SCALAR || !yaml_scalar_copy(v, text, sizeof text))
        return yaml_error(doc, v ? v : k, err, GPUECON_E_INPUT, "measured: %s needs a number%s", key,
                          is_time(fk->figure) ? " or a time with its unit (\"850 ms\")" : "");
    double x = 0;
    bool plain = number(text, &x);
    double canon = fk->figure == RUNS_STEP_TIME_S || fk->figure == RUNS_STEP_S ? 1 : 1e-3; /* the figure's unit, s */
    if (plain && fk->unit == 0)
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "measured: %s: %s has no unit; write %s: \"%s ms\" or \"%s s\", or name the unit in "
                          "the key (%s_s: %s; allowed units: s, ms, us)",
                          key, text, key, text, text, key, text);
    if (plain) {
        x *= fk->unit;
    } else if (is_time(fk->figure)) {
        double sec;
        if (!time_text(text, &sec))
            return yaml_error(doc, v, err, GPUECON_E_INPUT,
                              "measured: %s: '%s' is not a time; allowed: a number (in the key's unit) or a number "
                              "with a unit: s, ms, us (\"850 ms\")", key, text);
        x = sec / canon;
    } else {
        return yaml_error(doc, v, err, GPUECON_E_INPUT, "measured: %s: '%s' is not a number", key, text);
    }
    if (!(x > 0) || !isfinite(x) || x > 1e12)
        return yaml_error(doc, v, err, GPUECON_E_INPUT, "measured: %s: %s must be above 0 (and finite)", key, text);
    out->figure = fk->figure;
    out->value = x;
    yaml_where(v, &out->line, &out->col);
    out->file = yaml_name(doc);
    return GPUECON_OK;
}

/* The folder of `name` joined with rel (an absolute rel as is), in the arena. */
static char *relative_to(arena *a, const char *name, const char *rel)
{
    if (rel[0] == '/')
        return arena_strdup(a, rel);
    const char *slash = strrchr(name, '/');
    size_t d = slash ? (size_t)(slash - name + 1) : 0, n = strlen(rel);
    char *p = arena_alloc(a, d + n + 1);
    if (!p)
        return NULL;
    memcpy(p, name, d);
    memcpy(p + d, rel, n + 1);
    return p;
}

static runs_value *values_alloc(runs_file *f, size_t n)
{
    return arena_alloc(&f->a, n * sizeof(runs_value));
}

/* `log: FILE`: the figures the log holds that the run's command measures (runlog.h). */
static int read_log(gpuecon_ctx *ctx, const yaml_doc *doc, ynode *v, runs_file *f, runs_entry *r, gpuecon_error *err)
{
    char rel[1024];
    if (yaml_type(v) != Y_SCALAR || !yaml_scalar_copy(v, rel, sizeof rel) || !rel[0])
        return yaml_error(doc, v, err, GPUECON_E_INPUT, "log: needs a file name (relative to %s)", yaml_name(doc));
    char *path = relative_to(&f->a, yaml_name(doc), rel);
    if (!path)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    runlog lg;
    memset(&lg, 0, sizeof lg);
    gpuecon_error le;
    gpuecon_error_clear(&le);
    if (runlog_read(ctx, path, &lg, &le)) {
        char msg[sizeof le.message];
        snprintf(msg, sizeof msg, "%s", le.message);
        int line, col;
        yaml_where(v, &line, &col);
        if (le.line > 0) /* the log's own place, then the run's */
            return err_set(err, le.code ? le.code : GPUECON_E_INPUT, le.where, le.line, le.column,
                           "%s (log of run %d, %s:%d:%d)", msg, r->index, yaml_name(doc), line, col);
        return err_set(err, le.code ? le.code : GPUECON_E_INPUT, yaml_name(doc), line, col, "log: %s%s%s", le.where,
                       le.where[0] ? ": " : "", msg);
    }
    r->log = path;
    r->log_format = runlog_format_name(lg.format);
    runs_value tmp[RUNS_MAX_LOG_POINTS];
    size_t n = 0;
    runs_value base = {.line = lg.line > 0 ? lg.line : 1, .col = 1, .file = path};
    switch (r->command) {
    case RUNS_TRAIN:
        if (lg.tokens_per_s_per_gpu > 0)
            tmp[n] = base, tmp[n].figure = RUNS_TOKENS_PER_S_PER_GPU, tmp[n++].value = lg.tokens_per_s_per_gpu;
        else if (lg.step_time_s > 0)
            tmp[n] = base, tmp[n].figure = RUNS_STEP_TIME_S, tmp[n++].value = lg.step_time_s;
        break;
    case RUNS_FINETUNE: /* a fine-tuning job logged by a Megatron-LM/NeMo or torchtitan loop: its per-GPU
                           throughput, else its step time */
        if (lg.tokens_per_s_per_gpu > 0)
            tmp[n] = base, tmp[n].figure = RUNS_TOKENS_PER_S_PER_GPU, tmp[n++].value = lg.tokens_per_s_per_gpu;
        else if (lg.step_time_s > 0)
            tmp[n] = base, tmp[n].figure = RUNS_STEP_S, tmp[n++].value = lg.step_time_s;
        break;
    case RUNS_INFER:
        if (lg.tokens_per_s > 0)
            tmp[n] = base, tmp[n].figure = RUNS_OUTPUT_TOKENS_PER_S_PER_GPU, tmp[n].whole_system = true,
            tmp[n++].value = lg.tokens_per_s;
        if (lg.tpot_ms > 0)
            tmp[n] = base, tmp[n].figure = RUNS_TPOT_MS, tmp[n++].value = lg.tpot_ms;
        if (lg.ttft_ms > 0)
            tmp[n] = base, tmp[n].figure = RUNS_TTFT_MS, tmp[n++].value = lg.ttft_ms;
        break;
    case RUNS_NCCL: /* the sizes where bandwidth, not latency, decides: 1 MiB and up */
        for (size_t i = 0; i < lg.n_points && n < RUNS_MAX_LOG_POINTS; i++)
            if (lg.points[i].bytes >= 1048576 && lg.points[i].busbw_gbps > 0)
                tmp[n] = base, tmp[n].figure = RUNS_BUSBW_GBPS, tmp[n].value = lg.points[i].busbw_gbps,
                tmp[n++].bytes = lg.points[i].bytes;
        break;
    default: break;
    }
    runlog_free(ctx, &lg);
    if (!n)
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "log: %s (read as %s) has no figure a %s run measures (%s); a %s log needs %s", rel,
                          r->log_format, command_names[r->command], figures_of(r->command),
                          command_names[r->command],
                          r->command == RUNS_TRAIN || r->command == RUNS_FINETUNE
                              ? "Megatron-LM/NeMo/torchtitan throughput lines"
                          : r->command == RUNS_INFER ? "an MLPerf mlperf_log_summary.txt"
                          : r->command == RUNS_NCCL  ? "nccl-tests rows of 1 MiB and more"
                                                     : "no log: give measured: tflops");
    if (!(r->values = values_alloc(f, n)))
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    memcpy(r->values, tmp, n * sizeof tmp[0]);
    r->n_values = n;
    return GPUECON_OK;
}

static int read_run(gpuecon_ctx *ctx, const yaml_doc *doc, ynode *node, bool allow_logs, runs_file *f,
                    runs_entry *r, gpuecon_error *err)
{
    yaml_where(node, &r->line, &r->col);
    if (yaml_type(node) != Y_MAP)
        return yaml_error(doc, node, err, GPUECON_E_PARSE,
                          "run %d: expected a mapping (command: train|infer|finetune|gemm|nccl, the options, measured: or log:)",
                          r->index);
    ynode *cmd = yaml_map_get(node, "command");
    char name[32];
    if (!cmd)
        return yaml_error(doc, node, err, GPUECON_E_INPUT, "run %d: command: is required (train, infer, finetune, gemm, nccl)",
                          r->index);
    if (yaml_type(cmd) != Y_SCALAR || !yaml_scalar_copy(cmd, name, sizeof name))
        return yaml_error(doc, cmd, err, GPUECON_E_INPUT, "command: allowed train, infer, finetune, gemm, nccl");
    int c = 0;
    while (c < RUNS_COMMANDS && strcmp(command_names[c], name))
        c++;
    if (c == RUNS_COMMANDS) {
        const char *near = gpuecon_suggest(name, command_names, RUNS_COMMANDS);
        return yaml_error(doc, cmd, err, GPUECON_E_INPUT, "command: '%s' is not one%s%s%s (allowed: train, infer, "
                          "finetune, gemm, nccl)", name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
    r->command = (runs_command)c;
    ynode *meas = yaml_map_get(node, "measured"), *log = yaml_map_get(node, "log");
    if (meas && log)
        return yaml_error(doc, log, err, GPUECON_E_INPUT, "run %d: give measured: or log:, not both", r->index);
    if (!meas && !log)
        return yaml_error(doc, node, err, GPUECON_E_INPUT,
                          "run %d: needs measured: {%s: ...} or log: FILE (the figure the run measured)", r->index,
                          figures_of(r->command));
    size_t nk = yaml_map_len(node);
    if (nk > RUNS_MAX_OPTS)
        return yaml_error(doc, node, err, GPUECON_E_INPUT, "run %d: more than %d options", r->index, RUNS_MAX_OPTS);
    r->opts = arena_alloc(&f->a, (nk ? nk : 1) * sizeof(runs_option));
    if (!r->opts)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    for (size_t i = 0; i < nk; i++) {
        ynode *k = yaml_map_key(node, i), *v = yaml_map_value(node, i);
        char key[64];
        if (!yaml_scalar_copy(k, key, sizeof key) || !key[0])
            return yaml_error(doc, k, err, GPUECON_E_INPUT, "an option name must be a short text");
        if (!strcmp(key, "command") || !strcmp(key, "measured") || !strcmp(key, "log"))
            continue;
        runs_option *o = &r->opts[r->n_opts];
        yaml_where(k, &o->line, &o->col);
        if (!(o->key = arena_strdup(&f->a, key)))
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        if (!v || yaml_type(v) == Y_MAP)
            return yaml_error(doc, v ? v : k, err, GPUECON_E_INPUT, "%s: expected a value (a number, a name, "
                              "true/false, or a list)", key);
        char text[1024] = "";
        if (yaml_type(v) == Y_SEQ) {
            void *it = NULL;
            ynode *item;
            size_t len = 0;
            while ((item = yaml_seq_next(v, &it))) {
                char one[128];
                if (yaml_type(item) != Y_SCALAR || !yaml_scalar_copy(item, one, sizeof one))
                    return yaml_error(doc, item, err, GPUECON_E_INPUT, "%s: a list of numbers or names", key);
                int w = snprintf(text + len, sizeof text - len, "%s%s", len ? "," : "", one);
                if (w < 0 || (size_t)w >= sizeof text - len)
                    return yaml_error(doc, v, err, GPUECON_E_INPUT, "%s: the list is too long", key);
                len += (size_t)w;
            }
        } else if (!yaml_scalar_copy(v, text, sizeof text)) {
            return yaml_error(doc, v, err, GPUECON_E_INPUT, "%s: the value is too long (1023 bytes at most)", key);
        }
        o->is_bool = yaml_type(v) == Y_SCALAR && (!strcmp(text, "true") || !strcmp(text, "false"));
        if (!(o->text = arena_strdup(&f->a, text)))
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        r->n_opts++;
    }
    if (log && !allow_logs) /* a document that came without a file names no files to read */
        return yaml_error(doc, log, err, GPUECON_E_INPUT, "log: a RUNS document given inline reads no files; type "
                          "the figure under measured: (%s)", figures_of(r->command));
    if (log)
        return read_log(ctx, doc, log, f, r, err);
    if (yaml_type(meas) != Y_MAP || yaml_map_len(meas) == 0)
        return yaml_error(doc, meas, err, GPUECON_E_INPUT, "measured: expected a mapping of figures (%s)",
                          figures_of(r->command));
    size_t nv = yaml_map_len(meas);
    if (!(r->values = values_alloc(f, nv)))
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    for (size_t i = 0; i < nv; i++) {
        int rc = figure_value(doc, yaml_map_key(meas, i), yaml_map_value(meas, i), r->command, &r->values[i], err);
        if (rc)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (r->values[j].figure == r->values[i].figure)
                return yaml_error(doc, yaml_map_key(meas, i), err, GPUECON_E_INPUT,
                                  "measured: %s given twice (in two units); give it once",
                                  figure_names[r->values[i].figure]);
    }
    r->n_values = nv;
    return GPUECON_OK;
}

static int parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, bool allow_logs, runs_file *out,
                 gpuecon_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a, ctx);
    yaml_doc *doc = NULL;
    int rc = yaml_parse(ctx, name, buf, len, &doc, err);
    if (rc)
        return rc;
    ynode *root = yaml_root(doc), *list = root && yaml_type(root) == Y_MAP ? yaml_map_get(root, "runs") : NULL;
    if (!root || yaml_type(root) != Y_MAP || !list) {
        rc = yaml_error(doc, root, err, GPUECON_E_PARSE, "expected a mapping with runs: (a list of runs, "
                        "docs/cli.md \"gpuecon calibrate\")");
        goto done;
    }
    for (size_t i = 0; i < yaml_map_len(root); i++) {
        char key[32];
        ynode *k = yaml_map_key(root, i);
        if (!yaml_scalar_copy(k, key, sizeof key) || strcmp(key, "runs")) {
            rc = yaml_error(doc, k, err, GPUECON_E_PARSE, "unknown key '%s'; the file holds runs: only", key);
            goto done;
        }
    }
    size_t n = yaml_type(list) == Y_SEQ ? yaml_seq_len(list) : 0;
    if (yaml_type(list) != Y_SEQ || n == 0 || n > RUNS_MAX) {
        int line, col; /* an empty list has no place of its own: its key's */
        yaml_where(list, &line, &col);
        rc = yaml_error(doc, line ? list : yaml_map_key_node(root, "runs"), err, GPUECON_E_INPUT,
                        "runs: expected a list of 1 to %d runs", RUNS_MAX);
        goto done;
    }
    out->path = arena_strdup(&out->a, name);
    out->runs = arena_alloc(&out->a, n * sizeof(runs_entry));
    if (!out->path || !out->runs) {
        rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        goto done;
    }
    void *it = NULL;
    ynode *node;
    while ((node = yaml_seq_next(list, &it))) {
        runs_entry *r = &out->runs[out->n];
        r->index = (int)out->n + 1;
        if ((rc = read_run(ctx, doc, node, allow_logs, out, r, err)))
            goto done;
        out->n++;
    }
done:
    yaml_free(doc);
    if (rc)
        runs_free(out);
    return rc;
}

int runs_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runs_file *out, gpuecon_error *err)
{
    return parse(ctx, name, buf, len, true, out, err);
}

int runs_parse_text(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runs_file *out,
                    gpuecon_error *err)
{
    return parse(ctx, name, buf, len, false, out, err);
}

int runs_read(gpuecon_ctx *ctx, const char *path, runs_file *out, gpuecon_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = yaml_read_file(ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = runs_parse(ctx, path, buf, len, out, err);
    ctx_free(ctx, buf, len + 1);
    return rc;
}

void runs_free(runs_file *f)
{
    if (!f)
        return;
    arena_free(&f->a);
    f->runs = NULL;
    f->n = 0;
    f->path = NULL;
}

const runs_option *runs_option_get(const runs_entry *r, const char *key)
{
    for (size_t i = 0; r && i < r->n_opts; i++) {
        const char *a = r->opts[i].key, *b = key;
        while (*a && *b && (*a == *b || ((*a == '-' || *a == '_') && (*b == '-' || *b == '_'))))
            a++, b++;
        if (!*a && !*b)
            return &r->opts[i];
    }
    return NULL;
}
