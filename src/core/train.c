/*
 * train.c — the time and memory of one training step of a dense transformer, from first
 * principles plus the efficiency parameters of calib.c (docs/model.md §3).
 *
 * One layer, one micro-batch, one GPU: the GEMMs (QKV with grouped-query attention, output
 * projection, MLP) on a roofline — the larger of FLOPs at peak·efficiency and bytes at HBM
 * bandwidth — plus a fixed time per kernel, so small and thin GEMMs run worse; attention
 * through a flash kernel at its own efficiency (backward 2.5× forward, as the kernel
 * recomputes the scores) or, for 2021-era Megatron, as batched GEMMs plus softmax and dropout
 * over the s×s scores; norms, activations, residuals and FP8 casts against HBM bandwidth.
 * Backward is twice the forward GEMMs; recompute adds a forward. Communication adds only
 * what is not hidden behind compute. A configuration then stacks layers into pipeline
 * stages (the slowest stage sets the pace), adds the bubble (p-1)/v, pipeline transfers,
 * exposed data-parallel traffic and the optimizer step.
 */
#include "train.h"

#include <math.h>
#include <string.h>

void gpuecon_train_request_init(gpuecon_train_request *req)
{
    memset(req, 0, sizeof *req);
    req->precision = GPUECON_BF16;
    req->tp = req->pp = req->vpp = req->cp = req->ep = req->mbs = GPUECON_SEARCH;
    req->recompute = req->zero = req->tp_overlap = GPUECON_SEARCH;
    req->sequence_parallel = true;
    req->dp_overlap = true;
    req->dropout = false;
    req->attn_impl = GPUECON_ATTN_IMPL_FLASH;
}

/* Inverse of the standard normal CDF, Acklam's rational approximation (|rel err| < 1.2e-9). */
static double inv_norm(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425)
        return -inv_norm(1 - p);
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double train_expected_max_normal(int n)
{
    return n <= 1 ? 0 : inv_norm((n - 0.375) / (n + 0.25));
}

static bool searched(int v)
{
    return v == GPUECON_SEARCH || v == 0;
}

/* Causal keys per query token averaged over a sequence of s tokens (window w, 0: none). */
static double causal_keys(double s, double w)
{
    if (w <= 0 || s <= w)
        return (s + 1) / 2;
    return w * (1 - w / (2 * s));
}

static double gemm_eff(const gpuecon_efficiency *e, gpuecon_precision p)
{
    return p == GPUECON_FP8 ? e->gemm_fp8 : p == GPUECON_FP4 ? e->gemm_fp4 : e->gemm_bf16;
}

