/*
 * scenario.c — scenario files for `gpuecon compare`: one or more comparisons, each a workload
 * (train a model on a token budget, or serve it at a load) and the platforms to compare.
 *
 * Objects are read through the same schema tables as the catalog (schema_load_object), so
 * scenario numbers carry source and stage too, unknown fields get the nearest valid name, and
 * every error names path:line:col. Names are checked against the catalog at load time, and
 * inputs that contradict each other (a GPU count that the fixed parallel layout cannot use)
 * are refused here, before any model runs.
 */
#include "io/io.h"
#include "model/names.h"
#include "embedded.h"
#include "schema.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

typedef struct sobj {
    gpuecon_source *src;
    uint64_t present;
} sobj;

typedef struct scomparison {
    sobj workload;
    sobj *platforms;
    const char *model_path; /* the workload's model_file:, resolved (NULL: none) */
} scomparison;

struct gpuecon_scenario {
    gpuecon_ctx *ctx;
    arena a;
    const char *name, *title;
    gpuecon_comparison *cmp;
    scomparison *meta;
    size_t n;
    /* while loading: the scenario file (NULL: text, which names no files) and the catalog its
       model_file: entries load into (NULL: read-only) */
    const char *file;
    gpuecon_catalog *adds;
};

static const char *const kind_names[] = {"train", "serve", "rl", NULL};
static const char *const placement_names[] = {"colocated", "disaggregated", NULL};

#define W(f) offsetof(gpuecon_workload, f)
static const fdesc workload_fields[] = {
    {"kind", FT_ENUM, W(kind), 0, 0, 0, 0, NULL, F_REQ, "", "train, serve or rl", kind_names},
    {"model", FT_TEXT, W(model), 0, 0, 0, 0, NULL, F_NAME, "", "catalog model (or model_file:)", NULL},
    {"precision", FT_ENUM, W(precision), 0, 0, 0, GPUECON_BF16, NULL, 0, "",
     "training GEMM precision / serving weight precision", names_precision},
    {"tokens", FT_NUM, W(tokens), 0, 1e6, 1e16, 0, NULL, 0, "tokens",
     "training token budget at the reference batch", NULL},
    {"seq", FT_INT, W(seq), 0, 1, 1e7, 0, NULL, 0, "", "training sequence length", NULL},
    {"gbs", FT_INT, W(gbs), 0, 1, 1e8, 0, NULL, 0, "", "global batch in sequences", NULL},
    {"batch_tokens", FT_NUM, W(batch_tokens), 0, 1, 1e12, 0, NULL, 0, "tokens",
     "global batch in tokens (instead of gbs)", NULL},
    {"critical_batch_tokens", FT_NUM, W(critical_batch_tokens), 0, 1, 1e12, 0, NULL, 0, "tokens",
     "critical batch size B_crit (McCandlish et al. 2018); absent: no penalty", NULL},
    {"target_days", FT_NUM, W(target_days), 0, 0.01, 1e4, 0, NULL, 0, "days",
     "finish within this many days (sizes each platform)", NULL},
    {"prompt_len", FT_INT, W(prompt_len), 0, 1, 1e7, 230, NULL, 0, "tokens",
     "mean prompt length (default ShareGPT 230)", NULL},
    {"output_len", FT_INT, W(output_len), 0, 1, 1e7, 203, NULL, 0, "tokens",
     "mean output length (default ShareGPT 203)", NULL},
    {"concurrency", FT_INT, W(concurrency), 0, 1, 1e8, 0, NULL, 0, "",
     "sequences in flight per deployment (absent: best under the latency target)", NULL},
    {"tpot_ms_target", FT_NUM, W(tpot_ms_target), 0, 0.1, 1e6, 0, NULL, 0, "ms",
     "latency target per output token", NULL},
    {"ttft_ms_target", FT_NUM, W(ttft_ms_target), 0, 0.1, 1e7, 0, NULL, 0, "ms",
     "latency target to the first token", NULL},
    {"kv", FT_ENUM, W(kv), 0, 0, 0, GPUECON_BF16, NULL, 0, "", "KV-cache precision", names_precision},
    {"simulate", FT_BOOL, W(simulate), 0, 0, 1, 0, NULL, 0, "",
     "serving: simulate each aggregated platform request by request (TTFT/TPOT percentiles)", NULL},
    {"serve_tokens", FT_NUM, W(serve_tokens), 0, 1, 1e18, 0, NULL, 0, "tokens",
     "output tokens to serve, for totals", NULL},
    {"rate", FT_NUM, W(rate), 0, -1e18, 1e18, 0, NULL, 0, "requests/s",
     "serving: requests/s to serve; each platform without gpus is sized to the fewest servers or racks meeting the "
     "targets", NULL},
    {"slo_percentile", FT_NUM, W(slo_percentile), 0, -1e18, 1e18, 90, NULL, 0, "",
     "serving at a rate: the percentile of requests the targets hold for (0 to 100, exclusive; default 90)", NULL},
    {"stack", FT_TEXT, W(stack), 0, 0, 0, 0, NULL, F_NAME, "", "framework stack (data/stacks.yaml): training, or a serving engine for kind serve", NULL},
    {"budget_usd", FT_NUM, W(budget_usd), 0, 1, 1e13, 0, NULL, 0, "USD",
     "the most the training run may cost (the fastest platform within it is named)", NULL},
    {"prompts", FT_INT, W(prompts), 0, 1, 1e7, 0, NULL, 0, "", "rl: prompts per step", NULL},
    {"samples", FT_INT, W(samples), 0, 1, 1e6, 0, NULL, 0, "", "rl: samples per prompt (the GRPO group)", NULL},
    {"response_len", FT_INT, W(response_len), 0, 1, 1e7, 0, NULL, 0, "tokens", "rl: mean response length", NULL},
    {"response_cv", FT_NUM, W(response_cv), 0, 0, 10, 0.6, NULL, 0, "",
     "rl: coefficient of variation of the response length (lognormal; default 0.6, an assumption)", NULL},
    {"max_response_len", FT_NUM, W(max_response_len), 0, 1, 1e8, 0, NULL, 0, "tokens",
     "rl: truncation (default: the model's context minus the prompt)", NULL},
    {"oversample", FT_NUM, W(oversample), 0, 0, 10, 0, NULL, 0, "", "rl: submit N(1+f), keep the first N", NULL},
    {"partial_rollouts", FT_NUM, W(partial_rollouts), 0, 1, 1e8, 0, NULL, 0, "tokens",
     "rl: partial rollouts, at most this many tokens per sample per step, the rest carried over", NULL},
    {"gen_weights", FT_ENUM, W(gen_weights), 0, 0, 0, GPUECON_BF16, NULL, 0, "", "rl: generator weight precision",
     names_precision},
    {"sync_fp8", FT_BOOL, W(sync_fp8), 0, 0, 1, 0, NULL, 0, "", "rl: push the weights in FP8", NULL},
    {"placement", FT_ENUM, W(placement), 0, 0, 0, 0, NULL, 0, "", "rl: colocated or disaggregated (platform default)",
     placement_names},
    {"off_policy", FT_INT, W(off_policy), 0, 0, 1, 0, NULL, 0, "", "rl: 1 = one-step off-policy (disaggregated)", NULL},
    {"steps", FT_INT, W(steps), 0, 1, 1e6, 1000, NULL, 0, "", "rl: steps of the run, for totals", NULL},
};
static const char *const workload_extra[] = {"start_date", "model_file", "lengths", NULL};
static const char *const platform_extra[] = {"throughput_timeline", NULL};
#undef W

