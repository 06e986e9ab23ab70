/*
 * band_check.c — the 80% bands against the validate tables (docs/model.md §7.6): each validate row as
 * a band row (what scripts/band_rows.sh compiles into band_rows.c, and what test_band_rows checks the
 * compiled table against, running every table live), and the leave-one-out coverage `validate` prints.
 * Apart from band.c because these run the validate tables (training, serving, fine-tuning, RL) while
 * band.c only reads the compiled rows: train, search and compare use band.c inside the models that the
 * validate tables themselves run, so the two cannot be one file without a circle.
 */
#include "analysis/band.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- validate rows as band rows ---- */

/* "N x NAME" in what: the GPU count and the GPU generation (NAME a GPU or a system). */
static bool parse_gpus(const gpuecon_catalog *cat, const char *what, int *gpus, char *arch, size_t cap)
{
    const char *x = strstr(what, " x ");
    if (!x)
        return false;
    const char *p = x;
    while (p > what && p[-1] >= '0' && p[-1] <= '9')
        p--;
    *gpus = atoi(p);
    char name[48];
    size_t k = 0;
    for (const char *q = x + 3; *q && *q != ',' && k + 1 < sizeof name; q++)
        name[k++] = *q;
    name[k] = 0;
    const gpuecon_gpu *g = gpuecon_catalog_gpu(cat, name);
    const gpuecon_system *s = g ? NULL : gpuecon_catalog_system(cat, name);
    if (!g && s)
        g = s->gpu;
    snprintf(arch, cap, "%s", g && g->arch ? g->arch : "?");
    return g != NULL;
}

/* The model's kind from the first word of what. */
static bool model_moe(const gpuecon_catalog *cat, const char *what)
{
    char name[48];
    size_t k = 0;
    for (const char *q = what; *q && *q != ',' && *q != ' ' && k + 1 < sizeof name; q++)
        name[k++] = *q;
    name[k] = 0;
    const gpuecon_model *m = gpuecon_catalog_model(cat, name);
    return m && m->experts > 0;
}

/* The precision named after the GPU in what ("..., 8 x b200, fp4/fp8 KV" or "..., bf16"). */
static gpuecon_precision what_prec(const char *what)
{
    const char *x = strstr(what, " x ");
    const char *c = x ? strchr(x, ',') : NULL;
    if (!c)
        return GPUECON_BF16;
    c++;
    while (*c == ' ')
        c++;
    return !strncmp(c, "fp8", 3) ? GPUECON_FP8 : !strncmp(c, "fp4", 3) ? GPUECON_FP4 : GPUECON_BF16;
}

static bool serving_row(const gpuecon_catalog *cat, const gpuecon_validate_row *r, band_row *o)
{
    const char *m = r->metric;
    if (!strncmp(m, "TPOT ms", 7))
        o->metric = BAND_TPOT;
    else if (strstr(m, "output tok/s") || !strncmp(m, "decode tok/s", 12))
        o->metric = BAND_SERVE_TPS;
    else
        return false; /* a ratio, a gain, a memory or a concurrency: no band metric */
    parse_gpus(cat, r->what, &o->gpus, o->arch, sizeof o->arch);
    o->moe = model_moe(cat, r->what);
    o->prec = what_prec(r->what);
    const char *sl = strrchr(r->what, ',');
    double p = 0, q = 0;
    if (sl && sscanf(sl + 1, " %lf/%lf", &p, &q) == 2)
        o->seq = (int)(p + q);
    const char *at = strstr(m, " at ");
    if (at)
        o->batch = atof(at + 4);
    else if ((at = strstr(m, ", ")) && strstr(m, "/rank"))
        o->batch = atof(at + 2);
    const char *c = r->config;
    snprintf(o->stack, sizeof o->stack, "%s",
             strstr(c, ", sglang")     ? "sglang"
             : strstr(c, ", vllm-v1")  ? "vllm-v1"
             : strstr(c, ", LoRA")     ? "vllm" /* the blog's vLLM deployment */
             : strstr(c, ", generic")  ? "generic"
             : strstr(c, ", trtllm")   ? "trtllm"
                                       : "generic");
    return true;
}

