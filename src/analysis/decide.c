/*
 * decide.c — the verdict and what would change it: ranking of evaluated platforms
 * (compare.c), root finding for break-even values, one-at-a-time sensitivity, and the
 * batch-size penalty of McCandlish et al. (2018) that puts platforms on the same quality.
 *
 * Break-even inputs (MTBI, TCO, throughput, PUE, electricity price) are positive and the
 * effective cost is monotone in each, so a sign change of "my cost − the rival's cost" over a
 * wide multiplicative bracket brackets exactly one root; the Illinois method (Dowell and
 * Jarratt 1971) in log x converges superlinearly and never leaves the bracket.
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "io/fields.h"
#include "model/names.h"
#include "decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool decide_root(decide_fn f, void *ud, double lo, double hi, double rtol, double *root, int *evals)
{
    int n = 0;
    if (!(lo > 0) || !(hi > lo))
        return false;
    double a = log(lo), b = log(hi);
    double fa = f(lo, ud), fb = f(hi, ud);
    n += 2;
    /* an end where f is undefined (e.g. no goodput left at a tiny MTBI) moves inwards until f
       is defined, so the bracket covers every input value the model can evaluate */
    for (int k = 0; k < 60 && !isfinite(fa) && b - a > rtol; k++, n++) {
        a += (b - a) / 8;
        fa = f(exp(a), ud);
    }
    for (int k = 0; k < 60 && !isfinite(fb) && b - a > rtol; k++, n++) {
        b -= (b - a) / 8;
        fb = f(exp(b), ud);
    }
    if (evals)
        *evals = n;
    if (!isfinite(fa) || !isfinite(fb))
        return false;
    if (fa == 0) {
        *root = lo;
        return true;
    }
    if (fb == 0) {
        *root = hi;
        return true;
    }
    if ((fa > 0) == (fb > 0))
        return false;
    int side = 0;
    double c = a;
    for (int it = 0; it < 200; it++) {
        c = (a * fb - b * fa) / (fb - fa);
        double fc = f(exp(c), ud);
        n++;
        if (!isfinite(fc))
            break;
        if (fc == 0 || fabs(b - a) < rtol)
            break;
        if ((fc > 0) == (fb > 0)) {
            b = c;
            fb = fc;
            if (side == -1)
                fa /= 2;
            side = -1;
        } else {
            a = c;
            fa = fc;
            if (side == 1)
                fb /= 2;
            side = 1;
        }
    }
    if (evals)
        *evals = n;
    *root = exp(c);
    return true;
}

/* ==== ranking, verdict, break-even, sensitivity ============================================ */

typedef struct input_desc {
    int k;
    const char *name, *unit, *label;
    bool cost_rises; /* the ranked cost rises with the input */
    bool train_only;
} input_desc;

static const input_desc inputs[] = {
    {IN_MTBI, "mtbi_gpu_days", "GPU-days", "MTBI", false, true},
    {IN_TCO, "tco_usd_per_gpu_hour", "$/GPU-h", "TCO", true, false},
    {IN_TOKS, "tokens_per_s_per_gpu", "tok/s/GPU", "throughput", false, false},
    {IN_PUE, "pue", "", "PUE", true, false},
    {IN_PE, "electricity_usd_per_kwh", "$/kWh", "electricity price", true, false},
};
#define N_INPUTS (sizeof inputs / sizeof inputs[0])

/* Human labels of compare inputs and scenario fields (gpuecon_input_label). */
static const char *const input_labels[][2] = {
    {"mtbi_gpu_days", "MTBI, GPU-days"},
    {"tco_usd_per_gpu_hour", "TCO, $/GPU-h"},
    {"usd_per_gpu_hour", "price paid (rental or negotiated), $/GPU-h"},
    {"tokens_per_s_per_gpu", "throughput, tok/s/GPU"},
    {"measured_tokens_per_s", "throughput, tok/s/GPU"},
    {"pue", "PUE"},
    {"electricity_usd_per_kwh", "electricity, $/kWh"},
    {"spare_policy", "spares charged to the job"},
    {"spares_do_other_work", "spare GPUs earn other work (not charged to the job)"},
    {"start_date", "start date (software in force)"},
    {"gpus", "GPUs"},
    {"tier", "operator tier"},
    {"profile", "TCO profile"},
    {"system", "system"},
    {"model", "model"},
};
#define N_LABELS (sizeof input_labels / sizeof input_labels[0])

const char *gpuecon_input_label(const char *input)
{
    for (size_t i = 0; input && i < N_LABELS; i++)
        if (!strcmp(input_labels[i][0], input))
            return input_labels[i][1];
    return input ? input : "";
}

bool gpuecon_input_label_at(size_t i, const char **input, const char **label)
{
    if (i >= N_LABELS)
        return false;
    *input = input_labels[i][0];
    *label = input_labels[i][1];
    return true;
}

typedef struct root_ctx {
    const pstate *ps;
    int k;
    double target;
} root_ctx;

