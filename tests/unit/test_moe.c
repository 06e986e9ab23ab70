/*
 * test_moe.c — mixture-of-experts training (docs/model.md §4): model FLOPs of DeepSeek-V3 and
 * Mixtral against hand-derived counts, the expert layer's tokens per expert, all-to-all bytes
 * and time, the dropless load factor, expert-parallel memory, the MTP-balanced stage split,
 * the breakdown adding up, and every MoE bad-input rule.
 */
#include "train_util.h"

#include "model/train.h"

#include <string.h>

/* gpuecon_train_predict, accepting an infeasible request: the result then holds the nearest
 * miss, whose step time and memory the tests still read. */
static gpuecon_train_result predict_any(gpuecon_train_request *q)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_train_result r;
    gpuecon_error err;
    int rc = gpuecon_train_predict(ctx, q, &r, &err);
    gpuecon_ctx_free(ctx);
    if (rc && rc != GPUECON_E_INFEASIBLE)
        fail_msg("predict: %s: %s", err.where, err.message);
    return r;
}

/* DeepSeek-V3's A38 job (dgxc: TP2 PP16 EP64 ETP1 DP32 MBS1, token drop at capacity 1). */
static gpuecon_train_request a38(void **state)
{
    gpuecon_train_request q = req_for(state, "deepseek-v3", "hgx-h100", 1024, 4096, 8192);
    q.tp = 2, q.pp = 16, q.vpp = 1, q.cp = 1, q.ep = 64, q.etp = 1, q.mbs = 1;
    q.recompute = GPUECON_RECOMPUTE_SELECTIVE, q.zero = 1, q.tp_overlap = 0, q.a2a_overlap = 0;
    q.capacity_factor = 1;
    return q;
}

/* DeepSeek-V3 model FLOPs per token (NVIDIA's convention: causal attention, MTP counted),
 * by hand from config_671B.json (h 7168, 128 heads, q rank 1536, kv rank 512, d_nope 128,
 * d_rope 64, d_v 128, 3 dense layers of FFN 18432, 58 MoE layers of 256 experts of 2048, top 8
 * plus 1 shared, vocabulary 129280):
 *   attention/layer = 7168x1536 + 1536x128x192 + 1536 (q) + 7168x576 + 512 + 512x128x256 (kv)
 *                     + 128x128x7168 (o) = 48,760,320 + 20,906,496 + 117,440,512 = 187,107,328
 *   dense FFN = 3x7168x18432 = 396,361,728;  MoE active = 9 x 3x7168x2048 + 7168x256 = 398,196,736
 *   N_mm = 61 x 187,107,328 + 3 x 396,361,728 + 58 x 398,196,736 + 129280x7168 = 36,624,721,920
 *   attention = 61 x 6 x 2048 x 128 x 320 = 30,702,305,280
 *   MTP = 6 (187,107,328 + 9 x 44,040,192 + 2x7168^2 + 926,679,040) + 503,316,480 = 10,180,767,744
 *   total = 6 N_mm + attention + MTP = 260,631,404,544 (A38's 163.7 TFLOP/s / 629.7 tok/s =
 *   2.5996e11: 0.26% apart). */
static void test_deepseek_flops(void **state)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    gpuecon_flops f;
    gpuecon_train_flops(m, 4096, GPUECON_ATTN_COUNT_CAUSAL, true, &f);
    assert_close(f.matmul_params, 36624721920.0, 1e-12);
    assert_close(f.attention, 30702305280.0, 1e-12);
    assert_close(f.mtp, 10180767744.0, 1e-12);
    assert_close(f.total, 260631404544.0, 1e-12);
    assert_close(f.total, 163.7e12 / 629.7, 0.005);
    /* the step model counts what it trains: the MTP module by default, causal for mfu_causal */
    gpuecon_train_request q = a38(state);
    gpuecon_train_result r = predict_any(&q);
    assert_close(r.mfu_causal, r.tokens_per_s_per_gpu * 260631404544.0 / 989e12, 1e-12);
    q.mtp = 0;
    r = predict_any(&q);
    assert_close(r.mfu_causal, r.tokens_per_s_per_gpu * (260631404544.0 - 10180767744.0) / 989e12, 1e-12);
}

