/*
 * test_train.c — the training step: hardware FLOPs against Narayanan et al.'s published
 * formula, the MFU convention, the pipeline bubble, recompute, the breakdown adding up to
 * the step, every bad-input rule (GPUECON_E_INPUT naming the constraint) and infeasible
 * requests (GPUECON_E_INFEASIBLE with the smallest overflow).
 */
#include "train_util.h"

#include "model/train.h"

#include <math.h>
#include <string.h>

static void fix(gpuecon_train_request *q, int tp, int cp, int pp, int vpp, int mbs, int rc, int zero)
{
    q->tp = tp, q->cp = cp, q->pp = pp, q->vpp = vpp, q->mbs = mbs, q->recompute = rc, q->zero = zero;
    q->tp_overlap = 0;
}

/* A GPT of the 2021 papers in the model-file format: 4h GELU MLP, MHA, 51,200 vocabulary. */
static const gpuecon_model *gpt(void **state, int layers, int hidden, int heads)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf,
                     "name: gpt-test-%d\nlayers: %d\nhidden: %d\nheads: %d\nffn: gelu\nvocab: 51200\n"
                     "tied_embeddings: true\nmax_seq: 2048\npublished_params: %g\n",
                     hidden, layers, hidden, heads, 12.0 * layers * hidden * hidden + 51200.0 * hidden);
    const gpuecon_model *m = NULL;
    gpuecon_error err;
    if (gpuecon_catalog_load_model_buffer(CAT(state), "gpt-test.yaml", buf, (size_t)n, &m, &err))
        fail_msg("%s", err.message);
    return m;
}

/* With full recompute and unfused attention the GPUs execute Narayanan et al. (SC21) eq. (3):
 * 96·l·h²·(1 + s/(6h) + V/(16·l·h)) FLOPs per token (four passes over the layers' GEMMs and
 * the s×s attention products, three over the logits). For 1.7B (l 24, h 2304, s 2048):
 * 96 x 24 x 2304² x (1 + 2048/13824 + 51200/884736) = 1.22302e10 x 1.206019 = 1.47503e10. */
static void test_narayanan_flops(void **state)
{
    const gpuecon_model *m = gpt(state, 24, 2304, 24);
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = m;
    q.system = gpuecon_catalog_system(CAT(state), "hgx-a100");
    q.gpus = 32, q.seq = 2048, q.gbs = 512;
    fix(&q, 1, 1, 1, 1, 16, GPUECON_RECOMPUTE_FULL, 0);
    q.attn_impl = GPUECON_ATTN_IMPL_UNFUSED;
    q.sequence_parallel = false;
    gpuecon_train_result r = predict_ok(&q);
    double l = 24, h = 2304, s = 2048, V = 51200;
    double expect = 96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    assert_close(expect, 1.47503e10, 1e-5);
    double per_token = r.hfu * r.peak_flops * r.step_time_s * q.gpus / ((double)q.gbs * q.seq);
    assert_close(per_token, expect, 1e-9);
    /* the same with pipeline stages: the average over stages is unchanged */
    fix(&q, 2, 1, 4, 1, 2, GPUECON_RECOMPUTE_FULL, 0);
    r = predict_ok(&q);
    per_token = r.hfu * r.peak_flops * r.step_time_s * q.gpus / ((double)q.gbs * q.seq);
    assert_close(per_token, expect, 1e-9);
}

/* MFU = tokens/s/GPU x model FLOPs per token (full attention, gpuecon_train_flops) / peak at
 * the training precision (NVIDIA's dense-model convention, docs/model.md §1). */
static void test_mfu_convention(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-70b", "hgx-h100", 64, 8192, 128);
    fix(&q, 4, 2, 4, 5, 1, GPUECON_RECOMPUTE_NONE, 1);
    q.precision = GPUECON_FP8;
    gpuecon_train_result r = predict_ok(&q);
    gpuecon_flops f;
    gpuecon_train_flops(q.model, 8192, GPUECON_ATTN_COUNT_FULL, false, &f);
    assert_close(r.mfu, r.tokens_per_s_per_gpu * f.total / 1979e12, 1e-12);
    gpuecon_train_flops(q.model, 8192, GPUECON_ATTN_COUNT_CAUSAL, false, &f);
    assert_close(r.mfu_causal, r.tokens_per_s_per_gpu * f.total / 1979e12, 1e-12);
    assert_close(r.tokens_per_s_per_gpu, 128.0 * 8192 / r.step_time_s / 64, 1e-12);
    /* FP8 GEMMs run faster than BF16 ones on the same configuration */
    q.precision = GPUECON_BF16;
    gpuecon_train_result b = predict_ok(&q);
    assert_true(r.tokens_per_s_per_gpu > 1.1 * b.tokens_per_s_per_gpu);
}

