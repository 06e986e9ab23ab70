/*
 * test_infer.c — the serving model against docs/model.md §6 TC1–TC10 and the
 * VESSL blog's serving figures (docs/sources.md).
 *
 * Expected values are the specification's (derived there by hand or by its reference
 * implementation), re-derived by hand in the comments where the arithmetic is short. Spec
 * tolerances: integer/arithmetic outputs 0.1%, modelled times and throughputs 2%, ratios 0.02
 * absolute. "Blog" checks use the hand-worked ±25% criterion; where the model fails it (TC10, the
 * 331 ms TPOT) the test asserts the model's value and that the published one lies outside.
 * Profile V (vessl-gemma4) was fitted to the blog itself (docs/model.md §6.7): agreement on the fitted
 * figures (FP8-KV gain, MTP increments, B200 headline pair) is partly circular.
 */
#include "infer_util.h"

#include "model/infer.h"

#include <string.h>

#define ARITH 1e-3 /* hand-worked cases: integer and arithmetic outputs within 0.1% */
#define MODEL 0.02 /* hand-worked cases: modelled times and throughputs within 2% */
#define GIB 1073741824.0

static const gpuecon_catalog *g_cat;

/* The hand-worked common inputs: Gemma-4-31B, TP 1, ShareGPT 230/203, legacy engine, split
 * roofline, LoRA r16 on seven projections, profile V. */
static gpuecon_infer_request req(const char *system, gpuecon_precision w, gpuecon_precision kv, int lora)
{
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = gpuecon_catalog_model(g_cat, "gemma4-31b");
    r.system = gpuecon_catalog_system(g_cat, system);
    assert_non_null(r.model);
    assert_non_null(r.system);
    r.gpus = 1;
    r.tp = 1;
    r.weights = w;
    r.kv = kv;
    r.lora_rank = lora;
    r.profile = *gpuecon_serving_profile_find("vessl-gemma4");
    /* the worked cases TC1-TC9 are T1's mean field: every step its share of the prefill */
    r.prefill_steps = GPUECON_PREFILL_EVEN;
    return r;
}

static double x_at(gpuecon_infer_request r, double c) { return at(&r, c).output_tokens_per_s; }

static int setup(void **state)
{
    int rc = fixture_setup(state);
    g_cat = CAT(state);
    return rc;
}

/* ---- TC1: architecture arithmetic --------------------------------------------------- */

static void test_tc1_params(void **state)
{
    (void)state;
    gpuecon_infer_request r = req("hgx-b200", GPUECON_BF16, GPUECON_BF16, 16);
    gpuecon_infer_result o = run(&r);
    /* attention: 50 sliding x (2·5376·8192 + 2·5376·4096) + 10 global x (2·5376·16384 + 5376·2048)
     * = 50·132,120,576 + 10·187,170,816 = 8,477,736,960; MLP 60·3·5376·21504 = 20,808,990,720 */
    assert_close(o.body_params, 29286727680.0, ARITH);
    assert_close(o.embedding_params, 1409286144.0, ARITH); /* 262144·5376, tied */
    assert_close(o.dup_v_params, 110100480.0, ARITH);      /* 10·5376·2048 */
    assert_close(o.body_params + o.embedding_params, 30696013824.0, ARITH);
    /* LR1: 123,617,280 parameters, 0.2472 GB in bf16 */
    double lora = gpuecon_lora_params(r.model, 16, GPUECON_LORA_ALL);
    assert_close(lora, 123617280.0, 1e-12);
    assert_close(lora * 2 / 1e9, 0.2472, ARITH);
}

static void test_tc1_kv_bytes(void **state)
{
    const gpuecon_model *g = gpuecon_catalog_model(CAT(state), "gemma4-31b");
    /* TP1: 50·2·16·256·2 + 10·2·4·512·2 = 819,200 + 81,920 = 901,120 B */
    int tps[] = {1, 2, 4, 8};
    double bf16[] = {901120, 450560, 225280, 122880};
    for (int i = 0; i < 4; i++)
        assert_close(gpuecon_kv_bytes_per_token(g, tps[i], GPUECON_BF16, false), bf16[i], ARITH);
    assert_close(gpuecon_kv_bytes_per_token(g, 1, GPUECON_FP8, false), 450560, ARITH);
    assert_close(gpuecon_kv_bytes_per_token(g, 8, GPUECON_FP8, false), 61440, ARITH);
    /* long-context marginal: the 10 global layers only; TP8 keeps 1 head (4 heads replicated 2x) */
    assert_close(gpuecon_kv_bytes_per_token(g, 1, GPUECON_BF16, true), 81920, ARITH);
    assert_close(gpuecon_kv_bytes_per_token(g, 8, GPUECON_BF16, true), 20480, ARITH);
    /* Llama-3-70B: 80·2·8·128·2 = 327,680; TP8: one head per GPU */
    const gpuecon_model *l = gpuecon_catalog_model(CAT(state), "llama3-70b");
    assert_close(gpuecon_kv_bytes_per_token(l, 1, GPUECON_BF16, false), 327680, ARITH);
    assert_close(gpuecon_kv_bytes_per_token(l, 8, GPUECON_BF16, false), 40960, ARITH);
    /* Gemma-3-27B proxy: 62 x {kv 16, hd 128}: 507,904 B; TP8 63,488 B */
    gpuecon_model proxy = {.name = "gemma3-27b-proxy", .layers = 62, .hidden = 5376, .heads = 32,
                           .kv_heads = 16, .head_dim = 128, .ffn_hidden = 21504,
                           .ffn = GPUECON_FFN_GEGLU, .vocab = 262144, .moe_every = 1};
    assert_close(gpuecon_kv_bytes_per_token(&proxy, 1, GPUECON_BF16, false), 507904, ARITH);
    assert_close(gpuecon_kv_bytes_per_token(&proxy, 8, GPUECON_BF16, false), 63488, ARITH);
    /* MLA (DeepSeek-V3): one latent of 512 + 64 per layer, replicated on every TP rank */
    const gpuecon_model *d = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    assert_close(gpuecon_kv_bytes_per_token(d, 1, GPUECON_BF16, false), 61 * 576 * 2, 1e-12);
    assert_close(gpuecon_kv_bytes_per_token(d, 8, GPUECON_BF16, false), 61 * 576 * 2, 1e-12);
}

/* Gemma-4-26B-A4B as the hand-worked TC1 gives it. */
static const char gemma26[] =
    "name: gemma4-26b-a4b\nsource: docs/model.md §6 TC1\nstage: datasheet\n"
    "layers: 30\nhidden: 2816\nheads: 16\nkv_heads: 8\nhead_dim: 256\nffn_hidden: 2112\n"
    "ffn: geglu\nvocab: 262144\ntied_embeddings: true\nmax_seq: 262144\n"
    "experts: 128\ntop_k: 8\nexpert_ffn_hidden: 704\nshared_experts: 1\nshared_ffn_hidden: 2112\n"
    "sliding_window: 1024\nglobal_every: 6\nglobal_kv_heads: 2\nglobal_head_dim: 512\n"
    "global_k_eq_v: true\npublished_params: 25.2e9\n";

