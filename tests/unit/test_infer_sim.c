/*
 * test_infer_sim.c — the request-level serving simulator (src/model/infer_sim*.c) against
 * exact queueing results and the analytic serving model.
 *
 * Exact results used: a server that runs one request per step (max_num_seqs 1, one output
 * token, a fixed prompt inside the token budget) is an M/D/1 queue, so the mean wait is
 * Pollaczek–Khinchine's ρD/(2(1−ρ)), the probability of not waiting is 1 − ρ, and the wait
 * distribution is Erlang's (1909) P(W ≤ x) = (1−ρ)·Σ_{k=0}^{⌊x/D⌋} (λ(kD−x))^k/k!·e^{−λ(kD−x)}.
 * At saturation, throughput must agree with the mean-field model within 5% (issue 13).
 */
#include "test_util.h"

#include <string.h>

static gpuecon_sim_request base(void **state, const char *model, const char *system)
{
    gpuecon_sim_request r;
    gpuecon_sim_request_init(&r);
    r.serve.model = gpuecon_catalog_model(CAT(state), model);
    r.serve.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(r.serve.model);
    assert_non_null(r.serve.system);
    r.serve.gpus = 1;
    r.serve.tp = 1;
    r.serve.weights = GPUECON_FP8;
    r.serve.kv = GPUECON_FP8;
    return r;
}

static gpuecon_sim_result sim(void **state, const gpuecon_sim_request *r)
{
    gpuecon_sim_result o;
    gpuecon_error err;
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    int rc = gpuecon_infer_simulate(ctx, r, &o, &err);
    if (rc)
        fail_msg("gpuecon_infer_simulate: %s", err.message);
    return o;
}

/* The analytic mean field of r's deployment at `concurrency` requests in the system. */
static gpuecon_infer_result mean_field(const gpuecon_sim_request *r, double concurrency)
{
    gpuecon_infer_request q = r->serve;
    q.concurrency = concurrency;
    gpuecon_infer_result a;
    gpuecon_error err;
    if (gpuecon_infer(&q, &a, &err))
        fail_msg("gpuecon_infer: %s", err.message);
    return a;
}

static double erlang_md1_cdf(double x, double lambda, double d)
{
    double rho = lambda * d, s = 0;
    for (int k = 0; k <= (int)floor(x / d); k++) {
        double y = lambda * (k * d - x);
        s += pow(y, k) / tgamma(k + 1.0) * exp(-y);
    }
    return (1 - rho) * s;
}

static void test_md1(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.serve.max_num_seqs = 1;
    r.serve.prompt_len = 512;
    r.serve.output_len = 1;
    r.rate = 1e-3; /* nobody ever waits: TTFT = the service time D */
    r.requests = 500;
    gpuecon_sim_result lone = sim(state, &r);
    double d = lone.ttft_ms.mean / 1e3;
    assert_true(d > 0);
    assert_close(lone.zero_wait_fraction, 1, 1e-12);
    assert_close(lone.ttft_ms.p99 / 1e3, d, 3e-3); /* one histogram bin */
    for (int i = 0; i < 2; i++) {
        double rho = i ? 0.8 : 0.5, lambda = rho / d;
        r.rate = lambda;
        r.requests = 100000;
        r.replications = 4;
        gpuecon_sim_result o = sim(state, &r);
        double wq = rho * d / (2 * (1 - rho));
        assert_close(o.queue_ms.mean / 1e3, wq, 0.03);
        assert_close(o.ttft_ms.mean / 1e3, d + wq, 0.02);
        assert_near(o.zero_wait_fraction, 1 - rho, 0.01);
        assert_close(o.requests_per_s, lambda, 0.01);
        /* the median wait from Erlang's distribution, by bisection */
        double lo = 0, hi = 50 * d;
        for (int k = 0; k < 60; k++) {
            double mid = (lo + hi) / 2;
            if (erlang_md1_cdf(mid, lambda, d) < 0.5)
                lo = mid;
            else
                hi = mid;
        }
        assert_close(o.queue_ms.p50 / 1e3, lo, 0.03);
    }
}

/* Closed loop past saturation: the simulated throughput against the mean field, where the
 * mean field's premise holds (the batch is capped by max_num_seqs, so nothing is preempted). */
