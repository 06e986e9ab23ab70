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
#include "base/rng.h"

#include <stdatomic.h>

/* Log-spaced histogram of seconds: SIM_DECADES decades from 1 µs, SIM_PER_DECADE bins each
 * (0.58% wide, so a percentile is within 0.3% of the exact one). */
#define SIM_PER_DECADE 400
#define SIM_DECADES 12
#define SIM_BINS (SIM_PER_DECADE * SIM_DECADES + 2)

/* SIM_DQUEUE: disaggregated only, KV arrival at a decode instance → its admission there. */
enum { SIM_TTFT, SIM_TPOT, SIM_ITL, SIM_E2E, SIM_QUEUE, SIM_DQUEUE, SIM_METRICS };

typedef struct sim_hist {
    uint64_t n[SIM_METRICS][SIM_BINS];
    double sum[SIM_METRICS];
    uint64_t count[SIM_METRICS];
    double last_x; /* record()'s cache: the last value and its bin (zeroed: 0 is in bin 0) */
    int last_bin;
} sim_hist;

/* What one replication of one replica produced (merged in replication order). */
typedef struct sim_rep {
    double window_s, tokens, measured, done, good, zero_wait; /* done, good: finished in the window */
    double kv_time, run_time;       /* ∫ held/pool dt, ∫ running dt over the window */
    double preemptions, steps, truncated;
    /* per pool (0: prefill or aggregated, 1: decode), summed over its instances: ∫ stepping dt,
       ∫ held/pool dt, ∫ running dt over the window */
    double busy[2], pool_kv[2], pool_run[2];
    int rc;                         /* GPUECON_OK, GPUECON_E_NOMEM or GPUECON_E_INTERNAL */
} sim_rep;

struct sim_disagg;

/* Everything fixed for a simulation (built once, read by every replication). */
typedef struct sim_cfg {
    const infer_env *e;
    const gpuecon_sim_request *req;
    double pool;                    /* KV bytes per GPU */
    double group_block[INFER_MAX_GROUPS]; /* bytes of one block of each attention group */
    double window[INFER_MAX_GROUPS];
    int ngroups;
    int block, max_seqs, budget, max_len, k;
    int chunk_cap;                  /* a prompt's tokens per step at most (0: none) */
    int max_prompt;                 /* the longest prompt (max_len - 1; disaggregated: what the
                                       prefill pool also holds) */
    double alpha;                   /* per-position draft acceptance */
    double rate;                    /* per replica */
    int users;                      /* per replica */
    double hit;                     /* prefix-cache hit rate */
    bool overloaded;                /* an open loop at or above the analytic capacity: no steady
                                       state, so measured over the makespan like a burst */
    bool reserve;                   /* admission reserves prompt + output + k; no preemption */
    double *cdf;                    /* histogram lengths: cumulative weights (nbins) */
    const struct sim_disagg *dz;    /* disaggregated deployment (this cfg is then its prefill
                                       pool's); NULL: one aggregated replica */
    infer_sim_trace *trace;         /* records every step's batch (infer_sim_trace.c); NULL: none */
} sim_cfg;

struct sim_ws;
struct sim_eng;

/* A disaggregated deployment (infer_sim_disagg.c): x prefill instances, y decode instances,
 * x + y at most SIM_MAX_INSTANCES. */
#define SIM_MAX_INSTANCES 1024
#define SIM_MAX_REQUESTS 10000000L /* requests per replication and replica (sim_check) */
#define SIM_MAX_USERS 1e8          /* closed-loop users, all replicas (sim_check) */
typedef struct sim_disagg {
    sim_cfg pre, dec;               /* each pool's instance; pre.dz points back here */
    int x, y;
    comm_link link;                 /* the system's links, for the KV transfer (D3) */
    const gpuecon_system *sys;
    const infer_arch *pa;           /* the prefill instance's arch (KV bytes per GPU) */
    bool over;                      /* the transfer crosses the scale-out network */
    /* set by sim_disagg_build (infer_sim_disagg.c), so the engine loop (infer_sim.c) reaches the
     * disaggregated parts without a call back up: request i finished its prefill on prefill
     * engine g at t and its KV goes to a decode instance; a whole disaggregated replication in
     * the prepared workspace (requests and histograms set up) */
    void (*handoff)(struct sim_ws *w, struct sim_eng *g, int i, double t);
    void (*run)(gpuecon_ctx *ctx, struct sim_ws *w);
} sim_disagg;

