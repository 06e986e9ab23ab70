/*
 * cmd_infer_sim.c — `gpuecon infer --simulate`: the request-level simulation of a deployment
 * (gpuecon_infer_simulate, docs/model.md §6.11).
 *
 * The library does the simulation and reads the length histogram; this file maps options to
 * a simulation request and runs it on a context with the command's seed and threads;
 * render/serving_sim.c renders it.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <string.h>

static const char *const arrival_names[] = {"poisson", "gamma", "closed", "burst", NULL};

/* Options of --simulate, appended to infer's own (cmd_infer.c). */
size_t cmd_infer_sim_opts(infer_sim_args *s, opt *out, size_t cap)
{
    static const char *const preempt_names[] = {"recompute", "swap", NULL};
    static const char *const length_words[] = {"fixed", "lognormal", NULL}; /* not files */
    opt o[] = {
        {"--simulate", O_FLAG, &s->simulate, 0, 0, NULL, NULL, "request-level simulation (percentiles, goodput)", NULL, false},
        {"--rate", O_DOUBLE, &s->rate, -1e12, 1e12, NULL, "R", "arrival rate, requests/s, all replicas", NULL, false},
        {"--users", O_INT, &s->users, -1e9, 1e9, NULL, "N", "closed loop: concurrent users, 1 to 1e8 (instead of --rate)", NULL, false},
        {"--arrival", O_CHOICE, &s->arrival, 0, 0, arrival_names, "A", "poisson | gamma (bursty) | closed | burst (all at t = 0)", NULL, false},
        {"--burstiness", O_DOUBLE, &s->burstiness, -1e12, 1e12, NULL, "B", "gamma shape (vLLM bench; 1 = Poisson, < 1 burstier)", NULL, false},
        {"--lengths", O_PATH, &s->lengths, 0, 0, length_words, "fixed|lognormal|FILE", "request lengths (FILE: lines 'prompt output [weight]')", NULL, false},
        {"--prompt-cv", O_DOUBLE, &s->prompt_cv, 0, 10, NULL, "F", "lognormal prompt-length CV (output: --output-cv)", NULL, false},
        {"--requests", O_INT, &s->requests, 10, 1e7, NULL, "N", "requests per replication (10000)", NULL, false},
        {"--replications", O_INT, &s->replications, 1, 10000, NULL, "N", "independent replications (1)", NULL, false},
        {"--warmup", O_DOUBLE, &s->warmup, 0, 0.9, NULL, "F", "fraction of requests not measured (0.1)", NULL, false},
        {"--preempt", O_CHOICE, &s->preempt, 0, 0, preempt_names, "P", "when KV runs out: recompute | swap", NULL, false},
        {"--swap-gbps", O_DOUBLE, &s->swap_gbps, 1e-3, 1e4, NULL, "G", "host link per GPU for swap (25)", NULL, false},
        {"--ttft-ms", O_DOUBLE, &s->ttft_ms, -1e12, 1e12, NULL, "T", "TTFT target for goodput / the search", NULL, false},
        {"--tpot-ms", O_DOUBLE, &s->tpot_ms, -1e12, 1e12, NULL, "T", "TPOT target for goodput / the search", NULL, false},
        {"--slo-percentile", O_DOUBLE, &s->slo_pct, -1e12, 1e12, NULL, "P", "percentile the targets apply to (90)", NULL, false},
        {"--seed", O_INT, &s->seed, 0, 2147483647, NULL, "N", "simulation seed", NULL, false},
        {"--threads", O_INT, &s->threads, 0, 1024, NULL, "N", "threads for replications (0: all)", NULL, false},
    };
    size_t n = sizeof o / sizeof o[0];
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = o[i];
    return n;
}

void cmd_infer_sim_defaults(infer_sim_args *s)
{
    memset(s, 0, sizeof *s);
    s->burstiness = 1;
    s->requests = 10000;
    s->replications = 1;
    s->warmup = 0.1;
    s->swap_gbps = 25;
    s->slo_pct = 90;
    s->seed = -1;
}

