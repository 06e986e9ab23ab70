/*
 * test_search.c — the configuration search: identical results for any thread count, shards
 * that merge exactly, fixed sizes respected, ranking order, memory pruning, nothing-fits;
 * for mixture-of-experts models the expert layouts, MoE-block recompute where selective alone
 * does not fit, and the bounded search giving exactly the exhaustive ranking.
 */
#include "test_util.h"

#include <string.h>

static gpuecon_train_request gpt3_64(void **state)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), "gpt3-175b");
    q.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    q.gpus = 64, q.seq = 2048, q.gbs = 256;
    return q;
}

/* A request for `model` on `gpus` GPUs of `system` under the catalog stack `stack`. */
static gpuecon_train_request stacked(void **state, const char *stack, const char *model, const char *system,
                                     int gpus, int seq, int gbs)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    gpuecon_train_request_apply_stack(&q, gpuecon_catalog_stack(CAT(state), stack));
    q.model = gpuecon_catalog_model(CAT(state), model);
    q.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(q.stack);
    assert_non_null(q.model);
    assert_non_null(q.system);
    q.gpus = gpus, q.seq = seq, q.gbs = gbs;
    return q;
}

static bool same_par(const gpuecon_parallel *a, const gpuecon_parallel *b)
{
    return a->tp == b->tp && a->cp == b->cp && a->pp == b->pp && a->vpp == b->vpp && a->dp == b->dp &&
           a->mbs == b->mbs && a->recompute == b->recompute && a->recompute_moe == b->recompute_moe &&
           a->zero == b->zero && a->tp_overlap == b->tp_overlap;
}

static void run(gpuecon_ctx **keep, int threads, const gpuecon_train_request *q, const gpuecon_search_options *o,
                gpuecon_search_result *r)
{
    gpuecon_ctx_config cfg = {0};
    cfg.threads = threads;
    *keep = gpuecon_ctx_new(&cfg);
    gpuecon_error err;
    if (gpuecon_train_search(*keep, q, o, r, &err))
        fail_msg("search: %s", err.message);
}

/* One, three and four threads give bit-identical rankings and counts. */
static void test_thread_invariance(void **state)
{
    gpuecon_train_request q = gpt3_64(state);
    gpuecon_search_options o = {.top_k = 25};
    gpuecon_ctx *c1, *c3, *c4;
    gpuecon_search_result a, b, c;
    run(&c1, 1, &q, &o, &a);
    run(&c3, 3, &q, &o, &b);
    run(&c4, 4, &q, &o, &c);
    assert_int_equal(a.n_best, 25);
    assert_int_equal(a.n_best, b.n_best);
    assert_int_equal(a.n_best, c.n_best);
    assert_true(a.configs_evaluated == b.configs_evaluated && a.configs_evaluated == c.configs_evaluated);
    assert_true(a.configs_feasible == b.configs_feasible && a.configs_feasible == c.configs_feasible);
    for (size_t i = 0; i < a.n_best; i++) {
        assert_true(same_par(&a.best[i].par, &b.best[i].par));
        assert_true(same_par(&a.best[i].par, &c.best[i].par));
        assert_true(a.best[i].step_time_s == b.best[i].step_time_s);
        assert_true(a.best[i].step_time_s == c.best[i].step_time_s);
        if (i)
            assert_true(a.best[i].tokens_per_s_per_gpu <= a.best[i - 1].tokens_per_s_per_gpu);
        assert_true(a.best[i].fits);
    }
    assert_true(a.configs_feasible > 0 && a.configs_feasible < a.configs_evaluated);
    assert_true(a.elapsed_s == 0); /* the library reads no clock */
    gpuecon_search_result_free(&a);
    gpuecon_search_result_free(&b);
    gpuecon_search_result_free(&c);
    gpuecon_ctx_free(c1);
    gpuecon_ctx_free(c3);
    gpuecon_ctx_free(c4);
}

/* Four shards evaluate disjoint parts whose counts add up to the whole, and the best of
 * the shards' bests is the overall best. */
