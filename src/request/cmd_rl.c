/*
 * cmd_rl.c — `gpuecon rl`: one step of RL post-training (PPO/GRPO) — generation, scoring,
 * training, weight sync, idle — its pools, throughput, $ and MWh per step and per million
 * trained tokens, with goodput (ETTR) as for training (docs/model.md §8).
 *
 * The library does the model (gpuecon_rl_predict); this file maps options to a request and
 * hands the result to render/rl.c (a table, one JSON object, CSV, or the table as an HTML page).
 * A request that nothing fits exits 3 with the pool and the constraint; a fixed split that
 * leaves a pool short exits 2 naming --gen-gpus.
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"

#include <string.h>

static const char *const place_names[] = {"colocated", "disaggregated", NULL};
static const char *const onoff_names[] = {"on", "off", NULL};
static const char *const sleep_names[] = {"1", "2", NULL};

typedef struct rl_args {
    const char *model, *system, *profile, *stack, *reference, *reward, *critic, *serving;
    int gpus, prompts, samples, placement, gen_gpus, gen_tp, off_policy, gen_weights, kv, train_precision;
    int offload, engine_sleep, old_logprobs, epochs, minibatches, tier, steps, train_tp, train_pp, train_cp, train_ep, train_mbs;
    double prompt_len, response_len, response_cv, max_response_len, oversample, partial, pue, usd_per_gpu_hour;
    double power_limit;
    bool sync_fp8, gen_attention_dp, train_full_recompute;
} rl_args;

static int optional_model(cli *c, const char *option, const char *name, const gpuecon_model **out)
{
    *out = NULL;
    if (!name || !strcmp(name, "none"))
        return 0;
    return cli_model(c, option, name, out);
}

static int build_request(cli *c, const opt *o, size_t n, const rl_args *a, gpuecon_rl_request *r)
{
    int rc;
    gpuecon_rl_request_init(r);
    const gpuecon_profile *prof = NULL;
    if ((rc = cli_model(c, "--model", a->model, &r->policy)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (opt_seen(o, n, "--power-limit") && (rc = cli_power_limit(c, "--power-limit", a->power_limit, &r->system))) ||
        (rc = cli_profile(c, "--profile", a->profile, &prof)) ||
        (rc = cli_stack(c, "--stack", a->stack ? a->stack : CLI_DEFAULT_STACK, 0, &r->stack)) ||
        (rc = cmd_infer_serving_profile(c, "--serving-profile", a->serving, &r->serving)) ||
        (rc = optional_model(c, "--reward-model", a->reward, &r->reward)) ||
        (rc = optional_model(c, "--critic", a->critic, &r->critic)))
        return rc;
    /* GRPO's KL term: the reference is the initial policy unless another model or none is named */
    if (a->reference)
        rc = optional_model(c, "--reference", a->reference, &r->reference);
    else
        r->reference = r->policy;
    if (rc)
        return rc;
    r->profile = prof->name;
    r->tier = names_tier[a->tier];
    r->gpus = opt_seen(o, n, "--gpus") ? a->gpus : r->system->gpus_per_node;
    r->placement = (gpuecon_rl_placement)a->placement;
    r->gen_gpus = a->gen_gpus;
    r->gen_tp = a->gen_tp;
    r->gen_attention_dp = a->gen_attention_dp;
    r->off_policy = a->off_policy;
    r->prompts = a->prompts;
    r->samples = a->samples;
    r->prompt_len = a->prompt_len;
    r->response_len = a->response_len;
    r->response_cv = a->response_cv;
    r->max_response_len = a->max_response_len;
    r->oversample = a->oversample;
    r->partial_tokens = a->partial;
    r->gen_weights = (gpuecon_precision)a->gen_weights;
    r->kv = (gpuecon_precision)a->kv;
    r->train_precision = (gpuecon_precision)a->train_precision;
    r->sync_fp8 = a->sync_fp8;
    r->offload = a->offload == 0;
    r->engine_sleep = a->engine_sleep + 1;
    r->old_logprobs = a->old_logprobs == 0;
    r->epochs = a->epochs;
    r->minibatches = a->minibatches;
    r->train_tp = a->train_tp;
    r->train_pp = a->train_pp;
    r->train_cp = a->train_cp;
    r->train_ep = a->train_ep;
    r->train_mbs = a->train_mbs;
    r->train_full_recompute = a->train_full_recompute;
    r->usd_per_gpu_hour = a->usd_per_gpu_hour;
    r->pue = a->pue;
    r->steps = a->steps;
    /* a user's calibrations from a --catalog overlay (gpuecon calibrate; docs/model.md §3.8, §8.10): the
       trainer's stack x system x train precision, and the generator engine's x system x weight precision */
    rl_user_calibrations(c->cat, r->system->name, r);
    return 0;
}

