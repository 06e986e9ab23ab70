/*
 * test_finetune.c — LoRA/full fine-tuning memory and speed against VESSL AI's FSDP figures and the
 * cross-check of docs/model.md §6.9, with the arithmetic by hand.
 *
 * VESSL AI: "FSDP without gradient checkpointing beats DDP + checkpointing: A100 4,746 vs 3,565
 * tok/s (+33%). H100 FSDP micro-batch 2: 8,572 tok/s at 7.6 GB per GPU, vs ≈60 GB per GPU
 * for DDP." The vessl-gemma4 profile's eta_train was fitted to the A100 FSDP figure (so that
 * one is circular); the DDP figure and the ratio are out of sample.
 */
#include "test_util.h"

#include <string.h>

#define GIB 1073741824.0

static const gpuecon_catalog *g_cat;

static int setup(void **state)
{
    int rc = fixture_setup(state);
    g_cat = CAT(state);
    return rc;
}

/* The blog's run: Gemma-4-31B, LoRA r16 alpha 32 on all 7 projections, seq 2048, 8 GPUs. */
static gpuecon_finetune_request req(const char *system, gpuecon_ft_strategy s, bool recompute)
{
    gpuecon_finetune_request r;
    gpuecon_finetune_request_init(&r);
    r.model = gpuecon_catalog_model(g_cat, "gemma4-31b");
    r.system = gpuecon_catalog_system(g_cat, system);
    assert_non_null(r.model);
    assert_non_null(r.system);
    r.strategy = s;
    r.recompute = recompute;
    r.profile = *gpuecon_serving_profile_find("vessl-gemma4");
    return r;
}

static gpuecon_finetune_result run(const gpuecon_finetune_request *r, int expect)
{
    gpuecon_finetune_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_finetune(r, &o, &err);
    if (rc != expect)
        fail_msg("gpuecon_finetune returned %d (%s), expected %d", rc, err.message, expect);
    return o;
}

/* VESSL AI and docs/model.md §6.9: DDP holds a full bf16 replica (60.0 GiB), FSDP an eighth (7.5 GiB). */
static void test_v3_memory(void **state)
{
    (void)state;
    /* text weights incl. norms 30,696,664,320·2 B + vision 0.55e9·2 B + LoRA 123,617,280·16 B
     * (fp32 weight, fp32 grad, Adam m and v) = 64,471,205,120 B = 60.04 GiB */
    double states = (30696664320.0 * 2 + 0.55e9 * 2 + 123617280.0 * 16) / GIB;
    gpuecon_finetune_request d = req("hgx-h100", GPUECON_FT_DDP, true);
    gpuecon_finetune_result o = run(&d, GPUECON_OK);
    assert_close(o.states_gib, states, 1e-9);
    assert_close(o.trainable_params, 123617280.0, 1e-12);
    assert_true(fabs(o.states_gib / 60 - 1) <= 0.10); /* blog "≈60 GB" */
    gpuecon_finetune_request f = req("hgx-h100", GPUECON_FT_FSDP, false);
    o = run(&f, GPUECON_OK);
    assert_close(o.states_gib, states / 8, 1e-9);
    assert_true(fabs(o.states_gib / 7.6 - 1) <= 0.10); /* blog "7.6 GB per GPU", mbs 2 */
    /* what the blog's 7.6 GB cannot include: activations of 2 x 2048 tokens without recompute.
     * Per token and layer (bf16 values): sliding 2·5376 + 8192 + 4096 + 4096 + 8192 (attention)
     * + 2·5376 + 3·21504 (GeGLU) + 7·16 (LoRA) = 110,704; global (q 16384, k 2048, K = V)
     * 120,944; all 60 layers 6,744,640 -> ·2 B·4096 tokens = 51.46 GiB; logits 4096·262144·6 B */
    assert_close(o.activations_gib, 6744640.0 * 2 * 4096 / GIB, 1e-12);
    assert_close(o.logits_gib, 6.0, 1e-12);
    assert_true(o.fits); /* 7.5 + 51.5 + 6 + 4.4 GiB < 0.95·79.65 */
    /* with recompute only each layer's input (60·5376) plus one layer's worth are saved */
    gpuecon_finetune_request fr = req("hgx-h100", GPUECON_FT_FSDP, true);
    assert_close(run(&fr, GPUECON_OK).activations_gib, (60.0 * 5376 + 120944) * 2 * 4096 / GIB, 1e-12);
}

