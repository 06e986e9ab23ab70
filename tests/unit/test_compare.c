/*
 * test_compare.c — compare end to end: every number of a platform must equal what the
 * underlying models give for the same inputs (cost, reliability, serving), and the break-even
 * values must be where the ranking really flips (hand-derived where the cost is linear in the
 * input, round trip otherwise).
 */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *TRAIN =
    "name: t\n"
    "workload: {kind: train, model: llama3-405b, tokens: 15e12, seq: 8192, gbs: 2048}\n"
    "platforms:\n"
    "  - {name: H100, system: hgx-h100, gpus: 16384, measured_tokens_per_s: 202.3, mtbi_gpu_days: 3500}\n"
    "  - {name: GB200, system: gb200-nvl72, gpus: 16384, measured_tokens_per_s: 480, mtbi_gpu_days: 2000}\n";

static gpuecon_compare_result *run(void **state, gpuecon_ctx *ctx, const char *yaml, gpuecon_scenario **sc)
{
    gpuecon_error err;
    gpuecon_compare_result *r = NULL;
    if (gpuecon_scenario_load_buffer(ctx, CAT(state), "t.yaml", yaml, strlen(yaml), sc, &err) ||
        gpuecon_compare(ctx, CAT(state), *sc, NULL, &r, &err))
        fail_msg("%s:%d:%d: %s", err.where, err.line, err.column, err.message);
    return r;
}

/* An allocator that fails its fail_at-th allocation (counting from when it is armed). */
typedef struct failing {
    int allocs, fail_at;
} failing;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    failing *f = ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (!ptr && ++f->allocs == f->fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

/* issue 14, item 4: an allocation that fails inside the layout search compare runs must come
 * back as GPUECON_E_NOMEM, never as an OK result with the platform marked infeasible (its why
 * was uninitialised stack bytes). Each allocation of the compare is failed in turn. */
static void test_internal_failure_propagates(void **state)
{
    static const char *PRED = "name: p\n"
                              "workload: {kind: train, model: llama3-8b, tokens: 1e12, seq: 2048, gbs: 64}\n"
                              "platforms:\n  - {name: H100, system: hgx-h100, gpus: 8}\n";
    failing f = {0, 0};
    gpuecon_ctx_config cfg = {0};
    cfg.alloc = failing_alloc;
    cfg.alloc_ud = &f;
    cfg.threads = 1;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_scenario *sc = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_scenario_load_buffer(ctx, CAT(state), "p.yaml", PRED, strlen(PRED), &sc, &err), 0);
    gpuecon_compare_options opt = {.no_sensitivity = true, .no_uncertainty = true};
    gpuecon_compare_result *r = NULL;
    f.allocs = 0;
    assert_int_equal(gpuecon_compare(ctx, CAT(state), sc, &opt, &r, &err), GPUECON_OK);
    assert_true(r->cmp[0].platforms[0].feasible);
    gpuecon_compare_free(r);
    int total = f.allocs, nomem = 0;
    assert_true(total > 3);
    for (int k = 1; k <= total; k += 1 + k / 8) {
        f.allocs = 0;
        f.fail_at = k;
        r = NULL;
        gpuecon_error_clear(&err);
        int rc = gpuecon_compare(ctx, CAT(state), sc, &opt, &r, &err);
        f.fail_at = 0;
        if (rc == GPUECON_E_NOMEM) {
            nomem++;
            assert_null(r);
            assert_true(strlen(err.message) > 0);
            continue;
        }
        assert_int_equal(rc, GPUECON_OK); /* the failed allocation was not needed */
        if (!r->cmp[0].platforms[0].feasible)
            fail_msg("allocation %d of %d failed: OK returned with the platform infeasible: %.80s", k, total,
                     r->cmp[0].platforms[0].why);
        gpuecon_compare_free(r);
    }
    assert_true(nomem > 0);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* The platform's numbers are the building blocks' numbers. */
static void test_train_consistency(void **state)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, TRAIN, &sc);
    const gpuecon_comparison_result *cr = &r->cmp[0];
    assert_int_equal(cr->n_platforms, 2);
    const gpuecon_platform_result *h = &cr->platforms[0], *g = &cr->platforms[1];
    /* cost: published TCO $1.42 at 202.3 tok/s -> $1.9498/M (SemiAnalysis's Llama 3 405B scaling) */
    assert_close(h->usd_per_mtok, 1.42 / (202.3 * 3600) * 1e6, 1e-12);
    assert_close(h->joules_per_token, 1375 * 1.3 / 202.3, 1e-12);
    assert_close(g->joules_per_token, 1885 * 1.1 / 480, 1e-12);
    /* reliability: the same request through the reliability model */
    const gpuecon_system *hs = gpuecon_catalog_system(CAT(state), "hgx-h100");
    const gpuecon_reliability *tier = gpuecon_catalog_reliability(CAT(state), "hgx-h100/typical");
    gpuecon_reliability_request q;
    gpuecon_reliability_result rr;
    gpuecon_error err;
    assert_int_equal(gpuecon_reliability_request_init(&q, hs, tier, 16384, &err), 0);
    q.mtbi_gpu_days = 3500;
    assert_int_equal(gpuecon_reliability_analytic(&q, &rr, &err), 0);
    assert_close(h->ettr, rr.ettr, 1e-12);
    assert_int_equal(h->provisioned_gpus, rr.provisioned_gpus);
    /* effective: raw·Π/ETTR with spares charged, raw/ETTR without (SemiAnalysis's reliability advantages) */
    assert_close(h->effective_usd_per_mtok_with_spares,
                 h->usd_per_mtok * rr.charged_gpus / rr.active_gpus / rr.ettr, 1e-12);
    assert_close(h->effective_usd_per_mtok_without_spares, h->usd_per_mtok / rr.ettr, 1e-12);
    assert_close(h->effective_usd_per_mtok, h->effective_usd_per_mtok_with_spares, 0);
    /* NVL72 runs 64 of 72: 256 racks -> 18,432 GPUs at least */
    assert_true(g->provisioned_gpus >= 256 * 72);
    /* totals */
    assert_close(h->days_to_train, 15e12 / (202.3 * 16384 * h->ettr) / 86400, 1e-12);
    assert_close(h->total_usd, 15e12 / 1e6 * h->effective_usd_per_mtok, 1e-12);
    assert_close(h->energy_mwh, 15e12 * h->joules_per_token / h->ettr / 3.6e9, 1e-12);
    assert_close(h->token_factor, 1, 0); /* no critical batch: no penalty */
    /* ranking */
    int cheap = h->rank_usd_per_mtok < g->rank_usd_per_mtok ? 0 : 1;
    assert_int_equal(cr->cheapest, cheap);
    assert_int_equal(cr->runner_up, 1 - cheap);
    assert_int_equal(cr->fastest, h->days_to_train < g->days_to_train ? 0 : 1);
    assert_non_null(strstr(cr->verdict, cr->platforms[cheap].name));
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

