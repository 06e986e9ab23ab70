/*
 * compare.c — `gpuecon compare` rendered: the scenario's comparisons as JSON (each platform,
 * break-even and sensitivity with its provenance), as one CSV row per platform, and as the
 * terminal report (the platform table, the verdict, the trade, what would change it, provenance,
 * sensitivity). The HTML report is report.c's.
 */
#include "render/render.h"
#include "model/names.h"
#include "render/report.h"

#include <math.h>
#include <string.h>

static void print_trade(const render_out *out, const gpuecon_platform_result *p)
{
    strbuf *f = out->f;
    sb_printf(f, "\n%s: GPUs, days and dollars\n", p->name);
    tbl *t = tbl_new(out->ctx, out->oom);
    const char *cols[] = {"GPUs", "provisioned", "tok/s/GPU", "ETTR", "days", "$M", "MWh"};
    for (size_t i = 0; i < 7; i++)
        tbl_col(t, cols[i], 'r');
    for (size_t i = 0; i < p->n_trade; i++) {
        const gpuecon_target_row *r = &p->trade[i];
        tbl_row(t);
        tbl_num(t, r->gpus, 0);
        if (!r->ok) {
            char whole[sizeof r->why + 16];
            snprintf(whole, sizeof whole, "cannot run: %s", r->why);
            tbl_span(t, whole, NULL); /* whole, wrapped over the row: a table never cuts a message */
            continue;
        }
        tbl_num(t, r->provisioned_gpus, 0);
        tbl_num(t, r->tokens_per_s_per_gpu, 1);
        tbl_pct(t, r->ettr, 1);
        tbl_num(t, r->days_to_train, 1);
        tbl_num(t, r->total_usd / 1e6, 3);
        tbl_num(t, r->energy_mwh, 0);
    }
    tbl_print(t, f);
    tbl_free(t);
}

