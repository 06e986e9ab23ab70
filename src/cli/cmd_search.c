/*
 * cmd_search.c — placeholder replaced below.
 */
#include "cli.h"

int cmd_search(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: search: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
