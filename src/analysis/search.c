/*
 * search.c — the space of parallel configurations, ranked fast.
 *
 * Work items are (tp, cp, pp) triples, which fix dp; inside one, each (mbs, recompute,
 * tp-overlap) gives one layer cost (train_layer), and every (vpp, zero) on top of it is
 * checked for memory first and timed only when it fits (train_memory, train_eval: a few
 * hundred flops, no allocation). Threads (OpenMP) take items dynamically and keep their own
 * top-k heap; heaps merge under a total order (objective, then the configuration itself), so
 * the result is the same for any thread count, and shards (item index mod n) merge exactly.
 * Mixture-of-experts models add one loop level inside an item: each expert layout (ep,
 * etp) derives its MoE layer cost (moe_layer) on top of the layer cost, and all-to-all
 * overlap on/off is one more choice timed on it; where selective recompute alone does not fit,
 * the MoE blocks are recomputed too (mem_rc_moe). What does not change within an item is derived
 * once: its stage sets per (expert layout, vpp), and (per worker, across items) the layer costs
 * of each (tp, cp, mbs, recompute, overlap); the heaps are in search_heap.h.
 */
#include "analysis/analysis.h"
#include "search_heap.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXDIV 512
/* the work (items, MoE ones weighted) below which a search runs on one thread */
#define SEARCH_MIN_PARALLEL 512.0

typedef struct item {
    int tp, cp, pp, dp;
} item;

/* A layer cost kept for reuse: train_layer depends on (tp, cp, mbs, recompute, overlap) and the
 * search's fixed inputs only, and the items of one (tp, cp) differ in pp and dp alone. */
#define LAYER_SLOTS 1024
typedef struct layer_key {
    bool used, ov;
    int tp, cp, mbs;
    gpuecon_recompute rc;
} layer_key;

/* Per-thread state: the heap, counters and the nearest miss. */
typedef struct worker {
    heap h;
    uint64_t evaluated, feasible, pruned;
    double min_over;
    train_cfg over_cfg;
    bool have_over;
    /* the item's own k best scores (a min-heap): a block whose bound falls below the k-th
     * cannot enter the global top k either, whatever the other items hold */
    double *lk;
    int lk_n, lk_cap;
    bool exhaustive;
    /* a first, coarse pass (one recompute policy, one micro-batch per item) records its k
     * best scores in gk; their k-th, merged over workers, bounds the second pass: gthr */
    bool coarse;
    double *gk;
    int gk_n;
    double gthr;
    /* the item's stage sets, one per (expert layout, vpp): they depend on neither the
     * micro-batch, the recompute policy nor the overlaps (train_stages), so every block of the
     * item reuses them; state 0 not yet derived, 1 the stages, 2 the data-parallel half too */
    stage_set *sc;
    unsigned char *sc_state;
    int sc_nv;
    double tps_cap;     /* the throughput at the request's MFU cap (score_of); INFINITY: none */
    double band_max;    /* the largest band factor a configuration can rank at (bounds; 1: none) */
    layer_key *lk_keys; /* LAYER_SLOTS of them, direct-mapped (zeroed: none used) */
    train_layer_cost *lk_vals;
    char pad[64];
} worker;

/* train_layer through the worker's slots: the same bits, computed once per key while it stays. */
static void layer_of(const train_static *st, worker *w, int tp, int cp, int mbs, gpuecon_recompute rc, bool ov,
                     train_layer_cost *out)
{
    unsigned h = (unsigned)tp * 73856093u ^ (unsigned)cp * 19349663u ^ (unsigned)mbs * 83492791u ^
                 (unsigned)rc * 2654435761u ^ (ov ? 0x9e3779b9u : 0u);
    unsigned k = (h ^ h >> 16) % LAYER_SLOTS;
    layer_key *s = &w->lk_keys[k];
    if (!s->used || s->tp != tp || s->cp != cp || s->mbs != mbs || s->rc != rc || s->ov != ov) {
        train_layer(st, tp, cp, mbs, rc, ov, &w->lk_vals[k]);
        if (st->moe)
            moe_shared(st, &w->lk_vals[k]);
        s->used = true, s->tp = tp, s->cp = cp, s->mbs = mbs, s->rc = rc, s->ov = ov;
    }
    *out = w->lk_vals[k];
}

/* The ranking key of a configuration of step time `step` (higher is better): its tokens/s/GPU, or
 * minus its $ per 1M tokens, at a throughput clipped to tps_cap (the MFU cap of the request,
 * docs/model.md §3.5; INFINITY without one) and times band (its 80% band's low end over the point,
 * calib_rank_factor; 1 without bands; a bound takes the largest a configuration can have). Configurations above the cap tie at it; *tie (may be
 * NULL) orders them: the smaller estimate first, the one that needs the least belief beyond the best
 * MFU ever published (0 below the cap). One function for every score the search compares, bounds
 * included (clipping keeps an upper bound one), so the key can change in one place. */