/* Mixtral 8x7B (h 4096, 32 layers, 32 heads of 128, 8 KV heads, 8 experts of 14336 top 2,
 * vocabulary 32000), full attention at 4096 tokens:
 *   attention/layer = 4096x4096 x 2 + 2 x 4096x1024 = 41,943,040
 *   MoE active/layer = 2 x 3x4096x14336 + 4096x8 = 352,354,304
 *   N_mm = 32 x 394,297,344 + 32000x4096 = 12,748,587,008;  6 N_mm = 76,491,522,048
 *   attention = 32 x 6 x 4096 x 32 x 256 = 6,442,450,944;  total 82,933,972,992 */
static void test_mixtral_flops(void **state)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), "mixtral-8x7b");
    gpuecon_flops f;
    gpuecon_train_flops(m, 4096, GPUECON_ATTN_COUNT_FULL, false, &f);
    assert_close(f.matmul_params, 12748587008.0, 1e-12);
    assert_close(f.total, 82933972992.0, 1e-12);
    gpuecon_train_request q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    gpuecon_train_result r = predict_any(&q);
    assert_close(r.mfu, r.tokens_per_s_per_gpu * 82933972992.0 / 989e12, 1e-12);
    assert_int_equal(r.moe.moe_layers, 32);
}

/* The expert layer of A38 on one GPU: 4096 tokens per micro-batch, TP 2 with SP leaves
 * n = 2048 on each GPU; top 8 gives 16,384 token-expert pairs, spread over 256 experts on 64
 * GPUs: 4 local experts of 64 x 2048 x 8 / 256 = 4096 tokens each (capacity factor 1).
 * Dispatch: 2048 x 8 x 7168 x 2 B = 234,881,024 B per GPU; 56/64 of it leaves the node at
 * 0.6 x 50 GB/s: 6850.7 us + 100 us latency (10 launch + 6 hop + 56 peers x 1.5) = 6950.7 us;
 * four per layer and micro-batch. */
static void test_expert_layer(void **state)
{
    gpuecon_train_request q = a38(state);
    gpuecon_train_result r = predict_any(&q);
    const gpuecon_train_moe *e = &r.moe;
    assert_int_equal(e->local_experts, 4);
    assert_close(e->tokens_per_expert, 4096, 1e-12);
    assert_close(e->load_factor, 1, 1e-12);
    assert_close(e->a2a_bytes, 234881024.0, 1e-12);
    assert_close(e->a2a_s, 234881024.0 * 56 / 64 / 30e9 + 100e-6, 1e-9);
    assert_close(e->a2a_intra_fraction, 7.0 / 64, 1e-12);
    assert_int_equal(e->ep_domains, 8);
    assert_close(e->a2a_total_s, 4 * e->a2a_s, 1e-12);
    assert_close(e->a2a_exposed_s, e->a2a_total_s, 1e-12); /* no overlap */
    assert_int_equal(e->moe_layers, 58 + 1);
    assert_int_equal(r.par.edp, 1); /* 2 x 32 / 64 */
    /* GB200 NVL72: the same group stays inside one rack */
    q.system = gpuecon_catalog_system(CAT(state), "gb200-nvl72");
    r = predict_any(&q);
    assert_int_equal(r.moe.ep_domains, 1);
    assert_close(r.moe.a2a_intra_fraction, 63.0 / 64, 1e-12);
    assert_close(r.moe.a2a_s, 234881024.0 * 63 / 64 / 720e9 + 10e-6 + 3e-6 + 63 * 3e-6 / 8, 1e-9);
}