static void test_shards(void **state)
{
    gpuecon_train_request q = gpt3_64(state);
    gpuecon_search_options o = {.top_k = 1};
    gpuecon_ctx *ctx;
    gpuecon_search_result all;
    run(&ctx, 2, &q, &o, &all);
    uint64_t evaluated = 0, feasible = 0;
    double best = 0;
    gpuecon_parallel best_par = {0};
    for (int k = 0; k < 4; k++) {
        gpuecon_search_options s = {.top_k = 1, .shard_index = k, .shard_count = 4};
        gpuecon_ctx *c;
        gpuecon_search_result r;
        run(&c, 2, &q, &s, &r);
        evaluated += r.configs_evaluated;
        feasible += r.configs_feasible;
        if (r.n_best && r.best[0].tokens_per_s_per_gpu > best) {
            best = r.best[0].tokens_per_s_per_gpu;
            best_par = r.best[0].par;
        }
        gpuecon_search_result_free(&r);
        gpuecon_ctx_free(c);
    }
    assert_true(evaluated == all.configs_evaluated);
    assert_true(feasible == all.configs_feasible);
    assert_true(best == all.best[0].tokens_per_s_per_gpu);
    assert_true(same_par(&best_par, &all.best[0].par));
    gpuecon_search_result_free(&all);
    gpuecon_ctx_free(ctx);
}

/* Fixed sizes restrict the space: every result keeps them; fewer configurations. */
static void test_fixed_sizes(void **state)
{
    gpuecon_train_request q = gpt3_64(state);
    gpuecon_search_options o = {.top_k = 50};
    gpuecon_ctx *c1, *c2;
    gpuecon_search_result all, some;
    run(&c1, 2, &q, &o, &all);
    q.tp = 8;
    q.recompute = GPUECON_RECOMPUTE_FULL;
    run(&c2, 2, &q, &o, &some);
    assert_true(some.configs_evaluated < all.configs_evaluated);
    assert_true(some.n_best > 0);
    for (size_t i = 0; i < some.n_best; i++) {
        assert_int_equal(some.best[i].par.tp, 8);
        assert_int_equal(some.best[i].par.recompute, GPUECON_RECOMPUTE_FULL);
        assert_int_equal(some.best[i].par.tp * some.best[i].par.cp * some.best[i].par.pp * some.best[i].par.dp, 64);
        assert_int_equal(256 % (some.best[i].par.dp * some.best[i].par.mbs), 0);
    }
    /* the unrestricted best is at least as fast */
    assert_true(all.best[0].tokens_per_s_per_gpu >= some.best[0].tokens_per_s_per_gpu);
    gpuecon_search_result_free(&all);
    gpuecon_search_result_free(&some);
    gpuecon_ctx_free(c1);
    gpuecon_ctx_free(c2);
}

/* Nothing fits: no ranking, the nearest miss reported; the cost objective ranks by $/Mtok. */
static void test_nothing_fits_and_cost(void **state)
{
    gpuecon_train_request q = gpt3_64(state);
    q.model = gpuecon_catalog_model(CAT(state), "llama3-405b");
    q.gpus = 8, q.seq = 8192, q.gbs = 8;
    gpuecon_search_options o = {.top_k = 5};
    gpuecon_ctx *ctx;
    gpuecon_search_result r;
    run(&ctx, 1, &q, &o, &r);
    assert_int_equal(r.n_best, 0);
    assert_true(r.have_overflow);
    assert_true(r.configs_feasible == 0 && r.configs_evaluated > 0);
    assert_true(r.least_overflow.mem.overflow_gib > 0);
    gpuecon_search_result_free(&r);
    gpuecon_ctx_free(ctx);

    q = gpt3_64(state);
    gpuecon_search_options c = {.top_k = 3, .objective = GPUECON_OBJECTIVE_COST, .usd_per_gpu_hour = 2.0};
    run(&ctx, 1, &q, &c, &r);
    assert_int_equal(r.n_best, 3);
    for (size_t i = 0; i < r.n_best; i++) {
        assert_close(r.usd_per_mtok[i], 2.0 / (r.best[i].tokens_per_s_per_gpu * 3600) * 1e6, 1e-12);
        if (i)
            assert_true(r.usd_per_mtok[i] >= r.usd_per_mtok[i - 1]);
    }
    gpuecon_search_result_free(&r);
    gpuecon_search_result_free(&r); /* a second free is harmless */
    gpuecon_ctx_free(ctx);
    gpuecon_search_options bad = {.top_k = 3, .objective = GPUECON_OBJECTIVE_COST};
    gpuecon_error err;
    ctx = gpuecon_ctx_new(NULL);
    assert_int_equal(gpuecon_train_search(ctx, &q, &bad, &r, &err), GPUECON_E_INPUT);
    gpuecon_search_options shard = {.top_k = 3, .shard_index = 4, .shard_count = 4};
    assert_int_equal(gpuecon_train_search(ctx, &q, &shard, &r, &err), GPUECON_E_INPUT);
    gpuecon_ctx_free(ctx);
}