static void print_comparison(const render_out *out, const gpuecon_comparison_result *cr)
{
    strbuf *f = out->f;
    bool train = cr->kind != GPUECON_WORKLOAD_SERVE;
    sb_printf(f, "\n== %s\n\n", cr->title ? cr->title : cr->name);
    tbl *t = tbl_new(out->ctx, out->oom);
    compare_platform_table(cr, t);
    tbl_print(t, f);
    tbl_free(t);
    if (cr->cheapest < 0)
        sb_printf(f, "\nno platform is feasible: nothing to rank (exit 3).\n");
    else
        sb_printf(f, "%s", train ? "\n* cheapest. eff $/Mtok: including work lost to failures and spare GPUs charged to "
                                 "the job; no-spare: spares earning other work.\n"
                               : "\n* cheapest per output token.\n");
    if (train && cr->batch_penalty)
        sb_printf(f, "  same-quality $/Mtok: eff $/Mtok x the extra tokens its batch needs (McCandlish et al. 2018); "
                   "the ranking uses it.\n");
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (p->feasible && p->predicted_note[0])
            sb_printf(f, "  %s: %s%s%s\n", p->name, p->predicted_note, p->stack ? "; stack " : "",
                    p->stack ? p->stack : "");
        if (p->power_limit_w > 0)
            sb_printf(f, "    GPUs at %.0f W: sustained tensor-core clock %.3f of the board maximum's\n", p->power_limit_w,
                    p->clock_factor);
        if (p->feasible && p->have_calib)
            calib_match_brief(f, &p->calib, "    ");
        char band[400];
        band_text(band, sizeof band, &p->band, 1, 0);
        if (p->feasible && band[0]) { /* the 80% band of a predicted throughput (docs/model.md §7.6) */
            sb_printf(f, "    throughput predicted %.0f tok/s/GPU %s\n", p->tokens_per_s_per_gpu, band);
            char tb[400], fb[400]; /* a serving platform's latencies at its load, with theirs */
            band_text(tb, sizeof tb, &p->band_tpot, 1, 1);
            band_text(fb, sizeof fb, &p->band_ttft, 1, 1);
            if (tb[0])
                sb_printf(f, "    TPOT predicted %.1f ms %s\n", p->tpot_ms, tb);
            if (fb[0])
                sb_printf(f, "    TTFT predicted %.1f ms %s\n", p->ttft_ms, fb);
            char sb[400]; /* an RL platform's step time, whose band the throughput's is the inverse of */
            band_text(sb, sizeof sb, &p->band_rl_step, 1, 1);
            if (sb[0])
                sb_printf(f, "    RL step predicted %.1f s %s\n", p->rl_step_time_s, sb);
        } else if (!p->feasible)
            sb_printf(f, "  %s: infeasible: %s\n", p->name, p->why);
        if (train && p->feasible && !p->predicted_note[0])
            sb_printf(f, "  %s:\n", p->name); /* no prediction line above names it */
        if (train && p->feasible)
            sb_printf(f, "    %d GPUs provisioned for %d active (%.0f charged); %.2f interruptions/day (MTTI %.2f h)\n",
                    p->provisioned_gpus, p->gpus, p->charged_gpus, p->interruptions_per_day, p->job_mtti_h);
        if (p->feasible && cr->uncertainty_samples > 0) {
            char met[128] = "";
            int k = 0;
            if (isfinite(p->probability_meets_target) && isfinite(p->probability_lower_load)) /* serving */
                k = snprintf(met, sizeof met, "; meets the latency targets in %.1f%% (%.1f%% only at a lower load)",
                             100 * p->probability_meets_target, 100 * p->probability_lower_load);
            else if (isfinite(p->probability_meets_target)) /* training: the deadline */
                k = snprintf(met, sizeof met, "; meets the deadline in %.1f%%", 100 * p->probability_meets_target);
            if (k >= 0 && (size_t)k < sizeof met && isfinite(p->probability_within_budget))
                snprintf(met + k, sizeof met - (size_t)k, "; fits the budget in %.1f%%",
                         100 * p->probability_within_budget);
            sb_printf(f, "    %s, joint uncertainty (%d samples): cheapest in %.1f%%%s; effective $/Mtok P10/P50/P90 "
                       "%s / %s / %s\n",
                    p->name, cr->uncertainty_samples, 100 * p->probability_cheapest, met,
                    NUM_MONEY(p->effective_usd_per_mtok_p10), NUM_MONEY(p->effective_usd_per_mtok_p50),
                    NUM_MONEY(p->effective_usd_per_mtok_p90));
        }
        if (p->mc)
            sb_printf(f, "    Monte Carlo (%d trials): ETTR P10/P50/P90 %.3f / %.3f / %.3f; days P10/P50/P90 %.1f / "
                       "%.1f / %.1f\n",
                    p->mc_result.trials, p->mc_result.ettr_p10, p->mc_result.ettr_p50, p->mc_result.ettr_p90,
                    p->mc_result.days_p10, p->mc_result.days_p50, p->mc_result.days_p90);
        if (p->life) {
            const gpuecon_life_result *l = p->life_result;
            char when[64] = "owning never wins within the life";
            if (l->own_beats_rent_month > 0)
                snprintf(when, sizeof when, "owning has cost less from month %d", l->own_beats_rent_month);
            sb_printf(f, "    owned %s years at %.0f%% utilisation: $%.4f per 1M tokens vs $%.4f renting at $%.3f/GPU-h; "
                       "%s\n", NUM_SIG(l->life_years, 3), 100 * l->utilisation, l->own_usd_per_mtok, l->rent_usd_per_mtok,
                    l->rent_usd_per_gpu_hour, when);
        } else if (p->life_why[0]) {
            sb_printf(f, "    owning vs renting: %s\n", p->life_why);
        }
        if (train && p->feasible && p->token_factor != 1)
            sb_printf(f, "    batch %s tokens: %.3fx the workload's tokens for the same quality\n", NUM_COUNT(p->batch_tokens),
                    p->token_factor);
    }
    if (train && !cr->batch_penalty)
        sb_printf(f, "  (no critical batch size given: every platform is charged the same tokens)\n");
    sb_printf(f, "\nverdict: %s\n", cr->verdict);
    if (cr->caveats[0])
        sb_printf(f, "rests on projections/assumptions: %s\n", cr->caveats);
    for (size_t i = 0; i < cr->n_platforms; i++)
        if (cr->platforms[i].n_trade)
            print_trade(out, &cr->platforms[i]);
    if (cr->tier_text[0])
        sb_printf(f, "\nby operator tier: %s.\n", cr->tier_text);
    if (cr->timeline_text[0]) {
        sb_printf(f, "\nover time: %s.\n", cr->timeline_text);
        for (size_t i = 0; i < cr->n_series; i++)
            sb_printf(f, "  %s  %s %.2fx the performance per TCO of %s (%.2fx with failures and spares)%s\n",
                    cr->series[i].date, cr->platforms[cr->series_leader].name, cr->series[i].perf_per_tco,
                    cr->platforms[cr->series_other].name, cr->series[i].effective_ratio,
                    cr->series[i].projection ? "  [projection]" : "");
    }
    if (cr->n_breakeven) {
        sb_printf(f, "\nwhat would change the verdict:\n");
        for (size_t i = 0; i < cr->n_breakeven; i++)
            if (cr->breakeven[i].found)
                sb_printf(f, "  - %s\n", cr->breakeven[i].text);
        for (size_t i = 0; i < cr->n_breakeven; i++)
            if (!cr->breakeven[i].found)
                sb_printf(f, "  - %s\n", cr->breakeven[i].text);
    }
    sb_printf(f, "\nprovenance (stage: source):\n");
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (!p->feasible)
            continue;
        sb_printf(f, "  %s  throughput %s  %s: %s\n", p->name, NUM_SIG(p->tokens_per_s_per_gpu, 4),
                gpuecon_stage_name(p->throughput_source.stage), p->throughput_source.text);
        sb_printf(f, "  %*s  TCO $%.3f/GPU-h  %s: %s\n", (int)strlen(p->name), "", p->tco_usd_per_gpu_hour,
                gpuecon_stage_name(p->tco_source.stage), p->tco_source.text);
        if (train)
            sb_printf(f, "  %*s  MTBI %.0f GPU-days  %s: %s\n", (int)strlen(p->name), "", p->mtbi_gpu_days,
                    gpuecon_stage_name(p->mtbi_source.stage), p->mtbi_source.text);
    }
    if (cr->n_sensitivity) {
        const gpuecon_platform_result *a = &cr->platforms[cr->cheapest], *b = &cr->platforms[cr->runner_up];
        sb_printf(f, "\nsensitivity of the cost ratio %s / %s = %.3f (each input moved alone):\n", a->name, b->name,
                cr->base_ratio);
        tbl *s = tbl_new(out->ctx, out->oom);
        tbl_col(s, "input", 'l');
        tbl_col(s, "low", 'r');
        tbl_col(s, "high", 'r');
        tbl_col(s, "ratio at low", 'r');
        tbl_col(s, "ratio at high", 'r');
        tbl_col(s, "range", 'l');
        tbl_col(s, "stage", 'l');
        for (size_t i = 0; i < cr->n_sensitivity; i++) {
            const gpuecon_sensitivity *r = &cr->sensitivity[i];
            tbl_row(s);
            /* the input's human label ("TCO, $/GPU-h"): the JSON keeps its key (input) beside the label */
            tbl_fmt(s, "%s %s", cr->platforms[r->platform].name, gpuecon_input_label(r->input));
            tbl_str(s, NUM_SIG(r->low, 4));
            tbl_str(s, NUM_SIG(r->high, 4));
            tbl_fmt(s, "%.3f", r->ratio_low);
            tbl_fmt(s, "%.3f", r->ratio_high);
            tbl_str(s, r->range);
            tbl_str(s, gpuecon_stage_name(r->source.stage));
        }
        tbl_print(s, f);
        tbl_free(s);
    }
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* A serving platform at the workload's rate (docs/model.md §7.1): how it was sized and the
 * configuration found; null otherwise. */