int train_check_request(const gpuecon_train_request *req, gpuecon_error *err)
{
    const gpuecon_model *m = req->model;
    if (!m || !req->system || !req->system->gpu)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system (with its GPU) are required");
    int rc;
    if ((rc = err_check_range(err, "--gpus", req->gpus, 1, 1 << 22)) ||
        (rc = err_check_range(err, "--seq", req->seq, 1, 1 << 24)) ||
        (rc = err_check_range(err, "--gbs", req->gbs, 1, 1 << 26)))
        return rc;
    if (m->experts > 0)
        return err_set(err, GPUECON_E_INPUT, "--model", 0, 0,
                       "%s is a mixture-of-experts model; this model covers dense transformers "
                       "(MoE training is issue 4)", m->name);
    if (!searched(req->ep) && req->ep != 1)
        return err_set(err, GPUECON_E_INPUT, "--ep", 0, 0,
                       "expert parallelism needs a mixture-of-experts model; %s is dense (use 1)", m->name);
    int tp = req->tp, pp = req->pp, vpp = req->vpp, cp = req->cp, mbs = req->mbs;
    if (!searched(tp)) {
        if (tp < 1 || m->heads % tp)
            return err_set(err, GPUECON_E_INPUT, "--tp", 0, 0, "%d does not divide the %d attention heads of %s",
                           tp, m->heads, m->name);
        if (m->kv_heads % tp)
            return err_set(err, GPUECON_E_INPUT, "--tp", 0, 0,
                           "%d does not divide the %d key-value heads of %s (grouped-query attention "
                           "needs kv_heads %% tp == 0)", tp, m->kv_heads, m->name);
    }
    if (!searched(pp) && (pp < 1 || pp > m->layers))
        return err_set(err, GPUECON_E_INPUT, "--pp", 0, 0, "%d is above the %d layers of %s (allowed 1 to %d)",
                       pp, m->layers, m->name, m->layers);
    if (!searched(vpp)) {
        if (vpp < 1)
            return err_set(err, GPUECON_E_INPUT, "--vpp", 0, 0, "%d: virtual stages per GPU must be at least 1", vpp);
        if (!searched(pp) && (long)pp * vpp > m->layers + 2)
            return err_set(err, GPUECON_E_INPUT, "--vpp", 0, 0,
                           "pp x vpp = %d virtual stages is above the %d layers of %s plus the embedding and "
                           "the loss", pp * vpp, m->layers, m->name);
        if (!searched(pp) && pp == 1 && vpp > 1)
            return err_set(err, GPUECON_E_INPUT, "--vpp", 0, 0, "interleaving (vpp %d) needs pipeline parallelism (pp > 1)", vpp);
    }
    if (!searched(cp) && (cp < 1 || (cp > 1 && req->seq % (2 * cp))))
        return err_set(err, GPUECON_E_INPUT, "--cp", 0, 0,
                       "the sequence of %d tokens must split into 2 x cp = %d equal chunks "
                       "(load-balanced causal context parallelism)", req->seq, 2 * cp);
    long fixed = 1;
    if (!searched(tp))
        fixed *= tp;
    if (!searched(cp))
        fixed *= cp;
    if (!searched(pp))
        fixed *= pp;
    if (req->gpus % fixed)
        return err_set(err, GPUECON_E_INPUT, "--gpus", 0, 0,
                       "the product tp x cp x pp = %ld does not divide the %d GPUs", fixed, req->gpus);
    if (!searched(mbs) && (mbs < 1 || req->gbs % mbs))
        return err_set(err, GPUECON_E_INPUT, "--mbs", 0, 0, "the global batch of %d sequences is not divisible by mbs %d",
                       req->gbs, mbs);
    if (!searched(tp) && !searched(cp) && !searched(pp)) {
        int dp = req->gpus / (int)fixed;
        long per = (long)dp * (searched(mbs) ? 1 : mbs);
        if (req->gbs % per)
            return err_set(err, GPUECON_E_INPUT, "--gbs", 0, 0,
                           "%d sequences do not divide into dp %d x mbs %d (dp = gpus / (tp x cp x pp))",
                           req->gbs, dp, searched(mbs) ? 1 : mbs);
    }
    if (req->recompute != GPUECON_SEARCH && (req->recompute < 0 || req->recompute > GPUECON_RECOMPUTE_FULL))
        return err_set(err, GPUECON_E_INPUT, "--recompute", 0, 0, "allowed: none, selective, full");
    if (req->zero != GPUECON_SEARCH && (req->zero < 0 || req->zero > 3))
        return err_set(err, GPUECON_E_INPUT, "--zero", 0, 0, "%d: allowed 0 to 3", req->zero);
    if (req->tp_overlap != GPUECON_SEARCH && req->tp_overlap != 0 && req->tp_overlap != 1)
        return err_set(err, GPUECON_E_INPUT, "--tp-overlap", 0, 0, "allowed 0 or 1");
    return GPUECON_OK;
}

static int check_efficiency(const gpuecon_efficiency *e, gpuecon_precision p, gpuecon_error *err)
{
    double g = gemm_eff(e, p);
    if (!(g > 0 && g <= 1) || !(e->attn_flash > 0 && e->attn_flash <= 1) || !(e->hbm > 0 && e->hbm <= 1) ||
        !(e->scaleup_busbw > 0 && e->scaleup_busbw <= 1) || !(e->scaleout_busbw > 0 && e->scaleout_busbw <= 1) ||
        !(e->kernel_s >= 0) || !(e->speed_cv >= 0 && e->speed_cv < 0.5) || !(e->coll_launch_s >= 0))
        return err_set(err, GPUECON_E_INPUT, "efficiency", 0, 0,
                       "efficiencies of %s must lie in (0, 1] and times be >= 0", e->arch ? e->arch : "?");
    return GPUECON_OK;
}

