/*
 * catalog_snap.h — a snapshot of a catalog (every entry's address and a hash of its struct,
 * kind by kind) to check that a failed load or a failed allocation changed nothing. Shared by
 * test_alloc_fail and the fuzz_catalog harness.
 */
#ifndef GPUECON_TESTS_CATALOG_SNAP_H
#define GPUECON_TESTS_CATALOG_SNAP_H

#include "analysis/analysis.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SNAP_MAX 256

typedef struct snap {
    size_t n[GPUECON_KIND_COUNT];
    const void *at[GPUECON_KIND_COUNT][SNAP_MAX];
    uint64_t sum[GPUECON_KIND_COUNT][SNAP_MAX];
} snap;

static const size_t snap_entry_size[GPUECON_KIND_COUNT] = {
    [GPUECON_KIND_GPU] = sizeof(gpuecon_gpu),         [GPUECON_KIND_SYSTEM] = sizeof(gpuecon_system),
    [GPUECON_KIND_PROFILE] = sizeof(gpuecon_profile), [GPUECON_KIND_MODEL] = sizeof(gpuecon_model),
    [GPUECON_KIND_RELIABILITY] = sizeof(gpuecon_reliability), [GPUECON_KIND_STACK] = sizeof(gpuecon_stack),
    [GPUECON_KIND_TIMELINE] = sizeof(gpuecon_timeline), /* its points by address: they live in the catalog's arena */
    [GPUECON_KIND_CALIBRATION] = sizeof(gpuecon_calibration),
};
_Static_assert(GPUECON_KIND_CALIBRATION + 1 == GPUECON_KIND_COUNT, "a new catalog kind needs its size here");

static inline uint64_t snap_fnv1a(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211u;
    return h;
}

/* Fills s from cat (at most SNAP_MAX entries a kind); false when a kind holds more. */
static inline bool snap_take(const gpuecon_catalog *cat, snap *s)
{
    bool all = true;
    memset(s, 0, sizeof *s);
    for (int k = 0; k < GPUECON_KIND_COUNT; k++) {
        s->n[k] = gpuecon_catalog_count(cat, (gpuecon_kind)k);
        all &= s->n[k] <= SNAP_MAX;
        for (size_t i = 0; i < s->n[k] && i < SNAP_MAX; i++) {
            s->at[k][i] = gpuecon_catalog_at(cat, (gpuecon_kind)k, i);
            s->sum[k][i] = s->at[k][i] ? snap_fnv1a(s->at[k][i], snap_entry_size[k]) : 0;
        }
    }
    return all;
}

#endif