/* L3 and L4 at B = 1 against the simulator, which times each step of a lone prompt on its own
 * (infer_step_batch on the batch it holds). A 2,000-token prompt of Llama 3 70B FP8 on 8 H200s
 * (TP 8) with one output token: the mean-field step's steady-state prefill B·E·ρ(1−h) is then
 * 2,000 tokens, the prompt itself, so the step that carries the prompt must hold only the other
 * B − 1 = 0 sequences' share (counting it twice gave 151 ms against 80); and a budget of C
 * tokens cuts the prompt into ceil(2000/C) = 4, 2, 1 steps at C = 512, 1,024, 2,048, each
 * reading the weights again (TTFT_0 ignored the budget: 79 ms at all three). Both analytic
 * figures must agree with the simulated TTFT within 3%, where the budget alone moves it by more
 * than 25% (4 steps) and 5% (2 steps). The one user decodes min(1, C/(1 + 2000/1)) of a sequence
 * per step on average (X1's budget bound: 512/2,001 and 1,024/2,001; 2,048 carries the whole
 * 2,001), and with the budget binding its TTFT is the larger of its prefill and the closed-loop
 * wait (1 − B)·L_out/X (L3b), which the prefill is here: nobody else is there to wait behind. */
static void test_lone_prompt_ttft(void **state)
{
    int budget[] = {512, 1024, 2048};
    double ms[3];
    for (int i = 0; i < 3; i++) {
        gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h200");
        r.serve.gpus = 8;
        r.serve.tp = 8;
        r.serve.prompt_len = 2000;
        r.serve.output_len = 1;
        r.serve.max_num_batched_tokens = budget[i];
        r.rate = 1e-3; /* nobody waits */
        r.requests = 50;
        gpuecon_sim_result o = sim(state, &r);
        ms[i] = o.ttft_ms.mean;
        assert_close(o.ttft_ms.p99, ms[i], 3e-3); /* one histogram bin: every TTFT is the same */
        gpuecon_infer_result a = mean_field(&r, 1);
        assert_close(a.at.batch, fmin(1, budget[i] / 2001.0), 1e-12);
        assert_int_equal(a.at.binding, i < 2 ? GPUECON_BIND_MAX_NUM_BATCHED_TOKENS : GPUECON_BIND_OFFERED_LOAD);
        assert_close(a.ttft_ms, ms[i], 0.03);
        assert_close(a.ttft0_ms, ms[i], 0.03);
    }
    assert_true(ms[0] > 1.25 * ms[2] && ms[1] > 1.05 * ms[2]);
}

static void test_saturation(void **state)
{
    struct {
        const char *model, *system;
        gpuecon_precision kv;
        int users;
    } t[] = {{"llama3-8b", "hgx-h100", GPUECON_BF16, 1500}, {"llama3-8b", "hgx-a100", GPUECON_BF16, 600},
             {"mixtral-8x7b", "hgx-b200", GPUECON_FP8, 1500}};
    for (int i = 0; i < 3; i++) {
        gpuecon_sim_request r = base(state, t[i].model, t[i].system);
        r.serve.kv = t[i].kv;
        r.arrival = GPUECON_ARRIVAL_CLOSED;
        r.users = t[i].users;
        r.requests = 20000;
        gpuecon_sim_result o = sim(state, &r);
        gpuecon_infer_result a = mean_field(&r, t[i].users);
        assert_int_equal(a.at.binding, GPUECON_BIND_MAX_NUM_SEQS);
        assert_true(o.preemptions == 0);
        assert_close(o.output_tokens_per_s, a.output_tokens_per_s, 0.05);
        assert_close(o.mean_running, a.at.batch, 0.05);
        assert_close(o.tpot_ms.mean, a.tpot_ms, 0.05);
    }
}

