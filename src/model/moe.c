/*
 * moe.c — the mixture-of-experts layer of the training step (docs/model.md §4).
 *
 * A MoE layer is the attention half of train_layer() plus an expert block: a router, the
 * dispatch all-to-all over the expert-parallel group, grouped expert GEMMs, an optional
 * shared expert (a tensor-parallel MLP), the combine all-to-all, and the mirror image in
 * backward — four all-to-alls per layer and micro-batch. Experts use their own layout
 * (Megatron's "MoE parallel folding"): ep x etp GPUs out of the tp x cp x dp ranks of a
 * pipeline stage, etp innermost, so an expert group of up to a scale-up domain stays on
 * NVLink. Key choice: the load is a mechanism, not a constant — with a capacity factor every
 * expert is padded to cf x its mean tokens; dropless, the busiest of the ep GPUs sets the
 * pace (per-expert load spread, averaged over a GPU's experts, maximum over ep GPUs), and
 * both the expert GEMMs and the all-to-all carry that factor.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

/* Share of the SMs that communication kernels take while they overlap compute: DeepSeek-V3
 * dedicates 20 of the H800's 132 SMs to dispatch/combine (arXiv:2412.19437 §3.2.2). */
#define MOE_COMM_SM_SHARE (20.0 / 132.0)
/* Rows of one GEMM tile: a grouped GEMM pads each expert's tokens to whole tiles. */
#define MOE_TILE_M 128.0
/* Forward kernels of the MoE layer's pass that are the transformer layer's, not the MoE
 * block's: the pre-MLP norm and the residual add (the dense MLP half counts them too). */
#define MOE_OUTER_KERNELS 2.0

static bool searched(int v)
{
    return v == GPUECON_SEARCH || v == 0;
}

int moe_check_request(const gpuecon_train_request *req, gpuecon_error *err)
{
    const gpuecon_model *m = req->model;
    if (m->top_k < 1 || m->top_k > m->experts)
        return err_set(err, GPUECON_E_INPUT, "top_k", 0, 0, "top_k %d of %s must be between 1 and its %d experts",
                       m->top_k, m->name, m->experts);
    if (m->expert_ffn_hidden < 1)
        return err_set(err, GPUECON_E_INPUT, "expert_ffn_hidden", 0, 0, "%s needs an expert FFN width", m->name);
    int ep = req->ep, etp = req->etp;
    if (!searched(ep) && (ep < 1 || m->experts % ep))
        return err_set(err, GPUECON_E_INPUT, OPTION("ep"), 0, 0, "%d does not divide the %d routed experts of %s", ep,
                       m->experts, m->name);
    if (!searched(etp) && (etp < 1 || m->expert_ffn_hidden % etp))
        return err_set(err, GPUECON_E_INPUT, OPTION("etp"), 0, 0, "%d does not divide the expert FFN width %d of %s", etp,
                       m->expert_ffn_hidden, m->name);
    long prod = (long)(searched(ep) ? 1 : ep) * (searched(etp) ? 1 : etp);
    bool pp_fixed = !searched(req->pp);
    long block = pp_fixed ? req->gpus / req->pp : req->gpus;
    if (block % prod)
        return err_set(err, GPUECON_E_INPUT, OPTION("ep"), 0, 0,
                       "ep x etp = %ld does not divide %s = %ld: experts are laid out over the ranks of one "
                       "pipeline stage", prod, pp_fixed ? "tp x cp x dp (gpus / pp)" : "the GPUs", block);
    if (!(req->capacity_factor == 0 || (req->capacity_factor >= 0.05 && req->capacity_factor <= 16)))
        return err_set(err, GPUECON_E_INPUT, OPTION("capacity_factor"), 0, 0,
                       "%s: allowed 0 (dropless) or 0.05 to 16", NUM_VAL(req->capacity_factor));
    if (!(req->moe_imbalance == 0 || (req->moe_imbalance >= 1 && req->moe_imbalance <= 16)))
        return err_set(err, GPUECON_E_INPUT, OPTION("imbalance"), 0, 0,
                       "%s: the busiest GPU's tokens over the mean, allowed 1 to 16 (0: derived)",
                       NUM_VAL(req->moe_imbalance));
    if (req->mtp < -1 || req->mtp > 16)
        return err_set(err, GPUECON_E_INPUT, OPTION("mtp"), 0, 0, "%d: allowed 0 to 16 modules", req->mtp);
    if (req->a2a_overlap != GPUECON_SEARCH && req->a2a_overlap != 0 && req->a2a_overlap != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("a2a_overlap"), 0, 0, "allowed 0 or 1");
    return GPUECON_OK;
}

