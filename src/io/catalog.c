/*
 * catalog.c — the catalog: the built-in default compiled from the YAML files in data/, plus files and
 * folders the user adds (--catalog DIR, --model-file FILE), looked up by name.
 *
 * A file is loaded all-or-nothing: every entry is read and checked before any is added, so a
 * bad override never leaves a half-changed catalog. Entries live in an arena owned by the
 * catalog; a replacement keeps the old entry's memory alive, so earlier pointers stay valid.
 */
#include "embedded.h"
#include "schema.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct kindlist {
    centry *items;
    size_t n, cap;
} kindlist;

struct gpuecon_catalog {
    gpuecon_ctx *ctx;
    arena a;
    kindlist kinds[GPUECON_KIND_COUNT];
};

const kdesc *schema_kind(gpuecon_kind kind)
{
    static const kdesc *const kinds[GPUECON_KIND_COUNT] = {
        &schema_kind_gpu, &schema_kind_system, &schema_kind_profile, &schema_kind_model,
        &schema_kind_reliability};
    return (unsigned)kind < GPUECON_KIND_COUNT ? kinds[kind] : NULL;
}

const char *gpuecon_kind_name(gpuecon_kind kind)
{
    const kdesc *k = schema_kind(kind);
    return k ? k->key : "unknown";
}

arena *catalog_arena(gpuecon_catalog *cat)
{
    return &cat->a;
}

/* ---- lookups ------------------------------------------------------------------------- */

static centry *find_entry(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name)
{
    if (!cat || !name || (unsigned)kind >= GPUECON_KIND_COUNT)
        return NULL;
    const kindlist *l = &cat->kinds[kind];
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

static const void *find_obj(const gpuecon_catalog *cat, gpuecon_kind kind, const char *name)
{
    centry *e = find_entry(cat, kind, name);
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
const gpuecon_reliability *gpuecon_catalog_reliability(const gpuecon_catalog *cat, const char *name)
{
    return find_obj(cat, GPUECON_KIND_RELIABILITY, name);
}

size_t gpuecon_catalog_count(const gpuecon_catalog *cat, gpuecon_kind kind)
{
    return cat && (unsigned)kind < GPUECON_KIND_COUNT ? cat->kinds[kind].n : 0;
}

static const centry *entry_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    if (!cat || (unsigned)kind >= GPUECON_KIND_COUNT || i >= cat->kinds[kind].n)
        return NULL;
    return &cat->kinds[kind].items[i];
}

const void *gpuecon_catalog_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = entry_at(cat, kind, i);
    return e ? e->obj : NULL;
}

const char *gpuecon_catalog_name_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = entry_at(cat, kind, i);
    return e ? e->name : NULL;
}

