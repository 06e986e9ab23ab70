/*
 * cmd_compare.c — `gpuecon compare` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_compare(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: compare: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
