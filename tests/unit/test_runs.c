/*
 * test_runs.c — the RUNS.yaml reader of `gpuecon calibrate` (src/io/runs.c): a good file read whole
 * (options as text, figures converted to their units), each bad input refused at its path:line:col
 * with what is allowed; and the calibrations overlay kind (src/io/schema_calibration.c,
 * src/io/catalog_calibration.c): loaded with its provenance, refused when it sets anything but a
 * measured scale, and the most specific entry found.
 */
#include "test_util.h"

#include <string.h>

static gpuecon_ctx *new_ctx(void)
{
    gpuecon_ctx_config cfg = {0};
    return gpuecon_ctx_new(&cfg);
}

static const char good[] = "runs:\n"
                           "  - command: train\n"             /* line 2 */
                           "    model: llama3-8b\n"
                           "    prompt-len: 1024\n"
                           "    tp-across-nodes: true\n"
                           "    sweep-gpus: [8, 16]\n"
                           "    measured: {step_time: \"850 ms\", tokens_per_s_per_gpu: 5800}\n"
                           "  - command: infer\n"             /* line 8 */
                           "    measured:\n"
                           "      tpot_s: 0.012\n"
                           "      ttft: \"1.5 s\"\n"
                           "  - command: nccl\n"
                           "    measured: {busbw_gbps: 360}\n"
                           "  - command: finetune\n"         /* line 14 */
                           "    model: gemma4-31b\n"
                           "    measured: {tokens_per_s: 4746, step: \"6900 ms\", tokens_per_s_per_gpu: 593}\n";

