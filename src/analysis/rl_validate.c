/*
 * rl_validate.c — the RL step model against published GRPO step times (`gpuecon validate
 * --group rl`; docs/model.md §8.8): the rows, the on/off-policy pairs, the signed median. The
 * DeepSeek-V3 BF16 rows informed the choice of the colocated mechanisms (§8.5) and are marked
 * fitted; the others are held out.
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
#include <stdlib.h>
#include <string.h>

typedef struct rl_case {
    const char *id, *model, *system;
    int gpus;
    bool off, fp8;
    int avg_seq, max_seq, gen_tp;
    int ttp, tcp, tep, tpp; /* the published "Training [TP,CP,EP,PP,VPP]" */
    int prompts, samples;   /* the recipe's num_prompts_per_step x num_generations_per_prompt */
    int gen_gpus;           /* 1-step off: the recipe's generation resources (num_nodes x gpus_per_node) */
    bool fitted;            /* the row informed a choice of docs/model.md §8.5 */
    double step_s;
} rl_case;

/* gen_tp: the published "Generation [TP,PP]" (PP 1 in every row); ttp..tpp: its "Training
 * [TP,CP,EP,PP,VPP]" (VPP n/a); fp8: the H100 FP8 table (generation and training FP8).
 * prompts x samples and the generator pool: the v0.7.0 recipes (NVIDIA-NeMo/RL@v0.7.0,
 * examples/configs/recipes/llm/performance/): grpo-deepseek-v3-32n8g.yaml 32 x 16,
 * grpo-qwen3-235b-16n8g.yaml 16 x 32; the one-step-off recipes generate on half the nodes
 * (grpo-deepseek-v3-64n8g-async-1off.yaml 32 of 64 nodes, its 64n4g variant 32 x 4 GPUs,
 * grpo-qwen3-235b-32n8g-async-1off.yaml 16 of 32 nodes, its 32n4g variant 16 x 4 GPUs).
 * fitted: the DeepSeek-V3 BF16 rows, whose gaps and on/off pairs chose the mechanisms kept
 * (the engine's sleep, the refit by software path, the broadcast over a domain's NICs). */
static const rl_case cases[] = {
    {"R-H1", "deepseek-v3", "hgx-h100", 256, false, false, 722, 1536, 32, 1, 1, 16, 16, 32, 16, 0, true, 93},
    {"R-H2", "deepseek-v3", "hgx-h100", 512, false, false, 724, 1536, 32, 1, 1, 32, 16, 32, 16, 0, true, 81.2},
    {"R-H3", "deepseek-v3", "hgx-h100", 512, true, false, 729, 1536, 32, 1, 1, 16, 16, 32, 16, 256, true, 46.6},
    {"R-H4", "qwen3-235b-a22b", "hgx-h100", 128, false, false, 5719, 8192, 16, 2, 2, 16, 8, 16, 32, 0, false, 367},
    {"R-H5", "qwen3-235b-a22b", "hgx-h100", 256, false, false, 5698, 8192, 16, 2, 2, 16, 8, 16, 32, 0, false, 285},
    {"R-H6", "qwen3-235b-a22b", "hgx-h100", 256, true, false, 5695, 8192, 8, 4, 1, 16, 8, 16, 32, 128, false, 204},
    {"R-H7", "deepseek-v3", "hgx-h100", 512, true, true, 738, 1536, 16, 1, 1, 16, 16, 32, 16, 256, false, 61.9},
    {"R-G1", "deepseek-v3", "gb200-nvl72", 128, false, false, 719, 1536, 32, 1, 1, 16, 8, 32, 16, 0, true, 78.5},
    {"R-G2", "deepseek-v3", "gb200-nvl72", 256, false, false, 728, 1536, 32, 1, 1, 32, 8, 32, 16, 0, true, 70.7},
    {"R-G3", "deepseek-v3", "gb200-nvl72", 256, true, false, 719, 1536, 16, 1, 1, 16, 8, 32, 16, 128, true, 35},
    {"R-G4", "qwen3-235b-a22b", "gb200-nvl72", 64, false, false, 5707, 8192, 8, 2, 2, 16, 4, 16, 32, 0, false, 268},
    {"R-G5", "qwen3-235b-a22b", "gb200-nvl72", 128, false, false, 5711, 8192, 8, 2, 2, 16, 4, 16, 32, 0, false, 210},
    {"R-G6", "qwen3-235b-a22b", "gb200-nvl72", 128, true, false, 5699, 8192, 8, 4, 1, 16, 4, 16, 32, 64, false, 160},
};
#define RL_PROMPT 128
/* NeMo-RL v0.7's Megatron settings (data/stacks.yaml: alltoall dispatcher, no CUDA graphs, no TP
 * overlap, no sequence parallelism) */