static double gap(double x, void *ud)
{
    root_ctx *r = ud;
    double in[IN_COUNT];
    memcpy(in, r->ps->in, sizeof in);
    in[r->k] = x;
    return compare_rank_cost(r->ps, in, NULL) / r->target - 1;
}

static gpuecon_source input_source(const pstate *ps,
                                   const gpuecon_platform_result *res, int k)
{
    switch (k) {
    case IN_TOKS: return res->throughput_source;
    case IN_TCO: return res->tco_source;
    case IN_MTBI: return res->mtbi_source;
    case IN_PUE:
        if (ps->pl->pue > 0)
            return platform_source(ps->pl, PF_PUE);
        if (ps->prof && ps->prof->src)
            return ps->prof->src[FIELD_PROFILE_PUE];
        break;
    case IN_PE:
        if (ps->pl->electricity_usd_per_kwh > 0)
            return platform_source(ps->pl, PF_ELECTRICITY_USD_PER_KWH);
        if (ps->prof && ps->prof->src)
            return ps->prof->src[FIELD_PROFILE_ELECTRICITY_USD_PER_KWH];
        break;
    }
    return (gpuecon_source){"scenario", GPUECON_STAGE_ASSUMPTION};
}

static void fmt_value(char *buf, size_t cap, double v, const char *unit)
{
    if (!strcmp(unit, "$/GPU-h") || !strcmp(unit, "$/kWh"))
        snprintf(buf, cap, "$%.3f%s", v, unit + 1);
    else if (v >= 100)
        snprintf(buf, cap, "%.0f%s%s", v, *unit ? " " : "", unit);
    else
        snprintf(buf, cap, "%s%s%s", NUM_SIG(v, 3), *unit ? " " : "", unit);
}

static void breakeven_one(const gpuecon_comparison_result *cr, const pstate *ps,
                          int p, int q, const input_desc *d, gpuecon_breakeven *be)
{
    const gpuecon_platform_result *rp = &cr->platforms[p], *rq = &cr->platforms[q];
    memset(be, 0, sizeof *be);
    be->platform = p;
    be->rival = q;
    be->input = d->name;
    be->unit = d->unit;
    be->current = ps[p].in[d->k];
    be->source = input_source(&ps[p], rp, d->k);
    root_ctx rc = {&ps[p], d->k, rq->rank_usd_per_mtok};
    double lo = be->current / 100, hi = be->current * 100;
    if (d->k == IN_PUE) {
        lo = 1.0;
        hi = 3.0;
    }
    be->found = decide_root(gap, &rc, lo, hi, 1e-9, &be->value, NULL);
    if (!be->found)
        be->value = NAN;
    be->ratio = be->value / be->current;
    char cur[48], val[48];
    fmt_value(cur, sizeof cur, be->current, d->unit);
    fmt_value(val, sizeof val, be->value, d->unit);
    bool winner = p == cr->cheapest;
    /* winner loses when its cost rises; the runner-up wins when its cost falls */
    const char *dir = (winner == d->cost_rises) ? "rises above" : "falls below";
    if (!be->found)
        snprintf(be->text, sizeof be->text, "%s's %s alone cannot %s (tried %s; today %s)", rp->name, d->label,
                 winner ? "lose it the lead" : "make it cheapest",
                 d->k == IN_PUE ? "PUE 1.0 to 3.0" : "100x below to 100x above", cur);
    else if (winner)
        snprintf(be->text, sizeof be->text, "%s stops being cheaper than %s if its %s %s %s; today's %s is %s (%s)",
                 rp->name, rq->name, d->label, dir, val, gpuecon_stage_name(be->source.stage), cur,
                 be->source.text ? be->source.text : "");
    else
        snprintf(be->text, sizeof be->text, "%s becomes cheaper than %s if its %s %s %s; today's %s is %s (%s)",
                 rp->name, rq->name, d->label, dir, val, gpuecon_stage_name(be->source.stage), cur,
                 be->source.text ? be->source.text : "");
}

static void breakeven_spares(const gpuecon_comparison_result *cr, const pstate *ps, int p, int q,
                             gpuecon_breakeven *be)
{
    const gpuecon_platform_result *rp = &cr->platforms[p], *rq = &cr->platforms[q];
    memset(be, 0, sizeof *be);
    be->platform = p;
    be->rival = q;
    be->input = "spare_policy";
    be->unit = "";
    be->current = ps[p].in[IN_SPARES];
    be->value = 1 - be->current;
    be->ratio = NAN;
    be->source = platform_source(ps[p].pl, PF_SPARES_DO_OTHER_WORK);
    double in[IN_COUNT];
    memcpy(in, ps[p].in, sizeof in);
    in[IN_SPARES] = be->value;
    double other = compare_rank_cost(&ps[p], in, NULL);
    bool winner = p == cr->cheapest;
    be->found = winner ? other > rq->rank_usd_per_mtok : other < rq->rank_usd_per_mtok;
    snprintf(be->text, sizeof be->text, "with its %.0f spare GPUs %s, %s %s at %s per 1M tokens (vs %s's %s)",
             rp->charged_gpus - rp->gpus, be->value > 0.5 ? "charged to the job" : "earning other work",
             rp->name, be->found ? (winner ? "would lose the lead" : "would become cheapest")
                                 : (winner ? "would stay cheapest" : "would still not be cheapest"),
             NUM_MONEY(other), rq->name, NUM_MONEY(rq->rank_usd_per_mtok));
}