static inline double score_of(const train_static *st, double tps_cap, double band, double step, double price,
                              gpuecon_objective obj, double *tie)
{
    double tps = (double)st->gbs * st->seq / step / st->gpus;
    if (tie)
        *tie = tps > tps_cap ? -tps : 0;
    if (tps > tps_cap)
        tps = tps_cap;
    tps *= band;
    return obj == GPUECON_OBJECTIVE_COST && price > 0 ? -price / (tps * 3600) * 1e6 : tps;
}

/* The layout family of configuration c (calib_family_bits; the expert group's scale-up domains as
 * the MoE model places it, comm_placement), for the band it ranks at. */
static unsigned family_of(const train_static *st, const train_cfg *c)
{
    int g, dom = 1;
    if (c->ep > 1)
        comm_placement(st->link.scaleup_gpus, c->ep, c->etp > 0 ? c->etp : 1, &g, &dom);
    return calib_family_bits(c->tp, c->pp, c->vpp, c->cp, c->ep, c->zero, st->link.scaleup_gpus, dom);
}

/* A lower bound on the step time of every configuration on one layer cost: the micro-batches
 * times the mean stage's layers (the slowest stage has at least the mean), with a margin for
 * stages that mix dense and MoE layers unevenly. */
static double step_bound(const train_static *st, const train_layer_cost *lc, const train_cfg *c, bool ovl)
{
    double per_d = lc->fwd_s + lc->bwd_s + lc->recompute_s + lc->tp_s + lc->cp_s, layers = per_d * st->m->layers;
    if (st->moe) {
        double ep = ovl && lc->m_ep_ovl_s < lc->m_ep_s ? lc->m_ep_ovl_s : lc->m_ep_s;
        double per_m = lc->m_fwd_s + lc->m_bwd_s + lc->m_rc_s + lc->m_tp_s + lc->cp_s + ep;
        if (lc->m_host_s > per_m)
            per_m = lc->m_host_s;
        int nm = moe_layers_in(st, 0, st->m->layers);
        layers = per_d * (st->m->layers - nm) + per_m * (nm + st->mtp);
    }
    double micro = (double)st->gbs / (c->dp * c->mbs);
    return 0.9 * micro * layers / c->pp;
}

/* step_bound for every expert layout at once, on a layer cost before moe_layer: the MoE
 * layers at moe_layer_floor, their all-to-all at none (both at most what step_bound takes
 * for any layout; the operations are the same, and monotone, so no layout's bound is lower). */
static double step_floor(const train_static *st, const train_layer_cost *lc, const train_cfg *c)
{
    double per_d = lc->fwd_s + lc->bwd_s + lc->recompute_s + lc->tp_s + lc->cp_s;
    double per_m = moe_layer_floor(st, lc) + lc->cp_s;
    int nm = moe_layers_in(st, 0, st->m->layers);
    double layers = per_d * (st->m->layers - nm) + per_m * (nm + st->mtp);
    double micro = (double)st->gbs / (c->dp * c->mbs);
    return 0.9 * micro * layers / c->pp;
}

/* The divisors of n in increasing order, at most cap of them (the smallest), in O(sqrt n):
 * a global batch of 2^26 sequences must not cost 2^26 trial divisions per layout. */
static int divisors(int n, int *out, int cap)
{
    int lo = 0, hi = 0, big[1024]; /* n < 2^31 has fewer than 1,600 divisors, half above sqrt n */
    for (int d = 1; (long long)d * d <= n; d++) {
        if (n % d)
            continue;
        if (lo < cap)
            out[lo++] = d;
        if (d != n / d && hi < 1024)
            big[hi++] = n / d;
    }
    for (int i = hi - 1; i >= 0 && lo < cap; i--)
        out[lo++] = big[i];
    return lo;
}

static bool fixed(int v)
{
    return v != GPUECON_SEARCH && v != 0;
}

/* The stage set of expert layout li at vpp v (lowest v0) for c, derived once per item;
 * with dp, its data-parallel half too. */
static stage_set *stages_of(const train_static *st, worker *w, int li, int v, int v0, const train_cfg *c, bool dp)
{
    size_t k = (size_t)li * (size_t)w->sc_nv + (size_t)(v - v0);
    if (w->sc_state[k] == 0)
        train_stages_layout(st, c, &w->sc[k]), w->sc_state[k] = 1;
    if (dp && w->sc_state[k] == 1)
        train_stages_dp(st, c, &w->sc[k]), w->sc_state[k] = 2;
    return &w->sc[k];
}

/* The (vpp, zero) pairs run_vz visits for an item. */
static int count_vz(const train_static *st, const gpuecon_train_request *req, const item *it)
{
    int L = st->m->layers, n = 0;
    int vlo = 1, vhi = it->pp > 1 ? (L + 2) / it->pp : 1;
    if (fixed(req->vpp))
        vlo = vhi = req->vpp;
    for (int v = vlo; v <= vhi; v++) {
        int ch = v * it->pp;
        if ((long)ch > L + 2 || (v > 1 && it->pp == 1) || (!fixed(req->vpp) && v > 1 && L % ch && (L + 2) % ch))
            continue;
        n++;
    }
    return n * (req->zero != GPUECON_SEARCH ? 1 : 4);
}