const char *gpuecon_catalog_origin(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i)
{
    const centry *e = entry_at(cat, kind, i);
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
    const kdesc *k = schema_kind(kind);
    if (!cat || !k)
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

/* ---- field introspection ---------------------------------------------------------------- */

size_t gpuecon_catalog_field_count(gpuecon_kind kind)
{
    const kdesc *k = schema_kind(kind);
    return k ? k->nfields : 0;
}

static void fill_field(const kdesc *k, const centry *e, size_t j, gpuecon_field *out)
{
    schema_field_get(k->fields, j, e->obj, e->src, e->present, out);
}

int gpuecon_catalog_field_at(const gpuecon_catalog *cat, gpuecon_kind kind, size_t i, size_t j,
                             gpuecon_field *out)
{
    const centry *e = entry_at(cat, kind, i);
    const kdesc *k = schema_kind(kind);
    if (!e || !k || j >= k->nfields)
        return GPUECON_E_NOTFOUND;
    fill_field(k, e, j, out);
    return GPUECON_OK;
}

int gpuecon_catalog_field(const gpuecon_catalog *cat, gpuecon_kind kind, const char *entry,
                          const char *field, gpuecon_field *out)
{
    const centry *e = find_entry(cat, kind, entry);
    const kdesc *k = schema_kind(kind);
    if (!e || !k)
        return GPUECON_E_NOTFOUND;
    int j = schema_field_index(k->fields, k->nfields, field);
    if (j < 0)
        return GPUECON_E_NOTFOUND;
    fill_field(k, e, (size_t)j, out);
    return GPUECON_OK;
}

/* ---- loading ---------------------------------------------------------------------------- */

static void resolve(gpuecon_catalog *cat)
{
    kindlist *l = &cat->kinds[GPUECON_KIND_SYSTEM];
    for (size_t i = 0; i < l->n; i++) {
        gpuecon_system *s = l->items[i].obj;
        s->gpu = gpuecon_catalog_gpu(cat, s->gpu_name);
    }
}

static int read_entry(gpuecon_catalog *cat, gpuecon_kind kind, const yaml_doc *doc, ynode *node,
                      gpuecon_source defsrc, centry *out, gpuecon_error *err)
{
    const kdesc *k = schema_kind(kind);
    memset(out, 0, sizeof *out);
    out->obj = arena_alloc(&cat->a, k->size);
    out->src = arena_alloc(&cat->a, k->nfields * sizeof *out->src);
    out->origin = arena_strdup(&cat->a, yaml_name(doc));
    if (!out->obj || !out->src || !out->origin)
        return err_set(err, GPUECON_E_NOMEM, yaml_name(doc), 0, 0, "out of memory");
    int rc = schema_load_object(&cat->a, k->fields, k->nfields, out->obj, out->src, &out->present,
                                doc, node, defsrc, NULL, err);
    if (rc)
        return rc;
    *(const gpuecon_source **)((char *)out->obj + k->src_off) = out->src;
    out->name = *(const char *const *)out->obj; /* every kind's first field is its name */
    if (k->validate && (rc = k->validate(cat, out, doc, node, err)))
        return rc;
    return GPUECON_OK;
}

static int commit(gpuecon_catalog *cat, gpuecon_kind kind, centry *staged, size_t n,
                  gpuecon_error *err)
{
    kindlist *l = &cat->kinds[kind];
    for (size_t i = 0; i < n; i++) {
        centry *old = find_entry(cat, kind, staged[i].name);
        if (old) {
            *old = staged[i];
            continue;
        }
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 16;
            centry *items = ctx_realloc(cat->ctx, l->items, l->cap * sizeof *items, cap * sizeof *items);
            if (!items)
                return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
            l->items = items;
            l->cap = cap;
        }
        l->items[l->n++] = staged[i];
    }
    resolve(cat);
    return GPUECON_OK;
}

/* The default provenance of a user file: the file itself, stage assumption. */
static gpuecon_source user_source(gpuecon_catalog *cat, const char *name)
{
    return (gpuecon_source){arena_strdup(&cat->a, name), GPUECON_STAGE_ASSUMPTION};
}

int gpuecon_catalog_load_buffer(gpuecon_catalog *cat, gpuecon_kind kind, const char *name,
                                const char *buf, size_t len, gpuecon_error *err)
{
    const kdesc *k = schema_kind(kind);
    if (!cat || !k)
        return err_set(err, GPUECON_E_INPUT, name, 0, 0, "invalid catalog or kind");
    yaml_doc *doc;
    int rc = yaml_parse(cat->ctx, name, buf, len, &doc, err);
    if (rc)
        return rc;
    ynode *root = yaml_root(doc);
    ynode *list = yaml_type(root) == Y_MAP ? yaml_map_get(root, k->key) : NULL;
    if (!list || yaml_map_len(root) != 1 || yaml_type(list) != Y_SEQ) {
        rc = yaml_error(doc, root, err, GPUECON_E_PARSE,
                        "expected one top-level key '%s:' holding a list of %s entries", k->key,
                        k->singular);
        yaml_free(doc);
        return rc;
    }
    size_t n = yaml_seq_len(list);
    centry *staged = ctx_alloc(cat->ctx, (n ? n : 1) * sizeof *staged);
    if (!staged) {
        yaml_free(doc);
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    }
    gpuecon_source defsrc = user_source(cat, name);
    for (size_t i = 0; i < n && rc == GPUECON_OK; i++) {
        ynode *node = yaml_seq_at(list, i);
        rc = read_entry(cat, kind, doc, node, defsrc, &staged[i], err);
        for (size_t j = 0; j < i && rc == GPUECON_OK; j++)
            if (strcmp(staged[j].name, staged[i].name) == 0)
                rc = yaml_error(doc, schema_node(node, "name"), err, GPUECON_E_INPUT,
                                "%s '%s' is defined twice in this file", k->singular,
                                staged[i].name);
    }
    if (rc == GPUECON_OK)
        rc = commit(cat, kind, staged, n, err);
    ctx_free(cat->ctx, staged, (n ? n : 1) * sizeof *staged);
    yaml_free(doc);
    return rc;
}