#define P(f) offsetof(gpuecon_platform, f)
static const fdesc platform_fields[] = {
    [PF_NAME] = {"name", FT_TEXT, P(name), 0, 0, 0, 0, NULL, 0, "", "label (default: the system)", NULL},
    [PF_SYSTEM] = {"system", FT_TEXT, P(system), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "catalog system", NULL},
    [PF_GPUS] = {"gpus", FT_INT, P(gpus), 0, 1, 1e7, 0, NULL, 0, "", "active GPUs (train) / GPUs deployed (serve)", NULL},
    [PF_PROFILE] = {"profile", FT_TEXT, P(profile), 0, 0, 0, 0, "hyperscaler", F_NAME, "", "TCO profile", NULL},
    [PF_TIER] = {"tier", FT_TEXT, P(tier), 0, 0, 0, 0, "typical", 0, "", "operator tier", names_tier},
    [PF_PUE] = {"pue", FT_NUM, P(pue), 0, 1, 3, 0, NULL, 0, "", "facility PUE", NULL},
    [PF_ELECTRICITY_USD_PER_KWH] = {"electricity_usd_per_kwh", FT_NUM, P(electricity_usd_per_kwh), 0, 0.001, 10, 0, NULL, 0,
     "USD/kWh", "electricity price", NULL},
    [PF_TCO_USD_PER_GPU_HOUR] = {"tco_usd_per_gpu_hour", FT_NUM, P(tco_usd_per_gpu_hour), 0, 0.01, 1000, 0, NULL, 0, "USD/GPU-h",
     "TCO per GPU-hour (replaces the profile's)", NULL},
    [PF_USD_PER_GPU_HOUR] = {"usd_per_gpu_hour", FT_NUM, P(usd_per_gpu_hour), 0, 0.001, 1000, 0, NULL, 0, "USD/GPU-h",
     "your price per GPU-hour, rental or negotiated (replaces the profile's TCO)", NULL},
    [PF_MEASURED_TOKENS_PER_S] = {"measured_tokens_per_s", FT_NUM, P(measured_tokens_per_s), 0, 1e-3, 1e9, 0, NULL, 0,
     "tokens/s/GPU", "measured throughput per GPU (replaces the prediction)", NULL},
    [PF_MTBI_GPU_DAYS] = {"mtbi_gpu_days", FT_NUM, P(mtbi_gpu_days), 0, 1, 1e7, 0, NULL, 0, "GPU-days",
     "mean time between interruptions per GPU (replaces the tier's)", NULL},
    [PF_SPARES_PER_DOMAIN] = {"spares_per_domain", FT_INT, P(spares_per_domain), 0, -1, 1000, -1, NULL, 0, "",
     "hot spares in each scale-up domain (-1: system default)", NULL},
    [PF_SPARE_DOMAINS] = {"spare_domains", FT_INT, P(spare_domains), 0, 0, 1e5, 0, NULL, 0, "",
     "spare nodes or racks in the pool", NULL},
    [PF_SPARES_DO_OTHER_WORK] = {"spares_do_other_work", FT_BOOL, P(spares_do_other_work), 0, 0, 1, 0, NULL, 0, "",
     "spare GPUs earn elsewhere (their cost is not charged to the job)", NULL},
    [PF_TP] = {"tp", FT_INT, P(tp), 0, 0, 4096, 0, NULL, 0, "", "tensor parallel size (0: chosen)", NULL},
    [PF_PP] = {"pp", FT_INT, P(pp), 0, 0, 4096, 0, NULL, 0, "", "pipeline parallel size (0: chosen)", NULL},
    [PF_CP] = {"cp", FT_INT, P(cp), 0, 0, 4096, 0, NULL, 0, "", "context parallel size (0: chosen)", NULL},
    [PF_EP] = {"ep", FT_INT, P(ep), 0, 0, 65536, 0, NULL, 0, "", "expert parallel size (0: chosen)", NULL},
    [PF_PRECISION] = {"precision", FT_ENUM, P(precision), 0, 0, 0, GPUECON_BF16, NULL, 0, "",
     "precision on this platform (default: the workload's)", names_precision},
    [PF_KV] = {"kv", FT_ENUM, P(kv), 0, 0, 0, GPUECON_BF16, NULL, 0, "", "serving KV precision (default: workload's)",
     names_precision},
    [PF_RENT_USD_PER_GPU_HOUR] = {"rent_usd_per_gpu_hour", FT_NUM, P(rent_usd_per_gpu_hour), 0, 0.001, 1000, 0, NULL, 0, "USD/GPU-h",
     "renting the same GPUs per hour used: owning vs renting over the cluster's life", NULL},
    [PF_LIFE_YEARS] = {"life_years", FT_NUM, P(life_years), 0, 0.1, 30, 0, NULL, 0, "years",
     "the owned cluster's life (default: the profile's)", NULL},
    [PF_UTILISATION] = {"utilisation", FT_NUM, P(utilisation), 0, 0.001, 1, 0, NULL, 0, "", "share of the hours it trains", NULL},
    [PF_WORKLOADS_PER_YEAR] = {"workloads_per_year", FT_NUM, P(workloads_per_year), 0, 0.001, 1e4, 0, NULL, 0, "",
     "runs of this workload a year (sets the utilisation)", NULL},
    [PF_PUBLISHED_TOKENS_PER_S] = {"published_tokens_per_s", FT_NUM, P(published_tokens_per_s), 0, 1e-3, 1e9, 0, NULL, 0, "tokens/s/GPU",
     "a published throughput shown beside the prediction (not used)", NULL},
    [PF_STACK] = {"stack", FT_TEXT, P(stack), 0, 0, 0, 0, NULL, F_NAME, "", "framework stack here (default: the workload's)", NULL},
    [PF_PREFILL_INSTANCES] = {"prefill_instances", FT_INT, P(prefill_instances), 0, 1, 1e6, 0, NULL, 0, "",
     "serving disaggregated: prefill instances (with prefill_tp, decode_instances, decode_tp)", NULL},
    [PF_PREFILL_TP] = {"prefill_tp", FT_INT, P(prefill_tp), 0, 1, 1024, 0, NULL, 0, "", "serving disaggregated: TP of a prefill instance", NULL},
    [PF_DECODE_INSTANCES] = {"decode_instances", FT_INT, P(decode_instances), 0, 1, 1e6, 0, NULL, 0, "", "serving disaggregated: decode instances", NULL},
    [PF_DECODE_TP] = {"decode_tp", FT_INT, P(decode_tp), 0, 1, 1024, 0, NULL, 0, "", "serving disaggregated: TP of a decode instance", NULL},
    [PF_PLACEMENT] = {"placement", FT_ENUM, P(placement), 0, 0, 0, 0, NULL, 0, "", "rl: colocated or disaggregated (default: the workload's)",
     placement_names},
    [PF_OFF_POLICY] = {"off_policy", FT_INT, P(off_policy), 0, 0, 1, 0, NULL, 0, "", "rl: 1 = one-step off-policy (default: the workload's)", NULL},
    [PF_GEN_GPUS] = {"gen_gpus", FT_INT, P(gen_gpus), 0, 1, 1e7, 0, NULL, 0, "", "rl disaggregated: generator GPUs (0: searched)", NULL},
    [PF_MAX_NUM_SEQS] = {"max_num_seqs", FT_INT, P(max_num_seqs), 0, 1, 1e6, 0, NULL, 0, "",
     "serving: the engine's max_num_seqs (default: vLLM's)", NULL},
    [PF_MAX_NUM_BATCHED_TOKENS] = {"max_num_batched_tokens", FT_INT, P(max_num_batched_tokens), 0, 16, 1e7, 0, NULL, 0, "",
     "serving: the engine's token budget per step (default: vLLM's)", NULL},
    [PF_LONG_PREFILL_TOKEN_THRESHOLD] = {"long_prefill_token_threshold", FT_INT, P(long_prefill_token_threshold), 0, 0, 1e7, 0,
     NULL, 0, "", "serving: a prompt's tokens per step at most (vLLM's; 0: none)", NULL},
    [PF_POWER_LIMIT_W] = {"power_limit_w", FT_NUM, P(power_limit_w), 0, 0, 5000, 0, NULL, 0, "W",
     "GPU power limit, within the GPU's min_power_w..tdp_w (0: the system's); lowers the sustained clock", NULL},
};
#undef P
_Static_assert(sizeof platform_fields / sizeof platform_fields[0] == PF_COUNT,
               "platform_fields has one row per platform_field (io/io.h)");

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int check_keys(const yaml_doc *doc, ynode *map, const char *const *allowed, gpuecon_error *err);
static int workload_model_file(gpuecon_scenario *sc, const yaml_doc *doc, ynode *w, size_t idx, gpuecon_error *err);
static int workload_lengths(gpuecon_scenario *sc, const yaml_doc *doc, ynode *w, size_t idx, gpuecon_error *err);