static double tier_mtbi(const gpuecon_catalog *cat, const char *system, const char *tier)
{
    char name[160];
    snprintf(name, sizeof name, "%s/%s", system, tier);
    const gpuecon_reliability *r = gpuecon_catalog_reliability(cat, name);
    return r ? r->mtbi_gpu_days : NAN;
}

static void sensitivity_one(const gpuecon_catalog *cat, const gpuecon_comparison_result *cr, const pstate *ps,
                            int p, const input_desc *d, double step, gpuecon_sensitivity *s)
{
    memset(s, 0, sizeof *s);
    s->platform = p;
    s->input = d->name;
    double cur = ps[p].in[d->k];
    s->low = cur * (1 - step);
    s->high = cur * (1 + step);
    s->range = "±20%";
    if (d->k == IN_PUE && s->low < 1.0)
        s->low = 1.0;
    if (d->k == IN_MTBI && ps[p].pl->mtbi_gpu_days <= 0) {
        double lo = tier_mtbi(cat, ps[p].pl->system, "poor"), hi = tier_mtbi(cat, ps[p].pl->system, "best");
        if (isfinite(lo) && isfinite(hi) && lo < hi) {
            s->low = lo;
            s->high = hi;
            s->range = "operator tiers poor to best";
        }
    }
    s->source = input_source(&ps[p], &cr->platforms[p], d->k);
    int c = cr->cheapest, r = cr->runner_up;
    double in[IN_COUNT];
    double v[2] = {s->low, s->high}, ratio[2];
    for (int i = 0; i < 2; i++) {
        memcpy(in, ps[p].in, sizeof in);
        in[d->k] = v[i];
        double mine = compare_rank_cost(&ps[p], in, NULL);
        double cc = p == c ? mine : cr->platforms[c].rank_usd_per_mtok;
        double rr = p == r ? mine : cr->platforms[r].rank_usd_per_mtok;
        ratio[i] = cc / rr;
    }
    s->ratio_low = ratio[0];
    s->ratio_high = ratio[1];
    s->swing = fabs(ratio[1] - ratio[0]);
}

static int by_swing(const void *a, const void *b)
{
    double x = ((const gpuecon_sensitivity *)a)->swing, y = ((const gpuecon_sensitivity *)b)->swing;
    return (x < y) - (x > y);
}

static bool serve_targets(const gpuecon_workload *w)
{
    return w->kind == GPUECON_WORKLOAD_SERVE && (w->tpot_ms_target > 0 || w->ttft_ms_target > 0);
}

/* A serving platform whose operating load misses the latency targets (compare_serve.c) does not
 * serve the workload; one without a prediction (a measured rate) is not judged. */
static bool latency_ok(const gpuecon_workload *w, const gpuecon_platform_result *p)
{
    return !serve_targets(w) || p->meets_target || !isfinite(p->predicted_tokens_per_s_per_gpu);
}

/* Whether any ranked platform meets the latency targets: then those that miss them are not
 * ranked (the cheapest token that arrives too late is not the answer); else all are, at their
 * lowest loads, and the verdict says so. */
static bool any_latency_ok(const gpuecon_comparison_result *cr, const gpuecon_workload *w)
{
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (p->feasible && isfinite(p->rank_usd_per_mtok) && latency_ok(w, p))
            return true;
    }
    return false;
}

static bool ranked(const gpuecon_comparison_result *cr, const gpuecon_workload *w, bool any, size_t i)
{
    const gpuecon_platform_result *p = &cr->platforms[i];
    return p->feasible && isfinite(p->rank_usd_per_mtok) && (!any || latency_ok(w, p));
}

static void rank(gpuecon_comparison_result *cr, const gpuecon_workload *w)
{
    cr->cheapest = cr->runner_up = cr->fastest = -1;
    bool any = any_latency_ok(cr, w);
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (!ranked(cr, w, any, i))
            continue;
        if (cr->cheapest < 0 || p->rank_usd_per_mtok < cr->platforms[cr->cheapest].rank_usd_per_mtok) {
            cr->runner_up = cr->cheapest;
            cr->cheapest = (int)i;
        } else if (cr->runner_up < 0 || p->rank_usd_per_mtok < cr->platforms[cr->runner_up].rank_usd_per_mtok) {
            cr->runner_up = (int)i;
        }
        double speed = COMPARE_TRAIN_LIKE(cr->kind) ? -p->days_to_train : p->output_tokens_per_s;
        if (COMPARE_TRAIN_LIKE(cr->kind) && !isfinite(p->days_to_train))
            speed = p->tokens_per_s_per_gpu * p->gpus * p->ettr;
        const gpuecon_platform_result *f = cr->fastest >= 0 ? &cr->platforms[cr->fastest] : NULL;
        double fspeed = !f ? 0
                        : COMPARE_TRAIN_LIKE(cr->kind)
                            ? (isfinite(f->days_to_train) ? -f->days_to_train : f->tokens_per_s_per_gpu * f->gpus * f->ettr)
                            : f->output_tokens_per_s;
        if (!f || speed > fspeed)
            cr->fastest = (int)i;
    }
    cr->base_ratio = cr->runner_up >= 0 ? cr->platforms[cr->cheapest].rank_usd_per_mtok /
                                              cr->platforms[cr->runner_up].rank_usd_per_mtok
                                        : NAN;
}

