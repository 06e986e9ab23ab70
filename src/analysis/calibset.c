/*
 * calibset.c — the training calibration set and where a layout stands against it
 * (docs/model.md §3.5).
 *
 * The set is every training row `gpuecon validate` compares against, taken from the validate
 * tables themselves (gpuecon_validate; each row's layout is filled by validate_set_train), so a
 * row added to those tables joins it with no edit here. For a layout that train or search
 * returns this file finds the nearest row (calib_distance, a weighted L1 sum over the run's
 * axes), names each axis on which the layout lies outside the set (stack, layout family, context,
 * scale, model kind, GPU generation x precision) and flags a point estimate above the best MFU
 * ever published for its GPU generation and precision (the rows' own, and the published runs
 * listed below with their sources; a dense model's from dense runs only). Key choice: all of this runs on the few layouts returned,
 * never in the search's hot path; the search only clips its ranking score at the cap.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Published MFUs of runs that are not validate rows (no layout or model the catalog holds), that
 * count for the cap, as published (model FLOPs over the dense peak at the precision). Assumption:
 * taken as causal-attention MFUs; at their 2,048- and 8,192-token contexts full and causal
 * attention differ by 3-7% of the model FLOPs. */
static const struct {
    const char *id, *arch;
    gpuecon_precision prec;
    double mfu;
    const char *source;
} published_mfu[] = {
    /* 175B GPT-style model on 12,288 NVIDIA Ampere GPUs (the paper's cluster), BF16, with the
     * paper's parallel transformer block and sliding-window attention */
    {"MegaScale-12288", "ampere", GPUECON_BF16, 0.552,
     "Jiang et al., MegaScale, NSDI 2024 (arXiv 2402.15627), abstract: 55.2% MFU, 175B on 12,288 GPUs"},
    /* Llama 3 405B pre-training, 8,192 H100, TP8 CP1 PP16, BF16: 430 TFLOP/s per GPU */
    {"Llama3-405B-8192", "hopper", GPUECON_BF16, 0.43,
     "Llama Team, The Llama 3 Herd of Models (arXiv 2407.21783) Table 4: BF16 MFU 38-43%"},
};

double calib_row_mfu(const gpuecon_validate_row *row)
{
    const gpuecon_calib_layout *l = &row->layout;
    return l->peak_flops > 0 ? row->published * l->flops_per_token / l->peak_flops : 0;
}

int calib_set_build(gpuecon_ctx *ctx, const gpuecon_catalog *cat, calib_set *out, gpuecon_error *err)
{
    if (!ctx || !cat || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "context, catalog and set are required");
    memset(out, 0, sizeof *out);
    size_t bytes = GPUECON_VALIDATE_MAX * sizeof *out->rows, n = 0;
    gpuecon_validate_row *rows = ctx_alloc(ctx, bytes);
    if (!rows)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    int rc = gpuecon_validate(ctx, cat, NULL, 0, rows, GPUECON_VALIDATE_MAX, &n, NULL, NULL, err);
    if (rc) {
        ctx_free(ctx, rows, bytes);
        return rc;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) /* training rows with their layout, published throughput known */
        if (rows[i].layout.set && rows[i].published > 0)
            rows[k++] = rows[i];
    out->rows = rows, out->n = k, out->ctx = ctx;
    return GPUECON_OK;
}

void calib_set_free(calib_set *s)
{
    if (!s || !s->rows)
        return;
    ctx_free(s->ctx, s->rows, GPUECON_VALIDATE_MAX * sizeof *s->rows);
    memset(s, 0, sizeof *s);
}

/* |log2(a/b)| of two positive sizes (0 when either is not). */
static double dlog2(double a, double b)
{
    return a > 0 && b > 0 ? fabs(log2(a / b)) : 0;
}