int train_prepare(const gpuecon_train_request *req, train_static *st, gpuecon_error *err)
{
    int rc = train_check_request(req, err);
    if (rc)
        return rc;
    memset(st, 0, sizeof *st);
    const gpuecon_model *m = req->model;
    st->m = m;
    st->s = req->system;
    st->gpu = req->system->gpu;
    st->prec = req->precision;
    st->peak = gpuecon_gpu_peak_flops(st->gpu, req->precision);
    st->peak_bf16 = gpuecon_gpu_peak_flops(st->gpu, GPUECON_BF16);
    if (!(st->peak > 0))
        return err_set(err, GPUECON_E_INPUT, "--precision", 0, 0, "%s has no %s tensor cores",
                       st->gpu->name, gpuecon_precision_name(req->precision));
    st->eff = req->eff ? *req->eff : *gpuecon_efficiency_for(st->gpu);
    if ((rc = check_efficiency(&st->eff, req->precision, err)))
        return rc;
    if (!(st->s->scaleup_gbps > 0) || !(st->s->scaleout_gbps > 0) || !(st->gpu->hbm_tbps > 0) ||
        !(st->gpu->hbm_gib > 0))
        return err_set(err, GPUECON_E_INPUT, "--system", 0, 0, "%s lacks bandwidths or memory", st->s->name);
    gpuecon_link_model lm = {st->eff.scaleup_busbw, st->eff.scaleout_busbw, st->eff.coll_launch_s};
    comm_link_init(&st->link, st->s, &lm);
    st->seq = req->seq;
    st->gbs = req->gbs;
    st->gpus = req->gpus;
    st->sp = req->sequence_parallel;
    st->dp_overlap = req->dp_overlap;
    st->dropout = req->dropout;
    st->attn = req->attn_impl;
    st->grad_reduce_bytes = req->grad_reduce_bytes > 0 ? req->grad_reduce_bytes
                                                       : (req->precision == GPUECON_BF16 ? 4 : 2);
    st->hbm_bps = st->gpu->hbm_tbps * 1e12 * st->eff.hbm;
    st->capacity = st->gpu->hbm_gib * 1073741824.0;
    st->reserve = gpuecon_memory_reserve_bytes(st->gpu);
    st->straggler = st->eff.speed_cv * train_expected_max_normal(req->gpus);
    st->h = m->hidden;
    st->a = m->heads;
    st->f = m->ffn_hidden;
    st->V = m->vocab;
    st->mats = gpuecon_ffn_matrices(m->ffn);
    double kv = 0, hd = 0, keys = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        kv += l.kv_heads;
        hd += l.head_dim;
        keys += causal_keys(req->seq, l.window);
    }
    st->kv = kv / m->layers;
    st->d = hd / m->layers;
    st->keys_per_query = keys / m->layers;
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    st->layer_params = (p.attention + p.dense_ffn + p.norms - st->h) / m->layers;
    st->emb_params = p.embedding;
    st->head_params = (double)m->vocab * m->hidden;
    gpuecon_flops f;
    gpuecon_train_flops(m, req->seq, GPUECON_ATTN_COUNT_FULL, false, &f);
    st->model_flops_per_token = f.total;
    gpuecon_train_flops(m, req->seq, GPUECON_ATTN_COUNT_CAUSAL, false, &f);
    st->model_flops_causal = f.total;
    return GPUECON_OK;
}

/* Roofline time of one kernel: FLOPs at peak·eff or bytes at HBM speed, plus launch. */
static double kernel(const train_static *st, double flops, double peak_eff, double bytes)
{
    double c = flops / peak_eff, b = bytes / st->hbm_bps;
    return (c > b ? c : b) + st->eff.kernel_s;
}

/* A GEMM of M×K by K×N at the training precision (inputs ib bytes, bf16 output). */
static double gemm(const train_static *st, double M, double K, double N, double ib)
{
    return kernel(st, 2 * M * K * N, st->peak * gemm_eff(&st->eff, st->prec), ib * (M * K + K * N) + 2 * M * N);
}

/* Exposed part of a communication overlapped with a GEMM split into `chunks` pieces. */
static double overlapped(double comm, double work, double chunks)
{
    double ex = comm - work, first = comm / chunks;
    return ex > first ? ex : first;
}

typedef struct layer_parts {
    double g_qkv, g_proj, g_fc1, g_fc2; /* forward GEMM times */
    double attn_f, attn_b, attn_flops_f, attn_flops_b;
    double elem_f, elem_b;
} layer_parts;