static void test_tc1_moe(void **state)
{
    const gpuecon_model *m = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_load_model_buffer(CAT(state), "gemma26.yaml", gemma26,
                                                       sizeof gemma26 - 1, &m, &err), GPUECON_OK);
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    /* by hand (norms aside): attention 25·34,603,008 + 5·49,020,928 = 1,110,179,840; shared MLP
     * 30·3·2816·2112 = 535,265,280; experts 30·128·3·2816·704 = 22,837,985,280; router
     * 30·2816·128 = 10,813,440; embedding 262144·2816 = 738,197,504. Active: 8 experts. */
    assert_close(p.total - p.norms, 25232441344.0, 1e-12);
    assert_close(p.active - p.norms, 3821830144.0, 1e-12);
    assert_close(p.total, 25.23e9, 2e-3);  /* hand-worked 25.23 B; model card 25.2 B */
    assert_close(p.active, 3.82e9, 2e-3);  /* hand-worked 3.82 B; model card 3.8 B */
    /* M1: 128·(1 − (1 − 8/128)^T) */
    assert_close(gpuecon_moe_experts_touched(m, 1), 8.00, ARITH);
    assert_close(gpuecon_moe_experts_touched(m, 16), 82.42, ARITH);
    assert_close(gpuecon_moe_experts_touched(m, 64), 125.94, ARITH);
    /* M2, fp8 body + bf16 LM head, read by a step of T tokens (B = T/2 with prompt = output):
     * hand-worked 4.56 / 17.84 / 25.60 GB. The hand-worked M2 leaves out the v_proj copy the weights (W1)
     * hold; the model reads it too: + 5 global layers·2816·2·512 = 14,417,920 B. */
    gpuecon_infer_request r = req("hgx-b200", GPUECON_FP8, GPUECON_BF16, 0);
    r.model = m;
    r.prompt_len = r.output_len = 200;
    double T[] = {1, 16, 64}, spec[] = {4.56e9, 17.84e9, 25.60e9};
    for (int i = 0; i < 3; i++) {
        gpuecon_infer_point pt = at(&r, T[i] / 2);
        assert_close(pt.step.decode_tokens + pt.step.prefill_tokens, T[i], 1e-12);
        assert_close(pt.step.weight_bytes - 14417920.0, spec[i], 2e-3); /* the hand-worked value rounds to 10 MB */
    }
}

/* ---- TC2: memory budget --------------------------------------------------------------- */

static void test_tc2_memory(void **state)
{
    (void)state;
    gpuecon_infer_request a = req("hgx-a100", GPUECON_BF16, GPUECON_BF16, 16);
    gpuecon_infer_result o = run(&a);
    /* 0.9·80; body+dupv 2·29,396,828,160 B = 54.76 GiB, emb 2.62, vision 1.02, LoRA 0.23 */
    assert_close(o.requested_gib, 72.000, ARITH);
    assert_close(o.weights_gib, 58.636, ARITH);
    /* A1: 2048·(2·21504 + 4·5376)·2 B + 256·262144·8 B + 0.5 + 1.0 GiB = 2.246 GiB */
    assert_close(o.activation_gib, 2.246, ARITH);
    assert_close(o.kv_avail_gib, 11.118, ARITH);
    /* VESSL blog: "A100 80 GB keeps only ~10 GB for KV": 11.94 GB, within the blog criterion ±25% */
    assert_true(fabs(o.kv_avail_gib * GIB / 1e9 / 10 - 1) <= 0.25);
    const char *sys[] = {"hgx-h100", "hgx-b200"};
    double req_gib[] = {71.683, 161.155}, kv[] = {35.941, 125.413}, kv21[] = {37.034, 128.495};
    for (int i = 0; i < 2; i++) {
        gpuecon_infer_request r = req(sys[i], GPUECON_FP8, GPUECON_BF16, 16);
        o = run(&r);
        assert_close(o.requested_gib, req_gib[i], ARITH); /* catalog 79.65 vs 81559 MiB: 0.003% */
        assert_close(o.weights_gib, 31.258, ARITH);
        assert_close(o.activation_gib, 4.484, ARITH);
        assert_close(o.kv_avail_gib, kv[i], ARITH);
        r.engine = GPUECON_ENGINE_V021; /* u 0.92, CUDA graphs 0.5 GiB */
        assert_close(run(&r).kv_avail_gib, kv21[i], ARITH);
    }
    a.engine = GPUECON_ENGINE_V021;
    assert_close(run(&a).kv_avail_gib, 12.218, ARITH);
    /* TP8 per GPU: weights 4.80, activations 2.16, KV 64.72 (H100) / 154.19 (B200) GiB */
    double kv8[] = {64.72, 154.19}, tok8[] = {1131046, 2694694};
    for (int i = 0; i < 2; i++) {
        gpuecon_infer_request r = req(sys[i], GPUECON_FP8, GPUECON_FP8, 16);
        r.gpus = r.tp = 8;
        o = run(&r);
        assert_close(o.weights_gib, 4.80, 2e-3);
        assert_close(o.activation_gib, 2.16, 2e-3);
        assert_close(o.kv_avail_gib, kv8[i], ARITH);
        assert_close(o.kv_capacity_tokens, tok8[i], ARITH);
    }
}

/* ---- TC3: KV capacity, concurrency at a context length, FP8 KV doubling ----------------- */

static void test_tc3_capacity(void **state)
{
    (void)state;
    struct {
        const char *sys;
        gpuecon_precision w, kv;
        double tokens, b331, b433, b4096, b32768;
    } t[] = {
        {"hgx-a100", GPUECON_BF16, GPUECON_BF16, 13248, 39.0, 30.0, 10.1, 3.38},
        {"hgx-a100", GPUECON_BF16, GPUECON_FP8, 26496, 78.0, 60.1, 20.2, 6.76},
        {"hgx-h100", GPUECON_FP8, GPUECON_BF16, 42826, 126.1, 97.1, 32.7, 10.93},
        {"hgx-h100", GPUECON_FP8, GPUECON_FP8, 85651, 252.3, 194.2, 65.3, 21.86},
        {"hgx-b200", GPUECON_FP8, GPUECON_BF16, 149438, 440.2, 338.9, 114.0, 38.14},
        {"hgx-b200", GPUECON_FP8, GPUECON_FP8, 298876, 880.3, 677.7, 227.9, 76.29},
    };
    for (int i = 0; i < 6; i++) {
        gpuecon_infer_request r = req(t[i].sys, t[i].w, t[i].kv, 16);
        gpuecon_infer_result o = run(&r);
        assert_close(o.kv_capacity_tokens, t[i].tokens, ARITH);
        /* K6 at n̄ = 230 + 203/2 = 331.5: (50·16384 + 10·8192)·(331.5 + 8) = 305.93 MB (bf16) */
        assert_close(o.seq_bytes, t[i].kv == GPUECON_BF16 ? 305.93e6 : 152.97e6, ARITH);
        assert_close(o.seqs_at_mean, t[i].b331, 2e-3); /* the the hand-worked value prints one decimal */
        assert_close(o.seqs_at_full, t[i].b433, 2e-3);
        r.max_model_len = 4096;
        assert_close(run(&r).seqs_at_max_model_len, t[i].b4096, 5e-3);
        r.max_model_len = 32768;
        assert_close(run(&r).seqs_at_max_model_len, t[i].b32768, 2e-3);
    }
    /* FP8 KV doubles every capacity exactly (§8) */
    for (int i = 0; i < 6; i += 2) {
        gpuecon_infer_request a = req(t[i].sys, t[i].w, GPUECON_BF16, 16), b = a;
        b.kv = GPUECON_FP8;
        gpuecon_infer_result x = run(&a), y = run(&b);
        assert_close(y.kv_capacity_tokens / x.kv_capacity_tokens, 2.0, 1e-12);
        assert_close(y.seqs_at_mean / x.seqs_at_mean, 2.0, 1e-12);
        assert_close(y.seqs_at_full / x.seqs_at_full, 2.0, 1e-12);
    }
}

