/*
 * report.c — `gpuecon compare --format html`: one self-contained HTML file; and the same page
 * around one command's table and charts (`gpuecon rl --format html`).
 *
 * Everything is inline: CSS, and SVG charts drawn by src/render/svg.c (cost per million tokens
 * by platform, where that cost goes, the sensitivity tornado, how far each break-even lies).
 * There is no script and no external resource, so the file opens anywhere, offline, and a
 * browser has nothing to complain about (tests/report_chromium.sh checks it in Chromium).
 */
#include "render/render.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const css =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1180px;"
    "color:#222;line-height:1.4;padding:0 1em}"
    "h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:2px solid #4e79a7;padding-bottom:.2em;margin-top:2em}"
    "h3{font-size:1.05em;margin-top:1.5em}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.88em}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left}th{background:#f0f3f7}"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".verdict{background:#eef6ee;border-left:5px solid #59a14f;padding:.6em 1em;margin:1em 0}"
    ".caveat{background:#fdf6e3;border-left:5px solid #edc948;padding:.6em 1em}"
    "table.summary td{vertical-align:top}.muted{color:#666;font-size:.9em}svg{max-width:100%;height:auto;display:block;margin:.6em 0}"
    "ul.be li{margin:.3em 0}.stage{font-size:.8em;padding:0 .4em;border-radius:3px;background:#eee}"
    ".stage-assumption,.stage-projection{background:#fde2e2}.stage-measured,.stage-datasheet{background:#e2f0e2}"
    /* every table fits the page: long text breaks anywhere, numbers never; wide tables are
       split by fit_table; print on A4 with the same rules */
    "table{max-width:100%}td{overflow-wrap:anywhere}td.num{white-space:nowrap}"
    ".breakeven-date{font-size:1.05em}"
    "@page{size:A4;margin:10mm}"
    "@media print{body{max-width:none;margin:0;padding:0;font-size:9.5pt}h2{break-after:avoid}"
    "table,svg{break-inside:avoid}}";

static void money(tbl *t, double v)
{
    tbl_str(t, NUM_MONEY(v)); /* the one money formatter: "$0.5753", "$86.8k", "$5.19M"; NaN "n/a" */
}

static void num(tbl *t, double v, int dec)
{
    if (!isfinite(v))
        tbl_str(t, "n/a");
    else
        tbl_num(t, v, dec);
}

