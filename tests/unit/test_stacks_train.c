/*
 * test_stacks_train.c — the training mechanisms the PyTorch-native stacks bring (docs/model.md
 * §3.4): FlashAttention-2's published rate by sequence length and head dim, eager elementwise
 * kernels, K/V repeated to every query head, torchtitan's per-operator selective recompute
 * (time and memory), each against bytes and FLOPs worked out by hand from the model's shape.
 */
#include "train_util.h"

#include "model/train.h"

#include <math.h>
#include <string.h>

/* FlashAttention-2's causal fwd+bwd TFLOP/s (flash-attention's H100 and A100 benchmark figures):
 * H100 hd128 at 8k is 308 of 989; halfway between 4k (294) and 8k (308) on the log2 axis, 5,793
 * tokens, is 301; hd 96 at 16k is between hd64's 284 and hd128's 328, 306; A100 hd64 at 512 is
 * 88 of 312; beyond 16k and below 512 the ends hold. */
static void test_fa2_curve(void **state)
{
    const gpuecon_gpu *h100 = gpuecon_catalog_gpu(CAT(state), "h100-sxm");
    const gpuecon_gpu *a100 = gpuecon_catalog_gpu(CAT(state), "a100-80g");
    assert_non_null(h100);
    assert_non_null(a100);
    assert_close(train_fa2_eff(h100, 128, 8192), 308.0 / 989, 1e-12);
    assert_close(train_fa2_eff(h100, 128, 512 * pow(2, 3.5)), 301.0 / 989, 1e-12);
    assert_close(train_fa2_eff(h100, 96, 16384), 306.0 / 989, 1e-12);
    assert_close(train_fa2_eff(a100, 64, 512), 88.0 / 312, 1e-12);
    assert_close(train_fa2_eff(h100, 128, 262144), 328.0 / 989, 1e-12);
    assert_close(train_fa2_eff(h100, 128, 100), 163.0 / 989, 1e-12);
    assert_close(train_fa2_eff(h100, 256, 2048), 265.0 / 989, 1e-12);
}

static gpuecon_train_request llama8b(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 16);
    q.tp = q.cp = q.pp = q.vpp = 1, q.mbs = 2, q.zero = 3, q.tp_overlap = 0;
    return q;
}

/* Eager vs fused elementwise on one Llama 3 8B layer (h 4096, 32 query and 8 KV heads of 128,
 * gated FFN 14,336), TP 1, T = 2 x 8192 tokens. Forward bytes per token added: two RMSNorms at
 * 36h instead of 4h (2 x 32 x 4096 = 262,144), the rotary embedding at 20 instead of 4 bytes
 * per q and k element (16 x (32 + 8) x 128 = 81,920), SiLU and the product as two kernels
 * (4 x 14,336 = 57,344): 401,408 bytes; backward twice that. Kernels: 13 more in the attention
 * half's forward and 7 in the FFN's, twice those backward. */
static void test_eager_bytes(void **state)
{
    gpuecon_train_request q = llama8b(state);
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost fused, eager;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &fused);
    st.fusion = GPUECON_FUSION_EAGER;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &eager);
    double T = 16384, ks = st.eff.kernel_s, bytes = 401408.0;
    assert_close(eager.fwd_s - fused.fwd_s, T * bytes / st.hbm_bps + 20 * ks, 1e-9);
    assert_close(eager.bwd_s - fused.bwd_s, 2 * T * bytes / st.hbm_bps + 40 * ks, 1e-9);
    /* compiled: the fused kernels' bytes (Inductor reaches the hand-fused passes) */
    st.fusion = GPUECON_FUSION_COMPILED;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &eager);
    assert_close(eager.fwd_s, fused.fwd_s, 1e-12);
    /* K and V repeated to 32 heads and the output copied back: 2(2 x 8 + 2 x 32) x 128 + 4 x 32 x
     * 128 = 36,864 bytes per token forward, the same backward, 3 kernels each way */
    st.fusion = GPUECON_FUSION_FUSED;
    st.kv_repeat = true;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &eager);
    assert_close(eager.fwd_s - fused.fwd_s, T * 36864.0 / st.hbm_bps + 3 * ks, 1e-9);
}

/* torchtitan's per-operator selective recompute on the same layer: the even matmuls (K, the
 * output projection, W3) run again, 2T(h·8·128 + 32·128·h + h·14336) FLOPs, with the elementwise
 * forward; activations kept per token: block input 2h, Q 2·4096, V 2·1024, attention output
 * 2·4096 and its fp32 log-sum-exp 4·32, W1's output 2·14336 and W2's 2h = 63,616 bytes. */
