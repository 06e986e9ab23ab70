/*
 * test_infer_moe.c — MoE serving with attention data-parallelism and expert load imbalance
 * (src/model/infer.c, infer_step.c; docs/model.md §6.5).
 *
 * Each number is derived here from the model's shape: weights per GPU (attention, dense and
 * shared weights whole on every GPU, routed experts 1/EP), the MLA latent KV per token
 * ((512 + 64)·61 B in FP8), the sequences a rank holds (KV / R_seq), the expert weights the
 * rank's 1/EP of the experts read when the tokens of all EP ranks are routed (M1 at EP·T
 * tokens), the extra expert GEMMs of the busiest rank, and the dispatch and combine of every MoE
 * layer, which must be what the public dispatch model (gpuecon_moe_dispatch, docs/model.md §4.9)
 * gives for the same request; without attention-DP, the two all-reduces per layer of NCCL's
 * ring (EP inside the TP group adds no all-to-all).
 */
#include "infer_util.h"

#include "model/infer.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

static gpuecon_infer_request dsv3(void **state, int gpus, int tp, bool dp)
{
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    r.system = gpuecon_catalog_system(CAT(state), "hgx-h200");
    assert_non_null(r.model);
    assert_non_null(r.system);
    r.gpus = gpus;
    r.tp = tp;
    r.attention_dp = dp;
    r.weights = GPUECON_FP8;
    r.kv = GPUECON_FP8;
    /* the step formulas are checked on one step of T tokens (T1), not on T2's mix of two */
    r.prefill_steps = GPUECON_PREFILL_EVEN;
    return r;
}

/* One dispatch (fp8 with a scale per 128 values) or combine (bf16) through the public model. */
static double dispatch_s(void **state, const gpuecon_infer_request *r, int ep, double tokens, double bytes,
                         double load)
{
    gpuecon_dispatch_request q = {.dispatcher = GPUECON_DISPATCH_DEEPEP, .ep = ep, .stride = 1, .tokens = tokens,
                                  .top_k = 8, .experts = 256, .groups = 8, .groups_per_token = 4, .hidden = 7168,
                                  .bytes_per_elem = bytes, .load_factor = load};
    gpuecon_dispatch_result d;
    gpuecon_error err;
    if (gpuecon_moe_dispatch(r->system, NULL, &q, &d, &err))
        fail_msg("gpuecon_moe_dispatch: %s", err.message);
    (void)state;
    return d.time_s;
}

static void test_attention_dp_memory(void **state)
{
    gpuecon_infer_request r = dsv3(state, 8, 8, true);
    gpuecon_infer_result o = run(&r);
    assert_true(o.attention_dp && o.expert_parallel);
    assert_int_equal(o.tp, 1);
    assert_int_equal(o.replicas, 8); /* one scheduler per GPU */
    assert_int_equal(o.ep, 8);
    gpuecon_params p;
    gpuecon_model_params(r.model, &p);
    double w = (p.attention + p.dense_ffn + p.shared_experts + p.router) + p.routed_experts / 8 +
               2 * (p.embedding + p.lm_head);
    assert_close(o.weights_gib * GIB, w, 1e-9);
    /* MLA: one latent of kv_lora_rank + rope dims per layer and token, FP8 */
    assert_close(o.kv_bytes_per_token, (512.0 + 64) * 61, 1e-12);
    /* a rank holds KV / R_seq(n̄) sequences, n̄ = 230 + 203/2, R_seq = b·(n̄ + 16/2) */
    double seqs = o.kv_avail_gib * GIB / (o.kv_bytes_per_token * (230 + 203.0 / 2 + 8));
    assert_close(o.seqs_at_mean, seqs, 1e-9);
    assert_close(o.max_concurrency, 8 * floor(fmin(seqs, o.max_num_seqs)), 1e-12);
    /* TP 8 replicates the latent on every rank: the same bytes per token per GPU hold 1/8 of
     * the sequences the 8 DP ranks hold, against more KV memory per GPU */
    gpuecon_infer_request tr = dsv3(state, 8, 8, false);
    gpuecon_infer_result t = run(&tr);
    assert_false(t.attention_dp);
    assert_close(t.kv_bytes_per_token, o.kv_bytes_per_token, 1e-12);
    assert_true(t.kv_avail_gib > o.kv_avail_gib);
    assert_close(o.max_concurrency / t.max_concurrency,
                 8 * floor(fmin(seqs, o.max_num_seqs)) / floor(fmin(t.seqs_at_mean, t.max_num_seqs)), 1e-12);
    assert_true(o.max_concurrency > 4 * t.max_concurrency);
}