static int name_error(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name,
                      const yaml_doc *doc, ynode *node, const char *field, gpuecon_error *err)
{
    gpuecon_error tmp;
    if (gpuecon_catalog_find(cat, kind, name, field, NULL, &tmp) == GPUECON_OK)
        return GPUECON_OK;
    return yaml_error(doc, schema_node(node, field), err, GPUECON_E_INPUT, "%s: %s", field, tmp.message);
}

static bool present(const sobj *o, const fdesc *fields, size_t n, const char *name)
{
    int j = schema_field_index(fields, n, name);
    return j >= 0 && (o->present >> j) & 1u;
}

static int check_rl_workload(const gpuecon_catalog *cat, gpuecon_workload *w, const sobj *o, const yaml_doc *doc,
                             ynode *node, gpuecon_error *err)
{
    static const char *const need[] = {"prompts", "samples", "response_len"};
    for (size_t i = 0; i < COUNT(need); i++)
        if (!present(o, workload_fields, COUNT(workload_fields), need[i]))
            return yaml_error(doc, node, err, GPUECON_E_PARSE, "an rl workload needs '%s:'", need[i]);
    static const char *const not_rl[] = {"tokens", "seq", "gbs", "batch_tokens", "target_days", "output_len",
                                         "concurrency", "serve_tokens", "budget_usd"};
    for (size_t i = 0; i < COUNT(not_rl); i++)
        if (present(o, workload_fields, COUNT(workload_fields), not_rl[i]))
            return yaml_error(doc, schema_node(node, not_rl[i]), err, GPUECON_E_INPUT,
                              "%s is not for an rl workload (it has prompts, samples, prompt_len, response_len, "
                              "steps)", not_rl[i]);
    const gpuecon_model *m = gpuecon_catalog_model(cat, w->model);
    if (m->max_seq > 0 && w->prompt_len + w->response_len > m->max_seq)
        return yaml_error(doc, schema_node(node, "response_len"), err, GPUECON_E_INPUT,
                          "prompt_len + response_len (%d) exceeds %s's context of %d tokens",
                          w->prompt_len + w->response_len, m->name, m->max_seq);
    if (w->max_response_len > 0 && w->max_response_len < w->response_len)
        return yaml_error(doc, schema_node(node, "max_response_len"), err, GPUECON_E_INPUT,
                          "max_response_len (%s) is below the mean response_len (%d)", NUM_VAL(w->max_response_len),
                          w->response_len);
    if (w->off_policy && w->placement == GPUECON_RL_COLOCATED)
        return yaml_error(doc, schema_node(node, "off_policy"), err, GPUECON_E_INPUT,
                          "an off-policy lag needs placement: disaggregated");
    if (w->partial_rollouts > 0 && w->oversample > 0)
        return yaml_error(doc, schema_node(node, "partial_rollouts"), err, GPUECON_E_INPUT,
                          "partial_rollouts and oversample are alternatives: with partial rollouts no sample is "
                          "dropped");
    return GPUECON_OK;
}

/* A serving rate and its percentile (docs/model.md §7.1, serving sizing): a rate above 0 on a
 * serve workload, without a fixed concurrency; a percentile strictly between 0 and 100, only with
 * a rate (without one nothing is checked at a percentile). */
static int check_serve_rate(const gpuecon_workload *w, const sobj *o, const yaml_doc *doc, ynode *node,
                            gpuecon_error *err)
{
    bool rate = present(o, workload_fields, COUNT(workload_fields), "rate");
    bool pct = present(o, workload_fields, COUNT(workload_fields), "slo_percentile");
    if ((rate || pct) && w->kind != GPUECON_WORKLOAD_SERVE)
        return yaml_error(doc, schema_node(node, rate ? "rate" : "slo_percentile"), err, GPUECON_E_INPUT,
                          "%s is for a serving workload (kind: serve)", rate ? "rate" : "slo_percentile");
    if (rate && !(w->rate > 0 && w->rate <= 1e9))
        return yaml_error(doc, schema_node(node, "rate"), err, GPUECON_E_INPUT,
                          "rate: %s requests/s; allowed above 0 up to 1e9", NUM_VAL(w->rate));
    if (pct && !rate)
        return yaml_error(doc, schema_node(node, "slo_percentile"), err, GPUECON_E_INPUT,
                          "slo_percentile needs a rate: the targets are checked at a percentile only when each "
                          "platform is sized to serve a rate");
    if (pct && !(w->slo_percentile > 0 && w->slo_percentile < 100))
        return yaml_error(doc, schema_node(node, "slo_percentile"), err, GPUECON_E_INPUT,
                          "slo_percentile: %s is outside (0, 100): a percentile of the requests",
                          NUM_VAL(w->slo_percentile));
    if (rate && present(o, workload_fields, COUNT(workload_fields), "concurrency"))
        return yaml_error(doc, schema_node(node, "concurrency"), err, GPUECON_E_INPUT,
                          "give a rate or a concurrency, not both: at a rate the load in flight follows from it");
    return GPUECON_OK;
}

