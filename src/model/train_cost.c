/*
 * train_cost.c — the cost primitives of the training model (a leaf: it calls nothing of
 * train.c, moe.c or train_req.c, which all build on it): the roofline time of a kernel and of a
 * GEMM at the training precision, the exposed part of an overlapped transfer, the tensor-parallel
 * collectives around a block, and the expected maximum of n normal draws (stragglers).
 * docs/model.md §3.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>

double train_gemm_eff(const gpuecon_efficiency *e, gpuecon_precision p)
{
    return p == GPUECON_FP8 ? e->gemm_fp8 : p == GPUECON_FP4 ? e->gemm_fp4 : e->gemm_bf16;
}

double train_attn_fwd_eff(const gpuecon_efficiency *e)
{
    return e->attn_fwd > 0 ? e->attn_fwd : e->attn_flash;
}

double train_kernel(const train_static *st, double flops, double peak_eff, double bytes)
{
    double c = flops / peak_eff, b = bytes / st->hbm_bps;
    return (c > b ? c : b) + st->eff.kernel_s;
}

double train_gemm(const train_static *st, double M, double K, double N, double ib)
{
    return train_kernel(st, 2 * M * K * N, st->peak * train_gemm_eff(&st->eff, st->prec), ib * (M * K + K * N) + 2 * M * N);
}

double train_overlapped(double comm, double work, double chunks)
{
    double ex = comm - work, first = comm / chunks;
    return ex > first ? ex : first;
}

/* Tensor-parallel traffic around one block (attention or FFN) of one micro-batch, exposed
 * part: the block's first GEMM (g1) and second GEMM (g2); ag_bytes is the forward all-gather
 * before g1 (the block input; FP8 with FP8 training). *fwd_out, when given: the forward's
 * share (what a recomputed forward runs again). */
double train_tp_pair_fwd(const train_static *st, double T, int tp, bool overlap, gpuecon_recompute rc, double g1,
                         double g2, double ag_bytes, double *fwd_out)
{
    if (fwd_out)
        *fwd_out = 0;
    if (tp <= 1)
        return 0;
    const comm_link *L = &st->link;
    double msg = T * st->h * 2;
    double f[2], b[2], gf[2] = {g1, g2};
    if (st->sp) {
        /* forward: all-gather before g1, reduce-scatter after g2; backward: the mirror image */
        double ag = comm_time(L, GPUECON_ALL_GATHER, tp, 1, ag_bytes);
        double rs = comm_time(L, GPUECON_REDUCE_SCATTER, tp, 1, msg);
        double ag16 = comm_time(L, GPUECON_ALL_GATHER, tp, 1, msg);
        f[0] = ag, f[1] = rs;
        b[0] = rs, b[1] = ag16;
    } else {
        /* all-reduce after g2 forward, of g1's input gradient backward; with async_grad (and
         * no overlap) that one runs beside g1's weight-gradient GEMM, as long as g1 */
        double ar = comm_time(L, GPUECON_ALL_REDUCE, tp, 1, msg);
        f[0] = 0, f[1] = ar;
        b[0] = ar, b[1] = 0;
    }
    double fwd = 0, bwd = 0;
    for (int i = 0; i < 2; i++) {
        fwd += overlap ? train_overlapped(f[i], gf[i], tp) : f[i];
        if (overlap)
            bwd += train_overlapped(b[i], 2 * gf[i], tp);
        else
            bwd += i == 0 && st->tp_async && !st->sp ? fmax(b[i] - gf[i], 0) : b[i];
    }
    if (fwd_out)
        *fwd_out = fwd;
    return fwd + bwd + (rc == GPUECON_RECOMPUTE_FULL ? fwd : 0);
}

double train_tp_pair(const train_static *st, double T, int tp, bool overlap, gpuecon_recompute rc, double g1,
                     double g2, double ag_bytes)
{
    return train_tp_pair_fwd(st, T, tp, overlap, rc, g1, g2, ag_bytes, NULL);
}

