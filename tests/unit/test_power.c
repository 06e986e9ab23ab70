/*
 * test_power.c — a GPU under a board power limit (src/model/power.c, docs/model.md §9.2): the
 * DVFS clock relation with hand-derived numbers, the settable range, a system at a limit (clock
 * and IT power), the catalog's default limit (grand-teton-h100) and the step's tensor-core rate.
 */
#include "train_util.h"

#include "model/train.h"

#include <string.h>

/* f(P)/f(P_max) = cbrt((P - P_idle) / (P_max - P_idle)), with the catalog's H100 SXM
 * (P_idle 72 W, P_max 700 W) and A100 SXM4 (60 W, 400 W):
 *   H100 at 500 W: cbrt(428 / 628) = cbrt(0.681529) = 0.880025  (0.88^3 = 0.681472)
 *   H100 at 200 W: cbrt(128 / 628) = cbrt(0.203822) = 0.588505  (0.5885^3 = 0.203818)
 *   A100 at 300 W: cbrt(240 / 340) = cbrt(0.705882) = 0.890384  (0.8904^3 = 0.705920)
 * At and above the board maximum, and with no limit (0), the clock is the board maximum's. */
static void test_clock_relation(void **state)
{
    const gpuecon_gpu *h100 = gpuecon_catalog_gpu(CAT(state), "h100-sxm");
    const gpuecon_gpu *a100 = gpuecon_catalog_gpu(CAT(state), "a100-80g");
    assert_close(gpuecon_power_clock_factor(h100, 500), 0.880025, 1e-5);
    assert_close(gpuecon_power_clock_factor(h100, 200), 0.588505, 1e-5);
    assert_close(gpuecon_power_clock_factor(a100, 300), 0.890384, 1e-5);
    assert_close(gpuecon_power_clock_factor(h100, 700), 1.0, 1e-15);
    assert_close(gpuecon_power_clock_factor(h100, 0), 1.0, 1e-15);
    /* monotone: a lower limit never gives a higher clock */
    double last = 2;
    for (double p = 700; p >= 200; p -= 25) {
        double f = gpuecon_power_clock_factor(h100, p);
        assert_true(f <= last && f > 0);
        last = f;
    }
    /* A GPU without an idle power keeps its clock (no relation to apply). */
    gpuecon_gpu g = *h100;
    g.idle_w = 0;
    assert_close(gpuecon_power_clock_factor(&g, 500), 1.0, 1e-15);
}

/* torchtitan's footnote on its 500 W Grand Teton H100s: "the actual peak TFLOPs number is between
 * SXM and NVL" (pytorch/torchtitan@eaea6f6a docs/performance.md): between the NVL's 835 and the
 * SXM's 989 dense BF16 TFLOPS. The relation puts it at 989 x 0.880 = 870. And DeepSeek's H800
 * (the same die at 700 W) sustains ~1,600 MHz under a compute-bound kernel
 * (deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md): at 500 W that becomes
 * 1,600 x 0.880 = 1,408 MHz. */
static void test_published_bounds(void **state)
{
    const gpuecon_system *gt = gpuecon_catalog_system(CAT(state), "grand-teton-h100");
    assert_non_null(gt);
    assert_close(gt->power_limit_w, 500, 1e-15);
    assert_close(gt->clock_factor, 0.880025, 1e-5);
    double peak = gt->gpu->peak_bf16_tflops * gt->clock_factor;
    assert_true(peak > 835 && peak < 989);
    assert_close(1600 * gt->clock_factor, 1408.0, 1e-3);
    /* the catalog's other systems run at their board maximum */
    assert_close(gpuecon_catalog_system(CAT(state), "hgx-h100")->clock_factor, 1.0, 1e-15);
}