double calib_distance(const gpuecon_calib_layout *a, const gpuecon_calib_layout *b)
{
    double d = 4.0 * (a->moe != b->moe) + 2.0 * (strcmp(a->arch, b->arch) != 0) + 1.0 * (a->prec != b->prec) +
               1.0 * (strcmp(a->stack, b->stack) != 0);
    d += dlog2(a->params, b->params) + dlog2(a->seq, b->seq) + 0.5 * dlog2(a->gpus, b->gpus);
    d += dlog2(a->tp, b->tp) + dlog2(a->pp, b->pp) + dlog2(a->cp, b->cp) + dlog2(a->ep, b->ep) +
         0.5 * dlog2(a->vpp, b->vpp);
    if ((a->zero == 3) != (b->zero == 3))
        d += 1.0;
    else if (a->zero != b->zero)
        d += 0.25;
    d += 0.5 * (a->rc != b->rc);
    return d;
}

static const char *const family_words[] = {"TP",
                                           "PP",
                                           "interleaved PP",
                                           "CP",
                                           "EP",
                                           "ZeRO-3",
                                           "TP across scale-up domains",
                                           "TP x CP across scale-up domains",
                                           "expert group across scale-up domains"};

unsigned calib_family(const gpuecon_calib_layout *l)
{
    return calib_family_bits(l->tp, l->pp, l->vpp, l->cp, l->ep, l->zero, l->scaleup, l->ep_domains);
}

void calib_family_text(unsigned fam, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof family_words / sizeof family_words[0]; i++)
        if (fam & 1u << i) {
            int w = snprintf(buf + k, cap - k, "%s%s", k ? " + " : "", family_words[i]);
            if (w < 0 || (size_t)w >= cap - k)
                return;
            k += (size_t)w;
        }
    if (!k)
        snprintf(buf, cap, "data parallel only");
}

const char *calib_axis_name(calib_axis a)
{
    static const char *const names[] = {"stack", "layout_family", "context", "scale", "model_kind", "gpu_precision"};
    return a < CALIB_AXIS_COUNT ? names[a] : "?";
}

void calib_mfu_cap(const calib_set *s, const char *arch, gpuecon_precision prec, bool moe, calib_cap *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; s && i < s->n; i++) {
        const gpuecon_validate_row *r = &s->rows[i];
        double m = calib_row_mfu(r);
        if (r->layout.prec != prec || strcmp(r->layout.arch, arch) || (r->layout.moe && !moe) || !(m > out->mfu))
            continue;
        out->have = true, out->mfu = m;
        snprintf(out->id, sizeof out->id, "%s", r->id);
        snprintf(out->source, sizeof out->source, "%s", r->source);
    }
    for (size_t i = 0; i < sizeof published_mfu / sizeof published_mfu[0]; i++) {
        if (published_mfu[i].prec != prec || strcmp(published_mfu[i].arch, arch) || !(published_mfu[i].mfu > out->mfu))
            continue;
        out->have = true, out->mfu = published_mfu[i].mfu;
        snprintf(out->id, sizeof out->id, "%s", published_mfu[i].id);
        snprintf(out->source, sizeof out->source, "%s", published_mfu[i].source);
    }
}

/* Marks axis a as outside the set, with what lies outside. */
static void why(calib_match *m, calib_axis a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why(calib_match *m, calib_axis a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why[a], sizeof m->why[a], fmt, ap);
    va_end(ap);
    m->axes |= 1u << a;
}