bool band_row_of(const gpuecon_catalog *cat, const gpuecon_validate_row *r, band_row *out)
{
    memset(out, 0, sizeof *out);
    if (!r || !cat || !(r->published > 0) || !(r->predicted > 0) || !r->fits)
        return false;
    snprintf(out->id, sizeof out->id, "%s", r->id);
    out->fitted = r->fitted_on;
    out->published = r->published, out->predicted = r->predicted;
    if (r->layout.set) { /* a training row */
        const gpuecon_calib_layout *l = &r->layout;
        out->metric = BAND_TRAIN_TPS;
        snprintf(out->arch, sizeof out->arch, "%s", l->arch);
        snprintf(out->stack, sizeof out->stack, "%s", l->stack);
        out->prec = l->prec, out->moe = l->moe, out->seq = l->seq, out->gpus = l->gpus;
        return true;
    }
    if (!strcmp(r->group, "serving"))
        return serving_row(cat, r, out);
    if (!strcmp(r->group, "finetune")) {
        if (strcmp(r->metric, "tok/s")) /* ratios of two predictions: not a figure a command prints */
            return false;
        out->metric = BAND_FINETUNE_TPS;
        parse_gpus(cat, r->what, &out->gpus, out->arch, sizeof out->arch);
        out->prec = what_prec(r->what);
        out->moe = model_moe(cat, r->what);
        const char *sl = strrchr(r->config, ',');
        snprintf(out->stack, sizeof out->stack, "%s", sl ? sl + 2 : "");
        return true;
    }
    if (!strcmp(r->group, "rl")) {
        out->metric = BAND_RL_STEP;
        parse_gpus(cat, r->what, &out->gpus, out->arch, sizeof out->arch);
        out->prec = strstr(r->config, "FP8") ? GPUECON_FP8 : GPUECON_BF16;
        out->moe = model_moe(cat, r->what);
        snprintf(out->stack, sizeof out->stack, "%s", gpuecon_rl_validate_stack());
        return true;
    }
    return false;
}

size_t band_rows_collect(const gpuecon_catalog *cat, const gpuecon_validate_row *rows, size_t n, band_row *out,
                         size_t cap, size_t k)
{
    for (size_t i = 0; i < n && k < cap; i++)
        if (band_row_of(cat, &rows[i], &out[k]))
            k++;
    return k;
}

int band_rows_live(gpuecon_ctx *ctx, const gpuecon_catalog *cat, band_row *out, size_t cap, size_t *n,
                   gpuecon_error *err)
{
    size_t cap_v = GPUECON_VALIDATE_MAX + GPUECON_VALIDATE_SERVING_MAX + GPUECON_VALIDATE_FINETUNE_MAX + 32;
    gpuecon_validate_row *v = ctx_alloc(ctx, cap_v * sizeof *v);
    if (!v)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    size_t nt = 0, ns = 0, nf = 0, nr = 0;
    gpuecon_validate_summary sum;
    int rc = gpuecon_validate(ctx, cat, NULL, 0, v, GPUECON_VALIDATE_MAX, &nt, NULL, NULL, err);
    if (!rc)
        rc = gpuecon_validate_serving(ctx, cat, v + nt, GPUECON_VALIDATE_SERVING_MAX, &ns, err);
    if (!rc)
        rc = gpuecon_validate_finetune(cat, v + nt + ns, GPUECON_VALIDATE_FINETUNE_MAX, &nf, err);
    if (!rc)
        rc = gpuecon_rl_validate(ctx, cat, v + nt + ns + nf, 32, &nr, &sum, err);
    *n = rc ? 0 : band_rows_collect(cat, v, nt + ns + nf + nr, out, cap, 0);
    ctx_free(ctx, v, cap_v * sizeof *v);
    return rc;
}

/* ---- the set ---- */

/* Accumulates one row's leave-one-out result: inside or not, and the band's width. */
typedef struct acc {
    size_t n, in;
    double w[BAND_ROWS_MAX];
} acc;

static void acc_add(acc *a, bool inside, double width)
{
    if (a->n < BAND_ROWS_MAX)
        a->in += inside, a->w[a->n++] = width;
}

static void acc_stats(acc *a, band_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!a->n)
        return;
    qsort(a->w, a->n, sizeof a->w[0], cmp_double);
    out->n = a->n;
    out->coverage = (double)a->in / (double)a->n;
    out->median_width = a->n % 2 ? a->w[a->n / 2] : (a->w[a->n / 2 - 1] + a->w[a->n / 2]) / 2;
}

/* The training validate rows with a layout (the calibration set calibset.c builds), copied once. */
typedef struct loo_calib {
    gpuecon_validate_row *rows;
    size_t n;
} loo_calib;

/* Validate row v's calibration axes against the training rows without v, as train finds them for a
 * layout (calib_match_layout); 0 for a row without a layout. */
static unsigned calib_axes_loo(loo_calib *t, const gpuecon_validate_row *v, calib_match *m)
{
    memset(m, 0, sizeof *m);
    if (!v->layout.set)
        return 0;
    size_t k = 0;
    while (k < t->n && strcmp(t->rows[k].id, v->id))
        k++;
    if (k == t->n) {
        calib_set all = {.rows = t->rows, .n = t->n};
        calib_match_layout(&all, &v->layout, 0, m);
        return m->axes;
    }
    gpuecon_validate_row tmp = t->rows[k]; /* row k to the end, the set one row shorter */
    t->rows[k] = t->rows[t->n - 1], t->rows[t->n - 1] = tmp;
    calib_set rest = {.rows = t->rows, .n = t->n - 1};
    calib_match_layout(&rest, &v->layout, 0, m);
    t->rows[t->n - 1] = t->rows[k], t->rows[k] = tmp;
    return m->axes;
}