/* Tensor-parallel traffic around one block under torch.compile (PyTorch-native TP with SP:
 * torchtitan's DTensor plans; docs/model.md §3.4). Without async TP every collective blocks.
 * With it, Inductor's micro-pipeline pass (torch/_inductor/fx_passes/micro_pipeline_tp.py)
 * replaces an all-gather whose result feeds matmuls (fused_all_gather_matmul) and a
 * reduce-scatter fed by one matmul (fused_matmul_reduce_scatter, _find_producer_matmul) with
 * t chunk GEMMs beside copy-engine transfers; anything else keeps the plain collective:
 * - forward: the all-gather before g1 and the reduce-scatter after g2 are fused;
 * - backward: the reduce-scatter of g1's input gradient is fused only when one matmul makes it
 *   (g1_mms == 1): a sum of several (Q, K, V; W1 and W3) is not a matmul, so it blocks;
 *   the all-gather of g2's output gradient feeds g2's input-gradient matmul and is fused; in FP8
 *   it gathers FP8 (torchao's Float8RowwiseParallel casts the gradient before it,
 *   NoopFwToFloat8BwDynamic after the reduce-scatter, pytorch/ao @eab345c
 *   torchao/float8/float8_tensor_parallel.py);
 * - full recompute repeats the forward's collectives except the block-output reduce-scatter
 *   (out_rs_dead: the FFN's), whose result the backward never reads, so AOTAutograd's
 *   partitioner does not recompute it.
 * dec1, dec2: the extra time of g1's and g2's chunked GEMMs over the whole ones. */
double train_tp_pair_compiled(const train_static *st, double T, int tp, bool async_tp, gpuecon_recompute rc,
                              double g1, double g2, double ag_bytes, int g1_mms, bool out_rs_dead, double dec1,
                              double dec2)
{
    if (tp <= 1)
        return 0;
    if (!st->sp)
        return train_tp_pair(st, T, tp, async_tp, rc, g1, g2, ag_bytes);
    const comm_link *L = &st->link;
    double msg = T * st->h * 2;
    double ag = comm_time(L, GPUECON_ALL_GATHER, tp, 1, ag_bytes);
    double rs = comm_time(L, GPUECON_REDUCE_SCATTER, tp, 1, msg);
    double agb = comm_time(L, GPUECON_ALL_GATHER, tp, 1, st->prec == GPUECON_BF16 ? msg : msg / 2);
    double f1 = async_tp ? train_overlapped(ag, g1, tp) + dec1 : ag;
    double f2 = async_tp ? train_overlapped(rs, g2, tp) + dec2 : rs;
    double b1 = async_tp && g1_mms == 1 ? train_overlapped(rs, g1, tp) + dec1 : rs;
    double b2 = async_tp ? train_overlapped(agb, g2, tp) + dec2 : agb;
    double rc_s = rc == GPUECON_RECOMPUTE_FULL ? f1 + (out_rs_dead ? 0 : f2) : 0;
    return f1 + f2 + b1 + b2 + rc_s;
}

/* The extra time of a GEMM of M rows run as `chunks` GEMMs of M/chunks rows (each re-reads
 * the K x N weight and pays its own launch). */
double train_gemm_chunked_extra(const train_static *st, double M, double K, double N, double ib, int chunks)
{
    if (chunks <= 1)
        return 0;
    return chunks * train_gemm(st, M / chunks, K, N, ib) - train_gemm(st, M, K, N, ib);
}

/* Inverse of the standard normal CDF, Acklam's rational approximation (|rel err| < 1.2e-9). */
double train_inv_norm(double p)
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
        return -train_inv_norm(1 - p);
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double train_expected_max_normal(int n)
{
    return n <= 1 ? 0 : train_inv_norm((n - 0.375) / (n + 0.25));
}