static void test_tc3_startup(void **state)
{
    (void)state;
    /* A100 bf16 at max_model_len 262,144: 81,920·262,144 + 50·16,384·16·(ceil(3071/16) + 1)
     * = 22.36 GiB > 11.12: vLLM refuses to start; largest feasible ≈ 114,850 */
    gpuecon_infer_request a = req("hgx-a100", GPUECON_BF16, GPUECON_BF16, 16);
    gpuecon_infer_result o = run(&a);
    assert_false(o.startup_ok);
    assert_close(o.startup_need_gib, 22.36, ARITH);
    assert_close(o.max_model_len_fit, 114850, ARITH);
    assert_true(o.max_model_len_lowered);
    assert_true(o.max_model_len <= 114850 && o.max_model_len > 114800);
    a.max_model_len = 262144; /* an explicit one that does not fit is infeasible */
    gpuecon_error err;
    gpuecon_infer_result bad;
    assert_int_equal(gpuecon_infer(&a, &bad, &err), GPUECON_E_INFEASIBLE);
    assert_non_null(strstr(err.message, "114850"));
    /* a tight budget: u = 0.77 leaves 61.6 − 58.636 − 2.246 = 0.718 GiB (771 MB). Below the
     * window the need is 81,920·n + 50·16,384·16·(ceil(n/16) + 1): 762.8 MB at n = 832, 776 MB
     * at 833 -> the largest max_model_len is 832 */
    gpuecon_infer_request tight = req("hgx-a100", GPUECON_BF16, GPUECON_BF16, 16);
    tight.gpu_mem_util = 0.77;
    o = run(&tight);
    assert_int_equal(o.max_model_len_fit, 832);
    assert_int_equal(o.max_model_len, 832);
    /* H100: bf16 KV needs 27.04 GiB <= 35.94 (starts); fp8 KV needs 13.52 */
    gpuecon_infer_request h = req("hgx-h100", GPUECON_FP8, GPUECON_BF16, 16);
    o = run(&h);
    assert_true(o.startup_ok);
    assert_close(o.startup_need_gib, 27.04, ARITH);
    h.kv = GPUECON_FP8;
    assert_close(run(&h).startup_need_gib, 13.52, ARITH);
}

/* ---- TC4: H100 single replica, fp8/fp8, LoRA r16, profile V --------------------------- */

static void test_tc4_h100_curve(void **state)
{
    (void)state;
    gpuecon_infer_request r = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 16);
    double C[] = {1, 64, 128, 256, 512, 1024};
    double B[] = {1, 64, 128, 252.3, 252.3, 252.3};
    double t[] = {15.90, 29.15, 54.70, 104.31, 104.31, 104.31};
    double X[] = {63, 2196, 2340, 2419, 2419, 2419};
    double tpot[] = {15.9, 29.1, 54.7, 105.8, 211.7, 423.4};
    /* TTFT: L3 now runs the prompt beside B − 1 others, not B; one sequence's decode and share
     * of the steady-state prefill (1.13 tokens) moves these by under 1%, inside their 3% below */
    double ttft[] = {27, 52, 78, 440, 21900, 64900};
    gpuecon_binding bind[] = {GPUECON_BIND_OFFERED_LOAD, GPUECON_BIND_OFFERED_LOAD,
                              GPUECON_BIND_OFFERED_LOAD, GPUECON_BIND_KV_CAPACITY,
                              GPUECON_BIND_KV_CAPACITY, GPUECON_BIND_KV_CAPACITY};
    gpuecon_infer_point p[6];
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_sweep(&r, C, 6, p, &err), GPUECON_OK);
    for (int i = 0; i < 6; i++) {
        assert_close(p[i].batch, B[i], 2e-3);
        assert_close(p[i].step.step_s * 1e3, t[i], MODEL);
        assert_close(p[i].output_tokens_per_s, X[i], MODEL);
        assert_close(p[i].tpot_ms, tpot[i], MODEL);
        assert_close(p[i].ttft_ms, ttft[i], 0.03); /* the hand-worked value prints 2 significant digits */
        assert_int_equal(p[i].binding, bind[i]);
    }
    /* step breakdown at B = 64 (ms): T_w 12.11 = 32.46 GB / (3.35 TB/s·0.8), T_cg 13.88,
     * T_kv 11.41, T_ca 0.23, t_ovh 1.5 + 64·0.004, t_lora 60·7·5 µs */
    const gpuecon_infer_step *s = &p[1].step;
    assert_close(s->weights_s * 1e3, 12.11, MODEL);
    assert_close(s->gemm_s * 1e3, 13.88, MODEL);
    assert_close(s->kv_s * 1e3, 11.41, MODEL);
    assert_close(s->attn_s * 1e3, 0.23, 0.05);
    assert_close(s->overhead_s * 1e3, 1.756, 1e-9);
    assert_close(s->lora_s * 1e3, 2.10, 1e-9);
    gpuecon_infer_result o = run(&r);
    assert_close(o.max_concurrency, 252, 1e-12); /* C_sat */
    assert_close(o.c_knee, 60, 1e-12);
    /* VESSL blog: "H100 saturates near 256" (single-replica reading): 252, within ±25% */
    assert_true(fabs(o.max_concurrency / 256 - 1) <= 0.25);
    /* VESSL blog: "TPOT ≈192 ms @512": 211.7 (+10%) PASS; "331 ms @1024": 423 (+28%) FAIL, documented */
    assert_true(fabs(p[4].tpot_ms / 192 - 1) <= 0.25);
    assert_true(fabs(331 / p[5].tpot_ms - 1) > 0.2 && p[5].tpot_ms / 331 - 1 > 0.25);
    assert_close(p[5].output_tokens_per_s, p[4].output_tokens_per_s, 1e-12); /* flat 512 -> 1024 */
    /* bf16 KV: B_kv 126.1, X flat at 1,650, knee 51, TPOT 310 / 621 ms */
    gpuecon_infer_request b = req("hgx-h100", GPUECON_FP8, GPUECON_BF16, 16);
    o = run(&b);
    assert_close(o.seqs_at_mean, 126.1, 2e-3);
    assert_close(o.saturated_tokens_per_s, 1650, MODEL);
    assert_close(o.c_knee, 51, 1e-12);
    assert_close(at(&b, 512).tpot_ms, 310, MODEL);
    assert_close(at(&b, 1024).tpot_ms, 621, MODEL);
    /* profile G, no LoRA: 73 / 3,285 / 3,831 tok/s at C = 1 / 64 / 256; TTFT_0(230) = 18.7 ms */
    gpuecon_infer_request g = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 0);
    g.profile = *gpuecon_serving_profile_find("generic");
    assert_close(x_at(g, 1), 73, MODEL);
    assert_close(x_at(g, 64), 3285, MODEL);
    assert_close(x_at(g, 256), 3831, MODEL);
    assert_close(run(&g).ttft0_ms, 18.7, MODEL);
    /* §4.3: the fused roofline's H100 saturation is 4,088 tok/s at 256 */
    r.roofline = GPUECON_ROOFLINE_FUSED;
    assert_close(x_at(r, 256), 4088, MODEL);
}