static int check_workload(const gpuecon_catalog *cat, gpuecon_workload *w, const sobj *o,
                          const yaml_doc *doc, ynode *node, gpuecon_error *err)
{
    int rc = name_error(cat, GPUECON_KIND_MODEL, w->model, doc, node, "model", err);
    if (!rc && w->stack)
        rc = name_error(cat, GPUECON_KIND_STACK, w->stack, doc, node, "stack", err);
    if (rc)
        return rc;
    if (w->kind == GPUECON_WORKLOAD_TRAIN) {
        if (w->tokens <= 0)
            return yaml_error(doc, node, err, GPUECON_E_PARSE,
                              "a training workload needs 'tokens:' (the token budget)");
        if (w->seq <= 0)
            return yaml_error(doc, node, err, GPUECON_E_PARSE,
                              "a training workload needs 'seq:' (the sequence length)");
        if (w->gbs > 0 && w->batch_tokens > 0)
            return yaml_error(doc, schema_node(node, "batch_tokens"), err, GPUECON_E_INPUT,
                              "give gbs (sequences) or batch_tokens, not both");
        if (w->batch_tokens > 0) {
            double g = w->batch_tokens / w->seq;
            if (g < 1 || g != (double)(int)g)
                return yaml_error(doc, schema_node(node, "batch_tokens"), err, GPUECON_E_INPUT,
                                  "batch_tokens (%s) must be a whole multiple of seq (%d)", NUM_VAL(w->batch_tokens),
                                  w->seq);
            w->gbs = (int)g;
        }
        if (w->gbs <= 0)
            return yaml_error(doc, node, err, GPUECON_E_PARSE,
                              "a training workload needs 'gbs:' or 'batch_tokens:'");
        const gpuecon_model *m = gpuecon_catalog_model(cat, w->model);
        if (m->max_seq > 0 && w->seq > m->max_seq)
            return yaml_error(doc, schema_node(node, "seq"), err, GPUECON_E_INPUT,
                              "seq (%d) exceeds %s's context of %d tokens", w->seq, m->name, m->max_seq);
    } else if (w->kind == GPUECON_WORKLOAD_RL) {
        return (rc = check_serve_rate(w, o, doc, node, err)) ? rc : check_rl_workload(cat, w, o, doc, node, err);
    } else {
        const gpuecon_model *m = gpuecon_catalog_model(cat, w->model);
        if (m->max_seq > 0 && w->prompt_len + w->output_len > m->max_seq)
            return yaml_error(doc, schema_node(node, "prompt_len"), err, GPUECON_E_INPUT,
                              "prompt_len + output_len (%d) exceeds %s's context of %d tokens",
                              w->prompt_len + w->output_len, m->name, m->max_seq);
        if (present(o, workload_fields, COUNT(workload_fields), "tokens"))
            return yaml_error(doc, schema_node(node, "tokens"), err, GPUECON_E_INPUT,
                              "tokens is for training; a serving workload uses serve_tokens");
    }
    return check_serve_rate(w, o, doc, node, err);
}

static int check_platform(const gpuecon_catalog *cat, const gpuecon_workload *w, gpuecon_platform *p,
                          const sobj *o, const yaml_doc *doc, ynode *node, gpuecon_error *err)
{
    int rc;
    if ((rc = name_error(cat, GPUECON_KIND_SYSTEM, p->system, doc, node, "system", err)) ||
        (rc = name_error(cat, GPUECON_KIND_PROFILE, p->profile, doc, node, "profile", err)) ||
        (p->stack && (rc = name_error(cat, GPUECON_KIND_STACK, p->stack, doc, node, "stack", err))))
        return rc;
    if (p->power_limit_w > 0) {
        gpuecon_error tmp;
        const gpuecon_system *s = gpuecon_catalog_system(cat, p->system);
        if (gpuecon_power_limit_check(s->gpu, p->power_limit_w, "power_limit_w", &tmp))
            return yaml_error(doc, schema_node(node, "power_limit_w"), err, GPUECON_E_INPUT, "power_limit_w: %s",
                              tmp.message);
    }
    if (!p->name)
        p->name = p->system;
    if (!p->gpus && !(w->kind == GPUECON_WORKLOAD_TRAIN && (w->target_days > 0 || w->budget_usd > 0)) &&
        !(w->kind == GPUECON_WORKLOAD_SERVE && w->rate > 0))
        return yaml_error(doc, node, err, GPUECON_E_PARSE,
                          "platform '%s' needs 'gpus:' (or the workload a target_days or budget_usd, or for "
                          "serving a rate)", p->name);
    if (!((o->present >> PF_KV) & 1u))
        p->kv = w->kv;
    if (!((o->present >> PF_PRECISION) & 1u))
        p->precision = w->precision;
    if (!((o->present >> PF_PLACEMENT) & 1u))
        p->placement = w->placement;
    if (!((o->present >> PF_OFF_POLICY) & 1u))
        p->off_policy = w->off_policy;
    if (w->kind == GPUECON_WORKLOAD_RL) {
        static const char *const not_rl[] = {"tp", "pp", "cp", "ep", "measured_tokens_per_s", "kv"};
        for (size_t i = 0; i < COUNT(not_rl); i++)
            if (present(o, platform_fields, COUNT(platform_fields), not_rl[i]))
                return yaml_error(doc, schema_node(node, not_rl[i]), err, GPUECON_E_INPUT,
                                  "%s is not for an rl platform (the layouts are searched)", not_rl[i]);
        if (p->off_policy && p->placement == GPUECON_RL_COLOCATED)
            return yaml_error(doc, schema_node(node, "off_policy"), err, GPUECON_E_INPUT,
                              "an off-policy lag needs placement: disaggregated");
        if (p->gen_gpus && (p->placement != GPUECON_RL_DISAGGREGATED || p->gen_gpus >= p->gpus))
            return yaml_error(doc, schema_node(node, "gen_gpus"), err, GPUECON_E_INPUT,
                              "gen_gpus needs placement: disaggregated and fewer than the platform's %d gpus",
                              p->gpus);
    } else if (((o->present >> PF_GEN_GPUS) & 1u) ||
               (((o->present >> PF_PLACEMENT) & 1u) && !(w->kind == GPUECON_WORKLOAD_SERVE && w->rate > 0))) {
        return yaml_error(doc, node, err, GPUECON_E_INPUT,
                          "placement and gen_gpus are for rl workloads (and placement for a serve workload with a "
                          "rate: disaggregated sizes prefill and decode pools)");
    } else if (w->kind == GPUECON_WORKLOAD_SERVE && !((o->present >> PF_PLACEMENT) & 1u)) {
        p->placement = GPUECON_RL_COLOCATED; /* aggregated unless the platform asks (the workload's is rl's) */
    }
    const gpuecon_gpu *g = gpuecon_catalog_system(cat, p->system)->gpu;
    if (gpuecon_gpu_peak_flops(g, p->precision) <= 0 && w->kind != GPUECON_WORKLOAD_SERVE)
        return yaml_error(doc, schema_node(node, ((o->present >> PF_PRECISION) & 1u)
                                                     ? "precision" : "system"),
                          err, GPUECON_E_INPUT, "%s has no %s tensor cores; give this platform precision: bf16",
                          g->name, gpuecon_precision_name(p->precision));
    const gpuecon_model *m = gpuecon_catalog_model(cat, w->model);
    if (p->tp && m->heads % p->tp && w->kind == GPUECON_WORKLOAD_TRAIN)
        return yaml_error(doc, schema_node(node, "tp"), err, GPUECON_E_INPUT,
                          "tp (%d) must divide the model's %d attention heads", p->tp, m->heads);
    int fixed = (p->tp ? p->tp : 1) * (p->pp ? p->pp : 1) * (p->cp ? p->cp : 1);
    if (p->gpus && p->gpus % fixed)
        return yaml_error(doc, schema_node(node, "gpus"), err, GPUECON_E_INPUT,
                          "gpus (%d) is not a multiple of tp x pp x cp (%d): the layout cannot use "
                          "them all", p->gpus, fixed);
    if (p->ep && (m->experts == 0 || m->experts % p->ep))
        return yaml_error(doc, schema_node(node, "ep"), err, GPUECON_E_INPUT,
                          "ep (%d) must divide the model's %d experts", p->ep, m->experts);
    if (w->kind == GPUECON_WORKLOAD_TRAIN && p->gpus && p->tp && p->pp && p->cp) {
        int dp = p->gpus / fixed;
        if (w->gbs % dp)
            return yaml_error(doc, schema_node(node, "gpus"), err, GPUECON_E_INPUT,
                              "the global batch (%d sequences) does not divide over %d data-parallel "
                              "replicas (gpus %d / tp x pp x cp %d)", w->gbs, dp, p->gpus, fixed);
    }
    if (p->pp && p->pp > m->layers)
        return yaml_error(doc, schema_node(node, "pp"), err, GPUECON_E_INPUT,
                          "pp (%d) exceeds the model's %d layers", p->pp, m->layers);
    if (w->kind == GPUECON_WORKLOAD_SERVE && p->pp > GPUECON_INFER_MAX_PP)
        return yaml_error(doc, schema_node(node, "pp"), err, GPUECON_E_INPUT,
                          "pp (%d) of a serving platform is at most %d pipeline stages", p->pp,
                          GPUECON_INFER_MAX_PP);
    static const char *const dis[] = {"prefill_instances", "prefill_tp", "decode_instances", "decode_tp"};
    int given = 0;
    for (int i = 0; i < 4; i++)
        given += present(o, platform_fields, COUNT(platform_fields), dis[i]);
    if (given && (given < 4 || w->kind != GPUECON_WORKLOAD_SERVE)) {
        int i = 0;
        while (i < 3 && present(o, platform_fields, COUNT(platform_fields), dis[i]))
            i++;
        return yaml_error(doc, w->kind != GPUECON_WORKLOAD_SERVE ? schema_node(node, "prefill_instances") : node, err,
                          GPUECON_E_INPUT, w->kind != GPUECON_WORKLOAD_SERVE
                              ? "a disaggregated layout (%s) is for serving workloads"
                              : "a disaggregated platform needs all of prefill_instances, prefill_tp, "
                                "decode_instances and decode_tp (missing %s)", dis[i]);
    }
    if (given) {
        double used = (double)p->prefill_instances * p->prefill_tp + (double)p->decode_instances * p->decode_tp;
        if (used > p->gpus)
            return yaml_error(doc, schema_node(node, "prefill_instances"), err, GPUECON_E_INPUT,
                              "%d prefill x TP %d + %d decode x TP %d need %.0f GPUs, more than the platform's %d",
                              p->prefill_instances, p->prefill_tp, p->decode_instances, p->decode_tp, used, p->gpus);
    }
    static const char *const engine[] = {"max_num_seqs", "max_num_batched_tokens", "long_prefill_token_threshold"};
    for (int i = 0; i < 3 && w->kind != GPUECON_WORKLOAD_SERVE; i++)
        if (present(o, platform_fields, COUNT(platform_fields), engine[i]))
            return yaml_error(doc, schema_node(node, engine[i]), err, GPUECON_E_INPUT,
                              "%s is a serving engine limit; this workload is not kind: serve", engine[i]);
    if (w->kind == GPUECON_WORKLOAD_SERVE && p->gpus && p->tp && p->gpus % p->tp)
        return yaml_error(doc, schema_node(node, "tp"), err, GPUECON_E_INPUT,
                          "gpus (%d) is not a multiple of tp (%d)", p->gpus, p->tp);
    return GPUECON_OK;
}