void compare_platform_table(const gpuecon_comparison_result *cr, tbl *t)
{
    bool train = cr->kind != GPUECON_WORKLOAD_SERVE, rl = cr->kind == GPUECON_WORKLOAD_RL;
    bool totals = false, sim = false;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        totals |= cr->platforms[i].feasible && isfinite(cr->platforms[i].total_usd);
        sim |= cr->platforms[i].feasible && cr->platforms[i].simulated;
    }
    tbl_col(t, "platform", 'l');
    tbl_col(t, "GPUs", 'r');
    tbl_col(t, rl ? "trained tok/s/GPU" : train ? "tok/s/GPU" : "out tok/s/GPU", 'r');
    tbl_col(t, "basis", 'l');
    tbl_col(t, "predicted", 'r');
    if (rl) {
        tbl_col(t, "placement", 'l');
        tbl_col(t, "step s", 'r');
        tbl_col(t, "gen s", 'r');
        tbl_col(t, "train s", 'r');
        tbl_col(t, "sync s", 'r');
        tbl_col(t, "idle s", 'r');
    } else if (train) {
        tbl_col(t, "MFU", 'r');
    } else {
        tbl_col(t, "in flight", 'r');
        tbl_col(t, "TPOT ms", 'r');
        tbl_col(t, "TTFT ms", 'r');
        if (sim) {
            tbl_col(t, "TTFT P90", 'r');
            tbl_col(t, "TTFT P99", 'r');
            tbl_col(t, "TPOT P90", 'r');
        }
    }
    tbl_col(t, "$/GPU-h", 'r');
    tbl_col(t, "$/Mtok", 'r');
    if (train) {
        tbl_col(t, "ETTR", 'r');
        tbl_col(t, "eff $/Mtok", 'r');
        tbl_col(t, "no-spare $/Mtok", 'r');
        if (cr->batch_penalty)
            tbl_col(t, "same-quality $/Mtok", 'r');
    }
    tbl_col(t, "J/tok", 'r');
    if (totals) {
        tbl_col(t, "days", 'r');
        tbl_col(t, "total", 'r');
        tbl_col(t, "MWh", 'r');
    }
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        tbl_row(t);
        tbl_fmt(t, "%s%s", p->name, (int)i == cr->cheapest ? " *" : "");
        tbl_num(t, p->gpus, 0);
        if (!p->feasible) {
            tbl_str(t, "-");
            tbl_str(t, "infeasible (below)"); /* the whole reason under the table, never cut */
            continue;
        }
        num(t, p->tokens_per_s_per_gpu, p->tokens_per_s_per_gpu < 100 ? 1 : 0);
        tbl_str(t, p->measured ? gpuecon_stage_name(p->throughput_source.stage) : "predicted");
        num(t, p->predicted_tokens_per_s_per_gpu, 0);
        if (rl) {
            tbl_fmt(t, "%s%s", p->rl_placement ? "disagg" : "coloc", p->rl_off_policy ? " +1 off" : "");
            num(t, p->rl_step_time_s, 1);
            num(t, p->rl_generation_s, 1);
            num(t, p->rl_scoring_s + p->rl_training_s, 1);
            num(t, p->rl_weight_sync_s, 2);
            num(t, p->rl_bd.idle_s, 1);
        } else if (train) {
            tbl_pct(t, p->mfu, 1);
        } else {
            num(t, p->concurrency, 0);
            num(t, p->tpot_ms, 1);
            num(t, p->ttft_ms, 1);
            if (sim) {
                num(t, p->simulated ? p->ttft_ms_p90 : NAN, 1);
                num(t, p->simulated ? p->ttft_ms_p99 : NAN, 1);
                num(t, p->simulated ? p->tpot_ms_p90 : NAN, 1);
            }
        }
        num(t, p->tco_usd_per_gpu_hour, 3);
        num(t, p->usd_per_mtok, 4);
        if (train) {
            num(t, p->ettr, 3);
            num(t, p->effective_usd_per_mtok_with_spares, 4);
            num(t, p->effective_usd_per_mtok_without_spares, 4);
            if (cr->batch_penalty)
                num(t, p->rank_usd_per_mtok, 4);
        }
        num(t, p->joules_per_token, 3);
        if (totals) {
            num(t, p->days_to_train, 1);
            money(t, p->total_usd);
            num(t, p->energy_mwh, 0);
        }
    }
}

const char *report_input_label(const char *input)
{
    return gpuecon_input_label(input); /* one table, in the library (decide.c) */
}

static void stage_span(strbuf *b, gpuecon_source s)
{
    sb_printf(b, "<span class=\"stage stage-%s\">%s</span>", gpuecon_stage_name(s.stage), gpuecon_stage_name(s.stage));
}

