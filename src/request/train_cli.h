/*
 * train_cli.h — what `gpuecon train` and `gpuecon search` share: their option table, the
 * request built from it, and the JSON / table form of one predicted configuration.
 */
#ifndef GPUECON_TRAIN_CLI_H
#define GPUECON_TRAIN_CLI_H

#include "cli.h"
#include "model/names.h"

typedef struct train_args {
    const char *model, *system, *profile;
    int gpus, seq, gbs, mbs, tp, pp, vpp, cp, ep, etp, zero, threads, vs_gpus;
    int precision, recompute, tp_overlap, sp, dp_overlap, attention;
    int a2a_overlap, mtp, cuda_graphs, tp_async_grad;
    const char *stack, *graph_scope;
    int offload_layers, fp8_recipe, dispatcher, fp8_param, grad_reduce, optimizer_states;
    bool balanced_routing, recompute_moe, offload_search;
    bool dropout, strong, exhaustive;
    double tokens, pue, capacity_factor, imbalance, mtbi_gpu_days, target_days, usd_per_gpu_hour;
    double life_years, utilisation, workloads_per_year, rent_usd_per_gpu_hour;
    int tier, max_gpus;
    const char *vs, *start_date;
    int_list sweep;
    const char *plot;
    /* search only */
    int top, objective;
    const char *shard;
} train_args;

#define TRAIN_MAX_OPTS 64

/* Fills opts with the options common to train and search (plus train's or search's own)
 * and returns how many. */
size_t train_cli_opts(train_args *a, opt *opts, bool search);
/* After parsing: loads the catalog, looks up model/system/profile, builds the request.
 * Returns 0 or an exit code (message printed). */
int train_cli_request(cli *c, const train_args *a, const opt *opts, size_t nopts, gpuecon_train_request *req,
                      const gpuecon_profile **profile);
/* Applies --stack (default CLI_DEFAULT_STACK) to req, then the single options the user gave
 * (--tp-overlap, --dp-overlap, --sp, --attention, --dropout, --cuda-graphs, --a2a-overlap,
 * --fp8-recipe, --dispatcher, --fp8-param, --grad-reduce, --optimizer-states) and offload.
 * 0 or an exit code (unknown stack: 2, with the nearest names). */
int train_cli_apply_stack(cli *c, const train_args *a, const opt *opts, size_t n, gpuecon_train_request *req);
/* One predicted configuration as a JSON object with docs/cli.md's keys. */
json_t *train_cli_result_json(const gpuecon_train_result *r);
/* "tp 4 cp 1 pp 8 vpp 12 dp 4 mbs 1" */
void train_cli_config(const gpuecon_parallel *p, char *buf, size_t cap);
/* Prints the breakdown and memory tables of one result. */
void train_cli_print_result(cli *c, FILE *f, const gpuecon_train_result *r);
/* The MoE part of a result as JSON (null for dense models). */
json_t *train_cli_moe_json(const gpuecon_train_result *r);
/* train --vs S (train_vs.c): the same job on system S, end-to-end and all-to-all ratios; adds
 * "vs" to j and/or prints to f (either may be NULL). 0 or an exit code. */
int train_vs(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_train_result *mine,
             json_t *j, FILE *f);
/* Cost of a predicted throughput under a profile: fills cost; 0 or an exit code. */
int train_cli_cost(cli *c, const gpuecon_train_request *req, const gpuecon_profile *p, double pue, double usd_h, double tokens,
                   double tok_s, gpuecon_cost *cost, double *usd_per_gpu_hour);
/* The run request of --profile/--tokens/--tier/--mtbi-gpu-days/--pue for a throughput. */
void train_cli_run_request(const train_args *a, const gpuecon_train_request *req, const gpuecon_profile *p,
                           double tok_s, gpuecon_run_request *run);
/* The run's reliability and totals as JSON keys added to j (days_to_train ettr total_usd
 * energy_mwh effective_usd_per_mtok spare_gpus provisioned_gpus tier). */
void train_cli_run_json(json_t *j, const gpuecon_platform_result *r, const char *tier);
/* train --rent-usd-per-gpu-hour (train_life.c): owning the cluster over its life vs renting. */
int train_life(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof);
/* train --target-days (train_target.c): the fewest GPUs that finish by the deadline. */
int train_target(cli *c, const train_args *a, gpuecon_train_request *req, const gpuecon_profile *prof);

#endif