/* The simulation request of `serve` from the options (arrivals, lengths — a histogram file is
 * loaded into r->bins, freed with gpuecon_length_bins_free —, targets); prints the error and
 * returns EXIT_USAGE (or the load's exit status). */
static int sim_build(cli *c, const opt *o, size_t n, const infer_sim_args *s, const gpuecon_infer_request *serve,
                     gpuecon_sim_request *r)
{
    gpuecon_sim_request_init(r);
    r->serve = *serve;
    bool users = opt_seen(o, n, "--users"), rate = opt_seen(o, n, "--rate");
    bool burst = opt_seen(o, n, "--arrival") && s->arrival == GPUECON_ARRIVAL_BURST;
    if (users && rate)
        return cli_usage_error(c, "--users", "give either --rate (open loop) or --users (closed loop)");
    if (burst && (users || rate))
        return cli_usage_error(c, users ? "--users" : "--rate",
                               "--arrival burst sends all --requests at t = 0; it takes no %s",
                               users ? "--users" : "--rate");
    if (!users && !rate && !burst)
        return cli_usage_error(c, "--simulate", "needs --rate R (requests/s, all replicas) or --users N (closed loop)");
    r->arrival = users ? GPUECON_ARRIVAL_CLOSED : opt_seen(o, n, "--arrival") ? (gpuecon_arrival)s->arrival
                                                                               : GPUECON_ARRIVAL_POISSON;
    if (users && opt_seen(o, n, "--arrival") && s->arrival != GPUECON_ARRIVAL_CLOSED)
        return cli_usage_error(c, "--arrival", "--users means a closed loop; use --rate for %s arrivals",
                               arrival_names[s->arrival]);
    if (!users && r->arrival == GPUECON_ARRIVAL_CLOSED)
        return cli_usage_error(c, "--arrival", "closed needs --users N");
    /* a shape given for arrivals that have none was once accepted silently, even <= 0 (docs/cli.md) */
    if (opt_seen(o, n, "--burstiness") && r->arrival != GPUECON_ARRIVAL_GAMMA) {
        if (!(s->burstiness >= 1e-3 && s->burstiness <= 1e3))
            return cli_usage_error(c, "--burstiness", "%g is out of range; allowed 0.001 to 1000 (with --arrival "
                                   "gamma)", s->burstiness);
        return cli_usage_error(c, "--burstiness", "is the shape of gamma arrivals; add --arrival gamma (%s "
                               "arrivals have none)", arrival_names[r->arrival]);
    }
    r->rate = s->rate;
    r->users = s->users;
    r->burstiness = s->burstiness;
    r->prompt_cv = s->prompt_cv;
    r->requests = s->requests;
    r->replications = s->replications;
    r->warmup = s->warmup;
    r->preempt = (gpuecon_preempt)s->preempt;
    r->swap_gbps = s->swap_gbps;
    r->ttft_slo_ms = s->ttft_ms;
    r->tpot_slo_ms = s->tpot_ms;
    r->slo_percentile = s->slo_pct;
    if (opt_seen(o, n, "--ttft-ms") && !(s->ttft_ms > 0))
        return cli_usage_error(c, "--ttft-ms", "%g must be above 0 (milliseconds)", s->ttft_ms);
    if (opt_seen(o, n, "--tpot-ms") && !(s->tpot_ms > 0))
        return cli_usage_error(c, "--tpot-ms", "%g must be above 0 (milliseconds)", s->tpot_ms);
    if (!s->lengths || !strcmp(s->lengths, "fixed"))
        r->lengths = GPUECON_LENGTHS_FIXED;
    else if (!strcmp(s->lengths, "lognormal"))
        r->lengths = GPUECON_LENGTHS_LOGNORMAL;
    else {
        gpuecon_length_bin *bins;
        size_t nb;
        gpuecon_error err;
        gpuecon_error_clear(&err);
        size_t len;
        const char *label, *text = cli_inline(c, "--lengths", &len, &label); /* a request's histogram, inline */
        if (text ? gpuecon_length_bins_load_buffer(c->ctx, label, text, len, &bins, &nb, &err)
                 : gpuecon_length_bins_load(c->ctx, s->lengths, &bins, &nb, &err))
            return cli_fail(c, &err);
        r->lengths = GPUECON_LENGTHS_HISTOGRAM;
        r->bins = bins;
        r->nbins = nb;
    }
    return 0;
}