static void test_selective_op(void **state)
{
    gpuecon_train_request q = llama8b(state);
    q.selective_op = true;
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost none, op;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &none);
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_SELECTIVE, false, &op);
    double T = 16384, h = 4096;
    double flops = 2 * T * (h * 1024 + 4096 * h + h * 14336);
    assert_close(op.hw_flops - none.hw_flops, flops, 1e-12);
    assert_true(op.recompute_s > 0 && op.recompute_s < 0.5 * none.fwd_s);
    assert_close(op.act_bytes, T * 63616.0, 1e-12);
    /* Megatron's selective (the attention core) keeps 34h per token with a flash kernel */
    st.selective_op = false;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_SELECTIVE, false, &op);
    assert_close(op.act_bytes, T * 34 * h, 1e-12);
    assert_close(op.recompute_s, 0, 0);
}

/* All-gather context parallelism (Llama 3 §3.3.2) on Llama 3 8B at 131,072 tokens over CP 4, TP 1:
 * each rank's chunk of 32,768 tokens holds K and V of 8 heads of 128, 2 x 32,768 x 1,024 x 2 B =
 * 134,217,728 bytes; the gather's output is 4 of them, its time comm_time(all-gather, 4 ranks,
 * stride 1, 536,870,912 B), the reduce-scatter of the gradients the same size; with full recompute
 * the forward gathers twice. The ring hides its exchange behind the attention steps here (each step
 * of 32k x 32k keys takes far longer than a 134 MB send over NVLink). */
static void test_cp_allgather(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 131072, 2);
    q.tp = q.pp = q.vpp = 1, q.cp = 4, q.mbs = 1, q.zero = 3, q.tp_overlap = 0;
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost ring, ag;
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_FULL, false, &ring);
    assert_close(ring.cp_s, 0, 0);
    st.cp_allgather = true;
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_FULL, false, &ag);
    double bytes = 4 * 134217728.0;
    double g = comm_time(&st.link, GPUECON_ALL_GATHER, 4, 1, bytes);
    double r = comm_time(&st.link, GPUECON_REDUCE_SCATTER, 4, 1, bytes);
    assert_true(g > 0 && r > 0);
    assert_close(ag.cp_s, 2 * g + r, 1e-12);
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_NONE, false, &ag);
    assert_close(ag.cp_s, g + r, 1e-12);
    q.cp_comm = 2;
    expect_input(&q, "options.cp_comm", "allowed: ring, allgather");
}

/* Under torch.compile (fusion compiled), on the same Llama 3 8B layer (TP 1, T = 16,384, BF16):
 * - Inductor's RMSNorm backward reads the norm's input and output gradient twice (the input- and
 *   weight-gradient reductions are two kernels): 4h = 16,384 bytes per token and norm, two norms,
 *   one kernel each: backward + 2(T·16,384/B + ks), forward unchanged;
 * - full recompute skips FC2 (its output is the block's output, which no gradient reads): the
 *   recompute is FC2's GEMM (T x 14,336 x 4,096) shorter and 2·T·14,336·4,096 FLOPs lighter. */
static void test_compiled_layer(void **state)
{
    gpuecon_train_request q = llama8b(state);
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost fused, comp;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_FULL, false, &fused);
    st.fusion = GPUECON_FUSION_COMPILED;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_FULL, false, &comp);
    double T = 16384, ks = st.eff.kernel_s;
    assert_close(comp.fwd_s, fused.fwd_s, 1e-12);
    assert_close(comp.bwd_s - fused.bwd_s, 2 * (T * 16384.0 / st.hbm_bps + ks), 1e-9);
    double fc2 = train_gemm(&st, T, 14336, 4096, 2);
    assert_true(fc2 > 0);
    assert_close(fused.recompute_s - comp.recompute_s, fc2, 1e-9);
    assert_close(fused.hw_flops - comp.hw_flops, 2 * T * 14336 * 4096, 1e-12);
}

/* Async TP as Inductor's micro-pipeline pass runs it, Llama 3 8B at TP 8 (SP), T = 16,384, full
 * recompute. Collectives of one block (message T·h·2 = 134,217,728 B; BF16 all-gathers the
 * same): ag, rs; without async TP every one blocks: attention ag + rs forward, rs + ag backward,
 * ag + rs recomputed; the FFN the same less the recomputed rs (the block output's). With async TP
 * (BF16): the forward pair and the backward all-gather of the output gradient hide behind their
 * GEMMs chunked 8 ways (exposed max(comm - GEMM, comm/8) plus the chunked GEMMs' extra time),
 * while the backward reduce-scatters of QKV's and W1/W3's input gradients (sums of 3 and 2
 * matmuls) still block. In FP8 every all-gather moves FP8 (torchao casts the output gradient
 * before its backward all-gather too), half the bytes. A GEMM that stays compute-bound in 8 chunks
 * costs 7 more launches. */