/* Why DDP needs checkpointing and FSDP does not (the memory half of VESSL AI's FSDP result). */
static void test_v3_fits(void **state)
{
    (void)state;
    gpuecon_finetune_request d = req("hgx-h100", GPUECON_FT_DDP, false);
    gpuecon_finetune_result o = run(&d, GPUECON_E_INFEASIBLE);
    assert_false(o.fits);
    /* 60.04 + 51.46 + 6.00 + 0.46 (buckets) = 117.96 GiB against 0.95·79.65 = 75.67 GiB */
    assert_close(o.memory_gib_per_gpu, 117.96, 1e-3);
    assert_close(o.shortfall_gb, (117.96 - 0.95 * 79.65) * GIB / 1e9, 1e-3);
    d.recompute = true;
    assert_true(run(&d, GPUECON_OK).fits);
    gpuecon_finetune_request f = req("hgx-h100", GPUECON_FT_FSDP, false);
    assert_true(run(&f, GPUECON_OK).fits);
    f.mbs = 4; /* doubles the activations: 103 GiB, no longer fits */
    assert_false(run(&f, GPUECON_E_INFEASIBLE).fits);
}

/* The FLOP half: ≈4P per token without recompute (frozen base: no weight gradients), ≈6P with. */
static void test_flop_argument(void **state)
{
    (void)state;
    gpuecon_flops fl;
    const gpuecon_model *m = gpuecon_catalog_model(g_cat, "gemma4-31b");
    gpuecon_train_flops(m, 2048, GPUECON_ATTN_COUNT_CAUSAL, false, &fl);
    double P = fl.matmul_params, a = fl.attention / 3, pl = 123617280.0;
    gpuecon_finetune_request f = req("hgx-a100", GPUECON_FT_FSDP, false);
    gpuecon_finetune_result x = run(&f, GPUECON_OK);
    assert_close(x.flops_per_token, 4 * P + 3 * a + 6 * pl, 1e-12);
    gpuecon_finetune_request d = req("hgx-a100", GPUECON_FT_DDP, true);
    gpuecon_finetune_result y = run(&d, GPUECON_OK);
    assert_close(y.flops_per_token, 6 * P + 4 * a + 8 * pl, 1e-12);
    assert_close(y.model_flops_per_token, x.flops_per_token, 1e-12); /* MFU ignores recompute */
    double flop_ratio = y.flops_per_token / x.flops_per_token;
    assert_true(flop_ratio > 1.45 && flop_ratio <= 1.5);
    /* measured: 4,746 / 3,565 = 1.33x; the model lands between that and the FLOP bound */
    double ratio = x.tokens_per_s / y.tokens_per_s;
    assert_true(ratio > 1.2 && ratio < flop_ratio);
    assert_near(ratio, 4746.0 / 3565.0, 0.1);
    /* A100 FSDP: eta_train was solved from this figure (circular) */
    assert_close(x.tokens_per_s, 4746, 0.01);
    /* A100 DDP + checkpointing: out of sample, within 10% (model 3,416: −4%) */
    assert_close(y.tokens_per_s, 3565, 0.10);
    /* full fine-tuning: 6P without recompute, 8P with */
    gpuecon_finetune_request full = req("hgx-h100", GPUECON_FT_FSDP, false);
    full.model = gpuecon_catalog_model(g_cat, "llama3-8b");
    full.method = GPUECON_FT_FULL;
    gpuecon_train_flops(full.model, 2048, GPUECON_ATTN_COUNT_CAUSAL, false, &fl);
    assert_close(run(&full, GPUECON_OK).flops_per_token, 6 * fl.matmul_params + fl.attention, 1e-12);
    full.recompute = true;
    assert_close(run(&full, GPUECON_OK).flops_per_token,
                 8 * fl.matmul_params + fl.attention * 4 / 3, 1e-12);
}