static void test_good(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    runs_file f;
    gpuecon_error err;
    assert_int_equal(runs_parse(ctx, "dir/runs.yaml", good, strlen(good), &f, &err), GPUECON_OK);
    assert_int_equal(f.n, 4);
    const runs_entry *r = &f.runs[0];
    assert_int_equal(r->command, RUNS_TRAIN);
    assert_int_equal(r->line, 2);
    assert_int_equal(r->n_opts, 4);
    assert_string_equal(runs_option_get(r, "prompt_len")->text, "1024"); /* dashes and underscores alike */
    assert_int_equal(runs_option_get(r, "prompt-len")->line, 4);
    assert_true(runs_option_get(r, "tp-across-nodes")->is_bool);
    assert_string_equal(runs_option_get(r, "sweep-gpus")->text, "8,16");
    assert_null(runs_option_get(r, "measured"));
    assert_int_equal(r->n_values, 2);
    assert_int_equal(r->values[0].figure, RUNS_STEP_TIME_S);
    assert_near(r->values[0].value, 0.85, 1e-12); /* 850 ms in s */
    assert_near(r->values[1].value, 5800, 0);
    r = &f.runs[1];
    assert_int_equal(r->command, RUNS_INFER);
    assert_int_equal(r->values[0].figure, RUNS_TPOT_MS);
    assert_near(r->values[0].value, 12, 1e-9); /* 0.012 s in ms */
    assert_int_equal(r->values[1].figure, RUNS_TTFT_MS);
    assert_near(r->values[1].value, 1500, 1e-9);
    assert_int_equal(r->values[0].line, 10);
    assert_int_equal(f.runs[2].values[0].figure, RUNS_BUSBW_GBPS);
    r = &f.runs[3]; /* finetune: its JSON's figure names, a step time with its unit */
    assert_int_equal(r->command, RUNS_FINETUNE);
    assert_int_equal(r->line, 14);
    assert_string_equal(runs_command_name(r->command), "finetune");
    assert_int_equal(r->n_values, 3);
    assert_int_equal(r->values[0].figure, RUNS_TOKENS_PER_S);
    assert_near(r->values[0].value, 4746, 0);
    assert_int_equal(r->values[1].figure, RUNS_STEP_S);
    assert_near(r->values[1].value, 6.9, 1e-12); /* 6900 ms in s */
    assert_string_equal(runs_figure_name(r->values[1].figure), "step_s");
    assert_int_equal(r->values[2].figure, RUNS_TOKENS_PER_S_PER_GPU);
    runs_free(&f);
    /* inline (a request's options.runs): the same document, but a log: is refused, no file is read */
    assert_int_equal(runs_parse_text(ctx, "runs", good, strlen(good), &f, &err), GPUECON_OK);
    assert_int_equal(f.n, 4);
    runs_free(&f);
    static const char with_log[] = "runs:\n  - command: train\n    log: /etc/hostname\n";
    assert_int_equal(runs_parse_text(ctx, "runs", with_log, strlen(with_log), &f, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.column, 10);
    assert_non_null(strstr(err.message, "reads no files"));
    gpuecon_ctx_free(ctx);
}

typedef struct bad_case {
    const char *yaml;
    int line, col;
    const char *says;
} bad_case;

static void test_bad(void **state)
{
    (void)state;
    /* columns counted by hand: "    measured: {" puts a figure's key at column 16 */
    static const bad_case cases[] = {
        {"runs: []\n", 1, 1, "1 to 64 runs"}, /* an empty list: at its key */
        {"run:\n  - command: train\n", 1, 1, "runs:"},
        {"runs:\n  - command: train\n    measured: {tpot_ms: 3}\n", 3, 16, "not what a train run measures"},
        {"runs:\n  - command: trian\n    measured: {step_time_s: 1}\n", 2, 14, "did you mean 'train'"},
        {"runs:\n  - model: x\n    measured: {step_time_s: 1}\n", 2, 5, "command: is required"},
        {"runs:\n  - command: train\n    model: x\n", 2, 5, "needs measured:"},
        {"runs:\n  - command: train\n    log: a.log\n    measured: {step_time_s: 1}\n", 3, 10, "not both"},
        /* the unit missing: file:line:col and the units allowed */
        {"runs:\n  - command: train\n    measured: {step_time: 1.23}\n", 3, 27, "no unit"},
        {"runs:\n  - command: train\n    measured: {step_time: \"1.23 h\"}\n", 3, 28, "s, ms, us"}, /* inside the quotes */
        {"runs:\n  - command: train\n    measured: {step_time_s: 0}\n", 3, 29, "above 0"},
        {"runs:\n  - command: train\n    measured: {step_time_s: -1}\n", 3, 29, "above 0"},
        {"runs:\n  - command: train\n    measured: {tokens_per_s_per_gp: 1}\n", 3, 16, "did you mean 'tokens_per_s_per_gpu'"},
        /* finetune's figures (its JSON's names) are a finetune run's only, and it measures no other */
        {"runs:\n  - command: train\n    measured: {tokens_per_s: 1}\n", 3, 16, "not what a train run measures"},
        {"runs:\n  - command: finetun\n    measured: {step_s: 1}\n", 2, 14, "did you mean 'finetune'"},
        {"runs:\n  - command: finetune\n    measured: {step_time_s: 7.8}\n", 3, 16, "not what a finetune run measures"},
        {"runs:\n  - command: finetune\n    measured: {tpot_ms: 3}\n", 3, 16, "allowed: tokens_per_s, tokens_per_s_per_gpu, step_s"},
        {"runs:\n  - command: finetune\n    measured: {step: 7.8}\n", 3, 22, "no unit"},
        {"runs:\n  - command: finetune\n    measured: {step: \"7.8 min\"}\n", 3, 23, "s, ms, us"},
        {"runs:\n  - command: finetune\n    measured: {tokens_per_s: 0}\n", 3, 30, "above 0"},
        {"runs:\n  - command: finetune\n    measured: {step_s: 7.8, step_ms: 7800}\n", 3, 29, "given twice"},
        {"runs:\n  - command: finetune\n    model: gemma4-31b\n", 2, 5, "tokens_per_s, tokens_per_s_per_gpu, step_s"},
        {"runs:\n  - command: train\n    measured: {step_time_s: 1, step_time_ms: 1000}\n", 3, 32, "given twice"},
        {"runs:\n  - command: train\n    measured: {tokens_per_s_per_gpu: fast}\n", 3, 38, "not a number"},
        {"runs:\n  - command: train\n    model: {name: x}\n    measured: {step_time_s: 1}\n", 3, 13, "expected a value"},
        {"runs:\n  - command: gemm\n    measured: 5\n", 3, 15, "mapping of figures"},
        {"runs:\n  - command: train\n    measured: {step_time_s: 1}\nextra: 1\n", 4, 1, "runs: only"},
        {"runs:\n  - just text\n", 2, 5, "expected a mapping"},
    };
    gpuecon_ctx *ctx = new_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        runs_file f;
        gpuecon_error err;
        gpuecon_error_clear(&err);
        int rc = runs_parse(ctx, "runs.yaml", cases[i].yaml, strlen(cases[i].yaml), &f, &err);
        if (rc == GPUECON_OK || err.line != cases[i].line || err.column != cases[i].col ||
            !strstr(err.message, cases[i].says) || strcmp(err.where, "runs.yaml")) {
            print_error("case %zu: rc %d at %s:%d:%d: %s (expected %d:%d '%s')\n", i, rc, err.where, err.line,
                        err.column, err.message, cases[i].line, cases[i].col, cases[i].says);
            fail();
        }
        assert_true(gpuecon_exit_code(rc) == 2);
    }
    gpuecon_ctx_free(ctx);
}

/* ---- the calibrations kind ---- */

