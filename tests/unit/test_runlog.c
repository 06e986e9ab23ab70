/*
 * test_runlog.c — the log readers of `gpuecon calibrate` (src/io/runlog.c): one excerpt of each
 * format written as the tool prints it (the source file and commit of each line shape are in
 * runlog.c's opening comment and docs/cli.md "Logs gpuecon calibrate reads"), the warm-up rule
 * worked by hand (the first max(1, n/5) report lines are left out; medians of the rest), ANSI
 * colour codes, CRLF, '\r' progress-bar redraws, truncated lines, an empty file, binary junk,
 * numbers that are malformed, huge, negative, NaN or infinite (an error at file:line:col), a
 * FIFO, the size cap and out of memory at every allocation.
 *
 * The figures in the excerpts are made up unless a test says where they come from; the expected
 * medians are worked from them by hand in each test's comment.
 */
#include "test_util.h"

#include "io/runlog.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gpuecon_ctx *ctx;

static int setup(void **state)
{
    (void)state;
    ctx = gpuecon_ctx_new(NULL);
    return ctx ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gpuecon_ctx_free(ctx);
    return 0;
}

static int parse(const char *text, runlog *log, gpuecon_error *err)
{
    gpuecon_error_clear(err);
    return runlog_parse(ctx, "run.log", text, strlen(text), log, err);
}

/* 1-based column of the first `needle` in line `line` (1-based) of text, plus `skip` bytes. */
static int col_of(const char *text, int line, const char *needle, int skip)
{
    const char *p = text;
    for (int i = 1; i < line; i++)
        p = strchr(p, '\n') + 1;
    return (int)(strstr(p, needle) - p) + 1 + skip;
}

/* ---- Megatron-LM ------------------------------------------------------------------------- */

/* Megatron-LM training_log() at NVIDIA/Megatron-LM@d98e8a64 (timestamp, throughput per GPU).
 * The first iteration (19138.8 ms) is left out (n = 6, warm-up max(1, 6/5) = 1). The other five
 * step times sorted: 12936.1, 12941.0, 12944.2, 12960.4, 13010.9 -> median 12944.2 ms = 12.9442 s.
 * TFLOP/s/GPU of the same five: 118.0, 118.5, 118.6, 118.6, 118.7 -> 118.6. */
static const char MEGATRON[] =
    "[Rank 0] (after 1 iterations) memory (MB) | allocated: 10770.3779296875 | max allocated: 15754.88818359375\n"
    " [2025-08-01 07:19:37] iteration        1/    5000 | consumed samples:          128 | elapsed time per "
    "iteration (ms): 19138.8 | throughput per GPU (TFLOP/s/GPU): 80.2 | learning rate: 6.976744E-08 | global batch "
    "size:   128 | lm loss: 1.043863E+01 | loss scale: 1.0 | grad norm: 26.203 | number of skipped iterations:   0 | "
    "number of nan iterations:   0 |\n"
    " [2025-08-01 07:19:50] iteration        2/    5000 | consumed samples:          256 | elapsed time per "
    "iteration (ms): 12936.1 | throughput per GPU (TFLOP/s/GPU): 118.7 | learning rate: 1.395349E-07 | global "
    "batch size:   128 | lm loss: 1.044022E+01 | loss scale: 1.0 | grad norm: 26.305 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    " [2025-08-01 07:20:03] iteration        3/    5000 | consumed samples:          384 | elapsed time per "
    "iteration (ms): 12960.4 | throughput per GPU (TFLOP/s/GPU): 118.5 | learning rate: 2.093023E-07 | global "
    "batch size:   128 | lm loss: 1.043000E+01 | loss scale: 1.0 | grad norm: 25.100 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    " [2025-08-01 07:20:16] iteration        4/    5000 | consumed samples:          512 | elapsed time per "
    "iteration (ms): 12941.0 | throughput per GPU (TFLOP/s/GPU): 118.6 | learning rate: 2.790698E-07 | global "
    "batch size:   128 | lm loss: 1.041000E+01 | loss scale: 1.0 | grad norm: 24.900 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    " [2025-08-01 07:20:29] iteration        5/    5000 | consumed samples:          640 | elapsed time per "
    "iteration (ms): 13010.9 | throughput per GPU (TFLOP/s/GPU): 118.0 | learning rate: 3.488372E-07 | global "
    "batch size:   128 | lm loss: 1.039000E+01 | loss scale: 1.0 | grad norm: 24.000 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    " [2025-08-01 07:20:42] iteration        6/    5000 | consumed samples:          768 | elapsed time per "
    "iteration (ms): 12944.2 | throughput per GPU (TFLOP/s/GPU): 118.6 | learning rate: 4.186047E-07 | global "
    "batch size:   128 | lm loss: 1.037000E+01 | loss scale: 1.0 | grad norm: 23.500 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n";

static void test_megatron(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(MEGATRON, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MEGATRON);
    assert_string_equal(runlog_format_name(log.format), "megatron");
    assert_close(log.step_time_s, 12.9442, 1e-12);
    assert_close(log.tflops_per_gpu, 118.6, 1e-12);
    assert_close(log.global_batch, 128, 0);
    assert_int_equal(log.steps, 5);
    assert_int_equal(log.warmup, 1);
    assert_int_equal(log.line, 3); /* line 1 is the memory report, line 2 the warm-up iteration */
    assert_int_equal(log.last_line, 7);
    assert_true(log.tokens_per_s_per_gpu == 0 && log.mfu == 0); /* not printed */
    runlog_free(ctx, &log);
}

/* Megatron-LM prints its arguments first (arguments.py _print_args: "  seq_length ....... 4096");
 * with seq_length and world_size the reader derives tokens/s/GPU. Three reports, warm-up 1:
 * median of 12936.1 and 12960.4 ms = 12948.25 ms. 128 sequences x 4096 tokens = 524288 tokens a
 * step, / 12.94825 s = 40490.8 tokens/s, / 8 GPUs = 5061.3 tokens/s/GPU. */
