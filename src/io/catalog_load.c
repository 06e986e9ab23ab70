/*
 * catalog_load.c — filling the catalog: the built-in default compiled from the YAML files in
 * data/, plus files and folders the user adds (--catalog DIR, --model-file FILE), each read
 * through its kind's schema (schema*.c), and the kinds' descriptors and field introspection.
 *
 * A file is loaded all-or-nothing: every entry is read and checked before any is added, so a
 * bad override never leaves a half-changed catalog.
 */
#include "io/io.h"
#include "catalog.h"
#include "embedded.h"
#include "hf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const kdesc *schema_kind(gpuecon_kind kind)
{
    static const kdesc *const kinds[GPUECON_KIND_COUNT] = {
        &schema_kind_gpu, &schema_kind_system, &schema_kind_profile, &schema_kind_model,
        &schema_kind_reliability, &schema_kind_stack, &schema_kind_timeline,
        &schema_kind_calibration};
    return (unsigned)kind < GPUECON_KIND_COUNT ? kinds[kind] : NULL;
}

const char *gpuecon_kind_name(gpuecon_kind kind)
{
    const kdesc *k = schema_kind(kind);
    return k ? k->key : "unknown";
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
    const centry *e = catalog_entry_at(cat, kind, i);
    const kdesc *k = schema_kind(kind);
    if (!e || !k || j >= k->nfields)
        return GPUECON_E_NOTFOUND;
    fill_field(k, e, j, out);
    return GPUECON_OK;
}

int gpuecon_catalog_field(const gpuecon_catalog *cat, gpuecon_kind kind, const char *entry,
                          const char *field, gpuecon_field *out)
{
    const centry *e = catalog_entry(cat, kind, entry);
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
        s->clock_factor = gpuecon_power_clock_factor(s->gpu, s->power_limit_w);
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
                                doc, node, defsrc, k->extra, "docs/catalog.md", err);
    if (rc)
        return rc;
    *(const gpuecon_source **)((char *)out->obj + k->src_off) = out->src;
    if (k->validate && (rc = k->validate(cat, out, doc, node, err)))
        return rc;
    out->name = *(const char *const *)out->obj; /* every kind's first field is its name */
    if (!out->name) /* the commit indexes entries by name: none may lack one */
        return yaml_error(doc, node, err, GPUECON_E_PARSE, "missing required field 'name'");
    return GPUECON_OK;
}

/* Adds the staged entries (their names unique among themselves) to the catalog, replacing
 * entries of the same name; O((n + existing) log existing). */
static int commit(gpuecon_catalog *cat, gpuecon_kind kind, centry *staged, size_t n,
                  gpuecon_error *err)
{
    kindlist *l = &cat->kinds[kind];
    size_t n0 = l->n;
    nameref *idx = catalog_sorted_names(cat->ctx, l->items, n0);
    if (!idx)
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    size_t grow = 0;
    for (size_t i = 0; i < n; i++)
        grow += !catalog_find_sorted(idx, n0, l->items, staged[i].name);
    if (n0 + grow > l->cap) { /* reserve first: a failure must leave the catalog unchanged */
        size_t cap = l->cap ? l->cap : 16;
        while (cap < n0 + grow)
            cap *= 2;
        centry *items = ctx_realloc(cat->ctx, l->items, l->cap * sizeof *items, cap * sizeof *items);
        if (!items) {
            ctx_free(cat->ctx, idx, (n0 ? n0 : 1) * sizeof *idx);
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        }
        l->items = items;
        l->cap = cap;
    }
    nameref *byname = ctx_alloc(cat->ctx, l->cap * sizeof *byname);
    if (!byname) {
        ctx_free(cat->ctx, idx, (n0 ? n0 : 1) * sizeof *idx);
        return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        centry *old = catalog_find_sorted(idx, n0, l->items, staged[i].name);
        if (old)
            *old = staged[i];
        else
            l->items[l->n++] = staged[i];
    }
    ctx_free(cat->ctx, idx, (n0 ? n0 : 1) * sizeof *idx);
    for (size_t i = 0; i < l->n; i++)
        byname[i] = (nameref){l->items[i].name, i};
    qsort(byname, l->n, sizeof *byname, catalog_nameref_cmp);
    ctx_free(cat->ctx, l->byname, l->bycap * sizeof *l->byname);
    l->byname = byname;
    l->bycap = l->cap;
    resolve(cat);
    return GPUECON_OK;
}

