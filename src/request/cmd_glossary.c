/*
 * cmd_glossary.c — `gpuecon glossary` (on the command line also `gpuecon help terms`): the terms
 * the outputs use (ETTR, MTBI, MFU, TPOT, ...), each with its unit and where docs/model.md defines
 * it (render/glossary.c, the same table as the README's glossary). A library command, so the web
 * API and Python (gpuecon.glossary()) have it too.
 */
#include "cli.h"

int cmd_glossary(cli *c, int argc, char **argv)
{
    static const cmd_usage usage = {
        "glossary   (also: gpuecon help terms)",
        "The terms gpuecon's outputs use (ETTR, MTBI, MTTI, MFU, TPOT, TTFT, goodput, PUE, TCO,\n"
        "$/Mtok, HBM, TP/PP/EP/CP, ZeRO, ...): one definition each, its unit and where\n"
        "docs/model.md defines it. The README's glossary is the same table.",
        "gpuecon help terms"};
    int rc = opts_parse(c, argc, argv, NULL, 0, &usage, NULL, 0, NULL);
    return rc ? rc : cli_render(c, &render_terms, NULL);
}