/* Dropless routing: the busiest of ep GPUs carries 1 + cv/sqrt(E/ep) x E[max of ep normals]
 * times the mean: DeepSeek-V3 on EP 64 (4 experts per GPU, cv 0.1, E[max of 64] = 2.33669 by
 * Blom's formula): 1 + 0.05 x 2.33669 = 1.11683; Llama 4 Maverick on EP 128 (1 expert per
 * GPU, E[max of 128] = 2.58469): 1.25847. The factor scales the expert rows and the bytes. */
static void test_dropless_load(void **state)
{
    gpuecon_train_request q = a38(state);
    q.capacity_factor = 0;
    gpuecon_train_result r = predict_any(&q);
    assert_close(r.moe.load_factor, 1.11683, 1e-5);
    assert_close(r.moe.tokens_per_expert, 4096 * 1.11683, 1e-5);
    assert_close(r.moe.a2a_bytes, 234881024.0 * 1.11683, 1e-5);
    q.moe_imbalance = 1.5; /* given */
    r = predict_any(&q);
    assert_close(r.moe.load_factor, 1.5, 1e-12);
    gpuecon_train_request m = req_for(state, "llama4-maverick", "hgx-h100", 512, 8192, 1024);
    m.precision = GPUECON_FP8;
    m.tp = 4, m.pp = 1, m.cp = 1, m.ep = 128, m.etp = 4, m.mbs = 1;
    r = predict_any(&m);
    assert_close(r.moe.load_factor, 1.25847, 1e-5);
    assert_int_equal(r.moe.local_experts, 1);
    /* ETP 4 gathers the tokens of 4 GPUs: 8192/4 x 1 x 1.25847 x 4 rows for the one expert */
    assert_close(r.moe.tokens_per_expert, 2048 * 1.25847 * 4, 1e-5);
}

/* Expert parallel memory of A38's fullest middle stage (4 MoE layers): routed experts
 * 4 x 256/64 x 3x7168x2048 = 704,643,072 parameters per GPU at 18 B (expert data parallel 1:
 * no sharding); the rest (attention, router, shared expert, norms: 232,996,864 per layer,
 * split by TP 2) 465,993,728 at 2 + 4 + 12/32 B (ZeRO-1 over DP 32). */
static void test_expert_memory(void **state)
{
    gpuecon_train_request q = a38(state);
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_cfg c = {.tp = 2, .cp = 1, .pp = 16, .vpp = 1, .dp = 32, .mbs = 1, .zero = 1,
                   .rc = GPUECON_RECOMPUTE_SELECTIVE, .tp_overlap = false, .ep = 64, .etp = 1, .a2a_overlap = false,
                   .offload = 0};
    stage_set ss;
    train_stages(&st, &c, &ss);
    assert_int_equal(ss.id[1], 1);
    assert_int_equal(ss.si[1].L, 4);
    assert_int_equal(ss.si[1].M, 4);
    assert_close(ss.si[1].p_expert, 704643072.0, 1e-12);
    assert_close(ss.si[1].p_dense, 4 * 232996864.0 / 2, 1e-12);
    train_layer_cost lc;
    train_layer(&st, 2, 1, 1, GPUECON_RECOMPUTE_SELECTIVE, false, &lc);
    moe_layer(&st, 64, 1, &lc);
    gpuecon_train_memory mem;
    train_memory_of(&st, &lc, &c, &ss, &mem);
    const double G = 1073741824.0;
    assert_int_equal(mem.stage, 1); /* the fullest stage with 15 micro-batches in flight */
    assert_close(mem.optimizer_gib, (704643072.0 * 12 + 465993728.0 * 12 / 32) / G, 1e-12);
    assert_close(mem.grads_gib, (704643072.0 + 465993728.0) * 4 / G, 1e-12);
    /* twice the expert parallelism halves the experts per GPU and shards their optimizer 2 ways */
    c.ep = 32, c.dp = 32; /* ep 32: edp = 2 x 32 / 32 = 2 */
    train_stages(&st, &c, &ss);
    assert_close(ss.si[1].p_expert, 2 * 704643072.0, 1e-12);
}

