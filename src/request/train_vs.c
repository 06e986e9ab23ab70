/*
 * train_vs.c — `gpuecon train ... --vs S`: the same training job on another system, with the
 * collective-only ratio next to the end-to-end one (SemiAnalysis, 20 Aug 2025: an all-to-all
 * ~18x faster inside one NVL72 is ~2.5x per GPU end to end for DeepSeek-V3 and Llama 4).
 *
 * The other system gets its own best layout (parallel sizes searched) for the same model,
 * precision and framework settings; --vs-gpus sets its GPU count, and the global batch then
 * keeps the sequences per GPU (weak scaling), as the article's comparisons do. The collective
 * ratio times one dispatch all-to-all of this job's expert group and message on both systems.
 */
#include "request/cli.h"
#include "train_cli.h"

#include <string.h>

typedef struct vs_result {
    const gpuecon_system *other;
    int gpus, gbs;
    gpuecon_train_result r;
    bool fits;
    bool have_a2a;
    int ep, etp;
    double bytes, a2a_this, a2a_other; /* one dispatch, s */
} vs_result;

static int run(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_train_result *mine,
               vs_result *v)
{
    memset(v, 0, sizeof *v);
    int rc = cli_system(c, "--vs", a->vs, &v->other);
    if (rc)
        return rc;
    gpuecon_train_request q = *req;
    q.system = v->other;
    q.gpus = a->vs_gpus > 0 ? a->vs_gpus : req->gpus;
    if ((long)req->gbs * q.gpus % req->gpus)
        return cli_usage_error(c, "--vs-gpus", "%d GPUs: the batch per GPU (%d sequences on %d GPUs) must stay whole",
                               q.gpus, req->gbs, req->gpus);
    q.gbs = (int)((long)req->gbs * q.gpus / req->gpus);
    q.tp = q.pp = q.vpp = q.cp = q.ep = q.etp = q.mbs = GPUECON_SEARCH;
    q.zero = q.tp_overlap = GPUECON_SEARCH;
    v->gpus = q.gpus, v->gbs = q.gbs;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_train_predict(c->ctx, &q, &v->r, &err);
    if (rc && rc != GPUECON_E_INFEASIBLE) {
        fprintf(c->notes, "gpuecon: --vs %s: ", v->other->name);
        return cli_fail(c, &err);
    }
    v->fits = rc == GPUECON_OK;
    if (mine->moe.moe_layers > 0 && mine->par.ep * mine->par.etp > 1 && mine->moe.a2a_bytes > 0) {
        gpuecon_coll_result x, y;
        v->ep = mine->par.ep, v->etp = mine->par.etp, v->bytes = mine->moe.a2a_bytes;
        if (!gpuecon_collective(req->system, GPUECON_ALL_TO_ALL, v->ep, v->etp, v->bytes, GPUECON_ALGO_AUTO, &x, &err) &&
            !gpuecon_collective(v->other, GPUECON_ALL_TO_ALL, v->ep, v->etp, v->bytes, GPUECON_ALGO_AUTO, &y, &err)) {
            v->have_a2a = true;
            v->a2a_this = x.time_s, v->a2a_other = y.time_s;
        }
    }
    return 0;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static json_t *to_json(const gpuecon_train_request *req, const gpuecon_train_result *mine, const vs_result *v)
{
    json_t *j = train_cli_result_json(&v->r);
    json_object_set_new(j, "system", json_string(v->other->name));
    json_object_set_new(j, "gpus", json_integer(v->gpus));
    json_object_set_new(j, "gbs", json_integer(v->gbs));
    json_object_set_new(j, "throughput_ratio", rjson_real(ratio(mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu)));
    if (v->have_a2a) {
        json_t *a = json_object();
        json_object_set_new(a, "gpus", json_integer(v->ep));
        json_object_set_new(a, "stride", json_integer(v->etp));
        json_object_set_new(a, "bytes", rjson_real(v->bytes));
        json_object_set_new(a, "time_s", rjson_real(v->a2a_this));
        json_object_set_new(a, "vs_time_s", rjson_real(v->a2a_other));
        json_object_set_new(a, "ratio", rjson_real(ratio(v->a2a_other, v->a2a_this)));
        json_object_set_new(j, "all_to_all", a);
    }
    (void)req;
    return j;
}

static void to_text(cli *c, FILE *f, const gpuecon_train_request *req, const gpuecon_train_result *mine,
                    const vs_result *v)
{
    char cfg[128], b[32];
    train_cli_config(&v->r.par, cfg, sizeof cfg);
    fprintf(f, "\nversus %s: %d GPUs, global batch %d, its own best layout (%s)%s\n\n", v->other->name, v->gpus,
            v->gbs, cfg, v->fits ? "" : " - does NOT fit, nearest miss");
    tbl *t = tbl_new(c->ctx, &c->oom);
    tbl_col(t, "", 'l');
    tbl_col(t, req->system->name, 'r');
    tbl_col(t, v->other->name, 'r');
    tbl_col(t, "ratio", 'r');
    tbl_row(t);
    tbl_str(t, "throughput, tokens/s/GPU (end to end)");
    tbl_num(t, mine->tokens_per_s_per_gpu, 1);
    tbl_num(t, v->r.tokens_per_s_per_gpu, 1);
    tbl_fmt(t, "%.2fx", ratio(mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu));
    tbl_row(t);
    tbl_str(t, "step time, s");
    tbl_num(t, mine->step_time_s, 3);
    tbl_num(t, v->r.step_time_s, 3);
    tbl_str(t, "");
    tbl_row(t);
    tbl_str(t, "exposed expert all-to-all per step, s");
    tbl_num(t, mine->bd.ep_comm_s, 3);
    tbl_num(t, v->r.bd.ep_comm_s, 3);
    tbl_str(t, "");
    if (v->have_a2a) {
        tbl_row(t);
        tbl_fmt(t, "one dispatch all-to-all (%d GPUs, %s each), ms", v->ep, fmt_si(b, sizeof b, v->bytes, "B"));
        tbl_num(t, 1e3 * v->a2a_this, 3);
        tbl_num(t, 1e3 * v->a2a_other, 3);
        tbl_fmt(t, "%.1fx", ratio(v->a2a_other, v->a2a_this));
    }
    tbl_print(t, f);
    tbl_free(t);
    if (v->have_a2a)
        fprintf(f, "\nthe all-to-all alone is %.1fx faster on %s; the job end to end %.2fx per GPU: the collective is "
                   "only part of the step (and overlaps compute)\n",
                ratio(v->a2a_other, v->a2a_this), req->system->name,
                ratio(mine->tokens_per_s_per_gpu, v->r.tokens_per_s_per_gpu));
}

int train_vs(cli *c, const train_args *a, const gpuecon_train_request *req, const gpuecon_train_result *mine,
             json_t *j, FILE *f)
{
    vs_result v;
    int rc = run(c, a, req, mine, &v);
    if (rc)
        return rc;
    if (j)
        json_object_set_new(j, "vs", to_json(req, mine, &v));
    if (f)
        to_text(c, f, req, mine, &v);
    return 0;
}