static json_t *sizing_json(const gpuecon_platform_result *p)
{
    if (!p->at_rate)
        return json_null();
    json_t *o = json_pack("{s:s, s:i, s:o, s:b}", "unit", p->unit ? p->unit : "GPU", "unit_gpus", p->unit_gpus,
                          "units", p->units > 0 ? json_integer(p->units) : json_null(), "fewer_units_missed",
                          p->fewer_units_missed);
    if (p->feasible && p->meets_target)
        json_object_set_new(o, "config", json_pack("{s:i, s:i, s:i, s:s, s:s}", "tp", p->tp, "pp", p->pp > 0 ? p->pp : 1,
                                                   "replicas", p->replicas, "weights", gpuecon_precision_name(p->weights),
                                                   "kv", gpuecon_precision_name(p->kv)));
    else
        json_object_set_new(o, "config", json_null());
    return o;
}

static json_t *platform_json(const gpuecon_platform_result *p, const char *comparison, int samples)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(p->name));
    if (comparison)
        json_object_set_new(o, "comparison", json_string(comparison));
    json_object_set_new(o, "system", json_string(p->system));
    if (p->power_limit_w > 0) {
        json_object_set_new(o, "power_limit_w", rjson_real(p->power_limit_w));
        json_object_set_new(o, "clock_factor", rjson_real(p->clock_factor));
    }
    json_object_set_new(o, "feasible", json_boolean(p->feasible));
    if (!p->feasible)
        json_object_set_new(o, "why", json_string(p->why));
    json_object_set_new(o, "gpus", json_integer(p->gpus));
    json_object_set_new(o, "tokens_per_s_per_gpu", rjson_real(p->tokens_per_s_per_gpu));
    json_object_set_new(o, "throughput_basis", json_string(p->measured ? "measured" : "predicted"));
    json_object_set_new(o, "throughput_source", rjson_source(p->throughput_source));
    json_object_set_new(o, "predicted_tokens_per_s_per_gpu", rjson_real(p->predicted_tokens_per_s_per_gpu));
    json_object_set_new(o, "prediction", json_string(p->predicted_note));
    if (p->stack)
        json_object_set_new(o, "stack", json_string(p->stack));
    if (p->have_calib)
        json_object_set_new(o, "calibration", calib_match_json(&p->calib));
    if (p->user_calibration)
        json_object_set_new(o, "user_calibration", rjson_user_calibration(p->user_calibration));
    if (p->band.set) { /* only for a predicted throughput (docs/model.md §7.6) */
        json_t *b = json_object();
        json_object_set_new(b, "tokens_per_s_per_gpu", band_json(&p->band));
        if (p->band_tpot.set) /* serving: the latencies at the operating load */
            json_object_set_new(b, "tpot_ms", band_json(&p->band_tpot));
        if (p->band_ttft.set)
            json_object_set_new(b, "ttft_ms", band_json(&p->band_ttft));
        if (p->band_rl_step.set) /* rl: the step time */
            json_object_set_new(b, "rl_step_time_s", band_json(&p->band_rl_step));
        json_object_set_new(o, "band", b);
    }
    if (samples > 0) { /* compare --uncertainty N: the joint samples */
        json_object_set_new(o, "probability_cheapest", rjson_real(p->probability_cheapest));
        if (isfinite(p->probability_meets_target)) /* serving latency targets, a training deadline */
            json_object_set_new(o, "probability_meets_target", rjson_real(p->probability_meets_target));
        if (isfinite(p->probability_lower_load))
            json_object_set_new(o, "probability_lower_load", rjson_real(p->probability_lower_load));
        if (isfinite(p->probability_within_budget))
            json_object_set_new(o, "probability_within_budget", rjson_real(p->probability_within_budget));
        json_object_set_new(o, "effective_usd_per_mtok_p10", rjson_real(p->effective_usd_per_mtok_p10));
        json_object_set_new(o, "effective_usd_per_mtok_p50", rjson_real(p->effective_usd_per_mtok_p50));
        json_object_set_new(o, "effective_usd_per_mtok_p90", rjson_real(p->effective_usd_per_mtok_p90));
    }
    json_object_set_new(o, "mfu", rjson_real(p->mfu));
    json_object_set_new(o, "tco_usd_per_gpu_hour", rjson_real(p->tco_usd_per_gpu_hour));
    json_object_set_new(o, "tco_source", rjson_source(p->tco_source));
    json_object_set_new(o, "usd_per_mtok", rjson_real(p->usd_per_mtok));
    json_object_set_new(o, "effective_usd_per_mtok", rjson_real(p->effective_usd_per_mtok));
    json_object_set_new(o, "effective_usd_per_mtok_with_spares", rjson_real(p->effective_usd_per_mtok_with_spares));
    json_object_set_new(o, "effective_usd_per_mtok_without_spares",
                        rjson_real(p->effective_usd_per_mtok_without_spares));
    json_object_set_new(o, "rank_usd_per_mtok", rjson_real(p->rank_usd_per_mtok));
    json_object_set_new(o, "joules_per_token", rjson_real(p->joules_per_token));
    json_object_set_new(o, "pue", rjson_real(p->pue));
    json_object_set_new(o, "ettr", rjson_real(p->ettr));
    json_object_set_new(o, "interruptions_per_day", rjson_real(p->interruptions_per_day));
    json_object_set_new(o, "provisioned_gpus", json_integer(p->provisioned_gpus));
    json_object_set_new(o, "charged_gpus", rjson_real(p->charged_gpus));
    json_object_set_new(o, "mtbi_gpu_days", rjson_real(p->mtbi_gpu_days));
    json_object_set_new(o, "mtbi_source", rjson_source(p->mtbi_source));
    json_object_set_new(o, "spares_charged", json_boolean(p->spares_charged));
    json_object_set_new(o, "batch_tokens", rjson_real(p->batch_tokens));
    json_object_set_new(o, "token_factor", rjson_real(p->token_factor));
    json_object_set_new(o, "tokens", rjson_real(p->tokens));
    json_object_set_new(o, "days_to_train", rjson_real(p->days_to_train));
    json_object_set_new(o, "total_usd", rjson_real(p->total_usd));
    json_object_set_new(o, "energy_mwh", rjson_real(p->energy_mwh));
    if (p->feasible && p->rl_step_time_s > 0) {
        const gpuecon_rl_breakdown *b = &p->rl_bd;
        json_t *rl = json_pack(
            "{s:o, s:o, s:s, s:i, s:i, s:i, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o}, "
            "s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}}",
            "step_time_s", rjson_real(p->rl_step_time_s), "trained_tokens_per_step",
            rjson_real(p->rl_trained_tokens_per_step), "placement",
            gpuecon_rl_placement_name((gpuecon_rl_placement)p->rl_placement), "off_policy", p->rl_off_policy,
            "gen_gpus", p->rl_gen_gpus, "gen_tp", p->rl_gen_tp, "usd_per_step", rjson_real(p->rl_usd_per_step),
            "mwh_per_step", rjson_real(p->rl_mwh_per_step), "breakdown", "generation_s", rjson_real(b->generation_s),
            "scoring_s", rjson_real(b->scoring_s), "training_s", rjson_real(b->training_s), "weight_sync_s",
            rjson_real(b->weight_sync_s), "swap_s", rjson_real(b->swap_s), "idle_s", rjson_real(b->idle_s), "durations",
            "generation_s", rjson_real(p->rl_generation_s), "drain_s", rjson_real(p->rl_gen_drain_s), "scoring_s",
            rjson_real(p->rl_scoring_s), "training_s", rjson_real(p->rl_training_s), "weight_sync_s",
            rjson_real(p->rl_weight_sync_s), "swap_s", rjson_real(p->rl_swap_s), "response_end_tokens",
            rjson_real(p->rl_response_end), "generator_slots", rjson_real(p->rl_gen_max_concurrency));
        json_object_set_new(rl, "gen_attention_dp", json_boolean(p->rl_gen_attention_dp));
        json_object_set_new(o, "rl", rl);
    }
    static const char *const parts[GPUECON_COST_PARTS] = {"capital", "colo", "power", "other", "failures", "spares"};
    json_t *cp = json_object();
    for (int k = 0; k < GPUECON_COST_PARTS; k++)
        json_object_set_new(cp, parts[k], rjson_real(p->cost_parts[k]));
    json_object_set_new(o, "cost_parts_usd_per_mtok", cp);
    if (p->mc)
        json_object_set_new(o, "mc",
                            json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "trials", p->mc_result.trials,
                                      "ettr_mean", rjson_real(p->mc_result.ettr_mean), "ettr_p10",
                                      rjson_real(p->mc_result.ettr_p10), "ettr_p50", rjson_real(p->mc_result.ettr_p50),
                                      "ettr_p90", rjson_real(p->mc_result.ettr_p90), "days_p10",
                                      rjson_real(p->mc_result.days_p10), "days_p50", rjson_real(p->mc_result.days_p50),
                                      "days_p90", rjson_real(p->mc_result.days_p90)));
    json_t *tl = json_array();
    for (size_t i = 0; i < p->n_points_used; i++) {
        const gpuecon_timeline_point *pt = &p->points_used[i];
        json_array_append_new(tl, json_pack("{s:s, s:o, s:s, s:o}", "date", pt->date, "tokens_per_s_per_gpu",
                                            rjson_real(pt->tokens_per_s_per_gpu), "stage",
                                            gpuecon_stage_name(pt->source.stage), "source", rjson_source(pt->source)));
    }
    json_object_set_new(o, "timeline_points_used", tl);
    if (p->timeline) {
        json_object_set_new(o, "start_tokens_per_s_per_gpu", rjson_real(p->start_tokens_per_s_per_gpu));
        json_object_set_new(o, "uses_projection", json_boolean(p->uses_projection));
    }
    if (p->life || p->life_why[0]) {
        const gpuecon_life_result *l = p->life_result;
        json_t *lj = json_object();
        if (p->life) {
            json_object_set_new(lj, "life_years", rjson_real(l->life_years));
            json_object_set_new(lj, "utilisation", rjson_real(l->utilisation));
            json_object_set_new(lj, "own_usd_per_mtok", rjson_real(l->own_usd_per_mtok));
            json_object_set_new(lj, "rent_usd_per_mtok", rjson_real(l->rent_usd_per_mtok));
            json_object_set_new(lj, "breakeven_utilisation", rjson_real(l->breakeven_utilisation));
            json_object_set_new(lj, "own_beats_rent_month",
                                l->own_beats_rent_month > 0 ? json_integer(l->own_beats_rent_month) : json_null());
            json_object_set_new(lj, "capex_usd", rjson_real(l->capex_usd));
            json_t *ys = json_array();
            for (size_t i = 0; i < l->n_years; i++)
                json_array_append_new(ys, json_pack("{s:i, s:o, s:o, s:o}", "year", l->years[i].year,
                                                    "tokens_per_s_per_gpu", rjson_real(l->years[i].tokens_per_s_per_gpu),
                                                    "own_usd_per_mtok", rjson_real(l->years[i].own_usd_per_mtok),
                                                    "rent_usd_per_mtok", rjson_real(l->years[i].rent_usd_per_mtok)));
            json_object_set_new(lj, "years", ys);
        } else {
            json_object_set_new(lj, "why", json_string(p->life_why));
        }
        json_object_set_new(o, "life", lj);
    }
    if (p->n_trade) {
        json_t *tr = json_array();
        for (size_t i = 0; i < p->n_trade; i++) {
            const gpuecon_target_row *t = &p->trade[i];
            json_array_append_new(tr, t->ok ? json_pack("{s:i, s:b, s:i, s:o, s:o, s:o, s:o, s:o}", "gpus", t->gpus,
                                                        "ok", 1, "provisioned_gpus", t->provisioned_gpus,
                                                        "tokens_per_s_per_gpu", rjson_real(t->tokens_per_s_per_gpu),
                                                        "ettr", rjson_real(t->ettr), "days_to_train",
                                                        rjson_real(t->days_to_train), "total_usd", rjson_real(t->total_usd),
                                                        "energy_mwh", rjson_real(t->energy_mwh))
                                            : json_pack("{s:i, s:b, s:s}", "gpus", t->gpus, "ok", 0, "why", t->why));
        }
        json_object_set_new(o, "trade", tr);
    }
    json_object_set_new(o, "meets_target", json_boolean(p->meets_target));
    json_object_set_new(o, "sizing", sizing_json(p));
    json_object_set_new(o, "within_budget", json_boolean(p->within_budget));
    json_object_set_new(o, "advantage_vanishes_date",
                        p->advantage_vanishes_date[0] ? json_string(p->advantage_vanishes_date) : json_null());
    if (p->concurrency > 0) {
        json_object_set_new(o, "concurrency", rjson_real(p->concurrency));
        json_object_set_new(o, "output_tokens_per_s", rjson_real(p->output_tokens_per_s));
        json_object_set_new(o, "tpot_ms", rjson_real(p->tpot_ms));
        json_object_set_new(o, "ttft_ms", rjson_real(p->ttft_ms));
        if (p->simulated)
            json_object_set_new(o, "simulated", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "ttft_ms_p50",
                                                          rjson_real(p->ttft_ms_p50), "ttft_ms_p90",
                                                          rjson_real(p->ttft_ms_p90), "ttft_ms_p99",
                                                          rjson_real(p->ttft_ms_p99), "tpot_ms_p50",
                                                          rjson_real(p->tpot_ms_p50), "tpot_ms_p90",
                                                          rjson_real(p->tpot_ms_p90), "tpot_ms_p99",
                                                          rjson_real(p->tpot_ms_p99)));
    }
    return o;
}