int moe_prepare(const gpuecon_train_request *req, train_static *st, gpuecon_error *err)
{
    const gpuecon_model *m = req->model;
    if (!(st->eff.grouped_gemm >= 0 && st->eff.grouped_gemm <= 1) || !(st->eff.moe_host_s >= 0) ||
        !(st->eff.moe_load_cv >= 0 && st->eff.moe_load_cv <= 2) ||
        !(st->eff.scaleout_a2a >= 0 && st->eff.scaleout_a2a <= 1))
        return err_set(err, GPUECON_E_INPUT, "efficiency", 0, 0,
                       "MoE efficiencies of %s must lie in [0, 1] and the host time be >= 0",
                       st->eff.arch ? st->eff.arch : "?");
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    double h = st->h, attn = p.attention / m->layers;
    st->moe = true;
    st->E = m->experts;
    st->topk = m->top_k;
    st->fe = m->expert_ffn_hidden;
    st->fs = (double)m->shared_experts * m->shared_ffn_hidden;
    st->moe_first = m->dense_layers;
    st->moe_every = m->moe_every > 0 ? m->moe_every : 1;
    st->dense_params = attn + st->mats * h * st->f + 2 * h;
    st->moe_params = attn + h * st->E + st->mats * h * st->fs + 2 * h;
    st->expert_params = st->mats * h * st->fe;
    st->mtp_params = 2 * h * h + 2 * h;
    st->mtp = req->mtp < 0 ? m->mtp_layers : req->mtp;
    st->cf = req->capacity_factor;
    st->imbalance = req->moe_imbalance;
    st->load_cv = st->eff.moe_load_cv;
    st->a2a_overlap = req->a2a_overlap;
    st->eager = !req->cuda_graphs;
    st->graph_scope = req->cuda_graphs ? req->cuda_graph_scope : GPUECON_GRAPH_FULL;
    st->dispatcher = req->dispatcher;
    st->fp8_dispatch = req->fp8_dispatch;
    st->balanced = req->balanced_routing;
    st->recompute_moe = req->recompute_moe;
    st->groups = m->routing_groups;
    st->groups_per_token = m->groups_per_token;
    return GPUECON_OK;
}

/* MoE layers among [0, x): layer i is MoE when i >= first and (i - first) % every == every - 1. */
static int moe_below(const train_static *st, int x)
{
    if (x <= st->moe_first)
        return 0;
    return st->moe_every == 1 ? x - st->moe_first : (x - st->moe_first) / st->moe_every;
}

int moe_layers_in(const train_static *st, int a, int b)
{
    int L = st->m->layers;
    b = b < L ? b : L;
    return b > a ? moe_below(st, b) - moe_below(st, a) : 0;
}

int moe_stage_layers(const train_static *st, int pp, int vpp, int stage)
{
    /* mem_stage_chunk's split of the layers and the MTP modules (the last positions); stage s
     * holds chunks s, s + pp, ... */
    int L = st->m->layers + st->mtp, n = 0;
    if (pp * vpp <= 1)
        return moe_layers_in(st, 0, L);
    for (int j = 0; j < vpp; j++) {
        int start, size;
        mem_stage_chunk(L, pp, vpp, stage + j * pp, &start, &size);
        n += moe_layers_in(st, start, start + size);
    }
    return n;
}

double moe_load_factor(const train_static *st, int ep)
{
    if (st->cf > 0)
        return st->cf;
    if (st->imbalance >= 1)
        return st->imbalance;
    if (ep <= 1 || st->balanced)
        return 1;
    /* a GPU's load averages its E/ep experts; the busiest of ep GPUs is E[max] sigmas above */
    double cv_gpu = st->load_cv / sqrt((double)st->E / ep);
    return 1 + cv_gpu * train_expected_max_normal(ep);
}

