/*
 * names.h — the one table of names of each enum that parsers and printers spell out (private;
 * shared by the library's layers: io's schemas, the command option tables, core's texts).
 * Defined in error.c beside gpuecon_precision_name, which reads the first.
 */
#ifndef GPUECON_NAMES_H
#define GPUECON_NAMES_H

/* gpuecon_precision in enum order: "bf16", "fp8", "fp4", then NULL. */
extern const char *const names_precision[];
/* The same without FP4 ("bf16", "fp8", NULL): KV caches and fine-tuning, which offer no FP4. */
extern const char *const names_precision_no_fp4[];
/* The operator tiers of reliability.yaml, best first: "best", "typical", "poor", then NULL. */
extern const char *const names_tier[];
enum { TIER_BEST, TIER_TYPICAL, TIER_POOR, TIER_COUNT };

#endif