static void layer_compute(const train_static *st, double T, double s_loc, double tp, layer_parts *lp)
{
    double h = st->h, hd = st->d, al = st->a / tp, kvl = st->kv / tp, fl = st->f / tp;
    double ib = gpuecon_precision_bytes(st->prec);
    lp->g_qkv = gemm(st, T, h, (al + 2 * kvl) * hd, ib);
    lp->g_proj = gemm(st, T, al * hd, h, ib);
    lp->g_fc1 = gemm(st, T, h, (st->mats - 1) * fl, ib);
    lp->g_fc2 = gemm(st, T, fl, h, ib);
    double pb = st->peak_bf16;
    if (st->attn == GPUECON_ATTN_IMPL_FLASH) {
        /* causal flash kernel: 4 FLOPs per (query, key, head, dim) forward, 10 backward */
        double fl_f = 4 * T * st->keys_per_query * al * hd;
        lp->attn_flops_f = fl_f;
        lp->attn_flops_b = 2.5 * fl_f;
        lp->attn_f = fl_f / (pb * st->eff.attn_flash) + st->eff.kernel_s;
        lp->attn_b = 2.5 * fl_f / (pb * st->eff.attn_flash) + 2 * st->eff.kernel_s;
    } else {
        /* unfused: QK^T and AV over all s keys (masking computes the full square), scores in
         * HBM; scale-mask-softmax and dropout as elementwise kernels */
        double keys = st->seq, nsc = T * keys * al; /* score elements */
        double ge = pb * gemm_eff(&st->eff, GPUECON_BF16);
        double qk = kernel(st, 2 * nsc * hd, ge, 2 * (T * al * hd + keys * kvl * hd) + 2 * nsc);
        double av = kernel(st, 2 * nsc * hd, ge, 2 * nsc + 2 * (keys * kvl * hd + T * al * hd));
        double sm_f = nsc * (4 + (st->dropout ? 5 : 0)), sm_b = nsc * (6 + (st->dropout ? 5 : 0));
        lp->attn_flops_f = 4 * nsc * hd;
        lp->attn_flops_b = 8 * nsc * hd;
        lp->attn_f = qk + av + sm_f / st->hbm_bps + (st->dropout ? 2 : 1) * st->eff.kernel_s;
        lp->attn_b = 2 * (qk + av) + sm_b / st->hbm_bps + (st->dropout ? 2 : 1) * st->eff.kernel_s;
    }
    (void)s_loc;
    /* norms, bias-dropout-residual, activation, FP8 casts: bytes read + written */
    double seq_div = (st->sp && tp > 1) ? tp : 1;
    double hb = 2 * h;
    double per_tok = (10 + (st->dropout ? 1 : 0)) * hb / seq_div + (st->mats > 2 ? 6 : 4) * fl;
    double nk_f = 5, nk_b = 8;
    if (st->prec != GPUECON_BF16) {
        per_tok += 3 * (2 * h + al * hd + fl);
        nk_f += 4;
        nk_b += 8;
    }
    lp->elem_f = T * per_tok / st->hbm_bps + nk_f * st->eff.kernel_s;
    lp->elem_b = 2 * T * per_tok / st->hbm_bps + nk_b * st->eff.kernel_s;
}

/* Tensor-parallel traffic of one layer and one micro-batch, exposed part. */
static double layer_tp(const train_static *st, const layer_parts *lp, double T, int tp, bool overlap,
                       gpuecon_recompute rc)
{
    if (tp <= 1)
        return 0;
    const comm_link *L = &st->link;
    double msg = T * st->h * 2, msg_ag = T * st->h * (st->prec == GPUECON_BF16 ? 2 : 1);
    double f[4], b[4], gf[4] = {lp->g_qkv, lp->g_proj, lp->g_fc1, lp->g_fc2};
    if (st->sp) {
        /* forward: all-gather before QKV and FC1, reduce-scatter after proj and FC2;
         * backward: the mirror image */
        double ag = comm_time(L, GPUECON_ALL_GATHER, tp, 1, msg_ag);
        double rs = comm_time(L, GPUECON_REDUCE_SCATTER, tp, 1, msg);
        double ag16 = comm_time(L, GPUECON_ALL_GATHER, tp, 1, msg);
        f[0] = ag, f[1] = rs, f[2] = ag, f[3] = rs;
        b[0] = rs, b[1] = ag16, b[2] = rs, b[3] = ag16;
    } else {
        /* all-reduce after proj and FC2 forward, before QKV and FC1 input grads backward */
        double ar = comm_time(L, GPUECON_ALL_REDUCE, tp, 1, msg);
        f[0] = 0, f[1] = ar, f[2] = 0, f[3] = ar;
        b[0] = ar, b[1] = 0, b[2] = ar, b[3] = 0;
    }
    double fwd = 0, bwd = 0;
    for (int i = 0; i < 4; i++) {
        fwd += overlap ? overlapped(f[i], gf[i], tp) : f[i];
        bwd += overlap ? overlapped(b[i], 2 * gf[i], tp) : b[i];
    }
    return fwd + bwd + (rc == GPUECON_RECOMPUTE_FULL ? fwd : 0);
}