/* Memory of c; with searched offload (--offload-layers left to search), recompute none and c
 * over capacity, c->offload becomes the fewest layers per stage that make it fit: memory falls
 * and exposed offload time rises with them, so the fewest is the best of that dimension (exact). */
static double mem_offload(const train_static *st, const train_layer_cost *lc, train_cfg *c, const stage_set *ss)
{
    double mem = train_memory_of(st, lc, c, ss, NULL);
    /* offload stands in for recompute in the recipes (Megatron-Bridge's offloading configs run
     * without recompute), so the search pairs it with recompute none only */
    if (st->offload != GPUECON_SEARCH || mem <= st->capacity || !(st->host_bps > 0) || c->rc != GPUECON_RECOMPUTE_NONE)
        return mem;
    int n = train_offload_needed(st, lc, c, ss);
    if (n <= 0)
        return mem;
    c->offload = n;
    return train_memory_of(st, lc, c, ss, NULL);
}

/* lc with the MoE blocks recomputed too, for mem_rc_moe: derived as far as asked, memory only
 * (state 1: lc with its activation bytes) or in full to be timed (state 2: moe_layer's own). */
typedef struct moe_twin {
    train_layer_cost lc;
    int state;
} moe_twin;

static const train_layer_cost *twin_of(const train_static *st, const train_layer_cost *lc, moe_twin *t, int state)
{
    if (t->state < 1) {
        t->lc = *lc;
        t->lc.rc_moe = true;
        t->lc.m_act_bytes = moe_act_recomputed(st, lc);
        t->state = 1;
    }
    if (state > 1 && t->state < 2) {
        moe_layer(st, lc->ep, lc->etp, &t->lc);
        t->state = 2;
    }
    return &t->lc;
}

/* mem_offload, and where c is over capacity with selective recompute and the search may choose
 * MoE-block recompute (st->rc_moe_search), the same with the MoE blocks recomputed too (on
 * lc's twin t), with c->rc_moe set when that needs less. Where selective alone fits,
 * recomputing the blocks too only adds time (their forward, dispatch and combine again in
 * backward) for memory nothing needs, so, as with the fewest offloaded layers, the one kept is
 * the best of that dimension (exact). */
static double mem_rc_moe(const train_static *st, const train_layer_cost *lc, train_cfg *c, const stage_set *ss,
                         moe_twin *t)
{
    double mem = mem_offload(st, lc, c, ss);
    if (mem <= st->capacity || !st->rc_moe_search || c->rc != GPUECON_RECOMPUTE_SELECTIVE)
        return mem;
    const train_layer_cost *lm = twin_of(st, lc, t, 1);
    train_cfg k = *c;
    k.rc_moe = true;
    double less = train_memory_of(st, lm, &k, ss, NULL);
    if (less < mem)
        *c = k, mem = less;
    return mem;
}

/* Whether anything of a skipped block fits (memory only), so the micro-batch loop still
 * stops where the exhaustive search would. */
static uint64_t any_fits(const train_static *st, const gpuecon_train_request *req, const item *it,
                         const train_layer_cost *lc, train_cfg c, int li, worker *w)
{
    int L = st->m->layers;
    int vlo = 1, vhi = it->pp > 1 ? (L + 2) / it->pp : 1;
    if (fixed(req->vpp))
        vlo = vhi = req->vpp;
    int zlo = req->zero != GPUECON_SEARCH ? req->zero : 0, zhi = req->zero != GPUECON_SEARCH ? req->zero : 3;
    moe_twin tw = {.state = 0};
    for (int v = vlo; v <= vhi; v++) {
        int ch = v * it->pp;
        if ((long)ch > L + 2 || (v > 1 && it->pp == 1) || (!fixed(req->vpp) && v > 1 && L % ch && (L + 2) % ch))
            continue;
        c.vpp = v;
        const stage_set *ss = stages_of(st, w, li, v, vlo, &c, false);
        for (c.zero = zhi; c.zero >= zlo; c.zero--) {
            train_cfg k = c;
            if (mem_rc_moe(st, lc, &k, ss, &tw) <= st->capacity)
                return 1;
        }
    }
    return 0;
}

/* Every (vpp, zero, all-to-all overlap) on one layer cost: memory first (the overlap does not
 * change it), timed only when it fits. Returns how many fitted. */
