/*
 * reproduce.c — recompute the arithmetic figures of SemiAnalysis's "H100 vs GB200 NVL72
 * Training Benchmarks" (D. Patel, D. Nishball, 20 Aug 2025; docs/sources.md lists them).
 *
 * Inputs are the published throughputs and counts the article states; every output goes
 * through the library's own TCO, cost, energy and FLOP functions with the built-in catalog, so
 * a change to a formula or a catalog number shows up here. Where the source contradicts
 * itself the row is marked inconsistent and says why instead of being forced to pass.
 */
#include "analysis/analysis.h"
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every row's figure is from this article. */
#define REPRO_SOURCE "SemiAnalysis, \"H100 vs GB200 NVL72 Training Benchmarks\", 20 Aug 2025"

typedef struct rows {
    gpuecon_repro_row *v;
    size_t cap, n;
    const gpuecon_catalog *cat;
    gpuecon_error *err;
    int rc;
} rows;

static void add(rows *r, const char *id, const char *what, double published, double computed,
                double tol, bool consistent, const char *note)
{
    if (r->n >= r->cap)
        return;
    gpuecon_repro_row *row = &r->v[r->n++];
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", id);
    snprintf(row->source, sizeof row->source, "%s", REPRO_SOURCE);
    snprintf(row->what, sizeof row->what, "%s", what);
    snprintf(row->note, sizeof row->note, "%s", note ? note : "");
    row->published = published;
    row->computed = computed;
    row->rel_err = published != 0 ? computed / published - 1 : computed;
    row->tolerance = tol;
    row->consistent = consistent;
    row->ok = consistent && fabs(row->rel_err) <= tol && isfinite(computed);
}

#define TOL 0.01 /* the article prints its figures to 2-3 significant digits */

static const gpuecon_system *sys(rows *r, const char *name)
{
    const void *s = NULL;
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_catalog_find(r->cat, GPUECON_KIND_SYSTEM, name, "reproduce", &s, r->err);
    return s;
}

static double tco(rows *r, const char *profile, const char *system, bool derived)
{
    const void *p = NULL;
    const gpuecon_system *s = sys(r, system);
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_catalog_find(r->cat, GPUECON_KIND_PROFILE, profile, "reproduce", &p, r->err);
    gpuecon_tco t;
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_tco_compute(p, s, 0, &t, r->err);
    if (r->rc)
        return NAN;
    return derived ? t.derived_usd_per_gpu_hour : t.usd_per_gpu_hour;
}

/* Cost and energy of tok_s on system at the hyperscaler profile's published TCO and the
 * system's energy PUE (the article's convention: cost table PUE 1.35, energy PUE 1.3 / 1.1). */
static gpuecon_cost cost(rows *r, const char *system, double tok_s, double tokens)
{
    gpuecon_cost c;
    memset(&c, 0, sizeof c);
    c.usd_per_mtok = c.joules_per_token = c.total_usd = NAN;
    const gpuecon_system *s = sys(r, system);
    double usd_h = tco(r, "hyperscaler", system, false);
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_cost_compute(usd_h, s->it_w_per_gpu, s->pue, tok_s, tokens, &c, r->err);
    return c;
}

static double mfu(rows *r, const char *model, const char *gpu, gpuecon_precision p, int seq,
                  gpuecon_attn_count count, bool mtp, double tok_s)
{
    const void *m = NULL, *g = NULL;
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_catalog_find(r->cat, GPUECON_KIND_MODEL, model, "reproduce", &m, r->err);
    if (r->rc == GPUECON_OK)
        r->rc = gpuecon_catalog_find(r->cat, GPUECON_KIND_GPU, gpu, "reproduce", &g, r->err);
    if (r->rc)
        return NAN;
    gpuecon_flops f;
    gpuecon_train_flops(m, seq, count, mtp, &f);
    return gpuecon_mfu(tok_s, f.total, gpuecon_gpu_peak_flops(g, p));
}

/* One household-year of electricity: 10,791 kWh (the US average the article uses) in joules. */
#define HOUSEHOLD_J (10791.0 * 3.6e6)

