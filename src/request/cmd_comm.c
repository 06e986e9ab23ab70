/*
 * cmd_comm.c — `gpuecon comm`: one collective on a system's two-level network, as
 * nccl-tests would report it (time, algorithm bandwidth, bus bandwidth), so the collective
 * model can be checked on its own; --sweep-bytes prints the nccl-tests size sweep and
 * --plot charts it; --vs S sets the same collective on system S beside it, with the ratio
 * of the times (SemiAnalysis, 20 Aug 2025: ~18x for a 64-GPU all-to-all inside an NVL72).
 */
#include "cli.h"

#include <stdio.h>

static const char *const op_names[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree", NULL};

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
        {"--plot", O_PATH, &plot_path, 0, 0, NULL, "FILE.svg", "chart of the sweep (needs gnuplot)", NULL, false},
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
    gpuecon_link_model lm;
    gpuecon_link_model_for(s, &lm);
    comm_view v = {s, vs, op, op_names[op], gpus, stride, sweep, sizes, res, vs ? vres : NULL, n, lm};
    return cli_render(c, &render_comm, &v);
}