/* Context-parallel ring exchange of K and V (backward: K, V and their gradients), each of
 * the cp-1 steps hidden behind one step of the attention kernel. */
static double layer_cp(const train_static *st, const layer_parts *lp, double T, int tp, int cp,
                       gpuecon_recompute rc)
{
    if (cp <= 1)
        return 0;
    double kv_bytes = 2 * T * (st->kv / tp) * st->d * 2;
    double sr_f = comm_time(&st->link, GPUECON_SEND_RECV, 2, tp, kv_bytes);
    double sr_b = comm_time(&st->link, GPUECON_SEND_RECV, 2, tp, 2 * kv_bytes);
    double ex_f = sr_f - lp->attn_f / cp, ex_b = sr_b - lp->attn_b / cp;
    double fwd = (cp - 1) * (ex_f > 0 ? ex_f : 0), bwd = (cp - 1) * (ex_b > 0 ? ex_b : 0);
    return fwd + bwd + (rc == GPUECON_RECOMPUTE_FULL ? fwd : 0);
}

void train_layer(const train_static *st, int tp, int cp, int mbs, gpuecon_recompute rc, bool tp_overlap,
                 train_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    out->tp = tp, out->cp = cp, out->mbs = mbs, out->rc = rc, out->tp_overlap = tp_overlap;
    double s_loc = (double)st->seq / cp, T = mbs * s_loc;
    layer_parts lp;
    layer_compute(st, T, s_loc, tp, &lp);
    double gemms = lp.g_qkv + lp.g_proj + lp.g_fc1 + lp.g_fc2;
    out->fwd_s = gemms + lp.attn_f + lp.elem_f;
    out->bwd_s = 2 * gemms + lp.attn_b + lp.elem_b;
    double hl = st->h, al = st->a / tp, kvl = st->kv / tp, fl = st->f / tp;
    double gemm_flops = 2 * T * hl * ((al + 2 * kvl) * st->d) + 2 * T * al * st->d * hl +
                        2 * T * hl * (st->mats - 1) * fl + 2 * T * fl * hl;
    out->hw_flops = 3 * gemm_flops + lp.attn_flops_f + lp.attn_flops_b;
    if (rc == GPUECON_RECOMPUTE_FULL) {
        out->recompute_s = out->fwd_s;
        out->hw_flops += gemm_flops + lp.attn_flops_f;
    } else if (rc == GPUECON_RECOMPUTE_SELECTIVE && st->attn == GPUECON_ATTN_IMPL_UNFUSED) {
        out->recompute_s = lp.attn_f;
        out->hw_flops += lp.attn_flops_f;
    }
    out->tp_s = layer_tp(st, &lp, T, tp, tp_overlap, rc);
    out->cp_s = layer_cp(st, &lp, T, tp, cp, rc);
    out->act_bytes = mem_layer_act(st->h, st->a, st->kv, st->d, st->f, st->mats, s_loc, mbs, tp, st->sp, rc,
                                   st->attn, st->dropout);
    out->work_bytes = rc == GPUECON_RECOMPUTE_NONE
                          ? 0
                          : mem_layer_act(st->h, st->a, st->kv, st->d, st->f, st->mats, s_loc, mbs, tp, st->sp,
                                          GPUECON_RECOMPUTE_NONE, st->attn, st->dropout);
    /* first stage: embedding lookup and its gradient scatter */
    double seq_div = (st->sp && tp > 1) ? tp : 1;
    out->emb_s = 3 * T * st->h * 2 / seq_div / st->hbm_bps + 3 * st->eff.kernel_s;
    /* last stage: final norm, LM head GEMM (forward + 2x backward), vocab-parallel
     * cross-entropy over fp32 logits, and the all-gather / reduce-scatter around the head */
    double Vl = st->V / tp;
    double head_g = gemm(st, T, st->h, Vl, gpuecon_precision_bytes(st->prec));
    double ce = T * Vl * (2 + 4 + 4 + 4 + 2) / st->hbm_bps + 4 * st->eff.kernel_s;
    double head_comm = 0;
    if (tp > 1 && st->sp)
        head_comm = comm_time(&st->link, GPUECON_ALL_GATHER, tp, 1, T * st->h * 2) +
                    comm_time(&st->link, GPUECON_REDUCE_SCATTER, tp, 1, T * st->h * 2);
    out->head_s = 3 * head_g + ce + head_comm + 3 * T * st->h * 2 / seq_div / st->hbm_bps;
    out->head_flops = 6 * T * st->h * Vl;
    out->logits_bytes = T * Vl * (2 + 4);
    /* Megatron splits the transfer across the TP ranks (scatter-gather; with SP the activation
     * is already split) and all-gathers it on NVLink at the receiver */
    out->pp_msg_bytes = T * st->h * 2 / tp;
}

