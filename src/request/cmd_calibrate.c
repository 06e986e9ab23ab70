/*
 * cmd_calibrate.c — `gpuecon calibrate RUNS.yaml [-o DIR]`: fits the model's efficiency scales to the
 * user's own measured runs (docs/cli.md, docs/model.md §3.8) and hands back the overlay
 * DIR/calibrations.yaml that any command then uses with --catalog DIR.
 *
 * Each run is read through its command's own option table (train's, infer's and finetune's exactly as
 * on their command lines; gemm and nccl microbenchmarks through a table of their own), so names, defaults and
 * checks are the commands'; an error is placed at the run's file:line:col. A training run's layout is
 * resolved once (a size left out is searched, as `gpuecon train` would) and then held, so the fit
 * moves efficiencies, not the layout. The fit is calrun_fit (src/analysis/calibrate.c). Key choice:
 * the library writes no file: the overlay goes to the front end as a file to write (the CLI writes it
 * where -o points) and into the JSON as text.
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"
#include "train_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 256
#define MAX_WARN 32

typedef struct calstate {
    cli *c;
    runs_file f;
    calrun_row *rows;
    size_t n;
    strbuf scratch; /* the notes of the runs' own option parsing: an error is re-placed at the run */
    gpuecon_system *limited; /* the systems at a run's power-limit, one per run (cli_power_limit fills the
                                sub-cli's, which ends with the run) */
} calstate;

/* The system a run's request names, kept: its power-limit copy lives in the run's sub-cli. */
static const gpuecon_system *keep_system(calstate *s, const runs_entry *r, const cli *sub, const gpuecon_system *sys)
{
    if (sys != &sub->power_system)
        return sys;
    s->limited[r->index - 1] = sub->power_system;
    return &s->limited[r->index - 1];
}

/* A string that lives as long as the request (in c->keep); NULL, and the request fails out of memory
 * (c->oom), when it cannot be kept. */
static const char *keep_str(cli *c, const char *s)
{
    json_t *j = json_string(s);
    if (!j || json_array_append_new(c->keep, j)) {
        c->oom = true;
        return NULL;
    }
    return json_string_value(j);
}

/* "--prompt-len" in a lower layer's message read as the RUNS.yaml key "prompt-len". */
static void undash(const char *in, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; in[i] && k + 1 < cap; i++) {
        if (in[i] == '-' && in[i + 1] == '-' && (i == 0 || in[i - 1] == ' ' || in[i - 1] == '(') && in[i + 2] != ' ')
            i++;
        else
            out[k++] = in[i];
    }
    out[k] = 0;
}

/* A run's error, placed at the option it names (else the run), exit 2. `what` (may be NULL) says what
 * is wrong with the run as a whole ("does not fit in memory"). */
static int run_fail(calstate *s, const runs_entry *r, const gpuecon_error *e0, const char *what)
{
    gpuecon_error spelled = *e0, *e = &spelled; /* the model's option names ("options.stack") as --stack */
    cli_spell_options(s->c, spelled.where, sizeof spelled.where);
    cli_spell_options(s->c, spelled.message, sizeof spelled.message);
    const runs_option *o = e->where[0] == '-' && e->where[1] == '-' ? runs_option_get(r, e->where + 2) : NULL;
    char raw[sizeof e->message], msg[400], where[64];
    snprintf(raw, sizeof raw, "%s", e->message);
    char *see = strstr(raw, "(see --help)");
    if (see) /* the option table is the command's: say which */
        snprintf(see, sizeof raw - (size_t)(see - raw), "(gpuecon %s -h lists them)", runs_command_name(r->command));
    undash(raw, msg, sizeof msg);
    undash(e->where, where, sizeof where);
    const char *key = o ? o->key : !what && where[0] ? where : NULL;
    if (e->code == GPUECON_E_NOMEM || e->code == GPUECON_E_CANCELED || e->code == GPUECON_E_INTERNAL)
        return cli_fail(s->c, e); /* not the run's fault: as it is */
    gpuecon_error err; /* bad input: exit 2 at the run */
    err_set(&err, GPUECON_E_INPUT, s->f.path, o ? o->line : r->line, o ? o->col : r->col, "run %d (%s)%s%s: %.60s%s%s",
            r->index, runs_command_name(r->command), what ? " " : "", what ? what : "", key ? key : "", key ? ": " : "",
            msg);
    return cli_fail(s->c, &err);
}

