/*
 * test_catalog.c — the catalog loader: built-in content, provenance of every number,
 * overrides by name, all-or-nothing loads, error locations and messages, allocator balance.
 */
#include "test_util.h"

#include "io/fields.h"

#include <stdlib.h>
#include <string.h>

static int load(gpuecon_catalog *cat, gpuecon_kind kind, const char *yaml, gpuecon_error *err)
{
    return gpuecon_catalog_load_buffer(cat, kind, "t.yaml", yaml, strlen(yaml), err);
}

/* docs/catalog.md's catalog names must all exist. */
static void test_design_names(void **state)
{
    const char *gpus[] = {"a100-80g", "h100-sxm", "h200", "b200", "b300", "gb200", "gb300", "mi300x"};
    const char *systems[] = {"hgx-a100", "hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300",
                             "gb200-nvl72", "gb300-nvl72", "mi300x-8"};
    const char *models[] = {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "nemotron4-340b",
                            "deepseek-v3", "llama4-maverick", "mixtral-8x7b", "qwen3-235b-a22b",
                            "gemma4-31b"};
    for (int i = 0; i < 8; i++) {
        assert_non_null(gpuecon_catalog_gpu(CAT(state), gpus[i]));
        const gpuecon_system *s = gpuecon_catalog_system(CAT(state), systems[i]);
        assert_non_null(s);
        assert_non_null(s->gpu); /* resolved */
    }
    for (int i = 0; i < 10; i++)
        assert_non_null(gpuecon_catalog_model(CAT(state), models[i]));
    assert_non_null(gpuecon_catalog_profile(CAT(state), "hyperscaler"));
    assert_non_null(gpuecon_catalog_profile(CAT(state), "neocloud"));
    assert_int_equal(gpuecon_catalog_system(CAT(state), "gb200-nvl72")->scaleup_gpus, 72);
    assert_int_equal(gpuecon_catalog_system(CAT(state), "hgx-h100")->scaleup_gpus, 8);
}

/* Every number in the built-in catalog carries an explicit source (not the file-name
 * fallback) and a stage. */
static void test_every_number_sourced(void **state)
{
    for (int k = 0; k < GPUECON_KIND_COUNT; k++) {
        for (size_t i = 0; i < gpuecon_catalog_count(CAT(state), (gpuecon_kind)k); i++) {
            const char *origin = gpuecon_catalog_origin(CAT(state), (gpuecon_kind)k, i);
            for (size_t j = 0; j < gpuecon_catalog_field_count((gpuecon_kind)k); j++) {
                gpuecon_field f;
                assert_int_equal(gpuecon_catalog_field_at(CAT(state), (gpuecon_kind)k, i, j, &f), 0);
                if (!f.present)
                    continue;
                if (f.type == GPUECON_FIELD_KEYED) {
                    for (size_t e = 0; e < f.n_keyed; e++)
                        if (!f.keyed[e].source.text || !strcmp(f.keyed[e].source.text, origin))
                            fail_msg("%s %s.%s[%s] has no source", gpuecon_kind_name((gpuecon_kind)k),
                                     gpuecon_catalog_name_at(CAT(state), (gpuecon_kind)k, i), f.name,
                                     f.keyed[e].key);
                    continue;
                }
                if (f.type != GPUECON_FIELD_NUMBER && f.type != GPUECON_FIELD_INTEGER)
                    continue;
                if (!f.source.text || !strcmp(f.source.text, origin) || strlen(f.source.text) < 8)
                    fail_msg("%s %s.%s has no source", gpuecon_kind_name((gpuecon_kind)k),
                             gpuecon_catalog_name_at(CAT(state), (gpuecon_kind)k, i), f.name);
                assert_true(f.source.stage < GPUECON_STAGE_COUNT);
            }
        }
    }
}

