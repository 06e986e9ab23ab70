/*
 * test_rl.c — the RL step model (src/analysis/rl.c, rl_gen.c; docs/model.md §7): response-length
 * order statistics, step composition by placement, weight-sync bytes and times, bad input.
 *
 * Expected numbers are derived by hand: lognormal quantiles from mu = ln(mean) − s²/2,
 * s² = ln(1 + cv²) and the normal quantile (Python's statistics.NormalDist gave the z values
 * quoted); Llama-3.1-8B's parameter and FLOP counts from its config.json shape; link rates
 * from data/systems.yaml times the busbw efficiencies of src/model/calib.c (NVLink 0.80,
 * InfiniBand 0.90, 10 us launch). The serving and training models are tested elsewhere; here
 * their outputs are inputs, and what is checked is how the RL step composes them.
 */
#include "test_util.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0
/* Llama-3.1-8B: per layer q,o 4096² + k,v 4096·1024 + SwiGLU 3·4096·14336 = 218,103,808;
 * x 32 layers = 6,979,321,856; + LM head 128,256·4096 = 525,336,576 */
#define L8B_MATMUL 7504658432.0
/* + input embedding 525,336,576 + norms (2·32 + 1)·4096 = 266,240 */
#define L8B_TOTAL 8030261248.0

static const gpuecon_catalog *g_cat;
static gpuecon_ctx *g_ctx;

static int setup(void **state)
{
    int rc = fixture_setup(state);
    g_cat = CAT(state);
    g_ctx = ((fixture *)*state)->ctx;
    return rc;
}

static gpuecon_rl_request base(const char *model, const char *system, int gpus)
{
    gpuecon_rl_request r;
    gpuecon_rl_request_init(&r);
    r.policy = gpuecon_catalog_model(g_cat, model);
    r.system = gpuecon_catalog_system(g_cat, system);
    assert_non_null(r.policy);
    assert_non_null(r.system);
    r.gpus = gpus;
    r.prompts = 64;
    r.samples = 8;
    r.prompt_len = 512;
    r.response_len = 1024;
    r.response_cv = 0;
    r.gen_tp = 1;
    return r;
}

static int predict(const gpuecon_rl_request *r, gpuecon_rl_result *o, gpuecon_error *err)
{
    gpuecon_error_clear(err);
    return gpuecon_rl_predict(g_ctx, g_cat, r, o, err);
}

static void test_lognormal(void **state)
{
    (void)state;
    /* mean 1000, cv 1: s = sqrt(ln 2) = 0.832555, mu = ln 1000 − ln2/2 = 6.561182.
     * Largest of 1000: p = 999.625/1000.25, z = 3.227290, exp(mu + s z) = 10,384.6 */
    assert_close(gpuecon_lognormal_order_stat(1000, 1, 1000, 1000), 10384.575, 1e-6);
    /* 1000th of 1250 (25% over-sampling): p = 999.625/1250.25, exp(...) = 1,423.0 */
    assert_close(gpuecon_lognormal_order_stat(1000, 1, 1000, 1250), 1422.983, 1e-6);
    /* E[min(X, 2000)] = 1000·Φ((ln2000 − mu − s²)/s) + 2000·(1 − Φ((ln2000 − mu)/s)) = 873.12 */
    assert_close(gpuecon_lognormal_capped_mean(1000, 1, 2000), 873.1230, 1e-6);
    assert_close(gpuecon_lognormal_order_stat(1000, 0, 1000, 1000), 1000, 0);
    assert_close(gpuecon_lognormal_capped_mean(1000, 0, 800), 800, 0);
}