static void test_async_tp_inductor(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 16);
    q.tp = 8, q.cp = q.pp = q.vpp = 1, q.mbs = 2, q.zero = 3, q.tp_overlap = 1;
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    st.fusion = GPUECON_FUSION_COMPILED;
    double T = 16384, ks = st.eff.kernel_s, msg = T * 4096 * 2;
    double ag = comm_time(&st.link, GPUECON_ALL_GATHER, 8, 1, msg);
    double rs = comm_time(&st.link, GPUECON_REDUCE_SCATTER, 8, 1, msg);
    assert_true(ag > 0 && rs > 0);
    train_layer_cost off, on;
    train_layer(&st, 8, 1, 2, GPUECON_RECOMPUTE_FULL, false, &off);
    assert_close(off.tp_s, (ag + rs + rs + ag + ag + rs) + (ag + rs + rs + ag + ag), 1e-12);
    train_layer(&st, 8, 1, 2, GPUECON_RECOMPUTE_FULL, true, &on);
    double gq = train_gemm(&st, T, 4096, (4 + 2) * 128, 2), gp = train_gemm(&st, T, 512, 4096, 2);
    double g1 = train_gemm(&st, T, 4096, 2 * 1792, 2), g2 = train_gemm(&st, T, 1792, 4096, 2);
    double dq = train_gemm_chunked_extra(&st, T, 4096, 768, 2, 8), dp = train_gemm_chunked_extra(&st, T, 512, 4096, 2, 8);
    double d1 = train_gemm_chunked_extra(&st, T, 4096, 3584, 2, 8), d2 = train_gemm_chunked_extra(&st, T, 1792, 4096, 2, 8);
    double fa = train_overlapped(ag, gq, 8) + dq, fb = train_overlapped(rs, gp, 8) + dp;
    double fm1 = train_overlapped(ag, g1, 8) + d1, fm2 = train_overlapped(rs, g2, 8) + d2;
    double attn = fa + fb + rs + (train_overlapped(ag, gp, 8) + dp) + fa + fb;
    double mlp = fm1 + fm2 + rs + (train_overlapped(ag, g2, 8) + d2) + fm1;
    assert_close(on.tp_s, attn + mlp, 1e-12);
    assert_true(on.tp_s < off.tp_s);
    /* compute-bound in chunks of 2,048 rows: the chunked GEMMs cost exactly 7 more launches */
    assert_close(train_gemm_chunked_extra(&st, 131072, 8192, 1280, 1, 8), 7 * ks, 1e-12);
    /* FP8: the backward all-gather of the output gradient gathers FP8 and is fused */
    st.prec = GPUECON_FP8;
    train_layer_cost f8;
    train_layer(&st, 8, 1, 2, GPUECON_RECOMPUTE_NONE, true, &f8);
    double ag8 = comm_time(&st.link, GPUECON_ALL_GATHER, 8, 1, msg / 2);
    double ib = 1;
    gq = train_gemm(&st, T, 4096, 768, ib), gp = train_gemm(&st, T, 512, 4096, ib);
    g1 = train_gemm(&st, T, 4096, 3584, ib), g2 = train_gemm(&st, T, 1792, 4096, ib);
    dq = train_gemm_chunked_extra(&st, T, 4096, 768, ib, 8), dp = train_gemm_chunked_extra(&st, T, 512, 4096, ib, 8);
    d1 = train_gemm_chunked_extra(&st, T, 4096, 3584, ib, 8), d2 = train_gemm_chunked_extra(&st, T, 1792, 4096, ib, 8);
    double want = train_overlapped(ag8, gq, 8) + dq + train_overlapped(rs, gp, 8) + dp + rs +
                  train_overlapped(ag8, gp, 8) + dp + train_overlapped(ag8, g1, 8) + d1 +
                  train_overlapped(rs, g2, 8) + d2 + rs + train_overlapped(ag8, g2, 8) + d2;
    assert_close(f8.tp_s, want, 1e-12);
}

/* The PyTorch-native head (fusion eager or compiled; Llama 3 8B, TP 1, T = 16,384, V = 128,256):
 * F.cross_entropy over logits.float() in eager kernels moves 36 bytes per logit where the fused
 * kernel moves 16 (6 kernels for 4), and the final RMSNorm runs in eager kernels: +32h bytes per
 * token forward, 64h backward (21 kernels). */
static void test_pt_native_head(void **state)
{
    gpuecon_train_request q = llama8b(state);
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost fused, comp;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &fused);
    st.fusion = GPUECON_FUSION_COMPILED;
    train_layer(&st, 1, 1, 2, GPUECON_RECOMPUTE_NONE, false, &comp);
    double T = 16384, V = 128256, h = 4096, ks = st.eff.kernel_s;
    double want = T * V * 20 / st.hbm_bps + 2 * ks + 96 * T * h / st.hbm_bps + 21 * ks;
    assert_close(comp.head_s - fused.head_s, want, 1e-9);
}