/* The closing judgment's rows (docs/cli.md): per operator tier the cheapest platform, its rival
 * (the cheapest other system at the same tier: the same hardware at another tier is no choice)
 * and the fastest. */
static json_t *tiers_json(const gpuecon_comparison_result *cr)
{
    json_t *tj = json_array();
    for (int t = 0; t < 3; t++) {
        int c = cr->tier_cheapest[t], r = cr->tier_runner_up[t], f = cr->tier_fastest[t];
        if (c < 0)
            continue;
        json_t *row = json_pack("{s:s, s:s, s:b, s:o}", "tier", names_tier[t], "cheapest", cr->platforms[c].name,
                                "rack_scale", cr->tier_rack_scale[t], "rank_usd_per_mtok",
                                rjson_real(cr->platforms[c].rank_usd_per_mtok));
        json_object_set_new(row, "runner_up", r >= 0 ? json_string(cr->platforms[r].name) : json_null());
        json_object_set_new(row, "runner_up_rank_usd_per_mtok",
                            r >= 0 ? rjson_real(cr->platforms[r].rank_usd_per_mtok) : json_null());
        json_object_set_new(row, "fastest", f >= 0 ? json_string(cr->platforms[f].name) : json_null());
        json_array_append_new(tj, row);
    }
    return tj;
}