/* ---- L3/L4: a lone prompt chunked by the token budget (the deployment above) -------------
 * A 230-token prompt alone takes ceil(230/C) steps at a budget of C tokens: 15 at C = 16
 * (14 x 16 + 6), 8 at C = 32 (7 x 32 + 6), 1 at C >= 230. Each chunk of 16 or 32 tokens is
 * weight-bound: T_cg(32) = 22.87·32/230 = 3.18 ms < T_w = 12.11 ms (above), so such a step takes
 * T_w + t0 + t_seq + t_lora = 12.11 + 1.5 + 0.004 + 2.10 = 15.714 ms plus its share of the
 * prompt's attention, which sums over the chunks to the whole prompt's T_ca (no KV read
 * beside: max(T_kv, T_ca) = T_ca): 230·231/2 = 26,565 pairs x (50 sliding layers x 4·32·256 +
 * 10 global x 4·32·512) = 6.093e10 FLOP / (989 TFLOP/s BF16 x η_c 0.30) = 0.205 ms.
 *   C = 16: 15 x 15.714 + 0.205 = 235.9 ms;   C = 32: 8 x 15.714 + 0.205 = 125.9 ms;
 *   C = 8192: one compute-bound step, T_cg = 2·(29,396,828,160 + 123,617,280 LoRA)·230 /
 *             (1979 TFLOP/s FP8 x 0.30) = 22.87 ms, + 0.205 + 1.504 + 2.10 = 26.68 ms.
 * At concurrency 1 nothing else runs, so the TTFT is the same. */
static void test_chunked_lone_prompt(void **state)
{
    (void)state;
    int budget[] = {16, 32, 8192};
    double want[] = {235.9, 125.9, 26.68};
    for (int i = 0; i < 3; i++) {
        gpuecon_infer_request r = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 16);
        r.max_num_batched_tokens = budget[i];
        r.concurrency = 1;
        gpuecon_infer_result o = run(&r);
        assert_close(o.ttft0_ms, want[i], MODEL);
        assert_close(o.ttft_ms, want[i], MODEL);
    }
}

/* ---- X1/X4/L3b: a token budget that cannot carry the steady-state prefill ----------------
 * The deployment above at a budget of N_bt = 256 tokens. Each running sequence needs, per step,
 * one decode position (k = 0) and its share E·ρ(1−h) = 230/203 of the steady-state prefill, so
 * the budget carries B_bt = 256/(1 + 230/203) = 256·203/433 = 120.018 sequences, below the KV
 * pool's 259 and max_num_seqs 1,024: at 256 users it binds, and the step holds 120.018 decode
 * + 135.982 prefill tokens = 256. T_cg = 2·(29,396,828,160 + 123,617,280 LoRA)·256 +
 * 2·V·H·120.018 (LM head on the decodes, V·H = 262,144·5,376) = 1.5115e13 + 3.383e11 FLOP over
 * 1979 TFLOP/s·0.30 = 25.458 + 0.570 = 26.028 ms > T_w = 12.11 ms; T_kv = 11.41 ms·120.018/64
 * (TC4's, linear in B) = 21.397 ms > T_ca; t0 + t_seq·B = 1.5 + 0.480; t_lora 2.10:
 *   t_step = 26.028 + 21.397 + 1.980 + 2.10 = 51.505 ms,  X = 120.018/0.051505 = 2,330 tok/s,
 *   TPOT = t_step = 51.5 ms,  TTFT = (256 − 120.018)·203/2,330 = 11.85 s (closed-loop Little:
 *   the users not among the decoding B wait or prefill; the prefill, two steps, is far less).
 * Without the budget the same 256 users ran 256 sequences at 2,419 tok/s (TC4). */
static void test_budget_bound(void **state)
{
    (void)state;
    gpuecon_infer_request r = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 16);
    r.max_num_batched_tokens = 256;
    r.concurrency = 256;
    gpuecon_infer_result o = run(&r);
    assert_close(o.seqs_budget, 256.0 * 203 / 433, ARITH);
    assert_close(o.at.batch, 256.0 * 203 / 433, ARITH);
    assert_int_equal(o.at.binding, GPUECON_BIND_MAX_NUM_BATCHED_TOKENS);
    assert_close(o.at.step.decode_tokens + o.at.step.prefill_tokens, 256, ARITH);
    assert_close(o.at.step.step_s * 1e3, 51.505, MODEL);
    assert_close(o.output_tokens_per_s, 2330, MODEL);
    assert_close(o.tpot_ms, 51.505, MODEL);
    assert_close(o.ttft_ms, 11850, MODEL);
    assert_close(o.max_concurrency, 120, 1e-12); /* C_sat = floor(B_bt) */
    assert_close(o.saturated_tokens_per_s, 2330, MODEL);
    assert_true(o.at.ttft_ms > 0 && isfinite(o.at.ttft_ms));
    /* below B_bt the load binds and nobody waits: 100 running, TTFT the prefill alone */
    gpuecon_infer_point p = at(&r, 100);
    assert_int_equal(p.binding, GPUECON_BIND_OFFERED_LOAD);
    assert_close(p.batch, 100, 1e-12);
    assert_true(p.ttft_ms < 1000);
    assert_string_equal(gpuecon_binding_name(GPUECON_BIND_MAX_NUM_BATCHED_TOKENS), "max_num_batched_tokens");
}

/* ---- TC5: B200, 8 replicas x TP1, fp8/fp8, LoRA r16, MTP k = 2 at 73% ------------------- */

static void test_tc5_b200(void **state)
{
    (void)state;
    gpuecon_infer_request r = req("hgx-b200", GPUECON_FP8, GPUECON_FP8, 16);
    r.gpus = 8;
    r.draft_k = 2;
    r.acceptance = 0.73; /* vLLM rate: E = 1 + 2·0.73 = 2.46 */
    r.acceptance_is_rate = true;
    double C[] = {8, 64, 512, 1024, 2048, 4096, 8192};
    double B[] = {1, 8, 64, 128, 256, 512, 874.5};
    double t[] = {12.91, 13.46, 29.40, 51.03, 94.30, 180.84, 303.36};
    double X[] = {1524, 11694, 42846, 49363, 53426, 55719, 56728};
    double tpot[] = {5.25, 5.47, 11.95, 20.74, 38.33, 73.51, 123.32};
    gpuecon_infer_point p[7];
    gpuecon_error err;
    assert_int_equal(gpuecon_infer_sweep(&r, C, 7, p, &err), GPUECON_OK);
    for (int i = 0; i < 7; i++) {
        assert_close(p[i].batch, B[i], 2e-3);
        assert_close(p[i].step.step_s * 1e3, t[i], MODEL);
        assert_close(p[i].output_tokens_per_s, X[i], MODEL);
        assert_close(p[i].tpot_run_ms, tpot[i], MODEL);
        assert_int_equal(p[i].binding, i == 6 ? GPUECON_BIND_KV_CAPACITY : GPUECON_BIND_OFFERED_LOAD);
    }
    /* breakdown at 64 per replica; t_draft = 2·(1.5 ms + (0.9e9 + 2·262144·5376) B / 6.4 TB/s) */
    const gpuecon_infer_step *s = &p[2].step;
    assert_close(s->weights_s * 1e3, 5.07, MODEL);
    assert_close(s->gemm_s * 1e3, 16.60, MODEL);
    assert_close(s->kv_s * 1e3, 4.78, MODEL);
    assert_close(s->draft_s * 1e3, 2 * (1.5 + (0.9e9 + 2.0 * 262144 * 5376) / 6.4e12 * 1e3), 1e-9);
    assert_close(run(&r).c_knee, 8 * 164, 1e-12);
    /* VESSL blog: 40,734 tok/s @512 and 52,759 beyond 8,000 (aggregate reading, fitted) */
    assert_true(fabs(p[2].output_tokens_per_s / 40734 - 1) <= 0.25);
    assert_true(fabs(p[6].output_tokens_per_s / 52759 - 1) <= 0.25);
}

