/*
 * cmd_infer.c — `gpuecon infer`: serving capacity, throughput, latency and cost per token of
 * one deployment (docs/model.md §6), at one concurrency or over a sweep.
 *
 * The library does the model (gpuecon_infer, gpuecon_infer_sweep); this file maps options to
 * a request, runs it and hands the result to render/serving.c (memory / KV / performance /
 * cost), with --sweep a throughput and TPOT curve against concurrency (--plot FILE.svg).
 * An infeasible request exits 3 with the shortfall in GB (and, with --json, the memory figures).
 */
#include "request/cli.h"
#include "cmd_infer.h"
#include "model/names.h"
#include <string.h>

static const char *const engine_names[] = {"legacy", "v0.21", NULL};
static const char *const roofline_names[] = {"split", "fused", NULL};
static const char *const prefill_steps_names[] = {"whole", "even", NULL};
static const char *const onoff_names[] = {"on", "off", NULL};


/* ---- options -> request ---------------------------------------------------------------- */

typedef struct infer_args {
    const char *model, *system, *profile, *serving, *stack, *lora_mods, *plot;
    int gpus, tp, pp, weights, kv, draft, lora_rank, max_loras, engine, roofline, prefill_steps, ep, attn_dp;
    int max_num_seqs, max_num_batched_tokens, long_prefill, max_model_len, block_size;
    double prompt_len, output_len, output_cv, prefix_hit, concurrency, accept, accept_rate, draft_gb;
    double gpu_mem_util, activation_gib, cuda_graph_gib, pue, usd_per_gpu_hour, imbalance, power_limit, load_cv;
    int redundant;
    bool sweep, tp_across;
    int_list grid;
    infer_sim_args sim;
    infer_search_args search;
    infer_disagg_args disagg;
} infer_args;

static int check_args(cli *c, const opt *o, size_t n, const infer_args *a)
{
    int rc = opts_require(c, o, n);
    if (rc)
        return rc;
    if (opt_seen(o, n, "--concurrency") && !(a->concurrency > 0))
        return cli_usage_error(c, "--concurrency", "%g must be above 0 (requests in the system, all "
                                                "replicas together)", a->concurrency);
    if (opt_seen(o, n, "--concurrency") && (a->sweep || opt_seen(o, n, "--grid")))
        return cli_usage_error(c, "--concurrency", "give either --concurrency or --sweep/--grid");
    if (opt_seen(o, n, "--accept") && opt_seen(o, n, "--accept-rate"))
        return cli_usage_error(c, "--accept-rate", "give either --accept (per-position α) or --accept-rate");
    bool acc = opt_seen(o, n, "--accept") || opt_seen(o, n, "--accept-rate");
    if (a->draft > 0 && !acc)
        return cli_usage_error(c, "--draft", "needs --accept A (per-position acceptance α) or "
                                          "--accept-rate A (vLLM's draft acceptance rate)");
    if (acc && a->draft == 0 && !a->search.search)
        return cli_usage_error(c, opt_seen(o, n, "--accept") ? "--accept" : "--accept-rate",
                               "needs --draft K (the draft length)");
    if (a->sim.simulate && (a->sweep || opt_seen(o, n, "--grid") || opt_seen(o, n, "--concurrency")))
        return cli_usage_error(c, "--simulate", "simulates one deployment under arrivals: give --rate or "
                                             "--users, not --sweep, --grid or --concurrency");
    static const char *const sim_only[] = {"--rate", "--users", "--arrival", "--burstiness", "--lengths",
                                           "--prompt-cv", "--requests", "--replications", "--warmup",
                                           "--preempt", "--swap-gbps", "--seed", "--threads"};
    if (a->search.search && (a->sim.simulate || a->sweep || opt_seen(o, n, "--grid")))
        return cli_usage_error(c, "--search", "give it alone: not with --simulate, --sweep or --grid");
    if (a->disagg.search && a->sim.simulate)
        return cli_usage_error(c, "--disagg-search", "chooses the layout analytically: not with --simulate (simulate "
                                                  "the layout it prints with --prefill XxP --decode YxD --simulate)");
    if (cmd_infer_disagg_wanted(&a->disagg) &&
        (a->search.search || a->sweep || opt_seen(o, n, "--grid") || opt_seen(o, n, "--concurrency")))
        return cli_usage_error(c, a->disagg.search ? "--disagg-search" : a->disagg.prefill ? "--prefill" : "--decode",
                               "a disaggregated deployment is evaluated at a rate or simulated: not with --search, "
                               "--sweep, --grid or --concurrency");
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0] && !a->sim.simulate; i++) {
        bool search_too = i == 0 || i >= 11; /* --rate, --seed, --threads serve --search as well */
        if (i == 0 && cmd_infer_disagg_wanted(&a->disagg))
            continue; /* and --rate a disaggregated deployment */
        if (opt_seen(o, n, sim_only[i]) && !(search_too && a->search.search))
            return cli_usage_error(c, sim_only[i], search_too ? "needs --simulate or --search" : "needs --simulate");
    }
    static const char *const search_only[] = {"--objective", "--search-gpus", "--max-draft", "--confirm", "--top"};
    for (size_t i = 0; i < sizeof search_only / sizeof search_only[0] && !a->search.search; i++)
        if (opt_seen(o, n, search_only[i]))
            return cli_usage_error(c, search_only[i], "needs --search");
    if (opt_seen(o, n, "--plot") && !a->sweep && !opt_seen(o, n, "--grid") && !a->search.search)
        return cli_usage_error(c, "--plot", "needs --sweep (or --grid LIST)");
    return 0;
}

