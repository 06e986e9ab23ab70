/*
 * rl_cost.c — the price of an RL post-training step (docs/model.md §8): the step of rl.c run as
 * a training run of its trained tokens through gpuecon_run_cost (TCO, goodput under failures
 * and spares for the tier, energy), per step, per million trained tokens and for the whole run.
 *
 * Key choice: the step's physics (rl.c) does not price itself, so compare (which prices every
 * platform its own way) uses the step alone and nothing calls back up into compare.
 */
#include "analysis/analysis.h"

static int economics(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_rl_request *r,
                     gpuecon_rl_result *o, gpuecon_error *err)
{
    if (!r->profile || !cat)
        return GPUECON_OK;
    gpuecon_run_request q;
    gpuecon_run_request_init(&q);
    q.system = r->system->name;
    q.profile = r->profile;
    if (r->tier)
        q.tier = r->tier;
    q.gpus = r->gpus;
    q.tokens_per_s_per_gpu = o->trained_tokens_per_s / r->gpus;
    q.tokens = o->trained_tokens * (double)r->steps;
    q.pue = r->pue;
    q.usd_per_gpu_hour = r->usd_per_gpu_hour;
    gpuecon_platform_result *p = ctx_alloc(ctx, sizeof *p);
    if (!p)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    int rc = gpuecon_run_cost(ctx, cat, &q, p, err);
    if (!rc) {
        o->costed = true;
        o->usd_per_gpu_hour = p->tco_usd_per_gpu_hour;
        o->ettr = p->ettr;
        o->provisioned_gpus = p->provisioned_gpus;
        o->run_days = p->days_to_train;
        o->run_usd = p->total_usd;
        o->run_mwh = p->energy_mwh;
        o->usd_per_step = p->total_usd / r->steps;
        o->mwh_per_step = p->energy_mwh / r->steps;
        o->usd_per_mtok_trained = p->effective_usd_per_mtok;
        o->raw_usd_per_mtok_trained = p->usd_per_mtok;
        o->mwh_per_mtok_trained = o->mwh_per_step / o->trained_tokens * 1e6;
    }
    ctx_free(ctx, p, sizeof *p);
    return rc;
}

int gpuecon_rl_predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_rl_request *req,
                       gpuecon_rl_result *out, gpuecon_error *err)
{
    int rc = rl_step(ctx, req, out, err);
    if (rc)
        return rc;
    return economics(ctx, cat, req, out, err);
}
