/*
 * infer_size.c — serving sizing: the fewest deployable units of one system (the servers of an
 * HGX, the racks of an NVL72) whose best serving configuration meets the latency targets at a
 * rate (docs/model.md §6.12, "Sizing at a rate"). Each count is answered by the configuration
 * search (gpuecon_infer_search, infer_search.c) at that count alone; this file only chooses the
 * counts: doubling from the smallest to bracket the answer, then bisecting on whole units.
 */
#include "analysis/analysis.h"

#include <string.h>

int gpuecon_serving_unit(const gpuecon_system *sys, const char **name)
{
    int unit = sys && sys->scaleup_gpus > 0 ? sys->scaleup_gpus : sys && sys->gpus_per_node > 0 ? sys->gpus_per_node : 1;
    if (name)
        *name = sys && sys->gpus_per_node > 0 && unit > sys->gpus_per_node ? "rack" : unit > 1 ? "server" : "GPU";
    return unit;
}

/* One count: the search at units·unit GPUs alone. *ok: whether its best configuration meets the
 * targets at the rate (a count nothing fits on misses too). Errors other than "infeasible" are
 * returned. */
static int probe(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req, int gpus, gpuecon_serve_search_result *out,
                 bool *ok, gpuecon_error *err)
{
    gpuecon_serve_search_request q = *req;
    q.gpus = &gpus;
    q.ngpus = 1;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_infer_search(ctx, &q, out, &e);
    *ok = rc == GPUECON_OK && out->feasible;
    if (rc && rc != GPUECON_E_INFEASIBLE) {
        if (err)
            *err = e;
        return rc;
    }
    if (!*ok && err) /* the reason of the latest miss, for the caller's message */
        *err = e;
    return GPUECON_OK;
}

int gpuecon_infer_size(gpuecon_ctx *ctx, const gpuecon_serve_search_request *req, int min_gpus, int max_gpus,
                       gpuecon_serve_size_result *out, gpuecon_error *err)
{
    if (!ctx || !req || !out || !req->base.system)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, a request with a system and a result are required");
    memset(out, 0, sizeof *out);
    out->unit_gpus = gpuecon_serving_unit(req->base.system, &out->unit);
    int u = out->unit_gpus;
    if (!(req->rate > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("rate"), 0, 0,
                       "sizing needs a rate above 0 (requests/s to serve): the fewest %ss that serve it", out->unit);
    int lo_units = min_gpus > u ? (min_gpus + u - 1) / u : 1, hi_units = max_gpus / u;
    out->max_units = hi_units;
    if (hi_units < lo_units)
        return err_set(err, GPUECON_E_INPUT, OPTION("search_gpus"), 0, 0,
                       "%d to %d GPUs hold no whole %s of %s (%d GPUs); allowed: a range that spans one", min_gpus,
                       max_gpus, out->unit, req->base.system->name, u);
    gpuecon_serve_search_result *tmp = ctx_alloc(ctx, sizeof *tmp);
    if (!tmp)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory for the sizing search");
    /* bracket: lo_units, 2·lo_units, 4·lo_units, ... (the bound last) until one meets; then the
     * answer lies in (last miss, first meet], bisected on whole units */
    int miss = 0, meet = 0, rc = GPUECON_OK;
    gpuecon_error last;
    gpuecon_error_clear(&last);
    for (int k = lo_units; !meet;) {
        bool ok;
        if ((rc = probe(ctx, req, k * u, tmp, &ok, &last)))
            goto done;
        out->searches++;
        if (ok) {
            meet = k;
            out->search = *tmp;
        } else {
            miss = k;
            if (k == hi_units) {
                out->search = *tmp; /* the closest, at the bound */
                break;
            }
            k = k > hi_units / 2 ? hi_units : 2 * k;
        }
    }
    while (meet && meet - miss > 1 && miss >= lo_units) {
        int mid = miss + (meet - miss) / 2;
        bool ok;
        if ((rc = probe(ctx, req, mid * u, tmp, &ok, &last)))
            goto done;
        out->searches++;
        if (ok) {
            meet = mid;
            out->search = *tmp;
        } else {
            miss = mid;
        }
    }
    out->feasible = meet > 0;
    out->units = meet ? meet : hi_units;
    out->gpus = out->units * u;
    out->fewer_missed = meet && miss >= lo_units && miss == meet - 1; /* miss 0: none searched */
    if (!meet)
        rc = err_set(err, GPUECON_E_INFEASIBLE, OPTION("rate"), 0, 0,
                     "no count of %ss of %s up to %d (%d GPUs) meets the targets at %s requests/s; at %d GPUs: %.300s",
                     out->unit, req->base.system->name, hi_units, hi_units * u, NUM_VAL(req->rate), hi_units * u,
                     last.message);
done:
    if (rc && rc != GPUECON_E_INFEASIBLE && err) /* a refusal of the search itself (probe put it in last) */
        *err = last;
    ctx_free(ctx, tmp, sizeof *tmp);
    return rc;
}
