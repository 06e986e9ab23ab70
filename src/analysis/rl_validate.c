/*
 * rl_validate.c — the RL step model against published GRPO step times (`gpuecon validate
 * --group rl`; docs/model.md §8.8). Fitted on nothing.
 *
 * Source: NeMo-RL v0.7 performance summary (NVIDIA-NeMo/RL docs/about/performance-summary.md,
 * tables "H100 BF16 Benchmarks", "H100 FP8 Benchmarks" and "GB200 BF16 Benchmarks"; copy at
 * svcnemo-autobot/RL commit ad3472a83d4842abc7f5dacf43daea63e1ad6930): GRPO on OpenMathInstruct-2,
 * Megatron Core training, BF16 (one row FP8) generation and training, G-GBS = T-GBS = 512 samples
 * per step, step time averaged over 5 steps. "G-Average Seq len" is prompt + response (its tokens/s/GPU is 512 x that / step / GPUs).
 * Key choice: every row runs the same inputs but its sizes — 32 prompts x 16 samples, a 128-token
 * prompt (an assumption: short math problems), the published mean length for the response, the
 * published maximum for the truncation, cv 0.6, the published generation TP (TP 32 on H100 spans
 * four servers, §8.2) — on-policy rows colocated, one-step-off rows disaggregated with the split
 * searched. The H100 FP8 table's row generates and trains in FP8.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct rl_case {
    const char *id, *model, *system;
    int gpus;
    bool off, fp8;
    int avg_seq, max_seq, gen_tp;
    int ttp, tcp, tep, tpp; /* the published "Training [TP,CP,EP,PP,VPP]" */
    double step_s;
} rl_case;

/* gen_tp: the published "Generation [TP,PP]" (PP 1 in every row); ttp..tpp: its "Training
 * [TP,CP,EP,PP,VPP]" (VPP n/a); fp8: the H100 FP8 table (generation and training FP8). */
static const rl_case cases[] = {
    {"R-H1", "deepseek-v3", "hgx-h100", 256, false, false, 722, 1536, 32, 1, 1, 16, 16, 93},
    {"R-H2", "deepseek-v3", "hgx-h100", 512, false, false, 724, 1536, 32, 1, 1, 32, 16, 81.2},
    {"R-H3", "deepseek-v3", "hgx-h100", 512, true, false, 729, 1536, 32, 1, 1, 16, 16, 46.6},
    {"R-H4", "qwen3-235b-a22b", "hgx-h100", 128, false, false, 5719, 8192, 16, 2, 2, 16, 8, 367},
    {"R-H5", "qwen3-235b-a22b", "hgx-h100", 256, false, false, 5698, 8192, 16, 2, 2, 16, 8, 285},
    {"R-H6", "qwen3-235b-a22b", "hgx-h100", 256, true, false, 5695, 8192, 8, 4, 1, 16, 8, 204},
    {"R-H7", "deepseek-v3", "hgx-h100", 512, true, true, 738, 1536, 16, 1, 1, 16, 16, 61.9},
    {"R-G1", "deepseek-v3", "gb200-nvl72", 128, false, false, 719, 1536, 32, 1, 1, 16, 8, 78.5},
    {"R-G2", "deepseek-v3", "gb200-nvl72", 256, false, false, 728, 1536, 32, 1, 1, 32, 8, 70.7},
    {"R-G3", "deepseek-v3", "gb200-nvl72", 256, true, false, 719, 1536, 16, 1, 1, 16, 8, 35},
    {"R-G4", "qwen3-235b-a22b", "gb200-nvl72", 64, false, false, 5707, 8192, 8, 2, 2, 16, 4, 268},
    {"R-G5", "qwen3-235b-a22b", "gb200-nvl72", 128, false, false, 5711, 8192, 8, 2, 2, 16, 4, 210},
    {"R-G6", "qwen3-235b-a22b", "gb200-nvl72", 128, true, false, 5699, 8192, 8, 4, 1, 16, 4, 160},
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
    snprintf(row->config, sizeof row->config, "512 x %d tok (max %d), %s, gen TP %d%s", k->avg_seq, k->max_seq,
             k->off ? "disaggregated" : "colocated", k->gen_tp, k->fp8 ? ", FP8" : "");
    snprintf(row->source, sizeof row->source,
             "NeMo-RL v0.7 docs/about/performance-summary.md, %s %s table: total step time",
             strstr(k->system, "gb200") ? "GB200" : "H100", k->fp8 ? "FP8" : "BF16");
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
    r.gen_tp = k->gen_tp;
    /* the published training layout; micro-batch 1 and activation checkpointing as the recipes
     * set them (examples/configs/recipes/llm/performance/grpo-deepseek-v3-32n8g.yaml and
     * grpo-qwen3-235b-16n8g.yaml: train_micro_batch_size 1, activation_checkpointing true) */
    r.train_tp = k->ttp;
    r.train_cp = k->tcp;
    r.train_ep = k->tep;
    r.train_pp = k->tpp;
    r.train_mbs = 1;
    r.train_full_recompute = true;
    if (k->fp8)
        r.gen_weights = r.train_precision = GPUECON_FP8;
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
