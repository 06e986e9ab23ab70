/*
 * test_hf.c — Hugging Face config.json files as models (src/io/hf.c). The fixtures in
 * tests/cases/hf/ are the config.json of public models (their architecture fields as published
 * on the Hugging Face hub); each loads, and its parameter count (gpuecon_model_params) is within
 * 1% of the count its publisher states:
 *   Llama 3.1 8B / 70B   8.03B / 70.6B   (meta-llama/Llama-3.1-8B, -70B model pages, safetensors)
 *   Mistral 7B v0.1      7.24B           (mistralai/Mistral-7B-v0.1 model page, safetensors)
 *   Mixtral 8x7B         46.7B, 12.9B active (Mistral AI, "Mixtral of experts", 11 Dec 2023)
 *   Qwen2.5 7B           7.61B           (Qwen/Qwen2.5-7B model card)
 *   Qwen3 8B             8.2B            (Qwen/Qwen3-8B model card)
 *   Qwen3 30B-A3B        30.5B, 3.3B active (Qwen/Qwen3-30B-A3B model card)
 *   DeepSeek-V3          671B, 37B active (DeepSeek-V3 technical report, arXiv:2412.19437, §1)
 *   Gemma 2 9B           9,242,164,736   (Gemma 2 report, arXiv:2408.00118, Table 2: 917,962,752
 *                                         embedding + 8,324,201,984 non-embedding)
 *   GPT-OSS 120B         116.83B         (OpenAI gpt-oss model card, 5 Aug 2025, Table 1)
 *   Gemma 3 27B          27.43B with the vision encoder (Gemma 3 report, arXiv:2503.19786,
 *                                         Table 1: 417M vision + 1,416M embedding + 25,600M)
 */
#include "test_util.h"

#include <string.h>

typedef struct fixture_hf {
    const char *file;
    const char *name;    /* the model's name: _name_or_path, else the file's stem */
    double total;        /* published parameters (Gemma 3: with the vision encoder) */
    double active;       /* published active parameters, 0: not checked */
    bool with_vision;
    double active_tol;   /* the published active count's own precision (default 1%) */
} fixture_hf;

static const fixture_hf models[] = {
    {"llama-3.1-8b.json", "meta-llama/Llama-3.1-8B", 8.03e9, 0, false, 0},
    {"llama-3.1-70b.json", "meta-llama/Llama-3.1-70B", 70.6e9, 0, false, 0},
    {"mistral-7b-v0.1.json", "mistral-7b-v0.1", 7.24e9, 0, false, 0},
    {"mixtral-8x7b-v0.1.json", "mistralai/Mixtral-8x7B-v0.1", 46.7e9, 12.9e9, false, 0},
    {"qwen2.5-7b.json", "qwen2.5-7b", 7.61e9, 0, false, 0},
    {"qwen3-8b.json", "qwen3-8b", 8.2e9, 0, false, 0},
    /* "3.3B activated" is given to two digits (3.25-3.35B): checked to that precision */
    {"qwen3-30b-a3b.json", "qwen3-30b-a3b", 30.5e9, 3.3e9, false, 0.02},
    /* "37B activated", two digits; the count here includes the input embedding (0.93B) */
    {"deepseek-v3.json", "deepseek-v3", 671e9, 37e9, false, 0.02},
    {"gemma-2-9b.json", "gemma-2-9b", 9242164736.0, 0, false, 0},
    {"gpt-oss-120b.json", "gpt-oss-120b", 116.83e9, 0, false, 0},
    {"gemma-3-27b.json", "gemma-3-27b", 27.433e9, 0, true, 0},
};

static const gpuecon_model *load(void **state, const char *file, gpuecon_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/cases/hf/%s", GPUECON_SOURCE_DIR, file);
    const gpuecon_model *m = NULL;
    int rc = gpuecon_catalog_load_model_file(CAT(state), path, &m, err);
    if (rc)
        print_error("%s: %s:%d:%d: %s\n", file, err->where, err->line, err->column, err->message);
    assert_int_equal(rc, GPUECON_OK);
    assert_non_null(m);
    return m;
}

static void test_published_counts(void **state)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        gpuecon_error err;
        const gpuecon_model *m = load(state, models[i].file, &err);
        assert_string_equal(m->name, models[i].name);
        gpuecon_params p;
        gpuecon_model_params(m, &p);
        double total = p.total + (models[i].with_vision ? p.vision : 0);
        print_message("%-24s %.4g params (published %.4g), active %.4g\n", models[i].file, total, models[i].total,
                      p.active);
        assert_close(total, models[i].total, 0.01);
        if (models[i].active > 0)
            assert_close(p.active, models[i].active, models[i].active_tol > 0 ? models[i].active_tol : 0.01);
    }
}

