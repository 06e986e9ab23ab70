/*
 * test_infer_disagg.c — disaggregated prefill/decode (src/model/infer_disagg.c, docs/model.md
 * §6.13), checked against relations that hold whatever the step model says:
 *  - the KV each prefill GPU sends is the prompt's KV at its TP (K3: L_in · b per token for a
 *    model whose layers all attend globally), and its time is the collective model's send-recv
 *    over NVLink inside one scale-up domain, over the network otherwise (gpuecon_collective);
 *  - the mean TTFT grows from its zero-load value by DistServe's M/D/1 wait, u·S/(2(1 − u)),
 *    with u = R / capacity and S = instances / capacity (Pollaczek–Khinchine);
 *  - Little's law on the decode side: the sequences decoding, y·B, equal R · L_out · TPOT;
 *  - the rate served never exceeds the least capacity, and a layout needing more GPUs than
 *    given, or a rate above the capacity, is refused.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

static gpuecon_disagg_request layout(void **state, int gpus, int x, int p, int y, int d)
{
    gpuecon_disagg_request q;
    memset(&q, 0, sizeof q);
    gpuecon_infer_request_init(&q.base);
    q.base.model = gpuecon_catalog_model(CAT(state), "llama3-70b");
    q.base.system = gpuecon_catalog_system(CAT(state), "hgx-h200");
    assert_non_null(q.base.model);
    q.base.gpus = gpus;
    q.base.weights = GPUECON_FP8;
    q.base.kv = GPUECON_FP8;
    q.base.prompt_len = 2000;
    q.base.output_len = 500;
    q.prefill_instances = x, q.prefill_tp = p, q.decode_instances = y, q.decode_tp = d;
    return q;
}

static gpuecon_disagg_result run(const gpuecon_disagg_request *q)
{
    gpuecon_disagg_result o;
    gpuecon_error err;
    if (gpuecon_infer_disagg(q, &o, &err))
        fail_msg("gpuecon_infer_disagg: %s", err.message);
    return o;
}

static void test_kv_transfer(void **state)
{
    gpuecon_disagg_request q = layout(state, 8, 1, 4, 1, 4);
    gpuecon_disagg_result o = run(&q);
    /* Llama 3 70B: 80 layers x 8 KV heads x 128 x (K + V), FP8, 8 heads over TP 4 */
    double b = 80 * (8.0 / 4) * 128 * 2 * 1;
    assert_close(o.prefill.kv_bytes_per_token, b, 1e-12);
    assert_close(o.kv_bytes_per_gpu, 2000 * b, 1e-12);
    assert_false(o.kv_over_scaleout); /* 8 GPUs: one HGX node */
    gpuecon_coll_result c;
    gpuecon_error err;
    assert_int_equal(gpuecon_collective(q.base.system, GPUECON_SEND_RECV, 2, 1, 2000 * b, GPUECON_ALGO_AUTO, &c, &err),
                     GPUECON_OK);
    assert_close(o.kv_transfer_ms, c.time_s * 1e3, 1e-12);
    /* 2 x TP4 + 2 x TP4 = 16 GPUs: two nodes, the transfer crosses the network */
    gpuecon_disagg_request w = layout(state, 16, 2, 4, 2, 4);
    gpuecon_disagg_result ow = run(&w);
    assert_true(ow.kv_over_scaleout);
    assert_int_equal(gpuecon_collective(w.base.system, GPUECON_SEND_RECV, 2, 8, 2000 * b, GPUECON_ALGO_AUTO, &c, &err),
                     GPUECON_OK);
    assert_close(ow.kv_transfer_ms, c.time_s * 1e3, 1e-12);
    assert_true(ow.kv_transfer_ms > o.kv_transfer_ms);
    /* twice the instances, twice each capacity */
    assert_close(ow.prefill_capacity, 2 * o.prefill_capacity, 1e-12);
    assert_close(ow.decode_capacity, 2 * o.decode_capacity, 1e-12);
}

static void test_queueing_and_little(void **state)
{
    gpuecon_disagg_request q = layout(state, 8, 1, 4, 1, 4);
    gpuecon_disagg_result cap = run(&q);
    q.rate = cap.capacity * 1e-9;
    gpuecon_disagg_result zero = run(&q);
    double S = 1 / cap.prefill_capacity; /* one instance: seconds of prefill per request */
    for (double f = 0.2; f < 0.95; f += 0.35) {
        q.rate = f * cap.capacity;
        gpuecon_disagg_result o = run(&q);
        double u = q.rate / cap.prefill_capacity;
        assert_close(o.prefill_utilisation, u, 1e-12);
        assert_close(o.ttft_ms - zero.ttft_ms, u * S / (2 * (1 - u)) * 1e3, 1e-6);
        /* Little: sequences in decode = rate x time in decode (L_out tokens at TPOT each) */
        assert_close(o.decode_batch * q.decode_instances, q.rate * 500 * o.tpot_ms / 1e3, 1e-6);
        assert_close(o.output_tokens_per_s, q.rate * 500, 1e-12);
        assert_close(o.output_tokens_per_s_per_gpu, q.rate * 500 / 8, 1e-12);
        assert_true(o.tpot_ms >= zero.tpot_ms && o.ttft_ms > zero.ttft_ms);
    }
    assert_true(cap.capacity <= cap.prefill_capacity && cap.capacity <= cap.decode_capacity &&
                cap.capacity <= cap.transfer_capacity);
    assert_close(cap.rate, 0.9 * cap.capacity, 1e-12); /* no rate: 90% of the capacity */
}

