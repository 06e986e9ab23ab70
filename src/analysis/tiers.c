/*
 * tiers.c — comparisons of platforms at several operator tiers (the closing judgment): who wins
 * at each tier and against whom, the verdict given tier by tier, and the tier at which the
 * cheapest kind of system (8-GPU servers or rack-scale NVLink) flips (docs/model.md §7.9).
 *
 * Key choice: an operator's tier (how well it runs a cluster: MTBI, recovery) is what it is, not
 * something a buyer picks, so the same hardware at two tiers is never a choice. In a comparison
 * of several tiers a platform's rivals are the other systems at its own tier: the runner-up of
 * the verdict, the break-even values and the sensitivity are taken against one of them, never
 * against the same system at another tier.
 */
#include "analysis/analysis.h"
#include "compare.h"
#include "model/names.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *tier_of(const pstate *ps)
{
    return ps->pl->tier ? ps->pl->tier : "typical";
}

static bool ranked_train(const gpuecon_comparison_result *cr, size_t i)
{
    const gpuecon_platform_result *p = &cr->platforms[i];
    return p->feasible && isfinite(p->rank_usd_per_mtok);
}

bool compare_tiered(const gpuecon_comparison_result *cr, const pstate *ps)
{
    if (!COMPARE_TRAIN_LIKE(cr->kind))
        return false;
    bool several_tiers = false, two_systems = false;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        if (!ranked_train(cr, i))
            continue;
        for (size_t j = i + 1; j < cr->n_platforms; j++) {
            if (!ranked_train(cr, j))
                continue;
            bool same_tier = !strcmp(tier_of(&ps[i]), tier_of(&ps[j]));
            several_tiers |= !same_tier;
            two_systems |= same_tier && strcmp(ps[i].pl->system, ps[j].pl->system);
        }
    }
    return several_tiers && two_systems;
}

/* j is a buyer's alternative to i in a tiered comparison: another system at i's tier */
static bool rival(const pstate *ps, size_t i, size_t j)
{
    return i != j && !strcmp(tier_of(&ps[i]), tier_of(&ps[j])) && strcmp(ps[i].pl->system, ps[j].pl->system);
}

/* The cheapest ranked platform at tier t (or, with of >= 0, the cheapest rival of `of`); -1 when none. */
static int cheapest_at(const gpuecon_comparison_result *cr, const pstate *ps, const char *t, int of)
{
    int best = -1;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        if (!ranked_train(cr, i) || strcmp(tier_of(&ps[i]), t) || (of >= 0 && !rival(ps, (size_t)of, i)))
            continue;
        if (best < 0 || cr->platforms[i].rank_usd_per_mtok < cr->platforms[best].rank_usd_per_mtok)
            best = (int)i;
    }
    return best;
}

/* The fastest ranked platform at tier t (fewest days; or the fastest rival of `of`); -1 when none. */
static int fastest_at(const gpuecon_comparison_result *cr, const pstate *ps, const char *t, int of)
{
    int best = -1;
    for (size_t i = 0; i < cr->n_platforms; i++) {
        if (!ranked_train(cr, i) || !isfinite(cr->platforms[i].days_to_train) || strcmp(tier_of(&ps[i]), t) ||
            (of >= 0 && !rival(ps, (size_t)of, i)))
            continue;
        if (best < 0 || cr->platforms[i].days_to_train < cr->platforms[best].days_to_train)
            best = (int)i;
    }
    return best;
}

void compare_tier_rivals(gpuecon_comparison_result *cr, const pstate *ps)
{
    cr->tiered = compare_tiered(cr, ps);
    for (int t = 0; t < 3; t++)
        cr->tier_cheapest[t] = cr->tier_runner_up[t] = cr->tier_fastest[t] = -1;
    if (!cr->tiered || cr->cheapest < 0)
        return;
    for (int t = 0; t < 3; t++) {
        int c = cheapest_at(cr, ps, names_tier[t], -1), f = fastest_at(cr, ps, names_tier[t], -1);
        cr->tier_cheapest[t] = c;
        cr->tier_runner_up[t] = c >= 0 ? cheapest_at(cr, ps, names_tier[t], c) : -1;
        cr->tier_fastest[t] = f;
    }
    cr->runner_up = cheapest_at(cr, ps, tier_of(&ps[cr->cheapest]), cr->cheapest);
    cr->base_ratio = cr->runner_up >= 0 ? cr->platforms[cr->cheapest].rank_usd_per_mtok /
                                              cr->platforms[cr->runner_up].rank_usd_per_mtok
                                        : NAN;
}

/* The platform's name without a trailing " (<tier>)", which the tier's own heading says. */
static void name_at_tier(char *buf, size_t cap, const char *name, const char *tier)
{
    size_t n = strlen(name), k = strlen(tier);
    if (n > k + 3 && name[n - 1] == ')' && !strncmp(name + n - k - 1, tier, k) && !strncmp(name + n - k - 3, " (", 2))
        n -= k + 3;
    snprintf(buf, cap, "%.*s", (int)n, name);
}

