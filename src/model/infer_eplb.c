/*
 * infer_eplb.c — expert slots and the expert load of the busiest expert-parallel rank of a
 * serving deployment, with and without redundant experts (docs/model.md §6.5, EP1–EP4).
 *
 * The routed experts of a MoE layer have unequal popularity, and that popularity is stable over
 * tens to hundreds of steps (TensorRT-LLM, docs/source/blogs/tech_blog/blog4_Scaling_Expert_
 * Parallelism_in_TensorRT-LLM.md, Figures 3–5 and Table 1). A layer waits for its busiest rank.
 * Without a balancer, experts sit on ranks by index (vLLM determine_expert_map; SGLang's and
 * TensorRT-LLM's default placement), so a rank's load is the sum of E/EP experts drawn at random
 * from the popularity distribution. With R redundant experts the deployment runs DeepSeek's
 * expert-parallel load balancer (deepseek-ai/EPLB eplb.py: replicate_experts gives each extra
 * slot to the expert with the most load per replica, balanced_packing places the replicas,
 * heaviest first, on the least-loaded rank with a free slot), which SGLang (--ep-num-redundant-
 * experts with --enable-eplb) and TensorRT-LLM (num_slots of its MoE load balancer) both run.
 *
 * Key choice: the popularity is a fixed vector (lognormal quantiles at Blom's plotting positions,
 * coefficient of variation `load_cv` across experts; 0: every expert alike), so the result is a
 * deterministic number per request, computed in the request's preparation (and remembered per
 * thread for the next layouts of a search). The per-step sampling noise of which tokens a step
 * carries is not modelled (assumption, docs/model.md §6.5).
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPLB_MAX_SLOTS 1024 /* E + R and EP at most (infer.c refuses more) */
#define EPLB_DRAWS 256      /* random placements averaged without a balancer */

int infer_redundant_default(int experts, int ep)
{
    if (experts <= 0 || ep <= 1)
        return 0;
    return (ep - experts % ep) % ep;
}

int infer_expert_slots(int experts, int redundant, int ep)
{
    if (experts <= 0)
        return 0;
    if (ep <= 1)
        return experts;
    return (experts + redundant + ep - 1) / ep;
}

/* EP2: expert i's share of the routed tokens, mean 1: lognormal of coefficient of variation cv
 * at Blom's plotting positions (i − 0.375)/(E + 0.25), i = 1..E, renormalised to mean 1. */
static void popularity(int experts, double cv, double *l)
{
    if (!(cv > 0)) {
        for (int i = 0; i < experts; i++)
            l[i] = 1;
        return;
    }
    double s2 = log(1 + cv * cv), s = sqrt(s2), sum = 0;
    for (int i = 0; i < experts; i++) {
        l[i] = exp(s * train_inv_norm((i + 1 - 0.375) / (experts + 0.25)) - s2 / 2);
        sum += l[i];
    }
    for (int i = 0; i < experts; i++)
        l[i] *= experts / sum;
}

/* A small deterministic generator (64-bit LCG, Knuth's MMIX constants): the placements are the
 * same on every run and platform. */
static unsigned next_u(unsigned long long *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*x >> 33);
}

/* EP3: no balancer. Rank r holds the experts of indices [r·E/EP, ...) (the first E mod EP ranks
 * one more), and the index says nothing of popularity: the mean over EPLB_DRAWS random orders of
 * the busiest rank's load / the mean rank's load. */
static double by_index(int experts, int ep, const double *l, bool uniform)
{
    int base = experts / ep, extra = experts % ep;
    double mean = (double)experts / ep;
    if (uniform)
        return (base + (extra > 0)) / mean;
    double perm[EPLB_MAX_SLOTS], total = 0;
    unsigned long long seed = 0x9E3779B97F4A7C15ULL;
    for (int d = 0; d < EPLB_DRAWS; d++) {
        memcpy(perm, l, sizeof *perm * (size_t)experts);
        for (int i = experts - 1; i > 0; i--) { /* Fisher–Yates */
            int j = (int)(next_u(&seed) % (unsigned)(i + 1));
            double t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        double top = 0;
        for (int r = 0, at = 0; r < ep; r++) {
            int n = base + (r < extra);
            double load = 0;
            for (int k = 0; k < n; k++)
                load += perm[at++];
            top = fmax(top, load);
        }
        total += top;
    }
    return total / EPLB_DRAWS / mean;
}

static int by_weight_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* EP4: EPLB. replicate_experts: each of the R extra slots goes to the expert whose load per
 * replica is the largest (its load then splits evenly over its replicas); balanced_packing: the
 * replicas, heaviest first, each to the least-loaded rank with a free slot (the first
 * (E+R) mod EP ranks hold one slot more where EP does not divide E + R). */
static double balanced(int experts, int redundant, int ep, const double *l)
{
    int cnt[EPLB_MAX_SLOTS];
    for (int i = 0; i < experts; i++)
        cnt[i] = 1;
    for (int k = 0; k < redundant; k++) {
        int best = 0;
        for (int i = 1; i < experts; i++)
            if (l[i] / cnt[i] > l[best] / cnt[best])
                best = i;
        cnt[best]++;
    }
    double item[EPLB_MAX_SLOTS];
    int n = 0;
    for (int i = 0; i < experts; i++)
        for (int c = 0; c < cnt[i]; c++)
            item[n++] = l[i] / cnt[i];
    qsort(item, (size_t)n, sizeof *item, by_weight_desc);
    int base = n / ep, extra = n % ep;
    double load[EPLB_MAX_SLOTS] = {0};
    int used[EPLB_MAX_SLOTS] = {0};
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int r = 0; r < ep; r++)
            if (used[r] < base + (r < extra) && (best < 0 || load[r] < load[best]))
                best = r;
        load[best] += item[k];
        used[best]++;
    }
    double top = 0;
    for (int r = 0; r < ep; r++)
        top = fmax(top, load[r]);
    return top / ((double)experts / ep);
}

/* The last results of this thread: a search prepares thousands of layouts that share a few
 * (E, EP, R, S), and the random orders of EP3 cost about 65,000 draws each. */
#define EPLB_MEMO 16
static _Thread_local struct {
    int experts, ep, redundant;
    double cv, phi;
} memo[EPLB_MEMO];
static _Thread_local int memo_used, memo_next;

double infer_expert_imbalance(int experts, int ep, int redundant, double load_cv)
{
    if (experts <= 0 || ep <= 1 || experts > EPLB_MAX_SLOTS || ep > EPLB_MAX_SLOTS ||
        experts + redundant > EPLB_MAX_SLOTS || redundant < 0)
        return 1;
    for (int i = 0; i < memo_used; i++)
        if (memo[i].experts == experts && memo[i].ep == ep && memo[i].redundant == redundant && memo[i].cv == load_cv)
            return memo[i].phi;
    double l[EPLB_MAX_SLOTS];
    popularity(experts, load_cv, l);
    double phi = redundant > 0 ? balanced(experts, redundant, ep, l) : by_index(experts, ep, l, !(load_cv > 0));
    phi = phi > 1 ? phi : 1;
    memo[memo_next].experts = experts;
    memo[memo_next].ep = ep;
    memo[memo_next].redundant = redundant;
    memo[memo_next].cv = load_cv;
    memo[memo_next].phi = phi;
    memo_next = (memo_next + 1) % EPLB_MEMO;
    memo_used = memo_used < EPLB_MEMO ? memo_used + 1 : EPLB_MEMO;
    return phi;
}
