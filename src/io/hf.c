/*
 * hf.c — a Hugging Face config.json as a model: the architecture fields of the common
 * decoder families mapped onto the model-file format (docs/catalog.md), so that
 * `--model-file config.json` loads like a model file and through the same checks.
 *
 * Field names are those of the transformers configuration classes (LlamaConfig, MistralConfig,
 * MixtralConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig, DeepseekV3Config, Gemma2Config,
 * Gemma3TextConfig, GptOssConfig in huggingface/transformers, src/transformers/models/<name>/
 * configuration_<name>.py). Missing or contradictory fields are reported by their config.json
 * name at their position; any other architecture is refused with the list of known ones.
 */
#include "io/io.h"
#include "hf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { MOE_NONE, MOE_MIXTRAL, MOE_QWEN3, MOE_DEEPSEEK, MOE_GPTOSS } moe_kind;
typedef enum { WIN_NONE, WIN_ALL, WIN_QWEN, WIN_ALTERNATE, WIN_PATTERN, WIN_TYPES } win_kind;

typedef struct arch {
    const char *name;
    moe_kind moe;
    win_kind win;
    bool gemma;       /* GeGLU, tied embeddings by default */
    bool text_config; /* the language model's fields sit under "text_config" */
} arch;

static const arch archs[] = {
    {"LlamaForCausalLM", MOE_NONE, WIN_NONE, false, false},
    {"MistralForCausalLM", MOE_NONE, WIN_ALL, false, false},
    {"MixtralForCausalLM", MOE_MIXTRAL, WIN_ALL, false, false},
    {"Qwen2ForCausalLM", MOE_NONE, WIN_QWEN, false, false},
    {"Qwen3ForCausalLM", MOE_NONE, WIN_QWEN, false, false},
    {"Qwen3MoeForCausalLM", MOE_QWEN3, WIN_QWEN, false, false},
    {"DeepseekV3ForCausalLM", MOE_DEEPSEEK, WIN_NONE, false, false},
    {"Gemma2ForCausalLM", MOE_NONE, WIN_ALTERNATE, true, false},
    {"Gemma3ForCausalLM", MOE_NONE, WIN_PATTERN, true, false},
    {"Gemma3ForConditionalGeneration", MOE_NONE, WIN_PATTERN, true, true},
    {"GptOssForCausalLM", MOE_GPTOSS, WIN_TYPES, false, false},
};
#define N_ARCHS (sizeof archs / sizeof archs[0])

typedef struct hf {
    const yaml_doc *doc;
    ynode *top, *cfg; /* the file's root, and the language model's mapping */
    const arch *a;
    gpuecon_error *err;
    strbuf *out;
} hf;

bool hf_is_config(const yaml_doc *doc)
{
    ynode *r = yaml_root(doc);
    return r && yaml_type(r) == Y_MAP && (yaml_map_get(r, "architectures") || yaml_map_get(r, "model_type"));
}

/* The value of key in the config, NULL when absent or null. */
static ynode *get(const hf *h, ynode *map, const char *key)
{
    ynode *v = yaml_map_get(map, key);
    if (v && yaml_type(v) == Y_SCALAR) {
        size_t n;
        const char *s = yaml_scalar(v, &n);
        if (s && n == 4 && !memcmp(s, "null", 4))
            return NULL;
    }
    (void)h;
    return v;
}

static int need(const hf *h, ynode *map, const char *key)
{
    return yaml_error(h->doc, map, h->err, GPUECON_E_INPUT, "%s is required in a %s config.json", key, h->a->name);
}

/* An integer field in [lo, hi]: 0 and *v untouched when absent (an error when required). */
static int get_int(const hf *h, ynode *map, const char *key, bool required, long lo, long hi, int *v)
{
    ynode *n = get(h, map, key);
    if (!n)
        return required ? need(h, map, key) : 0;
    char buf[64], *end;
    if (yaml_type(n) != Y_SCALAR || !yaml_scalar_copy(n, buf, sizeof buf))
        return yaml_error(h->doc, n, h->err, GPUECON_E_INPUT, "%s: expected a whole number", key);
    long x = strtol(buf, &end, 10);
    if (end == buf || *end)
        return yaml_error(h->doc, n, h->err, GPUECON_E_INPUT, "%s: '%s' is not a whole number", key, buf);
    if (x < lo || x > hi)
        return yaml_error(h->doc, n, h->err, GPUECON_E_INPUT, "%s: %ld is out of range; allowed %ld to %ld", key,
                          x, lo, hi);
    *v = (int)x;
    return 0;
}