/* Full fine-tuning states: 16 B per parameter (ZeRO §3.1), sharded by FSDP. */
static void test_full_states(void **state)
{
    (void)state;
    gpuecon_finetune_request r = req("hgx-h100", GPUECON_FT_FSDP, true);
    r.model = gpuecon_catalog_model(g_cat, "llama3-8b");
    r.method = GPUECON_FT_FULL;
    gpuecon_params p;
    gpuecon_model_params(r.model, &p);
    gpuecon_finetune_result o = run(&r, GPUECON_OK);
    assert_close(o.states_gib, 16 * p.total / 8 / GIB, 1e-12);
    assert_close(o.grads_gib, 2 * p.total / 8 / GIB, 1e-12);
    assert_close(o.optimizer_gib, 12 * p.total / 8 / GIB, 1e-12);
    r.strategy = GPUECON_FT_DDP; /* 16·8.03e9 B = 120 GiB: no 80 GB GPU holds it */
    assert_false(run(&r, GPUECON_E_INFEASIBLE).fits);
}

/* Where a constant-efficiency model cannot follow the blog (docs/model.md §6.9): the H100 and B200
 * training throughputs. The test asserts the model's values and that the published ones lie
 * outside ±25%, except H100/A100 which passes. */
static void test_v2_v3_gaps(void **state)
{
    (void)state;
    gpuecon_finetune_request a = req("hgx-a100", GPUECON_FT_FSDP, false);
    gpuecon_finetune_request h = req("hgx-h100", GPUECON_FT_FSDP, false);
    gpuecon_finetune_request b = req("hgx-b200", GPUECON_FT_FSDP, false);
    double xa = run(&a, GPUECON_OK).tokens_per_s, xh = run(&h, GPUECON_OK).tokens_per_s,
           xb = run(&b, GPUECON_OK).tokens_per_s;
    /* H100 FSDP mbs 2: 4.21·30.7e9·4096 FLOP / (989e12·0.264) = 2.03 s, plus two all-gathers
     * of 31.25e9·2 B·7/8 at 450 GB/s·0.8 = 0.30 s per step -> 8·4096/2.33 ≈ 14,000 tok/s; the
     * blog's 8,572 implies 13% MFU, half the A100's 23% */
    assert_close(xh, 14000, 0.02);
    assert_true(xh / 8572 - 1 > 0.25);
    assert_true(fabs((xh / xa) / 2.5 - 1) <= 0.25); /* VESSL AI: H100 ≈2.5x A100: model 2.95x */
    assert_true((xb / xa) / 4.0 - 1 > 0.25);         /* VESSL AI: B200 ≈4.0x A100: model ≈6.6x */
    assert_true((xb / xh) / 1.6 - 1 > 0.25);         /* VESSL AI: B200 ≈1.6x H100: model ≈2.2x */
}

static void expect_input(gpuecon_finetune_request r, const char *where)
{
    gpuecon_finetune_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_finetune(&r, &o, &err), GPUECON_E_INPUT);
    if (strcmp(err.where, where) != 0)
        fail_msg("error names '%s', expected '%s' (%s)", err.where, where, err.message);
}

static void test_bad_input(void **state)
{
    (void)state;
    gpuecon_finetune_request r = req("hgx-h100", GPUECON_FT_FSDP, false), b;
    b = r, b.mbs = 0;
    expect_input(b, "--mbs");
    b = r, b.gpus = 0;
    expect_input(b, "--gpus");
    b = r, b.lora_rank = 0;
    expect_input(b, "--lora-rank");
    b = r, b.seq = 300000; /* context 262,144 */
    expect_input(b, "--seq");
    b = req("hgx-a100", GPUECON_FT_FSDP, false), b.precision = GPUECON_FP8; /* no FP8 on A100 */
    expect_input(b, "--precision");
    b = r, b.efficiency = 1.5;
    expect_input(b, "--efficiency");
    b = r, b.model = NULL;
    expect_input(b, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v3_memory),   cmocka_unit_test(test_v3_fits),
        cmocka_unit_test(test_flop_argument), cmocka_unit_test(test_full_states),
        cmocka_unit_test(test_v2_v3_gaps),  cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
