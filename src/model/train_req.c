/*
 * train_req.c — the training request: its defaults (a modern Megatron/NeMo run) and the
 * checks of its fixed sizes against the model and the GPU count, each refusal naming the
 * constraint (docs/model.md §3.5, §4.2); and E[max of n normals] for the straggler and the
 * dropless expert load. Split from train.c, which keeps the step itself.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gpuecon_train_request_init(gpuecon_train_request *req)
{
    memset(req, 0, sizeof *req);
    req->precision = GPUECON_BF16;
    req->tp = req->pp = req->vpp = req->cp = req->ep = req->mbs = GPUECON_SEARCH;
    req->recompute = req->zero = req->tp_overlap = GPUECON_SEARCH;
    req->sequence_parallel = true;
    req->dp_overlap = true;
    req->dropout = false;
    req->attn_impl = GPUECON_ATTN_IMPL_FLASH;
    req->etp = req->a2a_overlap = GPUECON_SEARCH;
    req->capacity_factor = 0;
    req->moe_imbalance = 0;
    req->mtp = -1;
    req->cuda_graphs = true;
    req->fp8_recipe = GPUECON_FP8_DELAYED;
    req->dispatcher = GPUECON_DISPATCH_NCCL_A2A;
}

const char *gpuecon_fp8_recipe_name(gpuecon_fp8_recipe r)
{
    static const char *const n[] = {"delayed", "tensorwise", "mxfp8", "blockwise"};
    return (unsigned)r < 4 ? n[r] : "unknown";
}

void gpuecon_graph_scope_name(int scope, char *buf, size_t cap)
{
    static const char *const part[] = {"attn", "moe_router", "moe_preprocess"};
    if (!buf || cap == 0)
        return;
    snprintf(buf, cap, "%s", scope < 0 ? "off" : "full");
    if (scope <= 0)
        return;
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < 3 && n < cap; i++)
        if (scope & (1 << i))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "", part[i]);
}

const char *gpuecon_dispatcher_name(gpuecon_dispatcher d)
{
    static const char *const n[] = {"nccl-a2a", "deepep", "hybridep"};
    return d == GPUECON_DISPATCH_SEARCH ? "search" : (unsigned)d < 3 ? n[d] : "unknown";
}

void gpuecon_train_request_apply_stack(gpuecon_train_request *req, const gpuecon_stack *k)
{
    if (!req || !k)
        return;
    req->stack = k;
    req->tp_overlap = k->tp_overlap ? GPUECON_SEARCH : 0;
    req->dp_overlap = k->dp_overlap;
    req->a2a_overlap = k->ep_overlap ? GPUECON_SEARCH : 0;
    req->attn_impl = (gpuecon_attn_impl)k->attention;
    req->precision = k->precision == 1 ? GPUECON_FP8 : GPUECON_BF16;
    req->fusion = (gpuecon_fusion)k->fusion;
    req->selective_op = k->selective_recompute == 1;
    req->kv_repeat = k->kv_repeat;
    req->cp_comm = k->cp_comm;
    req->sequence_parallel = k->sequence_parallel;
    req->dropout = k->dropout;
    req->cuda_graphs = k->cuda_graphs;
    req->tp_async_grad = k->tp_async_grad;
    req->grad_reduce_bytes = k->grad_reduce == 1 ? 2 : k->grad_reduce == 2 ? 0 : 4; /* 0: by precision */
    req->fp8_param = k->fp8_param;
    req->optim_state_bytes = k->optimizer_states == 1 ? 2 : 4;
    req->fp8_recipe = (gpuecon_fp8_recipe)k->fp8_recipe;
    req->dispatcher = k->flex_dispatcher ? GPUECON_DISPATCH_SEARCH : (gpuecon_dispatcher)k->dispatcher;
    req->fp8_dispatch = k->fp8_dispatch;
}

/* The recipe fields of a request against its GPU and model (GPUECON_E_INPUT naming the
 * constraint): MXFP8 needs Blackwell, FP8-only weights need an FP8 recipe with them, a
 * dispatcher other than NCCL needs experts, offload needs a host link. */