static const char overlay[] =
    "calibrations:\n"
    "  - name: any-h100\n"
    "    system: hgx-h100\n"
    "    stage: measured\n"
    "    source: \"runs.yaml:2 (run 1)\"\n"
    "    gemm_scale: {value: 0.9, stage: measured, source: \"runs.yaml:2 (run 1, tokens_per_s_per_gpu 5800)\"}\n"
    "  - name: tt-h100-bf16\n"
    "    workload: train\n"
    "    stack: torchtitan-2024-eager\n"
    "    system: hgx-h100\n"
    "    precision: bf16\n"
    "    stage: measured\n"
    "    source: \"runs.yaml:9\"\n"
    "    kernel_scale: 2\n"
    "    runs: 3\n"
    "  - name: peft-a100\n"           /* a fine-tuning calibration (gpuecon calibrate, command: finetune) */
    "    workload: finetune\n"
    "    stack: hf-peft-eager\n"
    "    system: hgx-a100\n"
    "    precision: bf16\n"
    "    gemm_scale: {value: 1.2, stage: measured, source: \"runs.yaml:20 (run 3, tokens_per_s 4746)\"}\n";

static void test_overlay(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    assert_int_equal(gpuecon_catalog_count(cat, GPUECON_KIND_CALIBRATION), 0); /* none built in */
    assert_null(gpuecon_catalog_calibration(cat, 0, "torchtitan-2024-eager", "hgx-h100", GPUECON_BF16));
    assert_int_equal(gpuecon_catalog_load_buffer(cat, GPUECON_KIND_CALIBRATION, "calibrations.yaml", overlay,
                                                 strlen(overlay), &err),
                     GPUECON_OK);
    /* the stack-specific entry wins where it matches; the system-wide one elsewhere */
    const gpuecon_calibration *c = gpuecon_catalog_calibration(cat, 0, "torchtitan-2024-eager", "hgx-h100", GPUECON_BF16);
    assert_non_null(c);
    assert_string_equal(c->name, "tt-h100-bf16");
    assert_near(gpuecon_calibration_scale(c, GPUECON_CAL_KERNEL), 2, 0);
    assert_near(gpuecon_calibration_scale(c, GPUECON_CAL_GEMM), 1, 0);
    assert_int_equal(c->runs, 3);
    c = gpuecon_catalog_calibration(cat, 2, "vllm-v1", "hgx-h100", GPUECON_FP8); /* any workload and precision */
    assert_non_null(c);
    assert_string_equal(c->name, "any-h100");
    assert_int_equal(c->workload, -1);
    assert_int_equal(c->precision, -1);
    assert_null(c->stack);
    assert_near(c->scale[GPUECON_CAL_GEMM], 0.9, 1e-12);
    assert_string_equal(c->scale_source[GPUECON_CAL_GEMM], "runs.yaml:2 (run 1, tokens_per_s_per_gpu 5800)");
    assert_null(gpuecon_catalog_calibration(cat, 0, "torchtitan-2024-eager", "hgx-b200", GPUECON_BF16));
    /* the fine-tuning entry is finetune's alone: training on the same system and stack name does not take it */
    c = gpuecon_catalog_calibration(cat, 1, "hf-peft-eager", "hgx-a100", GPUECON_BF16);
    assert_non_null(c);
    assert_string_equal(c->name, "peft-a100");
    assert_int_equal(c->workload, 1);
    assert_null(gpuecon_catalog_calibration(cat, 0, "hf-peft-eager", "hgx-a100", GPUECON_BF16));
    assert_null(gpuecon_catalog_calibration(cat, 1, "hf-peft-compile", "hgx-a100", GPUECON_BF16));
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* Anything but a measured scale of a known system and stack is refused, and the catalog is unchanged. */
static void test_overlay_refused(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *says;
    } cases[] = {
        {"calibrations:\n  - name: a\n    peak_bf16_tflops: 2000\n", "unknown field 'peak_bf16_tflops'"},
        {"calibrations:\n  - name: a\n    gemm_scale: {value: 1.2, stage: assumption, source: x}\n", "stage: measured"},
        {"calibrations:\n  - name: a\n    system: hgx-h10\n", "not in the catalog"},
        {"calibrations:\n  - name: a\n    stack: torchtitan\n", "neither in the catalog"},
        {"calibrations:\n  - name: a\n    gemm_scale: 1000\n", "gemm_scale"},
        {"calibrations:\n  - name: a\n    workload: pretrain\n", "finetune"}, /* the workloads allowed named */
    };
    gpuecon_ctx *ctx = new_ctx();
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuecon_error_clear(&err);
        int rc = gpuecon_catalog_load_buffer(cat, GPUECON_KIND_CALIBRATION, "calibrations.yaml", cases[i].yaml,
                                             strlen(cases[i].yaml), &err);
        if (rc == GPUECON_OK || gpuecon_exit_code(rc) != 2 || !strstr(err.message, cases[i].says) || err.line != 3) {
            print_error("case %zu: rc %d at %d:%d: %s\n", i, rc, err.line, err.column, err.message);
            fail();
        }
        assert_int_equal(gpuecon_catalog_count(cat, GPUECON_KIND_CALIBRATION), 0);
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* A fine-tuning calibration as gpuecon finetune applies it (src/model/finetune.c), by hand: without a
 * stack on one GPU the step is tokens x FLOPs per token / (peak x eta_train) and nothing else, so a GEMM
 * scale s divides it by s exactly; with a stack, the kernel scale multiplies the host launch time, so
 * host_s (kernels x launch time) doubles with kernel_scale 2; an explicit efficiency is the user's and
 * no GEMM scale moves it; across 8 GPUs a comm scale above 1 shortens the FSDP collectives. */
static void test_finetune_calibrated(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    gpuecon_finetune_request r;
    gpuecon_finetune_request_init(&r);
    r.model = gpuecon_catalog_model(cat, "llama3-8b");
    r.system = gpuecon_catalog_system(cat, "hgx-h100");
    r.gpus = 1;
    gpuecon_finetune_result a, b;
    assert_int_equal(gpuecon_finetune(&r, &a, &err), GPUECON_OK);
    gpuecon_calibration c = {.scale = {1.25, 1, 1, 1}, .precision = -1};
    r.calibration = &c;
    assert_int_equal(gpuecon_finetune(&r, &b, &err), GPUECON_OK);
    assert_close(b.step_s, a.step_s / 1.25, 1e-12);
    r.efficiency = 0.3; /* the user's own: not scaled */
    assert_int_equal(gpuecon_finetune(&r, &b, &err), GPUECON_OK);
    r.calibration = NULL;
    assert_int_equal(gpuecon_finetune(&r, &a, &err), GPUECON_OK);
    assert_close(b.step_s, a.step_s, 1e-12);
    r.efficiency = 0;
    r.stack = gpuecon_catalog_stack(cat, "hf-peft-eager");
    assert_int_equal(gpuecon_finetune(&r, &a, &err), GPUECON_OK);
    gpuecon_calibration k = {.scale = {1, 1, 2, 1}, .precision = -1};
    r.calibration = &k;
    assert_int_equal(gpuecon_finetune(&r, &b, &err), GPUECON_OK);
    assert_close(b.host_s, 2 * a.host_s, 1e-12);
    assert_true(b.step_s > a.step_s);
    r.gpus = 8;
    r.calibration = NULL;
    assert_int_equal(gpuecon_finetune(&r, &a, &err), GPUECON_OK);
    gpuecon_calibration m = {.scale = {1, 1, 1, 1.2}, .precision = -1};
    r.calibration = &m;
    assert_int_equal(gpuecon_finetune(&r, &b, &err), GPUECON_OK);
    assert_true(a.comm_s > 0 && b.comm_s < a.comm_s);
    assert_close(b.compute_s, a.compute_s, 1e-12);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* A GEMM microbenchmark as the training model times it (src/model/microbench.c), by hand: H100 SXM,
 * BF16, 8192^3. FLOPs 2·8192^3 = 1.0995e12; at the dense BF16 peak P times the GEMM fraction e_g the
 * compute time is 1.0995e12 / (P·e_g), far above the operand traffic (3·8192²·2 B = 403 MB at ~3 TB/s
 * = 0.13 ms), plus the per-kernel time k. So TFLOP/s = 1.0995 / (1.0995/(P·e_g) + k) with P in TFLOP/s;
 * a GEMM scale s multiplies e_g. */
static void test_gemm_tflops(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), GPUECON_OK);
    const gpuecon_system *s = gpuecon_catalog_system(cat, "hgx-h100");
    const gpuecon_efficiency *e = gpuecon_efficiency_for(s->gpu);
    double P = gpuecon_gpu_peak_flops(s->gpu, GPUECON_BF16) / 1e12, f = 2.0 * 8192 * 8192 * 8192 / 1e12;
    double expect = f / (f / (P * e->gemm_bf16) + e->kernel_s);
    assert_close(gpuecon_gemm_tflops(s, GPUECON_BF16, NULL, 8192, 8192, 8192), expect, 1e-9);
    gpuecon_calibration c = {.scale = {1.1, 1, 1, 1}};
    double expect2 = f / (f / (P * e->gemm_bf16 * 1.1) + e->kernel_s);
    assert_close(gpuecon_gemm_tflops(s, GPUECON_BF16, &c, 8192, 8192, 8192), expect2, 1e-9);
    assert_near(gpuecon_gemm_tflops(s, GPUECON_BF16, NULL, 0, 8192, 8192), 0, 0);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),    cmocka_unit_test(test_bad),         cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_overlay_refused), cmocka_unit_test(test_gemm_tflops),
        cmocka_unit_test(test_finetune_calibrated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