/* The pipeline bubble of one configuration, by hand from the layer cost: the first
 * micro-batch's forward and the last one's backward cross every stage while the slowest stage
 * paces the others, so the bubble is the other stages' time per micro-batch, 1/v of it when
 * interleaved; with equal stages it is (p-1)/(v·m) of the micro-batches' time (Narayanan
 * et al. SC21 §2.2). The first stage adds the embedding, the last the LM head and loss. */
static double bubble_by_hand(const gpuecon_train_request *q, const gpuecon_train_result *r)
{
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(q, &st, &err), 0);
    train_layer_cost lc;
    train_layer(&st, q->tp, q->cp, q->mbs, q->recompute, q->tp_overlap, &lc);
    double per = lc.fwd_s + lc.bwd_s + lc.recompute_s + lc.tp_s + lc.cp_s;
    double first = r->stage_layers_first * per + lc.emb_s, mid = r->stage_layers_max * per;
    double last = r->stage_layers_last * per + lc.head_s;
    double slowest = first > mid ? first : mid;
    slowest = last > slowest ? last : slowest;
    return (first + (q->pp - 2) * mid + last - slowest) / q->vpp;
}

/* The parts of the breakdown add up to the step; the bubble: GPT-3 175B, p 8, v 12, m 64. */
static void test_breakdown_and_bubble(void **state)
{
    gpuecon_train_request q = req_for(state, "gpt3-175b", "hgx-h100", 128, 2048, 256);
    fix(&q, 4, 1, 8, 12, 1, GPUECON_RECOMPUTE_NONE, 1);
    q.tp_overlap = 1;
    gpuecon_train_result r = predict_ok(&q);
    const gpuecon_train_breakdown *b = &r.bd;
    double sum = b->compute_s + b->tp_comm_s + b->cp_comm_s + b->ep_comm_s + b->pp_bubble_s + b->pp_comm_s +
                 b->dp_comm_s + b->optimizer_s + b->straggler_s;
    assert_close(sum, r.step_time_s, 1e-12);
    assert_int_equal(r.par.microbatches, 64);
    assert_close(b->pp_bubble_s, bubble_by_hand(&q, &r), 1e-12);
    /* the last stage (LM head) paces: the bubble is a little under (p-1)/(v·m) of its time */
    double stage_work = b->compute_s + b->tp_comm_s + b->cp_comm_s;
    assert_true(b->pp_bubble_s < 7.0 / (12 * 64) * stage_work);
    assert_true(b->pp_bubble_s > 0.95 * 7.0 / (12 * 64) * stage_work);
    /* 1F1B without interleaving: 12 layers a stage */
    q.vpp = 1;
    r = predict_ok(&q);
    assert_int_equal(r.stage_layers_max, 12);
    assert_close(r.bd.pp_bubble_s, bubble_by_hand(&q, &r), 1e-12);
    stage_work = r.bd.compute_s + r.bd.tp_comm_s + r.bd.cp_comm_s;
    assert_true(r.bd.pp_bubble_s < 7.0 / 64 * stage_work && r.bd.pp_bubble_s > 0.95 * 7.0 / 64 * stage_work);
}