static json_t *breakeven_json(const gpuecon_comparison_result *cr, const gpuecon_breakeven *b, const char *cmp)
{
    json_t *o = json_object();
    if (cmp)
        json_object_set_new(o, "comparison", json_string(cmp));
    json_object_set_new(o, "platform", json_string(cr->platforms[b->platform].name));
    json_object_set_new(o, "rival", json_string(cr->platforms[b->rival].name));
    json_object_set_new(o, "input", json_string(b->input));
    json_object_set_new(o, "label", json_string(gpuecon_input_label(b->input)));
    json_object_set_new(o, "unit", json_string(b->unit));
    json_object_set_new(o, "current", rjson_real(b->current));
    json_object_set_new(o, "breakeven", rjson_real(b->value));
    json_object_set_new(o, "found", json_boolean(b->found));
    json_object_set_new(o, "ratio", rjson_real(b->ratio));
    json_object_set_new(o, "source", rjson_source(b->source));
    json_object_set_new(o, "text", json_string(b->text));
    return o;
}

/* The verdict as fields, beside its text (issue: front ends read the decision without parsing a
 * sentence): the cheapest platform and the runner-up by ranked cost (null when none), the cost ratio
 * cheapest / runner-up (null without a runner-up), and the flips: each input that, moved to the
 * value given, would swap a platform with its rival (the breakeven entries found within a factor of
 * 100; those not found are not flips), cheapest first as the text lists them. `comparison`: the
 * comparison's name, for the list at the top of the document (NULL inside a comparison). */
