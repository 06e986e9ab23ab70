/*
 * serving_search.c — `gpuecon infer --search` rendered: the ranked configurations that meet the
 * TTFT and TPOT targets, why the runner-up lost, and the Pareto frontier of tokens/s/GPU against
 * tokens/s/user, as JSON or a table (terminal and CSV).
 */
#include "render/render.h"

#include <math.h>
#include <stdio.h>

/* One configuration; with_capacity for the ranked ones, the only ones that have it. */
static json_t *config_json(const gpuecon_serve_config *c, bool with_capacity, const serve_bands *b)
{
    json_t *j = json_object();
    json_object_set_new(j, "config", json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:b}", "gpus", c->gpus, "tp",
                                               c->tp, "replicas", c->replicas, "weights",
                                               gpuecon_precision_name(c->weights), "kv",
                                               gpuecon_precision_name(c->kv), "draft", c->draft_k, "max_num_seqs",
                                               c->max_num_seqs, "max_num_batched_tokens",
                                               c->max_num_batched_tokens, "expert_parallel", c->expert_parallel));
    json_object_set_new(json_object_get(j, "config"), "attention_dp", json_boolean(c->attention_dp));
    json_object_set_new(json_object_get(j, "config"), "redundant_experts", json_integer(c->redundant_experts));
    json_object_set_new(json_object_get(j, "config"), "pp", json_integer(c->pp > 1 ? c->pp : 1));
    json_object_set_new(json_object_get(j, "config"), "long_prefill_token_threshold",
                        json_integer(c->long_prefill_token_threshold));
    json_object_set_new(j, "concurrency", rjson_real(c->concurrency));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(c->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", rjson_real(c->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "tokens_per_s_per_user", rjson_real(c->tokens_per_s_per_user));
    json_object_set_new(j, "ttft_ms", rjson_real(c->ttft_ms));
    json_object_set_new(j, "tpot_ms", rjson_real(c->tpot_ms));
    json_object_set_new(j, "usd_per_mtok", c->usd_per_mtok > 0 ? rjson_real(c->usd_per_mtok) : json_null());
    json_object_set_new(j, "simulated", json_boolean(c->simulated));
    json_object_set_new(j, "analytic_ttft_ms", rjson_real(c->analytic_ttft_ms));
    json_object_set_new(j, "analytic_tpot_ms", rjson_real(c->analytic_tpot_ms));
    json_object_set_new(j, "e2e_ms", rjson_real(c->e2e_ms));
    if (with_capacity)
        json_object_set_new(j, "capacity_tokens_per_s_per_gpu", rjson_real(c->capacity_tokens_per_s_per_gpu));
    if (b) { /* the bands of the figures at the operating point (docs/cli.md) */
        figband_add(j, "output_tokens_per_s", &b->tps, c->gpus);
        figband_add(j, "output_tokens_per_s_per_gpu", &b->tps, 1);
        figband_add(j, "ttft_ms", &b->ttft, 1);
        figband_add(j, "tpot_ms", &b->tpot, 1);
    }
    return j;
}

/* "TP4", "TP1 PP4" or, attention data-parallel over an expert-parallel group, "DP8+EP8". */
static void label(char *buf, size_t cap, const gpuecon_serve_config *c)
{
    if (c->attention_dp)
        snprintf(buf, cap, "DP%d+EP%d", c->tp, c->tp);
    else if (c->pp > 1)
        snprintf(buf, cap, "TP%d PP%d", c->tp, c->pp);
    else
        snprintf(buf, cap, "TP%d", c->tp);
}