/* Colocated, every response exactly R (cv 0): the running batch stays N for R decode steps. */
static void test_colocated_composition(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 8);
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->response_end, 1024, 1e-12);
    assert_close(o->kept_mean_response, 1024, 1e-12);
    assert_true(o->gen.max_concurrency >= 512); /* all 512 fit at once: no bulk phase */
    assert_close(o->gen_bulk_s, 0, 0);
    /* generation = R x TPOT of the serving model at 512 running sequences */
    gpuecon_infer_request q;
    gpuecon_infer_request_init(&q);
    q.model = r.policy;
    q.system = r.system;
    q.gpus = 8;
    q.tp = 1;
    q.expert_parallel = true;
    q.prompt_len = 512;
    q.output_len = 1024;
    q.prefix_hit = 7.0 / 8; /* the 8 samples of a prompt share it */
    q.max_model_len = 131072;
    double c = 512;
    gpuecon_infer_point pt;
    assert_int_equal(gpuecon_infer_sweep(&q, &c, 1, &pt, &err), GPUECON_OK);
    assert_close(o->generation_s, 1024 * pt.tpot_run_ms * 1e-3, 1e-9);
    /* scoring: the policy's and the reference's forward, here the policy only (no reference):
     * 512 x 1536 tokens x (2·7,504,658,432 + attention 2·768·32·256·32 = 402,653,184) FLOPs,
     * over 8 x 989 TFLOP/s x eta_c 0.40 */
    double flops = 512.0 * 1536 * (2 * L8B_MATMUL + 402653184.0);
    assert_close(o->scoring_flops, flops, 1e-9);
    /* the log-prob pass runs forward-only in the trainer's own layout: of a training step's
     * compute and bubble, forward 1 of forward 1 + backward 2 (+ 1 with a full recompute) */
    double share = o->train.par.recompute == GPUECON_RECOMPUTE_FULL ? 0.25 : 1.0 / 3;
    assert_close(o->scoring_s, share * (o->train.bd.compute_s + o->train.bd.pp_bubble_s), 1e-9);
    assert_true(o->scoring_s < o->training_s / 2);
    assert_int_equal(o->train_seq, 1536);
    assert_int_equal(o->train_gbs, 512);
    assert_close(o->training_s, o->train.step_time_s, 1e-12);
    /* swap: the trainer's weights, grads and optimizer states out to host and back at 25 GB/s */
    const gpuecon_train_memory *m = &o->train.mem;
    double states = (m->weights_gib + m->grads_gib + m->optimizer_gib + m->fp8_copy_gib) * GIB;
    assert_close(o->trainer_swap_s, 2 * states / 25e9, 1e-9);
    assert_close(o->reference_swap_s, 0, 0); /* no reference */
    /* the engine sleeps at level 1: its TP-1 shard, 2 x 8,030,261,248 B, pinned at 23.6 GB /
     * (10.57 s - 23.6 / 25.2 s) = 2.44979 GB/s (vllm#48337) and copied at 25 GB/s; wake copies back */
    double b = 2 * L8B_TOTAL;
    assert_close(o->engine_weight_bytes_per_gpu, b, 1e-12);
    assert_close(o->engine_sleep_s, b / 2.44979e9 + b / 25e9, 1e-5);
    assert_close(o->engine_wake_s, b / 25e9, 1e-9);
    assert_close(o->swap_s, o->trainer_swap_s + o->engine_sleep_s + o->engine_wake_s, 1e-12);
    /* the refit streams the whole model at 1,342 GB / 35 s = 38.343 GB/s (NeMo-RL#1267):
     * 16,060,522,496 B / 38.343e9 = 0.41886 s, longer than the TP-1 gather */
    assert_close(o->refit_s, b / 38.3429e9, 1e-5);
    assert_close(o->weight_sync_s, o->refit_s, 1e-12);
    /* the step is the sum of its phases; the breakdown is those durations; nobody idles */
    assert_close(o->step_time_s, o->generation_s + o->scoring_s + o->training_s + o->weight_sync_s + o->swap_s,
                 1e-12);
    assert_close(o->bd.generation_s, o->generation_s, 1e-12);
    assert_close(o->bd.idle_s, 0, 1e-9);
    assert_int_equal(o->npools, 1);
    assert_close(o->pools[0].utilisation, 1, 1e-12);
    /* tokens: 512 x (512 + 1024) trained per step */
    assert_close(o->trained_tokens, 512.0 * 1536, 1e-12);
    assert_close(o->trained_tokens_per_s, 512.0 * 1536 / o->step_time_s, 1e-12);
    /* cost: raw $/Mtok = TCO / (trained tok/s/GPU x 3600) x 1e6; per step = run / steps */
    assert_true(o->costed == false); /* no profile in the request */
    r.profile = "hyperscaler";
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_true(o->costed);
    assert_close(o->raw_usd_per_mtok_trained, o->usd_per_gpu_hour / (o->trained_tokens_per_s / 8 * 3600) * 1e6,
                 1e-6);
    assert_close(o->usd_per_step, o->run_usd / 1000, 1e-12);
    assert_true(o->ettr > 0.9 && o->ettr <= 1);
    assert_true(o->usd_per_mtok_trained >= o->raw_usd_per_mtok_trained);
    test_free(o);
}