/* The default provenance of a user file: the file itself, stage assumption. */
static gpuecon_source user_source(gpuecon_catalog *cat, const char *name)
{
    return (gpuecon_source){arena_strdup(&cat->a, name), GPUECON_STAGE_ASSUMPTION};
}

/* The first entry (in file order) whose name an earlier entry of the same file already has:
 * reported at its name; O(n log n). Returns 0 when the names are unique. */
static int twice_in_file(gpuecon_catalog *cat, const kdesc *k, const yaml_doc *doc, ynode *list,
                         const centry *staged, size_t n, gpuecon_error *err)
{
    nameref *r = catalog_sorted_names(cat->ctx, staged, n);
    if (!r)
        return err_set(err, GPUECON_E_NOMEM, yaml_name(doc), 0, 0, "out of memory");
    size_t dup = n;
    for (size_t i = 1; i < n; i++)
        if (!strcmp(r[i].name, r[i - 1].name) && r[i].index < dup)
            dup = r[i].index;
    ctx_free(cat->ctx, r, (n ? n : 1) * sizeof *r);
    if (dup == n)
        return GPUECON_OK;
    void *it = NULL;
    ynode *node = NULL;
    for (size_t i = 0; i <= dup; i++)
        node = yaml_seq_next(list, &it);
    return yaml_error(doc, schema_node(node, "name"), err, GPUECON_E_INPUT,
                      "%s '%s' is defined twice in this file", k->singular, staged[dup].name);
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
    if (!defsrc.text) {
        ctx_free(cat->ctx, staged, (n ? n : 1) * sizeof *staged);
        yaml_free(doc);
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    }
    void *it = NULL;
    ynode *node;
    size_t nread = 0;
    while (rc == GPUECON_OK && nread < n && (node = yaml_seq_next(list, &it)))
        if ((rc = read_entry(cat, kind, doc, node, defsrc, &staged[nread], err)) == GPUECON_OK)
            nread++;
    /* a name given twice among the entries read is reported first, as the earlier reader did */
    int drc = twice_in_file(cat, k, doc, list, staged, nread, err);
    if (drc)
        rc = drc;
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

/* What a load of several files may change: each kind's entry and name arrays, copied so that a
 * failure in a later file puts back what an earlier one replaced (all or nothing). Taking it
 * is the only allocation; putting it back cannot fail (the arrays only ever grow). */
struct catalog_snapshot {
    centry *items[GPUECON_KIND_COUNT];
    nameref *byname[GPUECON_KIND_COUNT];
    size_t n[GPUECON_KIND_COUNT];
};
typedef struct catalog_snapshot snapshot;

static void snapshot_drop(gpuecon_catalog *cat, snapshot *s)
{
    for (int k = 0; k < GPUECON_KIND_COUNT; k++) {
        size_t n = s->n[k] ? s->n[k] : 1;
        ctx_free(cat->ctx, s->items[k], n * sizeof *s->items[k]);
        ctx_free(cat->ctx, s->byname[k], n * sizeof *s->byname[k]);
    }
}

static int snapshot_take(gpuecon_catalog *cat, snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < GPUECON_KIND_COUNT; k++) {
        const kindlist *l = &cat->kinds[k];
        size_t n = l->n ? l->n : 1;
        s->n[k] = l->n;
        s->items[k] = ctx_alloc(cat->ctx, n * sizeof *s->items[k]);
        s->byname[k] = ctx_alloc(cat->ctx, n * sizeof *s->byname[k]);
        if (!s->items[k] || !s->byname[k]) {
            snapshot_drop(cat, s);
            return GPUECON_E_NOMEM;
        }
        if (l->n) {
            memcpy(s->items[k], l->items, l->n * sizeof *l->items);
            memcpy(s->byname[k], l->byname, l->n * sizeof *l->byname);
        }
    }
    return GPUECON_OK;
}