/* The run's options as a request's "options" (text in the command line's syntax; true/false as flags). */
static json_t *run_options(const runs_entry *r)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < r->n_opts; i++) {
        char key[72];
        snprintf(key, sizeof key, "%s", r->opts[i].key);
        for (char *p = key; *p; p++)
            if (*p == '-')
                *p = '_';
        json_t *v = r->opts[i].is_bool ? json_boolean(!strcmp(r->opts[i].text, "true")) : json_string(r->opts[i].text);
        if (!v || json_object_set_new(o, key, v)) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* A cli that reads `opts` as a request with the parent's catalog, notes into s->scratch. */
static void sub_cli(calstate *s, cli *sub, json_t *opts)
{
    *sub = *s->c;
    sub->mode = CLI_REQUEST;
    sub->req_opts = opts;
    sub->req_args = NULL;
    sub->catalog_dir = NULL; /* the parent loaded it */
    sub->model_file = NULL;
    sub->model_text = NULL; /* the parent loaded it too */
    sub->model_label = NULL;
    sub->model_cat = NULL;  /* the parent's, freed with it */
    sub->inline_docs = NULL; /* each run's own */
    sub->cat_borrowed = true;
    sub->notes = &s->scratch;
    sub->out = &s->scratch;
    sub->plots = NULL;
    sub->format = FMT_JSON;
    sub->capture_infer = NULL;
    sub->capture_finetune = NULL;
    gpuecon_error_clear(&sub->err);
}

static int sub_fail(calstate *s, const runs_entry *r, cli *sub, int rc)
{
    if (sub->err.code == GPUECON_OK)
        err_set(&sub->err, GPUECON_E_INPUT, "", 0, 0, "not a valid %s run (exit %d)", runs_command_name(r->command),
                rc);
    return run_fail(s, r, &sub->err, NULL);
}

static calrun_row *new_row(calstate *s, const runs_entry *r, const runs_value *v)
{
    if (s->n >= MAX_ROWS)
        return NULL;
    calrun_row *row = &s->rows[s->n++];
    memset(row, 0, sizeof *row);
    row->kind = r->command;
    row->figure = v->figure;
    row->measured = v->value;
    row->run = r->index;
    row->file = s->f.path;
    row->line = r->line;
    row->col = r->col;
    return row;
}

static int too_many(calstate *s, const runs_entry *r)
{
    return cli_error(s->c, GPUECON_E_INPUT, s->f.path, "run %d: more than %d measurements in all", r->index, MAX_ROWS);
}

/* One row per measured figure of run r, each naming what the run's command made of it (what, stack,
 * system, precision); the caller fills the request into s->rows[*first .. s->n). */
static int add_rows(calstate *s, const runs_entry *r, const char *what, const char *stack, const gpuecon_system *sys,
                    int precision, size_t *first)
{
    const char *w = keep_str(s->c, what), *st = keep_str(s->c, stack);
    if (!w || !st)
        return cli_error(s->c, GPUECON_E_NOMEM, "", "out of memory");
    *first = s->n;
    for (size_t i = 0; i < r->n_values; i++) {
        calrun_row *row = new_row(s, r, &r->values[i]);
        if (!row)
            return too_many(s, r);
        row->system = sys;
        row->precision = precision;
        row->stack = st;
        row->what = w;
    }
    return 0;
}

/* Options that make the command something other than one prediction of one run (a sweep, a search, a
 * simulation, a plan): refused, since the run's figure is compared with one prediction. */
static int one_prediction(calstate *s, const runs_entry *r)
{
    static const char *const train_modes[] = {"sweep-gpus", "target-days", "vs", "rent-usd-per-gpu-hour", "plot", NULL};
    static const char *const infer_modes[] = {"sweep", "grid", "simulate", "search", "prefill", "decode",
                                              "disagg-search", "plot", NULL};
    static const char *const finetune_modes[] = {"compare", NULL};
    const char *const *modes = r->command == RUNS_TRAIN      ? train_modes
                               : r->command == RUNS_INFER    ? infer_modes
                               : r->command == RUNS_FINETUNE ? finetune_modes
                                                             : NULL;
    for (size_t i = 0; modes && modes[i]; i++) {
        const runs_option *o = runs_option_get(r, modes[i]);
        if (o && !(o->is_bool && !strcmp(o->text, "false"))) {
            gpuecon_error e;
            char where[80];
            snprintf(where, sizeof where, "--%.70s", o->key); /* placed at the option */
            err_set(&e, GPUECON_E_INPUT, where, 0, 0, "a run is one %s prediction compared with its measured figure; "
                    "leave it out (give each measured point as a run of its own)", runs_command_name(r->command));
            return run_fail(s, r, &e, NULL);
        }
    }
    return 0;
}

static int add_train(calstate *s, const runs_entry *r, json_t *o)
{
    train_args a;
    opt opts[TRAIN_MAX_OPTS];
    size_t n = train_cli_opts(&a, opts, false);
    static const cmd_usage usage = {"train (a run of RUNS.yaml)", "", NULL};
    cli sub;
    sub_cli(s, &sub, o);
    gpuecon_train_request req;
    const gpuecon_profile *prof;
    int rc = opts_parse(&sub, 0, NULL, opts, n, &usage, NULL, 0, NULL);
    if (!rc)
        rc = train_cli_request(&sub, &a, opts, n, &req, &prof);
    if (rc)
        return sub_fail(s, r, &sub, rc);
    req.system = keep_system(s, r, &sub, req.system);
    req.calibration = NULL; /* a loaded overlay's: the fit starts from the built-in values, the layout too */
    gpuecon_train_result res;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_train_predict(s->c->ctx, &req, &res, &err);
    if (rc == GPUECON_E_INFEASIBLE)
        return run_fail(s, r, &err, "does not fit in memory");
    if (rc)
        return run_fail(s, r, &err, NULL);
    /* the layout held from here on: the fit moves efficiencies, not the layout */
    req.tp = res.par.tp, req.pp = res.par.pp, req.vpp = res.par.vpp, req.cp = res.par.cp, req.ep = res.par.ep;
    req.etp = res.par.etp, req.mbs = res.par.mbs, req.zero = res.par.zero, req.recompute = (int)res.par.recompute;
    req.tp_overlap = res.par.tp_overlap, req.a2a_overlap = res.par.a2a_overlap;
    char what[160];
    snprintf(what, sizeof what, "%s on %d x %s %s, tp%d pp%d cp%d mbs%d", req.model->name, req.gpus,
             req.system->name, gpuecon_precision_name(req.precision), res.par.tp, res.par.pp, res.par.cp, res.par.mbs);
    size_t first;
    if ((rc = add_rows(s, r, what, a.stack ? a.stack : CLI_DEFAULT_STACK, req.system, (int)req.precision, &first)))
        return rc;
    for (size_t i = first; i < s->n; i++)
        s->rows[i].train = req;
    return 0;
}

static int add_infer(calstate *s, const runs_entry *r, json_t *o)
{
    cli sub;
    sub_cli(s, &sub, o);
    gpuecon_infer_request q;
    sub.capture_infer = &q;
    int rc = cmd_infer(&sub, 0, NULL);
    if (rc)
        return sub_fail(s, r, &sub, rc);
    q.system = keep_system(s, r, &sub, q.system);
    gpuecon_infer_result res;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_infer(&q, &res, &err);
    if (rc == GPUECON_E_INFEASIBLE)
        return run_fail(s, r, &err, "does not fit in memory");
    if (rc)
        return run_fail(s, r, &err, NULL);
    char what[160];
    snprintf(what, sizeof what, "%s on %d x %s %s, tp%d, %g in flight", q.model->name, res.gpus, q.system->name,
             gpuecon_precision_name(q.weights), res.tp, res.at.concurrency);
    size_t first;
    if ((rc = add_rows(s, r, what, gpuecon_serving_profile_label(&q.profile), q.system, (int)q.weights, &first)))
        return rc;
    for (size_t i = first; i < s->n; i++) {
        if (r->values[i - first].whole_system)
            s->rows[i].measured /= res.gpus;
        s->rows[i].infer = q;
    }
    return 0;
}

/* A fine-tuning run, read through finetune's own option table (cmd_finetune builds its request into
 * capture_finetune and stops): its stack, system and precision name the group. */
static int add_finetune(calstate *s, const runs_entry *r, json_t *o)
{
    cli sub;
    sub_cli(s, &sub, o);
    gpuecon_finetune_request q;
    sub.capture_finetune = &q;
    int rc = cmd_finetune(&sub, 0, NULL);
    if (rc)
        return sub_fail(s, r, &sub, rc);
    q.system = keep_system(s, r, &sub, q.system);
    q.calibration = NULL; /* the fit starts from the built-in values */
    gpuecon_finetune_result res;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_finetune(&q, &res, &err);
    if (rc == GPUECON_E_INFEASIBLE)
        return run_fail(s, r, &err, "does not fit in memory");
    if (rc)
        return run_fail(s, r, &err, NULL);
    char what[160];
    snprintf(what, sizeof what, "%s %s on %d x %s %s, %s%s, mbs %d x %d", q.model->name,
             q.method == GPUECON_FT_LORA ? "LoRA" : "full", q.gpus, q.system->name, gpuecon_precision_name(q.precision),
             q.strategy == GPUECON_FT_FSDP ? "FSDP" : "DDP", q.recompute ? " + ckpt" : "", q.mbs, q.seq);
    size_t first;
    if ((rc = add_rows(s, r, what, q.stack->name, q.system, (int)q.precision, &first)))
        return rc;
    for (size_t i = first; i < s->n; i++)
        s->rows[i].finetune = q;
    return 0;
}

static const char *const op_names[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv", NULL};

static int add_micro(calstate *s, const runs_entry *r, json_t *o)
{
    const char *system = NULL;
    int prec = 0, op = 0, gpus = 0, stride = 1;
    double m = 0, nn = 0, k = 0, bytes = 0;
    bool gemm = r->command == RUNS_GEMM;
    opt gopts[] = {
        CLI_OPT_SYSTEM(&system),
        {"--precision", O_CHOICE, &prec, 0, 0, names_precision, "P", "GEMM precision (default bf16)", NULL, false},
        {"--m", O_DOUBLE, &m, 1, 1e7, NULL, "M", "rows of A and C", "the GEMM's M x N x K", false},
        {"--n", O_DOUBLE, &nn, 1, 1e7, NULL, "N", "columns of B and C", "the GEMM's M x N x K", false},
        {"--k", O_DOUBLE, &k, 1, 1e7, NULL, "K", "the inner dimension", "the GEMM's M x N x K", false},
    };
    opt nopts[] = {
        CLI_OPT_SYSTEM(&system),
        {"--op", O_CHOICE, &op, 0, 0, op_names, "OP", "collective (default all-reduce)", NULL, false},
        {"--gpus", O_INT, &gpus, 1, 16777216, NULL, "N", "ranks (nccl-tests: nodes x GPUs per node)", "ranks in the group", false},
        {"--bytes", O_DOUBLE, &bytes, 1, 1e15, NULL, "B", "nccl-tests size (with measured: busbw_gbps)", NULL, false},
        {"--stride", O_INT, &stride, 1, 16777216, NULL, "K", "rank distance between members (default 1)", NULL, false},
    };
    static const cmd_usage gusage = {"gemm (a run of RUNS.yaml)", "", NULL}, nusage = {"nccl (a run of RUNS.yaml)", "", NULL};
    opt *opts = gemm ? gopts : nopts;
    size_t n = gemm ? sizeof gopts / sizeof gopts[0] : sizeof nopts / sizeof nopts[0];
    cli sub;
    sub_cli(s, &sub, o);
    const gpuecon_system *sys = NULL;
    int rc = opts_parse(&sub, 0, NULL, opts, n, gemm ? &gusage : &nusage, NULL, 0, NULL);
    if (!rc)
        rc = opts_require(&sub, opts, n);
    if (!rc)
        rc = cli_system(&sub, "--system", system, &sys);
    if (rc)
        return sub_fail(s, r, &sub, rc);
    if (gemm && !(gpuecon_gemm_tflops(sys, (gpuecon_precision)prec, NULL, m, nn, k) > 0)) {
        gpuecon_error e;
        err_set(&e, GPUECON_E_INPUT, "--precision", 0, 0, "%s has no %s tensor cores", sys->gpu->name,
                names_precision[prec]);
        return run_fail(s, r, &e, NULL);
    }
    char what[160];
    if (gemm)
        snprintf(what, sizeof what, "%gx%gx%g %s GEMM on %s", m, nn, k, names_precision[prec], sys->name);
    else
        snprintf(what, sizeof what, "%s of %d GPUs on %s", op_names[op], gpus, sys->name);
    const char *w = keep_str(s->c, what);
    if (!w)
        return cli_error(s->c, GPUECON_E_NOMEM, "", "out of memory");
    for (size_t i = 0; i < r->n_values; i++) {
        const runs_value *v = &r->values[i];
        if (!gemm && !(v->bytes > 0) && !(bytes > 0)) {
            gpuecon_error e;
            err_set(&e, GPUECON_E_INPUT, "", 0, 0, "bytes: is required with measured: busbw_gbps (the nccl-tests size "
                    "the bandwidth was measured at, e.g. bytes: 1G)");
            return run_fail(s, r, &e, NULL);
        }
        calrun_row *row = new_row(s, r, v);
        if (!row)
            return too_many(s, r);
        row->system = sys;
        row->precision = gemm ? prec : -1;
        row->m = m, row->n = nn, row->k = k;
        row->op = op, row->gpus = gpus, row->stride = stride;
        row->bytes = v->bytes > 0 ? v->bytes : bytes;
        row->what = w;
        if (!gemm) { /* a collective the system cannot run is the run's error, not the fit's */
            double fig;
            gpuecon_error e;
            gpuecon_error_clear(&e);
            if (calrun_predict(s->c->ctx, row, NULL, &fig, &e))
                return run_fail(s, r, &e, NULL);
        }
    }
    return 0;
}

/* ---- warnings, changes, overlay -------------------------------------------------------------- */

static void bound_warning(cli *c, const calrun_group *g, int p, const char **warn, size_t *nw)
{
    bool hi = g->fit.scale[p] >= g->hi[p] * (1 - 1e-6);
    double b = g->base[p] * (hi ? g->hi[p] : g->lo[p]), v = g->bound_value[p];
    char t[600];
    const char *name = gpuecon_cal_param_name((gpuecon_cal_param)p);
    if (p == GPUECON_CAL_KERNEL)
        snprintf(t, sizeof t, "%s: the %s scale stopped at its %s bound x%.2f (built in %.3g us per kernel): %s",
                 g->name, name, hi ? "upper" : "lower", b, 1e6 * v,
                 hi ? "the runs are slower than ten times the built-in fixed costs explain; a bottleneck the model "
                      "does not have (data loading, the host, power) is left as error"
                    : "the runs are faster than a tenth of the built-in fixed costs allows; check the measured figure "
                      "and the layout (a whole-job figure given per GPU?)");
    else if (hi)
        snprintf(t, sizeof t, "%s: the %s scale stopped at its upper bound x%.2f, where the largest fraction (built in "
                 "%.2f of peak) reaches %.2f: the runs are faster than any efficiency the hardware allows; check the "
                 "measured figure (per GPU?), the precision and the layout; the rest of the gap is left as error",
                 g->name, name, b, v, GPUECON_CAL_FRACTION_MAX);
    else
        snprintf(t, sizeof t, "%s: the %s scale stopped at its lower bound x%.2f (a tenth of the built-in fractions, "
                 "largest %.2f of peak): the runs are far slower than these kernels explain; a bottleneck the model "
                 "does not have (host, data loading, power, another precision) is left as error", g->name, name, b, v);
    if (*nw < MAX_WARN && (warn[*nw] = keep_str(c, t)))
        sb_printf(c->notes, "gpuecon: warning: %s\n", warn[(*nw)++]);
}

/* Each training group's job (its first run) with its parallel layout searched, as `train` and `search`
 * would answer it with sizes left out, before and after the calibration: whether the calibration changes
 * the layout a user would be told to run, not only its speed. */
static int searched_layouts(cli *c, const calrun_row *rows, const calrun_group *groups, size_t ng,
                            calibrate_layout *out, size_t *n)
{
    *n = 0;
    calib_set set;
    bool have_set = false;
    for (size_t g = 0; g < ng; g++) {
        if (groups[g].kind != RUNS_TRAIN)
            continue;
        const calrun_row *r = &rows[groups[g].rows[0]];
        gpuecon_train_request q = r->train;
        q.tp = q.pp = q.vpp = q.cp = q.mbs = q.ep = q.etp = GPUECON_SEARCH;
        q.zero = q.recompute = q.tp_overlap = q.a2a_overlap = GPUECON_SEARCH;
        int rc;
        if (!have_set && (rc = train_cli_calibration(c, &q, &set))) /* the search's MFU cap, as train ranks */
            return rc;
        if (have_set && (rc = train_cli_rank(c, &set, &q))) {
            calib_set_free(&set);
            return rc;
        }
        have_set = true;
        calibrate_layout *l = &out[(*n)++];
        memset(l, 0, sizeof *l);
        l->group = (int)g;
        char job[160];
        snprintf(job, sizeof job, "%s on %d x %s %s, seq %d, batch %d", q.model->name, q.gpus, q.system->name,
                 gpuecon_precision_name(q.precision), q.seq, q.gbs);
        if (!(l->what = keep_str(c, job))) {
            calib_set_free(&set);
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
        }
        gpuecon_train_result a, b;
        gpuecon_error err;
        gpuecon_error_clear(&err);
        q.calibration = NULL;
        int r0 = gpuecon_train_predict(c->ctx, &q, &b, &err);
        q.calibration = &groups[g].cal;
        int r1 = r0 ? r0 : gpuecon_train_predict(c->ctx, &q, &a, &err);
        if (r1 == GPUECON_E_NOMEM || r1 == GPUECON_E_CANCELED) {
            calib_set_free(&set);
            return cli_fail(c, &err);
        }
        l->ok = !r0 && !r1;
        if (l->ok) {
            l->before = b.par, l->after = a.par;
            l->before_tok_s = b.tokens_per_s_per_gpu, l->after_tok_s = a.tokens_per_s_per_gpu;
        }
    }
    if (have_set)
        calib_set_free(&set);
    return 0;
}

/* Row indices by |ln(after/before)|, largest first (insertion sort: at most MAX_ROWS, and no global
 * state for qsort's comparison in a library that serves threads). */
static size_t by_change(const calrun_row *rows, size_t n, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(rows[i].before > 0) || !(rows[i].after > 0))
            continue;
        double d = fabs(log(rows[i].after / rows[i].before));
        if (d < 1e-4)
            continue;
        size_t j = k++;
        while (j > 0 && fabs(log(rows[idx[j - 1]].after / rows[idx[j - 1]].before)) < d) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return k;
}

static void yaml_str(strbuf *b, const char *s)
{
    sb_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putc(b, '\\');
        if ((unsigned char)*s >= 0x20)
            sb_putc(b, *s);
    }
    sb_putc(b, '"');
}

