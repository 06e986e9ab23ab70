/*
 * test_flops.c — parameter counts and model FLOPs against published totals and hand algebra.
 */
#include "test_util.h"

static const gpuecon_model *model(void **state, const char *name)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), name);
    assert_non_null(m);
    return m;
}

/* Every catalog model's computed totals within 2% of its published totals (issue 2). */
static void test_published_totals(void **state)
{
    size_t n = gpuecon_catalog_count(CAT(state), GPUECON_KIND_MODEL);
    assert_true(n >= 10);
    for (size_t i = 0; i < n; i++) {
        const gpuecon_model *m = gpuecon_catalog_at(CAT(state), GPUECON_KIND_MODEL, i);
        gpuecon_params p;
        gpuecon_model_params(m, &p);
        assert_true(m->published_params > 0);
        if (fabs(p.total / m->published_params - 1) > 0.02)
            fail_msg("%s: total %.4g vs published %.4g", m->name, p.total, m->published_params);
        if (m->published_active_params > 0 && fabs(p.active / m->published_active_params - 1) > 0.02)
            fail_msg("%s: active %.4g vs published %.4g", m->name, p.active, m->published_active_params);
    }
}

/* Llama 3 70B by hand: attention 2h²(1 + kv/heads) = 2·8192²·1.125, MLP 3·8192·28672,
 * 80 layers, embedding and head 128256·8192 each. */
static void test_llama70b_by_hand(void **state)
{
    gpuecon_params p;
    gpuecon_model_params(model(state, "llama3-70b"), &p);
    double h = 8192, attn = 2 * h * h * 1.125, mlp = 3 * h * 28672, emb = 128256 * h;
    assert_close(p.attention, 80 * attn, 1e-12);
    assert_close(p.dense_ffn, 80 * mlp, 1e-12);
    assert_close(p.embedding, emb, 1e-12);
    assert_close(p.lm_head, emb, 1e-12);
    /* NeMo's MFU formula per token: L·h²·(12 + 12·g/a + 18·f/h + 12·s/h + 6·V/(L·h)) */
    double s = 8192, nemo = 80 * h * h * (12 + 12 * 8.0 / 64 + 18 * 28672 / h + 12 * s / h + 6 * 128256 / (80 * h));
    gpuecon_flops f;
    gpuecon_train_flops(model(state, "llama3-70b"), 8192, GPUECON_ATTN_COUNT_FULL, false, &f);
    assert_close(f.total, nemo, 1e-3); /* norms are not matmuls; NeMo has none either */
    gpuecon_flops causal;
    gpuecon_train_flops(model(state, "llama3-70b"), 8192, GPUECON_ATTN_COUNT_CAUSAL, false, &causal);
    assert_close(f.attention - causal.attention, 0.5 * 80 * 12 * s * h, 1e-12);
}

/* GPT-3 175B: 12·L·h² per layer (Kaplan et al.), tied embedding counted once. */
static void test_gpt3(void **state)
{
    gpuecon_params p;
    gpuecon_model_params(model(state, "gpt3-175b"), &p);
    double h = 12288;
    assert_close(p.attention + p.dense_ffn, 12 * 96 * h * h, 1e-12);
    assert_true(p.lm_head == 0);
    /* Narayanan eq. (3) without recompute: 72·L·h²·(1 + s/6h + V/12Lh) per token */
    gpuecon_flops f;
    gpuecon_train_flops(model(state, "gpt3-175b"), 2048, GPUECON_ATTN_COUNT_FULL, false, &f);
    double narayanan = 72 * 96 * h * h * (1 + 2048 / (6 * h) + 50257 / (12 * 96 * h));
    assert_close(f.total, narayanan, 1e-9);
}

/* DeepSeek-V3: NVIDIA's 163.7 TFLOP/s at 629.7 tok/s/GPU implies 2.5996e11 FLOPs/token
 * (A38) under NeMo's convention (causal attention, MTP counted, seq 4096). */
static void test_deepseek_flops(void **state)
{
    gpuecon_flops f;
    gpuecon_train_flops(model(state, "deepseek-v3"), 4096, GPUECON_ATTN_COUNT_CAUSAL, true, &f);
    assert_close(f.total, 163.7e12 / 629.7, 0.01);
    /* MLA attention weights per layer by hand (config_671B.json) */
    double h = 7168, q = h * 1536 + 1536 * 128 * 192 + 1536, kv = h * (512 + 64) + 512 + 512.0 * 128 * 256,
           o = 128.0 * 128 * h;
    gpuecon_params p;
    gpuecon_model_params(model(state, "deepseek-v3"), &p);
    assert_close(p.attention, 61 * (q + kv + o), 1e-12);
    /* routed experts: 58 MoE layers x 256 x 3·h·2048 */
    assert_close(p.routed_experts, 58 * 256 * 3 * h * 2048, 1e-12);
}

