/*
 * test_infer_layer.c — the decode step per layer and per kernel of the engine stacks
 * (src/model/infer_layer.c, docs/model.md §6.15): kernel counts derived by hand from the layer
 * shapes, the host-launch bound outside CUDA graphs, the depth and MoE ordering the issue asks
 * for, monotone steps under every engine stack, and the per-stack calibration target (fitted
 * rows of `validate`, median |error| <= 5% per stack).
 */
#include "test_util.h"
#include "model/infer.h"

#include <string.h>

/* The profile of serving stack `name` from the built-in catalog. */
static gpuecon_serving_profile stack_profile(const gpuecon_catalog *cat, const char *name)
{
    gpuecon_serving_profile p;
    memset(&p, 0, sizeof p);
    assert_true(gpuecon_serving_profile_from_stack(gpuecon_catalog_stack(cat, name), &p));
    return p;
}

static void request(const gpuecon_catalog *cat, const char *model, const char *sys, int tp, const char *stack,
                    gpuecon_infer_request *r)
{
    gpuecon_infer_request_init(r);
    r->model = gpuecon_catalog_model(cat, model);
    r->system = gpuecon_catalog_system(cat, sys);
    assert_non_null(r->model);
    assert_non_null(r->system);
    r->gpus = tp;
    r->tp = tp;
    r->weights = GPUECON_FP8;
    r->kv = GPUECON_FP8;
    r->prompt_len = 1024;
    r->output_len = 1024;
    r->profile = stack_profile(cat, stack);
}

/* Kernels by hand. Llama 3 8B: 32 dense GQA layers; a layer launches 2 RMSNorms, QKV GEMM,
 * RoPE + cache write, attention, O GEMM, gate_up GEMM, SiLU-and-mul, down GEMM = 9; the step
 * adds the embedding, final norm, LM head and the sampler's 3 kernels = 6: 32·9 + 6 = 294.
 * DeepSeek-V3: 3 dense + 58 MoE MLA layers. MLA attention is 9 kernels (fused q_a/kv_a GEMM,
 * q_a and kv_a norms, q_b GEMM, k-absorb, RoPE + cache, attention, v-absorb, O GEMM); a dense
 * layer 2 + 9 + 3 = 14, a MoE layer 2 + 9 + 7 (router, top-k, align, 2 grouped GEMMs,
 * activation, combine) + 3 (shared expert) = 21: 3·14 + 58·21 + 6 = 1,266 (SGLang, norms
 * apart). TensorRT-LLM at TP 8 fuses both norms into the all-reduces: 3·12 + 58·19 + 6 = 1,144. */
static void test_kernel_counts(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    gpuecon_infer_request r;
    gpuecon_infer_result o;
    gpuecon_error err;
    request(cat, "llama3-8b", "hgx-h100", 1, "sglang", &r);
    r.concurrency = 1;
    assert_int_equal(gpuecon_infer(&r, &o, &err), 0);
    assert_near(o.at.step.kernels, 294, 1e-9);
    assert_close(o.at.step.kernel_s, 294 * 3.5e-6, 1e-9); /* t_k = 3.5 µs */
    request(cat, "deepseek-v3", "hgx-h200", 8, "sglang", &r);
    r.concurrency = 8;
    assert_int_equal(gpuecon_infer(&r, &o, &err), 0);
    assert_near(o.at.step.kernels, 1266, 1e-9);
    double moe_fixed = o.at.step.kernel_s;
    request(cat, "deepseek-v3", "hgx-h200", 8, "trtllm", &r);
    r.concurrency = 8;
    assert_int_equal(gpuecon_infer(&r, &o, &err), 0);
    assert_near(o.at.step.kernels, 1144, 1e-9);
    /* the ordering: a 61-layer MoE model pays more fixed time per step than a
       32-layer dense one (1,266 x 3.5 µs = 4.43 ms against 294 x 3.5 µs = 1.03 ms) */
    assert_close(moe_fixed, 1266 * 3.5e-6, 1e-9);
    assert_true(moe_fixed > 4 * 294 * 3.5e-6);
}

/* Outside a CUDA graph the host launches every kernel: with t_launch = 20 µs and no graphs,
 * Llama 3 8B FP8 on one B200 at one request launches 294 kernels, 5.88 ms, while the GPU's
 * work is about 8.0 GB / (8 TB/s x 0.80) = 1.25 ms of weights plus 294 x 3.5 µs = 1.03 ms of
 * kernels: the step is the host's 5.88 ms (SGLang's overlap scheduler hides its 0.8 ms). With
 * graphs the decode step is the GPU's, well under 5.88 ms. */
