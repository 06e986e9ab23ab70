/*
 * catalog.h — the catalog's layout, shared by its two files (private to src/io): the store
 * and its look-ups (catalog.c), the kinds' descriptors and field introspection with the loaders
 * (catalog_load.c). The schema files (schema*.c) use the store's look-ups only, so no file of
 * the catalog calls back into the one that loads it.
 */
#ifndef GPUECON_IO_CATALOG_H
#define GPUECON_IO_CATALOG_H

#include "io/io.h"
#include "schema.h"

/* Entries sorted by name (then by position), so that n names are checked in O(n log n). */
typedef struct nameref {
    const char *name;
    size_t index;
} nameref;

typedef struct kindlist {
    const kdesc *desc; /* the kind's schema (schema_kind), set by gpuecon_catalog_new */
    centry *items;
    nameref *byname; /* the n entries sorted by name (bycap allocated), for look-ups */
    size_t n, cap, bycap;
} kindlist;

struct gpuecon_catalog {
    gpuecon_ctx *ctx;
    arena a;
    kindlist kinds[GPUECON_KIND_COUNT];
    const calib_vtrain_row *vtrain; /* CALIB_VTRAIN_PATH, parsed (NULL: not compiled in) */
    size_t n_vtrain;
};

/* qsort's order of namerefs: by name, then by position. */
int catalog_nameref_cmp(const void *pa, const void *pb);
/* n entries' names sorted (then by position), through cat's allocator: NULL when out of memory. */
nameref *catalog_sorted_names(gpuecon_ctx *ctx, const centry *e, size_t n);
/* The entry named `name` among items through their sorted names r (n of them), or NULL. */
centry *catalog_find_sorted(const nameref *r, size_t n, centry *items, const char *name);
/* The entry of a kind by name, or NULL. */
centry *catalog_entry(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name);
/* Entry i of a kind in load order, or NULL. */
const centry *catalog_entry_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i);

#endif