static int build_request(cli *c, const opt *o, size_t n, const infer_args *a, gpuecon_infer_request *r)
{
    int rc;
    gpuecon_infer_request_init(r);
    if ((rc = cli_model(c, "--model", a->model, &r->model)) ||
        (rc = cli_system(c, "--system", a->system, &r->system)) ||
        (opt_seen(o, n, "--power-limit") && (rc = cli_power_limit(c, "--power-limit", a->power_limit, &r->system))) ||
        (rc = cli_profile(c, "--profile", a->profile, &r->tco)) ||
        (rc = cmd_infer_serving_profile(c, a->stack ? "--stack" : "--serving-profile",
                                        a->stack ? a->stack : a->serving, &r->profile)))
        return rc;
    if (a->stack && opt_seen(o, n, "--serving-profile") && strcmp(a->stack, a->serving) != 0)
        return cli_usage_error(c, "--serving-profile", "is an alias of --stack; give one (--stack %s, "
                               "--serving-profile %s)", a->stack, a->serving);
    if (a->lora_mods && (rc = cmd_infer_lora_modules(c, "--lora-modules", a->lora_mods, &r->lora_modules)))
        return rc;
    r->weights = (gpuecon_precision)a->weights;
    if (!c->capture_infer) /* a user's calibration from a --catalog overlay (docs/model.md §3.8); calibrate
                              itself fits from the built-in values */
        gpuecon_calibration_apply_profile(gpuecon_catalog_calibration(c->cat, 2, gpuecon_serving_profile_label(&r->profile),
                                                                      r->system->name, (int)r->weights),
                                          &r->profile);
    r->usd_per_gpu_hour = a->usd_per_gpu_hour;
    r->gpus = opt_seen(o, n, "--gpus") ? a->gpus : r->system->gpus_per_node;
    r->tp = opt_seen(o, n, "--tp") ? a->tp : 0;
    r->pp = opt_seen(o, n, "--pp") ? a->pp : 1;
    r->tp_across_nodes = a->tp_across;
    /* --gpus left to its default (one server) under a replica larger than the server: name the
       default, since the user never wrote the number the model would quote */
    if (!opt_seen(o, n, "--gpus") && r->tp > 0 && r->tp * r->pp > r->gpus)
        return cli_usage_error(c, "--gpus", "not given, so one server of %s: %d GPUs, fewer than TP %d x PP %d = %d "
                               "GPUs per replica; give --gpus, a multiple of %d",
                               r->system->name, r->gpus, r->tp, r->pp, r->tp * r->pp, r->tp * r->pp);
    r->expert_parallel = a->ep == 0;
    r->attention_dp = a->attn_dp == 0;
    if (r->attention_dp && r->model->experts == 0)
        return cli_usage_error(c, "--attention-dp", "%s is a dense model; attention data-parallel applies to "
                               "mixture-of-experts models (on for MoE, off otherwise)", r->model->name);
    if (r->attention_dp && r->profile.stack && !r->profile.attention_dp_ok)
        return cli_usage_error(c, "--attention-dp", "stack %s does not run attention data-parallel beside "
                               "expert-parallel MoE; use --attention-dp off or a stack that does", r->profile.stack);
    r->expert_imbalance = a->imbalance;
    r->expert_load_cv = a->load_cv;
    r->redundant_experts = opt_seen(o, n, "--redundant-experts") ? a->redundant : -1;
    if (r->model->experts == 0) { /* each once ignored on a dense model but the first two */
        static const char *const moe_only[] = {"--redundant-experts", "--expert-load-cv", "--expert-imbalance",
                                               "--ep", NULL};
        for (int i = 0; moe_only[i]; i++)
            if (opt_seen(o, n, moe_only[i]))
                return cli_usage_error(c, moe_only[i], "%s is a dense model; it applies to mixture-of-experts models",
                                       r->model->name);
    }
    r->weights = (gpuecon_precision)a->weights;
    r->kv = (gpuecon_precision)a->kv;
    r->prompt_len = a->prompt_len;
    r->output_len = a->output_len;
    r->output_cv = a->output_cv;
    r->prefix_hit = a->prefix_hit;
    r->concurrency = opt_seen(o, n, "--concurrency") ? a->concurrency : 0;
    r->draft_k = a->draft;
    r->acceptance_is_rate = opt_seen(o, n, "--accept-rate");
    r->acceptance = r->acceptance_is_rate ? a->accept_rate : a->accept;
    r->draft_gb = opt_seen(o, n, "--draft-gb") ? a->draft_gb : -1;
    r->lora_rank = a->lora_rank;
    r->max_loras = a->max_loras;
    r->engine = (gpuecon_engine_mode)a->engine;
    r->roofline = (gpuecon_roofline)a->roofline;
    r->prefill_steps = (gpuecon_prefill_steps)a->prefill_steps;
    r->gpu_mem_util = a->gpu_mem_util;
    r->max_num_seqs = a->max_num_seqs;
    r->max_num_batched_tokens = a->max_num_batched_tokens;
    r->long_prefill_token_threshold = a->long_prefill;
    r->max_model_len = a->max_model_len;
    r->block_size = a->block_size;
    r->activation_gib = opt_seen(o, n, "--activation-gib") ? a->activation_gib : -1;
    r->cuda_graph_gib = opt_seen(o, n, "--cuda-graph-gib") ? a->cuda_graph_gib : -1;
    r->pue = a->pue;
    return 0;
}