static const gpuecon_breakeven *find_be(const gpuecon_comparison_result *cr, int p, const char *input)
{
    for (size_t i = 0; i < cr->n_breakeven; i++)
        if (cr->breakeven[i].platform == p && !strcmp(cr->breakeven[i].input, input))
            return &cr->breakeven[i];
    return NULL;
}

/* The ranked cost is proportional to TCO and inversely to throughput, so the break-even TCO
 * and throughput are the current values scaled by the cost ratio (by hand). */
static void test_breakeven_linear(void **state)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, TRAIN, &sc);
    const gpuecon_comparison_result *cr = &r->cmp[0];
    int c = cr->cheapest, q = cr->runner_up;
    double rc = cr->platforms[c].rank_usd_per_mtok, rq = cr->platforms[q].rank_usd_per_mtok;
    const gpuecon_breakeven *b = find_be(cr, q, "tco_usd_per_gpu_hour");
    assert_non_null(b);
    assert_true(b->found);
    assert_close(b->value, b->current * rc / rq, 1e-7);
    b = find_be(cr, c, "tco_usd_per_gpu_hour");
    assert_close(b->value, b->current * rq / rc, 1e-7);
    b = find_be(cr, q, "tokens_per_s_per_gpu");
    assert_close(b->value, b->current * rq / rc, 1e-7);
    b = find_be(cr, c, "tokens_per_s_per_gpu");
    assert_close(b->value, b->current * rc / rq, 1e-7);
    /* PUE moves the TCO's electricity term, kw·pe per unit of PUE:
       TCO* = TCO·rc/rq  ->  PUE* = PUE + (TCO* − TCO)/(kw·pe) for the runner-up */
    const gpuecon_system *s = gpuecon_catalog_system(CAT(state), cr->platforms[q].system);
    double tco = cr->platforms[q].tco_usd_per_gpu_hour;
    double want = s->pue + (tco * rc / rq - tco) / (s->it_w_per_gpu / 1000 * 0.087);
    b = find_be(cr, q, "pue");
    if (want >= 1.0) {
        assert_true(b->found);
        assert_close(b->value, want, 1e-6);
    } else {
        assert_false(b->found);
    }
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* MTBI enters through the reliability model (not linear): at the break-even MTBI the two
 * ranked costs must be equal (round trip through a second scenario). */