static int get_bool(const hf *h, ynode *map, const char *key, bool *v)
{
    ynode *n = get(h, map, key);
    if (!n)
        return 0;
    char buf[16];
    if (yaml_type(n) == Y_SCALAR && yaml_scalar_copy(n, buf, sizeof buf) && (!strcmp(buf, "true") || !strcmp(buf, "false"))) {
        *v = buf[0] == 't';
        return 0;
    }
    return yaml_error(h->doc, n, h->err, GPUECON_E_INPUT, "%s: expected true or false", key);
}

static int get_text(const hf *h, ynode *map, const char *key, char *buf, size_t cap)
{
    ynode *n = get(h, map, key);
    buf[0] = '\0';
    if (n && (yaml_type(n) != Y_SCALAR || !yaml_scalar_copy(n, buf, cap)))
        return yaml_error(h->doc, n, h->err, GPUECON_E_INPUT, "%s: expected a string", key);
    return 0;
}

/* The architecture: the first entry of "architectures" (a known one, or an error listing them). */
static int find_arch(hf *h)
{
    ynode *as = yaml_map_get(h->top, "architectures");
    char name[128] = "";
    if (as && yaml_type(as) == Y_SEQ && yaml_seq_len(as) > 0)
        yaml_scalar_copy(yaml_seq_at(as, 0), name, sizeof name);
    for (size_t i = 0; i < N_ARCHS; i++)
        if (name[0] && !strcmp(name, archs[i].name)) {
            h->a = &archs[i];
            return 0;
        }
    char list[1024] = "";
    for (size_t i = 0; i < N_ARCHS; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, archs[i].name, sizeof list - strlen(list) - 1);
    }
    return yaml_error(h->doc, as ? as : h->top, h->err, GPUECON_E_INPUT,
                      "architectures: %s%s%s is not supported (known: %s); write a model file instead (docs/catalog.md)",
                      name[0] ? "'" : "", name[0] ? name : "none given", name[0] ? "'" : "", list);
}

/* The sliding-window layout from "layer_types" (sliding_attention / full_attention per layer):
 * *every = n when exactly the layers with (i+1) % n == 0 are full, 0 when none is; *window_off
 * when all are full. */
static int layer_types(const hf *h, int layers, int *every, bool *window_off)
{
    ynode *t = get(h, h->cfg, "layer_types");
    if (!t)
        return 1; /* absent */
    if (yaml_type(t) != Y_SEQ || (int)yaml_seq_len(t) != layers)
        return yaml_error(h->doc, t, h->err, GPUECON_E_INPUT,
                          "layer_types: expected one entry per layer (num_hidden_layers is %d)", layers);
    int first_full = -1, n_full = 0;
    for (int i = 0; i < layers; i++) {
        char s[32] = "";
        yaml_scalar_copy(yaml_seq_at(t, (size_t)i), s, sizeof s);
        bool full = !strcmp(s, "full_attention");
        if (!full && strcmp(s, "sliding_attention"))
            return yaml_error(h->doc, yaml_seq_at(t, (size_t)i), h->err, GPUECON_E_INPUT,
                              "layer_types: '%s' is not allowed (allowed: sliding_attention, full_attention)", s);
        if (full && first_full < 0)
            first_full = i;
        n_full += full;
    }
    *window_off = n_full == layers;
    *every = first_full < 0 ? 0 : first_full + 1;
    for (int i = 0; i < layers && *every && !*window_off; i++) {
        char s[32] = "";
        yaml_scalar_copy(yaml_seq_at(t, (size_t)i), s, sizeof s);
        if (!strcmp(s, "full_attention") != ((i + 1) % *every == 0))
            return yaml_error(h->doc, t, h->err, GPUECON_E_INPUT,
                              "layer_types: only a regular pattern (every n-th layer full) is supported");
    }
    return 0;
}

