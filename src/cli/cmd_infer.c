/*
 * cmd_infer.c — `gpuecon infer` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_infer(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: infer: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
