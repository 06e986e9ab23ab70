/*
 * train_cli.c — the options and request shared by `gpuecon train` and `search`.
 *
 * Sizes left out are searched (the request carries GPUECON_SEARCH); framework behaviour
 * (sequence parallelism, DP overlap, attention kernel, dropout) defaults to a modern
 * Megatron/NeMo run and can be switched to reproduce older ones.
 */
#include "request/cli.h"
#include "train_cli.h"
#include "model/names.h"

#include <string.h>

static const char *const rc_names[] = {"none", "selective", "full", NULL};
static const char *const onoff[] = {"off", "on", NULL};
static const char *const attn_names[] = {"flash", "unfused", "fa2", NULL};
static const char *const fusion_names[] = {"fused", "compiled", "eager", NULL};
static const char *const cp_comm_names[] = {"ring", "allgather", NULL};
static const char *const obj_names[] = {"throughput", "cost", NULL};
static const char *const recipe_names[] = {"delayed", "tensorwise", "mxfp8", "blockwise", NULL};
static const char *const dispatch_names[] = {"nccl-a2a", "deepep", "hybridep", NULL};
static const char *const prec16_names[] = {"fp32", "bf16", NULL};

size_t train_cli_opts(train_args *a, opt *o, bool search)
{
    memset(a, 0, sizeof *a);
    a->recompute = a->tp_overlap = a->zero = a->a2a_overlap = -1;
    a->sp = a->dp_overlap = a->cuda_graphs = 1;
    a->mtp = -1;
    a->top = 10;
    a->tier = TIER_TYPICAL;
    a->offload_layers = -1;
    size_t n = 0;
#define OPT(...) o[n++] = (opt){__VA_ARGS__, NULL, false}
#define OPT_REQ(why, ...) o[n++] = (opt){__VA_ARGS__, why, false}
    OPT("--model", O_STR, &a->model, 0, 0, NULL, "M", "model (gpuecon catalog models) or --model-file");
    OPT_REQ(CLI_WHY_SYSTEM, "--system", O_STR, &a->system, 0, 0, NULL, "S", "system (gpuecon catalog systems)");
    OPT("--gpus", O_INT, &a->gpus, 1, 4194304, NULL, "N", "GPUs in the job");
    OPT("--power-limit", O_DOUBLE, &a->power_limit, 1, 5000, NULL, "W", CLI_HELP_POWER_LIMIT);
    OPT("--precision", O_CHOICE, &a->precision, 0, 0, names_precision, "P", "GEMM precision (default bf16)");
    OPT_REQ("tokens per sequence, e.g. 2048 or 8192", "--seq", O_INT, &a->seq, 1, 16777216, NULL, "L",
            "tokens per sequence");
    OPT_REQ("global batch in sequences", "--gbs", O_INT, &a->gbs, 1, 67108864, NULL, "B",
            "global batch, sequences per step");
    OPT("--mbs", O_INT, &a->mbs, 1, 65536, NULL, "N", "micro-batch, sequences (default: searched)");
    OPT("--tp", O_INT, &a->tp, 1, 65536, NULL, "N", "tensor parallel size (default: searched)");
    OPT("--pp", O_INT, &a->pp, 1, 65536, NULL, "N", "pipeline parallel size (default: searched)");
    OPT("--vpp", O_INT, &a->vpp, 1, 65536, NULL, "N", "virtual stages per GPU, interleaving (default: searched)");
    OPT("--cp", O_INT, &a->cp, 1, 65536, NULL, "N", "context parallel size (default: searched)");
    OPT("--ep", O_INT, &a->ep, 1, 65536, NULL, "N", "expert parallel size (default: searched; dense models: 1)");
    OPT("--etp", O_INT, &a->etp, 1, 65536, NULL, "N", "expert tensor parallel size (default: searched)");
    OPT("--a2a-overlap", O_CHOICE, &a->a2a_overlap, 0, 0, onoff, "X",
        "MoE all-to-all hidden behind another micro-batch's compute (default: searched)");
    OPT("--capacity-factor", O_DOUBLE, &a->capacity_factor, 0, 16, NULL, "F",
        "experts padded to F x mean tokens (default 0: dropless, busiest GPU sets the pace)");
    OPT("--imbalance", O_DOUBLE, &a->imbalance, 0, 16, NULL, "F",
        "dropless: busiest GPU's tokens / mean (default: derived from the expert-load spread)");
    OPT("--mtp", O_INT, &a->mtp, 0, 16, NULL, "N", "multi-token-prediction modules trained (default: the model's)");
    OPT("--cuda-graphs", O_CHOICE, &a->cuda_graphs, 0, 0, onoff, "X",
        "off: eager framework, an MoE layer pass takes at least its host launch time (default on)");
    OPT("--cuda-graph-scope", O_STR, &a->graph_scope, 0, 0, NULL, "LIST",
        "MoE: full (default), or the parts captured, of attn, moe_router, moe_preprocess (Megatron partial "
        "CUDA graphs; the routed experts launch eagerly)");
    OPT("--recompute", O_CHOICE, &a->recompute, 0, 0, rc_names, "R", "activation recompute (default: searched)");
    OPT("--zero", O_INT, &a->zero, 0, 3, NULL, "Z", "ZeRO stage; 3 = FSDP (default: searched)");
    OPT("--tp-overlap", O_CHOICE, &a->tp_overlap, 0, 0, onoff, "X", "TP communication overlapped with GEMMs (default: searched)");
    OPT("--tp-async-grad", O_CHOICE, &a->tp_async_grad, 0, 0, onoff, "X",
        "without SP: input-gradient all-reduce beside the weight-gradient GEMM (default: the stack's)");
    OPT("--sp", O_CHOICE, &a->sp, 0, 0, onoff, "X", "sequence parallelism with TP (default on)");
    OPT("--dp-overlap", O_CHOICE, &a->dp_overlap, 0, 0, onoff, "X", "DP traffic overlapped with compute (default on)");
    OPT("--attention", O_CHOICE, &a->attention, 0, 0, attn_names, "K",
        "attention kernel: flash (the generation's tuned kernel), unfused, fa2 (FlashAttention-2 as PyTorch SDPA runs it) (default: the stack's)");
    OPT("--cp-comm", O_CHOICE, &a->cp_comm, 0, 0, cp_comm_names, "C",
        "context parallelism: ring (K, V passed around, hidden behind attention) or allgather (Llama 3's, exposed) (default: the stack's)");
    OPT("--fusion", O_CHOICE, &a->fusion, 0, 0, fusion_names, "F",
        "elementwise kernels: fused (Transformer Engine), compiled (torch.compile), eager (default: the stack's)");
    OPT("--dropout", O_FLAG, &a->dropout, 0, 0, NULL, NULL, "keep dropout masks (GPT-3 style)");
    OPT("--stack", O_STR, &a->stack, 0, 0, NULL, "NAME",
        "framework stack (gpuecon catalog stacks; default " CLI_DEFAULT_STACK "); single options override it");
    OPT("--offload-layers", O_INT, &a->offload_layers, 0, 65536, NULL, "N",
        "activations of N layers per stage in host memory (default 0)");
    OPT("--offload-search", O_FLAG, &a->offload_search, 0, 0, NULL, NULL,
        "search the offloaded layers too: the fewest that make each layout fit without recompute");
    OPT("--fp8-recipe", O_CHOICE, &a->fp8_recipe, 0, 0, recipe_names, "R", "FP8 scaling recipe (default: the stack's)");
    OPT("--dispatcher", O_CHOICE, &a->dispatcher, 0, 0, dispatch_names, "D", "MoE token dispatcher (default: the stack's)");
    OPT("--fp8-param", O_CHOICE, &a->fp8_param, 0, 0, onoff, "X", "FP8-only weights in FP8 runs (default: the stack's)");
    OPT("--grad-reduce", O_CHOICE, &a->grad_reduce, 0, 0, prec16_names, "P", "gradient precision (default: the stack's)");
    OPT("--optimizer-states", O_CHOICE, &a->optimizer_states, 0, 0, prec16_names, "P",
        "Adam m and v precision; bf16 = precision-aware optimizer (default: the stack's)");
    OPT("--balanced-routing", O_FLAG, &a->balanced_routing, 0, 0, NULL, NULL,
        "forced-balanced MoE routing (the published benchmarks): no load imbalance");
    OPT("--recompute-moe", O_FLAG, &a->recompute_moe, 0, 0, NULL, NULL,
        "selective recompute includes the MoE blocks (Megatron recompute_modules moe); left out, a "
        "searched --recompute tries both");
    OPT("--profile", O_STR, &a->profile, 0, 0, NULL, "P",
        "TCO profile for cost and energy (default " CLI_DEFAULT_PROFILE " when a cost is asked for)");
    OPT("--usd-per-gpu-hour", O_DOUBLE, &a->usd_per_gpu_hour, 0.001, 1000, NULL, "X",
        "your price per GPU-hour (rental or negotiated); replaces the profile's TCO");
    OPT("--tokens", O_DOUBLE, &a->tokens, 1, 1e18, NULL, "T", "training tokens for totals (15T)");
    OPT("--pue", O_DOUBLE, &a->pue, 1, 3, NULL, "F", "facility PUE (default: system's)");
    OPT("--tier", O_CHOICE, &a->tier, 0, 0, names_tier, "T",
        "operator tier for failures and spares: best, typical, poor (default typical)");
    OPT("--mtbi-gpu-days", O_DOUBLE, &a->mtbi_gpu_days, 1, 1e7, NULL, "D",
        "mean time between interruptions per GPU (default: the tier's)");
    OPT("--threads", O_INT, &a->threads, 1, 4096, NULL, "N", "search threads (default: all cores)");
    if (search) {
        OPT("--top", O_INT, &a->top, 1, 10000, NULL, "K", "configurations to list (default 10)");
        OPT("--objective", O_CHOICE, &a->objective, 0, 0, obj_names, "O", "rank by (default throughput)");
        OPT("--shard", O_STR, &a->shard, 0, 0, NULL, "K/N", "evaluate shard K of N (0-based)");
        OPT("--exhaustive", O_FLAG, &a->exhaustive, 0, 0, NULL, NULL,
            "time every configuration that fits (default: skip blocks bounded out of the top K)");
    } else {
        OPT("--sweep-gpus", O_LIST, &a->sweep, 1, 4194304, NULL, "LIST", "GPU counts, e.g. 64,128,...,2048");
        OPT("--strong", O_FLAG, &a->strong, 0, 0, NULL, NULL, "sweep keeps the global batch (default: batch per GPU)");
        OPT("--plot", O_PATH, &a->plot, 0, 0, NULL, "FILE.svg", "chart of the sweep (needs gnuplot)");
        OPT("--vs", O_STR, &a->vs, 0, 0, NULL, "S", "the same job on system S: end-to-end vs all-to-all ratio");
        OPT("--target-days", O_DOUBLE, &a->target_days, 1e-6, 1e6, NULL, "D",
            "the fewest GPUs that train --tokens within D days, failures and spares included");
        OPT("--start-date", O_STR, &a->start_date, 0, 0, NULL, "YYYY-MM[-DD]",
            "with --tokens: the run starts then; the catalog's throughput timeline of this system, model and "
            "precision applies from its first point on (gpuecon catalog timelines)");
        OPT("--max-gpus", O_INT, &a->max_gpus, 1, 10000000, NULL, "N",
            "--target-days: largest size to consider (default 1,000,000)");
        OPT("--rent-usd-per-gpu-hour", O_DOUBLE, &a->rent_usd_per_gpu_hour, 0.001, 1000, NULL, "R",
            "owning the run's GPUs over their life vs renting them at R per GPU-hour used");
        OPT("--life-years", O_DOUBLE, &a->life_years, 0.1, 30, NULL, "L",
            "with --rent-usd-per-gpu-hour: the cluster's life (default: the profile's)");
        OPT("--utilisation", O_DOUBLE, &a->utilisation, 0.001, 1, NULL, "U",
            "with --rent-usd-per-gpu-hour: share of the hours the cluster trains (default 1)");
        OPT("--workloads-per-year", O_DOUBLE, &a->workloads_per_year, 0.001, 10000, NULL, "W",
            "with --rent-usd-per-gpu-hour: runs of --tokens a year (sets the utilisation)");
        OPT("--vs-gpus", O_INT, &a->vs_gpus, 1, 4194304, NULL, "N",
            "GPUs on the --vs system (default: the same; the batch per GPU is kept)");
    }
#undef OPT
#undef OPT_REQ
    return n;
}