/* ---- TC6: speculative decoding ---------------------------------------------------------- */

static double spec_x(const char *sys, int k, double c)
{
    gpuecon_infer_request r = req(sys, GPUECON_FP8, GPUECON_FP8, 16);
    r.draft_k = k;
    if (k == 1 || k == 2) { /* the blog's acceptance rates at k = 1 and 2 */
        r.acceptance = k == 1 ? 0.828 : 0.73;
        r.acceptance_is_rate = true;
    } else if (k == 3) {    /* α implied by k = 2 */
        r.acceptance = gpuecon_spec_alpha_from_rate(0.73, 2);
    }
    return x_at(r, c);
}

static void test_tc6_spec(void **state)
{
    (void)state;
    assert_close(gpuecon_spec_alpha_from_rate(0.828, 1), 0.828, 1e-9);
    assert_close(gpuecon_spec_expected_tokens(0.828, 1), 1.828, 1e-9);
    /* (α + α²)/2 = 0.73 -> α = (−1 + √6.84)/2 = 0.80767 */
    assert_close(gpuecon_spec_alpha_from_rate(0.73, 2), (-1 + sqrt(6.84)) / 2, 1e-9);
    assert_close(gpuecon_spec_expected_tokens(0.80767, 2), 2.460, ARITH);
    assert_close(gpuecon_spec_expected_tokens(0.8077, 3), 2.987, ARITH);
    assert_close(gpuecon_spec_expected_tokens(0.5, 0), 1, 0);
    /* SD5, γ = 0.195: 1.530 / 1.770 / 1.884 -> +53.0% / +15.7% / +6.5% (VESSL blog: +53 / +16 / +7) */
    double s1 = gpuecon_spec_speedup(0.828, 1, 0.195), s2 = gpuecon_spec_speedup(0.8077, 2, 0.195),
           s3 = gpuecon_spec_speedup(0.8077, 3, 0.195);
    assert_close(s1, 1.530, ARITH);
    assert_close(s2, 1.770, ARITH);
    assert_close(s3, 1.884, ARITH);
    assert_near(s2 / s1 - 1, 0.157, 0.002);
    assert_near(s3 / s2 - 1, 0.065, 0.002);
    /* full model: increments k 0->1->2->3 at C_rep; the gain shrinks with the batch */
    struct {
        const char *sys;
        double c, inc[3];
    } t[] = {{"hgx-b200", 1, {0.477, 0.129, 0.046}}, {"hgx-b200", 8, {0.494, 0.138, 0.052}},
             {"hgx-b200", 16, {0.511, 0.147, 0.043}}, {"hgx-b200", 64, {0.204, 0.024, -0.011}},
             {"hgx-h100", 1, {0.547, 0.166, 0.071}},  {"hgx-h100", 8, {0.565, 0.176, 0.078}},
             {"hgx-h100", 64, {0.193, 0.023, -0.011}}};
    for (int i = 0; i < 7; i++) {
        double x[4];
        for (int k = 0; k < 4; k++)
            x[k] = spec_x(t[i].sys, k, t[i].c);
        for (int k = 0; k < 3; k++)
            assert_near(x[k + 1] / x[k] - 1, t[i].inc[k], 0.005);
    }
    /* VESSL blog MTP figures at low load (H100, 1 sequence): +53/+16/+7% within ±25% relative */
    double x0 = spec_x("hgx-h100", 0, 1), x1 = spec_x("hgx-h100", 1, 1), x2 = spec_x("hgx-h100", 2, 1),
           x3 = spec_x("hgx-h100", 3, 1);
    assert_true(fabs((x1 / x0 - 1) / 0.53 - 1) <= 0.25);
    assert_true(fabs((x2 / x1 - 1) / 0.16 - 1) <= 0.25);
    assert_true(fabs((x3 / x2 - 1) / 0.07 - 1) <= 0.25);
    /* gain shrinks as the batch grows: k = 1 at 64 per replica < at 1; k = 3 then loses */
    assert_true(spec_x("hgx-h100", 1, 64) / spec_x("hgx-h100", 0, 64) < x1 / x0 - 0.3);
    assert_true(spec_x("hgx-h100", 3, 64) < spec_x("hgx-h100", 2, 64));
}

/* ---- TC7: FP8 KV throughput; TC8: LoRA overhead ------------------------------------------ */

static void test_tc7_fp8_kv(void **state)
{
    (void)state;
    struct {
        const char *sys;
        double c, xb, xf, gain_mtp;
    } t[] = {{"hgx-h100", 8, 430, 466, 0.062},     {"hgx-h100", 64, 1578, 2196, 0.194},
             {"hgx-h100", 256, 1650, 2419, 0.267}, {"hgx-b200", 64, 3279, 4342, 0.163},
             {"hgx-b200", 1000, 3892, 5613, 0.241}};
    for (int i = 0; i < 5; i++) {
        gpuecon_infer_request b = req(t[i].sys, GPUECON_FP8, GPUECON_BF16, 16), f = b;
        f.kv = GPUECON_FP8;
        assert_close(x_at(b, t[i].c), t[i].xb, MODEL);
        assert_close(x_at(f, t[i].c), t[i].xf, MODEL);
        b.draft_k = f.draft_k = 2;
        b.acceptance = f.acceptance = 0.73;
        b.acceptance_is_rate = f.acceptance_is_rate = true;
        assert_near(x_at(f, t[i].c) / x_at(b, t[i].c) - 1, t[i].gain_mtp, 0.005);
    }
    /* blog "+44-57%": reached (+44-47%) only KV-bound without MTP; fused B200 @1000 gives +65% */
    gpuecon_infer_request b = req("hgx-b200", GPUECON_FP8, GPUECON_BF16, 16), f = b;
    f.kv = GPUECON_FP8;
    b.roofline = f.roofline = GPUECON_ROOFLINE_FUSED;
    assert_near(x_at(f, 1000) / x_at(b, 1000) - 1, 0.65, 0.01);
}

static void test_tc8_lora(void **state)
{
    (void)state;
    struct {
        const char *sys;
        gpuecon_precision p;
        double c, off, on;
    } t[] = {{"hgx-h100", GPUECON_FP8, 1, 73, 63},     {"hgx-h100", GPUECON_FP8, 64, 2371, 2196},
             {"hgx-h100", GPUECON_FP8, 256, 2474, 2419}, {"hgx-b200", GPUECON_FP8, 1, 151, 114},
             {"hgx-b200", GPUECON_FP8, 64, 5074, 4342},  {"hgx-b200", GPUECON_FP8, 256, 5570, 5316},
             {"hgx-a100", GPUECON_BF16, 1, 25, 24},      {"hgx-a100", GPUECON_BF16, 64, 501, 486}};
    for (int i = 0; i < 8; i++) {
        gpuecon_infer_request off = req(t[i].sys, t[i].p, t[i].p, 0), on = off;
        on.lora_rank = 16;
        assert_close(x_at(off, t[i].c), t[i].off, t[i].off < 100 ? 0.03 : MODEL); /* 2 digits */
        assert_close(x_at(on, t[i].c), t[i].on, t[i].on < 100 ? 0.03 : MODEL);
    }
    /* 0.230 GiB extra weights; +0.40% FLOP (123.6 M / 30.7 B); t_lora 60·7·5 µs = 2.1 ms */
    gpuecon_infer_request on = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 16);
    gpuecon_infer_result o = run(&on);
    assert_close(o.lora_gib, 0.230, 2e-3);
    assert_near(o.lora_params / (o.body_params + o.embedding_params), 0.0040, 0.0001);
    assert_close(o.at.step.lora_s, 2.1e-3, 1e-9);
}