/* NeMo's DeepSeek-V3 split puts 64/pp - 1 layers on the first stage and 64/pp - 2 on the
 * last (the MTP module and the loss balance it): PP 16 -> 3, 4 x 14, 2; PP 4 -> 15, 16, 16, 14.
 * The model gets it by counting the MTP module as a layer of the last stage. */
static void test_stage_split(void **state)
{
    gpuecon_train_request q = a38(state);
    gpuecon_train_result r = predict_any(&q);
    assert_int_equal(r.stage_layers_first, 3);
    assert_int_equal(r.stage_layers_max, 4);
    assert_int_equal(r.stage_layers_last, 2);
    q.pp = 4, q.ep = 32, q.gpus = 128, q.gbs = 1024;
    q.system = gpuecon_catalog_system(CAT(state), "gb200-nvl72");
    r = predict_any(&q);
    assert_int_equal(r.stage_layers_first, 15);
    assert_int_equal(r.stage_layers_max, 16);
    assert_int_equal(r.stage_layers_last, 14);
    /* MoE layers per stage: DeepSeek's first three layers are dense; Maverick alternates */
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_int_equal(moe_layers_in(&st, 0, 61), 58);
    assert_int_equal(moe_stage_layers(&st, 4, 1, 0), 12);
    gpuecon_train_request m = req_for(state, "llama4-maverick", "gb200-nvl72", 128, 8192, 1024);
    assert_int_equal(train_prepare(&m, &st, &err), 0);
    assert_int_equal(moe_layers_in(&st, 0, 48), 24);
    assert_int_equal(moe_stage_layers(&st, 2, 12, 0), 12);
}

/* The parts of the breakdown add up to the step; overlap hides part of the all-to-all but
 * costs the SMs the communication takes (DeepSeek-V3: 20 of 132). */
static void test_breakdown_overlap(void **state)
{
    gpuecon_train_request q = a38(state);
    gpuecon_train_result r = predict_any(&q);
    const gpuecon_train_breakdown *b = &r.bd;
    double sum = b->compute_s + b->tp_comm_s + b->cp_comm_s + b->ep_comm_s + b->pp_bubble_s + b->pp_comm_s +
                 b->dp_comm_s + b->optimizer_s + b->straggler_s;
    assert_close(sum, r.step_time_s, 1e-12);
    assert_true(b->ep_comm_s > 0.3 * r.step_time_s); /* H100: the all-to-all crosses InfiniBand */
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost lc;
    train_layer(&st, 2, 1, 1, GPUECON_RECOMPUTE_SELECTIVE, false, &lc);
    moe_layer(&st, 64, 1, &lc);
    double pass = lc.m_ep_s / 2; /* forward = backward traffic */
    double fw = lc.m_fwd_s, bw = lc.m_bwd_s, s = 20.0 / 132;
    double hide_f = pass < bw ? pass : bw, hide_b = pass < fw ? pass : fw;
    assert_close(lc.m_ep_ovl_s, pass - hide_f + s * hide_f + pass - hide_b + s * hide_b, 1e-12);
    q.a2a_overlap = 1;
    gpuecon_train_result o = predict_any(&q);
    assert_true(o.bd.ep_comm_s < b->ep_comm_s);
    assert_true(o.tokens_per_s_per_gpu > r.tokens_per_s_per_gpu);
    assert_true(o.par.a2a_overlap);
}

/* Grouped GEMMs run worse with few tokens per expert: rows are padded to 128-row tiles, each
 * expert's weights are read once and launched as its own GEMM. */