static void s1(rows *r)
{
    const char *fit = "k and colo solved so that both platforms hit the published TCO";
    add(r, "tco", "H100 TCO $/GPU-h, hyperscaler, calibrated k/colo", 1.42,
        tco(r, "hyperscaler-fit", "hgx-h100", true), TOL, true, fit);
    add(r, "tco", "GB200 NVL72 TCO $/GPU-h, hyperscaler, calibrated k/colo", 2.36,
        tco(r, "hyperscaler-fit", "gb200-nvl72", true), TOL, true, fit);
    add(r, "tco", "H100 TCO $/GPU-h, neocloud, calibrated k/colo", 1.948,
        tco(r, "neocloud-fit", "hgx-h100", true), TOL, true, fit);
    add(r, "tco", "GB200 NVL72 TCO $/GPU-h, neocloud, calibrated k/colo", 3.06,
        tco(r, "neocloud-fit", "gb200-nvl72", true), TOL, true, fit);
    const char *tc2 = "one default set per buyer type (8%/5y/4%, colo $130; 13%/4y/3%, colo $150); "
                      "tolerance 2%";
    add(r, "tco", "H100 TCO $/GPU-h, hyperscaler, documented defaults", 1.42,
        tco(r, "hyperscaler", "hgx-h100", true), 0.02, true, tc2);
    add(r, "tco", "GB200 NVL72 TCO $/GPU-h, hyperscaler, documented defaults", 2.36,
        tco(r, "hyperscaler", "gb200-nvl72", true), 0.02, true, tc2);
    add(r, "tco", "H100 TCO $/GPU-h, neocloud, documented defaults", 1.948,
        tco(r, "neocloud", "hgx-h100", true), 0.02, true, tc2);
    add(r, "tco", "GB200 NVL72 TCO $/GPU-h, neocloud, documented defaults", 3.06,
        tco(r, "neocloud", "gb200-nvl72", true), 0.02, true, tc2);
    add(r, "tco", "GB200 : H100 TCO ratio, hyperscaler", 1.66,
        tco(r, "hyperscaler", "gb200-nvl72", false) / tco(r, "hyperscaler", "hgx-h100", false), TOL,
        true, "published $2.36 / $1.42");
}

static void s2(rows *r)
{
    gpuecon_cost dec = cost(r, "hgx-h100", 728, 300e9), jan = cost(r, "hgx-h100", 543, 300e9);
    gpuecon_cost bf16 = cost(r, "hgx-h100", 493, 300e9);
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 Dec-24, $/1M tokens at 728 tok/s/GPU", 0.542, dec.usd_per_mtok, TOL,
        true, NULL);
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 Jan-24, $/1M tokens at 543 tok/s/GPU", 0.727, jan.usd_per_mtok, TOL,
        true, NULL);
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 Dec-24, utility J/token (PUE 1.3)", 2.46, dec.joules_per_token, TOL,
        true, NULL);
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 Jan-24, utility J/token (PUE 1.3)", 3.29, jan.joules_per_token, TOL,
        true, NULL);
    add(r, "gpt3-175b-h100", "GPT-3 175B BF16 Dec-24, utility J/token at 493 tok/s/GPU", 3.63,
        bf16.joules_per_token, TOL, true, "article preview");
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8, 300B tokens, total $ Dec-24", 162e3, dec.total_usd, TOL, true,
        "article: $218k -> $162k");
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8, 300B tokens, total $ Jan-24", 218e3, jan.total_usd, TOL, true, NULL);
    const char *conv = "model FLOPs: 6 per weight incl. LM head + full (non-causal) attention, seq "
                       "2048, as NVIDIA's recipes";
    add(r, "gpt3-175b-h100", "GPT-3 175B BF16 MFU Jan-24 at 313 tok/s/GPU", 0.34,
        mfu(r, "gpt3-175b", "h100-sxm", GPUECON_BF16, 2048, GPUECON_ATTN_COUNT_FULL, false, 313),
        TOL, true, conv);
    add(r, "gpt3-175b-h100", "GPT-3 175B BF16 MFU Dec-24 at 493 tok/s/GPU", 0.5354,
        mfu(r, "gpt3-175b", "h100-sxm", GPUECON_BF16, 2048, GPUECON_ATTN_COUNT_FULL, false, 493),
        TOL, true, "validate row A27: 53.54%");
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 MFU Jan-24 at 543 tok/s/GPU (vs FP8 peak)", 0.295,
        mfu(r, "gpt3-175b", "h100-sxm", GPUECON_FP8, 2048, GPUECON_ATTN_COUNT_FULL, false, 543), TOL,
        true, conv);
    add(r, "gpt3-175b-h100", "GPT-3 175B FP8 MFU Dec-24 at 728 tok/s/GPU (vs FP8 peak)", 0.3952,
        mfu(r, "gpt3-175b", "h100-sxm", GPUECON_FP8, 2048, GPUECON_ATTN_COUNT_FULL, false, 728), TOL,
        true, "validate row A26: 39.52%");
    add(r, "gpt3-175b-h100", "FP8 tokens per US household-year of electricity (billions)", 15.8,
        HOUSEHOLD_J / dec.joules_per_token / 1e9, TOL, true, "10,791 kWh per household-year");
    add(r, "gpt3-175b-h100", "300B FP8 tokens in household-years", 19, 300e9 * dec.joules_per_token / HOUSEHOLD_J,
        0.02, true, "published as a whole number (tolerance 2%)");
    add(r, "gpt3-175b-h100", "300B BF16 tokens in household-years", 28,
        300e9 * bf16.joules_per_token / HOUSEHOLD_J, 0.02, true,
        "published as a whole number (tolerance 2%)");
}

