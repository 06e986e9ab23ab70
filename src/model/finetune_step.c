/*
 * finetune_step.c — the kernels of one fine-tuning step as a framework stack launches them
 * (docs/model.md §6.9, "Stacks"): every kernel takes max(its GPU time, the host time to launch it).
 *
 * The inventory is counted per layer from the model's structure and the stack's facts:
 *   - eager PyTorch runs every elementwise op of a module as its own kernel, each a pass over
 *     HBM (Hugging Face Gemma3RMSNorm: x.float(), pow, mean, + eps, rsqrt, mul, weight.float(),
 *     1 + w, mul, type_as — ten kernels forward); torch.compile (Inductor) fuses each chain
 *     into one kernel forward and two backward ("fusing operations to cut memory bandwidth
 *     usage", Hugging Face transformers docs, torch_compile);
 *   - a PEFT LoRA adapter (huggingface/peft @ 00336949 src/peft/tuners/lora/layer.py,
 *     Linear.forward: `x = self._cast_input_dtype(x, lora_A.weight.dtype)`,
 *     `result = result + lora_B(lora_A(dropout(x))) * scaling`; lora_dropout 0 is nn.Identity)
 *     adds two rank-r GEMMs, the casts of x to the fp32 adapter dtype and back (autocast), the
 *     scaling and the add, each a kernel; backward twice the GEMMs and the mirror casts;
 *   - FP8 linears: naive = per-tensor dynamic scaling as separate eager kernels (amax, scale,
 *     cast of the input, of the weight and of the output gradient, FP8 transposes for the
 *     backward GEMMs) on every nn.Linear, the adapters' included (torchao
 *     convert_to_float8_training converts every Linear whose sizes divide 16); te = Transformer
 *     Engine's fused cast-transpose (one kernel per tensor, amax inside) on the base linears.
 * GEMM and attention kernels are timed at η of the precision's peak; elementwise and rank-r
 * kernels on the roofline of the GPU's HBM (the training model's `hbm` fraction, calib.c).
 */
#include "model/model.h"
#include "infer.h"

#include <math.h>

typedef struct tally {
    double peak, peak8, bw, eta, eta8, h;
    double time, kernels, host_bound, bytes;
} tally;

/* n kernels of `bytes` bytes and `flops` FLOPs each (fp8: on the FP8 peak). */
static void add(tally *t, double n, double bytes, double flops, bool fp8)
{
    if (!(n > 0))
        return;
    double c = flops > 0 ? flops / (fp8 ? t->peak8 * t->eta8 : t->peak * t->eta) : 0;
    double g = fmax(c, bytes / t->bw);
    t->time += n * fmax(g, t->h);
    t->kernels += n;
    t->bytes += n * bytes;
    if (t->h > g)
        t->host_bound += n;
}

typedef struct proj {
    double in, out;
    bool lora;
} proj;

/* The layer's linears: q, k, v (none where K is V), o, gate (gated FFNs), up, down. */
static int projections(const gpuecon_model *m, const gpuecon_layer *l, unsigned mods, bool lora, proj *p)
{
    double h = m->hidden, nq = m->heads, q, kv, o_in;
    if (m->attention == GPUECON_ATTN_MLA) {
        q = nq * (m->qk_nope_head_dim + m->qk_rope_head_dim);
        kv = (double)m->kv_lora_rank + m->qk_rope_head_dim;
        o_in = nq * m->v_head_dim;
    } else {
        q = nq * l->head_dim;
        kv = (double)l->kv_heads * l->head_dim;
        o_in = q;
    }
    double f = l->moe ? (double)m->top_k * m->expert_ffn_hidden + (double)m->shared_experts * m->shared_ffn_hidden
                      : m->ffn_hidden;
    bool gated = gpuecon_ffn_matrices(m->ffn) == 3, mla = m->attention == GPUECON_ATTN_MLA;
    int n = 0;
    p[n++] = (proj){h, q, lora && (mods & GPUECON_LORA_Q)};
    p[n++] = (proj){h, kv, lora && (mods & GPUECON_LORA_K)};
    if (!l->k_eq_v && !mla)
        p[n++] = (proj){h, kv, lora && (mods & GPUECON_LORA_V)};
    p[n++] = (proj){o_in, h, lora && (mods & GPUECON_LORA_O)};
    if (gated)
        p[n++] = (proj){h, f, lora && (mods & GPUECON_LORA_GATE)};
    p[n++] = (proj){h, f, lora && (mods & GPUECON_LORA_UP)};
    p[n++] = (proj){f, h, lora && (mods & GPUECON_LORA_DOWN)};
    return n;
}

/* An elementwise chain over `width` values per token: eager kernels forward and backward with
 * their bytes per value, or the fused kernels of a compiled stack. */