static json_t *verdict_fields_json(const gpuecon_comparison_result *cr, const char *comparison)
{
    json_t *o = json_object();
    if (comparison)
        json_object_set_new(o, "comparison", json_string(comparison));
    json_object_set_new(o, "cheapest", cr->cheapest >= 0 ? json_string(cr->platforms[cr->cheapest].name) : json_null());
    json_object_set_new(o, "runner_up",
                        cr->runner_up >= 0 ? json_string(cr->platforms[cr->runner_up].name) : json_null());
    json_object_set_new(o, "cost_ratio", cr->runner_up >= 0 ? rjson_real(cr->base_ratio) : json_null());
    json_t *flips = json_array();
    for (size_t i = 0; i < cr->n_breakeven; i++) {
        const gpuecon_breakeven *b = &cr->breakeven[i];
        if (b->found)
            json_array_append_new(flips, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "platform",
                                                   cr->platforms[b->platform].name, "rival",
                                                   cr->platforms[b->rival].name, "input", b->input, "label",
                                                   gpuecon_input_label(b->input), "unit", b->unit, "current",
                                                   rjson_real(b->current), "at", rjson_real(b->value)));
    }
    json_object_set_new(o, "flips", flips);
    return o;
}

static json_t *comparison_json(const gpuecon_comparison_result *cr)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(cr->name));
    json_object_set_new(o, "title", json_string(cr->title ? cr->title : cr->name));
    json_object_set_new(o, "kind", json_string(cr->kind == GPUECON_WORKLOAD_TRAIN ? "train"
                                               : cr->kind == GPUECON_WORKLOAD_RL ? "rl" : "serve"));
    json_t *ps = json_array();
    for (size_t i = 0; i < cr->n_platforms; i++)
        json_array_append_new(ps, platform_json(&cr->platforms[i], NULL, cr->uncertainty_samples));
    json_object_set_new(o, "platforms", ps);
    json_object_set_new(o, "cheapest", cr->cheapest >= 0 ? json_string(cr->platforms[cr->cheapest].name) : json_null());
    json_object_set_new(o, "fastest", cr->fastest >= 0 ? json_string(cr->platforms[cr->fastest].name) : json_null());
    json_object_set_new(o, "cost_ratio", rjson_real(cr->base_ratio));
    json_object_set_new(o, "verdict", json_string(cr->verdict));
    json_object_set_new(o, "verdict_fields", verdict_fields_json(cr, NULL));
    if (cr->uncertainty_samples > 0)
        json_object_set_new(o, "uncertainty_samples", json_integer(cr->uncertainty_samples));
    json_object_set_new(o, "caveats", json_string(cr->caveats));
    json_object_set_new(o, "batch_penalty", json_boolean(cr->batch_penalty));
    json_object_set_new(o, "fastest_within_budget", cr->fastest_within_budget >= 0
                                                        ? json_string(cr->platforms[cr->fastest_within_budget].name)
                                                        : json_null());
    if (cr->tier_analysis) {
        json_object_set_new(o, "tiers", tiers_json(cr));
        json_object_set_new(o, "tier_judgment", json_string(cr->tier_text));
    }
    json_object_set_new(o, "flip_tier", cr->flip_tier[0] ? json_string(cr->flip_tier) : json_null());
    json_object_set_new(o, "breakeven_date", cr->breakeven_date[0] ? json_string(cr->breakeven_date) : json_null());
    json_object_set_new(o, "timeline", json_string(cr->timeline_text));
    json_t *ser = json_array();
    for (size_t i = 0; i < cr->n_series; i++)
        json_array_append_new(ser, json_pack("{s:s, s:s, s:s, s:o, s:o, s:b}", "date", cr->series[i].date, "leader",
                                             cr->platforms[cr->series_leader].name, "other",
                                             cr->platforms[cr->series_other].name, "perf_per_tco",
                                             rjson_real(cr->series[i].perf_per_tco), "effective_ratio",
                                             rjson_real(cr->series[i].effective_ratio), "projection",
                                             cr->series[i].projection));
    json_object_set_new(o, "timeline_series", ser);
    json_t *be = json_array();
    for (size_t i = 0; i < cr->n_breakeven; i++)
        json_array_append_new(be, breakeven_json(cr, &cr->breakeven[i], NULL));
    json_object_set_new(o, "breakeven", be);
    json_t *se = json_array();
    for (size_t i = 0; i < cr->n_sensitivity; i++) {
        const gpuecon_sensitivity *s = &cr->sensitivity[i];
        json_array_append_new(se, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:o}", "platform",
                                            cr->platforms[s->platform].name, "input", s->input, "label",
                                            gpuecon_input_label(s->input), "low", rjson_real(s->low),
                                            "high", rjson_real(s->high), "ratio_low", rjson_real(s->ratio_low),
                                            "ratio_high", rjson_real(s->ratio_high), "swing", rjson_real(s->swing),
                                            "range", s->range, "source", rjson_source(s->source)));
    }
    json_object_set_new(o, "sensitivity", se);
    return o;
}