static void test_attention_dp_step(void **state)
{
    gpuecon_infer_request r = dsv3(state, 8, 8, true);
    gpuecon_params p;
    gpuecon_model_params(r.model, &p);
    double expert = 3.0 * 7168 * 2048, nonexp = p.attention + p.dense_ffn + p.shared_experts + p.router;
    for (double c = 8; c <= 2048; c *= 4) {
        gpuecon_infer_point pt = at(&r, c);
        double T = pt.step.decode_tokens + pt.step.prefill_tokens; /* this rank's tokens */
        /* M1 at the 8 ranks' 8T tokens, 1/8 of the experts on this rank */
        double touched = 256 * (1 - pow(1 - 8.0 / 256, 8 * T));
        assert_close(pt.step.weight_bytes, nonexp + 58 * touched * expert / 8 + 2.0 * 129280 * 7168, 1e-9);
        /* two dispatches per MoE layer: fp8 + one fp32 scale per 128 values out, bf16 back */
        double comm = 58 * (dispatch_s(state, &r, 8, T, 1 + 4.0 / 128, 1) + dispatch_s(state, &r, 8, T, 2, 1));
        assert_close(pt.step.comm_s, comm, 1e-9);
    }
    /* 16 GPUs over two HGX nodes: EP 16 across the network, no longer limited to NVLink */
    gpuecon_infer_request w = dsv3(state, 16, 16, true);
    gpuecon_infer_point pw = at(&w, 16 * 64);
    double T = pw.step.decode_tokens + pw.step.prefill_tokens;
    assert_close(pw.step.comm_s,
                 58 * (dispatch_s(state, &w, 16, T, 1 + 4.0 / 128, 1) + dispatch_s(state, &w, 16, T, 2, 1)), 1e-9);
    gpuecon_infer_point p8 = at(&r, 8 * 64);
    assert_true(pw.step.comm_s > p8.step.comm_s); /* the network is slower than NVLink */
}

/* NCCL's ring all-reduce on NVLink (src/graph/tuning.cc: base and per-hop latency of Ring in µs,
 * LL / LL128 / Simple bandwidth factors), the fastest protocol at this size, on 8 GPUs of 450 GB/s
 * at the generic profile's link efficiency 0.80 (messages over 1 MiB: no one-shot kernel). */
static double ring_allreduce_8(double bytes)
{
    const double base[] = {3.6, 10.0, 8.4}, hop[] = {0.47, 1.9, 3.4}, f[] = {0.25, 0.92, 1.0};
    double best = INFINITY;
    for (int i = 0; i < 3; i++)
        best = fmin(best, (base[i] + 14 * hop[i]) * 1e-6 + bytes * 14 / 8 / (f[i] * 0.80 * 450e9));
    return best;
}

static void test_tp_ep_comm(void **state)
{
    /* TP 8 attention with the experts EP 8 inside the TP group: after attention's all-reduce
     * every rank holds all T tokens, runs its 32 experts on those routed to them, and one
     * all-reduce sums the partial outputs (vLLM FusedMoE, TensorRT-LLM Qwen3MoE): two
     * all-reduces of T·7168 bf16 values per layer, 61 layers, dense and MoE alike; no
     * all-to-all. Experts sliced by TP instead communicate the same. */
    for (double c = 64; c <= 1024; c *= 4) {
        gpuecon_infer_request r = dsv3(state, 8, 8, false);
        gpuecon_infer_point ep = at(&r, c);
        assert_true(run(&r).expert_parallel);
        double T = ep.step.decode_tokens + ep.step.prefill_tokens;
        assert_true(T * 7168 * 2 > 1048576);
        assert_close(ep.step.comm_s, 2 * 61 * ring_allreduce_8(T * 7168 * 2), 1e-9);
        r.expert_parallel = false;
        assert_close(at(&r, c).step.comm_s, ep.step.comm_s, 1e-12);
    }
}

