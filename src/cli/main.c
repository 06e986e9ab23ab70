/*
 * main.c — the gpuecon command: global options, subcommand dispatch, exit codes.
 *
 * With no subcommand gpuecon runs its main job (see DEFAULT_COMMAND).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(cli *c, int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"catalog", cmd_catalog, "list GPUs, systems, TCO profiles, models with their sources"},
    {"cost", cmd_cost, "$ per 1M tokens, J/token, totals from a measured throughput"},
    {"reproduce", cmd_reproduce, "recompute every arithmetic figure of the seed documents"},
    {"comm", cmd_comm, "time of one collective on a system's two-level network"},
    {"train", cmd_train, "predicted training step: throughput, MFU, memory, breakdown"},
    {"search", cmd_search, "rank the feasible parallel configurations of a training job"},
    {"validate", cmd_validate, "predicted vs published on the calibration set"},
    {"reliability", cmd_reliability, "goodput of a long job under failures, checkpoints, spares"},
    {"infer", cmd_infer, "serving capacity, throughput, latency and cost per token"},
    {"finetune", cmd_finetune, "LoRA or full fine-tuning memory and speed"},
    {"compare", cmd_compare, "platforms side by side for a workload, with break-even"},
};

#define DEFAULT_COMMAND "compare"

static void usage(FILE *f)
{
    fprintf(f, "gpuecon %s — what it really costs to train or serve a model on a GPU platform\n\n"
               "usage: gpuecon [command] [options]     (no command: %s)\n\ncommands:\n",
            GPUECON_VERSION, DEFAULT_COMMAND);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nglobal options: --json --csv --format F -o FILE --catalog DIR --model-file FILE\n"
               "run 'gpuecon COMMAND --help' for a command's options; docs/cli.md has them all.\n");
}

static bool takes_value(const char *a)
{
    return !strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
           !strcmp(a, "--catalog") || !strcmp(a, "--model-file");
}

int main(int argc, char **argv)
{
    /* find the subcommand: the first argument that is neither an option nor its value */
    int ci = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            ci = i;
            break;
        }
        if (takes_value(argv[i]) && !strchr(argv[i], '='))
            i++;
    }
    for (int i = 1; i < (ci ? ci : argc); i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("gpuecon %s\n", GPUECON_VERSION);
            return EXIT_OK;
        }
        if (!ci && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
            usage(stdout);
            return EXIT_OK;
        }
    }
    const char *name = ci ? argv[ci] : DEFAULT_COMMAND;
    const command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, name))
            cmd = &commands[i];
    if (!cmd) {
        const char *names[32];
        size_t n = sizeof commands / sizeof commands[0];
        for (size_t i = 0; i < n; i++)
            names[i] = commands[i].name;
        const char *near = gpuecon_suggest(name, names, n);
        if (near)
            fprintf(stderr, "gpuecon: %s: unknown command; did you mean '%s'? (gpuecon --help)\n", name,
                    near);
        else
            fprintf(stderr, "gpuecon: %s: unknown command (gpuecon --help lists them)\n", name);
        return EXIT_USAGE;
    }
    /* argv for the command: its name, then every other argument in order */
    char **args = malloc(sizeof *args * (size_t)(argc + 1));
    if (!args)
        return EXIT_INTERNAL;
    int n = 0;
    args[n++] = (char *)cmd->name;
    for (int i = 1; i < argc; i++)
        if (i != ci)
            args[n++] = argv[i];
    args[n] = NULL;

    cli c = {0};
    c.progress_pct = -1;
    gpuecon_ctx_config cfg = {0};
    cfg.seed = 0x9e3779b97f4a7c15ULL;
    cfg.progress = cli_progress;
    cfg.progress_ud = &c;
    c.ctx = gpuecon_ctx_new(&cfg);
    c.cmd = cmd->name;
    int rc = c.ctx ? cmd->run(&c, n, args) : EXIT_INTERNAL;
    if (rc == EXIT_HELP)
        rc = EXIT_OK;
    gpuecon_catalog_free(c.cat);
    gpuecon_ctx_free(c.ctx);
    free(args);
    return rc;
}
