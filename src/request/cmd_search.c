/*
 * cmd_search.c — `gpuecon search`: every parallel configuration of a training job ranked by
 * throughput (or cost), the top K listed with their step time, memory and exposed
 * communication, plus how many configurations were evaluated and how fast. The library
 * reads no clock: the elapsed time is measured here.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <stdlib.h>
#include <string.h>

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

static void table_row(tbl *t, int rank, const gpuecon_train_result *r, double usd, bool moe)
{
    const gpuecon_parallel *p = &r->par;
    const gpuecon_train_breakdown *b = &r->bd;
    tbl_row(t);
    tbl_num(t, rank, 0);
    int v[] = {p->tp, p->cp, p->pp, p->vpp, p->dp, p->mbs};
    for (int k = 0; k < 6; k++)
        tbl_num(t, v[k], 0);
    if (moe) {
        tbl_num(t, p->ep, 0);
        tbl_num(t, p->etp, 0);
        tbl_str(t, p->a2a_overlap ? "on" : "off");
        tbl_str(t, gpuecon_dispatcher_name(r->moe.dispatcher));
    }
    tbl_str(t, gpuecon_parallel_recompute_name(p));
    tbl_num(t, p->zero, 0);
    tbl_str(t, p->tp_overlap ? "on" : "off");
    tbl_num(t, r->tokens_per_s_per_gpu, 1);
    tbl_pct(t, r->mfu, 1);
    tbl_num(t, r->step_time_s, 3);
    tbl_num(t, b->tp_comm_s + b->cp_comm_s + b->ep_comm_s + b->pp_comm_s + b->dp_comm_s, 3);
    tbl_num(t, b->pp_bubble_s, 3);
    tbl_num(t, r->memory_gib_per_gpu, 1);
    if (usd > 0)
        tbl_num(t, usd, 4);
}

static int emit(cli *c, const gpuecon_train_request *req, const gpuecon_search_result *r, const train_args *a,
                const gpuecon_search_options *o)
{
    if (c->format == FMT_JSON) {
        json_t *arr = json_array();
        for (size_t i = 0; i < r->n_best; i++) {
            json_t *j = train_cli_result_json(&r->best[i]);
            if (r->usd_per_mtok[i] > 0)
                json_object_set_new(j, "usd_per_mtok", rjson_real(r->usd_per_mtok[i]));
            json_array_append_new(arr, j);
        }
        json_t *root = json_object();
        json_object_set_new(root, "model", json_string(req->model->name));
        json_object_set_new(root, "system", json_string(req->system->name));
        json_object_set_new(root, "gpus", json_integer(req->gpus));
        if (req->stack)
            json_object_set_new(root, "stack", json_string(req->stack->name));
        json_object_set_new(root, "objective", json_string(a->objective ? "cost" : "throughput"));
        json_object_set_new(root, "best", arr);
        json_object_set_new(root, "configs_evaluated", json_integer((json_int_t)r->configs_evaluated));
        json_object_set_new(root, "configs_feasible", json_integer((json_int_t)r->configs_feasible));
        json_object_set_new(root, "configs_pruned", json_integer((json_int_t)r->configs_pruned));
        json_object_set_new(root, "elapsed_s", rjson_real(r->elapsed_s));
        json_object_set_new(root, "configs_per_s", rjson_real(r->elapsed_s > 0 ? r->configs_evaluated / r->elapsed_s : 0));
        if (o->shard_count > 0)
            json_object_set_new(root, "shard", json_pack("{s:i, s:i}", "index", o->shard_index, "count", o->shard_count));
        if (r->have_overflow)
            json_object_set_new(root, "least_overflow", train_cli_result_json(&r->least_overflow));
        return cli_emit_json(c, root);
    }
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    tbl *t = tbl_new(c->ctx, &c->oom);
    bool moe = req->model->experts > 0;
    const char *cols[] = {"#", "tp", "cp", "pp", "vpp", "dp", "mbs", "ep", "etp", "a2a-ovl", "dispatcher",
                          "recompute", "zero", "tp-ovl", "tok/s/GPU", "MFU", "step s", "exposed comm s", "bubble s",
                          "GiB/GPU", "$/Mtok"};
    size_t nc = sizeof cols / sizeof cols[0] - (o->usd_per_gpu_hour > 0 ? 0 : 1);
    for (size_t i = 0; i < nc; i++) {
        if (!moe && i >= 7 && i <= 10)
            continue; /* the expert columns */
        tbl_col(t, cols[i], (i == 9 || i == 10 || i == 11 || i == 13) ? 'l' : 'r');
    }
    for (size_t i = 0; i < r->n_best; i++)
        table_row(t, (int)i + 1, &r->best[i], r->usd_per_mtok[i], moe);
    FILE *f = NULL;
    int done = cli_table_begin(c, t, &f);
    if (!f)
        return done;
    fprintf(f, "%s on %d x %s, %s, seq %d, global batch %d: best %zu by %s\n\n", req->model->name, req->gpus,
            req->system->name, gpuecon_precision_name(req->precision), req->seq, req->gbs, r->n_best,
            a->objective ? "cost per token" : "tokens/s/GPU");
    if (req->stack)
        fprintf(f, "stack: %s (%s)\n\n", req->stack->name, req->stack->framework);
    tbl_print(t, f);
    fprintf(f, "\n%llu configurations evaluated, %llu fit in memory, %llu skipped by the bound, %.3f s "
               "(%.3g configurations/s)\n",
            (unsigned long long)r->configs_evaluated, (unsigned long long)r->configs_feasible,
            (unsigned long long)r->configs_pruned, r->elapsed_s,
            r->elapsed_s > 0 ? r->configs_evaluated / r->elapsed_s : 0);
    return cli_table_done(c, t, f);
}

static int run(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_profile *prof)
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
    rc = emit(c, req, &r, a, &o);
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
    gpuecon_train_request req;
    const gpuecon_profile *prof;
    if ((rc = train_cli_request(c, &a, opts, n, &req, &prof)))
        return rc;
    if (a.threads > 0) {
        gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
        cfg.threads = a.threads;
        gpuecon_ctx *nc = gpuecon_ctx_new(&cfg);
        if (!nc)
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
        gpuecon_ctx *old = c->ctx;
        c->ctx = nc;
        rc = run(c, &a, &req, prof);
        c->ctx = old;
        gpuecon_ctx_free(nc);
        return rc;
    }
    return run(c, &a, &req, prof);
}