static uint64_t run_vz(const train_static *st, const gpuecon_train_request *req, const item *it,
                       const train_layer_cost *lc, train_cfg c, const int *aos, int nao, double price,
                       gpuecon_objective obj, int li, worker *w)
{
    uint64_t fit0 = w->feasible;
    int L = st->m->layers;
    int vlo = 1, vhi = it->pp > 1 ? (L + 2) / it->pp : 1;
    if (fixed(req->vpp))
        vlo = vhi = req->vpp;
    int zlo = 0, zhi = 3;
    if (req->zero != GPUECON_SEARCH)
        zlo = zhi = req->zero;
    moe_twin tw = {.state = 0}; /* lc with the MoE blocks recomputed too (mem_rc_moe) */
    for (int v = vlo; v <= vhi; v++) {
        if ((long)v * it->pp > L + 2 || (v > 1 && it->pp == 1))
            continue;
        /* searched interleaving: layers split evenly over the pp·vpp chunks, or evenly once
         * the embedding and the loss count as a layer each */
        int ch = v * it->pp;
        if (!fixed(req->vpp) && v > 1 && L % ch && (L + 2) % ch)
            continue;
        c.vpp = v;
        const stage_set *ss = stages_of(st, w, li, v, vlo, &c, false);
        bool have_dp = false; /* the data-parallel half, at the first configuration that fits */
        int off0 = c.offload;
        for (int z = zlo; z <= zhi; z++) {
            c.zero = z;
            c.offload = off0;
            c.rc_moe = lc->rc_moe;
            double mem = mem_rc_moe(st, lc, &c, ss, &tw);
            if (w->coarse) {
                if (mem > st->capacity)
                    continue;
            } else
                w->evaluated += (uint64_t)nao;
            if (mem > st->capacity) {
                double over = mem - st->capacity;
                c.a2a_overlap = aos[0];
                cand a = {-over, c, 0}, b = {-w->min_over, w->over_cfg, 0};
                if (!w->have_over || cand_cmp(&a, &b) < 0)
                    w->min_over = over, w->over_cfg = c, w->have_over = true;
                continue;
            }
            w->feasible += w->coarse ? 0 : (uint64_t)nao;
            /* ranked at its band's low end where the request asks (docs/model.md §3.5) */
            double band = req->rank_band_low[0] > 0 ? calib_rank_factor(req, family_of(st, &c)) : 1;
            if (!have_dp)
                ss = stages_of(st, w, li, v, vlo, &c, true), have_dp = true;
            const train_layer_cost *on = c.rc_moe == lc->rc_moe ? lc : twin_of(st, lc, &tw, 2);
            for (int ai = 0; ai < nao; ai++) {
                c.a2a_overlap = aos[ai];
                double step = train_eval_of(st, on, &c, ss, NULL);
                cand k = {0, c, 0};
                k.score = score_of(st, w->tps_cap, band, step, price, obj, &k.tie);
                if (w->coarse) {
                    score_push(w->gk, &w->gk_n, w->lk_cap, k.score);
                    continue;
                }
                heap_push(&w->h, &k);
                score_push(w->lk, &w->lk_n, w->lk_cap, k.score);
            }
        }
    }
    return w->feasible - fit0;
}

/* Expert layouts of an item: etp (1 or tp, as Megatron recipes use it) innermost,
 * ep (a divisor of the experts) with ep x etp dividing the stage's tp x cp x dp ranks. */
static int expert_layouts(const train_static *st, const gpuecon_train_request *req, const item *it, int *eps,
                          int *etps)
{
    int block = it->tp * it->cp * it->dp, n = 0;
    int elo = 1, ehi = it->tp;
    if (fixed(req->etp))
        elo = ehi = req->etp;
    for (int et = elo; et <= ehi; et++) {
        if ((!fixed(req->etp) && et != 1 && et != it->tp) || (int)st->fe % et || block % et)
            continue;
        for (int e = 1; e <= st->E && n < MAXDIV; e++) {
            if (st->E % e || block % (e * et) || (fixed(req->ep) && e != req->ep))
                continue;
            eps[n] = e, etps[n] = et, n++;
        }
    }
    return n;
}

/* A block's configuration on layer cost lc before run_vz sets vpp, zero and the all-to-all overlap. */
static train_cfg cfg_at(const train_static *st, const item *it, const train_layer_cost *lc, int ep, int etp)
{
    return (train_cfg){.tp = it->tp, .cp = it->cp, .pp = it->pp, .vpp = 1, .dp = it->dp, .mbs = lc->mbs, .zero = 0,
                       .rc = lc->rc, .tp_overlap = lc->tp_overlap, .ep = ep, .etp = etp, .a2a_overlap = false,
                       .offload = st->offload > 0 ? st->offload : 0, .rc_moe = lc->rc_moe};
}