static void s3_s5(rows *r)
{
    gpuecon_cost c = cost(r, "hgx-h100", 202.3, 15e12);
    add(r, "llama3-405b-h100", "Llama 3 405B BF16, 2,304 H100: $/1M tokens at 202.3 tok/s/GPU", 1.948,
        c.usd_per_mtok, TOL, true, NULL);
    add(r, "llama3-405b-h100", "Llama 3 405B BF16: utility J/token", 8.83, c.joules_per_token, TOL, true, NULL);
    add(r, "llama3-405b-h100", "Llama 3 405B: 15T tokens, total $ (final run only)", 29.1e6, c.total_usd, TOL, true,
        NULL);
    add(r, "llama3-405b-h100", "Llama 3 405B BF16 MFU at 202.3 tok/s/GPU (seq 8192)", 0.54,
        mfu(r, "llama3-405b", "h100-sxm", GPUECON_BF16, 8192, GPUECON_ATTN_COUNT_FULL, false, 202.3),
        TOL, true, "'~54%'; the table's 54.2% implies 204.2 tok/s, 0.9% off the $1.948");
    add(r, "llama3-405b-h100", "Llama 3 405B: 15T tokens in household-years", 3400,
        15e12 * c.joules_per_token / HOUSEHOLD_J, TOL, true, NULL);
    add(r, "llama3-70b-h100", "Llama 3 70B FP8 MFU, 64 H100, 1,567 tok/s/GPU (seq 8192)", 0.381,
        mfu(r, "llama3-70b", "h100-sxm", GPUECON_FP8, 8192, GPUECON_ATTN_COUNT_FULL, false, 1566.8),
        TOL, true, "validate row A30: 38.08%");
    add(r, "llama3-70b-h100", "Llama 3 70B FP8 MFU, 2,048 H100, 1,462 tok/s/GPU", 0.355,
        mfu(r, "llama3-70b", "h100-sxm", GPUECON_FP8, 8192, GPUECON_ATTN_COUNT_FULL, false, 1462),
        TOL, true, NULL);
    add(r, "llama3-70b-h100", "Llama 3 70B BF16 MFU, 64 H100, 1,121 tok/s/GPU", 0.5452,
        mfu(r, "llama3-70b", "h100-sxm", GPUECON_BF16, 8192, GPUECON_ATTN_COUNT_FULL, false, 1121.2),
        TOL, true, "validate row A31: 54.52%");
    add(r, "llama3-70b-h100", "Llama 3 70B FP8 throughput change 64 -> 2,048 GPUs", -0.067, 1462.0 / 1567.0 - 1,
        TOL, true, NULL);
    add(r, "llama3.1-8b-h100", "Llama 3.1 8B FP8 MFU, 128 H100, 13,739 tok/s/GPU", 0.4017,
        mfu(r, "llama3-8b", "h100-sxm", GPUECON_FP8, 8192, GPUECON_ATTN_COUNT_FULL, false, 13739.2),
        TOL, true, "validate row A34: 40.17%");
    add(r, "llama3.1-8b-h100", "Llama 3.1 8B BF16 MFU, 128 H100, 10,630 tok/s/GPU", 0.6216,
        mfu(r, "llama3-8b", "h100-sxm", GPUECON_BF16, 8192, GPUECON_ATTN_COUNT_FULL, false, 10630),
        TOL, true, "dgxc llama3.1 8B H100 row: 62.16%");
}

