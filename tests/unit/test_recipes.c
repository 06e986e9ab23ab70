/*
 * test_recipes.c — memory as the recipes have it (docs/model.md §3.2, §3.7) and the MoE
 * dispatch (§4.9): every recipe that NVIDIA ships without recompute (or with host offload)
 * fits in memory with its published layout and stack; the distributed optimizer's bytes per
 * parameter by precision; Transformer Engine's FP8 activation copies; offload; deduplicated
 * dispatch traffic; and the bad-input rules of stacks, recipes and offload.
 */
#include "train_util.h"

#include "model/train.h"

#include <math.h>
#include <string.h>

/* One recipe of the recompute/offload table: published layout, recompute and offload. */
typedef struct recipe {
    const char *what, *model, *system;
    int gpus, seq, gbs, tp, pp, vpp, cp, ep, mbs;
    gpuecon_recompute rc;
    int zero, offload;
    gpuecon_fp8_recipe fp8;
    bool pao; /* precision-aware optimizer (BF16 Adam states) */
} recipe;

/* Megatron-Bridge @067f987d perf_recipes and NeMo recommended_model_configs (FP8). */
static const recipe recipes[] = {
    {"Llama 3.1 405B, 1024 H100 (MB llama/h100/llama31.py)", "llama3-405b", "hgx-h100", 1024, 8192, 1536, 8, 8, 8,
     2, 1, 1, GPUECON_RECOMPUTE_NONE, 1, 0, GPUECON_FP8_TENSORWISE, false},
    {"Llama 3.1 405B, 256 GB200 (MB llama/gb200/llama31.py)", "llama3-405b", "gb200-nvl72", 256, 8192, 1536, 4, 16,
     4, 1, 1, 1, GPUECON_RECOMPUTE_NONE, 1, 0, GPUECON_FP8_TENSORWISE, false},
    {"Llama 3.1 405B, 128 GB200 FSDP, 92 layers offloaded (MB @b7b4e11b)", "llama3-405b", "gb200-nvl72", 128, 8192,
     256, 2, 1, 1, 1, 1, 1, GPUECON_RECOMPUTE_NONE, 3, 92, GPUECON_FP8_TENSORWISE, false},
    {"Llama 3 70B, 64 GB200 FSDP MBS 2, 40 layers offloaded (MB llama/gb200/llama3.py)", "llama3-70b",
     "gb200-nvl72", 64, 8192, 128, 1, 1, 1, 1, 1, 2, GPUECON_RECOMPUTE_NONE, 3, 40, GPUECON_FP8_TENSORWISE, false},
    {"Nemotron-4 340B, 256 H100 (NeMo h100 csv; dgxc)", "nemotron4-340b", "hgx-h100", 256, 4096, 64, 8, 8, 12, 1, 1,
     1, GPUECON_RECOMPUTE_NONE, 1, 0, GPUECON_FP8_TENSORWISE, false},
    {"DeepSeek-V3, 1024 H100, selective (MB deepseek/h100)", "deepseek-v3", "hgx-h100", 1024, 4096, 16384, 2, 8, 4,
     1, 64, 1, GPUECON_RECOMPUTE_SELECTIVE, 1, 0, GPUECON_FP8_TENSORWISE, true},
    {"DeepSeek-V3, 256 GB200 MXFP8, selective (MB deepseek/gb200)", "deepseek-v3", "gb200-nvl72", 256, 4096, 2048,
     1, 4, 4, 1, 64, 1, GPUECON_RECOMPUTE_SELECTIVE, 1, 0, GPUECON_FP8_MXFP8, true},
    {"Qwen3 235B, 256 H100 (MB qwen/h100/qwen3_moe.py)", "qwen3-235b-a22b", "hgx-h100", 256, 4096, 2048, 2, 8, 4, 1,
     32, 1, GPUECON_RECOMPUTE_NONE, 1, 0, GPUECON_FP8_TENSORWISE, false},
};

