/*
 * cmd_infer_search.c — `gpuecon infer --search`: which serving configuration meets the TTFT and
 * TPOT targets at the best throughput per GPU or the lowest cost (gpuecon_infer_search,
 * docs/model.md §6.12): the ranked best, why the runner-up lost, the Pareto frontier of
 * tokens/s/GPU against tokens/s/user (--plot FILE.svg), as a table or JSON (docs/cli.md).
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <math.h>
#include <string.h>

static const char *const objective_names[] = {"throughput", "cost", NULL};

size_t cmd_infer_search_opts(infer_search_args *s, opt *out, size_t cap)
{
    opt o[] = {
        {"--search", O_FLAG, &s->search, 0, 0, NULL, NULL, "search layouts, precisions, drafts, engine limits under the targets", NULL, false},
        {"--objective", O_CHOICE, &s->objective, 0, 0, objective_names, "O", "throughput (tokens/s/GPU) | cost ($/Mtok)", NULL, false},
        {"--search-gpus", O_LIST, &s->gpus, 1, 1e6, NULL, "LIST", "GPU counts to search, a list or a range A-B (A doubled up to B; default --gpus)", NULL, false},
        {"--max-draft", O_INT, &s->max_draft, 0, 8, NULL, "K", "draft lengths 0..K (needs --accept)", NULL, false},
        {"--confirm", O_INT, &s->confirm, 0, 24, NULL, "N", "best configurations re-checked by the simulator (3)", NULL, false},
        {"--top", O_INT, &s->top, 1, GPUECON_SERVE_TOP, NULL, "N", "configurations listed (5)", NULL, false},
    };
    size_t n = sizeof o / sizeof o[0];
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = o[i];
    return n;
}

void cmd_infer_search_defaults(infer_search_args *s)
{
    memset(s, 0, sizeof *s);
    s->confirm = 3;
    s->top = 5;
}

/* One configuration; with_capacity for the ranked ones, the only ones that have it. */
static json_t *config_json(const gpuecon_serve_config *c, bool with_capacity)
{
    json_t *j = json_object();
    json_object_set_new(j, "config", json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:b}", "gpus", c->gpus, "tp",
                                               c->tp, "replicas", c->replicas, "weights",
                                               gpuecon_precision_name(c->weights), "kv",
                                               gpuecon_precision_name(c->kv), "draft", c->draft_k, "max_num_seqs",
                                               c->max_num_seqs, "max_num_batched_tokens",
                                               c->max_num_batched_tokens, "expert_parallel", c->expert_parallel));
    json_object_set_new(json_object_get(j, "config"), "attention_dp", json_boolean(c->attention_dp));
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
    char layout[64];
    if (c->attention_dp) { /* tp is the expert-parallel group, one scheduler per GPU: the label's
                              DPn+EPn, times the groups the GPUs hold */
        int groups = c->tp > 0 ? c->gpus / c->tp : 1;
        if (groups > 1)
            snprintf(layout, sizeof layout, "attention-DP %d + EP %d x %d", c->tp, c->tp, groups);
        else
            snprintf(layout, sizeof layout, "attention-DP %d + EP %d", c->tp, c->tp);
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
    char d[160];
    describe(d, sizeof d, b);
    bool cost = q->objective == GPUECON_SERVE_COST;
    double gap = cost ? b->usd_per_mtok / a->usd_per_mtok - 1
                      : 1 - b->output_tokens_per_s_per_gpu / a->output_tokens_per_s_per_gpu;
    if (q->rate > 0 && a->keeps_up && b->keeps_up && a->gpus == b->gpus) {
        /* the objective ties (the same tokens on the same GPUs, so the same cost): the tie rule decided */
        double ca = a->capacity_tokens_per_s_per_gpu, cb = b->capacity_tokens_per_s_per_gpu;
        const char *unconf = b->simulated ? "" : "; not confirmed by the simulator";
        int n = snprintf(buf, cap, "runner-up (%s) serves the same %g requests/s on the same %d GPUs, and ties go to "
                         "the capacity within the targets: ", d, q->rate, b->gpus);
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
            snprintf(buf + at, cap - at, "%.0f vs %.0f tokens/s/GPU, equal within %g%%, so the lower request latency "
                     "wins: %.0f vs %.0f ms%s", cb, ca, GPUECON_SERVE_CAPACITY_TIE * 100, b->e2e_ms, a->e2e_ms, unconf);
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
        snprintf(buf, cap, "runner-up (%s) costs %.1f%% more per Mtok (%.3f vs %.3f $)%s", d, gap * 100,
                 b->usd_per_mtok, a->usd_per_mtok, b->simulated ? "" : "; not confirmed by the simulator");
    else
        snprintf(buf, cap, "runner-up (%s) serves %.1f%% fewer tokens/s/GPU (%.0f vs %.0f) at TTFT %.0f ms, TPOT %.1f ms%s",
                 d, gap * 100, b->output_tokens_per_s_per_gpu, a->output_tokens_per_s_per_gpu, b->ttft_ms, b->tpot_ms,
                 b->simulated ? "" : "; not confirmed by the simulator");
}

static int plot_frontier(cli *c, const char *path, const gpuecon_serve_search_request *q,
                         const gpuecon_serve_search_result *o)
{
    double x[GPUECON_SERVE_FRONTIER], y[GPUECON_SERVE_FRONTIER];
    for (int i = 0; i < o->nfrontier; i++) {
        x[i] = o->frontier[i].tokens_per_s_per_user;
        y[i] = o->frontier[i].output_tokens_per_s_per_gpu;
    }
    char title[256];
    snprintf(title, sizeof title, "%s on %s: Pareto frontier", q->base.model->name, q->base.system->name);
    plot_series s[1] = {{"best configuration at each interactivity", x, y, (size_t)o->nfrontier, false}};
    plot_spec spec = {title, "output tokens/s per user", "output tokens/s per GPU", NULL, true, true, 0, 0};
    return cli_plot(c, path, &spec, s, 1, true, false);
}

static int print(cli *c, const gpuecon_serve_search_request *q, const gpuecon_serve_search_result *o, double elapsed,
                 int status)
{
    char w[512];
    why(w, sizeof w, q, o);
    if (c->format == FMT_JSON) {
        json_t *j = json_object(), *best = json_array(), *fr = json_array();
        for (int i = 0; i < o->nbest; i++)
            json_array_append_new(best, config_json(&o->best[i], true));
        for (int i = 0; i < o->nfrontier; i++)
            json_array_append_new(fr, config_json(&o->frontier[i], false));
        json_object_set_new(j, "model", json_string(q->base.model->name));
        json_object_set_new(j, "system", json_string(q->base.system->name));
        json_object_set_new(j, "objective", json_string(objective_names[q->objective]));
        json_object_set_new(j, "ttft_target_ms", q->ttft_ms > 0 ? rjson_real(q->ttft_ms) : json_null());
        json_object_set_new(j, "tpot_target_ms", q->tpot_ms > 0 ? rjson_real(q->tpot_ms) : json_null());
        json_object_set_new(j, "slo_percentile", rjson_real(q->slo_percentile));
        json_object_set_new(j, "feasible", json_boolean(o->feasible));
        json_object_set_new(j, "best", best);
        json_object_set_new(j, "why_runner_up_lost", json_string(w));
        json_object_set_new(j, "frontier", fr);
        json_object_set_new(j, "closest", o->feasible ? json_null() : config_json(&o->closest, false));
        json_object_set_new(j, "miss_ttft_ms", rjson_real(o->miss_ttft_ms));
        json_object_set_new(j, "miss_tpot_ms", rjson_real(o->miss_tpot_ms));
        json_object_set_new(j, "configs_evaluated", json_integer(o->configs_evaluated));
        json_object_set_new(j, "elapsed_s", rjson_real(elapsed));
        int rc = cli_emit_json(c, j);
        return status ? status : rc;
    }
    if (status)
        return status;
    /* with a rate or a concurrency the operating point is not the capacity: both are shown */
    bool capcol = q->rate > 0 || q->concurrency > 0;
    tbl *tb = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"rank", "TP", "PP", "replicas", "weights", "KV", "draft", "max seqs", "chunk", "prompt cap",
                          "requests", "tok/s/GPU", "capacity", "tok/s/user", "TTFT ms", "TPOT ms", "$/Mtok", "checked"};
    for (int i = 0; i < 18; i++)
        if (i != 12 || capcol)
            tbl_col(tb, cols[i], i == 4 || i == 5 || i == 17 ? 'l' : 'r');
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
        if (capcol)
            tbl_num(tb, b->capacity_tokens_per_s_per_gpu, 0);
        tbl_num(tb, b->tokens_per_s_per_user, 1);
        tbl_num(tb, b->ttft_ms, 1);
        tbl_num(tb, b->tpot_ms, 2);
        tbl_num(tb, b->usd_per_mtok, 4);
        tbl_str(tb, b->simulated ? "simulated" : "analytic");
    }
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    char ttft[32] = "none", tpot[32] = "none"; /* 0: no target */
    if (q->ttft_ms > 0)
        snprintf(ttft, sizeof ttft, "%g ms", q->ttft_ms);
    if (q->tpot_ms > 0)
        snprintf(tpot, sizeof tpot, "%g ms", q->tpot_ms);
    fprintf(f, "%s on %s: best of %ld configurations (%.2f s); targets TTFT %s, TPOT %s at P%g\n",
            q->base.model->name, q->base.system->name, o->configs_evaluated, elapsed, ttft, tpot, q->slo_percentile);
    if (q->rate > 0)
        fprintf(f, "at %g requests/s every configuration that keeps up serves the same tokens: ties go to capacity "
                "(tokens/s/GPU at the largest load within the targets)\n", q->rate);
    else if (capcol)
        fprintf(f, "capacity: tokens/s/GPU at the largest load within the targets, beside the %g requests in flight\n",
                q->concurrency);
    fprintf(f, "\n");
    tbl_print(tb, f);
    fprintf(f, "\n%s\n\nPareto frontier (mean field, not simulated; tokens/s/user -> tokens/s/GPU):", w);
    for (int i = 0; i < o->nfrontier; i += o->nfrontier / 10 + 1) {
        char l[32];
        label(l, sizeof l, &o->frontier[i]);
        fprintf(f, " %.0f->%.0f (%s)", o->frontier[i].tokens_per_s_per_user,
                o->frontier[i].output_tokens_per_s_per_gpu, l);
    }
    fprintf(f, "\n");
    return cli_table_done(c, tb, f);
}