/* ---- TC9: tensor parallelism ----------------------------------------------------------- */

static void test_tc9_allreduce(void **state)
{
    (void)state;
    /* C1 at TP8, the fastest valid protocol (f = 7/4, 14 ring steps, η_large = 0.80):
     * one-shot α + S·f/(0.15·B) up to 1 MiB; NCCL LL 3.6 + 14·0.47 µs at B/4, LL128
     * 10 + 14·1.9 µs at 0.92·B, Simple 8.4 + 14·3.4 µs at B. H100 (B = 450 GB/s):
     * 672 KiB: one-shot 27.8, LL 10.18 + 13.38 = 23.6 µs (LL wins);
     * 10.5 MiB: LL128 36.6 + 58.2 = 94.8 (Simple 56.0 + 53.5 = 109.5);
     * 84 MiB: Simple 56.0 + 428.2 = 484.2 (LL128 502.0). The hand-worked TC9 (27.8 / 63.5 /
     * 438.2) used one latency for both efficiencies, which made time fall at 1 MiB. */
    infer_env e;
    memset(&e, 0, sizeof e);
    e.prof = *gpuecon_serving_profile_find("vessl-gemma4");
    e.tp = 8;
    double S[] = {672 * 1024.0, 10.5 * 1048576, 84 * 1048576.0};
    struct {
        double link, alpha, t[3];
    } t[] = {{450e9, 10e-6, {23.6, 94.8, 484.2}}, {900e9, 10e-6, {16.9, 65.7, 269.3}},
             {300e9, 12e-6, {30.3, 123.9, 698.3}}};
    for (int i = 0; i < 3; i++) {
        e.link_bps = t[i].link;
        e.ar_latency_s = t[i].alpha;
        for (int j = 0; j < 3; j++)
            assert_close(infer_allreduce_s(&e, S[j]) * 1e6, t[i].t[j], 2e-3);
    }
    /* never falls as the message grows, across the 1 MiB one-shot limit too */
    e.link_bps = 450e9;
    e.ar_latency_s = 10e-6;
    double prev = 0;
    for (double b = 1024; b < 256 * 1048576.0; b *= 1.01) {
        double x = infer_allreduce_s(&e, b);
        assert_true(x >= prev);
        prev = x;
    }
    e.tp = 1;
    assert_true(infer_allreduce_s(&e, S[0]) == 0);
}

static void test_tc9_tp8_vs_tp1(void **state)
{
    (void)state;
    struct {
        const char *sys;
        int tp;
        double c, x, tpot;
    } t[] = {{"hgx-b200", 8, 64, 7800, 8.2},   {"hgx-b200", 1, 64, 6880, 9.3},
             {"hgx-b200", 8, 512, 20414, 25.1}, {"hgx-b200", 1, 512, 34737, 14.7},
             {"hgx-h100", 8, 64, 5427, 0},      {"hgx-h100", 8, 512, 11685, 0},
             {"hgx-h100", 1, 64, 3727, 0},      {"hgx-h100", 1, 512, 17565, 0}};
    /* TP1 rows are the hand-worked TC9. The TP8 rows are the hand-worked steps (C/X: 6.899, 21.59,
     * 9.203, 40.03 ms) with its 120 all-reduces of C·(1 + 230/203)·5376·2 B re-timed by the
     * fastest protocol (test_tc9_allreduce): B200 64: 1.628 → 2.934 ms (LL), 512: 4.625 →
     * 8.115 ms (LL128); H100 64: 2.056 → 4.646, 512: 8.050 → 11.837 ms. TP8 still wins at
     * 64 requests and loses at 512, as the hand-worked case says. */
    for (int i = 0; i < 8; i++) {
        gpuecon_infer_request r = req(t[i].sys, GPUECON_FP8, GPUECON_FP8, 16);
        r.gpus = 8;
        r.tp = t[i].tp;
        gpuecon_infer_point p = at(&r, t[i].c);
        assert_close(p.output_tokens_per_s, t[i].x, MODEL);
        if (t[i].tpot > 0)
            assert_close(p.tpot_ms, t[i].tpot, 0.01);
        if (i == 0) /* 2·60 all-reduces of 136.5 tokens·5376·2 B in LL: 120·24.45 µs */
            assert_close(p.step.comm_s * 1e3, 2.934, MODEL);
    }
}

/* ---- TC10: platform ratios at "default settings" ---------------------------------------- */

static void test_tc10_ratios(void **state)
{
    (void)state;
    double C[] = {64, 125, 256, 1000};
    double xa[] = {486, 486, 486, 486}, xh[] = {1578, 1649, 1650, 1650}, xb[] = {3279, 3603, 3805, 3892};
    double rh[] = {3.25, 3.39, 3.40, 3.40}, rb[] = {6.75, 7.41, 7.83, 8.01};
    for (int i = 0; i < 4; i++) {
        double a = x_at(req("hgx-a100", GPUECON_BF16, GPUECON_BF16, 16), C[i]);
        double h = x_at(req("hgx-h100", GPUECON_FP8, GPUECON_BF16, 16), C[i]);
        double b = x_at(req("hgx-b200", GPUECON_FP8, GPUECON_BF16, 16), C[i]);
        assert_close(a, xa[i], MODEL);
        assert_close(h, xh[i], MODEL);
        assert_close(b, xb[i], MODEL);
        assert_near(h / a, rh[i], 0.02);
        assert_near(b / a, rb[i], 0.02);
        /* the gap, documented (docs/model.md §6.8): the published ratios lie outside ±25% */
        assert_true(10.2 / (b / a) - 1 > 0.25);
        assert_true(6.5 / (h / a) - 1 > 0.25);
    }
    /* A100: KV-bound at 39 sequences, knee 25, X_sat 486 tok/s, TPOT 80 ms */
    gpuecon_infer_request a = req("hgx-a100", GPUECON_BF16, GPUECON_BF16, 16);
    gpuecon_infer_result o = run(&a);
    assert_close(o.seqs_at_mean, 39.0, 2e-3);
    assert_close(o.c_knee, 25, 1e-12);
    assert_close(o.saturated_tokens_per_s, 486, MODEL);
    assert_close(o.at.tpot_run_ms, 80, 0.01);
}

/* ---- MoE with expert parallelism, every catalog model ----------------------------------- */

