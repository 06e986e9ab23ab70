/*
 * finetune.c — `gpuecon finetune` rendered: memory per GPU and speed of one fine-tuning setup as
 * JSON or a table of quantities (terminal and CSV), and with --compare the four strategy x
 * checkpointing combinations side by side with why FSDP without checkpointing wins.
 */
#include "render/render.h"

#include <stdio.h>

static json_t *finetune_json(const void *view)
{
    const finetune_view *v = view;
    const gpuecon_finetune_request *r = v->request;
    const gpuecon_finetune_result *o = v->result;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    rjson_power(j, r->system);
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "method", json_string(v->method));
    json_object_set_new(j, "strategy", json_string(v->strategy));
    json_object_set_new(j, "recompute", json_boolean(r->recompute));
    json_object_set_new(j, "mbs", json_integer(r->mbs));
    json_object_set_new(j, "seq", json_integer(r->seq));
    json_object_set_new(j, "precision", json_string(gpuecon_precision_name(r->precision)));
    json_object_set_new(j, "stack", r->stack ? json_string(r->stack->name) : json_null());
    if (r->method == GPUECON_FT_LORA)
        json_object_set_new(j, "lora", json_pack("{s:i, s:o}", "rank", r->lora_rank, "alpha",
                                                 rjson_real(r->lora_alpha)));
    json_object_set_new(j, "efficiency_profile", json_pack("{s:s, s:b}", "name", r->profile.name,
                                                           "fitted_to_blog", r->profile.fitted_to_blog));
    if (r->calibration) /* the user's calibration (gpuecon calibrate), as train names its own */
        json_object_set_new(j, "user_calibration", rjson_user_calibration(r->calibration));
    json_object_set_new(j, "tokens_per_s", rjson_real(o->tokens_per_s));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(o->tokens_per_s_per_gpu));
    if (v->band && o->tokens_per_s > 0) { /* the per-GPU figure: the same relative band */
        figband_add(j, "tokens_per_s", v->band, 1);
        figband_add(j, "tokens_per_s_per_gpu", v->band, o->tokens_per_s_per_gpu / o->tokens_per_s);
    }
    json_object_set_new(j, "memory_gib_per_gpu", rjson_real(o->memory_gib_per_gpu));
    json_object_set_new(j, "fits", json_boolean(o->fits));
    json_object_set_new(j, "shortfall_gb", rjson_real(o->shortfall_gb));
    json_object_set_new(j, "trainable_params", rjson_real(o->trainable_params));
    json_object_set_new(j, "frozen_params", rjson_real(o->frozen_params));
    json_t *m = json_object();
    json_object_set_new(m, "weights_gib", rjson_real(o->weights_gib));
    json_object_set_new(m, "grads_gib", rjson_real(o->grads_gib));
    json_object_set_new(m, "optimizer_gib", rjson_real(o->optimizer_gib));
    json_object_set_new(m, "states_gib", rjson_real(o->states_gib));
    json_object_set_new(m, "activations_gib", rjson_real(o->activations_gib));
    json_object_set_new(m, "logits_gib", rjson_real(o->logits_gib));
    json_object_set_new(m, "buffers_gib", rjson_real(o->buffers_gib));
    json_object_set_new(m, "fp8_copies_gib", rjson_real(o->fp8_copies_gib));
    json_object_set_new(m, "hbm_gib", rjson_real(o->hbm_gib));
    json_object_set_new(j, "memory", m);
    json_object_set_new(j, "model_flops_per_token", rjson_real(o->model_flops_per_token));
    json_object_set_new(j, "flops_per_token", rjson_real(o->flops_per_token));
    json_object_set_new(j, "step_s", rjson_real(o->step_s));
    json_object_set_new(j, "compute_s", rjson_real(o->compute_s));
    json_object_set_new(j, "comm_s", rjson_real(o->comm_s));
    json_object_set_new(j, "kernels", json_pack("{s:o, s:o, s:o}", "per_step", rjson_real(o->kernels), "host_bound",
                                                rjson_real(o->host_bound_kernels), "host_s", rjson_real(o->host_s)));
    json_object_set_new(j, "mfu", rjson_real(o->mfu));
    json_object_set_new(j, "usd_per_mtok", r->tco ? rjson_real(o->usd_per_mtok) : json_null());
    if (r->usd_per_gpu_hour > 0) {
        json_object_set_new(j, "usd_per_gpu_hour", rjson_real(o->usd_per_gpu_hour));
        json_object_set_new(j, "usd_per_gpu_hour_source", rjson_user_price());
    }
    json_object_set_new(j, "joules_per_token", rjson_real(o->joules_per_token));
    if (o->cost_note[0]) /* why the two above are null */
        json_object_set_new(j, "cost_note", json_string(o->cost_note));
    return j;
}

