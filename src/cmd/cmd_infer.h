/*
 * cmd_infer.h — option helpers cmd_infer.c shares with cmd_finetune.c.
 */
#ifndef GPUECON_CMD_INFER_H
#define GPUECON_CMD_INFER_H

#include "cli.h"

/* "q,k,v,o,gate,up,down", "all", "attn" (q,k,v,o) or "mlp" (gate,up,down) into
 * GPUECON_LORA_* bits. Prints the error and returns EXIT_USAGE when s is not such a list. */
int cmd_infer_lora_modules(cli *c, const char *option, const char *s, unsigned *out);
/* A serving/efficiency profile by name; prints the allowed names and returns EXIT_USAGE. */
int cmd_infer_serving_profile(cli *c, const char *option, const char *name, gpuecon_serving_profile *out);
/* Adds one "quantity value unit note" row to a four-column table. */
void cmd_infer_row(tbl *tb, const char *quantity, double v, int decimals, const char *unit,
                   const char *note);

#endif