static void chain(tally *t, double T, double width, bool compiled, double mods, const double c[7], double rc)
{
    /* c: eager bytes/value forward, backward; eager kernels forward, backward and tiny ones
     * (per module); fused bytes/value forward, backward */
    double e = T * width;
    if (compiled) {
        add(t, mods * (1 + rc), c[5] * e / mods, 0, false);
        add(t, 2 * mods, c[6] * e / (2 * mods), 0, false);
        return;
    }
    add(t, mods * c[2] * (1 + rc), c[0] * e / (mods * c[2]), 0, false);
    add(t, mods * c[3], c[1] * e / (mods * c[3]), 0, false);
    add(t, mods * c[4] * (2 + rc), 0, 0, false);
}

/* One eager per-tensor dynamic FP8 cast of `values` values, `times` times. */
static void eager_cast(tally *t, double values, double times)
{
    static const double bytes[5] = {4, 2, 6, 8, 5};
    for (int i = 0; i < 5; i++)
        add(t, times, bytes[i] * values, 0, false);
    add(t, 2 * times, 0, 0, false);
}

/* FP8 casts around one linear of in x out over T tokens (weights: in·out values per pass). */
static void fp8_casts(tally *t, const ft_stack_facts *s, double T, double in, double out, bool trainable, double rc)
{
    double w = in * out;
    if (s->fp8_linear == FT_FP8_TE) { /* cast-transpose of x and of the weight, of dy backward */
        add(t, 2 * (1 + rc), (3 * T * in + 3 * w) / 2, 0, false);
        add(t, 1, 4 * T * out, 0, false);
        return;
    }
    if (s->compiled) { /* amax and cast fused per tensor: two kernels each */
        add(t, 4 * (1 + rc), (5 * T * in + 5 * w) / 4, 0, false);
        add(t, 2 + (trainable ? 2 : 0), (5 * T * out + 2 * T * in + 2 * w) / (2 + (trainable ? 2 : 0)), 0, false);
        return;
    }
    /* eager: each tensor's dynamic cast is |x|, max, two scale ops, x·s in fp32, clamp and the
     * cast (4 + 2 + 6 + 8 + 5 B per value); x and w forward, dy backward, and the FP8
     * transposes of x and w the backward GEMMs read */
    eager_cast(t, T * in, 1 + rc);
    eager_cast(t, w, 1 + rc);
    eager_cast(t, T * out, trainable ? 2 : 1);
    add(t, 1, 2 * w, 0, false);
    add(t, trainable ? 2 : 1, 2 * T * in, 0, false);
}

/* One LoRA adapter of rank r on a linear of in x out (PEFT Linear.forward). */
static void lora(tally *t, const ft_stack_facts *s, double T, double in, double out, double r, bool fp8, double rc)
{
    double A = 2 * T * in * r, B = 2 * T * r * out; /* FLOPs of each rank-r GEMM */
    bool f8 = fp8 && s->fp8_linear == FT_FP8_NAIVE;
    add(t, 1 + rc, 2 * T * in + 2 * T * r, A, f8);     /* lora_A(x) */
    add(t, 1 + rc, 2 * T * r + 2 * T * out, B, f8);    /* lora_B(.) */
    add(t, 2, 2 * T * r + 2 * T * out, B, f8);         /* dgrad, wgrad of B */
    add(t, 2, 2 * T * r + 2 * T * in, A, f8);          /* dgrad, wgrad of A */
    if (s->compiled) {
        add(t, 1 + rc, 6 * T * out, 0, false);         /* scale + add fused */
        add(t, 1, 4 * T * out, 0, false);              /* scaled gradient */
        add(t, 1, 6 * T * in, 0, false);               /* dx accumulated */
    } else {
        add(t, 2 * (1 + rc), 6 * T * in, 0, false);    /* x -> fp32 (PEFT), -> bf16 (autocast) */
        add(t, 2 * (1 + rc), 0, 0, false);             /* autocast casts of the fp32 A, B weights */
        add(t, 1 + rc, 4 * T * out, 0, false);         /* * scaling */
        add(t, 1 + rc, 6 * T * out, 0, false);         /* result + */
        add(t, 1, 4 * T * out, 0, false);              /* * scaling backward */
        add(t, 2, 6 * T * in, 0, false);               /* the two casts backward */
        add(t, 1, 6 * T * in, 0, false);               /* dx of the adapter + dx of the base */
        add(t, 2, 0, 0, false);                        /* fp32 gradient casts of A and B */
    }
    if (f8) {
        fp8_casts(t, s, T, in, r, true, rc);
        fp8_casts(t, s, T, r, out, true, rc);
    }
}

/* Queries attending per token within the window, causal (the mean number of keys). */
static double mean_keys(int window, double seq)
{
    if (window <= 0 || window >= seq)
        return (seq + 1) / 2;
    double w = window;
    return (w * (seq - w) + w * (w + 1) / 2) / seq;
}