/* Parameters held by a pipeline stage (one TP rank). */
static double stage_params(const train_static *st, int tp, int pp, int stage, int layers)
{
    double p = layers * st->layer_params / tp;
    if (stage == 0)
        p += st->emb_params / tp;
    if (stage == pp - 1 && (!st->m->tied_embeddings || pp > 1))
        p += st->head_params / tp;
    if (stage == pp - 1)
        p += st->h; /* final norm */
    return p;
}

/* The up to three distinct stages: first, a middle one with the most layers, last. */
static int stage_list(int pp, int st[3])
{
    int n = 0;
    st[n++] = 0;
    if (pp > 2)
        st[n++] = 1;
    if (pp > 1)
        st[n++] = pp - 1;
    return n;
}

double train_memory(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                    gpuecon_train_memory *mem)
{
    int stages[3], ns = stage_list(c->pp, stages);
    int micro = st->gbs / (c->dp * c->mbs);
    gpuecon_param_bytes pb;
    gpuecon_param_bytes_per_param(c->zero, c->dp * c->cp, st->prec, &pb);
    double best = -1;
    for (int i = 0; i < ns; i++) {
        int s = stages[i], L = mem_stage_layers(st->m->layers, c->pp, c->vpp, s);
        double par = stage_params(st, c->tp, c->pp, s, L);
        double zero3 = c->zero >= 3 ? 2 * 2 * st->layer_params / c->tp : 0;
        double act = lc->act_bytes * L * mem_inflight(c->pp, c->vpp, micro, s);
        double trans = lc->work_bytes + (s == c->pp - 1 ? lc->logits_bytes : 0);
        double total = par * (pb.weights + pb.grads + pb.optimizer + pb.fp8_copy) + zero3 + act + trans + st->reserve;
        if (total > best) {
            best = total;
            if (mem) {
                const double G = 1073741824.0;
                mem->weights_gib = (par * pb.weights + zero3) / G;
                mem->grads_gib = par * pb.grads / G;
                mem->optimizer_gib = par * pb.optimizer / G;
                mem->fp8_copy_gib = par * pb.fp8_copy / G;
                mem->activations_gib = act / G;
                mem->transient_gib = trans / G;
                mem->reserve_gib = st->reserve / G;
                mem->total_gib = total / G;
                mem->stage = s;
            }
        }
    }
    if (mem) {
        mem->capacity_gib = st->capacity / 1073741824.0;
        mem->fits = best <= st->capacity;
        mem->overflow_gib = mem->fits ? 0 : mem->total_gib - mem->capacity_gib;
        mem->overflow_term = NULL;
        mem->overflow_term_gib = 0;
        if (!mem->fits) {
            const char *names[] = {"weights", "gradients", "optimizer states", "activations", "transient buffers"};
            double v[] = {mem->weights_gib + mem->fp8_copy_gib, mem->grads_gib, mem->optimizer_gib,
                          mem->activations_gib, mem->transient_gib};
            int k = 0;
            for (int i = 1; i < 5; i++)
                if (v[i] > v[k])
                    k = i;
            mem->overflow_term = names[k];
            mem->overflow_term_gib = v[k];
        }
    }
    return best;
}