/* "runs.yaml:3 (run 1, tokens_per_s_per_gpu 5800), ..." for a group's rows (at most 8 named). */
static void group_source(strbuf *b, const calrun_row *rows, const calrun_group *g)
{
    for (size_t i = 0; i < g->n && i < 8; i++) {
        const calrun_row *r = &rows[g->rows[i]];
        sb_printf(b, "%s%s:%d (run %d, %s %.6g)", i ? ", " : "", r->file, r->line, r->run, runs_figure_name(r->figure),
                  r->measured);
    }
    if (g->n > 8)
        sb_printf(b, " and %zu more", g->n - 8);
}

static void overlay(strbuf *b, const char *file, const calrun_row *rows, const calrun_group *groups, size_t ng)
{
    sb_printf(b, "# gpuecon calibrate: scales of the model's efficiency parameters fitted on %s.\n"
                 "# Use with --catalog DIR on any command (docs/model.md section 3.8). Scales only: no datasheet value.\n"
                 "calibrations:\n", file);
    for (size_t g = 0; g < ng; g++) {
        const calrun_group *G = &groups[g];
        bool any = false;
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
            any |= G->fit.fitted[p] || G->base_group[p] >= 0;
        if (!any)
            continue;
        sb_printf(b, "  - name: ");
        yaml_str(b, G->name);
        sb_puts(b, "\n    stage: measured\n    source: \"gpuecon calibrate on ");
        group_source(b, rows, G);
        sb_printf(b, "\"\n    workload: %s\n", G->workload == 0   ? "train"
                                             : G->workload == 1 ? "finetune"
                                             : G->workload == 2 ? "serve"
                                                                : "any");
        if (G->stack) {
            sb_puts(b, "    stack: ");
            yaml_str(b, G->stack);
            sb_putc(b, '\n');
        }
        sb_puts(b, "    system: ");
        yaml_str(b, G->system->name);
        sb_printf(b, "\n    precision: %s\n",
                  G->precision >= 0 ? gpuecon_precision_name((gpuecon_precision)G->precision) : "any");
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
            if (!G->fit.fitted[p] && G->base_group[p] < 0)
                continue;
            sb_printf(b, "    %s_scale: {value: %.6g, stage: measured, source: \"", gpuecon_cal_param_name((gpuecon_cal_param)p),
                      G->cal.scale[p]);
            const calrun_group *S = G->fit.fitted[p] ? G : &groups[G->base_group[p]];
            if (!G->fit.fitted[p])
                sb_printf(b, "%s: ", S->name);
            group_source(b, rows, S);
            sb_puts(b, "\"}\n");
        }
        sb_printf(b, "    spread: {value: %.6g, stage: measured, source: \"leave-one-out on ", G->fit.spread);
        group_source(b, rows, G);
        sb_printf(b, "\"}\n    runs: {value: %zu, stage: measured, source: \"", G->n);
        group_source(b, rows, G);
        sb_puts(b, "\"}\n    runs_file: ");
        yaml_str(b, file);
        sb_putc(b, '\n');
    }
}