/* Rank placement as Megatron numbers ranks (TP, CP, DP, then the pipeline stage outermost),
 * Llama 3 8B BF16 on HGX H100 (8 GPUs a node; NVLink 450 GB/s x 0.80 = 360 GB/s, 3 us a hop;
 * network 50 GB/s x 0.90 = 45 GB/s, 6 us; 10 us a collective), TP2, 4,096 tokens, m 8:
 * - 16 GPUs, DP4 PP2: the four replicas of a stage share a node, the stages sit in two nodes.
 *   Pipeline message T·h·2/t = 4096 x 4096 x 2 / 2 = 16,777,216 B over the network:
 *   10 + 6 + 16.777216e6 / 45e9 x 1e6 = 388.83 us, 2(m + p - 1) = 18 transfers = 6.999 ms.
 *   The gradient all-reduce (ZeRO-0, 4-byte gradients, not overlapped) stays on NVLink:
 *   per 40M-parameter bucket 10 + 2 x 3 x 3 = 28 us, plus 4 x P x 1.5 / 360e9 for all P.
 * - 8 GPUs, DP2 PP2: the whole pipeline in one node: 10 + 3 + 16.777216e6 / 360e9 x 1e6
 *   = 59.60 us a transfer. */
static void test_placement(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 16, 4096, 32);
    fix(&q, 2, 1, 2, 1, 1, GPUECON_RECOMPUTE_NONE, 0);
    q.dp_overlap = false;
    gpuecon_train_result r = predict_ok(&q);
    assert_int_equal(r.par.dp, 4);
    assert_int_equal(r.par.microbatches, 8);
    assert_close(r.bd.pp_comm_s, 18 * (16e-6 + 16777216.0 / 45e9), 1e-12);
    assert_close(r.bd.pp_comm_s, 6.999e-3, 1e-3);
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    /* the stage with the most parameters: the last (LM head and final norm) */
    double P = (16 * st.layer_params + st.head_params) / 2 + st.h;
    double nb = ceil(P / 40e6);
    assert_close(r.bd.dp_comm_s, nb * 28e-6 + 4 * P * 1.5 / 360e9, 1e-12);
    q.gpus = 8, q.gbs = 16;
    r = predict_ok(&q);
    assert_int_equal(r.par.microbatches, 8);
    assert_close(r.bd.pp_comm_s, 18 * (13e-6 + 16777216.0 / 360e9), 1e-12);
}

/* Per layer: backward GEMMs are twice the forward ones, full recompute adds one forward
 * pass of compute; its executed FLOPs: 3 G + 3.5 A without, 4 G + 4.5 A with recompute
 * (G forward GEMM FLOPs, A forward attention FLOPs; a flash backward is 2.5 A). */
static void test_recompute(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 8192, 64);
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    train_layer_cost none, full, sel;
    train_layer(&st, 1, 1, 1, GPUECON_RECOMPUTE_NONE, false, &none);
    train_layer(&st, 1, 1, 1, GPUECON_RECOMPUTE_FULL, false, &full);
    train_layer(&st, 1, 1, 1, GPUECON_RECOMPUTE_SELECTIVE, false, &sel);
    assert_close(full.recompute_s, none.fwd_s, 1e-15);
    assert_true(sel.recompute_s == 0); /* flash attention recomputes inside its backward */
    double T = 8192, h = 4096, kv = 8 * 128, f = 14336;
    double G = 2 * T * (h * (h + 2 * kv) + h * h + h * 2 * f + f * h);
    double A = 4 * T * (8193.0 / 2) * 32 * 128;
    assert_close(none.hw_flops, 3 * G + 3.5 * A, 1e-12);
    assert_close(full.hw_flops, 4 * G + 4.5 * A, 1e-12);
    assert_true(full.act_bytes < sel.act_bytes);
    assert_close(full.act_bytes, 2 * T * h, 1e-12);
}

/* Megatron's async_tensor_model_parallel_allreduce (the megatron-ds-2023 stack): without SP the
 * backward all-reduce of each column-parallel linear's input gradient (QKV, FC1) runs beside
 * that linear's weight-gradient GEMM, as long as its forward GEMM, and only what outlasts it is
 * exposed. Llama 3 8B on 8 A100, TP 8, one 2,048-token micro-batch, BF16: the all-reduce is
 * T·h·2 = 16.8 MB; the QKV GEMM 2048 x 4096 x 768 (GQA: (32 + 2·8)·128/8) is shorter than it
 * (hidden entirely), FC1 2048 x 4096 x 3584 longer (the all-reduce hidden entirely). With SP or
 * with TP overlap the flag changes nothing. */
