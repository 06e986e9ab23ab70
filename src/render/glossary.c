/*
 * glossary.c — the terms gpuecon's outputs use, one definition each with its unit and where it is
 * defined: the one source of `gpuecon help terms` (JSON, table, CSV) and of the README's glossary
 * (tests/unit/test_words.c checks that every row of the README's table is this table's row).
 */
#include "render/render.h"

/* term, definition, unit, where it is defined. No '|' in any: a row is a Markdown table row. */
static const glossary_term terms[] = {
    {"TCO", "total cost of ownership per GPU-hour: the capital (at the profile's cost of capital over the "
            "system's life), colocation, power at the facility's PUE and other operating costs, per available "
            "GPU-hour", "$/GPU-h", "docs/model.md §2.1"},
    {"$/Mtok", "dollars per million tokens at full goodput: TCO ÷ (tokens/s/GPU × 3,600) × 10^6; trained tokens "
               "for training and RL, output tokens for serving", "$ per 1M tokens", "docs/model.md §2.2"},
    {"eff $/Mtok", "effective $/Mtok, what compare ranks: $/Mtok with the work lost to failures (÷ ETTR) and the "
                   "spare GPUs charged to the job", "$ per 1M tokens", "docs/model.md §5.6, §7.1"},
    {"no-spare $/Mtok", "effective $/Mtok with the spare GPUs earning other work (not charged to the job)",
     "$ per 1M tokens", "docs/model.md §5.6"},
    {"J/tok", "energy per token at the utility meter: all-in IT power per GPU × PUE ÷ tokens/s/GPU", "J/token",
     "docs/model.md §2.2"},
    {"PUE", "power usage effectiveness: the facility's power ÷ its IT power (1.0: no cooling or conversion "
            "overhead)", "ratio, 1 to 3", "docs/model.md §2.2, §7.2"},
    {"MFU", "model FLOPs utilisation: the model's FLOPs per token × tokens/s/GPU ÷ the GPU's dense peak at the "
            "precision (recomputation not counted)", "% of peak", "docs/model.md §1.2, §1.3"},
    {"ETTR", "effective training time ratio: useful work ÷ wall-clock time of a long run that fails, restarts and "
             "checkpoints", "fraction, 0 to 1", "docs/model.md §5.4"},
    {"goodput", "the work that counts: in training tokens/s/GPU × GPUs × ETTR; in serving the requests/s that "
                "meet the latency targets", "tokens/s; requests/s", "docs/model.md §5.6, §6.11"},
    {"MTBI", "mean time between interruptions per active GPU: N GPUs running are interrupted N ÷ MTBI times a "
             "day", "GPU-days", "docs/model.md §5.1"},
    {"MTTI", "the job's mean time to interruption: the time between interruptions of the whole job, 1 ÷ "
             "(interruptions per day)", "h", "docs/model.md §5.2"},
    {"spares", "GPUs kept beside the active ones to replace failed ones at once (GB200 NVL72: 8 of each 72-GPU "
               "rack); provisioned GPUs are the active ones plus the spares", "GPUs", "docs/model.md §5.1"},
    {"operator tier", "best, typical or poor: how reliably a system is run (its MTBI and repair times, the "
                      "catalog's reliability entry)", "-", "docs/model.md §5.1, §7.9"},
    {"TTFT", "time to first token: from a request's arrival to its first output token (queueing and prefill)",
     "ms", "docs/model.md §6.6, §6.11"},
    {"TPOT", "time per output token after the first: (last token's time − first token's) ÷ (output tokens − 1)",
     "ms", "docs/model.md §6.6, §6.11"},
    {"ITL", "inter-token latency: each gap between two consecutive output tokens of a request", "ms",
     "docs/model.md §6.11"},
    {"E2E", "end-to-end latency: from a request's arrival to its last token", "ms", "docs/model.md §6.11"},
    {"HBM", "high-bandwidth memory: the GPU's on-package DRAM that holds weights, activations and the KV cache; "
            "its capacity bounds what fits and its bandwidth memory-bound kernels", "GiB; TB/s",
     "docs/model.md §3.2, §3.3"},
    {"KV cache", "the attention keys and values kept for every token of every running request; its room in HBM "
                 "bounds the requests in flight", "GiB", "docs/model.md §6.3"},
    {"TP", "tensor parallelism: each layer's weight matrices split over TP GPUs, which exchange partial results "
           "every layer", "GPUs", "docs/model.md §3.4"},
    {"PP", "pipeline parallelism: the layers split into PP stages on different GPUs, micro-batches passed from "
           "stage to stage", "stages", "docs/model.md §3.4"},
    {"VPP", "virtual pipeline (interleaved) stages per GPU: fewer idle bubbles for more stage-to-stage traffic",
     "stages per GPU", "docs/model.md §3.4"},
    {"CP", "context parallelism: one sequence's tokens split over CP GPUs, which exchange attention keys and "
           "values", "GPUs", "docs/model.md §3.4"},
    {"EP", "expert parallelism: an MoE layer's experts spread over EP GPUs, each token sent to its experts' GPUs "
           "by all-to-all", "GPUs", "docs/model.md §4.2"},
    {"DP", "data parallelism: replicas of the model on different micro-batches, their gradients reduced every "
           "step", "replicas", "docs/model.md §3.4"},
    {"ZeRO", "the zero-redundancy optimizer's stage: 1 shards the optimizer states over the data-parallel "
             "ranks, 2 also the gradients, 3 also the weights (FSDP)", "stage, 0 to 3", "docs/model.md §3.2"},
    {"MoE", "mixture of experts: each token runs through a few of many expert MLPs (DeepSeek-V3: 8 of 256), so "
            "far fewer parameters are active per token than the model holds", "-", "docs/model.md §4"},
    {"NVLink domain", "the GPUs one NVLink switch fabric joins (8 in an HGX server, 72 in a GB200 or GB300 NVL72 "
                      "rack); collectives inside it are far faster than over the scale-out network", "GPUs",
     "docs/model.md §3.1"},
    {"80% band", "where the published value of such a prediction falls 8 times in 10: from the held-out validate "
                 "rows of the nearest group, widened where the layout extrapolates", "the figure's unit",
     "docs/model.md §7.6"},
    {"break-even", "the value of one input, the others as they are, at which the cheapest platform and the "
                   "runner-up cost the same", "the input's unit", "docs/model.md §7.4"},
    {"stage", "how a number is known: datasheet, measured, publisher-reported, projection, assumption, derived "
              "or fitted", "-", "docs/catalog.md, Provenance"},
};