static void test_grouped_gemm(void **state)
{
    gpuecon_train_request q = req_for(state, "deepseek-v3", "hgx-h100", 1024, 4096, 8192);
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    q.capacity_factor = 1;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    double prev = 0;
    int mbs[] = {1, 4};
    for (int i = 0; i < 2; i++) {
        train_layer_cost lc;
        train_layer(&st, 8, 8, mbs[i], GPUECON_RECOMPUTE_NONE, false, &lc); /* tiny shards: 64 or 256 tokens */
        moe_layer(&st, 8, 1, &lc);
        assert_true(lc.info.grouped_gemm_eff > prev);
        prev = lc.info.grouped_gemm_eff;
    }
    train_layer_cost big;
    train_layer(&st, 1, 1, 1, GPUECON_RECOMPUTE_NONE, false, &big);
    moe_layer(&st, 64, 1, &big); /* 4096 x 64 x 8 / 256 = 8192 tokens per expert */
    assert_true(big.info.grouped_gemm_eff > prev);
    assert_true(big.info.grouped_gemm_eff <= st.eff.gemm_bf16 * st.eff.grouped_gemm + 1e-12);
    assert_close(big.info.grouped_gemm_eff, st.eff.gemm_bf16 * st.eff.grouped_gemm, 0.02);
}

/* MoE-block recompute (Megatron's recompute_modules "moe": MoELayer.forward under
 * tensor_parallel.checkpoint) on a small eager layout: Llama 4 Maverick BF16 on H100, TP 4
 * with SP, EP 8, ETP 1, one 8,192-token micro-batch, NCCL dispatch, no TP overlap.
 * Host floor (hopper moe_host_s 100 us per modelled kernel): the attention half launches
 * 2 GEMMs + core + 2 elementwise + 2 TP collectives = 7 kernels; the MoE block router 1 +
 * grouped GEMMs 2 + shared-expert GEMMs 2 + their TP collectives 2 + 12 routing, permute,
 * activation, norm and residual kernels + dispatch and combine 2 = 21. A pass launches the 28
 * three times (forward, backward twice): 84 x 100 us = 8.4 ms; recomputing the block launches
 * its 21 again less the pre-MLP norm and the residual add (outside MoELayer): 103, 10.3 ms;
 * full recompute the whole forward: 4 x 28 = 112, 11.2 ms.
 * Collectives: the shared expert all-gathers its 8192 x 5120 x 2 = 83,886,080 B input and
 * reduce-scatters as many over TP 4 on NVLink, 10 us + 3 x 3 us + 83,886,080 x (3/4) / 360e9
 * = 193.76 us each: the recomputed block adds both again, 387.52 us, exactly what full
 * recompute adds to the shared expert's collectives.
 * GPU time: the recompute is the block's forward less the norm's and residual's bytes,
 * 5 x 2 x 5120 x 8192 / 4 = 104,857,600 B, and their two kernels. */
static void test_moe_block_recompute(void **state)
{
    gpuecon_train_request q = req_for(state, "llama4-maverick", "hgx-h100", 64, 8192, 256);
    q.cuda_graphs = false, q.tp_overlap = 0, q.dispatcher = GPUECON_DISPATCH_NCCL_A2A;
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_close(st.eff.moe_host_s, 100e-6, 1e-12);
    assert_true(st.sp && !st.dropout && st.prec == GPUECON_BF16);
    train_layer_cost sel, rm, full;
    train_layer(&st, 4, 1, 1, GPUECON_RECOMPUTE_SELECTIVE, false, &sel);
    rm = sel;
    rm.rc_moe = true;
    moe_layer(&st, 8, 1, &sel);
    moe_layer(&st, 8, 1, &rm);
    train_layer(&st, 4, 1, 1, GPUECON_RECOMPUTE_FULL, false, &full);
    moe_layer(&st, 8, 1, &full);
    assert_close(sel.attn_kernels, 7, 1e-12);
    assert_close(sel.m_host_s, 8.4e-3, 1e-12);
    assert_close(rm.m_host_s, 10.3e-3, 1e-12);
    assert_close(full.m_host_s, 11.2e-3, 1e-12);
    double coll = 10e-6 + 3 * 3e-6 + 83886080.0 * 0.75 / 360e9;
    assert_close(rm.m_tp_s - sel.m_tp_s, 2 * coll, 1e-9);
    assert_close(rm.m_tp_s - rm.attn_tp_s, full.m_tp_s - full.attn_tp_s, 1e-12);
    double block_f = sel.m_fwd_s - sel.attn_fwd_s;
    assert_close(rm.m_rc_s - rm.attn_rc_s, block_f - 104857600.0 / st.hbm_bps - 2 * st.eff.kernel_s, 1e-12);
    /* the forward, backward, dispatch and memory terms are the block's with or without it */
    assert_close(rm.m_fwd_s, sel.m_fwd_s, 1e-15);
    assert_close(rm.m_bwd_s, sel.m_bwd_s, 1e-15);
    assert_close(rm.m_ep_s, 1.5 * sel.m_ep_s, 1e-12); /* dispatch and combine once more */
    /* the search's floor stays below the layer for every layout (force-balanced routing, the
     * floor's load factor, keeps it tight at one expert per GPU) */
    q.balanced_routing = true;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost fl;
    train_layer(&st, 4, 1, 1, GPUECON_RECOMPUTE_SELECTIVE, false, &fl);
    fl.rc_moe = true;
    int eps[] = {1, 2, 8, 32, 128};
    for (int i = 0; i < 5; i++) {
        for (int et = 1; et <= 4; et *= 4) {
            train_layer_cost c = fl;
            moe_layer(&st, eps[i], et, &c);
            assert_true(moe_layer_floor(&st, &fl) <= c.m_fwd_s + c.m_bwd_s + c.m_rc_s + c.m_tp_s);
        }
    }
}

