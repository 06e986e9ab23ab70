/*
 * cmd_infer_search.c — `gpuecon infer --search`: which serving configuration meets the TTFT and
 * TPOT targets at the best throughput per GPU or the lowest cost (gpuecon_infer_search,
 * docs/model.md §6.12): the ranked best, why the runner-up lost, the Pareto frontier of
 * tokens/s/GPU against tokens/s/user (--plot FILE.svg), rendered by render/serving_search.c.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <string.h>

static const char *const objective_names[] = {"throughput", "cost", NULL};

size_t cmd_infer_search_opts(infer_search_args *s, opt *out, size_t cap)
{
    opt o[] = {
        {"--search", O_FLAG, &s->search, 0, 0, NULL, NULL, "search layouts, precisions, drafts, engine limits under the targets", NULL, false},
        {"--objective", O_CHOICE, &s->objective, 0, 0, objective_names, "O", "throughput (tokens/s/GPU) | cost ($/Mtok)", NULL, false},
        {"--search-gpus", O_LIST, &s->gpus, 1, 1e6, NULL, "LIST", "GPU counts to search, a list or a range A-B (A doubled up to B; default --gpus); with --rate a range bounds the sizing by whole servers or racks", NULL, false},
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

/* The bands of one configuration's figures. */
static void config_bands(const band_set *bs, const gpuecon_serve_search_request *q, const gpuecon_serve_config *k,
                         serve_bands *out)
{
    band_serving(bs, &q->base, k->weights, k->gpus, k->concurrency, k->output_tokens_per_s_per_gpu, k->tpot_ms,
                 k->ttft_ms, out);
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

/* The sizing bounds at a rate, in GPUs: a range --search-gpus A-B, or, with neither --gpus nor
 * --search-gpus, one unit up to GPUECON_SERVE_SIZE_MAX_GPUS. false: not sized (the counts given are
 * searched). */
static bool sizing_bounds(const opt *o, size_t n, const infer_search_args *s, double rate, int *lo, int *hi)
{
    if (!(rate > 0) || opt_seen(o, n, "--gpus"))
        return false;
    if (!opt_seen(o, n, "--search-gpus")) {
        *lo = 1, *hi = GPUECON_SERVE_SIZE_MAX_GPUS;
        return true;
    }
    if (s->gpus.range_hi <= 0)
        return false;
    *lo = s->gpus.range_lo, *hi = s->gpus.range_hi;
    return true;
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
    int rc = cmd_infer_check_targets(c, o, n, sim);
    if (rc)
        return rc;
    q.concurrency = serve->concurrency;
    q.base.concurrency = 0;
    q.objective = (gpuecon_serve_objective)s->objective;
    q.max_draft = opt_seen(o, n, "--max-draft") ? s->max_draft : serve->draft_k > 0 ? serve->draft_k : 0;
    q.confirm = s->confirm;
    q.top = s->top;
    q.fixed_weights = opt_seen(o, n, "--weights"); /* given precisions are the search's constraints */
    q.fixed_kv = opt_seen(o, n, "--kv");
    gpuecon_ctx *ctx = cmd_infer_sim_ctx(c, sim);
    if (!ctx)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    int size_lo = 0, size_hi = 0;
    band_set *bs = NULL;
    bool sized = sizing_bounds(o, n, s, q.rate, &size_lo, &size_hi);
    gpuecon_serve_size_result *z = ctx_alloc(c->ctx, sizeof *z);
    if (!z) {
        gpuecon_ctx_free(ctx);
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    }
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    if (sized) {
        rc = gpuecon_infer_size(ctx, &q, size_lo, size_hi, z, &err);
    } else {
        rc = gpuecon_infer_search(ctx, &q, &z->search, &err);
    }
    const gpuecon_serve_search_result *res = &z->search; /* the search at the sized count, or as asked */
    int status = 0;
    double elapsed = cli_now_s(c) - t0;
    gpuecon_ctx_free(ctx);
    if (rc && rc != GPUECON_E_INFEASIBLE) {
        ctx_free(c->ctx, z, sizeof *z);
        return cli_fail(c, &err);
    }
    if (rc)
        status = cli_fail(c, &err);
    if (!rc && plot && (rc = plot_frontier(c, plot, &q, res))) {
        ctx_free(c->ctx, z, sizeof *z);
        return rc;
    }
    if ((status && c->format != FMT_JSON) || /* the JSON still shows the closest configuration */
        (rc = cmd_band_set(c, &bs))) {
        ctx_free(c->ctx, z, sizeof *z);
        return status ? status : rc;
    }
    serve_bands best[GPUECON_SERVE_TOP], closest;
    serve_bands *frontier = ctx_alloc(c->ctx, GPUECON_SERVE_FRONTIER * sizeof *frontier);
    if (!frontier) {
        if (bs)
            band_set_free(bs);
        ctx_free(c->ctx, z, sizeof *z);
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    }
    for (int i = 0; i < res->nbest; i++)
        config_bands(bs, &q, &res->best[i], &best[i]);
    for (int i = 0; i < res->nfrontier; i++)
        config_bands(bs, &q, &res->frontier[i], &frontier[i]);
    config_bands(bs, &q, &res->closest, &closest);
    infer_search_view v = {&q, res, objective_names[q.objective], elapsed, bs ? best : NULL, bs ? frontier : NULL,
                           bs && !res->feasible ? &closest : NULL, sized ? z : NULL};
    rc = cli_render(c, &render_infer_search, &v);
    ctx_free(c->ctx, frontier, GPUECON_SERVE_FRONTIER * sizeof *frontier);
    if (bs)
        band_set_free(bs);
    ctx_free(c->ctx, z, sizeof *z);
    return status ? status : rc;
}