static void s6_s8(rows *r)
{
    gpuecon_cost may_g = cost(r, "gb200-nvl72", 958, 0), may_h = cost(r, "hgx-h100", 630, 0);
    add(r, "deepseek-v3", "DeepSeek 670B BF16 May-25 GB200: $/1M tokens at 958 tok/s/GPU", 0.684,
        may_g.usd_per_mtok, TOL, true, NULL);
    add(r, "deepseek-v3", "DeepSeek 670B BF16 May-25 H100: $/1M tokens at 630 tok/s/GPU", 0.626,
        may_h.usd_per_mtok, TOL, true, NULL);
    double dearer = may_g.usd_per_mtok / may_h.usd_per_mtok - 1;
    add(r, "deepseek-v3", "May-25: GB200 dearer per token (table)", 0.093, dearer, TOL, true, NULL);
    add(r, "deepseek-v3", "May-25: GB200 dearer per token (text)", 0.07, dearer, TOL, false,
        "text says 7%; its own table ($0.684 vs $0.626) gives 9.3%");
    add(r, "deepseek-v3", "May-25: GB200 throughput over H100 (text)", 1.30, 958.0 / 630.0, TOL, false,
        "text says 30% faster; the table's 958 vs 630 tok/s is 1.52x");
    gpuecon_cost jul_g = cost(r, "gb200-nvl72", 2138, 14.8e12), jul_h = cost(r, "hgx-h100", 842, 0);
    add(r, "deepseek-v3", "DeepSeek Jul-25 GB200: $/1M tokens at 2,138 tok/s/GPU", 0.307, jul_g.usd_per_mtok,
        TOL, true, NULL);
    add(r, "deepseek-v3", "DeepSeek Jul-25 H100: $/1M tokens at 842 tok/s/GPU", 0.468, jul_h.usd_per_mtok, TOL,
        true, NULL);
    double ratio = 2138.0 / 842.0;
    add(r, "deepseek-v3", "DeepSeek Jul-25 throughput ratio GB200/H100", 2.54, ratio, TOL, true, NULL);
    add(r, "deepseek-v3", "DeepSeek Jul-25 performance per TCO GB200/H100", 1.52,
        jul_h.usd_per_mtok / jul_g.usd_per_mtok, TOL, true, "= throughput ratio / TCO ratio");
    add(r, "deepseek-v3", "DeepSeek Jul-25 GB200: 14.8T tokens, total $", 4.5e6, jul_g.total_usd, TOL, true,
        "article body");
    gpuecon_cost dec = cost(r, "gb200-nvl72", 3957, 14.8e12);
    add(r, "deepseek-v3", "DeepSeek Dec-25 projection GB200: $/1M tokens at 3,957 tok/s/GPU", 0.166,
        dec.usd_per_mtok, TOL, true, "projection");
    add(r, "deepseek-v3", "DeepSeek Dec-25 projection: 14.8T tokens, total $", 2.46e6, dec.total_usd, TOL, true,
        "projection");
    add(r, "deepseek-v3", "DeepSeek Dec-25 projection: BF16 MFU at 3,957 tok/s/GPU on GB200", 0.42,
        mfu(r, "deepseek-v3", "gb200", GPUECON_BF16, 4096, GPUECON_ATTN_COUNT_CAUSAL, true, 3957),
        TOL, true, "NeMo's DeepSeek-V3 convention: causal attention, MTP counted, seq 4096");
    add(r, "deepseek-v3-energy", "DeepSeek Jul-25 H100 utility J/token (PUE 1.3)", 2.12, jul_h.joules_per_token, TOL,
        true, NULL);
    add(r, "deepseek-v3-energy", "DeepSeek Jul-25 GB200 utility J/token (PUE 1.1)", 0.97, jul_g.joules_per_token, TOL,
        true, NULL);
    add(r, "deepseek-v3-energy", "DeepSeek Jul-25 energy ratio H100/GB200", 2.19,
        jul_h.joules_per_token / jul_g.joules_per_token, TOL, true, NULL);
    gpuecon_cost l4g = cost(r, "gb200-nvl72", 10757, 0), l4h = cost(r, "hgx-h100", 4251, 0);
    add(r, "llama4-maverick", "Llama 4 Maverick FP8 GB200: $/1M tokens at 10,757 tok/s/GPU", 0.061,
        l4g.usd_per_mtok, TOL, true, NULL);
    add(r, "llama4-maverick", "Llama 4 Maverick FP8 H100: $/1M tokens at 4,251 tok/s/GPU", 0.093, l4h.usd_per_mtok,
        TOL, true, NULL);
    add(r, "llama4-maverick", "Llama 4 Maverick throughput ratio GB200/H100", 2.53, 10757.0 / 4251.0, TOL, true,
        NULL);
    add(r, "llama4-maverick", "Llama 4 Maverick cost ratio GB200/H100", 0.656, l4g.usd_per_mtok / l4h.usd_per_mtok,
        TOL, true, "$0.061 / $0.093");
    add(r, "llama4-maverick", "Llama 4 Maverick performance per TCO GB200/H100", 1.52,
        l4h.usd_per_mtok / l4g.usd_per_mtok, TOL, true, NULL);
    add(r, "llama4-maverick", "Llama 4 Maverick saving per token ('50% cheaper')", 0.50,
        1 - l4g.usd_per_mtok / l4h.usd_per_mtok, TOL, false,
        "'50% cheaper' contradicts $0.061 vs $0.093, a 34% saving");
}