/* ---- sweep ----------------------------------------------------------------------- */

static int plot_sweep(cli *c, const char *path, const gpuecon_infer_request *r, const double *x,
                      const gpuecon_infer_point *p, size_t n)
{
    double y1[64], y2[64];
    for (size_t i = 0; i < n; i++) {
        y1[i] = p[i].output_tokens_per_s;
        y2[i] = p[i].tpot_ms;
    }
    char title[256];
    snprintf(title, sizeof title, "%s on %s (%s weights, %s KV)", r->model->name, r->system->name,
             gpuecon_precision_name(r->weights), gpuecon_precision_name(r->kv));
    plot_series s[2] = {{"output tokens/s", x, y1, n, false}, {"TPOT (ms)", x, y2, n, true}};
    plot_spec spec = {title, "concurrent requests", "output tokens/s", "TPOT (ms)", true, false, 0, 0};
    return cli_plot(c, path, &spec, s, 2, true, false);
}

static int run_sweep(cli *c, const infer_args *a, const gpuecon_infer_request *r, gpuecon_infer_result *o,
                     const band_set *bs, const infer_layout_choice *layout)
{
    double x[64];
    size_t n = 0;
    if (a->grid.n > 0)
        for (int i = 0; i < a->grid.n; i++)
            x[n++] = a->grid.v[i];
    else
        n = gpuecon_infer_grid(o, x, 64);
    gpuecon_infer_point p[64];
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_infer_sweep(r, x, n, p, &err))
        return cli_fail(c, &err);
    int rc = a->plot ? plot_sweep(c, a->plot, r, x, p, n) : 0;
    serve_bands bands[64], at;
    for (size_t i = 0; i < n; i++)
        band_serving(bs, r, r->weights, o->gpus, p[i].concurrency, p[i].output_tokens_per_s_per_gpu, p[i].tpot_ms,
                     p[i].ttft_ms, &bands[i]);
    band_serving(bs, r, r->weights, o->gpus, o->at.concurrency, o->at.output_tokens_per_s_per_gpu, o->at.tpot_ms,
                 o->at.ttft_ms, &at);
    infer_sweep_view v = {r, o, x, p, n, bs ? bands : NULL, bs ? &at : NULL, layout};
    return rc ? rc : cli_render(c, &render_infer_sweep, &v);
}

