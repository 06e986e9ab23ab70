/*
 * runlog.h — measured figures read from the files a user already has (src/io/runlog.c):
 * Megatron-LM / NeMo and torchtitan training logs, MLPerf Inference's mlperf_log_summary.txt
 * and nccl-tests output, for `gpuecon calibrate` (docs/cli.md, RUNS.yaml `log:`).
 * Private to the library (io layer).
 */
#ifndef GPUECON_IO_RUNLOG_H
#define GPUECON_IO_RUNLOG_H

#include "base/base.h"

typedef enum runlog_format {
    RUNLOG_UNKNOWN,
    RUNLOG_MEGATRON,   /* Megatron-LM training_log lines: "elapsed time per iteration (ms): ..." */
    RUNLOG_NEMO,       /* NeMo / Lightning: "train_step_timing in s: ..." */
    RUNLOG_TORCHTITAN, /* torchtitan metrics lines: "step: N ... tps: ... tflops: ... mfu: ...%" */
    RUNLOG_MLPERF,     /* MLPerf Inference LoadGen mlperf_log_summary.txt */
    RUNLOG_NCCL_TESTS  /* nccl-tests (all_reduce_perf, ...) stdout */
} runlog_format;

/* One nccl-tests row (the out-of-place columns). */
typedef struct runlog_nccl_point {
    double bytes;       /* message size */
    double time_us;     /* time per operation */
    double algbw_gbps;  /* GB/s as printed */
    double busbw_gbps;  /* GB/s as printed */
} runlog_nccl_point;

typedef struct runlog {
    runlog_format format;
    int line;                     /* the first line a figure was read from (1-based; a training log: the
                                     first report after the warm-up) */
    /* training logs: medians over the steps read, the first steps (warm-up) left out;
       0 where the log does not print the figure */
    int steps;                    /* steps the medians cover */
    double step_time_s;
    double tokens_per_s_per_gpu;
    double tflops_per_gpu;
    double mfu;                   /* as a fraction */
    /* MLPerf Inference summary; 0 where absent */
    char scenario[32];            /* "Offline", "Server", ... */
    bool valid;                   /* "Result is : VALID" */
    double tokens_per_s;          /* whole system */
    double samples_per_s;
    double ttft_ms, tpot_ms;      /* means ("Mean First Token latency", "Mean Time per Output Token"):
                                     what gpuecon predicts; the 99th percentiles are below */
    /* nccl-tests */
    char collective[32];          /* "all_reduce_perf", ... */
    int ranks;                    /* ranks the test ran on (nccl-tests device lines, else nThread x nGpus);
                                     Megatron-LM: world_size of its arguments block; 0 where absent */
    runlog_nccl_point *points;    /* allocated from the context */
    size_t n_points;
    /* added by the readers (src/io/runlog.c) */
    int warmup;                   /* training logs: report lines left out as warm-up */
    int last_line;                /* the last line a figure was read from */
    double global_batch;          /* training logs: "global batch size" (Megatron) / "global_batch_size"
                                     (NeMo), sequences per step; 0 where not printed */
    double ttft_p99_ms, tpot_p99_ms; /* MLPerf Server: the 99th percentiles (what the constraints use) */
    bool tokens_inferred;         /* MLPerf: tokens_per_s is LoadGen's "(inferred)" figure (samples x a
                                     fixed tokens-per-sample factor), not counted tokens */
    double avg_busbw_gbps;        /* nccl-tests "# Avg bus bandwidth" */
    double seq_len;               /* Megatron-LM: seq_length of its arguments block; 0 where absent */
    bool tokens_derived;          /* tokens_per_s_per_gpu is derived, not printed: Megatron-LM's
                                     global batch x seq_length / (step time x world_size) */
} runlog;

/* Reads and recognises a log file (FIFO-safe read, size-capped). A file with no figure of any
 * known format: GPUECON_E_INPUT, naming the file and the lines it looked for. */
int runlog_read(gpuecon_ctx *ctx, const char *path, runlog *out, gpuecon_error *err);
/* The same from memory; `name` labels errors. */
int runlog_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, runlog *out, gpuecon_error *err);
void runlog_free(gpuecon_ctx *ctx, runlog *log);
/* "megatron", "nemo", "torchtitan", "mlperf", "nccl-tests" ("unknown"). */
const char *runlog_format_name(runlog_format f);

#endif
