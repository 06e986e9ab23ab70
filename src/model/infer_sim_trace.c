/*
 * infer_sim_trace.c — a simulated serving run timed again under other step constants (infer.h:
 * infer_sim_trace). Where every request is queued at once with fixed lengths and no draft, the
 * scheduler's choices depend on the batch and token limits and the KV pool, never on the clock, so
 * the steps it took are the steps it would take with any step costs; the run is re-timed by summing
 * infer_step_batch over the recorded batches, in the order and with the sums the simulator uses.
 * Key choice: re-timing is only used where it gives the simulation's own figure; any change to
 * what scheduled the run (limits, pool, windows) is refused, and the caller simulates
 * (docs/model.md §3.9).
 */
#include "model/model.h"
#include "infer_sim.h"

#include <string.h>

void infer_sim_trace_free(infer_sim_trace *t)
{
    if (!t || !t->ctx)
        return;
    ctx_free(t->ctx, t->b, t->cap * sizeof *t->b);
    ctx_free(t->ctx, t->swap, t->cap * sizeof *t->swap);
    memset(t, 0, sizeof *t);
}

/* Whether the schedule of req does not depend on time (the file comment). */
static bool timeless(const gpuecon_sim_request *r)
{
    return r->arrival == GPUECON_ARRIVAL_BURST && r->lengths == GPUECON_LENGTHS_FIXED && r->serve.draft_k == 0 &&
           r->replications == 1 && r->warmup == 0;
}

int infer_simulate_traced(gpuecon_ctx *ctx, const gpuecon_sim_request *req, gpuecon_sim_result *out,
                          infer_sim_trace *t, gpuecon_error *err)
{
    if (!t)
        return sim_simulate(ctx, req, out, NULL, err);
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    if (!req || !timeless(req))
        return sim_simulate(ctx, req, out, NULL, err);
    t->ok = true;
    int rc = sim_simulate(ctx, req, out, t, err);
    if (rc || !t->ok) {
        infer_sim_trace_free(t);
        t->ctx = ctx;
    }
    return rc;
}

int infer_sim_retime(const infer_sim_trace *t, const gpuecon_sim_request *req, double *tokens_per_s, bool *same,
                     gpuecon_error *err)
{
    *tokens_per_s = 0;
    *same = false;
    if (!t || !t->ok || !req || !timeless(req))
        return GPUECON_OK;
    infer_arch a;
    infer_env e;
    gpuecon_infer_result o;
    int rc = infer_prepare(&req->serve, &a, &e, &o, err);
    if (rc)
        return rc;
    sim_cfg c;
    if ((rc = sim_build_cfg(req, &a, &e, &o, &c, err)))
        return rc;
    bool keep = c.pool == t->pool && c.ngroups == t->ngroups && c.block == t->block && c.max_seqs == t->max_seqs &&
                c.budget == t->budget && c.max_len == t->max_len && c.chunk_cap == t->chunk_cap &&
                c.reserve == t->reserve && o.replicas == t->replicas;
    for (int g = 0; keep && g < c.ngroups; g++)
        keep = c.window[g] == t->window[g] && c.group_block[g] == t->group_block[g];
    if (!keep)
        return GPUECON_OK;
    /* the clock as run_step advances it, from 0 to the last finish (a burst's window) */
    double clock = 0;
    for (size_t i = 0; i < t->n; i++) {
        gpuecon_infer_step s;
        infer_step_batch(&e, &t->b[i], &s);
        clock = clock + (s.step_s + t->swap[i] / (req->swap_gbps * 1e9));
    }
    if (!(clock > 0))
        return GPUECON_OK;
    *tokens_per_s = o.replicas * t->tokens / clock;
    *same = true;
    return GPUECON_OK;
}