gpuecon_ctx *cmd_infer_sim_ctx(cli *c, const infer_sim_args *s)
{
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    if (s->seed >= 0)
        cfg.seed = (uint64_t)s->seed;
    cfg.threads = s->threads;
    return gpuecon_ctx_new(&cfg);
}

int cmd_infer_simulate(cli *c, const opt *o, size_t n, const infer_sim_args *s, const infer_disagg_args *d,
                       const gpuecon_infer_request *serve, const infer_layout_choice *layout)
{
    bool disagg = cmd_infer_disagg_wanted(d);
    if (disagg && (!d->prefill || !d->decode))
        return cli_usage_error(c, d->prefill ? "--decode" : "--prefill", "a disaggregated deployment needs both "
                                                                       "--prefill XxP and --decode YxD");
    gpuecon_disagg_sim_request q; /* aggregated: q.sim alone */
    memset(&q, 0, sizeof q);
    int rc;
    if ((disagg && ((rc = cmd_infer_disagg_layout(c, "--prefill", d->prefill, &q.prefill_instances, &q.prefill_tp)) ||
                    (rc = cmd_infer_disagg_layout(c, "--decode", d->decode, &q.decode_instances, &q.decode_tp)))) ||
        (rc = sim_build(c, o, n, s, serve, &q.sim)))
        return rc;
    gpuecon_ctx *ctx = cmd_infer_sim_ctx(c, s);
    if (!ctx)
        rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_sim_result out;
    gpuecon_disagg_sim_result dout;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    if (!rc && (disagg ? gpuecon_infer_disagg_simulate(ctx, &q, &dout, &err)
                       : gpuecon_infer_simulate(ctx, &q.sim, &out, &err)))
        rc = cli_fail(c, &err);
    double elapsed = cli_now_s(c) - t0;
    const char *arrival = arrival_names[q.sim.arrival];
    band_set *bs = NULL;
    if (!rc)
        rc = cmd_band_set(c, &bs);
    serve_bands bands;
    if (!rc) { /* the simulated headline figures: throughput per GPU, mean TPOT and TTFT */
        const gpuecon_sim_result *so = disagg ? &dout.sim : &out;
        double running = disagg ? dout.decode_running * q.decode_instances
                                : so->mean_running * so->deploy.replicas;
        int gpus = disagg ? dout.analytic.gpus_used : so->deploy.gpus;
        band_serving(bs, &q.sim.serve, q.sim.serve.weights, gpus, running, so->output_tokens_per_s_per_gpu,
                     so->tpot_ms.mean, so->ttft_ms.mean, &bands);
    }
    infer_sim_view v = {&q.sim, &out, arrival, elapsed, bs ? &bands : NULL, layout};
    infer_disagg_sim_view dv = {&q, &dout, arrival, elapsed, bs ? &bands : NULL};
    if (!rc)
        rc = disagg ? cli_render(c, &render_infer_disagg_sim, &dv) : cli_render(c, &render_infer_sim, &v);
    if (bs)
        band_set_free(bs);
    gpuecon_ctx_free(ctx);
    if (q.sim.bins)
        gpuecon_length_bins_free(c->ctx, (gpuecon_length_bin *)q.sim.bins, q.sim.nbins);
    return rc;
}