size_t glossary_count(void) { return sizeof terms / sizeof terms[0]; }

const glossary_term *glossary_at(size_t i) { return i < glossary_count() ? &terms[i] : NULL; }

static json_t *terms_json(const void *view)
{
    (void)view;
    json_t *a = json_array();
    for (size_t i = 0; i < glossary_count(); i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "term", terms[i].term, "definition",
                                           terms[i].definition, "unit", terms[i].unit, "defined_in", terms[i].where));
    return json_pack("{s:o}", "terms", a);
}

static tbl *terms_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    (void)view;
    tbl *t = tbl_new(ctx, oom);
    tbl_col(t, "term", 'l');
    tbl_col(t, "unit", 'l');
    tbl_col(t, "defined in", 'l');
    tbl_col(t, "definition", 'l');
    for (size_t i = 0; i < glossary_count(); i++) {
        tbl_row(t);
        tbl_str(t, terms[i].term);
        tbl_str(t, terms[i].unit);
        tbl_str(t, terms[i].where);
        tbl_str(t, terms[i].definition);
    }
    return t;
}

/* Two lines a term: the term with its unit and where it is defined, then the definition (--csv: the table). */
static void terms_text(const render_out *out, const void *view, const tbl *t)
{
    (void)view;
    (void)t;
    sb_printf(out->f, "The terms gpuecon's outputs use (README.md, \"Glossary\", has the same table):\n");
    for (size_t i = 0; i < glossary_count(); i++)
        sb_printf(out->f, "\n%s  (%s; %s)\n    %s\n", terms[i].term, terms[i].unit, terms[i].where, terms[i].definition);
}

const render_kind render_terms = {terms_json, terms_table, terms_text, NULL};