static void test_host_launch_bound(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    gpuecon_infer_request r;
    gpuecon_infer_result o;
    gpuecon_error err;
    request(cat, "llama3-8b", "hgx-b200", 1, "sglang", &r);
    r.concurrency = 1;
    r.profile.launch_s = 20e-6;
    r.profile.graph_max_bs = 0;
    assert_int_equal(gpuecon_infer(&r, &o, &err), 0);
    assert_true(o.at.prompt_step_fraction > 0 && o.at.prompt_step_fraction < 1);
    assert_close(o.at.decode_step_ms, 294 * 20e-3, 1e-9);
    r.profile.graph_max_bs = 512;
    assert_int_equal(gpuecon_infer(&r, &o, &err), 0);
    assert_true(o.at.decode_step_ms < 0.6 * 294 * 20e-3);
    assert_true(o.at.decode_step_ms > 1.25 + 1.03);
}

/* vLLM V1 runs its scheduler after the GPU's step (no async scheduling): its 0.8 ms adds to a
 * decode step; SGLang's overlap scheduler hides it behind any GPU step longer than 0.8 ms. The
 * two stacks share the generic constants (and, set below, the attention kernel), so the decode steps
 * differ by exactly the scheduler time and the all-reduce limits (TP 1: none) and the routed experts'
 * bandwidth (dense: none). */
static void test_scheduler_overlap(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    gpuecon_infer_request r;
    gpuecon_infer_result a, b;
    gpuecon_error err;
    request(cat, "llama3-70b", "hgx-h100", 1, "vllm-v1", &r);
    r.concurrency = 4;
    /* vLLM's FA3 reads the KV cache at its own measured fraction (AK1); SGLang's kernel here, so
       that only the scheduler differs */
    r.profile.attn_kernels[0] = stack_profile(cat, "sglang").attn_kernels[0];
    assert_int_equal(gpuecon_infer(&r, &a, &err), 0);
    request(cat, "llama3-70b", "hgx-h100", 1, "sglang", &r);
    r.concurrency = 4;
    assert_int_equal(gpuecon_infer(&r, &b, &err), 0);
    assert_close(a.at.decode_step_ms - b.at.decode_step_ms, 0.8, 1e-6);
}

/* O6 by hand: DeepSeek-V3 at TP 8 with the experts spread whole (EP 8) at 4 requests: each rank
 * holds n = 256/8 = 32 experts; 4 tokens touch an expert with q = 1 − (1 − 8/256)^4 = 0.119262;
 * a rank's mean is n·q = 3.8164, its sd sqrt(32 q (1 − q)) = 1.8334, and the busiest of 8 ranks is
 * 3.8164 + 1.4236 x 1.8334 = 6.4264 experts (1.4236: the mean of the largest of 8 standard normals):
 * 1.6839 x the mean. With the experts sliced over TP
 * (EP 1) there is no busiest rank: 1. */
static void test_ep_straggler(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    gpuecon_infer_request r;
    request(cat, "deepseek-v3", "hgx-h200", 8, "sglang", &r);
    infer_arch a;
    infer_arch_build(r.model, 8, 1, 0, 0, &a);
    infer_env e;
    memset(&e, 0, sizeof e);
    e.a = &a;
    e.prof = r.profile;
    e.tp = e.ep = 8;
    e.dp = 1;
    assert_close(infer_layer_ep_straggler(&e, 4), 1.6839, 1e-4);
    e.ep = 1;
    assert_near(infer_layer_ep_straggler(&e, 4), 1, 0);
    e.ep = 8;
    e.prof.per_layer = false; /* a bare profile keeps the mean (O1 models) */
    assert_near(infer_layer_ep_straggler(&e, 4), 1, 0);
}

/* Every engine stack keeps the step monotone in the load (test_serving_monotone's check on a
 * grid of models, systems and TP degrees, under each stack's profile): including the jump to
 * host launches above the largest captured batch. */
static void test_stacks_monotone(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    static const char *const stacks[] = {"trtllm", "vllm-v1", "sglang"};
    static const char *const systems[] = {"hgx-h100", "hgx-b200"};
    size_t nm = gpuecon_catalog_count(cat, GPUECON_KIND_MODEL);
    int swept = 0;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < nm; i++)
            for (size_t s = 0; s < 2; s++)
                for (int tp = 1; tp <= 8; tp *= 8) {
                    gpuecon_infer_request r;
                    request(cat, ((const gpuecon_model *)gpuecon_catalog_at(cat, GPUECON_KIND_MODEL, i))->name,
                            systems[s], tp, stacks[k], &r);
                    r.gpus = 8;
                    gpuecon_infer_result o;
                    gpuecon_error err;
                    if (gpuecon_infer(&r, &o, &err))
                        continue; /* does not fit, or TP does not split the heads */
                    double grid[700];
                    size_t n = 0;
                    for (double c = 1; n < 700 && c <= 2 * o.replicas * fmin(o.seqs_admitted, o.max_num_seqs); n++)
                        grid[n] = c, c = c < 600 ? c + 1 : c * 1.05;
                    gpuecon_infer_point pts[700];
                    assert_int_equal(gpuecon_infer_sweep(&r, grid, n, pts, &err), 0);
                    for (size_t j = 1; j < n; j++)
                        if (pts[j].step.step_s < pts[j - 1].step.step_s * (1 - 1e-12))
                            fail_msg("%s %s on %s TP %d: %.6f ms at %g, %.6f ms at %g", stacks[k], r.model->name,
                                     systems[s], tp, pts[j - 1].step.step_s * 1e3, grid[j - 1],
                                     pts[j].step.step_s * 1e3, grid[j]);
                    swept++;
                }
    assert_true(swept > 30);
}