static bool same_moe(const gpuecon_parallel *a, const gpuecon_parallel *b)
{
    return same_par(a, b) && a->ep == b->ep && a->etp == b->etp && a->a2a_overlap == b->a2a_overlap;
}

/* The bound skips only blocks that cannot enter the top k: the bounded search ranks exactly
 * as the exhaustive one (every model kind, both systems, two objectives), with any threads. */
static void test_bound_is_exact(void **state)
{
    const char *models[] = {"deepseek-v3", "llama4-maverick", "mixtral-8x7b", "gpt3-175b"};
    const char *systems[] = {"hgx-h100", "gb200-nvl72"};
    for (int mi = 0; mi < 4; mi++)
        for (int si = 0; si < 2; si++) {
            gpuecon_train_request q;
            gpuecon_train_request_init(&q);
            q.model = gpuecon_catalog_model(CAT(state), models[mi]);
            q.system = gpuecon_catalog_system(CAT(state), systems[si]);
            q.gpus = 128, q.seq = 4096, q.gbs = 512;
            gpuecon_search_options fast = {.top_k = 10, .objective = si ? GPUECON_OBJECTIVE_COST : 0,
                                           .usd_per_gpu_hour = 2.0};
            gpuecon_search_options all = fast;
            all.exhaustive = true;
            gpuecon_ctx *c1, *c2;
            gpuecon_search_result a, b;
            run(&c1, 2, &q, &fast, &a);
            run(&c2, 1, &q, &all, &b);
            assert_int_equal(a.n_best, b.n_best);
            assert_true(b.configs_pruned == 0);
            assert_true(a.configs_evaluated <= b.configs_evaluated);
            for (size_t i = 0; i < a.n_best; i++) {
                assert_true(a.best[i].step_time_s == b.best[i].step_time_s);
                assert_true(same_moe(&a.best[i].par, &b.best[i].par));
            }
            gpuecon_search_result_free(&a);
            gpuecon_search_result_free(&b);
            gpuecon_ctx_free(c1);
            gpuecon_ctx_free(c2);
        }
}

/* MoE layouts: every result keeps ep x etp dividing the stage's ranks and ep dividing the
 * experts; one and three threads agree on rankings and counts. */
static void test_moe_layouts(void **state)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    q.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    q.gpus = 256, q.seq = 4096, q.gbs = 1024;
    gpuecon_search_options o = {.top_k = 20};
    gpuecon_ctx *c1, *c3;
    gpuecon_search_result a, b;
    run(&c1, 1, &q, &o, &a);
    run(&c3, 3, &q, &o, &b);
    assert_int_equal(a.n_best, 20);
    assert_true(a.configs_evaluated == b.configs_evaluated && a.configs_pruned == b.configs_pruned);
    for (size_t i = 0; i < a.n_best; i++) {
        const gpuecon_parallel *p = &a.best[i].par;
        assert_true(same_moe(p, &b.best[i].par));
        assert_int_equal(256 % p->ep, 0);
        assert_int_equal((p->tp * p->cp * p->dp) % (p->ep * p->etp), 0);
        assert_int_equal(p->edp, p->tp * p->cp * p->dp / (p->ep * p->etp));
        assert_true(p->etp == 1 || p->etp == p->tp);
        assert_true(a.best[i].fits);
    }
    gpuecon_search_result_free(&a);
    gpuecon_search_result_free(&b);
    gpuecon_ctx_free(c1);
    gpuecon_ctx_free(c3);
}

/* A flex-dispatcher stack makes the dispatcher a search dimension: per expert layout the
 * fastest of the three, so the best configuration is the best of the three fixed-dispatcher
 * searches and names its dispatcher; with --dispatcher fixed every row keeps it; a dense
 * model is searched exactly as without. */
