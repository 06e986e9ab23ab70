/*
 * cmd_finetune.c — `gpuecon finetune`: memory per GPU and speed of LoRA or full fine-tuning
 * with DDP or FSDP, with or without activation checkpointing (docs/model.md §6.9).
 *
 * --compare prints the four strategy x checkpointing combinations side by side, which is the
 * argument of VESSL AI's LoRA benchmark: FSDP shards the ~60 GiB of states, the freed memory holds the
 * activations, and without recompute a step costs ~4P instead of ~6P FLOPs per token.
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"

#include <string.h>

static const char *const method_names[] = {"lora", "full", NULL};
static const char *const strategy_names[] = {"ddp", "fsdp", NULL};

typedef struct ft_args {
    const char *model, *system, *profile, *eff_profile, *lora_mods, *stack;
    int gpus, method, lora_rank, strategy, mbs, seq, precision;
    double lora_alpha, efficiency, pue, tokens, usd_per_gpu_hour;
    bool recompute, no_vision, compare;
} ft_args;

static json_t *result_json(const gpuecon_finetune_request *r, const gpuecon_finetune_result *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->model->name));
    json_object_set_new(j, "system", json_string(r->system->name));
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "method", json_string(method_names[r->method]));
    json_object_set_new(j, "strategy", json_string(strategy_names[r->strategy]));
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
    json_object_set_new(j, "tokens_per_s", rjson_real(o->tokens_per_s));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(o->tokens_per_s_per_gpu));
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
    return j;
}

static void result_rows(tbl *tb, const gpuecon_finetune_request *r, const gpuecon_finetune_result *o)
{
    char b[200];
    snprintf(b, sizeof b, "%.3g trainable, %.3g frozen parameters", o->trainable_params, o->frozen_params);
    cmd_infer_row(tb, "model states", o->states_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "weights %.2f + grads %.2f + optimizer %.2f", o->weights_gib, o->grads_gib,
             o->optimizer_gib);
    cmd_infer_row(tb, "  of which", o->states_gib, 2, "GiB", b);
    snprintf(b, sizeof b, "%d x %d tokens%s", r->mbs, r->seq, r->recompute ? ", layer inputs only" : "");
    cmd_infer_row(tb, "activations", o->activations_gib, 2, "GiB", b);
    cmd_infer_row(tb, "logits (loss)", o->logits_gib, 2, "GiB", "bf16 + fp32 copy");
    cmd_infer_row(tb, "buffers", o->buffers_gib, 2, "GiB",
                  r->strategy == GPUECON_FT_FSDP ? "unsharded root + 2 layers" : "DDP gradient buckets");
    if (o->fp8_copies_gib > 0)
        cmd_infer_row(tb, "FP8 copies", o->fp8_copies_gib, 2, "GiB",
                      r->stack && r->stack->fp8_linear == 1 ? "FP8 weights + transposes, FP8 linear inputs"
                                                            : "FP8 linear inputs (Transformer Engine)");
    snprintf(b, sizeof b, "%s on %.2f GiB (95%% usable)", o->fits ? "fits" : "does NOT fit", o->hbm_gib);
    cmd_infer_row(tb, "memory per GPU", o->memory_gib_per_gpu, 2, "GiB", b);
    gpuecon_flops f;
    gpuecon_train_flops(r->model, r->seq, GPUECON_ATTN_COUNT_CAUSAL, false, &f);
    snprintf(b, sizeof b, "%.2f x P, P = %.3g matmul weights%s", o->flops_per_token / f.matmul_params,
             f.matmul_params, r->recompute ? " (recompute included)" : "");
    cmd_infer_row(tb, "FLOPs per token", o->flops_per_token, 0, "FLOP", b);
    snprintf(b, sizeof b, "kernels %.3f s + exposed comm %.3f s", o->compute_s, o->comm_s);
    cmd_infer_row(tb, "step (one micro-batch)", o->step_s, 3, "s", b);
    if (r->stack) {
        snprintf(b, sizeof b, "%.0f host-bound (launch %.0f us > GPU time); host %.3f s", o->host_bound_kernels,
                 r->stack->host_launch_us, o->host_s);
        cmd_infer_row(tb, "kernels per step", o->kernels, 0, "", b);
    }
    snprintf(b, sizeof b, "%.1f per GPU, MFU %.1f%%", o->tokens_per_s_per_gpu, o->mfu * 100);
    cmd_infer_row(tb, "throughput", o->tokens_per_s, 0, "tok/s", b);
    if (r->tco)
        cmd_infer_row(tb, "$ per 1M training tokens", o->usd_per_mtok, 4, "$/Mtok",
                      r->usd_per_gpu_hour > 0 ? "your rate (--usd-per-gpu-hour)" : r->tco->name);
    cmd_infer_row(tb, "energy per token", o->joules_per_token, 3, "J", "utility side");
}

/* The four strategy x checkpointing combinations (VESSL AI: FSDP vs DDP). */
static void compare_rows(tbl *tb, const gpuecon_finetune_request *base)
{
    for (int s = 0; s < 2; s++)
        for (int rc = 0; rc < 2; rc++) {
            gpuecon_finetune_request r = *base;
            r.strategy = (gpuecon_ft_strategy)s;
            r.recompute = rc;
            gpuecon_finetune_result o;
            gpuecon_finetune(&r, &o, NULL);
            tbl_row(tb);
            tbl_fmt(tb, "%s%s", s ? "FSDP" : "DDP", rc ? " + checkpointing" : "");
            tbl_num(tb, o.states_gib, 2);
            tbl_num(tb, o.activations_gib + o.logits_gib + o.buffers_gib + o.fp8_copies_gib, 2);
            tbl_num(tb, o.memory_gib_per_gpu, 2);
            tbl_str(tb, o.fits ? "yes" : "no");
            gpuecon_flops f;
            gpuecon_train_flops(r.model, r.seq, GPUECON_ATTN_COUNT_CAUSAL, false, &f);
            tbl_fmt(tb, "%.2f P", o.flops_per_token / f.matmul_params);
            tbl_num(tb, o.tokens_per_s, 0);
        }
}