static int execute(cli *c, const opt *opts, size_t nopts, const rl_args *a)
{
    gpuecon_rl_request r;
    int rc = build_request(c, opts, nopts, a, &r);
    if (rc)
        return rc;
    gpuecon_rl_result *o = ctx_alloc(c->ctx, sizeof *o);
    if (!o)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_rl_predict(c->ctx, c->cat, &r, o, &err);
    if (rc) {
        cli_spell_options(c, err.where, sizeof err.where);
        cli_spell_options(c, err.message, sizeof err.message);
        if (rc == GPUECON_E_INFEASIBLE && c->format == FMT_JSON) /* the JSON still says why */
            cli_emit_json(c, rl_unfit_json(&r, &err));
        ctx_free(c->ctx, o, sizeof *o);
        return cli_fail(c, &err);
    }
    band_set *bs;
    if ((rc = cmd_band_set(c, &bs))) {
        ctx_free(c->ctx, o, sizeof *o);
        return rc;
    }
    gpuecon_band band;
    band_rl(bs, &r, o->step_time_s, &band);
    rl_view v = {&r, o, bs ? &band : NULL};
    rc = cli_render(c, &render_rl, &v);
    if (bs)
        band_set_free(bs);
    ctx_free(c->ctx, o, sizeof *o);
    return rc;
}

