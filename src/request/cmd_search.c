/*
 * cmd_search.c — `gpuecon search`: every parallel configuration of a training job ranked by
 * throughput (or cost), the top K listed with their step time, memory and exposed
 * communication, plus how many configurations were evaluated and how fast. The library
 * reads no clock: the elapsed time is measured here. Rendered in render/search.c.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <stdlib.h>

static int parse_shard(cli *c, const char *s, int *k, int *n)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != '/')
        return cli_usage_error(c, "--shard", "'%s': expected K/N, e.g. 0/4", s);
    long b = strtol(end + 1, &end, 10);
    if (*end || b < 1 || b > 1 << 20 || a < 0 || a >= b)
        return cli_usage_error(c, "--shard", "'%s': expected K/N with 0 <= K < N", s);
    *k = (int)a;
    *n = (int)b;
    return 0;
}

/* The calibration match of each configuration returned (docs/model.md §3.5): computed for these
 * only, never in the search. NULL when out of memory (the caller fails). */
static calib_match *matches(cli *c, const calib_set *set, const gpuecon_train_request *req,
                            const gpuecon_search_result *r)
{
    calib_match *m = ctx_alloc(c->ctx, (r->n_best ? r->n_best : 1) * sizeof *m);
    for (size_t i = 0; m && i < r->n_best; i++)
        calib_match_of(set, req, &r->best[i], &m[i]);
    return m;
}

static int run(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_profile *prof,
               const calib_set *set)
{
    gpuecon_search_options o = {.top_k = a->top, .objective = (gpuecon_objective)a->objective,
                                .exhaustive = a->exhaustive};
    if (a->shard && parse_shard(c, a->shard, &o.shard_index, &o.shard_count))
        return EXIT_USAGE;
    if (prof) {
        gpuecon_cost k;
        int rc = train_cli_cost(c, req, prof, a->pue, a->usd_per_gpu_hour, 0, 1, &k, &o.usd_per_gpu_hour);
        if (rc)
            return rc;
    }
    gpuecon_search_result r;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    int rc = gpuecon_train_search(c->ctx, req, &o, &r, &err);
    double dt = cli_now_s(c) - t0;
    if (rc)
        return cli_fail(c, &err);
    r.elapsed_s = dt;
    calib_match *m = matches(c, set, req, &r);
    if (!m) {
        gpuecon_search_result_free(&r);
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    }
    /* each row's 80% band (docs/model.md §7.6), computed for the rows returned only */
    gpuecon_band *bands = ctx_alloc(c->ctx, (r.n_best ? r.n_best : 1) * sizeof *bands);
    band_set *bs = NULL;
    if (!bands || band_set_build(c->ctx, c->cat, &bs, &err)) {
        ctx_free(c->ctx, m, (r.n_best ? r.n_best : 1) * sizeof *m);
        ctx_free(c->ctx, bands, (r.n_best ? r.n_best : 1) * sizeof *bands);
        gpuecon_search_result_free(&r);
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    }
    for (size_t i = 0; i < r.n_best; i++)
        band_of_train(bs, req, &r.best[i], &m[i], &bands[i]);
    band_set_free(bs);
    search_view v = {req, &r, &o, m, bands};
    rc = cli_render(c, &render_search, &v);
    ctx_free(c->ctx, m, (r.n_best ? r.n_best : 1) * sizeof *m);
    ctx_free(c->ctx, bands, (r.n_best ? r.n_best : 1) * sizeof *bands);
    if (!rc && r.n_best == 0) {
        if (r.have_overflow)
            rc = cli_error(c, GPUECON_E_INFEASIBLE, "memory",
                           "nothing fits in %.1f GiB per GPU; the smallest overflow is %.1f GiB (largest term: %s)",
                           r.least_overflow.mem.capacity_gib, r.least_overflow.mem.overflow_gib,
                           r.least_overflow.mem.overflow_term ? r.least_overflow.mem.overflow_term : "?");
        else
            rc = cli_usage_error(c, "--gbs", "no parallel configuration of %d GPUs divides the global batch of %d",
                                 req->gpus, req->gbs);
    }
    gpuecon_search_result_free(&r);
    return rc;
}

int cmd_search(cli *c, int argc, char **argv)
{
    train_args a;
    opt opts[TRAIN_MAX_OPTS];
    size_t n = train_cli_opts(&a, opts, true);
    static const cmd_usage usage = {
        "search --model M --system S --gpus N --seq L --gbs B [--precision P] [fixed sizes as in train]\n"
        "       [--top K] [--objective throughput|cost --profile P] [--shard K/N] [--threads N] [--exhaustive]",
        "Ranks every parallel configuration (tp, cp, pp, vpp, dp, micro-batch, recompute, ZeRO\n"
        "stage, TP-comm overlap) of a training job; sizes given are kept fixed. Configurations\n"
        "that do not fit in memory are counted but not timed. Exit 3 when none fits.",
        "gpuecon search --model gpt3-175b --system hgx-h100 --gpus 64 --seq 2048 --gbs 256 --top 5"};
    int rc = opts_parse(c, argc, argv, opts, n, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    /* reliability prices one run's failures (train --gpus); a ranking of layouts has none to price */
    static const char *const one_run[] = {"--tier", "--mtbi-gpu-days", NULL};
    for (int i = 0; one_run[i]; i++)
        if (opt_seen(opts, n, one_run[i]))
            return cli_usage_error(c, one_run[i], "prices one run's failures and spares (gpuecon train --gpus N "
                                                  "--tokens T); search ranks layouts by throughput and cost");
    gpuecon_train_request req;
    const gpuecon_profile *prof;
    if ((rc = train_cli_request(c, &a, opts, n, &req, &prof)))
        return rc;
    calib_set set;
    if ((rc = train_cli_calibration(c, &req, &set)))
        return rc;
    gpuecon_ctx *saved;
    if ((rc = train_cli_threads(c, a.threads, &saved))) {
        calib_set_free(&set);
        return rc;
    }
    rc = run(c, &a, &req, prof, &set);
    train_cli_threads_end(c, saved);
    calib_set_free(&set);
    return rc;
}