typedef struct sreq {
    double arrive, first, last; /* disaggregated: first = when its KV reaches the decode instance */
    int prompt, output;
    int need; /* tokens to have computed before decoding: prompt, or prompt + output so far */
    int done; /* computed of need (prefix-cache hits included) */
    int gen;  /* output tokens produced */
    int ctx;  /* tokens with KV in the pool */
    double held;
    int cap;  /* tokens the held blocks cover (no allocation until ctx exceeds it) */
    int flags;
} sreq; /* 64 bytes: one cache line */

/* One engine instance: its running list, waiting queue (linked through sim_ws.next), KV pool
 * and clock (the end of its last step). */
typedef struct sim_eng {
    const sim_cfg *c;
    int *run, *take;
    int whead, wtail;
    long wcount;
    int nrun;
    int pool;                       /* 0: prefill or aggregated, 1: decode */
    bool prefill;                   /* hands a request off after its first token */
    double t, used, swap_bytes;
    double link;                    /* prefill: when its KV link is free again */
} sim_eng;

/* The state of one replication. */
typedef struct sim_ws {
    const sim_cfg *c;               /* arrivals and lengths (disaggregated: the prefill pool's) */
    rng r;
    sreq *q;
    int *next;                      /* per request: the next in its engine's waiting queue (-1:
                                       none); disaggregated, while its KV is in flight: the
                                       decode engine it goes to */
    long n, issued, finished, measure_from;
    double next_arrival, t_end;     /* t_end: the last finish */
    double t_a, t_b; /* measurement window: arrival of the first measured and of the last request */
    bool have_a, have_b;
    sim_eng *eng;
    int neng, rr_p, rr_d;           /* engines; round-robin cursors (disaggregated) */
    int *heap;                      /* disaggregated: KV transfers in flight, by ready time */
    long nheap;
    sim_rep *out;
    sim_hist *h;
    gpuecon_ctx *ctx;
    bool report;                    /* a lone replication reports progress from inside (sim_canceled) */
    atomic_int *stop;               /* shared by a wave's replications: set once the progress callback
                                       asks to cancel, so every replication stops at its next check */
    long ticks;
    double done0, total;            /* progress in requests: finished before this replication; all */
} sim_ws;

/* Sets up engine g of pool `pool` (0/1) with cfg c; its arrays come from ctx (false: none). */
bool sim_eng_init(gpuecon_ctx *ctx, sim_eng *g, const sim_cfg *c, int pool, bool prefill);
void sim_eng_free(gpuecon_ctx *ctx, sim_eng *g);
/* Issues the next request at t into its engine (sim_route). */
void sim_issue(sim_ws *w, double t);
/* Appends request i to engine g's waiting queue at time t (an idle engine's clock moves to t). */
void sim_enqueue(sim_ws *w, sim_eng *g, int i, double t);
/* One engine step at g->t: the running requests, then admissions, timed and applied. False when
 * nothing could be scheduled. */
bool sim_eng_step(sim_ws *w, sim_eng *g);
/* The work estimate of a simulation (docs/cli.md "Work budget"), CPU-seconds of a Release
 * build on one core, at a mean running batch of `batch` sequences per step. */