/* Serving at a rate (docs/model.md §7.1): every platform that meets the targets serves the same
 * tokens, so "fastest" says nothing; what differs is how many GPUs each needs. "At 150 requests/s
 * B200 needs 16 GPUs (2 servers), H100 40 (5 servers)." for the cheapest and the runner-up. */
static int sized_sentence(char *v, size_t cap, const gpuecon_comparison_result *cr, const gpuecon_workload *w)
{
    const gpuecon_platform_result *c = &cr->platforms[cr->cheapest];
    int n = snprintf(v, cap, "At %g requests/s %s needs %d GPUs", w->rate, c->name, c->gpus);
    if (c->units > 0 && n >= 0 && (size_t)n < cap)
        n += snprintf(v + n, cap - (size_t)n, " (%d %s%s)", c->units, c->unit, c->units == 1 ? "" : "s");
    if (cr->runner_up >= 0 && n >= 0 && (size_t)n < cap) {
        const gpuecon_platform_result *r = &cr->platforms[cr->runner_up];
        n += snprintf(v + n, cap - (size_t)n, ", %s %d", r->name, r->gpus);
        if (r->units > 0 && n >= 0 && (size_t)n < cap)
            n += snprintf(v + n, cap - (size_t)n, " (%d %s%s)", r->units, r->unit, r->units == 1 ? "" : "s");
    }
    if (n >= 0 && (size_t)n < cap)
        n += snprintf(v + n, cap - (size_t)n, ".");
    return n;
}

static void verdict(gpuecon_comparison_result *cr, const gpuecon_workload *w)
{
    char *v = cr->verdict;
    size_t cap = sizeof cr->verdict;
    if (cr->cheapest < 0) {
        snprintf(v, cap, "No platform can run this workload (see each platform's reason).");
        return;
    }
    const gpuecon_platform_result *c = &cr->platforms[cr->cheapest], *f = &cr->platforms[cr->fastest];
    bool train = COMPARE_TRAIN_LIKE(cr->kind), any = any_latency_ok(cr, w);
    int n = 0;
    if (serve_targets(w) && !any)
        n = snprintf(v, cap, "No platform meets the latency targets (each is shown at its lowest load). ");
    n += snprintf(v + n, cap - (size_t)n, "%s is cheapest at %s per 1M %s%s", c->name, NUM_MONEY(c->rank_usd_per_mtok),
                     cr->kind == GPUECON_WORKLOAD_RL ? "trained tokens" : train ? "tokens" : "output tokens",
                     train ? (c->token_factor != 1 ? " (effective, same-quality tokens)" : " (effective: failures and spares included)") : "");
    if (cr->runner_up >= 0) {
        const gpuecon_platform_result *r = &cr->platforms[cr->runner_up];
        /* the one framing of a difference (num_below, docs/cli.md): "20% below", from the cheaper side */
        n += snprintf(v + n, cap - (size_t)n, ", %s %s (%s)", NUM_BELOW(c->rank_usd_per_mtok, r->rank_usd_per_mtok),
                      r->name, NUM_MONEY(r->rank_usd_per_mtok));
    }
    if (train && isfinite(c->total_usd)) {
        double usd = c->total_usd;
        n += snprintf(v + n, cap - (size_t)n, "; the run costs %s", NUM_MONEY(usd));
    }
    n += snprintf(v + n, cap - (size_t)n, ". ");
    const gpuecon_platform_result *second = NULL;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if ((int)i == cr->fastest || !ranked(cr, w, any, i))
            continue;
        if (!second || (train ? p->days_to_train < second->days_to_train
                              : p->output_tokens_per_s > second->output_tokens_per_s))
            second = p;
    }
    const char *also = cr->fastest == cr->cheapest ? "It is also fastest" : NULL;
    if (train && isfinite(f->days_to_train)) {
        /* a near tie keeps enough digits to show which is ahead, not "3.1 vs 3.1 (1.00x)" */
        double x = second ? second->days_to_train / f->days_to_train : 2;
        int dd = x < 1.005 ? 2 : 1, dx = x < 1.005 ? 3 : 2;
        n += snprintf(v + n, cap - (size_t)n, "%s%s%s: %.*f days", also ? also : f->name, also ? "" : " is fastest",
                      "", dd, f->days_to_train);
        if (second)
            snprintf(v + n, cap - (size_t)n, " vs %.*f on %s (%.*fx faster).", dd, second->days_to_train, second->name,
                     dx, x);
        else
            snprintf(v + n, cap - (size_t)n, ".");
    } else if (!train && w->rate > 0) {
        n += sized_sentence(v + n, cap - (size_t)n, cr, w);
    } else if (!train) {
        n += snprintf(v + n, cap - (size_t)n, "%s%s: %.0f output tok/s", also ? also : f->name,
                      also ? " (highest throughput)" : " has the highest throughput", f->output_tokens_per_s);
        if (second)
            snprintf(v + n, cap - (size_t)n, " vs %.0f on %s (%.2fx).", second->output_tokens_per_s, second->name,
                     f->output_tokens_per_s / second->output_tokens_per_s);
        else
            snprintf(v + n, cap - (size_t)n, ".");
    }
    /* the platforms left out of the ranking, after the ranked ones are described */
    for (size_t i = 0, k = strlen(v); any && i < cr->n_platforms && k < cap; i++) {
        const gpuecon_platform_result *p = &cr->platforms[i];
        if (!ranked(cr, w, any, i) && ranked(cr, w, false, i))
            k += (size_t)snprintf(v + k, cap - k, " %s misses the latency targets and is not ranked (%s at the load shown).",
                                  p->name, NUM_MONEY(p->rank_usd_per_mtok));
    }
}