/* --cuda-graph-scope: "full", or a comma list of the parts the library names
 * (gpuecon_graph_scope_name of each one-part scope); the combinations are checked by the library
 * (train_check_request). */
static int parse_graph_scope(cli *c, const char *s, int *out)
{
    if (strcmp(s, "full") == 0) {
        *out = GPUECON_GRAPH_FULL;
        return 0;
    }
    int mask = 0;
    for (const char *p = s;; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        int bit = 0;
        for (int b = GPUECON_GRAPH_ATTN; b <= GPUECON_GRAPH_MOE_PREPROCESS && !bit; b <<= 1) {
            char name[32];
            gpuecon_graph_scope_name(b, name, sizeof name);
            if (strlen(name) == len && strncmp(p, name, len) == 0)
                bit = b;
        }
        if (!bit)
            return cli_usage_error(c, "--cuda-graph-scope",
                                   "'%.*s' in '%s': allowed full, or a comma list of attn, moe_router, "
                                   "moe_preprocess", (int)len, p, s);
        mask |= bit;
        if (!p[len])
            break;
    }
    *out = mask;
    return 0;
}

/* Applies --stack (default CLI_DEFAULT_STACK) to req, then the single options the user gave
 * (--tp-overlap, --dp-overlap, --sp, --attention, --dropout, --cuda-graphs, --a2a-overlap,
 * --fp8-recipe, --dispatcher, --fp8-param, --grad-reduce, --optimizer-states) and offload.
 * 0 or an exit code (unknown stack: 2, with the nearest names). */