/* A serving platform at the workload's rate (docs/model.md §7.1, serving sizing): its layout,
 * engine limits and precisions are searched, so a fixed layout or a measurement has no place;
 * a precision the platform or the workload gives is kept as a constraint (p->precision_given,
 * p->kv_given). Without gpus the platform is sized; with gpus it is searched at that count. */
static int check_sized_platform(const gpuecon_workload *w, const sobj *wo, gpuecon_platform *p, const sobj *o,
                                const yaml_doc *doc, ynode *node, gpuecon_error *err)
{
    p->precision_given = ((o->present >> PF_PRECISION) & 1u) || present(wo, workload_fields, COUNT(workload_fields),
                                                                      "precision");
    p->kv_given = ((o->present >> PF_KV) & 1u) || present(wo, workload_fields, COUNT(workload_fields), "kv");
    if (w->kind != GPUECON_WORKLOAD_SERVE || !(w->rate > 0))
        return GPUECON_OK;
    static const char *const fixed[] = {"tp", "pp", "max_num_seqs", "max_num_batched_tokens",
                                        "long_prefill_token_threshold", "prefill_instances", "prefill_tp",
                                        "decode_instances", "decode_tp", "measured_tokens_per_s"};
    for (size_t i = 0; i < COUNT(fixed); i++)
        if (present(o, platform_fields, COUNT(platform_fields), fixed[i]))
            return yaml_error(doc, schema_node(node, fixed[i]), err, GPUECON_E_INPUT,
                              "%s is not for a platform sized at the workload's rate: its layout, engine limits and "
                              "precisions are searched (precision and kv may constrain them); drop it, or drop the "
                              "workload's rate to price this platform as given", fixed[i]);
    return GPUECON_OK;
}

/* ---- dates and throughput timelines -------------------------------------------------------- */

static int parse_date(const yaml_doc *doc, ynode *v, const char *field, char *text, long *day, gpuecon_error *err)
{
    return schema_date(doc, v, field, text, day, err);
}

/* A catalog timeline's points, copied into the scenario (which may outlive a replaced entry). */
static int copy_timeline(gpuecon_scenario *sc, const gpuecon_timeline *t, const yaml_doc *doc, ynode *at,
                         gpuecon_platform *p, gpuecon_error *err)
{
    gpuecon_timeline_point *pts = arena_alloc(&sc->a, t->n_points * sizeof *pts);
    if (!pts)
        return yaml_error(doc, at, err, GPUECON_E_NOMEM, "out of memory");
    for (size_t i = 0; i < t->n_points; i++) {
        pts[i] = t->points[i];
        if (pts[i].source.text && !(pts[i].source.text = arena_strdup(&sc->a, pts[i].source.text)))
            return yaml_error(doc, at, err, GPUECON_E_NOMEM, "out of memory");
    }
    p->timeline = pts;
    p->n_timeline = t->n_points;
    return GPUECON_OK;
}

/* throughput_timeline: a list of dated points, or the name of a catalog timeline of the
 * platform's system, the workload's model and the platform's precision (data/timelines.yaml).
 * Without one, a training run with a start_date picks up the catalog's timeline of that
 * system x model x precision when one is in force on the start date (and the platform has no
 * measured throughput). */
static int load_timeline(gpuecon_scenario *sc, const gpuecon_catalog *cat, const yaml_doc *doc, ynode *pn,
                         gpuecon_source defsrc, const gpuecon_workload *wl, gpuecon_platform *p, gpuecon_error *err)
{
    ynode *tl = yaml_map_get(pn, "throughput_timeline");
    if (!tl) {
        const gpuecon_timeline *t = wl->kind == GPUECON_WORKLOAD_TRAIN && wl->has_start_date &&
                                            !(p->measured_tokens_per_s > 0)
                                        ? gpuecon_catalog_timeline_for(cat, p->system, wl->model, p->precision)
                                        : NULL;
        return t && t->points[0].day <= wl->start_day ? copy_timeline(sc, t, doc, pn, p, err) : GPUECON_OK;
    }
    if (yaml_type(tl) == Y_SCALAR) {
        char name[128] = "";
        gpuecon_error tmp;
        if (!yaml_scalar_copy(tl, name, sizeof name) || !name[0] ||
            gpuecon_catalog_find(cat, GPUECON_KIND_TIMELINE, name, "throughput_timeline", NULL, &tmp))
            return yaml_error(doc, tl, err, GPUECON_E_INPUT, "throughput_timeline: %s",
                              name[0] ? tmp.message : "a list of dated points or a catalog timeline's name");
        const gpuecon_timeline *t = gpuecon_catalog_timeline(cat, name);
        if (strcmp(t->system, p->system) || strcmp(t->model, wl->model) || t->precision != p->precision)
            return yaml_error(doc, tl, err, GPUECON_E_INPUT,
                              "throughput_timeline: '%s' is %s on %s in %s, this platform is %s on %s in %s", name,
                              t->model, t->system, gpuecon_precision_name(t->precision), wl->model, p->system,
                              gpuecon_precision_name(p->precision));
        return copy_timeline(sc, t, doc, tl, p, err);
    }
    gpuecon_timeline_point *pts;
    size_t n;
    int rc = schema_timeline_points(&sc->a, doc, tl, "throughput_timeline", defsrc, &pts, &n, err);
    if (rc)
        return rc;
    p->timeline = pts;
    p->n_timeline = n;
    return GPUECON_OK;
}