/* Members of the data × context parallel group that share a scale-up domain. */
static int dp_per_domain(int D, const train_cfg *c)
{
    int g_cp = c->tp >= D ? 1 : (D / c->tp < c->cp ? D / c->tp : c->cp);
    long inner = (long)c->tp * c->cp * c->pp;
    int g_dp = 1;
    if ((long)c->tp * c->cp <= D && inner < D)
        g_dp = (int)(D / inner) < c->dp ? (int)(D / inner) : c->dp;
    return g_cp * g_dp;
}

typedef struct dp_parts {
    double exposed, optimizer;
} dp_parts;

/* Exposed part of `total` seconds of bucketed traffic hidden behind a window: the one
 * bucket (or chunk) that can only start when the window ends stays exposed. */
static double hidden_behind(double total, double window, double floor)
{
    double ex = total - window;
    return ex > floor ? ex : floor;
}

/* Data-parallel traffic of the stage with the most parameters, and the optimizer step.
 * Megatron reduces gradients in buckets of 40M parameters as the last micro-batch's backward
 * produces them, and gathers parameters bucket by bucket ahead of the next step's forward;
 * with interleaving each model chunk is reduced after its own last backward, so the window
 * is the schedule's cool-down (warm-up for the gather) and one chunk's share stays exposed. */
static void dp_time(const train_static *st, const train_layer_cost *lc, const train_cfg *c, int micro,
                    double params, int layers, dp_parts *out)
{
    const comm_link *L = &st->link;
    int n = c->dp * c->cp, g = dp_per_domain(L->scaleup_gpus, c);
    double nb = ceil(params / 40e6);
    double G = params * st->grad_reduce_bytes / nb, P = params * 2 / nb; /* per bucket */
    double wf = layers * lc->fwd_s, wb = layers * lc->bwd_s, chunk = 1;
    if (c->vpp > 1) {
        double warm = 2.0 * (c->pp - 1) + (double)(c->vpp - 1) * c->pp + 1, all = (double)micro * c->vpp;
        double k = (warm < all ? warm : all) / c->vpp; /* stage-equivalents of chunk passes */
        wf *= k;
        wb *= k;
        chunk = 1.0 / c->vpp;
    }
    double ex = 0;
    if (n > 1) {
        double rs1 = comm_time_g(L, GPUECON_REDUCE_SCATTER, n, g, G), rs = nb * rs1;
        double ag1 = comm_time_g(L, GPUECON_ALL_GATHER, n, g, P), ag = nb * ag1;
        double ar1 = comm_time_g(L, GPUECON_ALL_REDUCE, n, g, G), ar = nb * ar1;
        bool ov = st->dp_overlap;
        switch (c->zero) {
        case 0: ex = ov ? hidden_behind(ar, wb, fmax(ar1, ar * chunk)) : ar; break;
        case 1:
            ex = ov ? hidden_behind(rs, wb, fmax(rs1, rs * chunk)) + hidden_behind(ag, wf, fmax(ag1, ag * chunk))
                    : rs + ag;
            break;
        case 2:
            ex = ov ? micro * fmax(rs - layers * lc->bwd_s, 0) + rs1 + hidden_behind(ag, wf, fmax(ag1, ag * chunk))
                    : micro * rs + ag;
            break;
        default: {
            double lp = st->layer_params / c->tp;
            double agl = comm_time_g(L, GPUECON_ALL_GATHER, n, g, lp * 2);
            double rsl = comm_time_g(L, GPUECON_REDUCE_SCATTER, n, g, lp * st->grad_reduce_bytes);
            double per = ov ? fmax(agl - lc->fwd_s, 0) + fmax(agl + rsl - lc->bwd_s, 0) : 2 * agl + rsl;
            ex = (double)micro * layers * per + (ov ? agl : 0);
        }
        }
    }
    out->exposed = ex;
    /* Adam over the local shard: read grad, master, m, v (16 B), write master, m, v (12 B),
     * write the bf16 weights (2 B) and the FP8 copy (1 B) */
    double local = c->zero >= 1 ? params / n : params;
    double bytes = local * (30 + (st->prec == GPUECON_BF16 ? 0 : 1));
    out->optimizer = bytes / st->hbm_bps + 10 * st->eff.kernel_s;
}

