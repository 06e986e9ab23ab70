/*
 * comm.c — collectives on a two-level topology (scale-up domains joined by a network).
 *
 * NCCL-tests' alpha-beta view (nccl-tests doc/PERFORMANCE.md): an operation of nccl-tests
 * size S over n ranks takes  latency + S·f(n)/busbw, with f the bus-bandwidth factor of the
 * operation, and busbw the bandwidth of the bottleneck link times an achievable efficiency.
 *
 * Key choice: placement is explicit. Ranks are numbered domain by domain; a group is the
 * ranks r, r+stride, r+2·stride, ... so TP (stride 1) packs into a domain first, then CP,
 * PP, DP. g members of the group share a domain; a group spanning several domains runs a
 * ring through each domain's NVLink and out of g NICs in parallel (rail-optimised fabric,
 * one NIC per GPU), so its bus bandwidth is min(B_up, g·B_out); all-to-all splits into an
 * intra-domain share on NVLink and an inter-domain share on the network, which overlap
 * (docs/model.md §4.1): the network share runs at the achievable all-to-all bandwidth of a
 * NIC (many concurrent peer flows, lower than a ring's), the NVLink share also carries the
 * hop that moves inter-domain traffic to the GPU on the destination's rail (NCCL PXN), and
 * every peer costs a little latency, which is what small messages pay.
 */
#include "model/model.h"
#include "train.h"

#include <math.h>
#include <string.h>

const char *gpuecon_coll_op_name(gpuecon_coll_op op)
{
    static const char *const names[GPUECON_COLL_OP_COUNT] = {
        "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv"};
    return (unsigned)op < GPUECON_COLL_OP_COUNT ? names[op] : "unknown";
}

const char *gpuecon_link_level_name(gpuecon_link_level level)
{
    switch (level) {
    case GPUECON_LEVEL_LOCAL: return "local";
    case GPUECON_LEVEL_SCALEUP: return "scale-up";
    case GPUECON_LEVEL_SCALEOUT: return "scale-out";
    }
    return "unknown";
}

double gpuecon_busbw_factor(gpuecon_coll_op op, int gpus)
{
    double n = gpus;
    if (gpus <= 1)
        return op == GPUECON_SEND_RECV ? 1 : 0;
    switch (op) {
    case GPUECON_ALL_REDUCE: return 2 * (n - 1) / n;
    case GPUECON_ALL_GATHER:
    case GPUECON_REDUCE_SCATTER:
    case GPUECON_ALL_TO_ALL: return (n - 1) / n;
    case GPUECON_SEND_RECV: return 1;
    default: return 0;
    }
}

void gpuecon_link_model_for(const gpuecon_system *s, gpuecon_link_model *out)
{
    const gpuecon_efficiency *e = gpuecon_efficiency_for(s ? s->gpu : NULL);
    out->scaleup_eff = e->scaleup_busbw;
    out->scaleout_eff = e->scaleout_busbw;
    out->launch_s = e->coll_launch_s;
    out->a2a_scaleout_eff = e->scaleout_a2a;
}

void comm_placement(int scaleup_gpus, int gpus, int stride, int *per_domain, int *domains)
{
    int d = scaleup_gpus > 0 ? scaleup_gpus : 1;
    int g = stride >= d ? 1 : d / stride;
    if (g > gpus)
        g = gpus;
    if (g < 1)
        g = 1;
    *per_domain = g;
    *domains = (gpus + g - 1) / g;
}

/* Ring: 2(n-1) (all-reduce) or (n-1) steps, each as slow as the slowest hop. Tree (NCCL's
 * double binary tree, all-reduce only): a chain inside each domain plus a binary tree
 * across domains, reduce then broadcast; same bandwidth, logarithmic latency.
 * g members per domain; send-recv is handled by the caller. */