static void test_megatron_derived_tokens(void **state)
{
    (void)state;
    static const char text[] =
        "------------------------ arguments ------------------------\n"
        "  global_batch_size ............................... 128\n"
        "  seq_length ...................................... 4096\n"
        "  tensor_model_parallel_size ...................... 2\n"
        "  world_size ...................................... 8\n"
        "-------------------- end of arguments ---------------------\n"
        " [2025-08-01 07:19:37] iteration        1/    5000 | consumed samples:          128 | elapsed time per "
        "iteration (ms): 19138.8 | global batch size:   128 | lm loss: 1.043863E+01 |\n"
        " [2025-08-01 07:19:50] iteration        2/    5000 | consumed samples:          256 | elapsed time per "
        "iteration (ms): 12936.1 | global batch size:   128 | lm loss: 1.044022E+01 |\n"
        " [2025-08-01 07:20:03] iteration        3/    5000 | consumed samples:          384 | elapsed time per "
        "iteration (ms): 12960.4 | global batch size:   128 | lm loss: 1.043000E+01 |\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_close(log.step_time_s, 12.94825, 1e-12);
    assert_close(log.seq_len, 4096, 0);
    assert_int_equal(log.ranks, 8);
    assert_true(log.tokens_derived);
    assert_close(log.tokens_per_s_per_gpu, 5061.3, 1e-4);
    runlog_free(ctx, &log);
    /* without the arguments block nothing is derived (test_megatron: tokens 0, not derived) */
    assert_int_equal(parse(MEGATRON, &log, &err), GPUECON_OK);
    assert_false(log.tokens_derived);
    assert_int_equal(log.ranks, 0);
    runlog_free(ctx, &log);
}

/* An older Megatron-LM line (no timestamp, no throughput), ten reports: warm-up 10/5 = 2 lines
 * (20000 and 15000 ms). The other eight sorted: 13090, 13095, 13100, 13105, 13110, 13115, 13120,
 * 13300 -> median (13105 + 13110)/2 = 13107.5 ms. CRLF line ends read the same. */
static void test_megatron_old_crlf(void **state)
{
    (void)state;
    static const double ms[10] = {20000, 15000, 13100, 13120, 13090, 13110, 13300, 13105, 13095, 13115};
    char text[4096] = "";
    for (int i = 0; i < 10; i++) {
        char l[400];
        snprintf(l, sizeof l,
                 " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning "
                 "rate: 1.200E-05 | global batch size: %5d | lm loss: 1.100000E+01 | loss scale: 1.0 | number of "
                 "skipped iterations:   0 | number of nan iterations:   0 |\r\n",
                 (i + 1) * 10, 50000, (i + 1) * 640, ms[i], 64);
        strcat(text, l);
    }
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MEGATRON);
    assert_close(log.step_time_s, 13.1075, 1e-12);
    assert_int_equal(log.steps, 8);
    assert_int_equal(log.warmup, 2);
    assert_int_equal(log.line, 3);
    assert_true(log.tflops_per_gpu == 0);
    assert_close(log.global_batch, 64, 0);
    runlog_free(ctx, &log);
}

/* Megatron-Bridge (train_utils.py at NVIDIA-NeMo/Megatron-Bridge@067f987d): each step prints
 * "Step Time : %.2fs GPU utilization: %.1fMODEL_TFLOP/s/GPU" and the Megatron iteration line
 * (here without throughput). Ten steps; warm-up 2. Step times (iteration lines) of steps 3-10
 * sorted: 7141.8, 7154.0, 7154.5, 7178.3, 7184.5, 7199.5, 7203.4, 7244.7 -> (7178.3 + 7184.5)/2 =
 * 7181.4 ms. TFLOP/s/GPU of steps 3-10 sorted: 2031.9, 2043.5, 2044.6, 2048.9, 2050.6, 2057.5,
 * 2057.6, 2061.1 -> (2048.9 + 2050.6)/2 = 2049.75. */
static void test_megatron_bridge(void **state)
{
    (void)state;
    static const double ms[10] = {105795.8, 7147.6, 7154.0, 7178.3, 7199.5, 7244.7, 7203.4, 7184.5, 7154.5, 7141.8};
    static const double tf[10] = {139.2, 2059.5, 2057.6, 2050.6, 2044.6, 2031.9, 2043.5, 2048.9, 2057.5, 2061.1};
    char text[6000] = "";
    for (int i = 0; i < 10; i++) {
        char l[500];
        snprintf(l, sizeof l,
                 "Step Time : %.2fs GPU utilization: %.1fMODEL_TFLOP/s/GPU\n"
                 " [2025-12-22 15:18:33] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration "
                 "(ms): %.1f | learning rate: 3.000000E-05 | global batch size:   512 | lm loss: 8.114214E+00 | "
                 "loss scale: 1.0 | grad norm: 0.042 | number of skipped iterations:   0 | number of nan "
                 "iterations:   0 |\n",
                 ms[i] / 1000, tf[i], i + 1, 10, (i + 1) * 512, ms[i]);
        strcat(text, l);
    }
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MEGATRON);
    assert_close(log.step_time_s, 7.1814, 1e-12);
    assert_close(log.tflops_per_gpu, 2049.75, 1e-12);
    assert_close(log.global_batch, 512, 0);
    assert_int_equal(log.steps, 8);
    runlog_free(ctx, &log);
}

/* ---- NeMo ---------------------------------------------------------------------------------- */

/* NeMo 2 ProgressPrinter (progress_printer.py at NVIDIA/NeMo@8cfedd72), log_interval 1, with the
 * FLOPs callback's TFLOPS_per_GPU. Five reports: warm-up 1 (7.126 s). Step times 2.505, 1.505,
 * 1.498, 1.512 sorted: 1.498, 1.505, 1.512, 2.505 -> (1.505 + 1.512)/2 = 1.5085 s. TFLOPS_per_GPU
 * is printed from iteration 1 on (4 reports, warm-up 1): 249.8, 251.2, 248.0 -> 249.8. */