static double extra_of(const train_layer_cost *lc, const train_cfg *c, int stage)
{
    return (stage == 0 ? lc->emb_s : 0) + (stage == c->pp - 1 ? lc->head_s : 0);
}

double train_eval(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                  gpuecon_train_result *out)
{
    int micro = st->gbs / (c->dp * c->mbs);
    int stages[3], ns = stage_list(c->pp, stages);
    double per_layer = lc->fwd_s + lc->bwd_s + lc->recompute_s + lc->tp_s + lc->cp_s;
    double t_max = -1, p_max = -1;
    int s_max = 0, l_max = 0, l_pmax = 0;
    for (int i = 0; i < ns; i++) {
        int s = stages[i], L = mem_stage_layers(st->m->layers, c->pp, c->vpp, s);
        double t = L * per_layer + (s == 0 ? lc->emb_s : 0) + (s == c->pp - 1 ? lc->head_s : 0);
        if (t > t_max)
            t_max = t, s_max = s, l_max = L;
        double p = stage_params(st, c->tp, c->pp, s, L);
        if (p > p_max)
            p_max = p, l_pmax = L;
    }
    double bubble = (double)(c->pp - 1) / c->vpp * t_max;
    double pp_comm = 0;
    if (c->pp > 1) {
        double p2p = comm_time(&st->link, GPUECON_SEND_RECV, 2, c->tp * c->cp, lc->pp_msg_bytes);
        pp_comm = (c->vpp > 1 ? 2.0 * (c->pp - 1) : 2.0 * (micro + c->pp - 1)) * p2p;
    }
    dp_parts dp;
    dp_time(st, lc, c, micro, p_max, l_pmax, &dp);
    /* the slowest GPU: its compute (stage work, the bubble's share of it, optimizer) runs
     * speed_cv x E[max of N standard normals] longer than the mean GPU's */
    double comp = l_max * (lc->fwd_s + lc->bwd_s + lc->recompute_s) + extra_of(lc, c, s_max);
    double straggler = st->straggler * (micro * comp * (1 + (double)(c->pp - 1) / (c->vpp * micro)) + dp.optimizer);
    double step = micro * t_max + bubble + pp_comm + dp.exposed + dp.optimizer + straggler;
    if (!out)
        return step;
    memset(out, 0, sizeof *out);
    out->step_time_s = step;
    out->tokens_per_s_per_gpu = (double)st->gbs * st->seq / step / st->gpus;
    out->peak_flops = st->peak;
    out->model_flops_per_token = st->model_flops_per_token;
    out->mfu = gpuecon_mfu(out->tokens_per_s_per_gpu, st->model_flops_per_token, st->peak);
    out->mfu_causal = gpuecon_mfu(out->tokens_per_s_per_gpu, st->model_flops_causal, st->peak);
    double hw = micro * ((double)st->m->layers / c->pp * lc->hw_flops + lc->head_flops / c->pp);
    out->hfu = hw / step / st->peak;
    out->par = (gpuecon_parallel){c->tp, c->pp, c->vpp, c->cp, 1, c->dp, c->mbs, micro, c->rc, c->zero,
                                  c->tp_overlap, st->sp && c->tp > 1};
    gpuecon_train_breakdown *b = &out->bd;
    b->compute_s = micro * comp;
    b->tp_comm_s = micro * l_max * lc->tp_s;
    b->cp_comm_s = micro * l_max * lc->cp_s;
    b->straggler_s = straggler;
    b->pp_bubble_s = bubble;
    b->pp_comm_s = pp_comm;
    b->dp_comm_s = dp.exposed;
    b->optimizer_s = dp.optimizer;
    train_memory(st, lc, c, &out->mem);
    out->memory_gib_per_gpu = out->mem.total_gib;
    out->fits = out->mem.fits;
    out->stage_layers_first = mem_stage_layers(st->m->layers, c->pp, c->vpp, 0);
    out->stage_layers_last = mem_stage_layers(st->m->layers, c->pp, c->vpp, c->pp - 1);
    out->stage_layers_max = out->stage_layers_first;
    for (int i = 0; i < ns; i++) {
        int L = mem_stage_layers(st->m->layers, c->pp, c->vpp, stages[i]);
        if (L > out->stage_layers_max)
            out->stage_layers_max = L;
    }
    return step;
}
