/*
 * search_heap.h — the bounded heaps of the training search (search.c only): candidates under a
 * total order (score, then the configuration field by field, so merged heaps give the same
 * answer for any thread count), a heap of the k best, and a min-heap of the k best scores.
 */
#ifndef GPUECON_SEARCH_HEAP_H
#define GPUECON_SEARCH_HEAP_H

#include "model/train.h"

typedef struct cand {
    double score; /* higher is better */
    train_cfg c;
    double tie;   /* between equal scores, higher is better (search.c score_of: minus the throughput of
                     a configuration ranked at the MFU cap, 0 below it) */
} cand;

/* Total order: score descending, then tie descending, then smaller sizes first, field by field. */
static inline int cand_cmp(const cand *a, const cand *b)
{
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->tie != b->tie)
        return a->tie > b->tie ? -1 : 1;
    const int x[] = {a->c.tp, a->c.cp, a->c.pp, a->c.vpp, a->c.mbs, (int)a->c.rc, a->c.zero, a->c.tp_overlap,
                     a->c.ep, a->c.etp, a->c.a2a_overlap, a->c.offload, a->c.rc_moe};
    const int y[] = {b->c.tp, b->c.cp, b->c.pp, b->c.vpp, b->c.mbs, (int)b->c.rc, b->c.zero, b->c.tp_overlap,
                     b->c.ep, b->c.etp, b->c.a2a_overlap, b->c.offload, b->c.rc_moe};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* A bounded heap whose root is the worst kept candidate. */
typedef struct heap {
    cand *v;
    int n, cap;
} heap;

static inline void heap_push(heap *h, const cand *c)
{
    if (h->n == h->cap) {
        if (cand_cmp(c, &h->v[0]) >= 0)
            return; /* not better than the worst kept */
        h->v[0] = *c;
        for (int i = 0;;) { /* sift down: children worse than parent move up */
            int l = 2 * i + 1, r = l + 1, w = i;
            if (l < h->n && cand_cmp(&h->v[l], &h->v[w]) > 0)
                w = l;
            if (r < h->n && cand_cmp(&h->v[r], &h->v[w]) > 0)
                w = r;
            if (w == i)
                break;
            cand t = h->v[i];
            h->v[i] = h->v[w];
            h->v[w] = t;
            i = w;
        }
        return;
    }
    int i = h->n++;
    h->v[i] = *c;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (cand_cmp(&h->v[i], &h->v[p]) <= 0)
            break;
        cand t = h->v[i];
        h->v[i] = h->v[p];
        h->v[p] = t;
        i = p;
    }
}

/* Keeps the k best of the scores pushed into a min-heap v of n (capacity cap). */
static inline void score_push(double *v, int *np, int cap, double score)
{
    int n = *np;
    if (n == cap) {
        if (score <= v[0])
            return;
        v[0] = score;
        for (int i = 0;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < n && v[l] < v[m])
                m = l;
            if (r < n && v[r] < v[m])
                m = r;
            if (m == i)
                break;
            double t = v[i];
            v[i] = v[m], v[m] = t, i = m;
        }
        return;
    }
    int i = (*np)++;
    v[i] = score;
    while (i > 0 && v[(i - 1) / 2] > v[i]) {
        double t = v[i];
        v[i] = v[(i - 1) / 2], v[(i - 1) / 2] = t, i = (i - 1) / 2;
    }
}

#endif
