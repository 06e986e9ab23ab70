/*
 * dispatch.c — one mixture-of-experts dispatch (or combine) as the frameworks do it
 * (docs/model.md §4.9); used by moe.c for training and available to serving.
 *
 * NCCL's all-to-all (Megatron's alltoall dispatcher) permutes top_k copies of every token and
 * sends each to its expert's GPU: comm.c's all-to-all of S = tokens·top_k·φ·h·bytes.
 * Deduplicating dispatchers (DeepEP, HybridEP; Megatron's flex dispatcher) send a token once
 * per destination scale-up domain over the network, to the GPU on the same rail, which
 * forwards it over NVLink to the GPUs holding its experts, each GPU once (DeepSeek-V3 report
 * §3.2.2; Megatron-LM moe/README: "removes redundant tokens during cross-node communication").
 * Node-limited routing (the model's routing groups, Megatron's moe_router_num_groups set to
 * the nodes of the EP group) caps the domains a token reaches.
 *
 * Key choice: expected distinct destinations with experts spread evenly and chosen uniformly
 * (the published benchmarks force-balance the routing): of D domains a top-k token reaches
 * D·(1 − (1 − 1/D)^k); node-limited to M of G groups, with G/D groups per domain,
 * D·(1 − C(G − G/D, M)/C(G, M)). Of those, (D−1)/D are remote. DeepSeek-V3 on EP 64 over 8
 * nodes (8 groups, 4 per token): 4 domains, 3.5 remote copies against NCCL's 8·56/64 = 7.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

/* Achieved fraction of the line rate, per dispatcher and link, from the kernel benchmarks:
 * network (RDMA): DeepEP normal kernels 43–58 GB/s "bottleneck bandwidth" over CX7 400 Gbit/s
 *   (50 GB/s) at EP 16–64 on H800 (deepseek-ai/DeepEP docs/legacy.md): 0.90; HybridEP 50.6–
 *   76.8 GB/s at 16–64 ranks on H100 with 8 SMs (kernel only; DeepEP branch hybrid-ep,
 *   DeepEP docs/README_Hybrid-EP.md): 0.95;
 * NVLink of an 8-GPU server: DeepEP intranode 153/158 GB/s of the H800's 200 GB/s per
 *   direction: 0.77 (HybridEP publishes no intranode HGX figure: the same);
 * multi-node NVLink (NVL72): DeepEP about 400 GB/s dispatch and 190 combine at EP 32 of 900
 *   (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization §2.2.1 @eb0783b6): 0.33;
 *   HybridEP 484 / 465 GB/s at 32 ranks on GB200 (README_Hybrid-EP.md): 0.52. */
static const double eff_net[] = {0, 0.90, 0.95};
static const double eff_nvl8[] = {0, 0.77, 0.77};
static const double eff_mnnvl[] = {0, 0.33, 0.52};

/* Expected distinct domains of D a token's k experts fall in (groups G, M per token). */
static double distinct_domains(int D, int k, int G, int M)
{
    if (D <= 1)
        return 1;
    if (G > 0 && M > 0 && M < G) {
        if (G >= D) {
            double per = (double)G / D, p = 1; /* P(a domain holds none of the M groups) */
            for (int i = 0; i < M && p > 0; i++)
                p *= fmax(G - per - i, 0) / (G - i);
            return D * (1 - p);
        }
        double span = (double)M * D / G; /* a group spans D/G domains */
        return span * (1 - pow(1 - 1 / span, k));
    }
    return D * (1 - pow(1 - 1.0 / D, k));
}