static void test_field_provenance(void **state)
{
    gpuecon_field f;
    assert_int_equal(gpuecon_catalog_field(CAT(state), GPUECON_KIND_GPU, "h100-sxm", "hbm_gib", &f), 0);
    assert_int_equal(f.source.stage, GPUECON_STAGE_MEASURED);
    assert_close(f.number, 79.65, 1e-12);
    assert_string_equal(f.unit, "GiB");
    assert_int_equal(gpuecon_catalog_field(CAT(state), GPUECON_KIND_GPU, "h100-sxm", "peak_bf16_tflops", &f), 0);
    assert_int_equal(f.source.stage, GPUECON_STAGE_DATASHEET);
    assert_int_equal(gpuecon_catalog_field(CAT(state), GPUECON_KIND_GPU, "h100-sxm", "nope", &f),
                     GPUECON_E_NOTFOUND);
}

/* src/io/fields.h's typed indices name the schema's fields, and entry->src[index] is the
 * source gpuecon_catalog_field reports for that name (a reordered table fails here). */
static void test_typed_field_indices(void **state)
{
    static const struct {
        gpuecon_kind kind;
        int index;
        const char *name;
    } fields[] = {
        {GPUECON_KIND_SYSTEM, FIELD_SYSTEM_PUE, "pue"},
        {GPUECON_KIND_SYSTEM, FIELD_SYSTEM_CAPEX_USD_PER_GPU, "capex_usd_per_gpu"},
        {GPUECON_KIND_PROFILE, FIELD_PROFILE_ELECTRICITY_USD_PER_KWH, "electricity_usd_per_kwh"},
        {GPUECON_KIND_PROFILE, FIELD_PROFILE_PUE, "pue"},
        {GPUECON_KIND_RELIABILITY, FIELD_RELIABILITY_MTBI_GPU_DAYS, "mtbi_gpu_days"},
    };
    const gpuecon_catalog *cat = CAT(state);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        gpuecon_field f, g;
        assert_int_equal(gpuecon_catalog_field_at(cat, fields[i].kind, 0, (size_t)fields[i].index, &f), 0);
        assert_string_equal(f.name, fields[i].name);
        const char *entry = gpuecon_catalog_name_at(cat, fields[i].kind, 0);
        assert_int_equal(gpuecon_catalog_field(cat, fields[i].kind, entry, fields[i].name, &g), 0);
        const gpuecon_source *src = fields[i].kind == GPUECON_KIND_SYSTEM
                                        ? gpuecon_catalog_system(cat, entry)->src
                                    : fields[i].kind == GPUECON_KIND_PROFILE
                                        ? gpuecon_catalog_profile(cat, entry)->src
                                        : gpuecon_catalog_reliability(cat, entry)->src;
        assert_ptr_equal(src[fields[i].index].text, g.source.text);
        assert_int_equal(src[fields[i].index].stage, g.source.stage);
    }
}

static const char *H100_OVERRIDE =
    "systems:\n"
    "  - name: hgx-h100\n    gpu_name: h100-sxm\n    gpus_per_node: 8\n    scaleup_gpus: 8\n"
    "    scaleup_gbps: 450\n    scaleout_gbps: 50\n    it_w_per_gpu: 1000\n    pue: 1.2\n"
    "    cooling: air\n    capex_usd_per_gpu: 30000\n"
    "  - name: my-h100\n    gpu_name: h100-sxm\n    gpus_per_node: 8\n    scaleup_gpus: 8\n"
    "    scaleup_gbps: 450\n    scaleout_gbps: 50\n    it_w_per_gpu: 1375\n    pue: 1.3\n"
    "    cooling: air\n    capex_usd_per_gpu: 30000\n";