/* trtllm-bench's default limits (tensorrt_llm/bench/build/tuning.py), derived by hand from the
 * published parameter counts (Qwen3-235B-A22B 235.1 B, 94 layers, 4 KV heads of 128; Llama 4
 * Maverick 400.7 B, 48 layers, 8 KV heads of 128), nvml's GiB (H100 79.65, H200 140.4, B200
 * 179.06) and a KV fraction of 0.95: requests = (8·mem − engine GiB)·0.95 / (2·L·max(8, kv)·128 B
 * per token · (ISL + OSL)). */
static void test_trtllm_bench_limits(void **state)
{
    const gpuecon_model *q = gpuecon_catalog_model(CAT(state), "qwen3-235b-a22b");
    const gpuecon_model *l4 = gpuecon_catalog_model(CAT(state), "llama4-maverick");
    const gpuecon_system *h100 = gpuecon_catalog_system(CAT(state), "hgx-h100");
    const gpuecon_system *h200 = gpuecon_catalog_system(CAT(state), "hgx-h200");
    const gpuecon_system *b200 = gpuecon_catalog_system(CAT(state), "hgx-b200");
    assert_true(q && l4 && h100 && h200 && b200);
    int bs, tok;
    /* Qwen3 FP8 on 8 H200, 1000/1000: (1123.2 − 219.0)·0.95 / (192,512 B·2000) = 2,396 requests;
     * bs 256·⌈2396/256⌉ = 2,560, tokens 2·2396 = 4,792 -> 512·⌈4792/512⌉ = 5,120 */
    infer_trtllm_bench_limits(q, h200, 8, GPUECON_FP8, GPUECON_FP8, 1000, 1000, 0.95, &bs, &tok);
    assert_int_equal(bs, 2560);
    assert_int_equal(tok, 5120);
    /* Qwen3 NVFP4 on 8 B200, 2048/2048: the body at 1/2 + 1/16 uint8/FP8 elements per weight,
     * 0.5 B each: 1,773 requests -> bs 1,792; tokens 3,546 -> 3,584, raised to ISL + bs = 3,840
     * (no chunked prefill) */
    infer_trtllm_bench_limits(q, b200, 8, GPUECON_FP4, GPUECON_FP8, 2048, 2048, 0.95, &bs, &tok);
    assert_int_equal(bs, 1792);
    assert_int_equal(tok, 3840);
    /* Maverick FP8 on 8 H100, 2048/2048: 669 requests -> 128·⌈669/128⌉ = 768; tokens 1,338 ->
     * at least 2,048, raised to 2048 + 768 = 2,816 */
    infer_trtllm_bench_limits(l4, h100, 8, GPUECON_FP8, GPUECON_FP8, 2048, 2048, 0.95, &bs, &tok);
    assert_int_equal(bs, 768);
    assert_int_equal(tok, 2816);
    /* 128/128: 10,702 requests, capped at 4,096; tokens 8,192 */
    infer_trtllm_bench_limits(l4, h100, 8, GPUECON_FP8, GPUECON_FP8, 128, 128, 0.95, &bs, &tok);
    assert_int_equal(bs, 4096);
    assert_int_equal(tok, 8192);
}

/* R6 split with the routed experts as operators of their own: on 8 H200 (4.8 TB/s at η_bw 0.80,
 * the FP8 peak at η_c 0.40, generic profile), DeepSeek-V3 at TP 8 / EP 8 reads
 * 58·E_touched(T)·3·7168·2048 expert bytes / 8 and runs 2·58·8·3·7168·2048·T / 8 expert FLOPs;
 * t_model = max(T_w − T_w,e, T_cg − T_cg,e) + max(T_w,e, T_cg,e) + max(T_kv, T_ca). */