/* The expert GEMMs of one GPU: `experts` GEMMs of M rows each (padded to whole tiles), at the
 * grouped-GEMM fraction of the dense GEMM efficiency; one kernel per expert. */
static double grouped(const train_static *st, int experts, double M, double K, double N, double *flops)
{
    double ib = gpuecon_precision_bytes(st->prec), pad = ceil(M / MOE_TILE_M) * MOE_TILE_M;
    double g = st->eff.grouped_gemm > 0 ? st->eff.grouped_gemm : 1;
    double eff = st->peak * (st->prec == GPUECON_FP8   ? st->eff.gemm_fp8
                             : st->prec == GPUECON_FP4 ? st->eff.gemm_fp4
                                                       : st->eff.gemm_bf16) * g;
    *flops += experts * 2 * M * K * N;
    return experts * train_kernel(st, 2 * pad * K * N, eff, ib * (M * K + K * N) + 2 * M * N);
}

/* Dispatch/combine traffic of one micro-batch (forward; backward is the same): a dispatch and
 * a combine over the EP group (stride etp) with the stack's dispatcher (dispatch.c; FP8
 * dispatch with 1x128 scales, combine in BF16) and, with ETP, the all-gather of the received
 * tokens and the reduce-scatter of the outputs. n tokens per GPU, phi the load factor. */
static double a2a_pass(const train_static *st, gpuecon_dispatcher disp, int ep, int etp, double n, double phi,
                       double R, gpuecon_train_moe *info)
{
    const comm_link *L = &st->link;
    gpuecon_dispatch_request q = {disp, ep, etp, n, st->topk, st->E, st->groups, st->groups_per_token,
                                  st->h, st->fp8_dispatch ? 1 + 4.0 / 128 : 2, phi};
    gpuecon_dispatch_result d, c;
    double a2a = comm_dispatch(L, &q, &d);
    q.bytes_per_elem = 2;
    double comb = st->fp8_dispatch ? comm_dispatch(L, &q, &c) : a2a;
    int g, dom;
    comm_placement(L->scaleup_gpus, ep, etp, &g, &dom);
    info->a2a_bytes = n * st->topk * phi * st->h * 2; /* the NCCL all-to-all's size */
    info->a2a_s = a2a;
    info->a2a_intra_fraction = ep > 1 ? d.intra_fraction : 1;
    info->ep_domains = dom;
    double t = a2a + comb;
    if (etp > 1)
        t += comm_time(L, GPUECON_ALL_GATHER, etp, 1, R * st->h * 2) +
             comm_time(L, GPUECON_REDUCE_SCATTER, etp, 1, R * st->h * 2);
    return t;
}

/* Exposed communication `comm` overlapped with another micro-batch's `work`: what sticks out,
 * plus the compute slowed by the SMs the communication kernels occupy meanwhile. */
static double overlap_exposed(double comm, double work)
{
    double hid = comm < work ? comm : work;
    return comm - hid + MOE_COMM_SM_SHARE * hid;
}

void moe_shared(const train_static *st, train_layer_cost *lc)
{
    const int tp = lc->tp;
    double T = lc->mbs * (double)st->seq / lc->cp, h = st->h, n = T / tp, ib = gpuecon_precision_bytes(st->prec);
    double s1 = 0, s2 = 0, stp = 0, stp_f = 0, fsl = st->fs / tp;
    if (st->fs > 0) {
        s1 = train_gemm(st, T, h, (st->mats - 1) * fsl, ib);
        s2 = train_gemm(st, T, fsl, h, ib);
        stp = train_tp_pair_fwd(st, T, tp, lc->tp_overlap, lc->rc, s1, s2, T * h * (st->prec == GPUECON_BF16 ? 2 : 1),
                                &stp_f);
    }
    lc->moe_router_s = train_gemm(st, n, h, st->E, 2);
    lc->moe_s1_s = s1, lc->moe_s2_s = s2, lc->moe_stp_s = stp, lc->moe_stp_fwd_s = stp_f;
    lc->moe_shared_set = true;
}