static void test_tp_async_grad(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-a100", 8, 2048, 8);
    q.sequence_parallel = false;
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_false(st.tp_async);
    train_layer_cost off, on, ovl_off, ovl_on;
    train_layer(&st, 8, 1, 1, GPUECON_RECOMPUTE_NONE, false, &off);
    train_layer(&st, 8, 1, 1, GPUECON_RECOMPUTE_NONE, true, &ovl_off);
    q.tp_async_grad = true;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_true(st.tp_async);
    train_layer(&st, 8, 1, 1, GPUECON_RECOMPUTE_NONE, false, &on);
    train_layer(&st, 8, 1, 1, GPUECON_RECOMPUTE_NONE, true, &ovl_on);
    /* by hand: roofline GEMM times with the A100 row, the all-reduce from the collective model */
    const gpuecon_efficiency *e = gpuecon_efficiency_for(q.system->gpu);
    double peak = gpuecon_gpu_peak_flops(q.system->gpu, GPUECON_BF16) * e->gemm_bf16;
    double hbm = q.system->gpu->hbm_tbps * 1e12 * e->hbm;
    double T = 2048, h = 4096, n_qkv = (32 + 2 * 8) * 128 / 8.0, n_fc1 = 2 * 14336 / 8.0;
    double g_qkv = fmax(2 * T * h * n_qkv / peak, (2 * (T * h + h * n_qkv) + 2 * T * n_qkv) / hbm) + e->kernel_s;
    double g_fc1 = fmax(2 * T * h * n_fc1 / peak, (2 * (T * h + h * n_fc1) + 2 * T * n_fc1) / hbm) + e->kernel_s;
    gpuecon_link_model lm = {e->scaleup_busbw, e->scaleout_busbw, e->coll_launch_s, e->scaleout_a2a};
    gpuecon_coll_result ar;
    assert_int_equal(gpuecon_collective_ex(q.system, &lm, GPUECON_ALL_REDUCE, 8, 1, T * h * 2, GPUECON_ALGO_AUTO,
                                           &ar, &err), 0);
    assert_true(g_qkv < ar.time_s && ar.time_s < g_fc1); /* the two regimes of the comment */
    assert_close(off.tp_s - on.tp_s, fmin(ar.time_s, g_qkv) + fmin(ar.time_s, g_fc1), 1e-9);
    assert_close(off.tp_s, 4 * ar.time_s, 1e-9); /* blocking: forward and backward all-reduce per block */
    assert_close(ovl_on.tp_s, ovl_off.tp_s, 1e-15);
    q.sequence_parallel = true;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_false(st.tp_async); /* SP replaces the all-reduces: nothing to run beside wgrad */
}

/* Every impossible size is refused with the constraint named. */
static void test_bad_input(void **state)
{
    gpuecon_train_request q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.tp = 5;
    expect_input(&q, "options.tp", "5 does not divide the 96 attention heads");
    q = req_for(state, "llama3-70b", "hgx-h100", 64, 8192, 128);
    q.tp = 16;
    expect_input(&q, "options.tp", "16 does not divide the 8 key-value heads");
    q = req_for(state, "llama3-405b", "hgx-h100", 1024, 8192, 128);
    q.pp = 200;
    expect_input(&q, "options.pp", "200 is above the 126 layers");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.tp = 8, q.pp = 16;
    expect_input(&q, "options.gpus", "tp x cp x pp = 128 does not divide the 64 GPUs");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 100);
    q.tp = 8, q.pp = 1, q.cp = 1;
    expect_input(&q, "options.gbs", "100 sequences do not divide into dp 8 x mbs 1");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.mbs = 3;
    expect_input(&q, "options.mbs", "not divisible by mbs 3");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.cp = 3;
    expect_input(&q, "options.cp", "2 x cp = 6 equal chunks");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.pp = 1, q.vpp = 2;
    expect_input(&q, "options.vpp", "needs pipeline parallelism");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.pp = 8, q.vpp = 13;
    expect_input(&q, "options.vpp", "104 virtual stages is above the 96 layers of gpt3-175b plus the embedding");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.ep = 2;
    expect_input(&q, "options.ep", "dense");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.etp = 2;
    expect_input(&q, "options.etp", "dense");
    q = req_for(state, "gpt3-175b", "hgx-a100", 64, 2048, 256);
    q.precision = GPUECON_FP8;
    expect_input(&q, "options.precision", "a100-80g has no fp8 tensor cores");
    q = req_for(state, "gpt3-175b", "hgx-h100", 0, 2048, 256);
    expect_input(&q, "options.gpus", "out of range");
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 256);
    q.zero = 5;
    expect_input(&q, "options.zero", "allowed 0 to 3");
    /* nothing in the space divides the batch: 7 sequences on 64 GPUs of a 2-layer model */
    q = req_for(state, "gpt3-175b", "hgx-h100", 64, 2048, 7);
    q.tp = 1, q.cp = 1;
    q.model = gpt(state, 2, 1536, 3);
    expect_input(&q, "options.gbs", "no parallel configuration of 64 GPUs divides the global batch of 7");
}