/* The attention window: sliding_window and global_every of the model file. */
static int window(const hf *h, int layers)
{
    int w = 0, every = 0;
    bool off = false, qwen_on = false;
    int rc = get_int(h, h->cfg, "sliding_window", false, 1, 100000000, &w);
    if (rc)
        return rc;
    switch (h->a->win) {
    case WIN_NONE: w = 0; break;
    case WIN_ALL: break;
    case WIN_QWEN:
        if ((rc = get_bool(h, h->cfg, "use_sliding_window", &qwen_on)))
            return rc;
        if (qwen_on)
            return yaml_error(h->doc, yaml_map_get(h->cfg, "use_sliding_window"), h->err, GPUECON_E_INPUT,
                              "use_sliding_window: true is not supported (window on the upper layers only)");
        w = 0;
        break;
    case WIN_ALTERNATE: /* Gemma 2: even layers local, odd layers global */
    case WIN_PATTERN:   /* Gemma 3: sliding_window_pattern - 1 local, then one global */
    case WIN_TYPES:
        rc = layer_types(h, layers, &every, &off);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            if (h->a->win == WIN_TYPES)
                return need(h, h->cfg, "layer_types");
            every = 2;
            if (h->a->win == WIN_PATTERN) {
                every = 6;
                if ((rc = get_int(h, h->cfg, "sliding_window_pattern", false, 1, 1000, &every)))
                    return rc;
            }
        }
        if (off)
            w = 0;
        else if (!w)
            return need(h, h->cfg, "sliding_window");
        break;
    }
    if (w)
        sb_printf(h->out, "sliding_window: %d\nglobal_every: %d\n", w, every);
    return 0;
}

/* Mixture of experts: experts, top_k, expert sizes, dense leading layers. */
static int experts(const hf *h, int layers, int ffn)
{
    int e = 0, k = 0, size = ffn, shared = 0, dense = 0, every = 1, rc;
    const char *ekey = "num_local_experts";
    switch (h->a->moe) {
    case MOE_NONE: return 0;
    case MOE_MIXTRAL:
    case MOE_GPTOSS: break;
    case MOE_QWEN3: ekey = "num_experts"; break;
    case MOE_DEEPSEEK: ekey = "n_routed_experts"; break;
    }
    if ((rc = get_int(h, h->cfg, ekey, true, 1, 100000, &e)) ||
        (rc = get_int(h, h->cfg, "num_experts_per_tok", h->a->moe != MOE_GPTOSS, 1, 100000, &k)))
        return rc;
    if (!k && (rc = get_int(h, h->cfg, "experts_per_token", true, 1, 100000, &k)))
        return rc;
    if (k > e)
        return yaml_error(h->doc, yaml_map_get(h->cfg, "num_experts_per_tok"), h->err, GPUECON_E_INPUT,
                          "num_experts_per_tok (%d) exceeds %s (%d)", k, ekey, e);
    if (h->a->moe == MOE_QWEN3 || h->a->moe == MOE_DEEPSEEK)
        if ((rc = get_int(h, h->cfg, "moe_intermediate_size", true, 1, 10000000, &size)))
            return rc;
    if (h->a->moe == MOE_QWEN3) {
        if ((rc = get_int(h, h->cfg, "decoder_sparse_step", false, 1, 1000, &every)))
            return rc;
        ynode *only = get(h, h->cfg, "mlp_only_layers");
        if (only && yaml_type(only) == Y_SEQ) {
            dense = (int)yaml_seq_len(only);
            for (int i = 0; i < dense; i++) {
                char s[16] = "";
                yaml_scalar_copy(yaml_seq_at(only, (size_t)i), s, sizeof s);
                if (atoi(s) != i || !s[0])
                    return yaml_error(h->doc, only, h->err, GPUECON_E_INPUT,
                                      "mlp_only_layers: only leading dense layers (0, 1, ...) are supported");
            }
        }
    }
    if (h->a->moe == MOE_DEEPSEEK &&
        ((rc = get_int(h, h->cfg, "n_shared_experts", false, 0, 1000, &shared)) ||
         (rc = get_int(h, h->cfg, "first_k_dense_replace", false, 0, 1000, &dense)) ||
         (rc = get_int(h, h->cfg, "moe_layer_freq", false, 1, 1000, &every))))
        return rc;
    if (dense >= layers)
        return yaml_error(h->doc, h->cfg, h->err, GPUECON_E_INPUT,
                          "%d leading dense layers leave no MoE layer (num_hidden_layers is %d)", dense, layers);
    sb_printf(h->out, "experts: %d\ntop_k: %d\nexpert_ffn_hidden: %d\ndense_layers: %d\nmoe_every: %d\n", e, k, size,
            dense, every);
    if (shared)
        sb_printf(h->out, "shared_experts: %d\nshared_ffn_hidden: %d\n", shared, size);
    return 0;
}