/* The bytes of the pre-MLP norm and the residual add (with its dropout) around the MoE
 * block: five units of 2h per token (norm read, write; residual two reads, a write), / t with
 * SP. They belong to the transformer layer, not to the MoE layer (block_bytes counts them). */
static double outer_bytes(const train_static *st, double T, double seq_div)
{
    return T * (5 + (st->dropout ? 0.5 : 0)) * 2 * st->h / seq_div;
}

/* The MoE block's memory-bound bytes per micro-batch besides the GEMMs: norm and residual,
 * routing (fp32 scores), permute and unpermute, activations, casts. R rows reach this GPU's
 * experts; `routed` copies of the n tokens are permuted where the dispatcher copies them (NCCL;
 * the flex dispatchers, DeepEP and HybridEP, permute inside the dispatch kernel instead:
 * Megatron-LM DeepSeek-V3 GB200 doc §2.1.1). Shared by moe_layer and its floor. */
static double block_bytes(const train_static *st, bool permutes, double T, double n, double R, double routed,
                          double fo, double fsl, double seq_div)
{
    double h = st->h, act_w = st->mats > 2 ? 6 : 4;
    double permute = permutes ? 2 * (n * h * 2 + routed * h * 2) : 0;
    double bytes = outer_bytes(st, T, seq_div) + n * st->E * 4 * 3 + permute + R * act_w * fo + T * act_w * fsl;
    if (st->prec != GPUECON_BF16)
        bytes += st->cast_bytes * (R * (h + fo) + T * (h + fsl));
    return bytes;
}

/* What an MoE block recomputed in backward keeps: its input, 2·T·h bytes (/t with SP). */
static double block_input_bytes(const train_static *st, double T, double seq_div)
{
    return T * 2 * st->h / seq_div;
}

double moe_act_recomputed(const train_static *st, const train_layer_cost *lc)
{
    double T = lc->mbs * (double)st->seq / lc->cp, seq_div = (st->sp && lc->tp > 1) ? lc->tp : 1;
    return lc->attn_act_bytes + block_input_bytes(st, T, seq_div);
}

/* The kernels a layer pass still launches from the host under partial CUDA graphs (Megatron-Core
 * --cuda-graph-scope with Transformer Engine graphs; Megatron-LM docs/discussions/
 * deepseek-v3-gb200-optimization §2.3: attention, router, EP preprocessing and shared experts
 * are static and captured, the routed experts stay dynamic and eager). The block's nk_f
 * elementwise kernels split as: the pre-MLP norm and the residual add (MOE_OUTER_KERNELS, with
 * the attention half), three of the router (score function, top-k, load statistics), two of the
 * preprocessing (tokens per expert, permutation map), one of the shared expert (activation)
 * and four of the routed experts (permute, activation, probability weighting, unpermute); FP8
 * adds the quantization of the two expert inputs to each of the last two. Each captured graph
 * is one launch. Out: the eager kernels of the pass, and the block's as layer_with counts them
 * (MOE_OUTER_KERNELS more than MoE-block recompute launches again). */
static void moe_eager_kernels(const train_static *st, double attn_k, int tp, int ep, int etp, double *kernels,
                              double *block_k)
{
    int gs = st->graph_scope;
    double fp8 = st->prec != GPUECON_BF16 ? 2 : 0;
    double experts = 2 + 4 + fp8 + (st->cf > 0 ? 4 : 0) + (ep > 1 ? 2 : 0) + (etp > 1 ? 2 : 0);
    double router = 1 + 3 + (st->fs > 0 ? 2 + 1 + fp8 + (tp > 1 ? 2 : 0) : 0), pre = 2;
    double a = gs & GPUECON_GRAPH_ATTN ? 1 : attn_k + MOE_OUTER_KERNELS;
    double r = gs & GPUECON_GRAPH_MOE_ROUTER ? ((gs & GPUECON_GRAPH_MOE_PREPROCESS) ? 1 : 1 + pre) : router + pre;
    *block_k = r + experts + MOE_OUTER_KERNELS; /* recompute launches r + experts again */
    *kernels = a + r + experts;
}

