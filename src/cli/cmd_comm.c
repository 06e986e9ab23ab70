/*
 * cmd_comm.c — `gpuecon comm`: one collective on a system's two-level network, as
 * nccl-tests would report it (time, algorithm bandwidth, bus bandwidth), so the collective
 * model can be checked on its own; --sweep-bytes prints the nccl-tests size sweep and
 * --plot charts it.
 */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char *const op_names[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree", NULL};

static json_t *row_json(double bytes, const gpuecon_coll_result *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "bytes", cli_real(bytes));
    json_object_set_new(j, "time_s", cli_real(r->time_s));
    json_object_set_new(j, "time_us", cli_real(r->time_s * 1e6));
    json_object_set_new(j, "algbw_gbps", cli_real(r->algbw_gbps));
    json_object_set_new(j, "busbw_gbps", cli_real(r->busbw_gbps));
    json_object_set_new(j, "latency_s", cli_real(r->latency_s));
    json_object_set_new(j, "level", json_string(gpuecon_link_level_name(r->level)));
    json_object_set_new(j, "algo", json_string(r->algo == GPUECON_ALGO_TREE ? "tree" : "ring"));
    json_object_set_new(j, "per_domain", json_integer(r->per_domain));
    json_object_set_new(j, "domains", json_integer(r->domains));
    json_object_set_new(j, "intra_s", cli_real(r->intra_s));
    json_object_set_new(j, "inter_s", cli_real(r->inter_s));
    return j;
}

static void row_tbl(tbl *t, double bytes, const gpuecon_coll_result *r)
{
    char b[32];
    tbl_row(t);
    tbl_str(t, fmt_si(b, sizeof b, bytes, "B"));
    tbl_num(t, r->time_s * 1e6, 1);
    tbl_num(t, r->algbw_gbps, 2);
    tbl_num(t, r->busbw_gbps, 2);
    tbl_str(t, gpuecon_link_level_name(r->level));
    tbl_str(t, r->algo == GPUECON_ALGO_TREE ? "tree" : "ring");
    tbl_fmt(t, "%d x %d", r->domains, r->per_domain);
}

static void plot(const char *path, const gpuecon_system *s, const char *op, int gpus, const double *x,
                 const double *y, size_t n)
{
    char title[160];
    snprintf(title, sizeof title, "%s, %d GPUs on %s", op, gpus, s->name);
    plot_series ser = {"bus bandwidth (GB/s)", x, y, n, false};
    plot_spec spec = {title, "bytes", "GB/s", NULL, true, false, 0, 0};
    char err[256];
    if (plot_svg(path, &spec, &ser, 1, err, sizeof err))
        fprintf(stderr, "gpuecon: --plot: %s\n", err);
}

typedef struct comm_out {
    const gpuecon_system *s;
    int op, gpus, stride;
    bool sweep;
    const double *sizes;
    const gpuecon_coll_result *res;
    int n;
} comm_out;

static int emit_json(cli *c, const comm_out *o)
{
    gpuecon_link_model lm;
    gpuecon_link_model_for(o->s, &lm);
    json_t *j = o->sweep ? json_object() : row_json(o->sizes[0], &o->res[0]);
    json_object_set_new(j, "system", json_string(o->s->name));
    json_object_set_new(j, "op", json_string(op_names[o->op]));
    json_object_set_new(j, "gpus", json_integer(o->gpus));
    json_object_set_new(j, "stride", json_integer(o->stride));
    json_object_set_new(j, "busbw_factor", cli_real(gpuecon_busbw_factor((gpuecon_coll_op)o->op, o->gpus)));
    json_object_set_new(j, "link_model", json_pack("{s:o, s:o, s:o}", "scaleup_eff", cli_real(lm.scaleup_eff),
                                                     "scaleout_eff", cli_real(lm.scaleout_eff), "launch_s",
                                                     cli_real(lm.launch_s)));
    if (o->sweep) {
        json_t *arr = json_array();
        for (int i = 0; i < o->n; i++)
            json_array_append_new(arr, row_json(o->sizes[i], &o->res[i]));
        json_object_set_new(j, "rows", arr);
    }
    return cli_emit_json(c, j);
}

