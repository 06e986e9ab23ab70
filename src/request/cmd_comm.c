/*
 * cmd_comm.c — `gpuecon comm`: one collective on a system's two-level network, as
 * nccl-tests would report it (time, algorithm bandwidth, bus bandwidth), so the collective
 * model can be checked on its own; --sweep-bytes prints the nccl-tests size sweep and
 * --plot charts it; --vs S sets the same collective on system S beside it, with the ratio
 * of the times (SemiAnalysis, 20 Aug 2025: ~18x for a 64-GPU all-to-all inside an NVL72).
 */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char *const op_names[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree", NULL};

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

static void row_tbl(tbl *t, int op, double bytes, const gpuecon_coll_result *r, const gpuecon_coll_result *vs)
{
    char b[32];
    tbl_row(t);
    tbl_str(t, fmt_si(b, sizeof b, bytes, "B"));
    tbl_num(t, r->time_s * 1e6, 1);
    tbl_num(t, r->algbw_gbps, 2);
    tbl_num(t, r->busbw_gbps, 2);
    tbl_str(t, gpuecon_link_level_name(r->level));
    tbl_str(t, algo_label(op, r));
    tbl_fmt(t, "%d x %d", r->domains, r->per_domain);
    if (vs) {
        tbl_num(t, vs->time_s * 1e6, 1);
        tbl_str(t, gpuecon_link_level_name(vs->level));
        tbl_fmt(t, "%.2fx", r->time_s > 0 ? vs->time_s / r->time_s : 0);
    }
}

static void plot(cli *c, const char *path, const gpuecon_system *s, const gpuecon_system *vs, const char *op, int gpus,
                 const double *x, const double *y, const double *y2, size_t n)
{
    char title[160], l1[96], l2[96];
    snprintf(title, sizeof title, "%s, %d GPUs%s%s", op, gpus, vs ? "" : " on ", vs ? "" : s->name);
    snprintf(l1, sizeof l1, "%s bus bandwidth (GB/s)", s->name);
    snprintf(l2, sizeof l2, "%s bus bandwidth (GB/s)", vs ? vs->name : "");
    plot_series ser[2] = {{l1, x, y, n, false}, {l2, x, y2, n, false}};
    plot_spec spec = {title, "bytes", "GB/s", NULL, true, true, 0, 0};
    cli_plot(c, path, &spec, ser, vs ? 2 : 1, false, false);
}

typedef struct comm_out {
    const gpuecon_system *s, *vs;
    int op, gpus, stride;
    bool sweep;
    const double *sizes;
    const gpuecon_coll_result *res, *vres;
    int n;
} comm_out;

static json_t *vs_json(const comm_out *o, int i)
{
    json_t *j = row_json(o->op, o->sizes[i], &o->vres[i]);
    json_object_set_new(j, "system", json_string(o->vs->name));
    json_object_set_new(j, "ratio", rjson_real(o->res[i].time_s > 0 ? o->vres[i].time_s / o->res[i].time_s : 0));
    return j;
}

static int emit_json(cli *c, const comm_out *o)
{
    gpuecon_link_model lm;
    gpuecon_link_model_for(o->s, &lm);
    json_t *j = o->sweep ? json_object() : row_json(o->op, o->sizes[0], &o->res[0]);
    json_object_set_new(j, "system", json_string(o->s->name));
    json_object_set_new(j, "op", json_string(op_names[o->op]));
    json_object_set_new(j, "gpus", json_integer(o->gpus));
    json_object_set_new(j, "stride", json_integer(o->stride));
    json_object_set_new(j, "busbw_factor", rjson_real(gpuecon_busbw_factor((gpuecon_coll_op)o->op, o->gpus)));
    json_object_set_new(j, "link_model", json_pack("{s:o, s:o, s:o, s:o}", "scaleup_eff", rjson_real(lm.scaleup_eff),
                                                     "scaleout_eff", rjson_real(lm.scaleout_eff), "launch_s",
                                                     rjson_real(lm.launch_s), "a2a_scaleout_eff",
                                                     rjson_real(lm.a2a_scaleout_eff)));
    if (o->sweep) {
        json_t *arr = json_array();
        for (int i = 0; i < o->n; i++) {
            json_t *r = row_json(o->op, o->sizes[i], &o->res[i]);
            if (o->vs)
                json_object_set_new(r, "vs", vs_json(o, i));
            json_array_append_new(arr, r);
        }
        json_object_set_new(j, "rows", arr);
    } else if (o->vs) {
        json_object_set_new(j, "vs", vs_json(o, 0));
    }
    return cli_emit_json(c, j);
}

static int emit_table(cli *c, const comm_out *o)
{
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare");
    gpuecon_link_model lm;
    gpuecon_link_model_for(o->s, &lm);
    tbl *t = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"size", "time us", "algbw GB/s", "busbw GB/s", "bottleneck", "algo", "domains x per"};
    for (int i = 0; i < 7; i++)
        tbl_col(t, cols[i], i >= 1 && i <= 3 ? 'r' : 'l');
    char vcol[96];
    if (o->vs) {
        snprintf(vcol, sizeof vcol, "%s us", o->vs->name);
        tbl_col(t, vcol, 'r');
        tbl_col(t, "its bottleneck", 'l');
        tbl_col(t, "ratio", 'r');
    }
    for (int i = 0; i < o->n; i++)
        row_tbl(t, o->op, o->sizes[i], &o->res[i], o->vs ? &o->vres[i] : NULL);
    FILE *f = NULL;
    int done = cli_table_begin(c, t, &f);
    if (!f)
        return done;
    fprintf(f, "%s of %d GPUs (stride %d) on %s: %d per %d-GPU domain, NVLink %.0f GB/s x %.2f, network %.1f GB/s "
               "x %.2f per GPU%s\n\n",
            op_names[o->op], o->gpus, o->stride, o->s->name, o->res[0].per_domain, o->s->scaleup_gpus,
            o->s->scaleup_gbps, lm.scaleup_eff, o->s->scaleout_gbps,
            o->op == GPUECON_ALL_TO_ALL && lm.a2a_scaleout_eff > 0 ? lm.a2a_scaleout_eff : lm.scaleout_eff,
            o->op == GPUECON_ALL_TO_ALL ? " (all-to-all: many peer flows per NIC)" : "");
    tbl_print(t, f);
    if (o->op == GPUECON_ALL_TO_ALL && !o->sweep)
        fprintf(f, "\nintra-domain share %.1f us on NVLink (%.0f%% of the bytes stay in the domain), inter-domain "
                   "share %.1f us on the network (overlapped); latency %.1f us\n",
                o->res[0].intra_s * 1e6, 100 * o->res[0].intra_fraction, o->res[0].inter_s * 1e6,
                o->res[0].latency_s * 1e6);
    if (o->vs) {
        int k = o->n - 1;
        fprintf(f, "\n%s is %.1fx faster than %s at %s", o->s->name,
                o->res[k].time_s > 0 ? o->vres[k].time_s / o->res[k].time_s : 0, o->vs->name,
                o->sweep ? "the largest size" : "this size");
        if (o->sweep)
            fprintf(f, ", %.1fx at the smallest (latency)", o->res[0].time_s > 0 ? o->vres[0].time_s / o->res[0].time_s : 0);
        fputc('\n', f);
    }
    return cli_table_done(c, t, f);
}

