/*
 * reliability.h — private: the checked, derived form of a reliability request, shared by the
 * analytic model (reliability.c) and the Monte Carlo (src/analysis/reliability_mc.c), so both
 * see the same topology, rates and checkpoint policy. All times in seconds, rates per second.
 */
#ifndef GPUECON_RELIABILITY_H
#define GPUECON_RELIABILITY_H

#include "model/model.h"

typedef struct rel_model {
    /* topology: K job domains + S pool domains of D GPUs = nsub units of s GPUs */
    int D, s, nsub;
    int a;      /* active units per job domain (A = a·s GPUs) */
    int kspare; /* spare units per domain: nsub − a */
    int K, S, ndom;
    int G;      /* active GPU slots: K·a·s (whole domains); failures are counted over all of them */
    int N;      /* the job's GPUs, as the user wrote them (<= G): its work and goodput; the G - N
                   slots a partly used domain leaves idle are shown as spares, never as job GPUs */
    /* failures */
    double share[GPUECON_FCLASS_COUNT]; /* normalised */
    int blast[GPUECON_FCLASS_COUNT];
    double lam_gpu[GPUECON_FCLASS_COUNT]; /* per GPU: share/MTBI */
    double mttr_lo[GPUECON_FCLASS_COUNT], mttr_hi[GPUECON_FCLASS_COUNT];
    double det_extra[GPUECON_FCLASS_COUNT], rst_extra[GPUECON_FCLASS_COUNT];
    double p_int[GPUECON_FCLASS_COUNT]; /* share of Λ by class */
    double lam_unit;  /* per unit (node/tray), node-blast classes */
    double lam_dom;   /* per domain, domain-blast classes */
    double lam_job;   /* per job, job-blast classes: G·Σ */
    double mttr_unit, mttr_dom; /* rate-weighted mean repair times */
    double Lambda;    /* faults that interrupt the running job */
    /* job and checkpoints */
    double t_detect;  /* detection + queue */
    double t_detect_only, t_queue, t_restart;
    double tau;       /* work between checkpoints */
    double delta;     /* blocking part of a checkpoint */
    double lag;       /* async: commit lag = write time (0 when synchronous) */
    bool tau_auto;
    double horizon;   /* wall-clock horizon (no budget) */
    double work;      /* failure-free seconds to train the budget (0: none) */
    double weibull_shape;
} rel_model;

/* Checks every field of req (errors name the CLI option and the allowed range) and derives m. */
int reliability_prepare(const gpuecon_reliability_request *req, rel_model *m, gpuecon_error *err);

#endif