static void test_moe_serving(void **state)
{
    const gpuecon_model *d = gpuecon_catalog_model(CAT(state), "deepseek-v3");
    gpuecon_infer_request r;
    gpuecon_infer_request_init(&r);
    r.model = d;
    r.system = gpuecon_catalog_system(CAT(state), "hgx-b200");
    r.gpus = r.tp = 8;
    r.weights = GPUECON_FP8;
    r.prompt_len = r.output_len = 200;
    r.prefill_steps = GPUECON_PREFILL_EVEN; /* one step of T tokens (T1) */
    gpuecon_params p;
    gpuecon_model_params(d, &p);
    /* M2 at T = 2 tokens (B = 1): non-expert weights + 58 layers·E(2)·3·7168·2048, fp8, over 8
     * GPUs, plus the bf16 LM head; E(2) = 256·(1 − (1 − 8/256)²) = 15.75 experts */
    gpuecon_infer_point one = at(&r, 1);
    double expert = 3.0 * 7168 * 2048, touched = 256 * (1 - pow(1 - 8.0 / 256, 2));
    double dense = p.attention + p.dense_ffn + p.shared_experts + p.router;
    assert_close(one.step.weight_bytes, (dense + 58 * touched * expert + 2.0 * p.embedding) / 8, 1e-9);
    /* M3: the GEMM FLOPs per token are 2·P_active, not 2·P_total */
    double active = dense + 58 * 8 * expert;
    assert_close(one.step.gemm_flops, (2 * active * 2 + 2 * p.embedding * 1) / 8, 1e-9);
    /* at 512 tokens per step nearly every expert is read */
    gpuecon_infer_point big = at(&r, 256);
    assert_true(big.step.weight_bytes > 5 * one.step.weight_bytes);
    /* experts EP inside the TP group keep the MLP all-reduce (C3): the same communication as
     * tensor-sliced experts (test_infer_moe.c derives it by hand) */
    gpuecon_infer_request tp_only = r;
    tp_only.expert_parallel = false;
    gpuecon_infer_point ep = at(&r, 64), ar = at(&tp_only, 64);
    assert_true(ar.step.comm_s > 0);
    assert_close(ep.step.comm_s, ar.step.comm_s, 1e-12);
    assert_true(run(&r).expert_parallel && !run(&tp_only).expert_parallel);
    /* Qwen3-235B on 8 x H100: fits at TP 8 with fp8 and serves */
    r.model = gpuecon_catalog_model(CAT(state), "qwen3-235b-a22b");
    r.system = gpuecon_catalog_system(CAT(state), "hgx-h100");
    gpuecon_infer_result o = run(&r);
    assert_true(o.output_tokens_per_s > 0 && o.expert_parallel);
}

static void test_every_model(void **state)
{
    const char *systems[] = {"hgx-a100", "hgx-h100", "hgx-b200", "gb200-nvl72", "mi300x-8"};
    size_t n = gpuecon_catalog_count(CAT(state), GPUECON_KIND_MODEL);
    int served = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < 5; s++) {
            gpuecon_infer_request r;
            gpuecon_infer_request_init(&r);
            r.model = gpuecon_catalog_at(CAT(state), GPUECON_KIND_MODEL, i);
            r.system = gpuecon_catalog_system(CAT(state), systems[s]);
            r.gpus = 8;
            r.tp = 0;
            r.weights = GPUECON_FP8;
            r.lora_rank = 8;
            r.draft_k = 1;
            r.acceptance = 0.7;
            r.tco = gpuecon_catalog_profile(CAT(state), "hyperscaler");
            gpuecon_infer_result o;
            gpuecon_error err;
            int rc = gpuecon_infer(&r, &o, &err);
            if (rc == GPUECON_E_INFEASIBLE) {
                assert_true(o.shortfall_gb > 0);
                continue;
            }
            if (rc)
                fail_msg("%s on %s: %s", r.model->name, systems[s], err.message);
            served++;
            assert_true(isfinite(o.output_tokens_per_s) && o.output_tokens_per_s > 0);
            assert_true(o.tpot_ms > 0 && o.ttft_ms > 0 && o.usd_per_mtok > 0);
            assert_true(o.kv_bytes_per_token > 0 && o.kv_capacity_tokens >= 1 && o.max_concurrency >= 1);
            double grid[64];
            size_t g = gpuecon_infer_grid(&o, grid, 64);
            gpuecon_infer_point pts[64];
            assert_true(g >= 1);
            assert_int_equal(gpuecon_infer_sweep(&r, grid, g, pts, &err), GPUECON_OK);
            for (size_t k = 1; k < g; k++) /* more requests never lower the throughput */
                assert_true(pts[k].output_tokens_per_s >= pts[k - 1].output_tokens_per_s * (1 - 1e-9));
        }
    assert_true(served >= 40);
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void expect(gpuecon_infer_request r, int code, const char *where)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    assert_int_equal(gpuecon_infer(&r, &o, &err), code);
    if (where && strcmp(err.where, where) != 0)
        fail_msg("error names '%s', expected '%s' (%s)", err.where, where, err.message);
}

static void test_bad_input(void **state)
{
    gpuecon_infer_request r = req("hgx-h100", GPUECON_FP8, GPUECON_FP8, 0), b;
    b = r, b.gpus = 3, b.tp = 3; /* 3 does not divide 32 heads */
    expect(b, GPUECON_E_INPUT, "options.tp");
    b = r;
    b.model = gpuecon_catalog_model(CAT(state), "llama4-maverick"); /* 40 heads, 8 KV heads */
    b.system = gpuecon_catalog_system(CAT(state), "gb200-nvl72");
    b.gpus = 10, b.tp = 10; /* divides 40 query heads, but 10 > 8 KV heads is not a multiple */
    expect(b, GPUECON_E_INPUT, "options.tp");
    b.gpus = 8, b.tp = 8; /* fine */
    expect(b, GPUECON_OK, NULL);
    b = r, b.gpus = 8, b.tp = 3;
    expect(b, GPUECON_E_INPUT, "options.tp"); /* does not divide the GPUs */
    b = r, b.gpus = 16, b.tp = 16;
    expect(b, GPUECON_E_INPUT, "options.tp"); /* beyond the 8-GPU NVLink domain */
    b = r, b.concurrency = -1;
    expect(b, GPUECON_E_INPUT, "options.concurrency");
    b = r, b.draft_k = 2, b.acceptance = 1.0;
    expect(b, GPUECON_E_INPUT, "options.accept");
    b.acceptance = -0.1;
    expect(b, GPUECON_E_INPUT, "options.accept");
    b.acceptance_is_rate = true, b.acceptance = 1.5;
    expect(b, GPUECON_E_INPUT, "options.accept_rate");
    b = r, b.kv = GPUECON_FP4;
    expect(b, GPUECON_E_INPUT, "options.kv");
    b = r, b.model = gpuecon_catalog_model(CAT(state), "gpt3-175b"), b.prompt_len = 3000;
    expect(b, GPUECON_E_INPUT, "options.prompt_len"); /* context 2048 */
    b.prompt_len = 2000, b.output_len = 100;
    expect(b, GPUECON_E_INPUT, "options.output_len");
    b = r, b.prompt_len = NAN;
    expect(b, GPUECON_E_INPUT, "options.prompt_len");
    /* does not fit: Llama-3-405B bf16 on one H100 needs 2·405.8e9 B of weights alone;
     * shortfall = weights + activations + one request − 0.9·79.65 GiB, in GB */
    b = r, b.model = gpuecon_catalog_model(CAT(state), "llama3-405b"), b.weights = GPUECON_BF16;
    gpuecon_infer_result o;
    gpuecon_error err;
    assert_int_equal(gpuecon_infer(&b, &o, &err), GPUECON_E_INFEASIBLE);
    gpuecon_params p;
    gpuecon_model_params(b.model, &p);
    double w = (p.total - p.norms) * 2, need = w + o.activation_gib * GIB + 126 * 2 * 8 * 128.0 * 2 * 433;
    assert_close(o.shortfall_gb, (need - 0.9 * 79.65 * GIB) / 1e9, 2e-3);
    assert_false(o.fits);
    assert_non_null(strstr(err.message, "GB per GPU short"));
    /* sweep: concurrency 0 is rejected */
    double zero = 0;
    gpuecon_infer_point pt;
    assert_int_equal(gpuecon_infer_sweep(&r, &zero, 1, &pt, &err), GPUECON_E_INPUT);
    assert_int_equal(gpuecon_infer(NULL, &o, &err), GPUECON_E_INPUT);
}

