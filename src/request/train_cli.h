/*
 * train_cli.h — what `gpuecon train` and `gpuecon search` share: their option table, the
 * request built from it, the price of a throughput and the --threads context.
 */
#ifndef GPUECON_TRAIN_CLI_H
#define GPUECON_TRAIN_CLI_H

#include "cli.h"
#include "model/names.h"

typedef struct train_args {
    const char *model, *system, *profile;
    int gpus, seq, gbs, mbs, tp, pp, vpp, cp, ep, etp, zero, threads, vs_gpus;
    int precision, recompute, tp_overlap, sp, dp_overlap, attention, fusion, cp_comm;
    int a2a_overlap, mtp, cuda_graphs, tp_async_grad;
    const char *stack, *graph_scope;
    int offload_layers, fp8_recipe, dispatcher, fp8_param, grad_reduce, optimizer_states;
    bool balanced_routing, recompute_moe, offload_search;
    bool dropout, strong, exhaustive;
    double tokens, pue, capacity_factor, imbalance, mtbi_gpu_days, target_days, usd_per_gpu_hour;
    double life_years, utilisation, workloads_per_year, rent_usd_per_gpu_hour, power_limit;
    int tier, max_gpus;
    const char *vs, *start_date;
    int_list sweep;
    const char *plot;
    /* search only */
    int top, objective;
    const char *shard;
} train_args;

#define TRAIN_MAX_OPTS 72

/* Fills opts with the options common to train and search (plus train's or search's own)
 * and returns how many. */
size_t train_cli_opts(train_args *a, opt *opts, bool search);
/* After parsing: loads the catalog, looks up model/system/profile, builds the request (--stack,
 * then the single framework options over it). Returns 0 or an exit code (message printed). */
int train_cli_request(cli *c, const train_args *a, const opt *opts, size_t nopts, gpuecon_train_request *req,
                      const gpuecon_profile **profile);
/* The training calibration set (calib_set_build) for the request's outputs, and the ranking from it
 * (train_cli_rank): req->rank_mfu_cap, the best MFU ever published for the request's GPU generation
 * and precision (0 when none is), so the search ranks no layout above it on its estimate alone, and
 * each layout at its 80% band's low end (docs/model.md §3.5). The caller frees *set
 * (calib_set_free) after a 0; after an exit code (message printed) there is nothing to free. */
int train_cli_calibration(cli *c, gpuecon_train_request *req, calib_set *set);
/* How the search ranks req's layouts, from the calibration set: req->rank_mfu_cap (the generation and
 * precision's MFU cap) and req->rank_band_low with its family table (calib_rank_band: at the 80% band's
 * low end); for a request whose system, precision or stack changed after train_cli_calibration. 0 or
 * the exit code of a failure (reported). */
int train_cli_rank(cli *c, const calib_set *set, gpuecon_train_request *req);
/* Cost of a predicted throughput under a profile: fills cost; 0 or an exit code. */
int train_cli_cost(cli *c, const gpuecon_train_request *req, const gpuecon_profile *p, double pue, double usd_h, double tokens,
                   double tok_s, gpuecon_cost *cost, double *usd_per_gpu_hour);
/* The run request of --profile/--tokens/--tier/--mtbi-gpu-days/--pue for a throughput. */
void train_cli_run_request(const train_args *a, const gpuecon_train_request *req, const gpuecon_profile *p,
                           double tok_s, gpuecon_run_request *run);
/* --threads N (> 0): c->ctx becomes a context with N search threads and *saved the one it
 * replaced, which train_cli_threads_end puts back (saved NULL: nothing to do). 0 or an exit code. */
int train_cli_threads(cli *c, int threads, gpuecon_ctx **saved);
void train_cli_threads_end(cli *c, gpuecon_ctx *saved);

#endif