/* Why FSDP without checkpointing wins: its FLOP ratio and what the all-gathers take back. */
static void compare_footer(FILE *f, const gpuecon_finetune_request *base)
{
    gpuecon_finetune_request a = *base, b = *base;
    a.strategy = GPUECON_FT_FSDP, a.recompute = false;
    b.strategy = GPUECON_FT_DDP, b.recompute = true;
    gpuecon_finetune_result x, y;
    gpuecon_finetune(&a, &x, NULL);
    gpuecon_finetune(&b, &y, NULL);
    fprintf(f, "\nFSDP without checkpointing: %.2fx the tokens/s of DDP + checkpointing (FLOPs per "
               "token alone: %.2fx;\nthe difference is FSDP's exposed all-gathers). Sharding frees "
               "%.1f GiB of states per GPU,\nwhich is what lets the activations stay in memory.\n",
            x.tokens_per_s / y.tokens_per_s, y.flops_per_token / x.flops_per_token,
            y.states_gib - x.states_gib);
}

static int print(cli *c, const gpuecon_finetune_request *r, const gpuecon_finetune_result *o, bool compare)
{
    tbl *tb = tbl_new(c->ctx, &c->oom);
    if (compare) {
        const char *cols[] = {"strategy", "states GiB", "activations+ GiB", "total GiB", "fits",
                              "FLOPs/token", "tok/s"};
        for (size_t i = 0; i < 7; i++)
            tbl_col(tb, cols[i], i == 0 || i == 4 ? 'l' : 'r');
        compare_rows(tb, r);
    } else {
        tbl_col(tb, "quantity", 'l');
        tbl_col(tb, "value", 'r');
        tbl_col(tb, "unit", 'l');
        tbl_col(tb, "note", 'l');
        result_rows(tb, r, o);
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    fprintf(f, "%s %s fine-tuning on %d x %s (%s), %s, %s%s, micro-batch %d x %d tokens\n",
            r->model->name, r->method == GPUECON_FT_LORA ? "LoRA" : "full", r->gpus, r->system->name,
            r->system->gpu_name, gpuecon_precision_name(r->precision),
            r->strategy == GPUECON_FT_FSDP ? "FSDP" : "DDP", r->recompute ? " + checkpointing" : "",
            r->mbs, r->seq);
    if (r->stack)
        fprintf(f, "stack %s (%s)\n", r->stack->name, r->stack->framework);
    fprintf(f, "efficiency profile %s (eta_train %.3f%s)\n\n", r->profile.name,
            r->efficiency > 0 ? r->efficiency : r->profile.eta_train,
            r->profile.fitted_to_blog ? ", fitted to the VESSL blog's A100 FSDP figure" : "");
    tbl_print(tb, f);
    if (compare)
        compare_footer(f, r);
    return cli_table_done(c, tb, f);
}

static int build(cli *c, const opt *o, size_t n, const ft_args *a, gpuecon_finetune_request *r)
{
    int rc;
    gpuecon_finetune_request_init(r);
    if ((rc = cli_model(c, "--model", a->model, &r->model)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (rc = cli_profile(c, "--profile", a->profile, &r->tco)) ||
        (rc = cmd_infer_serving_profile(c, "--efficiency-profile", a->eff_profile, &r->profile)))
        return rc;
    if (a->lora_mods && (rc = cmd_infer_lora_modules(c, "--lora-modules", a->lora_mods, &r->lora_modules)))
        return rc;
    if ((rc = cli_stack(c, "--stack", a->stack ? a->stack : "hf-peft-eager", 1, &r->stack)))
        return rc;
    r->gpus = opt_seen(o, n, "--gpus") ? a->gpus : r->system->gpus_per_node;
    r->method = (gpuecon_ft_method)a->method;
    r->lora_rank = a->lora_rank;
    r->lora_alpha = a->lora_alpha;
    r->strategy = (gpuecon_ft_strategy)a->strategy;
    r->recompute = a->recompute;
    r->mbs = a->mbs;
    r->seq = a->seq;
    bool fp8 = opt_seen(o, n, "--precision") ? a->precision != 0 : r->stack->precision == 1;
    r->precision = fp8 ? GPUECON_FP8 : GPUECON_BF16;
    r->vision = !a->no_vision;
    r->efficiency = a->efficiency;
    r->pue = a->pue;
    r->usd_per_gpu_hour = a->usd_per_gpu_hour;
    return 0;
}

int cmd_finetune(cli *c, int argc, char **argv)
{
    ft_args a = {0};
    a.profile = "hyperscaler";
    a.eff_profile = "generic";
    a.lora_rank = 16;
    a.lora_alpha = 32;
    a.strategy = 1;
    a.mbs = 2;
    a.seq = 2048;
    opt opts[] = {
        {"--model", O_STR, &a.model, 0, 0, NULL, "M", "model (gpuecon catalog models)", NULL, false},
        CLI_OPT_SYSTEM(&a.system),
        {"--gpus", O_INT, &a.gpus, 1, 1e6, NULL, "N", "GPUs (default: one server)", NULL, false},
        {"--method", O_CHOICE, &a.method, 0, 0, method_names, "M", "LoRA adapters or all weights", "lora or full", false},
        {"--lora-rank", O_INT, &a.lora_rank, 1, 4096, NULL, "R", "LoRA rank (16)", NULL, false},
        {"--lora-alpha", O_DOUBLE, &a.lora_alpha, 1e-6, 1e6, NULL, "A", "LoRA alpha (32; scaling only)", NULL, false},
        {"--lora-modules", O_STR, &a.lora_mods, 0, 0, NULL, "LIST", "adapted projections (default all)", NULL, false},
        {"--strategy", O_CHOICE, &a.strategy, 0, 0, strategy_names, "S", "data parallelism (default fsdp)", NULL, false},
        {"--recompute", O_FLAG, &a.recompute, 0, 0, NULL, NULL, "activation (gradient) checkpointing", NULL, false},
        {"--mbs", O_INT, &a.mbs, 1, 4096, NULL, "B", "sequences per micro-batch per GPU (2)", NULL, false},
        {"--seq", O_INT, &a.seq, 1, 1e8, NULL, "L", "tokens per packed sequence (2048)", NULL, false},
        {"--precision", O_CHOICE, &a.precision, 0, 0, names_precision_no_fp4, "P", "matmul precision (default: the stack's)", NULL, false},
        {"--stack", O_STR, &a.stack, 0, 0, NULL, "NAME",
         "fine-tuning stack: hf-peft-eager (default), hf-peft-compile, te-fp8-compile (data/stacks.yaml)", NULL, false},
        {"--no-vision", O_FLAG, &a.no_vision, 0, 0, NULL, NULL, "do not load the vision tower", NULL, false},
        {"--efficiency-profile", O_STR, &a.eff_profile, 0, 0, NULL, "NAME", CLI_SERVING_PROFILES, NULL, false},
        {"--efficiency", O_DOUBLE, &a.efficiency, 0.01, 1, NULL, "F", "training matmul efficiency (overrides the profile)", NULL, false},
        {"--compare", O_FLAG, &a.compare, 0, 0, NULL, NULL, "DDP/FSDP x checkpointing side by side", NULL, false},
        CLI_OPT_PROFILE(&a.profile),
        CLI_OPT_PUE(&a.pue),
        CLI_OPT_USD_PER_GPU_HOUR(&a.usd_per_gpu_hour),
    };
    static const cmd_usage usage = {
        "finetune --model M --system S [--gpus N] --method lora|full [--lora-rank R] [--strategy ddp|fsdp]\n"
        "         [--recompute] [--mbs B] [--seq L] [--precision P] [--stack NAME] [--compare]",
        "Memory per GPU (states, activations, logits, buffers) and tokens/s of LoRA or full\n"
        "fine-tuning under DDP or FSDP, with or without activation checkpointing (docs/model.md §6.9).",
        "gpuecon finetune --model gemma4-31b --system hgx-h100 --method lora --strategy fsdp --mbs 2 --compare"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)) || (rc = cli_load_catalog(c)))
        return rc;
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    gpuecon_finetune_request r;
    if ((rc = build(c, opts, nopts, &a, &r)))
        return rc;
    gpuecon_finetune_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_finetune(&r, &o, &err);
    if (rc && rc != GPUECON_E_INFEASIBLE)
        return cli_fail(c, &err);
    int out = c->format == FMT_JSON ? cli_emit_json(c, result_json(&r, &o)) : print(c, &r, &o, a.compare);
    if (rc)
        return cli_fail(c, &err);
    return out;
}