/* Interleaved whole prompts (docs/model.md §6.11 "Mean field against the simulator below
 * saturation"). Llama 3 70B FP8 (FP8 KV) on 16 H200 as 8 x TP2, 2000/500 tokens, budget 8,192:
 * the simulator puts a whole prompt into one step (vLLM's chunked prefill gives it the budget
 * the decodes leave), the mean field spreads B·ρ = 4B prefill tokens over every step. At B = 64
 * a fraction p = 64·4/2000 = 0.128 of the steps carries a prompt: S(64 + 2000 tokens) = 2064 x
 * 86.7 µs GEMM (compute-bound) + 6.8 attention + 1.76 overhead + 160 all-reduces of 33.8 MB at
 * 109 µs = 205.1 ms; the other steps only decode and are weight-bound: T_w 9.19 (not 64 x 86.7
 * µs = 5.55 of GEMM) + T_kv 4.92 + 1.76 + 160 x 16.3 µs = 18.5 ms. The mean step is 0.128·205.1
 * + 0.872·18.5 = 42.4 ms: the mean field's T2 (docs/model.md §6.4); T1 alone
 * (--prefill-steps even) gives 39.2, its 320-token step hiding the weight reads behind the
 * GEMMs. At B = 94 a decode-only step is nearly compute-bound (8.15 of GEMM
 * against 9.19) and the two agree. A closed loop with lognormal outputs (CV 0.3, so the users
 * do not stay in step) holds B fixed. Poisson arrivals at the mean field's rate at 512 run about
 * its B; at T1's rate, 7% higher, they need a far larger B, since the throughput curve is flat
 * there (X(94)/X(64) = 1.03). */
static void test_interleaved_prompts(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h200");
    r.serve.gpus = 16;
    r.serve.tp = 2;
    r.serve.prompt_len = 2000;
    r.serve.output_len = 500;
    r.serve.output_cv = 0.3;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.requests = 20000;
    gpuecon_infer_result a[2];
    int users[] = {512, 752};
    for (int i = 0; i < 2; i++) {
        r.users = users[i];
        gpuecon_sim_result o = sim(state, &r);
        a[i] = mean_field(&r, users[i]);
        assert_close(o.mean_running, a[i].at.batch, 0.01);
        if (i == 0) {
            assert_close(a[i].tpot_ms, 42.4, 0.02);   /* T2: the mix of the two step kinds */
            assert_close(o.tpot_ms.mean, 42.4, 0.03); /* the simulator, the same by hand */
            r.serve.prefill_steps = GPUECON_PREFILL_EVEN;
            double even = mean_field(&r, users[i]).tpot_ms;
            r.serve.prefill_steps = GPUECON_PREFILL_WHOLE;
            assert_close(even, 39.2, 0.02); /* T1's 320-token step */
            assert_true(o.tpot_ms.mean > 1.05 * even);
        } else {
            assert_close(o.tpot_ms.mean, a[i].tpot_ms, 0.03);
            assert_close(o.output_tokens_per_s, a[i].output_tokens_per_s, 0.03);
        }
    }
    gpuecon_sim_request p = r;
    p.arrival = GPUECON_ARRIVAL_POISSON;
    p.lengths = GPUECON_LENGTHS_FIXED;
    p.serve.output_cv = 0;
    p.rate = a[0].output_tokens_per_s / 500; /* what compare simulates for this platform */
    gpuecon_sim_result o = sim(state, &p);
    assert_close(o.mean_running, a[0].at.batch, 0.10);
    assert_close(o.tpot_ms.p50, a[0].tpot_ms, 0.08);
    /* at T1's rate (7% above) the flat curve needs a far larger batch */
    p.serve.prefill_steps = GPUECON_PREFILL_EVEN;
    gpuecon_infer_result even = mean_field(&p, 512);
    p.rate = even.output_tokens_per_s / 500;
    o = sim(state, &p);
    assert_true(o.mean_running > 1.3 * even.at.batch);
    assert_true(o.tpot_ms.p50 > 1.25 * even.tpot_ms);
}

/* vLLM's long_prefill_token_threshold caps a prompt's tokens per step (docs/model.md §6.4 T2):
 * Llama 3 70B FP8 on 2 H100 (TP2), 2000/500 tokens, a closed loop of 32 users (lognormal
 * outputs, CV 0.3). Whole prompts (no cap) stall every decode of the steps that carry them; a cap
 * of 512 or 256 tokens cuts them into 4 or 8 smaller chunks: the mean TPOT and the ITL tail fall,
 * the TTFT grows. The mean field prices the same chunks (T2 with q = the cap) and agrees with the
 * simulator within 5% at each cap. A lone prompt's TTFT under a cap of 256 is exactly that under
 * a budget of 256: the same 8 chunks. */