static void describe(char *buf, size_t cap, const gpuecon_serve_config *c)
{
    char layout[112];
    if (c->attention_dp) { /* tp is the expert-parallel group, one scheduler per GPU: the label's
                              DPn+EPn, times the groups the GPUs hold */
        int groups = c->tp > 0 ? c->gpus / c->tp : 1;
        char red[40] = "";
        if (c->redundant_experts > 0) /* docs/model.md §6.5 EP1 */
            snprintf(red, sizeof red, " (%d redundant experts)", c->redundant_experts);
        if (groups > 1)
            snprintf(layout, sizeof layout, "attention-DP %d + EP %d%s x %d", c->tp, c->tp, red, groups);
        else
            snprintf(layout, sizeof layout, "attention-DP %d + EP %d%s", c->tp, c->tp, red);
    } else
        snprintf(layout, sizeof layout, "TP %d x PP %d x %d%s", c->tp, c->pp > 1 ? c->pp : 1, c->replicas,
                 c->expert_parallel ? " EP" : "");
    int n = snprintf(buf, cap, "%s, %s/%s, draft %d, max_num_seqs %d, chunk %d", layout,
                     gpuecon_precision_name(c->weights), gpuecon_precision_name(c->kv), c->draft_k, c->max_num_seqs,
                     c->max_num_batched_tokens);
    if (c->long_prefill_token_threshold > 0 && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", prompt cap %d", c->long_prefill_token_threshold);
}

/* Why the runner-up lost: the objective gap and where it stands on each target. A runner-up
 * the analytic screen scores higher lost only because the simulator did not confirm it (the
 * ranking puts confirmed configurations first), and the text says so instead of a negative gap. */
static void why(char *buf, size_t cap, const gpuecon_serve_search_request *q, const gpuecon_serve_search_result *o)
{
    if (o->nbest < 2) {
        snprintf(buf, cap, o->nbest ? "no runner-up: one configuration meets the targets"
                                    : "no configuration meets the targets");
        return;
    }
    const gpuecon_serve_config *a = &o->best[0], *b = &o->best[1];
    char d[224];
    describe(d, sizeof d, b);
    bool cost = q->objective == GPUECON_SERVE_COST;
    double gap = cost ? b->usd_per_mtok / a->usd_per_mtok - 1
                      : 1 - b->output_tokens_per_s_per_gpu / a->output_tokens_per_s_per_gpu;
    if (q->rate > 0 && a->keeps_up && b->keeps_up && a->gpus == b->gpus) {
        /* the objective ties (the same tokens on the same GPUs, so the same cost): the tie rule decided */
        double ca = a->capacity_tokens_per_s_per_gpu, cb = b->capacity_tokens_per_s_per_gpu;
        const char *unconf = b->simulated ? "" : "; not confirmed by the simulator";
        int n = snprintf(buf, cap, "runner-up (%s) serves the same %s requests/s on the same %d GPUs, and ties go to "
                         "the capacity within the targets: ", d, NUM_SIG(q->rate, 6), b->gpus);
        size_t at = n > 0 && (size_t)n < cap ? (size_t)n : cap - 1;
        bool differ = fabs(ca - cb) > GPUECON_SERVE_CAPACITY_TIE * fmax(ca, cb);
        if (a->simulated && !b->simulated && (differ ? cb > ca : b->e2e_ms < a->e2e_ms))
            /* it ranks lower only because confirmed ones come first (its latency is a mean, the
             * winner's a percentile) */
            snprintf(buf + at, cap - at, "it %s (%.0f vs %.0f tokens/s/GPU; %.0f vs %.0f ms) but is unconfirmed: the "
                     "simulator ran only the leading candidates (--confirm), and confirmed ones rank first",
                     differ ? "has the higher capacity" : "has an equal capacity and a lower mean latency", cb, ca,
                     b->e2e_ms, a->e2e_ms);
        else if (differ)
            snprintf(buf + at, cap - at, "%.1f%% less, %.0f vs %.0f tokens/s/GPU%s", (1 - cb / ca) * 100, cb, ca, unconf);
        else
            snprintf(buf + at, cap - at, "%.0f vs %.0f tokens/s/GPU, equal within %s%%, so the lower request latency "
                     "wins: %.0f vs %.0f ms%s", cb, ca, NUM_SIG(GPUECON_SERVE_CAPACITY_TIE * 100, 6), b->e2e_ms, a->e2e_ms, unconf);
        return;
    }
    if (gap < 0 && a->simulated && !b->simulated) {
        snprintf(buf, cap, "runner-up (%s) scores %.1f%% better by the analytic screen (%.*f vs %.*f %s) but is "
                 "unconfirmed: the simulator ran only the leading candidates (--confirm), and confirmed ones rank "
                 "first", d, -gap * 100, cost ? 4 : 0, cost ? b->usd_per_mtok : b->output_tokens_per_s_per_gpu,
                 cost ? 4 : 0, cost ? a->usd_per_mtok : a->output_tokens_per_s_per_gpu, cost ? "$/Mtok" : "tokens/s/GPU");
        return;
    }
    if (cost)
        /* the one framing of a difference (num_below): the best is "N% below" the runner-up */
        snprintf(buf, cap, "the best is %s the runner-up (%s) per Mtok (%s vs %s)%s",
                 NUM_BELOW(a->usd_per_mtok, b->usd_per_mtok), d, NUM_MONEY(a->usd_per_mtok),
                 NUM_MONEY(b->usd_per_mtok), b->simulated ? "" : "; not confirmed by the simulator");
    else
        snprintf(buf, cap, "runner-up (%s) serves %.1f%% fewer tokens/s/GPU (%.0f vs %.0f) at TTFT %.0f ms, TPOT %.1f ms%s",
                 d, gap * 100, b->output_tokens_per_s_per_gpu, a->output_tokens_per_s_per_gpu, b->ttft_ms, b->tpot_ms,
                 b->simulated ? "" : "; not confirmed by the simulator");
}