static void test_breakeven_mtbi_round_trip(void **state)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, TRAIN, &sc);
    const gpuecon_comparison_result *cr = &r->cmp[0];
    int c = cr->cheapest;
    const gpuecon_breakeven *b = find_be(cr, c, "mtbi_gpu_days");
    assert_non_null(b);
    assert_true(b->found);
    assert_true(b->value < b->current); /* the winner loses the lead when failures get worse */
    double rival = cr->platforms[cr->runner_up].rank_usd_per_mtok;
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "workload: {kind: train, model: llama3-405b, tokens: 15e12, seq: 8192, gbs: 2048}\n"
             "platforms:\n  - {name: X, system: %s, gpus: 16384, measured_tokens_per_s: %.17g, mtbi_gpu_days: %.17g}\n",
             cr->platforms[c].system, cr->platforms[c].tokens_per_s_per_gpu, b->value);
    gpuecon_scenario *sc2;
    gpuecon_compare_result *r2 = run(state, ctx, yaml, &sc2);
    assert_close(r2->cmp[0].platforms[0].rank_usd_per_mtok, rival, 1e-6);
    gpuecon_compare_free(r2);
    gpuecon_scenario_free(sc2);
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* Serving numbers are the serving model's. */
static void test_serving(void **state)
{
    const char *yaml = "workload: {kind: serve, model: gemma4-31b, precision: fp8, concurrency: 512}\n"
                       "platforms:\n"
                       "  - {name: H100, system: hgx-h100, gpus: 8, tp: 1}\n";
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
    const gpuecon_platform_result *h = &r->cmp[0].platforms[0];
    gpuecon_infer_request q;
    gpuecon_infer_result ir;
    gpuecon_error err;
    gpuecon_infer_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), "gemma4-31b");
    q.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    q.gpus = 8;
    q.tp = 1;
    q.weights = GPUECON_FP8;
    q.concurrency = 512;
    assert_int_equal(gpuecon_infer(&q, &ir, &err), 0);
    assert_close(h->tokens_per_s_per_gpu, ir.output_tokens_per_s / 8, 1e-12);
    assert_close(h->tpot_ms, ir.tpot_ms, 1e-12);
    assert_close(h->usd_per_mtok, 1.42 / (ir.output_tokens_per_s / 8 * 3600) * 1e6, 1e-12);
    assert_close(h->ettr, 1, 0);
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* Platform i of the one comparison of a scenario, run in a context of its own. */
static gpuecon_platform_result platform_of(void **state, const char *yaml, size_t i)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
    assert_true(i < r->cmp[0].n_platforms);
    gpuecon_platform_result p = r->cmp[0].platforms[i];
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
    return p;
}

/* A serving platform without tp: every TP of the NVLink domain is tried and the one serving most
 * within the TPOT target is kept. Llama 3 70B FP8 (70.6 GB of weights) at 2,000 -> 500 tokens on 8
 * H100: TP1 leaves 1.2 GiB of KV per GPU (four such requests), so the smallest TP that fits, taken
 * before, is the worst; the choice must equal the best of the same platform at fixed TP 1, 2, 4, 8
 * among those that meet 40 ms. With simulate: true the note gives the simulated mean TPOT where it
 * is over 1.25x the mean field's; with whole prompts priced in the steps that carry them (T2) it
 * no longer is here. */
