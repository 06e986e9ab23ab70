/*
 * nan_scan.c — no NaN or infinity may reach any output (issue 14, item 5). Runs every command
 * in-process over a grid of extreme valid inputs (each option at the ends of its allowed range,
 * one at a time, on a small and a large base case), in JSON and as a table, and checks the
 * output with cli_check_nonfinite: a JSON null only at the documented "not applicable" keys,
 * no nan/inf word in a table. Exit codes 0, 2 and 3 are all fine here (an extreme value may be
 * infeasible or refused with a reason); 1 or a crash is not.
 */
#include "cli_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    const char *base;   /* the command and its required options, space-separated */
    const char *vary[40]; /* one variation per entry, appended to base */
} grid;

static const grid grids[] = {
    {"cost --system hgx-h100 --profile hyperscaler --tokens-per-s 728",
     {"", "--tokens-per-s 0.001", "--tokens-per-s 1e9", "--pue 1", "--pue 3", "--tokens 1",
      "--tokens 1e18", "--system gb200-nvl72 --tokens-per-s 0.001 --tokens 1e18", NULL}},
    {"reliability --system hgx-h100 --active-gpus 1",
     {"", "--mtbi-gpu-days 0.001", "--mtbi-gpu-days 1e7", "--days 0.01", "--days 3650",
      "--detect-s 0 --restart-s 0 --queue-s 0 --ckpt-write-s 0", "--detect-s 1e6 --restart-s 1e6",
      "--ckpt-write-s 1e6", "--mttr-scale 0", "--mttr-scale 100", "--weibull-shape 0.1 --trials 3",
      "--weibull-shape 10 --trials 3", "--trials 1", "--trials 3 --mtbi-gpu-days 0.001",
      "--formula g1", "--formula g3", "--tier poor", "--tier best",
      "--tokens-per-s 0.001 --profile hyperscaler --tokens 1", "--tokens-per-s 1e9 --profile hyperscaler --tokens 1e18",
      "--spare-cost free --tokens-per-s 1 --profile hyperscaler", "--async-ckpt --ckpt-write-s 0",
      "--mtbi-gpu-days 0.001 --days 0.01 --trials 2", NULL}},
    {"reliability --system gb200-nvl72 --active-gpus 16384",
     {"", "--mtbi-gpu-days 0.001", "--mtbi-gpu-days 1e7", "--spares-per-domain 0", "--spares-per-domain 68",
      "--spare-domains 0", "--spare-domains 1e7", "--rack-drain-fraction 0", "--rack-drain-fraction 1",
      "--days 3650 --mtbi-gpu-days 1e7", "--trials 2 --days 0.01", "--active-gpus 10000000 --mtbi-gpu-days 1e7",
      "--ckpt-interval-s 1e7", "--mttr-scale 100 --spare-domains 0", NULL}},
    {"infer --model gemma4-31b --system hgx-h100",
     {"", "--concurrency 1", "--concurrency 1000000", "--prompt-len 1 --output-len 1", "--prompt-len 200000",
      "--output-len 60000", "--output-cv 0", "--output-cv 10", "--prefix-hit 0.99", "--draft 16 --accept 0",
      "--draft 1 --accept 0.999", "--lora-rank 4096", "--gpu-mem-util 0.05", "--gpu-mem-util 1",
      "--max-num-seqs 1", "--max-num-batched-tokens 16", "--max-model-len 1", "--block-size 1",
      "--block-size 1024", "--activation-gib 0", "--cuda-graph-gib 10000", "--pue 3", "--gpus 1000000",
      "--weights fp4 --kv fp8 --system hgx-b200", "--sweep", "--profile hyperscaler", NULL}},
    {"finetune --model llama3-8b --system hgx-h100 --method lora",
     {"", "--lora-rank 1", "--lora-rank 4096", "--lora-alpha 1e-6", "--mbs 1", "--mbs 4096", "--seq 1",
      "--seq 1e8", "--efficiency 0.01", "--efficiency 1", "--gpus 1", "--gpus 1000000", "--method full",
      "--strategy ddp", "--compare", "--profile hyperscaler", NULL}},
    {"rl --model llama3-8b --system hgx-h100 --gpus 16",
     {"", "--prompts 1 --samples 1", "--prompt-len 1 --response-len 1", "--response-cv 0", "--response-cv 10",
      "--response-len 100000 --response-cv 10", "--oversample 10", "--placement disaggregated",
      "--placement disaggregated --off-policy 1", "--placement disaggregated --gen-gpus 15", "--offload off",
      "--sync-fp8", "--epochs 100 --minibatches 8", "--critic llama3-8b --reward-model llama3-8b",
      "--reference none", "--steps 1", "--steps 1000000", "--pue 3", "--usd-per-gpu-hour 1000",
      "--train-precision fp8", "--gen-weights fp8 --kv fp8", NULL}},
    {"comm --system hgx-h100 --op all-reduce --gpus 8 --bytes 1",
     {"", "--bytes 1e15", "--gpus 1", "--gpus 16777216", "--op all-to-all --gpus 16777216",
      "--op send-recv --gpus 2", "--stride 16777216", "--algo tree --gpus 1024", "--sweep-bytes",
      "--system gb200-nvl72 --vs hgx-h100 --op all-to-all --gpus 64", NULL}},
    {"train --model llama3-8b --system hgx-h100 --gpus 8 --seq 2048 --gbs 64",
     {"", "--gpus 1 --gbs 1", "--seq 1", "--seq 131072 --gbs 8", "--gbs 1 --gpus 1", "--mbs 1",
      "--tp 8 --pp 1 --cp 1", "--pp 8 --tp 1 --cp 1", "--capacity-factor 0", "--imbalance 16",
      "--pue 3", "--profile hyperscaler --tokens 1", "--profile hyperscaler --tokens 1e18",
      "--mtbi-gpu-days 1 --profile hyperscaler --tokens 1e15", "--sweep-gpus 8,16,32",
      "--precision fp8", "--recompute full --zero 3", NULL}},
    {"train --model deepseek-v3 --system gb200-nvl72 --gpus 256 --seq 4096 --gbs 2048",
     {"", "--capacity-factor 16", "--imbalance 1", "--mtp 0", "--mtp 16", "--cuda-graphs off",
      "--vs hgx-h100", NULL}},
    {"search --model gpt3-175b --system hgx-h100 --gpus 64 --seq 2048 --gbs 256 --top 2",
     {"", "--objective cost --profile hyperscaler", NULL}},
    {"compare", {"", NULL}},
    {"validate", {"", "--group rl", NULL}},
    {"reproduce", {"", NULL}},
    {"catalog", {"gpus", "systems", "models", "profiles", "reliability", NULL}},
};