static void charts(strbuf *b, const gpuecon_comparison_result *cr)
{
    bool train = cr->kind != GPUECON_WORKLOAD_SERVE;
    svg_bar bars[64];
    svg_stack stacks[64];
    size_t n = 0;
    for (size_t i = 0; i < cr->n_platforms && n < 64; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        bars[n] = (svg_bar){p->name, p->feasible ? p->rank_usd_per_mtok : NAN,
                            p->feasible ? ((int)i == cr->cheapest ? "cheapest" : NULL) : "infeasible"};
        stacks[n].label = p->name;
        for (int k = 0; k < SVG_MAX_PARTS; k++)
            stacks[n].parts[k] = k < GPUECON_COST_PARTS && p->feasible ? p->cost_parts[k] : 0;
        n++;
    }
    svg_bars(b, train ? "Cost per 1M tokens, effective (failures and spares included)" : "Cost per 1M output tokens",
             "$", bars, n);
    static const char *const parts[GPUECON_COST_PARTS] = {"capital", "colocation", "power",
                                                          "fixed", "lost to failures",
                                                          "spare GPUs"};
    svg_stacked(b, "Where the cost of 1M tokens goes", "$", parts, train ? GPUECON_COST_PARTS : 4, stacks, n);
    if (cr->n_sensitivity) {
        svg_tornado_row rows[32];
        char labels[32][96];
        size_t m = 0;
        for (size_t i = 0; i < cr->n_sensitivity && m < 32; i++, m++) {
            const gpuecon_sensitivity *s = &cr->sensitivity[i];
            snprintf(labels[m], sizeof labels[m], "%s %s (%s to %s)", cr->platforms[s->platform].name,
                     report_input_label(s->input), NUM_SIG(s->low, 3), NUM_SIG(s->high, 3));
            rows[m] = (svg_tornado_row){labels[m], s->ratio_low, s->ratio_high};
        }
        char title[160];
        snprintf(title, sizeof title, "Sensitivity of the cost ratio %s / %s", cr->platforms[cr->cheapest].name,
                 cr->platforms[cr->runner_up].name);
        svg_tornado(b, title, cr->base_ratio, rows, m, "");
    }
    if (cr->n_breakeven) {
        svg_bar be[32];
        char labels[32][96];
        size_t m = 0;
        for (size_t i = 0; i < cr->n_breakeven && m < 32; i++) {
            const gpuecon_breakeven *e = &cr->breakeven[i];
            if (!e->found || !isfinite(e->ratio))
                continue;
            snprintf(labels[m], sizeof labels[m], "%s %s", cr->platforms[e->platform].name,
                     report_input_label(e->input));
            be[m] = (svg_bar){labels[m], e->ratio, NULL};
            m++;
        }
        if (m)
            svg_ratios(b, "Break-even as % of today's value, log scale centred at 100% (how far each flip is)", be,
                       m);
    }
}

static void provenance(strbuf *b, const gpuecon_comparison_result *cr)
{
    sb_printf(b, "<h3>Provenance of the inputs</h3><table><thead><tr><th>platform</th><th>input</th>"
                 "<th class=\"num\">value</th><th>stage</th><th>source</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (!p->feasible)
            continue;
        struct {
            const char *what;
            double v;
            gpuecon_source s;
        } rows[] = {{"throughput, tok/s/GPU", p->tokens_per_s_per_gpu, p->throughput_source},
                    {"TCO, $/GPU-h", p->tco_usd_per_gpu_hour, p->tco_source},
                    {"MTBI, GPU-days", p->mtbi_gpu_days, p->mtbi_source}};
        for (size_t k = 0; k < 3; k++) {
            if (k == 2 && cr->kind == GPUECON_WORKLOAD_SERVE)
                continue;
            sb_printf(b, "<tr><td>");
            sb_escape(b, p->name);
            sb_printf(b, "</td><td>%s</td><td class=\"num\">%s</td><td>", rows[k].what, NUM_SIG(rows[k].v, 4));
            stage_span(b, rows[k].s);
            sb_printf(b, "</td><td>");
            sb_escape(b, rows[k].s.text ? rows[k].s.text : "");
            sb_printf(b, "</td></tr>\n");
        }
    }
    sb_printf(b, "</tbody></table>\n");
}

/* A table as one HTML table when it has few columns, else as several that each repeat the first
 * (the platform) with at most FIT_COLS of the others, balanced: a 17-column platform table is two
 * of 1 + 8, which fit A4 (190 mm printable) as well as a 1,400-px window. */
enum { FIT_COLS = 9 };
static void fit_table(strbuf *b, const tbl *t)
{
    int data = tbl_ncol(t) - 1;
    if (data <= FIT_COLS) {
        tbl_html(t, b);
        return;
    }
    int parts = (data + FIT_COLS - 1) / FIT_COLS, per = (data + parts - 1) / parts;
    for (int k = 0; k < parts; k++)
        tbl_html_part(t, b, 1 + k * per, 1 + (k + 1) * per);
}