static const char NEMO[] =
    "[NeMo I 2025-05-01 10:00:00 nemo_logging:393] Setting up ModelTransform for stage: TrainerFn.FITTING\n"
    "Training epoch 0, iteration 0/249 | lr: 1.961e-06 | global_batch_size: 8 | global_step: 0 | "
    "reduced_train_loss: 1.315 | train_step_timing in s: 7.126\n"
    "Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | global_step: 1 | "
    "reduced_train_loss: 1.653 | train_step_timing in s: 2.505 | consumed_samples: 16 | TFLOPS_per_GPU: 150.1\n"
    "Validation: iteration 1/2\n"
    "Training epoch 0, iteration 2/249 | lr: 5.882e-06 | global_batch_size: 8 | global_step: 2 | "
    "reduced_train_loss: 1.278 | train_step_timing in s: 1.505 | consumed_samples: 24 | TFLOPS_per_GPU: 249.8\n"
    "Training epoch 0, iteration 3/249 | lr: 7.843e-06 | global_batch_size: 8 | global_step: 3 | "
    "reduced_train_loss: 1.201 | train_step_timing in s: 1.498 | consumed_samples: 32 | TFLOPS_per_GPU: 251.2\n"
    "Training epoch 0, iteration 4/249 | lr: 9.804e-06 | global_batch_size: 8 | global_step: 4 | "
    "reduced_train_loss: 1.187 | train_step_timing in s: 1.512 | consumed_samples: 40 | TFLOPS_per_GPU: 248\n";

static void test_nemo(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(NEMO, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NEMO);
    assert_close(log.step_time_s, 1.5085, 1e-12);
    assert_close(log.tflops_per_gpu, 249.8, 1e-12);
    assert_close(log.global_batch, 8, 0);
    assert_int_equal(log.steps, 4);
    assert_int_equal(log.line, 3);
    assert_int_equal(log.last_line, 7);
    runlog_free(ctx, &log);
}

/* Lightning's tqdm bar (NeMo 1 / MegatronProgressBar): one file line of reports separated by '\r',
 * "train_step_timing in s=X", and tokens_per_sec_per_gpu (TimingCallback, log_tokens_per_sec).
 * Six reports, warm-up 1 (9.802 s): 3.210, 3.130, 3.150, 3.140, 3.125 sorted 3.125, 3.130, 3.140,
 * 3.150, 3.210 -> 3.140 s; tokens/s/GPU likewise 1021, 1047, 1040, 1044, 1049 -> 1044. */
static void test_nemo_tqdm(void **state)
{
    (void)state;
    static const double t[6] = {9.802, 3.210, 3.130, 3.150, 3.140, 3.125};
    static const double tps[6] = {334, 1021, 1047, 1040, 1044, 1049};
    char text[4096] = "";
    for (int i = 0; i < 6; i++) {
        char l[400];
        snprintf(l, sizeof l,
                 "Epoch 0: : %3d%%|\xe2\x96\x88         | %d/100 [00:%02d<10:30, reduced_train_loss=10.40, "
                 "global_step=%d.00, consumed_samples=%d.0, train_step_timing in s=%.3f, "
                 "tokens_per_sec_per_gpu=%.0f]\r",
                 i + 1, i + 1, i * 3, i, (i + 1) * 256, t[i], tps[i]);
        strcat(text, l);
    }
    strcat(text, "\n");
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NEMO);
    assert_close(log.step_time_s, 3.140, 1e-12);
    assert_close(log.tokens_per_s_per_gpu, 1044, 1e-12);
    assert_int_equal(log.steps, 5);
    assert_int_equal(log.line, 1);
    runlog_free(ctx, &log);
}

/* NeMo's DLLogger JSON lines ("train_step_timing in s": X), three steps: warm-up 1, median of
 * 92.287 and 92.101 = 92.194 s. */
static void test_nemo_dllogger(void **state)
{
    (void)state;
    static const char text[] =
        "DLLL {\"timestamp\": \"1739210331.717398\", \"type\": \"LOG\", \"step\": 15, \"data\": "
        "{\"reduced_train_loss\": "
        "10.9, \"train_step_timing in s\": 120.5, \"epoch\": 0}}\n"
        "DLLL {\"timestamp\": \"1739210423.9\", \"type\": \"LOG\", \"step\": 16, \"data\": {\"reduced_train_loss\": "
        "10.91420841217041, \"train_step_timing in s\": 92.287, \"epoch\": 0}}\n"
        "DLLL {\"timestamp\": \"1739210516.0\", \"type\": \"LOG\", \"step\": 17, \"data\": {\"reduced_train_loss\": "
        "10.8, \"train_step_timing in s\": 92.101, \"epoch\": 0}}\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NEMO);
    assert_close(log.step_time_s, 92.194, 1e-12);
    runlog_free(ctx, &log);
}

/* ---- torchtitan -------------------------------------------------------------------------- */

/* MetricsProcessor.log() at pytorch/torchtitan@b5bcd76c, colours as torchtitan/tools/utils.py
 * Color prints them; log_freq 10 (step 1, 10, 20, ...). Six reports, warm-up 1 (step 1).
 * tps 6,782 6,790 6,801 6,775 6,788 sorted 6775, 6782, 6788, 6790, 6801 -> 6788; tflops 392.91,
 * 393.37, 394.01, 392.50, 393.20 -> 393.20; mfu 39.73, 39.77, 39.84, 39.69, 39.76 % -> 0.3976.
 * The validation report (tps 9,999) is not a training step. */
#define TT(step, tps, tflops, mfu)                                                                                  \
    "[rank0]:[titan] 2025-03-01 10:00:00,000 - root - INFO - \x1b[31mstep: " step "  \x1b[32mloss:  9.8123  "      \
    "\x1b[38;2;180;60;0mgrad_norm:  1.2345  \x1b[38;2;54;234;195mmemory: 33.65GiB(42.56%)  \x1b[34mtps: " tps       \
    "  \x1b[36mtflops: " tflops "  \x1b[35mmfu: " mfu "\x1b[39m\n"