static void test_serving_tp_chosen(void **state)
{
#define TP_CHOSEN_YAML                                                                                   \
    "workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000,"              \
    " output_len: 500, tpot_ms_target: 40%s}\n"                                                            \
    "platforms:\n  - {name: H100, system: hgx-h100, gpus: 8%s}\n"
    char yaml[512];
    double best = 0;
    int best_tp = 0;
    for (int tp = 1; tp <= 8; tp *= 2) {
        char fix[32];
        snprintf(fix, sizeof fix, ", tp: %d", tp);
        snprintf(yaml, sizeof yaml, TP_CHOSEN_YAML, "", fix);
        gpuecon_platform_result p = platform_of(state, yaml, 0);
        if (p.feasible && !strstr(p.predicted_note, "no load meets") && p.tokens_per_s_per_gpu > best)
            best = p.tokens_per_s_per_gpu, best_tp = tp;
    }
    assert_true(best_tp > 1);
    snprintf(yaml, sizeof yaml, TP_CHOSEN_YAML, ", simulate: true", "");
    gpuecon_platform_result p = platform_of(state, yaml, 0);
    assert_int_equal(p.tp, best_tp);
    assert_close(p.tokens_per_s_per_gpu, best, 1e-12);
    assert_non_null(strstr(p.predicted_note, "TP chosen for throughput"));
    /* T2 (docs/model.md §6.4): simulated at that rate, the median TPOT agrees with the mean
       field; with T1 alone it was more than twice the mean field's and the note said so */
    assert_null(strstr(p.predicted_note, "simulated at that rate it runs"));
    assert_true(p.tpot_ms_p50 > 0.8 * p.tpot_ms && p.tpot_ms_p50 < 1.25 * p.tpot_ms);
}

/* ttft_ms_target: the operating load meets both means; a target no load meets is shown at the
 * lowest load (latencies grow with the load), a disaggregated platform at 90% of its capacity,
 * and the notes say so. TTFT 1 ms is below any prefill of 2,000 tokens of a 70B model. */
static void test_serving_ttft_target(void **state)
{
    const char *yaml = "workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000,"
                       " output_len: 500, tpot_ms_target: 40, ttft_ms_target: 150}\n"
                       "platforms:\n  - {name: H100, system: hgx-h100, gpus: 8}\n";
    gpuecon_platform_result p = platform_of(state, yaml, 0);
    assert_true(p.feasible && p.ttft_ms <= 150 && p.tpot_ms <= 40);
    yaml = "workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000,"
           " output_len: 500, ttft_ms_target: 1}\n"
           "platforms:\n  - {name: H100, system: hgx-h100, gpus: 8, tp: 8}\n"
           "  - {name: D, system: hgx-h100, gpus: 8, prefill_instances: 1, prefill_tp: 4, decode_instances: 1,"
           " decode_tp: 4}\n";
    p = platform_of(state, yaml, 0);
    assert_non_null(strstr(p.predicted_note, "no load meets TTFT <= 1 ms; shown at the lowest load"));
    assert_true(p.concurrency <= 1 + 1e-9); /* one replica of TP 8, one request */
    gpuecon_platform_result d = platform_of(state, yaml, 1);
    assert_non_null(strstr(d.predicted_note, "no rate meets TTFT <= 1 ms, shown at 90% of its capacity"));
    assert_true(d.tokens_per_s_per_gpu > 1 && isfinite(d.usd_per_mtok)); /* not a vanishing rate */
}

/* A serving platform whose operating load misses the latency targets is not ranked while another
 * meets them: at 3 cents per GPU-hour an A100 is the cheapest token, but 8 A100s reach a TPOT of
 * no less than ~9 ms on Llama 3 70B (70.6 GB of FP8 weights read at 8 x 2.0 TB/s x 0.8 take 5.5
 * ms before any overhead), so at TPOT <= 8 ms the B200 wins; at 3 ms no platform meets the target
 * and all are ranked at their lowest loads, the verdict first saying so. A fixed concurrency
 * misses or meets at that load. */