static void snapshot_restore(gpuecon_catalog *cat, snapshot *s)
{
    for (int k = 0; k < GPUECON_KIND_COUNT; k++) {
        kindlist *l = &cat->kinds[k];
        if (s->n[k]) {
            memcpy(l->items, s->items[k], s->n[k] * sizeof *l->items);
            memcpy(l->byname, s->byname[k], s->n[k] * sizeof *l->byname);
        }
        l->n = s->n[k];
    }
    resolve(cat);
    snapshot_drop(cat, s);
}

int catalog_snapshot_take(gpuecon_catalog *cat, catalog_snapshot **out)
{
    *out = ctx_alloc(cat->ctx, sizeof **out);
    if (!*out)
        return GPUECON_E_NOMEM;
    if (snapshot_take(cat, (snapshot *)*out)) {
        ctx_free(cat->ctx, *out, sizeof(snapshot));
        *out = NULL;
        return GPUECON_E_NOMEM;
    }
    return GPUECON_OK;
}

void catalog_snapshot_end(gpuecon_catalog *cat, catalog_snapshot *s, bool restore)
{
    if (!s)
        return;
    if (restore)
        snapshot_restore(cat, (snapshot *)s);
    else
        snapshot_drop(cat, (snapshot *)s);
    ctx_free(cat->ctx, s, sizeof(snapshot));
}

static int load_dir_files(gpuecon_catalog *cat, const char *dir, gpuecon_error *err);

int gpuecon_catalog_load_dir(gpuecon_catalog *cat, const char *dir, gpuecon_error *err)
{
    if (!cat || !dir)
        return err_set(err, GPUECON_E_INPUT, OPTION("catalog"), 0, 0, "no folder given");
    snapshot snap;
    if (snapshot_take(cat, &snap))
        return err_set(err, GPUECON_E_NOMEM, dir, 0, 0, "out of memory");
    int rc = load_dir_files(cat, dir, err);
    if (rc)
        snapshot_restore(cat, &snap);
    else
        snapshot_drop(cat, &snap);
    return rc;
}

/* Loads each kind's file of dir in turn (gpus.yaml first: systems name their GPU). */
static int load_dir_files(gpuecon_catalog *cat, const char *dir, gpuecon_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return err_set(err, GPUECON_E_IO, dir, 0, 0, "cannot open the folder: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return err_set(err, GPUECON_E_IO, dir, 0, 0, "not a folder");
    int found = 0;
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++) {
        char path[1024];
        int w = snprintf(path, sizeof path, "%s/%s.yaml", dir, schema_kind((gpuecon_kind)kind)->key);
        if (w < 0 || (size_t)w >= sizeof path)
            return err_set(err, GPUECON_E_INPUT, dir, 0, 0, "folder path too long");
        /* only "no such file" means absent: a dangling link, a link loop or a folder that
           cannot be searched is an error, never a kind silently left out */
        if (lstat(path, &st) != 0) {
            if (errno == ENOENT)
                continue;
            return err_set(err, GPUECON_E_IO, path, 0, 0, "cannot read: %s", strerror(errno));
        }
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
            return err_set(err, GPUECON_E_IO, path, 0, 0, "a symbolic link that cannot be followed: %s",
                           strerror(errno));
        found++;
        int rc = gpuecon_catalog_load_file(cat, (gpuecon_kind)kind, path, err);
        if (rc)
            return rc;
    }
    if (!found)
        return err_set(err, GPUECON_E_INPUT, dir, 0, 0,
                       "holds none of gpus.yaml, systems.yaml, profiles.yaml, models.yaml, "
                       "reliability.yaml, stacks.yaml, timelines.yaml, calibrations.yaml");
    return GPUECON_OK;
}

