/*
 * cmd_reliability.c — `gpuecon reliability` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_reliability(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: reliability: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