/* Runs one command line; returns 1 when its output holds a non-finite number or it failed. */
/* refused counts exit 2, so that a grid of refusals shows in the summary line */
static int scan_one(const char *line, bool json, int *refused)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s%s --max-work 5", line, json ? " --json" : "");
    if (n < 0 || (size_t)n >= sizeof buf) {
        fprintf(stderr, "nan_scan: command line too long: %s\n", line);
        return 1;
    }
    char *argv[64];
    int argc = 0;
    argv[argc++] = "gpuecon";
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 62; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    char *out, why[600];
    size_t len;
    int rc = cli_check_run(argc, argv, &out, &len);
    int bad = 0;
    *refused += rc == 2;
    if (rc != 0 && rc != 2 && rc != 3) {
        fprintf(stderr, "nan_scan: gpuecon %s%s: exit %d\n", line, json ? " --json" : "", rc);
        bad = 1;
    } else if (rc != 2 && len > 0 && cli_check_nonfinite(out, len, json, rc == 3, why, sizeof why)) {
        fprintf(stderr, "nan_scan: gpuecon %s%s: %s\n", line, json ? " --json" : "", why);
        bad = 1;
    }
    free(out);
    return bad;
}

/* base without the options (and their values) that the variation sets itself */
static void without_overridden(const char *base, const char *vary, char *out, size_t cap)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", base);
    out[0] = '\0';
    bool skip_value = false;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (skip_value && t[0] != '-') {
            skip_value = false;
            continue;
        }
        skip_value = false;
        char opt[64];
        snprintf(opt, sizeof opt, "%s ", t);
        const char *hit = t[0] == '-' ? strstr(vary, opt) : NULL;
        if (hit && (hit == vary || hit[-1] == ' ')) {
            skip_value = true;
            continue;
        }
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? " " : "", t);
    }
}

int main(void)
{
    int runs = 0, bad = 0, refused = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (int v = 0; grids[g].vary[v]; v++) {
            char line[1024];
            /* the Monte Carlo only where a variation asks for trials: the analytic model is the grid */
            bool mc = strstr(grids[g].vary[v], "--trials") || strncmp(grids[g].base, "reliability", 11);
            char base[512];
            without_overridden(grids[g].base, grids[g].vary[v], base, sizeof base);
            snprintf(line, sizeof line, "%s %s%s", base, grids[g].vary[v], mc ? "" : " --trials 0");
            for (int json = 0; json < 2; json++, runs++)
                bad += scan_one(line, json, &refused);
        }
    printf("nan_scan: %d command lines (%d refused with exit 2), %d with a non-finite number in the output\n",
           runs, refused, bad);
    return bad ? 1 : 0;
}
