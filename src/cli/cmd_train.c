/*
 * cmd_train.c — `gpuecon train` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_train(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: train: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