double comm_dispatch(const comm_link *L, const gpuecon_dispatch_request *q, gpuecon_dispatch_result *out)
{
    memset(out, 0, sizeof *out);
    int n = q->ep, g, D;
    comm_placement(L->scaleup_gpus, n, q->stride, &g, &D);
    out->domains = D;
    if (n <= 1)
        return 0;
    double tok = q->tokens * q->load_factor * q->hidden * q->bytes_per_elem; /* one copy of every token */
    if (q->dispatcher == GPUECON_DISPATCH_NCCL_A2A) {
        double S = tok * q->top_k;
        out->time_s = comm_time(L, GPUECON_ALL_TO_ALL, n, q->stride, S);
        out->copies_per_token = q->top_k * (n - 1.0) / n;
        out->remote_domains = q->top_k * (double)(n - g) / n;
        out->inter_bytes = S * (n - g) / n;
        out->intra_bytes = S * ((g - 1.0) / n + (double)(n - g) / n * (g - 1) / g);
        out->intra_fraction = (g - 1.0) / n;
        return out->time_s;
    }
    int d = (unsigned)q->dispatcher <= GPUECON_DISPATCH_HYBRIDEP ? q->dispatcher : GPUECON_DISPATCH_DEEPEP;
    double gpus = n * (1 - pow(1 - 1.0 / n, q->top_k)); /* distinct GPUs a token reaches */
    out->copies_per_token = gpus * (n - 1.0) / n;
    out->remote_domains = D > 1 ? distinct_domains(D, q->top_k, q->groups, q->groups_per_token) * (D - 1.0) / D : 0;
    out->inter_bytes = tok * out->remote_domains;
    out->intra_bytes = tok * out->copies_per_token;
    double all = out->inter_bytes + out->intra_bytes;
    out->intra_fraction = all > 0 ? out->intra_bytes / all : 1;
    double nvl = L->up_line * (L->scaleup_gpus > 8 ? eff_mnnvl[d] : eff_nvl8[d]);
    double t_in = nvl > 0 ? out->intra_bytes / nvl : 0;
    double t_out = D > 1 ? out->inter_bytes / (L->out_line * eff_net[d]) : 0;
    out->time_s = L->launch_s + (D > 1 ? L->a_out : L->a_up) + fmax(t_in, t_out);
    return out->time_s;
}

int gpuecon_moe_dispatch(const gpuecon_system *s, const gpuecon_link_model *lm, const gpuecon_dispatch_request *q,
                         gpuecon_dispatch_result *out, gpuecon_error *err)
{
    if (!s || !q || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a system, a request and a result are required");
    if (!(s->scaleup_gbps > 0) || !(s->scaleout_gbps > 0))
        return err_set(err, GPUECON_E_INPUT, OPTION("system"), 0, 0, "%s lacks bandwidths", s->name ? s->name : "?");
    if (q->ep < 1 || q->stride < 1 || !(q->tokens >= 0) || q->experts < 1 || q->experts % q->ep)
        return err_set(err, GPUECON_E_INPUT, OPTION("ep"), 0, 0,
                       "ep %d, stride %d: need ep >= 1 dividing the %d experts, stride >= 1, tokens >= 0", q->ep,
                       q->stride, q->experts);
    if (q->top_k < 1 || q->top_k > q->experts)
        return err_set(err, GPUECON_E_INPUT, "top_k", 0, 0, "%d: allowed 1 to the %d experts", q->top_k, q->experts);
    if (q->groups > 0 && (q->groups_per_token < 1 || q->groups_per_token > q->groups))
        return err_set(err, GPUECON_E_INPUT, "groups_per_token", 0, 0, "%d: allowed 1 to the %d groups",
                       q->groups_per_token, q->groups);
    if (!(q->hidden > 0) || !(q->bytes_per_elem > 0) || !(q->load_factor >= 1) ||
        (unsigned)q->dispatcher > GPUECON_DISPATCH_HYBRIDEP)
        return err_set(err, GPUECON_E_INPUT, "dispatch", 0, 0,
                       "hidden and bytes per element must be > 0, the load factor >= 1, the dispatcher one of "
                       "nccl-a2a, deepep, hybridep");
    comm_link L;
    comm_link_init(&L, s, lm);
    comm_dispatch(&L, q, out);
    return GPUECON_OK;
}