static void test_long_prefill_threshold(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h100");
    r.serve.gpus = r.serve.tp = 2;
    r.serve.prompt_len = 2000;
    r.serve.output_len = 500;
    r.serve.output_cv = 0.3;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 32;
    r.requests = 4000;
    const int cap[] = {0, 512, 256};
    double tpot = INFINITY, ttft = 0, itl = INFINITY;
    for (int i = 0; i < 3; i++) {
        r.serve.long_prefill_token_threshold = cap[i];
        gpuecon_sim_result o = sim(state, &r);
        gpuecon_infer_result a = mean_field(&r, 32);
        assert_close(a.tpot_ms, o.tpot_ms.mean, 0.05);
        assert_close(a.ttft_ms, o.ttft_ms.mean, 0.05);
        assert_true(o.tpot_ms.mean < tpot && o.ttft_ms.mean > ttft && o.itl_ms.p99 < itl);
        tpot = o.tpot_ms.mean, ttft = o.ttft_ms.mean, itl = o.itl_ms.p99;
    }
    gpuecon_infer_result capped = mean_field(&r, 32);
    r.serve.long_prefill_token_threshold = 0;
    r.serve.max_num_batched_tokens = 256;
    assert_true(capped.ttft0_ms == mean_field(&r, 32).ttft0_ms);
    r.serve.long_prefill_token_threshold = -1;
    gpuecon_infer_result bad;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer(&r.serve, &bad, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.long_prefill_token_threshold");
}

/* A token budget that cannot carry the steady-state prefill (docs/model.md §6.6 X1, L3b): Llama 3
 * 70B FP8 on 8 H200s (TP 8), 8,000/200 tokens, max_num_batched_tokens 2,048, a closed loop of 128
 * users with lognormal prompts (CV 0.5) and outputs (CV 0.7). Each decoding sequence needs 1 + 40
 * tokens a step, so the budget carries 2,048/41 = 49.95 of them; the other users queue. The
 * simulator's vLLM scheduler admits a waiting request only with budget left after the running
 * ones, so it settles at the same ~50 (before the budget entered X1 the mean field ran all 128:
 * TPOT 209 ms against the simulator's 88, TTFT 1.3 s against 28 s). Throughput, TPOT, sequences
 * per step and the mean TTFT (closed-loop Little: (128 − B)·L_out/X) must agree within 5%. */
static void test_budget_bound(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h200");
    r.serve.gpus = 8;
    r.serve.tp = 8;
    r.serve.prompt_len = 8000;
    r.serve.output_len = 200;
    r.serve.output_cv = 0.7;
    r.prompt_cv = 0.5;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.serve.max_num_batched_tokens = 2048;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 128;
    r.requests = 5000;
    gpuecon_sim_result o = sim(state, &r);
    gpuecon_infer_result a = mean_field(&r, r.users);
    assert_int_equal(a.at.binding, GPUECON_BIND_MAX_NUM_BATCHED_TOKENS);
    assert_close(a.at.batch, 2048.0 / 41, 1e-9);
    assert_true(o.preemptions == 0);
    assert_close(o.output_tokens_per_s, a.output_tokens_per_s, 0.05);
    assert_close(o.mean_running, a.at.batch, 0.05);
    assert_close(o.tpot_ms.mean, a.tpot_ms, 0.05);
    assert_close(o.ttft_ms.mean, a.ttft_ms, 0.05);
}

/* KV-bound (Gemma-4-31B with bf16 KV on one H100: 127 sequences): the simulator holds as
 * many sequences as the mean field, but growing sequences preempt the newest and recompute
 * them, work the mean field ignores (docs/model.md §6.10), so it serves less. */
static void test_kv_bound(void **state)
{
    gpuecon_sim_request r = base(state, "gemma4-31b", "hgx-h100");
    r.serve.kv = GPUECON_BF16;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 400;
    r.requests = 10000;
    gpuecon_sim_result o = sim(state, &r);
    gpuecon_infer_result a = mean_field(&r, r.users);
    assert_int_equal(a.at.binding, GPUECON_BIND_KV_CAPACITY);
    assert_close(o.mean_running, a.at.batch, 0.05);
    assert_true(o.preemptions > 0.1 * r.requests);
    assert_true(o.output_tokens_per_s < a.output_tokens_per_s);
    assert_true(o.kv_util > 0.9);
}

static void test_deterministic(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 40;
    r.requests = 3000;
    r.replications = 5;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.prompt_cv = 1;
    r.serve.output_cv = 1;
    gpuecon_ctx_config cfg = {0};
    gpuecon_sim_result o[3];
    gpuecon_error err;
    for (int i = 0; i < 3; i++) {
        cfg.threads = i == 0 ? 1 : 3;
        cfg.seed = i == 2 ? 7 : 0;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        assert_int_equal(gpuecon_infer_simulate(ctx, &r, &o[i], &err), GPUECON_OK);
        gpuecon_ctx_free(ctx);
        o[i].threads = 0;
    }
    assert_memory_equal(&o[0], &o[1], sizeof o[0]);
    assert_true(o[2].ttft_ms.mean != o[0].ttft_ms.mean);
}

/* Mean lengths: lognormal and a histogram draw what they should (low load, no truncation). */
static void test_lengths(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 5;
    r.requests = 20000;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.prompt_cv = 0.8;
    r.serve.output_cv = 0.8;
    gpuecon_sim_result o = sim(state, &r);
    assert_close(o.output_tokens_per_s / o.requests_per_s, 203, 0.03);
    gpuecon_length_bin bins[] = {{100, 50, 3}, {1000, 450, 1}}; /* mean output 0.75·50 + 0.25·450 = 150 */
    r.lengths = GPUECON_LENGTHS_HISTOGRAM;
    r.bins = bins;
    r.nbins = 2;
    o = sim(state, &r);
    assert_close(o.output_tokens_per_s / o.requests_per_s, 150, 0.03);
    assert_true(o.truncated == 0);
    /* the analytic deployment beside it is at the histogram's means (prompt 0.75·100 + 0.25·1000
     * = 325), not at the request's ShareGPT defaults, as the disaggregated simulator's is */
    assert_close(o.deploy.prompt_len, 325, 1e-12);
    assert_close(o.deploy.output_len, 150, 1e-12);
}

/* Burstier arrivals (gamma shape 0.25, CV 2) wait longer than Poisson at the same rate. */
static void test_bursty_and_goodput(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 50;
    r.requests = 20000;
    gpuecon_sim_result p = sim(state, &r);
    r.arrival = GPUECON_ARRIVAL_GAMMA;
    r.burstiness = 0.25;
    gpuecon_sim_result b = sim(state, &r);
    assert_close(b.requests_per_s, p.requests_per_s, 0.05);
    assert_true(b.ttft_ms.p99 > p.ttft_ms.p99);
    /* goodput: a TTFT target between the two P50s splits the requests */
    r.ttft_slo_ms = b.ttft_ms.p50;
    gpuecon_sim_result g = sim(state, &r);
    assert_near(g.goodput_requests_per_s / g.requests_per_s, 0.5, 0.02);
}

/* A KV-starved replica preempts; swapping keeps the work, recompute redoes it. */
static void test_preemption(void **state)
{
    gpuecon_sim_request r = base(state, "gemma4-31b", "hgx-h100");
    r.serve.kv = GPUECON_BF16;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 400;
    r.requests = 5000;
    r.lengths = GPUECON_LENGTHS_LOGNORMAL;
    r.serve.output_cv = 1.5;
    gpuecon_sim_result rc = sim(state, &r);
    assert_true(rc.preemptions > 0);
    assert_true(rc.kv_util > 0.8 && rc.kv_util <= 1);
    r.preempt = GPUECON_PREEMPT_SWAP;
    gpuecon_sim_result sw = sim(state, &r);
    assert_true(sw.preemptions > 0);
    assert_true(sw.ttft_ms.mean != rc.ttft_ms.mean);
}

/* A server that runs one request at a time (max_num_seqs 1, a 512-token prompt, one output
 * token) and, from 100 requests at 10^-3/s (none ever waits), its step D in seconds; *lone, if
 * given, gets that run. */
static gpuecon_sim_request one_at_a_time(void **state, double *d, gpuecon_sim_result *lone)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.serve.max_num_seqs = 1;
    r.serve.prompt_len = 512;
    r.serve.output_len = 1;
    r.rate = 1e-3;
    r.requests = 100;
    gpuecon_sim_result o = sim(state, &r);
    *d = o.ttft_ms.mean / 1e3;
    if (lone)
        *lone = o;
    return r;
}