int band_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_validate_row *const *sets,
                  const size_t *ns, size_t nsets, band_validation *out, gpuecon_error *err)
{
    memset(out, 0, sizeof *out);
    gpuecon_validate_row rl[32];
    gpuecon_validate_summary sum;
    size_t nrl = 0;
    int rc = gpuecon_rl_validate(ctx, cat, rl, 32, &nrl, &sum, err);
    if (rc)
        return rc;
    size_t bytes = BAND_ROWS_MAX * (sizeof(band_row) + sizeof(const char *) + sizeof(gpuecon_band) +
                                    sizeof(const gpuecon_validate_row *)) + 4 * sizeof(acc);
    char *mem = ctx_alloc(ctx, bytes);
    size_t ntrain = 0;
    for (size_t k = 0; k < nsets; k++)
        for (size_t i = 0; sets[k] && i < ns[k]; i++)
            ntrain += sets[k][i].layout.set && sets[k][i].published > 0;
    loo_calib t = {.rows = ctx_alloc(ctx, (ntrain ? ntrain : 1) * sizeof *t.rows)};
    if (!mem || !t.rows) {
        ctx_free(ctx, mem, bytes);
        ctx_free(ctx, t.rows, (ntrain ? ntrain : 1) * sizeof *t.rows);
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    }
    for (size_t k = 0; k < nsets; k++)
        for (size_t i = 0; sets[k] && i < ns[k]; i++)
            if (sets[k][i].layout.set && sets[k][i].published > 0)
                t.rows[t.n++] = sets[k][i];
    band_row *rows = (band_row *)mem;
    char *p = mem + BAND_ROWS_MAX * sizeof(band_row);
    const char **cls = (const char **)p;
    p += BAND_ROWS_MAX * sizeof(const char *);
    const gpuecon_validate_row **src = (const gpuecon_validate_row **)p;
    p += BAND_ROWS_MAX * sizeof(const gpuecon_validate_row *);
    gpuecon_band *bands = (gpuecon_band *)p;
    p += BAND_ROWS_MAX * sizeof(gpuecon_band);
    acc *a = (acc *)p; /* all, train, serve, group */
    size_t n = 0;
    for (size_t k = 0; k <= nsets; k++) {
        const gpuecon_validate_row *v = k < nsets ? sets[k] : rl;
        size_t m = k < nsets ? ns[k] : nrl;
        for (size_t i = 0; v && i < m && n < BAND_ROWS_MAX; i++)
            if (band_row_of(cat, &v[i], &rows[n]))
                src[n] = &v[i], cls[n++] = v[i].cls;
    }
    band_set *s = NULL;
    if ((rc = band_set_from_rows(ctx, rows, n, &s, err))) {
        ctx_free(ctx, mem, bytes);
        ctx_free(ctx, t.rows, (ntrain ? ntrain : 1) * sizeof *t.rows);
        return rc;
    }
    /* each held-out row's band without it: a training row with its calibration axes against the
       other training rows, as train computes them for a layout */
    for (size_t i = 0; i < n; i++) {
        if (rows[i].fitted)
            continue;
        calib_match m;
        const char *why[CALIB_AXIS_COUNT];
        unsigned axes = calib_axes_loo(&t, src[i], &m);
        for (int x = 0; x < CALIB_AXIS_COUNT; x++)
            why[x] = m.why[x];
        if (src[i]->layout.set)
            band_of_row_loo_axes(s, i, axes, why, &bands[i]);
        else
            band_of_row_loo(s, i, &bands[i]);
        bool in = band_contains(&bands[i], rows[i].published);
        double w = bands[i].high / bands[i].low;
        acc_add(&a[0], in, w);
        if (rows[i].metric == BAND_TRAIN_TPS)
            acc_add(&a[1], in, w);
        if (rows[i].metric == BAND_SERVE_TPS || rows[i].metric == BAND_TPOT)
            acc_add(&a[2], in, w);
    }
    acc_stats(&a[0], &out->all);
    acc_stats(&a[1], &out->train);
    acc_stats(&a[2], &out->serve);
    /* by group: the rows of each class in the order they first appear */
    for (size_t i = 0; i < n && out->ngroups < sizeof out->groups / sizeof out->groups[0]; i++) {
        bool seen = false;
        for (size_t g = 0; g < out->ngroups && !seen; g++)
            seen = !strcmp(out->groups[g].name, cls[i]);
        if (seen)
            continue;
        memset(&a[3], 0, sizeof a[3]);
        for (size_t j = i; j < n; j++) {
            if (rows[j].fitted || strcmp(cls[j], cls[i]))
                continue;
            acc_add(&a[3], band_contains(&bands[j], rows[j].published), bands[j].high / bands[j].low);
        }
        snprintf(out->groups[out->ngroups].name, sizeof out->groups[0].name, "%s", cls[i]);
        acc_stats(&a[3], &out->groups[out->ngroups++].s);
    }
    band_set_free(s);
    ctx_free(ctx, mem, bytes);
    ctx_free(ctx, t.rows, (ntrain ? ntrain : 1) * sizeof *t.rows);
    return GPUECON_OK;
}

