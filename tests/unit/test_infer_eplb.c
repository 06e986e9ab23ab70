/*
 * test_infer_eplb.c — wide expert parallelism in serving: redundant experts, expert slots per
 * GPU and the busiest rank's load with and without them (src/model/infer_eplb.c, infer.c;
 * docs/model.md §6.5 EP1–EP4).
 *
 * Every number is derived here by hand: the slot counts from E, R and EP; the load factors of
 * equally popular experts from how many whole experts and half-replicas a rank can hold; a
 * two-expert case with popularity of coefficient of variation 1 worked through EPLB's two steps;
 * the weights per GPU of DeepSeek-V3 from its shape (58 MoE layers of 256 experts of
 * 3 x 7168 x 2048 parameters).
 */
#include "infer_util.h"

#include "model/infer.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

static void test_slots(void **state)
{
    (void)state;
    /* EPLB's deployment: 256 + 32 = 288 = 48 x 6 = 72 x 4 = 32 x 9 */
    assert_int_equal(infer_redundant_default(256, 48), 32);
    assert_int_equal(infer_redundant_default(256, 72), 32);
    assert_int_equal(infer_redundant_default(256, 64), 0);
    assert_int_equal(infer_redundant_default(256, 12), 8); /* 264 = 12 x 22 */
    assert_int_equal(infer_redundant_default(256, 1), 0);
    assert_int_equal(infer_expert_slots(256, 32, 48), 6);
    assert_int_equal(infer_expert_slots(256, 32, 72), 4);
    assert_int_equal(infer_expert_slots(256, 0, 48), 6); /* uneven: 256 = 16 x 6 + 32 x 5 */
    assert_int_equal(infer_expert_slots(256, 0, 64), 4);
}

/* Experts equally popular (load 1 each, a rank's mean E/EP). */
static void test_uniform(void **state)
{
    (void)state;
    /* EP 48, no replicas: 16 ranks hold 6 experts, 32 hold 5; the mean is 256/48 = 16/3 */
    assert_close(infer_expert_imbalance(256, 48, 0, 0), 6 / (256.0 / 48), 1e-12);
    /* EP 48, R 32: 32 experts split into two halves of 0.5 (64 items) beside 224 whole ones, 6 per
     * rank; 32 ranks of 5 whole + 1 half (5.5) and 16 of 4 whole + 2 halves (5.0): 5.5 / (16/3) */
    assert_close(infer_expert_imbalance(256, 48, 32, 0), 5.5 / (256.0 / 48), 1e-12);
    /* EP 72, 4 slots: 64 halves cannot reach all 72 ranks, so 8 keep 4 whole experts: 4/(256/72),
     * as without replicas (40 ranks of 4) */
    assert_close(infer_expert_imbalance(256, 72, 32, 0), 4 / (256.0 / 72), 1e-12);
    assert_close(infer_expert_imbalance(256, 72, 0, 0), 4 / (256.0 / 72), 1e-12);
    /* EP 32, R 32: 7 whole + 2 halves on every rank: balanced */
    assert_close(infer_expert_imbalance(256, 32, 32, 0), 1, 1e-12);
    assert_close(infer_expert_imbalance(256, 64, 0, 0), 1, 1e-12);
    assert_close(infer_expert_imbalance(256, 1, 0, 0), 1, 0);
}

/* Two experts, cv 1: sigma^2 = ln 2; Blom's positions 0.625/2.25 and 1.625/2.25 give z = ±0.58946,
 * so the loads (mean 1) are 1 ± tanh(a), a = sqrt(ln 2)·0.58946 = 0.490754: 1.454815 and 0.545185. */
static void test_two_experts(void **state)
{
    (void)state;
    double hot = 1 + tanh(sqrt(log(2)) * 0.5894558), cold = 2 - hot;
    /* one expert per rank, whatever the order: the hot one */
    assert_close(infer_expert_imbalance(2, 2, 0, 1), hot, 1e-6);
    /* R 1: the hot expert gets the replica (hot/2 = 0.727 each); packing, heaviest first: 0.727 to
     * rank 0 (2 slots), 0.727 to rank 1 (1 slot), the cold one to rank 0: hot/2 + cold */
    assert_close(infer_expert_imbalance(2, 2, 1, 1), hot / 2 + cold, 1e-6);
    /* R 2: hot/2 = 0.727 > cold, so the hot one again (hot/3 = 0.485 each); cold to rank 0, two
     * thirds to rank 1 (full), the last third to rank 0: cold + hot/3 */
    assert_close(infer_expert_imbalance(2, 2, 2, 1), cold + hot / 3, 1e-6);
    assert_true(infer_expert_imbalance(2, 2, 2, 1) < infer_expert_imbalance(2, 2, 1, 1));
}

/* DeepSeek-R1's measured spread (TensorRT-LLM's wide-EP blog, Table 1: 164.1/128 across expert
 * slots on 32 GB200): redundant experts remove most of the imbalance at every wide-EP size. */
