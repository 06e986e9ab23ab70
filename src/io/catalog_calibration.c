/*
 * catalog_calibration.c — which of the loaded calibrations (calibrations.yaml of a --catalog
 * overlay, docs/model.md §3.8) applies to a prediction: the most specific entry whose workload,
 * stack, system and precision each match or are unset ("any"); among equally specific ones the
 * one loaded last, as a later catalog entry replaces an earlier one.
 */
#include "io/io.h"

#include <string.h>

const gpuecon_calibration *gpuecon_catalog_calibration(const gpuecon_catalog *cat, int workload, const char *stack,
                                                       const char *system, int precision)
{
    const gpuecon_calibration *best = NULL;
    int best_score = -1;
    size_t n = gpuecon_catalog_count(cat, GPUECON_KIND_CALIBRATION);
    for (size_t i = 0; i < n; i++) {
        const gpuecon_calibration *c = gpuecon_catalog_at(cat, GPUECON_KIND_CALIBRATION, i);
        if ((c->workload >= 0 && c->workload != workload) ||
            (c->stack && (!stack || strcmp(c->stack, stack))) ||
            (c->system && (!system || strcmp(c->system, system))) ||
            (c->precision >= 0 && c->precision != precision))
            continue;
        /* a system weighs most (hardware), then the stack, precision, workload */
        int score = (c->system ? 8 : 0) + (c->stack ? 4 : 0) + (c->precision >= 0 ? 2 : 0) + (c->workload >= 0);
        if (score >= best_score) {
            best = c;
            best_score = score;
        }
    }
    return best;
}