/* What the search chose about precision on its own (the user fixed neither with --weights/--kv): the
 * best configuration's weights and KV when not BF16, and a quality caveat for 4-bit weights. ""
 * when the precisions were the user's or the best runs at BF16. */
static void precision_note(char *buf, size_t cap, const gpuecon_serve_search_request *q,
                           const gpuecon_serve_search_result *o)
{
    buf[0] = '\0';
    const gpuecon_serve_config *b = o->nbest > 0 ? &o->best[0] : NULL;
    if (!b)
        return;
    bool w = !q->fixed_weights && b->weights != GPUECON_BF16, kv = !q->fixed_kv && b->kv != GPUECON_BF16;
    if (!w && !kv)
        return;
    char what[96];
    if (w && kv)
        snprintf(what, sizeof what, "%s weights and a %s KV cache", gpuecon_precision_name(b->weights),
                 gpuecon_precision_name(b->kv));
    else if (w)
        snprintf(what, sizeof what, "%s weights", gpuecon_precision_name(b->weights));
    else
        snprintf(what, sizeof what, "a %s KV cache", gpuecon_precision_name(b->kv));
    snprintf(buf, cap, "The search chose %s on its own (%s holds a precision fixed)%s", what,
             w && kv ? "--weights or --kv" : w ? "--weights" : "--kv",
             w && b->weights == GPUECON_FP4
                 ? "; FP4 weights change the model's outputs: check accuracy on your own evaluations before "
                   "comparing them with a higher-precision deployment."
                 : ".");
}

/* The sizing at a rate (docs/model.md §6.12, "Sizing at a rate"): null when not sized. */
static json_t *sizing_json(const gpuecon_serve_size_result *z)
{
    if (!z)
        return json_null();
    return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:b}", "unit", z->unit, "unit_gpus", z->unit_gpus, "units",
                     z->units, "gpus", z->gpus, "max_units", z->max_units, "searches", z->searches, "feasible",
                     z->feasible, "fewer_units_missed", z->fewer_missed);
}

/* "sized: 3 servers of 8 GPUs (24 GPUs) ..." under the heading, when sized. */
static void sizing_text(strbuf *f, const gpuecon_serve_search_request *q, const gpuecon_serve_size_result *z)
{
    if (!z)
        return;
    if (!z->feasible) {
        sb_printf(f, "sized: no count of %ss (%d GPUs each) up to %d (%d GPUs) meets the targets at %g requests/s; "
                  "shown: the closest at %d GPUs (%d counts searched)\n", z->unit, z->unit_gpus, z->max_units,
                  z->max_units * z->unit_gpus, q->rate, z->gpus, z->searches);
        return;
    }
    sb_printf(f, "sized: %d %s%s of %d GPUs (%d GPUs), the fewest whose best configuration meets the targets at %g "
              "requests/s", z->units, z->unit, z->units == 1 ? "" : "s", z->unit_gpus, z->gpus, q->rate);
    if (z->fewer_missed)
        sb_printf(f, "; %d %s%s (%d GPUs) miss", z->units - 1, z->unit, z->units - 1 == 1 ? "" : "s",
                  z->gpus - z->unit_gpus);
    sb_printf(f, " (%d count%s searched, up to %d %ss)\n", z->searches, z->searches == 1 ? "" : "s", z->max_units,
              z->unit);
}