#define SIM_WORK_REQ 1e-6
#define SIM_WORK_SEQ 2e-8
#define SIM_WORK_STEP 7e-8
double sim_work_s(const gpuecon_sim_request *r, double batch, double alpha);
/* A histogram's weighted mean lengths into serve's prompt_len and output_len (other length
 * models: unchanged). GPUECON_E_INPUT, naming --lengths, when the mean request does not fit the
 * model's context (single longer bins are cut to max_model_len as they arrive; the analytic
 * model runs at the mean, which must fit). */
int sim_mean_lengths(const gpuecon_sim_request *r, gpuecon_infer_request *serve, gpuecon_error *err);
/* Makes q a closed loop of `users` (at least one per replica) measured past its cold start:
 * at least twice the users per replica requests, q->requests kept when larger. False (q
 * unchanged) when that exceeds SIM_MAX_USERS or SIM_MAX_REQUESTS; *need then holds the requests
 * per replica it would take. */
bool sim_closed_loop(gpuecon_sim_request *q, double users, int replicas, double *need);
/* GPUECON_E_INPUT naming --requests (or --replications) when sim_work_s is above ctx's budget. */
int sim_check_work(gpuecon_ctx *ctx, const gpuecon_sim_request *r, double batch, double alpha, gpuecon_error *err);
/* Every 65,536 steps of a lone replication: reports progress in requests to ctx's callback;
 * true (and out->rc GPUECON_E_CANCELED) when it asks to stop. */
bool sim_canceled(sim_ws *w);
/* The next inter-arrival gap of the open-loop arrivals. */
double sim_gap(sim_ws *w);

/* ---- infer_sim_run.c ---- */
/* The request's own checks (arrivals, percentiles, counts, lengths), naming the option. */
int sim_check(const gpuecon_sim_request *r, gpuecon_error *err);
/* The simulation cfg of a prepared deployment (a, e, o: one replica or instance). */
int sim_build_cfg(const gpuecon_sim_request *r, const infer_arch *a, const infer_env *e,
                  const gpuecon_infer_result *o, sim_cfg *c, gpuecon_error *err);
/* The cumulative weights of a histogram request's bins into c->cdf (nothing otherwise);
 * sim_cdf_free releases them. */
int sim_cdf(gpuecon_ctx *ctx, sim_cfg *c, gpuecon_error *err);
void sim_cdf_free(gpuecon_ctx *ctx, sim_cfg *c);
/* Runs c->req->replications replications on ctx's threads into out (out->deploy set by the
 * caller); the folded sums into *sum_out and the decode-admission stat into *dqueue when given. */
/* Records a step into c->trace (infer_sim.c; false: out of memory, the trace is then dropped). */
bool sim_trace_add(infer_sim_trace *t, const infer_batch *b, double swap_bytes);
/* gpuecon_infer_simulate with an optional trace (infer_sim_trace.c decides when to pass one). */
int sim_simulate(gpuecon_ctx *ctx, const gpuecon_sim_request *req0, gpuecon_sim_result *out, infer_sim_trace *trace,
                 gpuecon_error *err);
int sim_run_waves(gpuecon_ctx *ctx, const sim_cfg *c, gpuecon_sim_result *out, sim_rep *sum_out,
                  gpuecon_sim_stat *dqueue, gpuecon_error *err);

/* One replication (stream `rep`) into *out and *h (cleared here). Allocates its own request
 * pool through ctx; out->rc = GPUECON_E_NOMEM when that fails. report: a lone replication that
 * reports progress; stop (NULL for a lone one): the wave's shared cancel flag (sim_canceled). */
void sim_replicate(gpuecon_ctx *ctx, const sim_cfg *c, uint64_t seed, int rep, bool report, atomic_int *stop,
                   sim_rep *out, sim_hist *h);

/* Bytes one sequence of n tokens holds in the pool: whole blocks per attention group; a
 * sliding-window group keeps the window plus the block being filled. */
double sim_seq_bytes(const sim_cfg *c, double n);

/* Percentile q in (0, 100) of metric m, in seconds (bin's geometric centre); 0 if empty. */
double sim_hist_quantile(const sim_hist *h, int m, double q);

#endif