static void caveats(gpuecon_comparison_result *cr, const pstate *ps)
{
    /* each (input, source) once, with the platforms that rest on it */
    struct {
        const char *label, *text;
        gpuecon_stage stage;
        char who[160];
    } seen[16];
    size_t ns = 0;
    int who[2] = {cr->cheapest, cr->runner_up};
    for (int w = 0; w < 2; w++) {
        int p = who[w];
        if (p < 0 || !cr->platforms[p].feasible)
            continue;
        for (size_t d = 0; d < N_INPUTS; d++) {
            if (inputs[d].train_only && !COMPARE_TRAIN_LIKE(cr->kind))
                continue;
            gpuecon_source s = input_source(&ps[p], &cr->platforms[p], inputs[d].k);
            const char *label = inputs[d].label;
            if (inputs[d].k == IN_TCO && !ps[p].tco.uses_published && compare_platform_price(ps[p].pl, NULL) <= 0) {
                if (ps[p].sys->src)
                    s = ps[p].sys->src[FIELD_SYSTEM_CAPEX_USD_PER_GPU];
                label = "TCO (from capex)";
            }
            if (s.stage != GPUECON_STAGE_PROJECTION && s.stage != GPUECON_STAGE_ASSUMPTION)
                continue;
            size_t k = 0;
            while (k < ns && !(seen[k].label == label && seen[k].text == s.text))
                k++;
            if (k == ns && ns < 16) {
                seen[ns].label = label;
                seen[ns].text = s.text ? s.text : "";
                seen[ns].stage = s.stage;
                seen[ns].who[0] = '\0';
                ns++;
            }
            if (k < ns) {
                size_t len = strlen(seen[k].who);
                snprintf(seen[k].who + len, sizeof seen[k].who - len, "%s%s", len ? " and " : "",
                         cr->platforms[p].name);
            }
        }
    }
    size_t n = 0, cap = sizeof cr->caveats;
    cr->caveats[0] = '\0';
    for (size_t k = 0; k < ns && n < cap; k++)
        n += (size_t)snprintf(cr->caveats + n, cap - n, "%s%s of %s is %s (%s)", k ? "; " : "", seen[k].label,
                              seen[k].who, gpuecon_stage_name(seen[k].stage), seen[k].text);
}

/* Deadline and budget: which platforms meet target_days and fit budget_usd, and the fastest
 * platform within the budget, appended to the verdict. */
static void deadline_budget(gpuecon_comparison_result *cr, const gpuecon_workload *w)
{
    cr->fastest_within_budget = -1;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        gpuecon_platform_result *p = &cr->platforms[i];
        p->meets_target = p->feasible && latency_ok(w, p);
        p->within_budget = p->feasible;
    }
    if (cr->kind != GPUECON_WORKLOAD_TRAIN || (!(w->target_days > 0) && !(w->budget_usd > 0)))
        return;
    size_t n = strlen(cr->verdict), cap = sizeof cr->verdict;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        gpuecon_platform_result *p = &cr->platforms[i];
        p->meets_target = p->feasible && (!(w->target_days > 0) || p->days_to_train <= w->target_days * (1 + 1e-9));
        p->within_budget = p->feasible && (!(w->budget_usd > 0) || p->total_usd <= w->budget_usd);
        if (p->within_budget && p->meets_target &&
            (cr->fastest_within_budget < 0 || p->days_to_train < cr->platforms[cr->fastest_within_budget].days_to_train))
            cr->fastest_within_budget = (int)i;
        if (n < cap && w->target_days > 0 && p->feasible && !p->meets_target)
            n += (size_t)snprintf(cr->verdict + n, cap - n, " %s misses the %s-day deadline (%.1f days).", p->name,
                                  NUM_SIG(w->target_days, 6), p->days_to_train);
        if (n < cap && w->budget_usd > 0 && p->feasible && !p->within_budget)
            n += (size_t)snprintf(cr->verdict + n, cap - n, " %s is over the %s budget (%s).", p->name,
                                  NUM_MONEY(w->budget_usd), NUM_MONEY(p->total_usd));
    }
    if (n < cap && w->budget_usd > 0) {
        const gpuecon_platform_result *f =
            cr->fastest_within_budget >= 0 ? &cr->platforms[cr->fastest_within_budget] : NULL;
        if (f)
            snprintf(cr->verdict + n, cap - n, " Fastest within the %s budget%s: %s on %d GPUs, %.1f days, %s.",
                     NUM_MONEY(w->budget_usd), w->target_days > 0 ? " and the deadline" : "", f->name, f->gpus,
                     f->days_to_train, NUM_MONEY(f->total_usd));
        else
            snprintf(cr->verdict + n, cap - n, " No platform fits the %s budget%s.", NUM_MONEY(w->budget_usd),
                     w->target_days > 0 ? " and the deadline" : "");
    }
}