/* The MoE block's forward again in backward (recompute_modules "moe"): its GEMMs `gemms`
 * (router, experts, shared expert), its bytes less the norm's and residual's (outer_bytes),
 * its kernels less those two. Shared by moe_layer and its floor. */
static double block_rc(const train_static *st, double gemms, double bytes, double T, double seq_div, double nk_f)
{
    double inner = bytes - outer_bytes(st, T, seq_div);
    return gemms + inner / st->hbm_bps + (nk_f - MOE_OUTER_KERNELS) * st->eff.kernel_s;
}

/* The MoE layer with dispatcher disp. */
static void layer_with(const train_static *st, gpuecon_dispatcher disp, int ep, int etp, train_layer_cost *lc)
{
    const int tp = lc->tp;
    const bool full = lc->rc == GPUECON_RECOMPUTE_FULL;
    /* Megatron's recompute_modules "moe" (docs/model.md §4.2): MoELayer.forward runs its
     * whole custom_forward (shared expert with its TP collectives, router, permute, dispatch,
     * experts, combine, unpermute) under tensor_parallel.checkpoint, keeping only its input
     * (Megatron-LM megatron/core/transformer/moe/moe_layer.py @ 00119989); the pre-MLP norm
     * and the residual add stay outside it, in the transformer layer */
    const bool rmoe = lc->rc == GPUECON_RECOMPUTE_SELECTIVE && lc->rc_moe;
    double T = lc->mbs * (double)st->seq / lc->cp, h = st->h, seq_div = (st->sp && tp > 1) ? tp : 1;
    double n = T / tp; /* tokens entering the block on this GPU (Megatron needs SP with TP and EP) */
    double phi = moe_load_factor(st, ep);
    int El = st->E / ep;
    double R = n * st->topk * phi * etp, M = R / El; /* rows on this GPU, per local expert */
    double fw = (st->mats - 1) * st->fe / etp, fo = st->fe / etp;
    double fl = 0, ks = st->eff.kernel_s;
    double g = grouped(st, El, M, h, fw, &fl) + grouped(st, El, M, fo, h, &fl);
    double gemm_flops = fl;
    if (!lc->moe_shared_set)
        moe_shared(st, lc);
    double router = lc->moe_router_s, s1 = lc->moe_s1_s, s2 = lc->moe_s2_s, stp = lc->moe_stp_s, fsl = st->fs / tp;
    fl += 2 * n * h * st->E;
    if (st->fs > 0)
        fl += 2 * T * h * (st->mats - 1) * fsl + 2 * T * fsl * h;
    double act_w = st->mats > 2 ? 6 : 4;
    double bytes = block_bytes(st, disp == GPUECON_DISPATCH_NCCL_A2A, T, n, R, n * st->topk * phi, fo, fsl, seq_div);
    /* forward kernels besides the GEMMs: MOE_OUTER_KERNELS of them are the pre-MLP norm and
     * the residual add, as the dense MLP half's (train.c) */
    double nk_f = 12 + (st->prec != GPUECON_BF16 ? 4 : 0), nk_b = 16 + (st->prec != GPUECON_BF16 ? 8 : 0);
    double moe_f = router + g + s1 + s2 + bytes / st->hbm_bps + nk_f * ks;
    double moe_b = 2 * (router + g + s1 + s2) + 2 * bytes / st->hbm_bps + nk_b * ks;
    lc->ep = ep, lc->etp = etp;
    lc->m_fwd_s = lc->attn_fwd_s + moe_f;
    lc->m_bwd_s = lc->attn_bwd_s + moe_b;
    double rc_block = rmoe ? block_rc(st, router + g + s1 + s2, bytes, T, seq_div, nk_f) : 0;
    lc->m_rc_s = full ? lc->m_fwd_s : lc->attn_rc_s + rc_block;
    /* the recomputed block's shared expert gathers and reduce-scatters its input again, as
     * full recompute repeats every forward TP collective (train_tp_pair) */
    lc->m_tp_s = lc->attn_tp_s + stp + (rmoe ? lc->moe_stp_fwd_s : 0);
    lc->m_hw_flops = lc->attn_hw_flops + 3 * fl + (full || rmoe ? fl : 0);
    /* all-to-all: S bytes per GPU per dispatch (16-bit tokens, the load factor included) */
    gpuecon_train_moe *info = &lc->info;
    memset(info, 0, sizeof *info);
    double S = n * st->topk * phi * h * 2;
    double pass = ep > 1 || etp > 1 ? a2a_pass(st, disp, ep, etp, n, phi, R, info) : 0;
    double again = full || rmoe ? 2 : 1;
    double fwd_c = pass * again;
    lc->m_ep_s = fwd_c + pass;
    lc->m_ep_ovl_s = overlap_exposed(pass, lc->m_bwd_s) * again + overlap_exposed(pass, lc->m_fwd_s);
    /* eager: the host launches the layer's kernels one by one (backward about twice the
     * forward's); moe_host_s is the host time per modelled kernel. The attention half's
     * forward kernels, then the MoE block's: router, two grouped GEMMs, shared expert (and its
     * TP collectives), nk_f, drop-and-pad, dispatch/combine (and the ETP gathers). Full
     * recompute launches the whole forward again; MoE-block recompute the block's forward
     * less the norm and the residual, which stay outside the checkpoint. Partial CUDA graphs
     * (moe_eager_kernels) leave only the uncaptured parts to the host. */
    double attn_k = lc->attn_kernels + (st->mla ? 6 : 0);
    double block_k = 1 + 2 + (st->fs > 0 ? 2 + (tp > 1 ? 2 : 0) : 0) + nk_f + (st->cf > 0 ? 4 : 0) + (ep > 1 ? 2 : 0) +
                     (etp > 1 ? 2 : 0);
    double kernels = attn_k + block_k;
    bool partial = st->graph_scope != GPUECON_GRAPH_FULL; /* GPUECON_GRAPH_FULL when eager (moe_prepare) */
    if (partial)
        moe_eager_kernels(st, attn_k, tp, ep, etp, &kernels, &block_k);
    lc->m_host_s = st->eager || partial ? st->eff.moe_host_s * kernels * (3 + (full ? 1 : 0)) +
                                              (rmoe ? st->eff.moe_host_s * (block_k - MOE_OUTER_KERNELS) : 0)
                                        : 0;
    /* activations: the attention half, then the block's inputs, router scores, expert inputs
     * and activations, expert outputs (for the routing-probability gradient), shared expert */
    double block = 0;
    /* FP8: Transformer Engine saves the FP8 inputs of the expert FC1 and FC2 (memory.c) */
    double low = st->prec != GPUECON_BF16 ? 1 : 0;
    if (rmoe)
        block = block_input_bytes(st, T, seq_div);
    else if (!full)
        block = T * (4 + (st->dropout ? 1 : 0)) * h / seq_div + n * st->E * 8 + R * ((2 - low) * h + (act_w - low) * fo) +
                n * st->topk * phi * h * 2 + T * (act_w - low) * fsl;
    lc->m_act_bytes = lc->attn_act_bytes + block;
    double full_block = T * 4 * h / seq_div + n * st->E * 8 + R * (2 * h + act_w * fo) + n * st->topk * phi * h * 2 +
                        T * act_w * fsl;
    lc->m_work_bytes = (lc->rc != GPUECON_RECOMPUTE_NONE ? lc->attn_work_bytes + full_block : 0) + 2 * S +
                       (etp > 1 ? R * h * 2 : 0);
    info->local_experts = El;
    info->tokens_per_expert = M;
    info->load_factor = phi;
    info->grouped_gemm_eff = g > 0 ? gemm_flops / (g * st->peak) : 0;
    info->a2a_total_s = lc->m_ep_s;
    info->dispatcher = disp;
    info->cuda_graph_scope = st->eager ? -1 : st->graph_scope;
    info->host_s = lc->m_host_s;
}