static const char TORCHTITAN[] =
    "[rank0]:[titan] 2025-03-01 09:59:00,000 - root - INFO - Training starts at step 1\n" TT(" 1", "1,024", "59.31",
                                                                                              "6.00%")
        TT("10", "6,782", "392.91", "39.73%") TT("20", "6,790", "393.37", "39.77%")
            TT("30", "6,801", "394.01", "39.84%") TT("40", "6,775", "392.50", "39.69%")
                "[rank0]:[titan] 2025-03-01 10:00:00,000 - root - INFO - \x1b[33mvalidate step: 50  \x1b[32mloss:  "
                "9.7000  \x1b[38;2;54;234;195mmemory: 33.65GiB(42.56%)  \x1b[34mtps: 9,999\x1b[39m\n"
                    TT("50", "6,788", "393.20", "39.76%");

static void test_torchtitan(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(TORCHTITAN, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_TORCHTITAN);
    assert_close(log.tokens_per_s_per_gpu, 6788, 1e-12);
    assert_close(log.tflops_per_gpu, 393.20, 1e-12);
    assert_close(log.mfu, 0.3976, 1e-12);
    assert_true(log.step_time_s == 0); /* torchtitan does not print it */
    assert_int_equal(log.steps, 5);
    assert_int_equal(log.line, 3);
    assert_int_equal(log.last_line, 8);
    runlog_free(ctx, &log);
}

/* Under FP8/MX torchtitan prints "mfu: N/A" (no MFU), and tflops above 999 with a thousands
 * separator; versions before torchtitan@4d182a13 printed "wps:" for the same figure. Three
 * reports, warm-up 1: tflops 1,234.56 and 1,236.00 -> 1235.28; tps 12,001 and 12,015 -> 12008. */