static void run_item(const train_static *st, const gpuecon_train_request *req, const item *it, double price,
                     gpuecon_objective obj, worker *w)
{
    int local = st->gbs / it->dp;
    int mbs[MAXDIV], nm;
    if (fixed(req->mbs)) {
        if (local % req->mbs)
            return;
        mbs[0] = req->mbs, nm = 1;
    } else {
        nm = divisors(local, mbs, MAXDIV);
    }
    int rcs[3], nrc = 0;
    if (req->recompute != GPUECON_SEARCH)
        rcs[nrc++] = req->recompute;
    else
        for (int r = 0; r < 3; r++)
            rcs[nrc++] = r;
    int ovs[2], nov = 0;
    if (req->tp_overlap != GPUECON_SEARCH)
        ovs[nov++] = it->tp > 1 ? req->tp_overlap : 0;
    else {
        ovs[nov++] = 0;
        if (it->tp > 1)
            ovs[nov++] = 1;
    }
    if (w->coarse) { /* the coarse pass: no recompute or the fixed one, the last overlap, the smallest micro-batch */
        nrc = 1, nm = 1;
        ovs[0] = ovs[nov - 1], nov = 1;
    }
    int eps[MAXDIV], etps[MAXDIV], nl = 1, aos[2] = {0, 1}, nao = 1, nvz = count_vz(st, req, it), hint = 0;
    w->lk_n = 0;
    eps[0] = etps[0] = 1;
    if (st->moe) {
        nl = expert_layouts(st, req, it, eps, etps);
        if (st->a2a_overlap != GPUECON_SEARCH)
            aos[0] = st->a2a_overlap != 0;
        else
            nao = 2;
    }
    int L = st->m->layers, vlo = 1, vhi = it->pp > 1 ? (L + 2) / it->pp : 1;
    if (fixed(req->vpp))
        vlo = vhi = req->vpp;
    w->sc_nv = vhi >= vlo ? vhi - vlo + 1 : 1;
    memset(w->sc_state, 0, (size_t)nl * (size_t)w->sc_nv);
    /* memory grows with the micro-batch and nothing else depends on it: once no layout fits
     * at some micro-batch (for a recompute policy), no larger one can */
    for (int ri = 0; ri < nrc; ri++)
        for (int oi = 0; oi < nov; oi++)
            for (int mi = 0; mi < nm; mi++) {
                train_layer_cost lc;
                layer_of(st, w, it->tp, it->cp, mbs[mi], (gpuecon_recompute)rcs[ri], ovs[oi], &lc);
                uint64_t fit = 0;
                if (st->moe && !w->exhaustive && !w->coarse) {
                    /* the block of every expert layout at once: when even its floor cannot
                     * enter the top k, each layout would be pruned below (the thresholds do
                     * not move meanwhile); only whether one fits remains to be found */
                    train_cfg c = cfg_at(st, it, &lc, 1, 1);
                    double ub = score_of(st, w->tps_cap, w->band_max, step_floor(st, &lc, &c), price, obj, NULL);
                    if (ub < w->gthr || (w->lk_n == w->lk_cap && ub < w->lk[0])) {
                        w->pruned += (uint64_t)nl * nvz * nao;
                        /* (not needed after the largest micro-batch) starting from the
                         * layout that fitted last: likeliest to fit again, and the answer
                         * does not depend on the order */
                        for (int j = 0; j < nl && !fit && mi + 1 < nm; j++) {
                            int li = (hint + j) % nl;
                            moe_layer(st, eps[li], etps[li], &lc);
                            c.ep = eps[li], c.etp = etps[li];
                            if ((fit = any_fits(st, req, it, &lc, c, li, w)))
                                hint = li;
                        }
                        if (!fit)
                            break;
                        continue;
                    }
                }
                for (int li = 0; li < nl; li++) {
                    if (st->moe)
                        moe_layer(st, eps[li], etps[li], &lc);
                    train_cfg c = cfg_at(st, it, &lc, eps[li], etps[li]);
                    if (!w->exhaustive && !w->coarse) {
                        double ub =
                            score_of(st, w->tps_cap, w->band_max, step_bound(st, &lc, &c, nao > 1 || aos[0]), price,
                                     obj, NULL);
                        if (ub < w->gthr || (w->lk_n == w->lk_cap && ub < w->lk[0])) {
                            w->pruned += (uint64_t)nvz * nao;
                            if (!fit) /* only whether this micro-batch fits at all matters */
                                fit = any_fits(st, req, it, &lc, c, li, w);
                            continue;
                        }
                    }
                    fit += run_vz(st, req, it, &lc, c, aos, nao, price, obj, li, w);
                }
                if (!fit)
                    break;
            }
}

/* Every (tp, cp, pp) with an integral dp that divides the batch. */
static size_t build_items(const train_static *st, const gpuecon_train_request *req, item *out, size_t cap)
{
    const gpuecon_model *m = st->m;
    int tps[MAXDIV], nt = 0, n = st->gpus;
    if (fixed(req->tp))
        tps[nt++] = req->tp;
    else
        for (int t = 1; t <= n && nt < MAXDIV; t++)
            if (n % t == 0 && m->heads % t == 0 && m->kv_heads % t == 0)
                tps[nt++] = t;
    size_t k = 0;
    for (int i = 0; i < nt; i++) {
        int rest = n / tps[i];
        if (n % tps[i])
            continue;
        for (int c = 1; c <= rest; c++) {
            if (rest % c || (fixed(req->cp) && c != req->cp) || (c > 1 && st->seq % (2 * c)))
                continue;
            int rest2 = rest / c;
            for (int p = 1; p <= rest2 && p <= m->layers; p++) {
                if (rest2 % p || (fixed(req->pp) && p != req->pp))
                    continue;
                if (fixed(req->vpp) && ((long)p * req->vpp > m->layers + 2 || (req->vpp > 1 && p == 1)))
                    continue;
                int dp = rest2 / p;
                if (st->gbs % dp)
                    continue;
                if (k < cap)
                    out[k] = (item){tps[i], c, p, dp};
                k++;
            }
        }
    }
    return k;
}

