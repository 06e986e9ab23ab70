/*
 * memo.c — a store of training-step predictions shared across calls (gpuecon_memo).
 *
 * gpuecon_train_predict is a pure function of its request (catalog entries by pointer, and
 * scalars), so an answer once found can be handed back unchanged — bit for bit what the search
 * would return again. A web page that re-runs compare each time a what-if control moves (an
 * MTBI, a price: inputs the prediction does not read) then skips the parallelism searches, which
 * are nearly all of compare's time. Key choice: the key is the request's bytes together with the
 * bytes of what its pointers name — the model, the system, its GPU and the efficiency table (a
 * caller such as validate reuses one struct with new contents, or a freed address for another
 * model) — so a hit means every input is equal; a miss from differing padding costs only a
 * recomputation. Entries
 * are kept in a ring of fixed capacity (oldest replaced), behind one C11 mutex, so contexts in
 * several threads may share one memo. Cancelled or out-of-memory answers are never stored.
 */
#include "analysis/analysis.h"

#include <string.h>
#include <threads.h>

/* A request and the contents of what it points to. */
typedef struct memo_key {
    gpuecon_train_request req;
    gpuecon_model model;
    gpuecon_system system;
    gpuecon_gpu gpu;
    gpuecon_efficiency eff;
    double cal_scale[GPUECON_CAL_PARAMS]; /* the calibration's scales: one held at the same address
                                             may have been refitted (gpuecon calibrate) */
} memo_key;

typedef struct memo_entry {
    memo_key key;
    int rc;
    gpuecon_train_result res;
    gpuecon_error err;
} memo_entry;

struct gpuecon_memo {
    gpuecon_alloc_fn alloc;
    void *alloc_ud;
    mtx_t lock;
    memo_entry *e;
    size_t cap, n, next, hits, misses;
};

gpuecon_memo *gpuecon_memo_new(gpuecon_ctx *ctx, size_t capacity)
{
    if (!ctx)
        return NULL;
    size_t cap = capacity ? capacity : 256;
    gpuecon_memo *m = ctx_alloc(ctx, sizeof *m);
    if (!m)
        return NULL;
    m->alloc = ctx->cfg.alloc;
    m->alloc_ud = ctx->cfg.alloc_ud;
    m->cap = cap;
    m->e = ctx_alloc(ctx, cap * sizeof *m->e);
    if (!m->e || mtx_init(&m->lock, mtx_plain) != thrd_success) {
        ctx_free(ctx, m->e, cap * sizeof *m->e);
        ctx_free(ctx, m, sizeof *m);
        return NULL;
    }
    return m;
}

void gpuecon_memo_free(gpuecon_memo *m)
{
    if (!m)
        return;
    mtx_destroy(&m->lock);
    m->alloc(m->alloc_ud, m->e, m->cap * sizeof *m->e, 0);
    m->alloc(m->alloc_ud, m, sizeof *m, 0);
}

void gpuecon_memo_stats(gpuecon_memo *m, size_t *hits, size_t *misses)
{
    size_t h = 0, s = 0;
    if (m && mtx_lock(&m->lock) == thrd_success) {
        h = m->hits;
        s = m->misses;
        mtx_unlock(&m->lock);
    }
    if (hits)
        *hits = h;
    if (misses)
        *misses = s;
}

static void make_key(const gpuecon_train_request *req, memo_key *k)
{
    memset(k, 0, sizeof *k);
    k->req = *req;
    if (req->model)
        k->model = *req->model;
    if (req->system)
        k->system = *req->system;
    if (req->system && req->system->gpu)
        k->gpu = *req->system->gpu;
    if (req->eff)
        k->eff = *req->eff;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        k->cal_scale[p] = gpuecon_calibration_scale(req->calibration, (gpuecon_cal_param)p);
}

bool memo_get(gpuecon_memo *m, const gpuecon_train_request *req, int *rc, gpuecon_train_result *res,
              gpuecon_error *err)
{
    memo_key k;
    make_key(req, &k);
    if (mtx_lock(&m->lock) != thrd_success)
        return false;
    bool found = false;
    for (size_t i = 0; i < m->n && !found; i++)
        if (!memcmp(&m->e[i].key, &k, sizeof k)) {
            *rc = m->e[i].rc;
            *res = m->e[i].res;
            if (err)
                *err = m->e[i].err;
            found = true;
        }
    if (found)
        m->hits++;
    else
        m->misses++;
    mtx_unlock(&m->lock);
    return found;
}

void memo_put(gpuecon_memo *m, const gpuecon_train_request *req, int rc, const gpuecon_train_result *res,
              const gpuecon_error *err)
{
    if (rc == GPUECON_E_CANCELED || rc == GPUECON_E_NOMEM || rc == GPUECON_E_INTERNAL)
        return;
    if (mtx_lock(&m->lock) != thrd_success)
        return;
    memo_entry *e = &m->e[m->next];
    make_key(req, &e->key);
    e->rc = rc;
    e->res = *res;
    if (err)
        e->err = *err;
    else
        gpuecon_error_clear(&e->err);
    m->next = (m->next + 1) % m->cap;
    if (m->n < m->cap)
        m->n++;
    mtx_unlock(&m->lock);
}