static int check_keys(const yaml_doc *doc, ynode *map, const char *const *allowed, gpuecon_error *err)
{
    size_t n = 0;
    while (allowed[n])
        n++;
    for (size_t i = 0; i < yaml_map_len(map); i++) {
        char key[64];
        ynode *k = yaml_map_key(map, i);
        if (!yaml_scalar_copy(k, key, sizeof key))
            return yaml_error(doc, k, err, GPUECON_E_PARSE, "keys must be short names");
        size_t j = 0;
        while (j < n && strcmp(allowed[j], key))
            j++;
        if (j == n) {
            const char *near = gpuecon_suggest(key, allowed, n);
            return near ? yaml_error(doc, k, err, GPUECON_E_PARSE, "unknown field '%s'; did you mean '%s'?",
                                     key, near)
                        : yaml_error(doc, k, err, GPUECON_E_PARSE,
                                     "unknown field '%s' (see docs/scenarios.md)", key);
        }
    }
    return GPUECON_OK;
}

static int text_field(gpuecon_scenario *sc, const yaml_doc *doc, ynode *map, const char *key,
                      const char **out, gpuecon_error *err)
{
    ynode *v = yaml_map_get(map, key);
    *out = NULL;
    if (!v)
        return GPUECON_OK;
    size_t len;
    const char *s = yaml_scalar(v, &len);
    if (!s)
        return yaml_error(doc, v, err, GPUECON_E_PARSE, "%s: expected text (at most 512 bytes)", key);
    int rc = yaml_text_check(doc, v, key, s, len, 512, false, err);
    if (rc)
        return rc;
    *out = arena_strndup(&sc->a, s, len);
    return *out ? GPUECON_OK : yaml_error(doc, v, err, GPUECON_E_NOMEM, "out of memory");
}

static int load_comparison(gpuecon_scenario *sc, const gpuecon_catalog *cat, const yaml_doc *doc,
                           ynode *node, gpuecon_source defsrc, size_t idx, gpuecon_error *err)
{
    static const char *const keys[] = {"name", "title", "workload", "platforms", "source", "stage", NULL};
    gpuecon_comparison *c = &sc->cmp[idx];
    scomparison *meta = &sc->meta[idx];
    int rc;
    if (yaml_type(node) != Y_MAP)
        return yaml_error(doc, node, err, GPUECON_E_PARSE, "a comparison is a mapping with workload: and platforms:");
    if ((rc = check_keys(doc, node, keys, err)) || (rc = text_field(sc, doc, node, "name", &c->name, err)) ||
        (rc = text_field(sc, doc, node, "title", &c->title, err)))
        return rc;
    ynode *w = yaml_map_get(node, "workload"), *pl = yaml_map_get(node, "platforms");
    if (!w)
        return yaml_error(doc, node, err, GPUECON_E_PARSE, "missing 'workload:'");
    meta->workload.src = arena_alloc(&sc->a, COUNT(workload_fields) * sizeof(gpuecon_source));
    if (!meta->workload.src)
        return yaml_error(doc, node, err, GPUECON_E_NOMEM, "out of memory");
    if ((rc = schema_load_object(&sc->a, workload_fields, COUNT(workload_fields), &c->workload,
                                 meta->workload.src, &meta->workload.present, doc, w, defsrc, workload_extra,
                                 "docs/scenarios.md", err)) ||
        (rc = workload_model_file(sc, doc, w, idx, err)) ||
        (rc = workload_lengths(sc, doc, w, idx, err)) ||
        (rc = check_workload(cat, &c->workload, &meta->workload, doc, w, err)))
        return rc;
    ynode *sd = yaml_map_get(w, "start_date");
    if (sd && (rc = parse_date(doc, sd, "start_date", c->workload.start_date, &c->workload.start_day, err)))
        return rc;
    c->workload.has_start_date = sd != NULL;
    if (sd && c->workload.kind != GPUECON_WORKLOAD_TRAIN)
        return yaml_error(doc, sd, err, GPUECON_E_INPUT, "start_date is for training runs");
    c->workload.src = meta->workload.src;
    if (!pl || yaml_type(pl) != Y_SEQ || yaml_seq_len(pl) < 1)
        return yaml_error(doc, pl ? yaml_map_key_node(node, "platforms") : node, err, GPUECON_E_PARSE,
                          "'platforms:' must be a list of at least one platform");
    if (!c->name)
        c->name = c->workload.model;
    size_t n = yaml_seq_len(pl);
    if (n > 64)
        return yaml_error(doc, pl, err, GPUECON_E_INPUT, "at most 64 platforms per comparison");
    gpuecon_platform *ps = arena_alloc(&sc->a, n * sizeof *ps);
    meta->platforms = arena_alloc(&sc->a, n * sizeof *meta->platforms);
    if (!ps || !meta->platforms)
        return yaml_error(doc, pl, err, GPUECON_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ynode *pn = yaml_seq_at(pl, i);
        sobj *o = &meta->platforms[i];
        o->src = arena_alloc(&sc->a, COUNT(platform_fields) * sizeof(gpuecon_source));
        if (!o->src)
            return yaml_error(doc, pn, err, GPUECON_E_NOMEM, "out of memory");
        if ((rc = schema_load_object(&sc->a, platform_fields, COUNT(platform_fields), &ps[i], o->src,
                                     &o->present, doc, pn, defsrc, platform_extra, "docs/scenarios.md", err)) ||
            (rc = check_platform(cat, &c->workload, &ps[i], o, doc, pn, err)) ||
            (rc = check_sized_platform(&c->workload, &meta->workload, &ps[i], o, doc, pn, err)) ||
            (rc = load_timeline(sc, cat, doc, pn, defsrc, &c->workload, &ps[i], err)))
            return rc;
        const gpuecon_workload *wl = &c->workload;
        bool owns = ps[i].life_years > 0 || ps[i].utilisation > 0 || ps[i].workloads_per_year > 0;
        if ((owns || ps[i].rent_usd_per_gpu_hour > 0) && wl->kind != GPUECON_WORKLOAD_TRAIN)
            return yaml_error(doc, pn, err, GPUECON_E_INPUT, "owning vs renting is for training workloads");
        if (owns && !(ps[i].rent_usd_per_gpu_hour > 0))
            return yaml_error(doc, pn, err, GPUECON_E_INPUT,
                              "life_years, utilisation and workloads_per_year compare owning with renting: give "
                              "rent_usd_per_gpu_hour too");
        if (ps[i].utilisation > 0 && ps[i].workloads_per_year > 0)
            return yaml_error(doc, schema_node(pn, "workloads_per_year"), err, GPUECON_E_INPUT,
                              "give utilisation or workloads_per_year, not both");
        if (ps[i].n_timeline && wl->kind != GPUECON_WORKLOAD_TRAIN)
            return yaml_error(doc, yaml_map_get(pn, "throughput_timeline"), err, GPUECON_E_INPUT,
                              "throughput_timeline is for training workloads");
        if (ps[i].n_timeline && wl->has_start_date && wl->start_day < ps[i].timeline[0].day &&
            !(ps[i].measured_tokens_per_s > 0))
            return yaml_error(doc, yaml_map_get(pn, "throughput_timeline"), err, GPUECON_E_INPUT,
                              "start_date %s is before this timeline's first point (%s) and the platform has no "
                              "measured_tokens_per_s to use until then", wl->start_date, ps[i].timeline[0].date);
        ps[i].src = o->src;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ps[j].name, ps[i].name))
                return yaml_error(doc, schema_node(pn, "name"), err, GPUECON_E_INPUT,
                                  "two platforms are called '%s'; give each a distinct name:", ps[i].name);
    }
    c->platforms = ps;
    c->n_platforms = n;
    return GPUECON_OK;
}

