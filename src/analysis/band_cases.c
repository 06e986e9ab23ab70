/*
 * band_cases.c — the band cases of the serving (infer), fine-tuning and RL figures: what each
 * figure's request says about the group it belongs to (GPU generation, precision, dense or MoE,
 * stack, lengths, GPUs, batch, the user's calibration), handed to band.c's band_of
 * (docs/model.md §7.6). The commands call these once per figure they print.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <string.h>

/* The band of point for case c; none (set false) for a figure that is not a positive number. */
static void one(const band_set *s, const band_case *c, double point, gpuecon_band *out)
{
    memset(out, 0, sizeof *out);
    if (s && isfinite(point) && point > 0)
        band_of(s, c, point, out);
}

static const char *gpu_arch(const gpuecon_system *sys)
{
    return sys && sys->gpu ? sys->gpu->arch : NULL;
}

/* Sequence lengths as band_case holds them (an int, the sum of the means, at least 1). */
static int seq_of(double tokens)
{
    return tokens >= 1 && tokens < 2e9 ? (int)lround(tokens) : tokens >= 2e9 ? 2000000000 : 1;
}

void band_serving(const band_set *s, const gpuecon_infer_request *r, gpuecon_precision weights, int gpus,
                  double concurrency, double tps_per_gpu, double tpot_ms, double ttft_ms, serve_bands *out)
{
    band_case c = {
        .arch = gpu_arch(r->system),
        .prec = weights,
        .moe = r->model && r->model->experts > 0,
        .stack = gpuecon_serving_profile_label(&r->profile),
        .seq = seq_of(r->prompt_len + r->output_len),
        .gpus = gpus,
        .batch = concurrency > 0 ? concurrency : 0,
        .cal = r->profile.calibration,
    };
    c.metric = BAND_SERVE_TPS;
    one(s, &c, tps_per_gpu, &out->tps);
    c.metric = BAND_TPOT;
    one(s, &c, tpot_ms, &out->tpot);
    c.metric = BAND_TTFT;
    one(s, &c, ttft_ms, &out->ttft);
}

void band_finetune(const band_set *s, const gpuecon_finetune_request *r, double tokens_per_s, gpuecon_band *out)
{
    band_case c = {
        .metric = BAND_FINETUNE_TPS,
        .arch = gpu_arch(r->system),
        .prec = r->precision,
        .moe = r->model && r->model->experts > 0,
        .stack = r->stack ? r->stack->name : NULL,
        .seq = r->seq,
        .gpus = r->gpus,
        .batch = (double)r->mbs * r->gpus, /* sequences per step, all GPUs */
        .cal = r->calibration,
    };
    one(s, &c, tokens_per_s, out);
}

void band_rl(const band_set *s, const gpuecon_rl_request *r, double step_time_s, gpuecon_band *out)
{
    band_case c = {
        .metric = BAND_RL_STEP,
        .arch = gpu_arch(r->system),
        .prec = r->train_precision,
        .moe = r->policy && r->policy->experts > 0,
        .stack = r->stack ? r->stack->name : NULL,
        .seq = seq_of(r->prompt_len + r->response_len),
        .gpus = r->gpus,
        .batch = (double)r->prompts * r->samples, /* sequences per step */
        .cal = r->serving.calibration,
    };
    one(s, &c, step_time_s, out);
}