static void result_rows(tbl *tb, const gpuecon_finetune_request *r, const gpuecon_finetune_result *o,
                        double matmul_params, const gpuecon_band *band)
{
    char b[200];
    snprintf(b, sizeof b, "%s trainable, %s frozen parameters", NUM_COUNT(o->trainable_params),
             NUM_COUNT(o->frozen_params));
    tbl_quantity(tb, "model states", o->states_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "weights %.2f + grads %.2f + optimizer %.2f", o->weights_gib, o->grads_gib,
             o->optimizer_gib);
    tbl_quantity(tb, "  of which", o->states_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "%d x %d tokens%s", r->mbs, r->seq, r->recompute ? ", layer inputs only" : "");
    tbl_quantity(tb, "activations", o->activations_gib, 2, "GiB", b);
    tbl_quantity(tb, "logits (loss)", o->logits_gib, 2, "GiB", "bf16 + fp32 copy");
    tbl_quantity(tb, "buffers", o->buffers_gib, 2, "GiB",
                  r->strategy == GPUECON_FT_FSDP ? "unsharded root + 2 layers" : "DDP gradient buckets");
    if (o->fp8_copies_gib > 0)
        tbl_quantity(tb, "FP8 copies", o->fp8_copies_gib, 2, "GiB",
                      r->stack && r->stack->fp8_linear == 1 ? "FP8 weights + transposes, FP8 linear inputs"
                                                            : "FP8 linear inputs (Transformer Engine)");
    snprintf(b, sizeof b, "%s on %.2f GiB (95%% usable)", o->fits ? "fits" : "does NOT fit", o->hbm_gib);
    tbl_quantity(tb, "memory per GPU", o->memory_gib_per_gpu, 2, "GiB", b);
    snprintf(b, sizeof b, "%.2f x P, P = %s matmul weights%s", o->flops_per_token / matmul_params,
             NUM_COUNT(matmul_params), r->recompute ? " (recompute included)" : "");
    tbl_quantity(tb, "FLOPs per token", o->flops_per_token, 0, "FLOP", b);
    snprintf(b, sizeof b, "kernels %.3f s + exposed comm %.3f s", o->compute_s, o->comm_s);
    tbl_quantity(tb, "step (one micro-batch)", o->step_s, 3, "s", b);
    if (r->stack) {
        snprintf(b, sizeof b, "%.0f host-bound (launch %.0f us > GPU time); host %.3f s", o->host_bound_kernels,
                 r->stack->host_launch_us, o->host_s);
        tbl_quantity(tb, "kernels per step", o->kernels, 0, "", b);
    }
    snprintf(b, sizeof b, "%.1f per GPU, MFU %.1f%%", o->tokens_per_s_per_gpu, o->mfu * 100);
    tbl_quantity(tb, "throughput", o->tokens_per_s, 0, "tok/s", b);
    figband_row(tb, band, 1, 0, "tok/s");
    if (r->tco)
        tbl_quantity(tb, "$ per 1M training tokens", o->usd_per_mtok, 4, "$/Mtok",
                     o->cost_note[0] ? o->cost_note
                     : r->usd_per_gpu_hour > 0 ? "your rate (--usd-per-gpu-hour)" : r->tco->name);
    tbl_quantity(tb, "energy per token", o->joules_per_token, 3, "J", o->cost_note[0] ? o->cost_note : "utility side");
}