static void test_dispatcher_search(void **state)
{
    gpuecon_train_request q = stacked(state, "megatron-bridge-2026", "deepseek-v3", "hgx-h100", 256, 4096, 1024);
    assert_int_equal(q.dispatcher, GPUECON_DISPATCH_SEARCH);
    q.precision = GPUECON_FP8;
    gpuecon_search_options o = {.top_k = 8};
    gpuecon_ctx *c[4];
    gpuecon_search_result all, one[3];
    run(&c[0], 1, &q, &o, &all);
    double best = 0;
    int arg = -1;
    for (int d = 0; d < 3; d++) {
        gpuecon_train_request f = q;
        f.dispatcher = (gpuecon_dispatcher)d;
        run(&c[d + 1], 1, &f, &o, &one[d]);
        assert_true(one[d].n_best > 0);
        for (size_t i = 0; i < one[d].n_best; i++)
            assert_int_equal(one[d].best[i].moe.dispatcher, d);
        if (one[d].best[0].tokens_per_s_per_gpu > best)
            best = one[d].best[0].tokens_per_s_per_gpu, arg = d;
    }
    assert_int_equal(all.n_best, 8);
    assert_close(all.best[0].tokens_per_s_per_gpu, best, 1e-12);
    assert_int_equal(all.best[0].moe.dispatcher, arg);
    /* the deduplicating dispatchers send 3.5 remote copies of a token, NCCL 7 (docs/model.md 4.9) */
    assert_true(one[GPUECON_DISPATCH_NCCL_A2A].best[0].tokens_per_s_per_gpu < best);
    gpuecon_search_result_free(&all);
    for (int d = 0; d < 3; d++)
        gpuecon_search_result_free(&one[d]);
    for (int d = 0; d < 4; d++)
        gpuecon_ctx_free(c[d]);
    /* dense: the same search as with a fixed dispatcher */
    gpuecon_train_request g = gpt3_64(state);
    g.dispatcher = GPUECON_DISPATCH_SEARCH;
    gpuecon_train_request h = gpt3_64(state);
    gpuecon_ctx *d1, *d2;
    gpuecon_search_result x, y;
    run(&d1, 1, &g, &o, &x);
    run(&d2, 1, &h, &o, &y);
    assert_true(x.configs_evaluated == y.configs_evaluated);
    assert_true(x.best[0].tokens_per_s_per_gpu == y.best[0].tokens_per_s_per_gpu);
    gpuecon_search_result_free(&x);
    gpuecon_search_result_free(&y);
    gpuecon_ctx_free(d1);
    gpuecon_ctx_free(d2);
}

/* The searched recompute is the union of the fixed ones: its best is the best of the fixed
 * searches' (none, selective, full; an MoE model also selective with --recompute-moe), bit for bit,
 * and with the sizes fixed its configurations are the sum of none, selective and full (the MoE
 * blocks are recomputed only on configurations where selective alone does not fit, so they add
 * none). On the A67 layout (Qwen3-235B-A22B, 256 H100, 16K, TP4 PP8 VP4 EP8; docs/model.md §3.6)
 * only full and selective with the MoE blocks fit, and the latter wins; a dense model is searched
 * exactly as before, with or without recompute_moe asked. */
static void recompute_union(gpuecon_ctx **keep, const gpuecon_train_request *q, gpuecon_search_result *all)
{
    gpuecon_search_options o = {.top_k = 4, .exhaustive = true};
    run(keep, 1, q, &o, all);
    const int rcs[4] = {GPUECON_RECOMPUTE_NONE, GPUECON_RECOMPUTE_SELECTIVE, GPUECON_RECOMPUTE_SELECTIVE,
                        GPUECON_RECOMPUTE_FULL};
    uint64_t evaluated = 0;
    double best = 0;
    for (int i = 0; i < 4; i++) {
        gpuecon_train_request f = *q;
        f.recompute = rcs[i], f.recompute_moe = i == 2;
        gpuecon_ctx *c;
        gpuecon_search_result r;
        run(&c, 1, &f, &o, &r);
        evaluated += i == 2 ? 0 : r.configs_evaluated;
        for (size_t k = 0; k < r.n_best; k++) {
            assert_int_equal(r.best[k].par.recompute, rcs[i]);
            assert_int_equal(r.best[k].par.recompute_moe, i == 2 && q->model->experts > 0);
        }
        if (r.n_best && r.best[0].tokens_per_s_per_gpu > best)
            best = r.best[0].tokens_per_s_per_gpu;
        gpuecon_search_result_free(&r);
        gpuecon_ctx_free(c);
    }
    assert_true(all->configs_evaluated == evaluated);
    assert_true(all->n_best > 0 && all->best[0].tokens_per_s_per_gpu == best);
}

