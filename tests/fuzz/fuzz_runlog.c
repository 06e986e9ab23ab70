/*
 * fuzz_runlog.c — libFuzzer harness for the log readers of `gpuecon calibrate` (src/io/runlog.c:
 * Megatron-LM / NeMo / torchtitan training logs, MLPerf summaries, nccl-tests output). The whole
 * input is the file. It must read or fail with an error record naming the file; a log that reads
 * has a known format, its figures are finite and not negative, a training log covers at least one
 * step after its warm-up, an MLPerf summary has a figure, and nccl-tests output has its points;
 * a derived tokens/s/GPU is finite too; a failure leaves nothing allocated in the output.
 */
#include "analysis/analysis.h"
#include "io/runlog.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool fig(double x)
{
    return isfinite(x) && x >= 0 && x <= 1e15;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuecon_ctx *ctx;
    if (!ctx && !(ctx = gpuecon_ctx_new(NULL)))
        __builtin_trap();
    runlog log;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = runlog_parse(ctx, "fuzz.log", (const char *)data, size, &log, &err);
    if (rc) {
        if (!err.message[0] || strcmp(err.where, "fuzz.log") || log.points || log.n_points ||
            log.format != RUNLOG_UNKNOWN)
            __builtin_trap();
        return 0;
    }
    if (!fig(log.step_time_s) || !fig(log.tflops_per_gpu) || !fig(log.tokens_per_s_per_gpu) || !fig(log.mfu * 100) ||
        !fig(log.tokens_per_s) || !fig(log.samples_per_s) ||
        !fig(log.ttft_ms) || !fig(log.tpot_ms) || !fig(log.ttft_p99_ms) || !fig(log.tpot_p99_ms) ||
        !fig(log.global_batch) || !fig(log.avg_busbw_gbps) || !fig(log.seq_len) || log.ranks < 0 ||
        log.line < 1 || log.last_line < log.line || !memchr(log.scenario, 0, sizeof log.scenario) ||
        !memchr(log.collective, 0, sizeof log.collective))
        __builtin_trap();
    switch (log.format) {
    case RUNLOG_MEGATRON:
    case RUNLOG_NEMO:
    case RUNLOG_TORCHTITAN:
        if (log.steps < 1 || log.warmup < 0 || log.points)
            __builtin_trap();
        if (log.format != RUNLOG_TORCHTITAN && !(log.step_time_s >= 0))
            __builtin_trap();
        break;
    case RUNLOG_MLPERF:
        if (log.points || log.steps)
            __builtin_trap();
        break;
    case RUNLOG_NCCL_TESTS:
        if (!log.points || log.n_points == 0)
            __builtin_trap();
        for (size_t i = 0; i < log.n_points; i++)
            if (!fig(log.points[i].bytes) || !fig(log.points[i].time_us) || !fig(log.points[i].algbw_gbps) ||
                !fig(log.points[i].busbw_gbps))
                __builtin_trap();
        break;
    default:
        __builtin_trap();
    }
    runlog_free(ctx, &log);
    if (log.points || log.n_points)
        __builtin_trap();
    return 0;
}