/* The time the dispatcher changes: the layer's compute (the NCCL path's permute copies), its
 * recompute, host launches and the dispatch/combine exposed without overlap. */
static double layer_key(const train_layer_cost *lc)
{
    return lc->m_fwd_s + lc->m_bwd_s + lc->m_rc_s + lc->m_host_s + lc->m_ep_s;
}

void moe_layer(const train_static *st, int ep, int etp, train_layer_cost *lc)
{
    if (st->dispatcher != GPUECON_DISPATCH_SEARCH) {
        layer_with(st, st->dispatcher, ep, etp, lc);
        return;
    }
    /* a flex-dispatcher stack: per expert layout, the dispatcher whose layer is fastest (the
     * memory terms do not depend on it); ties keep the earlier of HybridEP, DeepEP, NCCL */
    static const gpuecon_dispatcher order[] = {GPUECON_DISPATCH_HYBRIDEP, GPUECON_DISPATCH_DEEPEP,
                                               GPUECON_DISPATCH_NCCL_A2A};
    train_layer_cost best = *lc;
    layer_with(st, order[0], ep, etp, &best);
    for (int i = 1; i < 3 && (ep > 1 || etp > 1); i++) {
        train_layer_cost c = *lc;
        layer_with(st, order[i], ep, etp, &c);
        if (layer_key(&c) < layer_key(&best))
            best = c;
    }
    *lc = best;
}