static gpuecon_train_request recipe_request(void **state, const recipe *r)
{
    gpuecon_train_request q = req_for(state, r->model, r->system, r->gpus, r->seq, r->gbs);
    const gpuecon_stack *k = gpuecon_catalog_stack(CAT(state), "megatron-bridge-2026");
    assert_non_null(k);
    gpuecon_train_request_apply_stack(&q, k);
    q.precision = GPUECON_FP8;
    q.fp8_recipe = r->fp8;
    q.tp = r->tp, q.pp = r->pp, q.vpp = r->vpp, q.cp = r->cp, q.ep = r->ep, q.mbs = r->mbs;
    q.etp = r->ep > 1 ? 1 : GPUECON_SEARCH;
    q.recompute = r->rc, q.zero = r->zero, q.offload_layers = r->offload;
    q.optim_state_bytes = r->pao ? 2 : 4;
    q.balanced_routing = true; /* "we force-balance the token distribution" (MB performance tables) */
    return q;
}

/* The target of issue 11: every recipe fits as published. */
static void test_recipes_fit(void **state)
{
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
        gpuecon_train_request q = recipe_request(state, &recipes[i]);
        gpuecon_train_result r = predict_ok(&q);
        if (!r.fits)
            fail_msg("%s: %.1f GiB of %.1f (largest %s %.1f GiB)", recipes[i].what, r.mem.total_gib,
                     r.mem.capacity_gib, r.mem.overflow_term, r.mem.overflow_term_gib);
        assert_int_equal(r.par.offload_layers, recipes[i].offload);
        assert_int_equal(r.par.recompute, recipes[i].rc);
    }
}

/* The nemo-2024 stack reduces gradients by precision: fp32 in BF16 runs (NeMo 2.0 bf16_mixed,
 * grad_reduce_in_fp32=True), bf16 in FP8 runs (the performance scripts set it False; the 24.x
 * launcher's Llama 3 8B FP8 H100 example passes grad_sync_dtype=bf16). NeMo 24.07's Llama 3 8B
 * FP8 run on 8 H100 (TP1 PP1 CP2 DP4 MBS1, seq 8192, ZeRO-1, no recompute) then fits, with
 * the ZeRO-1 gradient buffer unsharded: 8,030,261,248 parameters (Llama 3 8B by hand: 2 x
 * 128,256 x 4,096 embeddings, 32 x 218,112,000 per layer, 4,096 final norm) x 2 B = 14.957 GiB,
 * twice that in BF16. */
static void test_nemo2024_grads(void **state)
{
    const double params = 2.0 * 128256 * 4096 + 32.0 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 +
                                                        3 * 4096.0 * 14336 + 2 * 4096) + 4096;
    assert_close(params, 8030261248.0, 0);
    for (int bf16 = 0; bf16 <= 1; bf16++) {
        gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 128);
        gpuecon_train_request_apply_stack(&q, gpuecon_catalog_stack(CAT(state), "nemo-2024"));
        q.precision = bf16 ? GPUECON_BF16 : GPUECON_FP8;
        q.fp8_recipe = GPUECON_FP8_DELAYED;
        q.tp = 1, q.pp = 1, q.vpp = 1, q.cp = 2, q.mbs = 1;
        q.recompute = GPUECON_RECOMPUTE_NONE, q.zero = 1, q.offload_layers = 0;
        gpuecon_train_result r = predict_ok(&q);
        assert_close(r.mem.grads_gib, params * (bf16 ? 4 : 2) / 1073741824.0, 1e-3);
        if (!bf16 && !r.fits)
            fail_msg("NeMo 24.07 Llama 3 8B FP8: %.1f GiB of %.1f", r.mem.total_gib, r.mem.capacity_gib);
    }
}

/* Megatron-LM docs/user-guide/features/dist_optimizer.md: bf16 params / fp32 grads 6 + 12/d;
 * BF16 grads 4 + 12/d; FP8-only weights with BF16 grads 1 + 2 + 12/d on Blackwell, 2 + 2 +
 * 12/d on Hopper (the transpose); the precision-aware optimizer 4 + 4 = 8 bytes of states. */
