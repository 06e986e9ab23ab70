/*
 * infer_sim.h — private declarations of the request-level serving simulator (never installed).
 *
 * infer_sim.c runs one replication of one replica: arrivals, the continuous-batching
 * scheduler and the KV block pool, every step timed by infer_step_batch. infer_sim_run.c
 * checks the request, prepares the deployment, runs replications on threads and merges them
 * in replication order.
 */
#ifndef GPUECON_INFER_SIM_H
#define GPUECON_INFER_SIM_H

#include "infer.h"
#include "rng.h"

/* Log-spaced histogram of seconds: SIM_DECADES decades from 1 µs, SIM_PER_DECADE bins each
 * (0.58% wide, so a percentile is within 0.3% of the exact one). */
#define SIM_PER_DECADE 400
#define SIM_DECADES 12
#define SIM_BINS (SIM_PER_DECADE * SIM_DECADES + 2)

enum { SIM_TTFT, SIM_TPOT, SIM_ITL, SIM_E2E, SIM_QUEUE, SIM_METRICS };

typedef struct sim_hist {
    uint64_t n[SIM_METRICS][SIM_BINS];
    double sum[SIM_METRICS];
    uint64_t count[SIM_METRICS];
} sim_hist;

/* What one replication of one replica produced (merged in replication order). */
typedef struct sim_rep {
    double window_s, tokens, measured, good, zero_wait;
    double kv_time, run_time;       /* ∫ held/pool dt, ∫ running dt over the window */
    double preemptions, steps, truncated;
    int rc;                         /* GPUECON_OK or GPUECON_E_NOMEM */
} sim_rep;

/* Everything fixed for a simulation (built once, read by every replication). */
typedef struct sim_cfg {
    const infer_env *e;
    const gpuecon_sim_request *req;
    double pool;                    /* KV bytes per GPU */
    double group_block[INFER_MAX_GROUPS]; /* bytes of one block of each attention group */
    double window[INFER_MAX_GROUPS];
    int ngroups;
    int block, max_seqs, budget, max_len, k;
    double alpha;                   /* per-position draft acceptance */
    double rate;                    /* per replica */
    int users;                      /* per replica */
    double hit;                     /* prefix-cache hit rate */
    bool reserve;                   /* admission reserves prompt + output + k; no preemption */
    double *cdf;                    /* histogram lengths: cumulative weights (nbins) */
} sim_cfg;

/* One replication (stream `rep`) into *out and *h (cleared here). Allocates its own request
 * pool through ctx; out->rc = GPUECON_E_NOMEM when that fails. */
void sim_replicate(gpuecon_ctx *ctx, const sim_cfg *c, uint64_t seed, int rep, sim_rep *out, sim_hist *h);

/* Bytes one sequence of n tokens holds in the pool: whole blocks per attention group; a
 * sliding-window group keeps the window plus the block being filled. */
double sim_seq_bytes(const sim_cfg *c, double n);

/* Percentile q in (0, 100) of metric m, in seconds (bin's geometric centre); 0 if empty. */
double sim_hist_quantile(const sim_hist *h, int m, double q);

#endif
