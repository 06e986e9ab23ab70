/*
 * infer_pp.c — pipeline parallelism in serving (docs/model.md §6.14): a replica of TP x PP
 * GPUs whose layers are split over PP stages, each stage holding its layers' weights and KV
 * cache, with in-flight micro-batches keeping the stages busy as TensorRT-LLM's executor does
 * (tensorrt_llm/_torch/pyexecutor/py_executor.py @ 9521caf4: num_micro_batches = dist.pp_size in
 * _executor_loop_pp) and vLLM's (one scheduled batch per virtual engine).
 *
 * Key choice: a pipelined step is built from the plain step of each stage (infer_step_stage on
 * the stage's own infer_arch), so every term — roofline, TP all-reduces, EP all-to-alls, LoRA,
 * drafts — comes from the same functions as an unpipelined replica, and the simulator, the
 * search and the disaggregated model see pipelining through infer_step_batch alone.
 */
#include "infer.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

int infer_pp_check(const gpuecon_infer_request *r, gpuecon_error *err)
{
    int pp = r->pp > 1 ? r->pp : 1, rc;
    if ((rc = err_check_range(err, "--pp", r->pp, 0, GPUECON_INFER_MAX_PP)))
        return rc;
    if (pp == 1)
        return GPUECON_OK;
    if (pp > r->model->layers)
        return err_set(err, GPUECON_E_INPUT, "--pp", 0, 0, "%d stages exceed %s's %d layers; allowed 1 to %d",
                       pp, r->model->name, r->model->layers, r->model->layers);
    if (r->gpus % pp)
        return err_set(err, GPUECON_E_INPUT, "--pp", 0, 0,
                       "%d does not divide --gpus %d (a replica is TP x PP GPUs)", pp, r->gpus);
    if (r->tp > 0 && r->gpus % (r->tp * pp))
        return err_set(err, GPUECON_E_INPUT, "--pp", 0, 0,
                       "TP %d x PP %d = %d GPUs per replica does not divide --gpus %d", r->tp, pp, r->tp * pp,
                       r->gpus);
    if (r->attention_dp && r->model->experts > 0)
        return err_set(err, GPUECON_E_INPUT, "--pp", 0, 0,
                       "pipeline stages with --attention-dp are not modelled; use --pp 1 or --attention-dp off");
    return GPUECON_OK;
}

/* PP11: stage s holds the layers mem_stage_chunk gives it (the training model's split: the
 * remainder on the middle stages, as vLLM's get_pp_indices spreads it over all but the last). */
void infer_pp_stage(const gpuecon_infer_request *r, const gpuecon_infer_result *o, const infer_sums *t, int s,
                    infer_arch *a)
{
    int start, size;
    mem_stage_chunk(r->model->layers, o->pp, 1, s, &start, &size);
    infer_arch_build_range(r->model, t, o->tp, gpuecon_precision_bytes(r->kv), r->lora_rank, r->lora_modules,
                           start, start + size, s == 0, s == o->pp - 1, a);
}

static bool prop(double x, double y, double f)
{
    return fabs(x - f * y) <= 1e-12 * fmax(fabs(x), fabs(f * y));
}

/* Whether stage a is stage b with its layers scaled by f: every per-layer sum in proportion,
 * everything else (LM head, MTP, expert shape, windows) equal. Every term of a stage's step
 * (roofline, all-reduces, all-to-alls, LoRA) is a sum over its layers, so such a stage's step
 * is b's scaled by f (PP12). */
static bool scaled(const infer_arch *a, const infer_arch *b, double f)
{
    if (a->head != b->head || a->mtp != b->mtp || a->expert != b->expert || a->ffn_inner != b->ffn_inner ||
        a->lora_modules != b->lora_modules || a->last != b->last || a->ngroups != b->ngroups ||
        (long)a->moe_layers * b->layers != (long)b->moe_layers * a->layers)
        return false;
    if (!prop(a->attn, b->attn, f) || !prop(a->dense_ffn, b->dense_ffn, f) || !prop(a->shared, b->shared, f) ||
        !prop(a->router, b->router, f) || !prop(a->routed, b->routed, f) || !prop(a->body, b->body, f) ||
        !prop(a->active, b->active, f) || !prop(a->dupv, b->dupv, f) || !prop(a->lora, b->lora, f))
        return false;
    for (int i = 0; i < a->ngroups; i++)
        if (a->g[i].window != b->g[i].window || !prop(a->g[i].kv_bytes, b->g[i].kv_bytes, f) ||
            !prop(a->g[i].attn_decode, b->g[i].attn_decode, f) || !prop(a->g[i].attn_prefill, b->g[i].attn_prefill, f))
            return false;
    return true;
}