/* A burst of N requests on a server that runs one at a time (the M/D/1 setup of test_md1):
 * the makespan is exactly N·D, so throughput is 1/D requests and tokens per second, and the
 * i-th request waits (i−1)·D: mean TTFT D·(N+1)/2, mean queueing D·(N−1)/2. */
static void test_burst(void **state)
{
    double d;
    gpuecon_sim_request r = one_at_a_time(state, &d, NULL);
    r.arrival = GPUECON_ARRIVAL_BURST;
    r.rate = 0;
    r.warmup = 0;
    r.requests = 400;
    gpuecon_sim_result o = sim(state, &r);
    assert_close(o.window_s, 400 * d, 1e-9);
    assert_close(o.output_tokens_per_s, 1 / d, 1e-9);
    assert_close(o.requests_per_s, 1 / d, 1e-9);
    assert_close(o.ttft_ms.mean / 1e3, d * 401 / 2, 1e-9);
    assert_close(o.queue_ms.mean / 1e3, d * 399 / 2, 1e-9);
}

/* An open loop past saturation has no steady state; it is measured over the makespan like a
 * burst. Exact case: one request per step of D (max_num_seqs 1, one output token) at 10,000/D
 * requests/s: all 1,000 arrive within 0.1·D, the server then finishes one every D, so request
 * i (from 0) ends at about (i + 1)·D: 1/D requests/s and tokens/s, and a mean TTFT over the
 * measured i = 100..999 of (549.5 + 1)·D less their mean arrival (0.055·D) = 550.4·D. Measured
 * over the arrivals' span (0.01 to 0.1·D), as before, nothing finished: 0 requests/s. A
 * realistic one: Llama 3 8B on one H100 at 10^6 requests/s serves the mean field's saturated
 * throughput (within 5%, as a closed loop does, test_saturation); at a tenth of that rate it
 * is not overloaded. */