/* Share of Llama-3.1-8B one trainer GPU holds (dense: 1/(tp·pp), ZeRO-3 also 1/(dp·cp)). */
static double held(const gpuecon_parallel *p)
{
    return 1.0 / ((double)p->tp * p->pp * (p->zero == 3 ? (double)p->dp * p->cp : 1));
}

/* Disaggregated on 16 H100s (two servers): the push crosses the network. */
static void test_disaggregated_sync(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 16);
    r.placement = GPUECON_RL_DISAGGREGATED;
    r.gen_gpus = 8;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_int_equal(o->gen_gpus, 8);
    assert_int_equal(o->train_gpus, 8);
    /* 8,030,261,248 params x 2 B */
    assert_close(o->sync_bytes, 2 * L8B_TOTAL, 1e-12);
    assert_close(o->sync_recv_bytes_per_gpu, 2 * L8B_TOTAL, 1e-12); /* generator TP 1: a full copy */
    assert_close(o->sync_send_bytes_per_gpu, 2 * L8B_TOTAL, 1e-12); /* one rank broadcasts it all */
    assert_int_equal(o->sync_level, GPUECON_LEVEL_SCALEOUT);
    /* the broadcast's bytes: 16,060,522,496 B over a server's 8 NICs at 50 GB/s x 0.90 = 0.04461 s;
     * the gather and load of the whole model at 1,342 GB / 13.7 s = 97.956 GB/s take 0.16396 s */
    assert_close(o->sync_gbps, 8 * 45, 1e-12);
    assert_close(o->refit_s, 2 * L8B_TOTAL / 97.9562e9, 1e-5);
    assert_close(o->weight_sync_s, o->refit_s, 1e-12);
    /* synchronous: the phases in sequence */
    assert_close(o->step_time_s, o->generation_s + o->scoring_s + o->training_s + o->weight_sync_s, 1e-12);
    /* GPU-time breakdown: half the GPUs generate, half score and train */
    assert_close(o->bd.generation_s, 0.5 * o->generation_s, 1e-12);
    assert_close(o->bd.training_s, 0.5 * o->training_s, 1e-12);
    double sum = o->bd.generation_s + o->bd.scoring_s + o->bd.training_s + o->bd.weight_sync_s + o->bd.swap_s +
                 o->bd.idle_s;
    assert_close(sum, o->step_time_s, 1e-12);
    assert_close(o->bd.idle_s, 0.5 * (o->scoring_s + o->training_s) + 0.5 * o->generation_s, 1e-9);
    for (int i = 0; i < 2; i++)
        assert_close(o->pools[i].busy_s + o->pools[i].idle_s, o->step_time_s, 1e-12);
    /* FP8 push: 1 B per parameter */
    r.sync_fp8 = true;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->sync_bytes, L8B_TOTAL, 1e-12);
    assert_close(o->weight_sync_s, L8B_TOTAL / 97.9562e9, 1e-5);
    /* one-step off-policy: generation overlaps scoring + training */
    r.sync_fp8 = false;
    r.off_policy = 1;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->step_time_s, fmax(o->generation_s, o->scoring_s + o->training_s) + o->weight_sync_s, 1e-12);
    test_free(o);
}