/* Llama 3.1 405B cannot train on one 8-GPU H100 node: E_INFEASIBLE, the nearest miss in the
 * result with its overflow and largest term. */
static void test_infeasible(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-405b", "hgx-h100", 8, 8192, 8);
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_train_result r;
    gpuecon_error err;
    int rc = gpuecon_train_predict(ctx, &q, &r, &err);
    gpuecon_ctx_free(ctx);
    assert_int_equal(rc, GPUECON_E_INFEASIBLE);
    assert_false(r.fits);
    assert_true(r.mem.overflow_gib > 0);
    assert_non_null(r.mem.overflow_term);
    assert_close(r.mem.overflow_gib, r.mem.total_gib - r.mem.capacity_gib, 1e-12);
    assert_non_null(strstr(err.message, "nothing fits"));
    /* 405B x 18 bytes over 8 GPUs is 850 GiB of model states alone */
    assert_true(r.mem.total_gib > 100);
}

/* Memory of a published configuration: Llama 3.1 405B on 576 H100 (TP8 PP9 CP2 VP7, no
 * recompute), which ran, fits in 80 GB, and its activations are Korthikanti's per-layer
 * bytes x 14 layers x 9 (1 + 8/63) in-flight micro-batches. */
static void test_published_config_fits(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-405b", "hgx-h100", 576, 8192, 252);
    fix(&q, 8, 2, 9, 7, 1, GPUECON_RECOMPUTE_NONE, 1);
    q.tp_overlap = 1;
    gpuecon_train_result r = predict_ok(&q);
    assert_true(r.fits);
    double layer = gpuecon_layer_activation_bytes(q.model, 0, 4096, 1, 8, true, GPUECON_RECOMPUTE_NONE,
                                                  GPUECON_ATTN_IMPL_FLASH, false);
    assert_int_equal(r.mem.stage, 0);
    assert_close(r.mem.activations_gib * 1073741824.0, layer * 14 * 9 * (1 + 8.0 / 63), 1e-12);
}

/* SemiAnalysis (20 Aug 2025): Llama 3.1 405B BF16 weak scaling 576 -> 2,304 GPUs keeps MFU nearly flat
 * (54.5% -> 54.2%); the model must not move it by more than 2 points either. */
static void test_s3_flat(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-405b", "hgx-h100", 576, 8192, 252);
    fix(&q, 8, 2, 9, 7, 1, GPUECON_RECOMPUTE_NONE, 1);
    q.tp_overlap = 1;
    gpuecon_train_result a = predict_ok(&q);
    q.gpus = 2304, q.gbs = 1008;
    gpuecon_train_result b = predict_ok(&q);
    assert_true(fabs(b.mfu - a.mfu) < 0.02);
    assert_true(b.mfu <= a.mfu);
}

/* Blackwell Ultra against Blackwell (src/model/calib.c, docs/model.md §3.3): GB300 and GB200 share
 * every catalog peak and bandwidth, so one BF16 micro-batch of Llama 3 8B (TP1, seq 8,192, no
 * recompute) differs in two terms only, each checked with the other held at Blackwell's value.
 * Forward attention: the 32 layers' fl = 2·T·(s+1)/2·32 heads·(128 + 128) FLOPs each, run at 0.60
 * of 2,450 TFLOPS on GB200 and at 0.60 x 1.288 on GB300: the median of the four cuDNN 9.27.0
 * forward ratios 1875.932/1438.125, 1986.33/1562.874, 1824.334/1389.042 and 1927.786/1534.229
 * (NVIDIA/cudnn-frontend prefill_sweep). GEMMs: forward and the two backward GEMMs of each of the
 * 32 layers' QKV (4096 -> 6144), output (4096 -> 4096), gate-up (4096 -> 28672) and down
 * (14336 -> 4096) projections and of the LM head (4096 -> 128,256) over T = 8,192 tokens, all
 * compute-bound, at each row's BF16 fraction of 2,450 TFLOPS. */