/* Attention-DP instances (docs/model.md §6.13): DeepSeek-V3 on a GB200 NVL72, 1 prefill instance of
 * 24 ranks and 1 decode instance of 48 (48 does not divide the 128 heads; 256 + 32 redundant experts
 * = 288 = 48 x 6 slots). Every instance counts its ranks: the prefill wait is that of 24 servers, a
 * rank sends a request's whole latent KV, Little's law holds per decode rank. */
static void test_attention_dp(void **state)
{
    gpuecon_disagg_request q = layout(state, 72, 1, 24, 1, 48);
    q.base.model = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    q.base.system = gpuecon_catalog_system(CAT(state), "gb200-nvl72");
    q.base.attention_dp = true;
    gpuecon_disagg_result cap = run(&q);
    assert_true(cap.prefill.attention_dp && cap.decode.attention_dp);
    assert_int_equal(cap.prefill.replicas, 24);
    assert_int_equal(cap.decode.replicas, 48);
    assert_int_equal(cap.decode.redundant_experts, 32);
    assert_int_equal(cap.decode.expert_slots, 6);
    assert_int_equal(cap.prefill.redundant_experts, 8); /* 256 = 24 x 10 + 16: 264 = 24 x 11 */
    assert_int_equal(cap.prefill.expert_slots, 11);
    /* MLA: one latent of 512 + 64 values per layer and token, 61 layers, FP8, the whole of it on a
     * rank (no TP split); 2000 prompt tokens */
    assert_close(cap.kv_bytes_per_gpu, 2000.0 * (512 + 64) * 61, 1e-12);
    assert_close(cap.transfer_capacity, 24 / (cap.kv_transfer_ms / 1e3), 1e-9);
    q.rate = cap.capacity * 1e-9;
    gpuecon_disagg_result zero = run(&q);
    double S = 24 / cap.prefill_capacity; /* 24 servers: seconds of prefill per request on one */
    q.rate = 0.5 * cap.capacity;
    gpuecon_disagg_result o = run(&q);
    double u = q.rate / cap.prefill_capacity;
    assert_close(o.ttft_ms - zero.ttft_ms, u * S / (2 * (1 - u)) * 1e3, 1e-6);
    assert_close(o.decode_batch * 48, q.rate * 500 * o.tpot_ms / 1e3, 1e-6);
    assert_close(o.output_tokens_per_s_per_gpu, q.rate * 500 / 72, 1e-12);
    /* without attention-DP the 48-GPU instance must split the heads: refused, naming --decode */
    q.base.attention_dp = false;
    q.prefill_tp = 8;
    gpuecon_disagg_result bad;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_disagg(&q, &bad, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.decode");
}

static void test_search(void **state)
{
    gpuecon_disagg_request q = layout(state, 16, 1, 1, 1, 1), best;
    gpuecon_disagg_result o;
    long n = 0;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_disagg_search(&q.base, 1000, 40, &best, &o, &n, &err), GPUECON_OK);
    assert_true(n > 50);
    assert_true(o.ttft_ms <= 1000 * (1 + 1e-9) && o.tpot_ms <= 40 * (1 + 1e-9));
    assert_true(o.gpus_used <= 16);
    /* the chosen layout, run again at the rate found, gives the same answer */
    gpuecon_disagg_result again = run(&best);
    assert_close(again.output_tokens_per_s_per_gpu, o.output_tokens_per_s_per_gpu, 1e-12);
    /* and no single layout evaluated by hand beats it under the targets: 1P TP4 + 1D TP4 at the
       largest rate meeting them */
    gpuecon_disagg_request h = layout(state, 16, 1, 4, 1, 4);
    gpuecon_disagg_result hc = run(&h);
    double lo = 0, hi = hc.capacity * (1 - 1e-6);
    for (int i = 0; i < 50; i++) {
        h.rate = 0.5 * (lo + hi);
        gpuecon_disagg_result t = run(&h);
        if (t.ttft_ms <= 1000 && t.tpot_ms <= 40)
            lo = h.rate;
        else
            hi = h.rate;
    }
    assert_true(lo * 500 / 8 <= o.output_tokens_per_s_per_gpu * (1 + 1e-9));
    /* unreachable targets: infeasible, with the highest-capacity layout */
    assert_int_equal(gpuecon_infer_disagg_search(&q.base, 1, 1, &best, &o, &n, &err), GPUECON_E_INFEASIBLE);
    assert_true(o.capacity > 0);
}

static void test_bad_input(void **state)
{
    gpuecon_disagg_result o;
    gpuecon_error err;
    gpuecon_disagg_request q = layout(state, 8, 2, 4, 1, 4); /* 12 GPUs of 8 */
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.prefill");
    assert_non_null(strstr(err.message, "12 GPUs"));
    q = layout(state, 8, 1, 4, 0, 4);
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.decode");
    q = layout(state, 8, 1, 3, 1, 4); /* TP 3 does not split 64 heads */
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.prefill");
    q = layout(state, 8, 1, 4, 1, 4);
    q.rate = -1;
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.rate");
    q.rate = 1e6; /* far above the capacity */
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INFEASIBLE);
    q = layout(state, 8, 1, 1, 1, 1);
    q.base.weights = GPUECON_BF16; /* 141 GB of weights on one H200 */
    assert_int_equal(gpuecon_infer_disagg(&q, &o, &err), GPUECON_E_INFEASIBLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_transfer),
        cmocka_unit_test(test_queueing_and_little),
        cmocka_unit_test(test_attention_dp),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