static void test_override_and_add(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), 0);
    size_t n = gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM);
    const gpuecon_system *before = gpuecon_catalog_system(cat, "hgx-h100");
    assert_int_equal(load(cat, GPUECON_KIND_SYSTEM, H100_OVERRIDE, &err), 0);
    assert_int_equal(gpuecon_catalog_count(cat, GPUECON_KIND_SYSTEM), n + 1);
    const gpuecon_system *after = gpuecon_catalog_system(cat, "hgx-h100");
    assert_close(after->it_w_per_gpu, 1000, 0);
    assert_close(before->it_w_per_gpu, 1375, 0); /* the old entry stays valid memory */
    assert_ptr_equal(after->gpu, gpuecon_catalog_gpu(cat, "h100-sxm"));
    /* a user file without sources: the file name, stage assumption */
    gpuecon_field f;
    assert_int_equal(gpuecon_catalog_field(cat, GPUECON_KIND_SYSTEM, "my-h100", "pue", &f), 0);
    assert_string_equal(f.source.text, "t.yaml");
    assert_int_equal(f.source.stage, GPUECON_STAGE_ASSUMPTION);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* A file with an error changes nothing, and the error points at the offending value. */
static void test_all_or_nothing(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), 0);
    const char *yaml = "gpus:\n"
                       "  - name: new-gpu\n    arch: hopper\n    peak_bf16_tflops: 100\n"
                       "    hbm_gib: 80\n    hbm_tbps: 2\n    tdp_w: 500\n"
                       "  - name: bad-gpu\n    arch: hopper\n    peak_bf16_tflops: 100\n"
                       "    hbm_gib: 80\n    hbm_tbps: -2\n    tdp_w: 500\n";
    assert_int_equal(load(cat, GPUECON_KIND_GPU, yaml, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "t.yaml");
    assert_int_equal(err.line, 12);
    assert_int_equal(err.column, 15);
    assert_non_null(strstr(err.message, "hbm_tbps: -2 is out of range; allowed 0.1 to 100"));
    assert_null(gpuecon_catalog_gpu(cat, "new-gpu"));
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

typedef struct bad_case {
    gpuecon_kind kind;
    const char *yaml;
    int code, line;
    const char *msg;
} bad_case;

static void test_error_messages(void **state)
{
    static const bad_case cases[] = {
        {GPUECON_KIND_GPU, "gpus:\n  - name: x\n    arch: hoppr\n", GPUECON_E_INPUT, 3,
         "arch: 'hoppr' is not allowed; did you mean 'hopper'?"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: x\n    arch: hopper\n    peak_bf16_tflop: 1\n",
         GPUECON_E_PARSE, 4, "unknown field 'peak_bf16_tflop'; did you mean 'peak_bf16_tflops'?"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: x\n    arch: hopper\n", GPUECON_E_PARSE, 2,
         "missing required field 'peak_bf16_tflops'"},
        {GPUECON_KIND_GPU, "gpu:\n  - name: x\n", GPUECON_E_PARSE, 1, "expected one top-level key 'gpus:'"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: &a x\n", GPUECON_E_PARSE, 2, "anchors and aliases"},
        {GPUECON_KIND_GPU, "gpus: [\n", GPUECON_E_PARSE, 2, "invalid YAML"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: x\n    arch: hopper\n    peak_bf16_tflops: .nan\n",
         GPUECON_E_PARSE, 4, "is not a finite number"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: 'bad name!'\n", GPUECON_E_INPUT, 2, "is not allowed"},
        /* invalid UTF-8 in a directive made libfyaml loop forever (found by fuzzing) */
        {GPUECON_KIND_GPU, "# x\n%layers: e=c \x9a\x8ct\n", GPUECON_E_PARSE, 2, "byte 0x9a is not valid UTF-8"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: \xed\xa0\x80\n", GPUECON_E_PARSE, 2, "byte 0xed is not valid UTF-8"},
        {GPUECON_KIND_GPU, "gpus:\n  - name: x\n    stage: guessed\n", GPUECON_E_INPUT, 3,
         "stage: 'guessed' is not allowed"},
        {GPUECON_KIND_SYSTEM,
         "systems:\n  - name: s\n    gpu_name: h100-sx\n    gpus_per_node: 8\n    scaleup_gpus: 8\n"
         "    scaleup_gbps: 450\n    scaleout_gbps: 50\n    it_w_per_gpu: 1375\n    pue: 1.3\n"
         "    cooling: air\n    capex_usd_per_gpu: 1000\n",
         GPUECON_E_INPUT, 3, "unknown gpu 'h100-sx'; did you mean 'h100-sxm'?"},
        {GPUECON_KIND_SYSTEM,
         "systems:\n  - name: s\n    gpu_name: h100-sxm\n    gpus_per_node: 8\n    scaleup_gpus: 12\n"
         "    scaleup_gbps: 450\n    scaleout_gbps: 50\n    it_w_per_gpu: 1375\n    pue: 1.3\n"
         "    cooling: air\n    capex_usd_per_gpu: 1000\n",
         GPUECON_E_INPUT, 5, "scaleup_gpus (12) must be a multiple of gpus_per_node (8)"},
        {GPUECON_KIND_MODEL,
         "models:\n  - name: m\n    layers: 2\n    hidden: 64\n    heads: 4\n    vocab: 10\n"
         "  - name: m\n    layers: 2\n    hidden: 64\n    heads: 4\n    vocab: 10\n",
         GPUECON_E_INPUT, 7, "model 'm' is defined twice in this file"},
        {GPUECON_KIND_MODEL,
         "models:\n  - name: m\n    layers: 2\n    hidden: 64\n    heads: 4\n    vocab: 10\n"
         "    experts: 8\n    top_k: 9\n",
         GPUECON_E_INPUT, 8, "top_k (9) must be between 1 and experts (8)"},
        {GPUECON_KIND_MODEL,
         "models:\n  - name: m\n    layers: 2\n    hidden: 60\n    heads: 7\n    vocab: 10\n",
         GPUECON_E_INPUT, 5, "heads (7) must divide hidden (60) unless head_dim is given"},
        {GPUECON_KIND_MODEL,
         "models:\n  - name: m\n    layers: 2\n    hidden: 64\n    heads: 4\n    vocab: 10\n"
         "    attention: mla\n",
         GPUECON_E_INPUT, 7, "attention mla needs kv_lora_rank"},
        {GPUECON_KIND_MODEL,
         "models:\n  - name: m\n    layers: 2.5\n    hidden: 64\n    heads: 4\n    vocab: 10\n",
         GPUECON_E_INPUT, 3, "layers: 2.5 is not a whole number"},
        {GPUECON_KIND_PROFILE,
         "profiles:\n  - name: p\n    colo_usd_per_kw_month: 100\n    electricity_usd_per_kwh: -0.1\n"
         "    pue: 1.3\n",
         GPUECON_E_INPUT, 4, "electricity_usd_per_kwh: -0.1 is out of range"},
        {GPUECON_KIND_PROFILE,
         "profiles:\n  - name: p\n    colo_usd_per_kw_month: 100\n    electricity_usd_per_kwh: 0.1\n"
         "    pue: 1.3\n    published_usd_per_gpu_hour: {hgx-h10: 1.0}\n",
         GPUECON_E_INPUT, 6, "did you mean 'hgx-h100'"},
    };
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), 0);
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuecon_error_clear(&err);
        int rc = load(cat, cases[i].kind, cases[i].yaml, &err);
        if (rc != cases[i].code || err.line != cases[i].line || !strstr(err.message, cases[i].msg))
            fail_msg("case %zu: rc %d line %d msg '%s'; expected rc %d line %d '%s'", i, rc, err.line,
                     err.message, cases[i].code, cases[i].line, cases[i].msg);
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

static void test_find_suggests(void **state)
{
    gpuecon_error err;
    const void *out;
    assert_int_equal(gpuecon_catalog_find(CAT(state), GPUECON_KIND_MODEL, "llama3-70", "--model", &out, &err),
                     GPUECON_E_NOTFOUND);
    assert_null(out);
    assert_string_equal(err.where, "--model");
    assert_non_null(strstr(err.message, "did you mean 'llama3-70b'"));
    assert_int_equal(gpuecon_catalog_find(CAT(state), GPUECON_KIND_MODEL, "zzzzzzzzzz", "--model", &out, &err),
                     GPUECON_E_NOTFOUND);
    assert_null(strstr(err.message, "did you mean"));
    assert_non_null(strstr(err.message, "known: gpt3-175b"));
    const char *cands[] = {"hgx-h100", "hgx-h200", "gb200-nvl72"};
    assert_string_equal(gpuecon_suggest("hgx-h10", cands, 3), "hgx-h100");
    assert_string_equal(gpuecon_suggest("gb200", cands, 3), "gb200-nvl72");
    assert_null(gpuecon_suggest("xyz", cands, 3));
}

/* A file larger than the context's limit is refused before it is parsed. */
static void test_size_cap(void **state)
{
    (void)state;
    char path[] = "/tmp/gpuecon-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("gpus:\n", f);
    for (int i = 0; i < 200; i++)
        fputs("# padding padding padding padding padding padding padding\n", f);
    fclose(f);
    gpuecon_ctx_config cfg = {0};
    cfg.max_file_bytes = 4096;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), 0);
    assert_int_equal(gpuecon_catalog_load_file(cat, GPUECON_KIND_GPU, path, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "4096-byte limit"));
    assert_int_equal(gpuecon_catalog_load_file(cat, GPUECON_KIND_GPU, "/nonexistent.yaml", &err), GPUECON_E_IO);
    assert_int_equal(gpuecon_catalog_load_dir(cat, "/tmp/gpuecon-no-such-dir", &err), GPUECON_E_IO);
    remove(path);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
}

/* Every byte the library allocates through the context is given back. */
static size_t live_bytes;
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (ptr)
        live_bytes -= osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        live_bytes += nsize;
    return p;
}