static void test_torchtitan_na_wps(void **state)
{
    (void)state;
    static const char text[] =
        "step:  1  loss: 12.0000  memory: 60.00GiB(75.00%)  tps: 3,000  tflops: 308.00  mfu: N/A\n"
        "step: 10  loss: 10.0000  memory: 60.00GiB(75.00%)  tps: 12,001  tflops: 1,234.56  mfu: N/A\n"
        "step: 20  loss:  9.0000  memory: 60.00GiB(75.00%)  tps: 12,015  tflops: 1,236.00  mfu: N/A\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_TORCHTITAN);
    assert_close(log.tflops_per_gpu, 1235.28, 1e-12);
    assert_close(log.tokens_per_s_per_gpu, 12008, 1e-12);
    assert_true(log.mfu == 0);
    runlog_free(ctx, &log);
    static const char old[] = "\x1b[36mstep:  1  \x1b[32mloss: 10.9000  \x1b[33mmemory: 33.65GiB(42.56%)  "
                              "\x1b[34mwps: 5,000  \x1b[35mmfu: 30.00%\x1b[39m\n"
                              "\x1b[36mstep: 10  \x1b[32mloss:  9.7000  \x1b[33mmemory: 33.65GiB(42.56%)  "
                              "\x1b[34mwps: 6,782  \x1b[35mmfu: 39.64%\x1b[39m\n";
    assert_int_equal(parse(old, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_TORCHTITAN);
    assert_close(log.tokens_per_s_per_gpu, 6782, 1e-12);
    assert_close(log.mfu, 0.3964, 1e-12);
    runlog_free(ctx, &log);
}

/* ---- MLPerf Inference -------------------------------------------------------------------- */

/* The Server summary of the llama2-70b-99 sample in mlcommons/inference@b66003e1
 * (tools/submission/directory_structure_samples/sample_1/closed/AMD/results/8xMI300X_2xEPYC_9575F/
 * llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt), cut after the first lines of its
 * "Test Parameters Used". Mean TTFT 918456323 ns = 918.456323 ms, mean TPOT 144594078 ns =
 * 144.594078 ms; P99 1914647645 and 193380124 ns. */
static const char MLPERF_SERVER[] = "================================================\n"
                                    "MLPerf Results Summary\n"
                                    "================================================\n"
                                    "SUT name : PySUT\n"
                                    "Scenario : Server\n"
                                    "Mode     : PerformanceOnly\n"
                                    "Completed samples per second    : 81.68\n"
                                    "Completed tokens per second: 24593.77\n"
                                    "Result is : VALID\n"
                                    "  Performance constraints satisfied : Yes\n"
                                    "  Min duration satisfied : Yes\n"
                                    "  Min queries satisfied : Yes\n"
                                    "  Early stopping satisfied: Yes\n"
                                    "TTFT Early Stopping Result:\n"
                                    " * Run successful.\n"
                                    "TPOT Early Stopping Result:\n"
                                    " * Run successful.\n"
                                    "\n"
                                    "================================================\n"
                                    "Additional Stats\n"
                                    "================================================\n"
                                    "Scheduled samples per second : 83.90\n"
                                    "Min latency (ns)                : 980187992\n"
                                    "Max latency (ns)                : 165057127340\n"
                                    "Mean latency (ns)               : 43579602295\n"
                                    "50.00 percentile latency (ns)   : 38401775522\n"
                                    "99.00 percentile latency (ns)   : 136069232834\n"
                                    "\n"
                                    "Completed tokens per second                 : 24593.77\n"
                                    "Min First Token latency (ns)                : 37578735\n"
                                    "Max First Token latency (ns)                : 3267024914\n"
                                    "Mean First Token latency (ns)               : 918456323\n"
                                    "50.00 percentile first token latency (ns)   : 875073063\n"
                                    "99.00 percentile first token latency (ns)   : 1914647645\n"
                                    "99.90 percentile first token latency (ns)   : 2562462764\n"
                                    "\n"
                                    "Min Time to Output Token (ns)                : 30262518\n"
                                    "Max Time to Output Token (ns)                : 3298049084\n"
                                    "Mean Time to Output Token (ns)               : 144594078\n"
                                    "50.00 percentile time to output token (ns)   : 151044504\n"
                                    "99.00 percentile time to output token (ns)   : 193380124\n"
                                    "99.90 percentile time to output token (ns)   : 283861040\n"
                                    "\n"
                                    "================================================\n"
                                    "Test Parameters Used\n"
                                    "================================================\n"
                                    "samples_per_query : 1\n"
                                    "target_qps : 83.5\n"
                                    "ttft_latency (ns): 2000000000\n"
                                    "tpot_latency (ns): 200000000\n";

static void test_mlperf_server(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(MLPERF_SERVER, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MLPERF);
    assert_string_equal(log.scenario, "Server");
    assert_true(log.valid);
    assert_close(log.samples_per_s, 81.68, 1e-12);
    assert_close(log.tokens_per_s, 24593.77, 1e-12);
    assert_false(log.tokens_inferred);
    assert_close(log.ttft_ms, 918.456323, 1e-12);
    assert_close(log.tpot_ms, 144.594078, 1e-12);
    assert_close(log.ttft_p99_ms, 1914.647645, 1e-12);
    assert_close(log.tpot_p99_ms, 193.380124, 1e-12);
    assert_int_equal(log.line, 7);
    runlog_free(ctx, &log);
}

/* The Offline summary of the same sample (llama2-70b-99/Offline): 92.1544 samples/s, 27803.9
 * tokens/s; an INVALID result is read and flagged; the current LoadGen spelling "Time per Output
 * Token" and an "(inferred)" token rate that the counted one replaces. */
static void test_mlperf_offline_and_spellings(void **state)
{
    (void)state;
    static const char offline[] = "================================================\n"
                                  "MLPerf Results Summary\n"
                                  "================================================\n"
                                  "SUT name : PySUT\n"
                                  "Scenario : Offline\n"
                                  "Mode     : PerformanceOnly\n"
                                  "Samples per second: 92.1544\n"
                                  "Tokens per second: 27803.9\n"
                                  "Result is : VALID\n"
                                  "  Min duration satisfied : Yes\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(offline, &log, &err), GPUECON_OK);
    assert_string_equal(log.scenario, "Offline");
    assert_close(log.samples_per_s, 92.1544, 1e-12);
    assert_close(log.tokens_per_s, 27803.9, 1e-12);
    assert_true(log.valid && log.ttft_ms == 0 && log.tpot_ms == 0);
    runlog_free(ctx, &log);

    static const char server[] = "MLPerf Results Summary\n"
                                 "Scenario : Server\n"
                                 "Completed tokens per second (inferred): 1000.5\n"
                                 "Completed samples per second    : 3.5\n"
                                 "Result is : INVALID\n"
                                 "Mean Time per Output Token (ns)               : 25000000\n";
    assert_int_equal(parse(server, &log, &err), GPUECON_OK);
    assert_false(log.valid);
    assert_true(log.tokens_inferred);
    assert_close(log.tokens_per_s, 1000.5, 1e-12);
    assert_close(log.tpot_ms, 25, 1e-12);
    runlog_free(ctx, &log);
}

/* A SingleStream summary prints a latency percentile and no throughput or token latency: nothing
 * gpuecon calibrates on, so it is "no figure". */
static void test_mlperf_single_stream(void **state)
{
    (void)state;
    static const char text[] = "MLPerf Results Summary\n"
                               "Scenario : SingleStream\n"
                               "90.0th percentile latency (ns) : 12345678\n"
                               "Result is : VALID\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "no figure of a known log format"));
}

/* ---- nccl-tests --------------------------------------------------------------------------- */

/* all_reduce_perf on 8 GPUs as NVIDIA/nccl-tests src/util.cu (at a0b82b22) prints it. Rows worked by
 * hand: algbw = bytes / time, busbw = algbw x 2(n-1)/n = 1.75 algbw for n = 8.
 *   1048576 B in 40.00 us: algbw 26.2144 -> "26.21", busbw 45.875 -> "45.88";
 *   134217728 B in 640.00 us: algbw 209.715 -> "209.72", busbw 367.0 -> "367.00";
 *   8589934592 B in 12345678 us: printed "%7.1e" as "1.2e+07" (too wide for %7.0f), algbw 0.6958
 *   -> "0.70", busbw 1.2176 -> "1.22".
 * An NCCL INFO line inside the table (its host name starts with digits) is not a row. */
static const char NCCL[] =
    "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0 unalign: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid  12345 on   node-001 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid  12345 on   node-001 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  2 Group  0 Pid  12345 on   node-001 device  2 [0000:3a:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  3 Group  0 Pid  12345 on   node-001 device  3 [0000:5d:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  4 Group  0 Pid  12345 on   node-001 device  4 [0000:9a:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  5 Group  0 Pid  12345 on   node-001 device  5 [0000:ab:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  6 Group  0 Pid  12345 on   node-001 device  6 [0000:ba:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  7 Group  0 Pid  12345 on   node-001 device  7 [0000:db:00] NVIDIA H100 80GB HBM3\n"
    "#\n"
    "#                                                              out-of-place                       in-place   "
    "       \n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong \n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)  "
    "       \n"
    "10-0-0-1:12345:12345 [0] NCCL INFO Channel 00/32 : 0 1 2 3 4 5 6 7\n"
    "     1048576        262144     float     sum      -1    40.00   26.21   45.88       0    39.50   26.55   46.46  "
    "     0\n"
    "   134217728      33554432     float     sum      -1   640.00  209.72  367.00       0   638.00  210.37  368.15  "
    "     0\n"
    "  8589934592    2147483648     float     sum      -1  1.2e+07    0.70    1.22       0  1.2e+07    0.70    1.22  "
    "     0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 138.0333 \n"
    "#\n"
    "# Collective test concluded: all_reduce_perf\n"
    "#\n";

static void test_nccl(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(NCCL, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NCCL_TESTS);
    assert_string_equal(runlog_format_name(log.format), "nccl-tests");
    assert_string_equal(log.collective, "all_reduce_perf");
    assert_int_equal(log.ranks, 8);
    assert_int_equal((int)log.n_points, 3);
    assert_close(log.points[0].bytes, 1048576, 0);
    assert_close(log.points[0].time_us, 40.00, 1e-12);
    assert_close(log.points[0].algbw_gbps, 26.21, 1e-12);
    assert_close(log.points[0].busbw_gbps, 45.88, 1e-12);
    /* the printed figures agree with the hand-worked ones within their rounding */
    assert_close(log.points[1].algbw_gbps, 134217728 / 640e-6 / 1e9, 0.0001);
    assert_close(log.points[1].busbw_gbps, 1.75 * 134217728 / 640e-6 / 1e9, 0.0001);
    assert_close(log.points[2].bytes, 8589934592.0, 0);
    assert_close(log.points[2].time_us, 1.2e7, 1e-12);
    assert_close(log.points[2].busbw_gbps, 1.22, 1e-12);
    assert_close(log.avg_busbw_gbps, 138.0333, 1e-12);
    assert_int_equal(log.line, 19);
    assert_int_equal(log.last_line, 21);
    runlog_free(ctx, &log);
    assert_null(log.points);
}

/* Older nccl-tests (device lines without "Group", no "Collective test starting"), two processes
 * of 8 GPUs (16 device lines: ranks 16, where the header's nThread x nGpus says 8), and a second
 * test after the first: only the first is read. */
static void test_nccl_old_two_procs(void **state)
{
    (void)state;
    char text[8192] = "# nThread 1 nGpus 8 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg "
                      "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
    for (int r = 0; r < 16; r++) {
        char l[200];
        snprintf(l, sizeof l, "#  Rank %2d Pid  %5d on   node-%03d device %2d [0x%02x] NVIDIA A100-SXM4-80GB\n", r,
                 100 + r / 8, r / 8, r % 8, 16 + r);
        strcat(text, l);
    }
    strcat(text, "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
                 "algbw   busbw #wrong\n"
                 "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  "
                 "(GB/s)  (GB/s)       \n"
                 "     1048576        262144     float     sum      -1    120.5    8.70   16.32      0    119.8    "
                 "8.75 "
                 "  16.41      0\n"
                 "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 16.32 \n#\n"
                 "# nThread 1 nGpus 8 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg "
                 "iters: 1 validation: 1 graph: 0\n"
                 "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
                 "algbw   busbw #wrong\n"
                 "     1048576        262144     float    none       0     99.0   10.59   10.59      0     99.0   "
                 "10.59   10.59      0\n");
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NCCL_TESTS);
    assert_string_equal(log.collective, "");
    assert_int_equal(log.ranks, 16);
    assert_int_equal((int)log.n_points, 1);
    assert_close(log.points[0].busbw_gbps, 16.32, 1e-12);
    assert_close(log.avg_busbw_gbps, 16.32, 1e-12);
    runlog_free(ctx, &log);
}