/* E1: the trtllm profile's eta_c 0.54 (fitted on Hopper FP8) moves by the training GEMM
 * fractions of src/model/calib.c (Hopper BF16 0.609 / FP8 0.490, Blackwell BF16 0.575 / FP8 0.463
 * / FP4 0.33, Blackwell Ultra BF16 0.716 / FP8 0.576, Ampere BF16 0.776), attention by the BF16
 * ones; profiles without a reference keep theirs. The
 * RTX PRO 6000 (sm_120) has its own row: BF16 = Hopper's 0.609 x the ratio of the measured
 * torch.matmul BF16 8192^3 fractions, RTX PRO 6000 Server 417.34 / 500 over H100 SXM 797.51 / 989
 * (0.6304), FP8 = 0.805 x BF16 (0.5074), FP4 = 0.85 x FP8 (0.4313), stored to three digits. The
 * MI300X (cdna3) likewise: Hopper's 0.609 x the ratio of the maximum achievable BF16 matmul rates
 * of one benchmark (stas00/ml-engineering, v2 table), MI300X 668.4 / 1307.4 over H100 SXM
 * 794.5 / 989 (0.3876), FP8 0.805 x BF16 (0.3120), attention 0.60 x the same ratio (0.3818). */
static void test_eta_transfer(void **state)
{
    (void)state;
    static const struct {
        const char *system;
        gpuecon_precision w;
        double gemm, attn;
    } t[] = {
        {"hgx-h200", GPUECON_FP8, 0.54, 0.54},
        {"hgx-h200", GPUECON_BF16, 0.54 * 0.609 / 0.490, 0.54},
        {"hgx-b200", GPUECON_FP4, 0.54 * 0.33 / 0.490, 0.54 * 0.575 / 0.609},
        {"hgx-b200", GPUECON_FP8, 0.54 * 0.463 / 0.490, 0.54 * 0.575 / 0.609},
        {"hgx-a100", GPUECON_FP8, 0.54 * 0.776 / 0.490, 0.54 * 0.776 / 0.609}, /* BF16 math on A100 */
        {"rtx-pro-server", GPUECON_FP4, 0.54 * 0.431 / 0.490, 0.54 * 0.630 / 0.609},
        {"rtx-pro-server", GPUECON_FP8, 0.54 * 0.507 / 0.490, 0.54 * 0.630 / 0.609},
        {"mi300x-8", GPUECON_FP8, 0.54 * 0.312 / 0.490, 0.54 * 0.388 / 0.609},
        /* Blackwell Ultra: its own BF16/FP8 fractions (below), Blackwell's FP4, its attention
         * kernels (forwards) 0.773 / 0.60 faster (the exponential unit; test_train.c
         * test_ultra_against_blackwell) */
        {"gb300-nvl72", GPUECON_FP4, 0.54 * 0.33 / 0.490, 0.54 * 0.716 / 0.609 * 0.773 / 0.60},
        {"hgx-b300", GPUECON_FP8, 0.54 * 0.576 / 0.490, 0.54 * 0.716 / 0.609 * 0.773 / 0.60},
    };
    const gpuecon_efficiency *rtx = gpuecon_efficiency_for(gpuecon_catalog_system(g_cat, "rtx-pro-server")->gpu);
    double bf16 = 0.609 * (417.34 / 500) / (797.51 / 989);
    assert_close(rtx->gemm_bf16, bf16, 1.2e-3); /* three digits */
    assert_close(rtx->gemm_fp8, bf16 * 0.805, 1.2e-3);
    assert_close(rtx->gemm_fp4, bf16 * 0.805 * 0.85, 1.2e-3);
    /* Blackwell: the same method on B200 against H100, one benchmark file (zzc0721 database.md
     * @07858687, torch.matmul BF16 8192^3, PyTorch 2.8.0: 1696.03 of 2250, 789.24 of 989) */
    const gpuecon_efficiency *bw = gpuecon_efficiency_for(gpuecon_catalog_system(g_cat, "hgx-b200")->gpu);
    double bwb = 0.609 * (1696.03 / 2250) / (789.24 / 989);
    assert_close(bw->gemm_bf16, bwb, 1.2e-3);
    assert_close(bw->gemm_fp8, bwb * 0.805, 1.2e-3);
    /* Blackwell Ultra: the same method on B300 (Antoniomv7/gb300-microbench gemm_comparison.csv
     * @1c36b44b, cuBLASLt 13.2.0 BF16 8192^3, three campaigns 2106.783179, 2111.534727 and
     * 2110.808330 TFLOPS of 2250) against the same H100 figure */
    const gpuecon_efficiency *ul = gpuecon_efficiency_for(gpuecon_catalog_system(g_cat, "hgx-b300")->gpu);
    double ulb = 0.609 * ((2106.783179 + 2111.534727 + 2110.808330) / 3 / 2250) / (789.24 / 989);
    assert_close(ul->gemm_bf16, ulb, 1.2e-3);
    assert_close(ul->gemm_fp8, ulb * 0.805, 1.2e-3);
    assert_close(ul->gemm_fp4, bw->gemm_fp4, 1e-12);
    const gpuecon_efficiency *mi = gpuecon_efficiency_for(gpuecon_catalog_system(g_cat, "mi300x-8")->gpu);
    double ratio = (668.4 / 1307.4) / (794.5 / 989);
    assert_close(mi->gemm_bf16, 0.609 * ratio, 1.2e-3);
    assert_close(mi->gemm_fp8, 0.609 * ratio * 0.805, 1.2e-3);
    assert_close(mi->attn_flash, 0.60 * ratio, 5e-3); /* two digits */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        gpuecon_infer_request r = req(t[i].system, t[i].w, GPUECON_FP8, 0);
        r.model = gpuecon_catalog_model(g_cat, "llama3-8b");
        r.profile = *gpuecon_serving_profile_find("trtllm");
        gpuecon_infer_result o = run(&r);
        assert_close(o.eta_c, t[i].gemm, 1e-12);
        assert_close(o.eta_attn, t[i].attn, 1e-12);
        r.profile = *gpuecon_serving_profile_find("generic");
        o = run(&r);
        assert_close(o.eta_c, 0.40, 1e-12);
        assert_close(o.eta_attn, 0.40, 1e-12);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tc1_params),     cmocka_unit_test(test_tc1_kv_bytes),
        cmocka_unit_test(test_tc1_moe),        cmocka_unit_test(test_tc2_memory),
        cmocka_unit_test(test_tc3_capacity),   cmocka_unit_test(test_tc3_startup),
        cmocka_unit_test(test_tc4_h100_curve), cmocka_unit_test(test_chunked_lone_prompt),
        cmocka_unit_test(test_budget_bound),
        cmocka_unit_test(test_tc5_b200),
        cmocka_unit_test(test_tc6_spec),       cmocka_unit_test(test_tc7_fp8_kv),
        cmocka_unit_test(test_tc8_lora),       cmocka_unit_test(test_tc9_allreduce),
        cmocka_unit_test(test_tc9_tp8_vs_tp1), cmocka_unit_test(test_tc10_ratios),
        cmocka_unit_test(test_moe_serving),    cmocka_unit_test(test_every_model),
        cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_eta_transfer),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
