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

static const char *const method_names[] = {"lora", "full", NULL};
static const char *const strategy_names[] = {"ddp", "fsdp", NULL};

typedef struct ft_args {
    const char *model, *system, *profile, *eff_profile, *lora_mods, *stack;
    int gpus, method, lora_rank, strategy, mbs, seq, precision;
    double lora_alpha, efficiency, pue, tokens, usd_per_gpu_hour, power_limit;
    bool recompute, no_vision, compare;
} ft_args;

static int build(cli *c, const opt *o, size_t n, const ft_args *a, gpuecon_finetune_request *r)
{
    int rc;
    gpuecon_finetune_request_init(r);
    if ((rc = cli_model(c, "--model", a->model, &r->model)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (opt_seen(o, n, "--power-limit") && (rc = cli_power_limit(c, "--power-limit", a->power_limit, &r->system))) ||
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
    /* a user's calibration from a --catalog overlay (gpuecon calibrate; docs/model.md §3.8), by stack,
     * system and precision as train looks up its own; calibrate itself fits from the built-in values */
    if (!c->capture_finetune)
        r->calibration = gpuecon_catalog_calibration(c->cat, 1, r->stack->name, r->system->name, (int)r->precision);
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
        {"--power-limit", O_DOUBLE, &a.power_limit, 1, 5000, NULL, "W", CLI_HELP_POWER_LIMIT, NULL, false},
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
        return cli_usage_error(c, "--format", "html is only for compare and rl");
    if (a.method == 1 && opt_seen(opts, nopts, "--lora-rank")) /* once ignored */
        return cli_usage_error(c, "--lora-rank", "is the adapters' rank; --method full trains every weight "
                               "and has none");
    gpuecon_finetune_request r;
    if ((rc = build(c, opts, nopts, &a, &r)))
        return rc;
    if (c->capture_finetune) { /* calibrate: the request this command would run */
        *c->capture_finetune = r;
        return 0;
    }
    gpuecon_finetune_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_finetune(&r, &o, &err);
    if (rc && rc != GPUECON_E_INFEASIBLE)
        return cli_fail(c, &err);
    /* --compare: the four strategy x checkpointing combinations, in finetune_view's order */
    gpuecon_finetune_result cmp[4];
    for (int i = 0; i < 4 && a.compare; i++) {
        gpuecon_finetune_request ri = r;
        ri.strategy = (gpuecon_ft_strategy)(i / 2);
        ri.recompute = i % 2;
        gpuecon_finetune(&ri, &cmp[i], NULL);
    }
    gpuecon_flops fl;
    gpuecon_train_flops(r.model, r.seq, GPUECON_ATTN_COUNT_CAUSAL, false, &fl);
    band_set *bs;
    int brc = cmd_band_set(c, &bs);
    if (brc)
        return brc;
    gpuecon_band band, cmp_bands[4];
    band_finetune(bs, &r, o.fits ? o.tokens_per_s : 0, &band);
    for (int i = 0; i < 4 && a.compare; i++) {
        gpuecon_finetune_request ri = r;
        ri.strategy = (gpuecon_ft_strategy)(i / 2);
        ri.recompute = i % 2;
        band_finetune(bs, &ri, cmp[i].fits ? cmp[i].tokens_per_s : 0, &cmp_bands[i]);
    }
    finetune_view v = {&r, &o, method_names[r.method], strategy_names[r.strategy], fl.matmul_params,
                       a.compare ? cmp : NULL, bs ? &band : NULL, bs && a.compare ? cmp_bands : NULL};
    int out = cli_render(c, &render_finetune, &v);
    if (bs)
        band_set_free(bs);
    if (rc)
        return cli_fail(c, &err);
    return out;
}