/* ---- from a log's figures to RUNS.yaml `measured:` keys (docs/cli.md) ----------------------- */

/* The worked examples of docs/cli.md "From a log's figures to the `measured:` keys", from what the
 * reader returns for each excerpt above; what the log does not print (sequence length, GPUs) is
 * the run's own option:
 *   Megatron-LM: tokens_per_s_per_gpu = 128 sequences x 4096 tokens / (12.9442 s x 8 GPUs)
 *     = 524288 / 103.5536 = 5062.96 (the reader derives it only with the arguments block);
 *   NeMo: 8 x 4096 / (1.5085 s x 8) = 32768 / 12.068 = 2715.28;
 *   torchtitan: tps as printed, 6788;
 *   MLPerf Server on 8 GPUs: output_tokens_per_s_per_gpu = 24593.77 / 8 = 3074.22, tpot_ms 144.594,
 *     ttft_ms 918.456. */
static void test_measured_keys_worked(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    const double seq = 4096, gpus = 8;
    assert_int_equal(parse(MEGATRON, &log, &err), GPUECON_OK);
    assert_close(log.global_batch * seq / (log.step_time_s * gpus), 5062.96, 1e-5);
    runlog_free(ctx, &log);
    assert_int_equal(parse(NEMO, &log, &err), GPUECON_OK);
    assert_close(log.global_batch * seq / (log.step_time_s * gpus), 2715.28, 1e-5);
    runlog_free(ctx, &log);
    assert_int_equal(parse(TORCHTITAN, &log, &err), GPUECON_OK);
    assert_close(log.tokens_per_s_per_gpu, 6788, 0);
    runlog_free(ctx, &log);
    assert_int_equal(parse(MLPERF_SERVER, &log, &err), GPUECON_OK);
    assert_close(log.tokens_per_s / gpus, 3074.22, 1e-5);
    assert_close(log.tpot_ms, 144.594, 1e-5);
    assert_close(log.ttft_ms, 918.456, 1e-5);
    runlog_free(ctx, &log);
}

/* ---- dgxc-benchmarking ------------------------------------------------------------------- */

/* The analysis table NVIDIA/dgxc-benchmarking's common/parse_train_timing.sh prints (at ef2f6c2,
 * "%-90s %8s %13s %12s %19s %18s"): its means over iterations 35-44 (zero-indexed) are read as
 * printed, 10 steps after 35 left out. A failed run's row is passed over. */
static void test_dgxc_table(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "Train Step Timing and TFLOPS Analysis (iterations 35-44)\n"
             "================================================================================\n"
             "%-90s %8s %13s %12s %19s %18s\n%-90s %8s %13s %12s %19s %18s\n%-90s %8s %13s %12s %19s %18s\n"
             "\nSummary:\n  Success experiments: 1\n  Failed experiments: 0\n",
             "Experiment", "Status", "Time Mean (s)", "Time Std (s)", "TFLOPS_per_GPU Mean", "TFLOPS_per_GPU Std",
             "------------------------------------------------------------------------------------------", "--------",
             "-------------", "------------", "-------------------", "------------------",
             "pretrain_llama3.1_8b_bf16_gpus8_tp1_pp1_cp1_vp1_mbs2_gbs128", "Success", "1.0395", "0.0042", "539.5",
             "2.1");
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_NEMO);
    assert_close(log.step_time_s, 1.0395, 1e-12);
    assert_close(log.tflops_per_gpu, 539.5, 1e-12);
    assert_int_equal(log.steps, 10);
    assert_int_equal(log.warmup, 35);
    assert_int_equal(log.line, 5);
    runlog_free(ctx, &log);
}

/* Its Megatron-Bridge CSV (parse_train_timing_mbridge.sh --format=csv): milliseconds; a second
 * successful run in the same file is refused (which row is this entry's run?). */