/* Inside one NVL72 rack the push stays on NVLink: 900 GB/s x 0.80. */
static void test_nvlink_sync(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "gb200-nvl72", 72);
    r.placement = GPUECON_RL_DISAGGREGATED;
    r.gen_gpus = 36;
    r.gen_tp = 2;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_int_equal(o->sync_level, GPUECON_LEVEL_SCALEUP);
    assert_close(o->sync_recv_bytes_per_gpu, 2 * L8B_TOTAL, 1e-12); /* every generator receives it all */
    assert_close(o->sync_gbps, 720, 1e-12);
    /* 16,060,522,496 B / 720 GB/s = 0.0223 s: the gather and load (0.164 s) set the time */
    assert_close(o->weight_sync_s, 2 * L8B_TOTAL / 97.9562e9, 1e-5);
    test_free(o);
}

/* Colocated: each GPU gathers what its trainer shard lacks of its generator shard. */
static void test_colocated_reshard(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-70b", "hgx-h100", 16);
    r.gen_tp = 8;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    gpuecon_params p;
    gpuecon_model_params(r.policy, &p);
    double h = held(&o->train.par), need = 1.0 / 8;
    assert_close(o->sync_recv_bytes_per_gpu, 2 * p.total * fmax(0, need - h), 1e-9);
    if (o->sync_recv_bytes_per_gpu > 0) {
        double b = 1 / h <= 8 ? 450e9 * 0.80 : 50e9 * 0.90;
        assert_close(o->weight_sync_s, fmax(o->sync_recv_bytes_per_gpu / b + 10e-6, 2 * p.total / 38.3429e9), 1e-5);
    } else {
        assert_close(o->weight_sync_s, 2 * p.total / 38.3429e9, 1e-5);
    }
    test_free(o);
}

/* The colocated hand-over on DeepSeek-V3, 256 H100s, generator TP 32 (NeMo-RL's recipe): the
 * engine's level-1 sleep backs 1/32 of the 1,342,052,809,000 B BF16 model up to pinned host
 * memory, 41,939,150,281 B: pinning at 2.44979 GB/s is 17.119 s, the copy at 25 GB/s 1.6776 s;
 * level 2 discards it (no sleep, no wake). The refit streams all 1,342 GB at 38.3429 GB/s: 35.0 s.
 * The reference swap is three copies of the trainer's weight shard over the host link. */
static void test_engine_sleep(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("deepseek-v3", "hgx-h100", 256);
    r.reference = r.policy;
    r.prompts = 32;
    r.samples = 16;
    r.prompt_len = 128;
    r.response_len = 600;
    r.max_response_len = 1408;
    r.response_cv = 0.6;
    r.gen_tp = 32;
    r.train_tp = 1;
    r.train_pp = 16;
    r.train_ep = 16;
    r.train_cp = 1;
    r.train_mbs = 1;
    r.train_full_recompute = true;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    double b = 1342052809000.0 / 32;
    assert_close(o->engine_weight_bytes_per_gpu, b, 1e-6);
    assert_close(o->engine_sleep_s, 17.119 + 1.6776, 1e-3);
    assert_close(o->engine_wake_s, 1.6776, 1e-3);
    assert_close(o->reference_swap_s, 3 * o->train.mem.weights_gib * GIB / 25e9, 1e-9);
    assert_close(o->refit_s, 35.0, 1e-3);
    assert_close(o->weight_sync_s, 35.0, 1e-3);
    double level1 = o->step_time_s;
    /* the policy's log-prob pass skipped (NeMo-RL force_on_policy_ratio): the reference's alone,
     * the same pass in the same layout, so half the scoring */
    double both = o->scoring_s;
    assert_int_equal(o->scoring_models, 2);
    r.old_logprobs = false;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_int_equal(o->scoring_models, 1);
    assert_close(o->scoring_s, both / 2, 1e-9);
    assert_close(level1 - o->step_time_s, both / 2, 1e-9);
    r.old_logprobs = true;
    r.engine_sleep = 2;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->engine_sleep_s, 0, 0);
    assert_close(o->engine_wake_s, 0, 0);
    assert_close(level1 - o->step_time_s, 17.119 + 2 * 1.6776, 1e-3);
    test_free(o);
}