static void test_overload(void **state)
{
    double d;
    gpuecon_sim_result o;
    gpuecon_sim_request r = one_at_a_time(state, &d, &o);
    assert_false(o.overloaded);
    r.rate = 1e4 / d;
    r.requests = 1000;
    o = sim(state, &r);
    assert_true(o.overloaded);
    assert_close(o.requests_per_s, 1 / d, 1e-3);
    assert_close(o.output_tokens_per_s, 1 / d, 1e-3);
    assert_close(o.ttft_ms.mean / 1e3, 550.4 * d, 2e-3);
    r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 1e6;
    r.requests = 5000;
    o = sim(state, &r);
    gpuecon_infer_result a = mean_field(&r, 0);
    assert_true(o.overloaded);
    assert_close(o.output_tokens_per_s, a.saturated_tokens_per_s, 0.05);
    assert_close(o.requests_per_s * r.serve.output_len, o.output_tokens_per_s, 0.02);
    r.rate = 0.1 * a.saturated_tokens_per_s / r.serve.output_len;
    assert_false(sim(state, &r).overloaded);
}

/* GUARANTEED_NO_EVICT (the trtllm profile): admission reserves prompt + output, so with
 * 2048/2048 the KV pool holds 4096-token reservations and never preempts. The vLLM-like
 * generic profile on the same pool admits by the mean context and runs more at once. */
static void test_reserve(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h200");
    r.serve.prompt_len = 2048;
    r.serve.output_len = 2048;
    r.serve.max_num_seqs = 4096;
    r.arrival = GPUECON_ARRIVAL_BURST;
    r.warmup = 0;
    r.requests = 600;
    r.serve.profile = *gpuecon_serving_profile_find("trtllm");
    gpuecon_sim_result t = sim(state, &r);
    /* 163,840 B per token (80 layers x K and V x 8 KV heads x 128 x 1 B) for 4096 tokens plus the
     * mean field's half block of fragmentation */
    double tokens = 4096 + t.deploy.block_size / 2.0;
    assert_close(t.deploy.seqs_admitted, t.deploy.kv_avail_gib * 1073741824.0 / (tokens * 163840.0), 1e-9);
    assert_true(t.deploy.seqs_at_mean > 1.3 * t.deploy.seqs_admitted); /* n̄ ≈ 3072 */
    assert_true(t.preemptions == 0);
    assert_true(t.mean_running <= floor(t.deploy.seqs_admitted) + 1e-9);
    assert_true(t.mean_running > 0.8 * floor(t.deploy.seqs_admitted));
    r.serve.profile = *gpuecon_serving_profile_find("generic");
    gpuecon_sim_result g = sim(state, &r);
    assert_close(g.deploy.seqs_admitted, g.deploy.seqs_at_mean, 1e-12);
    assert_true(g.mean_running > floor(t.deploy.seqs_admitted));
}