static void test_ultra_against_blackwell(void **state)
{
    double r[4] = {1875.932 / 1438.125, 1986.33 / 1562.874, 1824.334 / 1389.042, 1927.786 / 1534.229};
    double lo = fmin(fmin(r[0], r[1]), fmin(r[2], r[3])), hi = fmax(fmax(r[0], r[1]), fmax(r[2], r[3]));
    double median = (r[0] + r[1] + r[2] + r[3] - lo - hi) / 2;
    const gpuecon_efficiency *ultra = gpuecon_efficiency_for(gpuecon_catalog_system(CAT(state), "gb300-nvl72")->gpu);
    const gpuecon_efficiency *bw = gpuecon_efficiency_for(gpuecon_catalog_system(CAT(state), "gb200-nvl72")->gpu);
    assert_close(ultra->attn_fwd, 0.60 * median, 1e-3); /* stored to three digits */
    assert_close(ultra->attn_flash, bw->attn_flash, 1e-12); /* the backward is MMA-bound on both */
    assert_true(ultra->gemm_bf16 > bw->gemm_bf16 * 1.2);
    gpuecon_train_request q = req_for(state, "llama3-8b", "gb200-nvl72", 8, 8192, 8);
    fix(&q, 1, 1, 1, 1, 1, GPUECON_RECOMPUTE_NONE, 1);
    double t_bw = predict_ok(&q).bd.compute_s;
    q = req_for(state, "llama3-8b", "gb300-nvl72", 8, 8192, 8);
    fix(&q, 1, 1, 1, 1, 1, GPUECON_RECOMPUTE_NONE, 1);
    double t_ul = predict_ok(&q).bd.compute_s;
    gpuecon_efficiency row = *ultra; /* GB300 with Blackwell's GEMM fractions: attention only */
    row.gemm_bf16 = bw->gemm_bf16, row.gemm_fp8 = bw->gemm_fp8;
    q.eff = &row;
    double t_attn = predict_ok(&q).bd.compute_s;
    row = *ultra; /* GB300 with Blackwell's attention: GEMMs only */
    row.attn_fwd = 0;
    double t_gemm = predict_ok(&q).bd.compute_s;
    double pb = 2450e12, fl = 2 * 8192.0 * (8192 + 1) / 2 * 32 * 256;
    assert_close(t_bw - t_attn, 32 * fl * (1 / (pb * 0.60) - 1 / (pb * ultra->attn_fwd)), 1e-9);
    double T = 8192, h = 4096;
    double layer = 2 * T * h * (6144 + 4096 + 28672) + 2 * T * 14336 * h, head = 2 * T * h * 128256;
    double gemm = 3 * (32 * layer + head);
    assert_close(t_bw - t_gemm, gemm * (1 / (pb * bw->gemm_bf16) - 1 / (pb * ultra->gemm_bf16)), 1e-9);
    /* together: the two savings add (nothing else differs) */
    assert_close(t_bw - t_ul, (t_bw - t_attn) + (t_bw - t_gemm), 1e-9);
    /* a caller's row: a forward fraction above 1 is refused, 0 means attn_flash */
    row.attn_fwd = 1.5;
    expect_input(&q, "efficiency", "must lie in (0, 1]");
    row = *bw;
    assert_close(predict_ok(&q).bd.compute_s, t_bw, 1e-12); /* GB200's row: the same peaks */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narayanan_flops),   cmocka_unit_test(test_mfu_convention),
        cmocka_unit_test(test_breakdown_and_bubble), cmocka_unit_test(test_placement), cmocka_unit_test(test_recompute),
        cmocka_unit_test(test_bad_input),         cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_published_config_fits), cmocka_unit_test(test_s3_flat),
        cmocka_unit_test(test_tp_async_grad),     cmocka_unit_test(test_ultra_against_blackwell),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