static void test_allocator_balance(void **state)
{
    (void)state;
    gpuecon_ctx_config cfg = {0};
    cfg.alloc = counting_alloc;
    live_bytes = 0;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    gpuecon_catalog *cat;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_new(ctx, &cat, &err), 0);
    assert_int_equal(load(cat, GPUECON_KIND_SYSTEM, H100_OVERRIDE, &err), 0);
    assert_int_not_equal(load(cat, GPUECON_KIND_GPU, "gpus: [\n", &err), 0);
    assert_true(live_bytes > 0);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    assert_int_equal(live_bytes, 0);
    gpuecon_catalog_free(NULL);
    gpuecon_ctx_free(NULL);
}

/* docs/catalog.md documents every field of the GPU, system, profile and model kinds. */
static void test_docs_cover_fields(void **state)
{
    (void)state;
    FILE *f = fopen(GPUECON_SOURCE_DIR "/docs/catalog.md", "rb");
    assert_non_null(f);
    static char doc[1 << 17];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    for (int k = GPUECON_KIND_GPU; k <= GPUECON_KIND_MODEL; k++) {
        for (size_t j = 0; j < gpuecon_catalog_field_count((gpuecon_kind)k); j++) {
            gpuecon_field fld;
            assert_int_equal(gpuecon_catalog_field_at(CAT(state), (gpuecon_kind)k, 0, j, &fld), 0);
            char needle[80];
            snprintf(needle, sizeof needle, "`%s`", fld.name);
            if (!strstr(doc, needle))
                fail_msg("docs/catalog.md does not document %s.%s", gpuecon_kind_name((gpuecon_kind)k),
                         fld.name);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_names),     cmocka_unit_test(test_every_number_sourced),
        cmocka_unit_test(test_field_provenance), cmocka_unit_test(test_typed_field_indices),
        cmocka_unit_test(test_override_and_add),
        cmocka_unit_test(test_all_or_nothing),   cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_find_suggests),    cmocka_unit_test(test_size_cap),
        cmocka_unit_test(test_allocator_balance), cmocka_unit_test(test_docs_cover_fields),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
