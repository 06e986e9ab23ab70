/*
 * fuzz_cli.c — libFuzzer harness over the command line itself. The input is split at newlines
 * into argv[1..] (at most 48 arguments) and run as src/cli/main.c runs it (argv -> request ->
 * output, tests/cli_check.c): every subcommand, its option parsing, the models, the emitters.
 *
 * The contract checked: the exit code is 0, 2 or 3 (1 is an internal error, a crash is a
 * crash), and no NaN or infinity reaches the output (tests/cli_check.c). Inputs that name a path
 * (a '/'), an output file (-o, --output) or a gnuplot chart (--plot) are skipped, so the harness
 * writes no files and starts no programs. The work budget is pinned to 1 CPU-second
 * (--max-work) so that each input stays short. compare, validate and reproduce (also the
 * default command) are skipped: each runs a whole scenario or calibration set, seconds per input
 * under the sanitizers; fuzz_scenario covers compare's input and the CTests cover the rest.
 */
#include "cli_check.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_ARGS = 48 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096 || memchr(data, '\0', size) || memchr(data, '/', size))
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 4];
    int argc = 0;
    argv[argc++] = "gpuecon";
    bool json = false, skip = false, command = false, help = false;
    for (char *save = NULL, *t = strtok_r(text, "\n", &save); t && !skip; t = strtok_r(NULL, "\n", &save)) {
        if (!command && t[0] != '-') { /* the command (see cli_check_run): the slow ones are skipped */
            command = true;
            skip = !strcmp(t, "compare") || !strcmp(t, "validate") || !strcmp(t, "reproduce");
        }
        skip = skip || argc >= MAX_ARGS || strstr(t, "--plot") || strstr(t, "--max-work") ||
               !strncmp(t, "-o", 2) || !strncmp(t, "--output", 8);
        json = json || !strcmp(t, "--json") || !strcmp(t, "--format=json");
        help = help || !strcmp(t, "-h") || !strcmp(t, "--help");
        argv[argc++] = t;
    }
    if (!skip && command) {
        argv[argc++] = "--max-work";
        argv[argc++] = "1";
        argv[argc] = NULL;
        char *out, why[600];
        size_t len;
        int rc = cli_check_run(argc, argv, &out, &len);
        if (rc != 0 && rc != 2 && rc != 3) {
            fprintf(stderr, "fuzz_cli: exit %d\n", rc);
            abort();
        }
        /* help is text whatever the format asked for */
        if (rc != 2 && len > 0 && cli_check_nonfinite(out, len, json && !help, rc == 3, why, sizeof why)) {
            fprintf(stderr, "fuzz_cli: %s\n", why);
            abort();
        }
        free(out);
    }
    free(text);
    return 0;
}