/* The calibration target: on the rows each stack's constants were fitted on, median
 * |error| <= 5% per stack (published figures: TensorRT-LLM's Llama 3.1 8B table, InferenceMAX's
 * vLLM gpt-oss-120b and SGLang DeepSeek-R1 runs; validate_serving.c lists them). */
static void test_fitted_rows_per_stack(void **state)
{
    fixture *f = *state;
    static gpuecon_validate_row rows[GPUECON_VALIDATE_SERVING_MAX];
    size_t n = 0;
    gpuecon_error err;
    assert_int_equal(gpuecon_validate_serving(f->ctx, f->cat, rows, GPUECON_VALIDATE_SERVING_MAX, &n, &err), 0);
    static const struct {
        const char *stack, *prefix;
    } groups[] = {{"trtllm", "TRTLLM-"}, {"vllm-v1", "OSS-VLLM-"}, {"sglang", "DSR1-SGL-"}};
    for (size_t g = 0; g < 3; g++) {
        double e[32];
        size_t k = 0;
        for (size_t i = 0; i < n && k < 32; i++)
            if (rows[i].fitted_on && !strncmp(rows[i].id, groups[g].prefix, strlen(groups[g].prefix)))
                e[k++] = fabs(rows[i].rel_err);
        assert_true(k >= 1);
        for (size_t a = 1; a < k; a++) /* insertion sort for the median */
            for (size_t b = a; b > 0 && e[b] < e[b - 1]; b--) {
                double t = e[b];
                e[b] = e[b - 1];
                e[b - 1] = t;
            }
        double med = k % 2 ? e[k / 2] : 0.5 * (e[k / 2 - 1] + e[k / 2]);
        if (!(med <= 0.05))
            fail_msg("stack %s: fitted rows' median |error| %.1f%% > 5%%", groups[g].stack, 100 * med);
    }
}

/* A buffer shorter than the serving table is an error, never a silently shorter table (rows past
 * a 128-row cap were once dropped without a word when the table grew to 131). */
static void test_serving_cap(void **state)
{
    fixture *f = *state;
    static gpuecon_validate_row rows[GPUECON_VALIDATE_SERVING_MAX];
    size_t n = 0, all = 0;
    gpuecon_error err;
    assert_int_equal(gpuecon_validate_serving(f->ctx, f->cat, rows, GPUECON_VALIDATE_SERVING_MAX, &all, &err), 0);
    assert_true(all > 10);
    memset(&err, 0, sizeof err);
    assert_int_equal(gpuecon_validate_serving(f->ctx, f->cat, rows, all - 1, &n, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "fewer than the table's"));
}

/* A group's signed median has one sign for optimism: a TPOT row 50% short of the published (the model
 * twice as fast) is +100% there, beside a throughput row 20% high (+20%); the median of the two is
 * +60% (the rows' rel_err were -50% and +20%: a plain median would say -15%, the model slower). */
static void test_signed_median_orientation(void **state)
{
    (void)state;
    gpuecon_validate_row rows[2];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 2; i++)
        snprintf(rows[i].cls, sizeof rows[i].cls, "sglang-hopper-bf16");
    snprintf(rows[0].metric, sizeof rows[0].metric, "TPOT ms at 1");
    rows[0].rel_err = -0.5;
    snprintf(rows[1].metric, sizeof rows[1].metric, "in+out tok/s at 1");
    rows[1].rel_err = 0.2;
    gpuecon_validate_group g[2];
    assert_int_equal(gpuecon_validate_groups(rows, 2, GPUECON_ROWS_ALL, g, 2), 1);
    assert_float_equal(g[0].signed_median_err, 0.6, 1e-12);
    assert_float_equal(g[0].median_abs_err, 0.35, 1e-12); /* |rel_err| unchanged: 0.5 and 0.2 */
    gpuecon_validate_summary sum; /* the serving summary's signed median, the same way */
    gpuecon_validate_summarize(rows, 2, NULL, false, GPUECON_ROWS_ALL, &sum);
    assert_float_equal(sum.signed_median_err, 0.6, 1e-12);
    assert_float_equal(sum.median_abs_err, 0.35, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_counts),
        cmocka_unit_test(test_host_launch_bound),
        cmocka_unit_test(test_scheduler_overlap),
        cmocka_unit_test(test_ep_straggler),
        cmocka_unit_test(test_stacks_monotone),
        cmocka_unit_test(test_fitted_rows_per_stack),
        cmocka_unit_test(test_serving_cap),
        cmocka_unit_test(test_signed_median_orientation),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