static json_t *search_json(const void *view)
{
    const infer_search_view *v = view;
    const gpuecon_serve_search_request *q = v->request;
    const gpuecon_serve_search_result *o = v->result;
    char w[512];
    why(w, sizeof w, q, o);
    json_t *j = json_object(), *best = json_array(), *fr = json_array();
    for (int i = 0; i < o->nbest; i++)
        json_array_append_new(best, config_json(&o->best[i], true, v->best_bands ? &v->best_bands[i] : NULL));
    for (int i = 0; i < o->nfrontier; i++)
        json_array_append_new(fr, config_json(&o->frontier[i], false,
                                              v->frontier_bands ? &v->frontier_bands[i] : NULL));
    json_object_set_new(j, "model", json_string(q->base.model->name));
    json_object_set_new(j, "stack", json_string(gpuecon_serving_profile_label(&q->base.profile)));
    json_object_set_new(j, "system", json_string(q->base.system->name));
    rjson_power(j, q->base.system);
    json_object_set_new(j, "objective", json_string(v->objective));
    json_object_set_new(j, "ttft_target_ms", q->ttft_ms > 0 ? rjson_real(q->ttft_ms) : json_null());
    json_object_set_new(j, "tpot_target_ms", q->tpot_ms > 0 ? rjson_real(q->tpot_ms) : json_null());
    json_object_set_new(j, "slo_percentile", rjson_real(q->slo_percentile));
    json_object_set_new(j, "feasible", json_boolean(o->feasible));
    json_object_set_new(j, "best", best);
    json_object_set_new(j, "why_runner_up_lost", json_string(w));
    char pn[400];
    precision_note(pn, sizeof pn, q, o);
    json_object_set_new(j, "precision_note", pn[0] ? json_string(pn) : json_null());
    json_object_set_new(j, "precisions_fixed", json_pack("{s:b, s:b}", "weights", q->fixed_weights, "kv", q->fixed_kv));
    json_object_set_new(j, "frontier", fr);
    json_object_set_new(j, "closest", o->feasible ? json_null() : config_json(&o->closest, false, v->closest_bands));
    json_object_set_new(j, "miss_ttft_ms", rjson_real(o->miss_ttft_ms));
    json_object_set_new(j, "miss_tpot_ms", rjson_real(o->miss_tpot_ms));
    json_object_set_new(j, "configs_evaluated", json_integer(o->configs_evaluated));
    json_object_set_new(j, "elapsed_s", rjson_real(v->elapsed_s));
    json_object_set_new(j, "sizing", sizing_json(v->sizing));
    return j;
}

/* With a rate or a concurrency the operating point is not the capacity: both are shown. */
static bool capacity_column(const gpuecon_serve_search_request *q)
{
    return q->rate > 0 || q->concurrency > 0;
}

