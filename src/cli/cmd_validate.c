/*
 * cmd_validate.c — `gpuecon validate` (not implemented yet; see the open issues).
 */
#include "cli.h"

int cmd_validate(cli *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    (void)c;
    fputs("gpuecon: validate: not implemented yet\n", stderr);
    return EXIT_INTERNAL;
}
