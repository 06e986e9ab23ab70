/*
 * compare.h — private state shared by compare.c (evaluation of one platform) and decide.c
 * (ranking, verdict, break-even, sensitivity).
 */
#ifndef GPUECON_COMPARE_H
#define GPUECON_COMPARE_H

#include "decide.h"

/* Kinds costed as training runs (goodput, MTBI, spares, days): training and RL post-training. */
#define COMPARE_TRAIN_LIKE(k) ((k) != GPUECON_WORKLOAD_SERVE)

/* The uncertain inputs of one platform that break-even and sensitivity move. */
enum {
    IN_TOKS,   /* tokens/s per GPU */
    IN_TCO,    /* TCO $/GPU-h before the PUE and electricity adjustment */
    IN_MTBI,   /* GPU-days (training) */
    IN_PUE,
    IN_PE,     /* electricity $/kWh */
    IN_SPARES, /* 1: spare GPUs charged to the job, 0: they earn other work */
    IN_COUNT
};


/* A serving platform's loads at its chosen layout, for the joint samples (joint.c, docs/model.md
 * §7.5): where the workload has latency targets, a sample that draws the platform slower than
 * predicted and so misses them at the operating load runs it at the load, between these, where the
 * drawn latencies meet them, as an operator would; a sample in which not even the lowest load does
 * counts the platform as missing them. Ascending by load, the operating point last. */
#define SERVE_CURVE_MAX 65 /* gpuecon_infer_grid's 64 loads and the operating point */
typedef struct serve_curve {
    size_t n; /* 0: none (no latency target, sized at a rate, disaggregated); 1: the operating load
                 alone (the workload's concurrency: met or missed) */
    double concurrency[SERVE_CURVE_MAX], toks[SERVE_CURVE_MAX], tpot_ms[SERVE_CURVE_MAX], ttft_ms[SERVE_CURVE_MAX];
} serve_curve;

typedef struct pstate {
    const gpuecon_platform *pl;
    const gpuecon_system *sys;    /* the catalog's, or sys_at_limit under the platform's power_limit_w */
    gpuecon_system sys_at_limit;
    const gpuecon_profile *prof;
    const gpuecon_reliability *tier;
    bool train;
    gpuecon_tco tco;                  /* the profile's, at its own PUE */
    double kw;                        /* IT kW per GPU */
    double pue0, pe0;                 /* PUE and price inside the profile's TCO */
    double pue_ref;                   /* facility PUE at which the TCO's electricity term uses
                                         pue0: the system's PUE, or pue0 when the platform
                                         overrides the PUE (docs/model.md §7.2) */
    gpuecon_reliability_request rreq; /* training */
    double token_factor;              /* same-quality tokens / workload tokens */
    const gpuecon_stack *stack;       /* training framework stack */
    const gpuecon_calibration *user_cal; /* training: the user's calibration of stack x system x precision from a
                                            --catalog overlay (docs/model.md §3.8); NULL: none */
    const gpuecon_stack *serve_stack; /* serve workloads: the engine stack given (NULL: generic) */
    double tokens;
    double in[IN_COUNT];
    const calib_set *calib;           /* set by the caller, kept by evaluate: the training search's
                                         MFU cap and the layout's match (docs/model.md §3.5); NULL: none */
    serve_curve curve;                /* serving with latency targets: the loads of its layout */
} pstate;

/* compare_serve.c: the serving prediction of one platform into res (throughput, latencies,
 * note; percentiles when the workload simulates), with the user's calibration cal applied to the
 * engine's profile (NULL: none), and into curve (may be NULL) the loads of its layout where the
 * workload has latency targets and the platform is aggregated and not sized at a rate (else
 * curve->n is 0). GPUECON_OK also when the platform cannot serve
 * (res->predicted_tokens_per_s_per_gpu NaN, the reason in the note); other statuses (no memory,
 * canceled) are returned. */
int compare_predict_serve(gpuecon_ctx *ctx, const gpuecon_workload *w, const gpuecon_platform *pl,
                          const gpuecon_stack *stack, const gpuecon_calibration *cal,
                          const gpuecon_model *m, const gpuecon_system *sys, gpuecon_platform_result *res,
                          serve_curve *curve, gpuecon_error *err);

/* uncertainty.c: the band set a comparison's bands come from (built once per compare). */
typedef struct compare_bands {
    band_set *set;
    bool ready;
} compare_bands;
/* Builds b's band set once (the compiled held-out rows, band.c); keeps it when ready. */
int compare_bands_fill(gpuecon_ctx *ctx, const gpuecon_catalog *cat, compare_bands *b, gpuecon_error *err);
void compare_bands_free(gpuecon_ctx *ctx, compare_bands *b);
/* Sets the 80% band (platform.band, docs/model.md §7.6) of every feasible training or serving
 * platform whose throughput is predicted (not measured), and a serving one's TPOT and TTFT bands
 * (band_tpot, band_ttft); others get none. */
void compare_uncertainty(const compare_bands *b, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                         gpuecon_comparison_result *cr, const pstate *ps);
/* options.uncertainty: n joint samples of every platform's uncertain inputs (throughput from
 * its 80% band or its source's stage, TCO, MTBI, PUE and electricity price from their
 * stages; the price of electricity shared by all platforms of a sample; a serving platform's
 * TPOT and TTFT from their bands with the throughput's deviate, at the load of its curve that
 * meets wl's targets), each platform's ranked cost per sample: probability_cheapest,
 * probability_meets_target (serving with targets) and the effective $/Mtok percentiles. Sample k
 * uses its own generator seeded from (ctx seed, k), so the result does not depend on threads. */