static json_t *compare_json(const void *view)
{
    const compare_view *v = view;
    const gpuecon_scenario *sc = v->scenario;
    const gpuecon_compare_result *r = v->result;
    json_t *j = json_object();
    json_object_set_new(j, "scenario", json_string(gpuecon_scenario_name(sc)));
    json_object_set_new(j, "title", json_string(gpuecon_scenario_title(sc) ? gpuecon_scenario_title(sc) : ""));
    json_t *cmps = json_array(), *all = json_array(), *be = json_array(), *vf = json_array();
    char verdict[8192] = "";
    for (size_t i = 0; i < r->n; i++) {
        const gpuecon_comparison_result *cr = &r->cmp[i];
        json_array_append_new(cmps, comparison_json(cr));
        json_array_append_new(vf, verdict_fields_json(cr, cr->name));
        for (size_t k = 0; k < cr->n_platforms; k++)
            json_array_append_new(all, platform_json(&cr->platforms[k], cr->name, cr->uncertainty_samples));
        for (size_t k = 0; k < cr->n_breakeven; k++)
            json_array_append_new(be, breakeven_json(cr, &cr->breakeven[k], cr->name));
        size_t len = strlen(verdict);
        snprintf(verdict + len, sizeof verdict - len, "%s%s: %s", i ? "\n" : "", cr->name, cr->verdict);
    }
    json_object_set_new(j, "comparisons", cmps);
    json_object_set_new(j, "platforms", all);
    json_object_set_new(j, "verdict", json_string(verdict));
    json_object_set_new(j, "verdicts", vf);
    json_object_set_new(j, "summary", compare_summary_json(r)); /* the first screen's fields (summary.c) */
    json_object_set_new(j, "breakeven", be);
    json_t *labels = json_object(); /* the human labels of the inputs (gpuecon_input_label) */
    const char *in, *label;
    for (size_t i = 0; gpuecon_input_label_at(i, &in, &label); i++)
        json_object_set_new(labels, in, json_string(label));
    json_object_set_new(j, "labels", labels);
    json_object_set_new(j, "elapsed_s", rjson_real(v->elapsed_s));
    return j;
}

