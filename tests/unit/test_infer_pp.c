/*
 * test_infer_pp.c — pipeline parallelism in serving (docs/model.md §6.14, PP1-PP11): the layer
 * split, weights and KV per GPU, the pass and micro-batch cycle of a pipelined step, the
 * point-to-point sends, the GPU layout checks and TP across servers.
 *
 * Expected values are derived by hand in the comments from the model's shapes (Llama 3 70B:
 * 80 layers, H 8192, vocabulary 128,256, untied; Llama 3 8B: 32 layers, H 4096) and from the
 * system's point-to-point cost (gpuecon_collective_ex), never from the program's own output.
 */
#include "infer_util.h"

#include "model/infer.h"

#include <math.h>
#include <string.h>

#define ARITH 1e-9

static gpuecon_infer_request req(void **state, const char *model, const char *system, int gpus, int tp, int pp)
{
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(CAT(state), model);
    r.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(r.model);
    assert_non_null(r.system);
    r.gpus = gpus;
    r.tp = tp;
    r.pp = pp;
    r.weights = GPUECON_FP8;
    r.kv = GPUECON_FP8;
    r.prompt_len = 1000;
    r.output_len = 1000;
    /* pipelined replicas take T1 alone (docs/model.md §6.4); PP 1 references are set the same */
    r.prefill_steps = GPUECON_PREFILL_EVEN;
    return r;
}

/* No host overheads: the pass is then exactly the stages and the sends. */
static void quiet(gpuecon_infer_request *r)
{
    r->profile.step_overhead_s = 0;
    r->profile.seq_overhead_s = 0;
}

static double send_s(const gpuecon_system *s, int stride, double bytes)
{
    gpuecon_coll_result c;
    gpuecon_error err;
    if (gpuecon_collective_ex(s, NULL, GPUECON_SEND_RECV, 2, stride, bytes, GPUECON_ALGO_AUTO, &c, &err))
        fail_msg("send: %s", err.message);
    return c.time_s;
}

/* PP11: 80 layers over 2 stages, 40 each; each stage holds half the body and one of the two
 * vocabulary matrices (embedding on the first, the untied LM head on the last), so each GPU
 * holds exactly half of PP 1's weights; the KV bytes per token (40 of 80 layers) halve too. */
static void test_weights_and_kv_halve(void **state)
{
    gpuecon_infer_request r1 = req(state, "llama3-70b", "hgx-h200", 1, 1, 1);
    gpuecon_infer_request r2 = req(state, "llama3-70b", "hgx-h200", 2, 1, 2);
    gpuecon_infer_result o1 = run(&r1), o2 = run(&r2);
    assert_int_equal(o2.pp, 2);
    assert_int_equal(o2.replicas, 1);
    assert_int_equal(o2.stage_layers_min, 40);
    assert_int_equal(o2.stage_layers_max, 40);
    assert_close(o2.weights_gib, o1.weights_gib / 2, ARITH);
    /* K3: 2 (K, V) x 8 KV heads x 128 x 1 byte x 40 layers = 81,920 B (PP 1: 163,840 B) */
    assert_close(o1.kv_bytes_per_token, 163840, ARITH);
    assert_close(o2.kv_bytes_per_token, 81920, ARITH);
    /* the parameter counts stay the whole model's */
    assert_close(o2.body_params, o1.body_params, ARITH);
}

/* PP11 uneven: 32 layers over 3 stages: base 10, remainder 2 on the middle and the last stage
 * (mem_stage_chunk) = 10, 11, 11. */
static void test_uneven_split(void **state)
{
    gpuecon_infer_request r = req(state, "llama3-8b", "hgx-h100", 3, 1, 3);
    gpuecon_infer_result o = run(&r);
    assert_int_equal(o.stage_layers_min, 10);
    assert_int_equal(o.stage_layers_max, 11);
}

/* PP4, one sequence: one micro-batch, so a token is one pass: the sum of the stages plus one
 * send. At one sequence every stage is bandwidth-bound and its terms are its layers' share, so
 * the stages add up to PP 1's step: T(PP 2) = T(PP 1) + send over NVLink (both stages in one
 * server) of 2 tokens — the decode position and the steady-state prefill share B·ρ = 1 (T1,
 * ρ = 1000/1000) — x H x 2 tensors x 2 B. */