static void collective_core(const comm_link *L, gpuecon_coll_op op, int n, int g, double bytes,
                            gpuecon_coll_algo algo, gpuecon_coll_result *r)
{
    memset(r, 0, sizeof *r);
    if (g > n)
        g = n;
    if (g < 1)
        g = 1;
    int dom = (n + g - 1) / g;
    r->per_domain = g;
    r->domains = dom;
    r->algo = GPUECON_ALGO_RING;
    if (n <= 1) {
        r->level = GPUECON_LEVEL_LOCAL;
        return;
    }
    double f = gpuecon_busbw_factor(op, n);
    if (op == GPUECON_ALL_TO_ALL) {
        /* each rank sends S/n to every peer: (g-1)/n of S over NVLink, (n-g)/n over its NIC;
         * (g-1)/g of the latter first hops over NVLink to the GPU on the peer's rail (PXN).
         * Peers are served concurrently on each level; each costs a quarter of a network hop
         * (proxy work per connection) or an eighth of an NVLink hop. */
        double intra = (double)(g - 1) / n, inter = (double)(n - g) / n;
        r->intra_fraction = intra;
        r->intra_s = bytes * (intra + inter * (g - 1) / g) / L->b_up;
        r->inter_s = bytes * inter / L->b_out_a2a;
        double peers_up = (g - 1) * L->a_up / 8, peers_out = (n - g) * L->a_out / 4;
        r->latency_s = L->launch_s + (dom > 1 ? L->a_out : L->a_up) + (peers_up > peers_out ? peers_up : peers_out);
        r->time_s = r->latency_s + (r->intra_s > r->inter_s ? r->intra_s : r->inter_s);
        r->level = r->inter_s > r->intra_s ? GPUECON_LEVEL_SCALEOUT : GPUECON_LEVEL_SCALEUP;
    } else {
        double busbw, hop;
        if (dom == 1) {
            busbw = L->b_up;
            hop = L->a_up;
            r->level = GPUECON_LEVEL_SCALEUP;
        } else {
            double out = g * L->b_out;
            busbw = out < L->b_up ? out : L->b_up;
            hop = L->a_out;
            r->level = out < L->b_up ? GPUECON_LEVEL_SCALEOUT : GPUECON_LEVEL_SCALEUP;
        }
        double steps = op == GPUECON_ALL_REDUCE ? 2.0 * (n - 1) : (double)(n - 1);
        r->latency_s = L->launch_s + steps * hop;
        r->time_s = r->latency_s + bytes * f / busbw;
        if (op == GPUECON_ALL_REDUCE && dom > 1 && algo != GPUECON_ALGO_RING) {
            double depth = ceil(log2((double)dom));
            double lat = L->launch_s + 2 * (depth * L->a_out + (g - 1) * L->a_up);
            double tree = lat + bytes * f / busbw;
            if (algo == GPUECON_ALGO_TREE || tree < r->time_s) {
                r->time_s = tree;
                r->latency_s = lat;
                r->algo = GPUECON_ALGO_TREE;
            }
        }
    }
    r->algbw_gbps = r->time_s > 0 ? bytes / r->time_s / 1e9 : 0;
    r->busbw_gbps = r->algbw_gbps * f;
}

/* Point to point between two ranks `stride` apart: NVLink when they share a domain. */
static void send_recv(const comm_link *L, int stride, double bytes, gpuecon_coll_result *r)
{
    memset(r, 0, sizeof *r);
    bool same = stride < L->scaleup_gpus;
    r->level = same ? GPUECON_LEVEL_SCALEUP : GPUECON_LEVEL_SCALEOUT;
    r->latency_s = L->launch_s + (same ? L->a_up : L->a_out);
    r->time_s = r->latency_s + bytes / (same ? L->b_up : L->b_out);
    r->per_domain = same ? 2 : 1;
    r->domains = same ? 1 : 2;
    r->algo = GPUECON_ALGO_RING;
    r->algbw_gbps = r->busbw_gbps = bytes / r->time_s / 1e9;
}

void comm_link_init(comm_link *L, const gpuecon_system *s, const gpuecon_link_model *lm)
{
    gpuecon_link_model def;
    if (!lm) {
        gpuecon_link_model_for(s, &def);
        lm = &def;
    }
    L->scaleup_gpus = s->scaleup_gpus > 0 ? s->scaleup_gpus : 1;
    L->up_line = s->scaleup_gbps * 1e9;
    L->out_line = s->scaleout_gbps * 1e9;
    L->b_up = s->scaleup_gbps * 1e9 * lm->scaleup_eff;
    L->b_out = s->scaleout_gbps * 1e9 * lm->scaleout_eff;
    L->b_out_a2a = s->scaleout_gbps * 1e9 * (lm->a2a_scaleout_eff > 0 ? lm->a2a_scaleout_eff : lm->scaleout_eff);
    L->a_up = s->scaleup_latency_us * 1e-6;
    L->a_out = s->scaleout_latency_us * 1e-6;
    L->launch_s = lm->launch_s;
}