/* Stages are kept once per kind with a count; a kind whose layers are another's scaled (a
 * stage of 7 MoE layers beside stages of 8) reuses that kind's step, so a pipelined step costs
 * one stage step per distinct layer mix. */
void infer_pp_add_stage(infer_env *e, const infer_arch *a, int s)
{
    infer_arch *n = &e->stages.st[e->stages.n];
    *n = *a;
    n->emb_mem = 0;
    n->vision = 0;
    n->first = false;
    int k = 0;
    while (k < e->stages.n && memcmp(&e->stages.st[k], n, sizeof *n) != 0)
        k++;
    if (k == e->stages.n) {
        e->stages.first[k] = s;
        e->stages.count[k] = 0;
        e->stages.base[k] = k;
        e->stages.scale[k] = 1;
        for (int b = 0; b < k; b++)
            if (e->stages.base[b] == b && scaled(n, &e->stages.st[b], (double)n->layers / e->stages.st[b].layers)) {
                e->stages.base[k] = b;
                e->stages.scale[k] = (double)n->layers / e->stages.st[b].layers;
                break;
            }
        e->stages.n++;
    }
    e->stages.count[k]++;
}

/* PP2: stage s sits on GPUs [s·tp, (s+1)·tp) of its replica; the boundary after it stays on
 * NVLink when both stages lie in one scale-up domain, else it crosses the network. */
void infer_pp_env(const gpuecon_infer_request *r, const gpuecon_infer_result *o, infer_env *e)
{
    (void)r;
    e->pp = o->pp;
    e->bounds_up = e->bounds_out = 0;
    long S = e->link.scaleup_gpus > 0 ? e->link.scaleup_gpus : 1, tp = o->tp;
    for (long s = 0; s + 1 < o->pp; s++) {
        bool out = tp >= S || (s * tp) / S != ((s + 2) * tp - 1) / S;
        if (out)
            e->bounds_out++;
        else
            e->bounds_up++;
    }
}

/* PP3: one boundary's send for `tokens` tokens: vLLM's IntermediateTensors carry the hidden
 * states and the residual (llama.py @ e06c9ba2), H values each in 16 bits, every TP rank
 * sending its copy to its peer of the next stage (NCCL point-to-point, comm.c). */
static double send_s(const infer_env *e, double tokens, bool out)
{
    double bytes = tokens * e->a->m->hidden * 2 * 2;
    if (bytes <= 0)
        return 0;
    return comm_time(&e->link, GPUECON_SEND_RECV, 2, out ? e->link.scaleup_gpus : 1, bytes);
}

static void scale_batch(const infer_batch *b, double f, infer_batch *mb)
{
    *mb = *b;
    mb->seqs *= f;
    mb->dec *= f;
    mb->pre *= f;
    for (int i = 0; i < INFER_MAX_GROUPS; i++) {
        mb->kv_ctx[i] *= f;
        mb->pre_ctx[i] *= f;
    }
}

static void add_terms(gpuecon_infer_step *s, const gpuecon_infer_step *t, double n, bool draft)
{
    s->weight_bytes += n * t->weight_bytes;
    s->kv_bytes += n * t->kv_bytes;
    s->gemm_flops += n * t->gemm_flops;
    s->attn_flops += n * t->attn_flops;
    s->weights_s += n * t->weights_s;
    s->gemm_s += n * t->gemm_s;
    s->kv_s += n * t->kv_s;
    s->attn_s += n * t->attn_s;
    s->model_s += n * t->model_s;
    s->lora_s += n * t->lora_s;
    s->comm_s += n * t->comm_s;
    if (draft)
        s->draft_s += n * t->draft_s;
}

