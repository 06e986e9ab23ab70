/*
 * test_memory.c — activation memory against Korthikanti et al. 2022 (Table 2: bytes per
 * layer of a GPT layer with dropout and unfused attention), model-state bytes under ZeRO,
 * the in-flight micro-batches of 1F1B and interleaved schedules, and uneven stage layouts.
 */
#include "test_util.h"

#include "model/train.h"

#include <string.h>

/* GPT-3 175B layer: s = 2048, b = 1, h = 12288, a = 96; 5as/h = 5 x 96 x 2048 / 12288 = 80. */
static gpuecon_model gpt3_layer(void)
{
    gpuecon_model m;
    memset(&m, 0, sizeof m);
    m.name = "gpt3";
    m.layers = 96;
    m.hidden = 12288;
    m.heads = 96;
    m.kv_heads = 96;
    m.head_dim = 128;
    m.ffn_hidden = 4 * 12288;
    m.ffn = GPUECON_FFN_GELU;
    m.vocab = 51200;
    return m;
}

static void test_korthikanti_table2(void **state)
{
    (void)state;
    gpuecon_model m = gpt3_layer();
    double sbh = 2048.0 * 1 * 12288;
    const gpuecon_attn_impl U = GPUECON_ATTN_IMPL_UNFUSED;
    /* no parallelism, no recompute: sbh (34 + 5as/h) = 114 sbh */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 1, false, GPUECON_RECOMPUTE_NONE, U, true),
                 sbh * 114, 1e-12);
    /* TP 8 without SP: sbh (10 + 24/t + 5as/(ht)) = sbh (10 + 3 + 10) = 23 sbh */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 8, false, GPUECON_RECOMPUTE_NONE, U, true),
                 sbh * 23, 1e-12);
    /* TP 8 with SP: sbh/t (34 + 5as/h) = 114/8 sbh */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 8, true, GPUECON_RECOMPUTE_NONE, U, true),
                 sbh * 114 / 8, 1e-12);
    /* TP 8, SP, selective recompute: 34 sbh / t */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 8, true, GPUECON_RECOMPUTE_SELECTIVE, U, true),
                 sbh * 34 / 8, 1e-12);
    /* full recompute keeps the layer input: 2 sbh (/t with SP) */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 8, true, GPUECON_RECOMPUTE_FULL, U, true),
                 sbh * 2 / 8, 1e-12);
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 1, 8, false, GPUECON_RECOMPUTE_FULL, U, true),
                 sbh * 2, 1e-12);
    /* micro-batch of 4: four times as much */
    assert_close(gpuecon_layer_activation_bytes(&m, 0, 2048, 4, 1, false, GPUECON_RECOMPUTE_NONE, U, true),
                 4 * sbh * 114, 1e-12);
}

/* Llama 3 70B (GQA 64/8, head 128, SwiGLU 28672, no dropout, flash attention), per term:
 * replicated 2+2+2+2 = 8; split 2(q+k) + 2v + 2o + 6r with q = o = 1, k = v = 8x128/8192 =
 * 0.125, r = 3.5: 2.25 + 0.25 + 2 + 21 = 25.5; flash keeps 4 bytes of log-sum-exp per
 * head and token: 4 x 64 / 8192 = 0.03125. Total 33.53125 sbh; TP 4 with SP: /4. */
static void test_llama70b_flash(void **state)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), "llama3-70b");
    assert_non_null(m);
    double sbh = 8192.0 * 8192;
    assert_close(gpuecon_layer_activation_bytes(m, 0, 8192, 1, 1, true, GPUECON_RECOMPUTE_NONE,
                                                GPUECON_ATTN_IMPL_FLASH, false),
                 sbh * 33.53125, 1e-12);
    assert_close(gpuecon_layer_activation_bytes(m, 5, 4096, 1, 4, true, GPUECON_RECOMPUTE_NONE,
                                                GPUECON_ATTN_IMPL_FLASH, false),
                 4096.0 * 8192 * 33.53125 / 4, 1e-12);
    /* bad arguments give 0, not a crash */
    assert_true(gpuecon_layer_activation_bytes(m, 80, 8192, 1, 1, true, 0, 0, false) == 0);
    assert_true(gpuecon_layer_activation_bytes(NULL, 0, 8192, 1, 1, true, 0, 0, false) == 0);
}

/* Mixed-precision Adam: 2 (bf16 weights) + 4 (fp32 grads) + 12 (master, m, v) = 18 B per
 * parameter; ZeRO-1 shards the 12, ZeRO-2 the 4 too, ZeRO-3 everything; FP8 adds a 1-byte copy. */