/* Over-sampling: submit 25% more, stop at the 1000th done (mean 1000, cv 1). */
static void test_oversample(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 8);
    r.prompts = 125;
    r.response_len = 1000;
    r.response_cv = 1;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->response_end, 10384.575, 1e-6); /* the largest of 1000 */
    double full = o->generation_s;
    r.oversample = 0.25;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_close(o->samples_submitted, 1250, 0);
    assert_close(o->response_end, 1422.983, 1e-6);
    assert_true(o->kept_mean_response < o->gen_mean_response); /* the kept are the short ones */
    assert_true(o->generation_s < full);
    test_free(o);
}

/* More samples than slots: the queue runs at the saturated rate until the last wave. */
static void test_bulk_phase(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 8);
    r.prompts = 2048; /* 16,384 samples; at most 8 replicas x 1,024 max_num_seqs run at once */
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_true(o->gen.max_concurrency <= 8192);
    assert_close(o->gen_bulk_s, (16384 - o->gen.max_concurrency) * 1024 / o->gen.saturated_tokens_per_s, 1e-12);
    assert_close(o->generation_s, o->gen_bulk_s + o->gen_drain_s, 1e-12);
    test_free(o);
}

static void expect_error(gpuecon_rl_request *r, int code, const char *where)
{
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    int rc = predict(r, o, &err);
    if (rc != code || strcmp(err.where, where))
        fail_msg("rc %d at '%s' (%s), expected %d at '%s'", rc, err.where, err.message, code, where);
    test_free(o);
}

static void test_bad_input(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 16);
    r.samples = 0;
    expect_error(&r, GPUECON_E_INPUT, "options.samples");
    /* the engine's sleep level: 1 or 2, and only where an engine sleeps (colocated) */
    r = base("llama3-8b", "hgx-h100", 16);
    r.engine_sleep = 3;
    expect_error(&r, GPUECON_E_INPUT, "options.engine_sleep");
    r.engine_sleep = 2;
    r.placement = GPUECON_RL_DISAGGREGATED;
    expect_error(&r, GPUECON_E_INPUT, "options.engine_sleep");
    /* a ratio forced to 1 needs one optimizer step per batch */
    r = base("llama3-8b", "hgx-h100", 16);
    r.old_logprobs = false;
    r.minibatches = 2;
    expect_error(&r, GPUECON_E_INPUT, "options.old_logprobs");
    r = base("llama3-8b", "hgx-h100", 16);
    r.prompt_len = 1000;
    r.response_len = 131000; /* 132,000 > 131,072 */
    expect_error(&r, GPUECON_E_INPUT, "options.response_len");
    r = base("llama3-8b", "hgx-h100", 16);
    r.off_policy = 1;
    expect_error(&r, GPUECON_E_INPUT, "options.off_policy");
    /* 2 trainer GPUs cannot hold 70B's 16 B/param of training states */
    r = base("llama3-70b", "hgx-h100", 16);
    r.gen_tp = 0;
    r.placement = GPUECON_RL_DISAGGREGATED;
    r.gen_gpus = 14;
    expect_error(&r, GPUECON_E_INPUT, "options.gen_gpus");
    /* nothing fits: Llama 3.1 405B training states (6.5 TB) on 8 H100s */
    r = base("llama3-405b", "hgx-h100", 8);
    r.gen_tp = 0;
    expect_error(&r, GPUECON_E_INFEASIBLE, "options.gpus");
}