/* DeepSeek's multi-head latent attention and multi-token prediction. */
static int mla(const hf *h)
{
    int q = 0, kv = 0, nope = 0, rope = 0, v = 0, mtp = 0, rc;
    if ((rc = get_int(h, h->cfg, "q_lora_rank", false, 1, 100000, &q)) ||
        (rc = get_int(h, h->cfg, "kv_lora_rank", true, 1, 100000, &kv)) ||
        (rc = get_int(h, h->cfg, "qk_nope_head_dim", true, 1, 100000, &nope)) ||
        (rc = get_int(h, h->cfg, "qk_rope_head_dim", true, 1, 100000, &rope)) ||
        (rc = get_int(h, h->cfg, "v_head_dim", true, 1, 100000, &v)) ||
        (rc = get_int(h, h->cfg, "num_nextn_predict_layers", false, 0, 16, &mtp)))
        return rc;
    sb_printf(h->out, "attention: mla\nq_lora_rank: %d\nkv_lora_rank: %d\nqk_nope_head_dim: %d\nqk_rope_head_dim: %d\n"
                    "v_head_dim: %d\nmtp_layers: %d\n",
            q, kv, nope, rope, v, mtp);
    return 0;
}

/* Gemma 3's SigLIP vision tower and projector, counted from vision_config (SiglipVisionModel
 * and Gemma3MultiModalProjector in transformers: q/k/v/out and fc1/fc2 with biases, two
 * LayerNorms per layer, the patch convolution, learned positions, the post-LayerNorm, and the
 * projection to the text width with its RMSNorm). */
static int vision(const hf *h, int text_hidden)
{
    ynode *v = get(h, h->top, "vision_config");
    if (!v)
        return 0;
    if (yaml_type(v) != Y_MAP)
        return yaml_error(h->doc, v, h->err, GPUECON_E_INPUT,
                          "vision_config must be a mapping of the vision tower's fields (hidden_size, "
                          "intermediate_size, num_hidden_layers, patch_size, image_size) or null");
    int vh = 0, vi = 0, vl = 0, patch = 0, image = 0, rc;
    hf hv = *h;
    hv.cfg = v;
    if ((rc = get_int(&hv, v, "hidden_size", true, 1, 1000000, &vh)) ||
        (rc = get_int(&hv, v, "intermediate_size", true, 1, 10000000, &vi)) ||
        (rc = get_int(&hv, v, "num_hidden_layers", true, 1, 1000, &vl)) ||
        (rc = get_int(&hv, v, "patch_size", true, 1, 1024, &patch)) ||
        (rc = get_int(&hv, v, "image_size", true, 1, 100000, &image)))
        return rc;
    double H = vh, I = vi, P = patch, S = (double)(image / patch) * (image / patch);
    double layer = 4 * (H * H + H) + 2 * H * I + I + H + 4 * H;
    double params = vl * layer + 3 * P * P * H + H + S * H + 2 * H + H * text_hidden + H;
    sb_printf(h->out, "vision_params: %.0f\n", params);
    return 0;
}

/* The activation: GeGLU for Gemma, SwiGLU (silu) for the others. */
static int activation(const hf *h)
{
    char act[64];
    int rc = get_text(h, h->cfg, h->a->gemma ? "hidden_activation" : "hidden_act", act, sizeof act);
    if (rc)
        return rc;
    if (!act[0] && h->a->gemma && (rc = get_text(h, h->cfg, "hidden_act", act, sizeof act)))
        return rc;
    bool gelu = !strncmp(act, "gelu", 4), silu = !strcmp(act, "silu") || !strcmp(act, "swish");
    if (act[0] && !(h->a->gemma ? gelu : silu))
        return yaml_error(h->doc, yaml_map_get(h->cfg, h->a->gemma ? "hidden_activation" : "hidden_act"), h->err,
                          GPUECON_E_INPUT, "%s: '%s' is not supported for %s (expected %s)",
                          h->a->gemma ? "hidden_activation" : "hidden_act", act, h->a->name,
                          h->a->gemma ? "gelu_pytorch_tanh" : "silu");
    sb_printf(h->out, "ffn: %s\n", h->a->gemma ? "geglu" : "swiglu");
    return 0;
}

/* The model's name: _name_or_path, else the file's stem (its folder's name for config.json). */
static void model_name(const hf *h, const char *path, char *buf, size_t cap)
{
    if (!get_text(h, h->top, "_name_or_path", buf, cap) && buf[0])
        return;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n == 6 && !strncmp(base, "config", 6) && base != path) {
        const char *end = base - 1, *start = end;
        while (start > path && start[-1] != '/')
            start--;
        if (end > start) {
            base = start;
            n = (size_t)(end - start);
        }
    }
    snprintf(buf, cap, "%.*s", (int)n, base);
}