static int apply_stack(cli *c, const train_args *a, const opt *opts, size_t n, gpuecon_train_request *req)
{
    const gpuecon_stack *k;
    int rc = cli_stack(c, "--stack", a->stack ? a->stack : CLI_DEFAULT_STACK, 0, &k);
    if (rc)
        return rc;
    gpuecon_train_request_apply_stack(req, k);
#define SEEN(name) opt_seen(opts, n, name)
    if (SEEN("--a2a-overlap"))
        req->a2a_overlap = a->a2a_overlap;
    if (SEEN("--cuda-graphs"))
        req->cuda_graphs = a->cuda_graphs == 1;
    if (SEEN("--tp-overlap"))
        req->tp_overlap = a->tp_overlap;
    if (SEEN("--tp-async-grad"))
        req->tp_async_grad = a->tp_async_grad == 1;
    if (SEEN("--sp"))
        req->sequence_parallel = a->sp == 1;
    if (SEEN("--dp-overlap"))
        req->dp_overlap = a->dp_overlap == 1;
    if (SEEN("--attention"))
        req->attn_impl = (gpuecon_attn_impl)a->attention;
    if (SEEN("--dropout"))
        req->dropout = a->dropout;
    if (SEEN("--fusion"))
        req->fusion = (gpuecon_fusion)a->fusion;
    if (SEEN("--cp-comm"))
        req->cp_comm = a->cp_comm;
    if (SEEN("--precision")) /* else the stack's: BF16, or FP8 for torchtitan's Float8 recipe */
        req->precision = (gpuecon_precision)a->precision;
    if (SEEN("--fp8-recipe"))
        req->fp8_recipe = (gpuecon_fp8_recipe)a->fp8_recipe;
    if (SEEN("--dispatcher"))
        req->dispatcher = (gpuecon_dispatcher)a->dispatcher;
    if (SEEN("--fp8-param"))
        req->fp8_param = a->fp8_param == 1;
    if (SEEN("--grad-reduce"))
        req->grad_reduce_bytes = a->grad_reduce == 1 ? 2 : 4;
    if (SEEN("--optimizer-states"))
        req->optim_state_bytes = a->optimizer_states == 1 ? 2 : 4;
#undef SEEN
    if (a->graph_scope && (rc = parse_graph_scope(c, a->graph_scope, &req->cuda_graph_scope)))
        return rc;
    req->balanced_routing = a->balanced_routing;
    req->recompute_moe = a->recompute_moe;
    if (a->offload_search && a->offload_layers >= 0)
        return cli_usage_error(c, "--offload-search", "give --offload-layers N or --offload-search, not both");
    req->offload_layers = a->offload_search ? GPUECON_SEARCH : a->offload_layers > 0 ? a->offload_layers : 0;
    return 0;
}