static void test_latency_is_sum_of_stages(void **state)
{
    gpuecon_infer_request r1 = req(state, "llama3-8b", "hgx-h100", 1, 1, 1);
    gpuecon_infer_request r2 = req(state, "llama3-8b", "hgx-h100", 2, 1, 2);
    quiet(&r1);
    quiet(&r2);
    gpuecon_infer_point p1 = at(&r1, 1), p2 = at(&r2, 1);
    double send = send_s(r2.system, 1, 2 * 4096 * 2 * 2);
    assert_true(p2.step.micro_batches == 1);
    assert_close(p2.step.p2p_s, send, ARITH);
    assert_close(p2.step.step_s, p1.step.step_s + send, 1e-6);
    assert_true(p2.step.pp_wait_s == 0);
    /* TPOT = the whole pass; throughput of one sequence = 1 / TPOT */
    assert_close(p2.tpot_ms, p2.step.step_s * 1e3, ARITH);
}

/* PP4-PP5, enough micro-batches: with B = PP sequences there are PP micro-batches of one each,
 * every stage busy; a micro-batch comes round every PP x (busiest stage + its send), so the
 * replica makes PP tokens per PP x (busiest + send). Llama 3 8B in BF16 on 2 stages at one
 * sequence per micro-batch is weight-bound: stage 0 streams 16 layers, stage 1 16 layers plus
 * the 16-bit LM head (V x H = 525M values); the busiest is the last. Hand: the rate over PP 1's
 * one-sequence rate is T1 / (T_last + send) = (P_body + 2 V H) / (P_body/2 + 2 V H) in bytes
 * (BF16: 2 B per body weight) — within 3% for the KV reads and the GEMM terms left out. */
static void test_throughput_with_micro_batches(void **state)
{
    gpuecon_infer_request r1 = req(state, "llama3-8b", "hgx-h100", 1, 1, 1);
    gpuecon_infer_request r2 = req(state, "llama3-8b", "hgx-h100", 2, 1, 2);
    r1.weights = r2.weights = GPUECON_BF16;
    r1.prompt_len = r2.prompt_len = 64;
    r1.output_len = r2.output_len = 64;
    quiet(&r1);
    quiet(&r2);
    gpuecon_infer_point p1 = at(&r1, 1), p2 = at(&r2, 2);
    assert_true(p2.step.micro_batches == 2);
    double send = send_s(r2.system, 1, 1 * 4096 * 2 * 2);
    assert_close(p2.step.step_s, 2 * p2.step.stage_max_s, ARITH);
    assert_true(p2.step.stage_max_s > send);
    gpuecon_params prm;
    gpuecon_model_params(r1.model, &prm);
    double body = prm.attention + prm.dense_ffn, vh = 128256.0 * 4096;
    double hand = (body * 2 + vh * 2) / (body + vh * 2);
    double ratio = p2.output_tokens_per_s / p1.output_tokens_per_s;
    assert_close(ratio, hand, 0.03);
    /* and the bubble: one sequence on 2 stages makes no more than PP 1 does */
    gpuecon_infer_point q = at(&r2, 1);
    assert_true(q.output_tokens_per_s <= p1.output_tokens_per_s);
}

/* PP7: TensorRT-LLM's PP loop (profile pp_host_serial) runs each micro-batch's host work after
 * the stage's GPU work, and its per-sequence bookkeeping over every running sequence. Llama 3 8B
 * BF16 on 2 stages, the profile's t0 = 1.5 ms and t_seq = 4 us. Hand: at B = 2 (two micro-batches
 * of one) the host per micro-batch is 1.5 + 0.004 x 2 = 1.508 ms in series, against 1.504 ms
 * beside the stage; at B = 512 (two of 256) 1.5 + 0.004 x 512 = 3.548 ms against 1.5 + 0.004 x
 * 256 = 2.524 ms. The cycle is 2 x (stage + 1.508 ms), which is never below the pass, against
 * max(pass, 2 x max(stage, 1.504 ms)); the GPU work of a stage is the same either way. */