/* One row per platform of every comparison, its figures unformatted: the CSV form. */
static tbl *compare_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const gpuecon_compare_result *r = ((const compare_view *)view)->result;
    tbl *t = tbl_new(ctx, oom);
    static const char *const cols[] = {"comparison", "platform", "system", "feasible", "gpus", "tokens_per_s_per_gpu",
                                       "throughput_basis", "predicted_tokens_per_s_per_gpu", "tco_usd_per_gpu_hour",
                                       "usd_per_mtok", "ettr", "effective_usd_per_mtok",
                                       "effective_usd_per_mtok_without_spares", "joules_per_token", "days_to_train",
                                       "total_usd", "energy_mwh", "tpot_ms", "ttft_ms",
                                       "ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p99", "tpot_ms_p90", "tpot_ms_p99"};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        tbl_col(t, cols[k], 'l');
    band_cols(t, "tokens_per_s_per_gpu"); /* the 80% band of a predicted throughput (docs/model.md §7.6) */
    band_cols(t, "tpot_ms");              /* a serving platform's latencies at its load */
    band_cols(t, "ttft_ms");
    band_cols(t, "rl_step_time_s");       /* an RL platform's step */
    /* --uncertainty N: the joint samples (docs/model.md §7.5); empty without them or where not applicable */
    static const char *const joint_cols[] = {"probability_cheapest", "effective_usd_per_mtok_p10",
                                             "effective_usd_per_mtok_p50", "effective_usd_per_mtok_p90",
                                             "probability_meets_target", "probability_lower_load",
                                             "probability_within_budget"};
    for (size_t k = 0; k < sizeof joint_cols / sizeof joint_cols[0]; k++)
        tbl_col(t, joint_cols[k], 'l');
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; k < r->cmp[i].n_platforms; k++) {
            const gpuecon_platform_result *p = &r->cmp[i].platforms[k];
            tbl_row(t);
            tbl_str(t, r->cmp[i].name);
            tbl_str(t, p->name);
            tbl_str(t, p->system);
            tbl_str(t, p->feasible ? "true" : "false");
            tbl_fmt(t, "%d", p->gpus);
            double v[] = {p->tokens_per_s_per_gpu, NAN, p->predicted_tokens_per_s_per_gpu, p->tco_usd_per_gpu_hour,
                          p->usd_per_mtok, p->ettr, p->effective_usd_per_mtok,
                          p->effective_usd_per_mtok_without_spares, p->joules_per_token, p->days_to_train,
                          p->total_usd, p->energy_mwh, p->tpot_ms, p->concurrency > 0 ? p->ttft_ms : NAN,
                          p->simulated ? p->ttft_ms_p50 : NAN, p->simulated ? p->ttft_ms_p90 : NAN,
                          p->simulated ? p->ttft_ms_p99 : NAN, p->simulated ? p->tpot_ms_p90 : NAN,
                          p->simulated ? p->tpot_ms_p99 : NAN};
            for (size_t q = 0; q < sizeof v / sizeof v[0]; q++) {
                if (q == 1)
                    tbl_str(t, p->measured ? "measured" : "predicted");
                else if (isfinite(v[q]))
                    tbl_fmt(t, "%.10g", v[q]);
                else
                    tbl_str(t, "");
            }
            band_cells(t, &p->band, 1);
            band_cells(t, &p->band_tpot, 2);
            band_cells(t, &p->band_ttft, 2);
            band_cells(t, &p->band_rl_step, 2);
            bool joint = r->cmp[i].uncertainty_samples > 0 && p->feasible;
            double u[] = {p->probability_cheapest, p->effective_usd_per_mtok_p10, p->effective_usd_per_mtok_p50,
                          p->effective_usd_per_mtok_p90, p->probability_meets_target, p->probability_lower_load,
                          p->probability_within_budget};
            for (size_t q = 0; q < sizeof u / sizeof u[0]; q++) {
                if (joint && isfinite(u[q]))
                    tbl_fmt(t, "%.10g", u[q]);
                else
                    tbl_str(t, "");
            }
        }
    return t;
}

/* The terminal form: each comparison in turn (the CSV table is not part of it). */
static void compare_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const compare_view *v = view;
    const gpuecon_scenario *sc = v->scenario;
    (void)t;
    sb_printf(f, "%s\n\n", gpuecon_scenario_title(sc) ? gpuecon_scenario_title(sc) : gpuecon_scenario_name(sc));
    compare_summary_text(f, v->result); /* the first screen (summary.c); --summary: nothing else */
    if (v->summary_only) {
        sb_printf(f, "\n(%.2f s; 'gpuecon compare' without --summary for the details)\n", v->elapsed_s);
        return;
    }
    for (size_t i = 0; i < v->result->n; i++)
        print_comparison(out, &v->result->cmp[i]);
    sb_printf(f, "\n(%.2f s; 'gpuecon compare --help' for options, --format html -o FILE for a report)\n", v->elapsed_s);
}

static void compare_html(strbuf *b, const void *view)
{
    const compare_view *v = view;
    report_html(b, v->scenario, v->result);
}

const render_kind render_compare = {compare_json, compare_table, compare_text, compare_html};