/* The most stage sets one item of the search holds (worker.sc): expert layouts times vpp values. */
static size_t stage_cap(const train_static *st, const gpuecon_train_request *req)
{
    size_t nl = 1, nv = fixed(req->vpp) ? 1 : (size_t)(st->m->layers + 2) / 2;
    if (st->moe) {
        size_t nd = 0;
        for (int e = 1; e <= st->E; e++)
            nd += st->E % e == 0;
        nl = 2 * nd < MAXDIV ? 2 * nd : MAXDIV;
    }
    return nl * (nv > 1 ? nv : 1);
}

static int nthreads(gpuecon_ctx *ctx)
{
#ifdef _OPENMP
    int t = ctx && ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    (void)ctx;
    return 1;
#endif
}

static int cand_qsort(const void *a, const void *b)
{
    return cand_cmp(a, b);
}

/* Fills a full result for one configuration. */
static void describe(const train_static *st, const train_cfg *c, gpuecon_train_result *out)
{
    train_layer_cost lc;
    train_layer(st, c->tp, c->cp, c->mbs, c->rc, c->tp_overlap, &lc);
    lc.rc_moe = c->rc_moe;
    if (st->moe)
        moe_layer(st, c->ep, c->etp, &lc);
    train_eval(st, &lc, c, out);
}