/* One line per platform with something to say (its layout, why it cannot run, its band), under
 * a heading; a platform with nothing to add (a measured throughput) gets no empty "name:" line. */
static void platform_notes(strbuf *b, const gpuecon_comparison_result *cr)
{
    int any = 0;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        const char *note = p->feasible ? p->predicted_note : p->why;
        char band[400]; /* the 80% band of a predicted throughput (docs/model.md §7.6) */
        band_text(band, sizeof band, p->feasible ? &p->band : NULL, 1, 0);
        if (!note[0] && !band[0])
            continue;
        if (!any++)
            sb_printf(b, "<h3>Layouts and bands</h3>\n");
        sb_printf(b, "<p class=\"muted\">");
        sb_escape(b, p->name);
        sb_printf(b, ": ");
        sb_escape(b, note);
        if (band[0]) {
            /* band_text is "(low-high, 80%; basis)": after the figure, as every band is written */
            sb_printf(b, "%spredicted %s tok/s/GPU ", note[0] ? "; " : "", NUM_FIXED(p->tokens_per_s_per_gpu, 0));
            sb_escape(b, band);
        }
        sb_printf(b, "</p>\n");
    }
}

/* Platforms at several operator tiers: who wins at each tier and against which other system at
 * that tier (src/analysis/tiers.c), and where the kind of system flips. */
static void by_tier(strbuf *b, const gpuecon_comparison_result *cr)
{
    if (!cr->tiered)
        return;
    sb_printf(b, "<h3>By operator tier</h3>\n<table><thead><tr><th>operators</th><th>cheapest</th>"
                 "<th class=\"num\">$/Mtok</th><th>next other system</th><th class=\"num\">$/Mtok</th>"
                 "<th class=\"num\">cheapest is</th><th>fastest</th></tr></thead><tbody>\n");
    static const char *const tiers[3] = {"best", "typical", "poor"};
    for (int t = 0; t < 3; t++) {
        int c = cr->tier_cheapest[t], r = cr->tier_runner_up[t], f = cr->tier_fastest[t];
        if (c < 0)
            continue;
        const gpuecon_platform_result *pc = &cr->platforms[c];
        sb_printf(b, "<tr><td>%s</td><td>", tiers[t]);
        sb_escape(b, pc->name);
        sb_printf(b, "</td><td class=\"num\">%s</td><td>", NUM_MONEY(pc->rank_usd_per_mtok));
        if (r >= 0) {
            const gpuecon_platform_result *pr = &cr->platforms[r];
            sb_escape(b, pr->name);
            sb_printf(b, "</td><td class=\"num\">%s</td><td class=\"num\">%s", NUM_MONEY(pr->rank_usd_per_mtok),
                      NUM_BELOW(pc->rank_usd_per_mtok, pr->rank_usd_per_mtok));
        } else {
            sb_printf(b, "none at this tier</td><td class=\"num\">n/a</td><td class=\"num\">n/a");
        }
        sb_printf(b, "</td><td>");
        sb_escape(b, f >= 0 ? cr->platforms[f].name : "n/a");
        sb_printf(b, "</td></tr>\n");
    }
    sb_printf(b, "</tbody></table>\n");
    if (cr->tier_analysis) /* both kinds of system present: where the cheapest kind changes */
        sb_printf(b, "<p class=\"muted\">%s%s%s</p>\n",
                  cr->flip_tier[0] ? "The cheapest kind of system (8-GPU servers or rack-scale NVLink) flips at the "
                                   : "The same kind of system (8-GPU servers or rack-scale NVLink) is cheapest at "
                                     "every tier.",
                  cr->flip_tier, cr->flip_tier[0] ? " tier." : "");
}

/* Throughput timelines (docs/model.md §7.8): the break-even date, the sentence that says what it
 * means and when the lead would vanish, and the leader's performance per TCO at each point date
 * both platforms are rated on. Nothing without a timeline. */
