/*
 * cmd_validate.c — `gpuecon validate`: the training model's predicted tokens/s/GPU against
 * every published run with a known configuration, the error of each, their median and max,
 * and the efficiency parameters in use. A report: it exits 0 and says whether the
 * calibration targets (median |error| <= 10%, no case worse than 25%) are met; the JSON
 * carries the numbers for CTest to guard (tests/cli/).
 */
#include "request/cli.h"

#include <stdlib.h>
#include <string.h>

static const char *const group_names[] = {"all", "narayanan", "dgxc", "vtrain", "seed", "heldout", "moe", "recipes", "torchtitan", "serving", "finetune",
                                          "rl", NULL};

/* Whether --group names the set `set` or a class of its rows (n of them): that section alone. */
static bool only(const validate_view *v, const char *set, const gpuecon_validate_row *rows, size_t n)
{
    if (!v->group)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v->group, set) || !strcmp(rows[i].cls, v->group))
            return true;
    return false;
}

/* --group rl: the RL step model against published GRPO step times (gpuecon_rl_validate); with k > 0 the
 * calibration test on its groups (validate_loo_run, the RL set alone). */
static int validate_rl(cli *c, int k)
{
    gpuecon_validate_row rows[32];
    validate_rl_view v = {.rows = rows, .stack = gpuecon_rl_validate_stack(),
                         .gen_stack = GPUECON_RL_GEN_STACK};
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_rl_validate(c->ctx, c->cat, rows, 32, &v.n, &v.summary, &err))
        return cli_fail(c, &err);
    validate_loo loo;
    memset(&loo, 0, sizeof loo);
    if (k > 0) {
        const gpuecon_validate_row *const sets[VALIDATE_SETS] = {[VALIDATE_SET_RL] = rows};
        const size_t n[VALIDATE_SETS] = {[VALIDATE_SET_RL] = v.n};
        if (validate_loo_run(c->ctx, c->cat, k, sets, n, &loo, &err))
            return cli_fail(c, &err);
        v.loo = &loo;
    }
    gpuecon_validate_summarize(rows, v.n, "rl", false, GPUECON_ROWS_FITTED, &v.fitted);
    gpuecon_validate_summarize(rows, v.n, "rl", false, GPUECON_ROWS_HELD_OUT, &v.held);
    v.signed_median = gpuecon_validate_signed_median(rows, v.n, GPUECON_ROWS_ALL);
    v.signed_fitted = gpuecon_validate_signed_median(rows, v.n, GPUECON_ROWS_FITTED);
    v.signed_held = gpuecon_validate_signed_median(rows, v.n, GPUECON_ROWS_HELD_OUT);
    v.npairs = gpuecon_rl_validate_pairs(rows, v.n, v.pairs, sizeof v.pairs / sizeof v.pairs[0]);
    for (size_t i = 0; i < v.n; i++) /* "no prediction: <the error>" */
        cli_spell_options(c, rows[i].note, sizeof rows[i].note);
    int rc = cli_render(c, &render_validate_rl, &v);
    validate_loo_free(&loo);
    return rc;
}

/* The rows and report of a validate run: too large for a stack, and never static (requests may
 * run on several threads at once). */
typedef struct vbufs {
    gpuecon_validate_row rows[GPUECON_VALIDATE_MAX];
    gpuecon_validate_row srows[GPUECON_VALIDATE_SERVING_MAX];
    gpuecon_validate_row frows[GPUECON_VALIDATE_FINETUNE_MAX];
    gpuecon_validate_row rlrows[32]; /* --leave-one-out over every set: the RL step rows too */
    size_t rln;
    validate_view v;
    band_validation band;
} vbufs;

/* Whether a row of rows[0, n) is in `group` (its set or its class). */
static bool has_group(const gpuecon_validate_row *rows, size_t n, const char *group)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].group, group) || !strcmp(rows[i].cls, group))
            return true;
    return false;
}