/* The built-in scenario's DeepSeek-V3 series (deepseek-v3-timeline): GB200 NVL72's performance per
 * TCO over H100 at each software date, computed by compare from the throughput timelines, against
 * the ratios of the article's own $/1M-token figures (SemiAnalysis, 20 Aug 2025). */
static void s6_timeline(rows *r)
{
    if (r->rc)
        return;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc = NULL;
    if (!ctx) {
        r->rc = err_set(r->err, GPUECON_E_NOMEM, "reproduce", 0, 0, "out of memory");
        return;
    }
    r->rc = gpuecon_scenario_load(ctx, r->cat, NULL, &sc, r->err);
    const gpuecon_comparison *c = NULL;
    for (size_t i = 0; r->rc == GPUECON_OK && i < gpuecon_scenario_count(sc); i++)
        if (!strcmp(gpuecon_scenario_at(sc, i)->name, "deepseek-v3-timeline"))
            c = gpuecon_scenario_at(sc, i);
    gpuecon_comparison_result cr;
    memset(&cr, 0, sizeof cr);
    gpuecon_compare_options opt = {.no_sensitivity = true};
    if (r->rc == GPUECON_OK && !c)
        r->rc = err_set(r->err, GPUECON_E_INTERNAL, "reproduce", 0, 0, "the built-in scenario lacks deepseek-v3-timeline");
    if (r->rc == GPUECON_OK)
        r->rc = compare_one(ctx, r->cat, c, &opt, &cr, r->err);
    if (r->rc == GPUECON_OK) {
        static const struct {
            const char *date, *what, *note;
            double published;
            bool projection;
        } want[] = {
            {"2025-05", "DeepSeek May-25 timeline: GB200 performance per TCO over H100 (no advantage)",
             "compare on the built-in timelines; published $0.626 / $0.684", 0.626 / 0.684, false},
            {"2025-07", "DeepSeek Jul-25 timeline: GB200 performance per TCO over H100", "compare on the built-in timelines",
             1.52, false},
            {"2025-12", "DeepSeek Dec-25 timeline (projection): GB200 performance per TCO over H100",
             "projection: GB200 $0.166 vs H100's July $0.468 (no later H100 figure)", 0.468 / 0.166, true},
        };
        bool gb_leads = cr.series_leader >= 0 && !strcmp(cr.platforms[cr.series_leader].system, "gb200-nvl72");
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            double v = NAN;
            bool proj = false;
            for (size_t i = 0; i < cr.n_series; i++)
                if (!strcmp(cr.series[i].date, want[k].date)) {
                    v = gb_leads ? cr.series[i].perf_per_tco : 1 / cr.series[i].perf_per_tco;
                    proj = cr.series[i].projection;
                }
            add(r, "deepseek-v3", want[k].what, want[k].published, v, TOL, proj == want[k].projection, want[k].note);
        }
    }
    compare_one_free(ctx, &cr);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

int gpuecon_reproduce(const gpuecon_catalog *cat, gpuecon_repro_row *out, size_t cap, size_t *n,
                      gpuecon_error *err)
{
    rows r = {out, cap, 0, cat, err, GPUECON_OK};
    if (n)
        *n = 0;
    if (!cat || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "catalog and row buffer are required");
    s1(&r);
    s2(&r);
    s3_s5(&r);
    s6_s8(&r);
    s6_timeline(&r);
    if (n)
        *n = r.n;
    return r.rc;
}