double moe_layer_floor(const train_static *st, const train_layer_cost *lc)
{
    /* moe_layer's terms with every layout-dependent part at its least: the load factor at one
     * expert group (the balanced 1, or the capacity factor or imbalance, which do not depend
     * on ep), the expert GEMMs without tile padding and with one kernel each (the rows times
     * the widths, El*M*fw and El*M*fo, do not depend on ep or etp), etp's extra bytes and the
     * all-to-all left out */
    const int tp = lc->tp;
    const bool full = lc->rc == GPUECON_RECOMPUTE_FULL;
    const bool rmoe = lc->rc == GPUECON_RECOMPUTE_SELECTIVE && lc->rc_moe;
    double T = lc->mbs * (double)st->seq / lc->cp, h = st->h, seq_div = (st->sp && tp > 1) ? tp : 1;
    double n = T / tp, phi = st->cf > 0 || st->imbalance >= 1 ? moe_load_factor(st, 1) : 1;
    double R = n * st->topk * phi, fo = st->fe, ks = st->eff.kernel_s;
    double g = st->eff.grouped_gemm > 0 ? st->eff.grouped_gemm : 1;
    double eff = st->peak * (st->prec == GPUECON_FP8   ? st->eff.gemm_fp8
                             : st->prec == GPUECON_FP4 ? st->eff.gemm_fp4
                                                       : st->eff.gemm_bf16) * g;
    double gemm = 2 * R * h * st->mats * st->fe / eff + 2 * ks;
    train_layer_cost sh = *lc;
    if (!sh.moe_shared_set)
        moe_shared(st, &sh);
    double router = sh.moe_router_s, s1 = sh.moe_s1_s, s2 = sh.moe_s2_s, stp = sh.moe_stp_s, fsl = st->fs / tp;
    if (rmoe)
        stp += sh.moe_stp_fwd_s;
    double bytes = block_bytes(st, st->dispatcher == GPUECON_DISPATCH_NCCL_A2A, T, n, R, R, fo, fsl, seq_div);
    double nk_f = 12 + (st->prec != GPUECON_BF16 ? 4 : 0), nk_b = 16 + (st->prec != GPUECON_BF16 ? 8 : 0);
    double moe_f = router + gemm + s1 + s2 + bytes / st->hbm_bps + nk_f * ks;
    double moe_b = 2 * (router + gemm + s1 + s2) + 2 * bytes / st->hbm_bps + nk_b * ks;
    double fwd = lc->attn_fwd_s + moe_f, bwd = lc->attn_bwd_s + moe_b;
    double rc_block = rmoe ? block_rc(st, router + gemm + s1 + s2, bytes, T, seq_div, nk_f) : 0;
    double rc = full ? fwd : lc->attn_rc_s + rc_block;
    /* a margin for rounding: the same sums in another order */
    return (fwd + bwd + rc + lc->attn_tp_s + stp) * (1 - 1e-9);
}