/* Without --tp and --pp: the layout serving the most output tokens/s per GPU at the request's load
 * (infer_layout_choose, docs/model.md §6.12), set into *r. Under --simulate the load is its --users
 * (a closed loop) or its --rate (the layouts serving it, by capacity), with its targets; a burst, the
 * saturation. NULL when the user gave the layout or none fits or serves the rate (the request then
 * runs as given and says why). */
static const infer_layout_choice *default_layout(const opt *opts, size_t nopts, const infer_args *a,
                                                 gpuecon_infer_request *r, infer_layout_choice *choice)
{
    if (opt_seen(opts, nopts, "--tp") || opt_seen(opts, nopts, "--pp"))
        return NULL;
    gpuecon_infer_request q = *r;
    double rate = 0, ttft = 0, tpot = 0;
    if (a->sim.simulate) {
        if (opt_seen(opts, nopts, "--users"))
            q.concurrency = a->sim.users > 0 ? a->sim.users : 0; /* a bad count: the simulation says so */
        else if (opt_seen(opts, nopts, "--rate") && a->sim.arrival != 3 /* burst */)
            rate = a->sim.rate > 0 ? a->sim.rate : 0;
        ttft = a->sim.ttft_ms;
        tpot = a->sim.tpot_ms;
    }
    if (infer_layout_choose(&q, rate, ttft > 0 ? ttft : 0, tpot > 0 ? tpot : 0, choice, NULL) != GPUECON_OK)
        return NULL;
    r->tp = choice->chosen.tp;
    r->pp = choice->chosen.pp;
    return choice;
}