int cmd_infer_search(cli *c, const opt *o, size_t n, const infer_search_args *s, const infer_sim_args *sim,
                     const char *plot, const gpuecon_infer_request *serve)
{
    gpuecon_serve_search_request q;
    gpuecon_serve_search_request_init(&q);
    q.base = *serve;
    q.gpus = s->gpus.v;
    q.ngpus = (size_t)s->gpus.n;
    q.ttft_ms = sim->ttft_ms;
    q.tpot_ms = sim->tpot_ms;
    q.slo_percentile = sim->slo_pct;
    q.rate = opt_seen(o, n, "--rate") ? sim->rate : 0;
    if (opt_seen(o, n, "--rate") && !(sim->rate > 0))
        return cli_usage_error(c, "--rate", "%g requests/s must be above 0", sim->rate);
    if ((opt_seen(o, n, "--ttft-ms") && !(sim->ttft_ms > 0)) || (opt_seen(o, n, "--tpot-ms") && !(sim->tpot_ms > 0)))
        return cli_usage_error(c, opt_seen(o, n, "--ttft-ms") && !(sim->ttft_ms > 0) ? "--ttft-ms" : "--tpot-ms",
                               "a latency target must be above 0 ms");
    q.concurrency = serve->concurrency;
    q.base.concurrency = 0;
    q.objective = (gpuecon_serve_objective)s->objective;
    q.max_draft = opt_seen(o, n, "--max-draft") ? s->max_draft : serve->draft_k > 0 ? serve->draft_k : 0;
    q.confirm = s->confirm;
    q.top = s->top;
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    if (sim->seed >= 0)
        cfg.seed = (uint64_t)sim->seed;
    cfg.threads = sim->threads;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    if (!ctx)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_serve_search_result out;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    int rc = gpuecon_infer_search(ctx, &q, &out, &err), status = 0;
    double elapsed = cli_now_s(c) - t0;
    gpuecon_ctx_free(ctx);
    if (rc && rc != GPUECON_E_INFEASIBLE)
        return cli_fail(c, &err);
    if (rc)
        status = cli_fail(c, &err);
    if (!rc && plot && (rc = plot_frontier(c, plot, &q, &out)))
        return rc;
    return print(c, &q, &out, elapsed, status);
}