/* The settable range is [min_power_w, tdp_w]: H100 SXM 200..700 W (nvidia-smi), A100 100..400 W. */
static void test_range(void **state)
{
    const gpuecon_gpu *h100 = gpuecon_catalog_gpu(CAT(state), "h100-sxm");
    gpuecon_error err;
    assert_int_equal(gpuecon_power_limit_check(h100, 200, "--power-limit", &err), GPUECON_OK);
    assert_int_equal(gpuecon_power_limit_check(h100, 700, "--power-limit", &err), GPUECON_OK);
    assert_int_equal(gpuecon_power_limit_check(h100, 199, "--power-limit", &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "--power-limit");
    assert_non_null(strstr(err.message, "allowed 200 to 700 W"));
    assert_int_equal(gpuecon_power_limit_check(h100, 701, "--power-limit", &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_power_limit_check(h100, NAN, "--power-limit", &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_power_limit_check(h100, -5, "--power-limit", &err), GPUECON_E_INPUT);
    gpuecon_gpu g = *h100;
    g.min_power_w = 0; /* no known minimum: only the board maximum */
    assert_int_equal(gpuecon_power_limit_check(&g, 600, "--power-limit", &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "no known minimum"));
    assert_int_equal(gpuecon_power_limit_check(&g, 700, "--power-limit", &err), GPUECON_OK);
}

/* A system at a limit: its clock factor, and IT power moved by the GPU's difference. hgx-h100
 * (1,375 W at 700 W) at 500 W: 1,175 W; grand-teton-h100 (1,175 W at 500 W) back at 700 W: 1,375 W. */
static void test_system_at_limit(void **state)
{
    const gpuecon_system *h = gpuecon_catalog_system(CAT(state), "hgx-h100");
    const gpuecon_system *gt = gpuecon_catalog_system(CAT(state), "grand-teton-h100");
    gpuecon_system buf;
    const gpuecon_system *out = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_system_at_power_limit(h, 500, "--power-limit", &buf, &out, &err), GPUECON_OK);
    assert_ptr_equal(out, &buf);
    assert_close(out->it_w_per_gpu, 1175, 1e-12);
    assert_close(out->clock_factor, 0.880025, 1e-5);
    assert_string_equal(out->name, "hgx-h100");
    assert_int_equal(gpuecon_system_at_power_limit(gt, 700, "--power-limit", &buf, &out, &err), GPUECON_OK);
    assert_close(out->it_w_per_gpu, 1375, 1e-12);
    assert_close(out->clock_factor, 1.0, 1e-15);
    assert_int_equal(gpuecon_system_at_power_limit(h, 0, "--power-limit", &buf, &out, &err), GPUECON_OK);
    assert_ptr_equal(out, h);
    out = NULL;
    assert_int_equal(gpuecon_system_at_power_limit(h, 150, "--power-limit", &buf, &out, &err), GPUECON_E_INPUT);
    assert_null(out);
}

/* The training step reads the clock once per request: the tensor-core rate is the dense peak x
 * the factor (989e12 x 0.880025 on hgx-h100 at 500 W), HBM keeps its rate, and MFU stays against
 * the nominal peak. */
static void test_step_rate(void **state)
{
    gpuecon_train_request q = req_for(state, "llama3-8b", "hgx-h100", 8, 4096, 32);
    train_static st;
    gpuecon_error err;
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    double peak = st.peak, hbm = st.hbm_bps;
    gpuecon_system buf;
    assert_int_equal(gpuecon_system_at_power_limit(q.system, 500, "--power-limit", &buf, &q.system, &err), 0);
    assert_int_equal(train_prepare(&q, &st, &err), 0);
    assert_close(st.peak, 989e12 * 0.880025, 1e-5);
    assert_close(st.peak / peak, 0.880025, 1e-5);
    assert_close(st.peak_nominal, 989e12, 1e-12);
    assert_close(st.hbm_bps, hbm, 1e-15);
}

/* A catalog entry's limit is checked where it is written: a system at 150 W on H100 SXM (200..700 W)
 * fails on its line, and the catalog is unchanged (all-or-nothing); a GPU whose minimum is above its
 * maximum, or whose idle draw is not below its lowest limit, fails too. */
static void test_catalog_entries(void **state)
{
    static const char *const sys =
        "systems:\n  - name: s\n    gpu_name: h100-sxm\n    gpus_per_node: 8\n    scaleup_gpus: 8\n"
        "    scaleup_gbps: 450\n    scaleout_gbps: 50\n    it_w_per_gpu: 1375\n    pue: 1.3\n"
        "    cooling: air\n    capex_usd_per_gpu: 1000\n    power_limit_w: 150\n";
    size_t n = gpuecon_catalog_count(CAT(state), GPUECON_KIND_SYSTEM);
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_load_buffer(CAT(state), GPUECON_KIND_SYSTEM, "t.yaml", sys, strlen(sys), &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 12);
    assert_non_null(strstr(err.message, "allowed 200 to 700 W"));
    assert_int_equal(gpuecon_catalog_count(CAT(state), GPUECON_KIND_SYSTEM), n);
    static const char *const gpu_min =
        "gpus:\n  - name: g\n    arch: hopper\n    peak_bf16_tflops: 1\n    hbm_gib: 80\n    hbm_tbps: 3\n"
        "    tdp_w: 700\n    min_power_w: 800\n";
    assert_int_equal(gpuecon_catalog_load_buffer(CAT(state), GPUECON_KIND_GPU, "t.yaml", gpu_min, strlen(gpu_min), &err),
                     GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "min_power_w (800) is above tdp_w (700)"));
    static const char *const gpu_idle =
        "gpus:\n  - name: g\n    arch: hopper\n    peak_bf16_tflops: 1\n    hbm_gib: 80\n    hbm_tbps: 3\n"
        "    tdp_w: 700\n    min_power_w: 200\n    idle_w: 250\n";
    assert_int_equal(gpuecon_catalog_load_buffer(CAT(state), GPUECON_KIND_GPU, "t.yaml", gpu_idle, strlen(gpu_idle), &err),
                     GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "idle_w (250) must be below the lowest power limit (200)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_relation), cmocka_unit_test(test_published_bounds),
        cmocka_unit_test(test_range),          cmocka_unit_test(test_system_at_limit),
        cmocka_unit_test(test_step_rate),      cmocka_unit_test(test_catalog_entries),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