/* A generator replica over two HGX H100 servers (TP 16, vLLM across nodes): each of Llama 3
 * 70B's 80 layers all-reduces twice per step over the collective model's two-level tree
 * (comm.c): 2 domains of 8, latency 10 us launch + 2·(1 x 6 us IB hop + 7 x 3 us NVLink hops)
 * = 64 us, bus bandwidth min(8 x 50 GB/s x 0.90, 450 GB/s x 0.80) = 360 GB/s, busbw factor
 * 2·15/16 = 1.875, on tokens x 8192 x 2 B. */
static void test_tp_across_nodes(void **state)
{
    (void)state;
    gpuecon_infer_request q;
    gpuecon_infer_request_init(&q);
    q.model = gpuecon_catalog_model(g_cat, "llama3-70b");
    q.system = gpuecon_catalog_system(g_cat, "hgx-h100");
    q.gpus = q.tp = 16;
    gpuecon_infer_result g;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer(&q, &g, &err), GPUECON_E_INPUT); /* off: TP stays in the domain */
    assert_string_equal(err.where, "options.tp");
    q.tp_across_nodes = true;
    assert_int_equal(gpuecon_infer(&q, &g, &err), GPUECON_OK);
    double c = 1;
    gpuecon_infer_point pt;
    assert_int_equal(gpuecon_infer_sweep(&q, &c, 1, &pt, &err), GPUECON_OK);
    double tok = pt.step.decode_tokens + pt.step.prefill_tokens;
    assert_close(pt.step.comm_s, 2 * 80 * (64e-6 + tok * 8192 * 2 * 1.875 / 360e9), 1e-9);
    /* the RL generator reaches it with --gen-tp 16 on two servers */
    gpuecon_rl_request r = base("llama3-70b", "hgx-h100", 32);
    r.gen_tp = 16;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_int_equal(o->gen.tp, 16);
    assert_int_equal(o->gen.replicas, 2);
    test_free(o);
}

/* Attention-DP generator over 64 H100s (8 servers): every GPU holds DeepSeek-V3's non-routed
 * weights whole and 1/64 of its routed experts; routed experts by hand from config.json:
 * 58 MoE layers x 256 experts x 3 x 7168 x 2048 = 653,908,770,816. Disaggregated, each
 * generator worker receives the whole broadcast and keeps that share. */
static void test_attention_dp_generator(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("deepseek-v3", "hgx-h100", 256);
    r.reference = r.policy;
    r.placement = GPUECON_RL_DISAGGREGATED;
    r.gen_gpus = 64;
    r.gen_tp = 64;
    r.gen_attention_dp = true;
    r.gen_weights = GPUECON_FP8;
    r.prompt_len = 128;
    r.response_len = 600;
    r.max_response_len = 1408;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    int rc = predict(&r, o, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.message);
    assert_true(o->gen.attention_dp);
    assert_int_equal(o->gen.ep, 64);
    gpuecon_params p;
    gpuecon_model_params(r.policy, &p);
    assert_close(p.routed_experts, 653908770816.0, 1e-12);
    assert_close(o->sync_recv_bytes_per_gpu, 2 * p.total, 1e-12);
    assert_int_equal(o->sync_level, GPUECON_LEVEL_SCALEOUT);
    /* scoring: the policy's and the reference's forward-only passes in the trainer layout (the
     * forward share of a training step's compute and bubble each), plus their MoE all-to-all:
     * 512 sequences in 512/(DP·mbs) micro-batches per GPU, moe_layers/PP layers each, one
     * dispatch and one combine of the training model's one-dispatch time per layer */
    assert_int_equal(o->scoring_models, 2);
    const gpuecon_parallel *tp = &o->train.par;
    assert_true(o->train.moe.a2a_s > 0);
    double a2a = 2 * 512.0 / ((double)tp->dp * tp->mbs) * o->train.moe.moe_layers / tp->pp * 2 * o->train.moe.a2a_s;
    assert_close(o->scoring_a2a_s, a2a, 1e-12);
    double share = tp->recompute == GPUECON_RECOMPUTE_FULL ? 0.25 : 1.0 / 3;
    assert_close(o->scoring_s, 2 * share * (o->train.bd.compute_s + o->train.bd.pp_bubble_s) + a2a, 1e-12);
    /* attention-DP on a dense model, or over one GPU: exit 2 naming the option */
    gpuecon_rl_request d = base("llama3-8b", "hgx-h100", 8);
    d.gen_attention_dp = true;
    d.gen_tp = 8;
    expect_error(&d, GPUECON_E_INPUT, "options.gen_attention_dp");
    r.gen_tp = 1;
    expect_error(&r, GPUECON_E_INPUT, "options.gen_tp");
    test_free(o);
}