static void test_host_serial(void **state)
{
    gpuecon_infer_request off = req(state, "llama3-8b", "hgx-h100", 2, 1, 2);
    off.weights = GPUECON_BF16;
    off.prompt_len = off.output_len = 64;
    gpuecon_infer_request on = off;
    on.profile.pp_host_serial = true;
    assert_false(off.profile.pp_host_serial);
    gpuecon_infer_point a = at(&off, 2), b = at(&on, 2);
    assert_true(a.step.micro_batches == 2 && b.step.micro_batches == 2);
    assert_close(a.step.overhead_s, 1.504e-3, ARITH);
    assert_close(b.step.overhead_s, 1.508e-3, ARITH);
    assert_close(b.step.stage_max_s, a.step.stage_max_s, ARITH);
    double pass = 1.504e-3 + a.step.model_s + a.step.lora_s + a.step.comm_s + a.step.draft_s + a.step.p2p_s;
    assert_close(a.step.step_s, fmax(pass, 2 * fmax(a.step.stage_max_s, 1.504e-3)), ARITH);
    assert_close(b.step.step_s, 2 * (b.step.stage_max_s + 1.508e-3), ARITH);
    a = at(&off, 512);
    b = at(&on, 512);
    assert_close(a.step.overhead_s, 2.524e-3, ARITH);
    assert_close(b.step.overhead_s, 3.548e-3, ARITH);
    assert_close(b.step.step_s, 2 * (b.step.stage_max_s + 3.548e-3), ARITH);
    /* the trtllm profile carries it; the generic one (vLLM's batch queue) does not */
    assert_true(gpuecon_serving_profile_find("trtllm")->pp_host_serial);
    assert_false(gpuecon_serving_profile_find("generic")->pp_host_serial);
}

/* PP2: a pipeline of 2 stages of TP 8 on 8-GPU servers crosses the network at its one
 * boundary; TP 4 x PP 2 fits one server and stays on NVLink (2 tokens per step as above). */
static void test_boundary_on_network(void **state)
{
    gpuecon_infer_request r = req(state, "llama3-70b", "hgx-h100", 16, 8, 2);
    quiet(&r);
    gpuecon_infer_point p = at(&r, 1);
    assert_close(p.step.p2p_s, send_s(r.system, 8, 2 * 8192.0 * 2 * 2), ARITH);
    gpuecon_infer_request r2 = req(state, "llama3-70b", "hgx-h100", 8, 4, 2);
    quiet(&r2);
    p = at(&r2, 1);
    assert_close(p.step.p2p_s, send_s(r2.system, 1, 2 * 8192.0 * 2 * 2), ARITH);
}

/* Monotone: the step never falls as the load grows (the cycle grows with m, then with b), with
 * the host beside the stages (generic) or after them (trtllm, PP7), and with the prefill spread
 * (T1) or whole prompts in one micro-batch of some steps (T2, PP8). */
static void test_monotone(void **state)
{
    for (int k = 0; k < 4; k++) {
        gpuecon_infer_request r = req(state, "llama3-70b", "hgx-h200", 8, 2, 4);
        if (k % 2)
            r.profile = *gpuecon_serving_profile_find("trtllm");
        if (k >= 2) /* T2: prompts whole in some steps, each in one micro-batch (PP8) */
            r.prefill_steps = GPUECON_PREFILL_WHOLE;
        double last = 0;
        for (double c = 1; c <= 4096; c *= 1.5) {
            gpuecon_infer_point p = at(&r, c);
            assert_true(p.step.step_s >= last * (1 - 1e-12));
            last = p.step.step_s;
        }
    }
}

/* PP8 with T2 (docs/model.md §6.4, §6.14): a 2,000-token prompt rides in one micro-batch, and the
 * other micro-batches wait behind it at every stage, so a step that carries a prompt costs its
 * whole pass. Llama 3 70B FP8 on 8 H200 as TP2 x PP4, 2000/500 tokens, closed loops of 16 and 64
 * users (lognormal outputs, CV 0.3): the mean field agrees with the simulator within 8%; T1 (the
 * prefill spread over every step and micro-batch) is far below it at 64. */