static void test_skew_falls_with_redundancy(void **state)
{
    (void)state;
    /* the published rank factors themselves (a check, not a fit: S is the expert column's spread,
     * φ the rank column): 2.564 without EPLB at EP 32 (the model: 2.21, a lognormal's tail is
     * lighter than the measured 11.9x hottest expert), 1.109 with 288 slots at EP 32 and 1.115 at
     * EP 36 (the model: about 1.01; the rest is one step's sampling noise, not modelled) */
    assert_close(infer_expert_imbalance(256, 32, 0, 164.1 / 128), 2.564, 0.15);
    assert_close(infer_expert_imbalance(256, 32, 32, 164.1 / 128), 1.109, 0.10);
    assert_close(infer_expert_imbalance(256, 36, 32, 164.1 / 128), 1.115, 0.10);
    const int eps[] = {32, 36, 48, 72};
    for (int i = 0; i < 4; i++) {
        double plain = infer_expert_imbalance(256, eps[i], 0, 164.1 / 128);
        double eplb = infer_expert_imbalance(256, eps[i], 32, 164.1 / 128);
        assert_true(plain > 1.5); /* the published rank imbalance without EPLB at EP 32: 2.564 */
        assert_true(eplb < 1.1);  /* ... with 288 slots: 1.109 (1.115 at EP 36) */
        assert_true(eplb >= 1);
    }
    /* more skew, more imbalance without a balancer (EP 8: 32 experts a rank, cv/sqrt(32) per rank) */
    assert_true(infer_expert_imbalance(256, 8, 0, 1) > infer_expert_imbalance(256, 8, 0, 0.5));
    assert_true(infer_expert_imbalance(256, 8, 0, 0.5) > 1);
}

static gpuecon_infer_request dsv3(void **state, int gpus)
{
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    r.system = gpuecon_catalog_system(CAT(state), "gb200-nvl72");
    assert_non_null(r.model);
    assert_non_null(r.system);
    r.gpus = gpus;
    r.tp = gpus;
    r.attention_dp = true;
    r.weights = GPUECON_FP8;
    r.kv = GPUECON_FP8;
    return r;
}

/* W1 with slots: attention, dense, shared and router weights whole on every rank (FP8), the
 * embedding and LM head in BF16, and ceil((256 + R)/EP) of each MoE layer's 256 experts. */
static void test_memory(void **state)
{
    double routed = 58.0 * 256 * 3 * 7168 * 2048; /* 653.9e9 */
    double per_expert_gib = routed / 256 / GIB;
    const int gpus[] = {48, 72, 64};
    const int slots[] = {6, 4, 4}, redundant[] = {32, 32, 0};
    gpuecon_infer_result o[3];
    for (int i = 0; i < 3; i++) {
        gpuecon_infer_request r = dsv3(state, gpus[i]);
        o[i] = run(&r);
        assert_true(o[i].attention_dp);
        assert_int_equal(o[i].ep, gpus[i]);
        assert_int_equal(o[i].redundant_experts, redundant[i]);
        assert_int_equal(o[i].expert_slots, slots[i]);
        assert_int_equal(o[i].redundant_default, redundant[i] > 0);
        gpuecon_params p;
        gpuecon_model_params(r.model, &p);
        assert_close(p.routed_experts, routed, 1e-12);
        double w = p.attention + p.dense_ffn + p.shared_experts + p.router + routed * slots[i] / 256 +
                   2 * (p.embedding + p.lm_head);
        assert_close(o[i].weights_gib * GIB, w, 1e-9);
    }
    /* two more slots at 48 than at 72 or 64: 2 x 58 x 44.04M x 1 B = 4.758 GiB */
    assert_close(o[0].weights_gib - o[1].weights_gib, 2 * per_expert_gib, 1e-9);
    assert_close(o[1].weights_gib, o[2].weights_gib, 1e-12);
    /* equal popularity: the load factors of test_uniform, and the one without replicas */
    assert_close(o[0].expert_imbalance, 5.5 / (256.0 / 48), 1e-12);
    assert_close(o[0].expert_imbalance_plain, 6 / (256.0 / 48), 1e-12);
    assert_close(o[2].expert_imbalance, 1, 0);
    /* an uneven layout without replicas: the busiest GPU holds 6 slots and 6/(16/3) of the load */
    gpuecon_infer_request r = dsv3(state, 48);
    r.redundant_experts = 0;
    gpuecon_infer_result u = run(&r);
    assert_int_equal(u.expert_slots, 6);
    assert_int_equal(u.redundant_experts, 0);
    assert_close(u.expert_imbalance, 6 / (256.0 / 48), 1e-12);
    assert_close(u.weights_gib, o[0].weights_gib, 1e-12);
    /* a measured factor overrides the derived one */
    r.expert_imbalance = 1.3;
    assert_close(run(&r).expert_imbalance, 1.3, 0);
    /* the slower busiest rank costs throughput: 48 GPUs with replicas beat the same without */
    gpuecon_infer_request a = dsv3(state, 48);
    a.expert_load_cv = 1.0;
    gpuecon_infer_request b = a;
    b.redundant_experts = 0;
    gpuecon_infer_result ra = run(&a), rb = run(&b);
    assert_true(ra.expert_imbalance < rb.expert_imbalance);
    assert_true(ra.saturated_tokens_per_s > rb.saturated_tokens_per_s);
}

static void test_bad_input(void **state)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_infer_request r = dsv3(state, 48);
    r.redundant_experts = 257; /* more than one replica per expert on average */
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.redundant_experts");
    r = dsv3(state, 48);
    r.expert_load_cv = -0.1;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.expert_load_cv");
    /* replicas without expert parallelism: TP-sliced experts */
    r = dsv3(state, 4);
    r.attention_dp = false;
    r.expert_parallel = false;
    r.redundant_experts = 4;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.redundant_experts");
    /* a dense model has no experts to replicate */
    r.model = gpuecon_catalog_model(CAT(state), "llama3-8b");
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.redundant_experts");
    /* Mixtral's 8 experts over 16 attention-DP ranks: by default 8 replicas fill the 16 slots;
     * with none given, 8 GPUs would hold no expert */
    r = dsv3(state, 16);
    r.model = gpuecon_catalog_model(CAT(state), "mixtral-8x7b");
    r.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_OK);
    assert_int_equal(o.redundant_experts, 8);
    assert_int_equal(o.expert_slots, 1);
    r.redundant_experts = 0;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.redundant_experts");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_two_experts),
        cmocka_unit_test(test_skew_falls_with_redundancy),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