static int check_recipe(const gpuecon_train_request *req, gpuecon_error *err)
{
    const gpuecon_gpu *g = req->system->gpu;
    bool blackwell = g->arch && strncmp(g->arch, "blackwell", 9) == 0;
    if ((unsigned)req->attn_impl > GPUECON_ATTN_IMPL_FA2)
        return err_set(err, GPUECON_E_INPUT, OPTION("attention"), 0, 0, "allowed: flash, unfused, fa2");
    if ((unsigned)req->cp_comm > 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("cp_comm"), 0, 0, "allowed: ring, allgather");
    if ((unsigned)req->fusion > GPUECON_FUSION_EAGER)
        return err_set(err, GPUECON_E_INPUT, OPTION("fusion"), 0, 0, "allowed: fused, compiled, eager");
    if ((unsigned)req->fp8_recipe > GPUECON_FP8_BLOCKWISE)
        return err_set(err, GPUECON_E_INPUT, OPTION("fp8_recipe"), 0, 0, "allowed: delayed, tensorwise, mxfp8, blockwise");
    if (req->precision == GPUECON_FP8 && req->fp8_recipe == GPUECON_FP8_MXFP8 && !blackwell)
        return err_set(err, GPUECON_E_INPUT, OPTION("fp8_recipe"), 0, 0,
                       "mxfp8 needs Blackwell tensor cores (1x32 block scales); %s is %s: use tensorwise, "
                       "delayed or blockwise", g->name, g->arch ? g->arch : "?");
    if (req->dispatcher != GPUECON_DISPATCH_SEARCH && (unsigned)req->dispatcher > GPUECON_DISPATCH_HYBRIDEP)
        return err_set(err, GPUECON_E_INPUT, OPTION("dispatcher"), 0, 0, "allowed: nccl-a2a, deepep, hybridep");
    if (req->optim_state_bytes != 0 && req->optim_state_bytes != 2 && req->optim_state_bytes != 4)
        return err_set(err, GPUECON_E_INPUT, OPTION("optimizer_states"), 0, 0, "allowed: fp32 (4 bytes) or bf16 (2)");
    if (req->grad_reduce_bytes < 0 || req->grad_reduce_bytes > 4 || req->grad_reduce_bytes == 3)
        return err_set(err, GPUECON_E_INPUT, OPTION("grad_reduce"), 0, 0, "allowed: fp32 (4 bytes), bf16 (2) or fp8 (1)");
    int off = req->offload_layers;
    if (off != GPUECON_SEARCH && (off < 0 || off > req->model->layers))
        return err_set(err, GPUECON_E_INPUT, OPTION("offload_layers"), 0, 0, "%d: allowed 0 to the %d layers of %s", off,
                       req->model->layers, req->model->name);
    if (off != 0 && !(req->system->host_link_gbps > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("offload_layers"), 0, 0,
                       "%s has no host_link_gbps (CPU-GPU link) in the catalog; offload cannot be timed",
                       req->system->name);
    if (off > 0 && req->pp > 0) {
        int per = (req->model->layers + req->pp - 1) / req->pp;
        if (off > per)
            return err_set(err, GPUECON_E_INPUT, OPTION("offload_layers"), 0, 0,
                           "%d layers is more than a pipeline stage holds (%d layers over pp %d: at most %d)", off,
                           req->model->layers, req->pp, per);
    }
    return GPUECON_OK;
}

static bool searched(int v)
{
    return v == GPUECON_SEARCH || v == 0;
}

int train_check_request(const gpuecon_train_request *req, gpuecon_error *err)
{
    const gpuecon_model *m = req->model;
    if (!m || !req->system || !req->system->gpu)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a model and a system (with its GPU) are required");
    int rc;
    if ((rc = err_check_range(err, OPTION("gpus"), req->gpus, 1, 1 << 22)) ||
        (rc = err_check_range(err, OPTION("seq"), req->seq, 1, 1 << 24)) ||
        (rc = err_check_range(err, OPTION("gbs"), req->gbs, 1, 1 << 26)))
        return rc;
    if (m->experts == 0 && !searched(req->ep) && req->ep != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("ep"), 0, 0,
                       "expert parallelism needs a mixture-of-experts model; %s is dense (use 1)", m->name);
    if (m->experts == 0 && req->mtp > 0)
        return err_set(err, GPUECON_E_INPUT, OPTION("mtp"), 0, 0,
                       "multi-token prediction is modelled for mixture-of-experts models; %s is dense", m->name);
    if (m->experts == 0 && !searched(req->etp) && req->etp != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("etp"), 0, 0,
                       "expert tensor parallelism needs a mixture-of-experts model; %s is dense (use 1)", m->name);
    int tp = req->tp, pp = req->pp, vpp = req->vpp, cp = req->cp, mbs = req->mbs;
    if (!searched(tp)) {
        if (tp < 1 || m->heads % tp)
            return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0, "%d does not divide the %d attention heads of %s",
                           tp, m->heads, m->name);
        if (m->kv_heads % tp)
            return err_set(err, GPUECON_E_INPUT, OPTION("tp"), 0, 0,
                           "%d does not divide the %d key-value heads of %s (grouped-query attention "
                           "needs kv_heads %% tp == 0)", tp, m->kv_heads, m->name);
    }
    if (!searched(pp) && (pp < 1 || pp > m->layers))
        return err_set(err, GPUECON_E_INPUT, OPTION("pp"), 0, 0, "%d is above the %d layers of %s (allowed 1 to %d)",
                       pp, m->layers, m->name, m->layers);
    if (!searched(vpp)) {
        if (vpp < 1)
            return err_set(err, GPUECON_E_INPUT, OPTION("vpp"), 0, 0, "%d: virtual stages per GPU must be at least 1", vpp);
        if (!searched(pp) && (long)pp * vpp > m->layers + 2)
            return err_set(err, GPUECON_E_INPUT, OPTION("vpp"), 0, 0,
                           "pp x vpp = %d virtual stages is above the %d layers of %s plus the embedding and "
                           "the loss", pp * vpp, m->layers, m->name);
        /* pp searched: interleaving needs pp >= 2, so vpp is at most (layers + 2) / 2 whatever pp is
           chosen (a larger one was once reported as a global batch that no layout divides) */
        if (searched(pp) && vpp > 1 && vpp > (m->layers + 2) / 2)
            return err_set(err, GPUECON_E_INPUT, OPTION("vpp"), 0, 0,
                           "%d virtual stages per GPU is above what %s's %d layers allow with pipeline parallelism "
                           "(pp >= 2 and pp x vpp <= layers + 2: at most %d)", vpp, m->name, m->layers,
                           (m->layers + 2) / 2);
        if (!searched(pp) && pp == 1 && vpp > 1)
            return err_set(err, GPUECON_E_INPUT, OPTION("vpp"), 0, 0, "interleaving (vpp %d) needs pipeline parallelism (pp > 1)", vpp);
    }
    if (!searched(cp) && (cp < 1 || (cp > 1 && req->seq % (2 * cp))))
        return err_set(err, GPUECON_E_INPUT, OPTION("cp"), 0, 0,
                       "the sequence of %d tokens must split into 2 x cp = %d equal chunks "
                       "(load-balanced causal context parallelism)", req->seq, 2 * cp);
    long fixed = 1;
    if (!searched(tp))
        fixed *= tp;
    if (!searched(cp))
        fixed *= cp;
    if (!searched(pp))
        fixed *= pp;
    if (req->gpus % fixed)
        return err_set(err, GPUECON_E_INPUT, OPTION("gpus"), 0, 0,
                       "the product tp x cp x pp = %ld does not divide the %d GPUs", fixed, req->gpus);
    if (!searched(mbs) && (mbs < 1 || req->gbs % mbs))
        return err_set(err, GPUECON_E_INPUT, OPTION("mbs"), 0, 0, "the global batch of %d sequences is not divisible by mbs %d",
                       req->gbs, mbs);
    if (!searched(tp) && !searched(cp) && !searched(pp)) {
        int dp = req->gpus / (int)fixed;
        long per = (long)dp * (searched(mbs) ? 1 : mbs);
        if (req->gbs % per)
            return err_set(err, GPUECON_E_INPUT, OPTION("gbs"), 0, 0,
                           "%d sequences do not divide into dp %d x mbs %d (dp = gpus / (tp x cp x pp))",
                           req->gbs, dp, searched(mbs) ? 1 : mbs);
    }
    if (req->recompute != GPUECON_SEARCH && (req->recompute < 0 || req->recompute > GPUECON_RECOMPUTE_FULL))
        return err_set(err, GPUECON_E_INPUT, OPTION("recompute"), 0, 0, "allowed: none, selective, full");
    if (req->zero != GPUECON_SEARCH && (req->zero < 0 || req->zero > 3))
        return err_set(err, GPUECON_E_INPUT, OPTION("zero"), 0, 0, "%d: allowed 0 to 3", req->zero);
    if (req->tp_overlap != GPUECON_SEARCH && req->tp_overlap != 0 && req->tp_overlap != 1)
        return err_set(err, GPUECON_E_INPUT, OPTION("tp_overlap"), 0, 0, "allowed 0 or 1");
    if ((rc = check_recipe(req, err)))
        return rc;
    int gs = req->cuda_graph_scope;
    char name[64]; /* the scope's own name, formatted only for a message */
    if (gs & ~(GPUECON_GRAPH_ATTN | GPUECON_GRAPH_MOE_ROUTER | GPUECON_GRAPH_MOE_PREPROCESS))
        return err_set(err, GPUECON_E_INPUT, OPTION("cuda_graph_scope"), 0, 0,
                       "mask %d: allowed full, or attn, moe_router and moe_preprocess", gs);
    if ((gs & GPUECON_GRAPH_MOE_PREPROCESS) && !(gs & GPUECON_GRAPH_MOE_ROUTER)) {
        gpuecon_graph_scope_name(gs, name, sizeof name);
        return err_set(err, GPUECON_E_INPUT, OPTION("cuda_graph_scope"), 0, 0,
                       "'%s': moe_preprocess is captured only together with moe_router (as Megatron-Core requires)",
                       name);
    }
    if (gs && !req->cuda_graphs) {
        gpuecon_graph_scope_name(gs, name, sizeof name);
        return err_set(err, GPUECON_E_INPUT, OPTION("cuda_graph_scope"), 0, 0,
                       "'%s' captures part of each layer in CUDA graphs, but CUDA graphs are off (" OPTION("cuda_graphs") " "
                       "off or the stack's)", name);
    }
    return m->experts > 0 ? moe_check_request(req, err) : GPUECON_OK;
}

