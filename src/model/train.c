/*
 * train.c — the time and memory of one training step of a transformer, from first
 * principles plus the efficiency parameters of calib.c (docs/model.md §3; the layers of a
 * mixture-of-experts model come from moe.c, §4).
 *
 * One layer, one micro-batch, one GPU: the GEMMs (QKV with grouped-query attention, output
 * projection, MLP) on a roofline — the larger of FLOPs at peak·efficiency and bytes at HBM
 * bandwidth — plus a fixed time per kernel, so small and thin GEMMs run worse; attention
 * through a flash kernel at its own efficiency (backward 2.5× forward, as the kernel
 * recomputes the scores) or, for 2021-era Megatron, as batched GEMMs plus softmax and dropout
 * over the s×s scores; norms, activations, residuals and FP8 casts against HBM bandwidth.
 * Backward is twice the forward GEMMs; recompute adds a forward. Communication adds only
 * what is not hidden behind compute. A configuration then stacks layers into pipeline
 * stages (the slowest stage sets the pace), adds the bubble (the other stages' time, /v),
 * pipeline transfers, exposed data-parallel traffic and the optimizer step.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

/* Causal keys per query token averaged over a sequence of s tokens (window w, 0: none). */
static double causal_keys(double s, double w)
{
    if (w <= 0 || s <= w)
        return (s + 1) / 2;
    return w * (1 - w / (2 * s));
}

static int check_efficiency(const gpuecon_efficiency *e, gpuecon_precision p, gpuecon_error *err)
{
    double g = train_gemm_eff(e, p);
    if (!(g > 0 && g <= 1) || !(e->attn_flash > 0 && e->attn_flash <= 1) || !(e->attn_fwd >= 0 && e->attn_fwd <= 1) ||
        !(e->hbm > 0 && e->hbm <= 1) ||
        !(e->scaleup_busbw > 0 && e->scaleup_busbw <= 1) || !(e->scaleout_busbw > 0 && e->scaleout_busbw <= 1) ||
        !(e->kernel_s >= 0) || !(e->speed_cv >= 0 && e->speed_cv < 0.5) || !(e->coll_launch_s >= 0))
        return err_set(err, GPUECON_E_INPUT, "efficiency", 0, 0,
                       "efficiencies of %s must lie in (0, 1] and times be >= 0", e->arch ? e->arch : "?");
    return GPUECON_OK;
}

/* Per-head dims; after its up-projections MLA is multi-head attention with a heads of d_qk,
 * d_v (DeepSeek-V2 §2.1), its latent ranks kept for the projections. */
static void prepare_mla(train_static *st, const gpuecon_model *m)
{
    st->dqk = st->dv = st->d;
    if (m->attention != GPUECON_ATTN_MLA)
        return;
    st->mla = true;
    st->kv = st->a;
    st->dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
    st->dv = m->v_head_dim;
    st->d = (st->dqk + st->dv) / 2;
    st->q_rank = m->q_lora_rank;
    st->kv_rank = m->kv_lora_rank;
    st->rope = m->qk_rope_head_dim;
}

/* The recipe's memory and kernel facts (docs/model.md §3.2, §3.7). Quantization bytes per
 * element: delayed scaling reads BF16 and writes FP8 (3); current scaling reads the tensor
 * twice, for the amax and for the cast (TE fp8_current_scaling.rst), 5; MXFP8 and blockwise
 * write row- and column-wise FP8 copies and their block scales (4 + 2/32, 4 + 2/128). */