#define RL_STACK "nemo-rl-0.7"

const char *gpuecon_rl_validate_stack(void)
{
    return RL_STACK;
}

size_t gpuecon_rl_validate_count(void)
{
    return sizeof cases / sizeof cases[0];
}

/* The lognormal mean (cv RL_CV) whose truncation at cap has mean `mean`: the published "G-Average
 * Seq len" is what the samples generated, after the truncation at T-Max. Bisection on the
 * increasing E[min(X, cap)] over [mean, cap]. */
#define RL_CV 0.6
static double untruncated_mean(double mean, double cap)
{
    double lo = mean, hi = cap;
    if (gpuecon_lognormal_capped_mean(hi, RL_CV, cap) <= mean)
        return hi;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        if (gpuecon_lognormal_capped_mean(mid, RL_CV, cap) < mean)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The request of case k (policy or system NULL when the catalog lacks them). */
static void case_request(const gpuecon_catalog *cat, const rl_case *k, gpuecon_rl_request *out);

static void one_row(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const rl_case *k, gpuecon_rl_result *o,
                    gpuecon_validate_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", k->id);
    snprintf(row->group, sizeof row->group, "rl");
    snprintf(row->cls, sizeof row->cls, "rl-grpo");
    snprintf(row->what, sizeof row->what, "%s GRPO, %d x %s, %s", k->model, k->gpus, k->system,
             k->off ? "1-step off-policy" : "on-policy");
    if (k->off)
        snprintf(row->config, sizeof row->config, "512 x %d tok (max %d), %d gen + %d train, TP %d%s", k->avg_seq,
                 k->max_seq, k->gen_gpus, k->gpus - k->gen_gpus, k->gen_tp, k->fp8 ? ", FP8" : "");
    else
        snprintf(row->config, sizeof row->config, "512 x %d tok (max %d), colocated, gen TP %d%s", k->avg_seq,
                 k->max_seq, k->gen_tp, k->fp8 ? ", FP8" : "");
    snprintf(row->source, sizeof row->source,
             "NeMo-RL v0.7 docs/about/performance-summary.md, %s %s table: total step time",
             strstr(k->system, "gb200") ? "GB200" : "H100", k->fp8 ? "FP8" : "BF16");
    row->published = k->step_s;
    gpuecon_rl_request r;
    case_request(cat, k, &r);
    row->fitted_on = k->fitted;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    row->fits = r.policy && r.system && gpuecon_rl_predict(ctx, NULL, &r, o, &e) == GPUECON_OK;
    if (!row->fits) /* kept out of the summary */
        snprintf(row->group, sizeof row->group, "rl-no-fit");
    row->predicted = row->fits ? o->step_time_s : 0;
    row->rel_err = row->fits ? row->predicted / row->published - 1 : 0;
    /* the phases, and the gap to the published step as a share of the predicted generation: what
     * generation would lack if it alone carried the gap (to re-check when the decode model moves) */
    if (row->fits)
        snprintf(row->note, sizeof row->note, "gen %.0f s (tail %.0f), score %.1f, train %.1f, sync %.1f, sleep+wake "
                 "%.1f, swaps %.1f s; gap %+.0f s = %+.0f%% of gen", o->generation_s, o->gen_drain_s, o->scoring_s,
                 o->training_s, o->weight_sync_s, o->engine_sleep_s + o->engine_wake_s,
                 o->trainer_swap_s + o->reference_swap_s, k->step_s - o->step_time_s,
                 100 * (k->step_s - o->step_time_s) / o->generation_s);
    else
        snprintf(row->note, sizeof row->note, "no prediction: %.180s", e.message);
}

static void case_request(const gpuecon_catalog *cat, const rl_case *k, gpuecon_rl_request *out)
{
    gpuecon_rl_request r;
    gpuecon_rl_request_init(&r);
    r.policy = gpuecon_catalog_model(cat, k->model);
    r.reference = r.policy;
    r.system = gpuecon_catalog_system(cat, k->system);
    r.gpus = k->gpus;
    r.prompts = k->prompts;
    r.samples = k->samples;
    r.prompt_len = RL_PROMPT;
    r.max_response_len = k->max_seq - RL_PROMPT;
    r.response_cv = RL_CV;
    r.response_len = untruncated_mean(k->avg_seq - RL_PROMPT, r.max_response_len);
    r.stack = gpuecon_catalog_stack(cat, RL_STACK);
    /* NeMo-RL generates with vLLM, CUDA graphs on (grpo_math_1B.yaml policy.generation.backend
     * "vllm", vllm_cfg.enforce_eager False): the vllm-v1 engine stack prices its decode steps */
    rl_default_engine(cat, &r);
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
    /* both recipes set loss_fn.force_on_policy_ratio: true (the async ones inherit it), which skips
     * the policy's log-prob pass (nemo_rl/algorithms/opd.py _skip_prev_logprobs, grpo.py) */
    r.old_logprobs = false;
    if (k->fp8)
        r.gen_weights = r.train_precision = GPUECON_FP8;
    if (k->off) {
        r.placement = GPUECON_RL_DISAGGREGATED;
        r.off_policy = 1;
        r.gen_gpus = k->gen_gpus;
    }
    *out = r;
}

int validate_rl_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id, const gpuecon_calibration *cal,
                       validate_replay *out, gpuecon_error *err)
{
    if (!ctx || !cat || !id || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, catalog, row and result are required");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rl_case *k = &cases[i];
        if (!validate_id_is(k->id, id))
            continue;
        memset(out, 0, sizeof *out);
        gpuecon_rl_request r;
        case_request(cat, k, &r);
        if (!r.policy || !r.system) /* no prediction (validate's row says so): in no group */
            return GPUECON_OK;
        /* one calibration for the whole step, as an overlay entry of workload any, stack and precision
         * any, on this system is taken by gpuecon rl (rl_user_calibrations): the trainer's efficiencies
         * and the generator's profile scaled alike */
        validate_frac_max_eff(gpuecon_efficiency_for(r.system->gpu), out->frac_max);
        double gen[GPUECON_CAL_PARAMS];
        validate_frac_max_profile(&r.serving, gen);
        for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
            out->frac_max[p] = out->frac_max[p] > gen[p] ? out->frac_max[p] : gen[p];
        r.train_calibration = cal;
        gpuecon_calibration_apply_profile(cal, &r.serving); /* NULL: none */
        gpuecon_rl_result *o = ctx_alloc(ctx, sizeof *o);
        if (!o)
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        int rc = gpuecon_rl_predict(ctx, NULL, &r, o, err);
        out->figure = rc ? 0 : o->step_time_s;
        ctx_free(ctx, o, sizeof *o);
        out->system = k->system;
        out->stack = RL_STACK;
        out->prec = k->fp8 ? GPUECON_FP8 : GPUECON_BF16;
        out->moe = r.policy->experts > 0;
        out->measurable = rc == GPUECON_OK; /* a row without a prediction is not in a group */
        return rc == GPUECON_E_NOMEM || rc == GPUECON_E_CANCELED ? rc : GPUECON_OK;
    }
    return err_set(err, GPUECON_E_NOTFOUND, id, 0, 0, "no RL row %s", id);
}