/* FSDP2's copy-out (PyTorch-native stacks, ZeRO-3): Llama 3 8B on 8 H100, TP 1, one micro-batch
 * of 2: the parameters are gathered twice (forward, backward) and each gather is split into the
 * parameters on the compute stream, 2 bytes read and 2 written per parameter; the gathers
 * themselves hide behind the layers on NVLink in both cases, so the data-parallel time grows by
 * exactly 2 x 4 x P / B, P = 32 layers + embedding + output layer + final norm. */
static void test_fsdp2_copy_out(void **state)
{
    gpuecon_train_request q = llama8b(state);
    q.recompute = GPUECON_RECOMPUTE_FULL;
    gpuecon_error err;
    gpuecon_train_result fused, comp;
    assert_int_equal(gpuecon_train_predict(((fixture *)*state)->ctx, &q, &fused, &err), 0);
    q.fusion = GPUECON_FUSION_COMPILED;
    assert_int_equal(gpuecon_train_predict(((fixture *)*state)->ctx, &q, &comp, &err), 0);
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    double P = 32 * st.layer_params + st.emb_params + st.head_params + 4096;
    assert_true(P > 8.0e9 && P < 8.1e9);
    assert_close(comp.bd.dp_comm_s - fused.bd.dp_comm_s, 2 * 4 * P / st.hbm_bps, 1e-6);
}

/* PyTorch's ring attention merges each step's partial output in fp32 eager kernels: Llama 3 8B,
 * 131,072 tokens over CP 4 (T = 32,768 per rank, TP 1, BF16): E = 32,768 x 32 x 128 =
 * 134,217,728 output elements; forward E(12 + 32.5 x 3) bytes and 2 + 7 x 3 kernels; backward
 * 4 x 10 x (E + 2 x 32,768 x 8 x 128) bytes and 16 kernels. */
static void test_cp_merge(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 131072, 2);
    q.tp = q.pp = q.vpp = 1, q.cp = 4, q.mbs = 1, q.zero = 3, q.tp_overlap = 0;
    gpuecon_error err;
    train_static st;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost fused, comp;
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_NONE, false, &fused);
    st.fusion = GPUECON_FUSION_COMPILED;
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_NONE, false, &comp);
    double E = 134217728.0, Ekv = 2 * 32768.0 * 8 * 128, ks = st.eff.kernel_s;
    double mf = E * (12 + 32.5 * 3) / st.hbm_bps + 23 * ks;
    double mb = 40 * (E + Ekv) / st.hbm_bps + 16 * ks;
    double norm = 2 * (32768 * 16384.0 / st.hbm_bps + ks);
    assert_close(comp.fwd_s - fused.fwd_s, mf, 1e-9);
    assert_close(comp.bwd_s - fused.bwd_s, mb + norm, 1e-9);
    /* all-gather CP (Llama 3's) has no ring steps to merge */
    st.cp_allgather = true;
    train_layer(&st, 1, 4, 1, GPUECON_RECOMPUTE_NONE, false, &comp);
    assert_close(comp.fwd_s, fused.fwd_s, 1e-12);
}

/* A stack applies the three facts; a fusion or attention kernel out of range is refused. */
static void test_stack_and_input(void **state)
{
    gpuecon_train_request q = llama8b(state);
    const gpuecon_stack *k = gpuecon_catalog_stack(CAT(state), "torchtitan-2024-eager");
    assert_non_null(k);
    gpuecon_train_request_apply_stack(&q, k);
    assert_int_equal(q.fusion, GPUECON_FUSION_EAGER);
    assert_true(q.selective_op);
    assert_true(q.kv_repeat);
    assert_int_equal(q.attn_impl, GPUECON_ATTN_IMPL_FA2);
    assert_int_equal(q.grad_reduce_bytes, 4);
    const gpuecon_stack *f8 = gpuecon_catalog_stack(CAT(state), "torchtitan-2024-float8");
    assert_non_null(f8);
    assert_int_equal(f8->precision, 1);
    q.fusion = (gpuecon_fusion)7;
    expect_input(&q, "options.fusion", "allowed: fused, compiled, eager");
    q.fusion = GPUECON_FUSION_EAGER;
    q.attn_impl = (gpuecon_attn_impl)9;
    expect_input(&q, "options.attention", "allowed: flash, unfused, fa2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fa2_curve),
        cmocka_unit_test(test_eager_bytes),
        cmocka_unit_test(test_selective_op),
        cmocka_unit_test(test_stack_and_input),
        cmocka_unit_test(test_cp_allgather),
        cmocka_unit_test(test_compiled_layer),
        cmocka_unit_test(test_async_tp_inductor),
        cmocka_unit_test(test_pt_native_head),
        cmocka_unit_test(test_fsdp2_copy_out),
        cmocka_unit_test(test_cp_merge),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
