/*
 * infer_cli.c — what the serving commands share (infer and its --simulate, --search and
 * disaggregated parts, finetune, rl): the LoRA module list and serving profile options, and the
 * checks of the rate and latency targets.
 */
#include "request/cli.h"
#include "cmd_infer.h"

#include <string.h>

int cmd_infer_lora_modules(cli *c, const char *option, const char *s, unsigned *out)
{
    static const char *const names[] = {"q", "k", "v", "o", "gate", "up", "down"};
    char buf[256];
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

int cmd_infer_serving_profile(cli *c, const char *option, const char *name, gpuecon_serving_profile *out)
{
    const gpuecon_serving_profile *p = gpuecon_serving_profile_find(name);
    if (p) {
        *out = *p;
        return 0;
    }
    const char *names[16];
    size_t n = 0;
    char list[256] = "";
    for (; n < gpuecon_serving_profile_count() && n < 16; n++) {
        names[n] = gpuecon_serving_profile_at(n)->name;
        strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[n], sizeof list - strlen(list) - 1);
    }
    const char *near = gpuecon_suggest(name, names, n);
    if (near)
        return cli_usage_error(c, option, "'%s' is not a profile; did you mean '%s'? (allowed: %s)", name,
                               near, list);
    return cli_usage_error(c, option, "'%s' is not a profile (allowed: %s)", name, list);
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