/* Partial rollouts (Kimi k1.5 §2.6.2), every response exactly 1,000 tokens (cv 0), T = 300 per
 * step: a sample runs 4 steps (300, 300, 300, 100), so A = 4N requests per step, carrying
 * 300·(0+1+2+3)/4 = 450 tokens on average; a segment averages 1000/4 = 250 tokens, second moment
 * (3·300² + 100²)/4 = 70,000, cv² = 70,000/250² − 1 = 0.12. Prefix hits: only the N fresh
 * requests share their 512-token prompt within the group of 8: N·512·7/8 / (4N·962). The step
 * stops at T: 4N run for the first 100 tokens, 3N for the other 200 — 21 and 43 of the 64 bins
 * (midpoints (i + 0.5)·300/64 below 100 for i <= 20). */
static void test_partial_rollouts(void **state)
{
    (void)state;
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 8);
    r.response_len = 1000;
    r.partial_tokens = 300;
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    gpuecon_error err;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    double n = 512;
    assert_close(o->gen_requests, 4 * n, 1e-12);
    assert_close(o->carried_tokens, 450, 1e-12);
    assert_close(o->response_end, 300, 1e-12);
    assert_close(o->gen_mean_response, 1000, 1e-12);
    assert_close(o->generated_tokens, n * 1000, 1e-12);
    assert_close(o->trained_tokens, n * 1512, 1e-12);
    assert_close(o->gen.prompt_len, 962, 1e-12);
    assert_close(o->gen.output_len, 250, 1e-12);
    assert_close(o->gen.mean_context, 962 + 250 * 1.12 / 2, 1e-3);
    assert_true(o->gen.max_concurrency >= 4 * n); /* one wave: no bulk phase */
    assert_close(o->gen_bulk_s, 0, 0);
    gpuecon_infer_request q;
    gpuecon_infer_request_init(&q);
    q.model = r.policy;
    q.system = r.system;
    q.gpus = 8;
    q.tp = 1;
    q.prompt_len = 962;
    q.output_len = 250;
    q.output_cv = sqrt(0.12);
    q.prefix_hit = n * 512 * 7.0 / 8 / (4 * n * 962);
    q.profile = r.serving;
    q.max_model_len = 131072;
    double c[2] = {4 * n, 3 * n};
    gpuecon_infer_point pt[2];
    assert_int_equal(gpuecon_infer_sweep(&q, c, 2, pt, &err), GPUECON_OK);
    double drain = 300.0 / 64 * (21 * pt[0].tpot_run_ms + 43 * pt[1].tpot_run_ms) * 1e-3;
    assert_close(o->gen_drain_s, drain, 1e-3);
    /* a spread of lengths: the step no longer waits for the longest response */
    r.response_cv = 0.6;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    double part = o->generation_s;
    r.partial_tokens = 0;
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    assert_true(part < 0.5 * o->generation_s);
    /* bad input: with over-sampling, or a cap per step at or beyond the truncation */
    r.partial_tokens = 300;
    r.oversample = 0.2;
    expect_error(&r, GPUECON_E_INPUT, "options.partial_rollouts");
    r.oversample = 0;
    r.max_response_len = 300;
    r.response_len = 200;
    expect_error(&r, GPUECON_E_INPUT, "options.partial_rollouts");
    test_free(o);
}

