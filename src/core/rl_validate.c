/*
 * rl_validate.c — the RL step model against published GRPO step times (`gpuecon validate
 * --group rl`; docs/model.md §8.8). Fitted on nothing.
 *
 * Source: NeMo-RL v0.7 performance summary (NVIDIA-NeMo/RL docs/about/performance-summary.md,
 * tables "H100 BF16 Benchmarks" and "GB200 BF16 Benchmarks"; copy at svcnemo-autobot/RL commit
 * ad3472a83d4842abc7f5dacf43daea63e1ad6930): GRPO on OpenMathInstruct-2, Megatron Core training,
 * BF16 generation and training, G-GBS = T-GBS = 512 samples per step, step time averaged over 5
 * steps. "G-Average Seq len" is prompt + response (its tokens/s/GPU is 512 x that / step / GPUs).
 * Key choice: every row runs the same inputs but its sizes — 32 prompts x 16 samples, a 128-token
 * prompt (an assumption: short math problems), the published mean length for the response, the
 * published maximum for the truncation, cv 0.6 — on-policy rows colocated, one-step-off rows
 * disaggregated with the split searched. The H100 DeepSeek-V3 rows are left out: NeMo-RL
 * generates with TP 32 across four servers, which the model does not do (§8.7).
 */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct rl_case {
    const char *id, *model, *system;
    int gpus;
    bool off;
    int avg_seq, max_seq;
    double step_s;
} rl_case;

static const rl_case cases[] = {
    {"R-H4", "qwen3-235b-a22b", "hgx-h100", 128, false, 5719, 8192, 367},
    {"R-H5", "qwen3-235b-a22b", "hgx-h100", 256, false, 5698, 8192, 285},
    {"R-H6", "qwen3-235b-a22b", "hgx-h100", 256, true, 5695, 8192, 204},
    {"R-G1", "deepseek-v3", "gb200-nvl72", 128, false, 719, 1536, 78.5},
    {"R-G2", "deepseek-v3", "gb200-nvl72", 256, false, 728, 1536, 70.7},
    {"R-G3", "deepseek-v3", "gb200-nvl72", 256, true, 719, 1536, 35},
    {"R-G4", "qwen3-235b-a22b", "gb200-nvl72", 64, false, 5707, 8192, 268},
    {"R-G5", "qwen3-235b-a22b", "gb200-nvl72", 128, false, 5711, 8192, 210},
    {"R-G6", "qwen3-235b-a22b", "gb200-nvl72", 128, true, 5699, 8192, 160},
};
#define RL_PROMPT 128

size_t gpuecon_rl_validate_count(void)
{
    return sizeof cases / sizeof cases[0];
}

static void one_row(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const rl_case *k, gpuecon_rl_result *o,
                    gpuecon_validate_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", k->id);
    snprintf(row->group, sizeof row->group, "rl");
    snprintf(row->cls, sizeof row->cls, "rl-grpo");
    snprintf(row->what, sizeof row->what, "%s GRPO, %d x %s, %s", k->model, k->gpus, k->system,
             k->off ? "1-step off-policy" : "on-policy");
    snprintf(row->config, sizeof row->config, "512 x %d tok (max %d), %s", k->avg_seq, k->max_seq,
             k->off ? "disaggregated" : "colocated");
    snprintf(row->source, sizeof row->source,
             "NeMo-RL v0.7 docs/about/performance-summary.md, %s BF16 table: total step time",
             strstr(k->system, "gb200") ? "GB200" : "H100");
    row->published = k->step_s;
    gpuecon_rl_request r;
    gpuecon_rl_request_init(&r);
    r.policy = gpuecon_catalog_model(cat, k->model);
    r.reference = r.policy;
    r.system = gpuecon_catalog_system(cat, k->system);
    r.gpus = k->gpus;
    r.prompts = 32;
    r.samples = 16;
    r.prompt_len = RL_PROMPT;
    r.response_len = k->avg_seq - RL_PROMPT;
    r.max_response_len = k->max_seq - RL_PROMPT;
    r.stack = gpuecon_catalog_stack(cat, "megatron-bridge-2026");
    if (k->off) {
        r.placement = GPUECON_RL_DISAGGREGATED;
        r.off_policy = 1;
    }
    gpuecon_error e;
    gpuecon_error_clear(&e);
    row->fits = r.policy && r.system && gpuecon_rl_predict(ctx, NULL, &r, o, &e) == GPUECON_OK;
    if (!row->fits) /* kept out of the summary */
        snprintf(row->group, sizeof row->group, "rl-no-fit");
    row->predicted = row->fits ? o->step_time_s : 0;
    row->rel_err = row->fits ? row->predicted / row->published - 1 : 0;
    if (row->fits)
        snprintf(row->note, sizeof row->note, "generation %.0f s (tail %.0f s), scoring %.0f s, training %.0f s, "
                 "sync %.1f s, swap %.1f s", o->generation_s, o->gen_drain_s, o->scoring_s, o->training_s,
                 o->weight_sync_s, o->swap_s);
    else
        snprintf(row->note, sizeof row->note, "no prediction: %.180s", e.message);
}

int gpuecon_rl_validate(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                        size_t *n, gpuecon_validate_summary *summary, gpuecon_error *err)
{
    if (!ctx || !cat || !rows || !n || !summary)
        return err_set(err, GPUECON_E_INPUT, "validate", 0, 0, "context, catalog, rows and summary are required");
    gpuecon_rl_result *o = ctx_alloc(ctx, sizeof *o);
    if (!o)
        return err_set(err, GPUECON_E_NOMEM, "validate", 0, 0, "out of memory");
    *n = 0;
    for (size_t i = 0; i < gpuecon_rl_validate_count() && *n < cap; i++)
        one_row(ctx, cat, &cases[i], o, &rows[(*n)++]);
    ctx_free(ctx, o, sizeof *o);
    gpuecon_validate_summarize(rows, *n, "rl", false, GPUECON_ROWS_ALL, summary);
    return GPUECON_OK;
}
