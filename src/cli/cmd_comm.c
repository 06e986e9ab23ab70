/*
 * cmd_comm.c — `gpuecon comm` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_comm(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: comm: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