void finetune_kernels(const gpuecon_finetune_request *r, const ft_stack_facts *s, double eta, ft_kernel_time *out)
{
    const gpuecon_model *m = r->model;
    const gpuecon_gpu *g = r->system->gpu;
    gpuecon_efficiency cal_e = *gpuecon_efficiency_for(g); /* a user's calibration applied (HBM, GEMM ratio) */
    gpuecon_calibration_apply_eff(r->calibration, &cal_e);
    const gpuecon_efficiency *e = &cal_e;
    bool fp8 = r->precision == GPUECON_FP8, lora_on = r->method == GPUECON_FT_LORA;
    double clock = gpuecon_system_clock(r->system); /* the power limit's sustained clock (power.c) */
    tally t = {.peak = gpuecon_gpu_peak_flops(g, GPUECON_BF16) * clock,
               .peak8 = gpuecon_gpu_peak_flops(g, GPUECON_FP8) * clock,
               .bw = g->hbm_tbps * 1e12 * e->hbm, .eta = eta, .h = s->host_launch_s};
    t.eta8 = e->gemm_bf16 > 0 && e->gemm_fp8 > 0 ? eta * e->gemm_fp8 / e->gemm_bf16 : eta;
    double T = (double)r->mbs * r->seq, h = m->hidden, rank = lora_on ? r->lora_rank : 0, rc = r->recompute ? 1 : 0;
    double q_norm = s->qk_norm ? 1 : 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        proj p[8];
        int np = projections(m, &l, r->lora_modules, lora_on, p);
        double q = p[0].out, kv = p[1].out, f = p[np - 1].in;
        /* RMSNorm: forward 40 B/value in 6 passes + 4 tiny kernels, backward 80 B in 9 passes
         * + 5 tiny; fused 4 B forward, 10 B backward */
        static const double norm[7] = {40, 80, 6, 9, 4.5, 4, 10};
        static const double rope[7] = {24, 30, 5, 6, 0, 4, 4};   /* q·cos + rotate_half(q)·sin */
        static const double glu[7] = {10, 18, 2, 3, 0, 6, 10};   /* act(gate) · up */
        static const double act[7] = {4, 6, 1, 1, 0, 4, 6};
        double nn = s->norms_per_layer + 2 * q_norm, norm_w = s->norms_per_layer * h + q_norm * (q + kv);
        chain(&t, T, norm_w, s->compiled, nn, norm, rc);
        chain(&t, T, q + kv, s->compiled, 2, rope, rc);
        bool gated = gpuecon_ffn_matrices(m->ffn) == 3;
        chain(&t, T, f, s->compiled, 1, gated ? glu : act, rc);
        add(&t, 2 * (2 + rc), 6 * T * h, 0, false);                                 /* residual adds */
        double heads = m->heads, hd = m->attention == GPUECON_ATTN_MLA ? m->qk_nope_head_dim + m->qk_rope_head_dim
                                                                         : l.head_dim;
        double attn = 4 * T * mean_keys(l.window, r->seq) * heads * hd;             /* forward FLOPs */
        add(&t, 1 + rc, 0, attn, false);
        add(&t, 1, 0, 2.5 * attn, false);
        for (int k = 0; k < np; k++) {
            double fl = 2 * T * p[k].in * p[k].out, b = 2 * (T * p[k].in + p[k].in * p[k].out + T * p[k].out);
            add(&t, 1 + rc, b, fl, fp8);                                             /* forward */
            add(&t, lora_on ? 1 : 2, b, fl, fp8);                                    /* dgrad (+ wgrad) */
            if (fp8)
                fp8_casts(&t, s, T, p[k].in, p[k].out, !lora_on, rc);
            if (p[k].lora)
                lora(&t, s, T, p[k].in, p[k].out, rank, fp8, rc);
        }
    }
    /* the head and the loss: lm_head GEMM forward and dgrad; logits.float(), log-softmax, NLL
     * and their backward (28 B per vocabulary entry eager, 10 B fused) */
    double V = m->vocab, hl = 2 * T * h * V;
    add(&t, 2, 2 * (T * h + h * V + T * V), hl, fp8);
    static const double loss[7] = {14, 14, 4, 4, 2, 4, 6};
    chain(&t, T, V, s->compiled, 1, loss, 0);
    out->time_s = t.time;
    out->kernels = t.kernels;
    out->host_bound_kernels = t.host_bound;
    out->bytes = t.bytes;
    out->host_s = t.kernels * t.h;
}

double finetune_fp8_copy_bytes(const gpuecon_finetune_request *r, int fp8_linear, double text_params)
{
    const gpuecon_model *m = r->model;
    bool lora_on = r->method == GPUECON_FT_LORA;
    double inputs = 0;
    for (int i = 0; i < m->layers; i++) {
        gpuecon_layer l;
        gpuecon_model_layer(m, i, &l);
        proj p[8];
        int np = projections(m, &l, r->lora_modules, lora_on, p);
        for (int k = 0; k < np; k++)
            inputs += p[k].in * (fp8_linear == FT_FP8_NAIVE && p[k].lora ? 2 : 1);
    }
    double tokens = (double)r->mbs * r->seq;
    double saved = inputs * tokens * (r->recompute ? 1.0 / m->layers : 1);
    if (fp8_linear == FT_FP8_TE)
        return saved;
    return fp8_linear == FT_FP8_NAIVE ? 2 * text_params + saved : 0;
}
