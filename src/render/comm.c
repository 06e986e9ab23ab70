/*
 * comm.c — `gpuecon comm` rendered: one collective (or the nccl-tests size sweep) as nccl-tests
 * would report it, as JSON and as a table of sizes (terminal and CSV), with --vs the same
 * collective on a second system beside it and the ratio of the times.
 */
#include "render/render.h"

/* ring or tree; all-to-all and send-recv are point to point, whatever --algo said */
static const char *algo_label(int op, const gpuecon_coll_result *r)
{
    if (op == GPUECON_ALL_TO_ALL || op == GPUECON_SEND_RECV)
        return "p2p";
    return r->algo == GPUECON_ALGO_TREE ? "tree" : "ring";
}

static json_t *row_json(int op, double bytes, const gpuecon_coll_result *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "bytes", rjson_real(bytes));
    json_object_set_new(j, "time_s", rjson_real(r->time_s));
    json_object_set_new(j, "time_us", rjson_real(r->time_s * 1e6));
    json_object_set_new(j, "algbw_gbps", rjson_real(r->algbw_gbps));
    json_object_set_new(j, "busbw_gbps", rjson_real(r->busbw_gbps));
    json_object_set_new(j, "latency_s", rjson_real(r->latency_s));
    json_object_set_new(j, "level", json_string(gpuecon_link_level_name(r->level)));
    json_object_set_new(j, "algo", json_string(algo_label(op, r)));
    json_object_set_new(j, "per_domain", json_integer(r->per_domain));
    json_object_set_new(j, "domains", json_integer(r->domains));
    json_object_set_new(j, "intra_s", rjson_real(r->intra_s));
    json_object_set_new(j, "inter_s", rjson_real(r->inter_s));
    json_object_set_new(j, "intra_fraction", rjson_real(r->intra_fraction));
    return j;
}

/* How many times longer the --vs system takes than the first at size i (0: no time). */
static double ratio(const comm_view *v, int i)
{
    return v->res[i].time_s > 0 ? v->vres[i].time_s / v->res[i].time_s : 0;
}

static json_t *vs_json(const comm_view *v, int i)
{
    json_t *j = row_json(v->op, v->sizes[i], &v->vres[i]);
    json_object_set_new(j, "system", json_string(v->vs->name));
    json_object_set_new(j, "ratio", rjson_real(ratio(v, i)));
    return j;
}

static json_t *comm_json(const void *view)
{
    const comm_view *v = view;
    const gpuecon_link_model *lm = &v->lm;
    json_t *j = v->sweep ? json_object() : row_json(v->op, v->sizes[0], &v->res[0]);
    json_object_set_new(j, "system", json_string(v->system->name));
    json_object_set_new(j, "op", json_string(v->op_name));
    json_object_set_new(j, "gpus", json_integer(v->gpus));
    json_object_set_new(j, "stride", json_integer(v->stride));
    json_object_set_new(j, "busbw_factor", rjson_real(gpuecon_busbw_factor((gpuecon_coll_op)v->op, v->gpus)));
    json_object_set_new(j, "link_model", json_pack("{s:o, s:o, s:o, s:o}", "scaleup_eff", rjson_real(lm->scaleup_eff),
                                                     "scaleout_eff", rjson_real(lm->scaleout_eff), "launch_s",
                                                     rjson_real(lm->launch_s), "a2a_scaleout_eff",
                                                     rjson_real(lm->a2a_scaleout_eff)));
    if (v->sweep) {
        json_t *arr = json_array();
        for (int i = 0; i < v->n; i++) {
            json_t *r = row_json(v->op, v->sizes[i], &v->res[i]);
            if (v->vs)
                json_object_set_new(r, "vs", vs_json(v, i));
            json_array_append_new(arr, r);
        }
        json_object_set_new(j, "rows", arr);
    } else if (v->vs) {
        json_object_set_new(j, "vs", vs_json(v, 0));
    }
    return j;
}

static tbl *comm_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const comm_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    const char *cols[] = {"size", "time us", "algbw GB/s", "busbw GB/s", "bottleneck", "algo", "domains x per"};
    for (int i = 0; i < 7; i++)
        tbl_col(t, cols[i], i >= 1 && i <= 3 ? 'r' : 'l');
    char vcol[96];
    if (v->vs) {
        snprintf(vcol, sizeof vcol, "%s us", v->vs->name);
        tbl_col(t, vcol, 'r');
        tbl_col(t, "its bottleneck", 'l');
        tbl_col(t, "ratio", 'r');
    }
    for (int i = 0; i < v->n; i++) {
        const gpuecon_coll_result *r = &v->res[i];
        char b[32];
        tbl_row(t);
        tbl_str(t, fmt_si(b, sizeof b, v->sizes[i], "B"));
        tbl_num(t, r->time_s * 1e6, 1);
        tbl_num(t, r->algbw_gbps, 2);
        tbl_num(t, r->busbw_gbps, 2);
        tbl_str(t, gpuecon_link_level_name(r->level));
        tbl_str(t, algo_label(v->op, r));
        tbl_fmt(t, "%d x %d", r->domains, r->per_domain);
        if (v->vs) {
            tbl_num(t, v->vres[i].time_s * 1e6, 1);
            tbl_str(t, gpuecon_link_level_name(v->vres[i].level));
            tbl_fmt(t, "%.2fx", ratio(v, i));
        }
    }
    return t;
}

static void comm_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    const comm_view *v = view;
    const gpuecon_link_model *lm = &v->lm;
    bool a2a = v->op == GPUECON_ALL_TO_ALL;
    sb_printf(f, "%s of %d GPUs (stride %d) on %s: %d per %d-GPU domain, NVLink %.0f GB/s x %.2f, network %.1f GB/s "
               "x %.2f per GPU%s\n\n",
            v->op_name, v->gpus, v->stride, v->system->name, v->res[0].per_domain, v->system->scaleup_gpus,
            v->system->scaleup_gbps, lm->scaleup_eff, v->system->scaleout_gbps,
            a2a && lm->a2a_scaleout_eff > 0 ? lm->a2a_scaleout_eff : lm->scaleout_eff,
            a2a ? " (all-to-all: many peer flows per NIC)" : "");
    tbl_print(t, f);
    if (a2a && !v->sweep)
        sb_printf(f, "\nintra-domain share %.1f us on NVLink (%.0f%% of the bytes stay in the domain), inter-domain "
                   "share %.1f us on the network (overlapped); latency %.1f us\n",
                v->res[0].intra_s * 1e6, 100 * v->res[0].intra_fraction, v->res[0].inter_s * 1e6,
                v->res[0].latency_s * 1e6);
    if (v->vs) {
        sb_printf(f, "\n%s is %.1fx faster than %s at %s", v->system->name, ratio(v, v->n - 1), v->vs->name,
                v->sweep ? "the largest size" : "this size");
        if (v->sweep)
            sb_printf(f, ", %.1fx at the smallest (latency)", ratio(v, 0));
        sb_putc(f, '\n');
    }
}

const render_kind render_comm = {comm_json, comm_table, comm_text, NULL};
