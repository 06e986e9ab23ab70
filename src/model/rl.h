/*
 * rl.h — private declarations shared by the RL step model's files: rl_gen.c (response
 * lengths and the generation phase through the serving model) and rl.c (scoring, training,
 * weight sync, placement, the split search and the economics). Never installed.
 */
#ifndef GPUECON_RL_H
#define GPUECON_RL_H

#include "model/model.h"

/* Response lengths of one step, from the request alone (no deployment needed). */
typedef struct rl_lengths {
    double n;          /* N = prompts x samples: the samples trained on */
    double submitted;  /* N(1 + f) */
    double cap;        /* max_response_len */
    double end;        /* response_end */
    bool capped;
    double gen_mean;   /* E[min(X, end)] */
    double kept_mean;  /* mean response of the N kept */
    /* the serving requests of one step (docs/model.md §8.2): without partial rollouts the
     * N(1+f) samples; with them the A active samples, new and carried over */
    double seg;        /* partial rollouts: tokens per sample per step T (0: off) */
    double requests;   /* requests per step */
    double active_per_sample; /* A/N = sum_k S(kT) (1 without partial rollouts) */
    double carried;    /* mean tokens a request has already generated (D) */
    double req_prompt, req_output, req_cv, req_hit; /* mean prompt, output, output cv, prefix hit */
} rl_lengths;

/* Share of a step's requests still decoding t tokens into the step. */
double rl_running(const gpuecon_rl_request *r, const rl_lengths *L, double t);

/* One generator layout: TP t (EP = t for MoE), or attention-DP over t GPUs with EP = t. */
typedef struct rl_layout {
    int tp;
    bool dp;
} rl_layout;

/* Fills L (GPUECON_OK) or names the offending option (GPUECON_E_INPUT). */
int rl_lengths_compute(const gpuecon_rl_request *r, rl_lengths *L, gpuecon_error *err);

/* Generation on `gpus` GPUs at engine memory utilisation mem_util (0: the engine default):
 * the deployment (TP fixed or the fastest), bulk and drain times. Fills o->gen, gen_bulk_s,
 * gen_drain_s, generation_s, gen_tokens_per_s_saturated. GPUECON_E_INFEASIBLE when no TP
 * holds the model and one full-length response. */
int rl_generation(const gpuecon_rl_request *r, const rl_lengths *L, int gpus, double mem_util,
                  gpuecon_rl_result *o, gpuecon_error *err);

#endif