/* Mixtral 8x7B: 46.7B / 12.9B (Jiang et al. 2024). Active = attention + 2 of 8 experts. */
static void test_mixtral(void **state)
{
    gpuecon_params p;
    gpuecon_model_params(model(state, "mixtral-8x7b"), &p);
    double h = 4096, expert = 3 * h * 14336;
    assert_close(p.routed_experts, 32 * 8 * expert, 1e-12);
    assert_close(p.active - p.attention - p.embedding - p.lm_head - p.norms - p.router, 32 * 2 * expert,
                 1e-12);
}

/* Gemma-4-31B: docs/model.md §6 TC1 exact values. */
static void test_gemma4(void **state)
{
    gpuecon_params p;
    const gpuecon_model *m = model(state, "gemma4-31b");
    gpuecon_model_params(m, &p);
    assert_close(p.attention, 8477736960.0, 1e-12);
    assert_close(p.dense_ffn, 20808990720.0, 1e-12);
    assert_close(p.embedding, 1409286144.0, 1e-12);
    assert_close(p.attention + p.dense_ffn + p.embedding, 30696013824.0, 1e-12);
    gpuecon_layer l;
    gpuecon_model_layer(m, 5, &l);
    assert_int_equal(l.window, 0);
    assert_int_equal(l.head_dim, 512);
    assert_true(l.k_eq_v);
    gpuecon_model_layer(m, 4, &l);
    assert_int_equal(l.window, 1024);
}

/* Llama 4 Maverick: MoE in every other layer (1, 3, ...), dense in 0, 2, ... */
static void test_maverick_layers(void **state)
{
    const gpuecon_model *m = model(state, "llama4-maverick");
    gpuecon_layer l;
    gpuecon_model_layer(m, 0, &l);
    assert_false(l.moe);
    gpuecon_model_layer(m, 1, &l);
    assert_true(l.moe);
}

/* gpt-oss-120b: the model card's active count (arXiv:2508.10925 Table 1, 5.13 B) leaves out the input
 * embedding; by hand per layer: attention q and o 2·2880·(64·64) = 23,592,960, k and v 2·2880·(8·64)
 * = 2,949,120, router 2880·128 = 368,640, four experts 4·3·2880² = 99,532,800; 36 layers plus the
 * unembedding 201088·2880 = 579,133,440 give 5.132 B before norms and biases. Alternating
 * sliding-window (128) and full attention from a sliding layer. */
static void test_gpt_oss(void **state)
{
    gpuecon_params p;
    const gpuecon_model *m = model(state, "gpt-oss-120b");
    gpuecon_model_params(m, &p);
    double layer = 23592960.0 + 2949120.0 + 368640.0 + 99532800.0;
    assert_close(p.active - p.embedding - p.norms, 36 * layer + 579133440.0, 1e-9);
    assert_close(p.active - p.embedding, 5.13e9, 0.005);
    assert_close(p.routed_experts, 36 * 128 * 3 * 2880.0 * 2880, 1e-12);
    gpuecon_layer l;
    gpuecon_model_layer(m, 0, &l);
    assert_int_equal(l.window, 128);
    gpuecon_model_layer(m, 1, &l);
    assert_int_equal(l.window, 0);
}

static void test_mfu_inverse(void **state)
{
    (void)state;
    /* SemiAnalysis's GPT-3 175B series: 728 tok/s at 39.5% of 1979 TFLOP/s -> 1.074e12 FLOPs/token */
    double mfu = gpuecon_mfu(728, 1.074e12, 1979e12);
    assert_close(mfu, 728 * 1.074e12 / 1979e12, 1e-15);
    assert_close(gpuecon_tokens_per_s_from_mfu(mfu, 1.074e12, 1979e12), 728, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_totals), cmocka_unit_test(test_llama70b_by_hand),
        cmocka_unit_test(test_gpt3),             cmocka_unit_test(test_deepseek_flops),
        cmocka_unit_test(test_mixtral),          cmocka_unit_test(test_gemma4),
        cmocka_unit_test(test_maverick_layers),  cmocka_unit_test(test_mfu_inverse),
        cmocka_unit_test(test_gpt_oss),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
