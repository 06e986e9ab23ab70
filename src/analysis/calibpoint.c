/*
 * calibpoint.c — a training run as a point of the calibration space (gpuecon_calib_layout,
 * docs/model.md §3.5): what every training row of validate stores (validate_set_train) and what a
 * layout train or search returns is turned into (calib_layout_of), so calibset.c compares the two
 * axis by axis. Its own file because validate.c, validate_recipes.c and calibset.c all use it.
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <string.h>

void calib_layout_of(const gpuecon_train_request *q, const gpuecon_train_result *r, gpuecon_calib_layout *out)
{
    memset(out, 0, sizeof *out);
    const gpuecon_model *m = q->model;
    const gpuecon_system *sys = q->system;
    out->set = true;
    out->moe = m->experts > 0;
    snprintf(out->model, sizeof out->model, "%s", m->name ? m->name : "");
    snprintf(out->arch, sizeof out->arch, "%s", sys->gpu && sys->gpu->arch ? sys->gpu->arch : "?");
    snprintf(out->stack, sizeof out->stack, "%s", q->stack ? q->stack->name : "none");
    out->prec = q->precision;
    const gpuecon_parallel *p = &r->par;
    out->tp = p->tp, out->pp = p->pp, out->vpp = p->vpp, out->cp = p->cp, out->ep = p->ep, out->etp = p->etp;
    out->dp = p->dp, out->zero = p->zero, out->rc = p->recompute;
    out->gpus = q->gpus, out->seq = q->seq;
    out->scaleup = sys->scaleup_gpus;
    out->ep_domains = r->moe.ep_domains;
    gpuecon_params pa;
    gpuecon_model_params(m, &pa);
    out->params = pa.total;
    out->flops_per_token = r->tokens_per_s_per_gpu > 0 ? r->mfu_causal * r->peak_flops / r->tokens_per_s_per_gpu : 0;
    out->peak_flops = r->peak_flops;
}

void validate_set_train(gpuecon_validate_row *row, const gpuecon_train_request *q, const gpuecon_train_result *r)
{
    validate_set_class(row, q->system->gpu, q->precision, q->model->experts > 0);
    calib_layout_of(q, r, &row->layout);
}