static void train_prepare_recipe(const gpuecon_train_request *req, train_static *st)
{
    static const double cast[] = {3, 5, 4 + 2.0 / 32, 4 + 2.0 / 128};
    bool low = req->precision != GPUECON_BF16;
    st->fp8_param = low && req->fp8_param;
    st->fp8_transpose = low && st->gpu->arch && strcmp(st->gpu->arch, "hopper") == 0;
    st->optim_state_bytes = req->optim_state_bytes > 0 ? req->optim_state_bytes : 4;
    st->cast_bytes = cast[(unsigned)req->fp8_recipe < 4 ? req->fp8_recipe : 0];
    st->host_bps = req->system->host_link_gbps * 1e9;
    st->offload = req->offload_layers;
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
    /* A power limit lowers the sustained clock, so every tensor-core rate, once per request
     * (docs/model.md §9.2); MFU stays against the nominal peak. */
    double clock = req->system->clock_factor > 0 ? req->system->clock_factor : 1.0;
    st->peak_nominal = gpuecon_gpu_peak_flops(st->gpu, req->precision);
    st->peak = st->peak_nominal * clock;
    st->peak_bf16 = gpuecon_gpu_peak_flops(st->gpu, GPUECON_BF16) * clock;
    if (!(st->peak > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("precision"), 0, 0, "%s has no %s tensor cores",
                       st->gpu->name, gpuecon_precision_name(req->precision));
    st->eff = req->eff ? *req->eff : *gpuecon_efficiency_for(st->gpu);
    gpuecon_calibration_apply_eff(req->calibration, &st->eff);
    if ((rc = check_efficiency(&st->eff, req->precision, err)))
        return rc;
    if (!(st->s->scaleup_gbps > 0) || !(st->s->scaleout_gbps > 0) || !(st->gpu->hbm_tbps > 0) ||
        !(st->gpu->hbm_gib > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0, "%s lacks bandwidths or memory", st->s->name);
    gpuecon_link_model lm = {st->eff.scaleup_busbw, st->eff.scaleout_busbw, st->eff.coll_launch_s,
                             st->eff.scaleout_a2a};
    comm_link_init(&st->link, st->s, &lm);
    st->seq = req->seq;
    st->gbs = req->gbs;
    st->gpus = req->gpus;
    st->sp = req->sequence_parallel;
    st->tp_async = req->tp_async_grad && !req->sequence_parallel;
    st->dp_overlap = req->dp_overlap;
    st->dropout = req->dropout;
    st->attn = req->attn_impl;
    st->fusion = req->fusion;
    st->selective_op = req->selective_op;
    st->kv_repeat = req->kv_repeat;
    st->cp_allgather = req->cp_comm == 1;
    st->grad_reduce_bytes = req->grad_reduce_bytes > 0 ? req->grad_reduce_bytes
                                                       : (req->precision == GPUECON_BF16 ? 4 : 2);
    train_prepare_recipe(req, st);
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
    prepare_mla(st, m);
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    st->layer_params = (p.attention + p.dense_ffn + p.norms - st->h) / m->layers;
    st->emb_params = p.embedding;
    st->head_params = (double)m->vocab * m->hidden;
    if (m->experts > 0 && (rc = moe_prepare(req, st, err)))
        return rc;
    /* model FLOPs count the MTP modules that are trained (NVIDIA's DeepSeek-V3 convention) */
    gpuecon_model mm = *m;
    mm.mtp_layers = st->mtp;
    gpuecon_flops f;
    gpuecon_train_flops(&mm, req->seq, GPUECON_ATTN_COUNT_FULL, st->mtp > 0, &f);
    st->model_flops_per_token = f.total;
    gpuecon_train_flops(&mm, req->seq, GPUECON_ATTN_COUNT_CAUSAL, st->mtp > 0, &f);
    st->model_flops_causal = f.total;
    return GPUECON_OK;
}

typedef struct layer_parts {
    double g_qkv, g_proj, g_fc1, g_fc2; /* forward GEMM times (g_qkv: every projection before
                                           the attention core, MLA's four included) */
    double attn_f, attn_b, attn_flops_f, attn_flops_b;
    double elem_attn_f, elem_mlp_f;     /* forward elementwise of each half (backward 2x) */
    double nk_attn_f, nk_mlp_f, nk_attn_b, nk_mlp_b; /* their kernels */
    double flops_attn, flops_mlp;       /* forward GEMM FLOPs of each half */
    double ag_attn_bytes;               /* all-gather before the attention (MLA: the latents) */
    double g_up, flops_up;              /* MLA up-projections (recomputed by selective recompute) */
} layer_parts;

/* The projections before and after the attention core: QKV and output for MHA/GQA; MLA's
 * down-projections on the sequence shard, the latent all-gather, up-projections on the full
 * micro-batch (DeepSeek-V2 §2.1; Megatron-LM multi_latent_attention). */
static void attn_gemms(const train_static *st, double T, double tp, double ib, layer_parts *lp)
{
    double h = st->h, al = st->a / tp;
    if (st->mla) {
        double seq_div = (st->sp && tp > 1) ? tp : 1, Ts = T / seq_div, q = 0;
        double kvd = train_gemm(st, Ts, h, st->kv_rank + st->rope, ib);
        double kvu = train_gemm(st, T, st->kv_rank, al * (st->dqk - st->rope + st->dv), ib);
        double fl = 2 * Ts * h * (st->kv_rank + st->rope) + 2 * T * st->kv_rank * al * (st->dqk - st->rope + st->dv);
        lp->g_up = kvu;
        lp->flops_up = 2 * T * st->kv_rank * al * (st->dqk - st->rope + st->dv);
        if (st->q_rank > 0) {
            double qu = train_gemm(st, T, st->q_rank, al * st->dqk, ib);
            q = train_gemm(st, Ts, h, st->q_rank, ib) + qu;
            fl += 2 * Ts * h * st->q_rank + 2 * T * st->q_rank * al * st->dqk;
            lp->g_up += qu;
            lp->flops_up += 2 * T * st->q_rank * al * st->dqk;
        } else {
            q = train_gemm(st, T, h, al * st->dqk, ib);
            fl += 2 * T * h * al * st->dqk;
        }
        lp->g_qkv = q + kvd + kvu;
        lp->g_proj = train_gemm(st, T, al * st->dv, h, ib);
        lp->flops_attn = fl + 2 * T * al * st->dv * h;
        lp->ag_attn_bytes = T * (st->q_rank > 0 ? st->q_rank + st->kv_rank + st->rope : h) *
                            (st->prec == GPUECON_BF16 ? 2 : 1);
        return;
    }
    double hd = st->d, kvl = st->kv / tp;
    lp->g_qkv = train_gemm(st, T, h, (al + 2 * kvl) * hd, ib);
    lp->g_proj = train_gemm(st, T, al * hd, h, ib);
    lp->flops_attn = 2 * T * h * ((al + 2 * kvl) * hd) + 2 * T * al * hd * h;
    lp->ag_attn_bytes = T * h * (st->prec == GPUECON_BF16 ? 2 : 1);
}

static void layer_compute(const train_static *st, double T, double s_loc, double tp, layer_parts *lp)
{
    double h = st->h, al = st->a / tp, kvl = st->kv / tp, fl = st->f / tp;
    double ib = gpuecon_precision_bytes(st->prec);
    attn_gemms(st, T, tp, ib, lp);
    lp->g_fc1 = train_gemm(st, T, h, (st->mats - 1) * fl, ib);
    lp->g_fc2 = train_gemm(st, T, fl, h, ib);
    lp->flops_mlp = 2 * T * h * (st->mats - 1) * fl + 2 * T * fl * h;
    double pb = st->peak_bf16;
    if (st->attn == GPUECON_ATTN_IMPL_FLASH || st->attn == GPUECON_ATTN_IMPL_FA2) {
        /* causal flash kernel: 2 FLOPs per (query, key, head) and dim of QK^T and of AV
         * forward, 2.5x that backward; FlashAttention-2 at its published rate for a kernel call
         * of s_loc tokens (a context-parallel rank's share: ring attention runs one call per
         * chunk pair) */
        double fl_f = 2 * T * st->keys_per_query * al * (st->dqk + st->dv);
        double ef = train_attn_fwd_eff(&st->eff), eb = st->eff.attn_flash;
        if (st->attn == GPUECON_ATTN_IMPL_FA2)
            ef = eb = train_fa2_eff(st->gpu, (st->dqk + st->dv) / 2, s_loc);
        lp->attn_flops_f = fl_f;
        lp->attn_flops_b = 2.5 * fl_f;
        lp->attn_f = fl_f / (pb * ef) + st->eff.kernel_s;
        lp->attn_b = 2.5 * fl_f / (pb * eb) + 2 * st->eff.kernel_s;
    } else {
        /* unfused: QK^T and AV over all s keys (masking computes the full square), scores in
         * HBM; scale-mask-softmax and dropout as elementwise kernels */
        double hd = st->d, keys = st->seq, nsc = T * keys * al; /* score elements */
        double ge = pb * train_gemm_eff(&st->eff, GPUECON_BF16);
        double qk = train_kernel(st, 2 * nsc * hd, ge, 2 * (T * al * hd + keys * kvl * hd) + 2 * nsc);
        double av = train_kernel(st, 2 * nsc * hd, ge, 2 * nsc + 2 * (keys * kvl * hd + T * al * hd));
        double sm_f = nsc * (4 + (st->dropout ? 5 : 0)), sm_b = nsc * (6 + (st->dropout ? 5 : 0));
        lp->attn_flops_f = 4 * nsc * hd;
        lp->attn_flops_b = 8 * nsc * hd;
        lp->attn_f = qk + av + sm_f / st->hbm_bps + (st->dropout ? 2 : 1) * st->eff.kernel_s;
        lp->attn_b = 2 * (qk + av) + sm_b / st->hbm_bps + (st->dropout ? 2 : 1) * st->eff.kernel_s;
    }
    /* norms, bias-dropout-residual, activation, FP8 casts: bytes read + written; each half
     * has one norm and one residual (5 units of 2h, + a dropout mask) */
    double seq_div = (st->sp && tp > 1) ? tp : 1;
    double hb = 2 * h, half = (5 + (st->dropout ? 0.5 : 0)) * hb / seq_div;
    double pa = half, pm = half + (st->mats > 2 ? 6 : 4) * fl;
    lp->nk_attn_f = 2, lp->nk_mlp_f = 3, lp->nk_attn_b = 4, lp->nk_mlp_b = 4;
    if (st->fusion == GPUECON_FUSION_EAGER) {
        /* eager PyTorch (torchtitan's Llama code, docs/model.md §3.4): RMSNorm upcasts to fp32 and
         * runs cast, square, mean, rsqrt, scale, downcast and weight as kernels of their own, 36h
         * bytes instead of a fused kernel's 4h; the rotary embedding goes through fp32 complex
         * numbers, 20 bytes per q and k element instead of 4; SiLU and the gate product are two
         * kernels, 10 bytes per FFN element instead of 6 */
        double qk = (al + (st->mla ? al : kvl)) * st->dqk;
        pa += 32 * h / seq_div + 16 * qk;
        pm += 32 * h / seq_div + (st->mats > 2 ? 4 * fl : 0);
        lp->nk_attn_f += 6 + 6 + 1, lp->nk_mlp_f += 6 + (st->mats > 2 ? 1 : 0);
        lp->nk_attn_b += 2 * (6 + 6 + 1), lp->nk_mlp_b += 2 * (6 + (st->mats > 2 ? 1 : 0));
    }
    if (st->kv_repeat && !st->mla) {
        /* K and V copied out to every local query head (read g, write a heads of d each) and the
         * attention output transposed back through HBM: 2(2g + 2a)d + 4ad bytes forward
         * (backward, as every elementwise pass, twice: the copies' gradients summed back) */
        double d = st->d, rep = kvl < al ? 2 * (2 * kvl * d + 2 * al * d) : 0;
        pa += rep + 4 * al * d;
        lp->nk_attn_f += (rep > 0 ? 2 : 0) + 1, lp->nk_attn_b += (rep > 0 ? 2 : 0) + 1;
    }
    if (st->prec != GPUECON_BF16) {
        pa += st->cast_bytes * (h + al * st->dv), pm += st->cast_bytes * (h + fl);
        lp->nk_attn_f += 2, lp->nk_mlp_f += 2, lp->nk_attn_b += 4, lp->nk_mlp_b += 4;
    }
    lp->elem_attn_f = T * pa / st->hbm_bps;
    lp->elem_mlp_f = T * pm / st->hbm_bps;
}

/* Context-parallel ring exchange of K and V (backward: K, V and their gradients), each of
 * the cp-1 steps hidden behind one step of the attention kernel. */
static double layer_cp(const train_static *st, const layer_parts *lp, double T, int tp, int cp,
                       gpuecon_recompute rc)
{
    if (cp <= 1)
        return 0;
    double kv_bytes = 2 * T * (st->kv / tp) * st->d * 2;
    if (st->cp_allgather) {
        /* all-gather CP (Llama 3, arXiv:2407.21783 §3.3.2): the whole sequence's K and V gathered
         * before the attention forward, their gradients reduce-scattered after its backward, both on
         * the critical path; full recompute gathers again */
        double ag = comm_time(&st->link, GPUECON_ALL_GATHER, cp, tp, cp * kv_bytes);
        double rs = comm_time(&st->link, GPUECON_REDUCE_SCATTER, cp, tp, cp * kv_bytes);
        return ag + rs + (rc == GPUECON_RECOMPUTE_FULL ? ag : 0);
    }
    double sr_f = comm_time(&st->link, GPUECON_SEND_RECV, 2, tp, kv_bytes);
    double sr_b = comm_time(&st->link, GPUECON_SEND_RECV, 2, tp, 2 * kv_bytes);
    double ex_f = sr_f - lp->attn_f / cp, ex_b = sr_b - lp->attn_b / cp;
    double fwd = (cp - 1) * (ex_f > 0 ? ex_f : 0), bwd = (cp - 1) * (ex_b > 0 ? ex_b : 0);
    return fwd + bwd + (rc == GPUECON_RECOMPUTE_FULL ? fwd : 0);
}

/* Activations of the attention half (MLA: the gathered latents, Q, K, V and the projection
 * input of a heads of d_qk, d_v; MHA/GQA: memory.c's terms). */
static double attn_act(const train_static *st, double s_loc, int mbs, int tp, gpuecon_recompute rc)
{
    if (!st->mla || rc == GPUECON_RECOMPUTE_FULL)
        return mem_attn_act(st->h, st->a, st->kv, st->d, s_loc, mbs, tp, st->sp, rc, st->attn, st->dropout);
    double T = s_loc * mbs, seq_div = (st->sp && tp > 1) ? tp : 1, al = st->a / tp;
    double lat = st->q_rank > 0 ? st->q_rank + st->kv_rank + st->rope : st->kv_rank + st->rope;
    double per_tok = (2 + 2 + (st->dropout ? 1 : 0)) * st->h / seq_div + 2 * lat + 2 * al * st->dv;
    if (rc != GPUECON_RECOMPUTE_SELECTIVE) /* selective: Q, K, V come back from the latents */
        per_tok += 2 * al * (2 * st->dqk + st->dv) + 4 * al;
    return T * per_tok;
}

void train_layer(const train_static *st, int tp, int cp, int mbs, gpuecon_recompute rc, bool tp_overlap,
                 train_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    out->tp = tp, out->cp = cp, out->mbs = mbs, out->rc = rc, out->tp_overlap = tp_overlap;
    out->rc_moe = st->recompute_moe;
    out->ep = out->etp = 1;
    double s_loc = (double)st->seq / cp, T = mbs * s_loc;
    layer_parts lp = {0};
    layer_compute(st, T, s_loc, tp, &lp);
    double ks = st->eff.kernel_s;
    out->attn_fwd_s = lp.g_qkv + lp.g_proj + lp.attn_f + lp.elem_attn_f + lp.nk_attn_f * ks;
    out->attn_bwd_s = 2 * (lp.g_qkv + lp.g_proj) + lp.attn_b + 2 * lp.elem_attn_f + lp.nk_attn_b * ks;
    double mlp_f = lp.g_fc1 + lp.g_fc2 + lp.elem_mlp_f + lp.nk_mlp_f * ks;
    double mlp_b = 2 * (lp.g_fc1 + lp.g_fc2) + 2 * lp.elem_mlp_f + lp.nk_mlp_b * ks;
    double seq_div = (st->sp && tp > 1) ? tp : 1;
    if (st->fusion == GPUECON_FUSION_COMPILED) {
        /* Inductor's RMSNorm backward: the input gradient (a reduction across the hidden
         * dimension) and the weight gradient (across the tokens) are two kernels that each read
         * the norm's input and output gradient (pytorch/pytorch#165370, October 2025, fused them
         * for the first time): 4h more bytes per token and norm than one fused kernel */
        double nb = T * 4 * st->h / seq_div / st->hbm_bps + ks;
        out->attn_bwd_s += nb;
        mlp_b += nb;
    }
    if (cp > 1 && !st->cp_allgather && st->fusion != GPUECON_FUSION_FUSED && !st->mla) {
        /* PyTorch's ring attention (torch.distributed.tensor.experimental._attention, December
         * 2024: _SDPAMerger with convert_to_f32, load balancing on) merges each ring step's
         * partial output into an fp32 running output in eager kernels: over E = T·(a/t)·d output
         * elements, the first block's upcast (6 B) and the final downcast (6 B); per further step
         * the block's upcast (6), out - block (12), times sigmoid(lse) (8) and the subtraction
         * (12), 38 B per element of the block, half of the steps on the query's second half plus
         * a torch.cat of the whole output (8 B): 32.5 E per step on average. Backward: the
         * query gradient accumulated in fp32 per step (read 4 + 2, write 4) and K's and V's
         * (the same over 2·(g/t)·d elements per token) */
        double E = T * (st->a / tp) * st->d, Ekv = T * 2 * (st->kv / tp) * st->d;
        double mf = E * (12 + 32.5 * (cp - 1)) / st->hbm_bps + (2 + 7.0 * (cp - 1)) * ks;
        double mb = cp * 10 * (E + Ekv) / st->hbm_bps + 4.0 * cp * ks;
        out->attn_fwd_s += mf;
        out->attn_bwd_s += mb;
    }
    out->fwd_s = out->attn_fwd_s + mlp_f;
    out->bwd_s = out->attn_bwd_s + mlp_b;
    out->attn_hw_flops = 3 * lp.flops_attn + lp.attn_flops_f + lp.attn_flops_b;
    out->hw_flops = out->attn_hw_flops + 3 * lp.flops_mlp;
    if (rc == GPUECON_RECOMPUTE_FULL) {
        out->attn_rc_s = out->attn_fwd_s;
        out->recompute_s = out->fwd_s;
        out->attn_hw_flops += lp.flops_attn + lp.attn_flops_f;
        out->hw_flops += lp.flops_attn + lp.flops_mlp + lp.attn_flops_f;
        if (st->fusion == GPUECON_FUSION_COMPILED && !st->mla) {
            /* under torch.compile AOTAutograd's partitioner recomputes only what the backward
             * reads: FC2's output (and the reduce-scatter and residual add after it) is the
             * block's output, which no gradient needs, so FC2 and its input's FP8 cast are not
             * run again */
            double fl = st->f / tp, fc2_cast = st->prec != GPUECON_BF16 ? st->cast_bytes * fl * T / st->hbm_bps : 0;
            out->recompute_s -= lp.g_fc2 + fc2_cast;
            out->hw_flops -= 2 * T * fl * st->h;
        }
    } else if (rc == GPUECON_RECOMPUTE_SELECTIVE && st->selective_op) {
        /* torchtitan's per-operator policy (torchtitan/parallelisms/parallelize_llama.py
         * _custom_policy): the outputs of the attention kernel and of every odd matmul of the
         * block are kept; the even ones (K, output projection, the FFN's second input
         * projection, or FC2 ungated) and every elementwise op run again in backward */
        double kq = st->mla ? 0.5 : st->kv / (st->a + 2 * st->kv); /* K's share of the QKV GEMM */
        double ga = kq * lp.g_qkv + lp.g_proj;
        double gm = st->mats > 2 ? 0.5 * lp.g_fc1 : lp.g_fc2;
        double fa = st->mla ? lp.flops_attn * ga / (lp.g_qkv + lp.g_proj)
                            : 2 * T * st->h * (st->kv / tp) * st->d + 2 * T * (st->a / tp) * st->d * st->h;
        double fm = 2 * T * st->h * st->f / tp; /* W3 or FC2: h x f/t either way */
        out->attn_rc_s = ga + lp.elem_attn_f + lp.nk_attn_f * ks;
        out->recompute_s = out->attn_rc_s + gm + lp.elem_mlp_f + lp.nk_mlp_f * ks;
        out->attn_hw_flops += fa;
        out->hw_flops += fa + fm;
    } else if (rc == GPUECON_RECOMPUTE_SELECTIVE && st->attn == GPUECON_ATTN_IMPL_UNFUSED) {
        out->attn_rc_s = out->recompute_s = lp.attn_f;
        out->attn_hw_flops += lp.attn_flops_f;
        out->hw_flops += lp.attn_flops_f;
    } else if (rc == GPUECON_RECOMPUTE_SELECTIVE && st->mla) {
        out->attn_rc_s = out->recompute_s = lp.g_up;
        out->attn_hw_flops += lp.flops_up;
        out->hw_flops += lp.flops_up;
    }
    double mlp_ag = T * st->h * (st->prec == GPUECON_BF16 ? 2 : 1);
    if (st->fusion == GPUECON_FUSION_COMPILED && !st->mla) {
        /* PyTorch-native TP under torch.compile; with tp_overlap, async TP (train_cost.c):
         * torchtitan projects Q, K and V with three matmuls, W1 and W3 with two */
        double ib = gpuecon_precision_bytes(st->prec), al = st->a / tp, kvl = st->kv / tp, fl = st->f / tp;
        double d1a = 0, d2a = 0, d1m = 0, d2m = 0;
        if (tp_overlap && tp > 1) {
            d1a = train_gemm_chunked_extra(st, T, st->h, (al + 2 * kvl) * st->d, ib, tp);
            d2a = train_gemm_chunked_extra(st, T, al * st->d, st->h, ib, tp);
            d1m = train_gemm_chunked_extra(st, T, st->h, (st->mats - 1) * fl, ib, tp);
            d2m = train_gemm_chunked_extra(st, T, fl, st->h, ib, tp);
        }
        out->attn_tp_s = train_tp_pair_compiled(st, T, tp, tp_overlap, rc, lp.g_qkv, lp.g_proj, lp.ag_attn_bytes, 3,
                                                false, d1a, d2a);
        out->tp_s = out->attn_tp_s + train_tp_pair_compiled(st, T, tp, tp_overlap, rc, lp.g_fc1, lp.g_fc2, mlp_ag,
                                                            (int)st->mats - 1, true, d1m, d2m);
    } else {
        out->attn_tp_s = train_tp_pair(st, T, tp, tp_overlap, rc, lp.g_qkv, lp.g_proj, lp.ag_attn_bytes);
        out->tp_s = out->attn_tp_s + train_tp_pair(st, T, tp, tp_overlap, rc, lp.g_fc1, lp.g_fc2, mlp_ag);
    }
    out->attn_kernels = (st->mla ? (st->q_rank > 0 ? 5 : 4) : 2) + 1 + lp.nk_attn_f + (tp > 1 ? 2 : 0);
    out->cp_s = layer_cp(st, &lp, T, tp, cp, rc);
    out->attn_act_bytes = attn_act(st, s_loc, mbs, tp, rc);
    out->act_bytes = out->attn_act_bytes + mem_mlp_act(st->h, st->f, st->mats, s_loc, mbs, tp, st->sp, rc, st->dropout);
    if (rc == GPUECON_RECOMPUTE_SELECTIVE && st->selective_op && !st->mla) {
        /* what the per-operator policy keeps per token: the block input, Q and V (odd matmuls),
         * the attention output and its fp32 log-sum-exp, FC1's output (W1) and FC2's; with TP
         * the reduce-scatter outputs too (the policy's save list) */
        double al = st->a / tp, kvl = st->kv / tp;
        double rs = tp > 1 ? 2 * st->h / seq_div : 0;
        double pa = 2 * st->h / seq_div + 2 * al * st->d + 2 * kvl * st->d + 2 * al * st->d + 4 * al + rs;
        double pm = 2 * st->f / tp + 2 * st->h + rs;
        out->attn_act_bytes = T * pa;
        out->act_bytes = T * (pa + pm);
    }
    if (st->prec != GPUECON_BF16 && !st->mla && !(rc == GPUECON_RECOMPUTE_SELECTIVE && st->selective_op)) {
        /* FP8 copies of the linear inputs; the attention half's share (QKV input -1, projection
         * input +q) also counts for MoE layers */
        double d = mem_fp8_act_delta(st->h, st->a, st->d, st->f, s_loc, mbs, tp, st->sp, rc);
        double sbh = s_loc * mbs * st->h;
        out->act_bytes += d;
        out->attn_act_bytes += rc == GPUECON_RECOMPUTE_FULL ? 0 : sbh * (-1 / seq_div + st->a * st->d / st->h / tp);
    }
    if (rc != GPUECON_RECOMPUTE_NONE) {
        out->attn_work_bytes = attn_act(st, s_loc, mbs, tp, GPUECON_RECOMPUTE_NONE);
        out->work_bytes = out->attn_work_bytes +
                          mem_mlp_act(st->h, st->f, st->mats, s_loc, mbs, tp, st->sp, GPUECON_RECOMPUTE_NONE, st->dropout);
    }
    /* first stage: embedding lookup and its gradient scatter */
    out->emb_s = 3 * T * st->h * 2 / seq_div / st->hbm_bps + 3 * st->eff.kernel_s;
    /* last stage: final norm, LM head GEMM (forward + 2x backward), vocab-parallel
     * cross-entropy over fp32 logits, and the all-gather / reduce-scatter around the head */
    double Vl = st->V / tp;
    double head_g = train_gemm(st, T, st->h, Vl, gpuecon_precision_bytes(st->prec));
    double ce = T * Vl * (2 + 4 + 4 + 4 + 2) / st->hbm_bps + 4 * st->eff.kernel_s;
    double head_norm = 3 * T * st->h * 2 / seq_div / st->hbm_bps;
    if (st->fusion != GPUECON_FUSION_FUSED) {
        /* PyTorch-native model code (torchtitan: only the transformer blocks are compiled,
         * train.py @9dec370 leaves the loss uncompiled): F.cross_entropy(pred.float()) in eager
         * kernels, per logit: upcast (read 2, write 4), log-softmax (4, 4); backward the NLL
         * gradient (write 4), the log-softmax gradient (read 4 + 4, write 4), the downcast
         * (4, 2): 36 bytes against a fused kernel's 16; and the final RMSNorm in eager kernels
         * (+32h bytes per token forward, twice that backward, docs/model.md §3.4) */
        ce = T * Vl * 36 / st->hbm_bps + 6 * st->eff.kernel_s;
        head_norm += 3 * 32 * T * st->h / seq_div / st->hbm_bps + 21 * st->eff.kernel_s;
    }
    double head_comm = 0;
    if (tp > 1 && st->sp)
        head_comm = comm_time(&st->link, GPUECON_ALL_GATHER, tp, 1, T * st->h * 2) +
                    comm_time(&st->link, GPUECON_REDUCE_SCATTER, tp, 1, T * st->h * 2);
    out->head_s = 3 * head_g + ce + head_comm + head_norm;
    out->head_flops = 6 * T * st->h * Vl;
    out->logits_bytes = T * Vl * (2 + 4);
    /* an MTP module's projection of [h; embedding] (2h -> h), forward and 2x backward */
    out->mtp_extra_s = 3 * train_gemm(st, T / seq_div, 2 * st->h, st->h, gpuecon_precision_bytes(st->prec));
    /* Megatron splits the transfer across the TP ranks (scatter-gather; with SP the activation
     * is already split) and all-gathers it on NVLink at the receiver */
    out->pp_msg_bytes = T * st->h * 2 / tp;
}


/* Transformer layers of a stage. MTP modules count as layers of the last stage when the
 * layers are split (as NeMo's DeepSeek-V3 recipe balances it: 64/pp - 1 layers first,
 * 64/pp - 2 last). */
static int stage_layers(const train_static *st, int pp, int vpp, int stage)
{
    int L = mem_stage_layers(st->m->layers + st->mtp, pp, vpp, stage) - (stage == pp - 1 ? st->mtp : 0);
    return L > 0 ? L : 0;
}

static void stage_of(const train_static *st, const train_cfg *c, int stage, stage_info *si)
{
    int L = stage_layers(st, c->pp, c->vpp, stage);
    si->L = L;
    si->M = st->moe ? moe_stage_layers(st, c->pp, c->vpp, stage) : 0;
    si->mtp = stage == c->pp - 1 ? st->mtp : 0;
    if (!st->moe) {
        double p = L * st->layer_params / c->tp;
        p += si->mtp * (st->layer_params + st->mtp_params) / c->tp;
        si->p_expert = 0;
        si->p_dense = p;
    } else {
        int moe = si->M + si->mtp;
        si->p_dense = ((L - si->M) * st->dense_params + moe * st->moe_params + si->mtp * st->mtp_params) / c->tp;
        si->p_expert = moe * (double)st->E / c->ep * st->expert_params / c->etp;
    }
    if (stage == 0)
        si->p_dense += st->emb_params / c->tp;
    if (stage == c->pp - 1 && (!st->m->tied_embeddings || c->pp > 1))
        si->p_dense += st->head_params / c->tp;
    if (stage == c->pp - 1 && si->mtp > 0 && c->pp > 1)
        si->p_dense += st->emb_params / c->tp; /* MTP embeds the next tokens: a copy */
    if (stage == c->pp - 1)
        si->p_dense += st->h; /* final norm */
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

/* Expert data parallelism: the ranks of one stage that hold the same experts. */
static int cfg_edp(const train_cfg *c)
{
    return c->tp * c->cp * c->dp / (c->ep * c->etp);
}

/* Share of a stage's activations kept in host memory: c->offload of its layers (MTP modules
 * count as layers). */
static double offload_share(const train_cfg *c, const stage_info *si)
{
    int L = si->L + si->mtp;
    if (c->offload <= 0 || L <= 0)
        return 0;
    return c->offload >= L ? 1 : (double)c->offload / L;
}

static void fill_memory(const train_static *st, double best, gpuecon_train_memory *mem)
{
    mem->capacity_gib = st->capacity / 1073741824.0;
    mem->fits = best <= st->capacity;
    mem->overflow_gib = mem->fits ? 0 : mem->total_gib - mem->capacity_gib;
    mem->overflow_term = NULL;
    mem->overflow_term_gib = 0;
    if (!mem->fits) {
        const char *names[] = {"weights", "gradients", "optimizer states", "activations", "transient buffers"};
        double v[] = {mem->weights_gib + mem->fp8_copy_gib, mem->grads_gib, mem->optimizer_gib, mem->activations_gib,
                      mem->transient_gib};
        int k = 0;
        for (int i = 1; i < 5; i++)
            if (v[i] > v[k])
                k = i;
        mem->overflow_term = names[k];
        mem->overflow_term_gib = v[k];
    }
}

static void dp_groups(const train_static *st, const train_cfg *c, const stage_info *si, dp_group *a, dp_group *b);

void train_stages_layout(const train_static *st, const train_cfg *c, stage_set *ss)
{
    ss->n = stage_list(c->pp, ss->id);
    ss->pmax = 0;
    double p_max = -1;
    for (int i = 0; i < ss->n; i++) {
        stage_of(st, c, ss->id[i], &ss->si[i]);
        double p = ss->si[i].p_dense + ss->si[i].p_expert;
        if (p > p_max)
            p_max = p, ss->pmax = i;
    }
}

void train_stages_dp(const train_static *st, const train_cfg *c, stage_set *ss)
{
    dp_groups(st, c, &ss->si[ss->pmax], &ss->dpa, &ss->dpb);
}

void train_stages(const train_static *st, const train_cfg *c, stage_set *ss)
{
    train_stages_layout(st, c, ss);
    train_stages_dp(st, c, ss);
}

double train_memory_of(const train_static *st, const train_layer_cost *lc, const train_cfg *c, const stage_set *ss,
                       gpuecon_train_memory *mem)
{
    int micro = st->gbs / (c->dp * c->mbs);
    gpuecon_param_bytes pb, pe;
    int gb = (int)st->grad_reduce_bytes;
    gpuecon_param_bytes_ex(c->zero, c->dp * c->cp, st->prec, gb, st->optim_state_bytes, st->fp8_param,
                           st->fp8_transpose, &pb);
    gpuecon_param_bytes_ex(c->zero, st->moe ? cfg_edp(c) : 1, st->prec, gb, st->optim_state_bytes, st->fp8_param,
                           st->fp8_transpose, &pe);
    double per_d = pb.weights + pb.grads + pb.optimizer + pb.fp8_copy;
    double per_e = pe.weights + pe.grads + pe.optimizer + pe.fp8_copy;
    double best = -1;
    for (int i = 0; i < ss->n; i++) {
        stage_info si = ss->si[i];
        int s = ss->id[i];
        double zero3 = 0;
        if (c->zero >= 3)
            zero3 = st->moe ? 2 * 2 * (st->moe_params / c->tp + (double)st->E / c->ep * st->expert_params / c->etp)
                            : 2 * 2 * st->layer_params / c->tp;
        double act = (lc->act_bytes * (si.L - si.M) + lc->m_act_bytes * (si.M + si.mtp)) *
                     mem_inflight(c->pp, c->vpp, micro, s);
        double off = act * offload_share(c, &si);
        act -= off;
        double work = lc->m_work_bytes > lc->work_bytes && si.M + si.mtp > 0 ? lc->m_work_bytes : lc->work_bytes;
        double trans = work + (s == c->pp - 1 ? lc->logits_bytes : 0);
        double total = si.p_dense * per_d + si.p_expert * per_e + zero3 + act + trans + st->reserve;
        if (total > best) {
            best = total;
            if (mem) {
                const double G = 1073741824.0;
                mem->weights_gib = (si.p_dense * pb.weights + si.p_expert * pe.weights + zero3) / G;
                mem->grads_gib = (si.p_dense * pb.grads + si.p_expert * pe.grads) / G;
                mem->optimizer_gib = (si.p_dense * pb.optimizer + si.p_expert * pe.optimizer) / G;
                mem->fp8_copy_gib = (si.p_dense * pb.fp8_copy + si.p_expert * pe.fp8_copy) / G;
                mem->activations_gib = act / G;
                mem->transient_gib = trans / G;
                mem->reserve_gib = st->reserve / G;
                mem->total_gib = total / G;
                mem->stage = s;
                mem->offloaded_gib = off / G;
            }
        }
    }
    if (mem)
        fill_memory(st, best, mem);
    return best;
}

/* Memory falls with each offloaded layer (offload_share), so the fewest that fit is
 * found by bisection between none and a whole stage. */
int train_offload_needed(const train_static *st, const train_layer_cost *lc, const train_cfg *c, const stage_set *ss)
{
    train_cfg k = *c;
    k.offload = 0;
    if (train_memory_of(st, lc, &k, ss, NULL) <= st->capacity)
        return 0;
    int hi = 0;
    for (int i = 0; i < ss->n; i++)
        if (ss->si[i].L + ss->si[i].mtp > hi)
            hi = ss->si[i].L + ss->si[i].mtp;
    k.offload = hi;
    if (hi == 0 || train_memory_of(st, lc, &k, ss, NULL) > st->capacity)
        return -1;
    int lo = 0; /* memory falls with the offloaded layers: lo does not fit, hi does */
    while (hi - lo > 1) {
        k.offload = (lo + hi) / 2;
        if (train_memory_of(st, lc, &k, ss, NULL) <= st->capacity)
            hi = k.offload;
        else
            lo = k.offload;
    }
    return hi;
}

double train_memory(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                    gpuecon_train_memory *mem)
{
    stage_set ss;
    train_stages(st, c, &ss);
    return train_memory_of(st, lc, c, &ss, mem);
}

/* Members of the data × context parallel group that share a scale-up domain. Ranks are
 * numbered as Megatron does (parallel_state.initialize_model_parallel; Megatron-Core's default
 * order tp-cp-ep-dp-pp; DeepSpeed's pipe-data-model topology): TP innermost, then CP, DP, and
 * the pipeline stage outermost, so a stage's data-parallel replicas share a node and the
 * pipeline neighbours are t·c·d ranks apart. */
static int dp_per_domain(int D, const train_cfg *c)
{
    int g, dom;
    comm_placement(D, c->cp * c->dp, c->tp, &g, &dom);
    return g;
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

/* One data-parallel group's traffic for `params` parameters: per-bucket and total times. */
static void dp_group_time(const train_static *st, int n, int g, double params, double layer_params, dp_group *o)
{
    memset(o, 0, sizeof *o);
    if (n <= 1 || params <= 0)
        return;
    const comm_link *L = &st->link;
    double nb = ceil(params / 40e6);
    double G = params * st->grad_reduce_bytes / nb, P = params * 2 / nb; /* per bucket */
    o->rs1 = comm_time_g(L, GPUECON_REDUCE_SCATTER, n, g, G), o->rs = nb * o->rs1;
    o->ag1 = comm_time_g(L, GPUECON_ALL_GATHER, n, g, P), o->ag = nb * o->ag1;
    o->ar1 = comm_time_g(L, GPUECON_ALL_REDUCE, n, g, G), o->ar = nb * o->ar1;
    o->agl = comm_time_g(L, GPUECON_ALL_GATHER, n, g, layer_params * 2);
    o->rsl = comm_time_g(L, GPUECON_REDUCE_SCATTER, n, g, layer_params * st->grad_reduce_bytes);
}

/* Data-parallel traffic of the stage with the most parameters, and the optimizer step.
 * Megatron reduces gradients in buckets of 40M parameters as the last micro-batch's backward
 * produces them, and gathers parameters bucket by bucket ahead of the next step's forward;
 * with interleaving each model chunk is reduced after its own last backward, so the window
 * is the schedule's cool-down (warm-up for the gather) and one chunk's share stays exposed.
 * Routed experts reduce over their own (expert data parallel) group, at the same time. */
static void dp_groups(const train_static *st, const train_cfg *c, const stage_info *si, dp_group *a, dp_group *b)
{
    int D = st->link.scaleup_gpus, n = c->dp * c->cp, ne = st->moe ? cfg_edp(c) : 1;
    double lp_d = st->moe ? st->moe_params / c->tp : st->layer_params / c->tp;
    dp_group_time(st, n, dp_per_domain(D, c), si->p_dense, lp_d, a);
    if (ne > 1) {
        int g, dom;
        comm_placement(D, ne, c->ep * c->etp, &g, &dom);
        dp_group_time(st, ne, g, si->p_expert, (double)st->E / c->ep * st->expert_params / c->etp, b);
    } else {
        memset(b, 0, sizeof *b);
    }
}

static void dp_time(const train_static *st, const stage_set *ss, const train_cfg *c, int micro, double stage_fwd,
                    double stage_bwd, dp_parts *out)
{
    int n = c->dp * c->cp, ne = st->moe ? cfg_edp(c) : 1;
    const stage_info *si = &ss->si[ss->pmax];
    dp_group a = ss->dpa, b = ss->dpb;
    double wf = stage_fwd, wb = stage_bwd, chunk = 1;
    if (c->vpp > 1) {
        double warm = 2.0 * (c->pp - 1) + (double)(c->vpp - 1) * c->pp + 1, all = (double)micro * c->vpp;
        double k = (warm < all ? warm : all) / c->vpp; /* stage-equivalents of chunk passes */
        wf *= k;
        wb *= k;
        chunk = 1.0 / c->vpp;
    }
    double rs = a.rs + b.rs, ag = a.ag + b.ag, ar = a.ar + b.ar;
    double rs1 = fmax(a.rs1, b.rs1), ag1 = fmax(a.ag1, b.ag1), ar1 = fmax(a.ar1, b.ar1);
    double per_layer_b = si->L > 0 ? stage_bwd / si->L : 0, per_layer_f = si->L > 0 ? stage_fwd / si->L : 0;
    double ex = 0;
    bool ov = st->dp_overlap;
    switch (c->zero) {
    case 0: ex = ov ? hidden_behind(ar, wb, fmax(ar1, ar * chunk)) : ar; break;
    case 1:
        ex = ov ? hidden_behind(rs, wb, fmax(rs1, rs * chunk)) + hidden_behind(ag, wf, fmax(ag1, ag * chunk)) : rs + ag;
        break;
    case 2:
        ex = ov ? micro * fmax(rs - stage_bwd, 0) + rs1 + hidden_behind(ag, wf, fmax(ag1, ag * chunk)) : micro * rs + ag;
        break;
    default: {
        double agl = a.agl + b.agl, rsl = a.rsl + b.rsl;
        double per = ov ? fmax(agl - per_layer_f, 0) + fmax(agl + rsl - per_layer_b, 0) : 2 * agl + rsl;
        ex = (double)micro * si->L * per + (ov && (n > 1 || ne > 1) ? agl : 0);
        if (st->fusion != GPUECON_FUSION_FUSED && (n > 1 || ne > 1)) {
            /* FSDP2 (PyTorch-native stacks): the all-gather lands in one flat buffer and
             * foreach_all_gather_copy_out splits it into the parameters on the compute stream
             * (torch.split_with_sizes_copy after waiting for the all-gather): 2 bytes read and 2
             * written per local parameter and gather; each micro-batch gathers twice without
             * PP (torchtitan reshards after forward), once per step with PP (it does not) */
            double gathers = c->pp > 1 ? 1 : 2.0 * micro;
            ex += gathers * 4 * (si->p_dense + si->p_expert) / st->hbm_bps;
        }
    }
    }
    out->exposed = ex;
    /* Adam over the local shard: read grad, master, m, v (16 B), write master, m, v (12 B),
     * write the bf16 weights (2 B) and the FP8 copy (1 B) */
    double local = c->zero >= 1 ? si->p_dense / n + si->p_expert / ne : si->p_dense + si->p_expert;
    double bytes = local * (30 + (st->prec == GPUECON_BF16 ? 0 : 1));
    out->optimizer = bytes / st->hbm_bps + 10 * st->eff.kernel_s;
}

/* One stage's time per micro-batch, split as the breakdown reports it. */
typedef struct stage_time {
    double comp, tp, cp, ep, host, off, total;
    double fwd, bwd; /* forward and backward compute (the DP overlap windows) */
} stage_time;

static void stage_time_of(const train_static *st, const train_layer_cost *lc, const train_cfg *c, int micro,
                          int stage, const stage_info *si, stage_time *o)
{
    int nd = si->L - si->M, nm = si->M + si->mtp;
    double ep = c->a2a_overlap && micro >= 2 ? lc->m_ep_ovl_s : lc->m_ep_s;
    double gpu_m = lc->m_fwd_s + lc->m_bwd_s + lc->m_rc_s + lc->m_tp_s + lc->cp_s + ep;
    double host = lc->m_host_s > gpu_m ? lc->m_host_s - gpu_m : 0;
    o->comp = nd * (lc->fwd_s + lc->bwd_s + lc->recompute_s) + nm * (lc->m_fwd_s + lc->m_bwd_s + lc->m_rc_s);
    o->fwd = nd * lc->fwd_s + nm * lc->m_fwd_s;
    o->bwd = nd * lc->bwd_s + nm * lc->m_bwd_s;
    o->tp = nd * lc->tp_s + nm * lc->m_tp_s;
    o->cp = (nd + nm) * lc->cp_s;
    o->ep = nm * ep;
    o->host = nm * host;
    if (stage == 0)
        o->comp += lc->emb_s;
    if (stage == c->pp - 1)
        o->comp += lc->head_s + si->mtp * (lc->head_s + lc->mtp_extra_s);
    /* activation offload (Megatron cpu_offloading): each offloaded layer's activations go to
     * host memory during the forward and come back ahead of the backward, overlapped with the
     * stage's compute; only what the link cannot move in that time is exposed */
    o->off = 0;
    double share = offload_share(c, si);
    if (share > 0 && st->host_bps > 0) {
        double t = share * (nd * lc->act_bytes + nm * lc->m_act_bytes) / st->host_bps;
        o->off = fmax(t - o->fwd, 0) + fmax(t - o->bwd, 0);
    }
    o->total = o->comp + o->tp + o->cp + o->ep + o->host + o->off;
}

static void fill_result(const train_static *st, const train_layer_cost *lc, const train_cfg *c, int micro,
                        gpuecon_train_result *out)
{
    out->tokens_per_s_per_gpu = (double)st->gbs * st->seq / out->step_time_s / st->gpus;
    out->peak_flops = st->peak_nominal;
    out->model_flops_per_token = st->model_flops_per_token;
    out->mfu = gpuecon_mfu(out->tokens_per_s_per_gpu, st->model_flops_per_token, st->peak_nominal);
    out->mfu_causal = gpuecon_mfu(out->tokens_per_s_per_gpu, st->model_flops_causal, st->peak_nominal);
    int nm = st->moe ? moe_layers_in(st, 0, st->m->layers) : 0, nd = st->m->layers - nm;
    double layer_hw = nd * lc->hw_flops + nm * lc->m_hw_flops + st->mtp * (st->moe ? lc->m_hw_flops : lc->hw_flops);
    double hw = micro * ((layer_hw + lc->head_flops * (1 + st->mtp)) / c->pp);
    out->hfu = hw / out->step_time_s / st->peak_nominal;
    out->par = (gpuecon_parallel){.tp = c->tp, .pp = c->pp, .vpp = c->vpp, .cp = c->cp, .ep = c->ep, .dp = c->dp,
                                  .mbs = c->mbs, .etp = c->etp, .edp = st->moe ? cfg_edp(c) : 1,
                                  .a2a_overlap = st->moe && c->a2a_overlap, .microbatches = micro,
                                  .recompute = c->rc,
                                  .recompute_moe = st->moe && c->rc == GPUECON_RECOMPUTE_SELECTIVE && c->rc_moe,
                                  .zero = c->zero, .tp_overlap = c->tp_overlap,
                                  .sequence_parallel = st->sp && c->tp > 1, .offload_layers = c->offload};
    if (st->moe) {
        out->moe = lc->info;
        out->moe.moe_layers = nm + st->mtp;
        out->moe.a2a_exposed_s = c->a2a_overlap && micro >= 2 ? lc->m_ep_ovl_s : lc->m_ep_s;
    }
    train_memory(st, lc, c, &out->mem);
    out->memory_gib_per_gpu = out->mem.total_gib;
    out->fits = out->mem.fits;
    out->stage_layers_first = stage_layers(st, c->pp, c->vpp, 0);
    out->stage_layers_last = stage_layers(st, c->pp, c->vpp, c->pp - 1);
    int stages[3], ns = stage_list(c->pp, stages);
    out->stage_layers_max = out->stage_layers_first;
    for (int i = 0; i < ns; i++) {
        int L = stage_layers(st, c->pp, c->vpp, stages[i]);
        if (L > out->stage_layers_max)
            out->stage_layers_max = L;
    }
}

double train_eval_of(const train_static *st, const train_layer_cost *lc, const train_cfg *c, const stage_set *ss,
                     gpuecon_train_result *out)
{
    int micro = st->gbs / (c->dp * c->mbs);
    stage_time tmax = {0}, tp_max = {0};
    double t_max = -1, t_sum = 0;
    for (int i = 0; i < ss->n; i++) {
        stage_time t;
        stage_time_of(st, lc, c, micro, ss->id[i], &ss->si[i], &t);
        if (t.total > t_max)
            t_max = t.total, tmax = t;
        if (i == ss->pmax)
            tp_max = t;
        t_sum += /* stage 1 stands for every middle stage */ (ss->id[i] == 1 && c->pp > 2 ? c->pp - 2 : 1) * t.total;
    }
    /* 1F1B: the first micro-batch's forward and the last one's backward cross every stage,
     * the slowest stage paces the rest: the bubble is the other stages' time (p-1 times the
     * stage time when all are equal; Narayanan et al. SC21 §2.2), 1/v of it interleaved */
    double bubble = (t_sum - t_max) / c->vpp;
    double pp_comm = 0;
    if (c->pp > 1) {
        /* neighbours are t·c·d ranks apart (pipeline outermost): a pipeline spanning more than
         * one domain has a boundary on the network, and its slowest hop paces every stage */
        int stride = c->tp * c->cp * c->dp;
        if ((long)stride * c->pp > st->link.scaleup_gpus)
            stride = st->link.scaleup_gpus;
        double p2p = comm_time(&st->link, GPUECON_SEND_RECV, 2, stride, lc->pp_msg_bytes);
        pp_comm = (c->vpp > 1 ? 2.0 * (c->pp - 1) : 2.0 * (micro + c->pp - 1)) * p2p;
    }
    dp_parts dp;
    dp_time(st, ss, c, micro, tp_max.fwd, tp_max.bwd, &dp);
    /* the slowest GPU: its compute (stage work, the bubble's share of it, optimizer) runs
     * speed_cv x E[max of N standard normals] longer than the mean GPU's */
    double comp = tmax.comp;
    double straggler = st->straggler * (comp * (micro + bubble / t_max) + dp.optimizer);
    double step = micro * t_max + bubble + pp_comm + dp.exposed + dp.optimizer + straggler;
    if (!out)
        return step;
    memset(out, 0, sizeof *out);
    out->step_time_s = step;
    gpuecon_train_breakdown *b = &out->bd;
    b->compute_s = micro * (comp + tmax.host);
    b->offload_s = micro * tmax.off;
    b->tp_comm_s = micro * tmax.tp;
    b->cp_comm_s = micro * tmax.cp;
    b->ep_comm_s = micro * tmax.ep;
    b->straggler_s = straggler;
    b->pp_bubble_s = bubble;
    b->pp_comm_s = pp_comm;
    b->dp_comm_s = dp.exposed;
    b->optimizer_s = dp.optimizer;
    fill_result(st, lc, c, micro, out);
    return step;
}

double train_eval(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                  gpuecon_train_result *out)
{
    stage_set ss;
    train_stages(st, c, &ss);
    return train_eval_of(st, lc, c, &ss, out);
}