static void test_param_bytes(void **state)
{
    (void)state;
    gpuecon_param_bytes b;
    gpuecon_param_bytes_per_param(0, 8, GPUECON_BF16, &b);
    assert_close(b.weights + b.grads + b.optimizer + b.fp8_copy, 18, 1e-15);
    gpuecon_param_bytes_per_param(1, 8, GPUECON_BF16, &b);
    assert_close(b.weights + b.grads + b.optimizer, 2 + 4 + 1.5, 1e-15);
    gpuecon_param_bytes_per_param(2, 8, GPUECON_FP8, &b);
    assert_close(b.weights + b.grads + b.optimizer + b.fp8_copy, 2 + 0.5 + 1.5 + 1, 1e-15);
    gpuecon_param_bytes_per_param(3, 8, GPUECON_BF16, &b);
    assert_close(b.weights + b.grads + b.optimizer, 18.0 / 8, 1e-15);
    gpuecon_param_bytes_per_param(3, 1, GPUECON_BF16, &b); /* one shard: nothing to split */
    assert_close(b.weights + b.grads + b.optimizer, 18, 1e-15);
}

/* In-flight micro-batches of the first stage (Korthikanti §4.2.3): 1F1B holds min(m, p);
 * interleaving p (1 + (p-1)/(p v)). p = 4, v = 2: 4 x (1 + 3/8) = 5.5. p = 9, v = 7:
 * 9 x (1 + 8/63) = 10.142857. */
static void test_inflight(void **state)
{
    (void)state;
    assert_close(gpuecon_inflight_microbatches(4, 1, 8), 4, 1e-15);
    assert_close(gpuecon_inflight_microbatches(4, 1, 2), 2, 1e-15);
    assert_close(gpuecon_inflight_microbatches(1, 1, 64), 1, 1e-15);
    assert_close(gpuecon_inflight_microbatches(4, 2, 8), 5.5, 1e-15);
    assert_close(gpuecon_inflight_microbatches(9, 7, 63), 9 * (1 + 8.0 / 63), 1e-12);
    /* last stage of 1F1B holds one */
    assert_close(mem_inflight(8, 1, 64, 7), 1, 1e-15);
    assert_true(gpuecon_inflight_microbatches(0, 1, 8) == 0);
}

/* Uneven layouts (docs/catalog.md): Llama 3.1 405B's 126 layers on PP 8 x VPP 8 = 64 chunks put
 * one layer on the first and last chunk (embedding and loss count as a layer) and two on
 * the others: first stage 1 + 7x2 = 15, middle 8x2 = 16, last 15; on PP 16: 7, 8, 7. */
static void test_stage_layers(void **state)
{
    (void)state;
    assert_int_equal(mem_stage_layers(126, 8, 8, 0), 15);
    assert_int_equal(mem_stage_layers(126, 8, 8, 1), 16);
    assert_int_equal(mem_stage_layers(126, 8, 8, 7), 15);
    assert_int_equal(mem_stage_layers(126, 16, 1, 0), 7);
    assert_int_equal(mem_stage_layers(126, 16, 1, 8), 8);
    assert_int_equal(mem_stage_layers(126, 16, 1, 15), 7);
    assert_int_equal(mem_stage_layers(96, 8, 12, 3), 12);
    assert_int_equal(mem_stage_layers(5, 2, 1, 0) + mem_stage_layers(5, 2, 1, 1), 5);
    int sum = 0;
    for (int s = 0; s < 9; s++)
        sum += mem_stage_layers(126, 9, 7, s);
    assert_int_equal(sum, 126);
    assert_int_equal(mem_stage_layers(80, 1, 1, 0), 80);
    /* 128 chunks for 126 layers: the first and last chunk hold only the embedding and the
     * loss; every other chunk one layer (PP 16 x VPP 8: 7, 8, 7 layers per stage) */
    assert_int_equal(mem_stage_layers(126, 16, 8, 0), 7);
    assert_int_equal(mem_stage_layers(126, 16, 8, 1), 8);
    assert_int_equal(mem_stage_layers(126, 16, 8, 15), 7);
}

/* The reserve: 1.5 GiB plus 2% of capacity: H100 79.65 GiB -> 3.093 GiB. */
static void test_reserve(void **state)
{
    const gpuecon_gpu *g = gpuecon_catalog_gpu(CAT(state), "h100-sxm");
    assert_close(gpuecon_memory_reserve_bytes(g) / 1073741824.0, 1.5 + 0.02 * 79.65, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_korthikanti_table2), cmocka_unit_test(test_llama70b_flash),
        cmocka_unit_test(test_param_bytes),        cmocka_unit_test(test_inflight),
        cmocka_unit_test(test_stage_layers),       cmocka_unit_test(test_reserve),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