static void test_serving_unmet_not_ranked(void **state)
{
#define UNMET_YAML                                                                                       \
    "workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000,"              \
    " output_len: 500, tpot_ms_target: %g%s}\n"                                                           \
    "platforms:\n  - {name: H100, system: hgx-h100, gpus: 8}\n"                                          \
    "  - {name: A100, system: hgx-a100, gpus: 8, usd_per_gpu_hour: 0.03}\n"
    char yaml[512];
    const double target[] = {8, 3};
    for (int k = 0; k < 2; k++) {
        snprintf(yaml, sizeof yaml, UNMET_YAML, target[k], "");
        gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
        gpuecon_scenario *sc;
        gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
        const gpuecon_comparison_result *cr = &r->cmp[0];
        const gpuecon_platform_result *h = &cr->platforms[0], *a = &cr->platforms[1];
        assert_true(h->feasible && a->feasible);
        assert_false(a->meets_target);
        assert_true(a->rank_usd_per_mtok < h->rank_usd_per_mtok); /* the cheapest token... */
        if (k == 0) {
            assert_true(h->meets_target && h->tpot_ms <= 8);
            assert_int_equal(cr->cheapest, 0); /* ...arrives too late */
            assert_non_null(strstr(cr->verdict, "A100 misses the latency targets and is not ranked"));
            assert_null(strstr(cr->verdict, "No platform meets"));
        } else {
            assert_false(h->meets_target);
            assert_int_equal(cr->cheapest, 1);
            assert_non_null(strstr(cr->verdict, "No platform meets the latency targets"));
        }
        gpuecon_compare_free(r);
        gpuecon_scenario_free(sc);
        gpuecon_ctx_free(ctx);
    }
    snprintf(yaml, sizeof yaml, UNMET_YAML, 8.0, ", concurrency: 256");
    gpuecon_platform_result h = platform_of(state, yaml, 0);
    assert_true(h.feasible && !h.meets_target && h.tpot_ms > 8);
    assert_non_null(strstr(h.predicted_note, "misses TPOT <= 8 ms at 256 in flight"));
}
/* A serving platform's engine limits reach the engine: Llama 3 70B FP8 on 2 H100 (TP2) at 32 in
 * flight and 2000/500 tokens; capping a prompt at 256 tokens a step lowers TPOT and raises TTFT
 * (docs/model.md §6.4 T2), exactly as gpuecon_infer with the same cap gives them. */