static void over_time(strbuf *b, const gpuecon_comparison_result *cr)
{
    if (!cr->timeline_text[0])
        return;
    const char *lead = cr->platforms[cr->series_leader].name, *other = cr->platforms[cr->series_other].name;
    sb_printf(b, "<h3 id=\"");
    sb_escape(b, cr->name);
    sb_printf(b, "-over-time\">Over time</h3>\n<p class=\"breakeven-date\"><strong>Break-even date: ");
    sb_escape(b, cr->breakeven_date[0] ? cr->breakeven_date : "none");
    sb_printf(b, "</strong>");
    if (cr->breakeven_date[0]) {
        sb_printf(b, " (a run starting on or after it is cheaper on ");
        sb_escape(b, lead);
        sb_printf(b, ")");
    }
    const char *gone = cr->platforms[cr->series_leader].advantage_vanishes_date;
    if (gone[0]) {
        sb_printf(b, "; <strong>lead would vanish: ");
        sb_escape(b, gone);
        sb_printf(b, "</strong>");
    }
    sb_printf(b, ".</p>\n<p>");
    sb_escape(b, cr->timeline_text);
    sb_printf(b, ".</p>\n");
    if (!cr->n_series)
        return;
    sb_printf(b, "<table><thead><tr><th>date</th><th class=\"num\">");
    sb_escape(b, lead);
    sb_printf(b, " performance per TCO over ");
    sb_escape(b, other);
    sb_printf(b, "</th><th class=\"num\">with failures and spares</th><th>projection</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < cr->n_series; i++) {
        sb_printf(b, "<tr><td>");
        sb_escape(b, cr->series[i].date);
        sb_printf(b, "</td><td class=\"num\">%.2fx</td><td class=\"num\">%.2fx</td><td>%s</td></tr>\n",
                  cr->series[i].perf_per_tco, cr->series[i].effective_ratio,
                  cr->series[i].projection ? "yes" : "no");
    }
    sb_printf(b, "</tbody></table>\n");
    svg_bar bars[2 * GPUECON_TIMELINE_MAX];
    size_t n = 0;
    for (size_t i = 0; i < cr->n_series && n < sizeof bars / sizeof bars[0]; i++)
        bars[n++] = (svg_bar){cr->series[i].date, cr->series[i].effective_ratio,
                              cr->series[i].projection ? "projection" : NULL};
    char title[400]; /* short enough for the chart's width; the caption says how to read it */
    snprintf(title, sizeof title, "%.40s over %.40s: performance per TCO by date", lead, other);
    svg_bars(b, title, "x", bars, n);
    sb_printf(b, "<p class=\"muted\">With failures and spares, the software in force on each date; above 1x ");
    sb_escape(b, lead);
    sb_printf(b, " is cheaper.</p>\n");
}

static void section(strbuf *b, const gpuecon_comparison_result *cr)
{
    sb_printf(b, "<section id=\"");
    sb_escape(b, cr->name);
    sb_printf(b, "\"><h2>");
    sb_escape(b, cr->title ? cr->title : cr->name);
    sb_printf(b, "</h2>\n<div class=\"verdict\"><strong>Verdict.</strong> ");
    sb_escape(b, cr->verdict);
    sb_printf(b, "</div>\n");
    if (cr->caveats[0]) {
        sb_printf(b, "<p class=\"caveat\"><strong>Rests on projections or assumptions:</strong> ");
        sb_escape(b, cr->caveats);
        sb_printf(b, "</p>\n");
    }
    tbl *t = tbl_new(b->ctx, b->oom);
    compare_platform_table(cr, t);
    fit_table(b, t);
    tbl_free(t);
    if (cr->kind == GPUECON_WORKLOAD_TRAIN && !cr->batch_penalty)
        sb_printf(b, "<p class=\"muted\">No critical batch size given: every platform is charged the same token "
                     "budget (no same-quality batch penalty).</p>\n");
    by_tier(b, cr);
    over_time(b, cr);
    platform_notes(b, cr);
    charts(b, cr);
    if (cr->n_breakeven) {
        sb_printf(b, "<h3>What would change the verdict</h3><ul class=\"be\">\n");
        for (size_t i = 0; i < cr->n_breakeven; i++) {
            sb_printf(b, "<li>");
            sb_escape(b, cr->breakeven[i].text);
            sb_printf(b, "</li>\n");
        }
        sb_printf(b, "</ul>\n");
    }
    provenance(b, cr);
    sb_printf(b, "</section>\n");
}