static int load_doc(gpuecon_scenario *sc, const gpuecon_catalog *cat, const yaml_doc *doc, gpuecon_error *err)
{
    static const char *const keys[] = {"name", "title", "description", "comparisons", "workload",
                                       "platforms", "source", "stage", NULL};
    ynode *root = yaml_root(doc);
    if (yaml_type(root) != Y_MAP)
        return yaml_error(doc, root, err, GPUECON_E_PARSE,
                          "a scenario is a mapping with 'comparisons:' (or 'workload:' and 'platforms:')");
    int rc;
    if ((rc = check_keys(doc, root, keys, err)) || (rc = text_field(sc, doc, root, "name", &sc->name, err)) ||
        (rc = text_field(sc, doc, root, "title", &sc->title, err)))
        return rc;
    gpuecon_source defsrc = {arena_strdup(&sc->a, yaml_name(doc)), GPUECON_STAGE_ASSUMPTION};
    if (!defsrc.text) /* every field without a source: would cite nothing */
        return err_set(err, GPUECON_E_NOMEM, yaml_name(doc), 0, 0, "out of memory");
    ynode *list = yaml_map_get(root, "comparisons");
    bool single = yaml_map_get(root, "workload") || yaml_map_get(root, "platforms");
    if (list && single)
        return yaml_error(doc, list, err, GPUECON_E_PARSE,
                          "give either 'comparisons:' or one 'workload:' with 'platforms:', not both");
    if (list && (yaml_type(list) != Y_SEQ || yaml_seq_len(list) < 1 || yaml_seq_len(list) > 64))
        return yaml_error(doc, yaml_map_key_node(root, "comparisons"), err, GPUECON_E_PARSE,
                          "'comparisons:' must be a list of 1 to 64 comparisons");
    if (!list && !single)
        return yaml_error(doc, root, err, GPUECON_E_PARSE,
                          "missing 'comparisons:' (or 'workload:' and 'platforms:')");
    sc->n = list ? yaml_seq_len(list) : 1;
    sc->cmp = arena_alloc(&sc->a, sc->n * sizeof *sc->cmp);
    sc->meta = arena_alloc(&sc->a, sc->n * sizeof *sc->meta);
    if (!sc->cmp || !sc->meta)
        return yaml_error(doc, root, err, GPUECON_E_NOMEM, "out of memory");
    for (size_t i = 0; i < sc->n; i++) {
        if (list)
            rc = load_comparison(sc, cat, doc, yaml_seq_at(list, i), defsrc, i, err);
        else
            rc = load_comparison(sc, cat, doc, root, defsrc, i, err);
        if (rc)
            return rc;
    }
    if (!sc->name)
        sc->name = sc->cmp[0].name;
    return GPUECON_OK;
}

/* Loads text buf; file: the scenario file it was read from (NULL: text given as such), adds:
 * the catalog (cat itself) that model_file: may load into (NULL: none), left as it was on error. */
static int load_text(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_catalog *adds, const char *file,
                     const char *name, const char *buf, size_t len, gpuecon_scenario **out, gpuecon_error *err)
{
    *out = NULL;
    if (!ctx || !cat || !buf)
        return err_set(err, GPUECON_E_INPUT, name, 0, 0, "context, catalog and text are required");
    gpuecon_scenario *sc = ctx_alloc(ctx, sizeof *sc);
    if (!sc)
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    sc->ctx = ctx;
    sc->file = file;
    sc->adds = adds;
    arena_init(&sc->a, ctx);
    catalog_snapshot *snap = NULL;
    if (adds && catalog_snapshot_take(adds, &snap)) {
        gpuecon_scenario_free(sc);
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    }
    yaml_doc *doc;
    int rc = yaml_parse(ctx, name, buf, len, &doc, err);
    if (rc == GPUECON_OK) {
        rc = load_doc(sc, cat, doc, err);
        yaml_free(doc);
    }
    if (adds)
        catalog_snapshot_end(adds, snap, rc != GPUECON_OK);
    sc->file = NULL;
    sc->adds = NULL;
    if (rc) {
        gpuecon_scenario_free(sc);
        return rc;
    }
    *out = sc;
    return GPUECON_OK;
}

int gpuecon_scenario_load_buffer(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *name,
                                 const char *buf, size_t len, gpuecon_scenario **out, gpuecon_error *err)
{
    return load_text(ctx, cat, NULL, NULL, name, buf, len, out, err);
}