static void test_dgxc_csv(void **state)
{
    (void)state;
    static const char one[] = "filename,status,time_mean_ms,time_std_dev_ms,tflops_per_gpu_mean,tflops_per_gpu_std_dev,"
                              "max_iteration\n"
                              "log-pretrain_llama3.1_70b_fp8_gpus64_84477_0.out,Success,7188.1,29.4,2047.9,8.6,\n"
                              "log-pretrain_llama3.1_70b_fp8_gpus64_84478_0.out,Failed,,,,,12\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(one, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MEGATRON);
    assert_close(log.step_time_s, 7.1881, 1e-12);
    assert_close(log.tflops_per_gpu, 2047.9, 1e-12);
    assert_int_equal(log.line, 2);
    runlog_free(ctx, &log);
    char two[1024];
    snprintf(two, sizeof two, "%s%s", one,
             "log-pretrain_llama3.1_70b_fp8_gpus64_84479_0.out,Success,7190.0,30.0,2046.0,9.0,\n");
    assert_int_equal(parse(two, &log, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 4);
    assert_non_null(strstr(err.message, "several runs"));
    static const char bad[] = "filename,status,time_mean_seconds,time_std_dev_seconds,tflops_per_gpu_mean,"
                              "tflops_per_gpu_std_dev,max_iteration\nrun_0.out,Success,1.2.3,0.1,500,1,\n";
    assert_int_equal(parse(bad, &log, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 19);
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void test_empty_and_junk(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse("", &log, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "run.log");
    assert_non_null(strstr(err.message, "no figure of a known log format"));
    assert_non_null(strstr(err.message, "elapsed time per iteration (ms)"));
    assert_non_null(strstr(err.message, "train_step_timing in s"));
    assert_non_null(strstr(err.message, "tps"));
    assert_non_null(strstr(err.message, "MLPerf Results Summary"));
    assert_non_null(strstr(err.message, "busbw"));
    assert_true(log.format == RUNLOG_UNKNOWN && log.points == NULL);
    /* binary junk: NUL bytes, lone escapes, high bytes, '\r' runs */
    unsigned char junk[4096];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (unsigned char)(x >> 16);
    }
    gpuecon_error_clear(&err);
    assert_int_equal(runlog_parse(ctx, "junk.bin", (const char *)junk, sizeof junk, &log, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "junk.bin");
    /* a log without a single step line */
    assert_int_equal(parse("Loading checkpoint ...\nstarting training\n", &log, &err), GPUECON_E_INPUT);
}

/* One report line: it is the warm-up, so there is nothing to take a median of. */
static void test_one_line(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(" iteration       10/      10 | elapsed time per iteration (ms): 1234.5 |\n", &log, &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 1);
    assert_non_null(strstr(err.message, "at least 2"));
}

/* Malformed, non-finite, negative and huge figures: an error at file:line:col naming the label. */
static void test_bad_numbers(void **state)
{
    (void)state;
    runlog log;
    gpuecon_error err;
    static const char *const bad[][3] = {
        /* text, the needle that starts the bad figure, the message part */
        {" iteration 1/9 | elapsed time per iteration (ms): 1000.0 |\n iteration 2/9 | elapsed time per iteration "
         "(ms): 12x4.5 |\n",
         "12x4.5", "is not a number"},
        {"Training epoch 0, iteration 1/9 | train_step_timing in s: nan\n", "nan", "is not a finite number"},
        {"step: 10  loss: 1.0  tps: inf  tflops: 1.00  mfu: 1.00%\n", "inf", "is not a finite number"},
        {" iteration 1/9 | elapsed time per iteration (ms): 1e400 |\n", "1e400", "out of range"},
        {" iteration 1/9 | elapsed time per iteration (ms): 2e15 |\n", "2e15", "out of range"},
        {" iteration 1/9 | elapsed time per iteration (ms): -5.0 |\n", "-5.0", "is negative"},
        {" iteration 1/9 | elapsed time per iteration (ms): "
         "1000000000000000000000000000000000000000000000000000000000000000000000000000 |\n",
         "1000000", "is not a number"},
        {" iteration 1/9 | elapsed time per iteration (ms): |\n", "|\n", "is not a number"},
        {"Step Time : 9.09 GPU utilization: 663.5MODEL_TFLOP/s/GPU\n", "9.09", "followed by its unit"},
        {"MLPerf Results Summary\nScenario : Server\nCompleted samples per second    : fast\n", "fast",
         "is not a number"},
        {"# nThread 1 nGpus 8\n#  size count type redop root time algbw busbw #wrong\n   8   2  float  sum  -1  "
         "36.1  0.00  -nan  0\n",
         "-nan", "is not a finite number"},
        {"# nThread 1 nGpus 8\n#  size count type redop root time algbw busbw #wrong\n   8   2  float  sum  -1  "
         "36.1\n",
         NULL, "without its algbw"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(parse(bad[i][0], &log, &err), GPUECON_E_INPUT);
        assert_string_equal(err.where, "run.log");
        if (!strstr(err.message, bad[i][2])) {
            print_error("case %zu: '%s'\n", i, err.message);
            fail();
        }
        assert_true(log.points == NULL && log.format == RUNLOG_UNKNOWN);
        if (!bad[i][1])
            continue;
        /* the line holding the needle (the last line of each case) */
        int line = 0;
        for (const char *p = bad[i][0]; *p; p++)
            line += *p == '\n';
        if (err.line != line || err.column != col_of(bad[i][0], line, bad[i][1], 0)) {
            print_error("case %zu: %d:%d, expected %d:%d\n", i, err.line, err.column, line,
                        col_of(bad[i][0], line, bad[i][1], 0));
            fail();
        }
    }
}

/* Columns count bytes of the line as it is in the file, escape sequences included: the bad tps
 * figure stands after two colour codes of 5 bytes each. */
static void test_column_with_ansi(void **state)
{
    (void)state;
    static const char text[] = "\x1b[31mstep: 10  \x1b[34mtps: 6,78x  \x1b[36mtflops: 1.0\x1b[39m\n";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, (int)(strstr(text, "6,78x") - text) + 1);
}

/* A log still being written ends mid-line: the unterminated last line is not read (its "12" would
 * be a cut 12xxx.x). Lines 1-3 give 20000 (warm-up), 13000 and 13100 -> median 13050 ms. */
static void test_truncated_last_line(void **state)
{
    (void)state;
    static const char text[] = " iteration 1/9 | elapsed time per iteration (ms): 20000.0 |\n"
                               " iteration 2/9 | elapsed time per iteration (ms): 13000.0 |\n"
                               " iteration 3/9 | elapsed time per iteration (ms): 13100.0 |\n"
                               " iteration 4/9 | elapsed time per iteration (ms): 12";
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_close(log.step_time_s, 13.05, 1e-12);
    assert_int_equal(log.steps, 2);
    assert_int_equal(log.last_line, 3);
    runlog_free(ctx, &log);
}

/* Lines of two formats: the one with more figure lines is read (six Megatron-LM reports against
 * one NeMo line). */
static void test_mixed_formats(void **state)
{
    (void)state;
    char text[8192];
    snprintf(text, sizeof text, "%s%s", "Training epoch 0, iteration 1/9 | train_step_timing in s: 99.0\n", MEGATRON);
    runlog log;
    gpuecon_error err;
    assert_int_equal(parse(text, &log, &err), GPUECON_OK);
    assert_int_equal(log.format, RUNLOG_MEGATRON);
    assert_close(log.step_time_s, 12.9442, 1e-12);
    runlog_free(ctx, &log);
}

/* runlog_read: a file reads as its bytes do; a FIFO is refused at once (no hang); a file over the
 * context's input-file limit is refused. */
static void test_read_file_fifo_cap(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_runlog_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/train.log", dir);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(NEMO, f);
    fclose(f);
    runlog log;
    gpuecon_error err;
    assert_int_equal(runlog_read(ctx, p, &log, &err), GPUECON_OK);
    assert_close(log.step_time_s, 1.5085, 1e-12);
    runlog_free(ctx, &log);

    char q[256];
    snprintf(q, sizeof q, "%s/fifo.log", dir);
    assert_int_equal(mkfifo(q, 0600), 0);
    assert_int_equal(runlog_read(ctx, q, &log, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "FIFO"));

    gpuecon_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_file_bytes = 100;
    gpuecon_ctx *small = gpuecon_ctx_new(&cfg);
    assert_non_null(small);
    assert_int_not_equal(runlog_read(small, p, &log, &err), GPUECON_OK);
    assert_non_null(strstr(err.message, "limit"));
    assert_int_equal(runlog_parse(small, "big.log", NEMO, strlen(NEMO), &log, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "limit"));
    gpuecon_ctx_free(small);
    unlink(p);
    unlink(q);
    rmdir(dir);
}

/* Out of memory at every allocation: for k = 1, 2, ... the context's allocator fails its k-th
 * allocation until the read succeeds. Each failing read returns GPUECON_E_NOMEM and hands back
 * nothing; the bytes the allocator holds go back to where they were (nothing leaks), on failure
 * and after runlog_free on success. */
typedef struct failer {
    long n, fail_at;
    long long live;
} failer;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    failer *f = ud;
    if (nsize == 0) {
        if (ptr)
            f->live -= (long long)osize;
        free(ptr);
        return NULL;
    }
    if (f->fail_at > 0 && ++f->n == f->fail_at)
        return NULL;
    void *q = realloc(ptr, nsize);
    if (q)
        f->live += (long long)nsize - (ptr ? (long long)osize : 0);
    return q;
}

static void test_alloc_fail(void **state)
{
    (void)state;
    static const char *const texts[] = {MEGATRON, NEMO, TORCHTITAN, MLPERF_SERVER, NCCL};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        failer f = {0, 0, 0};
        gpuecon_ctx_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.alloc = failing_alloc;
        cfg.alloc_ud = &f;
        gpuecon_ctx *c = gpuecon_ctx_new(&cfg);
        assert_non_null(c);
        long long base = f.live;
        long failures = 0;
        for (long k = 1;; k++) {
            f.n = 0;
            f.fail_at = k;
            runlog log;
            gpuecon_error err;
            int rc = runlog_parse(c, "run.log", texts[t], strlen(texts[t]), &log, &err);
            f.fail_at = 0;
            if (rc == GPUECON_OK) {
                assert_int_not_equal(log.format, RUNLOG_UNKNOWN);
                runlog_free(c, &log);
                assert_true(f.live == base);
                break;
            }
            assert_int_equal(rc, GPUECON_E_NOMEM);
            assert_true(log.points == NULL && log.format == RUNLOG_UNKNOWN);
            assert_true(f.live == base);
            failures++;
            assert_true(k < 1000);
        }
        assert_true(failures >= 2); /* the report buffers at least */
        gpuecon_ctx_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron),
        cmocka_unit_test(test_megatron_derived_tokens),
        cmocka_unit_test(test_megatron_old_crlf),
        cmocka_unit_test(test_megatron_bridge),
        cmocka_unit_test(test_nemo),
        cmocka_unit_test(test_nemo_tqdm),
        cmocka_unit_test(test_nemo_dllogger),
        cmocka_unit_test(test_torchtitan),
        cmocka_unit_test(test_torchtitan_na_wps),
        cmocka_unit_test(test_mlperf_server),
        cmocka_unit_test(test_mlperf_offline_and_spellings),
        cmocka_unit_test(test_mlperf_single_stream),
        cmocka_unit_test(test_nccl),
        cmocka_unit_test(test_nccl_old_two_procs),
        cmocka_unit_test(test_measured_keys_worked),
        cmocka_unit_test(test_dgxc_table),
        cmocka_unit_test(test_dgxc_csv),
        cmocka_unit_test(test_empty_and_junk),
        cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_column_with_ansi),
        cmocka_unit_test(test_truncated_last_line),
        cmocka_unit_test(test_mixed_formats),
        cmocka_unit_test(test_read_file_fifo_cap),
        cmocka_unit_test(test_alloc_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