void calib_match_layout(const calib_set *s, const gpuecon_calib_layout *l, double mfu, calib_match *out)
{
    memset(out, 0, sizeof *out);
    out->mfu = mfu;
    snprintf(out->gpu_prec, sizeof out->gpu_prec, "%s %s", l->arch, gpuecon_precision_name(l->prec));
    bool stack = false, family = false, kind = false, genprec = false;
    int max_seq = 0, max_seq_all = 0, max_gpus = 0;
    unsigned fam = calib_family(l);
    double best = INFINITY;
    for (size_t i = 0; s && i < s->n; i++) {
        const gpuecon_validate_row *r = &s->rows[i];
        const gpuecon_calib_layout *c = &r->layout;
        double d = calib_distance(l, c);
        if (d < best) { /* the first of equally near rows: the tables' order */
            best = d;
            out->have_nearest = true;
            out->distance = d;
            out->nearest_fitted = r->fitted_on;
            snprintf(out->nearest_id, sizeof out->nearest_id, "%s", r->id);
            snprintf(out->nearest_what, sizeof out->nearest_what, "%s", r->what);
            snprintf(out->nearest_config, sizeof out->nearest_config, "%s", r->config);
        }
        stack |= strcmp(c->stack, l->stack) == 0;
        family |= (calib_family(c) & fam) == fam;
        kind |= c->moe == l->moe && strcmp(c->arch, l->arch) == 0;
        genprec |= c->prec == l->prec && strcmp(c->arch, l->arch) == 0;
        if (c->moe == l->moe && c->seq > max_seq)
            max_seq = c->seq;
        if (c->seq > max_seq_all)
            max_seq_all = c->seq;
        if (c->gpus > max_gpus)
            max_gpus = c->gpus;
    }
    const char *kname = l->moe ? "MoE" : "dense";
    if (!stack)
        why(out, CALIB_AXIS_STACK, "stack %s: no calibration row ran it", l->stack);
    if (!family) {
        char f[160];
        calib_family_text(fam, f, sizeof f);
        why(out, CALIB_AXIS_FAMILY, "layout family %s: no calibration row combines them", f);
    }
    /* the longest run of the layout's kind (dense or MoE), or of any kind when none is of its own */
    if (max_seq && l->seq > max_seq)
        why(out, CALIB_AXIS_CONTEXT, "sequence %d > %d, the longest calibrated %s run", l->seq, max_seq, kname);
    else if (!max_seq && l->seq > max_seq_all)
        why(out, CALIB_AXIS_CONTEXT, "sequence %d > %d, the longest calibrated run", l->seq, max_seq_all);
    if (l->gpus > max_gpus)
        why(out, CALIB_AXIS_SCALE, "%d GPUs > %d, the largest calibrated run", l->gpus, max_gpus);
    if (!kind)
        why(out, CALIB_AXIS_KIND, "no %s calibration row on %s GPUs", kname, l->arch);
    if (!genprec)
        why(out, CALIB_AXIS_GPU_PREC, "no calibration row on %s GPUs at %s", l->arch, gpuecon_precision_name(l->prec));
    calib_mfu_cap(s, l->arch, l->prec, l->moe, &out->cap);
    out->above_cap = out->cap.have && mfu > out->cap.mfu;
}

void calib_match_of(const calib_set *s, const gpuecon_train_request *q, const gpuecon_train_result *r,
                    calib_match *out)
{
    gpuecon_calib_layout l;
    calib_layout_of(q, r, &l);
    calib_match_layout(s, &l, r->mfu_causal, out);
    out->mfu_full = r->mfu;
    /* past where runs scale: the step mostly waits (communication, bubble, optimizer), with the batch
       spread thin; the two largest non-compute terms and the sequences per GPU say why */
    const gpuecon_train_breakdown *b = &r->bd;
    double step = r->step_time_s, share = step > 0 ? b->compute_s / step : 1;
    if (!(share < CALIB_COMPUTE_SHARE_MIN))
        return;
    struct {
        const char *what;
        double s;
    } t[] = {{"data-parallel communication", b->dp_comm_s}, {"pipeline bubble", b->pp_bubble_s},
             {"tensor-parallel communication", b->tp_comm_s}, {"context-parallel communication", b->cp_comm_s},
             {"expert-parallel all-to-all", b->ep_comm_s}, {"pipeline transfers", b->pp_comm_s},
             {"optimizer", b->optimizer_s}, {"the slowest GPU", b->straggler_s}, {"activation offload", b->offload_s}};
    int n = (int)(sizeof t / sizeof t[0]), i1 = 0, i2 = -1;
    for (int i = 1; i < n; i++)
        if (t[i].s > t[i1].s)
            i1 = i;
    for (int i = 0; i < n; i++)
        if (i != i1 && (i2 < 0 || t[i].s > t[i2].s))
            i2 = i;
    out->far_scale = true;
    snprintf(out->scale_warning, sizeof out->scale_warning,
             "only %.0f%% of the step is compute (%s %.0f%%, %s %.0f%%): %d sequences over %d GPUs is %.3g per GPU, "
             "far past where published runs scale; expect it slower in practice, and use fewer GPUs or a larger "
             "batch", 100 * share, t[i1].what, 100 * t[i1].s / step, t[i2].what, 100 * t[i2].s / step, q->gbs,
             q->gpus, (double)q->gbs / q->gpus);
}