int gpuecon_catalog_load_model_buffer(gpuecon_catalog *cat, const char *name, const char *buf,
                                      size_t len, const gpuecon_model **out, gpuecon_error *err)
{
    if (out)
        *out = NULL;
    if (!cat || !name || !buf)
        return err_set(err, GPUECON_E_INPUT, OPTION("model_file"), 0, 0, "no model given");
    yaml_doc *doc;
    int rc = yaml_parse(cat->ctx, name, buf, len, &doc, err);
    if (rc)
        return rc;
    /* a Hugging Face config.json: read through its model-file form (hf.c) */
    strbuf hf_text = {0};
    if (hf_is_config(doc)) {
        rc = hf_model_yaml(cat->ctx, doc, name, &hf_text, err);
        yaml_free(doc);
        if (rc)
            return rc;
        if ((rc = yaml_parse(cat->ctx, name, hf_text.s ? hf_text.s : "", hf_text.len, &doc, err))) {
            sb_free(&hf_text);
            return rc;
        }
    }
    centry e;
    gpuecon_source defsrc = user_source(cat, name);
    rc = defsrc.text ? read_entry(cat, GPUECON_KIND_MODEL, doc, yaml_root(doc), defsrc, &e, err)
                     : err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    if (rc == GPUECON_OK)
        rc = commit(cat, GPUECON_KIND_MODEL, &e, 1, err);
    if (rc == GPUECON_OK && out)
        *out = e.obj;
    if (rc && hf_text.s && err) {
        /* a check of the model the config maps to: its position is in the mapped text */
        static const char note[] = " (in the model this config.json maps to, docs/catalog.md)";
        size_t n = strlen(err->message);
        if (n + sizeof note <= sizeof err->message)
            memcpy(err->message + n, note, sizeof note);
        err->line = err->column = 0;
    }
    yaml_free(doc);
    sb_free(&hf_text);
    return rc;
}

int gpuecon_catalog_load_model_file(gpuecon_catalog *cat, const char *path, const gpuecon_model **out,
                                    gpuecon_error *err)
{
    if (out)
        *out = NULL;
    if (!cat || !path)
        return err_set(err, GPUECON_E_INPUT, OPTION("model_file"), 0, 0, "no file given");
    char *buf;
    size_t len;
    int rc = yaml_read_file(cat->ctx, path, &buf, &len, err);
    if (rc)
        return rc;
    rc = gpuecon_catalog_load_model_buffer(cat, path, buf, len, out, err);
    ctx_free(cat->ctx, buf, len + 1);
    return rc;
}

/* The vTrain calibration CSV (header, then 12 comma-separated numbers a line) into cat->vtrain. */
static int load_vtrain(gpuecon_catalog *cat, gpuecon_error *err)
{
    static const char path[] = CALIB_VTRAIN_PATH;
    size_t len, rows = 0;
    const char *p = catalog_embedded(path, &len), *end = p ? p + len : NULL;
    if (!p)
        return GPUECON_OK;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) && ++q < end;)
        rows++;
    calib_vtrain_row *v = arena_alloc(&cat->a, (rows ? rows : 1) * sizeof *v);
    if (!v)
        return err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
    size_t n = 0;
    int line = 1;
    p = memchr(p, '\n', (size_t)(end - p)); /* header */
    while (p && ++p < end && n < rows) {
        line++;
        calib_vtrain_row *r = &v[n++];
        char *q = (char *)p;
        int got = 0;
        for (; got < 12; got++) {
            r->f[got] = strtod(q, &q);
            if (got < 11 && *q != ',')
                break;
            q++;
        }
        if (got < 11)
            return err_set(err, GPUECON_E_PARSE, path, line, 1, "expected 12 numbers");
        r->line = line;
        p = memchr(p, '\n', (size_t)(end - p));
    }
    cat->vtrain = v;
    cat->n_vtrain = n;
    return GPUECON_OK;
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
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++)
        cat->kinds[kind].desc = schema_kind((gpuecon_kind)kind);
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
    int rc = load_vtrain(cat, err);
    if (rc) {
        gpuecon_catalog_free(cat);
        return rc;
    }
    *out = cat;
    return GPUECON_OK;
}

void gpuecon_catalog_free(gpuecon_catalog *cat)
{
    if (!cat)
        return;
    for (int kind = 0; kind < GPUECON_KIND_COUNT; kind++)
    {
        ctx_free(cat->ctx, cat->kinds[kind].items, cat->kinds[kind].cap * sizeof(centry));
        ctx_free(cat->ctx, cat->kinds[kind].byname, cat->kinds[kind].bycap * sizeof(nameref));
    }
    arena_free(&cat->a);
    ctx_free(cat->ctx, cat, sizeof *cat);
}