static int analyse(const gpuecon_catalog *cat, gpuecon_comparison_result *cr, const pstate *ps, double step,
                   gpuecon_ctx *ctx, gpuecon_error *err)
{
    int c = cr->cheapest, r = cr->runner_up;
    if (c < 0 || r < 0)
        return GPUECON_OK;
    cr->breakeven = ctx_alloc(ctx, 2 * (N_INPUTS + 1) * sizeof *cr->breakeven);
    cr->sensitivity = ctx_alloc(ctx, 2 * N_INPUTS * sizeof *cr->sensitivity);
    if (!cr->breakeven || !cr->sensitivity)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    int who[2] = {c, r};
    for (int w = 0; w < 2; w++) {
        for (size_t d = 0; d < N_INPUTS; d++) {
            if (inputs[d].train_only && !COMPARE_TRAIN_LIKE(cr->kind))
                continue;
            breakeven_one(cr, ps, who[w], who[1 - w], &inputs[d], &cr->breakeven[cr->n_breakeven++]);
            sensitivity_one(cat, cr, ps, who[w], &inputs[d], step, &cr->sensitivity[cr->n_sensitivity++]);
        }
        if (COMPARE_TRAIN_LIKE(cr->kind) && cr->platforms[who[w]].provisioned_gpus > cr->platforms[who[w]].gpus)
            breakeven_spares(cr, ps, who[w], who[1 - w], &cr->breakeven[cr->n_breakeven++]);
    }
    qsort(cr->sensitivity, cr->n_sensitivity, sizeof *cr->sensitivity, by_swing);
    return GPUECON_OK;
}

/* The band set a comparison's bands need: built when a training or serving platform's throughput is
 * predicted. */
static int fill_bands(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c, const pstate *ps,
                      compare_bands *b, gpuecon_error *err)
{
    (void)ps;
    if (c->workload.kind != GPUECON_WORKLOAD_TRAIN && c->workload.kind != GPUECON_WORKLOAD_SERVE &&
        c->workload.kind != GPUECON_WORKLOAD_RL)
        return GPUECON_OK;
    bool any = false;
    for (size_t i = 0; i < c->n_platforms; i++)
        any |= !(c->platforms[i].measured_tokens_per_s > 0);
    return any ? compare_bands_fill(ctx, cat, b, err) : GPUECON_OK;
}

/* With joint samples: how often the cheapest stays cheapest, appended to the verdict. */
static void joint_verdict(gpuecon_comparison_result *cr)
{
    if (cr->cheapest < 0 || cr->uncertainty_samples <= 0)
        return;
    size_t n = strlen(cr->verdict), cap = sizeof cr->verdict;
    const gpuecon_platform_result *a = &cr->platforms[cr->cheapest];
    char met[192] = "";
    size_t k = 0;
    bool serve = cr->kind == GPUECON_WORKLOAD_SERVE;
    if (isfinite(a->probability_meets_target)) /* serving latency targets or a training deadline (joint.c) */
        k = (size_t)snprintf(met, sizeof met, "; with its %s drawn too, it meets the %s in %.0f%% of them",
                             serve ? "latencies" : "throughput", serve ? "latency targets" : "deadline",
                             100 * a->probability_meets_target);
    if (k < sizeof met && serve && a->probability_lower_load > 0)
        k += (size_t)snprintf(met + k, sizeof met - k, ", in %.0f%% only at a lower load", 100 * a->probability_lower_load);
    if (k < sizeof met && isfinite(a->probability_within_budget))
        snprintf(met + k, sizeof met - k, "%s fits the budget in %.0f%% of them", k ? " and" : "; it",
                 100 * a->probability_within_budget);
    if (n < cap)
        snprintf(cr->verdict + n, cap - n,
                 " Sampling every uncertain input together (%d samples), %s is cheapest in %.0f%% of them "
                 "(effective $/Mtok P10-P90 %s-%s)%s.",
                 cr->uncertainty_samples, a->name, 100 * a->probability_cheapest,
                 NUM_MONEY(a->effective_usd_per_mtok_p10), NUM_MONEY(a->effective_usd_per_mtok_p90), met);
}