int train_cli_request(cli *c, const train_args *a, const opt *opts, size_t n, gpuecon_train_request *req,
                      const gpuecon_profile **profile)
{
    int rc;
    if (!opt_seen(opts, n, "--model") && !c->model_file)
        return cli_usage_error(c, "--model", "is required (gpuecon catalog models, or --model-file FILE)");
    if ((rc = opts_require(c, opts, n))) /* --system, --seq, --gbs */
        return rc;
    if (opt_seen(opts, n, "--target-days") && !(a->target_days > 0))
        return cli_usage_error(c, "--target-days", "%g: a deadline must be a positive number of days", a->target_days);
    if (opt_seen(opts, n, "--start-date") && !opt_seen(opts, n, "--tokens"))
        return cli_usage_error(c, "--start-date", "needs --tokens (the run's length decides which software releases "
                                                 "it spans)");
    if (opt_seen(opts, n, "--start-date") && opt_seen(opts, n, "--sweep-gpus"))
        return cli_usage_error(c, "--start-date", "is for one run (--gpus or --target-days), not --sweep-gpus");
    if (!opt_seen(opts, n, "--gpus") && !opt_seen(opts, n, "--sweep-gpus") && !opt_seen(opts, n, "--target-days"))
        return cli_usage_error(c, "--gpus", "is required (the GPUs in the job)");
    if ((rc = cli_load_catalog(c)))
        return rc;
    gpuecon_train_request_init(req);
    if ((rc = cli_model(c, "--model", a->model, &req->model)) ||
        (rc = cli_system(c, "--system", a->system, &req->system)) ||
        (opt_seen(opts, n, "--power-limit") && (rc = cli_power_limit(c, "--power-limit", a->power_limit, &req->system))))
        return rc;
    /* options that only a mixture-of-experts model has a use for: refused on a dense one, not ignored */
    if (req->model->experts == 0) {
        static const char *const moe_only[] = {"--capacity-factor", "--imbalance", "--dispatcher", "--recompute-moe",
                                               "--a2a-overlap", NULL};
        for (int i = 0; moe_only[i]; i++)
            if (opt_seen(opts, n, moe_only[i]))
                return cli_usage_error(c, moe_only[i], "applies to mixture-of-experts models; %s is dense",
                                       req->model->name);
    }
    if (opt_seen(opts, n, "--strong") && !opt_seen(opts, n, "--sweep-gpus"))
        return cli_usage_error(c, "--strong", "is how --sweep-gpus scales the batch; there is no sweep");
    /* a cost asked for in any way prices with --profile, or the default profile */
    *profile = NULL;
    bool priced = a->profile || opt_seen(opts, n, "--tokens") || opt_seen(opts, n, "--tier") ||
                  opt_seen(opts, n, "--mtbi-gpu-days") || opt_seen(opts, n, "--usd-per-gpu-hour") ||
                  opt_seen(opts, n, "--target-days") || opt_seen(opts, n, "--start-date") || (opt_seen(opts, n, "--objective") && a->objective == 1);
    if (priced && (rc = cli_profile(c, "--profile", a->profile ? a->profile : CLI_DEFAULT_PROFILE, profile)))
        return rc;
    req->gpus = a->gpus;
    req->seq = a->seq;
    req->gbs = a->gbs;
    req->mbs = a->mbs ? a->mbs : GPUECON_SEARCH;
    req->tp = a->tp ? a->tp : GPUECON_SEARCH;
    req->pp = a->pp ? a->pp : GPUECON_SEARCH;
    req->vpp = a->vpp ? a->vpp : GPUECON_SEARCH;
    req->cp = a->cp ? a->cp : GPUECON_SEARCH;
    req->ep = a->ep ? a->ep : GPUECON_SEARCH;
    req->etp = a->etp ? a->etp : GPUECON_SEARCH;
    req->a2a_overlap = a->a2a_overlap;
    req->capacity_factor = a->capacity_factor;
    req->moe_imbalance = a->imbalance;
    req->mtp = a->mtp;
    req->recompute = a->recompute;
    req->zero = a->zero;
    if ((rc = apply_stack(c, a, opts, n, req)))
        return rc;
    /* a user's calibration from a --catalog overlay (gpuecon calibrate; docs/model.md §3.8) */
    req->calibration = gpuecon_catalog_calibration(c->cat, 0, req->stack ? req->stack->name : NULL, req->system->name,
                                                   (int)req->precision);
    return 0;
}