int cmd_comm(cli *c, int argc, char **argv)
{
    const char *system = NULL, *plot_path = NULL, *vs_name = NULL;
    int op = 0, algo = 0, gpus = 0, stride = 1;
    double bytes = 0;
    bool sweep = false;
    opt opts[] = {
        CLI_OPT_SYSTEM(&system),
        {"--op", O_CHOICE, &op, 0, 0, op_names, "OP", "collective", "all-reduce, all-gather, reduce-scatter, all-to-all, send-recv", false},
        {"--gpus", O_INT, &gpus, 1, 16777216, NULL, "N", "ranks in the group (send-recv: 2)", "ranks in the group", false},
        {"--bytes", O_DOUBLE, &bytes, 0, 1e15, NULL, "B", "nccl-tests size: the full buffer (1G, 256M, ...)", NULL, false},
        {"--stride", O_INT, &stride, 1, 16777216, NULL, "K", "rank distance between members (TP 1, DP tp*cp*pp)", NULL, false},
        {"--algo", O_CHOICE, &algo, 0, 0, algo_names, "A", "algorithm (default auto)", NULL, false},
        {"--sweep-bytes", O_FLAG, &sweep, 0, 0, NULL, NULL, "sizes 8 B to 8 GB, x2 (as nccl-tests -b 8 -e 8G -f 2)", NULL, false},
        {"--plot", O_STR, &plot_path, 0, 0, NULL, "FILE.svg", "chart of the sweep (needs gnuplot)", NULL, false},
        {"--vs", O_STR, &vs_name, 0, 0, NULL, "S", "the same collective on system S, and the ratio of the times", NULL, false},
    };
    static const cmd_usage usage = {
        "comm --system S --op all-reduce|all-gather|reduce-scatter|all-to-all|send-recv --gpus N\n"
        "     (--bytes B | --sweep-bytes [--plot FILE.svg]) [--stride K] [--algo auto|ring|tree] [--vs S2]",
        "Time of one collective on the system's scale-up domain and network, alpha-beta as\n"
        "nccl-tests reports it: algbw = bytes/time, busbw = algbw x 2(n-1)/n (all-reduce),\n"
        "(n-1)/n (all-gather, reduce-scatter, all-to-all), 1 (send-recv).",
        "gpuecon comm --system gb200-nvl72 --op all-to-all --gpus 64 --bytes 256M"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if ((rc = opts_require(c, opts, nopts)))
        return rc;
    if (!sweep && !opt_seen(opts, nopts, "--bytes"))
        return cli_usage_error(c, "--bytes", "is required (or --sweep-bytes)");
    if (plot_path && !sweep)
        return cli_usage_error(c, "--plot", "charts a sweep: give --sweep-bytes too");
    if ((rc = cli_load_catalog(c)))
        return rc;
    const gpuecon_system *s, *vs = NULL;
    if ((rc = cli_system(c, "--system", system, &s)) || (vs_name && (rc = cli_system(c, "--vs", vs_name, &vs))))
        return rc;
    double sizes[64];
    int n = 0;
    if (sweep)
        for (double b = 8; b <= 8.6e9 && n < 64; b *= 2)
            sizes[n++] = b;
    else
        sizes[n++] = bytes;
    gpuecon_coll_result res[64], vres[64];
    gpuecon_error err;
    gpuecon_error_clear(&err);
    for (int i = 0; i < n; i++) {
        if (gpuecon_collective(s, (gpuecon_coll_op)op, gpus, stride, sizes[i], (gpuecon_coll_algo)algo, &res[i], &err))
            return cli_fail(c, &err);
        if (vs &&
            gpuecon_collective(vs, (gpuecon_coll_op)op, gpus, stride, sizes[i], (gpuecon_coll_algo)algo, &vres[i], &err))
            return cli_fail(c, &err);
    }
    if (plot_path) {
        double y[64], y2[64];
        for (int i = 0; i < n; i++)
            y[i] = res[i].busbw_gbps, y2[i] = vs ? vres[i].busbw_gbps : 0;
        plot(c, plot_path, s, vs, op_names[op], gpus, sizes, y, y2, (size_t)n);
    }
    comm_out co = {s, vs, op, gpus, stride, sweep, sizes, res, vs ? vres : NULL, n};
    return c->format == FMT_JSON ? emit_json(c, &co) : emit_table(c, &co);
}