static int execute(cli *c, const opt *opts, size_t nopts, const infer_args *a)
{
    if (c->format == FMT_HTML)
        return cli_usage_error(c, "--format", "html is only for compare and rl");
    gpuecon_infer_request r;
    int rc = build_request(c, opts, nopts, a, &r);
    if (rc)
        return rc;
    if (c->capture_infer) { /* calibrate: the request this command would run */
        *c->capture_infer = r;
        return EXIT_OK;
    }
    if (cmd_infer_disagg_wanted(&a->disagg))
        return a->sim.simulate ? cmd_infer_simulate(c, opts, nopts, &a->sim, &a->disagg, &r, NULL)
                               : cmd_infer_disagg(c, opts, nopts, &a->disagg, &a->sim, &r);
    /* the search tries every precision and layout itself: the given one need not fit */
    if (a->search.search)
        return cmd_infer_search(c, opts, nopts, &a->search, &a->sim, a->plot, &r);
    infer_layout_choice choice;
    const infer_layout_choice *layout = default_layout(opts, nopts, a, &r, &choice);
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    rc = gpuecon_infer(&r, &o, &err);
    if (rc == GPUECON_E_INFEASIBLE && o.hbm_gib > 0) {
        cli_spell_options(c, err.message, sizeof err.message); /* the JSON quotes it */
        infer_view v = {&r, &o, err.message, NULL, layout};
        if (c->format == FMT_JSON) /* the JSON still says why (docs/cli.md) */
            cli_render(c, &render_infer, &v);
        return cli_fail(c, &err);
    }
    if (rc)
        return cli_fail(c, &err);
    if (a->sim.simulate)
        return cmd_infer_simulate(c, opts, nopts, &a->sim, &a->disagg, &r, layout);
    band_set *bs;
    if ((rc = cmd_band_set(c, &bs)))
        return rc;
    if (a->sweep || a->grid.n > 0) {
        rc = run_sweep(c, a, &r, &o, bs, layout);
        if (bs)
            band_set_free(bs);
        return rc;
    }
    serve_bands bands;
    band_serving(bs, &r, r.weights, o.gpus, o.at.concurrency, o.at.output_tokens_per_s_per_gpu, o.at.tpot_ms,
                 o.at.ttft_ms, &bands);
    infer_view v = {&r, &o, NULL, bs ? &bands : NULL, layout};
    rc = cli_render(c, &render_infer, &v);
    if (bs)
        band_set_free(bs);
    return rc;
}