double comm_time(const comm_link *L, gpuecon_coll_op op, int n, int stride, double bytes)
{
    if (bytes <= 0 || (n <= 1 && op != GPUECON_SEND_RECV))
        return 0;
    gpuecon_coll_result r;
    if (op == GPUECON_SEND_RECV) {
        send_recv(L, stride, bytes, &r);
        return r.time_s;
    }
    int g, dom;
    comm_placement(L->scaleup_gpus, n, stride, &g, &dom);
    collective_core(L, op, n, g, bytes, GPUECON_ALGO_AUTO, &r);
    return r.time_s;
}

double comm_time_g(const comm_link *L, gpuecon_coll_op op, int n, int g, double bytes)
{
    if (bytes <= 0 || n <= 1)
        return 0;
    gpuecon_coll_result r;
    collective_core(L, op, n, g, bytes, GPUECON_ALGO_AUTO, &r);
    return r.time_s;
}

int gpuecon_collective_ex(const gpuecon_system *s, const gpuecon_link_model *lm, gpuecon_coll_op op,
                          int gpus, int stride, double bytes, gpuecon_coll_algo algo,
                          gpuecon_coll_result *out, gpuecon_error *err)
{
    int rc;
    if (!s || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a system and a result are required");
    if ((unsigned)op >= GPUECON_COLL_OP_COUNT)
        return err_set(err, GPUECON_E_INPUT, OPTION("op"), 0, 0, "unknown collective operation");
    if ((rc = err_check_range(err, OPTION("gpus"), gpus, 1, 1 << 24)) ||
        (rc = err_check_range(err, OPTION("stride"), stride, 1, 1 << 24)) ||
        (rc = err_check_range(err, OPTION("bytes"), bytes, 0, 1e15)))
        return rc;
    if (algo == GPUECON_ALGO_TREE && op != GPUECON_ALL_REDUCE) /* it was ignored: a ring was timed */
        return err_set(err, GPUECON_E_INPUT, OPTION("algo"), 0, 0,
                       "tree is an all-reduce algorithm; NCCL runs all-gather and reduce-scatter as rings and "
                       "all-to-all and send-recv point to point (allowed for this op: auto, ring)");
    if ((unsigned)algo > GPUECON_ALGO_TREE)
        return err_set(err, GPUECON_E_INPUT, OPTION("algo"), 0, 0, "unknown algorithm; allowed auto, ring, tree");
    if (op == GPUECON_SEND_RECV && gpus != 2)
        return err_set(err, GPUECON_E_INPUT, OPTION("gpus"), 0, 0,
                       "send-recv is between 2 GPUs (the peer is " OPTION("stride") " ranks away), not %d", gpus);
    if (!(s->scaleup_gbps > 0) || !(s->scaleout_gbps > 0))
        return err_set(err, GPUECON_E_INPUT, s->name ? s->name : "system", 0, 0,
                       "needs scaleup_gbps and scaleout_gbps above 0");
    if (lm && (!(lm->scaleup_eff > 0 && lm->scaleup_eff <= 1) ||
               !(lm->scaleout_eff > 0 && lm->scaleout_eff <= 1) || !(lm->launch_s >= 0) ||
               !(lm->a2a_scaleout_eff >= 0 && lm->a2a_scaleout_eff <= 1)))
        return err_set(err, GPUECON_E_INPUT, "link model", 0, 0,
                       "efficiencies must be in (0, 1] and the launch time >= 0");
    comm_link L;
    comm_link_init(&L, s, lm);
    if (op == GPUECON_SEND_RECV) {
        send_recv(&L, stride, bytes, out);
        return GPUECON_OK;
    }
    int g, dom;
    comm_placement(L.scaleup_gpus, gpus, stride, &g, &dom);
    collective_core(&L, op, gpus, g, bytes, algo, out);
    return GPUECON_OK;
}

int gpuecon_collective(const gpuecon_system *s, gpuecon_coll_op op, int gpus, int stride, double bytes,
                       gpuecon_coll_algo algo, gpuecon_coll_result *out, gpuecon_error *err)
{
    return gpuecon_collective_ex(s, NULL, op, gpus, stride, bytes, algo, out, err);
}
