/*
 * cmd_finetune.c — `gpuecon finetune` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_finetune(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: finetune: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