/* The result's sentences are built in fixed buffers and quote the scenario's platform names,
 * which may be any UTF-8 text up to 512 bytes: a full buffer can cut a character, which JSON
 * refuses (a field silently dropped) and HTML shows as garbage. Each text ends clean. */
static void texts_utf8(gpuecon_comparison_result *cr)
{
    text_utf8_scrub(cr->verdict);
    text_utf8_scrub(cr->caveats);
    text_utf8_scrub(cr->timeline_text);
    text_utf8_scrub(cr->tier_text);
    for (size_t i = 0; i < cr->n_breakeven; i++)
        text_utf8_scrub(cr->breakeven[i].text);
    for (size_t i = 0; cr->platforms && i < cr->n_platforms; i++) {
        gpuecon_platform_result *p = &cr->platforms[i];
        text_utf8_scrub(p->why);
        text_utf8_scrub(p->predicted_note);
        text_utf8_scrub(p->life_why);
        for (size_t k = 0; p->trade && k < p->n_trade; k++)
            text_utf8_scrub(p->trade[k].why);
    }
}

static int one_comparison(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                          const gpuecon_compare_options *opt, compare_bands *bands, gpuecon_comparison_result *cr,
                          gpuecon_error *err)
{
    cr->name = c->name;
    cr->title = c->title;
    cr->kind = c->workload.kind;
    cr->batch_penalty = c->workload.critical_batch_tokens > 0;
    cr->n_platforms = c->n_platforms;
    cr->platforms = ctx_alloc(ctx, c->n_platforms * sizeof *cr->platforms);
    pstate *ps = ctx_alloc(ctx, c->n_platforms * sizeof *ps);
    if (!cr->platforms || !ps) {
        ctx_free(ctx, ps, c->n_platforms * sizeof *ps);
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    }
    int rc = GPUECON_OK;
    for (size_t i = 0; i < c->n_platforms && rc == GPUECON_OK; i++) {
        ps[i].calib = opt ? opt->calib : NULL;
        rc = compare_platform(ctx, cat, c, i, opt ? opt->stack : NULL, cr->platforms, &ps[i], &cr->platforms[i], err);
        if (rc == GPUECON_OK && opt && opt->trials > 0)
            rc = compare_monte_carlo(ctx, &ps[i], opt->trials, &cr->platforms[i], err);
        if (rc == GPUECON_OK)
            rc = compare_life(ctx, cat, c, &ps[i], &cr->platforms[i], err);
        if (rc == GPUECON_OK && opt && opt->trade)
            rc = compare_trade(ctx, cat, c, i, opt ? opt->calib : NULL, &cr->platforms[i], err);
    }
    if (rc == GPUECON_OK && !(opt && opt->no_uncertainty))
        rc = fill_bands(ctx, cat, c, ps, bands, err);
    if (rc == GPUECON_OK) {
        compare_uncertainty(bands, cat, c, cr, ps);
        rank(cr, &c->workload);
        compare_tier_rivals(cr, ps);
        verdict(cr, &c->workload);
        compare_tier_verdict(cr, ps);
        if (cr->kind == GPUECON_WORKLOAD_RL)
            compare_rl_verdict(cr, ps);
        deadline_budget(cr, &c->workload);
        caveats(cr, ps);
        breakeven_dates(cr, ps);
        compare_tier_flip(cr, ps);
        if (!(opt && opt->no_sensitivity))
            rc = analyse(cat, cr, ps, opt && opt->step > 0 ? opt->step : 0.2, ctx, err);
        if (rc == GPUECON_OK)
            compare_uncertainty_verdict(cr, &c->workload);
        if (rc == GPUECON_OK && opt && opt->uncertainty > 0 &&
            (rc = compare_joint_uncertainty(ctx, ps, &c->workload, opt->uncertainty, cr, err)) == GPUECON_OK)
            joint_verdict(cr);
    }
    texts_utf8(cr);
    ctx_free(ctx, ps, c->n_platforms * sizeof *ps);
    return rc;
}

int compare_one(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_comparison *c,
                const gpuecon_compare_options *opt, gpuecon_comparison_result *cr, gpuecon_error *err)
{
    compare_bands bands = {0};
    int rc = one_comparison(ctx, cat, c, opt, &bands, cr, err);
    compare_bands_free(ctx, &bands);
    return rc;
}

/* What gpuecon_compare hands out: the public result and, private to the library, the context
 * that owns its memory (for gpuecon_compare_free). */
typedef struct compare_owned {
    gpuecon_compare_result pub;
    gpuecon_ctx *ctx;
} compare_owned;