static void test_whole_prompts_pipelined(void **state)
{
    gpuecon_infer_request r = req(state, "llama3-70b", "hgx-h200", 8, 2, 4);
    r.prefill_steps = GPUECON_PREFILL_WHOLE;
    r.prompt_len = 2000;
    r.output_len = 500;
    r.output_cv = 0.3;
    const int users[] = {16, 64};
    for (int i = 0; i < 2; i++) {
        gpuecon_sim_request q;
        gpuecon_sim_request_init(&q);
        q.serve = r;
        q.lengths = GPUECON_LENGTHS_LOGNORMAL;
        q.arrival = GPUECON_ARRIVAL_CLOSED;
        q.users = users[i];
        q.requests = 3000;
        gpuecon_sim_result o;
        gpuecon_error err;
        assert_int_equal(gpuecon_infer_simulate(((fixture *)*state)->ctx, &q, &o, &err), GPUECON_OK);
        gpuecon_infer_point p = at(&r, users[i]);
        assert_close(p.tpot_ms, o.tpot_ms.mean, 0.08);
        gpuecon_infer_request even = r;
        even.prefill_steps = GPUECON_PREFILL_EVEN;
        if (i == 1)
            assert_true(at(&even, users[i]).tpot_ms < 0.6 * o.tpot_ms.mean);
    }
}

static void test_bad_input(void **state)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_infer_request r = req(state, "llama3-8b", "hgx-h100", 6, 1, 4); /* 4 does not divide 6 */
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.pp");
    r = req(state, "llama3-8b", "hgx-h100", 8, 4, 4); /* TP 4 x PP 4 = 16 > 8 */
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.pp");
    assert_non_null(strstr(err.message, "TP 4 x PP 4"));
    r = req(state, "llama3-8b", "hgx-h100", 16, 1, GPUECON_INFER_MAX_PP + 1);
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.pp");
    r = req(state, "mixtral-8x7b", "hgx-h100", 8, 2, 2);
    r.attention_dp = true;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.pp");
}

/* TP across servers: refused without the flag, priced by the collective model with it (the
 * hierarchical all-reduce across two 8-GPU domains costs more than inside one). */
static void test_tp_across_nodes(void **state)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_infer_request r = req(state, "llama3-70b", "hgx-h100", 16, 16, 1);
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.tp");
    assert_non_null(strstr(err.message, "options.tp_across_nodes"));
    r.tp_across_nodes = true;
    gpuecon_infer_point p16 = at(&r, 16);
    gpuecon_infer_request r8 = req(state, "llama3-70b", "hgx-h100", 8, 8, 1);
    gpuecon_infer_point p8 = at(&r8, 8);
    assert_true(p16.step.comm_s > p8.step.comm_s);
}

/* trtllm-bench's limits per micro-batch (tensorrt_llm/bench/build/tuning.py @ a7e572fb): Llama 3.3
 * 70B NVFP4 on 8 RTX PRO 6000 (95.59 GiB each), TP1 x PP8. 1000/1000: the checkpoint is about
 * 68.5e9 body weights at 9/16 element each plus 2.1e9 BF16 vocabulary elements, 40.6e9 elements at 0.5 B = 18.9 GiB, so
 * (8 x 95.59 - 18.9) x 0.95 / (163,840 B x 2000) = 2,322 requests; / 8 = 290 per micro-batch ->
 * 128·⌈290/128⌉ = 384; tokens 2 x 290 = 580 -> at least 2,048. 128/128: capped at 4,096 / 8 =
 * 512 -> 512; tokens 1,024 -> 2,048. */
static void test_trtllm_bench_limits_pp(void **state)
{
    const gpuecon_model *m = gpuecon_catalog_model(CAT(state), "llama3-70b");
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), "rtx-pro-server");
    assert_true(m && s);
    int bs, tok;
    infer_trtllm_bench_limits_pp(m, s, 1, 8, GPUECON_FP4, GPUECON_FP8, 1000, 1000, 0.95, &bs, &tok);
    assert_int_equal(bs, 384);
    assert_int_equal(tok, 2048);
    infer_trtllm_bench_limits_pp(m, s, 1, 8, GPUECON_FP4, GPUECON_FP8, 128, 128, 0.95, &bs, &tok);
    assert_int_equal(bs, 512);
    assert_int_equal(tok, 2048);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights_and_kv_halve),
        cmocka_unit_test(test_uneven_split),
        cmocka_unit_test(test_latency_is_sum_of_stages),
        cmocka_unit_test(test_throughput_with_micro_batches),
        cmocka_unit_test(test_host_serial),
        cmocka_unit_test(test_boundary_on_network),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_whole_prompts_pipelined),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_tp_across_nodes),
        cmocka_unit_test(test_trtllm_bench_limits_pp),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