/* --leave-one-out / --calibrate-on K: the calibration test on the rows computed (vp's), into *loo. */
static int run_loo(cli *c, int k, vbufs *b, validate_loo *loo)
{
    validate_view *vp = &b->v;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    b->rln = 0;
    /* the RL step rows join where every set is tested (no --group): validate lists them only with
     * --group rl, but their calibration groups are groups like the others */
    if (!vp->group && vp->n && vp->sn && vp->fn) {
        gpuecon_validate_summary rs;
        if (gpuecon_rl_validate(c->ctx, c->cat, b->rlrows, sizeof b->rlrows / sizeof b->rlrows[0], &b->rln, &rs, &err))
            return cli_fail(c, &err);
    }
    const gpuecon_validate_row *const sets[VALIDATE_SETS] = {vp->rows, vp->srows, vp->frows, b->rlrows};
    const size_t n[VALIDATE_SETS] = {vp->n, vp->sn, vp->fn, b->rln};
    if (validate_loo_run(c->ctx, c->cat, k, sets, n, loo, &err))
        return cli_fail(c, &err);
    vp->loo = loo;
    return 0;
}

static int validate_all(cli *c, const char *group, int k, vbufs *b)
{
    gpuecon_validate_row *rows = b->rows, *srows = b->srows;
    validate_view *vp = &b->v;
    size_t n = 0;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    /* Only what the output shows is computed, so the bytes are those of computing every set:
     * the JSON and the whole report carry every set (the JSON of a training set only that set); a table of one group its own set whole
     * (the training set for its summaries, the serving set for its groups); a CSV only the rows
     * it lists (no group: the training rows). A class (or an unknown name) is looked up in the
     * sets' rows first, the serving rows unsimulated: only their classes are needed. */
    bool grouped = group && strcmp(group, "all"), train = true, serve = true, ft = true, lookup = false;
    bool csv = c->format == FMT_CSV;
    static const char *const train_sets[] = {"narayanan", "dgxc", "vtrain", "seed", "heldout", "moe", "recipes",
                                             "torchtitan", NULL};
    bool tset = false;
    for (size_t i = 0; grouped && train_sets[i]; i++)
        tset = tset || !strcmp(group, train_sets[i]);
    vp->training_only = c->format == FMT_JSON && tset; /* its JSON leaves the serving and fine-tuning sets out */
    if (vp->training_only)
        serve = ft = false;
    if (c->format != FMT_JSON) {
        if (!grouped)
            serve = ft = !csv;
        else if (tset)
            serve = ft = false;
        else if (!strcmp(group, "serving"))
            train = ft = false;
        else if (!strcmp(group, "finetune"))
            train = serve = false;
        else
            lookup = true;
    }
    if (train && gpuecon_validate(c->ctx, c->cat, NULL, 0, rows, GPUECON_VALIDATE_MAX, &n, &vp->all, &vp->fit, &err))
        return cli_fail(c, &err);
    vp->sn = vp->fn = 0;
    if (serve && validate_serving_rows(c->ctx, c->cat, NULL, !lookup, srows, GPUECON_VALIDATE_SERVING_MAX, &vp->sn,
                                       &err))
        return cli_fail(c, &err);
    if (ft && gpuecon_validate_finetune(c->cat, b->frows, GPUECON_VALIDATE_FINETUNE_MAX, &vp->fn, &err))
        return cli_fail(c, &err);
    if (lookup) { /* the first set that has the group, in the order the table looks (finetune, serving) */
        if (has_group(b->frows, vp->fn, group))
            n = vp->sn = 0;
        else if (has_group(srows, vp->sn, group)) {
            n = vp->fn = 0;
            if (validate_serving_rows(c->ctx, c->cat, csv ? group : NULL, true, srows, GPUECON_VALIDATE_SERVING_MAX,
                                      &vp->sn, &err))
                return cli_fail(c, &err);
        } else if (has_group(rows, n, group))
            vp->sn = vp->fn = 0;
        /* else unknown: refused below, with every set's groups as candidates */
    }
    vp->rows = rows, vp->n = n;
    vp->ngroups = gpuecon_validate_groups(rows, n, GPUECON_ROWS_ALL, vp->groups, sizeof vp->groups / sizeof vp->groups[0]);
    if (vp->ngroups > sizeof vp->groups / sizeof vp->groups[0])
        vp->ngroups = sizeof vp->groups / sizeof vp->groups[0];
    vp->vtrain_p95 = gpuecon_validate_quantile(rows, n, "vtrain", GPUECON_ROWS_ALL, 0.95);
    vp->srows = srows;
    gpuecon_validate_summarize(srows, vp->sn, NULL, false, GPUECON_ROWS_ALL, &vp->s_all);
    gpuecon_validate_summarize(srows, vp->sn, NULL, false, GPUECON_ROWS_HELD_OUT, &vp->s_held);
    vp->nsgroups = gpuecon_validate_groups(srows, vp->sn, GPUECON_ROWS_ALL, vp->sgroups, 16);
    if (vp->nsgroups > 16)
        vp->nsgroups = 16;
    vp->frows = b->frows;
    gpuecon_validate_summarize(b->frows, vp->fn, NULL, false, GPUECON_ROWS_ALL, &vp->f_all);
    gpuecon_validate_summarize(b->frows, vp->fn, NULL, false, GPUECON_ROWS_HELD_OUT, &vp->f_held);
    vp->nfgroups = gpuecon_validate_groups(b->frows, vp->fn, GPUECON_ROWS_ALL, vp->fgroups, 8);
    if (vp->nfgroups > 8)
        vp->nfgroups = 8;
    if (group && strcmp(group, "all")) {
        if (!has_group(rows, n, group) && !has_group(srows, vp->sn, group) && !has_group(b->frows, vp->fn, group)) {
            const char *cand[64];
            size_t nc = 0;
            for (size_t i = 0; group_names[i] && nc < 64; i++)
                cand[nc++] = group_names[i];
            for (size_t i = 0; i < vp->ngroups && nc < 64; i++)
                cand[nc++] = vp->groups[i].name;
            for (size_t i = 0; i < vp->nsgroups && nc < 64; i++)
                cand[nc++] = vp->sgroups[i].name;
            for (size_t i = 0; i < vp->nfgroups && nc < 64; i++)
                cand[nc++] = vp->fgroups[i].name;
            const char *near = gpuecon_suggest(group, cand, nc);
            return cli_usage_error(c, "--group", "'%s' is neither a set nor a group%s%s%s (sets: narayanan, dgxc, "
                                              "vtrain, seed, heldout, moe, recipes, torchtitan, serving, finetune, rl; groups as listed by "
                                              "validate)",
                                   group, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
        vp->group = group;
    }
    gpuecon_validate_summarize_sets(rows, n, gpuecon_validate_separate_sets, true, GPUECON_ROWS_HELD_OUT, &vp->held);
    gpuecon_validate_summarize(rows, n, "torchtitan", false, GPUECON_ROWS_FITTED, &vp->tt_fit);
    gpuecon_validate_summarize(rows, n, "torchtitan", false, GPUECON_ROWS_HELD_OUT, &vp->tt_held);
    gpuecon_validate_summarize(rows, n, "moe", false, GPUECON_ROWS_ALL, &vp->moe);
    gpuecon_validate_summarize(rows, n, "moe", false, GPUECON_ROWS_FITTED, &vp->moe_fit);
    /* the 80% bands' leave-one-out coverage, where every set was computed (docs/model.md §7.6) */
    if (train && serve && ft && !lookup && !csv && !grouped) {
        const gpuecon_validate_row *sets[] = {rows, srows, b->frows};
        size_t ns[] = {n, vp->sn, vp->fn};
        if (band_validate(c->ctx, c->cat, sets, ns, 3, &b->band, &err))
            return cli_fail(c, &err);
        vp->band = &b->band;
    }
    const render_kind *kind = only(vp, "finetune", vp->frows, vp->fn)  ? &render_validate_finetune
                              : only(vp, "serving", vp->srows, vp->sn) ? &render_validate_serving
                                                                        : &render_validate;
    validate_loo loo;
    memset(&loo, 0, sizeof loo);
    int rc = k > 0 ? run_loo(c, k, b, &loo) : 0;
    if (!rc)
        rc = cli_render(c, kind, vp);
    validate_loo_free(&loo);
    return rc;
}

int cmd_validate(cli *c, int argc, char **argv)
{
    const char *group = NULL;
    bool loo = false;
    int k = 0;
    opt opts[] = {
        {"--group", O_STR, &group, 0, 0, NULL, "G",
         "rows to list: a set (narayanan dgxc vtrain seed heldout moe recipes serving finetune; rl: RL step times) or a "
         "generation-precision-kind group such as hopper-fp8-dense (the summary covers all)", NULL, false},
        {"--leave-one-out", O_FLAG, &loo, 0, 0, NULL, NULL,
         "calibrate on each row of a stack/system/precision group in turn and predict the group's other rows "
         "(--calibrate-on 1)", NULL, false},
        {"--calibrate-on", O_INT, &k, 1, VALIDATE_LOO_K_MAX, NULL, "K",
         "the same with K rows per calibration (1 or 2; pairs: at most 64 per group)", NULL, false},
    };
    static const cmd_usage usage = {
        "validate [--group SET|GENERATION-PRECISION-KIND] [--leave-one-out | --calibrate-on K]",
        "Predicted vs published tokens/s/GPU for every calibration run with a known\n"
        "configuration: the 109 vTrain A100 runs, Narayanan et al. SC21 (A01-A10), the NVIDIA\n"
        "DGX Cloud H100 recipes (A26-A35) and, held out of the fit, SemiAnalysis's 405B/70B scaling\n"
        "figures and, never fitted on, Llama 3.1 405B on GB200 and MT-NLG 530B on A100\n"
        "(heldout); the median and largest |error| of the calibration set against the\n"
        "targets (10%, 25%); and the mixture-of-experts runs (DeepSeek-V3 A38/A39 and\n"
        "July 2025, Llama 4 Maverick FP8; target 15%). Then the serving model (set 'serving'):\n"
        "TensorRT-LLM's Llama 3.1 8B FP8 max-throughput table on H100/H200 (held out) and\n"
        "the VESSL AI blog's serving figures; targets median 8%, max 20% on the held-out rows.\n"
        "Then the fine-tuning model (set 'finetune'): the blog's LoRA training figures, each\n"
        "with its stack (hf-peft-eager, te-fp8-compile).\n"
        "--leave-one-out (--calibrate-on K): for every stack x system x precision x dense/MoE\n"
        "group, fit a calibration on K of its published rows (as gpuecon calibrate fits a\n"
        "user's runs) and report the median |error| of the group's other rows.",
        "gpuecon validate --group dgxc"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if (loo && k > 1)
        return cli_usage_error(c, "--calibrate-on", "%d with --leave-one-out, which is --calibrate-on 1: give one "
                                                    "of the two", k);
    if (loo)
        k = 1;
    if ((rc = cli_load_catalog(c)))
        return rc;
    if (group && !strcmp(group, "rl"))
        return validate_rl(c, k);
    vbufs *b = ctx_alloc(c->ctx, sizeof *b);
    if (!b)
        return cli_error(c, GPUECON_E_NOMEM, "validate", "out of memory");
    memset(b, 0, sizeof *b);
    rc = validate_all(c, group, k, b);
    ctx_free(c->ctx, b, sizeof *b);
    return rc;
}