/* PP4-PP7: m = min(PP, sequences) micro-batches of b/m decoding sequences each circulate through
 * the stages. One pass (a token of one micro-batch) takes the host's step overhead, every stage's
 * time and every boundary's send; each stage serves all m micro-batches in turn, so a micro-batch
 * comes round every max(pass, the busiest stage's work for all m, its sends included) — a closed
 * cycle of m jobs over PP deterministic servers. Below PP micro-batches the stages idle (the
 * bubble); at PP or more the busiest stage sets the rate. PP8: a prompt's chunk rides in one
 * micro-batch, as a scheduler puts a request into one, so the prefill of `pre_parts` prompts
 * fills h = min(m, pre_parts) micro-batches (the heavy ones, whose pass the terms of *s
 * describe) and the other m − h carry only their share of the decodes; pre_parts 0 spreads it
 * over all m (the mean field, whose micro-batches each bring their own chunk: T1, T2's steps
 * with a chunk). A step of prefill alone (no sequences) is one micro-batch.
 * The host's work for a micro-batch runs beside the stages, or (profile pp_host_serial,
 * TensorRT-LLM's PP executor loop, PP7) after each stage's GPU work, over every running sequence. */
void infer_pp_step(const infer_env *e, const infer_batch *b, gpuecon_infer_step *s)
{
    memset(s, 0, sizeof *s);
    double m = fmin(e->pp, fmax(1, b->seqs));
    /* PP8: h micro-batches carry the prefill (one per prompt, at most m), the other m − h
       only their share of the decodes */
    double h = b->pre > 0 && b->pre_parts > 0 ? fmin(m, b->pre_parts) : m;
    infer_batch light, heavy;
    scale_batch(b, 1 / m, &heavy);
    light = heavy;
    if (h < m) {
        light.pre = 0;
        heavy.pre = b->pre / h;
        for (int i = 0; i < INFER_MAX_GROUPS; i++) {
            light.pre_ctx[i] = 0;
            heavy.pre_ctx[i] = b->pre_ctx[i] / h;
        }
    }
    infer_env se;
    memcpy(&se, e, offsetof(infer_env, stages));
    se.pp = 1;
    gpuecon_infer_step th[GPUECON_INFER_MAX_PP], tl[GPUECON_INFER_MAX_PP];
    double busiest = 0, overhead = 0;
    for (int k = 0; k < e->stages.n; k++) {
        int base = e->stages.base[k];
        double f = e->stages.scale[k];
        if (base == k) {
            se.a = &e->stages.st[k];
            infer_step_stage(&se, &heavy, &th[k]);
            if (h < m)
                infer_step_stage(&se, &light, &tl[k]);
            else
                tl[k] = th[k];
        }
        const gpuecon_infer_step *hv = &th[base], *lt = &tl[base];
        bool last = e->stages.st[k].last;
        double gh = f * (hv->step_s - hv->overhead_s - (last ? 0 : hv->draft_s));
        double gl = f * (lt->step_s - lt->overhead_s - (last ? 0 : lt->draft_s));
        add_terms(s, hv, e->stages.count[k] * f, last);
        busiest = fmax(busiest, h * gh + (m - h) * gl); /* the stage's work for all m micro-batches */
        overhead = hv->overhead_s;
    }
    double toh = heavy.dec + heavy.pre, tol = light.dec + light.pre;
    double uph = e->bounds_up ? send_s(e, toh, false) : 0, outh = e->bounds_out ? send_s(e, toh, true) : 0;
    double upl = e->bounds_up ? send_s(e, tol, false) : 0, outl = e->bounds_out ? send_s(e, tol, true) : 0;
    s->decode_tokens = b->dec;
    s->prefill_tokens = b->pre;
    /* PP7: with pp_host_serial the host's per-sequence work covers every running sequence at
     * each micro-batch, and it runs after the stage's GPU work instead of beside it */
    bool serial = e->prof.pp_host_serial;
    double host = overhead + (serial ? e->prof.seq_overhead_s * (b->seqs - heavy.seqs) : 0);
    s->overhead_s = host;
    s->p2p_s = e->bounds_up * uph + e->bounds_out * outh;
    s->stage_max_s = (busiest + h * fmax(uph, outh) + (m - h) * fmax(upl, outl)) / m; /* per micro-batch */
    s->micro_batches = m;
    double pass = host + s->model_s + s->lora_s + s->comm_s + s->draft_s + s->p2p_s;
    s->step_s = fmax(pass, m * (serial ? s->stage_max_s + host : fmax(s->stage_max_s, host)));
    s->pp_wait_s = s->step_s - pass;
}
