/*
 * cmd_infer_sim.c — `gpuecon infer --simulate`: the request-level simulation of a deployment
 * (gpuecon_infer_simulate, docs/model.md §6.11), printed as a percentile table or one JSON
 * object (keys in docs/cli.md).
 *
 * The library does the simulation and reads the length histogram; this file maps options to
 * a simulation request, runs it on a context with the command's seed and threads, and prints.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <string.h>

static const char *const arrival_names[] = {"poisson", "gamma", "closed", "burst", NULL};

/* Options of --simulate, appended to infer's own (cmd_infer.c). */
size_t cmd_infer_sim_opts(infer_sim_args *s, opt *out, size_t cap)
{
    static const char *const preempt_names[] = {"recompute", "swap", NULL};
    opt o[] = {
        {"--simulate", O_FLAG, &s->simulate, 0, 0, NULL, NULL, "request-level simulation (percentiles, goodput)", NULL, false},
        {"--rate", O_DOUBLE, &s->rate, -1e12, 1e12, NULL, "R", "arrival rate, requests/s, all replicas", NULL, false},
        {"--users", O_INT, &s->users, -1e9, 1e9, NULL, "N", "closed loop: concurrent users, 1 to 1e8 (instead of --rate)", NULL, false},
        {"--arrival", O_CHOICE, &s->arrival, 0, 0, arrival_names, "A", "poisson | gamma (bursty) | closed | burst (all at t = 0)", NULL, false},
        {"--burstiness", O_DOUBLE, &s->burstiness, -1e12, 1e12, NULL, "B", "gamma shape (vLLM bench; 1 = Poisson, < 1 burstier)", NULL, false},
        {"--lengths", O_STR, &s->lengths, 0, 0, NULL, "fixed|lognormal|FILE", "request lengths (FILE: lines 'prompt output [weight]')", NULL, false},
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

const char *cmd_infer_arrival_name(int arrival)
{
    return arrival >= 0 && arrival < 4 ? arrival_names[arrival] : "?";
}

int cmd_infer_sim_build(cli *c, const opt *o, size_t n, const infer_sim_args *s, const gpuecon_infer_request *serve,
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
        if (gpuecon_length_bins_load(c->ctx, s->lengths, &bins, &nb, &err))
            return cli_fail(c, &err);
        r->lengths = GPUECON_LENGTHS_HISTOGRAM;
        r->bins = bins;
        r->nbins = nb;
    }
    return 0;
}

void cmd_infer_sim_stat_json(json_t *j, const char *name, const gpuecon_sim_stat *s)
{
    char k[64];
    const char *sfx[] = {"mean", "p50", "p90", "p99", "at_slo"};
    double v[] = {s->mean, s->p50, s->p90, s->p99, s->at_slo};
    for (int i = 0; i < 5; i++) {
        snprintf(k, sizeof k, "%s_%s", name, sfx[i]);
        json_object_set_new(j, k, rjson_real(v[i]));
    }
}

json_t *cmd_infer_sim_json(const gpuecon_sim_request *r, const gpuecon_sim_result *o, double elapsed)
{
    const gpuecon_infer_result *d = &o->deploy;
    json_t *j = json_object();
    json_object_set_new(j, "model", json_string(r->serve.model->name));
    json_object_set_new(j, "system", json_string(r->serve.system->name));
    json_object_set_new(j, "gpus", json_integer(d->gpus));
    json_object_set_new(j, "tp", json_integer(d->tp));
    json_object_set_new(j, "replicas", json_integer(d->replicas));
    json_object_set_new(j, "arrival", json_string(arrival_names[r->arrival]));
    bool open = r->arrival == GPUECON_ARRIVAL_POISSON || r->arrival == GPUECON_ARRIVAL_GAMMA;
    json_object_set_new(j, "rate", open ? rjson_real(r->rate) : json_null());
    json_object_set_new(j, "users", r->arrival == GPUECON_ARRIVAL_CLOSED ? json_integer(r->users) : json_null());
    cmd_infer_sim_stat_json(j, "ttft_ms", &o->ttft_ms);
    cmd_infer_sim_stat_json(j, "tpot_ms", &o->tpot_ms);
    cmd_infer_sim_stat_json(j, "itl_ms", &o->itl_ms);
    cmd_infer_sim_stat_json(j, "e2e_ms", &o->e2e_ms);
    cmd_infer_sim_stat_json(j, "queue_ms", &o->queue_ms);
    json_object_set_new(j, "slo_percentile", rjson_real(r->slo_percentile));
    json_object_set_new(j, "ttft_target_ms", r->ttft_slo_ms > 0 ? rjson_real(r->ttft_slo_ms) : json_null());
    json_object_set_new(j, "tpot_target_ms", r->tpot_slo_ms > 0 ? rjson_real(r->tpot_slo_ms) : json_null());
    json_object_set_new(j, "meets_slo", json_boolean(o->meets_slo));
    json_object_set_new(j, "overloaded", json_boolean(o->overloaded));
    json_object_set_new(j, "output_tokens_per_s", rjson_real(o->output_tokens_per_s));
    json_object_set_new(j, "output_tokens_per_s_per_gpu", rjson_real(o->output_tokens_per_s_per_gpu));
    json_object_set_new(j, "requests_per_s", rjson_real(o->requests_per_s));
    json_object_set_new(j, "goodput_requests_per_s", rjson_real(o->goodput_requests_per_s));
    json_object_set_new(j, "preemptions", rjson_real(o->preemptions));
    json_object_set_new(j, "kv_util", rjson_real(o->kv_util));
    json_object_set_new(j, "mean_running", rjson_real(o->mean_running));
    json_object_set_new(j, "zero_wait_fraction", rjson_real(o->zero_wait_fraction));
    json_object_set_new(j, "truncated_requests", rjson_real(o->truncated));
    json_object_set_new(j, "analytic_saturated_tokens_per_s", rjson_real(d->saturated_tokens_per_s));
    json_object_set_new(j, "requests", json_integer(o->requests));
    json_object_set_new(j, "replications", json_integer(o->replications));
    json_object_set_new(j, "steps", rjson_real(o->steps));
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    json_object_set_new(j, "seed", json_string(seed));
    json_object_set_new(j, "threads", json_integer(o->threads));
    json_object_set_new(j, "elapsed_s", rjson_real(elapsed));
    return j;
}

void cmd_infer_sim_overload_note(FILE *f, const gpuecon_sim_request *r, const gpuecon_sim_result *o)
{
    if (o->overloaded)
        fprintf(f, "OVERLOADED: %g requests/s at or above what the deployment serves; the queue grows while requests "
                "arrive, so throughput is over the makespan and the latencies grow with --requests\n", r->rate);
}

void cmd_infer_sim_stat_row(tbl *tb, const char *name, const gpuecon_sim_stat *s)
{
    tbl_row(tb);
    tbl_str(tb, name);
    tbl_num(tb, s->mean, 2);
    tbl_num(tb, s->p50, 2);
    tbl_num(tb, s->p90, 2);
    tbl_num(tb, s->p99, 2);
}

static int print_sim(cli *c, const gpuecon_sim_request *r, const gpuecon_sim_result *o, double elapsed)
{
    if (c->format == FMT_JSON)
        return cli_emit_json(c, cmd_infer_sim_json(r, o, elapsed));
    tbl *tb = tbl_new(c->ctx, &c->oom);
    const char *cols[] = {"latency (ms)", "mean", "P50", "P90", "P99"};
    for (int i = 0; i < 5; i++)
        tbl_col(tb, cols[i], i ? 'r' : 'l');
    cmd_infer_sim_stat_row(tb, "TTFT", &o->ttft_ms);
    cmd_infer_sim_stat_row(tb, "TPOT", &o->tpot_ms);
    cmd_infer_sim_stat_row(tb, "ITL", &o->itl_ms);
    cmd_infer_sim_stat_row(tb, "E2E", &o->e2e_ms);
    cmd_infer_sim_stat_row(tb, "queueing", &o->queue_ms);
    FILE *f = NULL;
    int done = cli_table_begin(c, tb, &f);
    if (!f)
        return done;
    const gpuecon_infer_result *d = &o->deploy;
    fprintf(f, "%s on %s: ", r->serve.model->name, r->serve.system->name);
    cmd_infer_deployment(f, d);
    fprintf(f, "; ");
    if (r->arrival == GPUECON_ARRIVAL_CLOSED)
        fprintf(f, "closed loop of %d users\n", r->users);
    else if (r->arrival == GPUECON_ARRIVAL_BURST)
        fprintf(f, "all %ld requests at t = 0 (offline benchmark; throughput over the makespan)\n", r->requests);
    else
        fprintf(f, "%s arrivals at %g requests/s\n", arrival_names[r->arrival], r->rate);
    fprintf(f, "%ld measured requests (%d replication%s, seed %llu), %.2f s\n\n", o->requests,
            o->replications, o->replications > 1 ? "s" : "", (unsigned long long)o->seed, elapsed);
    tbl_print(tb, f);
    /* whole tokens/s once there are hundreds; three digits below (a light load is not "0 tok/s") */
    fprintf(f, "\noutput %.*f tok/s (%.*f per GPU), %.3g requests/s, goodput %.3g requests/s\n",
            o->output_tokens_per_s >= 100 ? 0 : 2, o->output_tokens_per_s,
            o->output_tokens_per_s_per_gpu >= 100 ? 1 : 3, o->output_tokens_per_s_per_gpu, o->requests_per_s,
            o->goodput_requests_per_s);
    fprintf(f, "KV pool %.1f%% held on average, %.1f sequences per step, %.3g preemptions per replica\n",
            o->kv_util * 100, o->mean_running, o->preemptions);
    fprintf(f, "analytic saturation %.0f tok/s; %s\n", d->saturated_tokens_per_s,
            r->ttft_slo_ms > 0 || r->tpot_slo_ms > 0
                ? (o->meets_slo ? "meets the targets at the percentile" : "MISSES the targets at the percentile")
                : "no latency targets");
    cmd_infer_sim_overload_note(f, r, o);
    if (o->truncated > 0)
        fprintf(f, "%.0f %s cut to max_model_len %d\n", o->truncated,
                o->truncated == 1 ? "request was" : "requests were", d->max_model_len);
    return cli_table_done(c, tb, f);
}

gpuecon_ctx *cmd_infer_sim_ctx(cli *c, const infer_sim_args *s)
{
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    if (s->seed >= 0)
        cfg.seed = (uint64_t)s->seed;
    cfg.threads = s->threads;
    return gpuecon_ctx_new(&cfg);
}

int cmd_infer_simulate(cli *c, const opt *o, size_t n, const infer_sim_args *s, const gpuecon_infer_request *serve)
{
    gpuecon_sim_request r;
    int rc = cmd_infer_sim_build(c, o, n, s, serve, &r);
    if (rc)
        return rc;
    gpuecon_ctx *ctx = cmd_infer_sim_ctx(c, s);
    if (!ctx)
        rc = cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    gpuecon_sim_result out;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    double t0 = cli_now_s(c);
    if (!rc && gpuecon_infer_simulate(ctx, &r, &out, &err))
        rc = cli_fail(c, &err);
    double elapsed = cli_now_s(c) - t0;
    if (!rc)
        rc = print_sim(c, &r, &out, elapsed);
    gpuecon_ctx_free(ctx);
    if (r.bins)
        gpuecon_length_bins_free(c->ctx, (gpuecon_length_bin *)r.bins, r.nbins);
    return rc;
}