int gpuecon_compare(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const gpuecon_scenario *sc,
                    const gpuecon_compare_options *opt, gpuecon_compare_result **out, gpuecon_error *err)
{
    *out = NULL;
    if (!ctx || !cat || !sc)
        return err_set(err, GPUECON_E_INPUT, "compare", 0, 0, "context, catalog and scenario are required");
    if (opt && (opt->trials < 0 || opt->trials > 1000000))
        return err_set(err, GPUECON_E_INPUT, OPTION("trials"), 0, 0, "%d is out of range; allowed 0 to 1000000",
                       opt->trials);
    if (opt && (opt->uncertainty < 0 || opt->uncertainty > 1000000))
        return err_set(err, GPUECON_E_INPUT, OPTION("uncertainty"), 0, 0, "%d is out of range; allowed 0 to 1000000",
                       opt->uncertainty);
    if (opt && opt->uncertainty > 0) {
        /* work budget (docs/cli.md): about 3 us of one core per platform and joint sample (the
         * analytic reliability of a training platform dominates; Release build, the machine of
         * docs/benchmarks.md: 200,000 samples of the default scenario's 27 platforms in 15 s) */
        size_t np = 0;
        for (size_t i = 0; i < gpuecon_scenario_count(sc); i++)
            np += gpuecon_scenario_at(sc, i)->n_platforms;
        double work = 3e-6 * opt->uncertainty * (double)np;
        if (work > ctx->cfg.max_work_s)
            return err_set(err, GPUECON_E_INPUT, OPTION("uncertainty"), 0, 0,
                           "%d joint samples of %zu platforms would take about %s CPU-seconds, above the "
                           "work budget of %s s; use fewer samples or raise the budget with " OPTION("max_work"),
                           opt->uncertainty, np, NUM_SIG(work, 2), NUM_VAL(ctx->cfg.max_work_s));
    }
    compare_owned *own = ctx_alloc(ctx, sizeof *own);
    if (!own)
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    own->ctx = ctx;
    gpuecon_compare_result *r = &own->pub;
    r->n = gpuecon_scenario_count(sc);
    r->cmp = ctx_alloc(ctx, r->n * sizeof *r->cmp);
    if (!r->cmp) {
        gpuecon_compare_free(r);
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    }
    /* one memo for the whole call when the caller has none: the comparisons of a scenario
     * share searches (the same system, model, size and stack recur), and a hit is bit for bit
     * the search's answer (memo.c) */
    gpuecon_ctx work = *ctx;
    gpuecon_memo *memo = NULL;
    if (!ctx->cfg.memo && !(memo = work.cfg.memo = gpuecon_memo_new(ctx, 512))) {
        gpuecon_compare_free(r);
        return err_set(err, GPUECON_E_NOMEM, "compare", 0, 0, "out of memory");
    }
    compare_bands bands = {0};
    int rc = GPUECON_OK;
    for (size_t i = 0; i < r->n && rc == GPUECON_OK; i++)
        rc = one_comparison(&work, cat, gpuecon_scenario_at(sc, i), opt, &bands, &r->cmp[i], err);
    gpuecon_memo_free(memo);
    compare_bands_free(ctx, &bands);
    if (rc) {
        gpuecon_compare_free(r);
        return rc;
    }
    *out = r;
    return GPUECON_OK;
}

void compare_one_free(gpuecon_ctx *ctx, gpuecon_comparison_result *c)
{
    for (size_t i = 0; c->platforms && i < c->n_platforms; i++) {
        ctx_free(ctx, c->platforms[i].life_result, sizeof *c->platforms[i].life_result);
        ctx_free(ctx, c->platforms[i].trade, (c->platforms[i].n_trade ? c->platforms[i].n_trade : 1) *
                                                 sizeof *c->platforms[i].trade);
    }
    ctx_free(ctx, c->platforms, c->n_platforms * sizeof *c->platforms);
    ctx_free(ctx, c->breakeven, 2 * (N_INPUTS + 1) * sizeof *c->breakeven);
    ctx_free(ctx, c->sensitivity, 2 * N_INPUTS * sizeof *c->sensitivity);
}

void gpuecon_compare_free(gpuecon_compare_result *r)
{
    if (!r)
        return;
    compare_owned *own = (compare_owned *)r; /* pub is its first member */
    gpuecon_ctx *ctx = own->ctx;
    for (size_t i = 0; r->cmp && i < r->n; i++)
        compare_one_free(ctx, &r->cmp[i]);
    ctx_free(ctx, r->cmp, r->n * sizeof *r->cmp);
    ctx_free(ctx, own, sizeof *own);
}

/* ==== the nearest flip (the summary's "what would flip it") ================================= */

int gpuecon_nearest_flip(const gpuecon_comparison_result *cr)
{
    int best = -1, spares = -1;
    double dist = INFINITY;
    for (size_t i = 0; cr && i < cr->n_breakeven; i++) {
        const gpuecon_breakeven *b = &cr->breakeven[i];
        if (!b->found)
            continue;
        if (!(b->ratio > 0) || !isfinite(b->ratio)) { /* the spares policy: a switch, no distance */
            if (spares < 0)
                spares = (int)i;
            continue;
        }
        double d = fabs(log(b->ratio));
        if (d < dist) {
            dist = d;
            best = (int)i;
        }
    }
    return best >= 0 ? best : spares;
}