static tbl *search_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const infer_search_view *v = view;
    const gpuecon_serve_search_result *o = v->result;
    bool capcol = capacity_column(v->request);
    tbl *tb = tbl_new(ctx, oom);
    const serve_bands *bb = v->best_bands;
    const char *cols[] = {"rank", "TP", "PP", "replicas", "weights", "KV", "draft", "max seqs", "chunk", "prompt cap",
                          "requests", "tok/s/GPU", "80% band", "capacity", "tok/s/user", "TTFT ms", "80% band",
                          "TPOT ms", "80% band", "$/Mtok", "checked"};
    for (int i = 0; i < 21; i++)
        if ((i != 13 || capcol) && (bb || (i != 12 && i != 16 && i != 18)))
            tbl_col(tb, cols[i], i == 4 || i == 5 || i == 20 ? 'l' : 'r');
    for (int i = 0; i < o->nbest; i++) {
        const gpuecon_serve_config *b = &o->best[i];
        tbl_row(tb);
        tbl_num(tb, i + 1, 0);
        if (b->attention_dp)
            tbl_fmt(tb, "DP%d+EP%d", b->tp, b->tp);
        else
            tbl_num(tb, b->tp, 0);
        tbl_num(tb, b->pp > 1 ? b->pp : 1, 0);
        tbl_num(tb, b->replicas, 0);
        tbl_str(tb, gpuecon_precision_name(b->weights));
        tbl_str(tb, gpuecon_precision_name(b->kv));
        tbl_num(tb, b->draft_k, 0);
        tbl_num(tb, b->max_num_seqs, 0);
        tbl_num(tb, b->max_num_batched_tokens, 0);
        if (b->long_prefill_token_threshold > 0)
            tbl_num(tb, b->long_prefill_token_threshold, 0);
        else
            tbl_str(tb, "none");
        tbl_num(tb, b->concurrency, 0);
        tbl_num(tb, b->output_tokens_per_s_per_gpu, 1);
        if (bb)
            figband_cell(tb, &bb[i].tps, 1, 0);
        if (capcol)
            tbl_num(tb, b->capacity_tokens_per_s_per_gpu, 0);
        tbl_num(tb, b->tokens_per_s_per_user, 1);
        tbl_num(tb, b->ttft_ms, 1);
        if (bb)
            figband_cell(tb, &bb[i].ttft, 1, 1);
        tbl_num(tb, b->tpot_ms, 2);
        if (bb)
            figband_cell(tb, &bb[i].tpot, 1, 2);
        tbl_num(tb, b->usd_per_mtok, 4);
        tbl_str(tb, b->simulated ? "simulated" : "analytic");
    }
    return tb;
}

static void search_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const infer_search_view *v = view;
    const gpuecon_serve_search_request *q = v->request;
    const gpuecon_serve_search_result *o = v->result;
    char w[512];
    why(w, sizeof w, q, o);
    char ttft[32] = "none", tpot[32] = "none"; /* 0: no target */
    if (q->ttft_ms > 0)
        snprintf(ttft, sizeof ttft, "%s ms", NUM_SIG(q->ttft_ms, 6));
    if (q->tpot_ms > 0)
        snprintf(tpot, sizeof tpot, "%s ms", NUM_SIG(q->tpot_ms, 6));
    sb_printf(f, "%s on %s, stack %s: best of %ld configurations (%.2f s); targets TTFT %s, TPOT %s at P%s\n",
            q->base.model->name, q->base.system->name, gpuecon_serving_profile_label(&q->base.profile), o->configs_evaluated, v->elapsed_s, ttft, tpot,
            NUM_SIG(q->slo_percentile, 6));
    char pw[160];
    if (*fmt_power(pw, sizeof pw, q->base.system))
        sb_printf(f, "power limit: %s\n", pw);
    sizing_text(f, q, v->sizing);
    if (q->rate > 0)
        sb_printf(f, "at %s requests/s every configuration that keeps up serves the same tokens: ties go to capacity "
                "(tokens/s/GPU at the largest load within the targets)\n", NUM_SIG(q->rate, 6));
    else if (capacity_column(q))
        sb_printf(f, "capacity: tokens/s/GPU at the largest load within the targets, beside the %s requests in flight\n",
                NUM_SIG(q->concurrency, 6));
    sb_printf(f, "\n");
    tbl_print(tb, f);
    if (v->best_bands && o->nbest > 0)
        figband_bases(f, v->best_bands, (size_t)o->nbest);
    char pn[400];
    precision_note(pn, sizeof pn, q, o);
    sb_printf(f, "\n%s%s%s\n\nPareto frontier (mean field, not simulated; tokens/s/user -> tokens/s/GPU):", w,
              pn[0] ? "\n" : "", pn);
    for (int i = 0; i < o->nfrontier; i += o->nfrontier / 10 + 1) {
        char l[32];
        label(l, sizeof l, &o->frontier[i]);
        sb_printf(f, " %.0f->%.0f (%s)", o->frontier[i].tokens_per_s_per_user,
                o->frontier[i].output_tokens_per_s_per_gpu, l);
    }
    sb_printf(f, "\n");
}

const render_kind render_infer_search = {search_json, search_table, search_text, NULL};