static void test_serving_engine_limits(void **state)
{
#define ENGINE_YAML                                                                                      \
    "workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000,"              \
    " output_len: 500, concurrency: 32}\n"                                                                \
    "platforms:\n  - {name: H100, system: hgx-h100, gpus: 2, tp: 2%s}\n"
    char yaml[512];
    snprintf(yaml, sizeof yaml, ENGINE_YAML, "");
    gpuecon_platform_result a = platform_of(state, yaml, 0);
    snprintf(yaml, sizeof yaml, ENGINE_YAML, ", long_prefill_token_threshold: 256, max_num_seqs: 64");
    gpuecon_platform_result b = platform_of(state, yaml, 0);
    assert_true(a.feasible && b.feasible);
    assert_true(b.tpot_ms < 0.95 * a.tpot_ms && b.ttft_ms > 1.3 * a.ttft_ms);
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(CAT(state), "llama3-70b");
    r.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    r.gpus = r.tp = 2;
    r.weights = r.kv = GPUECON_FP8;
    r.prompt_len = 2000;
    r.output_len = 500;
    r.concurrency = 32;
    r.long_prefill_token_threshold = 256;
    r.max_num_seqs = 64;
    gpuecon_infer_result o;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer(&r, &o, &err), GPUECON_OK);
    assert_close(b.tpot_ms, o.tpot_ms, 1e-12);
    assert_close(b.ttft_ms, o.ttft_ms, 1e-12);
}
/* A platform that cannot hold the model is reported in the table, not an error. */
static void test_infeasible_reported(void **state)
{
    const char *yaml = "workload: {kind: serve, model: llama3-405b}\n"
                       "platforms:\n"
                       "  - {name: small, system: hgx-a100, gpus: 1, tp: 1}\n"
                       "  - {name: big, system: hgx-b200, gpus: 8, tp: 8, precision: fp8}\n";
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
    const gpuecon_comparison_result *cr = &r->cmp[0];
    assert_false(cr->platforms[0].feasible); /* 405B bf16 = 811 GB on one 80 GB GPU */
    assert_non_null(strstr(cr->platforms[0].why, "no prediction"));
    assert_true(cr->platforms[1].feasible);
    assert_int_equal(cr->cheapest, 1);
    assert_int_equal(cr->runner_up, -1);
    assert_int_equal(cr->n_breakeven, 0);
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* Spares earning other work: the effective cost drops by Π, and the flag is honoured. */
static void test_spare_policy(void **state)
{
    const char *yaml = "workload: {kind: train, model: llama3-405b, tokens: 15e12, seq: 8192, gbs: 2048}\n"
                       "platforms:\n"
                       "  - {name: G, system: gb200-nvl72, gpus: 16384, measured_tokens_per_s: 480,"
                       " spares_do_other_work: true}\n";
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
    const gpuecon_platform_result *g = &r->cmp[0].platforms[0];
    assert_false(g->spares_charged);
    assert_close(g->effective_usd_per_mtok, g->effective_usd_per_mtok_without_spares, 0);
    assert_close(g->effective_usd_per_mtok_with_spares / g->effective_usd_per_mtok_without_spares,
                 g->charged_gpus / g->gpus, 1e-12);
    /* NVL72 at 256 racks, 64 of 72 active, a 2% cluster pool (reliability.yaml): charged
       (256 + 0.02·256)·72 = 18,800.64 GPUs; provisioned with the pool rounded up: 262 racks */
    assert_close(g->charged_gpus, (256 + 0.02 * 256) * 72, 1e-12);
    assert_int_equal(g->provisioned_gpus, 262 * 72);
    assert_close(g->cost_parts[GPUECON_COST_SPARES], 0, 0);
    double sum = 0;
    for (int k = 0; k < GPUECON_COST_PARTS; k++)
        sum += g->cost_parts[k];
    assert_close(sum, g->effective_usd_per_mtok, 1e-12);
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

/* With a critical batch size, a platform may train at a larger batch when its throughput gain
 * outweighs the extra tokens: the kept batch maximises tok/s ÷ (1 + B/B_crit), and the
 * platform is charged (1 + B/B_crit)/(1 + B_ref/B_crit) times the tokens. */
static void test_batch_penalty(void **state)
{
    const char *yaml = "workload: {kind: train, model: llama3-8b, tokens: 2e12, seq: 8192, gbs: 64,"
                       " critical_batch_tokens: 2e6}\n"
                       "platforms:\n  - {name: big, system: hgx-h100, gpus: 4096}\n";
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_scenario *sc;
    gpuecon_compare_result *r = run(state, ctx, yaml, &sc);
    const gpuecon_platform_result *p = &r->cmp[0].platforms[0];
    double b = p->batch_tokens, ref = 64.0 * 8192;
    assert_close(p->token_factor, (1 + b / 2e6) / (1 + ref / 2e6), 1e-12);
    assert_close(p->tokens, 2e12 * p->token_factor, 1e-12);
    assert_close(p->rank_usd_per_mtok, p->effective_usd_per_mtok * p->token_factor, 1e-12);
    /* the kept batch is at least as good as the workload's own, by the same yardstick */
    gpuecon_train_request q;
    gpuecon_train_result tr;
    gpuecon_error err;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), "llama3-8b");
    q.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    q.gpus = 4096;
    q.seq = 8192;
    q.gbs = 64;
    assert_int_equal(gpuecon_train_predict(ctx, &q, &tr, &err), 0);
    assert_true(p->tokens_per_s_per_gpu / (1 + b / 2e6) >= tr.tokens_per_s_per_gpu / (1 + ref / 2e6) * (1 - 1e-12));
    assert_true(b > ref); /* 4,096 GPUs gain from a larger batch even after the penalty */
    gpuecon_compare_free(r);
    gpuecon_scenario_free(sc);
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_consistency), cmocka_unit_test(test_breakeven_linear),
        cmocka_unit_test(test_breakeven_mtbi_round_trip), cmocka_unit_test(test_serving), cmocka_unit_test(test_serving_tp_chosen),
        cmocka_unit_test(test_serving_ttft_target),
        cmocka_unit_test(test_serving_unmet_not_ranked),
        cmocka_unit_test(test_serving_engine_limits),
        cmocka_unit_test(test_infeasible_reported), cmocka_unit_test(test_spare_policy),
        cmocka_unit_test(test_batch_penalty), cmocka_unit_test(test_internal_failure_propagates),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
