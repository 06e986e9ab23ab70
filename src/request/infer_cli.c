/*
 * infer_cli.c — what the serving commands share (infer and its --simulate, --search and
 * disaggregated parts, finetune, rl): the LoRA module list and serving profile options, the
 * deployment as every serving header names it, and the four-column quantity table's row.
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

void cmd_infer_row(tbl *tb, const char *quantity, double v, int decimals, const char *unit, const char *note)
{
    tbl_row(tb);
    tbl_str(tb, quantity);
    tbl_num(tb, v, decimals);
    tbl_str(tb, unit);
    tbl_str(tb, note ? note : "");
}

/* "8 GPUs = 2 replicas x TP 2 x PP 2 (experts EP)" or "8 GPUs = 8 attention-DP ranks, experts EP 8":
 * the deployment as every serving header names it. */
void cmd_infer_deployment(FILE *f, const gpuecon_infer_result *o)
{
    if (o->attention_dp)
        fprintf(f, "%d GPUs = %d attention-DP ranks, experts EP %d", o->gpus, o->replicas, o->ep);
    else {
        fprintf(f, "%d GPU%s = %d replica%s x TP %d", o->gpus, o->gpus > 1 ? "s" : "", o->replicas,
                o->replicas > 1 ? "s" : "", o->tp);
        if (o->pp > 1)
            fprintf(f, " x PP %d", o->pp);
        if (o->expert_parallel)
            fprintf(f, " (experts EP)");
    }
}