int cmd_infer(cli *c, int argc, char **argv)
{
    infer_args a = {0};
    a.profile = "hyperscaler";
    a.serving = "generic";
    a.prompt_len = 230;
    a.output_len = 203;
    a.max_loras = 1;
    a.block_size = 16;
    a.attn_dp = 1; /* off */
    cmd_infer_sim_defaults(&a.sim);
    cmd_infer_search_defaults(&a.search);
    opt opts[80] = {
        {"--model", O_STR, &a.model, 0, 0, NULL, "M", "model (gpuecon catalog models)", NULL, false},
        CLI_OPT_SYSTEM(&a.system),
        {"--gpus", O_INT, &a.gpus, 1, 1e6, NULL, "N", "GPUs in all (default: one server)", NULL, false},
        {"--power-limit", O_DOUBLE, &a.power_limit, 1, 5000, NULL, "W", CLI_HELP_POWER_LIMIT, NULL, false},
        {"--tp", O_INT, &a.tp, 1, 1024, NULL, "T", "tensor-parallel GPUs per replica (default: the TP x PP serving the most tokens/s per GPU)", NULL, false},
        {"--pp", O_INT, &a.pp, 1, GPUECON_INFER_MAX_PP, NULL, "N",
         "pipeline stages per replica (layers split over N x TP GPUs; default 1)", NULL, false},
        {"--tp-across-nodes", O_FLAG, &a.tp_across, 0, 0, NULL, NULL,
         "let --tp exceed the NVLink domain (its all-reduces on the scale-out network)", NULL, false},
        {"--weights", O_CHOICE, &a.weights, 0, 0, names_precision, "P", "weight precision of the body linears", NULL, false},
        {"--kv", O_CHOICE, &a.kv, 0, 0, names_precision_no_fp4, "P", "KV-cache precision", NULL, false},
        {"--prompt-len", O_DOUBLE, &a.prompt_len, 1, 1e8, NULL, "P", "mean prompt tokens (ShareGPT 230)", NULL, false},
        {"--output-len", O_DOUBLE, &a.output_len, 1, 1e8, NULL, "O", "mean output tokens (ShareGPT 203)", NULL, false},
        {"--output-cv", O_DOUBLE, &a.output_cv, 0, 10, NULL, "F", "coefficient of variation of the output length", NULL, false},
        {"--prefix-hit", O_DOUBLE, &a.prefix_hit, 0, 0.99, NULL, "F", "prefix-cache hit rate on prompt tokens", NULL, false},
        {"--concurrency", O_DOUBLE, &a.concurrency, -1e12, 1e9, NULL, "C", "requests in the system, all replicas (default: saturation)", NULL, false},
        {"--sweep", O_FLAG, &a.sweep, 0, 0, NULL, NULL, "throughput and TPOT against concurrency", NULL, false},
        {"--grid", O_LIST, &a.grid, 1, 1e9, NULL, "LIST", "concurrencies for the sweep (1,2,4,...,1024)", NULL, false},
        {"--plot", O_PATH, &a.plot, 0, 0, NULL, "FILE.svg", "with --sweep: SVG chart through gnuplot", NULL, false},
        {"--draft", O_INT, &a.draft, 0, 16, NULL, "K", "speculative / MTP draft length", NULL, false},
        {"--accept", O_DOUBLE, &a.accept, -1e12, 1e12, NULL, "A", "per-position acceptance α, [0, 1)", NULL, false},
        {"--accept-rate", O_DOUBLE, &a.accept_rate, -1e12, 1e12, NULL, "A", "vLLM's draft acceptance rate, [0, 1)", NULL, false},
        {"--draft-gb", O_DOUBLE, &a.draft_gb, 0, 1e4, NULL, "G", "drafter weights, GB (default: MTP modules or 0.9)", NULL, false},
        {"--lora-rank", O_INT, &a.lora_rank, 0, 4096, NULL, "R", "LoRA adapter rank (0: none)", NULL, false},
        {"--lora-modules", O_STR, &a.lora_mods, 0, 0, NULL, "LIST", "adapted projections (default all: q,k,v,o,gate,up,down)", NULL, false},
        {"--max-loras", O_INT, &a.max_loras, 1, 1024, NULL, "N", "preallocated adapter slots", NULL, false},
        {"--stack", O_STR, &a.stack, 0, 0, NULL, "NAME", "serving engine: " CLI_SERVING_PROFILES " (default generic)", NULL, false},
        {"--serving-profile", O_STR, &a.serving, 0, 0, NULL, "NAME", "alias of --stack", NULL, false},
        {"--engine", O_CHOICE, &a.engine, 0, 0, engine_names, "E", "vLLM memory accounting", NULL, false},
        {"--roofline", O_CHOICE, &a.roofline, 0, 0, roofline_names, "R", "how roofline terms combine", NULL, false},
        {"--prefill-steps", O_CHOICE, &a.prefill_steps, 0, 0, prefill_steps_names, "P",
         "mean field: prompts whole in some steps (greedy schedulers) or evenly in every step", NULL, false},
        {"--ep", O_CHOICE, &a.ep, 0, 0, onoff_names, "on|off", "MoE expert parallelism inside a replica (default on)", NULL, false},
        {"--attention-dp", O_CHOICE, &a.attn_dp, 0, 0, onoff_names, "on|off",
         "MoE: attention data-parallel over the --tp GPUs, experts EP over them (default off)", NULL, false},
        {"--expert-imbalance", O_DOUBLE, &a.imbalance, 1, 64, NULL, "F",
         "MoE: busiest expert rank's tokens / the mean (default: from the expert slots and --expert-load-cv)", NULL, false},
        {"--redundant-experts", O_INT, &a.redundant, 0, 1024, NULL, "R",
         "MoE with EP: expert replicas placed by EPLB, ceil((E+R)/EP) slots per GPU (default: the fewest that make "
         "EP divide E+R)", NULL, false},
        {"--expert-load-cv", O_DOUBLE, &a.load_cv, 0, 10, NULL, "S",
         "MoE: coefficient of variation of the experts' popularity (default 0, every expert alike)", NULL, false},
        {"--gpu-mem-util", O_DOUBLE, &a.gpu_mem_util, 0.05, 1, NULL, "F", "vLLM gpu_memory_utilization", NULL, false},
        {"--max-num-seqs", O_INT, &a.max_num_seqs, 1, 65536, NULL, "N", "vLLM max_num_seqs", NULL, false},
        {"--max-num-batched-tokens", O_INT, &a.max_num_batched_tokens, 16, 1e7, NULL, "N", "vLLM max_num_batched_tokens", NULL, false},
        {"--long-prefill-token-threshold", O_INT, &a.long_prefill, 0, 1e7, NULL, "N",
         "a prompt's tokens per step at most (vLLM's; 0: none)", NULL, false},
        {"--max-model-len", O_INT, &a.max_model_len, 1, 1e9, NULL, "N", "vLLM max_model_len (default: the model's, lowered to fit)", NULL, false},
        {"--block-size", O_INT, &a.block_size, 1, 1024, NULL, "N", "KV block size, tokens", NULL, false},
        {"--activation-gib", O_DOUBLE, &a.activation_gib, 0, 1e4, NULL, "G", "peak activation memory from the vLLM log", NULL, false},
        {"--cuda-graph-gib", O_DOUBLE, &a.cuda_graph_gib, 0, 1e4, NULL, "G", "CUDA-graph memory from the vLLM log", NULL, false},
        {"--profile", O_STR, &a.profile, 0, 0, NULL, "P", "TCO profile for $/Mtok (default hyperscaler)", NULL, false},
        CLI_OPT_PUE(&a.pue),
        CLI_OPT_USD_PER_GPU_HOUR(&a.usd_per_gpu_hour),
    };
    static const cmd_usage usage = {
        "infer --model M --system S [--gpus N] [--tp T] [--pp N] [--weights bf16|fp8|fp4] [--kv bf16|fp8]\n"
        "       [--prompt-len P --output-len O] [--concurrency C | --sweep [--plot FILE.svg]]\n"
        "       [--draft K --accept A] [--lora-rank R] [--stack NAME] [--profile P]\n"
        "       [--simulate (--rate R [--arrival gamma --burstiness B] | --users N) [--lengths fixed|lognormal|FILE]\n"
        "        [--ttft-ms T --tpot-ms T --slo-percentile P] [--requests N --replications N --seed N]]\n"
        "       [--search --ttft-ms T --tpot-ms T [--rate R | --concurrency C] [--objective throughput|cost]\n"
        "        [--search-gpus LIST] [--max-draft K --accept A] [--plot FILE.svg]]\n"
        "       [--prefill XxP --decode YxD [--rate R | --simulate ...] | --disagg-search --ttft-ms T --tpot-ms T [--rate R]]",
        "Serving capacity, throughput, latency and cost per output token of a vLLM-like engine:\n"
        "memory per GPU (weights, activations, CUDA graphs, KV cache), KV capacity and the\n"
        "sequences that fit, throughput/TPOT/TTFT at a concurrency (all replicas = gpus/(tp x pp)),\n"
        "the saturation point and what binds, $/Mtok and J/token (docs/model.md §6).",
        "gpuecon infer --model gemma4-31b --system hgx-b200 --gpus 8 --tp 1 --weights fp8 --kv fp8 --sweep"};
    size_t nopts = 0;
    while (nopts < 80 && opts[nopts].name)
        nopts++;
    nopts += cmd_infer_sim_opts(&a.sim, opts + nopts, 80 - nopts);
    nopts += cmd_infer_search_opts(&a.search, opts + nopts, 80 - nopts);
    nopts += cmd_infer_disagg_opts(&a.disagg, opts + nopts, 80 - nopts);
    int rc = opts_parse(c, argc, argv, opts, nopts, &usage, NULL, 0, NULL);
    if (rc || (rc = check_args(c, opts, nopts, &a)) || (rc = cli_load_catalog(c)))
        return rc;
    return execute(c, opts, nopts, &a);
}