/* One user with a draft: TPOT is the analytic verify step over the accepted tokens. */
static void test_speculative(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-70b", "hgx-h200");
    r.serve.gpus = 8;
    r.serve.tp = 8;
    r.serve.draft_k = 2;
    r.serve.acceptance = 0.7;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 1;
    r.requests = 300;
    r.serve.output_len = 2000; /* TPOT dominated by decode */
    gpuecon_sim_result o = sim(state, &r);
    gpuecon_infer_result a = mean_field(&r, 1);
    assert_close(o.tpot_ms.mean, a.at.tpot_run_ms, 0.05);
}

/* Throughput counts the requests that finish inside the window the tokens are counted over.
 * A burst's window is its makespan and holds every request and every token, so with fixed
 * lengths requests/s x output_len = output tokens/s exactly (counting only the requests past the
 * warmup under-read it by the warmup's 10%); Poisson arrivals at 20/s in steady state obey the
 * same flow balance within 2%. A closed loop needs at least 2 x users requests (its first users
 * all start at t = 0): fewer is an input error naming --requests. */
static void test_window_throughput(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.serve.prompt_len = 512;
    r.serve.output_len = 200;
    r.arrival = GPUECON_ARRIVAL_BURST;
    r.requests = 1000;
    gpuecon_sim_result o = sim(state, &r);
    assert_true(o.output_tokens_per_s > 0);
    assert_close(o.requests_per_s * r.serve.output_len, o.output_tokens_per_s, 1e-6);
    r.arrival = GPUECON_ARRIVAL_POISSON;
    r.rate = 20;
    r.requests = 4000;
    o = sim(state, &r);
    assert_close(o.requests_per_s * r.serve.output_len, o.output_tokens_per_s, 0.02);
    assert_close(o.requests_per_s, 20, 0.05);
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 50;
    r.requests = 99;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_simulate(((fixture *)*state)->ctx, &r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.requests");
    assert_non_null(strstr(err.message, "at least 100"));
}

/* Every catalog model on every catalog system simulates (where it fits at all): a closed
 * loop of 4 users per replica, lognormal lengths; served tokens per request are the drawn mean. */
static void test_every_model(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    size_t nm = gpuecon_catalog_count(cat, GPUECON_KIND_MODEL), ns = gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM);
    int served = 0;
    for (size_t i = 0; i < nm; i++)
        for (size_t s = 0; s < ns; s++) {
            gpuecon_sim_request r;
            gpuecon_sim_request_init(&r);
            r.serve.model = gpuecon_catalog_at(cat, GPUECON_KIND_MODEL, i);
            r.serve.system = gpuecon_catalog_at(cat, GPUECON_KIND_SYSTEM, s);
            r.serve.gpus = 8;
            r.serve.tp = 0;
            r.serve.weights = GPUECON_FP8;
            r.arrival = GPUECON_ARRIVAL_CLOSED;
            r.users = 64;
            r.requests = 200;
            r.lengths = GPUECON_LENGTHS_LOGNORMAL;
            r.prompt_cv = r.serve.output_cv = 0.5;
            gpuecon_sim_result o;
            gpuecon_error err;
            int rc = gpuecon_infer_simulate(((fixture *)*state)->ctx, &r, &o, &err);
            if (rc == GPUECON_E_INFEASIBLE)
                continue;
            if (rc)
                fail_msg("%s on %s: %s", r.serve.model->name, r.serve.system->name, err.message);
            served++;
            assert_true(o.output_tokens_per_s > 0 && o.ttft_ms.p50 > 0 && o.tpot_ms.p50 > 0);
            assert_true(o.ttft_ms.p50 <= o.ttft_ms.p90 && o.ttft_ms.p90 <= o.ttft_ms.p99);
            assert_true(o.e2e_ms.mean > o.ttft_ms.mean);
        }
    assert_true(served >= 40);
}

static void expect_input(void **state, const gpuecon_sim_request *r, const char *where)
{
    gpuecon_sim_result o;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_simulate(((fixture *)*state)->ctx, r, &o, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, where);
}