static void test_param_bytes(void **state)
{
    (void)state;
    gpuecon_param_bytes b;
    const int d = 16;
    gpuecon_param_bytes_ex(1, d, GPUECON_BF16, 4, 4, false, false, &b);
    assert_close(b.weights + b.fp8_copy + b.grads + b.optimizer, 6 + 12.0 / d, 1e-9);
    gpuecon_param_bytes_ex(1, d, GPUECON_BF16, 2, 4, false, false, &b);
    assert_close(b.weights + b.fp8_copy + b.grads + b.optimizer, 4 + 12.0 / d, 1e-9);
    gpuecon_param_bytes_ex(1, d, GPUECON_FP8, 2, 4, true, false, &b);
    assert_close(b.weights + b.fp8_copy + b.grads + b.optimizer, 1 + 2 + 12.0 / d, 1e-9);
    gpuecon_param_bytes_ex(1, d, GPUECON_FP8, 2, 4, true, true, &b);
    assert_close(b.weights + b.fp8_copy + b.grads + b.optimizer, 2 + 2 + 12.0 / d, 1e-9);
    gpuecon_param_bytes_ex(1, d, GPUECON_FP8, 2, 2, true, true, &b);
    assert_close(b.optimizer, 8.0 / d, 1e-9);
    /* dual precision (no FP8-only weights): BF16 weights and the FP8 copy with its transpose */
    gpuecon_param_bytes_ex(0, 1, GPUECON_FP8, 4, 4, false, true, &b);
    assert_close(b.weights + b.fp8_copy, 2 + 2, 1e-9);
}

/* Llama 3.1 405B with SP at TP 8: BF16 31.75 units of s·b·h/t per layer, FP8 27.5 (QKV and FC1
 * inputs -1 each, FC2 input -3.25, the projection's FP8 input +1 beside the BF16 SDPA output). */
static void test_fp8_activations(void **state)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), "llama3-405b");
    assert_non_null(m);
    double unit = 8192.0 * 16384 / 8;
    double bf16 = gpuecon_layer_activation_bytes(m, 0, 8192, 1, 8, true, GPUECON_RECOMPUTE_NONE,
                                                 GPUECON_ATTN_IMPL_FLASH, false);
    assert_close(bf16 / unit, 31.75 + 4.0 * 128 / 16384, 1e-9); /* + flash's fp32 LSE */
    double d = mem_fp8_act_delta(16384, 128, 128, 53248, 8192, 1, 8, true, GPUECON_RECOMPUTE_NONE);
    assert_close(d / unit, 27.5 - 31.75, 1e-9);
    assert_close(mem_fp8_act_delta(16384, 128, 128, 53248, 8192, 1, 8, true, GPUECON_RECOMPUTE_FULL), 0, 1e-9);
}

/* Offload moves N of a stage's L layers' activations to the host: the GPU keeps (L-N)/L. */
static void test_offload(void **state)
{
    gpuecon_train_request q = recipe_request(state, &recipes[3]);
    q.offload_layers = 0;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_train_result r0, r1;
    gpuecon_error err;
    int rc = gpuecon_train_predict(ctx, &q, &r0, &err);
    assert_true(rc == GPUECON_OK || rc == GPUECON_E_INFEASIBLE);
    q.offload_layers = 40;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &r1, &err), GPUECON_OK);
    assert_close(r1.mem.offloaded_gib, r0.mem.activations_gib * 40 / 80, 1e-9);
    assert_close(r1.mem.activations_gib, r0.mem.activations_gib * 40 / 80, 1e-9);
    /* searched: the fewest layers that fit, no more */
    q.offload_layers = GPUECON_SEARCH;
    gpuecon_train_result rs;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &rs, &err), GPUECON_OK);
    assert_true(rs.fits && rs.par.offload_layers >= 1 && rs.par.offload_layers <= 40);
    double step = rs.bd.compute_s + rs.bd.tp_comm_s + rs.bd.cp_comm_s + rs.bd.ep_comm_s + rs.bd.pp_bubble_s +
                  rs.bd.pp_comm_s + rs.bd.dp_comm_s + rs.bd.optimizer_s + rs.bd.straggler_s + rs.bd.offload_s;
    assert_close(step, rs.step_time_s, 1e-9);
    gpuecon_ctx_free(ctx);
}