/* The published pairs: on-policy colocated and one-step-off disaggregated on the same GPUs. */
static const char *const pairs[][2] = {{"R-H2", "R-H3"}, {"R-H5", "R-H6"}, {"R-G2", "R-G3"}, {"R-G5", "R-G6"}};

static const gpuecon_validate_row *find_row(const gpuecon_validate_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].id, id))
            return rows[i].fits ? &rows[i] : NULL;
    return NULL;
}

size_t gpuecon_rl_validate_pairs(const gpuecon_validate_row *rows, size_t n, gpuecon_rl_pair *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && k < cap; i++) {
        const gpuecon_validate_row *on = find_row(rows, n, pairs[i][0]), *off = find_row(rows, n, pairs[i][1]);
        if (!on || !off)
            continue;
        gpuecon_rl_pair *p = &out[k++];
        snprintf(p->on, sizeof p->on, "%s", on->id);
        snprintf(p->off, sizeof p->off, "%s", off->id);
        p->published_gap_s = on->published - off->published;
        p->predicted_gap_s = on->predicted - off->predicted;
    }
    return k;
}

static int cmp_real(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gpuecon_validate_signed_median(const gpuecon_validate_row *rows, size_t n, gpuecon_validate_fit fit)
{
    double e[GPUECON_VALIDATE_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < GPUECON_VALIDATE_MAX; i++) {
        if (!rows[i].fits || (fit == GPUECON_ROWS_FITTED && !rows[i].fitted_on) ||
            (fit == GPUECON_ROWS_HELD_OUT && rows[i].fitted_on))
            continue;
        e[k++] = rows[i].rel_err;
    }
    if (!k)
        return 0;
    qsort(e, k, sizeof e[0], cmp_real);
    return k % 2 ? e[k / 2] : (e[k / 2 - 1] + e[k / 2]) / 2;
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