/* The architecture's layout reaches the model: windows, experts, MLA, tied embeddings. */
static void test_mapping(void **state)
{
    gpuecon_error err;
    const gpuecon_model *g = load(state, "gemma-2-9b.json", &err);
    assert_int_equal(g->ffn, GPUECON_FFN_GEGLU);
    assert_true(g->tied_embeddings);
    assert_int_equal(g->sliding_window, 4096);
    assert_int_equal(g->global_every, 2);
    gpuecon_layer l0, l1;
    gpuecon_model_layer(g, 0, &l0);
    gpuecon_model_layer(g, 1, &l1);
    assert_int_equal(l0.window, 4096); /* Gemma 2: even layers local, odd layers global */
    assert_int_equal(l1.window, 0);
    const gpuecon_model *o = load(state, "gpt-oss-120b.json", &err);
    assert_int_equal(o->experts, 128);
    assert_int_equal(o->top_k, 4);
    assert_int_equal(o->sliding_window, 128);
    assert_int_equal(o->global_every, 2);
    const gpuecon_model *d = load(state, "deepseek-v3.json", &err);
    assert_int_equal(d->attention, GPUECON_ATTN_MLA);
    assert_int_equal(d->dense_layers, 3);
    assert_int_equal(d->shared_experts, 1);
    assert_int_equal(d->kv_lora_rank, 512);
    assert_int_equal(d->mtp_layers, 1);
    const gpuecon_model *g3 = load(state, "gemma-3-27b.json", &err);
    assert_int_equal(g3->global_every, 6);
    assert_close(g3->vision_params, 417e6, 0.03);
    const gpuecon_model *q = load(state, "qwen2.5-7b.json", &err);
    assert_int_equal(q->sliding_window, 0); /* use_sliding_window: false */
    assert_int_equal(q->max_seq, 131072);
}

typedef struct bad {
    const char *text;
    int line;               /* 0: not checked */
    const char *message;    /* a substring */
} bad;

static const bad bads[] = {
    {"{\"architectures\": [\"BertModel\"], \"hidden_size\": 768}", 1,
     "architectures: 'BertModel' is not supported (known: LlamaForCausalLM, MistralForCausalLM"},
    {"{\"model_type\": \"llama\"}", 1, "architectures: none given is not supported"},
    {"{\"architectures\": [\"LlamaForCausalLM\"],\n \"num_hidden_layers\": 32,\n \"num_attention_heads\": 32,\n"
     " \"intermediate_size\": 14336, \"vocab_size\": 128256}",
     1, "hidden_size is required in a LlamaForCausalLM config.json"},
    {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096, \"num_hidden_layers\": 32,\n"
     " \"num_attention_heads\": 32,\n \"num_key_value_heads\": 5, \"intermediate_size\": 14336, \"vocab_size\": 1000}",
     3, "num_key_value_heads (5) must divide num_attention_heads (32)"},
    {"{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
     " \"num_attention_heads\": 32, \"intermediate_size\": 14336, \"vocab_size\": 1000,\n"
     " \"num_local_experts\": 8, \"num_experts_per_tok\": 10}",
     2, "num_experts_per_tok (10) exceeds num_local_experts (8)"},
    {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": \"big\", \"num_hidden_layers\": 32,"
     " \"num_attention_heads\": 32, \"intermediate_size\": 14336, \"vocab_size\": 1000}",
     1, "hidden_size: 'big' is not a whole number"},
    {"{\"architectures\": [\"GptOssForCausalLM\"], \"hidden_size\": 64, \"num_hidden_layers\": 3,"
     " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100, \"num_local_experts\": 4,"
     " \"num_experts_per_tok\": 2, \"sliding_window\": 8,\n"
     " \"layer_types\": [\"full_attention\", \"sliding_attention\", \"full_attention\"]}",
     2, "layer_types: only a regular pattern"},
    {"{\"architectures\": [\"Qwen2ForCausalLM\"], \"hidden_size\": 64, \"num_hidden_layers\": 2,"
     " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100,\n"
     " \"use_sliding_window\": true, \"sliding_window\": 32}",
     2, "use_sliding_window: true is not supported"},
    {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 64, \"num_hidden_layers\": 2,"
     " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100, \"hidden_act\": \"relu\"}",
     1, "hidden_act: 'relu' is not supported for LlamaForCausalLM (expected silu)"},
    /* a scalar where a mapping belongs: libfyaml counts it as -1 items, which once read as SIZE_MAX
     * and looped for ever (the test would hang, not fail: CTest's timeout catches it) */
    {"{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"text_config\": {\"head_dim\": 128,"
     " \"hidden_size\": 5376, \"intermediate_size\": 21504, \"num_attention_heads\": 32, \"num_hidden_layers\": 62,"
     " \"num_key_value_heads\": 16, \"sliding_window\": 1024, \"vocab_size\": 262208},\n \"vision_config\": \"x\"}",
     2, "vision_config must be a mapping"},
    {"{\"architectures\": [\"Gemma3ForConditionalGeneration\"],\n \"text_config\": [1, 2]}", 2,
     "text_config must be a mapping"},
};

static void test_bad_configs(void **state)
{
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        gpuecon_error err;
        const gpuecon_model *m = NULL;
        int rc = gpuecon_catalog_load_model_buffer(CAT(state), "config.json", bads[i].text, strlen(bads[i].text),
                                                   &m, &err);
        if (rc == GPUECON_OK || !strstr(err.message, bads[i].message) || (bads[i].line && err.line != bads[i].line))
            print_error("case %zu: rc %d, %s:%d:%d: %s\n", i, rc, err.where, err.line, err.column, err.message);
        assert_int_equal(rc, GPUECON_E_INPUT);
        assert_null(m);
        assert_string_equal(err.where, "config.json");
        assert_non_null(strstr(err.message, bads[i].message));
        if (bads[i].line)
            assert_int_equal(err.line, bads[i].line);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_counts),
        cmocka_unit_test(test_mapping),
        cmocka_unit_test(test_bad_configs),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