/* The summary across comparisons, at the top: who is cheapest, by how much, who is fastest. */
static void summary(strbuf *b, const gpuecon_compare_result *r)
{
    sb_printf(b, "<h2 id=\"summary\">Summary across comparisons</h2>\n<table class=\"summary\"><thead><tr>"
                 "<th>comparison</th><th>cheapest</th><th class=\"num\">vs the runner-up</th><th>fastest</th>"
                 "<th>verdict</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->n; i++) {
        const gpuecon_comparison_result *cr = &r->cmp[i];
        sb_printf(b, "<tr><td><a href=\"#");
        sb_escape(b, cr->name);
        sb_printf(b, "\">");
        sb_escape(b, cr->title ? cr->title : cr->name);
        sb_printf(b, "</a></td><td>");
        sb_escape(b, cr->cheapest >= 0 ? cr->platforms[cr->cheapest].name : "none feasible");
        if (cr->runner_up >= 0 && cr->base_ratio > 0 && isfinite(cr->base_ratio)) /* num_below: "20% below" */
            sb_printf(b, "</td><td class=\"num\">%s", NUM_BELOW(cr->base_ratio, 1));
        else
            sb_printf(b, "</td><td class=\"num\">n/a");
        sb_printf(b, "</td><td>");
        sb_escape(b, cr->fastest >= 0 ? cr->platforms[cr->fastest].name : "n/a");
        sb_printf(b, "</td><td>");
        sb_escape(b, cr->verdict);
        sb_printf(b, "</td></tr>\n");
    }
    sb_printf(b, "</tbody></table>\n");
}

/* <!DOCTYPE html> ... <h1>title</h1>: the page head every report shares. */
static void page_head(strbuf *b, const char *title)
{
    sb_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>gpuecon: ");
    sb_escape(b, title);
    sb_printf(b, "</title><style>%s</style></head>\n<body>\n<h1>", css);
    sb_escape(b, title);
    sb_printf(b, "</h1>\n");
}

/* The page's end. */
static void page_end(strbuf *b)
{
    sb_printf(b, "<p class=\"muted\">Charts are drawn as inline SVG by gpuecon itself; the report needs no "
                 "network and no scripts.</p>\n</body></html>\n");
}

void report_table_html(strbuf *out, const char *title, const char *subtitle, const char *charts, const tbl *t)
{
    strbuf *b = out;
    page_head(b, title);
    sb_printf(b, "<p class=\"muted\">gpuecon %s. ", GPUECON_VERSION);
    sb_escape(b, subtitle);
    sb_printf(b, " Every number comes from the formulas of docs/model.md applied to catalog inputs.</p>\n");
    if (charts)
        sb_printf(b, "%s", charts);
    tbl_html(t, b);
    page_end(b);
}

void report_html(strbuf *out, const gpuecon_scenario *sc, const gpuecon_compare_result *r)
{
    strbuf *b = out;
    const char *title = gpuecon_scenario_title(sc) ? gpuecon_scenario_title(sc) : gpuecon_scenario_name(sc);
    page_head(b, title);
    sb_printf(b, "<p class=\"muted\">gpuecon %s, scenario <code>", GPUECON_VERSION);
    sb_escape(b, gpuecon_scenario_name(sc));
    sb_printf(b, "</code>. Every number comes from the formulas of docs/model.md applied to catalog inputs whose "
                  "source and stage are listed below each comparison.</p>\n");
    summary(b, r);
    for (size_t i = 0; i < r->n; i++)
        section(b, &r->cmp[i]);
    page_end(b);
}