int cmd_rl(cli *c, int argc, char **argv)
{
    rl_args a = {.tier = TIER_TYPICAL, .profile = CLI_DEFAULT_PROFILE, .serving = GPUECON_RL_GEN_STACK, .prompts = 128, .samples = 8,
                 .prompt_len = 1024, .response_len = 4096, .response_cv = 0.6, .epochs = 1, .minibatches = 1,
                 .steps = 1000};
    opt opts[] = {
        {"--model", O_STR, &a.model, 0, 0, NULL, "M", "policy model (gpuecon catalog models)",
         "gpuecon catalog models lists them", false},
        CLI_OPT_SYSTEM(&a.system),
        {"--gpus", O_INT, &a.gpus, 1, 1e6, NULL, "N", "GPUs of the job (default: one server)", NULL, false},
        {"--power-limit", O_DOUBLE, &a.power_limit, 1, 5000, NULL, "W", CLI_HELP_POWER_LIMIT, NULL, false},
        {"--prompts", O_INT, &a.prompts, -1e9, 1e7, NULL, "P", "prompts per step, 1 to 1e7 (default 128)", NULL, false},
        {"--samples", O_INT, &a.samples, -1e9, 1e6, NULL, "K", "samples per prompt, the GRPO group, 1 to 1e6 (default 8)", NULL, false},
        {"--prompt-len", O_DOUBLE, &a.prompt_len, 1, 1e8, NULL, "L", "mean prompt tokens (default 1024)", NULL, false},
        {"--response-len", O_DOUBLE, &a.response_len, 1, 1e8, NULL, "R", "mean response tokens (default 4096)", NULL, false},
        {"--response-cv", O_DOUBLE, &a.response_cv, 0, 10, NULL, "F", "coefficient of variation of the response length, lognormal (default 0.6)", NULL, false},
        {"--max-response-len", O_DOUBLE, &a.max_response_len, 1, 1e8, NULL, "N", "truncation length (default: the model's context minus the prompt)", NULL, false},
        {"--oversample", O_DOUBLE, &a.oversample, 0, 10, NULL, "F", "submit N(1+F) samples, train on the first N done", NULL, false},
        {"--partial-rollouts", O_DOUBLE, &a.partial, 1, 1e8, NULL, "T", "partial rollouts: each sample decodes at most T tokens per step, the unfinished carry over (steady state)", NULL, false},
        {"--placement", O_CHOICE, &a.placement, 0, 0, place_names, "P", "colocated | disaggregated (default colocated)", NULL, false},
        {"--gen-gpus", O_INT, &a.gen_gpus, 1, 1e6, NULL, "N", "disaggregated: generator GPUs (default: searched in whole nodes)", NULL, false},
        {"--gen-tp", O_INT, &a.gen_tp, 1, 1024, NULL, "T", "generator TP (EP = TP for MoE), across servers beyond the NVLink domain; with --gen-attention-dp the GPUs of a replica (default: the fastest)", NULL, false},
        {"--gen-attention-dp", O_FLAG, &a.gen_attention_dp, 0, 0, NULL, NULL, "MoE: generate attention data-parallel, experts EP = --gen-tp wide (default: searched with TP)", NULL, false},
        {"--off-policy", O_INT, &a.off_policy, -1e9, 1e9, NULL, "LAG", "0 synchronous, 1 one-step off-policy (disaggregated) [0 to 1]", NULL, false},
        {"--gen-weights", O_CHOICE, &a.gen_weights, 0, 0, names_precision, "P", "generator weight precision (default bf16)", NULL, false},
        {"--kv", O_CHOICE, &a.kv, 0, 0, names_precision_no_fp4, "P", "generator KV-cache precision (default bf16)", NULL, false},
        {"--train-precision", O_CHOICE, &a.train_precision, 0, 0, names_precision, "P", "training GEMM precision (default bf16)", NULL, false},
        {"--sync-fp8", O_FLAG, &a.sync_fp8, 0, 0, NULL, NULL, "push the new weights in FP8 (1 B/param)", NULL, false},
        {"--offload", O_CHOICE, &a.offload, 0, 0, onoff_names, "on|off", "colocated: trainer states to host while generating (default on)", NULL, false},
        {"--old-logprobs", O_CHOICE, &a.old_logprobs, 0, 0, onoff_names, "on|off", "recompute the policy's log-probs before training (default on); off takes the importance ratio as 1 (NeMo-RL force_on_policy_ratio; one optimizer step per batch)", NULL, false},
        {"--engine-sleep", O_CHOICE, &a.engine_sleep, 0, 0, sleep_names, "1|2", "colocated: the engine's sleep level between generations: 1 backs its weights up in host memory (vLLM level 1, as NeMo-RL runs it; default), 2 discards them for the refit to rewrite", NULL, false},
        {"--epochs", O_INT, &a.epochs, 1, 100, NULL, "E", "PPO epochs over the step's samples (default 1)", NULL, false},
        {"--minibatches", O_INT, &a.minibatches, 1, 1e6, NULL, "M", "optimizer steps per epoch (default 1)", NULL, false},
        {"--train-tp", O_INT, &a.train_tp, 1, 1024, NULL, "T", "policy trainer TP (default: searched)", NULL, false},
        {"--train-pp", O_INT, &a.train_pp, 1, 1024, NULL, "P", "policy trainer PP (default: searched)", NULL, false},
        {"--train-cp", O_INT, &a.train_cp, 1, 1024, NULL, "C", "policy trainer CP (default: searched)", NULL, false},
        {"--train-ep", O_INT, &a.train_ep, 1, 1024, NULL, "E", "policy trainer EP (default: searched)", NULL, false},
        {"--train-mbs", O_INT, &a.train_mbs, 1, 1e6, NULL, "B", "policy trainer micro-batch (default: searched)", NULL, false},
        {"--train-full-recompute", O_FLAG, &a.train_full_recompute, 0, 0, NULL, NULL, "the policy trainer recomputes every layer (activation checkpointing; default: searched)", NULL, false},
        {"--reference", O_STR, &a.reference, 0, 0, NULL, "M|none", "KL reference model (default: the policy)", NULL, false},
        {"--reward-model", O_STR, &a.reward, 0, 0, NULL, "M", "reward-model forward (default: a rule-based verifier)", NULL, false},
        {"--critic", O_STR, &a.critic, 0, 0, NULL, "M", "PPO value model, forward and trained (default: none, GRPO)", NULL, false},
        {"--stack", O_STR, &a.stack, 0, 0, NULL, "NAME", "training framework stack (default " CLI_DEFAULT_STACK ")", NULL, false},
        {"--serving-profile", O_STR, &a.serving, 0, 0, NULL, "NAME", "the generator's serving engine stack or profile (default " GPUECON_RL_GEN_STACK "): " CLI_SERVING_PROFILES, NULL, false},
        CLI_OPT_PROFILE(&a.profile),
        {"--tier", O_CHOICE, &a.tier, 0, 0, names_tier, "T", "operator tier for failures and spares (default typical)", NULL, false},
        {"--steps", O_INT, &a.steps, 1, 1e6, NULL, "N", "steps of the run, for totals (default 1000)", NULL, false},
        CLI_OPT_PUE(&a.pue),
        CLI_OPT_USD_PER_GPU_HOUR(&a.usd_per_gpu_hour),
    };
    static const cmd_usage usage = {
        "rl --model M --system S --gpus N --prompts P --samples K --prompt-len L --response-len R\n"
        "   [--response-cv F] [--max-response-len N] [--oversample F | --partial-rollouts T]\n"
        "   [--placement colocated|disaggregated]\n"
        "   [--gen-gpus N] [--gen-tp T] [--gen-attention-dp] [--off-policy 0|1] [--gen-weights P] [--kv P] [--train-precision P] [--sync-fp8]\n"
        "   [--train-tp T] [--train-pp P] [--train-cp C] [--train-ep E] [--train-mbs B] [--train-full-recompute]\n"
        "   [--reference M|none] [--reward-model M] [--critic M] [--stack NAME] [--profile P] [--steps N]",
        "One step of RL post-training (PPO/GRPO as veRL, NeMo-RL, OpenRLHF run it): rollouts through\n"
        "the serving model, waiting for the slowest response; scoring forward passes; the training\n"
        "step through the training model; the weight push to the generators; colocated (with the\n"
        "memory swap) or disaggregated (the split searched). Time, breakdown, pools, tokens/s, $ and\n"
        "MWh per step and per million trained tokens with goodput (docs/model.md §8).",
        "gpuecon rl --model qwen3-235b-a22b --system gb200-nvl72 --gpus 72 --prompts 256 --samples 16 "
        "--prompt-len 1024 --response-len 8192 --gen-weights fp8 --placement disaggregated"};
    size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)) || (rc = cli_load_catalog(c)))
        return rc;
    return execute(c, opts, nopts, &a);
}
