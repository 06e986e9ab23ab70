/*
 * catalog.c — the catalog's store: entries by kind in load order, found by name through a
 * sorted index, the look-ups every layer above uses, and the data compiled into the library
 * (embedded files, the vTrain calibration rows). catalog_load.c fills it.
 *
 * Entries live in an arena owned by the catalog; a replacement keeps the old entry's memory
 * alive, so earlier pointers stay valid.
 */
#include "io/io.h"
#include "catalog.h"
#include "embedded.h"

#include <stdlib.h>
#include <string.h>

arena *catalog_arena(gpuecon_catalog *cat)
{
    return &cat->a;
}

/* ---- lookups ------------------------------------------------------------------------- */

int catalog_nameref_cmp(const void *pa, const void *pb)
{
    const nameref *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

nameref *catalog_sorted_names(gpuecon_ctx *ctx, const centry *e, size_t n)
{
    nameref *r = ctx_alloc(ctx, (n ? n : 1) * sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < n; i++)
        r[i] = (nameref){e[i].name, i};
    qsort(r, n, sizeof *r, catalog_nameref_cmp);
    return r;
}

centry *catalog_find_sorted(const nameref *r, size_t n, centry *items, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(r[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && !strcmp(r[lo].name, name) ? &items[r[lo].index] : NULL;
}

centry *catalog_entry(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name)
{
    if (!cat || !name || (unsigned)kind >= GPUECON_KIND_COUNT)
        return NULL;
    const kindlist *l = &cat->kinds[kind];
    return l->byname ? catalog_find_sorted(l->byname, l->n, l->items, name) : NULL;
}

static const void *find_obj(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name)
{
    centry *e = catalog_entry(cat, kind, name);
    return e ? e->obj : NULL;
}

const gpuecon_gpu *gpuecon_catalog_gpu(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_GPU, name);
}
const gpuecon_system *gpuecon_catalog_system(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_SYSTEM, name);
}
const gpuecon_profile *gpuecon_catalog_profile(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_PROFILE, name);
}
const gpuecon_model *gpuecon_catalog_model(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_MODEL, name);
}
const gpuecon_stack *gpuecon_catalog_stack(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_STACK, name);
}

const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_RELIABILITY, name);
}

const gpuecon_timeline *gpuecon_catalog_timeline(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_TIMELINE, name);
}

const gpuecon_timeline *gpuecon_catalog_timeline_for(const gpuecon_catalog *cat, const char *system,
                                                     const char *model, gpuecon_precision precision)
{
    if (!cat || !system || !model)
        return NULL;
    const kindlist *l = &cat->kinds[GPUECON_KIND_TIMELINE];
    for (size_t i = l->n; i-- > 0;) {
        const gpuecon_timeline *t = l->items[i].obj;
        if (t->precision == precision && !strcmp(t->system, system) && !strcmp(t->model, model))
            return t;
    }
    return NULL;
}

size_t gpuecon_catalog_count(const gpuecon_catalog *cat, gpuecon_kind kind)
{
    return cat && (unsigned)kind < GPUECON_KIND_COUNT ? cat->kinds[kind].n : 0;
}

const centry *catalog_entry_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    if (!cat || (unsigned)kind >= GPUECON_KIND_COUNT || i >= cat->kinds[kind].n)
        return NULL;
    return &cat->kinds[kind].items[i];
}

const void *gpuecon_catalog_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = catalog_entry_at(cat, kind, i);
    return e ? e->obj : NULL;
}

const char *gpuecon_catalog_name_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = catalog_entry_at(cat, kind, i);
    return e ? e->name : NULL;
}

const char *gpuecon_catalog_origin(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = catalog_entry_at(cat, kind, i);
    return e ? e->origin : NULL;
}

int gpuecon_catalog_find(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name,
                         const char *what, const void **out, gpuecon_error *err)
{
    const void *obj = find_obj(cat, kind, name);
    if (out)
        *out = obj;
    if (obj)
        return GPUECON_OK;
    const kdesc *k = cat && (unsigned)kind < GPUECON_KIND_COUNT ? cat->kinds[kind].desc : NULL;
    if (!k)
        return err_set(err, GPUECON_E_INTERNAL, what, 0, 0, "no catalog");
    const kindlist *l = &cat->kinds[kind];
    const char *names[256];
    size_t n = l->n < 256 ? l->n : 256;
    char known[400] = "";
    for (size_t i = 0; i < n; i++) {
        names[i] = l->items[i].name;
        if (strlen(known) + strlen(names[i]) + 8 < sizeof known) {
            strcat(known, i ? ", " : "");
            strcat(known, names[i]);
        } else if (!strstr(known, "...")) {
            strcat(known, ", ...");
        }
    }
    const char *near = name ? gpuecon_suggest(name, names, n) : NULL;
    if (near)
        return err_set(err, GPUECON_E_NOTFOUND, what, 0, 0,
                       "unknown %s '%s'; did you mean '%s'? (known: %s)", k->singular,
                       name ? name : "", near, known);
    return err_set(err, GPUECON_E_NOTFOUND, what, 0, 0, "unknown %s '%s' (known: %s)", k->singular,
                   name ? name : "", known);
}

uint64_t catalog_present(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name)
{
    const centry *e = catalog_entry(cat, kind, name);
    return e ? e->present : 0;
}

const char *catalog_embedded(const char *path, size_t *len)
{
    for (const embedded_file *f = embedded_files; f->path; f++)
        if (strcmp(f->path, path) == 0) {
            if (len)
                *len = f->len;
            return f->data;
        }
    return NULL;
}

const calib_vtrain_row *catalog_vtrain(const gpuecon_catalog *cat, size_t *n)
{
    *n = cat->n_vtrain;
    return cat->vtrain;
}