static void test_bad_input(void **state)
{
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 0;
    expect_input(state, &r, "options.rate");
    r.rate = -3;
    expect_input(state, &r, "options.rate");
    r.rate = 10;
    r.slo_percentile = 0;
    expect_input(state, &r, "options.slo_percentile");
    r.slo_percentile = 100;
    expect_input(state, &r, "options.slo_percentile");
    r.slo_percentile = 99;
    gpuecon_length_bin bad[] = {{100, 50, 1}, {1.5, 20, 1}};
    r.lengths = GPUECON_LENGTHS_HISTOGRAM;
    r.bins = bad;
    r.nbins = 2;
    expect_input(state, &r, "options.lengths");
    bad[1].prompt = -3;
    expect_input(state, &r, "options.lengths");
    bad[1].prompt = 3;
    bad[1].weight = 0;
    expect_input(state, &r, "options.lengths");
    r.lengths = GPUECON_LENGTHS_FIXED;
    r.arrival = GPUECON_ARRIVAL_CLOSED;
    r.users = 4;
    r.serve.gpus = 8;
    expect_input(state, &r, "options.users");
    /* the work budget (docs/cli.md): one H100 at 1 request/s runs B = 1 x E2E (about 1.5 s:
     * 203 tokens of ~7 ms) = 1.5 sequences a step, so 10^7 requests of 203 tokens are estimated
     * at 10^7 x (1 us + 203 x (20 + 70/B) ns) = 1.3e2 s, and above the default 60 s for any B
     * up to 4: refused up front, naming the count; split over replications, naming those */
    r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 1;
    r.requests = 10000000;
    expect_input(state, &r, "options.requests");
    r.requests = 5000000;
    r.replications = 2;
    expect_input(state, &r, "options.replications");
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    gpuecon_ctx_set_max_work(ctx, 0.001); /* 1 ms: 10^4 requests (about 0.1 s) are over it too */
    r.requests = 10000;
    r.replications = 1;
    expect_input(state, &r, "options.requests");
    gpuecon_ctx_set_max_work(ctx, 0);
}

/* The histogram reader from a buffer (src/io/lengths.c): a header line, comments, separators and
 * the default weight of 1; only len bytes are read (no terminating NUL); an error names the
 * buffer's name, the line and the column of the bad field. At the library, a histogram whose mean
 * request (here 100,000 + 100,000 tokens) exceeds Llama 3 8B's 131,072-token context is refused
 * as --lengths. */
static void test_lengths_buffer(void **state)
{
    gpuecon_ctx *ctx = ((fixture *)*state)->ctx;
    gpuecon_length_bin *b;
    size_t n;
    gpuecon_error err;
    const char good[] = "prompt,output,weight\n100,50,2\n# a comment\n\n10\t5\n7 3 9";
    assert_int_equal(gpuecon_length_bins_load_buffer(ctx, "h.csv", good, sizeof good - 1 - 6, &b, &n, &err), 0);
    assert_int_equal(n, 2); /* the last line, "7 3 9", lies past len */
    assert_true(b[0].prompt == 100 && b[0].output == 50 && b[0].weight == 2);
    assert_true(b[1].prompt == 10 && b[1].output == 5 && b[1].weight == 1);
    gpuecon_length_bins_free(ctx, b, n);
    const char bad[] = "100 50\n7 x\n";
    assert_int_equal(gpuecon_length_bins_load_buffer(ctx, "h.csv", bad, sizeof bad - 1, &b, &n, &err),
                     GPUECON_E_INPUT);
    assert_string_equal(err.where, "h.csv");
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 3);
    assert_non_null(strstr(err.message, "output length 'x'"));
    assert_null(b);
    assert_int_equal(n, 0);
    assert_int_equal(gpuecon_length_bins_load_buffer(ctx, "h.csv", "# none\n", 7, &b, &n, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "no bins"));
    gpuecon_sim_request r = base(state, "llama3-8b", "hgx-h100");
    r.rate = 1;
    gpuecon_length_bin longer[] = {{100000, 100000, 1}};
    r.lengths = GPUECON_LENGTHS_HISTOGRAM;
    r.bins = longer;
    r.nbins = 1;
    expect_input(state, &r, "options.lengths");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md1),           cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_lone_prompt_ttft), cmocka_unit_test(test_interleaved_prompts),
        cmocka_unit_test(test_long_prefill_threshold),
        cmocka_unit_test(test_budget_bound),
        cmocka_unit_test(test_kv_bound),
        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_bursty_and_goodput), cmocka_unit_test(test_preemption),
        cmocka_unit_test(test_speculative),   cmocka_unit_test(test_every_model),
        cmocka_unit_test(test_window_throughput),
        cmocka_unit_test(test_burst),         cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_overload),
        cmocka_unit_test(test_bad_input),     cmocka_unit_test(test_lengths_buffer),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