int compare_joint_uncertainty(gpuecon_ctx *ctx, const pstate *ps, const gpuecon_workload *wl, int n,
                              gpuecon_comparison_result *cr, gpuecon_error *err);
/* Appends to the verdict whether the cheapest's and runner-up's bands reach their throughput
 * break-even (after the break-even analysis), and for a serving workload with latency targets
 * whether the cheapest's TPOT and TTFT bands stay within them. */
void compare_uncertainty_verdict(gpuecon_comparison_result *cr, const gpuecon_workload *w);

/* compare_rl.c: the RL step of platform pl at `gpus` GPUs (gpuecon_rl_predict, no cost: compare
 * costs it as a training run): sets predicted_tokens_per_s_per_gpu (trained tokens/s/GPU) and the
 * rl_* fields, or predicted NaN and predicted_note when it cannot run. */
int compare_rl_predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_workload *w,
                       const gpuecon_platform *pl, const gpuecon_stack *stack, int gpus,
                       gpuecon_platform_result *res, gpuecon_error *err);
/* Appends to an rl comparison's verdict the term that decides it and where the claim that
 * rack-scale NVLink (NVL72) wins RL fails. */
void compare_rl_verdict(gpuecon_comparison_result *cr, const pstate *ps);

/* Evaluates platform pi of comparison c into res and leaves its state in ps. The training
 * stack is the platform's, else the workload's, else default_stack, else megatron-bridge-2026.
 * earlier (may be NULL): the results of platforms 0..pi-1, whose training predictions are
 * reused for the same job on the same system and stack (another tier, profile or price). */
int compare_platform(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi,
                     const char *default_stack, const gpuecon_platform_result *earlier, pstate *ps,
                     gpuecon_platform_result *res, gpuecon_error *err);
/* The ranked cost ($/Mtok, see gpuecon_platform_result.rank_usd_per_mtok) at inputs `in`;
 * fills res's economic and reliability fields when res is not NULL. NaN when undefined. */
double compare_rank_cost(const pstate *ps, const double *in, gpuecon_platform_result *res);
int compare_monte_carlo(gpuecon_ctx *ctx, const pstate *ps, int trials, gpuecon_platform_result *res,
                        gpuecon_error *err);
/* One comparison evaluated, ranked and analysed into cr (zeroed by the caller); release it
 * with compare_one_free (decide.c). */
int compare_one(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                const gpuecon_compare_options *opt, gpuecon_comparison_result *cr, gpuecon_error *err);
void compare_one_free(gpuecon_ctx *ctx, gpuecon_comparison_result *cr);
/* The GPUs / days / dollars trade of platform pi around its evaluated size (res->trade, from
 * ctx; compare.c); calib (may be NULL) as pstate's. */
int compare_trade(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, size_t pi,
                  const calib_set *calib, gpuecon_platform_result *res, gpuecon_error *err);
/* Owning vs renting over the cluster's life for a platform with rent_usd_per_gpu_hour (life.c):
 * fills res->life_result (allocated from ctx) or res->life_why. */
int compare_life(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, const pstate *ps,
                 gpuecon_platform_result *res, gpuecon_error *err);
/* Break-even date, series of ratios at the point dates, and the date the leader's advantage
 * vanishes, for the two best platforms when either has a timeline (breakeven_date.c). */
void breakeven_dates(gpuecon_comparison_result *cr, const pstate *ps);
/* tiers.c: whether the feasible training platforms span two or more operator tiers with two
 * systems at one tier (then the same hardware at another tier is not a rival). */
bool compare_tiered(const gpuecon_comparison_result *cr, const pstate *ps);
/* tiers.c, after ranking: in a tiered comparison, the cheapest, its rival and the fastest at each
 * tier, and the runner-up (and cost ratio) re-taken as the cheapest's rival at its own tier. */
void compare_tier_rivals(gpuecon_comparison_result *cr, const pstate *ps);
/* tiers.c, after the verdict: in a tiered comparison, the verdict given tier by tier. */
void compare_tier_verdict(gpuecon_comparison_result *cr, const pstate *ps);
/* tiers.c: the closing-judgment table (cheapest per tier, the flip tier, tier_text). */
void compare_tier_flip(gpuecon_comparison_result *cr, const pstate *ps);
/* Provenance of a profile's published TCO for a system (compare.c). */
gpuecon_source compare_profile_source(const gpuecon_profile *p, const char *system);
/* The platform's own price per GPU-hour (usd_per_gpu_hour, or its older spelling
 * tco_usd_per_gpu_hour), 0 when it has none; *field is the one given (compare.c). */
double compare_platform_price(const gpuecon_platform *pl, platform_field *field);
/* Provenance of a platform's scenario field (pl->src is indexed by platform_field); a platform
 * built by hand, without one, has the stage assumption. */
static inline gpuecon_source platform_source(const gpuecon_platform *pl, platform_field f)
{
    return pl->src ? pl->src[f] : (gpuecon_source){"scenario", GPUECON_STAGE_ASSUMPTION};
}

#endif