int cmd_calibrate(cli *c, int argc, char **argv)
{
    const char *out_dir = NULL, *inline_runs = NULL;
    opt opts[] = {
        {"--out-dir", O_STR, &out_dir, 0, 0, NULL, "DIR",
         "write DIR/calibrations.yaml, the overlay for --catalog DIR (on the command line: -o DIR)", NULL, false},
        {"--runs", O_STR, &inline_runs, 0, 0, NULL, "YAML",
         "the RUNS document itself instead of a file (requests, the web API; reads no log: files)", NULL, false},
    };
    static const cmd_usage usage = {
        "calibrate RUNS.yaml [-o DIR]",
        "Fits the few efficiency scales of the model (GEMM, HBM, per-kernel time, collectives) that your\n"
        "own measured runs determine, per stack x system x precision, within physical bounds, and prints\n"
        "the error on your runs before and after, the leave-one-out error and what changes most. With\n"
        "-o DIR it writes DIR/calibrations.yaml: use it with --catalog DIR on any command. RUNS.yaml\n"
        "lists the runs as the commands they would be (docs/cli.md \"gpuecon calibrate\").",
        "gpuecon calibrate examples/runs.yaml -o my-cal && gpuecon train --catalog my-cal ..."};
    const char *pos[1];
    int npos = 0;
    int rc = opts_parse(c, argc, argv, opts, sizeof opts / sizeof opts[0], &usage, pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1 && !inline_runs)
        return cli_usage_error(c, "RUNS.yaml", "is required: the file of your measured runs (docs/cli.md)");
    if (npos >= 1 && inline_runs)
        return cli_usage_error(c, "--runs", "give the runs as a file or inline, not both");
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare and rl");
    if ((rc = cli_load_catalog(c)))
        return rc;
    calstate s = {.c = c};
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (inline_runs ? runs_parse_text(c->ctx, "runs", inline_runs, strlen(inline_runs), &s.f, &err)
                    : runs_read(c->ctx, pos[0], &s.f, &err))
        return cli_fail(c, &err);
    bool oom = false;
    sb_init(&s.scratch, c->ctx, &oom);
    s.rows = ctx_alloc(c->ctx, MAX_ROWS * sizeof *s.rows);
    calrun_group *groups = ctx_alloc(c->ctx, CALRUN_MAX_GROUPS * sizeof *groups);
    const char **warn = ctx_alloc(c->ctx, MAX_WARN * sizeof *warn);
    size_t *changes = ctx_alloc(c->ctx, MAX_ROWS * sizeof *changes);
    calibrate_layout *layouts = ctx_alloc(c->ctx, CALRUN_MAX_GROUPS * sizeof *layouts);
    s.limited = ctx_alloc(c->ctx, (s.f.n ? s.f.n : 1) * sizeof *s.limited);
    strbuf yaml;
    sb_init(&yaml, c->ctx, &c->oom);
    if (!s.rows || !groups || !warn || !changes || !layouts || !s.limited) {
        rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < s.f.n && !rc; i++) {
        const runs_entry *r = &s.f.runs[i];
        json_t *o = run_options(r);
        if (!o || json_array_append_new(c->keep, o)) {
            rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
            break;
        }
        rc = one_prediction(&s, r);
        if (!rc)
            rc = r->command == RUNS_TRAIN      ? add_train(&s, r, o)
                 : r->command == RUNS_INFER    ? add_infer(&s, r, o)
                 : r->command == RUNS_FINETUNE ? add_finetune(&s, r, o)
                                               : add_micro(&s, r, o);
    }
    if (rc)
        goto done;
    size_t ng = 0;
    if (calrun_fit(c->ctx, s.rows, s.n, s.f.path, groups, &ng, &err)) {
        if (err.code != GPUECON_E_NOMEM && err.code != GPUECON_E_CANCELED)
            err.code = GPUECON_E_INPUT; /* a run the model cannot predict: exit 2 at the run */
        rc = cli_fail(c, &err);
        goto done;
    }
    size_t nw = 0;
    for (size_t g = 0; g < ng; g++) {
        const calrun_group *G = &groups[g];
        if (G->contradiction) {
            const calrun_row *a = &s.rows[G->worst_a], *b = &s.rows[G->worst_b];
            err_set(&err, GPUECON_E_INPUT, a->file, a->line, a->col,
                    "run %d and run %d (%s:%d) contradict each other: after the fit run %d is still predicted %.2fx "
                    "higher against its measurement than run %d (1.5x at most), and no scales within the bounds "
                    "reconcile them. Either a figure or an option (layout, precision, stack) of one is wrong, or the "
                    "runs differ in something the model does not capture: calibrate them in separate files",
                    a->run, b->run, b->file, b->line, a->run, exp(G->fit.residual_gap), b->run);
            rc = cli_fail(c, &err);
            goto done;
        }
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
            if (G->fit.at_bound[p])
                bound_warning(c, G, p, warn, &nw);
        if (G->n >= 2 && G->fit.residual_gap > CALRUN_CONTRADICTION && nw < MAX_WARN) {
            char t[300];
            snprintf(t, sizeof t, "%s: the points of run %d's log differ from the model's shape by up to %.2fx after "
                     "the fit (the sizes where they differ most are kept as error)", G->name, s.rows[G->worst_a].run,
                     exp(G->fit.residual_gap));
            if ((warn[nw] = keep_str(c, t)))
                sb_printf(c->notes, "gpuecon: warning: %s\n", warn[nw++]);
        }
    }
    size_t nc = by_change(s.rows, s.n, changes);
    size_t nl = 0;
    if ((rc = searched_layouts(c, s.rows, groups, ng, layouts, &nl)))
        goto done;
    overlay(&yaml, s.f.path, s.rows, groups, ng);
    char path[1100];
    if (out_dir) {
        snprintf(path, sizeof path, "%s/calibrations.yaml", out_dir);
        if (c->plots) { /* the front end writes it (the library writes no file) */
            json_t *p = json_pack("{s:s, s:s, s:s, s:b, s:b}", "path", path, "text", yaml.s ? yaml.s : "", "dir",
                                  out_dir, "required", true, "announce", true);
            if (!p || json_array_append_new(c->plots, p)) {
                rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
                goto done;
            }
        } else {
            sb_printf(c->notes, "gpuecon: --out-dir: this caller takes no files; the JSON's overlay.yaml holds the "
                                "text of %s\n", path);
        }
    }
    calibrate_view v = {s.f.path, s.rows,   s.n,     groups, ng, changes, nc < 5 ? nc : 5, warn, nw, layouts, nl,
                        out_dir ? path : NULL, yaml.s ? yaml.s : ""};
    rc = cli_render(c, &render_calibrate, &v);
done:
    sb_free(&yaml);
    sb_free(&s.scratch);
    ctx_free(c->ctx, s.rows, MAX_ROWS * sizeof *s.rows);
    ctx_free(c->ctx, groups, CALRUN_MAX_GROUPS * sizeof *groups);
    ctx_free(c->ctx, warn, MAX_WARN * sizeof *warn);
    ctx_free(c->ctx, changes, MAX_ROWS * sizeof *changes);
    ctx_free(c->ctx, layouts, CALRUN_MAX_GROUPS * sizeof *layouts);
    ctx_free(c->ctx, s.limited, (s.f.n ? s.f.n : 1) * sizeof *s.limited);
    runs_free(&s.f);
    return rc;
}
