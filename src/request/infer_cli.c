/*
 * infer_cli.c — what the serving commands share (infer and its --simulate, --search and
 * disaggregated parts, finetune, rl): the LoRA module list and serving profile options, the
 * checks of the rate and latency targets, and the band set their figures' bands come from.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <string.h>

int cmd_infer_lora_modules(cli *c, const char *option, const char *s, unsigned *out)
{
    static const char *const names[] = {"q", "k", "v", "o", "gate", "up", "down"};
    char buf[256];
    if (strlen(s) >= sizeof buf) /* never cut a list (a cut one read another projection) */
        return cli_usage_error(c, option, "the list is longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", s);
    unsigned bits = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bool found = false;
        if (!strcmp(tok, "all"))
            bits |= GPUECON_LORA_ALL, found = true;
        else if (!strcmp(tok, "attn"))
            bits |= GPUECON_LORA_Q | GPUECON_LORA_K | GPUECON_LORA_V | GPUECON_LORA_O, found = true;
        else if (!strcmp(tok, "mlp"))
            bits |= GPUECON_LORA_GATE | GPUECON_LORA_UP | GPUECON_LORA_DOWN, found = true;
        for (unsigned i = 0; i < 7 && !found; i++)
            if (!strcmp(tok, names[i]))
                bits |= 1u << i, found = true;
        if (!found)
            return cli_usage_error(c, option, "'%s' is not a projection (allowed: q, k, v, o, gate, up, "
                                           "down, or all, attn, mlp; comma-separated)", tok);
    }
    if (!bits)
        return cli_usage_error(c, option, "needs at least one projection (e.g. q,k,v,o or all)");
    *out = bits;
    return 0;
}

/* A serving stack of the catalog (workload serve: its profile with its kernel, graph and scheduler
 * mechanisms, docs/model.md §6.15), else a built-in profile by name (a bare engine with O1's t0).
 * A training or fine-tuning stack is refused naming the workload; an unknown name lists the
 * nearest serving names. */
int cmd_infer_serving_profile(cli *c, const char *option, const char *name, gpuecon_serving_profile *out)
{
    const gpuecon_stack *st = NULL;
    size_t ns = gpuecon_catalog_count(c->cat, GPUECON_KIND_STACK);
    for (size_t i = 0; name && i < ns && !st; i++) {
        const gpuecon_stack *s = gpuecon_catalog_at(c->cat, GPUECON_KIND_STACK, i);
        if (strcmp(s->name, name) == 0)
            st = s;
    }
    if (st && st->workload == 2) {
        if (!gpuecon_serving_profile_from_stack(st, out))
            return cli_usage_error(c, option, "stack %s names an unknown efficiency profile '%s' (allowed: "
                                   CLI_SERVING_PROFILES ")", name, st->profile ? st->profile : "");
        return 0;
    }
    const gpuecon_serving_profile *p = gpuecon_serving_profile_find(name);
    if (p) {
        *out = *p;
        return 0;
    }
    const char *names[32];
    size_t n = 0;
    char list[512] = "";
    for (size_t i = 0; i < ns && n < 32; i++) {
        const gpuecon_stack *s = gpuecon_catalog_at(c->cat, GPUECON_KIND_STACK, i);
        if (s->workload == 2)
            names[n++] = s->name;
    }
    for (size_t i = 0, ns2 = n; i < gpuecon_serving_profile_count() && n < 32; i++) {
        const char *pn = gpuecon_serving_profile_at(i)->name;
        bool dup = false; /* a stack of the same name replaces the bare profile */
        for (size_t k = 0; k < ns2; k++)
            dup = dup || !strcmp(names[k], pn);
        if (!dup)
            names[n++] = pn;
    }
    for (size_t i = 0; i < n; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    if (st)
        return cli_usage_error(c, option, "%s is a %s stack; serving needs an engine stack (allowed: %s)", name,
                               st->workload == 1 ? "fine-tuning" : "training", list);
    const char *near = name ? gpuecon_suggest(name, names, n) : NULL;
    if (near)
        return cli_usage_error(c, option, "'%s' is not a serving stack; did you mean '%s'? (allowed: %s)", name,
                               near, list);
    return cli_usage_error(c, option, "'%s' is not a serving stack (allowed: %s)", name ? name : "", list);
}

int cmd_infer_check_targets(cli *c, const opt *o, size_t n, const infer_sim_args *s)
{
    if (opt_seen(o, n, "--rate") && !(s->rate > 0))
        return cli_usage_error(c, "--rate", "%g requests/s must be above 0", s->rate);
    bool ttft = opt_seen(o, n, "--ttft-ms") && !(s->ttft_ms > 0);
    if (ttft || (opt_seen(o, n, "--tpot-ms") && !(s->tpot_ms > 0)))
        return cli_usage_error(c, ttft ? "--ttft-ms" : "--tpot-ms", "a latency target must be above 0 ms");
    return 0;
}

int cmd_band_set(cli *c, band_set **out)
{
    *out = NULL;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = band_set_build(c->ctx, c->cat, out, &err);
    if (rc == GPUECON_E_NOMEM)
        return cli_fail(c, &err);
    if (rc) { /* a catalog without the validate tables' entries: no bands, said */
        *out = NULL;
        sb_printf(c->notes, "gpuecon: note: figures printed without their 80%% bands: %s\n", err.message);
    }
    return 0;
}