void compare_tier_verdict(gpuecon_comparison_result *cr, const pstate *ps)
{
    if (!cr->tiered || cr->cheapest < 0)
        return;
    char *v = cr->verdict;
    size_t cap = sizeof cr->verdict, n = 0;
    n += (size_t)snprintf(v + n, cap - n, "An operator's tier is not a choice, so each tier is its own verdict.");
    int first = -1;
    bool same = true;
    for (int t = 0; t < 3 && n < cap; t++) {
        int c = cr->tier_cheapest[t], r = cr->tier_runner_up[t], f = cr->tier_fastest[t];
        if (c < 0)
            continue;
        char cn[160], rn[160], fn[160], sn[160];
        const gpuecon_platform_result *pc = &cr->platforms[c];
        name_at_tier(cn, sizeof cn, pc->name, names_tier[t]);
        if (first < 0)
            first = c;
        else
            same &= !strcmp(ps[c].pl->system, ps[first].pl->system);
        n += (size_t)snprintf(v + n, cap - n, " %c%s operators: %s is cheapest at $%.4g per 1M tokens",
                              toupper((unsigned char)names_tier[t][0]),
                              names_tier[t] + 1, cn, pc->rank_usd_per_mtok);
        if (r >= 0 && n < cap) {
            const gpuecon_platform_result *pr = &cr->platforms[r];
            double below = 100 * (1 - pc->rank_usd_per_mtok / pr->rank_usd_per_mtok);
            name_at_tier(rn, sizeof rn, pr->name, names_tier[t]);
            n += (size_t)snprintf(v + n, cap - n, ", %.*f%% below %s ($%.4g)", below < 10 ? 1 : 0, below, rn,
                                  pr->rank_usd_per_mtok);
        } else if (n < cap) {
            n += (size_t)snprintf(v + n, cap - n, " (no other system at this tier)");
        }
        int s = f >= 0 ? fastest_at(cr, ps, names_tier[t], f) : -1;
        if (f >= 0 && n < cap) {
            const gpuecon_platform_result *pf = &cr->platforms[f];
            name_at_tier(fn, sizeof fn, pf->name, names_tier[t]);
            if (f == c)
                n += (size_t)snprintf(v + n, cap - n, " and fastest (%.1f days", pf->days_to_train);
            else
                n += (size_t)snprintf(v + n, cap - n, "; %s is fastest (%.1f days", fn, pf->days_to_train);
            if (s >= 0 && n < cap) {
                name_at_tier(sn, sizeof sn, cr->platforms[s].name, names_tier[t]);
                n += (size_t)snprintf(v + n, cap - n, " vs %.1f on %s", cr->platforms[s].days_to_train, sn);
            }
            if (n < cap)
                n += (size_t)snprintf(v + n, cap - n, ")");
        }
        if (n < cap)
            n += (size_t)snprintf(v + n, cap - n, ".");
    }
    if (n < cap && first >= 0)
        snprintf(v + n, cap - n, same ? " The same system is cheapest at every tier." :
                                        " The cheapest system depends on the tier.");
}

/* At each operator tier the cheapest platform and its rival at that tier, and the tier at which
 * the cheapest kind of system (8-GPU servers or rack-scale NVLink) changes from the best tier's;
 * only with both kinds present. */
void compare_tier_flip(gpuecon_comparison_result *cr, const pstate *ps)
{
    cr->tier_analysis = false;
    cr->flip_tier[0] = cr->tier_text[0] = '\0';
    if (!cr->tiered)
        return;
    int n_tiers = 0, kinds = 0;
    for (size_t i = 0; i < cr->n_platforms; i++)
        if (ranked_train(cr, i))
            kinds |= ps[i].sys->scaleup_gpus > ps[i].sys->gpus_per_node ? 2 : 1;
    for (int t = 0; t < 3; t++)
        if (cr->tier_cheapest[t] >= 0) {
            n_tiers++;
            const gpuecon_system *sys = ps[cr->tier_cheapest[t]].sys;
            cr->tier_rack_scale[t] = sys->scaleup_gpus > sys->gpus_per_node;
        }
    if (n_tiers < 2 || kinds != 3)
        return;
    cr->tier_analysis = true;
    size_t n = 0, cap = sizeof cr->tier_text;
    int first = -1;
    for (int t = 0; t < 3 && n < cap; t++) {
        int k = cr->tier_cheapest[t], r = cr->tier_runner_up[t];
        if (k < 0)
            continue;
        if (first < 0)
            first = t;
        else if (!cr->flip_tier[0] && cr->tier_rack_scale[t] != cr->tier_rack_scale[first])
            snprintf(cr->flip_tier, sizeof cr->flip_tier, "%s", names_tier[t]);
        char kn[160], rn[160];
        name_at_tier(kn, sizeof kn, cr->platforms[k].name, names_tier[t]);
        n += (size_t)snprintf(cr->tier_text + n, cap - n, "%s%s operators: %s ($%.4g per 1M tokens", n ? "; " : "",
                              names_tier[t], kn, cr->platforms[k].rank_usd_per_mtok);
        if (r >= 0 && n < cap) {
            double below = 100 * (1 - cr->platforms[k].rank_usd_per_mtok / cr->platforms[r].rank_usd_per_mtok);
            name_at_tier(rn, sizeof rn, cr->platforms[r].name, names_tier[t]);
            n += (size_t)snprintf(cr->tier_text + n, cap - n, ", %.*f%% below %s", below < 10 ? 1 : 0, below, rn);
        }
        if (n < cap)
            n += (size_t)snprintf(cr->tier_text + n, cap - n, ")");
    }
    if (n < cap)
        snprintf(cr->tier_text + n, cap - n, cr->flip_tier[0] ? "; the choice flips at the %s tier"
                                                              : "; the same kind of system wins at every tier%s",
                 cr->flip_tier[0] ? cr->flip_tier : "");
}
