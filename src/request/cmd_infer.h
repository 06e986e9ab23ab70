/*
 * cmd_infer.h — what the serving commands share: the helpers of infer_cli.c (also used by
 * cmd_finetune.c and cmd_rl.c) and the parts of `gpuecon infer` in their own files.
 */
#ifndef GPUECON_CMD_INFER_H
#define GPUECON_CMD_INFER_H

#include "cli.h"

/* ---- infer_cli.c ---- */
/* "q,k,v,o,gate,up,down", "all", "attn" (q,k,v,o) or "mlp" (gate,up,down) into
 * GPUECON_LORA_* bits. Prints the error and returns EXIT_USAGE when s is not such a list. */
int cmd_infer_lora_modules(cli *c, const char *option, const char *s, unsigned *out);
/* A serving/efficiency profile by name; prints the allowed names and returns EXIT_USAGE. */
int cmd_infer_serving_profile(cli *c, const char *option, const char *name, gpuecon_serving_profile *out);

/* ---- cmd_infer_sim.c: --simulate ---- */
typedef struct infer_disagg_args { /* cmd_infer_disagg.c's */
    const char *prefill, *decode;
    bool search;
} infer_disagg_args;

typedef struct infer_sim_args {
    bool simulate;
    int arrival, users, requests, replications, preempt, seed, threads;
    double rate, burstiness, prompt_cv, warmup, swap_gbps, ttft_ms, tpot_ms, slo_pct;
    const char *lengths;
} infer_sim_args;

void cmd_infer_sim_defaults(infer_sim_args *s);
/* Writes the simulation options into out (up to cap); returns how many there are. */
size_t cmd_infer_sim_opts(infer_sim_args *s, opt *out, size_t cap);
/* A context with the command's --seed and --threads (NULL: out of memory). */
gpuecon_ctx *cmd_infer_sim_ctx(cli *c, const infer_sim_args *s);
/* Runs and prints the simulation of `serve` (already checked by gpuecon_infer), or with the
 * disaggregation options (d) of its disaggregated deployment; layout: how serve's layout was chosen
 * (NULL: given, or disaggregated). */
int cmd_infer_simulate(cli *c, const opt *o, size_t n, const infer_sim_args *s, const infer_disagg_args *d,
                       const gpuecon_infer_request *serve, const infer_layout_choice *layout);

/* ---- infer_cli.c ---- */
/* --rate above 0 and the latency targets above 0 ms, where given (--search, disaggregated);
 * prints the error and returns EXIT_USAGE. */
int cmd_infer_check_targets(cli *c, const opt *o, size_t n, const infer_sim_args *s);
/* The held-out errors the bands of this request's figures come from (band_set_build), built once
 * per request: 0 with *out set, or *out NULL and a note when the catalog lacks what they need (the
 * figures then print without bands), or the exit code of an out-of-memory error. */
int cmd_band_set(cli *c, band_set **out);

/* ---- cmd_infer_search.c: --search ---- */
typedef struct infer_search_args {
    bool search;
    int objective, max_draft, confirm, top;
    int_list gpus;
} infer_search_args;

void cmd_infer_search_defaults(infer_search_args *s);
size_t cmd_infer_search_opts(infer_search_args *s, opt *out, size_t cap);
/* Runs and prints the search around `serve` (targets, rate, seed and threads from sim). */
int cmd_infer_search(cli *c, const opt *o, size_t n, const infer_search_args *s, const infer_sim_args *sim,
                     const char *plot, const gpuecon_infer_request *serve);

/* ---- cmd_infer_disagg.c: --prefill/--decode, --disagg-search ---- */
size_t cmd_infer_disagg_opts(infer_disagg_args *s, opt *out, size_t cap);
/* Whether any disaggregation option was given. */
bool cmd_infer_disagg_wanted(const infer_disagg_args *s);
/* Runs and prints the disaggregated deployment (or the ratio search) beside the aggregated one;
 * rate and targets from sim (its --simulate: cmd_infer_simulate). */
int cmd_infer_disagg(cli *c, const opt *o, size_t n, const infer_disagg_args *s, const infer_sim_args *sim,
                     const gpuecon_infer_request *serve);
/* "XxP" into x and p; prints the error naming `option` and returns EXIT_USAGE. */
int cmd_infer_disagg_layout(cli *c, const char *option, const char *s, int *x, int *p);

#endif