static void test_recompute_moe_search(void **state)
{
    gpuecon_train_request q = stacked(state, "megatron-bridge-2026", "qwen3-235b-a22b", "hgx-h100", 256, 16384, 256);
    q.tp = 4, q.pp = 8, q.vpp = 4, q.cp = 1, q.ep = 8, q.mbs = 1, q.zero = 1;
    q.dispatcher = GPUECON_DISPATCH_DEEPEP, q.balanced_routing = true, q.a2a_overlap = 0, q.cuda_graphs = false;
    gpuecon_ctx *c0, *c1, *c2;
    gpuecon_search_result all;
    recompute_union(&c0, &q, &all);
    assert_int_equal(all.best[0].par.recompute, GPUECON_RECOMPUTE_SELECTIVE);
    assert_true(all.best[0].par.recompute_moe);
    assert_string_equal(gpuecon_parallel_recompute_name(&all.best[0].par), "selective+moe");
    /* stage 1's activations as derived by hand in docs/model.md §3.6: 111 x 243.3 MB = 25.15 GiB */
    assert_close(all.best[0].mem.activations_gib, 25.15, 0.01);
    /* every row that recomputes the MoE blocks is one where selective alone does not fit */
    for (size_t i = 0; i < all.n_best; i++) {
        const gpuecon_parallel *p = &all.best[i].par;
        if (!p->recompute_moe)
            continue;
        gpuecon_train_request f = q;
        f.recompute = GPUECON_RECOMPUTE_SELECTIVE, f.tp_overlap = p->tp_overlap;
        gpuecon_train_result r;
        gpuecon_error err;
        assert_int_equal(gpuecon_train_predict(c0, &f, &r, &err), GPUECON_E_INFEASIBLE);
    }
    gpuecon_search_result_free(&all);
    gpuecon_ctx_free(c0);
    /* the bound stays exact with it: DeepSeek-V3 on 96 GB200 under the 2023 stack (no TP or DP
     * overlap) is a case where selective with the MoE blocks beats full recompute and no recompute
     * (on 128 GB200 it was, until Blackwell's GEMM fractions were derived from a measured matmul
     * ratio, docs/model.md 3.3; there no recompute now wins) */
    gpuecon_train_request v = stacked(state, "megatron-2023", "deepseek-v3", "gb200-nvl72", 96, 4096, 512);
    gpuecon_search_options fast = {.top_k = 10}, slow = {.top_k = 10, .exhaustive = true};
    gpuecon_search_result a, b;
    run(&c1, 1, &v, &fast, &a);
    run(&c2, 1, &v, &slow, &b);
    assert_int_equal(a.n_best, b.n_best);
    for (size_t i = 0; i < a.n_best; i++) {
        assert_true(a.best[i].step_time_s == b.best[i].step_time_s);
        assert_true(same_moe(&a.best[i].par, &b.best[i].par));
    }
    assert_true(a.best[0].par.recompute_moe);
    gpuecon_search_result_free(&a);
    gpuecon_search_result_free(&b);
    gpuecon_ctx_free(c1);
    gpuecon_ctx_free(c2);
    /* dense: three options whatever recompute_moe says (GPT-3 175B on 64 H100, the bench's search) */
    gpuecon_train_request g = gpt3_64(state);
    gpuecon_search_result d, e;
    recompute_union(&c1, &g, &d);
    g.recompute_moe = true;
    recompute_union(&c2, &g, &e);
    assert_true(d.configs_evaluated == e.configs_evaluated);
    assert_false(d.best[0].par.recompute_moe || e.best[0].par.recompute_moe);
    gpuecon_search_result_free(&d);
    gpuecon_search_result_free(&e);
    gpuecon_ctx_free(c1);
    gpuecon_ctx_free(c2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_invariance),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_fixed_sizes),
        cmocka_unit_test(test_nothing_fits_and_cost),
        cmocka_unit_test(test_bound_is_exact),
        cmocka_unit_test(test_moe_layouts),
        cmocka_unit_test(test_dispatcher_search),
        cmocka_unit_test(test_recompute_moe_search),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