static int load_path(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_catalog *adds, const char *path,
                     gpuecon_scenario **out, gpuecon_error *err)
{
    *out = NULL;
    if (!ctx)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no context");
    if (!path) {
        static const char *def = "data/scenarios/default.yaml";
        size_t len;
        const char *buf = catalog_embedded(def, &len);
        if (!buf)
            return err_set(err, GPUECON_E_INTERNAL, def, 0, 0, "the default scenario is not built in");
        return gpuecon_scenario_load_buffer(ctx, cat, def, buf, len, out, err);
    }
    char *buf;
    size_t len;
    int rc = yaml_read_file(ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = load_text(ctx, cat, adds, path, path, buf, len, out, err);
    ctx_free(ctx, buf, len + 1);
    return rc;
}

int gpuecon_scenario_load(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *path,
                          gpuecon_scenario **out, gpuecon_error *err)
{
    return load_path(ctx, cat, NULL, path, out, err);
}

int gpuecon_scenario_load_with_models(gpuecon_ctx *ctx, gpuecon_catalog *cat, const char *path,
                                      gpuecon_scenario **out, gpuecon_error *err)
{
    return load_path(ctx, cat, cat, path, out, err);
}

/* A file a scenario names (s, len bytes): relative to the scenario file's folder unless absolute, in the
 * scenario's arena; NULL when out of memory. sc->file is set (a scenario given as text names no file). */
static char *relative_path(gpuecon_scenario *sc, const char *s, size_t len)
{
    const char *slash = strrchr(sc->file, '/');
    size_t dl = s[0] != '/' && slash ? (size_t)(slash - sc->file) + 1 : 0;
    char *path = arena_alloc(&sc->a, dl + len + 1);
    if (!path)
        return NULL;
    memcpy(path, sc->file, dl);
    memcpy(path + dl, s, len);
    path[dl + len] = 0;
    return path;
}

/* model_file: of workload idx at node w (docs/scenarios.md): a Hugging Face config.json or a
 * model file, relative to the scenario file's folder, loaded into sc->adds like --model-file; its
 * model is the workload's. Without it, model: is required. */
static int workload_model_file(gpuecon_scenario *sc, const yaml_doc *doc, ynode *w, size_t idx, gpuecon_error *err)
{
    gpuecon_workload *wl = &sc->cmp[idx].workload;
    ynode *v = yaml_map_get(w, "model_file");
    if (!v)
        return wl->model ? GPUECON_OK
                         : yaml_error(doc, w, err, GPUECON_E_PARSE,
                                      "missing required field 'model' (catalog model, or model_file: a Hugging "
                                      "Face config.json or a model file)");
    size_t len;
    const char *s = yaml_scalar(v, &len);
    if (!s || !len || len > 1024 || memchr(s, 0, len))
        return yaml_error(doc, v, err, GPUECON_E_PARSE, "model_file: expected a file path (at most 1024 bytes)");
    if (!sc->file)
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "model_file: a scenario given as text (inline, in a request, or to gpuecon serve) "
                          "cannot name files; use a catalog model with model:, or a scenario file");
    if (!sc->adds)
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "model_file: the catalog is read-only here (gpuecon_scenario_load_with_models loads "
                          "the model; or add it with --model-file and name it with model:)");
    char *path = relative_path(sc, s, len);
    if (!path)
        return yaml_error(doc, v, err, GPUECON_E_NOMEM, "out of memory");
    const gpuecon_model *m;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_catalog_load_model_file(sc->adds, path, &m, &e);
    if (rc == GPUECON_E_IO || (rc && !e.line))
        return yaml_error(doc, v, err, rc, "model_file: %s: %s", e.where, e.message);
    if (rc) { /* a position in the model file itself */
        if (err)
            *err = e;
        return rc;
    }
    if (wl->model && strcmp(wl->model, m->name))
        return yaml_error(doc, schema_node(w, "model"), err, GPUECON_E_INPUT,
                          "model '%s' is not the model of model_file ('%s'); give one of the two", wl->model,
                          m->name);
    for (size_t j = 0; j < idx; j++)
        if (!strcmp(sc->cmp[j].workload.model, m->name) &&
            !(sc->meta[j].model_path && !strcmp(sc->meta[j].model_path, path)))
            return yaml_error(doc, v, err, GPUECON_E_INPUT,
                              "model_file: %s gives the model '%s', which comparison %zu of this scenario takes "
                              "from %s; give the models distinct names", path, m->name, j + 1,
                              sc->meta[j].model_path ? sc->meta[j].model_path : "the catalog");
    wl->model = arena_strdup(&sc->a, m->name);
    sc->meta[idx].model_path = path;
    return wl->model ? GPUECON_OK : yaml_error(doc, v, err, GPUECON_E_NOMEM, "out of memory");
}

/* lengths: a histogram of request lengths (src/io/lengths.c, as `infer --lengths FILE` reads it),
 * the path relative to the scenario file's folder, for a serving workload: its weighted mean
 * prompt and output lengths become prompt_len and output_len (docs/scenarios.md; the serving
 * model and the search screen and confirm at the means). Only a scenario file may name one; not
 * with prompt_len or output_len. A bad line of the histogram is named path:line:col. */
static int workload_lengths(gpuecon_scenario *sc, const yaml_doc *doc, ynode *w, size_t idx, gpuecon_error *err)
{
    gpuecon_workload *wl = &sc->cmp[idx].workload;
    ynode *v = yaml_map_get(w, "lengths");
    if (!v)
        return GPUECON_OK;
    if (wl->kind != GPUECON_WORKLOAD_SERVE)
        return yaml_error(doc, v, err, GPUECON_E_INPUT, "lengths: a histogram of request lengths is for a serving "
                          "workload (kind: serve)");
    static const char *const means[] = {"prompt_len", "output_len"};
    for (int i = 0; i < 2; i++)
        if (yaml_map_get(w, means[i]))
            return yaml_error(doc, schema_node(w, means[i]), err, GPUECON_E_INPUT,
                              "give lengths (a histogram) or prompt_len and output_len, not both");
    size_t len;
    const char *s = yaml_scalar(v, &len);
    if (!s || !len || len > 1024 || memchr(s, 0, len))
        return yaml_error(doc, v, err, GPUECON_E_PARSE, "lengths: expected a file path (at most 1024 bytes)");
    if (!sc->file)
        return yaml_error(doc, v, err, GPUECON_E_INPUT,
                          "lengths: a scenario given as text (inline, in a request, or to gpuecon serve) cannot "
                          "name files; give prompt_len and output_len, or use a scenario file");
    char *path = relative_path(sc, s, len);
    if (!path)
        return yaml_error(doc, v, err, GPUECON_E_NOMEM, "out of memory");
    gpuecon_length_bin *bins = NULL;
    size_t n = 0;
    gpuecon_error e;
    gpuecon_error_clear(&e);
    int rc = gpuecon_length_bins_load(sc->ctx, path, &bins, &n, &e);
    if (rc == GPUECON_E_IO || (rc && !e.line))
        return yaml_error(doc, v, err, rc, "lengths: %s: %s", e.where, e.message);
    if (rc) { /* a position in the histogram itself */
        if (err)
            *err = e;
        return rc;
    }
    double wsum = 0, p = 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        wsum += bins[i].weight;
        p += bins[i].weight * bins[i].prompt;
        o += bins[i].weight * bins[i].output;
    }
    gpuecon_length_bins_free(sc->ctx, bins, n);
    if (!(wsum > 0))
        return yaml_error(doc, v, err, GPUECON_E_INPUT, "lengths: %s holds no request", path);
    wl->prompt_len = (int)fmax(1, floor(p / wsum + 0.5));
    wl->output_len = (int)fmax(1, floor(o / wsum + 0.5));
    return GPUECON_OK;
}

void gpuecon_scenario_free(gpuecon_scenario *sc)
{
    if (!sc)
        return;
    arena_free(&sc->a);
    ctx_free(sc->ctx, sc, sizeof *sc);
}

const char *gpuecon_scenario_name(const gpuecon_scenario *sc) { return sc ? sc->name : NULL; }
const char *gpuecon_scenario_title(const gpuecon_scenario *sc) { return sc ? sc->title : NULL; }
size_t gpuecon_scenario_count(const gpuecon_scenario *sc) { return sc ? sc->n : 0; }

const gpuecon_comparison *gpuecon_scenario_at(const gpuecon_scenario *sc, size_t i)
{
    return sc && i < sc->n ? &sc->cmp[i] : NULL;
}

int gpuecon_scenario_field(const gpuecon_scenario *sc, size_t comparison, int platform, const char *field,
                           gpuecon_field *out)
{
    if (!sc || comparison >= sc->n || !field || !out)
        return GPUECON_E_NOTFOUND;
    const gpuecon_comparison *c = &sc->cmp[comparison];
    const fdesc *fields = platform < 0 ? workload_fields : platform_fields;
    size_t nf = platform < 0 ? COUNT(workload_fields) : COUNT(platform_fields);
    if (platform >= (int)c->n_platforms)
        return GPUECON_E_NOTFOUND;
    const sobj *o = platform < 0 ? &sc->meta[comparison].workload : &sc->meta[comparison].platforms[platform];
    const void *obj = platform < 0 ? (const void *)&c->workload : (const void *)&c->platforms[platform];
    int j = schema_field_index(fields, nf, field);
    if (j < 0)
        return GPUECON_E_NOTFOUND;
    schema_field_get(fields, (size_t)j, obj, o->src, o->present, out);
    return GPUECON_OK;
}
