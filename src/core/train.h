/*
 * train.h — private declarations shared by the training model's files: comm.c (collectives),
 * memory.c (bytes per GPU), train.c (step time of one configuration), search.c (the
 * configuration space) and validate.c (published runs). Never installed.
 *
 * The step model is split in two so the search stays fast: train_prepare() derives what
 * depends only on the request (model, system, precision), train_layer() what depends on the
 * per-layer shape (tp, cp, mbs, recompute, tp-overlap), and train_eval() assembles a full
 * configuration (pp, vpp, dp, zero) from those in a few hundred floating-point operations,
 * with no allocation.
 */
#ifndef GPUECON_TRAIN_H
#define GPUECON_TRAIN_H

#include "core.h"

/* ---- comm.c ---- */
typedef struct comm_link {
    int scaleup_gpus;
    double b_up, b_out;   /* achievable bytes/s per GPU per direction */
    double a_up, a_out;   /* per-hop latency, s */
    double launch_s;
} comm_link;

void comm_link_init(comm_link *L, const gpuecon_system *s, const gpuecon_link_model *lm);
/* Members of a strided group inside one scale-up domain, and domains spanned. */
void comm_placement(int scaleup_gpus, int gpus, int stride, int *per_domain, int *domains);
/* Time of one collective (GPUECON_ALGO_AUTO); 0 for an empty group or no bytes. */
double comm_time(const comm_link *L, gpuecon_coll_op op, int n, int stride, double bytes);
/* The same for a group given by its size n and members per domain g (two-strided groups
 * such as data × context parallel). */
double comm_time_g(const comm_link *L, gpuecon_coll_op op, int n, int g, double bytes);

/* ---- memory.c ---- */
/* Activation bytes of one layer from its shape (see memory.c). */
double mem_layer_act(double h, double heads, double kv, double hd, double ffn, double mats, double s,
                     double b, double tp, bool sp, gpuecon_recompute rc, gpuecon_attn_impl impl,
                     bool dropout);
/* Layers of pipeline stage `stage` when `layers` are split over pp·vpp chunks, the
 * remainder going to the middle chunks first (the first and last stage carry the embedding
 * and the loss). */
int mem_stage_layers(int layers, int pp, int vpp, int stage);
/* Micro-batch-chunks stage `stage` holds at the peak of the 1F1B / interleaved schedule,
 * expressed in units of the stage's full layer set (so stage 0 of 1F1B holds min(m, p)). */
double mem_inflight(int pp, int vpp, int microbatches, int stage);

/* ---- train.c ---- */
/* What depends only on the request. */
typedef struct train_static {
    const gpuecon_model *m;
    const gpuecon_system *s;
    const gpuecon_gpu *gpu;
    gpuecon_efficiency eff;
    comm_link link;
    gpuecon_precision prec;
    int seq, gbs, gpus;
    bool sp, dp_overlap, dropout;
    gpuecon_attn_impl attn;
    double grad_reduce_bytes;
    double peak, peak_bf16;      /* FLOP/s */
    double hbm_bps;              /* achieved bytes/s */
    double capacity, reserve;    /* bytes */
    double straggler;            /* speed_cv x E[max of gpus standard normals] */
    /* model shape, averaged over layers (dense models: exact) */
    double h, a, kv, d, f, V;
    double mats;                 /* FFN matrices: 2 or 3 */
    double keys_per_query;       /* causal keys per query token at full seq, averaged */
    double layer_params;         /* per layer, whole model (not TP-split) */
    double emb_params, head_params; /* input embedding, output layer (copy kept when tied) */
    double model_flops_per_token;   /* gpuecon_train_flops FULL */
    double model_flops_causal;
} train_static;

/* What depends on the layer shape: one transformer layer, one micro-batch, one GPU. */
typedef struct train_layer_cost {
    int tp, cp, mbs;
    gpuecon_recompute rc;
    bool tp_overlap;
    double fwd_s, bwd_s, recompute_s;   /* GPU compute incl. kernel overheads */
    double tp_s, cp_s;                  /* exposed communication */
    double hw_flops;                    /* executed FLOPs */
    double act_bytes;                   /* kept for backward */
    double work_bytes;                  /* transient working set */
    /* first and last stage extras, per micro-batch */
    double emb_s, head_s, head_flops, logits_bytes;
    double pp_msg_bytes;                /* one pipeline transfer */
} train_layer_cost;

/* One configuration's outer sizes. */
typedef struct train_cfg {
    int tp, cp, pp, vpp, dp, mbs, zero;
    gpuecon_recompute rc;
    bool tp_overlap;
} train_cfg;

int train_prepare(const gpuecon_train_request *req, train_static *st, gpuecon_error *err);
void train_layer(const train_static *st, int tp, int cp, int mbs, gpuecon_recompute rc,
                 bool tp_overlap, train_layer_cost *out);
/* Memory of the configuration's heaviest stage: returns total bytes; fills mem if non-NULL. */
double train_memory(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                    gpuecon_train_memory *mem);
/* Step time of the configuration; fills out (if non-NULL) completely. */
double train_eval(const train_static *st, const train_layer_cost *lc, const train_cfg *c,
                  gpuecon_train_result *out);
/* Checks the fixed sizes of a request against the model and GPU count (GPUECON_E_INPUT
 * naming the constraint). */
int train_check_request(const gpuecon_train_request *req, gpuecon_error *err);
/* E[max of n standard normal draws] (Blom's approximation, Phi^-1((n - 0.375)/(n + 0.25))). */
double train_expected_max_normal(int n);

#endif