static void yaml_quoted(strbuf *f, const char *s)
{
    sb_putc(f, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putc(f, '\\');
        sb_putc(f, *s);
    }
    sb_putc(f, '"');
}

static int body(hf *h, const char *path)
{
    int layers = 0, hidden = 0, heads = 0, kv = 0, hd = 0, ffn = 0, vocab = 0, max_seq = 0, rc;
    bool tied = h->a->gemma;
    bool dense_ffn = h->a->moe == MOE_NONE || h->a->moe == MOE_DEEPSEEK;
    if ((rc = get_int(h, h->cfg, "num_hidden_layers", true, 1, 1000, &layers)) ||
        (rc = get_int(h, h->cfg, "hidden_size", true, 1, 1000000, &hidden)) ||
        (rc = get_int(h, h->cfg, "num_attention_heads", true, 1, 10000, &heads)) ||
        (rc = get_int(h, h->cfg, "num_key_value_heads", false, 1, 10000, &kv)) ||
        (rc = get_int(h, h->cfg, "head_dim", false, 1, 100000, &hd)) ||
        (rc = get_int(h, h->cfg, "intermediate_size", dense_ffn || h->a->moe != MOE_QWEN3, 1, 10000000, &ffn)) ||
        (rc = get_int(h, h->cfg, "vocab_size", true, 1, 100000000, &vocab)) ||
        (rc = get_int(h, h->cfg, "max_position_embeddings", false, 0, 100000000, &max_seq)) ||
        (rc = get_bool(h, h->cfg, "tie_word_embeddings", &tied)) ||
        (!tied && (rc = get_bool(h, h->top, "tie_word_embeddings", &tied))))
        return rc;
    if (kv && heads % kv)
        return yaml_error(h->doc, yaml_map_get(h->cfg, "num_key_value_heads"), h->err, GPUECON_E_INPUT,
                          "num_key_value_heads (%d) must divide num_attention_heads (%d)", kv, heads);
    if (!hd && h->a->moe != MOE_DEEPSEEK && hidden % heads)
        return yaml_error(h->doc, yaml_map_get(h->cfg, "num_attention_heads"), h->err, GPUECON_E_INPUT,
                          "num_attention_heads (%d) must divide hidden_size (%d) when head_dim is not given", heads,
                          hidden);
    char name[256];
    model_name(h, path, name, sizeof name);
    sb_puts(h->out, "name: ");
    yaml_quoted(h->out, name);
    sb_puts(h->out, "\nsource: ");
    char src[600];
    snprintf(src, sizeof src, "Hugging Face config.json %s (%s)", path, h->a->name);
    yaml_quoted(h->out, src);
    sb_printf(h->out, "\nstage: publisher-reported\nlayers: %d\nhidden: %d\nheads: %d\nkv_heads: %d\nvocab: %d\n"
                    "tied_embeddings: %s\nmax_seq: %d\n",
            layers, hidden, heads, kv ? kv : heads, vocab, tied ? "true" : "false", max_seq);
    if (hd)
        sb_printf(h->out, "head_dim: %d\n", hd);
    if (ffn && (dense_ffn || h->a->moe == MOE_QWEN3))
        sb_printf(h->out, "ffn_hidden: %d\n", ffn);
    if ((rc = activation(h)) || (rc = window(h, layers)) || (rc = experts(h, layers, ffn)))
        return rc;
    if (h->a->moe == MOE_DEEPSEEK && (rc = mla(h)))
        return rc;
    if (h->a->text_config && (rc = vision(h, hidden)))
        return rc;
    return 0;
}

int hf_model_yaml(gpuecon_ctx *ctx, const yaml_doc *doc, const char *path, strbuf *yaml, gpuecon_error *err)
{
    bool oom = false;
    sb_init(yaml, ctx, &oom);
    hf h = {doc, yaml_root(doc), yaml_root(doc), NULL, err, NULL};
    int rc = find_arch(&h);
    if (rc)
        return rc;
    if (h.a->text_config) {
        h.cfg = get(&h, h.top, "text_config");
        if (!h.cfg)
            return need(&h, h.top, "text_config");
        if (yaml_type(h.cfg) != Y_MAP)
            return yaml_error(h.doc, h.cfg, err, GPUECON_E_INPUT,
                              "text_config must be a mapping of the language model's fields");
    }
    h.out = yaml;
    rc = body(&h, path);
    if (oom && !rc)
        rc = err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
    if (rc)
        sb_free(yaml);
    yaml->oom = NULL; /* the flag was this function's */
    return rc;
}