/* Every MoE rule is refused with the constraint named. */
static void test_bad_input(void **state)
{
    gpuecon_train_request q = req_for(state, "deepseek-v3", "hgx-h100", 1024, 4096, 8192);
    q.ep = 48;
    expect_input(&q, "options.ep", "48 does not divide the 256 routed experts of deepseek-v3");
    q = req_for(state, "deepseek-v3", "hgx-h100", 1024, 4096, 8192);
    q.etp = 3;
    expect_input(&q, "options.etp", "3 does not divide the expert FFN width 2048");
    q = req_for(state, "deepseek-v3", "hgx-h100", 1024, 4096, 8192);
    q.pp = 32, q.ep = 64; /* one stage has 32 GPUs */
    expect_input(&q, "options.ep", "ep x etp = 64 does not divide tp x cp x dp (gpus / pp) = 32");
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 4, 4096, 64);
    q.ep = 8;
    expect_input(&q, "options.ep", "ep x etp = 8 does not divide the GPUs = 4");
    gpuecon_model bad = *gpuecon_catalog_model(CAT(state), "mixtral-8x7b");
    bad.top_k = 9;
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    q.model = &bad;
    expect_input(&q, "top_k", "top_k 9 of mixtral-8x7b must be between 1 and its 8 experts");
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    q.capacity_factor = 20;
    expect_input(&q, "options.capacity_factor", "allowed 0 (dropless) or 0.05 to 16");
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    q.moe_imbalance = 0.5;
    expect_input(&q, "options.imbalance", "allowed 1 to 16");
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    q.mtp = 17;
    expect_input(&q, "options.mtp", "allowed 0 to 16");
    q = req_for(state, "mixtral-8x7b", "hgx-h100", 64, 4096, 256);
    q.a2a_overlap = 2;
    expect_input(&q, "options.a2a_overlap", "allowed 0 or 1");
    q = req_for(state, "llama3-8b", "hgx-h100", 64, 4096, 256);
    q.mtp = 1;
    expect_input(&q, "options.mtp", "multi-token prediction is modelled for mixture-of-experts models");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepseek_flops),   cmocka_unit_test(test_mixtral_flops),
        cmocka_unit_test(test_expert_layer),     cmocka_unit_test(test_dropless_load),
        cmocka_unit_test(test_expert_memory),    cmocka_unit_test(test_stage_split),
        cmocka_unit_test(test_breakdown_overlap), cmocka_unit_test(test_grouped_gemm),
        cmocka_unit_test(test_moe_block_recompute), cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