static int check_options(gpuecon_search_options *o, gpuecon_error *err)
{
    if (o->top_k == 0)
        o->top_k = 10;
    int rc = err_check_range(err, OPTION("top"), o->top_k, 1, 10000);
    if (rc)
        return rc;
    if (o->shard_count < 0 || o->shard_index < 0 || (o->shard_count > 0 && o->shard_index >= o->shard_count))
        return err_set(err, GPUECON_E_INPUT, OPTION("shard"), 0, 0, "shard %d of %d: need 0 <= k < n", o->shard_index,
                       o->shard_count);
    if (o->objective == GPUECON_OBJECTIVE_COST && !(o->usd_per_gpu_hour > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("objective"), 0, 0, "cost needs a price per GPU-hour (" OPTION("profile") ")");
    return GPUECON_OK;
}

/* Runs the items of this shard on nt threads; returns non-zero when canceled. */
static int run_items(gpuecon_ctx *ctx, const train_static *st, const gpuecon_train_request *req,
                     const gpuecon_search_options *o, const item *items, size_t n_items, worker *ws, int nt)
{
    const gpuecon_ctx_config *cfg = &ctx->cfg;
    volatile int cancel = 0;
    long done = 0;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
#endif
    for (long i = 0; i < (long)n_items; i++) {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        if (cancel || (!ws[tid].coarse && o->shard_count > 0 && i % o->shard_count != o->shard_index))
            continue;
        run_item(st, req, &items[i], o->usd_per_gpu_hour, o->objective, &ws[tid]);
#ifdef _OPENMP
#pragma omp atomic
#endif
        done++;
        if (tid == 0 && !ws[tid].coarse && cfg->progress &&
            cfg->progress(cfg->progress_ud, (double)done, (double)n_items))
            cancel = 1;
    }
    return cancel;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

/* The coarse pass over every item (all shards: the bound must not depend on the shard);
 * the k-th best of its scores, a set that does not depend on the threads, bounds the full
 * pass: every configuration scored here is scored again there. */
static void coarse_pass(gpuecon_ctx *ctx, const train_static *st, const gpuecon_train_request *req,
                        const gpuecon_search_options *o, const item *items, size_t n_items, worker *ws, int nt,
                        double *gks)
{
    for (int t = 0; t < nt; t++)
        ws[t].coarse = true, ws[t].gk_n = 0;
    run_items(ctx, st, req, o, items, n_items, ws, nt);
    size_t n = 0;
    for (int t = 0; t < nt; t++) { /* compact the workers' best scores to the front */
        memmove(gks + n, ws[t].gk, (size_t)ws[t].gk_n * sizeof *gks);
        n += (size_t)ws[t].gk_n;
        ws[t].coarse = false;
    }
    qsort(gks, n, sizeof *gks, cmp_desc);
    double thr = n >= (size_t)o->top_k ? gks[o->top_k - 1] : -INFINITY;
    for (int t = 0; t < nt; t++)
        ws[t].gthr = thr;
}

/* A result's two arrays share one block behind this header, which names the context that
 * allocated it: gpuecon_search_result_free finds it from `best`, so the public struct carries
 * no private field. The union keeps the arrays maximally aligned. */
typedef union result_head {
    struct {
        gpuecon_ctx *ctx;
        size_t bytes;
    } h;
    max_align_t align;
} result_head;

/* Merges the workers' heaps under the total order and describes the kept configurations
 * (or, when none fits, the nearest miss). */
static int collect(gpuecon_ctx *ctx, const train_static *st, const gpuecon_search_options *o, const worker *ws,
                   int nt, cand *all, gpuecon_search_result *out, gpuecon_error *err)
{
    size_t total = 0;
    bool have_over = false;
    cand over = {0};
    for (int t = 0; t < nt; t++) {
        out->configs_evaluated += ws[t].evaluated;
        out->configs_feasible += ws[t].feasible;
        out->configs_pruned += ws[t].pruned;
        for (int j = 0; j < ws[t].h.n; j++)
            all[total++] = ws[t].h.v[j];
        cand a = {-ws[t].min_over, ws[t].over_cfg, 0};
        if (ws[t].have_over && (!have_over || cand_cmp(&a, &over) < 0))
            over = a, have_over = true;
    }
    qsort(all, total, sizeof *all, cand_qsort);
    size_t keep = total < (size_t)o->top_k ? total : (size_t)o->top_k;
    if (keep) {
        size_t bytes = sizeof(result_head) + keep * (sizeof *out->best + sizeof *out->usd_per_mtok);
        result_head *h = ctx_alloc(ctx, bytes);
        if (!h)
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        h->h.ctx = ctx;
        h->h.bytes = bytes;
        out->best = (gpuecon_train_result *)(h + 1);
        out->usd_per_mtok = (double *)(out->best + keep);
        out->n_best = keep;
        for (size_t i = 0; i < keep; i++) {
            describe(st, &all[i].c, &out->best[i]);
            double price = o->usd_per_gpu_hour;
            out->usd_per_mtok[i] = price > 0 ? price / (out->best[i].tokens_per_s_per_gpu * 3600) * 1e6 : 0;
        }
    } else if (have_over) {
        out->have_overflow = true;
        describe(st, &over.c, &out->least_overflow);
    }
    return GPUECON_OK;
}

int gpuecon_train_search(gpuecon_ctx *ctx, const gpuecon_train_request *req, const gpuecon_search_options *opt,
                         gpuecon_search_result *out, gpuecon_error *err)
{
    if (!ctx || !req || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "context, request and result are required");
    memset(out, 0, sizeof *out);
    gpuecon_search_options o = opt ? *opt : (gpuecon_search_options){0};
    train_static st;
    int rc = check_options(&o, err);
    if (rc || (rc = train_prepare(req, &st, err)))
        return rc;
    st.rc_moe_search = st.moe && !st.recompute_moe && req->recompute == GPUECON_SEARCH;
    size_t n_items = build_items(&st, req, NULL, 0), n_alloc = n_items ? n_items : 1;
    /* threads only for a search with enough items to share: a team costs tens of
     * microseconds to start and, on a shared machine, idle team members spin between the
     * regions; a one-layout search (sizes fixed) takes a few microseconds, and compare runs
     * hundreds of searches. An MoE item holds every expert layout, about 16 dense items' work. */
    int nt = nthreads(ctx);
    if ((double)n_items * (st.moe ? 16 : 1) < SEARCH_MIN_PARALLEL)
        nt = 1;
    size_t n_heap = (size_t)nt * (size_t)o.top_k;
    item *items = ctx_alloc(ctx, n_alloc * sizeof *items);
    worker *ws = ctx_alloc(ctx, (size_t)nt * sizeof *ws);
    cand *heaps = ctx_alloc(ctx, n_heap * sizeof *heaps);
    double *lks = ctx_alloc(ctx, n_heap * sizeof *lks), *gks = ctx_alloc(ctx, n_heap * sizeof *gks);
    size_t n_sc = (size_t)nt * stage_cap(&st, req);
    stage_set *scs = ctx_alloc(ctx, n_sc * sizeof *scs);
    unsigned char *scst = ctx_alloc(ctx, n_sc);
    size_t n_ls = (size_t)nt * LAYER_SLOTS;
    layer_key *lkk = ctx_alloc(ctx, n_ls * sizeof *lkk);
    train_layer_cost *lkv = ctx_realloc(ctx, NULL, 0, n_ls * sizeof *lkv); /* written before read */
    if (!items || !ws || !heaps || !lks || !gks || !scs || !scst || !lkk || !lkv) {
        rc = err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    } else {
        build_items(&st, req, items, n_items);
        for (int t = 0; t < nt; t++) {
            ws[t].h = (heap){heaps + (size_t)t * o.top_k, 0, o.top_k};
            ws[t].lk = lks + (size_t)t * o.top_k;
            ws[t].gk = gks + (size_t)t * o.top_k;
            ws[t].lk_cap = o.top_k;
            ws[t].exhaustive = o.exhaustive;
            ws[t].gthr = -INFINITY;
            ws[t].tps_cap = req->rank_mfu_cap > 0 && st.model_flops_causal > 0
                                ? req->rank_mfu_cap * st.peak_nominal / st.model_flops_causal
                                : INFINITY;
            ws[t].band_max = req->rank_band_low[0] > 0 ? fmax(req->rank_band_low[0], req->rank_band_low[1]) : 1;
            ws[t].sc = scs + (size_t)t * (n_sc / (size_t)nt);
            ws[t].sc_state = scst + (size_t)t * (n_sc / (size_t)nt);
            ws[t].lk_keys = lkk + (size_t)t * LAYER_SLOTS;
            ws[t].lk_vals = lkv + (size_t)t * LAYER_SLOTS;
        }
        if (!o.exhaustive)
            coarse_pass(ctx, &st, req, &o, items, n_items, ws, nt, gks);
        if (run_items(ctx, &st, req, &o, items, n_items, ws, nt))
            rc = err_set(err, GPUECON_E_CANCELED, "", 0, 0, "search canceled");
        else
            rc = collect(ctx, &st, &o, ws, nt, heaps, out, err);
    }
    ctx_free(ctx, items, n_alloc * sizeof *items);
    ctx_free(ctx, ws, (size_t)nt * sizeof *ws);
    ctx_free(ctx, heaps, n_heap * sizeof *heaps);
    ctx_free(ctx, lks, n_heap * sizeof *lks);
    ctx_free(ctx, gks, n_heap * sizeof *gks);
    ctx_free(ctx, scs, n_sc * sizeof *scs);
    ctx_free(ctx, scst, n_sc);
    ctx_free(ctx, lkk, n_ls * sizeof *lkk);
    ctx_free(ctx, lkv, n_ls * sizeof *lkv);
    if (rc)
        gpuecon_search_result_free(out);
    return rc;
}

void gpuecon_search_result_free(gpuecon_search_result *r)
{
    if (!r || !r->best)
        return;
    result_head *h = (result_head *)(void *)r->best - 1;
    ctx_free(h->h.ctx, h, h->h.bytes);
    r->best = NULL;
    r->usd_per_mtok = NULL;
    r->n_best = 0;
}

static void cfg_text(const gpuecon_parallel *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "tp %d cp %d pp %d vpp %d dp %d ep %d etp %d mbs %d, %s recompute, ZeRO-%d", p->tp, p->cp,
             p->pp, p->vpp, p->dp, p->ep, p->etp, p->mbs, gpuecon_parallel_recompute_name(p), p->zero);
}

/* The search behind gpuecon_train_predict (below), without the memo. */
static int train_predict(gpuecon_ctx *ctx, const gpuecon_train_request *req, gpuecon_train_result *out,
                         gpuecon_error *err)
{
    memset(out, 0, sizeof *out);
    gpuecon_search_options o = {.top_k = 1};
    gpuecon_search_result r;
    int rc = gpuecon_train_search(ctx, req, &o, &r, err);
    if (rc)
        return rc;
    if (r.n_best) {
        *out = r.best[0];
        gpuecon_search_result_free(&r);
        return GPUECON_OK;
    }
    if (!r.have_overflow) {
        gpuecon_search_result_free(&r);
        return err_set(err, GPUECON_E_INPUT, OPTION("gbs"), 0, 0,
                       "no parallel configuration of %d GPUs divides the global batch of %d sequences "
                       "(dp must divide gbs, tp, cp, pp must fit the model, and an MoE model's ep x etp must divide "
                       "tp x cp x dp)", req->gpus, req->gbs);
    }
    *out = r.least_overflow;
    gpuecon_search_result_free(&r);
    char cfg[160];
    cfg_text(&out->par, cfg, sizeof cfg);
    /* a fixed --recompute none or selective keeps the MoE blocks' activations (docs/model.md §3.6, the
     * Qwen3-235B recipe); a searched one has tried selective with the MoE blocks already */
    bool hint = req->model && req->model->experts > 0 && !req->recompute_moe &&
                (req->recompute == GPUECON_RECOMPUTE_NONE || req->recompute == GPUECON_RECOMPUTE_SELECTIVE);
    return err_set(err, GPUECON_E_INFEASIBLE, "memory", 0, 0,
                   "nothing fits in %.1f GiB per GPU: the smallest overflow is %.1f GiB (%s needs %.1f GiB; "
                   "largest term: %s %.1f GiB)%s", out->mem.capacity_gib, out->mem.overflow_gib, cfg,
                   out->mem.total_gib, out->mem.overflow_term ? out->mem.overflow_term : "?",
                   out->mem.overflow_term_gib,
                   hint ? "; an MoE block keeps its activations unless recomputed: " OPTION("recompute") " selective "
                          OPTION("recompute_moe") ", or leave " OPTION("recompute") " to the search, which tries it"
                        : "");
}

int gpuecon_train_predict(gpuecon_ctx *ctx, const gpuecon_train_request *req, gpuecon_train_result *out,
                          gpuecon_error *err)
{
    if (!out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a result is required");
    gpuecon_memo *m = ctx ? ctx->cfg.memo : NULL;
    int rc;
    if (m && req && memo_get(m, req, &rc, out, err))
        return rc;
    gpuecon_error local;
    gpuecon_error_clear(&local);
    rc = train_predict(ctx, req, out, err ? err : &local);
    if (m && req)
        memo_put(m, req, rc, out, err ? err : &local);
    return rc;
}