int train_cli_calibration(cli *c, gpuecon_train_request *req, calib_set *set)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (calib_set_build(c->ctx, c->cat, set, &err))
        return cli_fail(c, &err);
    int rc = train_cli_rank(c, set, req);
    if (rc) /* on failure the caller has nothing to free */
        calib_set_free(set);
    return rc;
}

int train_cli_rank(cli *c, const calib_set *set, gpuecon_train_request *req)
{
    calib_cap cap;
    calib_mfu_cap(set, req->system->gpu && req->system->gpu->arch ? req->system->gpu->arch : "?", req->precision,
                  req->model && req->model->experts > 0, &cap);
    req->rank_mfu_cap = cap.have ? cap.mfu : 0;
    band_set *bs = NULL;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (band_set_build(c->ctx, c->cat, &bs, &err))
        return cli_fail(c, &err);
    calib_rank_band(set, bs, req);
    band_set_free(bs);
    return 0;
}

int train_cli_cost(cli *c, const gpuecon_train_request *req, const gpuecon_profile *p, double pue, double usd_h,
                   double tokens, double tok_s, gpuecon_cost *cost, double *usd_per_gpu_hour)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    gpuecon_tco t;
    double epue = pue > 0 ? pue : req->system->pue;
    if (gpuecon_tco_price(p, req->system, pue, usd_h, &t, &err) ||
        gpuecon_cost_compute(t.usd_per_gpu_hour, req->system->it_w_per_gpu, epue, tok_s, tokens, cost, &err))
        return cli_fail(c, &err);
    *usd_per_gpu_hour = t.usd_per_gpu_hour;
    return 0;
}