/* kind: rl in a scenario: compare costs the step as a training run of `steps` steps. */
static void test_compare_rl(void **state)
{
    (void)state;
    static const char yaml[] =
        "name: t\n"
        "comparisons:\n"
        "  - name: rl\n"
        "    workload: {kind: rl, model: llama3-8b, prompts: 64, samples: 8, prompt_len: 512, response_len: 1024,\n"
        "               response_cv: 0, steps: 500}\n"
        "    platforms:\n"
        "      - {name: a, system: hgx-h100, gpus: 16}\n"
        "      - {name: b, system: gb200-nvl72, gpus: 16, placement: disaggregated, gen_gpus: 8}\n";
    gpuecon_error err;
    gpuecon_scenario *sc = NULL;
    gpuecon_error_clear(&err);
    if (gpuecon_scenario_load_buffer(g_ctx, g_cat, "t.yaml", yaml, sizeof yaml - 1, &sc, &err))
        fail_msg("%s:%d:%d: %s", err.where, err.line, err.column, err.message);
    gpuecon_compare_options opt = {.no_sensitivity = true, .no_uncertainty = true};
    gpuecon_compare_result *cr = NULL;
    assert_int_equal(gpuecon_compare(g_ctx, g_cat, sc, &opt, &cr, &err), GPUECON_OK);
    const gpuecon_comparison_result *c = &cr->cmp[0];
    assert_int_equal(c->kind, GPUECON_WORKLOAD_RL);
    /* platform a is the colocated step of test_colocated_composition */
    gpuecon_rl_request r = base("llama3-8b", "hgx-h100", 16);
    r.gen_tp = 0;
    r.reference = r.policy; /* compare's defaults: the policy as KL reference, the default stack, */
    r.stack = gpuecon_catalog_stack(g_cat, "megatron-bridge-2026");
    /* and generation on the vllm-v1 engine */
    assert_true(gpuecon_serving_profile_from_stack(gpuecon_catalog_stack(g_cat, GPUECON_RL_GEN_STACK), &r.serving));
    gpuecon_rl_result *o = test_malloc(sizeof *o);
    assert_int_equal(predict(&r, o, &err), GPUECON_OK);
    const gpuecon_platform_result *a = &c->platforms[0];
    assert_true(a->feasible);
    assert_close(a->rl_step_time_s, o->step_time_s, 1e-12);
    assert_close(a->tokens_per_s_per_gpu, o->trained_tokens_per_s / 16, 1e-12);
    /* 500 steps of 512 x 1536 trained tokens; days = tokens / (tok/s/GPU x GPUs x ETTR) */
    assert_close(a->tokens, 500.0 * 512 * 1536, 1e-12);
    assert_close(a->days_to_train, 500 * o->step_time_s / a->ettr / 86400, 1e-9);
    assert_close(a->rl_usd_per_step, a->total_usd / 500, 1e-12);
    assert_int_equal(c->platforms[1].rl_gen_gpus, 8);
    assert_non_null(strstr(c->verdict, "the deciding term is"));
    test_free(o);
    gpuecon_compare_free(cr);
    gpuecon_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lognormal),
        cmocka_unit_test(test_colocated_composition),
        cmocka_unit_test(test_disaggregated_sync),
        cmocka_unit_test(test_nvlink_sync),
        cmocka_unit_test(test_colocated_reshard),
        cmocka_unit_test(test_engine_sleep),
        cmocka_unit_test(test_oversample),
        cmocka_unit_test(test_bulk_phase),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_tp_across_nodes),
        cmocka_unit_test(test_attention_dp_generator),
        cmocka_unit_test(test_partial_rollouts),
        cmocka_unit_test(test_compare_rl),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
