/*
 * exp_scan.c — no scientific notation in human output (issue 48, "First screen and words"):
 * runs every command in-process over a set of ordinary cases (the built-in scenario, the
 * scenarios of tests/cases/scenarios, each command's common options) as the terminal form and
 * checks that no number is written as a mantissa and an exponent ("8.27e+04", "1e-05"): human
 * output writes 82,660 and 0.00001 (base/numfmt.c). The HTML report is human output too and is
 * scanned. JSON and CSV keep full precision and are not scanned. Every case is a valid request: exit 0 or 3 (an infeasible answer, which still prints);
 * 2 (refused), 1 or a crash fails, so a case that stops running cannot pass unseen.
 */
#include "cli_check.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SRC_DIR
#define SRC_DIR "."
#endif

static const char *const cases[] = {
    "compare",
    "compare --summary",
    "compare --format html", /* the report: its tables, tier table, tornado and bar charts ($%.4g once) */
    "compare --format html " SRC_DIR "/tests/cases/scenarios/predicted-l70.yaml",
    "compare --trade " SRC_DIR "/tests/cases/scenarios/tier-flip.yaml",
    "compare " SRC_DIR "/tests/cases/scenarios/csv-formula.yaml",
    "compare " SRC_DIR "/tests/cases/scenarios/infeasible.yaml",
    "compare " SRC_DIR "/tests/cases/scenarios/own-vs-rent.yaml",
    "compare " SRC_DIR "/tests/cases/scenarios/predicted-l70.yaml",
    "compare " SRC_DIR "/tests/cases/scenarios/predicted-moe-fp8.yaml",
    "compare --uncertainty 50 --trials 3 " SRC_DIR "/tests/cases/scenarios/predicted-l70.yaml",
    "cost --system hgx-h100 --profile hyperscaler --tokens-per-s 728",
    "cost --system hgx-h100 --profile hyperscaler --tokens-per-s 82657 --tokens 15e12",
    "cost --system gb200-nvl72 --profile hyperscaler --tokens-per-s 0.5 --tokens 1e9",
    "reliability --system hgx-h100 --active-gpus 16384 --trials 20",
    "reliability --system gb200-nvl72 --active-gpus 16384 --tokens-per-s 2000 --profile hyperscaler --tokens 15e12",
    "infer --model gemma4-31b --system hgx-h100",
    "infer --model gemma4-31b --system hgx-h100 --sweep",
    "infer --model gemma4-31b --system hgx-h100 --concurrency 1000000", /* a band's "concurrency 1e+06 > 8192" */
    "infer --model gemma4-31b --system hgx-h100 --gpus 1000000",
    "infer --model llama3-70b --system hgx-h100 --weights fp8 --search",
    "infer --model llama3-8b --system hgx-h100 --simulate --rate 20 --requests 200",
    "infer --model llama3-70b --system hgx-h100 --prefill 1x4 --decode 1x4 --rate 5",
    "finetune --model llama3-8b --system hgx-h100 --method lora",
    "finetune --model llama3-8b --system hgx-h100 --method full --compare",
    "rl --model llama3-8b --system hgx-h100 --gpus 16",
    "comm --system hgx-h100 --op all-reduce --gpus 8 --bytes 1e9",
    "comm --system hgx-h100 --op all-reduce --gpus 64 --sweep-bytes",
    "train --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 128",
    "train --model llama3-70b --system hgx-h100 --gpus 512 --seq 8192 --gbs 1024 --profile hyperscaler --tokens 15e12",
    "train --model llama3-70b --system hgx-h100 --gpus 512 --seq 8192 --gbs 1024 --profile hyperscaler --tokens 15e12 "
    "--target-days 30",
    "train --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 128 --sweep-gpus 8,16,64",
    "train --model deepseek-v3 --system gb200-nvl72 --gpus 256 --seq 4096 --gbs 2048 --vs hgx-h100",
    "search --model llama3-70b --system hgx-h100 --gpus 256 --seq 8192 --gbs 512 --top 3",
    "validate --group serving",
    "validate --group heldout",
    "validate --group dgxc --leave-one-out",
    "calibrate " SRC_DIR "/examples/runs.yaml",
    "infer --model llama3-70b --system hgx-h100 --gpus 16 --disagg-search --ttft-ms 2000 --tpot-ms 50",
    "train --model llama3-70b --system hgx-h100 --gpus 512 --seq 8192 --gbs 1024 --profile hyperscaler --tokens 15e12 "
    "--rent-usd-per-gpu-hour 2.5",
    "validate --group rl",
    "validate --group finetune",
    "reproduce",
    "catalog gpus",
    "catalog systems",
    "catalog models",
    "catalog profiles",
    "catalog reliability",
    "catalog timelines",
    "glossary",
};

/* The first "<digit>e<sign><digit>" (or E) in text: a number in scientific notation. */
static const char *exponent_at(const char *s, size_t len)
{
    for (size_t i = 1; i + 2 < len; i++)
        if ((s[i] == 'e' || s[i] == 'E') && isdigit((unsigned char)s[i - 1]) && (s[i + 1] == '+' || s[i + 1] == '-') &&
            isdigit((unsigned char)s[i + 2]))
            return s + i;
    return NULL;
}

static int scan_one(const char *line)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s --max-work 20", line);
    if (n < 0 || (size_t)n >= sizeof buf)
        return 1;
    char *argv[64];
    int argc = 0;
    argv[argc++] = "gpuecon";
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 62; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    char *out;
    size_t len;
    int rc = cli_check_run(argc, argv, &out, &len);
    int bad = 0;
    if (rc != 0 && rc != 3) {
        fprintf(stderr, "exp_scan: gpuecon %s: exit %d\n", line, rc);
        bad = 1;
    } else {
        const char *e = out ? exponent_at(out, len) : NULL;
        if (e) {
            const char *from = e, *to = e;
            while (from > out && from[-1] != '\n')
                from--;
            while (*to && *to != '\n')
                to++;
            fprintf(stderr, "exp_scan: gpuecon %s: scientific notation in \"%.*s\"\n", line, (int)(to - from), from);
            bad = 1;
        } else if (rc == 0 && len == 0) {
            fprintf(stderr, "exp_scan: gpuecon %s: printed nothing\n", line);
            bad = 1;
        }
    }
    free(out);
    return bad;
}

int main(void)
{
    int bad = 0, runs = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, runs++)
        bad += scan_one(cases[i]);
    printf("exp_scan: %d command lines, %d with a number in scientific notation\n", runs, bad);
    return bad ? 1 : 0;
}