int gpuecon_catalog_load_file(gpuecon_catalog *cat, gpuecon_kind kind, const char *path,
                              gpuecon_error *err)
{
    if (!cat || !path)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no file given");
    char *buf;
    size_t len;
    int rc = yaml_read_file(cat->ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = gpuecon_catalog_load_buffer(cat, kind, path, buf, len, err);
    ctx_free(cat->ctx, buf, len + 1);
    return rc;
}

int gpuecon_catalog_load_dir(gpuecon_catalog *cat, const char *dir, gpuecon_error *err)
{
    struct stat st;
    if (!cat || !dir)
        return err_set(err, GPUECON_E_INPUT, "--catalog", 0, 0, "no folder given");
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(err, GPUECON_E_IO, dir, 0, 0, "not a folder");
    int found = 0;
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++) {
        char path[1024];
        int w = snprintf(path, sizeof path, "%s/%s.yaml", dir, schema_kind((gpuecon_kind)kind)->key);
        if (w < 0 || (size_t)w >= sizeof path)
            return err_set(err, GPUECON_E_INPUT, dir, 0, 0, "folder path too long");
        if (stat(path, &st) != 0)
            continue;
        found++;
        int rc = gpuecon_catalog_load_file(cat, (gpuecon_kind)kind, path, err);
        if (rc)
            return rc;
    }
    if (!found)
        return err_set(err, GPUECON_E_INPUT, dir, 0, 0,
                       "holds none of gpus.yaml, systems.yaml, profiles.yaml, models.yaml, "
                       "reliability.yaml");
    return GPUECON_OK;
}

int gpuecon_catalog_load_model_buffer(gpuecon_catalog *cat, const char *name, const char *buf,
                                      size_t len, const gpuecon_model **out, gpuecon_error *err)
{
    if (out)
        *out = NULL;
    if (!cat || !name || !buf)
        return err_set(err, GPUECON_E_INPUT, "--model-file", 0, 0, "no model given");
    yaml_doc *doc;
    int rc = yaml_parse(cat->ctx, name, buf, len, &doc, err);
    if (rc)
        return rc;
    centry e;
    rc = read_entry(cat, GPUECON_KIND_MODEL, doc, yaml_root(doc), user_source(cat, name), &e, err);
    if (rc == GPUECON_OK)
        rc = commit(cat, GPUECON_KIND_MODEL, &e, 1, err);
    if (rc == GPUECON_OK && out)
        *out = e.obj;
    yaml_free(doc);
    return rc;
}

int gpuecon_catalog_load_model_file(gpuecon_catalog *cat, const char *path, const gpuecon_model **out,
                                    gpuecon_error *err)
{
    if (out)
        *out = NULL;
    if (!cat || !path)
        return err_set(err, GPUECON_E_INPUT, "--model-file", 0, 0, "no file given");
    char *buf;
    size_t len;
    int rc = yaml_read_file(cat->ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = gpuecon_catalog_load_model_buffer(cat, path, buf, len, out, err);
    ctx_free(cat->ctx, buf, len + 1);
    return rc;
}

const char *catalog_embedded(const char *path, size_t *len);
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

int gpuecon_catalog_new(gpuecon_ctx *ctx, gpuecon_catalog **out, gpuecon_error *err)
{
    *out = NULL;
    if (!ctx)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "no context");
    gpuecon_catalog *cat = ctx_alloc(ctx, sizeof *cat);
    if (!cat)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    cat->ctx = ctx;
    arena_init(&cat->a, ctx);
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++) {
        char path[64];
        snprintf(path, sizeof path, "data/%s.yaml", schema_kind((gpuecon_kind)kind)->key);
        size_t len;
        const char *buf = catalog_embedded(path, &len);
        if (!buf)
            continue;
        int rc = gpuecon_catalog_load_buffer(cat, (gpuecon_kind)kind, path, buf, len, err);
        if (rc) {
            gpuecon_catalog_free(cat);
            return rc;
        }
    }
    *out = cat;
    return GPUECON_OK;
}

void gpuecon_catalog_free(gpuecon_catalog *cat)
{
    if (!cat)
        return;
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++)
        ctx_free(cat->ctx, cat->kinds[kind].items, cat->kinds[kind].cap * sizeof(centry));
    arena_free(&cat->a);
    ctx_free(cat->ctx, cat, sizeof *cat);
}