static void test_expert_roofline(void **state)
{
    gpuecon_infer_request r = dsv3(state, 8, 8, false);
    double expert = 3.0 * 7168 * 2048, bw = r.system->gpu->hbm_tbps * 1e12 * 0.80;
    double f8 = gpuecon_gpu_peak_flops(r.system->gpu, GPUECON_FP8) * 0.40;
    assert_close(bw, 4.8e12 * 0.80, 1e-12);
    int strict = 0;
    for (double c = 16; c <= 1024; c *= 4) {
        gpuecon_infer_point pt = at(&r, c);
        gpuecon_infer_step st = pt.step;
        double T = st.decode_tokens + st.prefill_tokens;
        double we = 58 * 256 * (1 - pow(1 - 8.0 / 256, T)) * expert / 8 / bw;
        double ge = 2 * 58 * 8 * expert / 8 * T / f8;
        double want = fmax(st.weights_s - we, st.gemm_s - ge) + fmax(we, ge) + fmax(st.kv_s, st.attn_s);
        assert_close(st.model_s, want, 1e-9);
        /* never below the whole-step roofline; above it where experts and the rest bind differently */
        assert_true(st.model_s >= fmax(st.weights_s, st.gemm_s) + fmax(st.kv_s, st.attn_s) * (1 - 1e-12));
        strict += st.model_s > (fmax(st.weights_s, st.gemm_s) + fmax(st.kv_s, st.attn_s)) * 1.01;
    }
    assert_true(strict > 0);
}

static void test_imbalance(void **state)
{
    double expert = 3.0 * 7168 * 2048;
    for (int dp = 0; dp < 2; dp++) {
        gpuecon_infer_request r = dsv3(state, 8, 8, dp);
        gpuecon_infer_point a = at(&r, 256);
        r.expert_imbalance = 1.5;
        gpuecon_infer_point b = at(&r, 256);
        assert_close(run(&r).expert_imbalance, 1.5, 0);
        double T = a.step.decode_tokens + a.step.prefill_tokens;
        /* the busiest rank runs 1.5x the mean routed GEMMs: 58 layers x 8 experts x 2·expert per
         * token, over the 8 TP ranks without DP, on this rank's own tokens with DP */
        assert_close(b.step.gemm_flops - a.step.gemm_flops, 0.5 * 2 * 58 * 8 * expert * T / (dp ? 1 : 8), 1e-9);
        assert_true(b.step.step_s >= a.step.step_s); /* more only where the GEMMs bind (split roofline) */
        if (dp) /* the dispatch carries the busiest rank's tokens too */
            assert_close(b.step.comm_s,
                         58 * (dispatch_s(state, &r, 8, T, 1 + 4.0 / 128, 1.5) + dispatch_s(state, &r, 8, T, 2, 1.5)),
                         1e-9);
    }
    /* TP without expert parallelism slices every expert evenly: no imbalance */
    gpuecon_infer_request t = dsv3(state, 8, 8, false);
    t.expert_parallel = false;
    gpuecon_infer_point a = at(&t, 256);
    t.expert_imbalance = 2;
    assert_close(at(&t, 256).step.step_s, a.step.step_s, 0);
}

static void test_bad_input(void **state)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    /* 6 does not divide 256 experts: 2 redundant ones make 258 = 6 x 43 slots (test_infer_eplb.c) */
    gpuecon_infer_request r = dsv3(state, 6, 6, true);
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_OK);
    assert_int_equal(o.redundant_experts, 2);
    assert_int_equal(o.expert_slots, 43);
    r = dsv3(state, 8, 8, true);
    r.expert_imbalance = 0.5;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.expert_imbalance");
    r.expert_imbalance = NAN;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    /* without attention-DP, TP stays inside the NVLink domain */
    r = dsv3(state, 16, 16, false);
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.tp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_dp_memory),
        cmocka_unit_test(test_attention_dp_step),
        cmocka_unit_test(test_tp_ep_comm),
        cmocka_unit_test(test_trtllm_bench_limits),
        cmocka_unit_test(test_expert_roofline),
        cmocka_unit_test(test_imbalance),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