/* DeepSeek-V3 EP 64 over 8 H100 nodes, 8 groups of which 4 per token: a deduplicating
 * dispatcher sends each token to 4 nodes, 3.5 of them remote (DeepSeek-V3 report §3.2.2;
 * all of 8 x 7/8 = 7 remote copies with NCCL's all-to-all). */
static void test_dispatch(void **state)
{
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), "hgx-h100");
    gpuecon_dispatch_request q = {GPUECON_DISPATCH_HYBRIDEP, 64, 1, 4096, 8, 256, 8, 4, 7168, 2, 1};
    gpuecon_dispatch_result d, n;
    gpuecon_error err;
    assert_int_equal(gpuecon_moe_dispatch(s, NULL, &q, &d, &err), GPUECON_OK);
    assert_close(d.remote_domains, 3.5, 1e-9);
    assert_int_equal(d.domains, 8);
    assert_close(d.inter_bytes, 4096 * 3.5 * 7168 * 2, 1e-9);
    /* the network share at 0.95 of 50 GB/s; NVLink (every remote GPU copy) at 0.77 of 450 */
    double t_out = d.inter_bytes / (50e9 * 0.95), t_in = d.intra_bytes / (450e9 * 0.77);
    assert_true(d.time_s > t_out && d.time_s > t_in && d.time_s < fmax(t_out, t_in) + 30e-6);
    q.dispatcher = GPUECON_DISPATCH_NCCL_A2A;
    assert_int_equal(gpuecon_moe_dispatch(s, NULL, &q, &n, &err), GPUECON_OK);
    assert_close(n.remote_domains, 7, 1e-9);
    assert_true(n.time_s > 2 * d.time_s); /* half the bytes at 0.95 instead of 0.60 of line rate */
    /* no routing limit: 8 x (1 - (7/8)^8) = 5.25 nodes, 4.59 remote */
    q.dispatcher = GPUECON_DISPATCH_DEEPEP, q.groups = 0;
    assert_int_equal(gpuecon_moe_dispatch(s, NULL, &q, &d, &err), GPUECON_OK);
    assert_close(d.remote_domains, 8 * (1 - pow(7.0 / 8, 8)) * 7 / 8, 1e-9);
    q.groups = 8, q.groups_per_token = 9;
    assert_int_equal(gpuecon_moe_dispatch(s, NULL, &q, &d, &err), GPUECON_E_INPUT);
    q.groups_per_token = 4, q.ep = 48;
    assert_int_equal(gpuecon_moe_dispatch(s, NULL, &q, &d, &err), GPUECON_E_INPUT);
}

static void test_bad_input(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 128);
    q.precision = GPUECON_FP8;
    q.fp8_recipe = GPUECON_FP8_MXFP8;
    expect_input(&q, "options.fp8_recipe", "mxfp8 needs Blackwell");
    q = req_for(state, "llama3-70b", "hgx-h100", 64, 8192, 128);
    q.pp = 4, q.offload_layers = 30;
    expect_input(&q, "options.offload_layers", "more than a pipeline stage holds");
    q.offload_layers = 81;
    expect_input(&q, "options.offload_layers", "allowed 0 to the 80 layers");
    gpuecon_system nolink = *q.system;
    nolink.host_link_gbps = 0;
    q.system = &nolink, q.offload_layers = 4;
    expect_input(&q, "options.offload_layers", "no host_link_gbps");
    q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 128);
    q.optim_state_bytes = 3;
    expect_input(&q, "options.optimizer_states", "allowed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recipes_fit),     cmocka_unit_test(test_param_bytes),
        cmocka_unit_test(test_fp8_activations), cmocka_unit_test(test_offload),
        cmocka_unit_test(test_dispatch),        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_nemo2024_grads),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