void train_cli_run_request(const train_args *a, const gpuecon_train_request *req, const gpuecon_profile *p,
                           double tok_s, gpuecon_run_request *run)
{
    gpuecon_run_request_init(run);
    run->system = req->system->name;
    run->profile = p->name;
    run->tier = names_tier[a->tier];
    run->model = req->model->name;
    run->seq = req->seq;
    run->precision = req->precision;
    run->gpus = req->gpus;
    run->tokens_per_s_per_gpu = tok_s;
    run->tokens = a->tokens;
    run->pue = a->pue;
    run->mtbi_gpu_days = a->mtbi_gpu_days;
    run->usd_per_gpu_hour = a->usd_per_gpu_hour;
    run->start_date = a->start_date;
}

int train_cli_threads(cli *c, int threads, gpuecon_ctx **saved)
{
    *saved = NULL;
    if (threads <= 0)
        return 0;
    gpuecon_ctx_config cfg = *gpuecon_ctx_get_config(c->ctx);
    cfg.threads = threads;
    gpuecon_ctx *nc = gpuecon_ctx_new(&cfg);
    if (!nc)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    *saved = c->ctx;
    c->ctx = nc;
    return 0;
}

void train_cli_threads_end(cli *c, gpuecon_ctx *saved)
{
    if (!saved)
        return;
    gpuecon_ctx_free(c->ctx);
    c->ctx = saved;
}