/* The four strategy x checkpointing combinations (VESSL AI: FSDP vs DDP), in the view's order. */
static void compare_rows(tbl *tb, const finetune_view *v)
{
    for (int s = 0; s < 2; s++)
        for (int rc = 0; rc < 2; rc++) {
            const gpuecon_finetune_result *o = &v->compare[2 * s + rc];
            tbl_row(tb);
            tbl_fmt(tb, "%s%s", s ? "FSDP" : "DDP", rc ? " + checkpointing" : "");
            tbl_num(tb, o->states_gib, 2);
            tbl_num(tb, o->activations_gib + o->logits_gib + o->buffers_gib + o->fp8_copies_gib, 2);
            tbl_num(tb, o->memory_gib_per_gpu, 2);
            tbl_str(tb, o->fits ? "yes" : "no");
            tbl_fmt(tb, "%.2f P", o->flops_per_token / v->matmul_params);
            tbl_num(tb, o->tokens_per_s, 0);
            if (v->compare_bands)
                figband_cell(tb, &v->compare_bands[2 * s + rc], 1, 0);
        }
}

/* Why FSDP without checkpointing wins: its FLOP ratio and what the all-gathers take back. */
static void compare_footer(strbuf *f, const finetune_view *v)
{
    const gpuecon_finetune_result *x = &v->compare[2], *y = &v->compare[1]; /* FSDP; DDP + checkpointing */
    sb_printf(f, "\nFSDP without checkpointing: %.2fx the tokens/s of DDP + checkpointing (FLOPs per "
               "token alone: %.2fx;\nthe difference is FSDP's exposed all-gathers). Sharding frees "
               "%.1f GiB of states per GPU,\nwhich is what lets the activations stay in memory.\n",
            x->tokens_per_s / y->tokens_per_s, y->flops_per_token / x->flops_per_token,
            y->states_gib - x->states_gib);
}

static tbl *finetune_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const finetune_view *v = view;
    tbl *tb = tbl_new(ctx, oom);
    if (v->compare) {
        const char *cols[] = {"strategy", "states GiB", "activations+ GiB", "total GiB", "fits",
                              "FLOPs/token", "tok/s", "80% band"};
        for (size_t i = 0; i < (v->compare_bands ? 8u : 7u); i++)
            tbl_col(tb, cols[i], i == 0 || i == 4 ? 'l' : 'r');
        compare_rows(tb, v);
    } else {
        tbl_col(tb, "quantity", 'l');
        tbl_col(tb, "value", 'r');
        tbl_col(tb, "unit", 'l');
        tbl_col(tb, "note", 'l');
        result_rows(tb, v->request, v->result, v->matmul_params, v->band);
    }
    return tb;
}

static void finetune_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const finetune_view *v = view;
    const gpuecon_finetune_request *r = v->request;
    sb_printf(f, "%s %s fine-tuning on %d x %s (%s), %s, %s%s, micro-batch %d x %d tokens\n",
            r->model->name, r->method == GPUECON_FT_LORA ? "LoRA" : "full", r->gpus, r->system->name,
            r->system->gpu_name, gpuecon_precision_name(r->precision),
            r->strategy == GPUECON_FT_FSDP ? "FSDP" : "DDP", r->recompute ? " + checkpointing" : "",
            r->mbs, r->seq);
    char pw[160];
    if (*fmt_power(pw, sizeof pw, r->system))
        sb_printf(f, "power limit: %s\n", pw);
    if (r->stack)
        sb_printf(f, "stack %s (%s)\n", r->stack->name, r->stack->framework);
    char ucal[400];
    if (r->calibration)
        sb_printf(f, "calibrated: %s\n", fmt_user_calibration(ucal, sizeof ucal, r->calibration));
    sb_printf(f, "efficiency profile %s (eta_train %.3f%s)\n\n", r->profile.name,
            r->efficiency > 0 ? r->efficiency : r->profile.eta_train,
            r->profile.fitted_to_blog ? ", fitted to the VESSL blog's A100 FSDP figure" : "");
    tbl_print(tb, f);
    if (v->compare_bands) {
        char basis[sizeof v->compare_bands->basis + sizeof v->compare_bands->extrapolating + 24];
        if (*figband_basis(basis, sizeof basis, &v->compare_bands[0]))
            sb_printf(f, "80%% bands, tok/s: %s\n", basis);
    }
    if (v->compare)
        compare_footer(f, v);
}

const render_kind render_finetune = {finetune_json, finetune_table, finetune_text, NULL};