static int emit_table(cli *c, const comm_out *o)
{
    if (c->format == FMT_HTML)
        return cli_usage_error("--format", "html is only for compare");
    gpuecon_link_model lm;
    gpuecon_link_model_for(o->s, &lm);
    tbl *t = tbl_new();
    const char *cols[] = {"size", "time us", "algbw GB/s", "busbw GB/s", "bottleneck", "algo", "domains x per"};
    for (int i = 0; i < 7; i++)
        tbl_col(t, cols[i], i >= 1 && i <= 3 ? 'r' : 'l');
    for (int i = 0; i < o->n; i++)
        row_tbl(t, o->sizes[i], &o->res[i]);
    FILE *f = cli_out(c);
    if (!f) {
        tbl_free(t);
        return EXIT_USAGE;
    }
    if (c->format == FMT_CSV)
        tbl_csv(t, f);
    else {
        fprintf(f, "%s of %d GPUs (stride %d) on %s: %d per %d-GPU domain, NVLink %.0f GB/s x %.2f, network %.1f GB/s "
                   "x %.2f per GPU\n\n",
                op_names[o->op], o->gpus, o->stride, o->s->name, o->res[0].per_domain, o->s->scaleup_gpus,
                o->s->scaleup_gbps, lm.scaleup_eff, o->s->scaleout_gbps, lm.scaleout_eff);
        tbl_print(t, f);
        if (o->op == GPUECON_ALL_TO_ALL && !o->sweep)
            fprintf(f, "\nintra-domain share %.1f us on NVLink, inter-domain share %.1f us on the network (overlapped)\n",
                    o->res[0].intra_s * 1e6, o->res[0].inter_s * 1e6);
    }
    tbl_free(t);
    cli_close_out(c, f);
    return EXIT_OK;
}

int cmd_comm(cli *c, int argc, char **argv)
{
    const char *system = NULL, *plot_path = NULL;
    int op = 0, algo = 0, gpus = 0, stride = 1;
    double bytes = 0;
    bool sweep = false;
    opt opts[] = {
        {"--system", O_STR, &system, 0, 0, NULL, "S", "system (gpuecon catalog systems)", false},
        {"--op", O_CHOICE, &op, 0, 0, op_names, "OP", "collective", false},
        {"--gpus", O_INT, &gpus, 1, 16777216, NULL, "N", "ranks in the group (send-recv: 2)", false},
        {"--bytes", O_DOUBLE, &bytes, 0, 1e15, NULL, "B", "nccl-tests size: the full buffer (1G, 256M, ...)", false},
        {"--stride", O_INT, &stride, 1, 16777216, NULL, "K", "rank distance between members (TP 1, DP tp*cp*pp)", false},
        {"--algo", O_CHOICE, &algo, 0, 0, algo_names, "A", "algorithm (default auto)", false},
        {"--sweep-bytes", O_FLAG, &sweep, 0, 0, NULL, NULL, "sizes 8 B to 8 GB, x2 (as nccl-tests -b 8 -e 8G -f 2)", false},
        {"--plot", O_STR, &plot_path, 0, 0, NULL, "FILE.svg", "chart of the sweep (needs gnuplot)", false},
    };
    static const cmd_usage usage = {
        "comm --system S --op all-reduce|all-gather|reduce-scatter|all-to-all|send-recv --gpus N\n"
        "     (--bytes B | --sweep-bytes [--plot FILE.svg]) [--stride K] [--algo auto|ring|tree]",
        "Time of one collective on the system's scale-up domain and network, alpha-beta as\n"
        "nccl-tests reports it: algbw = bytes/time, busbw = algbw x 2(n-1)/n (all-reduce),\n"
        "(n-1)/n (all-gather, reduce-scatter, all-to-all), 1 (send-recv).",
        "gpuecon comm --system gb200-nvl72 --op all-to-all --gpus 64 --bytes 256M"};
    const size_t nopts = sizeof opts / sizeof opts[0];
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc)
        return rc;
    if (!opt_seen(opts, nopts, "--system"))
        return cli_usage_error("--system", "is required (gpuecon catalog systems lists them)");
    if (!opt_seen(opts, nopts, "--op"))
        return cli_usage_error("--op", "is required (all-reduce, all-gather, reduce-scatter, all-to-all, send-recv)");
    if (!opt_seen(opts, nopts, "--gpus"))
        return cli_usage_error("--gpus", "is required (ranks in the group)");
    if (!sweep && !opt_seen(opts, nopts, "--bytes"))
        return cli_usage_error("--bytes", "is required (or --sweep-bytes)");
    if (plot_path && !sweep)
        return cli_usage_error("--plot", "charts a sweep: give --sweep-bytes too");
    if ((rc = cli_load_catalog(c)))
        return rc;
    const gpuecon_system *s;
    if ((rc = cli_system(c, "--system", system, &s)))
        return rc;
    double sizes[64];
    int n = 0;
    if (sweep)
        for (double b = 8; b <= 8.6e9 && n < 64; b *= 2)
            sizes[n++] = b;
    else
        sizes[n++] = bytes;
    gpuecon_coll_result res[64];
    gpuecon_error err;
    gpuecon_error_clear(&err);
    for (int i = 0; i < n; i++)
        if (gpuecon_collective(s, (gpuecon_coll_op)op, gpus, stride, sizes[i], (gpuecon_coll_algo)algo, &res[i], &err))
            return cli_fail(&err);
    if (plot_path) {
        double y[64];
        for (int i = 0; i < n; i++)
            y[i] = res[i].busbw_gbps;
        plot(plot_path, s, op_names[op], gpus, sizes, y, (size_t)n);
    }
    comm_out co = {s, op, gpus, stride, sweep, sizes, res, n};
    return c->format == FMT_JSON ? emit_json(c, &co) : emit_table(c, &co);
}

